"""GraceBench behind guilab.bench (issue 33): the key action reaches the UTG's keyboard edge, observations and public
info hold no UTG node id, an unreachable endpoint is an error (never a 0 % model), a model that answers garbage is
counted as format errors with a warning, and the leak probe scores at chance unless the observation is made leaky."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

from guilab.agents.base import Agent, Policy, public_info, run_episode
from guilab.bench import EvaluationError, evaluate, read_episodes
from guilab.cli import main
from guilab.stability.runner import GraceBench, UTGEnv, run_utg
from guilab.stability.policies import GraceModelAgent
from guilab.stability.utg import states


@pytest.fixture(scope="module")
def bench():
    return GraceBench()   # the package's JupyterLab tasks and UTG


class _Script(Agent):
    "Plays a fixed list of actions, then stops."
    needs_screenshot = False
    def __init__(self, actions): self.actions = actions
    def reset(self, obs=None, info=None): self.todo = list(self.actions)
    def act(self, obs): return self.todo.pop(0) if self.todo else None


def test_key_action_follows_the_keyboard_edge_on_the_utg(bench):
    """A press of Escape in an open menu closes it on the UTG. Before issue 33 `{"type": "key", "key": "Escape"}`
    was looked up as an element id ("Escape") and had no effect: the state stayed on the menu."""
    G = bench.G
    start = G.graph["start"]
    file_menu = "click|menubar|menuitem|File|0"
    menu = next(v for u, v, d in G.out_edges(start, data=True) if file_menu in json.loads(d["actions"]))
    assert "key|Escape" in json.loads(G.edges[menu, start]["actions"])
    task = next(t for t in bench.task_list() if t["start"] == start)
    env = UTGEnv(G, max_steps=15)
    rec = run_utg(env, _Script([{"type": "click", "element": file_menu}, {"type": "key", "key": "Escape"}]), task,
                  "concise", "script")
    assert rec["states"] == [start, menu, start]
    # the element listing and the keys are two vocabularies: Escape is a key, never an element
    obs, _ = env.reset(options={"task": task, "condition": "concise"})
    env.step({"type": "click", "element": file_menu})
    obs = env._obs()
    assert obs["keys"] == ["Escape"] and all(not e["element"].startswith("key|") for e in obs["elements"])
    assert env.step({"type": "click", "element": "Escape"})[-1]["effect"] == "none"


def test_observations_and_public_info_hold_no_node_id(bench):
    "docs/what-an-agent-may-see.md: what a non-privileged agent gets on any task, along random walks, names no UTG node."
    nodes = set(bench.G.nodes)
    seen = set()
    class _Spy(Agent):
        needs_screenshot = False
        def reset(self, obs=None, info=None): self.n = 0; seen.update(_strings([obs, info]))
        def act(self, obs):
            seen.update(_strings(obs)); self.n += 1
            acts = [{"type": "click", "element": e["element"]} for e in obs["elements"]]
            return acts[(7 * self.n) % len(acts)] if acts else None
    env = UTGEnv(bench.G, max_steps=15)
    for t in bench.tasks()[::3]:
        run_episode(env, _Spy(), options={"task": t["task"], "condition": t["condition"]})
    assert seen and not seen & nodes
    assert not {t["goal"] for t in bench.task_list()} & seen


def _strings(x) -> set:
    if isinstance(x, str): return {x}
    if isinstance(x, dict): return set().union(*(_strings(v) for v in x.values())) if x else set()
    if isinstance(x, (list, tuple)): return set().union(*(_strings(v) for v in x)) if x else set()
    return set()


def test_unreachable_endpoint_is_an_error_not_a_score(tmp_path, capsys):
    """`--agent model` with nothing listening: exit 1 with one line naming the endpoint error, the episode recorded
    as an error and none ok. Before issue 33 the model agent turned the failure into `invalid` actions: the run
    exited 0 and was analysed as a 0 % model."""
    out = tmp_path / "run"
    rc = main(["eval", "gracebench", "--agent", "model", "--option", "base_url=http://127.0.0.1:9/v1", "model=x",
               "--out", str(out), "--limit", "1", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1
    last = [line for line in err if line.startswith("guilab eval:")]
    assert len(last) == 1 and "EndpointError" in last[0] and "2 of 2 episodes failed" in last[0], err   # --limit 1: one task, both conditions
    recs = read_episodes(out, status=None)
    assert [r["status"] for r in recs] == ["error"] * 2 and read_episodes(out) == []
    # the same through run_grace_suite (the reproduction notebook's path and `guilab stability run`)
    rc = main(["stability", "run", "--utg", str(GraceBench()._paths()[1]), "--tasks", str(_tasks_file()),
               "--agent", "model", *[x for o in ("base_url=http://127.0.0.1:9/v1", "model=x", "retries=0")
                                     for x in ("--agent-opt", o)],
               "--out", str(tmp_path / "suite"), "--limit", "1", "--quiet"])
    assert rc == 1 and "EndpointError" in capsys.readouterr().err


def _tasks_file():
    from guilab.stability.tasks import STABILITY_DATA
    return STABILITY_DATA / "jupyterlab_tasks.jsonl"


class _Nonsense(Policy):
    "A model whose every reply is text that is no action (the real-endpoint version of this runs in tests/test_bench.py)."
    def act(self, messages, tools=None): return "lorem ipsum dolor"


def test_garbage_model_is_counted_as_format_errors_with_a_warning(tmp_path, capsys):
    s = evaluate(GraceBench(budget=3), GraceModelAgent(_Nonsense(), name="x"), tmp_path, limit=1, progress=False)   # one task, both conditions
    err = capsys.readouterr().err
    assert (s["n_ok"], s["format_errors"], s["n_actions"]) == (2, 6, 6)   # every reply spent a step of the budget
    assert "6 of 6 actions of" in err and "were format errors" in err and s["warnings"]
    tr = read_episodes(tmp_path)[0]["episode"]["trajectory"]
    assert [a["type"] for a in tr["actions"]] == ["invalid"] * 3


class _Reveal(gym.ObservationWrapper):
    "A deliberately leaky observation: the task's reference path (UTG edge labels) added to what the agent sees."
    def observation(self, obs): return {**obs, "reference": list(self.env.unwrapped.task["reference"])}


class _LeakyGrace(GraceBench):
    def make_env(self): return _Reveal(super().make_env())


def test_leak_probe_scores_at_chance_unless_the_observation_leaks(tmp_path):
    """docs/what-an-agent-may-see.md on GraceBench: the leak probe (every label and coordinate of its inputs) is no better than random on
    the UTG tasks; the positive control shows the probe would find the reference path if observations held it."""
    sr = {}
    for name, bm, agent in [("probe", GraceBench(), "probe/leak"), ("random", GraceBench(), "random"),
                            ("leaky", _LeakyGrace(), "probe/leak")]:
        sr[name] = evaluate(bm, agent, tmp_path / name, progress=False)["metrics"]["SR"]
    assert sr["probe"] <= sr["random"] + 0.05, sr
    assert sr["leaky"] >= 0.8 and sr["leaky"] >= sr["random"] + 0.5, sr


def test_aggregate_gives_table2_cells(tmp_path):
    "The per-condition metrics of a GraceBench run are the cells of Table 2 (stability.analysis.table2)."
    from guilab.stability import analysis as A
    from guilab.stability.metrics import TRAJECTORY_METRICS
    bm = GraceBench()
    s = evaluate(bm, "noisy_oracle", tmp_path, agent_options={"epsilon": 0.3}, limit=12, progress=False)   # 12 tasks × 2 conditions
    trs = [r["episode"]["trajectory"] for r in read_episodes(tmp_path)]
    t2 = A.table2(A.trajectory_frame(trs, {t["id"]: t["subgraph"] for t in bm.task_list()}))
    for row in t2.itertuples():
        got = s["metrics"][row.condition]
        assert got["n"] == row.n
        for k in TRAJECTORY_METRICS:
            assert got[k] == pytest.approx(getattr(row, k), nan_ok=True), (row.condition, k)


def test_eval_cli_runs_gracebench(tmp_path, capsys):
    assert main(["eval", "gracebench", "--agent", "oracle", "--out", str(tmp_path), "--limit", "2", "--quiet", "--json"]) == 0
    out = capsys.readouterr().out
    m = json.loads(out)["metrics"]
    assert m["SR"] == 1.0 and m["n"] == 4 and m["concise"]["n"] == 2
    assert [r["id"].split("|")[1] for r in read_episodes(tmp_path)] == ["concise", "detailed"] * 2


def test_shards_merge_into_the_single_run(tmp_path):
    "GraceBench through guilab.bench's shards: the merged run has the single run's trajectories and metrics."
    from guilab.bench import merge
    opts = {"epsilon": 0.3}
    one = evaluate("gracebench", "noisy_oracle", tmp_path / "one", agent_options=opts, limit=10, progress=False)
    for k in range(2):
        evaluate("gracebench", "noisy_oracle", tmp_path / "sh", agent_options=opts, limit=10, shard=(k, 2), progress=False)
    merged = merge(tmp_path / "sh")
    assert json.dumps(merged["metrics"], default=str) == json.dumps(one["metrics"], default=str)
    states = lambda d: [r["episode"]["trajectory"]["states"] for r in read_episodes(d)]
    assert states(tmp_path / "sh") == states(tmp_path / "one")
