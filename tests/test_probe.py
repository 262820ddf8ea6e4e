"""guilab.train.probe: the dot generator is seeded and puts each dot where its label says; answers round-trip in both
grammars; the scorer scores a perfect predictor, a centre guess and format errors as documented; a tiny run of the
probe trains, caches and reports the reference rows."""
import json, math

import numpy as np
import pytest

from guilab.agents.grammar import parse_action
from guilab.train.probe import (ErrorCurveCallback, answer, centre_replies, dot_examples, dot_image, predict,
                                read_error_curve, run_probe, sample_dots, score_probe)

DIAG = math.hypot(224, 224)


def _red_centroid(im):
    a = np.asarray(im); red = (a[..., 0] == 255) & (a[..., 1] == 0) & (a[..., 2] == 0)
    ys, xs = np.nonzero(red)
    return xs.mean() + 0.5, ys.mean() + 0.5, red.sum()


@pytest.mark.parametrize("radius", [10, (10, 50), (40, 60)])
def test_dots_are_where_labels_say(radius):
    dots = sample_dots(30, 7, radius=radius)
    assert dots == sample_dots(30, 7, radius=radius) and dots != sample_dots(30, 8, radius=radius)
    for d in dots:
        cx, cy, area = _red_centroid(dot_image(d["x"], d["y"], d["r"]))
        assert abs(cx - d["x"]) < 0.25 and abs(cy - d["y"]) < 0.25, (d, cx, cy)
        assert abs(area - math.pi * d["r"] ** 2) < 0.1 * math.pi * d["r"] ** 2 + 10
        assert d["r"] - 0.06 <= d["x"] <= 224 - d["r"] + 0.06 and d["r"] - 0.06 <= d["y"] <= 224 - d["r"] + 0.06


def test_examples_carry_the_image_of_their_label():
    dots = sample_dots(5, 0, radius=(10, 50))
    for ex, d in zip(dot_examples(dots, loc_bins=32), dots):
        cx, cy, _ = _red_centroid(ex["images"][0])
        assert abs(cx - d["x"]) < 0.25 and abs(cy - d["y"]) < 0.25 and ex["gt"] == d
        assert ex["prompt"][0]["content"][0] == {"type": "image"} and ex["completion"][0]["role"] == "assistant"


def test_answers_round_trip():
    for d in sample_dots(50, 2, radius=(10, 50)):
        a = parse_action(answer(d), None)
        assert a["type"] == "click" and abs(a["x"] - d["x"]) < 0.051 and abs(a["y"] - d["y"]) < 0.051
        t = answer(d, 32)
        assert t.startswith("click(x=<loc_") and "." not in t
        a = parse_action(t, (32, 224, 224))
        assert abs(a["x"] - d["x"]) <= 3.5 and abs(a["y"] - d["y"]) <= 3.5   # half a bin (224/32 = 7 px)


def test_score_perfect_centre_and_format_errors():
    dots = sample_dots(40, 1, radius=10)
    s = score_probe([answer(d) for d in dots], dots)
    assert s["mean_error_px"] < 0.08 and s["within_5px"] == s["within_10px"] == 100 and s["format_errors"] == 0
    s = score_probe([answer(d, 32) for d in dots], dots, loc_bins=32)
    assert s["within_5px"] == 100 and 0.5 < s["mean_error_px"] < 4.95
    c = score_probe(centre_replies(dots), dots)
    exp = [math.hypot(d["x"] - 112, d["y"] - 112) for d in dots]
    assert c["mean_error_px"] == pytest.approx(np.mean(exp))
    assert c["within_10px"] == pytest.approx(100 * np.mean(np.array(exp) <= 10))
    # a format error is a miss and counts as the image diagonal in the mean; the parsed-only mean excludes it
    rep = [answer(d) for d in dots]
    rep[0], rep[1], rep[2], rep[3] = "click(x=<loc_99>, y=<loc_3>)", "the dot", None, "draw(x=1, y=2)"
    s = score_probe(rep, dots, loc_bins=32)
    assert s["format_errors"] == pytest.approx(10.0) and s["within_5px"] == pytest.approx(90.0)
    assert s["mean_error_px"] == pytest.approx(4 * DIAG / 40, abs=0.08)
    assert s["mean_error_parsed_px"] == pytest.approx(0, abs=0.08)
    assert math.isnan(score_probe(["nothing"], dots[:1])["mean_error_parsed_px"])
    with pytest.raises(ValueError): score_probe(rep[:3], dots)


def test_tiny_probe_run_caches_and_reports(tmp_path):
    cfg = {"image_size": 224, "n_train": 8, "eval_every": 2, "test": {"n": 4, "radius": 10},
           "model": {"loc_bins": 32, "tie_embeddings": False, "seed": 0},
           "sft": {"max_steps": 2, "per_device_train_batch_size": 4, "learning_rate": 1e-3, "warmup_steps": 0, "logging_steps": 1},
           "approaches": {"loc": {"answer": "loc", "radius": [20, 30]}, "curr": {"answer": "loc", "stages": [[40, 60], [10, 20]]}}}
    tab, cur = run_probe(cfg, tmp_path, progress=False)
    assert tab.approach.tolist() == ["loc", "curr", "centre guess", "untrained model"]
    dots = sample_dots(4, __import__("guilab.core", fromlist=["x"]).derive_seed(0, "probe", "test"), 10)
    assert tab.set_index("approach").loc["centre guess", "mean_error_px"] == pytest.approx(score_probe(centre_replies(dots), dots)["mean_error_px"])
    assert set(cur.metric) >= {"loss", "mean_error_px", "within_5px", "format_errors"}
    e = cur[(cur.metric == "mean_error_px") & (cur.approach == "curr")].sort_values("step")
    assert e.step.tolist() == [0, 1, 2] and e.stage.tolist() == [0, 0, 1]
    res = [json.loads(p.read_text()) for p in tmp_path.glob("*/result.json")]
    assert sorted(r["approach"] for r in res) == ["curr", "loc"]
    # reuse: identical numbers; results on disk untouched
    mtimes = {p: p.stat().st_mtime for p in tmp_path.glob("*/result.json")}
    tab2, cur2 = run_probe(cfg, tmp_path, progress=False)
    assert tab2.equals(tab) and cur2.equals(cur)
    assert {p: p.stat().st_mtime for p in tmp_path.glob("*/result.json")} == mtimes
