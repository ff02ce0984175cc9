#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan, in the folder scripts/sanitize.sh
# builds: build-sanitize/ or $AMPSCOPE_SANITIZE_BUILD_DIR) and runs each for SECONDS (default 60).
# Prints one line per harness (runs, coverage, corpus, result) and exits non-zero on any crash,
# sanitizer report, leak, timeout (a run over 10 s) or out-of-memory (over 2 GB), keeping the input
# that did it under <build>/fuzz/crashes/<harness>/. docs/testing.md says how such an input becomes
# a regression test (tests/fuzz/regressions/<harness>/).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 10; scripts/fuzz.sh 300 kineto
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMPSCOPE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
seconds="${1:-60}"
shift || true
all=(kineto gzip nsys nvprof profile range_text tensor_core_rules)
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${all[@]}"); fi

AMPSCOPE_SANITIZE_BUILD_DIR="$build" "$root/scripts/sanitize.sh" --configure || exit 2
targets=(fuzz_seeds)
for harness in "${harnesses[@]}"; do targets+=("${harness}_fuzzer"); done
cmake --build "$build" -j "${AMPSCOPE_JOBS:-$(nproc)}" --target "${targets[@]}" || exit 2

work="$build/fuzz"
seeds="$work/seeds"
"$build/tests/fuzz/fuzz_seeds" "$seeds" >/dev/null || exit 2

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:print_stacktrace=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0"

failed=0
for harness in "${harnesses[@]}"; do
  corpus="$work/corpus/$harness"    # grows from run to run; the first folder is where libFuzzer writes
  crashes="$work/crashes/$harness"
  log="$work/$harness.log"
  mkdir -p "$corpus" "$crashes"
  inputs=("$corpus" "$seeds/$harness")
  if [ -d "$root/tests/fuzz/regressions/$harness" ]; then inputs+=("$root/tests/fuzz/regressions/$harness"); fi
  "$build/tests/fuzz/${harness}_fuzzer" "${inputs[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
    -artifact_prefix="$crashes/" >"$log" 2>&1
  rc=$?
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')"
  [ -n "$runs" ] || runs="$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')"
  cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')"
  ft="$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')"
  corp="$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)"
  artifact="$(grep -oE 'Test unit written to .*' "$log" | tail -1 | sed 's/Test unit written to //')"
  if [ "$rc" -eq 0 ] && [ -z "$artifact" ]; then
    result="ok"
  else
    failed=1
    what="crash"
    if grep -q 'ERROR: LeakSanitizer' "$log"; then what="leak"
    elif grep -q 'ALARM: working on the last Unit' "$log"; then what="timeout"
    elif grep -qE 'out-of-memory|malloc\(.*\) exceeds' "$log"; then what="out-of-memory"
    elif grep -q 'runtime error:' "$log"; then what="undefined behaviour"
    elif grep -q 'ERROR: AddressSanitizer' "$log"; then what="$(grep -oE 'ERROR: AddressSanitizer: [a-z-]+' "$log" | head -1 | sed 's/ERROR: //')"
    elif grep -q 'uncaught exception\|terminate called' "$log"; then what="uncaught exception"
    fi
    result="FAILED: $what (exit $rc), input ${artifact:-not saved}, log $log"
  fi
  printf 'fuzz %-18s %4ss  runs %-9s cov %-6s ft %-6s corpus %-10s %s\n' "$harness" "$seconds" \
    "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: failures above; keep each input as tests/fuzz/regressions/<harness>/<name> (docs/testing.md)" >&2
fi
exit "$failed"
