"""The README is self-contained: the definitions of record (metrics with their seed sources, what an agent may see, the
claims and their verdict rule) are in it, nothing points outside the repository, every notebook and anchor it names
exists, and the count of claims it gives equals the run of record's figures/claims.csv."""
import re

import pandas as pd
import pytest

from conftest import ROOT
from guilab.claims import VERDICTS
from guilab.reproduce import README_CLAIMS_BEGIN, README_CLAIMS_END, readme_claims_block

README = ROOT / "README.md"


def _slug(heading: str) -> str:   # GitHub's anchor of a heading
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_points_nowhere_outside_the_repository():
    text = README.read_text(encoding="utf-8")
    assert "DESIGN.md" not in text and not re.search(r"DESIGN §\s*\d", text), "the README cites a design file a clone does not have"
    # every notebook and file path it names exists, every in-page anchor is a heading
    for p in sorted(set(re.findall(r"`((?:nbs|params|tests|lib)/[\w./-]+\.(?:ipynb|yaml|py))`", text))):
        assert (ROOT / p).exists(), p
    heads = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    for a in sorted(set(re.findall(r"\]\(#([\w-]+)\)", text))):
        assert a in heads, a


def test_readme_holds_the_definitions_of_record():
    text = README.read_text(encoding="utf-8")
    sec = lambda title: text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    metrics = sec("Metrics of record")
    for m in ("AA", "PA", "SSR", "TSR", "MPS = 0.1 AA + 0.2 PA + 0.3 SSR + 0.4 TSR", "OTC = 0.4 S_pt + 0.6 S_cmd", "FRS", "OS = 0.5 MPS + 0.5 FRS",
              "crop_process_gated", "zoom_bonus", "false-completion rate", "tau_a = 3", "tau_o = 3", "v_out → v_out",
              "CR", "DR", "LBR", "RSR", "ARL", "RA", "Split-half"):
        assert m in metrics, m
    for seed in ("000_7c1ace65400c2a1a.txt", "001_e16bd0dc4aa89687.txt", "002_01321794b9c75fb8.txt", "003_f3875c07ccbef53d.txt"):
        assert seed in metrics, seed                                     # every metric names its seed and section
    assert "PRIVILEGED" in sec("What an agent may see") and "leak" in sec("What an agent may see")
    claims = sec("Claims and verdicts")
    for v in (*VERDICTS, "error"): assert f"**{v}**" in claims, v


def test_readme_claims_count_equals_figures_claims_csv():
    """The README's count of claims per verdict is the run of record's. figures/claims.csv is written by
    `make reproduce` (write_gallery calls guilab.claims.collect_claims); before a run of record exists (a fresh
    clone before the figures are regenerated) there is nothing to compare the README with, so the test is skipped."""
    csv = ROOT / "figures" / "claims.csv"
    if not csv.is_file(): pytest.skip("figures/claims.csv does not exist yet (written by `make reproduce`): nothing to compare the README's count with")
    text = README.read_text(encoding="utf-8")
    assert README_CLAIMS_BEGIN in text and README_CLAIMS_END in text
    block = text.split(README_CLAIMS_BEGIN, 1)[1].split("-->", 1)[1].split(README_CLAIMS_END, 1)[0]
    df = pd.read_csv(csv, dtype=str, keep_default_na=False)
    m = re.search(r"\*\*(\d+) claims\*\*", block)
    assert m and int(m.group(1)) == len(df), (m and m.group(0), len(df))
    said = {v: int(n) for n, v in re.findall(r"(\d+) (not testable here|not shown|shown|reversed|mechanics|error)\b", block.split("\n\n")[0])}
    assert said == {v: int((df["verdict"] == v).sum()) for v in said} and set(said) >= set(df["verdict"]), (said, df["verdict"].value_counts())
    assert block.strip() == readme_claims_block(csv).strip(), "run guilab.reproduce.update_readme_claims() after regenerating figures/"
