"""VLAA-GUI on a real JupyterLab (smoke-sized: the whole-suite oracle run is in nbs/repro/vlaa_ablation.ipynb's
companion command `guilab vlaa eval --agent oracle`, reported in the notes)."""
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


def test_oracle_noop_lint_and_resume(env, tmp_path, monkeypatch):
    from guilab.vlaa.tasks import load_tasks
    from guilab.vlaa.evaluate import run_eval, lint
    monkeypatch.setenv("OPENAI_API_KEY", "sk-guilab-secret-4242")
    tasks = load_tasks("jupyterlab", ids=SMOKE)
    rows = lint(tasks, env=env, progress=False)
    assert all(r["ok"] for r in rows), rows
    s = run_eval(tasks, "oracle", tmp_path / "oracle", env=env, progress=False, budget=40)
    recs = [json.loads(l) for l in (tmp_path / "oracle" / "episodes.jsonl").read_text().splitlines()]
    assert s["success_rate"] == 100.0, [(r["id"], r["ended_by"], r["checker_parts"]) for r in recs if not r["success"]]
    assert {r["id"]: r["ended_by"] for r in recs}["inf-solarized"] == "fail"
    s2 = run_eval(tasks, "oracle", tmp_path / "oracle", env=env, progress=False, budget=40)   # resumes: nothing re-run
    assert len((tmp_path / "oracle" / "episodes.jsonl").read_text().splitlines()) == len(tasks) and s2["success_rate"] == s["success_rate"]
    noop = [t for t in tasks if t["id"] in ("set-theme-dark", "inf-solarized")]   # a feasible and an infeasible task (the lint covers the rest)
    s = run_eval(noop, "noop", tmp_path / "noop", env=env, progress=False, tools="verifier")
    assert s["success_rate"] == 0.0
    st = recs[0]["steps"][0]
    assert {"pre", "post", "pre_a11y", "post_a11y", "tool_calls", "changed"} <= set(st) and (tmp_path / "oracle" / st["post"]).exists()
    for f in tmp_path.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".txt", ".log"):
            assert "sk-guilab-secret-4242" not in f.read_text(errors="replace"), f


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
    assert set(obs) == {"screenshot", "a11y", "url"}
    assert '- button "Save"' in obs["a11y"] and "hidden text" not in obs["a11y"], obs["a11y"]
    buttons = [e for e in utg_elements(env._run(collect_elements, env.page)) if e["role"] == "button"]
    assert [(e["region"], e["name"], e["hit"]) for e in buttons] == [("main", "Save", True)]
    env._run(env.page.mouse.click, buttons[0]["x"], buttons[0]["y"])
    assert env._run(env.page.title) == "saved"        # it is visible and clickable
