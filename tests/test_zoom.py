"""LBS zoom protocol (guilab.grounding.zoom): exact nested crop mapping, the 4 MP cap, budgets, a parse_reply
fuzz test (>= 1,000 hypothesis examples of random unicode and mutated valid replies), and the zoom env: its
trajectories and the messages its policies read equal those of the episode loop it replaced (kept below as
`reference_episode`), for scripted, random, oracle and fuzzed policies."""
import json, math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

from guilab.grounding.zoom import (ZoomSession, ZoomError, parse_reply, run_zoom, upscale_size, CropAction, Answer,
                                   Refusal, FormatError, MAX_PIXELS, MAX_CROPS, FORMAT_RETRIES_MCQ, NORM)


# ---------------------------------------------------------------- mapping

def block_image(w, h, b=16):
    "Each b x b block has its own colour, a function of the block index."
    im = Image.new("RGB", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            i, j = x // b, y // b
            px[x, y] = ((i * 37) % 256, (j * 59) % 256, ((i + 3 * j) * 17) % 256)
    return im


def test_nested_mapping_hand_computed():
    # 1000 x 500 image. crop_1: [200,100]-[600,900] of the original -> pixels x 200..600, y 50..450 (400x400);
    # 4x = 1600x1600 (2.56 MP, under the cap).
    s = ZoomSession(Image.new("RGB", (1000, 500)))
    c1 = s.crop("screenshot.png", x1=200, y1=100, x2=600, y2=900)
    assert (c1.box_parent, c1.box_original, c1.size, c1.scale) == ([200, 50, 600, 450], [200.0, 50.0, 600.0, 450.0], (1600, 1600), 4.0)
    # crop_2 of crop_1: [250,500]-[500,750] -> crop_1 pixels 400..800 x 800..1200; one crop_1 pixel = 0.25 original px
    c2 = s.crop("crop_1.png", x1=250, y1=500, x2=500, y2=750)
    assert c2.box_parent == [400, 800, 800, 1200]
    assert c2.box_original == [300.0, 250.0, 400.0, 350.0] and c2.size == (1600, 1600)
    # crop_3 of crop_2, with rounding: [333,0]-[334,1] -> 1600*0.333 = 532.8 -> 532, 534.4 -> 535; y 0 .. 1.6 -> 2
    c3 = s.crop("crop_2.png", x1=333, y1=0, x2=334, y2=1)
    assert c3.box_parent == [532, 0, 535, 2]
    assert c3.box_original == [300 + 532 / 16, 250.0, 300 + 535 / 16, 250 + 2 / 16]
    assert c3.size == (12, 8)
    # to_original on every image
    assert s.to_original("screenshot.png", 250, 500) == (250.0, 250.0)
    assert s.to_original("crop_1.png", 500, 500) == (400.0, 250.0)
    assert s.to_original("crop_2.png", 1000, 0) == (400.0, 250.0)
    assert s.to_original("crop_3.png", 500, 500) == (300 + 533.5 / 16, 250 + 1 / 16)
    assert [c.parent for c in s.crops] == ["screenshot.png", "crop_1.png", "crop_2.png"]


@settings(max_examples=60, deadline=None)
@given(st.integers(200, 3000), st.integers(200, 3000), st.lists(
    st.tuples(st.floats(0, 990), st.floats(0, 990), st.floats(1, 500), st.floats(1, 500), st.booleans()), min_size=1, max_size=3))
def test_nested_mapping_exact_property(W, H, reqs):
    "box_original equals an independent rational computation, for random nested crops (capped up-scales included)."
    s = ZoomSession(Image.new("RGB", (W, H)), max_pixels=400_000)        # a low cap so the capped path is exercised
    ref = {"screenshot.png": ((Fraction(0), Fraction(0), Fraction(W), Fraction(H)), (W, H))}
    for x1, y1, dw, dh, nest in reqs:
        parent = s.crops[-1].path if (nest and s.crops) else "screenshot.png"
        x2, y2 = min(1000.0, x1 + dw), min(1000.0, y1 + dh)
        c = s.crop(parent, x1, y1, x2, y2)
        (X1, Y1, X2, Y2), (w, h) = ref[parent]
        a, b = math.floor(Fraction(x1) * w / 1000), math.ceil(Fraction(x2) * w / 1000)
        cc, d = math.floor(Fraction(y1) * h / 1000), math.ceil(Fraction(y2) * h / 1000)
        if b <= a: b = min(w, a + 1); a = b - 1
        if d <= cc: d = min(h, cc + 1); cc = d - 1
        assert c.box_parent == [a, cc, b, d]
        exp = (X1 + a * (X2 - X1) / w, Y1 + cc * (Y2 - Y1) / h, X1 + b * (X2 - X1) / w, Y1 + d * (Y2 - Y1) / h)
        assert c.box_original == [float(v) for v in exp]
        assert c.size[0] * c.size[1] <= 400_000
        ref[c.path] = (exp, c.size)
        # to_original of the crop's corners is its box_original
        assert s.to_original(c.path, 0, 0) == (c.box_original[0], c.box_original[1])
        assert s.to_original(c.path, 1000, 1000) == (c.box_original[2], c.box_original[3])


def test_crop_pixels_match_mapping():
    "Sample points of each nested crop show the colour of the original block the mapping names."
    W, H = 640, 480
    img = block_image(W, H)
    s = ZoomSession(img)
    s.crop("screenshot.png", 130, 210, 520, 640)
    s.crop("crop_1.png", 100, 150, 700, 800)
    s.crop("crop_2.png", 300, 300, 600, 550)
    checked = 0
    for c in s.crops:
        cw, ch = c.size
        for fx in (0.2, 0.35, 0.5, 0.65, 0.8):
            for fy in (0.25, 0.5, 0.75):
                ox, oy = s.to_original(c.path, fx * 1000, fy * 1000)
                if min(ox % 16, 16 - ox % 16, oy % 16, 16 - oy % 16) < 2: continue   # skip block edges (LANCZOS blur)
                got = c.image.getpixel((min(cw - 1, int(fx * cw)), min(ch - 1, int(fy * ch))))
                want = img.getpixel((int(ox), int(oy)))
                assert max(abs(g - w) for g, w in zip(got, want)) <= 6, (c.path, fx, fy, got, want)
                checked += 1
    assert checked >= 20


# ---------------------------------------------------------------- the 4 MP cap

@settings(max_examples=300, deadline=None)
@given(st.integers(1, 20000), st.integers(1, 20000))
def test_upscale_never_over_4mp(w, h):
    (W, H), f = upscale_size(w, h)
    assert W * H <= MAX_PIXELS and W >= 1 and H >= 1
    if w * h * 16 <= MAX_PIXELS: assert (W, H, f) == (4 * w, 4 * h, 4.0)
    else:
        assert f < 4
        if min(w, h) * f >= 50: assert abs(W / H - w / h) / (w / h) < 0.05     # aspect kept up to whole pixels


def test_real_crops_of_large_screens_under_cap():
    s = ZoomSession(Image.new("RGB", (7680, 4320)))
    for box, parent in [((0, 0, 1000, 1000), "screenshot.png"), ((100, 100, 600, 600), "crop_1.png"), ((0, 0, 1000, 1000), "crop_2.png")]:
        c = s.crop(parent, *box)
        assert c.image.size == c.size and c.size[0] * c.size[1] <= MAX_PIXELS
    assert s.crops[0].size[0] * s.crops[0].size[1] > 3_990_000       # capped, not shrunk needlessly


# ---------------------------------------------------------------- budgets

class Scripted:
    wants_images = False
    def __init__(self, replies): self.replies = list(replies); self.calls = 0
    def __call__(self, messages): self.calls += 1; return self.replies.pop(0)


def crop(p="screenshot.png", b=(100, 100, 900, 900)):
    return f'crop_image(image_path="{p}", x1={b[0]}, y1={b[1]}, x2={b[2]}, y2={b[3]})'


IMG = Image.new("RGB", (800, 600), "white")


def test_session_budgets():
    s = ZoomSession(IMG)
    acts = [CropAction("screenshot.png", 0, 0, 500, 500)] * 3
    assert "at most 2" in s.check_turn(acts)
    with pytest.raises(ZoomError, match="at most 2"): s.apply_turn(acts)
    assert s.check_turn([CropAction("crop_1.png", 0, 0, 5, 5)]).startswith("image_path 'crop_1.png' does not exist")
    s.apply_turn(acts[:2]); s.apply_turn(acts[:1])
    assert len(s.crops) == MAX_CROPS and s.crops_left == 0
    with pytest.raises(ZoomError, match="budget"): s.crop("screenshot.png", 0, 0, 10, 10)
    with pytest.raises(ZoomError, match="unknown image_path"): s.to_original("crop_4.png", 1, 1)
    with pytest.raises(ZoomError): ZoomSession(IMG, name="crop_1.png")


def test_episode_per_turn_and_same_turn_rules():
    # 3 crops in one turn: rejected as a whole (no crop made), corrected
    three = "\n".join([crop()] * 1 + [crop(b=(0, 0, 10, 10)), crop(b=(5, 5, 50, 50))])
    tr = run_zoom(Scripted([three, "[1,1]"]), IMG, "x")
    assert tr["turns"][0]["error"].startswith("3 crop_image actions") and tr["n_crops"] == 0 and tr["status"] == "answer"
    # two in one turn are fine and come back in order
    tr = run_zoom(Scripted([crop() + "\n" + crop(b=(0, 0, 500, 500)), "[1,1]"]), IMG, "x")
    assert [c["path"] for c in tr["turns"][0]["crops"]] == ["crop_1.png", "crop_2.png"]
    assert tr["crops"][1]["box_original"] == [0.0, 0.0, 400.0, 300.0]
    # naming a crop of the same turn is rejected; naming it in the next turn works
    tr = run_zoom(Scripted([crop() + "\n" + crop("crop_1.png"), crop(), crop("crop_1.png"), "[2,2]"]), IMG, "x")
    assert "does not exist before this turn" in tr["turns"][0]["error"]
    assert [c["parent"] for c in tr["crops"]] == ["screenshot.png", "crop_1.png"] and tr["status"] == "answer"


def test_episode_total_budget_and_turn_limit():
    tr = run_zoom(Scripted([crop(), crop(), crop(), crop(), "[3,3]"]), IMG, "x")
    assert tr["n_crops"] == 3 and "crop budget exceeded" in tr["turns"][3]["error"] and tr["status"] == "answer"
    # six turns at most: 3 crops + 2 corrections + 1 more crop attempt -> no answer
    pol = Scripted([crop(), crop(), crop(), "?", "?", "?", "[1,1]"])
    tr = run_zoom(pol, IMG, "x", format_retries=10)
    assert pol.calls == 6 and tr["status"] == "max_turns" and tr["format_error"] and tr["point"] is None


def test_format_retries():
    for retries in (2, FORMAT_RETRIES_MCQ):
        pol = Scripted(["bad"] * retries + ["[500,500]"])
        tr = run_zoom(pol, IMG, "x", format_retries=retries)
        assert tr["status"] == "answer" and tr["n_corrections"] == retries and tr["point"] == [400.0, 300.0]
        pol = Scripted(["bad"] * (retries + 1) + ["[500,500]"])
        tr = run_zoom(pol, IMG, "x", format_retries=retries, max_turns=10)
        assert tr["status"] == "format_error" and tr["format_error"] and pol.calls == retries + 1


def test_messages_are_openai_style_with_data_uris():
    seen = []
    def pol(messages):
        seen.append(json.loads(json.dumps(messages)))        # JSON-serialisable
        return crop() if len(seen) == 1 else "[10,10]"
    tr = run_zoom(pol, IMG, "click the thing")
    assert tr["status"] == "answer"
    m = seen[1]
    assert [x["role"] for x in m] == ["system", "user", "assistant", "user"]
    urls = [p["image_url"]["url"] for x in m if isinstance(x["content"], list) for p in x["content"] if p["type"] == "image_url"]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert "region_in_original: [80,60,720,540]" in m[3]["content"][0]["text"]


# ---------------------------------------------------------------- parse_reply

NUM = st.floats(0, 1000, allow_nan=False).map(lambda v: round(v, 2))
PATHS = st.sampled_from(["screenshot.png", "crop_1.png", "crop_2.png"])


@st.composite
def valid_reply(draw):
    "A valid reply in one of the accepted forms, with the actions it encodes."
    kind = draw(st.sampled_from(["crop", "crop2", "json", "toolcall", "answer", "paren", "click", "refuse"]))
    pre = draw(st.sampled_from(["", "Reasoning: the icon is small.\n", "思考：目标很小，放大。\n", "<think>hmm</think>\n"]))
    def box():
        a, b = sorted(draw(st.lists(NUM, min_size=2, max_size=2, unique=True)))
        c, d = sorted(draw(st.lists(NUM, min_size=2, max_size=2, unique=True)))
        return CropAction(draw(PATHS), a, c, b, d)
    if kind in ("crop", "crop2"):
        acts = [box()] + ([box()] if kind == "crop2" else [])
        acts = [a for i, a in enumerate(acts) if a not in acts[:i]]
        fence = draw(st.booleans())
        body = "\n".join(a.call() for a in acts)
        return pre + (f"```python\n{body}\n```" if fence else body), acts
    if kind in ("json", "toolcall"):
        a = box()
        js = json.dumps({"name": "crop_image", "arguments": {"image_path": a.image_path, "x1": a.x1, "y1": a.y1, "x2": a.x2, "y2": a.y2}})
        return pre + (f"<tool_call>{js}</tool_call>" if kind == "toolcall" else js), [a]
    if kind == "refuse": return pre + draw(st.sampled_from(["Not present.", "I refuse: the target does not exist.", "[-1,-1]"])), "refusal"
    x, y = draw(NUM), draw(NUM)
    txt = {"answer": f"[{x},{y}]", "paren": f"({x}, {y})", "click": f"click(x={x}, y={y})"}[kind]
    if x <= 1 and y <= 1: return pre + "Found it.\n" + txt, [Answer(x * 1000, y * 1000)]   # decimals in [0,1]: fractions (zoom text)
    return pre + "Found it.\n" + txt, [Answer(x, y)]


@settings(max_examples=300, deadline=None)
@given(valid_reply())
def test_parse_valid_replies(r):
    text, want = r
    got = parse_reply(text)
    if want == "refusal": assert isinstance(got, list) and len(got) == 1 and isinstance(got[0], Refusal)
    else: assert got == want, (text, got)


@st.composite
def mutated(draw):
    text, _ = draw(valid_reply())
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "dup", "truncate", "junk_num"]))
        n = len(text)
        i = draw(st.integers(0, n)); j = draw(st.integers(i, n))
        if op == "delete": text = text[:i] + text[j:]
        elif op == "insert": text = text[:i] + draw(st.text(max_size=20)) + text[i:]
        elif op == "replace" and n: text = text[:i] + draw(st.sampled_from(list("()[]{},=\"':-.e9 \n") + ["nan", "inf", "1e999", "crop_image("])) + text[j:]
        elif op == "dup": text = text[:j] + text[i:j] + text[j:]
        elif op == "truncate": text = text[:i]
        elif op == "junk_num": text = text[:i] + draw(st.sampled_from(["-5", "1e400", "99999999999999999999999", "-1", "NaN", "0x10"])) + text[i:]
    return text


