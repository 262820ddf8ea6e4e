"""Behaviour of guilab.train.grpo_zoom: trajectory-level advantages, tool-result masking, format errors, resume/refusal."""
import json

import pytest
import torch

from guilab.grounding.sources import synthetic_gui
from guilab.agents.tiny import build_tiny_vlm
from guilab.train import grpo_zoom as gz

SHORT = "Find: {instruction}. Image {name} {w}x{h}. Crop with crop_image (max {max_crops}, {per_turn} per turn) or answer [x,y] in [0,1000]."


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("grpo_zoom")
    samples, images = synthetic_gui(2, seed=0, size=(960, 540), per_image=2)
    return d, build_tiny_vlm(d / "tiny", image_size=64, tie_embeddings=False), samples, images


def test_advantages_per_trajectory_and_tool_tokens_masked(setup):
    d, model_dir, samples, images = setup
    cfg = gz.GRPOZoomConfig.from_dict({"num_generations": 4, "prompts_per_step": 2, "steps": 1, "max_turns": 2,
                                       "max_completion_length": 256, "system": SHORT, "trl": {"shuffle_dataset": False}})
    tr = gz.make_trainer(model_dir, d / "adv", gz.zoom_dataset(samples, images, system=SHORT), cfg, progress=False)
    tok = tr.processing_class.tokenizer
    call = ('<tool_call>\n{"name": "crop_image", "arguments": {"image_path": "screenshot.png", "x1": 0, "y1": 0, '
            '"x2": 500, "y2": 500}}\n</tool_call><|im_end|>')
    n = {"calls": 0}
    def scripted(prompt_ids, images, mm, num_generations, has_tool_images=False):
        n["calls"] += 1
        if n["calls"] == 1: texts = [call] * len(prompt_ids)              # turn 1: every rollout crops
        else: texts = ["[500,500]<|im_end|>"] * 2 + ["no idea<|im_end|>"] * 2 + ["[500,500]<|im_end|>"] * 4
        return [tok(t, add_special_tokens=False)["input_ids"] for t in texts], None
    tr._generate_single_turn = scripted
    seen = {}
    orig = tr._generate_and_score_completions
    def capture(inputs):
        out = orig(inputs); seen.update(out); return out
    tr._generate_and_score_completions = capture
    tr.train()
    adv, mask, ids = seen["advantages"], seen["tool_mask"], seen["completion_ids"]
    assert adv.shape == (8,)                                   # one advantage per trajectory
    assert torch.all(adv[4:] == 0)                             # group of equal rewards: zero advantage
    assert torch.all(adv[:2] > 0) and torch.all(adv[2:4] < 0)  # answers beat the format error
    pad = tok.convert_tokens_to_ids("<|image_pad|>")
    assert (ids == pad).any(dim=1).all()                       # every completion holds the returned crop image
    assert torch.all(mask[ids == pad] == 0)                    # tool-result (crop image) tokens carry no loss
    first = tok(call, add_special_tokens=False)["input_ids"]
    assert torch.all(mask[:, : len(first)] == 1)               # the model's own tokens do
    assert mask.sum() < seen["completion_mask"].sum()


def test_format_error_scores_zero_without_raising():
    fmt = gz.trl_reward_funcs()[2]
    junk = [[{"role": "assistant", "content": "<tool_call>{not json"}], [{"role": "assistant", "content": "\x00\ufffd"}],
            [{"role": "assistant", "content": "[512,300]"}]]
    assert fmt(junk, bbox=[[0, 0, 10, 10]] * 3, img_size=[[100, 100]] * 3) == [0.0, 0.0, 1.0]



def test_resume_and_refusal(setup):
    d, model_dir, samples, images = setup
    from transformers import TrainerCallback
    class Stop(TrainerCallback):
        def on_save(self, args, state, control, **kw): raise KeyboardInterrupt("simulated kill after checkpoint 1")
    cfg = {"num_generations": 2, "prompts_per_step": 1, "steps": 2, "max_turns": 1, "max_completion_length": 16, "system": SHORT}
    out = d / "run"
    with pytest.raises(KeyboardInterrupt):
        gz.train_grpo_zoom(model_dir, out, samples, cfg, images=images, progress=False, callbacks=[Stop()])
    assert [json.loads(l)["step"] for l in open(out / "curves.jsonl")] == [1]
    final = gz.train_grpo_zoom(model_dir, out, samples, cfg, images=images, progress=False)
    run = json.loads((out / "run.json").read_text())
    assert run["done"] and run["resumed_from"].endswith("checkpoint-1") and run["steps"] == 2
    assert [json.loads(l)["step"] for l in open(out / "curves.jsonl")] == [1, 2]
    assert (final / "config.json").is_file()
    with pytest.raises(FileExistsError):
        gz.train_grpo_zoom(model_dir, out, samples, {**cfg, "beta": 0.5}, images=images, progress=False)


def scripted_generate(proc, replies):
    "A `model.generate` that appends the token ids of the next scripted reply to the prompt (no sampling)."
    it = iter(replies)
    def generate(**kw):
        ids = proc.tokenizer(next(it), add_special_tokens=False, return_tensors="pt")["input_ids"]
        return torch.cat([kw["input_ids"], ids], dim=1)
    return generate


def test_rollout_empty_or_unknown_tool_call_is_a_format_error(setup):
    """`<tool_call>{}</tool_call>` used to crash the tool-loop rollout (a tool call named None; issue 37). The rollout
    now runs through ZoomEnv's plain-text protocol: it is a format error answered by a correction turn; after the
    corrections are used up the episode ends as a format error, without an exception."""
    d, model_dir, samples, images = setup
    model, proc = gz.load_zoom_policy(model_dir, device="cpu")
    s = samples[0]; im = images[s.img_filename]
    model.generate = scripted_generate(proc, ["<tool_call>{}</tool_call><|im_end|>"] * 3)
    tr = gz.zoom_rollout(model, proc, s, im, max_turns=3)
    assert (tr["status"], tr["format_error"], tr["n_turns"], tr["n_corrections"], tr["n_crops"]) == ("format_error", True, 3, 2, 0)
    # another tool's name: a format error and a correction turn; a crop_image tool call is read by parse_reply as a crop
    zoom = '<tool_call>\n{"name": "zoom", "arguments": {"x": 1}}\n</tool_call><|im_end|>'
    args = {"image_path": "screenshot.png", "x1": 0, "y1": 0, "x2": 500, "y2": 500}
    crop = '<tool_call>\n' + json.dumps({"name": "crop_image", "arguments": args}) + '\n</tool_call><|im_end|>'
    model.generate = scripted_generate(proc, [zoom, crop, "[250,250]<|im_end|>"])
    tr = gz.zoom_rollout(model, proc, s, im, max_turns=3)
    assert tr["status"] == "answer" and tr["n_crops"] == 1 and tr["crops"][0]["turn"] == 1 and tr["n_corrections"] == 1
    assert tr["crops"][0]["box_original"] == [0.0, 0.0, 480.0, 270.0] and tr["point"] == [240.0, 135.0]
    assert tr["turns"][0]["error"] == "no crop_image(...) action and no final answer [x,y] found"
