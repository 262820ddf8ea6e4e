"""Issue 33, one meaning per public name across parts: a public name (in a module's `__all__`) that two modules of
guilab define must be the same object (a re-export), or be listed below as one meaning by design. A second
`OracleAgent`, `METRICS` or `evaluate` somewhere else is a different thing under a name a reader already knows:
name it for what it is (`PageOracleAgent`, `TRAJECTORY_METRICS`, `check_task`)."""
import importlib
import pkgutil
from collections import defaultdict

import pytest

import guilab

# Names that several modules define on purpose, one object per module, all with one meaning. Each needs its reason.
SAME_MEANING = {
    # The part-CLI plugin hook: `guilab.cli` imports each part's CLI module it finds (`guilab.<part>.cli`, and
    # `guilab.bench` for `guilab eval`) and calls its `add_cli(subparsers)`; every part must define its own.
    "add_cli",
}


@pytest.fixture(scope="module")
def modules() -> dict:
    "Every module of guilab, imported (a module that fails to import fails the test: its names cannot be checked)."
    return {m.name: importlib.import_module(m.name) for m in pkgutil.walk_packages(guilab.__path__, "guilab.")}


def _public(modules) -> dict:
    "name -> [(module name, object)] over the `__all__` of every module."
    out = defaultdict(list)
    for name, mod in sorted(modules.items()):
        for n in getattr(mod, "__all__", ()):
            out[n].append((name, getattr(mod, n)))
    return out


def _meanings(defs: list) -> dict:
    "id -> (object, [modules]) : the distinct objects behind one name."
    objs = {}
    for mod, obj in defs:
        objs.setdefault(id(obj), (obj, []))[1].append(mod)
    return objs


def _what(obj) -> str:
    where = getattr(obj, "__module__", None)
    return f"{type(obj).__name__}" + (f" from {where}" if where and callable(obj) else "")


def test_walk_finds_the_parts(modules):
    for part in ("guilab.core", "guilab.bench", "guilab.pagebench.metrics", "guilab.stability.policies", "guilab.vlaa.agents",
                 "guilab.grounding.zoom", "guilab.perf.harness", "guilab.train.probe"):
        assert part in modules


def test_every_public_name_exists(modules):
    missing = [f"{name}.{n}" for name, mod in modules.items() for n in getattr(mod, "__all__", ()) if not hasattr(mod, n)]
    assert not missing, f"names in __all__ that the module does not define: {missing}"


def test_one_meaning_per_public_name(modules):
    clashes = []
    for n, defs in sorted(_public(modules).items()):
        objs = _meanings(defs)
        if len(objs) > 1 and n not in SAME_MEANING:
            clashes.append(f"{n}: " + "; ".join(f"{', '.join(ms)} ({_what(o)})" for o, ms in objs.values()))
    assert not clashes, ("public names defined by several modules for different objects (rename them for what they "
                         "are, re-export one object, or add the name to SAME_MEANING with its reason):\n  "
                         + "\n  ".join(clashes))


def test_same_meaning_list_is_needed(modules):
    "Every allow-listed name is defined by more than one module (an entry that no longer is goes)."
    public = _public(modules)
    stale = [n for n in SAME_MEANING if len(_meanings(public.get(n, []))) < 2]
    assert not stale, f"SAME_MEANING entries that no longer need to be there: {stale}"


def test_names_of_record_unchanged():
    "docs/evaluate.md#use-the-library's public API of record keeps its names."
    from guilab.geo.kernel import Construction  # noqa: F401
    from guilab.pagebench.metrics import score, otc  # noqa: F401
    from guilab.grounding.zoom import ZoomSession, parse_reply  # noqa: F401
    from guilab.stability.metrics import trajectory_metrics  # noqa: F401
    from guilab.stability.analysis import spearman_test  # noqa: F401
    from guilab.vlaa.loop import same_screen  # noqa: F401
    from guilab.browser import BrowserEnv  # noqa: F401
    from guilab.bench import evaluate  # noqa: F401
