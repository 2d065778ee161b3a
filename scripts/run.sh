#!/usr/bin/env bash
# The README's quick start, one word each:
#   scripts/run.sh demo   install what building needs, build the command (Release), check examples/
#                         and show the fixes
#   scripts/run.sh test   install what is missing, build (warnings as errors), run the test suite
#                         (CTest preset `ci`: all but the slow lanes below)
# The lanes .ci/run adds:
#   scripts/run.sh slow   the VS Code lane in Chromium (label `browser`), the shared-library,
#                         package and ABI tests (label `package`), clang-tidy (label `tidy`)
#   scripts/run.sh dist   every artefact, built and tested, into dist/ (README: "Artefacts"): the
#                         manylinux2014 wheels, x86_64 and aarch64 (scripts/build-manylinux.sh in a
#                         debootstrapped bullseye root; aarch64 run under qemu), installed in venvs
#                         of every CPython, in bullseye and bookworm roots; pre-commit; the GitHub
#                         Action (label `dist`); then the sdist, a .vsix per target and the .deb
#   scripts/run.sh roots  only the dist lane's Debian roots (debootstrap, mostly downloading;
#                         cached in build/ci/dist-cache), which .ci/run makes while other lanes build
#   scripts/run.sh asan   the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   scripts/run.sh tsan   the threaded paths' tests (language server, CLI workers) under ThreadSanitizer
#   scripts/run.sh torch  the PyTorch-migration rules on Debian's PyTorch 1.13: each case of tests/torch/cases
#                         and the legacy example fixed and run on CPU (label `torch`)
#   scripts/run.sh windows  the Windows x64 build (mingw-w64), its py3-none-win_amd64 wheel and
#                         win32-x64 .vsix (into build/windows/dist/, where scripts/dist.sh finds
#                         them), and their tests under wine64 against the native commands of build/ci
#                         (label `windows`; CI runs it before the dist lane; docs/windows.md)
#   scripts/run.sh fuzz   each libFuzzer target for ASYNCFIX_FUZZ_SECONDS (default 48) from its seeds,
#                         two at a time (ASYNCFIX_FUZZ_JOBS),
#                         then the line coverage of lib/ by the corpus, held to a floor (below)
# A campaign (docs/reliability.md): ASYNCFIX_FUZZ_SECONDS=3600 per target, ASYNCFIX_FUZZ_TARGETS to
# pick some ("lint_fix lsp"), ASYNCFIX_FUZZ_GROW=1 to merge what it learned into the committed
# corpus (only inputs that add coverage), ASYNCFIX_ORACLE_HOURS=H to run the runtime oracle after.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  demo | test | slow | dist | roots | asan | tsan | fuzz | torch | windows) ;;
  *) echo "usage: $0 demo|test|slow|dist|roots|asan|tsan|fuzz|torch|windows" >&2; exit 2 ;;
esac

