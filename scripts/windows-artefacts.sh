#!/usr/bin/env bash
# The Windows x64 artefacts (issue 31 item 4; docs/windows.md) from the windows preset's build tree
# into BUILD_DIR/dist/, where scripts/dist.sh picks them up and `windows.artefacts` tests them:
#
#   asyncfix-V-py3-none-win_amd64.whl  the build backend (packaging/pep517) on BUILD_DIR itself
#                                      (its configuration kept: tests and warnings as errors on),
#                                      tagged from the PE headers; asyncfix.exe, asyncfix-lsp.exe
#                                      and asyncfix/asyncfix.dll inside
#   asyncfix-win32-x64-V.vsix          editors/vscode/package.sh with the wheel build's
#                                      asyncfix-lsp.exe (bundled/win32-x64/asyncfix-lsp.exe)
#
# Usage: scripts/windows-artefacts.sh [BUILD_DIR]   (default build/windows, after
# `cmake --build --preset windows`; scripts/run.sh windows runs it before the tests)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/windows}")
[ -f "$build/asyncfix-lsp.exe" ] || { echo "windows-artefacts: no Windows build in $build" >&2; exit 2; }
out=$build/dist
rm -rf "$out"
mkdir -p "$out"

# The wheel, by the backend as pip would call it (the interpreter the preset configured with, so
# that the configuration does not change; a later -D wins over the backend's own).
/usr/bin/python3 - "$out" "$build" <<'PY' >"$build/wheel.log" 2>&1 || { cat "$build/wheel.log" >&2; exit 1; }
import sys
sys.path.insert(0, "packaging/pep517")
import asyncfix_build
asyncfix_build.build_wheel(sys.argv[1], {
    "build-dir": sys.argv[2],
    "cmake-args": "-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64.cmake -DASYNCFIX_BUILD_TESTS=ON "
                  "-DASYNCFIX_WERROR=ON",
})
PY

# The extension for win32-x64 (node_modules stay in BUILD_DIR/vscode-dist between runs).
vsix=$(editors/vscode/package.sh "$build/vscode-dist" "$build/asyncfix-lsp.exe" win32-x64 | tail -n 1)
cp "$vsix" "$out/"
ls -l "$out" >&2
