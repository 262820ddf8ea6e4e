"""Issue 37: no model text makes the zoom rollout raise. 1,000 seeded fuzzed replies go turn by turn through
`guilab.train.grpo_zoom.policy_rollout` (the real tiny-VLM processor: chat template, image processor, tokenizer
encode/decode; a scripted stand-in for the model's `generate`), and through the parsers alone."""
import json, math, random

import pytest
import torch
from PIL import Image, ImageDraw

from guilab.agents.tiny import build_tiny_vlm
from guilab.core import GroundingSample
from guilab.grounding.zoom import (FormatError, Answer, Refusal, CropAction, parse_reply, MAX_CROPS, MAX_CROPS_PER_TURN,
                                   FORMAT_RETRIES, MAX_TURNS)
from guilab.train import grpo_zoom as gz

N_FUZZ = 1000
STATUSES = {"answer", "refusal", "done", "format_error", "max_turns"}   # ZoomEnv.trajectory["status"] (grounding/zoom)
MAX_NEW = 160                                                           # tokens per turn (replies longer are cut, as generate cuts them)


def _num(g: random.Random) -> str:
    return g.choice([str(g.randint(0, 1000)), f"{g.uniform(0, 1000):.2f}", f"{g.random():.4f}", "-1", "1e999", "-1e999",
                     "NaN", "nan", "inf", "-inf", "Infinity", str(10 ** g.randint(4, 400)), "9" * 5000, "1e-320", "0x10",
                     "1_000", '"500"', "'12.5'", "None", "null", "true", "[1,2]", "{}", "", "½", "٣٠٠", "1.2.3", "--5", "+7"])


def _crop(g: random.Random, path: str | None = None, valid: bool = False) -> str:
    p = path or g.choice(["screenshot.png", "crop_1.png", "crop_2.png", "crop_3.png", "crop_9.png", "nope.png", "", "crop_1",
                          "../screenshot.png", "screenshot.PNG", "截图.png"])
    if valid:
        x1, y1 = g.randint(0, 800), g.randint(0, 800)
        xs = [x1, y1, g.randint(x1 + 1, 1000), g.randint(y1 + 1, 1000)]
    else: xs = [_num(g) for _ in range(4)]
    form = g.randrange(6)
    if form == 0: return f'crop_image(image_path="{p}", x1={xs[0]}, y1={xs[1]}, x2={xs[2]}, y2={xs[3]})'
    if form == 1: return f"crop_image('{p}', {', '.join(map(str, xs))})"
    if form == 2: return f'crop_image(image_path="{p}", bbox=[{", ".join(map(str, xs))}])'
    if form == 3: return f'crop_image(image_path: "{p}", x1: {xs[0]}, y1: {xs[1]}, x2: {xs[2]}, y2: {xs[3]})'
    if form == 4:
        args = {"image_path": p, "x1": xs[0], "y1": xs[1], "x2": xs[2], "y2": xs[3]}
        return "<tool_call>\n" + json.dumps({"name": "crop_image", "arguments": args}) + "\n</tool_call>"
    return "```python\n" + f'crop_image(image_path="{p}", x1={xs[0]}, y1={xs[1]}, x2={xs[2]}, y2={xs[3]})' + "\n```"


def _answer(g: random.Random) -> str:
    a, b = _num(g), _num(g)
    return g.choice([f"[{a},{b}]", f"({a}, {b})", f"click(x={a}, y={b})", f"<answer>[{a}, {b}]</answer>",
                     f"<box>{a} {b} {_num(g)} {_num(g)}</box>", f"[{a}, {b}, {_num(g)}, {_num(g)}]",
                     f"[{g.randint(0, 1000)},{g.randint(0, 1000)}]", f"[{g.randint(1001, 10**6)}, {g.randint(-5, 5)}]",
                     "[-1,-1]", "not present", "<|box_start|>(1,2),(3,4)<|box_end|>", f"({g.random():.3f}, 1)"])


def _noise(g: random.Random, n: int) -> str:
    pool = "abcxyz 0123456789[](){}<>,.:=\"'\\/\n\t_-+*#@!?" + "中文放大裁剪😀é\u200b\u202e\ufffd\x00"
    return "".join(g.choice(pool) for _ in range(n))


