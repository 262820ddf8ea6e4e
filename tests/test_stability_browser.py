"""GraceBench on real JupyterLab: a short exploration, an online oracle trajectory with video evidence through
guilab.bench, a key press that reaches the app, and a trajectory whose video is missing (reported, not scored).
Skipped without Chromium/Playwright."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from guilab.browser import CHROMIUM, chromium_available

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not chromium_available(), reason=f"Chromium not found at {CHROMIUM}")]


def test_explore_then_online_oracle_with_video(tmp_path):
    from guilab.agents.base import Agent
    from guilab.bench import evaluate, read_episodes
    from guilab.stability.analysis import trajectory_frame
    from guilab.stability.explore import JupyterLabApp, explore
    from guilab.stability.policies import GraceOracleAgent
    from guilab.stability.runner import GraceBench, OnlineEnv, run_online, video_duration
    from guilab.stability.tasks import task_subgraph
    from guilab.stability.utg import load_utg, states

    with JupyterLabApp() as app:
        r = explore(app, 15, tmp_path / "utg", progress=False)
        G = load_utg(tmp_path / "utg" / "utg.json")
        assert r["states"] >= 3 and r["actions"] >= 3 and not any(n.startswith("boundary:") for n in states(G))
        start = G.graph["start"]
        from importlib.resources import files
        shipped = load_utg(files("guilab") / "data" / "stability" / "jupyterlab_utg.json")
        assert start == shipped.graph["start"], "the live start state is not the shipped UTG's (collector, reset?)"
        file_menu = [v for u, v, d in G.out_edges(start, data=True) if "click|menubar|menuitem|File|0" in json.loads(d["actions"])]
        assert file_menu, "the File menu was the first thing explored"
        goal = file_menu[0]
        task = {"id": "t-file", "start": start, "goal": goal, "concise": "Open the File menu.", "detailed": "Goal: … Steps: (1) Click “File” in the menu bar.",
                "subgraph": task_subgraph(G, start, goal, task="t-file", app="jupyterlab")}
        bm = GraceBench(task_list=[task], graph=G, app=app, mode="online", budget=3, conditions=["concise"],
                        evidence_dir=str(tmp_path / "traj"))
        summ = evaluate(bm, GraceOracleAgent(), tmp_path / "run", progress=False)
        rec = read_episodes(tmp_path / "run")[0]["episode"]["trajectory"]
        assert rec["states"] == [start, goal] and rec["success"] and rec["stopped"] == "done", rec["states"]
        assert rec["evidence_missing"] is None, rec["evidence_missing"]   # first: a failure says why the run went unscored
        assert summ["metrics"]["SR"] == 1.0 and summ["metrics"]["n_unscored"] == 0
        d = Path(rec["dir"])
        assert (d / rec["video"]).stat().st_size > 0 and abs(video_duration(d / rec["video"]) - rec["wall_s"]) < 2 + 0.1 * rec["wall_s"]
        s = rec["steps"][0]
        assert (d / s["pre"]).exists() and (d / s["post"]).exists() and (d / s["clip"]).exists() and s["t_pre"] < s["t_post"]
        # a key press reaches the app: Escape closes the File menu (before issue 33 the runner looked the key up as an
        # on-screen control and recorded "no control 'Escape' on screen", the menu staying open)
        class _Keys(Agent):
            def reset(self, obs=None, info=None):
                self.todo = [{"type": "click", "element": "click|menubar|menuitem|File|0"},
                             {"type": "key", "key": "Escape"}]
            def act(self, obs): return self.todo.pop(0) if self.todo else None
        keys = run_online(OnlineEnv(app, G, max_steps=3, clips=False), _Keys(), task, "concise", "keys",
                          tmp_path / "keys")
        assert keys["states"] == [start, goal, start] and not any("error" in s for s in keys["steps"]), keys["steps"]
        # a run whose video did not come back is reported as such and not scored
        app.close_context = lambda: (app.context.close(), setattr(app, "page", None))[1]   # returns None: no video path
        bad = run_online(OnlineEnv(app, G, max_steps=3), GraceOracleAgent(), task, "concise", "oracle-novideo",
                         tmp_path / "traj2")
    assert bad["evidence_missing"] == "video missing"
    df = trajectory_frame([rec, bad], {"t-file": task["subgraph"]})
    assert df.evidence.tolist() == ["ok", "video missing"] and df.SR.isna().tolist() == [False, True]
