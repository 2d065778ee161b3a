#!/usr/bin/env bash
# Formats the C++ sources git tracks with .clang-format (clang-format 14, Debian bookworm's).
#   scripts/format.sh           rewrite the files in place
#   scripts/format.sh --check   change nothing; list the files that differ and exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is missing (scripts/install-deps.sh test)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.c' ':!:tests/fuzz/corpus/**')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
      echo "not formatted: $f (scripts/format.sh fixes it)"
      bad=1
    fi
  done
  exit "$bad"
fi
clang-format -i "${files[@]}"
