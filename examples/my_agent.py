"""An agent of your own, evaluated on all four benchmarks by guilab's one harness. From this folder:

    ../.venv/bin/guilab eval gracebench --agent my_agent:WordMatchAgent --out ../runs/eval/mine-grace --limit 4
    ../.venv/bin/guilab eval pagebench  --agent my_agent:WordMatchAgent --out ../runs/eval/mine-page  --limit 2
    ../.venv/bin/guilab eval grounding  --agent my_agent:WordMatchAgent --out ../runs/eval/mine-ground --limit 4
    ../.venv/bin/guilab eval vlaa       --agent my_agent:WordMatchAgent --out ../runs/eval/mine-vlaa --limit 1

(`--agent package.module:Class` imports the class from the current folder or PYTHONPATH; `--option k=v` goes to its
constructor.) The harness calls `reset(obs, info)` at the start of each episode and `act(obs)` until the agent returns
`{"type": "done"}` (or None) or the benchmark's budget is spent; every run folder resumes after a kill.

What an agent sees, `obs` (a dict): `instruction` (the task's text) and `screenshot` (H×W×3 uint8, screenshot pixels;
None where a benchmark replays a graph without stored screens, as GraceBench does by default). GraceBench adds
`elements` (`[{"element": ID, "name", "kind", "region"}]`: the controls the screen offers) and `keys`. `info` never
holds the reference, target boxes or checker values (guilab.agents.base.PRIVILEGED is for oracles only).

What it returns: `{"type": "click", "x": X, "y": Y}` (screenshot pixels), `{"type": "click", "element": ID}` (an
offered element), `{"type": "key", "key": "Enter"}`, `{"type": "type", "text": "..."}`, `{"type": "done"}`.
"""
import re

from guilab.agents.base import Agent


def words(text: str) -> set[str]:
    "Lower-case words of at least 3 letters."
    return {w for w in re.findall(r"[a-z0-9]+", str(text).lower()) if len(w) >= 3}


class WordMatchAgent(Agent):
    """Clicks, among the offered elements, the one whose name shares the most words with the instruction and that it
    has not clicked yet; stops when none shares a word. Where the screen offers no elements it clicks the middle of
    the screenshot once and stops: a floor, not a method."""

    def __init__(self, max_actions: int = 8):   # actions per episode at most
        self.max_actions = int(max_actions)

    def reset(self, obs=None, info=None):
        self.clicked, self.n = set(), 0

    def act(self, obs):
        self.n += 1
        if self.n > self.max_actions: return {"type": "done"}
        want = words(obs.get("instruction", ""))
        offered = [e for e in obs.get("elements") or [] if e["element"] not in self.clicked]
        if offered:
            best = max(offered, key=lambda e: len(want & words(e.get("name", ""))))
            if not want & words(best.get("name", "")): return {"type": "done"}
            self.clicked.add(best["element"])
            return {"type": "click", "element": best["element"]}
        shot = obs.get("screenshot")
        if self.n == 1 and shot is not None:
            h, w = shot.shape[:2]
            return {"type": "click", "x": w / 2, "y": h / 2}
        return {"type": "done"}
