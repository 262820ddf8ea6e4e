"""The five LBS GRPO rewards (guilab.train.rewards): hand-computed values, an end-to-end oracle episode, and the trl
calling convention."""
import inspect, subprocess, sys

import pytest
from PIL import Image, ImageDraw

from guilab.core import GroundingSample
from guilab.grounding.zoom import ZoomSession, run_zoom
from guilab.grounding.baselines import OracleInCrop
from guilab.train.rewards import (zoomin_accuracy, zoomin_crop_process_gated, zoomin_format, zoomin_zoom_bonus, zoomin_cot_rm,
                                  make_cot_rm, set_cot_judge, crop_process_terms, LBS_REWARDS)


def traj(point, crops=(), status="answer", size=(1000, 1000), refusal=False):
    return {"point": point, "refusal": refusal, "status": status, "format_error": status not in ("answer", "refusal"),
            "img_size": list(size), "turns": [{"reply": "ok", "crops": []}],
            "crops": [{"box_original": list(c), "path": f"crop_{k + 1}.png", "parent": "screenshot.png"} for k, c in enumerate(crops)]}


T = [[100, 100, 200, 200]]      # 1% of a 1000x1000 image


def iou(a, b):
    iw, ih = max(0, min(a[2], b[2]) - max(a[0], b[0])), max(0, min(a[3], b[3]) - max(a[1], b[1]))
    i = iw * ih
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)


def test_accuracy_hand_values():
    got = zoomin_accuracy([traj([100, 100]), traj([200, 200]), traj([99.999, 150]), traj(None, status="format_error"),
                           traj([150, 150], refusal=True, status="refusal")], bbox=T * 5)
    assert got == [1.0, 1.0, 0.0, 0.0, 0.0]
    # refusal item: only a refusal is right
    assert zoomin_accuracy([traj(None, refusal=True, status="refusal"), traj([5, 5])], bbox=[[-1, -1, -1, -1], None]) == [1.0, 0.0]


def test_crop_process_gated_hand_values():
    A, B, C = [0, 0, 400, 400], [0, 0, 390, 400], [50, 50, 250, 250]
    # A: IoU 0.0625 (gain over the image's 0.01); B: IoU(A, B) = 0.975 > 0.9 -> redundant; C: IoU 0.25 (gain)
    assert crop_process_terms(traj([150, 150], [A, B, C]), {"box_type": "bbox", "bbox": T[0], "img_size": [1000, 1000]}) == \
        {"best_iou": 0.25, "redundant": 1, "crops": 3}
    vals = zoomin_crop_process_gated([traj([150, 150], [A, B, C]), traj([150, 150], [A, C]), traj([900, 900], [A, C]),
                                      traj([150, 150], [C, A]), traj([150, 150]), traj([150, 150], [[600, 600, 900, 900]])], bbox=T * 6)
    want = [0.25 - 0.1 - 0.15, 0.25 - 0.10, -0.10, 0.25 - 0.1 - 0.1, 0.0, 0.0 - 0.1 - 0.05]
    assert vals == pytest.approx(want, abs=1e-12)
    # a first crop framing the target no better than the whole image is no gain: target = the whole image
    assert zoomin_crop_process_gated([traj([500, 500], [[0, 0, 500, 500]])], bbox=[[0, 0, 1000, 1000]]) == pytest.approx([0.25 - 0.1 - 0.05])
    # refusal item: every crop is no gain, the IoU term is 0
    assert zoomin_crop_process_gated([traj(None, [A], status="refusal", refusal=True)], bbox=[None]) == pytest.approx([-0.15])


def test_format_hand_values():
    ts = [traj([1, 1]), traj(None, status="refusal", refusal=True), traj(None, status="format_error"), traj(None, status="max_turns")]
    assert zoomin_format(ts, bbox=T * 4) == [1.0, 1.0, 0.0, 0.0]
    assert zoomin_format(["[1, 2]", "Not present.", "no idea", 'crop_image(image_path="screenshot.png", x1=1, y1=1, x2=2, y2=2)'],
                         bbox=T * 4, img_size=[[10, 10]] * 4) == [1.0, 1.0, 0.0, 0.0]


