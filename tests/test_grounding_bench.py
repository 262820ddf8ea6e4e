"""LBS grounding as a benchmark of the one harness (guilab.bench + GroundingBench): it runs out of the box on its
default synthetic data; the docs/what-an-agent-may-see.md leak probe scores at chance on it and high when an observation leaks the
target (positive control); a policy whose replies never parse is counted and warned about; an unreachable model
endpoint ends the run in an EvaluationError with no episode scored."""
import json, subprocess, sys
from pathlib import Path

import pytest

from guilab.bench import EvaluationError, evaluate, read_episodes
from guilab.grounding.evaluate import GroundingBench
from guilab.grounding.zoom import ChatAgent, ZoomEnv

GUILAB = str(Path(sys.executable).parent / "guilab")
PROBE_DATA = "synthetic:40:7:1920x1080"


def test_default_data_runs_offline(tmp_path):
    r = subprocess.run([GUILAB, "eval", "grounding", "--agent", "oracle", "--out", str(tmp_path / "o"), "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["settings"]["data"] == "synthetic:16:0" and s["n_ok"] == 16
    assert s["metrics"]["overall"]["action_acc"] == 1.0
    assert {e["score"]["n_crops"] for e in read_episodes(tmp_path / "o")} == {2}


class LeakyZoomEnv(ZoomEnv):
    "A deliberately broken env: its observations carry the target box (what docs/what-an-agent-may-see.md forbids)."
    def _obs(self):
        return {**super()._obs(), "bbox": list(self.sample.bbox)}

class LeakyBench(GroundingBench):
    def make_env(self): return LeakyZoomEnv()


def accuracy(bench, agent, out):
    return evaluate(bench, agent, out, progress=False)["metrics"]["overall"]["action_acc"]


def test_leak_probe_scores_at_chance_and_high_on_a_leaky_observation(tmp_path):
    probe = accuracy(GroundingBench(data=PROBE_DATA), "probe/leak", tmp_path / "probe")
    chance = accuracy(GroundingBench(data=PROBE_DATA), "random", tmp_path / "random")
    assert probe <= chance + 0.1, (probe, chance)
    leaky = accuracy(LeakyBench(data=PROBE_DATA), "probe/leak", tmp_path / "leaky")
    assert leaky >= 0.9, leaky                                       # the probe finds a leak when there is one


class Garbage:
    wants_images = False
    def __call__(self, messages): return "I am not sure what to do."


def test_garbage_policy_format_errors_are_counted_and_warned(tmp_path, capsys):
    s = evaluate(GroundingBench(data="synthetic:4:0:640x360"), ChatAgent(Garbage()), tmp_path / "g", progress=False)
    # each episode: one reply and two correction turns, all three format errors
    assert (s["n_ok"], s["format_errors"], s["n_actions"], s["format_error_rate"]) == (4, 12, 12, 1.0)
    assert s["metrics"]["overall"]["format_errors"] == 4 and s["metrics"]["overall"]["action_acc"] == 0.0
    assert any("12 of 12 actions" in w and "format errors" in w for w in s["warnings"])
    assert "12 of 12 actions" in capsys.readouterr().err
    ep = read_episodes(tmp_path / "g")[0]["episode"]
    assert ep["trajectory"]["status"] == "format_error" and ep["format_errors"] == 3


def test_unreachable_endpoint_is_an_error_never_a_score(tmp_path):
    opts = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "retries": 0, "timeout": 5}
    with pytest.raises(EvaluationError) as ei:
        evaluate("grounding", "model", tmp_path / "m", settings={"data": "synthetic:4:0:640x360"}, agent_options=opts,
                 progress=False)
    s = ei.value.summary
    assert s["n_ok"] == 0 and s["n_error"] >= 1 and s["metrics"] is None and "EndpointError" in s["errors"][0]["error"]
    assert read_episodes(tmp_path / "m") == []
    assert all(r["score"] is None for r in read_episodes(tmp_path / "m", status=None))
    kv = [f"{k}={v}" for k, v in opts.items()]
    r = subprocess.run([GUILAB, "eval", "grounding", "--agent", "model", "--option", *kv,
                        "--data", "synthetic:2:0:640x360", "--out", str(tmp_path / "cli"), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "EndpointError" in r.stderr
