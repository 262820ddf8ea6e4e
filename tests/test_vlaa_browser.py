"""VLAA-GUI on a real JupyterLab (smoke-sized: the whole-suite oracle run is `guilab eval vlaa --agent oracle`,
reported in the notes of nbs/repro/vlaa_ablation.ipynb)."""
import json, os
from pathlib import Path

import pytest

from guilab.browser import CHROMIUM, chromium_available

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not chromium_available(), reason=f"Chromium not found at {CHROMIUM} or playwright missing")]

SMOKE = ["term-mkdir-results", "set-theme-dark", "nb-to-markdown", "fb-new-folder", "inf-solarized"]


FIXTURE_KEY = "sk-guilab-fixture-31337"


@pytest.fixture(scope="module")
def env():
    import os
    from guilab.browser import BrowserEnv
    old = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = FIXTURE_KEY
    e = BrowserEnv(max_steps=40)
    try:
        e.reset()
    finally:
        if old is None: os.environ.pop("OPENAI_API_KEY")
        else: os.environ["OPENAI_API_KEY"] = old
    yield e
    e.close()


def test_api_keys_never_reach_the_server(env):
    import psutil
    procs = [psutil.Process(env.proc.pid)] + psutil.Process(env.proc.pid).children(recursive=True)
    for p in procs:
        assert FIXTURE_KEY not in " ".join(f"{k}={v}" for k, v in p.environ().items())


def test_check_env_and_registration(env):
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env
    assert "guilab/JupyterLab-v0" in gym.registry and not gym.spec("guilab/JupyterLab-v0").nondeterministic
    env.spec = gym.spec("guilab/JupyterLab-v0")   # as gym.make gives it: check_env runs its determinism checks (they
    check_env(env, skip_render_check=True)        # failed under load while resets observed a layout still restoring)
    obs, _ = env.reset()
    assert obs["screenshot"].dtype.name == "uint8" and obs["screenshot"].shape == (800, 1280, 3)
    assert "menubar" in obs["a11y"] and obs["url"].endswith("/lab")


def test_the_task_is_privileged(env):
    """docs/what-an-agent-may-see.md: the observation carries the instruction; the task (reference solution, checker, authored criteria)
    is only under info[PRIVILEGED] at reset, and nothing public names it."""
    from guilab.agents.base import PRIVILEGED, public_info
    from guilab.vlaa.tasks import load_task_suite
    task = load_task_suite("jupyterlab", ids=["inf-solarized"])[0]
    obs, info = env.reset(options={"task": task})
    assert obs["instruction"] == task["instruction"] and info[PRIVILEGED] == {"task": task}
    public = json.dumps({k: v for k, v in obs.items() if k != "screenshot"}) + json.dumps(public_info(info))
    assert "inf-solarized" not in public and "trajectory" not in public


def test_actions_outside_the_workspace_are_refused_and_recorded(env):
    env.reset(options={"task": {"id": "guard", "config": [{"type": "file", "parameters": {"path": "keep.txt", "content": "x"}}]}})
    _, _, term, _, info = env.step({"type": "type", "text": "rm -rf /"})
    assert info["refused"] and not info["ok"] and not term
    env._run(env._palette, "Shut Down")          # File ▸ Shut Down (exact palette label), then confirm the dialog
    assert env.wait_until({"selector": ".jp-Dialog"}, 30), "the shutdown dialog did not open"
    env.step({"type": "key", "key": "Enter"})     # the step settles: no request of the page in flight after it
    kinds = [r["kind"] for r in env.refusals]
    assert "action" in kinds and any(r.get("path") == "/api/shutdown" for r in env.refusals), env.refusals
    assert env.proc.poll() is None and (env.root / "keep.txt").exists()   # the server and the workspace are untouched


