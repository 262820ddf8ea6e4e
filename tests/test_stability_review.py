"Cases from a review of guilab.stability (docs/metrics.md; docs/what-an-agent-may-see.md): exact Spearman at n = 8, clear errors for bad subgraphs."
import math
import pytest
from guilab.stability.analysis import spearman_test
from guilab.stability.metrics import trajectory_metrics


def test_exact_spearman_at_n8_walks_n_factorial_pairings():
    rho, p = spearman_test(list(range(1, 9)), list(range(8, 0, -1)))
    assert rho == pytest.approx(-1.0) and p == pytest.approx(2 / 40320)
    rho, p = spearman_test([1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 4, 3, 6, 5, 8, 7])
    assert rho == pytest.approx(1 - 6 * 8 / (8 * 63)) and 0 < p < 0.01


def test_exact_spearman_small_n_value():
    assert spearman_test([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])[1] == pytest.approx(2 / 120)


@pytest.mark.parametrize("perms", [0, -1])
def test_permutations_must_be_positive(perms):
    with pytest.raises(ValueError, match="permutations >= 1"):
        spearman_test(range(12), range(12), permutations=perms)


@pytest.mark.parametrize("key", ["goal", "start"])
def test_goal_or_start_outside_the_subgraph_is_a_clear_error(key):
    sub = {"task": "t", "nodes": ["s", "a", "g"], "edges": [["s", "a"], ["a", "g"]], "start": "s", "goal": "g", "app": "x"}
    sub[key] = "zz"
    traj = {"model": "m", "task": "t", "condition": "concise", "states": ["s", "a"], "actions": [{"type": "click"}], "success": False}
    with pytest.raises(ValueError, match=f"{key} 'zz' is not among its nodes"):
        trajectory_metrics(traj, sub)
