#!/usr/bin/env bash
# Builds the extension in DEST (default: this directory) and packages it as a .vsix in DEST:
# `npm ci` from the committed lockfile (skipped when DEST already holds this lockfile's install),
# `tsc --strict`, esbuild (one bundled file), `vsce package` (offline).
#
# Every package carries the WebAssembly language server in bundled/wasm/ (asyncfix-lsp.wasm and
# its launcher, from the `wasm` build: $ASYNCFIX_WASM_DIR, default <repository>/build/wasm), which
# the extension runs where no native server does, and the manual's rule pages in
# bundled/share/doc/asyncfix/, where the servers' links lead.
#
# TARGET says which package:
#   universal      (the default without SERVER) asyncfix-<version>.vsix for every platform: the
#                  WebAssembly server only, which it then needs (without it the package carries no
#                  server, as before issue 33, and says so)
#   linux-x64, linux-arm64, win32-x64
#                  (SERVER given) asyncfix-<target>-<version>.vsix: also the native SERVER in
#                  bundled/<target>/ (asyncfix-lsp, or asyncfix-lsp.exe for win32), stripped with
#                  the target's strip (strip, aarch64-linux-gnu-strip, x86_64-w64-mingw32-strip)
#                  or copied as it is when that tool is missing; it is run (--version) only when
#                  the target is this machine's. Without TARGET: this machine's target.
#   web            (no SERVER; DEST must not be this directory) asyncfix-web-<version>.vsix: the
#                  `browser` entry point alone (no `main`, no server), which VS Code for the Web
#                  and code-server run in the browser's Web Worker extension host
#
# The `browser` entry point (src/web/, every package but a native-only one) needs the C API's
# module linked for the browser ($ASYNCFIX_WASM_DIR/api-web/asyncfix-api-web.{js,wasm}): its
# loader is bundled into dist/web/extension.js, its .wasm copied to dist/web/. Without it a
# package has no `browser` entry (package.json's is removed from DEST's copy).
# Usage: package.sh [DEST [SERVER [TARGET]]]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here}
server=${2:-}
target=${3:-}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
command -v npm >/dev/null 2>&1 || { echo "package.sh: npm is missing; run scripts/install-deps.sh" >&2; exit 2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;;
  Linux-aarch64) host=linux-arm64 ;;
  *) host= ;;
esac
if [ -z "$target" ]; then
  if [ -n "$server" ]; then
    [ -n "$host" ] || { echo "package.sh: no VS Code target for $(uname -s) $(uname -m); give TARGET" >&2; exit 2; }
    target=$host
  else
    target=universal
  fi
fi
case "$target" in
  universal) [ -z "$server" ] || { echo "package.sh: the universal package carries no native SERVER" >&2; exit 2; } ;;
  web)
    [ -z "$server" ] || { echo "package.sh: the web package carries no native SERVER" >&2; exit 2; }
    [ "$dest" != "$here" ] || { echo "package.sh: the web package is built in a DEST of its own" >&2; exit 2; }
    ;;
  linux-x64) strip_tool=strip ;;
  linux-arm64) strip_tool=aarch64-linux-gnu-strip ;;
  win32-x64) strip_tool=x86_64-w64-mingw32-strip ;;
  *) echo "package.sh: unknown TARGET $target (universal, web, linux-x64, linux-arm64, win32-x64)" >&2; exit 2 ;;
esac
if [ "$target" != universal ] && [ "$target" != web ]; then
  [ -n "$server" ] || { echo "package.sh: TARGET $target needs SERVER, the native asyncfix-lsp for it" >&2; exit 2; }
  [ -f "$server" ] || { echo "package.sh: $server is not a file" >&2; exit 2; }
  server=$(cd "$(dirname "$server")" && pwd)/$(basename "$server")
fi
wasm_dir=${ASYNCFIX_WASM_DIR:-$here/../../build/wasm}
wasm_lsp=
for candidate in "$wasm_dir/asyncfix-lsp.wasm" "$wasm_dir/lsp/asyncfix-lsp.wasm"; do
  [ -f "$candidate" ] && wasm_lsp=$(cd "$(dirname "$candidate")" && pwd)/asyncfix-lsp.wasm && break
done
web_js=
[ -f "$wasm_dir/api-web/asyncfix-api-web.js" ] && [ -f "$wasm_dir/api-web/asyncfix-api-web.wasm" ] &&
  web_js=$(cd "$wasm_dir/api-web" && pwd)/asyncfix-api-web.js
if [ -z "$web_js" ]; then
  [ "$target" != web ] || { echo "package.sh: no api-web/asyncfix-api-web.js in $wasm_dir (cmake --build --preset wasm --target asyncfix_api_web)" >&2; exit 2; }
  [ "$dest" != "$here" ] || { echo "package.sh: no api-web/asyncfix-api-web.js in $wasm_dir, and package.json has a browser entry: give a DEST" >&2; exit 2; }
  echo "package.sh: note: no api-web/asyncfix-api-web.js in $wasm_dir: the package has no browser entry point" >&2