def check_result(r):
    if isinstance(r, FormatError):
        assert isinstance(r.message, str) and r.message
        return
    assert isinstance(r, list) and r
    if isinstance(r[0], CropAction):
        for a in r:
            assert isinstance(a, CropAction) and isinstance(a.image_path, str) and a.image_path
            assert 0 <= a.x1 < a.x2 <= NORM and 0 <= a.y1 < a.y2 <= NORM
    else:
        assert len(r) == 1 and isinstance(r[0], (Answer, Refusal))
        if isinstance(r[0], Answer): assert 0 <= r[0].x <= NORM and 0 <= r[0].y <= NORM


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.text(alphabet=st.characters(), max_size=2000), mutated(),
                 st.binary(max_size=50).map(lambda b: b.decode("latin-1"))))
def test_parse_reply_fuzz_never_raises(text):
    check_result(parse_reply(text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(mutated(), st.text(max_size=100)), min_size=6, max_size=6))
def test_run_zoom_never_raises_on_model_text(replies):
    tr = run_zoom(Scripted(replies), Image.new("RGB", (320, 200)), "x")
    assert tr["status"] in ("answer", "refusal", "format_error", "max_turns")
    assert tr["n_crops"] <= MAX_CROPS and tr["n_turns"] <= 6
    assert all(len(t["crops"]) <= 2 for t in tr["turns"])
    if tr["status"] == "answer": assert 0 <= tr["point"][0] <= 320 and 0 <= tr["point"][1] <= 200
    json.dumps(tr)


