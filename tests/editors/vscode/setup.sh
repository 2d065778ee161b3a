#!/usr/bin/env bash
# Installs the VS Code lane's npm packages (code-server, playwright-core; pinned in
# package-lock.json next to this script) into DEST/node_modules with `npm ci`, and nothing when
# DEST already holds the install of this exact lockfile (stamp: the lockfile's SHA-256).
# Usage: setup.sh DEST
#
# code-server's install builds native modules and fetches ripgrep; on this platform that needs:
#   npm_config_unsafe_perm=true   its postinstall refuses to run as root otherwise
#   npm_config_nodedir=/usr       node-gyp builds against Debian's Node.js headers (no download)
#   npm_config_yes=true           node-pty's install runs `npx` non-interactively
#   Debian's ripgrep, packed as the tarball @vscode/ripgrep would download from GitHub, seeded
#   into its cache ($TMPDIR/vscode-ripgrep-cache-<version>/)
# and the Debian packages scripts/install-deps.sh installs (libkrb5-dev libsecret-1-dev
# libxkbfile-dev libx11-dev pkg-config g++ make python3, ripgrep, chromium).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: setup.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

stamp="$dest/node_modules/.asyncfix-stamp"
hash=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
  exit 0
fi

for tool in node npm rg tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "setup.sh: \`$tool\` is missing; run scripts/install-deps.sh" >&2; exit 2; }
done

# code-server 4.100 runs on Node.js 20 only (its engines field); Debian bookworm's own nodejs is 18.
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  echo "setup.sh: code-server 4.100 needs Node.js 20, this is $(node --version)" >&2
  exit 2
fi

cp "$here/package.json" "$here/package-lock.json" "$dest/"

# @vscode/ripgrep's version and the release it fetches (lib/postinstall.js: VERSION, x64 target).
rg_package_version=1.15.11
rg_release=v13.0.0-10
case "$(uname -m)" in
  x86_64) rg_target=x86_64-unknown-linux-musl ;;
  aarch64) rg_target=aarch64-unknown-linux-musl ;;
  *) echo "setup.sh: no ripgrep target for $(uname -m)" >&2; exit 2 ;;
esac
tmp="$dest/tmp"
cache="$tmp/vscode-ripgrep-cache-$rg_package_version"
mkdir -p "$cache"
work=$(mktemp -d "$tmp/rg.XXXXXX")
cp "$(command -v rg)" "$work/rg"
tar -czf "$cache/ripgrep-$rg_release-$rg_target.tar.gz" -C "$work" rg
rm -rf "$work"

echo "setup.sh: npm ci (code-server, playwright-core) in $dest; this builds native modules and takes a few minutes" >&2
start=$(date +%s)
(
  cd "$dest"
  TMPDIR="$tmp" npm_config_unsafe_perm=true npm_config_nodedir=/usr npm_config_yes=true \
    npm ci --no-audit --no-fund --loglevel=error >"$dest/npm-ci.log" 2>&1
) || {
  echo "setup.sh: npm ci failed; the last lines of $dest/npm-ci.log:" >&2
  tail -n 40 "$dest/npm-ci.log" >&2
  exit 1
}
# The lockfile pins the version; check the install really has it.
installed=$(node -p "require('$dest/node_modules/code-server/package.json').version")
wanted=$(node -p "require('$here/package-lock.json').packages['node_modules/code-server'].version")
[ "$installed" = "$wanted" ] || { echo "setup.sh: installed code-server $installed, lockfile says $wanted" >&2; exit 1; }
echo "$hash" >"$stamp"
echo "setup.sh: done in $(( $(date +%s) - start ))s" >&2