fi
[ "$target" != web ] || wasm_lsp= # the browser runs no server
if [ -z "$wasm_lsp" ] && [ "$target" != web ]; then
  if [ "$target" = universal ]; then
    echo "package.sh: note: no asyncfix-lsp.wasm in $wasm_dir (cmake --preset wasm && cmake --build --preset wasm): the package carries no server" >&2
  else
    echo "package.sh: note: no asyncfix-lsp.wasm in $wasm_dir: the package carries the native server only" >&2
  fi
fi

if [ "$dest" != "$here" ]; then
  # A copy of the sources, so the source tree gets no node_modules/ or out/.
  rm -rf "$dest/src" "$dest/test" "$dest/out"
  cp -R "$here/src" "$here/test" "$dest/"
  cp "$here/package.json" "$here/package-lock.json" "$here/tsconfig.json" "$here/.vscodeignore" "$here/.npmrc" \
    "$here/README.md" "$here/CHANGELOG.md" "$dest/"
fi

cd "$dest"
stamp=node_modules/.asyncfix-stamp
hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$hash" ]; then
  # No install scripts: nothing the build needs has one (vsce's optional keytar and signing
  # helpers are not used for packaging).
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  echo "$hash" >"$stamp"
fi
rm -rf out dist bundled
# DEST's manifest: without the browser module, no `browser` entry; the web package, no `main`.
if [ -z "$web_js" ]; then
  npm pkg delete browser
elif [ "$target" = web ]; then
  npm pkg delete main
fi
# <server's directory>/../share/doc/asyncfix: the manual beside the program (defaultDocsUrl()).
if [ "$target" != web ]; then
  mkdir -p bundled/share/doc/asyncfix
  cp -R "$here/../../docs/rules" bundled/share/doc/asyncfix/
fi
if [ -n "$wasm_lsp" ]; then
  mkdir -p bundled/wasm
  cp "$wasm_lsp" bundled/wasm/asyncfix-lsp.wasm
  cp "$here/../../wasm/asyncfix-lsp.js" "$here/../../wasm/locate.js" "$here/../../wasm/stdin.js" "$here/../../wasm/warm_up.js" bundled/wasm/
fi
if [ -n "$server" ]; then
  exe=asyncfix-lsp
  [ "$target" = win32-x64 ] && exe=asyncfix-lsp.exe
  mkdir -p "bundled/$target"
  if command -v "$strip_tool" >/dev/null 2>&1; then
    "$strip_tool" -o "bundled/$target/$exe" "$server"
  else
    echo "package.sh: note: no $strip_tool; the server is packaged unstripped" >&2
    cp "$server" "bundled/$target/$exe"
  fi
  chmod 755 "bundled/$target/$exe"
  if [ "$target" = "$host" ]; then
    "bundled/$target/$exe" --version >/dev/null || { echo "package.sh: the bundled server does not run" >&2; exit 1; }
  fi
fi
npx --no-install tsc -p .   # type-check (strict) and out/ for test/unit.test.mjs
# One file with vscode-languageclient inside: what the .vsix ships (main: dist/extension.js).
if [ "$target" != web ]; then
  npx --no-install esbuild src/extension.ts --bundle --platform=node --format=cjs --target=node18 \
    --external:vscode --outfile=dist/extension.js --log-level=warning
fi
# The `browser` entry point: one file with the module's loader inside (package.json: browser).
if [ -n "$web_js" ]; then
  npx --no-install esbuild src/web/extension.ts --bundle --platform=browser --format=cjs --target=es2022 \
    --external:vscode "--alias:asyncfix-api-web=$web_js" --outfile=dist/web/extension.js --log-level=warning
  cp "${web_js%.js}.wasm" dist/web/asyncfix-api-web.wasm
fi
version=$(node -p "require('./package.json').version")
if [ "$target" = universal ]; then
  out="asyncfix-$version.vsix"
  targetArgs=()
elif [ "$target" = web ]; then
  # Not vsce's `--target web`: a package for the Marketplace's web target may have a `main`
  # too; this one is the browser entry alone, so that no host can run it in Node.js.
  out="asyncfix-web-$version.vsix"
  targetArgs=()
else
  out="asyncfix-$target-$version.vsix"
  targetArgs=(--target "$target")
fi
rm -f "$out"
npx --no-install vsce package "${targetArgs[@]}" --no-dependencies --skip-license --allow-missing-repository \
  --out "$out" >vsce.log 2>&1 || {
  cat vsce.log >&2
  exit 1
}
echo "$dest/$out"