def test_parse_reply_non_text_and_pathological():
    for bad in (None, 3, b"[1,2]", ["[1,2]"]): assert isinstance(parse_reply(bad), FormatError)
    for t in ("(" * 5000, "crop_image(" * 2000, "{" * 5000 + '"name":"crop_image"', "[" * 3000 + "1,2" + "]" * 3000,
              "crop_image(image_path='a.png', x1=1e999, y1=0, x2=5, y2=5)", '{"name":"crop_image","arguments":{"image_path":"a","x1":1e400}}',
              '{"name":"crop_image","arguments":{"image_path":"a","x1":' + "9" * 5000 + ',"y1":0,"x2":5,"y2":5}}'):
        check_result(parse_reply(t))


# ---------------------------------------------------------------- the env against the loop it replaced

from guilab.core import GroundingSample
from guilab.grounding.zoom import (ZoomEnv, initial_messages, crop_feedback, correction_message, SYSTEM_TEMPLATE,
                                   SYSTEM_TEMPLATE_PIXELS, ORIGINAL_NAME, MAX_TURNS, FORMAT_RETRIES)
from guilab.regions import resized_to_original


def reference_episode(session_or_image, instruction, policy, name=ORIGINAL_NAME, max_turns=MAX_TURNS,
                      format_retries=FORMAT_RETRIES, encode_images=None, system=None, answer_size=None):
    "guilab.grounding.zoom.run_episode as it was before the env (commit a1fd689), verbatim."
    if system is None: system = SYSTEM_TEMPLATE if answer_size is None else SYSTEM_TEMPLATE_PIXELS
    s = session_or_image if isinstance(session_or_image, ZoomSession) else ZoomSession(session_or_image, name=name)
    enc = getattr(policy, "wants_images", True) if encode_images is None else encode_images
    messages = initial_messages(s, instruction, encode=enc, system=system, answer_size=answer_size)
    traj = {"instruction": instruction, "image": s.original, "img_size": list(s.size), "turns": [], "crops": [],
            "n_crops": 0, "n_turns": 0, "n_corrections": 0, "answer": None, "point": None, "refusal": False,
            "status": "max_turns", "format_error": True}
    corrections = 0
    for t in range(max_turns):
        reply = policy(messages)
        if not isinstance(reply, str): raise TypeError(f"policy returned {type(reply).__name__}, expected str")
        messages.append({"role": "assistant", "content": reply})
        parsed = parse_reply(reply, answer_size)
        turn = {"turn": t, "reply": reply, "actions": [], "crops": [], "error": None}
        traj["turns"].append(turn); traj["n_turns"] = t + 1
        if isinstance(parsed, FormatError): err = parsed.message
        else:
            turn["actions"] = [a.to_dict() for a in parsed]
            crops = [a for a in parsed if isinstance(a, CropAction)]
            err = s.check_turn(crops) if crops else None
        if err is not None:
            turn["error"] = err
            if corrections >= format_retries: traj["status"] = "format_error"; break
            corrections += 1; traj["n_corrections"] = corrections
            messages.append(correction_message(err, format_retries - corrections)); continue
        a = parsed[0]
        if isinstance(a, Answer):
            p = resized_to_original(a.px[0], a.px[1], answer_size, s.size) if a.px is not None else s.to_original(s.original, a.x, a.y)
            traj.update(answer=[a.x, a.y], point=list(p), status="answer", format_error=False); break
        if isinstance(a, Refusal):
            traj.update(refusal=True, status="refusal", format_error=False); break
        made = s.apply_turn(parsed, turn=t)
        turn["crops"] = [c.to_dict() for c in made]
        traj["crops"] += turn["crops"]; traj["n_crops"] = len(s.crops)
        messages.append(crop_feedback(s, made, encode=enc, turns_left=max_turns - t - 1))
    traj["messages_len"] = len(messages)
    return traj


