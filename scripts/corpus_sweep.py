#!/usr/bin/env python3
"""Runs ampscope over every trace file under a folder, as a new user would, and tabulates the result.

    scripts/corpus_sweep.py DIR [--ampscope build/cli/ampscope] [--tsv OUT.tsv] [--markdown OUT.md]

Files are recognised by content, not by name: a JSON object with "traceEvents" (plain or gzip) is a
Kineto/Chrome trace, a JSON array a legacy Chrome trace, an SQLite database an Nsight Systems, nvprof
or ampscope profile (or something else, which ampscope should refuse). Anything else is not a trace
and is skipped. For each file the script runs `analyze`, `analyze --json` and `report`, and records
their exit codes, the wall time of `analyze --json`, the first line of an error, and from the JSON
the device row and basis, the kernel count and how many records or values were not understood.
docs/corpus.md holds the table for the public corpus and says how it was assembled.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib

SQLITE_MAGIC = b"SQLite format 3\x00"


# What reading a file that is not what it seems raises: an unreadable file, a truncated or corrupt
# gzip stream.
UNREADABLE = (OSError, EOFError, zlib.error)
# One trace may not stall the sweep: ampscope reads the largest public ones in well under a second.
TIMEOUT_S = 600


def head_bytes(path, count=4096):
    try:
        with open(path, "rb") as raw:
            start = raw.read(count)
    except UNREADABLE:
        return b"", False
    if start[:2] != b"\x1f\x8b":
        return start, False
    try:
        with gzip.open(path, "rb") as unpacked:
            return unpacked.read(count), True
    except UNREADABLE:
        return None, True  # a gzip stream that does not unpack: ampscope must say so


def kind_of(path):
    start, packed = head_bytes(path)
    if start is None:
        return "gzip (corrupt)"
    if start.startswith(SQLITE_MAGIC):
        return "sqlite"
    text = start.lstrip()
    if text.startswith(b"{") and b'"traceEvents"' in start:
        return "chrome-json.gz" if packed else "chrome-json"
    if text.startswith(b"{"):
        # traceEvents may come after a long metadata object: look further.
        opener = gzip.open if packed else open
        try:
            with opener(path, "rb") as whole:
                if b'"traceEvents"' in whole.read(64 << 20):
                    return "chrome-json.gz" if packed else "chrome-json"
        except UNREADABLE:
            return None
        return None
    if text.startswith(b"[") and b'"ph"' in start:
        return "chrome-array"
    return None


def run(command):
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        done = subprocess.CompletedProcess(command, 124, "", f"timed out after {TIMEOUT_S} s")
    return done, time.monotonic() - started


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def sweep_file(ampscope, path, report_dir):
    row = {"file": path, "kind": kind_of(path)}
    if row["kind"] is None:
        return None
    text, _ = run([ampscope, "analyze", path])
    row["analyze_rc"] = text.returncode
    as_json, seconds = run([ampscope, "analyze", "--json", path])
    row["json_rc"] = as_json.returncode
    row["seconds"] = round(seconds, 2)
    report, _ = run([ampscope, "report", path, "--out", report_dir])
    row["report_rc"] = report.returncode
    row["error"] = first_line(as_json.stderr) if as_json.returncode else ""
    if as_json.returncode == 0:
        try:
            document = json.loads(as_json.stdout)
        except json.JSONDecodeError as error:
            row["error"] = f"--json printed no JSON: {error}"
            return row
        row["format"] = document.get("format", "")
        device = document.get("device") or {}
        row["device_row"] = device.get("row") or ""
        row["device_basis"] = device.get("basis") or ""
        names = [d.get("name", "") for d in document.get("devices", []) if isinstance(d, dict)]
        row["gpu"] = "; ".join(n for n in names if n)
        kernels = document.get("kernels") or {}
        row["kernels"] = kernels.get("count") if isinstance(kernels, dict) else ""
        stats = document.get("import_stats") or {}
        row["not_understood"] = sum((stats.get("not_understood") or {}).values())
    return row


def markdown(rows, root):
    lines = ["| file | GPU | format | read | kernels | not understood | device row (basis) | s |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        name = os.path.relpath(row["file"], root)
        ok = row["analyze_rc"] == 0 and row["json_rc"] == 0 and row["report_rc"] == 0
        # The error names the file: said once, by the row's own name.
        failed = [f"{name} exit {row[name + '_rc']}" for name in ("analyze", "json", "report") if row[name + "_rc"]]
        error = (row["error"] or ", ".join(failed)).replace("ampscope: ", "", 1).replace(row["file"] + ": ", "")
        read = "read" if ok else f"refused: {error}"
        device = f"{row.get('device_row', '')} ({row.get('device_basis', '')})" if row.get("device_basis") else ""
        lines.append(f"| {name} | {row.get('gpu', '')} | {row.get('format', row['kind'])} | {read} | "
                     f"{row.get('kernels', '')} | {row.get('not_understood', '')} | {device} | {row['seconds']} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--ampscope", default=os.path.join(os.path.dirname(__file__), "..", "build", "cli", "ampscope"))
    parser.add_argument("--tsv")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    if not os.access(args.ampscope, os.X_OK):
        parser.error(f"{args.ampscope} is not an executable: build it (scripts/build.sh) or pass --ampscope")
    paths = []
    for base, _, files in os.walk(args.folder):
        paths.extend(os.path.join(base, name) for name in files)
    rows = []
    with tempfile.TemporaryDirectory() as reports:
        for index, path in enumerate(sorted(paths)):
            row = sweep_file(args.ampscope, path, os.path.join(reports, str(index)))
            if row is None:
                continue
            rows.append(row)
            status = "ok" if row["json_rc"] == 0 else "REFUSED " + row["error"]
            print(f"{row['seconds']:6.2f}s {status[:100]:<40} {os.path.relpath(path, args.folder)}", file=sys.stderr)
    columns = ["file", "kind", "format", "gpu", "analyze_rc", "json_rc", "report_rc", "seconds", "kernels",
               "not_understood", "device_row", "device_basis", "error"]
    if args.tsv:
        with open(args.tsv, "w") as out:
            out.write("\t".join(columns) + "\n")
            for row in rows:
                out.write("\t".join(str(row.get(c, "")) for c in columns) + "\n")
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(markdown(rows, args.folder))
    # A refusal exits 2 with a message; a signal (negative code) or a timeout is a crash or a hang.
    crashed = [r for r in rows if any(r[n + "_rc"] < 0 or r[n + "_rc"] == 124 for n in ("analyze", "json", "report"))]
    refused = [r for r in rows if r["json_rc"] != 0 and r not in crashed]
    print(f"{len(rows)} traces, {len(rows) - len(refused) - len(crashed)} read, {len(refused)} refused, "
          f"{len(crashed)} crashed or hung", file=sys.stderr)
    for row in crashed:
        print(f"CRASHED OR HUNG: {row['file']}", file=sys.stderr)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
