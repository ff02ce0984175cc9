#!/usr/bin/env bash
# Builds ampscope's tests with AddressSanitizer and UndefinedBehaviorSanitizer and runs them; exits
# non-zero on a failing test or any sanitizer report (docs/testing.md).
#   scripts/sanitize.sh              build and run
# AMPSCOPE_SANITIZE_SCOPE picks what:
#   all (default)  g++, into build-sanitize/ ($AMPSCOPE_SANITIZE_BUILD_DIR): `ampscope` and the trace,
#                  analyzer, reports, golden, CLI and collector tests and the fuzz regression replays.
#                  (Not clang: Debian 12's clang 14 cannot compile the trainer's
#                  __builtin_cpu_supports("f16c"), and `ampscope`, which the CLI and collector tests
#                  run, links the trainer.)
#   libraries      clang, into build-fuzz/ ($AMPSCOPE_FUZZ_BUILD_DIR), the folder scripts/fuzz.sh
#                  builds its harnesses in, so that CI instruments the libraries once for both: the
#                  trace, analyzer, reports and golden tests and the fuzz regression replays (no
#                  `ampscope`, so no trainer, CLI or collector tests).
#   threads        ThreadSanitizer (g++), into build-tsan/ ($AMPSCOPE_TSAN_BUILD_DIR): the analyzer
#                  tests of what runs on several threads (parallel Kineto parsing, gzip inflating
#                  ahead, the SQLite importers' second connection, a job's files read at once).
#                  Not in CI (it builds the analyzer once more); run it after changing that code.
# The trainer's own tests are built in neither: CPU training under ASan is slow and the trainer
# reads no untrusted input.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scope="${AMPSCOPE_SANITIZE_SCOPE:-all}"
case "$scope" in
  all) build="${AMPSCOPE_SANITIZE_BUILD_DIR:-$root/build-sanitize}" ;;
  libraries) build="${AMPSCOPE_FUZZ_BUILD_DIR:-$root/build-fuzz}" ;;
  threads) build="${AMPSCOPE_TSAN_BUILD_DIR:-$root/build-tsan}" ;;
  *) echo "sanitize: AMPSCOPE_SANITIZE_SCOPE is all, libraries or threads, not '$scope'" >&2; exit 2 ;;
esac
# NVTX's headers (the collector) come with the CUDA toolkit, found through nvcc.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" -DAMPSCOPE_ENABLE_CUDA=OFF
        -DAMPSCOPE_BUILD_GUI=OFF -DAMPSCOPE_BUILD_PYTHON=OFF -DAMPSCOPE_BUILD_BENCH=OFF)
jobs="${AMPSCOPE_JOBS:-$(nproc)}"
if [ "$scope" = "threads" ]; then
  cmake -S "$root" -B "$build" "${common[@]}" -DAMPSCOPE_SANITIZE=thread >/dev/null
  cmake --build "$build" -j "$jobs" --target analyzer_tests
  filter='KinetoParallelParse*:ChromeTraceStream*:KinetoImporter*:KinetoSharedTraceFacts*:NsysImporter*:NsysSharedTrace*:Nvprof*:DistributedJob*:JobAnalysis*:SharedTraces/*:DataPipelineSharedTrace*:StepReplay*'
  status=0
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" "$build/tests/analyzer/analyzer_tests" \
    --gtest_filter="$filter" 2>&1 | tee "$build/tsan.log" | tail -3 || status=$?
  if grep -q 'WARNING: ThreadSanitizer' "$build/tsan.log"; then status=1; fi
  echo "sanitize: ThreadSanitizer $([ "$status" = 0 ] && echo passed || echo FAILED) ($build/tsan.log)"
  exit "$status"
fi
common+=(-DAMPSCOPE_SANITIZE=address,undefined)
if [ "$scope" = "libraries" ]; then
  # The same configuration as scripts/fuzz.sh's, so that neither rebuilds the other's objects.
  cxx="$(command -v clang++ || command -v clang++-14 || true)"
  cc="$(command -v clang || command -v clang-14 || true)"
  if [ -z "$cxx" ] || [ -z "$cc" ]; then
    echo "sanitize: clang not found; run scripts/install_deps.sh" >&2
    exit 2
  fi
  cmake -S "$root" -B "$build" "${common[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DAMPSCOPE_BUILD_FUZZERS=ON >/dev/null
else
  cmake -S "$root" -B "$build" "${common[@]}" >/dev/null
fi

targets=(trace_tests analyzer_tests reports_tests golden_tests fuzz_seeds)
if [ "$scope" = "all" ]; then
  targets+=(ampscope cli_tests command_line_tests collector_tests record_command_tests)
fi
# Every harness tests/fuzz/CMakeLists.txt lists (AMPSCOPE_FUZZ_HARNESSES), replayed instrumented.
read -r -a harnesses <<< "$(sed -n 's/^set(AMPSCOPE_FUZZ_HARNESSES \(.*\))$/\1/p' "$root/tests/fuzz/CMakeLists.txt")"
for harness in "${harnesses[@]}"; do
  targets+=("${harness}_fuzz_replay")
done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# halt_on_error: the first report fails its test. Leaks are reported at exit (LeakSanitizer).
# The suppression file names third-party code only, each entry with its reason.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:print_stacktrace=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
if [ "$scope" = "all" ]; then
  # record_command_tests' recorded program dies by SIGSEGV on purpose and the test checks the
  # signal; ASan's handler would turn that death into exit 1. A real SEGV in our code still fails
  # its test (the process dies by the signal), only without ASan's stack.
  ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0"
fi
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0"
cd "$build"
# Binaries not built here (trainer, GPU) appear as *_NOT_BUILT tests: left out.
log="$build/sanitize-ctest.log"
status=0
ctest --output-on-failure -j "$jobs" -E '_NOT_BUILT' 2>&1 | tee "$log" || status=$?
# A report inside a test that still exited 0 (a child process, say) fails the run too.
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$build/Testing/Temporary/LastTest.log"; then
  echo "sanitize: sanitizer reports in $build/Testing/Temporary/LastTest.log:" >&2
  grep -nE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$build/Testing/Temporary/LastTest.log" | head -20 >&2
  status=1
fi
echo "sanitize: $(grep -E 'tests passed|tests failed' "$log" | tail -1) (ASan+UBSan, $build)"
exit "$status"
