#!/usr/bin/env bash
# Trains the MLP on Fashion-MNIST on the CPU in every precision mode, then the two failure modes
# of the mixed-precision papers, and prints one Markdown table (docs/amp_numerics.md holds its
# last output):
#   1. the modes side by side, same seed and hyper-parameters;
#   2. FP16 weights updated in FP16 (fp16-pure): with a small learning rate and no momentum,
#      updates smaller than half an FP16 step of the weight round away;
#   3. FP16 without loss scaling on small gradients (batch 2048, a deep MLP): the share of gradient
#      values that come out exactly zero, against FP32 and against dynamic loss scaling.
#   scripts/amp_numerics_demo.sh [path/to/ampscope]
set -euo pipefail
ampscope=${1:-build/cli/ampscope}

row() {  # label, then ampscope train options
  local label=$1
  shift
  "$ampscope" train --device cpu --json "$@" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("| {} | {} | {:.2f}% | {:.4f} | {} | {:g} | {:.3f}% | {:.3f}% |".format(
    sys.argv[1], d["precision"], 100 * d["test_accuracy"], d["final_loss"], d["skipped_steps"],
    d["final_loss_scale"], 100 * d["zero_gradient_share"], 100 * d["fp16_underflow_share"]))' "$label"
}

echo "| run | precision | test accuracy | final loss | skipped steps | final loss scale | zero gradients | would underflow FP16 at the scale |"
echo "|---|---|---|---|---|---|---|---|"
for mode in fp32 tf32 amp-fp16 amp-bf16 fp16-master fp16-pure; do
  row "MLP 256-128, 3 epochs, SGD lr 0.05 momentum 0.9" --precision "$mode" --epochs 3 --seed 0
done
for mode in fp32 fp16-master fp16-pure; do
  row "small updates: 2 epochs, SGD lr 0.002, no momentum" --precision "$mode" --epochs 2 --lr 0.002 --momentum 0 --seed 0
done
row "small gradients: batch 2048, 4x512 hidden, 60 steps" --precision fp32 --batch 2048 --hidden 512,512,512,512 --steps 60 --seed 0
for scale in none dynamic; do
  row "small gradients, loss scale $scale" --precision amp-fp16 --loss-scale "$scale" --batch 2048 \
    --hidden 512,512,512,512 --steps 60 --seed 0
done
