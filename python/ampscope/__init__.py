"""ampscope: a profiler and performance advisor for mixed-precision (AMP) GPU training.

The same analyzer as the ``ampscope`` command, from Python::

    import ampscope
    run = ampscope.analyze("trace.pt.trace.json.gz")
    run.summary["iterations"]          # the `ampscope analyze --json` document
    run.layers                         # layers.csv as a DataFrame (pandas) or a list of dicts
    run.report("report/")              # report.html and the CSVs

A job's ranks map and reduce anywhere: ``ampscope.merge(map(ampscope.summarize, files))``.
``ampscope.torch.trace_handler(out_dir)`` plugs into ``torch.profiler.profile(on_trace_ready=...)``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._core import TraceError
from ._run import RankSummary, Run, analyze, diff, merge, summarize

__version__ = "0.1.0"
__all__ = ["Run", "RankSummary", "TraceError", "analyze", "diff", "merge", "summarize", "torch"]


def __getattr__(name: str) -> Any:
    # ampscope.torch imports PyTorch only when used.
    if name == "torch":
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'ampscope' has no attribute {name!r}")
