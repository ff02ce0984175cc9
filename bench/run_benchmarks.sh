#!/usr/bin/env bash
# Runs ampscope's benchmarks (see docs/benchmarks.md) and prints every figure.
#
#   bench/run_benchmarks.sh [BUILD_DIR]
#
# BUILD_DIR holds the built bench executables (default: build). Environment:
#   AMPSCOPE_BENCH_DIR   work folder for the large input (default: ${TMPDIR:-/tmp}/ampscope_bench);
#                        the ~1 GB trace made there is reused by later runs
#   AMPSCOPE_BENCH_MB    size of the large Kineto trace in MiB (default 1024)
#   AMPSCOPE_BENCH_KERNELS  kernels in the profile database benchmark (default 5000000)
#   AMPSCOPE_BENCH_SOURCE   the Kineto trace to repeat (default: the shared ResNet-50 V100 trace)
# Nothing outside AMPSCOPE_BENCH_DIR is written or deleted (the database benchmark writes its
# temporary database into the same folder and removes it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-build}"
bench_dir="${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}"
target_mb="${AMPSCOPE_BENCH_MB:-1024}"
kernels="${AMPSCOPE_BENCH_KERNELS:-5000000}"
default_source="$here/../../shared/traces/kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz"
source_trace="${AMPSCOPE_BENCH_SOURCE:-$default_source}"

import_bench="$build/bench/ampscope_import_bench"
db_bench="$build/bench/ampscope_profile_db_bench"
job_bench="$build/bench/ampscope_job_bench"
for exe in "$import_bench" "$db_bench" "$job_bench"; do
  if [[ ! -x "$exe" ]]; then
    echo "error: $exe is not built; build the targets ampscope_import_bench, ampscope_job_bench and" \
         "ampscope_profile_db_bench (Release) and pass the build folder" >&2
    exit 1
  fi
done
if [[ ! -f "$source_trace" ]]; then
  echo "error: source trace $source_trace not found (set AMPSCOPE_BENCH_SOURCE)" >&2
  exit 1
fi

mkdir -p "$bench_dir"
large="$bench_dir/kineto_large_${target_mb}mb.json"

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "memory: $(awk '/MemTotal/ {printf "%.1f GB", $2 / 1e6}' /proc/meminfo)"
echo

echo "== large Kineto trace"
if [[ -f "$large" ]]; then
  echo "reusing $large ($(stat -c %s "$large") bytes)"
else
  python3 "$here/make_large_kineto.py" "$source_trace" -o "$large" --target-mb "$target_mb"
fi
echo

echo "== import of the large Kineto trace (one import, fresh process, split phase timed too)"
"$import_bench" "$large" --phases
echo

echo "== import of the shared source trace (gzip, best of 3)"
"$import_bench" "$source_trace" --repeat 3
echo

# Eight ranks of the large trace: eight names of one file (symbolic links), read as eight ranks.
echo "== job: one rank of the large trace, then eight ranks of it (fresh process each)"
ranks_dir="$bench_dir/job_8_ranks"
mkdir -p "$ranks_dir"
for r in 0 1 2 3 4 5 6 7; do ln -sf "$large" "$ranks_dir/rank$r.json"; done
"$job_bench" "$ranks_dir/rank0.json"
"$job_bench" "$ranks_dir"/rank{0..7}.json
echo

echo "== profile database: $kernels kernels + one launch each"
TMPDIR="$bench_dir" "$db_bench" --kernels "$kernels"
echo

echo "== profile database: $kernels kernels, no launches (the kernels table alone)"
TMPDIR="$bench_dir" "$db_bench" --kernels "$kernels" --no-launches
