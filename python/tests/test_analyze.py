"""ampscope.analyze and its views equal the CLI's: the same analysis, not a second implementation."""

import csv
import gzip
import json
import subprocess
import sys

import pytest

import ampscope
from ampscope._tables import read_table
from conftest import run_cli


def test_summary_equals_analyze_json(workers0, cli):
    run = ampscope.analyze(workers0)
    completed = run_cli(cli, "analyze", str(workers0), "--json")
    assert completed.returncode == 0, completed.stderr
    assert run.summary == json.loads(completed.stdout)
    assert run.summary["gpu_kernel_time_ns"] > 0


def test_layers_gpu_times_equal_layers_csv(workers0, cli, tmp_path):
    completed = run_cli(cli, "report", str(workers0), "--out", str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    with open(tmp_path / "layers.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    layers = ampscope.analyze(workers0).layers
    assert len(layers) == len(rows) > 0
    time_columns = [c for c in rows[0] if c.endswith("_ns")]
    assert "gpu_time_ns" in time_columns
    for column in time_columns:
        expected = [int(r[column]) if r[column] else None for r in rows]
        got = [None if value != value else int(value) for value in layers[column]]  # NaN: unknown
        assert got == expected, column


def test_tables_without_pandas_are_lists_of_dicts(workers0):
    run = ampscope.analyze(workers0)
    kernels = run.table("kernels", use_pandas=False)
    assert isinstance(kernels, list) and kernels
    assert all(isinstance(row, dict) for row in kernels)
    total = sum(row["gpu_time_ns"] for row in kernels)
    assert total == run.summary["gpu_kernel_time_ns"]


def test_every_table_reads(workers0):
    run = ampscope.analyze(workers0)
    for name in ("layers", "operators", "kernels", "recommendations", "iterations", "collectives", "memory",
                 "memory_peak", "counters", "ranks"):
        table = getattr(run, name)
        assert list(table.columns), name
    # A trace without hardware counters: the fixed columns, no rows; the kernel and layer tables
    # carry the measured share's columns, empty (not measured).
    assert list(run.counters.columns)[:8] == ["kernel", "ranges", "matched", "gpu_time_ns", "tensor_active",
                                              "measured_ns", "source", "basis"]
    assert len(run.counters) == 0
    assert run.kernels["measured_tensor_active"].isna().all()
    assert run.kernels["measured_tensor_ns"].isna().all()
    assert list(run.memory.columns) == ["device_kind", "device", "time_ns", "allocated_bytes", "reserved_bytes"]
    assert len(run.iterations) > 0
    assert len(run.ranks) == 1


def test_missing_file_raises_trace_error_with_the_cli_message(tmp_path, cli):
    missing = tmp_path / "no_such_trace.json"
    with pytest.raises(ampscope.TraceError) as raised:
        ampscope.analyze(missing)
    assert str(missing) in str(raised.value)
    completed = run_cli(cli, "analyze", str(missing))
    assert completed.returncode == 2
    assert completed.stderr.strip() == f"ampscope: {raised.value}"


def test_corrupt_trace_raises_trace_error(tmp_path):
    bad = tmp_path / "bad.pt.trace.json.gz"
    with gzip.open(bad, "wb") as file:
        file.write(b'{"traceEvents": [{"ph": "X", "name": ')
    with pytest.raises(ampscope.TraceError) as raised:
        ampscope.analyze(bad)
    assert str(bad) in str(raised.value)


def test_unknown_gpu_and_table_are_refused(workers0):
    with pytest.raises(ampscope.TraceError, match="unknown GPU"):
        ampscope.analyze(workers0, gpu="NoSuchGPU")
    with pytest.raises(ValueError, match="tables: layers"):
        ampscope.analyze(workers0).table("nope")


def test_report_writes_the_cli_files(workers0, tmp_path):
    out = ampscope.analyze(workers0).report(tmp_path / "r")
    for name in ("report.html", "report.json", "layers.csv", "kernels.csv", "recommendations.csv"):
        assert (out / name).stat().st_size > 0, name


def test_job_has_ranks_and_a_rank_has_everything(dlrm_ranks, cli):
    job = ampscope.analyze(dlrm_ranks)
    assert job.is_job
    completed = run_cli(cli, "analyze", str(dlrm_ranks), "--json")
    assert job.summary == json.loads(completed.stdout)
    assert list(job.ranks["rank"]) == list(range(8))
    # Every rank's rows of its own tables, after the rank.
    kernels = job.table("kernels", use_pandas=False)
    assert list(kernels[0])[0] == "rank"
    assert sorted({int(row["rank"]) for row in kernels}) == list(range(8))
    for row in job.summary["ranks"]:
        assert "tensor_core_share" in row and "amp_projected_speedup" in row and "top_findings" in row
    assert all("ranks" in rec for rec in job.summary["recommendations"])
    with pytest.raises(ValueError, match="run.rank"):
        job.iterations
    with pytest.raises(ValueError, match="run.rank"):
        job.memory
    with pytest.raises(ValueError, match="run.rank"):
        job.counters
    rank3 = job.rank(3)
    assert not rank3.is_job
    single = json.loads(run_cli(cli, "analyze", str(dlrm_ranks), "--rank", "3", "--json").stdout)
    assert rank3.summary == single
    with pytest.raises(ampscope.TraceError, match="rank 9"):
        job.rank(9)


def test_diff_equals_cli_diff_json(shared_traces, cli):
    a = next((shared_traces / "kineto-v100-resnet50-workers0").glob("*.gz"))
    b = next((shared_traces / "kineto-v100-resnet50-workers4").glob("*.gz"))
    completed = run_cli(cli, "diff", str(a), str(b), "--json")
    assert completed.returncode == 0, completed.stderr
    assert ampscope.diff(a, b) == json.loads(completed.stdout)


def test_python_m_ampscope_runs_the_cli(workers0, cli):
    module = subprocess.run([sys.executable, "-m", "ampscope", "analyze", str(workers0), "--top", "3"],
                            capture_output=True, text=True, timeout=300)
    command = run_cli(cli, "analyze", str(workers0), "--top", "3")
    assert module.returncode == 0, module.stderr
    assert module.stdout == command.stdout
    wrong = subprocess.run([sys.executable, "-m", "ampscope", "analyze", str(workers0), "--jsn"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2
    assert wrong.stderr.startswith("ampscope analyze: ") and "did you mean '--json'" in wrong.stderr
    trained = subprocess.run([sys.executable, "-m", "ampscope", "train"], capture_output=True, text=True, timeout=60)
    assert trained.returncode == 2


def test_read_table_keeps_names_and_unknowns():
    text = "name,count,rate\nNA,3,\nnull,,1.5\n"
    rows = read_table(text, use_pandas=False)
    assert rows == [{"name": "NA", "count": 3, "rate": None}, {"name": "null", "count": None, "rate": 1.5}]
    pandas = pytest.importorskip("pandas")
    frame = read_table(text, use_pandas=True)
    assert list(frame["name"]) == ["NA", "null"]
    assert pandas.isna(frame["rate"][0]) and frame["rate"][1] == 1.5


def _sampled_counters_trace(path):
    """A Kineto trace written here: two kernels of 3 ms on an A100 and CUPTI PM-sampling counters of the
    tensor pipe every 1 ms (60% busy under the first, 0% under the second)."""
    events = []
    for i, (name, pct) in enumerate((("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", 60.0),
                                     ("ampere_sgemm_128x64_tn", 0.0))):
        start = 1000.0 + 3000.0 * i
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.0 + 50 * i, "dur": 40})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": 110.0 + 50 * i, "dur": 10, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": start, "dur": 3000,
                       "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        for sample in range(3):
            events.append({"ph": "C", "cat": "hardware_counters", "pid": "GPU 0 Counters", "tid": 0,
                           "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "ts": start + 1000.0 * sample, "args": {"": pct}})
    document = {"schemaVersion": 1, "traceEvents": events,
                "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, "computeMinor": 0,
                                      "numSms": 108}]}
    path.write_text(json.dumps(document))
    return path


def test_counters_table_equals_counters_csv_and_kernels_carry_the_measured_share(tmp_path, cli):
    trace = _sampled_counters_trace(tmp_path / "counters.pt.trace.json")
    run = ampscope.analyze(trace)
    counters = run.table("counters", use_pandas=False)
    completed = run_cli(cli, "report", str(trace), "--out", str(tmp_path / "r"))
    assert completed.returncode == 0, completed.stderr
    assert counters == read_table((tmp_path / "r" / "counters.csv").read_text(), use_pandas=False)
    by_kernel = {row["kernel"]: row for row in counters}
    assert by_kernel["ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn"]["tensor_active"] == pytest.approx(0.6)
    assert by_kernel["ampere_sgemm_128x64_tn"]["tensor_active"] == 0.0
    assert all(row["source"] == "sampled" for row in counters)
    kernels = {row["name"]: row for row in run.table("kernels", use_pandas=False)}
    assert kernels["ampere_sgemm_128x64_tn"]["measured_tensor_active"] == 0.0
    assert kernels["ampere_sgemm_128x64_tn"]["measured_tensor_ns"] == 3_000_000
    assert run.summary["counters"]["series"][0]["samples"] == 6
    assert run.summary["tensor_cores"]["measured"]["covered_ns"] == 6_000_000
