"""The claims ledger (params/claims.yaml, guilab.claims): every seed's headline numbers and findings, each with a
statistic of a reproduction notebook or the reason it cannot be tested here; the committed figures/claims.csv holds
a verdict for every claim, and no claim is `shown` without an interval or test that supports it."""
import math
from pathlib import Path

import pandas as pd
import pytest

from guilab.claims import SYSTEMS, load_claims, verdict
from test_reported import collapse, seeds  # noqa: F401  (the seeds fixture: skipped without the seed folder)

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = load_claims(ROOT / "params" / "claims.yaml")


def test_ledger_covers_every_seed():
    assert len(CLAIMS) >= 80
    per = {s: sum(c["system"] == s for c in CLAIMS) for s in SYSTEMS}
    assert all(n >= 10 for n in per.values()), per


def test_every_claim_names_a_notebook_that_exists():
    names = {p.stem for p in (ROOT / "nbs" / "repro").glob("*.ipynb")}
    assert not [c["id"] for c in CLAIMS if c["notebook"] not in names]


def test_quotes_are_the_seeds_words(seeds):
    bad = [c["id"] for c in CLAIMS if collapse(c["quote"]) not in seeds.get(c["seed"], "")]
    assert not bad, bad


def test_committed_verdicts():
    f = ROOT / "figures" / "claims.csv"
    if not f.is_file(): pytest.skip("figures/claims.csv is written by `make reproduce`; this checkout has none yet")
    df = pd.read_csv(f)
    assert sorted(df["id"]) == sorted(c["id"] for c in CLAIMS), "figures/claims.csv is not the ledger's claims"
    assert not (df["verdict"] == "error").any(), df[df["verdict"] == "error"][["id", "reason"]].to_string()
    shown = df[df["verdict"] == "shown"]
    has_ci = shown["lo"].notna() & shown["hi"].notna()
    assert (has_ci | shown["p"].notna()).all(), "a claim is shown without an interval or a test"
    by = {c["id"]: c for c in CLAIMS}
    for _, r in df[df["verdict"] != "not testable here"].iterrows():   # each verdict is the rule's on its own numbers
        c = by[r["id"]]
        assert verdict(c["direction"], r["estimate"], r["lo"], r["hi"], r["p"], float(c.get("threshold", 0)),
                       float(c.get("alpha", 0.05)))[0] == r["verdict"], r["id"]
