"""Runs and jobs: the analysis the ampscope command makes, held once, with its views."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _core
from ._tables import Table, read_table

PathLike = Union[str, "os.PathLike[str]"]


def _paths(path_or_paths: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(path_or_paths, (str, os.PathLike)):
        return [os.fspath(path_or_paths)]
    paths = [os.fspath(p) for p in path_or_paths]
    if not paths:
        raise _core.TraceError("no trace given")
    return paths


class Run:
    """One analyzed run (a trace of one process) or job (several ranks), as `ampscope analyze` sees it.

    The analysis is done once, in C++; every attribute is a view of it:

    * ``summary``: the ``ampscope analyze --json`` document as a dict (docs/analyze_json.md).
    * ``layers``, ``operators``, ``kernels``, ``recommendations``, ``iterations``, ``collectives``,
      ``memory``, ``memory_peak``, ``counters``, ``ranks``: the report's CSV tables (docs/reports.md) as pandas DataFrames when pandas is
      installed, else lists of dicts. An empty cell is unknown (NaN or None), never 0. A job has
      ``ranks`` (with each rank's Tensor Core share and AMP projection), ``collectives``,
      ``recommendations`` (merged across ranks, with the ``ranks`` each applies to), and every rank's
      ``layers``, ``operators`` and ``kernels`` rows after a leading ``rank`` column; a rank's
      iterations and complete analysis: ``run.rank(n)``. A job's ``summary`` is the job document
      (docs/distributed.md): its ``ranks`` rows carry ``tensor_core_share``, ``amp_projected_speedup``
      and ``top_findings``, its ``recommendations`` their ``ranks``.
    * ``report(out_dir)``: writes the report as ``ampscope report`` does.
    """

    def __init__(self, analysis: _core.Analysis, paths: List[str]) -> None:
        self._analysis = analysis
        self.paths: List[str] = paths

    @property
    def is_job(self) -> bool:
        """True when the input was a job of several ranks."""
        return self._analysis.is_job

    def to_json(self, top: int = 10) -> str:
        """The ``analyze --json`` document as text (``top``: entries of each ranked list, as --top)."""
        return self._analysis.json(top)

    @cached_property
    def summary(self) -> Dict[str, Any]:
        """The ``ampscope analyze --json`` document (its default --top 10) as a dict."""
        return json.loads(self.to_json())

    def table(self, name: str, use_pandas: Optional[bool] = None) -> Table:
        """The report's table of that name (layers, operators, kernels, recommendations, iterations,
        ranks, collectives, memory, memory_peak, counters); ``use_pandas=False`` gives a list of dicts even where pandas is installed."""
        return read_table(self._analysis.table_csv(name), use_pandas)

    @property
    def layers(self) -> Table:
        """layers.csv: one row per layer and pass, GPU time, Tensor Core use, shapes off the multiple of 8."""
        return self.table("layers")

    @property
    def operators(self) -> Table:
        """ops.csv: the per-op model's rows (work, achieved and peak rate, bound, AMP projection)."""
        return self.table("operators")

    @property
    def kernels(self) -> Table:
        """kernels.csv: each kernel name with its time, Tensor Core verdict and evidence."""
        return self.table("kernels")

    @property
    def recommendations(self) -> Table:
        """recommendations.csv: actions with their estimated gain, largest first."""
        return self.table("recommendations")

    @property
    def iterations(self) -> Table:
        """iterations.csv: the training steps found and their times."""
        return self.table("iterations")

    @property
    def collectives(self) -> Table:
        """collectives.csv: communication kernels per family, with bandwidths where the sizes are known."""
        return self.table("collectives")

    @property
    def memory(self) -> Table:
        """memory.csv: each device's allocated and reserved bytes after every memory event (empty without them)."""
        return self.table("memory")

    @property
    def memory_peak(self) -> Table:
        """memory_peak.csv: what is live at each device's peak by category and by layer, and what was saved for backward."""
        return self.table("memory_peak")

    @property
    def counters(self) -> Table:
        """counters.csv: per kernel name its hardware counters: ranges and how many matched a launch, GPU time,
        ``tensor_active`` (the tensor pipe's measured busy share over ``measured_ns``; empty: not measured),
        ``source`` and ``basis``, CUDA-core FP operations, then one column per metric recorded (its total).
        Empty (header only) when the trace recorded no counters."""
        return self.table("counters")

    @property
    def ranks(self) -> Table:
        """ranks.csv: per rank, the step split into compute, exposed communication, data and idle (a run is one rank)."""
        return self.table("ranks")

    def rank(self, rank: int) -> "Run":
        """Of a job: rank ``rank``'s complete analysis (its trace is read again)."""
        return Run(self._analysis.rank(rank), self.paths)

    def report(self, out_dir: PathLike, top: int = 20) -> Path:
        """Writes report.html, report.json, the CSVs (and report.md for a run) into out_dir; returns it."""
        self._analysis.write_report(os.fspath(out_dir), top)
        return Path(out_dir)

    def __repr__(self) -> str:
        what = "job" if self.is_job else "run"
        return f"<ampscope {what} of {', '.join(self.paths)}>"


