"""The learned JupyterLab agent (issue 38): trained at smoke scale on the shipped deep UTG, reloaded offline from its
folder through the registry, run on the UTG and online in real JupyterLab for one long task (setup replayed, video
evidence). Online part skipped without Chromium/Playwright."""
from __future__ import annotations

import json, os
from pathlib import Path

import pytest

from guilab.browser import CHROMIUM, chromium_available

SMOKE = {"data": {"n_tasks": 24, "per_goal": 2, "max_steps": 4, "held_out_tasks": 4, "p_reject": 0.5, "p_stuck": 1.0},
         "base": {"n_corpus": 60, "hidden_size": 32, "num_layers": 1, "intermediate_size": 64},
         "sft": {"max_steps": 6, "batch": 4, "eval_every": 3, "held_out": 4},
         "grpo": {"steps": 1, "tasks_per_step": 1, "group": 2, "budget": 3}}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from guilab.stability.tasks import STABILITY_DATA, load_tasks
    from guilab.stability.utg import load_utg
    from guilab.train.gui_agent import gui_agent_run, default_inputs
    G, _, walks = default_inputs()
    long = load_tasks(STABILITY_DATA / "jupyterlab_long_tasks.jsonl")
    runs = tmp_path_factory.mktemp("gui")
    r = gui_agent_run(SMOKE, G, long, runs, progress=False, walks=walks)
    return G, long, r, runs, walks


def test_stages_hold_out_the_test_goals_and_reuse(trained):
    from guilab.core import read_jsonl
    from guilab.train.gui_agent import gui_agent_run
    G, long, r, runs, walks = trained
    assert set(r["models"]) == {"base", "sft", "grpo", "grpo_stability"}
    train = read_jsonl(r["folders"]["data"] / "tasks.jsonl")
    assert train and not {t["goal"] for t in train} & {t["goal"] for t in long}   # no test goal is trained on
    on_walks = {x for w in walks for x in w["states"]}
    assert all(t["start"] in on_walks and t["goal"] in on_walks for t in train)  # training tasks lie on recorded workflows
    st = r["stages"]
    assert st["grpo_stability"]["stability"] == 0.5 and st["grpo"]["stability"] == 0.0 and len(st["grpo"]["curve"]) == 1
    again = gui_agent_run(SMOKE, G, long, runs, progress=False, walks=walks)   # every stage reused: same folders
    assert again["folders"] == r["folders"]


def test_feedback_examples_and_the_manager_around_the_trained_agent(trained, tmp_path):
    """The SFT data carries the manager's feedback (VLAA-GUI: verifier rejections, loop-breaker orders) and the trained
    agent runs under the manager on the UTG replay (guilab.train.gui_vlaa), resumably."""
    from guilab.core import read_jsonl
    from guilab.train.gui_vlaa import manager_suite
    G, long, r, _, _ = trained
    eps = read_jsonl(r["folders"]["data"] / "episodes.jsonl")
    texts = [x["prompt"][1]["content"] for e in eps for x in e["examples"]]
    assert any("Feedback: no new evidence for:" in t for t in texts) and r["stages"]["data"]["rejection_examples"] > 0
    train_texts = [x["prompt"][1]["content"] for e in eps if not e["held_out"] for x in e["examples"]]
    assert r["stages"]["data"]["stuck_examples"] == sum(("Feedback: tier" in t) for t in train_texts) > 0
    out = tmp_path / "episodes.jsonl"
    R = manager_suite(r["models"]["sft"], G, long[:1], out, configs=("none", "full"), budgets=(3,), progress=False)
    assert len(R) == 4 and {x["config"] for x in R} == {"none", "full"} and all(x["steps"] <= 3 for x in R)
    assert all(x["states"][0] == long[0]["start"] and x["false_completion"] == (x["claimed_done"] and not x["success"]) for x in R)
    assert manager_suite(tmp_path / "no-model", G, long[:1], out, configs=("none", "full"), budgets=(3,), progress=False) == R   # resumed
    assert len(read_jsonl(out)) == 4


def test_reloaded_offline_runs_on_the_utg(trained, monkeypatch):
    from guilab.agents.base import make
    from guilab.stability.runner import UTGEnv, run_utg
    from guilab.agents.som import action_lines
    G, long, r, _, _ = trained
    monkeypatch.setenv("HF_HUB_OFFLINE", "1"); monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    agent = make("stability/learned", model_dir=str(r["models"]["grpo"]), label="grpo")
    task = long[0]
    rec = run_utg(UTGEnv(G, None, max_steps=4, screenshots=False), agent, task, "detailed", "grpo", seed=0)
    assert rec["states"][0] == task["start"] and len(rec["actions"]) + rec.get("format_errors", 0) >= 1
    turn = agent.turns[0]
    assert turn["messages"][0]["content"].endswith("Reply with exactly one line of Actions.")
    assert "|" not in turn["messages"][1]["content"]   # no env-side element id reaches the model