def fuzz_reply(g: random.Random) -> str:
    "One fuzzed reply (see the module text): a mix of the forms the parser knows, broken in every way we could think of."
    k = g.randrange(22)
    if k == 0: return ""
    if k == 1: return _noise(g, g.randint(1, 120))
    if k == 2: return "<tool_call>{}</tool_call>"
    if k == 3: return ("<tool_call>" + g.choice(["{", '{"name": "crop_image", "arguments": {"image_path": "screenshot.png", "x1": 1',
                                                "{bad json}", '{"name": "crop_image"}', '{"name": "crop_image", "arguments": "{\\"x1\\": 1}"}',
                                                '{"name": null, "arguments": []}', '[]', '"crop_image"', "{" * 200])
                + g.choice(["</tool_call>", ""]))
    if k == 4:
        tool = g.choice(["click", "zoom", "crop", "Crop_Image", "screenshot", "", "crop_image "])
        return "<tool_call>\n" + json.dumps({"name": tool, "arguments": {"x": g.randint(0, 1000), "y": g.randint(0, 1000)}}) + "\n</tool_call>"
    if k == 5:                                                      # truncated crop_image call
        c = _crop(g, valid=True); return c[: g.randint(1, len(c) - 1)]
    if k == 6: return "crop_image(image_path=crop_image(image_path=\"screenshot.png\", x1=0, y1=0, x2=5, y2=5), x1=1, y1=2, x2=3, y2=4)"
    if k == 7: return _crop(g)                                      # wrong argument types, NaN/inf/huge, odd paths
    if k == 8: return "zoom in\n" + _crop(g, "screenshot.png", valid=True)
    if k == 9: return "\n".join(_crop(g, g.choice(["screenshot.png", "crop_1.png"]), valid=True) for _ in range(g.randint(2, 4)))
    if k == 10: return _crop(g, g.choice(["crop_1.png", "crop_2.png", "crop_3.png", "crop_4.png"]), valid=True)   # crops of crops (made or not)
    if k == 11: return _answer(g)
    if k == 12: return f"found it {_answer(g)} and also {_crop(g, valid=g.random() < 0.5)}"   # answer and crop mixed
    if k == 13: return f"[{g.randint(0, 1000)},{g.randint(0, 1000)}]"      # a valid answer
    if k == 14: return _noise(g, 20) + _crop(g, valid=True) + _noise(g, 20)
    if k == 15: return "\U0001F600" * g.randint(1, 50) + " " + "ض" * g.randint(0, 30)
    if k == 16: return "<|im_start|>user\n<|image_pad|><|vision_start|>[5,5]" + g.choice(["<|im_end|>", "<|endoftext|>", "</think>"])
    if k == 17: return "{" + '"a":' * g.randint(1, 300) + "1" + "}" * g.randint(0, 300)
    if k == 18: return "crop_image(" * g.randint(1, 40)
    if k == 19: return _crop(g, "screenshot.png", valid=True).replace("x1", "x1=1, x1")
    if k == 20: return g.choice(["I refuse.", "done", "The target does not exist", "[ , ]", "[500 500]", "[500,]", "(,)", "[[1,2],[3,4]]"])
    return " ".join(fuzz_reply(g) for _ in range(2))


def fuzz_replies(n: int = N_FUZZ, seed: int = 37) -> list[str]:
    g = random.Random(seed)
    return [fuzz_reply(g) for _ in range(n)]


