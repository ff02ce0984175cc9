#!/usr/bin/env bash
# ampscope beside nsys-ai (PyPI nsys-ai) on the same Nsight Systems SQLite export, each in a fresh
# process on a warm page cache. Prints the wall times, the peak memories and the ratios.
#
#   bench/compare_nsys_ai.sh [EXPORT] [BUILD_DIR]
#
# EXPORT: an Nsight Systems SQLite export (default: ${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}/
# nsys_large_400.sqlite, made with `bench/make_large_nsys.py --copies 400` when absent: about 0.8 GB).
# BUILD_DIR holds cli/ampscope (default build).
#
# What each tool does in the timed run:
# - ampscope: `analyze EXPORT --json`: reads the whole export (kernels, runtime and driver calls,
#   copies, sets, synchronisations, NVTX ranges), one rank per process, and runs the complete
#   analysis on each rank (kernel, operator and layer tables under the NVTX ranges, precision and
#   Tensor Core verdicts, steps, GPU idle time and overlap, launch queue, recommendations), then
#   the job across ranks; the JSON goes to /dev/null.
# - nsys-ai: `nsys-ai report EXPORT --gpu N --trim START END`, its offline report (no GPU, no
#   network, no language model), once for each GPU in the export (the command takes one GPU and a
#   window; the window is the whole export, in whole seconds). For its GPU it computes the kernel
#   summary (span, busy and idle time, utilisation, top kernels, streams), the NVTX tree with the
#   kernels under each range (its top-level regions are printed), compute/NCCL overlap, the NCCL
#   breakdown and the iterations with the slow ones flagged; the text goes to a file. Its row "all
#   GPUs" adds up the GPUs' wall times and takes the largest peak, the work ampscope's one run does.
#   nsys-ai reads the export in one of two ways, both timed (AMPSCOPE_NSYS_AI_BACKENDS, default
#   "duckdb sqlite3"):
#   - duckdb: DuckDB attaches the SQLite export (its sqlite_scanner extension) and the first run
#     builds nsys-ai's Parquet cache beside the export (the cold start a user meets once per
#     profile: inside GPU 0's time); the other GPUs' runs read that cache. DuckDB fetches the
#     extension from the network unless it is installed: it is installed from PyPI's
#     duckdb-extension-sqlite-scanner (which pins duckdb to its version) into a DuckDB home in the
#     venv.
#   - sqlite3: what nsys-ai falls back to where DuckDB cannot load the extension (offline without
#     it): Python's sqlite3 on the export. Its first run adds nsys-ai's indexes to the export file
#     (inside GPU 0's time); the other GPUs' runs use them. Forced by running it without a home
#     folder.
#   nsys-ai writes into the file it is given, so each way gets a fresh copy of EXPORT in the
#   temporary folder (made before the timing); EXPORT itself is never written.
#
# nsys-ai goes into a venv of its own (${AMPSCOPE_NSYS_AI_VENV:-BUILD_DIR/nsys-ai-venv}, the newest
# PyPI serves when it is made; remove it to take a newer one); where PyPI or the install fails, the
# comparison is skipped with a message and exit 0. Only a temporary folder is written (in TMPDIR:
# a copy of EXPORT, nsys-ai's cache and outputs), and it is removed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="${AMPSCOPE_BENCH_DIR:-${TMPDIR:-/tmp}/ampscope_bench}"
export_path="${1:-$bench_dir/nsys_large_400.sqlite}"
build="${2:-$root/build}"
# Absolute: nsys-ai runs in a folder of its own, where a relative BUILD_DIR names nothing.
build="$(cd "$build" && pwd)"
ampscope="$build/cli/ampscope"
venv="${AMPSCOPE_NSYS_AI_VENV:-$build/nsys-ai-venv}"
read -r -a backends <<<"${AMPSCOPE_NSYS_AI_BACKENDS:-duckdb sqlite3}"
# The user's own settings would change which way nsys-ai reads the export.
unset NSYS_AI_CACHE_MODE NSYS_AI_INGEST