def test_served_checkpoint_gives_the_same_replies(trained, monkeypatch):
    """Issue 38: a trained stage's folder is served by `transformers serve` (`stability/learned_endpoint`, temperature 0;
    before, stage folders lacked the tiny processor's remote code and the server could not load them) and replies what
    the local model replies, turn by turn, so it walks the same UTG path. At smoke scale this model's replies are empty
    (whitespace), so here the test proves the folder loads and one prompt decodes alike on both sides; that varied
    replies agree through the same client and server is test_endpoint's (PAGER executor, location tokens)."""
    from guilab.agents.base import make
    from guilab.agents.policies import serve_transformers
    from guilab.stability.runner import UTGEnv, run_utg
    G, long, r, _, _ = trained
    monkeypatch.setenv("HF_HUB_OFFLINE", "1"); monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    act = lambda rec: [(x.get("type"), x.get("element"), x.get("key")) for x in rec["actions"]]   # an invalid reply's raw text: whitespace aside
    for stage in ("sft",):
        d = r["models"][stage]
        assert (Path(d) / "processing_guilab_tiny.py").is_file(), stage
        local = make("stability/learned", model_dir=str(d), label=stage)
        with serve_transformers(d) as url:
            served = make("stability/learned_endpoint", base_url=url, model=str(d), label=stage)
            for t in long[:3]:
                a = run_utg(UTGEnv(G, None, max_steps=3, screenshots=False), local, t, "detailed", stage, seed=0)
                b = run_utg(UTGEnv(G, None, max_steps=3, screenshots=False), served, t, "detailed", stage, seed=0)
                lt, st = [x["reply"].strip() for x in local.turns], [x["reply"].strip() for x in served.turns]
                assert lt and st == lt, (stage, t["id"], st, lt)
                assert [x["messages"] for x in served.turns] == [x["messages"] for x in local.turns]
                assert (act(a), a["states"]) == (act(b), b["states"])


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason=f"Chromium not found at {CHROMIUM}")
def test_online_long_task_with_setup_and_video(trained, tmp_path):
    from guilab.agents.base import make
    from guilab.bench import evaluate, read_episodes
    from guilab.stability.explore import JupyterLabApp
    from guilab.stability.runner import GraceBench
    G, long, r, _, _ = trained
    task = min((t for t in long if t["setup"]), key=lambda t: len(t["setup"]))   # a start that must be replayed
    agent = make("stability/learned", model_dir=str(r["models"]["grpo"]), label="grpo")
    with JupyterLabApp() as app:
        bm = GraceBench(task_list=[task], graph=G, app=app, mode="online", budget=2, conditions=["detailed"],
                        evidence_dir=str(tmp_path / "ev"))
        evaluate(bm, agent, tmp_path / "run", progress=False)
    rec = read_episodes(tmp_path / "run")[0]["episode"]["trajectory"]
    assert rec["mode"] == "online" and rec["states"][0] == task["start"], rec["states"]   # the setup reached the start
    assert rec["evidence_missing"] is None, rec["evidence_missing"]
    assert (Path(rec["dir"]) / rec["video"]).stat().st_size > 0
    assert len(rec["actions"]) + rec["format_errors"] >= 1


def test_choice_decoding_in_grpo_and_evaluation(trained, tmp_path):
    """`grpo.decoding: choice`: GRPO samples among the offered lines, so no rollout step is a format error (a free-running
    smoke-scale model's replies mostly are); the registered agent with `decoding=choice` acts only with offered lines."""
    from guilab.agents.base import make
    from guilab.core import read_jsonl
    from guilab.stability.runner import UTGEnv, run_utg
    from guilab.train.gui_agent import train_gui_grpo
    G, long, r, _, _ = trained
    tasks = read_jsonl(r["folders"]["data"] / "tasks.jsonl")[:3]
    res = train_gui_grpo(r["models"]["sft"], G, tasks, tmp_path / "grpo", steps=1, tasks_per_step=2, group=2, budget=3,
                         progress=False, decoding="choice")
    assert res["curve"][0]["format"] == 0.0
    with pytest.raises(ValueError, match="decoding"):
        train_gui_grpo(r["models"]["sft"], G, tasks, tmp_path / "bad", steps=1, decoding="beam", progress=False)
    agent = make("stability/learned", model_dir=str(r["models"]["sft"]), label="sft", decoding="choice")
    rec = run_utg(UTGEnv(G, None, max_steps=4, screenshots=False), agent, long[0], "detailed", "sft", seed=0)
    assert rec.get("format_errors", 0) == 0 and all(t["valid"] for t in agent.turns) and agent.turns


