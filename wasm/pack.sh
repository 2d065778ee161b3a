#!/usr/bin/env bash
# Stages the npm package `asyncfix` in STAGE and packs it with `npm pack` as
# OUT/asyncfix-<version>.tgz (the path is printed). The package is this directory's launchers,
# JavaScript API and types, with the three modules of the `wasm` build in dist/:
#   CLI_JS      build/wasm/cli/asyncfix.js (its asyncfix.wasm beside it)
#   LSP_WASM    build/wasm/lsp/asyncfix-lsp.wasm
#   API_JS      build/wasm/api/asyncfix-api.js (its asyncfix-api.wasm beside it)
# and the manual's rule pages in share/doc/asyncfix/rules, where the modules' links lead (the
# directory beside dist/, as share/ is beside a native program's bin/).
# Nothing is downloaded: the package has no dependencies. Usage: pack.sh STAGE OUT CLI_JS LSP_WASM API_JS
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 5 ] || { echo "usage: pack.sh STAGE OUT CLI_JS LSP_WASM API_JS" >&2; exit 2; }
stage=$1 out=$2 cli_js=$3 lsp_wasm=$4 api_js=$5
command -v npm >/dev/null 2>&1 || { echo "pack.sh: npm is missing; run scripts/install-deps.sh wasm" >&2; exit 2; }
for file in "$cli_js" "${cli_js%.js}.wasm" "$lsp_wasm" "$api_js" "${api_js%.js}.wasm"; do
  [ -f "$file" ] || { echo "pack.sh: $file is missing; build it with \`cmake --build --preset wasm\`" >&2; exit 2; }
done

rm -rf "$stage"
mkdir -p "$stage/dist" "$out"
# What package.json's `files` lists, and nothing else from the source directory.
cp "$here/package.json" "$here/README.md" "$here/asyncfix.js" "$here/asyncfix-lsp.js" "$here/locate.js" "$here/stdin.js" "$here/warm_up.js" \
  "$here/index.js" "$here/index.d.ts" "$stage/"
cp "$cli_js" "$stage/dist/asyncfix.js"
cp "${cli_js%.js}.wasm" "$stage/dist/asyncfix.wasm"
cp "$lsp_wasm" "$stage/dist/asyncfix-lsp.wasm"
cp "$api_js" "$stage/dist/asyncfix-api.js"
cp "${api_js%.js}.wasm" "$stage/dist/asyncfix-api.wasm"
mkdir -p "$stage/share/doc/asyncfix"
cp -R "$here/../docs/rules" "$stage/share/doc/asyncfix/"
chmod 755 "$stage/asyncfix.js" "$stage/asyncfix-lsp.js"
out=$(cd "$out" && pwd)
name=$(cd "$stage" && npm pack --pack-destination "$out" --loglevel=error)
echo "$out/$name"
