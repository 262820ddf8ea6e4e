"""Issue 58 items 4, 6 and 10, each public bug report a kind of input with its right value: an undefined Spearman
correlation must not be reported as significant (scipy#9406), a reward judge that abstains must not stop training nor
score a right answer 0 (trl PR #3079), and a notebook save that fails must be a failed stage, never an exception or a
0-byte notebook (jupyter/help#171, appyter#99)."""
import errno, itertools, json, math, os

import nbformat
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from guilab.stability.analysis import bonferroni, half_splits, spearman_test, split_half, split_half_table
from guilab.train.rewards import make_cot_rm, set_cot_judge, zoomin_cot_rm

INF = math.inf


def isnan2(r):
    return len(r) == 2 and all(math.isnan(v) for v in r)


# ---- item 4: spearman_test on constant (infinite) samples -----------------------------------------------------------

@pytest.mark.parametrize("x, y", [
    ([INF] * 4, [1, 2, 3, 4]),                        # the report: was (nan, 0.0)
    ([-INF] * 5, [1, 2, 3, 4, 5]),                    # was (nan, 0.0)
    ([1, 1, 1], [1, 2, 3]),
    ([1, 2, 3, 4], [INF] * 4),                        # either side
    ([INF] * 12, list(range(12))),                    # Monte-Carlo branch: was (nan, 1/(P+1)), "significant"
    ([INF, INF, 5, INF], [1, 2, np.nan, 4]),          # constant once the NaN pair is dropped
    ([INF, -INF, np.nan, INF], [1, 2, 3, np.nan]),    # 2 pairs left
])
def test_constant_sample_is_undefined_not_significant(x, y):
    assert isnan2(spearman_test(x, y, permutations=99))


def test_bonferroni_keeps_an_undefined_p_undefined():
    p = spearman_test([INF] * 4, [1, 2, 3, 4])[1]
    adj = bonferroni([p, 0.01, 0.2])
    assert math.isnan(adj[0]) and adj[1:].tolist() == pytest.approx([0.02, 0.4])   # m = 2 defined tests


def test_infinite_mixture_ranks_like_spearmanr():
    x, y = [1, INF, 2, 3], [1, 2, 3, 4]
    rho, p = spearman_test(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12) and rho == pytest.approx(0.4)
    # exact p: the 24 pairings of ranks [1, 4, 2, 3] with [1, 2, 3, 4] reaching |rho| = 0.4
    allr = [abs(stats.spearmanr([1, 4, 2, 3], q).statistic) for q in itertools.permutations([1, 2, 3, 4])]
    assert p == pytest.approx(np.mean(np.array(allr) >= 0.4 - 1e-12), abs=1e-12) and p == pytest.approx(18 / 24)
    # both infinities: ranks 1..4, rho = 1 with exact p 2/24 (spearmanr's asymptotic p says 0.0)
    assert spearman_test([-INF, 1, 2, INF], [1, 2, 3, 4]) == (1.0, 2 / 24)


def _frame(tasks: dict) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "task": t, "condition": "detailed", "app": "a", "success": True, "DR": v, "evidence": "ok"}
                         for t, d in tasks.items() for m, v in d.items()])


def test_split_half_leaves_undefined_shuffles_out_of_p():
    # m0 is undefined in task t1 and t0 ties m0..m2: a label shuffle that moves m0's NaN onto m3 leaves a constant
    # ranking in both splits, so it has no null value; it used to count as "below the observed mean" (p = 51/200)
    df = _frame({"t0": {"m0": .1, "m1": .1, "m2": .1, "m3": .9}, "t1": {"m0": np.nan, "m1": .2, "m2": .5, "m3": .8}})
    r = split_half(df, "DR", "detailed", n_splits=20, permutations=199, seed=0)
    assert r["status"] == "ok" and r["rho_mean"] == pytest.approx(math.sqrt(3) / 2)
    assert r["p"] == pytest.approx(51 / 191, abs=1e-12)     # 190 defined shuffles, 50 reach the observed mean


