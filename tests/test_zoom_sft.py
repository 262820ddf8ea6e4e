"""guilab.train.zoom_sft: the teacher's plain-text conversations round-trip through ZoomEnv and parse_reply, answer
right, and zoom more often as targets get smaller (issue 37)."""
import numpy as np

from guilab.grounding.sources import synthetic_gui
from guilab.grounding.zoom import ZoomEnv, FormatError, parse_reply, is_correct, MAX_CROPS
from guilab.train.zoom_sft import zoom_sft_conversations, target_side


def test_round_trip_correct_and_crops_grow_as_targets_shrink():
    samples, images = [], {}
    for seed, size in ((3, (480, 270)), (4, (480, 270)), (5, (480, 270)), (6, (960, 540))):   # targets of 0.7-11 % of the image side
        s, im = synthetic_gui(40, seed=seed, size=size, per_image=8)      # (image names differ by seed)
        samples += s; images.update(im)
    by_id = {s.id: s for s in samples}
    convs = zoom_sft_conversations(samples, images, seed=5)
    sides, zoomed = [], []
    for c in convs:
        s = by_id[c["id"]]; tr = c["trajectory"]
        assert tr["status"] == "answer" and is_correct(s, tr["point"]) and tr["n_crops"] <= MAX_CROPS
        env = ZoomEnv(); env.reset(options={"image": images[s.img_filename], "instruction": s.instruction, "encode_images": False})
        for r, t in zip(c["replies"], tr["turns"]):
            _, _, _, _, info = env.step({"type": "reply", "text": r})
            p = parse_reply(r)
            assert (info["format_error"] is None) == (t["error"] is None)
            if t["error"] is None: assert [a.to_dict() for a in p] == t["actions"]
        assert env.trajectory == tr and env.messages == c["messages"]
        sides.append(target_side(s.bbox, images[s.img_filename].size)); zoomed.append(tr["n_crops"] > 0)
    sides, zoomed = np.array(sides), np.array(zoomed)
    bins = [sides <= 20, (sides > 20) & (sides <= 60), sides > 60]          # p_zoom's defaults: 0.95 below 20, 0.1 above 100
    assert all(b.sum() >= 12 for b in bins), [int(b.sum()) for b in bins]
    share = [zoomed[b].mean() for b in bins]
    print("crop share by target side (<=20, 20-60, >60):", [round(float(x), 3) for x in share], [int(b.sum()) for b in bins])
    assert share[0] > share[1] > share[2] and share[0] - share[2] > 0.4, share
