#!/usr/bin/env bash
# The trainer's GPU checks in one run, for a machine with a GPU (docs/trainer.md, docs/benchmarks.md):
# the GPU-labelled test programs, the throughput of every precision mode, what profiling costs a
# step, and what a steady step of the GEMM-heavy MLP asks of the device (host reads, launches, the
# device's time by phase). Every figure is written under OUT_DIR (default: $OUT, else ./gpu-check).
# About 5 minutes on an H100.
#
#   bench/gpu/train_engine_check.sh [BUILD_DIR] [DEVICE]
#
# BUILD_DIR defaults to build-gpu, DEVICE to cuda (cpu runs everything but the GPU tests, to check
# the script itself). Files under OUT_DIR: gpu_tests.txt and each test program's output,
# train_throughput.txt, profile_overhead.txt, step_MODE.json, graph_{heavy,small}[_on].json.
# Build it where the sources are, for the GPU's architecture (Hopper: 90), with
# only what the checks need, and carry BUILD_DIR to the GPU machine:
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
#     -DAMPSCOPE_BUILD_GUI=OFF -DAMPSCOPE_BUILD_PYTHON=OFF -DAMPSCOPE_BUILD_BENCH=OFF
#   cmake --build build-gpu -j2 --target ampscope ampscope-train cuda_backend_tests trainer_gpu_tests \
#     collector_cupti_gpu_tests collector_metrics_gpu_tests tensor_gemm_program \
#     layer_attribution_cuda_tests memory_projection_cuda_tests
# (every program of the CTest label gpu).
# The test programs are run directly rather than through ctest, whose files name the build
# machine's paths. Some programs name others by their build path (the CUPTI metrics test runs
# ampscope and tensor_gemm_program): build in a checkout at the path the GPU machine will use, or
# link that path to it there.
set -uo pipefail
build="${1:-build-gpu}"
device="${2:-cuda}"
out="${OUT_DIR:-${OUT:-gpu-check}}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
ampscope="$build/cli/ampscope"
[[ -x "$ampscope" ]] || { echo "error: $ampscope is not built" >&2; exit 1; }
mkdir -p "$out"
status=0

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true; } > "$out/device.txt"

# The GPU tests: each program's summary line, and its whole output in the file.
if [[ "$device" == "cuda" ]]; then
  for name in cuda_backend_tests trainer_gpu_tests collector_cupti_gpu_tests collector_metrics_gpu_tests \
    layer_attribution_cuda_tests memory_projection_cuda_tests; do
    program="$(find "$build/tests" -type f -name "$name" -perm -u+x | head -n 1)"
    if [[ -z "$program" ]]; then
      echo "$name: not built" | tee -a "$out/gpu_tests.txt"
      status=1
      continue
    fi
    if ! (cd "$here" && timeout 300 "$program" > "$out/$name.txt" 2>&1); then status=1; fi
    echo "$name: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' "$out/$name.txt" | tr '\n' ' ')" | tee -a "$out/gpu_tests.txt"
  done
fi

# Every precision mode's images/s, host reads and launches per steady step.
AMPSCOPE_BENCH_STEPS="${AMPSCOPE_BENCH_STEPS:-100}" timeout 240 "$here/bench/train_throughput.sh" "$build" "$device" \
  > "$out/train_throughput.txt" 2>&1 || status=1
# What recording costs a step (goal: at most 3 %), three alternating pairs.
AMPSCOPE_BENCH_STEPS=200 timeout 180 "$here/bench/profile_overhead.sh" "$build" "$device" 3 \
  > "$out/profile_overhead.txt" 2>&1 || status=1

# A steady step of the GEMM-heavy MLP in FP32 and both AMP modes: train --json in full.
model=(--model mlp --hidden 4096,4096,4096 --batch 1024)
[[ "$device" == "cpu" ]] && model=(--model mlp --hidden 256,128 --batch 64)
for mode in fp32 amp-fp16 amp-bf16; do
  timeout 120 "$ampscope" train --device "$device" --data synthetic --epochs 1000 --steps 100 "${model[@]}" \
    --precision "$mode" --json > "$out/step_$mode.json" 2> "$out/step_$mode.log" || status=1
done
# The launch cost of a step with and without --cuda-graph (host_ms_per_step), on the GEMM-heavy MLP
# and on a small, launch-bound one, in amp-fp16.
for size in heavy small; do
  sized=("${model[@]}")
  [[ "$size" == "small" ]] && sized=(--model mlp --hidden 256,128 --batch 64)
  for graph in "" "--cuda-graph"; do
    timeout 120 "$ampscope" train --device "$device" --data synthetic --epochs 1000 --steps 200 "${sized[@]}" \
      --precision amp-fp16 --json $graph > "$out/graph_${size}${graph:+_on}.json" 2>/dev/null || status=1
  done
done

cat "$out/gpu_tests.txt" "$out/train_throughput.txt" "$out/profile_overhead.txt" 2>/dev/null
exit "$status"
