"""Every example that `guilab ... --help` shows is run here (issue 33: `guilab reproduce --help` offered
`--set pagebench.n_generated=50`, a key that does not exist). `test_every_help_example_is_run` finds each help text
with an example (`e.g.`, a `guilab ...` command, `python -c`) and fails for one that no test below runs; each test
takes its example verbatim from the help text (a changed help text fails it) and runs it, with placeholders
(`OUT`, the endpoint URL, `/path/to/checkpoint`) replaced by real ones and small-scale settings added."""
import argparse, json, re, shlex, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT, GUILAB
from guilab.cli import build_parser

EXAMPLE = re.compile(r"e\.g\.|\bguilab [a-z]|\bpython -c\b")


def help_texts() -> dict[str, str]:
    """Every text of `guilab ... --help`: 'guilab reproduce --set' -> that option's help, 'guilab pagebench' -> the
    command's line in its parent's help, 'guilab (epilog)' / '(description)'."""
    out = {}
    def walk(p: argparse.ArgumentParser, path: str):
        for what in ("description", "epilog"):
            if getattr(p, what): out[f"{path} ({what})"] = getattr(p, what)
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for ca in a._choices_actions: out[f"{path} {ca.dest}"] = ca.help or ""
                for name, sp in a.choices.items(): walk(sp, f"{path} {name}")
            elif a.help not in (None, argparse.SUPPRESS):
                out[f"{path} {'/'.join(a.option_strings) or a.dest}"] = a.help
    walk(build_parser(), "guilab")
    return out


HELP = help_texts()
TRAIN = ("sft", "grpo", "grpo-zoom", "zoom-ocr", "gui-agent")
RUN_BY = {   # help text -> the test that runs its example
    "guilab reproduce --set": "test_reproduce_set_example",
    "guilab pagebench build --shard": "test_pagebench_shard_merge_and_option_examples",
    "guilab pagebench eval --shard": "test_pagebench_shard_merge_and_option_examples",
    "guilab pagebench eval --option": "test_pagebench_shard_merge_and_option_examples, test_pagebench_endpoint_example",
    "guilab grounding eval --agent-opt/--option": "test_grounding_option_and_agent_help_examples",
    "guilab eval (description)": "test_eval_example_shard_and_merge",
    "guilab eval --shard": "test_eval_example_shard_and_merge",
    **{f"guilab train {c} --config": "test_train_config_examples" for c in TRAIN},
    **{f"guilab train {c} --set": "test_train_set_example" for c in TRAIN},
}


def example(key: str, pattern: str) -> str:
    "The part of help text `key` that matches `pattern` (the test fails when the help no longer shows it)."
    m = re.search(pattern, HELP[key])
    assert m, f"{key}: help no longer shows {pattern!r}: {HELP[key]!r}"
    return m.group(0)


