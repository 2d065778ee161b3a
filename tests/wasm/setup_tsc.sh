#!/usr/bin/env bash
# Installs tests/wasm's npm packages (typescript, pinned in package-lock.json) into DEST with
# `npm ci`, and nothing when DEST already holds the install of this exact lockfile.
# Usage: setup_tsc.sh DEST
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: setup_tsc.sh DEST}
mkdir -p "$dest"
stamp="$dest/node_modules/.asyncfix-stamp"
hash=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$dest/"
(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$hash" >"$stamp"
