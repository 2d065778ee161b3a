#!/usr/bin/env bash
# The manylinux2014 wheels (issue 31): asyncfix, asyncfix-lsp and the Python package's library
# built by Debian bullseye's g++-10 (x86_64) or its cross compiler g++-aarch64-linux-gnu (10 too)
# against bullseye's glibc (2.31) in a debootstrapped root, libstdc++ and libgcc linked statically,
# thread_local destructors kept off GLIBC_2.18 (ASYNCFIX_GLIBC_2_17), so that nothing but
# glibc ≤ 2.17 is needed. The wheel's tag is computed from the files by the build backend
# (packaging/pep517), as for every wheel.
#
#   scripts/build-manylinux.sh [--arch x86_64|aarch64] [OUTDIR]   the wheel into OUTDIR (default: dist/)
#   scripts/build-manylinux.sh --root-only                         only the root (.ci/run makes it early)
#
# aarch64 is cross-compiled; what the build runs of its own programs (the man pages come from the
# commands' --help) runs under the host's qemu-aarch64-static with the root's aarch64 glibc
# (<root>/usr/aarch64-linux-gnu, bullseye's libc6-arm64-cross), the way the tests run them too.
#
# Host CMake and Ninja drive the build (bullseye's CMake 3.18 is older than the project needs);
# each compile and link runs bullseye's compiler under chroot. The build tree lives inside the
# root, which reaches itself at its host path through a symbolic link, so every path means the
# same file inside and outside. The header-only libraries (nlohmann-json, CLI11, toml++) are the
# host's Debian packages' headers, copied in: bullseye's are older than the project needs.
#
# Cached in $ASYNCFIX_DIST_CACHE (default build/dist-cache): the root (debootstrap, once; a second
# run reuses it) and the build tree (incremental). Needs root (debootstrap, chroot) and the
# mirror ($ASYNCFIX_DEBIAN_MIRROR, default deb.debian.org) for the first run; exits 77 without.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=x86_64
root_only=
if [ "${1:-}" = --root-only ]; then
  root_only=1
  shift
elif [ "${1:-}" = --arch ]; then
  arch=${2:-}
  shift 2 || true
fi
case "$arch" in
  x86_64 | aarch64) ;;
  *) echo "usage: $0 [--arch x86_64|aarch64] [OUTDIR] | --root-only" >&2; exit 2 ;;
