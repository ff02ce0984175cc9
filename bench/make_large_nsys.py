#!/usr/bin/env python3
"""Makes a large Nsight Systems SQLite export for the import benchmark.

Copies a real (shared) export and repeats the rows of its event tables (kernels, runtime and
driver calls, memory copies and sets, synchronisations, NVTX events) --copies times. Copy k is
shifted in time by k spans of the source and its correlation ids are offset, so every copy stays
a distinct, well-formed part of the timeline, as if the program had run k more times as long.
String, device and thread tables are kept as they are.

With --distinct-text, each copy's PyTorch NVTX text gets op ids and sequence numbers of its own
(emit_nvtx's "op_id = N" and "seq = N" become "op_id = KN" with K the copy's number and six
zeros), as a recording k times as long would have them: then nearly every range's text differs,
as in a real emit_nvtx export, where without it each text is repeated once per copy.

Python 3 standard library only.
"""

import argparse
import shutil
import sqlite3

DEFAULT_SOURCE = "/work/shared/traces/nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite"
EVENT_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
                "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--distinct-text", action="store_true",
                        help="give each copy's PyTorch NVTX text op ids and sequence numbers of its own")
    args = parser.parse_args()
    shutil.copyfile(args.source, args.output)
    db = sqlite3.connect(args.output)
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'") if t in EVENT_TABLES]
    first = min(db.execute(f"SELECT min(start) FROM {t}").fetchone()[0] or 0 for t in tables)
    last = max(db.execute(f"SELECT max(coalesce(end, start)) FROM {t}").fetchone()[0] or 0 for t in tables)
    span = last - first + 1
    max_correlation = max(db.execute(f"SELECT max(correlationId) FROM {t}").fetchone()[0] or 0
                          for t in tables if "correlationId" in columns(db, t))
    rows = 0
    for table in tables:
        names = [c for c in columns(db, table) if c != "rowid"]
        shifted = []
        for c in names:
            if c in ("start", "end"):
                shifted.append(f"{c} + :shift")
            elif c == "correlationId":
                shifted.append(f"{c} + :correlation")
            elif c == "text" and table == "NVTX_EVENTS" and args.distinct_text:
                # A number never starts with 0, so "K000000" before it keeps copies apart.
                shifted.append("replace(replace(text, 'op_id = ', 'op_id = ' || :copy || '000000'), "
                               "'seq = ', 'seq = ' || :copy || '000000')")
            else:
                shifted.append(c)
        insert = (f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(shifted)} FROM {table} "
                  f"WHERE rowid <= :source_rows")
        source_rows = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
        for k in range(1, args.copies):
            values = {"shift": k * span, "correlation": k * (max_correlation + 1), "source_rows": source_rows}
            if ":copy" in insert:
                values["copy"] = k
            db.execute(insert, values)
        rows += db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    db.commit()
    db.execute("VACUUM")
    db.close()
    print(f"wrote {args.output}: {rows} event rows ({args.copies} copies of {args.source})")


def columns(db, table):
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


if __name__ == "__main__":
    main()
