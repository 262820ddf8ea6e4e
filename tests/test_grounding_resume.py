"""Resumable, sharded grounding evaluation through the one harness (guilab.bench with GroundingBench):
`guilab grounding eval` is killed with SIGKILL mid-run and resumed with the same command; the final metrics equal
those of an uninterrupted run and no record is lost or duplicated. Shards merge to the unsharded run; an episode
whose agent raises is recorded as an error, never scored, and retried by the next run."""
import json, os, signal, subprocess, sys, textwrap, time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guilab.bench import EvaluationError, evaluate, merge, read_episodes
from guilab.core import read_jsonl
from guilab.grounding.evaluate import GroundingBench, load_samples

GUILAB = str(Path(sys.executable).parent / "guilab")
N = 60

# A slow scripted agent (importable as slowagent:make): per-sample behaviour chosen from the episode's public seed, so
# the records cover right answers with nested crops, random answers, format errors and refusals. Modes 0 and 3 are
# the oracle, so the agent is privileged (it reads the sample from info[PRIVILEGED]).
AGENT = textwrap.dedent('''
    import time
    from guilab.agents.base import PRIVILEGED
    from guilab.grounding.zoom import ChatAgent
    from guilab.grounding.baselines import OracleInCrop, RandomPolicy

    class Garbage:
        wants_images = False
        def __call__(self, messages): return "I am not sure what to do."

    class Slow(ChatAgent):
        privileged = True
        wants_images = False
        def __init__(self, delay=0.1):
            super().__init__(); self.delay = delay
        def new_policy(self, obs, info):
            time.sleep(self.delay)
            seed, sample, size = info["seed"], info[PRIVILEGED]["sample"], tuple(obs["images"][0]["size"])
            mode = seed % 4
            if mode == 0: return OracleInCrop(sample, size, n_crops=2)
            if mode == 1: return RandomPolicy(seed, p_crop=0.7, p_refuse=0.2)
            if mode == 2: return Garbage()
            return OracleInCrop(sample, size, n_crops=0)

    def make(delay=0.1): return Slow(delay)
''')


