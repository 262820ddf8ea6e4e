"""Dry run of the GPU training configs without a GPU (issue 7): params/full.yaml's `train` section, the accelerate
launch config and the DeepSpeed ZeRO-2 file are parsed by the libraries that will read them on the 8-GPU node, the
DeepSpeed "auto" values are resolved against the trainer arguments with no mismatch, and SFTTrainer / GRPOTrainer are
constructed from the same arguments on the tiny model (GPU-only switches — DeepSpeed, vLLM — are checked, then turned
off for construction on this CPU, where neither library can run)."""
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
    from guilab.train.sft import sft_config
    from guilab.train.grpo import grpo_config
    cfg = {k: v for k, v in FULL["train"][stage].items() if k not in GPU_ONLY}
    args = (sft_config if stage == "sft" else grpo_config)(cfg, "/tmp/guilab-dry", use_cpu=True)
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
    from guilab.train.sft import sft_config, load_policy_model, example
    from guilab.train.grpo import grpo_config, make_reward_funcs
    from guilab.train.pipeline import base_model
    with pytest.raises(FileNotFoundError, match="not a local model folder"):
        base_model({**FULL["train"], "model": {"path": str(tmp_path / "no-such-Qwen3-VL-8B")}})
    m = build_tiny_vlm(tmp_path / "tiny", image_size=224, loc_bins=32, tie_embeddings=False)
    model, proc, bins = load_policy_model(m)
    ex = example("A=(0,0)", [], [], Image.new("RGB", (224, 224), "white"), (1280, 800), "click(x=<loc_1>, y=<loc_2>)")
    sft_args = sft_config({k: v for k, v in FULL["train"]["sft"].items() if k not in GPU_ONLY}, tmp_path / "s", use_cpu=True, max_steps=1)
    tr = SFTTrainer(model=model, args=sft_args, train_dataset=Dataset.from_list([{k: ex[k] for k in ("prompt", "completion", "images")}] * 4),
                    processing_class=proc)
    assert tr.args.gradient_accumulation_steps == 4 and tr.args.bf16
    g = {k: v for k, v in FULL["train"]["grpo"].items() if k not in GPU_ONLY}
    grpo_args = grpo_config(g, tmp_path / "g", use_cpu=True, use_vllm=False)
    row = {"prompt": ex["prompt"], "images": ex["images"], "gt": json.dumps({"type": "click", "bbox": [0, 0, 50, 50]}), "size": [1280, 800],
           "state": "{}", "task": "t"}
    gt = GRPOTrainer(model=load_policy_model(m)[0], reward_funcs=make_reward_funcs(bins), args=grpo_args,
                     train_dataset=Dataset.from_list([row] * 8), processing_class=proc)
    assert gt.num_generations == 8 and gt.beta == FULL["train"]["grpo"]["beta"]
