#!/usr/bin/env bash
# The main job: install what is needed, build, train a small CNN on Fashion-MNIST with profiling
# on (on the GPU when there is one, else on the CPU: about a minute or two), analyze the profile
# and write the report.
#
#   scripts/run.sh            train, profile, analyze, report
#   scripts/run.sh TRACE      analyze and report an existing trace instead (PyTorch profiler
#                             JSON, Nsight Systems or nvprof SQLite, ampscope profile)
#
# AMPSCOPE_OUT sets the report folder (default build/report).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh"

out="${AMPSCOPE_OUT:-$root/build/report}"
mkdir -p "$out"
ampscope="${AMPSCOPE_BUILD_DIR:-$root/build}/cli/ampscope"

if [[ $# -ge 1 ]]; then
  "$ampscope" analyze "$1" --save-profile "$out/profile.sqlite" | tee "$out/summary.txt"
else
  # A CNN whose classifier width (100) breaks the multiple-of-8 rule on purpose, in AMP with
  # dynamic loss scaling; two loader workers.
  "$ampscope" train --model cnn --channels 16,32 --fc 100 --precision amp-fp16 --epochs 1 \
    --train-limit 30000 --workers 2 --profile "$out/profile.sqlite" | tee "$out/training.txt"
  echo
  "$ampscope" analyze "$out/profile.sqlite" | tee "$out/summary.txt"
fi
"$ampscope" report "$out/profile.sqlite" --out "$out"
echo
echo "ampscope: report in $out/report.html (also report.md, report.json and CSV files);"
echo "          summary in $out/summary.txt; profile database $out/profile.sqlite"
