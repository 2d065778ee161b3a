#!/usr/bin/env bash
# The release artefacts into OUTDIR (default dist/, git-ignored), from a build tree whose dist
# tests have run (scripts/run.sh dist: `ctest --preset dist` built and tested the wheels there):
#
#   asyncfix-V-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl    dist.wheel's
#   asyncfix-V-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl  dist.aarch64's
#   asyncfix-V-py3-none-win_amd64.whl, asyncfix-win32-x64-V.vsix          when a Windows build made them
#                                                                         (windows_artefacts, below)
#   asyncfix-V.tar.gz                the sdist (the build backend's build_sdist: the files git tracks)
#   asyncfix-linux-x64-V.vsix        the VS Code extension with the x86_64 wheel's asyncfix-lsp
#   asyncfix-linux-arm64-V.vsix      … with the aarch64 wheel's, once editors/vscode/package.sh
#                                    takes a target (vsix_for_target, below)
#   asyncfix-V.vsix                  the extension without a server (it uses one on PATH)
#   asyncfix_V_amd64.deb             `cpack -G DEB` of the x86_64 wheel's build tree (Release, in the
#                                    bullseye root); the `package` tests install the ci tree's
#
# and lists them with their sizes and SHA-256. Usage: scripts/dist.sh BUILD_DIR [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/dist.sh BUILD_DIR [OUTDIR]}
out=${2:-dist}
build=$(realpath "$build")
say() { echo "dist: $*" >&2; }

rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
work=$build/dist-artefacts
rm -rf "$work"
mkdir -p "$work"

one() { # glob: the one file it matches
  local found=($1)
  [ ${#found[@]} -eq 1 ] && [ -f "${found[0]}" ] || { say "expected one file for $1, found: ${found[*]}"; exit 1; }
  echo "${found[0]}"
}

# --- the wheels, as the dist tests built and tested them -----------------------------------------
x86_wheel=$(one "$build/tests/dist/wheelhouse/asyncfix-*-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
arm_wheel=$(one "$build/tests/dist/wheelhouse-aarch64/asyncfix-*-manylinux_2_17_aarch64.manylinux2014_aarch64.whl")
cp "$x86_wheel" "$arm_wheel" "$out/"

# --- the sdist -------------------------------------------------------------------------------------
python=
for candidate in python3 /usr/bin/python3; do
  (cd / && "$candidate" -c 'import build' 2>/dev/null) && python=$candidate && break
done
[ -n "$python" ] || { say "no python3 with the module build (scripts/install-deps.sh dist)"; exit 2; }
"$python" -m build --sdist --no-isolation --outdir "$out" . >"$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log" >&2; exit 1; }

# --- the VS Code extensions ------------------------------------------------------------------------
server_of() { # wheel directory: the wheel's asyncfix-lsp, unpacked into directory
  mkdir -p "$2"
  "$python" - "$1" "$2" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    [name] = [n for n in z.namelist() if n.endswith(".data/scripts/asyncfix-lsp")]
    target = os.path.join(sys.argv[2], "asyncfix-lsp")
    with open(target, "wb") as f:
        f.write(z.read(name))
    os.chmod(target, 0o755)
PY
  echo "$2/asyncfix-lsp"
}
vscode=$build/editors/vscode-dist  # node_modules stay there between runs
"editors/vscode/package.sh" "$vscode" >/dev/null
cp "$(one "$vscode/asyncfix-[0-9]*.vsix")" "$out/"
"editors/vscode/package.sh" "$vscode" "$(server_of "$x86_wheel" "$work/linux-x64")" >/dev/null
cp "$(one "$vscode/asyncfix-linux-x64-*.vsix")" "$out/"
vsix_for_target() { # target wheel: the extension for another machine than this one
  if ! grep -q '^# Usage: package.sh \[DEST \[SERVER \[TARGET\]\]\]' editors/vscode/package.sh; then
    say "no $1 .vsix: editors/vscode/package.sh takes no target yet"
    return 0
  fi
  "editors/vscode/package.sh" "$vscode" "$(server_of "$2" "$work/$1")" "$1" >/dev/null
  cp "$(one "$vscode/asyncfix-$1-*.vsix")" "$out/"
}
vsix_for_target linux-arm64 "$arm_wheel"

# --- Windows -----------------------------------------------------------------------------------------
# What the Windows cross build (issue 31 item 4: the `windows` preset, `scripts/run.sh windows`)
# leaves in build/windows/dist/: its wheel and .vsix, tested by its own lane. Picked up when there.
windows_artefacts() {
  local dir=build/windows/dist found=()
  [ -d "$dir" ] && found=("$dir"/asyncfix-*-win_amd64.whl "$dir"/asyncfix-win32-x64-*.vsix)
  local f
  for f in "${found[@]}"; do [ -f "$f" ] && cp "$f" "$out/"; done
  ls "$out"/*win_amd64.whl >/dev/null 2>&1 || say "no Windows wheel: build/windows/dist/ holds none (scripts/run.sh windows)"
}
windows_artefacts

# --- the Debian package ------------------------------------------------------------------------------
# From the x86_64 wheel's build tree in the bullseye root (Release, glibc 2.17 and up), built whole
# (the libraries, headers and CMake package too: a few files more); cpack's dpkg-shlibdeps writes
# its Depends. ccache, if any, as scripts/build-manylinux.sh has it.
release=${ASYNCFIX_DIST_CACHE:-$build/dist-cache}/bullseye-g++-python3-venv/build-x86_64
CCACHE_NODIRECT=1 CCACHE_COMPILERCHECK="%compiler% -v" cmake --build "$release" >"$work/deb.log" 2>&1 ||
  { cat "$work/deb.log" >&2; exit 1; }
rm -f "$release"/packages/asyncfix_*.deb
(cd "$release" && cpack -G DEB >>"$work/deb.log" 2>&1) || { cat "$work/deb.log" >&2; exit 1; }
deb=$(one "$release/packages/asyncfix_*.deb")
# (its contents unpacked: the command runs; `ctest --preset slow` installs the ci tree's with dpkg)
rm -rf "$work/deb-root" && dpkg-deb -x "$deb" "$work/deb-root"
"$work/deb-root/usr/bin/asyncfix" --version >/dev/null || { say "the .deb's asyncfix does not run"; exit 1; }
cp "$deb" "$out/"

say "artefacts in $out:"
(cd "$out" && for f in *; do printf '  %-72s %9s  %s\n' "$f" "$(du -k "$f" | cut -f1) KB" "$(sha256sum "$f" | cut -c1-16)"; done) >&2