class ScriptedVLM:
    """Stands in for the VLM: `generate` checks it got the processor's tensors, then returns the prompt ids followed by
    the next scripted reply, encoded by the real tokenizer and cut at `max_new_tokens` (as generation would)."""
    device = "cpu"
    def __init__(self, tok, replies): self.tok, self.replies, self.n_images = tok, list(replies), []
    def generate(self, input_ids, max_new_tokens, attention_mask=None, pixel_values=None, image_grid_thw=None, **kw):
        assert input_ids.shape[0] == 1 and pixel_values is not None and image_grid_thw is not None
        self.n_images.append(int(image_grid_thw.shape[0]))
        if not self.replies: raise AssertionError("the rollout asked for more turns than the episode allows")
        new = self.tok(self.replies.pop(0) + "<|im_end|>", add_special_tokens=False, return_tensors="pt")["input_ids"]
        return torch.cat([input_ids, new[:, :max_new_tokens]], dim=1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    "The tiny VLM's real processor (built once, offline), a small screenshot and a sample whose target is small."
    _, proc = gz.load_zoom_policy(build_tiny_vlm(tmp_path_factory.mktemp("fuzz") / "tiny", image_size=64, tie_embeddings=False), device="cpu")
    shot = Image.new("RGB", (96, 64), "white"); ImageDraw.Draw(shot).rectangle([60, 20, 66, 26], fill="red")
    smp = GroundingSample(id="fuzz", img_filename="fuzz.png", instruction="click the red square", bbox=[60, 20, 66, 26], img_size=[96, 64])
    return proc, shot, smp


def _expected_reply(text: str) -> str | None:
    "What the rollout should hand the env for a scripted text, when no special token or cut is involved (else None)."
    return None if "<|" in text else text


def test_rollout_never_raises_on_1000_fuzzed_replies(tiny):
    proc, shot, smp = tiny
    tok = proc.tokenizer
    stream = fuzz_replies()
    used, episodes, n_format = 0, [], 0
    while used < len(stream):
        scripted = stream[used:used + MAX_TURNS]
        scripted += ["[500,500]"] * (MAX_TURNS - len(scripted))          # the stream's end: valid answers finish the episode
        m = ScriptedVLM(tok, scripted)
        t = gz.policy_rollout(m, proc, smp, shot, max_new_tokens=MAX_NEW)
        k = t["n_turns"]; scripted = scripted[:k]; used += k
        episodes.append(t)
        assert t["env_errors"] == 0 and t["status"] in STATUSES, t["status"]
        assert len(t["replies"]) == k == len(m.n_images) and 1 <= k <= MAX_TURNS
        # the real tokenizer round trip: the env got the scripted text (when no special token or length cut is involved)
        for s, r in zip(scripted, t["replies"]):
            if _expected_reply(s) is not None and len(tok(s, add_special_tokens=False)["input_ids"]) < MAX_NEW: assert r == s
            assert "<|image_pad|>" not in r and "<|im_end|>" not in r
        # budgets: ≤ 3 crops, ≤ 2 per turn, each crop of an image that existed before its turn; one image per crop in the prompt
        assert t["n_crops"] == len(t["crops"]) <= MAX_CROPS
        names = {"screenshot.png"}
        for tu in t["turns"]:
            assert len(tu["crops"]) <= MAX_CROPS_PER_TURN
            assert all(c["parent"] in names for c in tu["crops"]); names |= {c["path"] for c in tu["crops"]}
        assert m.n_images == [1 + sum(len(tu["crops"]) for tu in t["turns"][:i]) for i in range(k)]
        # format errors are recorded, one correction turn each, at most FORMAT_RETRIES; an unparseable reply is one of them
        errs = [tu["error"] for tu in t["turns"] if tu["error"] is not None]
        n_format += len(errs)
        for tu in t["turns"]:
            if isinstance(parse_reply(tu["reply"]), FormatError): assert tu["error"] is not None
        if t["status"] == "format_error":
            assert len(errs) == FORMAT_RETRIES + 1 == t["n_corrections"] + 1 and t["format_error"] and t["turns"][-1]["error"]
        else: assert len(errs) == t["n_corrections"] <= FORMAT_RETRIES
        if t["status"] == "answer": assert t["point"] is not None and all(math.isfinite(v) for v in t["point"]) and not t["format_error"]
        if t["status"] == "max_turns": assert k == MAX_TURNS and t["format_error"]
    assert used >= N_FUZZ
    st = {s: sum(t["status"] == s for t in episodes) for s in STATUSES}
    # the fuzz reaches every ending but `done` (a reply cannot say done) and makes crops of crops
    assert all(st[s] > 0 for s in ("answer", "refusal", "format_error")), st
    assert any(c["parent"] != "screenshot.png" for t in episodes for c in t["crops"])
    assert sum(t["n_crops"] == MAX_CROPS for t in episodes) > 0 and n_format > 300, (n_format, st)
    print(f"{len(episodes)} episodes, {n_format} format errors, statuses {st}, "
          f"crops {sum(t['n_crops'] for t in episodes)}")


def test_parsers_never_raise_on_the_same_1000(tiny):
    kinds = {"format_error": 0, "crop": 0, "answer": 0, "refusal": 0}
    for text in fuzz_replies():
        p = parse_reply(text)
        if isinstance(p, FormatError):
            assert isinstance(p.message, str) and p.message; kinds["format_error"] += 1; continue
        assert isinstance(p, list) and p
        if isinstance(p[0], CropAction):
            assert all(isinstance(a, CropAction) and a.image_path and 0 <= a.x1 < a.x2 <= 1000 and 0 <= a.y1 < a.y2 <= 1000 for a in p)
            kinds["crop"] += 1
        elif isinstance(p[0], Answer):
            assert len(p) == 1 and 0 <= p[0].x <= 1000 and 0 <= p[0].y <= 1000; kinds["answer"] += 1
        else: assert len(p) == 1 and isinstance(p[0], Refusal); kinds["refusal"] += 1
        head, calls = gz._tool_calls(text)
        assert isinstance(head, str) and all(isinstance(c["name"], str) and isinstance(c["arguments"], dict) for c in calls)
    assert all(v > 10 for v in kinds.values()), kinds


def test_empty_tool_call_is_a_format_error_and_the_episode_goes_on(tiny):
    proc, shot, smp = tiny
    assert gz._tool_calls("<tool_call>{}</tool_call>") == ("", [])
    assert parse_reply("<tool_call>{}</tool_call>") == FormatError("no crop_image(...) action and no final answer [x,y] found")
    m = ScriptedVLM(proc.tokenizer, ["<tool_call>{}</tool_call>", "[656, 359]"])   # (63, 23) px: inside the red square
    t = gz.policy_rollout(m, proc, smp, shot)
    assert (t["status"], t["n_turns"], t["n_corrections"], t["format_error"]) == ("answer", 2, 1, False)
    assert t["turns"][0]["error"].startswith("no crop_image(...) action") and t["turns"][1]["error"] is None
    assert t["point"] == pytest.approx([62.976, 22.976])
    # the same through trl's tool-call path of training: no call, a final text that is no answer
    assert gz.zoom_trajectory([{"role": "assistant", "content": "<tool_call>{}</tool_call>"}], None, [96, 64])["status"] == "format_error"
