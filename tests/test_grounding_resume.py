"""Resumable, sharded grounding evaluation: `guilab grounding eval` is killed with SIGKILL mid-run and resumed with
the same command; the final metrics equal those of an uninterrupted run and no record is lost or duplicated."""
import json, os, signal, subprocess, sys, textwrap, time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guilab.core import read_jsonl
from guilab.grounding.evaluate import load_samples, evaluate, merge_shards

GUILAB = str(Path(sys.executable).parent / "guilab")
N = 60

# A slow scripted agent (importable as slowagent:make): per-sample behaviour chosen from the sample's seed, so the
# records cover right answers with nested crops, random answers, format errors and refusals.
AGENT = textwrap.dedent('''
    import time
    from guilab.grounding.baselines import policy_agent, oracle_in_crop, random_policy

    class Garbage:
        wants_images = False
        def __call__(self, messages): return "I am not sure what to do."

    def make_policy(sample, seed, session):
        mode = seed % 4
        if mode == 0: return oracle_in_crop(sample, seed, session, n_crops=2)
        if mode == 1: return random_policy(sample, seed, session, p_crop=0.7, p_refuse=0.2)
        if mode == 2: return Garbage()
        return oracle_in_crop(sample, seed, session, n_crops=0)

    def make(delay=0.1):
        inner = policy_agent(make_policy, name="slow")
        def agent(sample, image, seed):
            time.sleep(delay)
            return inner(sample, image, seed)
        return agent
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


def test_sigkill_then_resume_identical(env):
    d, data, e = env
    ref = d / "ref"
    subprocess.run(cmd(data, ref, 0.1), env=e, check=True, capture_output=True)
    ref_metrics = json.loads((ref / "metrics.json").read_text())
    assert ref_metrics["complete"] and ref_metrics["n_done"] == N
    m = ref_metrics["metrics"]["overall"]
    assert 0 < m["correct"] < N and m["format_errors"] > 0 and m["refusal_correct"] > 0   # the agent mixes behaviours

    out = d / "killed"; res = out / "results-0-of-1.jsonl"
    p = subprocess.Popen(cmd(data, out, 0.1), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(p, res, 12)
    with open(res, "ab") as f: f.write(b'{"id": "s99", "correct": tr')      # a write cut by the kill
    partial = read_jsonl(res)
    assert 0 < len(partial) < N and not (out / "metrics.json").exists()
    r = subprocess.run(cmd(data, out, 0.1), env=e, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "action_acc" in r.stdout
    recs = read_jsonl(res)
    ids = [x["id"] for x in recs]
    assert len(ids) == N and sorted(ids) == [f"s{k:02d}" for k in range(N)]          # none lost, none duplicated
    got = json.loads((out / "metrics.json").read_text())
    assert got["metrics"] == ref_metrics["metrics"] and got["complete"]
    # records are identical too, whatever worker or run produced them
    by_id = {x["id"]: x for x in read_jsonl(ref / "results-0-of-1.jsonl")}
    assert all(x == by_id[x["id"]] for x in recs)
    # merged results file is complete and sorted
    assert [x["id"] for x in read_jsonl(out / "results.jsonl")] == sorted(ids)


def test_sharded_kill_resume_merge(env):
    d, data, e = env
    ref = evaluate(load_samples(data), "oracle", d / "ref_oracle", seed=5)
    assert ref["metrics"]["overall"]["action_acc"] == 1.0      # the oracle is right on bbox, polygon and refusal items
    full = d / "full"
    subprocess.run(cmd(data, full, 0.0, ["--workers", "1"]), env=e, check=True, capture_output=True)
    out = d / "sharded"
    subprocess.run(cmd(data, out, 0.1, ["--shard", "0/2"]), env=e, check=True, capture_output=True)
    p = subprocess.Popen(cmd(data, out, 0.1, ["--shard", "1/2"]), env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_when(p, out / "results-1-of-2.jsonl", 5)
    assert merge_shards(out)["complete"] is False
    # resuming with a different configuration is refused
    r = subprocess.run(cmd(data, out, 0.1, ["--shard", "1/2", "--seed", "6"]), env=e, capture_output=True, text=True)
    assert r.returncode == 2 and "another configuration" in r.stderr
    subprocess.run(cmd(data, out, 0.1, ["--shard", "1/2"]), env=e, check=True, capture_output=True)
    r = subprocess.run([GUILAB, "grounding", "merge", "--out", str(out)], env=e, capture_output=True, text=True, check=True)
    merged = json.loads((out / "metrics.json").read_text())
    assert merged["complete"] and merged["n_done"] == N
    assert merged["metrics"] == json.loads((full / "metrics.json").read_text())["metrics"]
    s0, s1 = read_jsonl(out / "results-0-of-2.jsonl"), read_jsonl(out / "results-1-of-2.jsonl")
    assert len(s0) == 30 and len(s1) == 30 and not ({x["id"] for x in s0} & {x["id"] for x in s1})


def test_failed_samples_are_not_written_and_are_retried(env):
    d, data, _ = env
    samples = load_samples(data)[:12]
    from guilab.agents.base import make
    oracle, broken = make("grounding/oracle"), {"s03", "s08"}
    def flaky(sample, image, seed):
        if sample.id in broken: raise ConnectionError("endpoint down")
        return oracle(sample, image, seed)
    r = evaluate(samples, flaky, d / "flaky", agent_name="flaky", workers=2)
    assert [f["id"] for f in r["failed"]] == ["s03", "s08"] and "endpoint down" in r["failed"][0]["error"]
    assert r["n_done"] == 10 and not r["complete"]
    assert json.loads((d / "flaky" / "metrics.json").read_text())["complete"] is False
    broken.clear()                                  # the endpoint is back: the same call finishes the run
    r = evaluate(samples, flaky, d / "flaky", agent_name="flaky", workers=2)
    assert r["complete"] and r["n_done"] == 12 and r["failed"] == [] and r["metrics"]["overall"]["action_acc"] == 1.0
    assert sorted(x["id"] for x in read_jsonl(d / "flaky" / "results-0-of-1.jsonl")) == [s.id for s in samples]