def test_split_half_table_unchanged_where_every_shuffle_is_defined():
    g = np.random.default_rng(0); rows = []
    for t in range(40):
        for i, lv in enumerate(np.linspace(0.1, 0.8, 8)):
            rows.append({"model": f"m{i}", "task": f"t{t}", "condition": "detailed", "app": "ab"[t % 2], "success": True,
                         "DR": float(np.clip(lv + g.normal(0, 0.1), 0, 1)), "evidence": "ok"})
    t9 = split_half_table(pd.DataFrame(rows), metrics=["DR"], conditions=["detailed"], n_splits=50, permutations=99)
    assert t9.p.tolist() == [1 / 100] and t9.p_bonferroni.tolist() == [1 / 100]


# ---- item 6: a CoT judge that abstains ---------------------------------------------------------------------------------

def traj(point, size=(1000, 1000)):
    return {"point": point, "refusal": False, "status": "answer", "format_error": False, "img_size": list(size),
            "turns": [{"reply": "ok", "crops": []}], "crops": []}


BOX = [[100, 100, 200, 200]]


def test_judge_returning_none_gives_none_and_is_counted():
    rm = make_cot_rm(lambda text, instr: None)            # before: TypeError from float(None), training stopped
    assert rm([traj([150, 150]), traj([0, 0])], bbox=BOX * 2) == [None, 0.0]   # the wrong answer is still 0, unjudged
    assert (rm.judged, rm.abstained) == (1, 1)


def test_judge_returning_nan_gives_none_not_zero():
    logged = []
    rm = make_cot_rm(lambda text, instr: float("nan"))    # before: 0.0, a wrong answer's reward for a right one
    out = rm([traj([150, 150]), traj([150, 150])], bbox=BOX * 2, log_metric=lambda k, v: logged.append((k, v)))
    assert out == [None, None] and (rm.judged, rm.abstained) == (2, 2)
    assert logged == [("zoomin_cot_rm/abstained", 2.0)]  # trl's log_metric: the count reaches the training log


def test_normal_judge_unchanged():
    rm = make_cot_rm(lambda text, instr: 0.7)
    assert rm([traj([150, 150]), traj([0, 0]), traj([150, 150])], bbox=BOX * 3) == [0.7, 0.0, 0.7]
    assert (rm.judged, rm.abstained) == (2, 0)
    assert make_cot_rm(lambda t, i: 3)([traj([150, 150])], bbox=BOX) == [1.0]     # clipped as before


def test_configured_judge_counters():
    set_cot_judge(lambda t, i: None)
    try:
        assert zoomin_cot_rm([traj([150, 150]), traj([150, 150])], bbox=BOX * 2) == [None, None]
        assert zoomin_cot_rm.abstained == 2
    finally:
        set_cot_judge(None)
    assert (zoomin_cot_rm.judged, zoomin_cot_rm.abstained) == (0, 0)
    assert zoomin_cot_rm([traj([150, 150])], bbox=BOX) == [0.5]              # no judge: neutral, nothing counted


def test_judge_returning_a_non_number_is_a_clear_error():
    with pytest.raises(TypeError, match=r"must return a number in \[0,1\] or None"):
        make_cot_rm(lambda t, i: "n/a")([traj([150, 150])], bbox=BOX)


# ---- item 10: a notebook save that fails -----------------------------------------------------------------------------

