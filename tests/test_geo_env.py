"""Tests of guilab.geo.env: Gymnasium's env checker, registration, reset options (problem, givens, window, render),
termination and truncation, observations inside the observation space, and that no action — however malformed —
raises."""
import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings, strategies as st

from guilab.core import Action, Problem
from guilab.geo.canvas import tool_actions
from guilab.geo.env import GeoCanvasEnv, GuiActionSpace, free_points

PROB = {"id": "euclid-I.1", "source": "euclid", "text": "On a given finite straight line AB construct an equilateral triangle.",
        "question_type": "open", "grade": "8", "difficulty": "easy", "categories": ["tool_grounding", "object_construction"],
        "window": {"xmin": -2, "xmax": 8, "ymin": -3, "ymax": 6},
        "construction": ["A=(0,0)", "B=(4,0)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "t1=Polygon(A,B,C)"]}


def test_check_env_direct_and_registered():
    check_env(GeoCanvasEnv(problem=PROB, render_mode="rgb_array"), skip_render_check=False)
    check_env(gym.make("guilab/GeoCanvas-v0", problem=PROB, render_mode="rgb_array").unwrapped)
    check_env(gym.make("guilab/GeoCanvas-v0", render=False).unwrapped)


def test_make_wrapped_env_steps():
    env = gym.make("guilab/GeoCanvas-v0", render=False)      # PassiveEnvChecker + OrderEnforcing wrappers
    obs, info = env.reset(options={"problem": PROB})
    obs, r, term, trunc, info = env.step({"type": "click", "x": 10, "y": 10})
    assert isinstance(info["ok"], bool)
    env.close()


def test_reset_options():
    env = GeoCanvasEnv(render=False)
    obs, info = env.reset()
    assert info["commands"] == [] and env.gui.window["xmax"] == 8.0
    obs, info = env.reset(options={"problem": Problem.from_dict(PROB)})
    assert info["commands"] == ["A=(0,0)", "B=(4,0)"]
    obs, info = env.reset(options={"problem": PROB, "givens": ["A=(0,0)", "B=(4,0)", "c=Circle(A,B)"]})
    assert info["commands"][-1] == "c=Circle(A,B)"
    obs, info = env.reset(options={"problem": PROB, "window": {"xmin": 0, "xmax": 1, "ymin": 0, "ymax": 1}})
    assert env.gui.window == {"xmin": 0.0, "xmax": 1.0, "ymin": 0.0, "ymax": 1.0}
    assert int(obs["screenshot"].max()) == 0
    obs, info = env.reset(options={"render": True})
    assert int(obs["screenshot"].max()) == 255
    with pytest.raises(Exception): env.reset(options={"problem": {"id": "x"}})        # a malformed problem is a config error


def test_free_points_are_the_default_givens():
    assert free_points(PROB["construction"]) == ["A=(0,0)", "B=(4,0)"]


def test_episode_by_clicks_info_and_termination():
    env = GeoCanvasEnv(problem=PROB, max_steps=50)
    obs, info = env.reset()
    s3 = math.sqrt(3)
    acts = (tool_actions(env.gui, "Circle with Centre through Point", [(0, 0), (4, 0)]) + tool_actions(env.gui, "Circle with Centre through Point", [(4, 0), (0, 0)])
            + tool_actions(env.gui, "Intersect", [(2, 2 * s3)]) + tool_actions(env.gui, "Polygon", [(0, 0), (4, 0), (2, 2 * s3), (0, 0)]))
    created = []
    for a in acts:
        obs, r, term, trunc, info = env.step(a)
        assert info["ok"] and not term and not trunc and r == 0.0
        assert obs in env.observation_space
        created += info["created"]
    assert created == ["c", "d", "C", "t1", "f", "g", "h"]
    assert info["commands"] == ["A=(0,0)", "B=(4,0)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "t1=Polygon(A,B,C)"]
    assert int(obs["tool"]) == 16
    obs, r, term, trunc, info = env.step(Action(type="done"))
    assert term and not trunc and info["ok"]
    obs, r, term, trunc, info = env.step({"type": "done"})
    assert term and not info["ok"] and "reset" in info["feedback"]


def test_truncation_and_observed_text():
    env = GeoCanvasEnv(render=False, max_steps=4)
    env.reset()
    b = env.gui.widget_bbox("input_bar")
    outs = [env.step(a) for a in ({"type": "click", "x": b[0], "y": b[1]}, {"type": "type", "text": "A=(1,2)"},
                                  {"type": "key", "key": "Backspace"}, {"type": "type", "text": "°"})]
    assert [o[3] for o in outs] == [False, False, False, True]
    obs = outs[-1][0]
    assert obs["input_text"] == "A=(1,2°" and int(obs["focus"]) == 1 and obs in env.observation_space


def test_dialog_text_observed():
    env = GeoCanvasEnv(render=False)
    env.reset(options={"problem": PROB})
    for a in tool_actions(env.gui, "Circle with Centre and Radius", [(0, 0)]) + [{"type": "type", "text": "2.5"}]:
        obs, *_ = env.step(a)
    assert obs["dialog_text"] == "2.5" and int(obs["focus"]) == 2 and obs["input_text"] == ""
    obs, r, term, trunc, info = env.step({"type": "key", "key": "Enter"})
    assert info["created"] == ["c"] and obs["dialog_text"] == "" and int(obs["focus"]) == 0


def test_sampled_actions_keep_observations_in_space():
    env = GeoCanvasEnv(problem=PROB, render=False, max_steps=1000)
    env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(300):
        a = env.action_space.sample()
        assert env.action_space.contains(a)
        obs, r, term, trunc, info = env.step(a)
        assert obs in env.observation_space and isinstance(info["ok"], bool)
        if term or trunc: env.reset()


def test_action_space_rejects_malformed():
    s = GuiActionSpace(1280, 800)
    for bad in ({"type": "click", "x": 1280, "y": 1}, {"type": "draw", "x": 1, "y": -1}, {"type": "type", "text": "汉"},
                {"type": "drag", "x": 1, "y": 1}, {"type": "key", "key": "Tab"}, [], None):
        assert bad not in s
    assert {"type": "drag", "x": 0, "y": 0, "x2": 1279, "y2": 799} in s


_val = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=10))
_junk = st.one_of(_val, st.dictionaries(st.sampled_from(["type", "x", "y", "x2", "y2", "text", "key"]), _val, max_size=6),
                  st.fixed_dictionaries({"type": st.sampled_from(["click", "draw", "drag", "type", "key", "done", "tap"])},
                                        optional={"x": _val, "y": _val, "x2": _val, "y2": _val, "text": _val, "key": _val}))


@settings(max_examples=300, deadline=None)
@given(st.lists(_junk, min_size=1, max_size=10))
def test_junk_actions_never_raise(actions):
    env = GeoCanvasEnv(problem=PROB, render=False, max_steps=8)
    env.reset()
    for a in actions:
        obs, r, term, trunc, info = env.step(a)
        assert set(info) >= {"ok", "feedback", "created", "commands"}
        assert obs in env.observation_space


def test_render_modes():
    assert GeoCanvasEnv().render() is None
    env = GeoCanvasEnv(render_mode="rgb_array", render=False)
    env.reset(options={"problem": PROB})
    img = env.render()
    assert img.shape == (800, 1280, 3) and img.dtype == np.uint8 and img.max() == 255   # render() always renders
    with pytest.raises(ValueError): GeoCanvasEnv(render_mode="human")


def test_rendered_observations_are_read_only_unshared_and_exact():
    "Incremental screenshots in observations: read-only, never sharing memory with an earlier observation still held, equal to a full redraw."
    env = GeoCanvasEnv(problem=PROB, max_steps=1000)
    obs, _ = env.reset(seed=0)
    env.action_space.seed(3)
    kept = [obs]
    for i in range(40):
        obs, *_ = env.step(env.action_space.sample())
        assert obs["screenshot"].flags.writeable is False
        assert not any(np.shares_memory(obs["screenshot"], k["screenshot"]) for k in kept[-3:])
        assert np.array_equal(obs["screenshot"], env.gui.render_full())
        kept.append(obs)
