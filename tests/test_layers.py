"""Import layers (docs/architecture.md): the import-linter contracts in pyproject.toml hold for lib/guilab, they catch a cycle,
an upward import and an unplaced part in a toy package, and the architecture page's table (docs/architecture.md) says what they say."""
import os, re, subprocess, sys, tomllib
from pathlib import Path
from conftest import ROOT

CFG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def lint(config: Path, cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess:
    "Run import-linter on `config` in a fresh process (no cache), with `pythonpath` first on sys.path."
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


def test_guilab_keeps_its_import_contracts():
    r = lint(ROOT / "pyproject.toml", ROOT, ROOT / "lib")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


def _layers() -> list[str]:
    (c,) = [c for c in CFG["contracts"] if c["type"] == "layers"]
    return c["layers"]


def _parts(layer: str) -> list[str]:
    return [p.strip().strip("()") for p in layer.split("|")]


def _toy(tmp: Path, extra: dict[str, str]) -> Path:
    "A package `toylab` with one empty module per required layer, plus `extra` modules; returns its config file."
    pkg = tmp / "toylab"; pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for layer in _layers():
        for p in layer.split("|"):
            p = p.strip()
            if not p.startswith("("): (pkg / f"{p}.py").write_text("")
    for name, text in extra.items(): (pkg / f"{name}.py").write_text(text)
    # the same [tool.importlinter] text as pyproject.toml, pointed at toylab
    text = (ROOT / "pyproject.toml").read_text()
    start = text.index("[tool.importlinter]")
    nxt = re.search(r"^\[(?!\[?tool\.importlinter)", text[start + 1:], re.M)
    section = text[start: start + 1 + nxt.start()] if nxt else text[start:]
    cfg = tmp / "toy.toml"; cfg.write_text(section.replace('"guilab"', '"toylab"'))
    return cfg


def test_contracts_pass_on_a_clean_toy_package(tmp_path):
    r = lint(_toy(tmp_path, {"perf": "import toylab.core\n", "cli": "import toylab.perf\nimport toylab.geo\n"}), tmp_path, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_contracts_catch_a_cycle_an_upward_import_and_an_unplaced_part(tmp_path):
    # core <-> perf is the cycle the old speed harness made (library modules registering benchmarks on import)
    cfg = _toy(tmp_path, {"perf": "import toylab.core\n", "core": "from toylab import perf\n",
                          "geo": "import toylab.pagebench\n", "newpart": ""})
    r = lint(cfg, tmp_path, tmp_path)
    assert r.returncode != 0, r.stdout
    out = r.stdout
    assert "toylab.core is not allowed to import toylab.perf" in out, out
    assert "toylab.geo is not allowed to import toylab.pagebench" in out, out
    assert "toylab.newpart" in out and "not listed as layers" in out, out
    assert "No cycles are allowed in toylab" in out, out


def test_readme_architecture_table_matches_the_contract():
    text = (ROOT / "docs" / "architecture.md").read_text()
    sec = text[text.index("# Architecture"):]
    sec = sec[: sec.index("\n## ", 1)] if "\n## " in sec[1:] else sec
    rows = re.findall(r"^\|\s*(\d)\s*\|\s*`guilab\.(\w+)`", sec, re.M)
    readme = {part: int(n) for n, part in rows}
    layers = _layers()
    contract = {p: len(layers) - 1 - i for i, layer in enumerate(layers) for p in _parts(layer)}
    assert readme == contract, (readme, contract)
