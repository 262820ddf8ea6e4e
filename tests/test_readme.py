"""The README is a front page and the guides in docs/ hold the rest: the definitions of record (metrics with their
seed sources, what an agent may see, the claims and their verdict rule) are in docs/, nothing points outside the
repository, every path, page and anchor they name exists, no product text cites an issue number, the README stays
under 1,500 words, and the count of claims it gives equals the run of record's figures/claims.csv."""
import re

import pandas as pd
import pytest

from conftest import ROOT
from guilab.claims import VERDICTS
from guilab.reproduce import README_CLAIMS_BEGIN, README_CLAIMS_END, readme_claims_block

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md")), ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]


def _slug(heading: str) -> str:   # GitHub's anchor of a heading
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page) -> set:
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), flags=re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_pages_point_nowhere_outside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "DESIGN.md" not in text and not re.search(r"DESIGN §\s*\d", text), "cites a design file a clone does not have"
    # every notebook and file path it names exists
    for q in sorted(set(re.findall(r"`((?:nbs|params|tests|lib|docs|examples)/[\w./-]+\.(?:ipynb|yaml|py|md))`", text))):
        assert (ROOT / q).exists(), q
    # every relative link resolves to a file, and its anchor to a heading of that page (in-page anchors too)
    for target in sorted(set(re.findall(r"\]\(([^)\s]+)\)", text))):
        if target.startswith(("http://", "https://", "mailto:")): continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), target
        if anchor and dest.suffix == ".md": assert anchor in _anchors(dest), target


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_issue_numbers_in_product_texts(page):
    "Readers cannot open the tracker: a page says what changed, not which issue asked for it."
    assert not re.search(r"\b[Ii]ssues? \d+", page.read_text(encoding="utf-8")), re.search(r".{40}\b[Ii]ssues? \d+.{20}", page.read_text(encoding="utf-8"))


def test_readme_is_a_front_page():
    "The README is read in five minutes: at most 1,500 words (its claims block included), the two commands first."
    text = README.read_text(encoding="utf-8")
    assert len(text.split()) <= 1500, len(text.split())
    assert text.index("make reproduce") < text.index("make test") < text.index("\n## ")


def test_docs_hold_the_definitions_of_record():
    page = lambda name: (DOCS / name).read_text(encoding="utf-8")
    metrics = page("metrics.md")
    for m in ("AA", "PA", "SSR", "TSR", "MPS = 0.1 AA + 0.2 PA + 0.3 SSR + 0.4 TSR", "OTC = 0.4 S_pt + 0.6 S_cmd", "FRS", "OS = 0.5 MPS + 0.5 FRS",
              "crop_process_gated", "zoom_bonus", "false-completion rate", "tau_a = 3", "tau_o = 3", "v_out → v_out",
              "CR", "DR", "LBR", "RSR", "ARL", "RA", "Split-half"):
        assert m in metrics, m
    for seed in ("000_7c1ace65400c2a1a.txt", "001_e16bd0dc4aa89687.txt", "002_01321794b9c75fb8.txt", "003_f3875c07ccbef53d.txt"):
        assert seed in metrics, seed                                     # every metric names its seed and section
    assert "PRIVILEGED" in page("what-an-agent-may-see.md") and "leak" in page("what-an-agent-may-see.md")
    claims = page("claims.md")
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


def test_no_issue_numbers_in_notebooks_and_library():
    "The notebooks are the API pages of the documentation site and the library's help texts come from them: no issue numbers."
    hits = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in [*ROOT.glob("nbs/**/*.ipynb"), *ROOT.glob("lib/guilab/**/*.py")]
            for m in re.finditer(r".{30}\b[Ii]ssues? \d+.{10}", p.read_text(encoding="utf-8"))]
    assert not hits, "\n".join(hits[:20])
