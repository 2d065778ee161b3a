#!/usr/bin/env bash
# Builds the extension in DEST (default: this directory) and packages it as
# DEST/asyncfix-<version>.vsix: `npm ci` from the committed lockfile (skipped when DEST already
# holds this lockfile's install), `tsc --strict`, esbuild (one bundled file), `vsce package` (offline).
# With SERVER (an asyncfix-lsp built with its C++ runtime linked in, as the release and ci builds
# make it), the platform-specific extension instead: the server stripped into
# bundled/<platform>-<arch>/, packaged as DEST/asyncfix-<platform>-<arch>-<version>.vsix for that
# target, so the extension works on a machine with no asyncfix installed; the rule pages of the
# manual (docs/rules/) go to bundled/share/doc/asyncfix/, where that server's links lead.
# Usage: package.sh [DEST [SERVER]]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here}
server=${2:-}
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
rm -rf out dist bundled
target=
if [ -n "$server" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) target=linux-x64 ;;
    Linux-aarch64) target=linux-arm64 ;;
    *) echo "package.sh: no VS Code target for $(uname -s) $(uname -m)" >&2; exit 2 ;;
  esac
  [ -x "$server" ] || { echo "package.sh: $server is not an executable file" >&2; exit 2; }
  mkdir -p "bundled/$target"
  strip -o "bundled/$target/asyncfix-lsp" "$server"
  chmod 755 "bundled/$target/asyncfix-lsp"
  "bundled/$target/asyncfix-lsp" --version >/dev/null || { echo "package.sh: the bundled server does not run" >&2; exit 1; }
  # <server's directory>/../share/doc/asyncfix: the manual beside the program (defaultDocsUrl()).
  mkdir -p bundled/share/doc/asyncfix
  cp -R "$here/../../docs/rules" bundled/share/doc/asyncfix/
fi
npx --no-install tsc -p .   # type-check (strict) and out/ for test/unit.test.mjs
# One file with vscode-languageclient inside: what the .vsix ships (main: dist/extension.js).
npx --no-install esbuild src/extension.ts --bundle --platform=node --format=cjs --target=node18 \
  --external:vscode --outfile=dist/extension.js --log-level=warning
version=$(node -p "require('./package.json').version")
if [ -n "$target" ]; then
  out="asyncfix-$target-$version.vsix"
  targetArgs=(--target "$target")
else
  out="asyncfix-$version.vsix"
  targetArgs=()
fi
rm -f "$out"
npx --no-install vsce package "${targetArgs[@]}" --no-dependencies --skip-license --allow-missing-repository \
  --out "$out" >vsce.log 2>&1 || {
  cat vsce.log >&2
  exit 1
}
echo "$dest/$out"
