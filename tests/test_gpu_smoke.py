"""`make gpu-smoke` / `guilab gpu-smoke` (issue 39) on a machine without a GPU: it says NOT RUN, exits 2 and writes
nothing (a skipped GPU check must not read as a pass). On a GPU machine the command itself is the test."""
import subprocess, sys
from pathlib import Path
import pytest
from guilab.gpu import gpu_info

ROOT = Path(__file__).resolve().parents[1]

@pytest.mark.skipif(gpu_info()["present"], reason="a GPU is present: run `make gpu-smoke` itself")
def test_gpu_smoke_says_not_run_without_a_gpu(tmp_path):
    out = tmp_path / "gpu_smoke.md"
    r = subprocess.run([sys.executable, "-m", "guilab.cli", "gpu-smoke", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "NOT RUN" in r.stdout and "no GPU" in r.stdout and "pip install 'guilab[gpu]'" in r.stdout
    assert not out.exists() and not out.with_suffix(".json").exists()

def test_make_gpu_smoke_target_runs_the_command():
    mk = (ROOT / "Makefile").read_text()
    assert "\ngpu-smoke: setup\n\t$(BIN)/guilab gpu-smoke --params params/gpu_smoke.yaml\n" in mk
