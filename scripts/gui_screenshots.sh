#!/usr/bin/env bash
# Renders every tab of the GUI offscreen into docs/screenshots/: on a shared real trace (a
# ResNet-50 run recorded by the PyTorch profiler, compared with its 4-worker run; the 8 ranks of a DLRM job) and on a profile
# made by `ampscope train --profile`.
#
#   scripts/gui_screenshots.sh [BUILD_DIR]
#
# Needs the GUI built (Qt 6) and ../shared/traces; makes the train profile when it is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
gui="$build/cli/ampscope-gui"
ampscope="$build/cli/ampscope"
out="$root/docs/screenshots"
traces="$root/../shared/traces"
[[ -x "$gui" ]] || { echo "error: $gui is not built (it needs Qt 6)" >&2; exit 1; }
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen

trained="$build/screenshots/train.sqlite"
if [[ ! -f "$trained" ]]; then
  mkdir -p "$(dirname "$trained")"
  "$ampscope" train --device cpu --model cnn --channels 16,32 --fc 100 --precision amp-fp16 --steps 150 \
    --workers 0 --profile "$trained" > /dev/null
  "$ampscope" train --device cpu --model cnn --channels 16,32 --fc 100 --precision amp-fp16 --steps 150 \
    --workers 2 --profile "$build/screenshots/train_workers2.sqlite" > /dev/null
fi

shoot() {  # name trace compare
  local name="$1" trace="$2" compare="$3"
  for tab in summary layers kernels roofline timeline numerics memory recommendations compare; do
    "$gui" "$trace" --compare "$compare" --screenshot "$out/${name}_${tab}.png" --tab "$tab" 2> /dev/null
    echo "$out/${name}_${tab}.png"
  done
}
shoot resnet50 "$traces/kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz" \
  "$traces/kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz"
# The four-worker run's timeline on its own: its launch queue fills deeper (docs/gui.md).
"$gui" "$traces/kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz" \
  --screenshot "$out/resnet50_workers4_timeline.png" --tab timeline 2> /dev/null
echo "$out/resnet50_workers4_timeline.png"
shoot train "$trained" "$build/screenshots/train_workers2.sqlite"
# A distributed job: the 8 DLRM ranks' Ranks tab, and the slowest rank's timeline with its NCCL stream.
for tab in ranks timeline; do
  "$gui" "$traces/kineto-v100-dlrm-8ranks" --screenshot "$out/dlrm8_${tab}.png" --tab "$tab" 2> /dev/null
  echo "$out/dlrm8_${tab}.png"
done
