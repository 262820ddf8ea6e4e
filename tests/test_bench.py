"""Issue 33, one harness: a user's agent class, written once in a module outside the package, runs on all four
benchmarks through `guilab eval BENCHMARK --agent mymod:MyAgent` and through `guilab.bench.evaluate`; it never
receives the privileged part of the env's info. A model that only emits garbage (a random-weight tiny VLM served by
`transformers serve`, the real endpoint path) is counted as format errors with a warning on every benchmark, and
nothing listening at the endpoint exits non-zero with one line and no scored episode on every benchmark."""
import json, subprocess, sys, textwrap
from pathlib import Path
import pytest
from conftest import GUILAB, ROOT
from guilab.browser import chromium_available

BENCHMARKS = {   # benchmark -> (limit, extra CLI settings): small runs, each a few seconds (VLAA: a real browser)
    "pagebench": (2, []),
    "grounding": (3, []),
    "gracebench": (1, ["--setting", "budget=3"]),   # --limit counts tasks: one GraceBench task is two episodes (concise, detailed)
    "vlaa": (1, ["--setting", "budget=3", "ids=[set-theme-dark]", "save_screens=false"]),
}
needs_browser = pytest.mark.skipif(not chromium_available(), reason="Chromium/Playwright missing (make setup installs them)")

MYMOD = textwrap.dedent('''
    """A user's agent, outside guilab: clicks the middle of the screen once, then says done."""
    import json, os
    from guilab.agents.base import Agent, PRIVILEGED

    class MyAgent(Agent):
        def reset(self, obs=None, info=None):
            self.k = 0
            seen = os.environ.get("MYAGENT_SEEN")
            if seen:   # what this agent was handed at reset, for the test to read
                with open(seen, "a") as f: f.write(json.dumps({"info": sorted(info or {}), "obs": sorted(obs or {})}) + "\\n")
        def act(self, obs):
            self.k += 1
            shot = obs.get("screenshot")
            if self.k == 1 and shot is not None:
                h, w = shot.shape[:2]
                return {"type": "click", "x": w / 2, "y": h / 2}
            return {"type": "done"}

    class SlowAgent(Agent):
        """A text agent that thinks 0.3 s, then says done (tests/test_newcomer.py interrupts it)."""
        needs_screenshot = False
        def act(self, obs):
            import time
            time.sleep(0.3)
            return {"type": "done"}
''')


@pytest.fixture(scope="module")
def user_module(tmp_path_factory):
    d = tmp_path_factory.mktemp("user")
    (d / "mymod.py").write_text(MYMOD)
    return d


def _params(bench):
    if bench == "vlaa" and not chromium_available(): pytest.skip("VLAA needs Chromium (make setup installs it)")
    return BENCHMARKS[bench]


def _episodes(bench, limit):
    "Episodes of a `--limit` run: GraceBench runs each task in both conditions."
    return 2 * limit if bench == "gracebench" else limit


@pytest.mark.parametrize("bench", list(BENCHMARKS))
def test_user_agent_class_runs_through_the_cli(bench, user_module, tmp_path):
    limit, extra = _params(bench)
    seen = tmp_path / "seen.jsonl"
    r = subprocess.run([GUILAB, "eval", bench, "--agent", "mymod:MyAgent", "--out", str(tmp_path / "run"), "--limit", str(limit),
                        "--quiet", *extra], cwd=user_module, capture_output=True, text=True, timeout=600,
                       env={**__import__("os").environ, "MYAGENT_SEEN": str(seen)})
    assert r.returncode == 0, r.stderr[-3000:]
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (s["benchmark"], s["n_ok"], s["n_error"], s["agent"]["entry_point"]) == (bench, _episodes(bench, limit), 0, "mymod:MyAgent")
    assert s["metrics"] is not None   # (GraceBench replays the UTG without stored screens: there the agent sees no screenshot)
    resets = [json.loads(l) for l in seen.read_text().splitlines()]
    assert len(resets) == _episodes(bench, limit) and all("privileged" not in x["info"] for x in resets), resets
    assert all({"instruction", "screenshot"} <= set(x["obs"]) for x in resets), resets