def make_data(d: Path) -> Path:
    "60 synthetic screens drawn with PIL: bbox, polygon and refusal items over 3 groups, 4 applications, 2 ui types."
    recs = []
    for k in range(N):
        W, H = (960, 600) if k % 3 else (1280, 720)
        im = Image.new("RGB", (W, H), (235, 235, 235)); dr = ImageDraw.Draw(im)
        dr.rectangle([0, 0, W, 40], fill=(60, 60, 90))
        x, y = 50 + (k * 97) % (W - 200), 80 + (k * 61) % (H - 160)
        w, h = 16 + k % 5 * 12, 12 + k % 3 * 8
        dr.rectangle([x, y, x + w, y + h], fill=(200, 40, 40)); dr.text((x + 2, y + 1), f"b{k}", fill="white")
        fn = f"img_{k:02d}.png"; im.save(d / fn)
        r = {"id": f"s{k:02d}", "img_filename": fn, "instruction": f"click button b{k}", "img_size": [W, H],
             "group": ["Dev", "Creative", "Office"][k % 3], "application": ["vscode", "gimp", "word", "excel"][k % 4],
             "ui_type": ["text", "icon"][k % 2], "platform": "linux"}
        if k % 10 == 7: r.update(box_type="refusal", instruction="click the button that is not there")
        elif k % 10 == 3: r.update(box_type="polygon", polygon=[[x, y], [x + w, y], [x + w, y + h], [x + w // 2, y + h + 10], [x, y + h]])
        else: r["bbox"] = [x, y, x + w, y + h]
        recs.append(r)
    f = d / "data.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return f


@pytest.fixture()
def env(tmp_path):
    (tmp_path / "slowagent.py").write_text(AGENT)
    e = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return tmp_path, make_data(tmp_path), e


def cmd(data, out, delay, extra=()):
    return [GUILAB, "grounding", "eval", "--data", str(data), "--agent", "slowagent:make", "--out", str(out), "--seed", "5",
            "--workers", "3", "--quiet", "--agent-opt", f"delay={delay}", *extra]


def lines(p: Path) -> int:
    return p.read_bytes().count(b"\n") if p.exists() else 0


def kill_when(proc, path: Path, at_least: int, timeout: float = 60):
    t = time.time()
    while time.time() - t < timeout and lines(path) < at_least and proc.poll() is None: time.sleep(0.005)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL); proc.wait()


def untimed(recs):
    return {r["id"]: {k: v for k, v in r.items() if k != "wall_s"} for r in recs}


def test_sigkill_then_resume_identical(env):
    d, data, e = env
    ref = d / "ref"
    subprocess.run(cmd(data, ref, 0.1), env=e, check=True, capture_output=True)
    ref_sum = json.loads((ref / "summary.json").read_text())
    assert ref_sum["complete"] and ref_sum["n_ok"] == N
    m = ref_sum["metrics"]["overall"]
    assert 0 < m["correct"] < N and m["format_errors"] > 0 and m["refusal_correct"] > 0   # the agent mixes behaviours
    assert ref_sum["format_errors"] == 3 * m["format_errors"]                               # every garbage turn counted

    out = d / "killed"; res = out / "episodes.jsonl"
    p = subprocess.Popen(cmd(data, out, 0.1), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(p, res, 12)
    with open(res, "ab") as f: f.write(b'{"id": "s99", "status": "o')      # a write cut by the kill
    partial = read_jsonl(res)
    assert 0 < len(partial) < N and not (out / "summary.json").exists()
    r = subprocess.run(cmd(data, out, 0.1), env=e, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "action_acc" in r.stdout
    recs = read_jsonl(res)
    ids = [x["id"] for x in recs]
    assert len(ids) == N and sorted(ids) == [f"s{k:02d}" for k in range(N)]          # none lost, none duplicated
    got = json.loads((out / "summary.json").read_text())
    assert got["metrics"] == ref_sum["metrics"] and got["complete"]
    # records are identical too (but for their wall time), whatever worker or run produced them
    assert untimed(recs) == untimed(read_jsonl(ref / "episodes.jsonl"))
    # read back in task order
    assert [x["id"] for x in read_episodes(out)] == [f"s{k:02d}" for k in range(N)]


def test_sharded_kill_resume_merge(env):
    d, data, e = env
    ref = evaluate("grounding", "oracle", d / "ref_oracle", settings={"data": str(data)}, seed=5, progress=False)
    assert ref["metrics"]["overall"]["action_acc"] == 1.0      # the oracle is right on bbox, polygon and refusal items
    full = d / "full"
    subprocess.run(cmd(data, full, 0.0, ["--workers", "1"]), env=e, check=True, capture_output=True)
    out = d / "sharded"
    subprocess.run(cmd(data, out, 0.1, ["--shard", "0/2"]), env=e, check=True, capture_output=True)
    p = subprocess.Popen(cmd(data, out, 0.1, ["--shard", "1/2"]), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(p, out / "episodes-1-of-2.jsonl", 5)
    with pytest.raises(ValueError, match="shard 1/2 is incomplete"): merge(out)
    # resuming with a different configuration is refused
    r = subprocess.run(cmd(data, out, 0.1, ["--shard", "1/2", "--seed", "6"]), env=e, capture_output=True, text=True)
    assert r.returncode == 2 and "other settings" in r.stderr and "seed" in r.stderr
    subprocess.run(cmd(data, out, 0.1, ["--shard", "1/2"]), env=e, check=True, capture_output=True)
    r = subprocess.run([GUILAB, "grounding", "merge", "--out", str(out)], env=e, capture_output=True, text=True, check=True)
    merged = json.loads((out / "summary.json").read_text())
    assert merged["complete"] and merged["n_ok"] == N
    assert merged["metrics"] == json.loads((full / "summary.json").read_text())["metrics"]
    s0, s1 = read_jsonl(out / "episodes-0-of-2.jsonl"), read_jsonl(out / "episodes-1-of-2.jsonl")
    assert len(s0) == 30 and len(s1) == 30 and not ({x["id"] for x in s0} & {x["id"] for x in s1})
    scored = lambda rs: [(r["id"], r["seed"], r["score"], r["episode"]) for r in rs]   # delay 0 there: another spec
    assert scored(read_episodes(out)) == scored(read_episodes(full))


def test_failed_episodes_are_recorded_not_scored_and_retried(env):
    d, data, _ = env
    samples = load_samples(data)[:12]
    from guilab.grounding.baselines import ZoomOracleAgent
    from guilab.agents.base import PRIVILEGED
    broken = {"s03", "s08"}
    class Flaky(ZoomOracleAgent):
        def new_policy(self, obs, info):
            if info[PRIVILEGED]["sample"].id in broken: raise ConnectionError("endpoint down")
            return super().new_policy(obs, info)
    with pytest.raises(EvaluationError, match="2 of 12 episodes failed") as ei:
        evaluate(GroundingBench(samples=samples), Flaky, d / "flaky", workers=2, progress=False)
    s = ei.value.summary
    assert (s["n_ok"], s["n_error"], s["complete"]) == (10, 2, False)
    assert sorted(x["id"] for x in s["errors"]) == ["s03", "s08"] and "endpoint down" in s["errors"][0]["error"]
    assert s["metrics"]["overall"]["n"] == 10                  # errors are never scored
    assert sorted(r["id"] for r in read_episodes(d / "flaky", status="error")) == ["s03", "s08"]
    broken.clear()                                  # the endpoint is back: the same call finishes the run
    s = evaluate(GroundingBench(samples=samples), Flaky, d / "flaky", workers=2, progress=False)
    assert s["complete"] and s["n_ok"] == 12 and s["n_error"] == 0 and s["metrics"]["overall"]["action_acc"] == 1.0
    assert [r["id"] for r in read_episodes(d / "flaky", status=None)] == [x.id for x in samples]