def test_training_tasks_from_the_whole_utg(tmp_path):
    """`data.tasks_from: utg` draws training tasks over the whole UTG (not only the recorded workflows), still never on a
    test goal; `walks` without recorded workflows is an error, not a silent switch."""
    from guilab.core import read_jsonl
    from guilab.stability.tasks import STABILITY_DATA, load_tasks
    from guilab.train.gui_agent import gui_agent_run, default_inputs
    G, _, walks = default_inputs()
    long = load_tasks(STABILITY_DATA / "jupyterlab_long_tasks.jsonl")
    with pytest.raises(ValueError, match="tasks_from"):
        gui_agent_run(SMOKE, G, long, tmp_path, progress=False, walks=None, stop_after="data")
    cfg = {**SMOKE, "data": {**SMOKE["data"], "tasks_from": "utg", "n_tasks": 12, "max_starts": 40}}
    r = gui_agent_run(cfg, G, long, tmp_path, progress=False, walks=walks, stop_after="data")
    train = read_jsonl(r["folders"]["data"] / "tasks.jsonl")
    on_walks = {x for w in walks for x in w["states"]}
    assert len(train) == 12 and not {t["goal"] for t in train} & {t["goal"] for t in long}
    assert any(t["goal"] not in on_walks for t in train)   # goals off the recorded workflows


def test_line_ranker_backbone(tmp_path, monkeypatch):
    """`base.kind: line_ranker`: every stage trains the ranker (guilab.agents.ranker) instead of the tiny LM: SFT on the
    teacher's lines (and a DAgger round on its own rollouts), GRPO sampling among the offered lines; the folders reload offline through the registered agent,
    which acts only with offered lines and reads nothing but the prompt; the stages are reused on a second call."""
    from guilab.agents.base import make
    from guilab.agents.ranker import is_line_ranker
    from guilab.stability.runner import UTGEnv, run_utg
    from guilab.stability.tasks import STABILITY_DATA, load_tasks
    from guilab.train.gui_agent import gui_agent_run, default_inputs
    G, _, walks = default_inputs()
    long = load_tasks(STABILITY_DATA / "jupyterlab_long_tasks.jsonl")
    cfg = {**SMOKE, "base": {**SMOKE["base"], "kind": "line_ranker"}, "sft": {**SMOKE["sft"], "max_steps": 20, "dagger_rounds": 1, "dagger_steps": 4}}
    r = gui_agent_run(cfg, G, long, tmp_path, progress=False, walks=walks)
    assert all(is_line_ranker(r["models"][k]) for k in ("base", "sft", "grpo", "grpo_stability"))
    st = r["stages"]
    assert [s for s, _ in st["sft"]["held_out_exact"]][-1] <= 20 and all(0 <= a <= 1 for _, a in st["sft"]["held_out_exact"])
    assert st["grpo"]["curve"][0]["format"] == 0.0 and st["grpo_stability"]["stability"] == 0.5
    (dg,) = st["sft"]["dagger"]   # one DAgger round: the ranker's own rollouts on the training tasks, labelled by the teacher
    assert dg["round"] == 1 and dg["examples"] > 0 and 0 <= dg["rollout_SR"] <= 1 and 0 <= dg["rollout_agree"] <= 1
    assert gui_agent_run(cfg, G, long, tmp_path, progress=False, walks=walks)["folders"] == r["folders"]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    agent = make("stability/learned", model_dir=str(r["models"]["grpo"]), label="grpo", decoding="choice")
    rec = run_utg(UTGEnv(G, None, max_steps=4, screenshots=False), agent, long[0], "detailed", "grpo", seed=0)
    assert agent.turns and all(t["valid"] for t in agent.turns) and rec.get("format_errors", 0) == 0
    assert "|" not in agent.turns[0]["messages"][1]["content"]   # no env-side element id reaches the model
    with pytest.raises(ValueError, match="base.kind"):
        gui_agent_run({**SMOKE, "base": {"kind": "bert"}}, G, long, tmp_path, progress=False, walks=walks)
    with pytest.raises(ValueError, match="dagger_rounds"):   # the LM has no DAgger
        gui_agent_run({**SMOKE, "sft": {**SMOKE["sft"], "dagger_rounds": 1}}, G, long, tmp_path, progress=False, walks=walks)