esac
out=$(realpath -m "${1:-dist}")
cache=$(realpath -m "${ASYNCFIX_DIST_CACHE:-build/dist-cache}")
mirror=${ASYNCFIX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
key=bullseye-g++-python3-venv
root=$cache/$key
# What the root holds; a change here makes the next run build a new one.
debootstrap_args=(--variant=minbase --include=g++,g++-aarch64-linux-gnu,python3-venv bullseye)
headers=(nlohmann-json3-dev libcli11-dev libtomlplusplus-dev)

say() { echo "build-manylinux: $*" >&2; }
# The PEP 517 front end: Debian's python3-build (scripts/install-deps.sh dist), which a python3
# earlier on PATH (a pyenv's) may lack.
python=
for candidate in "${ASYNCFIX_PYTHON:-}" python3 /usr/bin/python3; do
  # (from /: the clone's build/ directory would pass for the module)
  if [ -n "$candidate" ] && (cd / && "$candidate" -c 'import build' 2>/dev/null); then python=$candidate && break; fi
done
[ -n "$python" ] || { say "no python3 with the module build (scripts/install-deps.sh dist)"; exit 2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (debootstrap, chroot)"; exit 77; }
chroot=$(command -v chroot || echo /usr/sbin/chroot)
if [ "$arch" = aarch64 ] && ! command -v qemu-aarch64-static >/dev/null; then
  say "qemu-aarch64-static is missing (scripts/install-deps.sh dist)"
  exit 77
fi

stamp_text="debootstrap ${debootstrap_args[*]} $mirror; headers: $(dpkg-query -W -f='${Package}=${Version} ' "${headers[@]}")"
if [ ! -f "$root.done" ] || [ "$(cat "$root.done")" != "$stamp_text" ]; then
  command -v debootstrap >/dev/null || { say "debootstrap is missing (scripts/install-deps.sh dist)"; exit 77; }
  if ! "$python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20)' \
      "$mirror/dists/bullseye/Release" 2>/dev/null; then
    say "the Debian mirror is not reachable ($mirror)"
    exit 77
  fi
  started=$SECONDS
  rm -rf "$root" "$root.tmp" "$root.done"
  mkdir -p "$cache"
  debootstrap "${debootstrap_args[@]}" "$root.tmp" "$mirror" >"$cache/$key.log" 2>&1 ||
    { tail -n 30 "$cache/$key.log" >&2; say "debootstrap failed (log: $cache/$key.log)"; exit 1; }
  # The host's header-only libraries, exactly the versions the project builds with elsewhere.
  dpkg-query -L "${headers[@]}" | grep '^/usr/include/' | while read -r f; do
    [ -d "$f" ] || echo "${f#/}"
  done | tar -C / -cf - -T - | tar -C "$root.tmp" -xf -
  mv "$root.tmp" "$root"
  echo "$stamp_text" >"$root.done"
  say "root ready in $((SECONDS - started)) s ($root)"
fi
[ -z "$root_only" ] || exit 0

# The root reaches itself at its host path: /<root path> inside it leads to its /.
mkdir -p "$root$(dirname "$root")"
ln -sfn / "$root$root"

# CMake compiles some of its own files (its compiler checks): the host CMake's modules, at the same
# path inside the root.
echo 'message("${CMAKE_ROOT}")' >"$cache/cmake-root.cmake"
cmake_root=$(cmake -P "$cache/cmake-root.cmake" 2>&1) || true
[ -f "$cmake_root/Modules/CMakeCCompilerABI.c" ] || { say "cannot find CMake's modules (CMAKE_ROOT: $cmake_root)"; exit 1; }
if [ ! -f "$root$cmake_root/.asyncfix-copied" ]; then
  rm -rf "$root$cmake_root" && mkdir -p "$root$cmake_root"
  cp -a "$cmake_root/." "$root$cmake_root/" && touch "$root$cmake_root/.asyncfix-copied"
fi

# Compilers that run bullseye's g++-10/gcc-10 (or its aarch64 cross compilers) inside the root, in
# the caller's directory.
bin=$root/asyncfix-bin
mkdir -p "$bin"
prefix=
tools=(gcc g++)
# (the cross build's strip too: the host's does not know aarch64 files)
[ "$arch" = x86_64 ] || { prefix=$arch-linux-gnu- && tools+=(strip); }
for tool in "${tools[@]}"; do
  cat >"$bin/$prefix$tool.tmp" <<WRAPPER
#!/bin/sh
# bullseye's $prefix$tool inside $root (scripts/build-manylinux.sh)
exec "$chroot" "$root" /bin/sh -c 'cd "\$0" && exec /usr/bin/$prefix$tool "\$@"' "\$PWD" "\$@"
WRAPPER
  chmod +x "$bin/$prefix$tool.tmp"
  cmp -s "$bin/$prefix$tool.tmp" "$bin/$prefix$tool" && rm "$bin/$prefix$tool.tmp" ||
    mv "$bin/$prefix$tool.tmp" "$bin/$prefix$tool"
done
cmake_args=(-DCMAKE_C_COMPILER="$bin/${prefix}gcc" -DCMAKE_CXX_COMPILER="$bin/${prefix}g++" -DASYNCFIX_GLIBC_2_17=ON)
if [ "$arch" = aarch64 ]; then
  # (the emulator as one argument: the backend splits its cmake-args like a shell). toml++'s CMake
  # package is under the host's multiarch directory, where a cross build does not look; only its
  # headers are used.
  toml_dir=$(dirname "$(dpkg-query -L libtomlplusplus-dev | grep '/tomlplusplusConfig\.cmake$' | head -n 1)")
  cmake_args+=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 "-Dtomlplusplus_DIR=$toml_dir"
    -DCMAKE_STRIP="$bin/${prefix}strip"
    "-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v qemu-aarch64-static);-L;$root/usr/aarch64-linux-gnu")
fi

# The sources the wheel is built from, copied in (what git tracks or would add), mtimes kept so
# that an unchanged file is not rebuilt; the cross build has its own copy, so that both builds can
# run at once.
src=$root/src
[ "$arch" = x86_64 ] || src=$root/src-$arch
rm -rf "$src.new"
mkdir -p "$src.new"
git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
  tar --null -T - -cf - | tar -C "$src.new" -xf -
rm -rf "$src" && mv "$src.new" "$src"

# Dependency files without the system's headers (-MMD): they are the root's, at paths that the
# host's Ninja would look for on the host and, not finding them, rebuild everything every time.
rules=$root/asyncfix-bin/depfile-rules.cmake
cat >"$rules.tmp" <<'RULES'
set(CMAKE_DEPFILE_FLAGS_C "-MMD -MT <DEP_TARGET> -MF <DEP_FILE>")
set(CMAKE_DEPFILE_FLAGS_CXX "-MMD -MT <DEP_TARGET> -MF <DEP_FILE>")
RULES
cmp -s "$rules.tmp" "$rules" && rm "$rules.tmp" || mv "$rules.tmp" "$rules"

# ccache (if the caller uses it) must hash the preprocessed output and the root's compiler, never
# the host's headers of the same name.
export CCACHE_NODIRECT=1 CCACHE_COMPILERCHECK="%compiler% -v"
started=$SECONDS
mkdir -p "$out"
rm -f "$out"/asyncfix-*-manylinux*_"$arch".whl
cmake_args+=(-DCMAKE_USER_MAKE_RULES_OVERRIDE="$rules")
(cd "$src" && ASYNCFIX_WHEEL_BUILD_DIR="$root/build-$arch" ASYNCFIX_WHEEL_ARCH="$arch" \
  ASYNCFIX_WHEEL_CMAKE_ARGS="$(printf '%q ' "${cmake_args[@]}")" \
  "$python" -m build --wheel --no-isolation --outdir "$out" .)
say "built in $((SECONDS - started)) s: $(cd "$out" && ls asyncfix-*-manylinux*_"$arch".whl)"
