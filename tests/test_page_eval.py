"""PAGE evaluation of scripted agents on the Euclid test set: the noisy-oracle sweep separates action types from
parameters, teacher forcing and closed loop agree on steps but not on constructions, errors cascade with depth,
and PAGER with a garbage policy is scored as format errors without an exception."""
import math
import numpy as np
import pytest
from scipy import stats
from guilab.core import read_jsonl
from guilab.pagebench.problems import load_problems
from guilab.pagebench.build import build
from guilab.pagebench.metrics import score
from guilab.agents.base import make
from guilab.pagebench.suite import coordinate_errors, agent_records, run_suite
from guilab.pager.agent import PagerAgent, ReplayPolicy, reference_replies


@pytest.fixture(scope="module")
def euclid(tmp_path_factory):
    out = tmp_path_factory.mktemp("pe")
    probs = {p.id: p for p in load_problems("euclid")}
    build(list(probs.values()), out, screenshots=False, progress=False, workers=2)
    trajs = [t for t in read_jsonl(out / "trajectories.jsonl") if t["kept"] and t["split"] == "test"]
    assert len(trajs) >= 40
    return probs, trajs, out


def sub_build(probs, trajs, folder):
    "A build folder holding only `trajs`' problems (the same trajectories: the build is seeded per problem)."
    build([probs[t["id"]] for t in trajs], folder, screenshots=False, progress=False)
    assert [t["id"] for t in read_jsonl(folder / "trajectories.jsonl")] == [t["id"] for t in trajs]
    return folder


def test_noisy_oracle_sweep(euclid):
    probs, trajs, out = euclid
    m = {s: score(agent_records(out, "noisy_oracle", sigma=s)) for s in (1, 2, 4, 8, 16)}
    assert all(m[s]["AA"] >= 95 for s in m)
    tsr = [m[s]["TSR"] for s in (1, 2, 4, 8, 16)]
    assert all(a >= b for a, b in zip(tsr, tsr[1:])) and tsr[0] > 95 and tsr[-1] < 50, tsr
    assert m[16]["PA"] < m[4]["PA"] < m[1]["PA"]


def test_teacher_forced_vs_closed_loop(euclid):
    probs, trajs, out = euclid
    tf = agent_records(out, "noisy_oracle", "teacher_forced", sigma=8)
    cl = agent_records(out, "noisy_oracle", sigma=8)
    st, sc = score(tf), score(cl)
    for k in ("AA", "PA", "SSR", "TSR"): assert st[k] == pytest.approx(sc[k])   # state-blind agent: same actions
    assert np.mean([r["otc"] for r in cl]) < 0.6                                   # but its construction drifts
    ty = score(agent_records(out, "type_only", "teacher_forced"))
    assert ty["AA"] == 100 and ty["PA"] < 20


def test_error_cascades_with_depth(euclid):
    probs, trajs, out = euclid
    cl = agent_records(out, "noisy_oracle", sigma=8)
    e = [x for r in cl for x in coordinate_errors(r, probs[r["id"]]) if not math.isnan(x["error"])]
    d = np.array([x["depth"] for x in e]); err = np.array([x["error"] for x in e])
    assert stats.spearmanr(d, err)[0] > 0.2
    assert np.median(err[d >= 3]) > np.median(err[d == 0])


def test_pager_policies(euclid, tmp_path):
    probs, trajs, out = euclid
    t = trajs[:3]
    three = sub_build(probs, t, tmp_path / "three")
    good = agent_records(three, PagerAgent(ReplayPolicy([x for tr in t for x in reference_replies(tr)]), screenshots=False))
    assert score(good)["TSR"] == 100
    ag = PagerAgent(ReplayPolicy(["garbage"] * 100_000), screenshots=False)
    bad = agent_records(three, ag)
    s = score(bad)
    assert s["format_errors"] == sum(len(x["steps"]) + 2 for tr in t for x in tr["tasks"]) and s["AA"] == 0 and s["TSR"] == 0


def test_batched_local_policy_records_identical_without_png_round_trip(euclid, tmp_path, monkeypatch):
    """Issue 15: a local policy now gets the screenshot as a PIL image, pre-resized to the model's input size, instead
    of a PNG data URI resized inside the processor. The evaluation records (replies, actions, scores) must not change:
    a tiny Qwen3-VL of the trained size (random weights) evaluated both ways on the shortest problem, both modes."""
    from guilab.agents import policies as P
    from guilab.agents.tiny import build_tiny_vlm
    probs, trajs, out = euclid
    sub = sorted(trajs, key=lambda t: sum(len(s["steps"]) for s in t["tasks"]))[:1]
    one = sub_build(probs, sub, tmp_path / "one")
    ck = build_tiny_vlm(tmp_path / "tiny", seed=0, loc_bins=64, image_size=320, tie_embeddings=False)
    spec = {"label": "tiny", "agent": "pager", "options": {"policy": str(ck)}, "threads": 1, "max_new_tokens": 6}   # one thread: no batching
    modes = ("closed_loop", "teacher_forced")
    calls = []
    orig = P._to_processor_messages
    monkeypatch.setattr(P, "_to_processor_messages", lambda m, ip=None: calls.append([p["type"] for p in m[0]["content"]]) or orig(m, ip))
    new = {m: run_suite(one, [spec], (m,), progress=False)[("tiny", m)] for m in modes}
    assert calls and all(c[0] == "image" for c in calls)                           # in-process images, no data URI
    monkeypatch.setattr(P.TransformersPolicy, "accepts_images", False)             # before: PNG data URIs ...
    monkeypatch.setattr(P, "processor_size_image", lambda img, ip: img)             # ... resized inside the processor
    calls.clear()
    old = {m: run_suite(one, [spec], (m,), progress=False)[("tiny", m)] for m in modes}
    assert calls and all(c[0] == "image_url" for c in calls)
    assert new == old
    assert sum(len(t["pred"]) for r in new["teacher_forced"] for t in r["tasks"]) > 0
