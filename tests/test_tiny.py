"""guilab.agents.tiny: build -> save -> reload offline (HF_HUB_OFFLINE=1, fresh process) -> generate from image + text;
determinism in the seed; sizes and location tokens honoured; the folder's remote-code processor (what
`transformers serve --trust-remote-code` loads through AutoProcessor) encodes exactly like TinyQwen3VLProcessor."""
import json, os, subprocess, sys

import pytest
import torch
from PIL import Image, ImageDraw

from guilab.agents.tiny import (CHAT_SPECIAL_TOKENS, TINY_MARKER, TinyQwen3VLProcessor, build_tiny_vlm, is_tiny_vlm,
                                load_tiny_vlm, loc_tokens)


def _img(w=224, h=224, dot=(60, 90)):
    im = Image.new("RGB", (w, h), "white")
    ImageDraw.Draw(im).ellipse([dot[0] - 10, dot[1] - 10, dot[0] + 10, dot[1] + 10], fill="red")
    return im


def _encode(proc, im, text="Click the red dot."):
    msgs = [{"role": "user", "content": [{"type": "image", "image": im}, {"type": "text", "text": text}]}]
    return proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("m") / "tiny", seed=3, loc_bins=32, tie_embeddings=False)


_CHILD = r"""
import json, sys
from PIL import Image, ImageDraw
import huggingface_hub.constants as C
assert C.HF_HUB_OFFLINE, "offline mode not active"
from guilab.agents.tiny import load_tiny_vlm
model, proc = load_tiny_vlm(sys.argv[1])
im = Image.new("RGB", (224, 224), "white"); ImageDraw.Draw(im).ellipse([50, 80, 70, 100], fill="red")
msgs = [{"role": "user", "content": [{"type": "image", "image": im}, {"type": "text", "text": "Click the red dot."}]}]
enc = proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt")
out = model.generate(**enc, max_new_tokens=6, do_sample=False)
print(json.dumps({"prompt": enc["input_ids"][0].tolist(), "new": out[0, enc["input_ids"].shape[1]:].tolist(),
                  "proc": type(proc).__name__}))
"""


def test_reload_offline_in_fresh_process_generates_same_tokens(tiny):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1"}
    r = subprocess.run([sys.executable, "-c", _CHILD, str(tiny)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    child = json.loads(r.stdout.strip().splitlines()[-1])
    model, proc = load_tiny_vlm(tiny)
    enc = _encode(proc, _img())
    out = model.generate(**enc, max_new_tokens=6, do_sample=False)
    assert child["proc"] == "TinyQwen3VLProcessor"
    assert child["prompt"] == enc["input_ids"][0].tolist()
    assert child["new"] == out[0, enc["input_ids"].shape[1]:].tolist()
    assert 1 <= len(child["new"]) <= 6
    # 224 px -> 14x14 patches of 16 px -> 7x7 = 49 image tokens
    assert child["prompt"].count(proc.tokenizer.convert_tokens_to_ids("<|image_pad|>")) == 49


def test_the_image_reaches_the_logits(tiny):
    model, proc = load_tiny_vlm(tiny)
    a, b = _encode(proc, _img(dot=(40, 40))), _encode(proc, _img(dot=(180, 170)))
    assert torch.equal(a["input_ids"], b["input_ids"])
    with torch.no_grad():
        la, lb = model(**a).logits[0, -1], model(**b).logits[0, -1]
    assert (la - lb).abs().max() > 1e-4


def test_same_seed_same_model_other_seed_other_weights(tmp_path):
    a = build_tiny_vlm(tmp_path / "a", seed=7, hidden_size=64, num_layers=1, vision_depth=1)
    b = build_tiny_vlm(tmp_path / "b", seed=7, hidden_size=64, num_layers=1, vision_depth=1)
    c = build_tiny_vlm(tmp_path / "c", seed=8, hidden_size=64, num_layers=1, vision_depth=1)
    sa, sb, sc = (load_tiny_vlm(p)[0].state_dict() for p in (a, b, c))
    assert sa.keys() == sb.keys() == sc.keys()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)
    assert (a / "tokenizer.json").read_bytes() == (c / "tokenizer.json").read_bytes()  # vocabulary independent of seed


def test_sizes_are_honoured(tmp_path):
    p = build_tiny_vlm(tmp_path / "s", hidden_size=64, num_layers=1, num_heads=2, num_kv_heads=1, vision_hidden_size=32,
                       vision_depth=1, vision_heads=2, image_size=128, vocab_size=600)
    model, proc = load_tiny_vlm(p)
    t, v = model.config.text_config, model.config.vision_config
    assert (t.hidden_size, t.num_hidden_layers, t.num_attention_heads, t.num_key_value_heads) == (64, 1, 2, 1)
    assert (v.hidden_size, v.depth, v.num_heads, v.num_position_embeddings) == (32, 1, 2, 64)
    assert len(proc.tokenizer) <= 600 + 6 and t.vocab_size == len(proc.tokenizer)
    enc = _encode(proc, _img(400, 300))   # resized to at most 128*128 pixels, sides multiples of 32
    h, w = enc["image_grid_thw"][0, 1:].tolist()
    assert h * w * 16 * 16 <= 128 * 128 and (h * 16) % 32 == 0 and (w * 16) % 32 == 0
    meta = json.loads((p / TINY_MARKER).read_text())
    assert meta["sizes"]["image_size"] == 128 and meta["n_params"] == sum(x.numel() for x in model.parameters())
    with pytest.raises(TypeError, match="unknown size"):
        build_tiny_vlm(tmp_path / "bad", hidden=3)
    with pytest.raises(ValueError):
        build_tiny_vlm(tmp_path / "bad2", hidden_size=100, num_heads=3)
    assert not (tmp_path / "bad2").exists() and not any(x.name.startswith(".bad2") for x in tmp_path.iterdir())


def test_location_tokens(tiny):
    _, proc = load_tiny_vlm(tiny)
    tok = proc.tokenizer
    ids = [tok.convert_tokens_to_ids(t) for t in loc_tokens(32)]
    assert ids == list(range(ids[0], ids[0] + 32))          # contiguous, one id each
    s = "<loc_0><loc_31><|im_end|>"
    enc = tok(s)["input_ids"]
    assert len(enc) == 3
    assert tok.decode(enc, skip_special_tokens=True) == "<loc_0><loc_31>"   # they are not special: they survive
    assert tok.decode(enc, skip_special_tokens=False) == s
    assert set(CHAT_SPECIAL_TOKENS) <= set(tok.all_special_tokens)


def test_remote_code_processor_matches(tiny):
    """What `transformers serve --trust-remote-code` gets from AutoProcessor is the same processor."""
    from transformers import AutoProcessor
    ap = AutoProcessor.from_pretrained(tiny, trust_remote_code=True, local_files_only=True)
    _, proc = load_tiny_vlm(tiny)
    assert type(ap).__name__ == "TinyQwen3VLProcessor" and type(ap) is not TinyQwen3VLProcessor
    a, b = _encode(ap, _img(300, 200)), _encode(proc, _img(300, 200))
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert is_tiny_vlm(tiny) and not is_tiny_vlm(tiny.parent)
