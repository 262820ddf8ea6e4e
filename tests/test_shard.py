"""Issue 17 (scale out): PAGE Bench builds and evaluations split with `--shard K/N` and joined by `guilab merge`
give the files one machine writes.

Comparisons: an evaluation (`guilab.bench.evaluate`, issue 33) is compared record for record and metric for metric
(scripted agents seed each problem by its id; episode records carry their wall time). A build is compared record for record without the per-problem timing fields `seconds` and
`png_bytes` (the latter counts the screenshot bytes this worker wrote: a screen another shard stored first costs
nothing), and its statistics without `seconds`, `wall_seconds`, `built_now` and `workers`."""
import json, shutil, subprocess
from pathlib import Path
import pytest
from conftest import GUILAB
from guilab.core import read_jsonl
from guilab.pagebench.problems import load_problems
from guilab.pagebench.build import build, merge_build, RUN_KEYS
from guilab.bench import evaluate, merge, read_episodes
from guilab.pagebench.evaluate import PageBench, page_records

TIMING = RUN_KEYS   # the per-record fields about the run that built it (guilab.pagebench.build)
STATS_TIMING = ("seconds", "wall_seconds", "built_now", "workers")


def untimed(f):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in read_jsonl(f)]


def stats(folder):
    return {k: v for k, v in json.loads((folder / "build.json").read_text())["stats"].items() if k not in STATS_TIMING}


@pytest.fixture(scope="module")
def problems():
    return load_problems("generated:12:0")


@pytest.fixture(scope="module")
def single(tmp_path_factory, problems):
    out = tmp_path_factory.mktemp("single")
    build(problems, out, screenshots=False, progress=False)
    return out


@pytest.fixture(scope="module")
def sharded(tmp_path_factory, problems):
    out = tmp_path_factory.mktemp("sharded")
    for i in (1, 2, 0): build(problems, out, screenshots=False, progress=False, shard=(i, 3))
    merge_build(out)
    return out


def test_three_build_shards_merge_to_one_run(single, sharded, problems):
    assert untimed(sharded / "trajectories.jsonl") == untimed(single / "trajectories.jsonl")
    assert [r["id"] for r in read_jsonl(sharded / "trajectories.jsonl")] == [p.id for p in problems]
    assert stats(sharded) == stats(single)
    assert (sharded / "problems.jsonl").read_bytes() == (single / "problems.jsonl").read_bytes()
    assert json.loads((sharded / "build.json").read_text())["manifest"]["merged_from"] == [f"build-{i}-of-3.json" for i in range(3)]
    # the merged folder is a build folder like any other: an evaluation on it is the single run's, byte for byte
    a, b = (evaluate(PageBench(data=d, split="all"), "oracle", d / "eval", progress=False) for d in (single, sharded))
    assert a["metrics"] == b["metrics"] and page_records(single / "eval") == page_records(sharded / "eval")


@pytest.mark.parametrize("agent,opts", [("oracle", {}), ("random", {"seed": 3})])
def test_three_eval_shards_merge_to_one_run(single, tmp_path, agent, opts):
    bm = PageBench(data=single, split="all")
    one = evaluate(bm, agent, tmp_path / "one", agent_options=opts, progress=False)
    for i in (2, 1, 0): evaluate(bm, agent, tmp_path / "sh", shard=f"{i}/3", agent_options=opts, progress=False)
    res = merge(tmp_path / "sh")
    assert res["metrics"]["problems"] == 12 and res["metrics"] == one["metrics"]
    strip = lambda rs: [{k: v for k, v in r.items() if k != "wall_s"} for r in rs]
    assert strip(read_episodes(tmp_path / "sh")) == strip(read_episodes(tmp_path / "one"))


