#!/usr/bin/env bash
# The README's quick start, one word each:
#   scripts/run.sh demo   install what building needs, build the command (Release), check examples/
#                         and show the fixes
#   scripts/run.sh test   install what is missing, build (warnings as errors), run the test suite
#                         (CTest preset `ci`: all but the slow lanes below)
# The lanes .ci/run adds:
#   scripts/run.sh slow   the VS Code lane in Chromium (label `browser`), the shared-library,
#                         package and ABI tests (label `package`), clang-tidy (label `tidy`)
#   scripts/run.sh dist   the wheel, built and installed in a fresh venv and a debootstrapped
#                         bookworm root; pre-commit; the GitHub Action (label `dist`)
#   scripts/run.sh asan   the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   scripts/run.sh tsan   the threaded paths' tests (language server, CLI workers) under ThreadSanitizer
#   scripts/run.sh fuzz   each libFuzzer target for ASYNCFIX_FUZZ_SECONDS (default 60) from its seeds
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  demo | test | slow | dist | asan | tsan | fuzz) ;;
  *) echo "usage: $0 demo|test|slow|dist|asan|tsan|fuzz" >&2; exit 2 ;;
esac

case "$mode" in
  demo) scripts/install-deps.sh build ;;
  test | asan) scripts/install-deps.sh test ;;
  slow) scripts/install-deps.sh test browser tidy ;;
  dist) scripts/install-deps.sh test dist ;;
  tsan) scripts/install-deps.sh test sanitizers ;;
  fuzz) scripts/install-deps.sh sanitizers ;;
esac

build() { # preset
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1"
}

case "$mode" in
  demo)
    # The command alone: no tests (nor their packages) configured.
    cmake --preset release -DASYNCFIX_BUILD_TESTS=OFF >/dev/null
    cmake --build --preset release --target asyncfix_cli
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
  slow)
    build ci
    ctest --preset slow
    ;;
  dist)
    build ci
    ctest --preset dist
    ;;
  asan)
    build asan
    ctest --preset asan
    ;;
  tsan)
    # Only what the lsp, cli and threads labels run (no benchmark), with the gitignore probe.
    cmake --preset tsan >/dev/null
    cmake --build --preset tsan --target asyncfix_tests asyncfix_lsp_tests asyncfix_cli asyncfix_lsp_bin \
      gitignore_probe
    ctest --preset tsan
    ;;
  fuzz)
    # The seeds stay as committed; what a run learns goes to build/fuzz/corpus/<name>, a crash
    # to build/fuzz/artifacts/ (and fails the run). Longer runs: see docs/reliability.md.
    cmake --preset fuzz >/dev/null
    targets=(fuzz_lint_fix fuzz_lsp fuzz_config fuzz_notebook)
    cmake --build --preset fuzz --target "${targets[@]}"
    seconds=${ASYNCFIX_FUZZ_SECONDS:-60}
    mkdir -p build/fuzz/artifacts
    for t in "${targets[@]}"; do
      name=${t#fuzz_}
      mkdir -p "build/fuzz/corpus/$name"
      echo "fuzz: $t for ${seconds}s"
      if ! "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
          -max_len=16384 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
          "build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"build/fuzz/$t.log" 2>&1; then
        tail -n 60 "build/fuzz/$t.log" >&2
        echo "fuzz: $t failed; the input is in build/fuzz/artifacts/ (log: build/fuzz/$t.log)" >&2
        exit 1
      fi
      grep -E '^(Done|stat::)' "build/fuzz/$t.log" || tail -n 5 "build/fuzz/$t.log"
    done
    ;;
esac
