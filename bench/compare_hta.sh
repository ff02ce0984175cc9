#!/usr/bin/env bash
# ampscope beside HTA (Holistic Trace Analysis) on the same Kineto trace: HTA 0.5.0 (PyPI
# holistictraceanalysis, its last release under that name) and HTA under its new name (PyPI
# traceinsight, the newest PyPI serves when its venv is made), each running its trace load plus its
# temporal breakdown, and `ampscope analyze --json`, each in a fresh process on a warm page cache.
# Prints the wall times, the peak memories and each HTA's ratios against ampscope.
#
#   bench/compare_hta.sh [TRACE] [BUILD_DIR]
#
# TRACE: a Kineto trace (default: the ~1 GB benchmark trace bench/run_benchmarks.sh makes in
# ${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}). BUILD_DIR holds cli/ampscope (default build).
#
# What each tool does in the timed run:
# - HTA (both): bench/hta_breakdown.py: TraceAnalysis(trace_dir) (parses the trace into its
#   DataFrames) and get_temporal_breakdown() (each rank's idle, compute and non-compute GPU time,
#   the nearest HTA has to the step breakdown). Both packages are the same `hta` module.
# - ampscope: `analyze TRACE --json`, the whole analysis; the JSON goes to /dev/null.
#
# The two packages both install a module named hta, so each has a venv of its own:
# ${AMPSCOPE_HTA_VENV:-BUILD_DIR/hta-venv} (holistictraceanalysis==0.5.0) and
# ${AMPSCOPE_TRACEINSIGHT_VENV:-BUILD_DIR/traceinsight-venv} (remove it to take a newer
# traceinsight). One that cannot be installed from PyPI is skipped with a message; where neither
# can be, the comparison is skipped with exit 0. Only the temporary folder HTA reads (a link to
# TRACE) is written, and it is removed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}"
trace="${1:-$bench_dir/kineto_large_1024mb.json}"
build="${2:-$root/build}"
ampscope="$build/cli/ampscope"
hta_venv="${AMPSCOPE_HTA_VENV:-$build/hta-venv}"
traceinsight_venv="${AMPSCOPE_TRACEINSIGHT_VENV:-$build/traceinsight-venv}"

say() { echo "compare_hta: $*"; }

if [[ ! -f "$trace" ]]; then
  say "no trace at $trace (bench/run_benchmarks.sh makes the 1 GB one; or pass TRACE)" >&2
  exit 1
fi
if [[ ! -x "$ampscope" ]]; then
  say "$ampscope is not built (scripts/build.sh)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/time ]]; then
  say "/usr/bin/time is missing (Debian package time)" >&2
  exit 1
fi

# The version of DIST installed in VENV, or nothing.
installed_version() {
  "$1/bin/python" -c 'import sys, importlib.metadata as m, hta; print(m.version(sys.argv[1]))' "$2" 2>/dev/null || true
}

# Makes VENV hold DIST (pip's SPEC); WANT: the version it must have, or empty for any.
# Fails with a message where PyPI or the install fails.
ensure_venv() {
  local venv=$1 dist=$2 spec=$3 want=$4 have
  have="$(installed_version "$venv" "$dist")"
  if [[ -n "$have" && ( -z "$want" || "$have" == "$want" ) ]]; then
    return 0
  fi
  say "installing $spec into $venv"
  mkdir -p "$(dirname "$venv")"
  if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet "$spec"; } >"$venv.log" 2>&1; then
    say "$dist skipped: $spec could not be installed from PyPI (see $venv.log)"
    return 1
  fi
}

labels=()
venvs=()
if ensure_venv "$hta_venv" holistictraceanalysis holistictraceanalysis==0.5.0 0.5.0; then
  labels+=("HTA $(installed_version "$hta_venv" holistictraceanalysis) (holistictraceanalysis)")
  venvs+=("$hta_venv")
fi
if ensure_venv "$traceinsight_venv" traceinsight traceinsight ""; then
  labels+=("HTA $(installed_version "$traceinsight_venv" traceinsight) (traceinsight)")
  venvs+=("$traceinsight_venv")
fi
if [[ ${#venvs[@]} -eq 0 ]]; then
  say "skipped: neither HTA package could be installed"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/traces"
# HTA reads every trace in a folder.
ln -s "$(realpath "$trace")" "$work/traces/$(basename "$trace")"
# Each tool starts on a warm page cache: read the trace just before it (HTA's own gigabytes can
# push the trace's pages out before the next tool runs).
warm() { cat "$trace" >/dev/null; }

echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "== trace: $trace ($(stat -L -c %s "$trace") bytes)"
rows=()
for i in "${!venvs[@]}"; do
  echo "== ${labels[$i]}: TraceAnalysis(trace_dir) + get_temporal_breakdown()"
  warm
  if ! /usr/bin/time -f "%e %M" -o "$work/hta$i.time" \
       "${venvs[$i]}/bin/python" "$here/hta_breakdown.py" "$work/traces" >"$work/hta$i.json"; then
    say "${labels[$i]} failed on $trace (its messages above)" >&2
    exit 1
  fi
  cat "$work/hta$i.json"
  rows+=("${labels[$i]}=$work/hta$i.time")
done
echo "== ampscope: analyze TRACE --json"
warm
/usr/bin/time -f "%e %M" -o "$work/ampscope.time" "$ampscope" analyze "$trace" --json >/dev/null
python3 "$here/time_table.py" --reference "ampscope analyze --json=$work/ampscope.time" "${rows[@]}"