class Recording:
    "Wraps a policy; keeps a JSON copy of every message list it is shown."
    def __init__(self, inner, wants_images=False): self.inner, self.seen, self.wants_images = inner, [], wants_images
    def __call__(self, messages): self.seen.append(json.loads(json.dumps(messages))); return self.inner(messages)


def both(make_policy, image, instruction="find it", **kw):
    "(reference trajectory, env trajectory, messages seen by each) for two fresh copies of a policy."
    a, b = Recording(make_policy(), kw.pop("wants_images", False)), None
    ref = reference_episode(image, instruction, a, **kw)
    b = Recording(make_policy(), a.wants_images)
    new = run_zoom(b, image, instruction, **kw)
    return ref, new, a.seen, b.seen


SCREEN = Image.new("RGB", (1600, 900), "white")
TARGET = GroundingSample.from_dict({"id": "t", "img_filename": "x.png", "instruction": "the box",
                                    "bbox": [1210, 705, 1225, 716]})


@pytest.mark.parametrize("kw", [{}, {"max_turns": 3}, {"format_retries": 0}, {"format_retries": FORMAT_RETRIES_MCQ,
                                "max_turns": 9}, {"answer_size": (1316, 728)}, {"name": "shot.png"}])
def test_env_equals_reference_for_scripted_replies(kw):
    script = [crop() + "\n" + crop(b=(0, 0, 500, 500)), "hmm", crop("crop_1.png", (10, 10, 400, 400)),
              crop("crop_9.png"), "<box>600 300 716 428</box>", "[1,1]", "[2,2]", "[3,3]", "[4,4]"]
    if "name" in kw: script[0] = script[0].replace("screenshot.png", "shot.png")
    ref, new, sa, sb = both(lambda: Scripted(script), SCREEN, **kw)
    assert new == ref and sb == sa and len(sa) >= 2


