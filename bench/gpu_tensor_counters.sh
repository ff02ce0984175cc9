#!/usr/bin/env bash
# The tensor pipe as the collector measures it, on a GPU: a GEMM-heavy MLP trained for a few steps
# in FP32 (TF32 off), TF32 and AMP-BF16, each recorded with `--metrics tensor` (CUPTI PM sampling)
# and once more without recording, for the overhead. Prints, per mode, the measured busy share of
# the tensor pipe over the kernel time it covers, the time of kernels measured on and off Tensor
# Cores, the name verdicts' Tensor Core time, and the steps' wall time with and without --metrics.
# Expected: the pipe about idle in fp32 and clearly busy in tf32 and amp-bf16, agreeing with the
# names. Usage: bench/gpu_tensor_counters.sh [OUT_DIR] (built with the CUDA backend, e.g. -arch=sm_90).
set -euo pipefail
out="${1:-${OUT:-/tmp/gpu_tensor_counters}}"
bin="$(dirname "$0")/../build/cli/ampscope"
mkdir -p "$out"
common=(--device cuda --data synthetic --model mlp --hidden 4096,4096,4096 --batch 512 --steps 60 --workers 2)
for mode in fp32 tf32 amp-bf16; do
  start=$(date +%s.%N)
  "$bin" train "${common[@]}" --precision "$mode" --json > "$out/$mode-plain.json"
  plain=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  "$bin" train "${common[@]}" --precision "$mode" --profile "$out/$mode.sqlite" --metrics tensor --json \
    > "$out/$mode-profiled.json" 2> "$out/$mode-record.log" || true
  profiled=$(echo "$(date +%s.%N) - $start" | bc)
  "$bin" analyze "$out/$mode.sqlite" --json > "$out/$mode-analysis.json" 2> "$out/$mode-analyze.log" || true
  python3 - "$mode" "$out/$mode-analysis.json" "$plain" "$profiled" <<'PY'
import json, sys
mode, path, plain, profiled = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
try:
    a = json.load(open(path))
except Exception as e:
    print(f"{mode}: no analysis ({e})"); sys.exit(0)
tc = a.get("tensor_cores", {})
m = tc.get("measured") or {}
print(f"{mode}: measured busy share {m.get('active_share')} over {m.get('covered_ns')} ns of "
      f"{m.get('kernel_time_ns')} ns kernel time; measured Tensor Core {m.get('tensor_core_ns')} ns, idle "
      f"{m.get('idle_ns')} ns; metrics {m.get('metrics')}; name verdicts' Tensor Core time {tc.get('time_ns')} ns; "
      f"wall {plain:.1f} s plain, {profiled:.1f} s with --profile --metrics tensor")
for d in (a.get("counters") or {}).get("disagreements", [])[:5]:
    print(f"  disagreement: {d}")
PY
done
