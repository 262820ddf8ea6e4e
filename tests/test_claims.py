"""The claims ledger (params/claims.yaml, guilab.claims): every seed's headline numbers and findings, each with a
statistic of a reproduction notebook or the reason it cannot be tested here; the committed figures/claims.csv holds
a verdict for every claim, and no claim is `shown` without an interval or test that supports it."""
import json, math, re
from pathlib import Path

import pandas as pd
import pytest

from guilab.claims import EVIDENCE, JUDGING, MIN_SEEDS, SYSTEMS, agents_cell, judge, load_claims, verdict
from test_reported import collapse, seeds  # noqa: F401  (the seeds fixture: skipped without the seed folder)

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = load_claims(ROOT / "params" / "claims.yaml")
# one agent of each evidence class, as a test table's agents cell names it (guilab.claims.agents_cell)
CARDS = {"learned": [{"name": "SFT agent", "learned": True}], "scripted": [{"name": "lexical"}],
         "privileged": [{"name": "oracle", "privileged": True}], "rater": [{"name": "proxy rater", "rater": True}],
         "environment": []}


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
        v = verdict(c["direction"], r["estimate"], r["lo"], r["hi"], r["p"], float(c.get("threshold", 0)), float(c.get("alpha", 0.05)))[0]
        assert v == (r["statistic_verdict"] if r["verdict"] == "mechanics" else r["verdict"]), r["id"]


def test_committed_verdicts_rest_on_evidence_that_may_judge():
    """DESIGN §9: a claim about agents is shown / not shown / reversed only on learned evidence (a claim about the
    benchmark also on environment evidence); every other statistic is mechanics. Each committed row's evidence is
    the ledger's, and every not shown with an interval states the smallest effect it could have detected."""
    f = ROOT / "figures" / "claims.csv"
    if not f.is_file(): pytest.skip("figures/claims.csv is written by `make reproduce`; this checkout has none yet")
    df = pd.read_csv(f, dtype=str, keep_default_na=False)
    assert "evidence" in df.columns, "figures/claims.csv has no evidence column"
    by = {c["id"]: c for c in CLAIMS}
    for _, r in df.iterrows():
        c = by[r["id"]]
        assert r["evidence"] == c.get("evidence", "none"), r["id"]
        if r["verdict"] in ("shown", "not shown", "reversed"):
            assert r["evidence"] in JUDGING[c["about"]], f"{r['id']}: a {r['verdict']} verdict on {r['evidence']} evidence"
        if r["verdict"] == "mechanics": assert r["evidence"] not in JUDGING[c["about"]], r["id"]
        if r["verdict"] == "not shown" and r["lo"] and r["hi"]:
            assert float(r["detectable"]) > 0 and "smallest effect this test detects" in r["reason"], r["id"]


def _supporting_row(claim, side: int = 1) -> tuple[dict, dict]:
    """(row, claim without competence): a test-table row whose statistic clearly supports the seed (`side` 1) or clearly
    reverses it (-1): estimate 10 (in the claim's unit) from its threshold, a ±1 interval and p = 0.001 where it reads them."""
    t = claim["test"]; thr = float(claim.get("threshold", 0)); sgn = 1 if claim["direction"] == ">" else -1
    est = thr + side * sgn * 10.0 / float(t.get("scale", 1))
    row = {**{k: str(v) for k, v in (t.get("where") or {}).items()}, t["estimate"]: est}
    for k, d in (("lo", -1.0), ("hi", 1.0)):
        if t.get(k): row[t[k]] = est + d / float(t.get("scale", 1))
    if t.get("p"): row[t["p"]] = 0.001
    return row, {k: v for k, v in claim.items() if k != "competence"}   # the competence gate is tested in 03_claims


@pytest.mark.parametrize("claim", [c for c in CLAIMS if not c.get("not_testable")], ids=lambda c: c["id"])
def test_no_statistic_of_non_learned_agents_gives_a_verdict_on_agents(claim, tmp_path):
    """Feed each testable claim a statistic that clearly supports the seed (estimate and interval well on its side)
    and one that clearly reverses it: only evidence that may judge the claim (`JUDGING`) turns either into a verdict;
    every other class gives mechanics. So no scripted, privileged or rater statistic can ever read as shown."""
    t = claim["test"]
    for side, want in ((1, "shown"), (-1, "reversed")):
        row, c = _supporting_row(claim, side)
        row.update(seeds=3, agents=agents_cell(CARDS[claim["evidence"]]))
        (tmp_path / t["table"]).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame([row]).to_csv(tmp_path / t["table"], index=False)
        got = judge(c, tmp_path)
        if claim["evidence"] in JUDGING[claim["about"]]: assert got["verdict"] == want, (claim["id"], got["reason"])
        else: assert (got["verdict"], got["statistic_verdict"]) == ("mechanics", want), (claim["id"], got["reason"])


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.get("evidence") == "learned"], ids=lambda c: c["id"])
def test_one_training_run_gives_no_verdict_on_learned_agents(claim, tmp_path):
    """A learned statistic that clearly supports the seed, from one training run (no `seeds` column, or seeds 1 or 2),
    is `not testable here` with what it reads; from 3 seeds it is `shown` (guilab.claims.MIN_SEEDS)."""
    t = claim["test"]
    base, c = _supporting_row(claim); base["agents"] = agents_cell(CARDS["learned"])
    (tmp_path / t["table"]).parent.mkdir(parents=True, exist_ok=True)
    for seeds, want in ((None, "not testable here"), (1, "not testable here"), (2, "not testable here"), (3, "shown")):
        pd.DataFrame([base if seeds is None else {**base, "seeds": seeds}]).to_csv(tmp_path / t["table"], index=False)
        got = judge(c, tmp_path)
        assert (got["verdict"], got["statistic_verdict"]) == (want, "shown"), (claim["id"], seeds, got["reason"])


