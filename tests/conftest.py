import subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
GUILAB = str(Path(sys.executable).parent / "guilab")


def pytest_addoption(parser):
    parser.addoption("--cpu-neighbours", type=int, default=0, metavar="N",
                     help="start N busy processes (endless CPU loops) for the whole session and stop them at its end: "
                          "the suite must pass beside a CPU-burning neighbour (issue 35)")


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: starts a real JupyterLab and/or headless Chromium (-m browser)")


@pytest.fixture(scope="session", autouse=True)
def cpu_neighbours(request):
    "The busy processes of --cpu-neighbours (none by default), running from the session's start to its end."
    n = request.config.getoption("--cpu-neighbours")
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL) for _ in range(n)]
    try:
        yield procs
        assert all(p.poll() is None for p in procs), "a CPU neighbour stopped during the session"
    finally:
        for p in procs:
            p.kill(); p.wait(10)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