say() { echo "compare_nsys_ai: $*"; }

for backend in "${backends[@]}"; do
  if [[ "$backend" != duckdb && "$backend" != sqlite3 ]]; then
    say "AMPSCOPE_NSYS_AI_BACKENDS: unknown '$backend' (duckdb, sqlite3)" >&2
    exit 1
  fi
done
if [[ ! -x "$ampscope" ]]; then
  say "$ampscope is not built (scripts/build.sh)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/time ]]; then
  say "/usr/bin/time is missing (Debian package time)" >&2
  exit 1
fi
if [[ ! -f "$export_path" ]]; then
  if [[ -n "${1:-}" ]]; then
    say "no export at $export_path" >&2
    exit 1
  fi
  say "making $export_path (bench/make_large_nsys.py --copies 400, about 0.8 GB)"
  mkdir -p "$bench_dir"
  if ! python3 "$here/make_large_nsys.py" --copies 400 "$export_path.part"; then
    rm -f "$export_path.part"
    say "could not make $export_path (make_large_nsys.py needs the shared export: see its --source)" >&2
    exit 1
  fi
  mv "$export_path.part" "$export_path"
fi

mkdir -p "$(dirname "$venv")"
if ! "$venv/bin/python" -c "import nsys_ai" >/dev/null 2>&1; then
  say "installing nsys-ai into $venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet nsys-ai; } >"$venv.log" 2>&1; then
    say "skipped: nsys-ai could not be installed from PyPI (see $venv.log)"
    exit 0
  fi
fi

# DuckDB looks for installed extensions under $HOME/.duckdb: nsys-ai's DuckDB runs get a home of
# their own in the venv, with sqlite_scanner installed there from its PyPI package.
duckdb_home="$venv/duckdb-home"
install_sqlite_scanner() {
  if ! "$venv/bin/python" -c "import duckdb_extension_sqlite_scanner" >/dev/null 2>&1; then
    say "installing duckdb-extension-sqlite-scanner into $venv"
    "$venv/bin/python" -m pip install --quiet duckdb-extension-sqlite-scanner >>"$venv.log" 2>&1 || return 1
  fi
  mkdir -p "$duckdb_home"
  HOME="$duckdb_home" "$venv/bin/python" - <<'PY' >>"$venv.log" 2>&1
import glob
import os

import duckdb
import duckdb_extension_sqlite_scanner as package

folder = os.path.dirname(package.__file__)
found = glob.glob(os.path.join(folder, "extensions", f"v{duckdb.__version__}", "sqlite_scanner.duckdb_extension"))
if not found:
    raise SystemExit(f"no sqlite_scanner for duckdb {duckdb.__version__} under {folder}")
connection = duckdb.connect()
connection.execute(f"INSTALL '{found[0]}'")
connection.execute("LOAD sqlite_scanner")
PY
}
if [[ " ${backends[*]} " == *" duckdb "* ]] && ! install_sqlite_scanner; then
  say "nsys-ai's DuckDB way skipped: DuckDB's sqlite_scanner extension could not be installed (see $venv.log)"
  kept=()
  for backend in "${backends[@]}"; do [[ "$backend" == duckdb ]] || kept+=("$backend"); done
  backends=("${kept[@]+"${kept[@]}"}")
