#!/usr/bin/env bash
# What recording costs a training run: the same `ampscope train` run with and without --profile,
# alternated pair by pair (the machine's drift then hits both alike), images/s of each run and the
# means. On a GPU it also prints, from the last profiled run, how much of the GPU's time ran on
# Tensor Cores and in which precision (the AMP run's matrix kernels should be there).
#
#   bench/profile_overhead.sh [BUILD_DIR] [DEVICE] [PAIRS]
#
# DEVICE is auto (default), cpu or cuda; PAIRS defaults to 6. Goal: the profiled run at most 3 %
# slower per step. The model is set by AMPSCOPE_BENCH_MODEL (default: the MLP 256-128 on the CPU,
# a GEMM-heavy MLP on a GPU) and the steps by AMPSCOPE_BENCH_STEPS (default 400).
set -euo pipefail
build="${1:-build}"
device="${2:-auto}"
pairs="${3:-6}"
ampscope="$build/cli/ampscope"
[[ -x "$ampscope" ]] || { echo "error: $ampscope is not built" >&2; exit 1; }
steps="${AMPSCOPE_BENCH_STEPS:-400}"
model_default="--model mlp --hidden 256,128 --batch 64"
[[ "$device" == "cuda" ]] && model_default="--model mlp --hidden 4096,4096,4096 --batch 1024"
read -r -a model <<< "${AMPSCOPE_BENCH_MODEL:-$model_default}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --epochs is large enough that --steps ends the run, not the synthetic set's size.
run() {
  "$ampscope" train --device "$device" --data synthetic --precision amp-fp16 --steps "$steps" --epochs 1000 \
    "${model[@]}" --json "$@" 2>/dev/null |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(round(d["images_per_second"]), d["steps"])'
}

printf "%-6s %16s %16s\n" "pair" "unprofiled img/s" "profiled img/s"
plain=() profiled=()
for ((i = 1; i <= pairs; ++i)); do
  read -r u u_steps < <(run)
  read -r p p_steps < <(run --profile "$work/run.sqlite")
  [[ "$u_steps" == "$steps" && "$p_steps" == "$steps" ]] || { echo "error: a run stopped before $steps steps" >&2; exit 1; }
  plain+=("$u") profiled+=("$p")
  printf "%-6s %16s %16s\n" "$i" "$u" "$p"
done
python3 - "${plain[*]}" "${profiled[*]}" <<'PY'
import statistics, sys
plain = [float(v) for v in sys.argv[1].split()]
profiled = [float(v) for v in sys.argv[2].split()]
mp, mq = statistics.mean(plain), statistics.mean(profiled)
print(f"mean   {mp:16.0f} {mq:16.0f}")
print(f"profiled run: {100 * (mp / mq - 1):+.1f} % time per step against unprofiled (goal: at most +3 %)")
PY
if "$ampscope" analyze "$work/run.sqlite" --json > "$work/analysis.json" 2>/dev/null; then
  python3 - "$work/analysis.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tc = d["tensor_cores"]
if not tc.get("applicable", True):
    print("tensor cores: not applicable:", tc.get("note", ""))
else:
    share = tc.get("fraction") or 0.0
    print(f"tensor cores: {100 * share:.1f} % of GPU kernel time; by precision: {tc.get('by_precision')}")
PY
fi