case "$mode" in
  demo) scripts/install-deps.sh build ;;
  test | asan) scripts/install-deps.sh test ;;
  slow) scripts/install-deps.sh test browser tidy ;;
  dist) scripts/install-deps.sh test dist ;;
  roots) scripts/install-deps.sh dist ;;
  torch) scripts/install-deps.sh test torch ;;
  tsan) scripts/install-deps.sh test sanitizers ;;
  fuzz) scripts/install-deps.sh sanitizers ;;
  windows) scripts/install-deps.sh test windows ;;
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
    # The release wheels must be the manylinux ones here: no fallback to this machine's wheel.
    ASYNCFIX_REQUIRE_MANYLINUX=1 ctest --preset dist
    scripts/dist.sh build/ci dist
    ;;
  roots)
    # Where the dist tests look for them (CTest's ASYNCFIX_DIST_CACHE for the ci preset).
    export ASYNCFIX_DIST_CACHE=$PWD/build/ci/dist-cache
    scripts/build-manylinux.sh --root-only
    python3 tests/dist/dist_util.py bookworm-root
    ;;
  torch)
    build ci
    ctest --preset torch
    ;;
  windows)
    # The native commands the Windows ones are compared with, then the cross build and its tests.
    cmake --preset ci >/dev/null
    cmake --build --preset ci --target asyncfix_cli
    build windows
    scripts/windows-artefacts.sh build/windows # the wheel and the .vsix, which windows.artefacts tests
    ctest --preset windows
    ;;
  asan)
    # What `ctest --preset asan` runs, no more: not the benchmarks nor the man pages (the ci
    # tree builds those with warnings as errors).
    cmake --preset asan >/dev/null
    cmake --build --preset asan --target asyncfix_tests asyncfix_limits_tests asyncfix_lsp_tests \
      asyncfix_api_tests asyncfix_c99_test asyncfix_cli asyncfix_lsp_bin gitignore_probe
    ctest --preset asan
    ;;
  tsan)
    # Only what the lsp, cli and threads labels run (no benchmark), with the gitignore probe.
    cmake --preset tsan >/dev/null
    cmake --build --preset tsan --target asyncfix_limits_tests asyncfix_lsp_tests asyncfix_cli asyncfix_lsp_bin \
      gitignore_probe
    ctest --preset tsan
    ;;
  fuzz)
    # The seeds stay as committed; what a run learns goes to build/fuzz/corpus/<name>, a crash
    # to build/fuzz/artifacts/ (and fails the run). Longer runs: see docs/reliability.md.
    cmake --preset fuzz >/dev/null
    names=(${ASYNCFIX_FUZZ_TARGETS:-lint_fix lsp config notebook prefilter})
    targets=("${names[@]/#/fuzz_}")
    cmake --build --preset fuzz --target "${targets[@]}"
    # Four minutes of fuzzing shared by the five fuzzers (48 s each), as when four ran 60 s each;
    # run two at a time (below), they take 3 x 48 s of the lane.
    seconds=${ASYNCFIX_FUZZ_SECONDS:-48}
    mkdir -p build/fuzz/artifacts
    # ASYNCFIX_FUZZ_JOBS fuzzers at a time (default 2, one per core of CI's machine): each is one
    # process on one core and -max_total_time is wall time, so each still fuzzes its seconds.
    fuzz_one() { # name
      local t=fuzz_$1
      "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
        -max_len=16384 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
        "build/fuzz/corpus/$1" "tests/fuzz/corpus/$1" >"build/fuzz/$t.log" 2>&1
    }
    declare -A running=() # pid -> name
    failed=" "
    reap() { # waits for one fuzzer; a failed one is noted
      local pid status=0
      wait -n -p pid "${!running[@]}" || status=$?
      [ "$status" -eq 0 ] || failed+="${running[$pid]} "
      unset "running[$pid]"
    }
    for name in "${names[@]}"; do
      [ "${#running[@]}" -lt "${ASYNCFIX_FUZZ_JOBS:-2}" ] || reap
      mkdir -p "build/fuzz/corpus/$name"
      echo "fuzz: fuzz_$name for ${seconds}s"
      fuzz_one "$name" &
      running[$!]=$name
    done
    while [ "${#running[@]}" -gt 0 ]; do reap; done
    for name in "${names[@]}"; do
      t=fuzz_$name
      if [[ "$failed" == *" $name "* ]]; then
        tail -n 60 "build/fuzz/$t.log" >&2
        echo "fuzz: $t failed; the input is in build/fuzz/artifacts/ (log: build/fuzz/$t.log)" >&2
        continue
      fi
      echo "fuzz: $t"
      grep -E '^(Done|stat::)' "build/fuzz/$t.log" || tail -n 5 "build/fuzz/$t.log"
      if [ "${ASYNCFIX_FUZZ_GROW:-0}" = 1 ]; then
        # Into the committed corpus: only what adds coverage to it (review and commit the files).
        "build/fuzz/tests/fuzz/$t" -merge=1 -timeout=20 -rss_limit_mb=2560 -max_len=16384 \
          "tests/fuzz/corpus/$name" "build/fuzz/corpus/$name" >"build/fuzz/$t.merge.log" 2>&1
        grep -E 'MERGE-OUTER: [0-9]+ new files' "build/fuzz/$t.merge.log" || tail -n 3 "build/fuzz/$t.merge.log"
      fi
    done
    [ "$failed" = " " ] || exit 1
    # Line coverage of lib/ by the corpus (the committed seeds and what the runs learned), on a
    # build instrumented for llvm-cov; below the floor the run fails. The committed corpus alone
    # reaches 60.2% (docs/reliability.md); the floor sits 3 points below, so that a change that
    # makes the fuzzers reach less of the library, or drops seeds, shows in CI's one-minute runs,
    # and new code of lib/ needs seeds of its own.
    floor=${ASYNCFIX_FUZZ_COVERAGE_FLOOR:-57}
    # Without ccache's path rewriting (CCACHE_BASEDIR makes the sources' paths relative, and then
    # llvm-cov's lib/ filter counts other files than on a machine without ccache, as CI is).
    cmake --preset fuzz-coverage >/dev/null
    CCACHE_DISABLE=1 cmake --build --preset fuzz-coverage --target "${targets[@]}"
    profiles=build/fuzz-coverage/profiles
    rm -rf "$profiles" && mkdir -p "$profiles"
    objects=()
    for name in "${names[@]}"; do
      t=fuzz_$name
      LLVM_PROFILE_FILE="$profiles/$t.profraw" "build/fuzz-coverage/tests/fuzz/$t" -runs=0 -timeout=60 \
        -rss_limit_mb=2560 -max_len=16384 "tests/fuzz/corpus/$name" "build/fuzz/corpus/$name" \
        >"$profiles/$t.log" 2>&1
      objects+=(-object "build/fuzz-coverage/tests/fuzz/$t")
    done
    llvm-profdata merge -sparse "$profiles"/*.profraw -o "$profiles/corpus.profdata"
    llvm-cov report "${objects[@]:1}" -instr-profile="$profiles/corpus.profdata" "$PWD/lib" \
      >"$profiles/report.txt"
    covered=$(llvm-cov export -summary-only "${objects[@]:1}" -instr-profile="$profiles/corpus.profdata" "$PWD/lib" |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["totals"]["lines"]["percent"])')
    printf 'fuzz: lib/ line coverage by the corpus %.1f%% (floor %s%%; per file: %s)\n' "$covered" "$floor" \
      "$profiles/report.txt"
    # The floor holds for the five fuzzers together, not for a subset (ASYNCFIX_FUZZ_TARGETS).
    if [ "${#names[@]}" -eq 5 ] &&
        ! python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$covered" "$floor"; then
      echo "fuzz: the corpus reaches less of lib/ than the floor" >&2
      exit 1
    fi
    if [ -n "${ASYNCFIX_ORACLE_HOURS:-}" ]; then
      build ci
      python3 tests/oracle/runtime_oracle.py --hours "$ASYNCFIX_ORACLE_HOURS" --bin build/ci/cli/asyncfix \
        --keep build/oracle-failures --summary build/oracle-summary.json
    fi
    ;;
esac
