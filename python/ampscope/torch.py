"""PyTorch profiler integration: ``on_trace_ready`` that keeps the trace and ampscope's report.

    import torch, ampscope.torch
    handler = ampscope.torch.trace_handler("prof/")
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
                                on_trace_ready=handler) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    handler.last_run.layers       # or open prof/<worker>.<step>_report/report.html

PyTorch itself is not imported here: the handler works with any object that has
``export_chrome_trace(path)`` (torch.profiler.profile does).
"""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any, List, Optional

from ._run import PathLike, Run, analyze


class TraceHandler:
    """Called by the profiler when a trace is ready: writes ``<worker>.<step>.pt.trace.json.gz`` into
    out_dir, analyzes it, writes the report into ``<worker>.<step>_report/`` beside it (unless
    report=False), and returns the Run (also kept in ``runs``; the profiler ignores return values)."""

    def __init__(
        self,
        out_dir: PathLike,
        *,
        worker_name: Optional[str] = None,
        gpu: Optional[str] = None,
        report: bool = True,
        top: int = 20,
    ) -> None:
        self.out_dir = Path(out_dir)
        # As PyTorch's tensorboard_trace_handler names its files: host and process.
        self.worker_name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        self.gpu = gpu
        self.write_report = report
        self.top = top
        self.runs: List[Run] = []

    @property
    def last_run(self) -> Optional[Run]:
        """The analysis of the latest trace, or None before the first."""
        return self.runs[-1] if self.runs else None

    def __call__(self, profiler: Any) -> Run:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        step = getattr(profiler, "step_num", None)
        stem = f"{self.worker_name}.{step if step is not None else time.time_ns()}"
        plain = self.out_dir / f"{stem}.pt.trace.json"
        trace = self.out_dir / f"{stem}.pt.trace.json.gz"
        profiler.export_chrome_trace(os.fspath(plain))
        # Compressed as PyTorch's own handler does with use_gzip=True; the plain file is removed
        # only once the compressed one is complete.
        with open(plain, "rb") as source, gzip.open(trace, "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target, length=1 << 20)
        plain.unlink()
        run = analyze(trace, self.gpu)
        if self.write_report:
            run.report(self.out_dir / f"{stem}_report", self.top)
        self.runs.append(run)
        return run


def trace_handler(
    out_dir: PathLike,
    *,
    worker_name: Optional[str] = None,
    gpu: Optional[str] = None,
    report: bool = True,
    top: int = 20,
) -> TraceHandler:
    """A handler for ``torch.profiler.profile(on_trace_ready=...)``: see TraceHandler."""
    return TraceHandler(out_dir, worker_name=worker_name, gpu=gpu, report=report, top=top)
