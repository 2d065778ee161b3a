#!/usr/bin/env bash
# The README's quick start, one word each:
#   scripts/run.sh demo   install what is missing, build Release, check examples/ and show the fixes
#   scripts/run.sh test   install what is missing, build (warnings as errors), run every test
#   scripts/run.sh asan   the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  demo | test | asan) ;;
  *) echo "usage: $0 demo|test|asan" >&2; exit 2 ;;
esac

scripts/install-deps.sh

build() { # preset
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1"
}

case "$mode" in
  demo)
    build release
    bin=build/release/cli/asyncfix
    echo
    echo "\$ asyncfix check examples/"
    "$bin" check examples/ || [ $? -eq 1 ] # exit 1 = findings, which is the point
    echo
    echo "\$ asyncfix check --diff --unsafe-fixes examples/"
    "$bin" check --diff --unsafe-fixes examples/ || [ $? -eq 1 ]
    ;;
  test)
    build ci
    ctest --preset ci
    ;;
  asan)
    build asan
    ctest --preset asan
    ;;
esac