def test_env_equals_reference_for_images_in_messages():
    ref, new, sa, sb = both(lambda: Scripted([crop(), "[10,10]"]), SCREEN, wants_images=True)
    assert new == ref and sb == sa and sa[1][3]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize("seed", range(12))
def test_env_equals_reference_for_random_and_oracle(seed):
    from guilab.grounding.baselines import RandomPolicy, OracleInCrop, ZoomRandomAgent, ZoomOracleAgent
    ref, new, sa, sb = both(lambda: RandomPolicy(seed, p_crop=0.8, p_refuse=0.2), SCREEN)
    assert new == ref and sb == sa
    assert run_zoom(ZoomRandomAgent(p_crop=0.8, p_refuse=0.2), SCREEN, "find it", seed=seed) == ref   # the registered agent
    ref, new, sa, sb = both(lambda: OracleInCrop(TARGET, SCREEN.size, n_crops=seed % 4), SCREEN)
    assert new == ref and sb == sa and new["status"] == "answer"
    assert run_zoom(ZoomOracleAgent(n_crops=seed % 4), SCREEN, "find it", sample=TARGET) == ref


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(mutated(), st.text(max_size=100)), min_size=9, max_size=9), st.integers(1, 8),
       st.integers(0, 4))
def test_env_equals_reference_for_fuzzed_replies(replies, max_turns, retries):
    ref, new, sa, sb = both(lambda: Scripted(replies), Image.new("RGB", (320, 200)), max_turns=max_turns,
                            format_retries=retries)
    assert new == ref and sb == sa