@pytest.fixture
def tiny(tmp_path):
    "A two-cell notebook with a `parameters` cell, a params file and an out folder holding a previous executed copy."
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("params = ''\nout_dir = ''\noverrides = []", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("x = 6 * 7\nprint(x)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "tiny.ipynb"))
    (tmp_path / "p.yaml").write_text("seed: 0\n")
    prev = tmp_path / "out" / "notebooks" / "tiny.ipynb"
    prev.parent.mkdir(parents=True); prev.write_text('{"previous": true}')
    return tmp_path, prev


def _disk_full_after(monkeypatch, ok_writes: int):
    "papermill's local write: the first `ok_writes` succeed, then each writes 10 characters and raises ENOSPC."
    import papermill.iorw as io
    orig, n = io.LocalHandler.write, [0]
    def write(self, buf, path):
        n[0] += 1
        if n[0] <= ok_writes: return orig(self, buf, path)
        with open(path, "w", encoding="utf-8") as f: f.write(buf[:10])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
    monkeypatch.setattr(io.LocalHandler, "write", write)
    return n


def _only_previous(prev):
    assert prev.read_text() == '{"previous": true}'
    assert sorted(p.name for p in prev.parent.iterdir()) == ["tiny.ipynb"]   # no partial or 0-byte file left


def test_enospc_on_the_first_save_is_a_failure_record(tiny, monkeypatch):
    from guilab.reproduce import run_notebook
    d, prev = tiny
    _disk_full_after(monkeypatch, 0)
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", progress=False)   # before: raised NotJSONError
    assert r["status"] == "failed" and r["modules"] is None and r["outputs"] == []
    assert "No space left on device" in r["error"] and "\n" not in r["error"]
    assert r["executed"] == str(prev.resolve())
    _only_previous(prev)


def test_enospc_after_the_kernel_ran_is_a_failure_record(tiny, monkeypatch):
    from guilab.reproduce import run_notebook
    d, prev = tiny
    n = _disk_full_after(monkeypatch, 1)      # the start-of-run save succeeds; a save after a cell ran hits the full disk
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", progress=False)
    assert n[0] >= 2 and r["status"] == "failed" and r["error"].startswith("OSError: [Errno 28] No space left on device")
    _only_previous(prev)


def test_lone_surrogate_override_is_refused_clearly(tiny):
    from guilab.reproduce import run_notebook
    d, prev = tiny
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", overrides=["name=ab\ud83d"], progress=False)
    assert r["status"] == "failed" and r["seconds"] < 5
    assert "override 'name=ab\\ud83d' holds a lone surrogate '\\ud83d' at position 7" in r["error"]
    r["error"].encode("utf-8"); json.dumps(r, ensure_ascii=False).encode("utf-8")   # the manifest can record it
    _only_previous(prev)


def test_lone_surrogate_inside_the_notebook_leaves_no_empty_file(tiny):
    # JSON may spell a lone surrogate as "\ud83d": nbformat reads it, papermill's UTF-8 write then fails after
    # truncating the output (a 0-byte notebook before)
    from guilab.reproduce import run_notebook
    d, prev = tiny
    raw = json.loads((d / "tiny.ipynb").read_text())
    raw["cells"].append({"cell_type": "markdown", "id": "s1", "metadata": {}, "source": "half an emoji: \ud83d"})
    (d / "tiny.ipynb").write_text(json.dumps(raw))        # ensure_ascii: the file holds the escape \ud83d
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", progress=False)
    assert r["status"] == "failed" and "UnicodeEncodeError" in r["error"] and "surrogates not allowed" in r["error"]
    r["error"].encode("utf-8")
    _only_previous(prev)


def test_successful_run_replaces_the_previous_copy(tiny):
    from guilab.reproduce import run_notebook
    d, prev = tiny
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", progress=False)
    assert (r["status"], r["error"]) == ("ok", "")
    nb = nbformat.read(str(prev), as_version=4)
    assert [o.get("text") for o in nb.cells[-1].outputs] == ["42\n"]
    assert sorted(p.name for p in prev.parent.iterdir()) == ["tiny.ipynb"]


def test_one_override_string_is_one_override(tiny):
    """`overrides` given as one "key=value" string reaches the kernel as that one override, not as its characters;
    a lone surrogate in it is refused naming the whole override."""
    from guilab.reproduce import run_notebook
    d, prev = tiny
    raw = json.loads((d / "tiny.ipynb").read_text())
    raw["cells"][1]["source"] = "print(overrides)"
    (d / "tiny.ipynb").write_text(json.dumps(raw))
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", overrides="seed=1", progress=False)
    assert r["status"] == "ok", r["error"]
    assert [o.get("text") for o in nbformat.read(str(prev), as_version=4).cells[-1].outputs] == ["['seed=1']\n"]
    r = run_notebook(d / "tiny.ipynb", d / "p.yaml", d / "out", overrides="name=ab\ud83d", progress=False)
    assert r["status"] == "failed" and "override 'name=ab\\ud83d' holds a lone surrogate" in r["error"]