def test_oracle_noop_lint_resume_and_guard(env, tmp_path, monkeypatch, capsys):
    """The suite through the one harness (guilab.bench.evaluate + VLAABench) on the shared browser: the lint passes,
    the oracle solves every task, a second run resumes, `noop` into the oracle's folder is refused naming the
    difference, and `noop` (with the verifier) solves none."""
    from guilab.bench import evaluate, read_episodes
    from guilab.cli import main
    from guilab.vlaa.tasks import load_task_suite
    from guilab.vlaa.evaluate import VLAABench, lint
    monkeypatch.setenv("OPENAI_API_KEY", "sk-guilab-secret-4242")
    tasks = load_task_suite("jupyterlab", ids=SMOKE)
    rows = lint(tasks, env=env, progress=False)
    assert all(r["ok"] for r in rows), rows
    s = evaluate(VLAABench(env=env, ids=SMOKE, budget=40), "oracle", tmp_path / "oracle", progress=False)
    recs = read_episodes(tmp_path / "oracle")
    assert s["metrics"]["success_rate"] == 100.0, [(r["id"], r["episode"]["ended_by"], r["episode"]["checker_parts"])
                                                   for r in recs if not r["score"]["success"]]
    assert {r["id"]: r["episode"]["ended_by"] for r in recs}["inf-solarized"] == "fail"
    s2 = evaluate(VLAABench(env=env, ids=SMOKE, budget=40), "oracle", tmp_path / "oracle", progress=False)   # resumes
    assert len((tmp_path / "oracle" / "episodes.jsonl").read_text().splitlines()) == len(tasks)
    assert s2["metrics"] == s["metrics"]
    capsys.readouterr()
    rc = main(["vlaa", "eval", "--agent", "noop", "--ids", ",".join(SMOKE), "--budget", "40",
               "--out", str(tmp_path / "oracle")])
    err = capsys.readouterr().err
    assert rc == 2 and "agent.name" in err and "settings." not in err, err          # refused, naming the difference
    noop = ["set-theme-dark", "inf-solarized"]   # a feasible and an infeasible task (the lint covers the rest)
    s = evaluate(VLAABench(env=env, ids=noop, tools="verifier"), "noop", tmp_path / "noop", progress=False)
    assert s["metrics"]["success_rate"] == 0.0
    st = recs[0]["episode"]["steps"][0]
    assert {"pre", "post", "pre_a11y", "post_a11y", "tool_calls", "changed"} <= set(st)
    assert (tmp_path / "oracle" / st["post"]).exists()
    for f in tmp_path.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".txt", ".log"):
            assert "sk-guilab-secret-4242" not in f.read_text(errors="replace"), f


def test_leak_probe_scores_at_chance(env, tmp_path):
    """docs/what-an-agent-may-see.md: the leak probe copies every label and coordinate it is shown; on the suite it sees the screenshot,
    the accessibility text and the instruction only, and scores no better than `noop`, which scores 0."""
    from guilab.bench import evaluate
    from guilab.vlaa.evaluate import VLAABench
    ids = ["fb-new-folder", "set-theme-dark", "inf-solarized"]
    noop = evaluate(VLAABench(env=env, ids=ids), "noop", tmp_path / "noop", progress=False)["metrics"]
    probe = evaluate(VLAABench(env=env, ids=ids), "probe/leak", tmp_path / "probe", progress=False)["metrics"]
    assert noop["success_rate"] == 0.0 and probe["success_rate"] <= noop["success_rate"], (probe, noop)


def test_garbage_model_counts_format_errors(env, tmp_path, capsys):
    """A model whose replies never parse: every action is `invalid` (never sent to the app), counted as a format
    error per episode and in the summary, with the harness's warning."""
    from guilab.agents.base import Policy
    from guilab.bench import evaluate, read_episodes
    from guilab.vlaa.agents import VLAAModelAgent
    from guilab.vlaa.evaluate import VLAABench
    class Nonsense(Policy):
        def act(self, messages, tools=None): return "I would probably open the settings menu, then look around."
    s = evaluate(VLAABench(env=env, ids=["set-theme-dark"], budget=3), VLAAModelAgent(Nonsense(), send_screenshot=False),
                 tmp_path / "garbage", progress=False)
    assert (s["n_ok"], s["format_errors"], s["n_actions"]) == (1, 3, 3)
    assert read_episodes(tmp_path / "garbage")[0]["episode"]["format_errors"] == 3
    assert "3 of 3 actions" in capsys.readouterr().err and s["warnings"]


