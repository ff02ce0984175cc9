#!/usr/bin/env bash
# The main job: install what is needed, build, and analyze a training trace.
# Until ampscope's own trainer and collector exist, the trace is a real ResNet-50 training run
# recorded by the PyTorch profiler (../shared/traces); pass another trace as the first argument.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh"

trace="${1:-$root/../shared/traces/kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz}"
out="${AMPSCOPE_OUT:-$root/build/report}"
mkdir -p "$out"
ampscope="${AMPSCOPE_BUILD_DIR:-$root/build}/cli/ampscope"

"$ampscope" analyze "$trace" --save-profile "$out/profile.sqlite" | tee "$out/summary.txt"
"$ampscope" report "$out/profile.sqlite" --out "$out"
echo
echo "ampscope: report in $out/report.html (also report.md, report.json and CSV files);"
echo "          summary in $out/summary.txt; profile database $out/profile.sqlite"
