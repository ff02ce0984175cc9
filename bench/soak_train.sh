#!/usr/bin/env bash
# Soak benchmark of the trainer and the collector: `ampscope train --profile` for many steps on
# the CPU (a small MLP on synthetic data), sampling the process's resident memory and the profile
# database's size once a second. Prints the curve (step, RSS, database and WAL sizes, bytes per step)
# and the peak RSS at the first and the last quarter of the run: flat memory and a constant number
# of profile bytes per step mean nothing accumulates per step.
#
#   bench/soak_train.sh [STEPS] [BUILD_DIR]      (STEPS default 20000)
#
# Writes its profile into ${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}/soak.sqlite.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
steps="${1:-20000}"
build="${2:-$here/../build}"
ampscope="$build/cli/ampscope"
bench_dir="${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}"
profile="$bench_dir/soak.sqlite"
if [[ ! -x "$ampscope" ]]; then
  echo "soak_train: $ampscope is not built (scripts/build.sh)" >&2
  exit 1
fi
mkdir -p "$bench_dir"
rm -f "$profile" "$profile"-*
log="$bench_dir/soak_train.log"
samples="$bench_dir/soak_samples.tsv"

# --epochs is large so that --steps ends the run; the progress lines say the step reached.
"$ampscope" train --device cpu --data synthetic --model mlp --hidden 64,32 --batch 32 --precision amp-fp16 \
  --steps "$steps" --epochs 10000 --workers 1 --profile "$profile" >"$log" 2>&1 &
pid=$!
started=$(date +%s.%N)
: >"$samples"
while kill -0 "$pid" 2>/dev/null; do
  rss_kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  db_bytes=$(stat -c %s "$profile" 2>/dev/null || echo 0)
  wal_bytes=$(stat -c %s "$profile-wal" 2>/dev/null || echo 0)
  step=$(tr '\r' '\n' <"$log" | grep -o '^step [0-9]*' | tail -1 | cut -d' ' -f2 || true)
  now=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\t%s\n' "$(awk -v a="$now" -v b="$started" 'BEGIN {print a - b}')" "${step:-0}" "${rss_kib:-0}" "$db_bytes" "$wal_bytes" >>"$samples"
  sleep 1
done
wait "$pid" || { echo "soak_train: train failed:"; tail -5 "$log"; exit 1; }
echo "== $(tail -1 "$log")"
python3 - "$samples" "$steps" "$profile" <<'PY'
import os, sys
rows = [line.split("\t") for line in open(sys.argv[1]) if line.strip()]
rows = [(float(t), int(s), int(k) / 1024, int(b), int(w)) for t, s, k, b, w in rows]
steps = int(sys.argv[2])
final = os.path.getsize(sys.argv[3])
# The database file grows as the collector's transactions are checkpointed into it; the WAL file
# beside it is reused (its size is its high-water mark, not data kept per step).
print(f"{'time s':>7} {'step':>7} {'RSS MB':>8} {'db MB':>8} {'WAL MB':>8} {'db bytes/step':>14}")
shown = rows if len(rows) <= 25 else [rows[i * (len(rows) - 1) // 24] for i in range(25)]
for t, s, mb, b, w in shown:
    per = f"{b / s:14.0f}" if s > 0 else f"{'-':>14}"
    print(f"{t:7.1f} {s:7d} {mb:8.1f} {b / 1e6:8.2f} {w / 1e6:8.2f} {per}")
with_steps = [r for r in rows if r[1] > 0]
if with_steps:
    q = max(1, len(with_steps) // 4)
    first, last = with_steps[:q], with_steps[-q:]
    print(f"peak RSS: first quarter {max(r[2] for r in first):.1f} MB, last quarter {max(r[2] for r in last):.1f} MB")
    print(f"peak WAL: {max(r[4] for r in rows) / 1e6:.2f} MB")
print(f"final profile: {final / 1e6:.2f} MB for {steps} steps ({final / steps:.0f} bytes per step)")
PY
