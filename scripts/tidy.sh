#!/usr/bin/env bash
# clang-tidy (.clang-tidy's checks, all kept at zero) over the sources of lib/, cli/ and lsp/,
# with the compile commands of a configured build directory (default build/ci), two at a time.
#   scripts/tidy.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[ -n "$tidy" ] || { echo "tidy.sh: clang-tidy is missing (scripts/install-deps.sh tidy)" >&2; exit 2; }
[ -f "$build/compile_commands.json" ] || { echo "tidy.sh: no $build/compile_commands.json; configure first (cmake --preset ci)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- 'lib/src/*.cpp' 'cli/*.cpp' 'lsp/*.cpp')
# The functions longer than .clang-tidy's readability-function-size allows, and whose files are
# exempt from that check until they are split:
#   cli/check.cpp                     runCheck (being rewritten as the library's run, issue 30)
#   lib/src/project/project_view.cpp  ProjectView::addModuleRenames, ProjectView::addNameRenames
oversized=(cli/check.cpp lib/src/project/project_view.cpp)
checked=()
for f in "${files[@]}"; do
  [[ " ${oversized[*]} " == *" $f "* ]] || checked+=("$f")
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
{
  printf '%s\n' "${checked[@]}" | xargs -P 2 -n 4 "$tidy" -p "$build" --quiet
  printf '%s\n' "${oversized[@]}" | xargs -P 2 -n 4 "$tidy" -p "$build" --quiet --checks=-readability-function-size
} >"$log" 2>&1 || true
if grep -q "error:" "$log"; then
  grep -A3 "error:" "$log" | grep -v "^/usr/" >&2
  echo "tidy.sh: $(grep -c 'error:' "$log") findings in ${#files[@]} files" >&2
  exit 1
fi
echo "tidy.sh: ${#files[@]} files, no findings"
