#!/usr/bin/env bash
# bench/run.sh [run.py options] — the whole benchmark in one command (e.g. --corpus torch,dense --quick).
#
# 1. installs what is missing (scripts/install-deps.sh: the build's Debian packages),
# 2. fetches the corpora from Debian's packages and generates the dense one (bench/corpus.sh; once),
# 3. installs the pinned ast-grep from npm (bench/ast-grep, `npm ci`; once per lockfile),
# 4. builds the Release tree (asyncfix, asyncfix-lsp, the floor and latency drivers),
# 5. runs bench/run.py, which writes bench/RESULTS.md.
#
# The cache defaults to ~/.cache/asyncfix-bench (ASYNCFIX_BENCH_CACHE or --cache DIR to change);
# it needs ~2 GB: the .deb files, the corpus, its injected copy and a scratch copy for --fix.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cache="${ASYNCFIX_BENCH_CACHE:-$HOME/.cache/asyncfix-bench}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--cache" ] && cache="${args[$((i + 1))]}"
done

"$root/scripts/install-deps.sh"
"$here/corpus.sh" "$cache"

stamp="$here/ast-grep/node_modules/.asyncfix-stamp"
hash="$(sha256sum "$here/ast-grep/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$hash" ]; then
  (cd "$here/ast-grep" && npm ci --ignore-scripts --no-audit --no-fund)
  echo "$hash" > "$stamp"
fi

cd "$root"
cmake --preset release >/dev/null
cmake --build --preset release --target asyncfix_cli asyncfix_lsp_bin asyncfix_bench_parse asyncfix_lsp_bench
exec python3 "$here/run.py" --build "$root/build/release" --cache "$cache" "${args[@]}"