fi
if [[ ${#backends[@]} -eq 0 ]]; then
  say "skipped: no way of running nsys-ai is left"
  exit 0
fi

# The GPUs nsys-ai reports on and a window holding every event, in whole seconds of the export's
# clock (nsys-ai's --trim is in seconds on that clock).
window="$(python3 - "$export_path" <<'PY'
import math
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
if "CUPTI_ACTIVITY_KIND_KERNEL" not in tables:
    raise SystemExit(f"{sys.argv[1]}: no CUPTI_ACTIVITY_KIND_KERNEL table (no kernels to report on)")
first, last = None, None
for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS"):
    if table in tables:
        lo, hi = db.execute(f"SELECT min(start), max(coalesce([end], start)) FROM {table}").fetchone()
        if lo is not None:
            first = lo if first is None else min(first, lo)
            last = hi if last is None else max(last, hi)
gpus = [str(g) for (g,) in db.execute("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1")]
if not gpus:
    raise SystemExit(f"{sys.argv[1]}: no kernels to report on")
print(math.floor(first / 1e9), math.ceil(last / 1e9), ",".join(gpus))
PY
)"
read -r trim_start trim_end gpu_list <<<"$window"
IFS=, read -r -a gpus <<<"$gpu_list"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Each tool starts on a warm page cache: read the file it reads just before it.
warm() { cat "$1" >/dev/null; }
# nsys-ai's indexes in its copy of the export.
count_indexes() {
  python3 - "$1" <<'PY'
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE '_nsysai%'").fetchone()[0])
PY
}

nsys_ai_version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("nsys-ai"))')"
duckdb_version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("duckdb"))')"
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "== export: $export_path ($(stat -L -c %s "$export_path") bytes)"
echo "== ampscope: analyze EXPORT --json"
warm "$export_path"
/usr/bin/time -f "%e %M" -o "$work/ampscope.time" "$ampscope" analyze "$export_path" --json >/dev/null

rows=()
ratios=()
for backend in "${backends[@]}"; do
  if [[ "$backend" == duckdb ]]; then
    home="$duckdb_home"
    name="nsys-ai $nsys_ai_version DuckDB $duckdb_version"
  else
    home="$work/no-home"  # never made: DuckDB can neither find nor fetch the extension
    name="nsys-ai $nsys_ai_version sqlite3"
  fi
  echo "== $name: report EXPORT --gpu N --trim $trim_start $trim_end, GPUs ${gpus[*]}"
  rm -rf "$work"/profile.*
  # Beside the copy, nsys-ai writes its cache (profile.nsys-cache) and a lock file.
  cp "$export_path" "$work/profile.sqlite"
  files=()
  for gpu in "${gpus[@]}"; do
    out="$work/$backend.gpu$gpu"
    warm "$work/profile.sqlite"
    if ! (cd "$work" && HOME="$home" /usr/bin/time -f "%e %M" -o "$out.time" \
          "$venv/bin/nsys-ai" report profile.sqlite --gpu "$gpu" --trim "$trim_start" "$trim_end" \
          >"$out.txt" 2>"$out.err"); then
      say "nsys-ai report failed on GPU $gpu ($backend):" >&2
      tail -n 20 "$out.err" >&2
      exit 1
    fi
    # The way nsys-ai read the export, from its own messages.
    if grep -q "falling back to sqlite3" "$out.err"; then read_by=sqlite3; else read_by=duckdb; fi
    if [[ "$read_by" != "$backend" ]]; then
      say "nsys-ai read GPU $gpu with $read_by, not $backend (its messages: $out.err):" >&2
      tail -n 5 "$out.err" >&2
      exit 1
    fi
    # Its first lines: the GPU's span, busy time and kernel count.
    head -n 3 "$out.txt"
    # What the first run left for the others.
    label="$name, GPU $gpu"
    if [[ ${#files[@]} -eq 0 && "$backend" == duckdb ]]; then
      if [[ -d "$work/profile.nsys-cache" ]]; then
        label+=" (builds its cache)"
      else
        say "nsys-ai built no cache: its DuckDB runs read the export in place (its messages:)"
        tail -n 5 "$out.err"
        label+=" (no cache)"
      fi
    elif [[ ${#files[@]} -eq 0 && "$backend" == sqlite3 ]]; then
      label+=" (adds $(count_indexes "$work/profile.sqlite") indexes)"
    fi
    rows+=("$label=$out.time")
    files+=("$out.time")
  done
  all="$(IFS=+; echo "${files[*]}")"
  rows+=("$name, all GPUs=$all")
  ratios+=(--ratio "$name, all GPUs")
  rm -rf "$work"/profile.*
done

python3 "$here/time_table.py" --reference "ampscope analyze --json=$work/ampscope.time" "${ratios[@]}" "${rows[@]}"