@pytest.mark.parametrize("claim", [c for c in CLAIMS if not c.get("not_testable")], ids=lambda c: c["id"])
def test_the_agents_behind_a_row_decide_its_evidence(claim, tmp_path):
    """The class is computed from the row's agents: a statistic that clearly supports the seed, produced by agents of
    any other class than the ledger declares (a scripted or privileged agent under a claim declared learned), is an
    error, never a verdict; a table that names no agents is an error too."""
    t = claim["test"]
    base, c = _supporting_row(claim); base["seeds"] = 3
    (tmp_path / t["table"]).parent.mkdir(parents=True, exist_ok=True)
    for cls in [e for e in EVIDENCE if e in CARDS and e != claim["evidence"]]:
        pd.DataFrame([{**base, "agents": agents_cell(CARDS[cls])}]).to_csv(tmp_path / t["table"], index=False)
        got = judge(c, tmp_path)
        assert got["verdict"] == "error" and f"make it '{cls}'" in got["reason"], (claim["id"], cls, got["reason"])
    pd.DataFrame([base]).to_csv(tmp_path / t["table"], index=False)
    got = judge(c, tmp_path)
    assert got["verdict"] == "error" and "names no agents" in got["reason"], (claim["id"], got["reason"])


def _figures_predate_agents() -> bool:
    "True when a committed test table has no agents column: the run of record was made before the evidence was computed."
    return any("agents" not in pd.read_csv(f, nrows=0).columns for f in (ROOT / "figures").glob("*tests.csv"))


# While the committed run of record predates the agents column, these two tests must fail (strict xfail: the day the
# figures are regenerated, the condition is false and they run as plain tests; a stale run that somehow passed fails).
STALE = pytest.mark.xfail(_figures_predate_agents(), strict=True,
                          reason="the committed figures predate the agents column of the test tables: regenerate them (`make reproduce`)")


def _committed(name):
    f = ROOT / "figures" / name
    if not f.is_file(): pytest.skip(f"figures/{name} is written by `make reproduce`; this checkout has none yet")
    return f


@STALE
def test_committed_evidence_is_computed_and_learned_verdicts_rest_on_three_seeds():
    """Every tested claim of the run of record has its class computed from the agents its table names; a verdict on
    learned agents resamples at least MIN_SEEDS training seeds."""
    df = pd.read_csv(_committed("claims.csv"), dtype=str, keep_default_na=False)
    by = {c["id"]: c for c in CLAIMS}
    tested = df[[not by[i].get("not_testable") for i in df["id"]]]
    assert (tested["evidence_source"] == "computed from the table's agents").all(), \
        tested[tested["evidence_source"] != "computed from the table's agents"][["id", "evidence_source"]].to_string()
    v = df[df["verdict"].isin(["shown", "not shown", "reversed"]) & (df["evidence"] == "learned")]
    assert all(float(s or 1) >= MIN_SEEDS for s in v["seeds"]), v[["id", "seeds"]].to_string()


@STALE
def test_committed_paired_rows_pair_what_they_say():
    """A paired test's row says over how many units both sides ran ("paired over the N ..."), and its n is that N:
    a row whose two sides were resampled over different sets would not match (guilab.stats.paired_units)."""
    _committed("claims.csv")
    rows = []
    for f in sorted((ROOT / "figures").glob("*tests.csv")):
        t = pd.read_csv(f, dtype=str, keep_default_na=False)
        assert "agents" in t.columns, f"{f.name} names no agents behind its rows"
        for _, r in t.iterrows():
            m = re.search(r"paired over (?:the )?(\d+)", str(r.get("statistic", "")))
            if m: rows.append((f.name, r.get("claim_id"), int(m.group(1)), r.get("n", "")))
    assert rows, "no paired row found in the committed test tables"
    bad = [x for x in rows if not x[3] or float(x[3]) != x[2]]
    assert not bad, bad