def analyze(
    path_or_paths: Union[PathLike, Sequence[PathLike]],
    gpu: Optional[str] = None,
    *,
    rank: Optional[int] = None,
    threads: int = 0,
) -> Run:
    """Analyzes a trace (PyTorch profiler JSON/.gz, Nsight Systems or nvprof SQLite, ampscope profile),
    or a job: several files, a folder, or a file of several processes. As ``ampscope analyze``.

    gpu names the device (a row of the device table, e.g. "H100-SXM") where the trace does not, or the
    device to project a CPU run on. rank gives one rank of a job; threads bounds the threads used (a job's
    files read at once, one trace's events parsed at once; 0: every hardware thread). Raises TraceError, with the CLI's message, on input it cannot read.
    """
    paths = _paths(path_or_paths)
    return Run(_core.analyze(paths, gpu or "", rank, threads), paths)


def diff(a: PathLike, b: PathLike, gpu: Optional[str] = None) -> Dict[str, Any]:
    """Two runs of one model: ``ampscope diff A B --json`` as a dict (docs/diff.md)."""
    return json.loads(_core.diff_json(os.fspath(a), os.fspath(b), gpu or ""))


@dataclass(frozen=True)
class RankSummary:
    """What ``summarize`` keeps of a rank: the compact result ``merge`` reads (small, picklable)."""

    source: str
    document: str  # an `analyze --json` document holding "rank_result" or "rank_results"

    @property
    def results(self) -> List[Dict[str, Any]]:
        doc = json.loads(self.document)
        return [doc["rank_result"]] if "rank_result" in doc else list(doc.get("rank_results", []))


def summarize(path: PathLike, gpu: Optional[str] = None) -> RankSummary:
    """The map step of a job: one rank's trace (or a file of several processes) reduced to its
    compact result. Run it where the trace is; send the RankSummary to ``merge``."""
    source = os.fspath(path)
    analysis = _core.analyze([source], gpu or "", None, 1)
    if analysis.is_job:
        return RankSummary(source, analysis.json(10))
    return RankSummary(source, '{"rank_result": ' + analysis.rank_result_json() + "}")


MergeInput = Union[RankSummary, Dict[str, Any], PathLike]


def _result_document(index: int, item: MergeInput) -> Tuple[str, str]:
    """(JSON text, the name errors give it)."""
    if isinstance(item, RankSummary):
        return (item.document, item.source)
    if isinstance(item, dict):
        return (json.dumps(item), f"results[{index}]")
    path = os.fspath(item)
    try:
        with open(path, encoding="utf-8") as file:
            return (file.read(), path)
    except OSError as error:
        raise _core.TraceError(f"{path}: cannot open") from error


def merge(results: Iterable[MergeInput]) -> Run:
    """The reduce step: the job analyzed from its ranks' results, as ``ampscope merge``. Each result
    is a RankSummary, an ``analyze --json`` (or ``merge --json``) document as a dict, or a path to one."""
    documents = [_result_document(index, item) for index, item in enumerate(results)]
    return Run(_core.merge(documents), [source for _, source in documents])
