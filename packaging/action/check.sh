#!/usr/bin/env bash
# The action's check steps.
#   check.sh annotate  asyncfix check --output-format github ARGS: annotations on the changed lines;
#                      its exit code goes to $GITHUB_OUTPUT (exit-code) for the last step
#   check.sh report    the same check as JSON for the job summary (summary.py), and as SARIF
#                      when ASYNCFIX_SARIF names a file; then exits with ASYNCFIX_EXIT_CODE
# ARGS: ASYNCFIX_ARGS, split as a shell would split it (no expansion, no command substitution).
# ASYNCFIX_DOCS_URL: where the report's links to rule pages lead (--docs-url), unless ARGS say;
# by default the action's own docs/ on GitHub (the runner's installed copy is no address for
# whoever reads them), from the variables GitHub sets for a step of an action; none for a local
# action (uses: ./), which keeps the installed copy.
set -euo pipefail
if [ -z "${ASYNCFIX_DOCS_URL:-}" ] && [ -n "${GITHUB_ACTION_REPOSITORY:-}" ] && [ -n "${GITHUB_ACTION_REF:-}" ]; then
  ASYNCFIX_DOCS_URL="${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_ACTION_REPOSITORY/blob/$GITHUB_ACTION_REF/docs"
fi

mode=${1:?usage: check.sh annotate|report}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${ASYNCFIX_PYTHON:-python3}
split=$(mktemp)
trap 'rm -f "$split"' EXIT
"$python" -c 'import shlex, sys
try:
    args = shlex.split(sys.argv[1])
except ValueError as error:
    sys.exit("::error title=asyncfix::the args input cannot be split as a shell would: %s" % error)
sys.stdout.write("".join(a + "\0" for a in args))' "${ASYNCFIX_ARGS:-.}" >"$split" || exit 2
args=()
while IFS= read -r -d '' arg; do
  args+=("$arg")
done <"$split"
for arg in "${args[@]}"; do
  case "$arg" in
    --output-format | --output-format=*)
      echo "::error title=asyncfix::the action sets --output-format itself; remove it from args (SARIF: the sarif-file input)" >&2
      exit 2 ;;
  esac
done

case "$mode" in
  annotate)
    code=0
    asyncfix check --output-format github "${args[@]}" || code=$?
    echo "exit-code=$code" >>"${GITHUB_OUTPUT:-/dev/null}"
    ;;
  report)
    code=${ASYNCFIX_EXIT_CODE:-0}
    docs=()
    if [ -n "${ASYNCFIX_DOCS_URL:-}" ]; then
      docs=(--docs-url "$ASYNCFIX_DOCS_URL")
      for arg in "${args[@]}"; do
        case "$arg" in --docs-url | --docs-url=*) docs=() ;; esac
      done
    fi
    out=${RUNNER_TEMP:-$(mktemp -d)}/asyncfix-report.json
    asyncfix check --output-format json --exit-zero "${docs[@]}" "${args[@]}" >"$out" 2>/dev/null || true
    if [ "${ASYNCFIX_SUMMARY:-true}" = true ]; then
      "$python" "$here/summary.py" --report "$out" --exit-code "$code" --max-findings "${ASYNCFIX_MAX_FINDINGS:-30}"
    fi
    if [ -n "${ASYNCFIX_SARIF:-}" ]; then
      mkdir -p "$(dirname "$ASYNCFIX_SARIF")"
      asyncfix check --output-format sarif --exit-zero "${docs[@]}" "${args[@]}" >"$ASYNCFIX_SARIF" 2>/dev/null || true
      echo "sarif-file=$ASYNCFIX_SARIF" >>"${GITHUB_OUTPUT:-/dev/null}"
    fi
    exit "$code"
    ;;
  *)
    echo "usage: check.sh annotate|report" >&2
    exit 2 ;;
esac
