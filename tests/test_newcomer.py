"""What a newcomer hit on a fresh clone with the README only: each item is a test of its exit code and the one line it
prints. An agent that does not import, an option of the wrong kind, a pixel agent in GraceBench's UTG replay, Ctrl-C,
`--limit`, the results table, `guilab reproduce --only X --out DIR`, the gallery header's commit, and the served
checkpoint recipe (`guilab train sft` → `guilab serve`)."""
import json, os, re, signal, subprocess, time, urllib.request
from pathlib import Path
import pytest
from conftest import GUILAB, ROOT

from test_bench import user_module   # noqa: F401  (the fixture: mymod.py with MyAgent, a pixel agent, and SlowAgent)


def guilab(*args, cwd=ROOT, timeout=600):
    return subprocess.run([GUILAB, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _as_from_a_terminal():
    """`preexec_fn` for a child that is sent SIGINT as Ctrl-C would: default disposition, not blocked. A child inherits
    an ignored SIGINT and the signal mask from this process; in one full-suite run (2026-12-07, clean clone, pytest
    started in the background) both Ctrl-C tests failed as if SIGINT were ignored (exit 0 after SIGINT; `guilab serve`
    still up 60 s later) while they pass alone, so the child's state is set here, not inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _sigint_state() -> str:
    "This process's SIGINT disposition and whether it is blocked (for a failure message)."
    return f"parent SIGINT handler {signal.getsignal(signal.SIGINT)!r}, blocked {signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])}"


@pytest.mark.parametrize("agent,line", [
    ("mymod:MyAgnt", "guilab eval: error: cannot import 'mymod:MyAgnt': mymod has no attribute 'MyAgnt'; did you mean 'MyAgent'?"),
    ("nomod:MyAgent", "guilab eval: error: cannot import 'nomod:MyAgent': no module named 'nomod' (run from the folder that "
                      "holds nomod.py, or add that folder to PYTHONPATH)"),
])
def test_agent_that_does_not_import_is_one_line_and_exit_2(agent, line, user_module, tmp_path):
    r = guilab("eval", "gracebench", "--agent", agent, "--out", str(tmp_path / "run"), "--limit", "1", "--quiet", cwd=user_module)
    assert (r.returncode, r.stderr.strip().splitlines()) == (2, [line]), r.stderr
    assert not (tmp_path / "run").exists()   # nothing written before the agent is built


def test_namespaced_agent_typo_gets_a_suggestion(tmp_path):
    r = guilab("eval", "gracebench", "--agent", "stability/oracel", "--out", str(tmp_path / "run"), "--limit", "1", "--quiet")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "did you mean 'oracle'?" in r.stderr, r.stderr


@pytest.mark.parametrize("agent,option,line", [
    ("random", "seed=abc", "guilab eval: error: stability/random: seed: expected int, got 'abc'"),
    ("noisy_oracle", "epsilon=lots", "guilab eval: error: stability/noisy_oracle: epsilon: expected float, got 'lots'"),
])
def test_option_of_the_wrong_kind_is_one_line_and_exit_2(agent, option, line, tmp_path):
    r = guilab("eval", "gracebench", "--agent", agent, "--option", option, "--out", str(tmp_path / "run"), "--limit", "1", "--quiet")
    assert (r.returncode, r.stderr.strip().splitlines()) == (2, [line]), r.stderr


def test_pixel_agent_in_utg_replay_is_warned_once(user_module, tmp_path):
    "GraceBench's default mode replays the UTG with no screenshots: a pixel agent is told so, once, and how to act there."
    r = guilab("eval", "gracebench", "--agent", "mymod:MyAgent", "--out", str(tmp_path / "run"), "--limit", "1", "--quiet", cwd=user_module)
    warns = [l for l in r.stderr.splitlines() if l.startswith("warning:")]
    assert r.returncode == 0 and len(warns) == 1, r.stderr
    assert "mode=utg" in warns[0] and "{'type': 'click', 'element': ID}" in warns[0] and "mode=online" in warns[0]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["warnings"][0] == warns[0][len("warning: "):]
    r = guilab("eval", "gracebench", "--agent", "oracle", "--out", str(tmp_path / "oracle"), "--limit", "1", "--quiet")
    assert r.returncode == 0 and "warning:" not in r.stderr   # an element agent is not warned


def test_ctrl_c_is_one_line_exit_130_and_the_rerun_resumes(user_module, tmp_path):
    out = tmp_path / "run"
    cmd = [GUILAB, "eval", "gracebench", "--agent", "mymod:SlowAgent", "--out", str(out), "--limit", "30", "--quiet"]
    p = subprocess.Popen(cmd, cwd=user_module, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
    eps, t0 = out / "episodes.jsonl", time.time()
    while not (eps.is_file() and len(eps.read_text().splitlines()) >= 2) and time.time() - t0 < 120: time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err, (p.returncode, err, _sigint_state())
    assert err.strip().splitlines()[-1] == "guilab eval: interrupted; what finished is kept: run the same command again to resume", err
    kept = len(eps.read_text().splitlines())
    assert 2 <= kept < 60
    r = subprocess.run(cmd, cwd=user_module, capture_output=True, text=True, timeout=300)
    ids = [json.loads(l)["id"] for l in eps.read_text().splitlines()]
    assert r.returncode == 0 and len(ids) == len(set(ids)) == 60, r.stderr   # 30 tasks × 2 conditions, none twice


def test_limit_counts_tasks_on_every_benchmark(tmp_path):
    "`--limit N`: N tasks on every benchmark (a GraceBench task in both its conditions, a PAGE Bench problem)."
    r = guilab("eval", "gracebench", "--agent", "oracle", "--out", str(tmp_path / "g"), "--limit", "2", "--quiet", "--json")
    def strict(c): raise ValueError(f"not strict JSON: {c}")
    s = json.loads(r.stdout, parse_constant=strict)   # stdout is one JSON document: no NaN, no trailing line
    assert s["episodes"] == str(tmp_path / "g" / "episodes.jsonl") and s["metrics"]["LBR"] is None
    ids = [json.loads(l)["id"] for l in (tmp_path / "g" / "episodes.jsonl").read_text().splitlines()]
    assert r.returncode == 0 and s["n_tasks"] == 4 and len({i.split("|")[0] for i in ids}) == 2, r.stderr
    r = guilab("eval", "pagebench", "--agent", "oracle", "--out", str(tmp_path / "p"), "--limit", "2", "--quiet", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["metrics"]["problems"] == 2, r.stderr


def test_eval_prints_a_headline_and_a_results_table(tmp_path):
    r = guilab("eval", "gracebench", "--agent", "oracle", "--out", str(tmp_path / "g"), "--limit", "2", "--quiet")
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and re.fullmatch(r"gracebench · stability/oracle · 4 of 4 episodes ok · \d+ actions, 0 format errors · [\d.]+ s", lines[0]), r.stdout
    assert lines[1].startswith("| group ") and lines[3].startswith("| all ") and "1.000" in lines[3]
    assert {l.split("|")[1].strip() for l in lines[3:6]} == {"all", "concise", "detailed"}
    assert lines[-1] == f"episodes: {tmp_path / 'g' / 'episodes.jsonl'}" and "{" not in r.stdout


def test_reproduce_only_judges_what_ran_into_the_folder(tmp_path):
    "`guilab reproduce --only X --out DIR`: no red line for the claims of notebooks it was not asked to run."
    from guilab.claims import load_claims
    import pandas as pd
    out = tmp_path / "rep"
    r = guilab("reproduce", "--params", "params/smoke.yaml", "--only", "00_reported", "--out", str(out), "--quiet")
    assert r.returncode == 0 and "✗" not in r.stdout + r.stderr, r.stdout[-2000:] + r.stderr[-2000:]
    others = sum(c["notebook"] != "00_reported" for c in load_claims())
    assert f"· {others} claims belong to notebooks never run into {out}: not judged there" in r.stdout, r.stdout[-2000:]
    cl = pd.read_csv(out / "claims.csv", dtype=str, keep_default_na=False)
    assert set(cl["notebook"]) <= {"00_reported"} and not (cl["verdict"] == "error").any()


def test_gallery_header_names_the_commit_the_stages_ran_from():
    "The committed gallery's header, each stage's line and the performance page's Time paragraph name the one commit the stages ran from."
    from guilab.reproduce import stages_commit_text
    man = json.loads((ROOT / "figures" / "manifest.json").read_text())
    commits = {e["git"]["commit"] for e in man["notebooks"].values()}
    assert len(commits) == 1 and not any(e["git"].get("dirty") for e in man["notebooks"].values())
    sha = commits.pop()
    html = (ROOT / "figures" / "index.html").read_text()
    assert stages_commit_text(man) == f"commit {sha[:8]}, all {len(man['notebooks'])} stages" and stages_commit_text(man) in html
    assert set(re.findall(r"commit ([0-9a-f]{7,40})", html)) == {sha[:8]}
    perf = (ROOT / "docs" / "performance.md").read_text()
    time_par = next(l for l in perf.splitlines() if l.startswith("**Time**"))
    assert f"clean checkout of {sha[:7]}" in time_par


def test_served_checkpoint_recipe(tmp_path):
    """docs/gpus-and-endpoints.md "Evaluate a checkpoint": `guilab train sft --config params/smoke.yaml` prints the checkpoint folder the
    recipe's `ls -d runs/smoke/train/sft-*` finds, and `guilab serve` of it answers `GET /v1/models` (plain
    `transformers serve` answers 500 without a hub cache); Ctrl-C stops it with one line and exit 0."""
    page = (ROOT / "docs" / "gpus-and-endpoints.md").read_text()
    assert "CKPT=$(ls -d $PWD/runs/smoke/train/sft-* | head -1)" in page and "guilab serve $CKPT" in page
    assert not any("runs/train/sft" in p.read_text() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    small = ["train.data.problems=[generated:3:0]", "train.model.image_size=224", "train.model.loc_bins=32", "train.copy_warmup=null",
             "train.sft.max_examples=8", "train.sft.per_device_train_batch_size=4", "train.sft.max_steps=2"]
    r = guilab("train", "sft", "--config", "params/smoke.yaml", "--quiet", "--set", f"train.runs_dir={tmp_path}", *small, timeout=900)
    ckpt = Path(r.stdout.split("sft: ")[1].split()[0])
    assert r.returncode == 0 and ckpt.parent == tmp_path and re.fullmatch(r"sft-[0-9a-f]+", ckpt.name), r.stdout[-2000:]
    from guilab.agents.policies import free_port
    port = free_port("127.0.0.1")
    p = subprocess.Popen([GUILAB, "serve", str(ckpt), "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_as_from_a_terminal)
    try:
        first = p.stdout.readline().strip()   # printed once the server answers
        assert first == f"serving {ckpt}", first + p.stderr.read()[-2000:] if p.poll() is not None else first
        line = p.stdout.readline().strip()
        assert line == f"base_url=http://127.0.0.1:{port}/v1 model={ckpt}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=30) as resp:
            assert resp.status == 200 and json.loads(resp.read())["object"] == "list"
    finally:
        p.send_signal(signal.SIGINT)
        try: _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired: p.kill(); p.communicate(); raise AssertionError(f"guilab serve still up 60 s after SIGINT; {_sigint_state()}")
    assert p.returncode == 0 and err.strip().splitlines()[-1:] == ["guilab serve: stopped"], err