def test_env_structured_actions_share_the_budget_with_replies():
    env = ZoomEnv()
    env.reset(options={"image": SCREEN, "instruction": "x", "encode_images": False})
    env.step({"type": "reply", "text": crop() + "\n" + crop(b=(0, 0, 500, 500))})
    _, _, term, _, info = env.step({"type": "crop", "image_path": "crop_2.png", "x1": 0, "y1": 0, "x2": 500, "y2": 500})
    assert info["format_error"] is None and env.session.crops_left == 0 and not term
    _, _, term, _, info = env.step({"type": "crop", "image_path": "crop_3.png", "x1": 0, "y1": 0, "x2": 500, "y2": 500})
    assert info["format_error"] == "crop budget used up (3 crops per sample)" and not term
    _, r, term, _, info = env.step({"type": "refuse"})
    assert term and r == 0.0 and env.trajectory["status"] == "refusal" and env.trajectory["n_corrections"] == 1
    # an agent's invalid(...) reply uses a turn like any reply that breaks the protocol: the episode always ends
    from guilab.agents.base import Agent, invalid, run_episode
    class Babbler(Agent):
        def act(self, obs): return invalid("??", "no action found")
    ep = run_episode(ZoomEnv(), Babbler(), options={"image": SCREEN, "instruction": "x"})
    assert ep["n_steps"] == FORMAT_RETRIES + 1 and ep["format_errors"] == FORMAT_RETRIES + 1 and ep["terminated"]
