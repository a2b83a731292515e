"""Hidden checks for the Chow-Liu exercises (lecture 06, CS446 "Learning Tree Dependent
Distributions").

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mllib import bayes, chowliu
from mllib.grading import Case, check_cases, seeded

_rng = seeded(20260606)


def _sample(offset: int, n: int, m: int) -> tuple[bayes.TreeDistribution, np.ndarray]:
    rng = _rng(offset)
    truth = bayes.random_tree(n, seed=rng)
    return truth, bayes.sample(truth, m, seed=rng)


def mutual_information(student: Callable) -> None:
    """Check ``mutual_information(x, y)`` for two binary vectors, in nats."""

    def pair(x, y):
        return chowliu.mutual_information(np.column_stack([x, y]))[0, 1]

    truth, X = _sample(1, 6, 400)
    parent, child = truth.edges[0]
    far = [i for i in range(6) if i not in (parent, child)]
    cases = [
        Case("a variable and its parent in a tree", (X[:, parent], X[:, child])),
        Case("two variables that are only weakly related", (X[:, far[0]], X[:, far[-1]])),
        Case("a variable with itself (the answer is its entropy)", (X[:, 0], X[:, 0])),
        Case("a variable and its negation", (X[:, 1], 1 - X[:, 1])),
        Case("a column that is always 1 (use 0·log 0 = 0)", (np.ones(400), X[:, 2])),
    ]
    check_cases(student, pair, cases, name="mutual_information")


def _undirected(edges) -> list[tuple[int, int]]:
    """Edges as sorted (small, large) pairs in sorted order, to compare trees as sets."""
    return sorted(tuple(sorted(int(v) for v in edge)) for edge in edges)


def spanning_tree(student: Callable) -> None:
    """Check ``maximum_spanning_tree(W)`` returns the n - 1 edges of the heaviest tree."""
    rng = _rng(10)

    def weights(n: int) -> np.ndarray:
        W = rng.permutation(n * n).reshape(n, n) / (n * n)  # distinct: one best tree
        return W + W.T

    trap = np.array([[0, 9, 8, 1], [9, 0, 7, 2], [8, 7, 0, 3], [1, 2, 3, 0]], dtype=float)
    cases = [
        Case("5 vertices", (weights(5),)),
        Case("9 vertices", (weights(9),)),
        Case("4 vertices whose three heaviest edges form a cycle", (trap,)),
        Case("2 vertices", (weights(2),)),
    ]
    check_cases(lambda W: _undirected(student(W)),
                lambda W: _undirected(chowliu.maximum_spanning_tree(W)), cases,
                name="maximum_spanning_tree")


def fit_cpts(student: Callable) -> None:
    """Check ``fit_cpts(X, parents, s)`` returns the (n, 2) table of Laplace-smoothed CPTs."""

    def fit(X, parents, s):
        edges = [(int(p), child) for child, p in enumerate(parents) if p >= 0]
        return chowliu.fit_tree(X, edges, smoothing=s).cpt

    truth, X = _sample(15, 6, 200)
    cases = [
        Case("200 rows of a random tree, s = 1", (X, truth.parents, 1.0)),
        Case("the same data with s = 0.5", (X, truth.parents, 0.5)),
        Case("a chain x0 -> x1 -> ... -> x5, s = 2", (X, np.arange(-1, 5), 2.0)),
        Case("only 3 rows, so some parent value never occurs", (X[:3], truth.parents, 1.0)),
    ]
    check_cases(student, fit, cases, name="fit_cpts")


def tree_log_likelihood(student: Callable) -> None:
    """Check ``tree_log_likelihood(X, parents, cpt)`` = Σ over rows of log P_T(x)."""

    def score(X, parents, cpt):
        return chowliu.log_likelihood(bayes.tree_distribution(parents, cpt), X)

    truth, X = _sample(20, 7, 300)
    chain_cpt = np.tile([0.3, 0.8], (7, 1))
    chain_cpt[0] = 0.6  # the root, x0
    cases = [
        Case("a sample of 300 rows from a random tree", (X, truth.parents, truth.cpt)),
        Case("a chain x0 -> x1 -> ... -> x6", (X, np.arange(-1, 6), chain_cpt)),
        Case("a single row", (X[:1], truth.parents, truth.cpt)),
    ]
    check_cases(student, score, cases, name="tree_log_likelihood")


def chow_liu(student: Callable) -> None:
    """Check ``chow_liu_parents(X, root)`` returns each variable's parent (-1 at the root)."""

    def parents(X, root):
        return bayes.parents_from_edges(chowliu.chow_liu_tree(X, root), X.shape[1])

    _, small = _sample(30, 5, 3000)
    _, large = _sample(31, 8, 5000)
    cases = [
        Case("5 variables, rooted at variable 0", (small, 0)),
        Case("5 variables, rooted at variable 3", (small, 3)),
        Case("8 variables, rooted at variable 6", (large, 6)),
    ]
    check_cases(student, parents, cases, name="chow_liu_parents")
