"""ampscope.torch.trace_handler: the trace and its report beside it, with a stand-in profiler and,
where PyTorch is installed, a real CPU torch.profiler run."""

import gzip
import shutil

import pytest

import ampscope
import ampscope.torch


class StandInProfiler:
    """What torch.profiler.profile gives on_trace_ready: step_num and export_chrome_trace."""

    def __init__(self, source, step_num):
        self.source = source
        self.step_num = step_num

    def export_chrome_trace(self, path):
        with gzip.open(self.source, "rb") as source, open(path, "wb") as target:
            shutil.copyfileobj(source, target)


def test_handler_writes_the_trace_and_report_and_returns_the_run(workers0, tmp_path):
    handler = ampscope.torch.trace_handler(tmp_path / "prof", worker_name="host_1")
    run = handler(StandInProfiler(workers0, step_num=7))
    trace = tmp_path / "prof" / "host_1.7.pt.trace.json.gz"
    assert trace.is_file() and not (tmp_path / "prof" / "host_1.7.pt.trace.json").exists()
    assert (tmp_path / "prof" / "host_1.7_report" / "report.html").is_file()
    assert handler.last_run is run
    assert run.summary == ampscope.analyze(workers0).summary | {"rank_result": run.summary["rank_result"]}
    assert run.summary["gpu_kernel_time_ns"] == ampscope.analyze(workers0).summary["gpu_kernel_time_ns"]


def test_handler_names_each_step(workers0, tmp_path):
    handler = ampscope.torch.trace_handler(tmp_path, worker_name="w", report=False)
    handler(StandInProfiler(workers0, step_num=3))
    handler(StandInProfiler(workers0, step_num=6))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.3.pt.trace.json.gz", "w.6.pt.trace.json.gz"]
    assert len(handler.runs) == 2


def test_a_real_cpu_torch_profiler_run(tmp_path):
    torch = pytest.importorskip("torch")
    handler = ampscope.torch.trace_handler(tmp_path, worker_name="cpu")
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule,
                                record_shapes=True, on_trace_ready=handler) as prof:
        for _ in range(5):
            loss = model(torch.randn(32, 64)).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    run = handler.last_run
    assert run is not None
    # The trace is ready after wait + warmup + active = 4 steps.
    assert (tmp_path / "cpu.4.pt.trace.json.gz").is_file()
    assert (tmp_path / "cpu.4_report" / "report.html").is_file()
    assert run.summary["format"] == "kineto"
    assert run.summary["ranges"]["count"] > 0
    assert run.summary["iterations"]["count"] == 2  # the active steps' ProfilerStep ranges
