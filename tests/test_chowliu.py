"""Tests for mllib.chowliu (CS446 "Learning Tree Dependent Distributions", seed 001).

Oracles: scikit-learn's mutual_info_score and pgmpy's TreeSearch (Chow-Liu), both test-only;
scipy's minimum spanning tree; brute force over every labelled tree (Prüfer sequences) and over
all 2ⁿ assignments; the slides' likelihood of Distribution 3; counts done by hand.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from scipy.sparse.csgraph import minimum_spanning_tree
from sklearn.metrics import mutual_info_score

from mllib.bayes import joint, random_tree, sample, tree_distribution
from mllib.chowliu import (
    chow_liu_tree,
    fit_tree,
    kl_divergence,
    log_likelihood,
    maximum_spanning_tree,
    mutual_information,
    orient,
    total_information,
)
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import chowliu as check

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # pgmpy 1.1 announces a renamed module
    from pgmpy.estimators import TreeSearch

FAST = examples(30)
SLIDES_DATA = [[1, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 0]]  # CS446: 1011, 1001, 0100


def prufer_trees(n):
    """Every labelled tree on n vertices as a set of undirected edges (Cayley: n^(n-2) trees)."""
    for code in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for v in code:
            degree[v] += 1
        edges = []
        for v in code:
            leaf = min(u for u in range(n) if degree[u] == 1)
            edges.append((leaf, v))
            degree[leaf] -= 1
            degree[v] -= 1
        u, w = (v for v in range(n) if degree[v] == 1)
        edges.append((u, w))
        yield edges


def undirected(edges):
    return {frozenset(edge) for edge in edges}


# --- Mutual information -------------------------------------------------------------------------


def test_mutual_information_on_the_slides_data_by_hand():
    # x1 = (1, 1, 0) and x4 = (1, 1, 0) are equal: I = H = log 3 - (2/3) log 2.
    # x1 and x3 = (1, 0, 0): P(1,1) = P(1,0) = P(0,0) = 1/3, so
    # I = 1/3 log(3/2) + 1/3 log(3/4) + 1/3 log(3/2) = (1/3) log(27/16).
    mi = mutual_information(SLIDES_DATA)
    assert mi[0, 3] == pytest.approx(math.log(3) - 2 / 3 * math.log(2), rel=1e-14)
    assert mi[0, 2] == pytest.approx(math.log(27 / 16) / 3, rel=1e-14)
    assert mi[0, 0] == pytest.approx(math.log(3) - 2 / 3 * math.log(2), rel=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mutual_information_matches_sklearn_for_every_pair(seed):
    X = sample(random_tree(9, seed=seed), 3000, seed=seed)
    X[:, 4] = 1.0  # a constant column has no information
    X[:, 7] = X[:, 2]  # a copy shares all of it
    X[:, 8] = 1 - X[:, 3]  # so does a negation
    mi = mutual_information(X)
    for i, j in itertools.product(range(9), repeat=2):
        assert mi[i, j] == pytest.approx(mutual_info_score(X[:, i], X[:, j]), abs=1e-12), (i, j)


def test_mutual_information_is_symmetric_and_accepts_booleans():
    X = sample(random_tree(6, seed=3), 500, seed=1)
    mi = mutual_information(X.astype(bool))
    assert np.array_equal(mi, mi.T)
    np.testing.assert_array_equal(mi, mutual_information(X.astype(np.int8)))


# --- Spanning trees -----------------------------------------------------------------------------


@FAST
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_maximum_spanning_tree_beats_every_other_tree(n, seed):
    rng = np.random.default_rng(seed)
    W = rng.integers(0, 5, (n, n)).astype(float)  # small integers: ties happen
    W = W + W.T
    edges = maximum_spanning_tree(W)
    assert len(edges) == n - 1 and len(undirected(edges)) == n - 1
    orient(edges, 0)  # connects all vertices, or raises
    best = max(sum(W[i, j] for i, j in tree) for tree in prufer_trees(n))
    assert total_information(W, edges) == best


@pytest.mark.parametrize("seed", range(5))
def test_maximum_spanning_tree_weight_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    W = rng.random((25, 25))
    W = W + W.T
    # scipy finds a minimum spanning tree; weights 10 - W are positive and reverse the order.
    reference = minimum_spanning_tree(10 - W).toarray()
    reference_weight = float(np.sum(10 - reference[reference > 0]))
    assert total_information(W, maximum_spanning_tree(W)) == pytest.approx(reference_weight)


def test_orient_points_every_edge_away_from_the_root():
    edges = [(0, 1), (1, 2), (1, 3), (3, 4)]
    assert orient(edges, 0) == [(0, 1), (1, 2), (1, 3), (3, 4)]
    assert orient(edges, 4) == [(4, 3), (3, 1), (1, 0), (1, 2)]
    assert orient([(2, 1), (1, 0)], 2) == [(2, 1), (1, 0)]


# --- Chow-Liu against pgmpy ---------------------------------------------------------------------


def pgmpy_chow_liu(X):
    data = pd.DataFrame(X.astype(int), columns=[f"x{i}" for i in range(X.shape[1])])
    model = TreeSearch(data, root_node="x0", n_jobs=1).estimate(estimator_type="chow-liu",
                                                                 show_progress=False)
    return [(int(u[1:]), int(v[1:])) for u, v in model.edges()]


@pytest.mark.parametrize(("n", "m", "seed"), [(5, 2000, 0), (7, 3000, 1), (8, 1000, 2),
                                              (6, 40, 3), (6, 15, 4)])
def test_chow_liu_tree_matches_pgmpy_tree_search(n, m, seed):
    X = sample(random_tree(n, seed=seed), m, seed=seed + 10)
    mine, theirs = chow_liu_tree(X), pgmpy_chow_liu(X)
    assert len(theirs) == n - 1
    if undirected(mine) != undirected(theirs):  # ties (likely with 15 samples): compare weight
        mi = mutual_information(X)
        assert total_information(mi, mine) == pytest.approx(total_information(mi, theirs),
                                                            rel=1e-12)


def test_chow_liu_recovers_the_true_tree_from_a_large_sample():
    truth = random_tree(12, seed=7)
    X = sample(truth, 20_000, seed=8)
    learned = chow_liu_tree(X, root=truth.root)
    assert undirected(learned) == undirected(truth.edges)
    parents = dict((child, parent) for parent, child in learned)
    assert all(parents[child] == parent for parent, child in truth.edges)


def test_chow_liu_tree_has_the_highest_likelihood_of_all_125_trees():
    # The theorem behind the algorithm: with CPTs at the sample frequencies, log P(D | T) =
    # m Σ I(edges) - m Σ H(xᵢ), so the maximum-MI tree is the maximum-likelihood tree.
    X = sample(random_tree(5, seed=5), 300, seed=6)
    def score(edges):
        return log_likelihood(fit_tree(X, orient(edges, 0), smoothing=1e-12), X)
    best = max(score(edges) for edges in prufer_trees(5))
    assert score(chow_liu_tree(X)) == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize("root", [0, 2, 5])
def test_chow_liu_tree_is_directed_from_the_chosen_root(root):
    X = sample(random_tree(6, seed=9), 2000, seed=1)
    edges = chow_liu_tree(X, root=root)
    assert edges[0][0] == root
    children = [child for _, child in edges]
    assert sorted(children + [root]) == list(range(6))
    assert undirected(edges) == undirected(chow_liu_tree(X, root=0))


# --- Fitting and scoring ------------------------------------------------------------------------


def test_fit_tree_counts_with_laplace_smoothing():
    # Tree x4 -> x1, x4 -> x2, x2 -> x3 (the slides' Distribution 3) on 1011, 1001, 0100:
    # x4 = 1 twice: P(x4=1) = (2+1)/(3+2) = 3/5. Given x4 = 1, x1 = 1 twice: (2+1)/(2+2) = 3/4;
    # given x4 = 0 (once), x1 = 0: (0+1)/(1+2) = 1/3. x2 given x4: 1/4 and 2/3. x3 given x2 = 0
    # (twice, once on): 2/4; given x2 = 1 (once, off): 1/3.
    tree = fit_tree(SLIDES_DATA, [(3, 0), (3, 1), (1, 2)])
    np.testing.assert_allclose(tree.cpt, [[1 / 3, 3 / 4], [2 / 3, 1 / 4], [2 / 4, 1 / 3],
                                          [3 / 5, 3 / 5]], rtol=1e-14)


def test_fit_tree_without_smoothing_gives_the_frequencies():
    X = sample(random_tree(5, seed=1), 5000, seed=2)
    edges = chow_liu_tree(X, root=1)
    tree = fit_tree(X, edges, smoothing=1e-12)
    assert tree.cpt[1, 0] == pytest.approx(X[:, 1].mean())
    for parent, child in edges:
        for v in (0, 1):
            rows = X[:, parent] == v
            assert tree.cpt[child, v] == pytest.approx(X[rows, child].mean(), abs=1e-12)


def test_log_likelihood_of_distribution_3_is_the_slides_value():
    tree = tree_distribution([3, 3, 1, -1], [[1 / 3, 1], [1, 1 / 2], [2 / 3, 1 / 6], [2 / 3] * 2])
    assert log_likelihood(tree, SLIDES_DATA) == pytest.approx(math.log(10 / 3**7), rel=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_kl_divergence_matches_enumeration(seed):
    truth = random_tree(7, seed=seed)
    model = fit_tree(sample(truth, 200, seed=seed), chow_liu_tree(sample(truth, 200, seed=seed)))
    X = np.array(list(itertools.product([0, 1], repeat=7)), dtype=float)
    p, t = joint(truth, X), joint(model, X)
    assert kl_divergence(truth, model) == pytest.approx(float(np.sum(p * np.log(p / t))),
                                                        rel=1e-10)
    assert kl_divergence(truth, truth) == pytest.approx(0.0, abs=1e-12)


def test_kl_divergence_is_infinite_when_the_model_rules_out_a_possible_point():
    truth = tree_distribution([-1, 0], [[0.5, 0.5], [0.2, 0.8]])
    model = tree_distribution([-1, 0], [[1.0, 1.0], [0.2, 0.8]])
    assert kl_divergence(truth, model) == math.inf
    assert kl_divergence(model, truth) == pytest.approx(math.log(2))


# --- Bad input ----------------------------------------------------------------------------------

X_OK = [[0, 1, 1], [1, 1, 0]]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mutual_information([[0, 1], [1, 2]]), r"binary"),
        (lambda: mutual_information([[0, 1], [1, 0.999]]), r"binary"),
        (lambda: mutual_information([[0, 1], [1, np.nan]]), r"binary"),
        (lambda: mutual_information([[0], [1]]), r"1 variable\(s\) \(columns\); at least 2"),
        (lambda: mutual_information(np.empty((0, 3))), r"empty"),
        (lambda: mutual_information([0, 1, 1]), r"2-D array"),
        (lambda: chow_liu_tree(X_OK, root=3), r"root must be a variable index in 0..2"),
        (lambda: chow_liu_tree(X_OK, root=-1), r"root must be"),
        (lambda: chow_liu_tree([[0, 1, 1], [1, 1, 3]]), r"binary"),
        (lambda: maximum_spanning_tree(np.ones((2, 3))), r"square matrix"),
        (lambda: maximum_spanning_tree([[0, 1], [2, 0]]), r"symmetric"),
        (lambda: maximum_spanning_tree([[0.0]]), r"at least 2"),
        (lambda: orient([(0, 1), (0, 1)], 0), r"do not connect"),
        (lambda: orient([(0, 3)], 0), r"not between two"),
        (lambda: fit_tree(X_OK, [(0, 1), (0, 2)], smoothing=-1), r"smoothing must be"),
        (lambda: fit_tree(X_OK, [(0, 1), (2, 1)]), r"two parents"),
        (lambda: fit_tree(X_OK, [(0, 1)]), r"exactly one root"),
        (lambda: log_likelihood(tree_distribution([-1, 0], [[0.5] * 2] * 2), X_OK), r"3 variables"),
        (lambda: kl_divergence(random_tree(3), random_tree(4)), r"3 and 4 variables"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- The exercise notebook's hidden-test checkers -----------------------------------------------


def student_mi(x, y):  # plain numpy, as a student would write it
    info = 0.0
    for a, b in itertools.product((0, 1), repeat=2):
        p_ab = np.mean((x == a) & (y == b))
        if p_ab > 0:
            info += p_ab * np.log(p_ab / (np.mean(x == a) * np.mean(y == b)))
    return info


def student_mst(W):
    in_tree, edges = {0}, []
    while len(in_tree) < len(W):
        i, j = max(((i, j) for i in in_tree for j in range(len(W)) if j not in in_tree),
                   key=lambda edge: W[edge[0]][edge[1]])
        edges.append((j, i))  # any order of the pair, and of the list, is accepted
        in_tree.add(j)
    return edges[::-1]


def student_fit_cpts(X, parents, s, *, pseudo=2):
    cpt = np.zeros((X.shape[1], 2))
    for i, parent in enumerate(parents):
        if parent < 0:
            cpt[i] = (X[:, i].sum() + s) / (len(X) + pseudo * s)
        else:
            for v in (0, 1):
                rows = X[:, parent] == v
                cpt[i, v] = (X[rows, i].sum() + s) / (rows.sum() + pseudo * s)
    return cpt


def student_loglik(X, parents, cpt):
    total = 0.0
    for i, parent in enumerate(parents):
        p_one = cpt[i][0] if parent < 0 else np.where(X[:, parent] == 1, cpt[i][1], cpt[i][0])
        total += np.sum(np.log(np.where(X[:, i] == 1, p_one, 1 - p_one)))
    return total


def student_chow_liu(X, root):
    n = X.shape[1]
    W = [[student_mi(X[:, i], X[:, j]) for j in range(n)] for i in range(n)]
    parents = np.full(n, -1)
    for parent, child in orient(student_mst(W), root):
        parents[child] = parent
    return parents


@pytest.mark.parametrize("checker, answer", [
    (check.mutual_information, student_mi),
    (check.spanning_tree, student_mst),
    (check.fit_cpts, student_fit_cpts),
    (check.tree_log_likelihood, student_loglik),
    (check.chow_liu, student_chow_liu),
])
def test_checkers_pass_plain_numpy_answers(checker, answer):
    run_check(checker(), answer)


def greedy_heaviest_edges(W):  # the slip: the n - 1 heaviest edges, cycles and all
    n = len(W)
    ranked = sorted(((W[i][j], i, j) for i in range(n) for j in range(i + 1, n)), reverse=True)
    return [(i, j) for _, i, j in ranked[: n - 1]]


@pytest.mark.parametrize("checker, answer, hint", [
    (check.mutual_information, lambda x, y: student_mi(x, y) / math.log(2), "its parent"),
    (check.spanning_tree, greedy_heaviest_edges, "vertices"),
    (check.spanning_tree, lambda W: student_mst(-np.asarray(W)), "5 vertices"),
    (check.fit_cpts, lambda X, parents, s: student_fit_cpts(X, parents, s, pseudo=1), "s = 1"),
    (check.tree_log_likelihood, lambda X, parents, cpt: student_loglik(X[1:], parents, cpt),
     "300 rows"),
    (check.chow_liu, lambda X, root: student_chow_liu(X, 0), "rooted at variable 3"),
])
def test_checkers_fail_wrong_answers_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"
