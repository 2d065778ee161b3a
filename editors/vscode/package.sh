#!/usr/bin/env bash
# Builds the extension in DEST (default: this directory) and packages it as
# DEST/asyncfix-<version>.vsix: `npm ci` from the committed lockfile (skipped when DEST already
# holds this lockfile's install), `tsc --strict`, esbuild (one bundled file), `vsce package` (offline).
# Usage: package.sh [DEST]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
command -v npm >/dev/null 2>&1 || { echo "package.sh: npm is missing; run scripts/install-deps.sh" >&2; exit 2; }

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
rm -rf out dist
npx --no-install tsc -p .   # type-check (strict) and out/ for test/unit.test.mjs
# One file with vscode-languageclient inside: what the .vsix ships (main: dist/extension.js).
npx --no-install esbuild src/extension.ts --bundle --platform=node --format=cjs --target=node18 \
  --external:vscode --outfile=dist/extension.js --log-level=warning
version=$(node -p "require('./package.json').version")
rm -f asyncfix-*.vsix
npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository --out "asyncfix-$version.vsix" >vsce.log 2>&1 || {
  cat vsce.log >&2
  exit 1
}
echo "$dest/asyncfix-$version.vsix"
