"""Hidden checkers of lecture 06: with tied informations any maximum-weight tree is right (the
statements of Exercises 2 and 5 say so), and a lighter tree is wrong."""

import numpy as np
import pytest

from mllib import bayes, chowliu
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import chowliu as check


def _mutual_information(X):
    return chowliu.mutual_information(np.asarray(X, dtype=float))


def _parents(edges, n, root):
    return bayes.parents_from_edges(chowliu.orient(edges, root), n).tolist()


def prim_last_tie(W):
    """Prim from the last vertex, ties to the higher index: another tie rule than mllib's."""
    W = np.asarray(W, dtype=float)
    n = len(W)
    inside, edges = {n - 1}, []
    while len(inside) < n:
        weight, i, j = max((W[i, j], i, j) for i in inside for j in range(n) if j not in inside)
        edges.append((i, j))
        inside.add(j)
    return edges


def chow_liu_other_ties(X, root):
    X = np.asarray(X)
    return _parents(prim_last_tie(_mutual_information(X)), X.shape[1], root)


def chow_liu_drop_heaviest(X, root):  # wrong: a spanning tree, but not a heaviest one
    X = np.asarray(X)
    W = _mutual_information(X)
    edges = prim_last_tie(W)
    weights = [W[i, j] for i, j in edges]
    i, j = edges.pop(int(np.argmax(weights)))
    # reconnect j's side through the lightest edge that joins the two parts again
    side = {j}
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            if (a in side) != (b in side):
                side |= {a, b}
                changed = True
    n = X.shape[1]
    crossing = [(W[a, b], a, b) for a in side for b in range(n) if b not in side]
    _, a, b = min(crossing)
    return _parents([*edges, (a, b)], n, root)


def test_the_tie_case_really_has_several_maximum_trees():
    (case,) = [c for c in check.chow_liu().cases if "identical" in c.hint]
    X, root = case.args
    mine = bayes.parents_from_edges(chowliu.chow_liu_tree(X, root), X.shape[1]).tolist()
    other = chow_liu_other_ties(X, root)
    assert mine != other  # a different tree ...
    mi = _mutual_information(X)
    weight = [chowliu.total_information(mi, [(p, c) for c, p in enumerate(t) if p >= 0])
              for t in (mine, other)]
    assert weight[0] == pytest.approx(weight[1], rel=1e-12)  # ... of the same total weight


def test_any_maximum_weight_tree_passes_and_a_lighter_one_fails():
    run_check(check.chow_liu(), chow_liu_other_ties)
    run_check(check.spanning_tree(), prim_last_tie)
    with pytest.raises(ExerciseFailed, match="heavier spanning tree exists"):
        run_check(check.chow_liu(), chow_liu_drop_heaviest)


def _statement(grade_id: str) -> str:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "solutions/06_chowliu/chowliu_exercises.ipynb"
    (cell,) = [c for c in json.loads(path.read_text())["cells"]
               if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return " ".join("".join(cell["source"]).split())


def test_exercise_3_asks_for_a_positive_pseudo_count_and_the_hidden_cases_keep_it():
    # Review: s = 0 gave 0/0 for a parent value that never occurs (mllib raises). The statement
    # now says s > 0, every hidden case has s > 0, and the case whose parent value never occurs
    # gets s / 2s = 1/2 there, as the statement says.
    assert "$s > 0$" in _statement("q_fit_cpts")
    cases = check.fit_cpts().cases
    assert all(case.args[2] > 0 for case in cases)
    (sparse,) = [c for c in cases if "never occurs" in c.hint]
    X, parents, s = sparse.args
    cpt = check.fit_cpts().reference(X, parents, s)
    unseen = [(i, v) for i, p in enumerate(parents) if p >= 0 for v in (0, 1)
              if not np.any(np.asarray(X)[:, p] == v)]
    assert unseen and all(cpt[i, v] == 0.5 for i, v in unseen)
    with pytest.raises(ValueError, match="smoothing"):
        chowliu.fit_tree(X, [(int(p), c) for c, p in enumerate(parents) if p >= 0], smoothing=0)


def test_exercise_4_says_a_row_of_probability_zero_gives_minus_infinity():
    # Review: the statement did not say what a row of probability 0 gives. It says -inf, which
    # is what mllib returns on Distribution 3 for the row 0001 (x4 = 1 forces x1 = 1); the hidden
    # cases keep every CPT entry strictly inside (0, 1), so their answers are finite.
    assert "$-\\infty$" in _statement("q_tree_loglik")
    chain = bayes.tree_distribution([3, 3, 1, -1], [[1 / 3, 1], [1, 1 / 2], [2 / 3, 1 / 6],
                                                    [2 / 3, 2 / 3]])
    with np.errstate(divide="ignore"):
        assert chowliu.log_likelihood(chain, [[0, 0, 0, 1]]) == -np.inf
    for case in check.tree_log_likelihood().cases:
        cpt = np.asarray(case.args[2])
        assert np.all((cpt > 0) & (cpt < 1)), case.hint


def test_exercise_4_warns_that_the_vectorised_bernoulli_log_is_nan_on_the_visible_test():
    # Review r2: the visible test's Distribution 3 has CPT entries equal to 1, so the usual
    # x log p + (1-x) log(1-p) computes 0·(-inf) = nan on the slides' row 1011, which the tree
    # allows (its likelihood is 2/9). The statement warns about it.
    x = np.array([1, 0, 1, 1])
    parents = np.array([3, 3, 1, -1])
    cpt = np.array([[1 / 3, 1], [1, 1 / 2], [2 / 3, 1 / 6], [2 / 3, 2 / 3]])
    p = cpt[np.arange(4), np.where(parents >= 0, x[parents], 0)]
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(np.sum(x * np.log(p) + (1 - x) * np.log(1 - p)))
    assert np.sum(np.log(np.where(x == 1, p, 1 - p))) == pytest.approx(np.log(2 / 9), rel=1e-12)
    statement = " ".join(_statement("q_tree_loglik").split())
    assert "select the factor $P$ or $1 - P$ *before* taking the log" in statement
    assert "`nan` in floating point" in statement
