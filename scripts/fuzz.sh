#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan, into build-fuzz/ or
# $AMPSCOPE_FUZZ_BUILD_DIR: the importers and the harnesses only) and runs each for SECONDS (default 60).
# Prints one line per harness (runs, coverage, corpus, result) and exits non-zero on any crash,
# sanitizer report, leak, timeout (a run over 10 s) or out-of-memory (over 2 GB), keeping the input
# that did it under <build>/fuzz/crashes/<harness>/. docs/testing.md says how such an input becomes
# a regression test (tests/fuzz/regressions/<harness>/).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 10; scripts/fuzz.sh 300 kineto
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMPSCOPE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
shift || true
# Every harness tests/fuzz/CMakeLists.txt lists (AMPSCOPE_FUZZ_HARNESSES).
read -r -a all <<< "$(sed -n 's/^set(AMPSCOPE_FUZZ_HARNESSES \(.*\))$/\1/p' "$root/tests/fuzz/CMakeLists.txt")"
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${all[@]}"); fi

# AMPSCOPE_FUZZ_NO_BUILD=1 runs the harnesses as built (while another build uses the folder).
if [ "${AMPSCOPE_FUZZ_NO_BUILD:-0}" != 1 ]; then
  # clang: libFuzzer is clang's (scripts/install_deps.sh installs it).
  cxx="$(command -v clang++ || command -v clang++-14 || true)"
  cc="$(command -v clang || command -v clang-14 || true)"
  if [ -z "$cxx" ] || [ -z "$cc" ]; then
    echo "fuzz: clang not found; run scripts/install_deps.sh" >&2
    exit 2
  fi
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
    -DAMPSCOPE_ENABLE_CUDA=OFF -DAMPSCOPE_BUILD_GUI=OFF -DAMPSCOPE_BUILD_PYTHON=OFF \
    -DAMPSCOPE_BUILD_BENCH=OFF -DAMPSCOPE_SANITIZE=address,undefined -DAMPSCOPE_BUILD_FUZZERS=ON >/dev/null || exit 2
  targets=(fuzz_seeds)
  for harness in "${harnesses[@]}"; do targets+=("${harness}_fuzzer"); done
  cmake --build "$build" -j "${AMPSCOPE_JOBS:-$(nproc)}" --target "${targets[@]}" || exit 2
fi

work="$build/fuzz"
seeds="$work/seeds"
"$build/tests/fuzz/fuzz_seeds" "$seeds" >/dev/null || exit 2

# The harnesses' scratch files (fuzz_support.h), which a crashed run leaves behind, stay in here.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
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