@pytest.mark.parametrize("bench", list(BENCHMARKS))
def test_user_agent_class_runs_through_python(bench, user_module, tmp_path, monkeypatch):
    limit, extra = _params(bench)
    monkeypatch.syspath_prepend(str(user_module))
    from guilab.agents.base import parse_options
    from guilab.bench import evaluate, read_episodes
    import mymod
    settings = parse_options([x for x in extra if x != "--setting"])
    s = evaluate(bench, mymod.MyAgent(), tmp_path / "run", limit=limit, settings=settings, progress=False)
    assert (s["n_ok"], s["n_error"]) == (_episodes(bench, limit), 0)
    eps = read_episodes(tmp_path / "run")
    assert [e["status"] for e in eps] == ["ok"] * _episodes(bench, limit) and all(e["benchmark"] == bench for e in eps)
    with pytest.raises(ValueError, match="differs in agent"):          # a folder holds one run
        evaluate(bench, "probe/leak", tmp_path / "run", limit=limit, settings=settings, progress=False)


@pytest.mark.parametrize("bench", list(BENCHMARKS))
def test_unreachable_endpoint_exits_nonzero_with_one_line(bench, tmp_path):
    limit, extra = _params(bench)
    r = subprocess.run([GUILAB, "eval", bench, "--agent", "model", "--option", "base_url=http://127.0.0.1:9/v1", "model=x",
                        "max_tokens=8", "--out", str(tmp_path / "run"),
                        "--limit", str(limit), "--quiet", *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    utg = "warning: gracebench: mode=utg"   # a screenshot agent in GraceBench's UTG replay is told it sees no screenshot (tests/test_newcomer.py)
    lines = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith(utg)]
    assert r.returncode != 0 and len(lines) == 1 and "127.0.0.1:9" in lines[0], r.stderr[-3000:]
    eps = [json.loads(l) for l in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()] if (tmp_path / "run" / "episodes.jsonl").exists() else []
    assert not [e for e in eps if e["status"] == "ok"], eps


@pytest.fixture(scope="module")
def garbage_endpoint(tmp_path_factory):
    "A random-weight tiny VLM behind `transformers serve`: a real model that only emits garbage."
    from guilab.agents.policies import serve_transformers
    from guilab.agents.tiny import build_tiny_vlm
    d = build_tiny_vlm(tmp_path_factory.mktemp("garbage") / "tiny", seed=5, tie_embeddings=False)
    with serve_transformers(d) as url: yield url, str(d)


@pytest.mark.parametrize("bench", list(BENCHMARKS))
def test_garbage_model_gets_a_format_error_count_and_a_warning(bench, garbage_endpoint, tmp_path):
    limit, extra = _params(bench)
    url, model = garbage_endpoint
    r = subprocess.run([GUILAB, "eval", bench, "--agent", "model", "--option", f"base_url={url}", f"model={model}", "max_tokens=8",
                        "--out", str(tmp_path / "run"), "--limit", "1", "--quiet", *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["n_ok"] == _episodes(bench, 1) and s["format_errors"] > s["n_actions"] / 2, s
    assert "were format errors" in r.stderr and any("format errors" in w for w in s["warnings"]), r.stderr[-2000:]


def _example_commands() -> dict:
    "benchmark -> the argv of the `guilab eval` command examples/my_agent.py's docstring gives for it."
    import ast
    doc = ast.get_docstring(ast.parse((ROOT / "examples" / "my_agent.py").read_text()))
    cmds = [l.split() for l in doc.splitlines() if l.strip().startswith("../.venv/bin/guilab eval ")]
    return {c[2]: c[1:] for c in cmds}


def test_example_agent_docstring_names_every_benchmark():
    assert sorted(_example_commands()) == sorted(BENCHMARKS)


@pytest.mark.parametrize("bench", list(BENCHMARKS))
def test_example_agent_runs_on_every_benchmark(bench, tmp_path):
    """The example agent of the docs (`examples/my_agent.py`), run from its folder by the command its docstring gives
    (the run folder moved to tmp): exit 0, every episode ok, the results table printed, no warning."""
    _params(bench)   # VLAA: skipped without Chromium
    argv = _example_commands()[bench]
    argv[argv.index("--out") + 1] = str(tmp_path / "run")
    r = subprocess.run([GUILAB, *argv, "--quiet"], cwd=ROOT / "examples", capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr[-3000:]
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["n_ok"] == s["n_tasks"] > 0 and s["agent"]["entry_point"] == "my_agent:WordMatchAgent"
    assert r.stdout.startswith(f"{bench} · my_agent:WordMatchAgent · {s['n_ok']} of {s['n_tasks']} episodes ok"), r.stdout[:500]