def test_concurrent_cli_shards_with_screenshots(tmp_path):
    """Three `guilab pagebench build --shard K/3` processes at once on one folder (as a Slurm array on a shared file
    system), with screenshots; `guilab merge` joins them and every screenshot a record names exists."""
    probs = load_problems("euclid")[:3]
    build(probs, tmp_path / "one", progress=False)
    out = tmp_path / "sh"
    cmd = [GUILAB, "pagebench", "build", "--problems", "euclid", "--limit", "3", "--out", str(out), "--quiet"]
    procs = [subprocess.Popen(cmd + ["--shard", f"{k}/3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(3)]
    for p in procs:
        o, e = p.communicate(timeout=300)
        assert p.returncode == 0, e
        assert "guilab merge" in o
    r = subprocess.run([GUILAB, "merge", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "merged pagebench build" in r.stdout and "3 problems, 3 kept" in r.stdout
    assert untimed(out / "trajectories.jsonl") == untimed(tmp_path / "one" / "trajectories.jsonl")
    shots = {s["screenshot"] for t in read_jsonl(out / "trajectories.jsonl") for task in t["tasks"] for s in task["steps"]}
    assert shots and all((out / s).is_file() for s in shots)


def test_a_killed_shard_resumes_and_then_merges(single, problems, tmp_path):
    for i in range(3): build(problems, tmp_path, screenshots=False, progress=False, shard=(i, 3))
    f = tmp_path / "trajectories-1-of-3.jsonl"
    lines = f.read_text().splitlines(keepends=True)
    f.write_text("".join(lines[:2]) + lines[2][:40])                     # killed mid-record
    with pytest.raises(ValueError, match=r"shard 1/3 is incomplete: 2 of 4"):
        merge_build(tmp_path)
    assert build(problems, tmp_path, screenshots=False, progress=False, shard=(1, 3))["built_now"] == 2
    merge_build(tmp_path)
    assert untimed(tmp_path / "trajectories.jsonl") == untimed(single / "trajectories.jsonl")


def test_build_merge_errors(problems, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for i in (0, 2): build(problems, a, screenshots=False, progress=False, shard=(i, 3))
    with pytest.raises(ValueError, match=r"shard\(s\) 1/3 missing"):
        merge_build(a)
    build(problems, b, seed=1, screenshots=False, progress=False, shard=(1, 3))     # on another machine, another seed
    for f in ("build-1-of-3.json", "trajectories-1-of-3.jsonl"): shutil.copy(b / f, a / f)
    with pytest.raises(ValueError, match="differ in settings"):
        merge_build(a)
    build(problems[:9], b / "short", screenshots=False, progress=False, shard=(1, 3))   # another problem list (--limit 9)
    for f in ("build-1-of-3.json", "trajectories-1-of-3.jsonl"): shutil.copy(b / "short" / f, a / f)
    with pytest.raises(ValueError, match="differ in ids_sha256, n_total"):
        merge_build(a)
    (a / "build-1-of-3.json").unlink(); (a / "trajectories-1-of-3.jsonl").unlink()
    build(problems, a, screenshots=False, progress=False, shard=(1, 3))
    t2 = a / "trajectories-2-of-3.jsonl"
    t2.write_text(t2.read_text() + (a / "trajectories-0-of-3.jsonl").read_text().splitlines(keepends=True)[0])
    with pytest.raises(ValueError, match="appears twice"):
        merge_build(a)
    with pytest.raises(ValueError, match="another count"):
        build(problems, a, screenshots=False, progress=False, shard=(0, 2))
    with pytest.raises(FileNotFoundError, match="not a sharded build"):
        merge_build(tmp_path / "empty")


def test_eval_merge_errors(single, tmp_path):
    out, bm = tmp_path / "r", PageBench(data=single, split="all")
    for i in (0, 1): evaluate(bm, "oracle", out, shard=(i, 3), progress=False)
    with pytest.raises(ValueError, match=r"shard\(s\) 2/3 missing"):
        merge(out)
    with pytest.raises(ValueError, match="differs in agent"):                      # another agent in the run's folder
        evaluate(bm, "noisy_oracle", out, shard=(2, 3), agent_options={"sigma": 2}, progress=False)
    with pytest.raises(ValueError, match="differs in limit"):                      # another --limit
        evaluate(bm, "oracle", out, shard=(2, 3), limit=11, progress=False)
    evaluate(bm, "oracle", out, shard=(2, 3), progress=False)
    with pytest.raises(ValueError, match="differs in shard_count"):               # a folder holds one run
        evaluate(bm, "oracle", out, shard=(0, 2), progress=False)
    rec = out / "episodes-1-of-3.jsonl"
    rec.write_text("".join(rec.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(ValueError, match="shard 1/3 is incomplete"):
        merge(out)
    r = subprocess.run([GUILAB, "merge", str(tmp_path / "nothing-here")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no such file or folder" in r.stderr, r.stderr
