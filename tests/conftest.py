import os, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
GUILAB = str(Path(sys.executable).parent / "guilab")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