def test_zoom_bonus_hand_values():
    size, tgt = (4000, 3000), [[2000, 1500, 2020, 1520]]       # 400 / 12e6 = 0.0033% < 0.1%
    big = [1900, 1400, 2100, 1600]
    assert zoomin_zoom_bonus([traj([2010, 1510], [big], size=size)], bbox=tgt) == [0.2]
    assert zoomin_zoom_bonus([traj([2010, 1510], [[1900, 1400, 2019, 1600]], size=size)], bbox=tgt) == [0.0]
    assert zoomin_zoom_bonus([traj([1, 1], [big], size=size)], bbox=tgt) == [0.0]
    assert zoomin_zoom_bonus([traj([2010, 1510], [], size=size)], bbox=tgt) == [0.0]
    # threshold: a 110x110 target on 4000x3000 is 12100/12e6 = 0.10083% -> no bonus; 109x109 = 0.0990% -> bonus
    for side, want in ((110, 0.0), (109, 0.2)):
        b = [[2000, 1500, 2000 + side, 1500 + side]]
        assert zoomin_zoom_bonus([traj([2050, 1550], [[1000, 1000, 3000, 2000]], size=size)], bbox=b) == [want]


def test_cot_rm():
    set_cot_judge(None)
    assert zoomin_cot_rm([traj([150, 150]), traj([0, 0])], bbox=T * 2) == [0.5, 0.5]
    calls = []
    f = make_cot_rm(lambda text, instr: calls.append(instr) or 0.7)
    assert f([traj([150, 150]), traj([0, 0]), traj(None, status="format_error")], bbox=T * 3, instruction=["a", "b", "c"]) == [0.7, 0.0, 0.0]
    assert calls == ["a"]             # wrong answers are never sent to the judge
    assert make_cot_rm(lambda t, i: -2)([traj([150, 150])], bbox=T) == [0.0]
    assert make_cot_rm(lambda t, i: float("inf"))([traj([150, 150])], bbox=T) == [None]   # no score in [0,1]: an abstention
    set_cot_judge(lambda t, i: 0.25)
    try: assert zoomin_cot_rm([traj([150, 150])], bbox=T) == [0.25]
    finally: set_cot_judge(None)


def test_oracle_episode_end_to_end():
    W, H, tb = 4000, 3000, [3100, 2200, 3120, 2214]
    img = Image.new("RGB", (W, H), "white"); ImageDraw.Draw(img).rectangle(tb, fill="black")
    smp = GroundingSample.from_dict({"id": "e", "img_filename": "e.png", "instruction": "the black mark", "bbox": tb, "img_size": [W, H]})
    s = ZoomSession(img)
    tr = run_zoom(OracleInCrop(smp, s.size), s, smp.instruction)
    kw = {"bbox": [tb], "img_size": [[W, H]]}
    assert zoomin_accuracy([tr], **kw) == [1.0] and zoomin_format([tr], **kw) == [1.0] and zoomin_zoom_bonus([tr], **kw) == [0.2]
    boxes = [c["box_original"] for c in tr["crops"]]
    assert len(boxes) == 2 and iou(boxes[0], tb) > iou([0, 0, W, H], tb) and iou(boxes[1], tb) > iou(boxes[0], tb)
    assert zoomin_crop_process_gated([tr], **kw) == pytest.approx([iou(boxes[1], tb) - 0.1])
    # the same trajectory against another target is wrong everywhere
    other = {"bbox": [[10, 10, 30, 30]], "img_size": [[W, H]]}
    assert zoomin_accuracy([tr], **other) == [0.0] and zoomin_zoom_bonus([tr], **other) == [0.0]
    assert zoomin_crop_process_gated([tr], **other) == pytest.approx([-0.1 * 2 - 0.05 * 2])


def test_trl_signature_convention():
    for fn in LBS_REWARDS:
        params = list(inspect.signature(fn).parameters.values())
        assert params[0].name == "completions" and params[-1].kind is inspect.Parameter.VAR_KEYWORD
        out = fn(prompts=[[{"role": "user", "content": "x"}]] * 2, completions=[[{"role": "assistant", "content": "[150,150]"}]] * 2,
                 completion_ids=[[1], [2]], trainer_state=object(), bbox=T * 2, img_size=[[1000, 1000]] * 2, extra_col=["a", "b"])
        assert isinstance(out, list) and len(out) == 2 and all(type(v) is float for v in out), fn.__name__
    with pytest.raises(ValueError, match="one entry per completion"): zoomin_accuracy([traj([1, 1])], bbox=T * 2)


def test_module_does_not_import_trl():
    code = "import sys, guilab.train.rewards; assert 'trl' not in sys.modules and 'torch' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)