def guilab(*args, timeout=600, cwd=ROOT):
    r = subprocess.run([GUILAB, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (f"guilab {' '.join(map(str, args))}: exit {r.returncode}\n"
                               f"{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
    return r


def test_every_help_example_is_run():
    shown = {k for k, t in HELP.items() if EXAMPLE.search(t)}
    assert shown == set(RUN_BY), (f"help texts with an example that no test runs: {sorted(shown - set(RUN_BY))}; "
                                  f"listed here but without an example: {sorted(set(RUN_BY) - shown)}")
    names = {n for v in RUN_BY.values() for n in v.split(", ")}
    assert names <= set(globals()), names - set(globals())


def test_reproduce_set_example(tmp_path):
    ex = example("guilab reproduce --set", r"--set seed=1 \S+=\S+")       # --set seed=1 page_eval.limit=20
    guilab("reproduce", "--params", "params/smoke.yaml", "--only", "00_reported", "--out", tmp_path, "--quiet",
           *ex.split())
    man = json.loads((tmp_path / "manifest.json").read_text())
    key, value = ex.split()[-1].split("=")
    got = man["params"]
    for k in key.split("."): got = got[k]
    assert man["params"]["seed"] == 1 and str(got) == value, man["params"]
    assert man["notebooks"]["00_reported"]["status"] == "ok", man["notebooks"]


def test_pagebench_shard_merge_and_option_examples(tmp_path):
    """`--shard K/N` ... join with `guilab merge OUT` (build and eval), and `--option sigma=4 seed=1` (noisy_oracle)."""
    merge = example("guilab pagebench build --shard", r"guilab merge OUT")
    run_merge = example("guilab pagebench eval --shard", r"guilab merge F\.run")
    opt = example("guilab pagebench eval --option", r"--option sigma=4 seed=1")
    pb, ev = tmp_path / "pb", tmp_path / "eval.json"
    for k in (0, 1):
        guilab("pagebench", "build", "--problems", "euclid", "--limit", 4, "--no-screenshots", "--quiet", "--out", pb,
               "--shard", f"{k}/2")
    guilab(*merge.replace("OUT", str(pb)).split()[1:])
    assert len((pb / "trajectories.jsonl").read_text().splitlines()) == 4
    for k in (0, 1):
        guilab("pagebench", "eval", "--data", pb, "--agent", "noisy_oracle", "--out", ev, "--shard", f"{k}/2",
               "--quiet", *opt.split())
    r = guilab(*run_merge.replace("F.run", str(ev.with_suffix(".run"))).split()[1:])
    res = json.loads((ev.with_suffix(".run") / "summary.json").read_text())
    assert "merged pagebench eval" in r.stdout and res["metrics"]["problems"] == 4
    assert res["agent"]["options"] == {"sigma": 4, "seed": 1}, res["agent"]


def test_pagebench_endpoint_example(tmp_path):
    """`--option policy=http://127.0.0.1:8000/v1 model=/path/to/checkpoint`: a tiny VLM folder served by `transformers
    serve` (its URL for the example's, its folder for the checkpoint); the evaluation records the endpoint."""
    from guilab.agents.policies import serve_transformers
    from guilab.agents.tiny import build_tiny_vlm
    ex = example("guilab pagebench eval --option",
                 r"--option policy=http://127\.0\.0\.1:8000/v1 model=/path/to/checkpoint")
    ckpt = build_tiny_vlm(tmp_path / "tiny", loc_bins=32, seed=0)
    guilab("pagebench", "build", "--problems", "euclid", "--limit", 1, "--no-screenshots", "--quiet",
           "--out", tmp_path / "pb")
    with serve_transformers(ckpt) as url:
        args = ex.replace("http://127.0.0.1:8000/v1", url).replace("/path/to/checkpoint", str(ckpt)).split()
        guilab("pagebench", "eval", "--data", tmp_path / "pb", "--agent", "pager", "--limit", 1,
               "--out", tmp_path / "served.json", "--quiet", *args, "max_tokens=8",   # untrained: short replies
               timeout=300)
    res = json.loads((tmp_path / "served.json").read_text())
    assert res["agent_spec"]["options"] == {"policy": url, "model": str(ckpt), "max_tokens": 8}, res["agent_spec"]
    assert res["agent_info"]["policy"]["backend"] == "OpenAIChatPolicy" and res["metrics"]["problems"] == 1


def test_grounding_option_and_agent_help_examples(tmp_path):
    """`--option n_crops=1` on a small synthetic set, and the `python -c '...agent_help("grounding")'` it points at."""
    from guilab.grounding.sources import synthetic_gui
    key = "guilab grounding eval --agent-opt/--option"
    opt = example(key, r"--option n_crops=1")
    code = shlex.split(example(key, r"python -c '[^']*'"))[2]
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "n_crops" in r.stdout and "oracle" in r.stdout, r.stderr
    samples, images = synthetic_gui(4, size=(640, 360))
    for name, im in images.items(): im.save(tmp_path / name)
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(s.to_dict()) + "\n" for s in samples))
    guilab("grounding", "eval", "--data", tmp_path / "data.jsonl", "--agent", "oracle", "--out", tmp_path / "res",
           "--quiet", *opt.split())
    from guilab.grounding.evaluate import read_results
    recs = read_results(tmp_path / "res")
    assert len(recs) == 4 and all(r["n_crops"] == 1 for r in recs), recs[:1]


def test_eval_example_shard_and_merge(tmp_path):
    """`guilab eval`'s example (grounding, the oracle, 4 tasks) as two shards (`--shard K/N`), then `guilab merge DIR`:
    the merged run equals the example run."""
    ex = example("guilab eval (description)", r"guilab eval grounding --agent oracle --out \S+ --limit 4")
    merge = example("guilab eval --shard", r"guilab merge DIR")
    one = tmp_path / "one"
    guilab(*ex.replace("runs/eval/grounding-oracle", str(one)).split()[1:], "--quiet")
    sh = tmp_path / "sh"
    for k in (0, 1): guilab(*ex.replace("runs/eval/grounding-oracle", str(sh)).split()[1:], "--quiet", "--shard", f"{k}/2")
    r = guilab(*merge.replace("DIR", str(sh)).split()[1:])
    a, b = (json.loads((d / "summary.json").read_text()) for d in (one, sh))
    assert "merged grounding eval" in r.stdout and a["n_ok"] == b["n_ok"] == 4 and a["metrics"] == b["metrics"]


def test_train_config_examples():
    """`--config` names params files, e.g. params/default.yaml or params/full.yaml: each exists and loads with a
    train section."""
    from guilab.core import load_params
    for c in TRAIN:
        files = re.findall(r"params/\w+\.yaml", example(f"guilab train {c} --config", r"e\.g\. .*"))
        assert files
        for f in files: assert load_params(ROOT / f)["train"]["model"], f


# the example among settings that keep a training run to seconds (a 3-problem build, 8 examples, 224 px, no warm-up)
SMALL = ["train.data.problems=[generated:3:0]", "train.model.image_size=224", "train.model.loc_bins=32",
         "train.copy_warmup=null", "train.sft.max_examples=8", "train.sft.per_device_train_batch_size=4"]


@pytest.fixture(scope="module")
def train_runs(tmp_path_factory):
    return tmp_path_factory.mktemp("train")   # shared: grpo reuses the SFT checkpoint the sft example trained


@pytest.mark.parametrize("command", TRAIN)
def test_train_set_example(command, train_runs):
    ex = example(f"guilab train {command} --set", r"train\.\S+=\S+")    # train.sft.max_steps=10
    extra = ["--variants", "full"] if command == "grpo" else []
    r = guilab("train", command, "--config", "params/smoke.yaml", "--quiet", *extra,
               "--set", ex, f"train.runs_dir={train_runs}", *SMALL, timeout=900)
    if command == "zoom-ocr":    # every stage of train.zoom_run at smoke scale, each folder printed
        got = dict(l.split(": ", 1) for l in r.stdout.splitlines() if re.match(r"(data|base|warmup|sft|grpo): ", l))   # trl prints its metrics too
        assert list(got) == ["data", "base", "warmup", "sft", "grpo"], r.stdout
        assert all((Path(v.split(" (")[0]) / "stage.json").is_file() for v in got.values())
    elif command == "gui-agent":   # every stage of train.gui_agent at smoke scale, each folder printed
        got = dict(l.split(": ", 1) for l in r.stdout.splitlines() if re.match(r"(data|base|sft|grpo|grpo_stability): ", l))
        assert list(got) == ["data", "base", "sft", "grpo", "grpo_stability"], r.stdout
        assert all((Path(v.split(" (")[0]) / "stage.json").is_file() for v in got.values())
    elif command != "grpo-zoom":   # the SFT stage ran (or was reused) with the example's steps
        sft = Path(r.stdout.split("sft: ")[1].split()[0])
        key, value = ex.split("=")
        assert key == "train.sft.max_steps"
        assert json.loads((sft / "guilab_train.json").read_text())["steps"] == int(value)
