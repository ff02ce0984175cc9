#!/usr/bin/env bash
# ampscope beside HTA (Holistic Trace Analysis, PyPI holistictraceanalysis) on the same Kineto
# trace: HTA's trace load plus its temporal breakdown, and `ampscope analyze --json`, each in a
# fresh process on a warm page cache. Prints both wall times, both peak memories and the ratios.
#
#   bench/compare_hta.sh [TRACE] [BUILD_DIR]
#
# TRACE: a Kineto trace (default: the ~1 GB benchmark trace bench/run_benchmarks.sh makes in
# ${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}). BUILD_DIR holds cli/ampscope (default build).
# HTA goes into a venv of its own (${AMPSCOPE_HTA_VENV:-BUILD_DIR/hta-venv}); where PyPI or the
# install fails, the comparison is skipped with a message and exit 0. Only the temporary folder
# HTA reads (a link to TRACE) is written, and it is removed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}"
trace="${1:-$bench_dir/kineto_large_1024mb.json}"
build="${2:-$root/build}"
ampscope="$build/cli/ampscope"
venv="${AMPSCOPE_HTA_VENV:-$build/hta-venv}"

if [[ ! -f "$trace" ]]; then
  echo "compare_hta: no trace at $trace (bench/run_benchmarks.sh makes the 1 GB one; or pass TRACE)" >&2
  exit 1
fi
if [[ ! -x "$ampscope" ]]; then
  echo "compare_hta: $ampscope is not built (scripts/build.sh)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "compare_hta: /usr/bin/time is missing (Debian package time)" >&2
  exit 1
fi
if ! "$venv/bin/python" -c "import hta" >/dev/null 2>&1; then
  echo "compare_hta: installing holistictraceanalysis into $venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet holistictraceanalysis; } >"$venv.log" 2>&1; then
    echo "compare_hta: skipped: holistictraceanalysis could not be installed from PyPI (see $venv.log)"
    exit 0
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/traces"
# HTA reads every trace in a folder.
ln -s "$(realpath "$trace")" "$work/traces/$(basename "$trace")"
# Each tool starts on a warm page cache: read the trace just before it (HTA's own gigabytes can
# push the trace's pages out before ampscope runs).
warm() { cat "$trace" >/dev/null; }

hta_version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("holistictraceanalysis"))')"
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "== trace: $trace ($(stat -L -c %s "$trace") bytes)"
echo "== HTA $hta_version: TraceAnalysis(trace_dir) + get_temporal_breakdown()"
warm
/usr/bin/time -f "%e %M" -o "$work/hta.time" "$venv/bin/python" "$here/hta_breakdown.py" "$work/traces" >"$work/hta.json"
cat "$work/hta.json"
echo "== ampscope: analyze TRACE --json"
warm
/usr/bin/time -f "%e %M" -o "$work/ampscope.time" "$ampscope" analyze "$trace" --json >/dev/null
python3 - "$work/hta.time" "$work/ampscope.time" <<'PY'
import sys
def read(path):
    seconds, kib = open(path).read().split()[-2:]
    return float(seconds), int(kib) * 1024 / 1e6  # /usr/bin/time's %M is KiB; MB is 10^6 bytes
hta_s, hta_mb = read(sys.argv[1])
amp_s, amp_mb = read(sys.argv[2])
print(f"{'':10} {'wall s':>9} {'peak RSS MB':>12}")
print(f"{'HTA':10} {hta_s:9.2f} {hta_mb:12.1f}")
print(f"{'ampscope':10} {amp_s:9.2f} {amp_mb:12.1f}")
print(f"ratio HTA/ampscope: {hta_s / amp_s:.1f}x time, {hta_mb / amp_mb:.1f}x memory")
PY
