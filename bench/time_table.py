#!/usr/bin/env python3
"""Prints the table of a side-by-side benchmark from /usr/bin/time -f "%e %M" files: each row's
wall seconds and peak RSS, and each chosen row's ratios against the reference row.

    time_table.py --reference LABEL=FILE [--ratio LABEL]... ROW...

ROW is LABEL=FILE or LABEL=FILE+FILE+...: a row made of several processes run one after the
other, whose wall times add up and whose peak memory is the largest of theirs. Ratios are printed
for the rows named by --ratio, or for every row when none is named. MB is 10^6 bytes.

Used by bench/compare_hta.sh and bench/compare_nsys_ai.sh. Python 3 standard library only.
"""

import argparse
import sys


def read_time(path):
    """Wall seconds and peak RSS in MB from a /usr/bin/time -f "%e %M" output file."""
    # A command that failed has a line "Command exited with non-zero status N" before the figures.
    seconds, kib = open(path).read().split()[-2:]
    return float(seconds), int(kib) * 1024 / 1e6  # %M is KiB


def parse_row(text):
    label, sep, files = text.rpartition("=")
    if not sep or not label or not files:
        raise argparse.ArgumentTypeError(f"expected LABEL=FILE[+FILE...], got {text!r}")
    runs = [read_time(path) for path in files.split("+")]
    return label, sum(s for s, _ in runs), max(mb for _, mb in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, type=parse_row)
    parser.add_argument("--ratio", action="append", default=[])
    parser.add_argument("rows", nargs="+", type=parse_row)
    args = parser.parse_args()

    rows = [args.reference] + args.rows
    width = max(len(label) for label, _, _ in rows)
    print(f"{'':{width}} {'wall s':>9} {'peak RSS MB':>12}")
    for label, seconds, mb in rows:
        print(f"{label:{width}} {seconds:9.2f} {mb:12.1f}")

    ref_label, ref_s, ref_mb = args.reference
    unknown = set(args.ratio) - {label for label, _, _ in args.rows}
    if unknown:
        print(f"time_table: --ratio names no row: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for label, seconds, mb in args.rows:
        if args.ratio and label not in args.ratio:
            continue
        # %e has two decimals: a run under 5 ms reads 0.00 s.
        print(f"ratio {label} / {ref_label}: {seconds / max(ref_s, 0.01):.1f}x time, "
              f"{mb / ref_mb:.1f}x memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