def test_unreachable_endpoint_is_an_error_not_a_score(tmp_path):
    """`guilab eval vlaa --agent model` with nothing listening: each episode is recorded as an error (never scored),
    the command exits 1 with one line naming the error, and no traceback."""
    import subprocess, sys
    out = tmp_path / "model"
    r = subprocess.run([sys.executable, "-m", "guilab.cli", "eval", "vlaa", "--agent", "model", "--option",
                        "base_url=http://127.0.0.1:9/v1", "model=x", "--out", str(out), "--limit", "2", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    lines = [l for l in r.stderr.splitlines() if l.startswith("guilab eval:")]
    assert r.returncode == 1 and len(lines) == 1, r.stderr[-3000:]
    assert "2 of 2 episodes failed" in lines[0] and "127.0.0.1:9" in lines[0], lines
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    recs = [json.loads(l) for l in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(recs) == 2 and all(x["status"] == "error" and x["score"] is None for x in recs)


def test_search_docs_survive_a_palette_that_closes_after_opening(env, monkeypatch):
    """The kind of failure seen in vlaa_ablation (2026-12-03, idle machine): the command palette opened, then closed
    (a notebook the task opened took the focus) before the search agent read it; the fill of the closed input waited
    30 s and a TimeoutError ended the whole evaluation. Here the first open is closed at once on purpose."""
    from guilab.vlaa.search import jupyterlab_docs
    env.reset()
    opened = env.open_palette; calls = []
    def flaky_open():
        inp = opened(); calls.append(1)
        if len(calls) == 1:   # closed right after opening
            env.page.keyboard.press("Escape"); inp.wait_for(state="hidden", timeout=10000)
        return inp
    monkeypatch.setattr(env, "open_palette", flaky_open)
    docs = jupyterlab_docs(env)
    assert len(calls) >= 2, "the palette was not reopened"
    assert any(d["command"] == "apputils:change-theme" for d in docs), [d["command"] for d in docs][:20]
    assert not env._run(lambda: env.page.locator(".jp-ModalCommandPalette .lm-CommandPalette-input").is_visible())   # closed afterwards


HIDDEN_PARENT = """<div id="jp-main-dock-panel" style="width:600px;height:300px">
  <div style="visibility:hidden"><p>hidden text</p>
    <div style="visibility:visible"><button onclick="document.title = 'saved'">Save</button></div></div></div>"""


def test_a11y_and_utg_see_a_button_under_a_hidden_parent(env):
    """microsoft/playwright#36296: a button in a `visibility:visible` div inside a `visibility:hidden` div is shown
    and clickable, but Playwright's aria_snapshot() left it out ('' for such a page), so BrowserEnv's a11y lost it
    while the UTG explorer's collector kept it. One collector now serves both views, and both hold it."""
    from guilab.browser import collect_elements
    from guilab.stability.explore import utg_elements
    env._run(env.page.set_content, HIDDEN_PARENT)
    obs = env._run(env._observe)
    assert set(obs) == {"screenshot", "a11y", "url", "instruction"}
    assert '- button "Save"' in obs["a11y"] and "hidden text" not in obs["a11y"], obs["a11y"]
    buttons = [e for e in utg_elements(env._run(collect_elements, env.page)) if e["role"] == "button"]
    assert [(e["region"], e["name"], e["hit"]) for e in buttons] == [("main", "Save", True)]
    env._run(env.page.mouse.click, buttons[0]["x"], buttons[0]["y"])
    assert env._run(env.page.title) == "saved"        # it is visible and clickable
