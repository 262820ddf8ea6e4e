"""guilab.train.zoom_ocr: the OCR-reading zoom policy's data, token masks and GRPO rollout (issue 37)."""
import os

import numpy as np
import pytest

from guilab.grounding.sources import synthetic_gui
from guilab.grounding.zoom import ZoomEnv, zoom_episode
from guilab.train.zoom_sft import MALFORMED
from guilab.train import zoom_ocr as Z


@pytest.fixture(scope="module")
def data():
    samples, images = synthetic_gui(16, seed=5, per_image=8)
    return [s for s in samples if s.ui_type == "text"], images


@pytest.fixture(scope="module")
def policy(tmp_path_factory, data):
    samples, images = data
    eps = Z.with_system(Z.teacher_ocr_episodes(samples[:2], images, seed=0))
    return Z.build_ocr_policy_base(tmp_path_factory.mktemp("m") / "base", eps), eps


def test_episode_tokens_mask_exactly_the_replies(policy):
    from guilab.agents.tiny import load_tiny_vlm
    base, eps = policy
    _, proc = load_tiny_vlm(base); tok = proc.tokenizer
    chat = max((c for e in eps for c in e["chats"]), key=len)
    assert sum(m["role"] == "assistant" for m in chat) >= 2          # a crop turn, then the answer
    pid, cid, mask = Z.episode_tokens(tok, chat)
    assert pid + cid == Z.chat_ids(tok, chat, False) and len(mask) == len(cid)
    replies = [m["content"] for m in chat if m["role"] == "assistant"]
    got = tok.decode([t for t, k in zip(cid, mask) if k], skip_special_tokens=True)
    assert got.replace("\n", "") == "".join(replies).replace("\n", "")
    assert 0 in mask                                                  # the env's reading between the replies is not trained


def test_policy_text_never_raises(data):
    """Fuzzed replies (malformed protocol text, the empty tool call, numbers out of range) end as format errors."""
    samples, images = data
    g = np.random.default_rng(0)
    pool = [m(g) for m in MALFORMED] + ["", "[", "[1e309,5]", "crop_image(", "[500,500] [10,10]", "<|im_end|>"]
    for k in range(12):
        replies = iter([pool[(k + j) % len(pool)] for j in range(10)])
        tr, ep = zoom_episode(ZoomEnv(), Z.OCRViewAgent(lambda msgs: next(replies)), {"image": images[samples[0].img_filename], "sample": samples[0]})
        assert tr["status"] in ("answer", "format_error", "max_turns", "refusal")


def test_grpo_step_runs_through_the_env(policy, data, tmp_path):
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    base, _ = policy
    samples, images = data
    r = Z.train_ocr_grpo(base, samples[:2], images, tmp_path / "grpo", max_steps=1, num_generations=2, prompts_per_step=1,
                         max_new_tokens=16)
    assert r["rollouts"] and len(r["rollouts"][0]["episodes"]) == 2
    row = next(h for h in r["log"] if "reward" in h)
    assert "rewards/zoomin_accuracy/mean" in row and "zoom/crops" in row
    assert (tmp_path / "grpo" / "config.json").is_file()


def test_turn_filter_masks_intermediate_turns_in_grpo(policy, data, tmp_path):
    """turn_filter="entropy" with an entropy floor no turn reaches masks every turn but the last (the answer)."""
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    base, _ = policy
    samples, images = data
    r = Z.train_ocr_grpo(base, samples[:2], images, tmp_path / "grpo", max_steps=1, num_generations=2, prompts_per_step=1,
                         max_new_tokens=16, turn_filter="entropy", entropy_min=1e9)
    eps = r["rollouts"][0]["episodes"]
    assert all(e["masked_turns"] == list(range(e["n_turns"] - 1)) for e in eps), eps
