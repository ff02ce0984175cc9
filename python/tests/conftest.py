"""Where the tests find the real traces (../shared/traces) and the ampscope command to compare with."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    folder = Path(os.environ.get("AMPSCOPE_SHARED_TRACES", ROOT.parent / "shared" / "traces"))
    if not folder.is_dir():
        pytest.skip(f"the shared traces are not at {folder} (set AMPSCOPE_SHARED_TRACES)")
    return folder


@pytest.fixture(scope="session")
def workers0(shared_traces: Path) -> Path:
    files = sorted((shared_traces / "kineto-v100-resnet50-workers0").glob("*.json.gz"))
    if not files:
        pytest.skip("the workers0 ResNet-50 trace is missing")
    return files[0]


@pytest.fixture(scope="session")
def dlrm_ranks(shared_traces: Path) -> Path:
    folder = shared_traces / "kineto-v100-dlrm-8ranks"
    if not folder.is_dir():
        pytest.skip("the 8-rank DLRM traces are missing")
    return folder


@pytest.fixture(scope="session")
def cli() -> Path:
    """The ampscope executable of the same build (CTest sets AMPSCOPE_CLI)."""
    path = Path(os.environ.get("AMPSCOPE_CLI", ROOT / "build" / "cli" / "ampscope"))
    if not path.is_file():
        pytest.skip(f"no ampscope executable at {path} (set AMPSCOPE_CLI)")
    return path


def run_cli(cli: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=300)
