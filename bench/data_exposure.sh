#!/usr/bin/env bash
# The input pipeline's exposure as ampscope measures it, with the data loaded in the training
# thread (--workers 0) and by worker threads (--workers 4): the same profiled CPU training run
# twice, analyzed, and the exposed loading time per step printed side by side.
#
#   bench/data_exposure.sh [BUILD_DIR]
#
# The run is chosen so loading is a visible share of a step on the CPU: a small MLP on large
# augmented batches. Timing-dependent, so a benchmark, not a test.
set -euo pipefail
build="${1:-build}"
ampscope="$build/cli/ampscope"
[[ -x "$ampscope" ]] || { echo "error: $ampscope is not built" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf "%-9s %14s %14s %12s %10s\n" "workers" "step" "exposed/step" "share" "if hidden"
for workers in 0 4; do
  "$ampscope" train --device cpu --model mlp --hidden 64 --batch 512 --augment --epochs 1 --train-limit 30720 \
    --workers "$workers" --profile "$work/w$workers.sqlite" > /dev/null 2>&1
  "$ampscope" analyze "$work/w$workers.sqlite" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
p, it = d["data_pipeline"], d["iterations"]
step_ms = it.get("steady_mean_ns", 0) / 1e6
print("%-9s %11.2f ms %11.3f ms %11.1f%% %9.2fx" % (sys.argv[1], step_ms, p["exposed_ns_per_iteration"] / 1e6,
      100 * p["exposed_fraction"], p["speedup_if_hidden"]))' "$workers"
done
