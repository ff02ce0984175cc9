#!/usr/bin/env bash
# Training throughput of ampscope's trainer per precision mode, for the MLP and the CNN, and
# each mode's speedup over fp32 on the same model (see docs/benchmarks.md).
#
#   bench/train_throughput.sh [BUILD_DIR] [DEVICE]
#
# DEVICE is auto (default), cpu or cuda. On the CPU the low-precision modes emulate FP16/BF16
# storage by rounding, so they are slower than fp32 there; the figures measure the emulation, not
# Tensor Cores. On a GPU the "GEMM-heavy" rows are the ones to read for the AMP speedup.
# Environment: AMPSCOPE_BENCH_STEPS (default 40 on the CPU, 200 on a GPU).
set -euo pipefail
build="${1:-build}"
device="${2:-auto}"
ampscope="$build/cli/ampscope"
[[ -x "$ampscope" ]] || { echo "error: $ampscope is not built" >&2; exit 1; }
steps_default=40
[[ "$device" == "cuda" ]] && steps_default=200
steps="${AMPSCOPE_BENCH_STEPS:-$steps_default}"

configs=(
  "MLP 256-128, batch 64|--model mlp --hidden 256,128 --batch 64"
  "CNN 16-32 fc 128, batch 64|--model cnn --channels 16,32 --fc 128 --batch 64"
)
if [[ "$device" != "cpu" ]]; then
  configs+=(
    "MLP 4096-4096-4096, batch 1024 (GEMM-heavy)|--model mlp --hidden 4096,4096,4096 --batch 1024"
    "CNN 128-256 fc 1024, batch 256 (GEMM-heavy)|--model cnn --channels 128,256 --fc 1024 --batch 256"
    "CNN 128-256 fc 1024, batch 256, channels last|--model cnn --channels 128,256 --fc 1024 --batch 256 --channels-last"
  )
fi

# reads/step and launches/step: what a steady step asks of the device (train --json, docs/trainer.md).
printf "%-46s %-12s %12s %8s %11s %14s  %s\n" "model" "precision" "images/s" "vs fp32" "reads/step" "launches/step" "device"
for config in "${configs[@]}"; do
  label="${config%%|*}"
  options="${config#*|}"
  fp32=""
  for mode in fp32 tf32 amp-fp16 amp-bf16 fp16-master; do
    # shellcheck disable=SC2086
    # As many epochs as the steps need (a GEMM-heavy batch of 1024 gives only 5 steps an epoch of
    # the synthetic set); images/s leaves out the first step, which pays for library set-up.
    json=$("$ampscope" train --device "$device" --data synthetic --epochs 10000 --steps "$steps" --precision "$mode" $options --json 2>/dev/null)
    read -r ips reads launches dev < <(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
def shown(v): return "-" if v is None else f"{v:g}"
launches = d["launches_per_step"]["total"] if d["launches_per_step"] else None
print(round(d["images_per_second"]), shown(d["host_reads_per_step"]), shown(launches), d["device"].split(" (")[0])' "$json")
    [[ -z "$fp32" ]] && fp32=$ips
    printf "%-46s %-12s %12s %7.2fx %11s %14s  %s\n" "$label" "$mode" "$ips" "$(python3 -c "print($ips / $fp32)")" \
      "$reads" "$launches" "$dev"
  done
done
