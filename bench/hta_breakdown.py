#!/usr/bin/env python3
"""Times HTA (Holistic Trace Analysis) on a folder of Kineto traces: its trace load (TraceAnalysis)
and its temporal breakdown (idle, compute, non-compute time per rank), the work closest to
`ampscope analyze --json`'s step breakdown. Prints one JSON line.

HTA is on PyPI as holistictraceanalysis (up to 0.5.0) and, renamed, as traceinsight (0.6.0 on);
both install the module `hta`, with the same TraceAnalysis(trace_dir=...) and
get_temporal_breakdown(visualize=...) as used here (read in 0.5.0 and 0.6.1).

Used by bench/compare_hta.sh; run it with the Python of a venv that has one of them installed.
"""

import json
import resource
import sys
import time


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: hta_breakdown.py TRACE_DIR", file=sys.stderr)
        return 2
    started = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis  # imported here: its import time is part of the cost

    imported = time.perf_counter()
    analysis = TraceAnalysis(trace_dir=sys.argv[1])
    loaded = time.perf_counter()
    breakdown = analysis.get_temporal_breakdown(visualize=False)
    done = time.perf_counter()
    # ru_maxrss is in KiB on Linux; HTA may parse in worker processes (children).
    self_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({
        "import_s": round(imported - started, 3),
        "load_s": round(loaded - imported, 3),
        "breakdown_s": round(done - loaded, 3),
        "total_s": round(done - started, 3),
        "peak_rss_mb_self": round(self_kib * 1024 / 1e6, 1),
        "peak_rss_mb_largest_child": round(children_kib * 1024 / 1e6, 1),
        "ranks": int(len(breakdown)),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
