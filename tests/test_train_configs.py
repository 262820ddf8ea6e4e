"""Dry run of the GPU training configs without a GPU (issue 7): params/full.yaml's `train` section, the accelerate
launch config and the DeepSpeed ZeRO-2 file are parsed by the libraries that will read them on the 8-GPU node, the
DeepSpeed "auto" values are resolved against the trainer arguments with no mismatch, and SFTTrainer / GRPOTrainer are
constructed from the same arguments on the tiny model (GPU-only switches — DeepSpeed, vLLM — are checked, then turned
off for construction on this CPU, where neither library can run). Every params file's training sections split into
guilab's settings and trl's fields, trl's CPU defaults are the ones the stages always had, and the cache keys of the
default and full params are the ones their checkpoints were trained under."""
import json
from pathlib import Path

import pytest
from conftest import ROOT
from guilab.core import load_params

FULL = load_params(ROOT / "params" / "full.yaml")
GPU_ONLY = ("deepspeed", "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "vllm_tensor_parallel_size")


def test_accelerate_config_is_one_node_eight_gpus_zero2():
    from accelerate.commands.config.config_args import load_config_from_file
    c = load_config_from_file(str(ROOT / "params" / "accelerate_zero2.yaml"))
    assert c.distributed_type.value == "DEEPSPEED" and c.num_processes == 8 and c.num_machines == 1 and not c.use_cpu
    ds = ROOT / c.deepspeed_config["deepspeed_config_file"]
    assert ds.is_file() and ds == ROOT / FULL["train"]["sft"]["deepspeed"] == ROOT / FULL["train"]["grpo"]["deepspeed"]


@pytest.mark.parametrize("stage", ["sft", "grpo"])
def test_deepspeed_auto_values_resolve_without_mismatch(stage):
    from accelerate.utils.deepspeed import HfDeepSpeedConfig as Base
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig
    from guilab.train.settings import split_settings
    from guilab.train.sft import SFTSettings
    from guilab.train.grpo import GRPOSettings
    cfg = {k: v for k, v in FULL["train"][stage].items() if k not in GPU_ONLY}
    _, args = split_settings(SFTSettings if stage == "sft" else GRPOSettings, cfg, "/tmp/guilab-dry", use_cpu=True)
    raw = json.loads((ROOT / FULL["train"][stage]["deepspeed"]).read_text())
    # transformers' class inherits from accelerate's only when the deepspeed package is installed (GPU extra); its
    # "auto"-filling methods do not need deepspeed, so they are put on accelerate's class for this dry run
    DryRun = type("DryRun", (Base,), {k: v for k, v in vars(HfTrainerDeepSpeedConfig).items() if not k.startswith("__")})
    c = DryRun(raw); c._dtype = None; c.mismatches = []
    c.trainer_config_process(args)
    assert c.mismatches == [] and c.is_zero2() and c.get_value("bf16.enabled") is True
    assert c.get_value("train_micro_batch_size_per_gpu") == args.per_device_train_batch_size
    assert c.get_value("gradient_accumulation_steps") == args.gradient_accumulation_steps
    if stage == "sft":   # seed §5.1: per-device batch 1, accumulation 4, 5% warm-up, 8,192 tokens, 1 epoch, bf16
        assert (args.per_device_train_batch_size, args.gradient_accumulation_steps, args.max_length, args.num_train_epochs, args.bf16) == (1, 4, 8192, 1, True)
        assert args.warmup_steps == 0.05
    else:                # seed §5.1: 8 candidates per prompt; rollouts with vLLM
        assert args.num_generations == 8 and FULL["train"]["grpo"]["use_vllm"] is True and FULL["train"]["grpo"]["vllm_mode"] in ("colocate", "server")


def test_trainers_construct_from_full_settings_on_the_tiny_model(tmp_path):
    from datasets import Dataset
    from PIL import Image
    from trl import SFTTrainer, GRPOTrainer
    from guilab.agents.tiny import build_tiny_vlm
    from guilab.train.settings import split_settings
    from guilab.train.sft import SFTSettings, load_policy_model, example
    from guilab.train.grpo import GRPOSettings, make_reward_funcs
    from guilab.train.pipeline import base_model
    with pytest.raises(FileNotFoundError, match="not a local model folder"):
        base_model({**FULL["train"], "model": {"path": str(tmp_path / "no-such-Qwen3-VL-8B")}})
    m = build_tiny_vlm(tmp_path / "tiny", image_size=224, loc_bins=32, tie_embeddings=False)
    model, proc, bins = load_policy_model(m)
    ex = example("A=(0,0)", [], [], Image.new("RGB", (224, 224), "white"), (1280, 800), "click(x=<loc_1>, y=<loc_2>)")
    _, sft_args = split_settings(SFTSettings, {k: v for k, v in FULL["train"]["sft"].items() if k not in GPU_ONLY}, tmp_path / "s",
                                 use_cpu=True, max_steps=1)
    tr = SFTTrainer(model=model, args=sft_args, train_dataset=Dataset.from_list([{k: ex[k] for k in ("prompt", "completion", "images")}] * 4),
                    processing_class=proc)
    assert tr.args.gradient_accumulation_steps == 4 and tr.args.bf16
    g = {k: v for k, v in FULL["train"]["grpo"].items() if k not in GPU_ONLY}
    _, grpo_args = split_settings(GRPOSettings, g, tmp_path / "g", use_cpu=True, use_vllm=False)
    row = {"prompt": ex["prompt"], "images": ex["images"], "gt": json.dumps({"type": "click", "bbox": [0, 0, 50, 50]}), "size": [1280, 800],
           "state": "{}", "task": "t"}
    gt = GRPOTrainer(model=load_policy_model(m)[0], reward_funcs=make_reward_funcs(bins), args=grpo_args,
                     train_dataset=Dataset.from_list([row] * 8), processing_class=proc)
    assert gt.num_generations == 8 and gt.beta == FULL["train"]["grpo"]["beta"]


PARAMS = {n: load_params(ROOT / "params" / f"{n}.yaml") for n in ("default", "smoke", "full")}


@pytest.mark.parametrize("name", ["default", "smoke", "full"])
def test_params_training_sections_split_into_settings_and_trl_fields(name):
    from guilab.train.settings import split_params
    from guilab.train.sft import SFTSettings
    from guilab.train.grpo import GRPOSettings
    from guilab.train.copy_warmup import copy_warmup_settings, CopyWarmupSettings
    P = PARAMS[name]
    for section, cls in ((P["train"]["sft"], SFTSettings), (P["train"]["grpo"], GRPOSettings), (P["probe"]["sft"], SFTSettings)):
        ours, kw = split_params(cls, section)
        assert set(ours.to_dict()) | set(kw) >= set(section)
        assert all(ours.to_dict()[k] == v for k, v in section.items() if k in ours.to_dict())
    g = GRPOSettings.from_params(P["train"]["grpo"])
    assert g.variants == {"full": ["type", "param"], "no_param": ["type"], "no_type": ["param"]}
    cw = P["train"].get("copy_warmup")
    if cw is not None: assert isinstance(copy_warmup_settings(cw), CopyWarmupSettings)


def test_trl_defaults_for_this_cpu_are_unchanged():
    "The keyword dicts sft_config and grpo_config filled in before the settings classes (commit c4f1148)."
    from guilab.train.sft import SFTSettings
    from guilab.train.grpo import GRPOSettings
    assert SFTSettings.trl_defaults == dict(
        num_train_epochs=1, per_device_train_batch_size=8, gradient_accumulation_steps=1, learning_rate=1e-3,
        warmup_steps=0.05, lr_scheduler_type="cosine", max_length=8192, bf16=False, gradient_checkpointing=False,
        report_to="none", logging_steps=5, save_strategy="steps", save_steps=100, save_total_limit=1, seed=0,
        dataloader_num_workers=0, disable_tqdm=False)
    assert GRPOSettings.trl_defaults == dict(
        num_generations=8, per_device_train_batch_size=8, gradient_accumulation_steps=1, learning_rate=1e-4,
        beta=0.04, temperature=1.0, max_completion_length=48, max_steps=30, logging_steps=1, bf16=False,
        gradient_checkpointing=False, report_to="none", save_strategy="steps", save_steps=50, save_total_limit=1,
        seed=0, dataloader_num_workers=0, lr_scheduler_type="constant", warmup_steps=0, log_completions=False)


# base "runs/x/base-0000000000000000", data digest "d" * 16, code parts fixed (CODE, copy warm-up "w" * 16): the keys
# hash the params mappings as written, so a change here means every checkpoint of these params retrains. If
# params/default.yaml or params/full.yaml's train section changed on purpose, recompute them.
# Recomputed for issue 39 (the keys gained the training code's digest, `guilab.train.pipeline.code_digest_of`).
CODE = {"sft": "s" * 16, "grpo": "g" * 16}
KEYS = {("default", 0): ("copywarm-376dc78f144cc03e", {"sft": "8f15c1f6fddcc59d", "prompts": "1c6549bc90a9f2f6",
                         "full": "c80fbe6f258f40a4", "no_param": "7ba96467c94e8355", "no_type": "395f78c94efc566a"}),
        ("default", 1): ("copywarm-d429be5794ef14cf", {"sft": "a14026fb20a2e3ef", "prompts": "449db7115aa9e1ab",
                         "full": "7a7ab4d03f084135", "no_param": "574069e380313bc6", "no_type": "c07ab67c2c52a81e"}),
        ("full", 0): ("base-0000000000000000", {"sft": "9822ad66e0da484d", "prompts": "cc3dfd2a385a7228",
                      "full": "bcddc0ede96fce62", "no_param": "786f34dbecb8f7b7", "no_type": "b90c1eff5e98657c"})}


@pytest.mark.parametrize("name,seed", list(KEYS))
def test_cache_keys_of_the_params_are_unchanged(name, seed):
    from guilab.train.pipeline import seeded_config, stage_keys, copy_warmup_key
    from guilab.train.copy_warmup import copy_warmup_settings
    from guilab.train.grpo import GRPOSettings
    B, D = "runs/x/base-0000000000000000", "d" * 16
    P = PARAMS[name]
    cfg = seeded_config(P["train"], seed - int(P.get("seed", 0)), seed)
    base = B
    if cfg.get("copy_warmup") is not None:
        base = str(Path(cfg["runs_dir"]) / f"copywarm-{copy_warmup_key(B, copy_warmup_settings(cfg['copy_warmup']), D, seed, code='w' * 16)}")
    k = stage_keys(cfg, base, D, seed, list(GRPOSettings.from_params(cfg["grpo"]).variants), code=CODE)
    assert (Path(base).name, {"sft": k["sft"], "prompts": k["prompts"], **k["grpo"]}) == KEYS[name, seed]
    k2 = stage_keys(cfg, base, D, seed, [], code={**CODE, "sft": "t" * 16})   # the training code is part of every key after it
    assert k2["sft"] != k["sft"] and k2["prompts"] != k["prompts"]


_TRAINER_CONFIGS = {"SFTConfig", "GRPOConfig", "DPOConfig", "TrainingArguments"}


def _config_calls(src: str):
    "`(line, keywords)` of every call to a trl / transformers trainer config in `src` (a `**kw` shows as None)."
    import ast
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, ast.Call):
            f = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if f in _TRAINER_CONFIGS: yield n.lineno, [k.arg for k in n.keywords]


def test_every_trainer_config_sets_bf16_itself():
    """trl's configs default `bf16=True`; on a CPU without AVX512-BF16 (this project's 2-core AMD host) autocast
    emulates it and the JupyterLab agent's SFT ran 0.15 it/s instead of 1.6 (2026-12-07). Every config the library
    builds names `bf16` (or passes a settings dict, whose trl_defaults the test above pins)."""
    found = []
    for p in sorted((ROOT / "lib" / "guilab").rglob("*.py")):
        for line, kws in _config_calls(p.read_text()):
            found.append((p.name, line))
            assert "bf16" in kws or None in kws, f"{p.relative_to(ROOT)}:{line} builds a trainer config without bf16"
    assert len(found) >= 5, found   # the scan sees the library's configs
    bad = list(_config_calls("from trl import SFTConfig\nSFTConfig(output_dir='x', use_cpu=True)\n"))
    assert bad == [(2, ["output_dir", "use_cpu"])]   # and would catch one without it
