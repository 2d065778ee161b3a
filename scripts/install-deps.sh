#!/usr/bin/env bash
# Installs what asyncfix needs on Debian bookworm, by group — `build` (what `scripts/run.sh demo`
# needs), `test` (the README's test command), `browser`, `tidy`, `dist`, `sanitizers` and `torch` (the lanes
# .ci/run adds), `wasm` (the WebAssembly build, docs/wasm.md), `windows` (the Windows x64 cross
# build, docs/windows.md), or `all` (the default) — and
# nothing that is already there: a second run on a ready machine changes nothing and takes about a
# second.
# Runs as root, or through sudo when it is available.
set -euo pipefail

usage="usage: $0 [build|test|browser|tidy|dist|sanitizers|torch|wasm|windows|all]...  (default: all)"
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(all)

packages=()
want() { # group: whether it was asked for (or `all`)
  local g
  for g in "${groups[@]}"; do [ "$g" = "$1" ] || [ "$g" = all ] && return 0; done
  return 1
}
for g in "${groups[@]}"; do
  case "$g" in build | test | browser | tidy | dist | sanitizers | torch | wasm | windows | all) ;; *) echo "$usage" >&2; exit 2 ;; esac
done
# The tests need what building needs; so does everything else.
want test || want browser || want tidy || want dist || want sanitizers || want torch || want wasm || want windows && groups+=(build)

if want build; then
  packages+=(
    g++ cmake ninja-build pkg-config ca-certificates  # toolchain; certificates for npm
    nlohmann-json3-dev libcli11-dev libtomlplusplus-dev  # libraries (DESIGN.md §3)
    python3 git
  )
  # npm fetches the pinned tree-sitter sources. A machine may already have Node.js with its own
  # npm (e.g. from nodesource); only install Debian's when there is no npm at all.
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
if want test; then
  packages+=(
    catch2                                            # the C++ tests
    patch e2fsprogs                                   # CLI tests (patch -p1, chattr)
    python3-jsonschema                                # CLI tests: SARIF validated against the 2.1.0 schema
    # The library for other tools (issue 9): the flake8 plugin's tests (python3-flake8; the Python
    # module itself needs nothing: ctypes over the C API), cpack -G DEB's dependency scan
    # (dpkg-dev, file).
    python3-flake8 dpkg-dev file
    # Editor tests (label `editor`, tests/editors/): real clients against asyncfix-lsp. On
    # bookworm: Neovim 0.7.2, Emacs 28.2 without X, eglot 1.9.
    neovim emacs-nox elpa-eglot
    clang-format                                      # style.clang_format (scripts/format.sh --check)
  )
fi
if want browser; then
  # The VS Code lane (tests/editors/vscode, CTest label `browser`, run by .ci/run): Debian's
  # chromium, driven by playwright-core; ripgrep, which code-server's search needs
  # (tests/editors/vscode/setup.sh seeds it as @vscode/ripgrep's download); and what
  # code-server's native modules build against (node-gyp with g++, make, python3, pkg-config).
  packages+=(chromium ripgrep make libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev)
fi
if want tidy; then
  packages+=(clang-tidy) # style.clang_tidy (scripts/tidy.sh), in the slow lane
fi
if want dist; then
  # Distribution (issue 14; tests/dist, CTest label `dist`): the wheel built with Debian's
  # python3-build, installed into a fresh venv and into a debootstrapped bookworm root; Debian's
  # pre-commit runs the hooks; the action's test reads action.yml with python3-yaml. The
  # manylinux2014 wheel (issue 31, scripts/build-manylinux.sh): debootstrap makes its bullseye
  # build root (whose g++-10 and aarch64 cross compiler come from bullseye itself), readelf
  # (binutils) checks its files; qemu-user-static runs the aarch64 build (qemu-aarch64-static -L,
  # no binfmt_misc registration needed).
  packages+=(python3-build python3-venv debootstrap binutils pre-commit python3-yaml qemu-user-static)
fi
if want torch; then
  # The PyTorch-migration rules' runtime oracle (tests/torch, CTest label `torch`): Debian's
  # PyTorch 1.13 (CPU), torchvision, NumPy 1.24 and SciPy, run by /usr/bin/python3.
  packages+=(python3-torch python3-torchvision python3-numpy python3-scipy)
fi
if want wasm; then
  # The WebAssembly build (issue 33; the `wasm` preset, CTest label `wasm`, docs/wasm.md):
  # Debian's emscripten 3.1.6 (it brings clang-14, lld-14 and binaryen's wasm-opt); the
  # modules run under the machine's Node (>= 18; bookworm's nodejs is 18).
  packages+=(emscripten)
fi
if want windows; then
  # The Windows x64 cross build (issue 31; the `windows` preset, CTest label `windows`,
  # docs/windows.md): mingw-w64's g++ with POSIX threads (std::thread, std::mutex), whose .exe
  # files wine64 runs in the tests.
  packages+=(g++-mingw-w64-x86-64-posix wine64)
fi
if want sanitizers; then
  # Reliability (tests/fuzz, the tsan preset): clang with libFuzzer and its sanitizer runtimes;
  # ThreadSanitizer's GCC runtime (libtsan2 comes with g++, named here so a minimal image gets it).
  packages+=(clang libclang-rt-14-dev libtsan2 llvm)  # llvm: llvm-cov, llvm-profdata (fuzz coverage)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and not root; run as root or install sudo" >&2
  exit 2
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
