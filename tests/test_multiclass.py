"""Tests for mllib.multiclass.

Oracles: scikit-learn's OneVsRestClassifier, OneVsOneClassifier and LinearSVC (Crammer-Singer),
scipy's SLSQP on the hard multiclass SVM's quadratic programme,
plain loops written here from the CS446 slides' pseudocode, the slides' worked statements typed
as literals, and properties (convergence on separable data, separation of the Kesler expansion).
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.svm import LinearSVC

from mllib import multiclass
from mllib.multiclass import (
    all_vs_all,
    as_classes,
    ecoc,
    hamming_decode,
    kesler,
    multiclass_margins,
    multiclass_objective,
    multiclass_perceptron,
    multiclass_svm,
    multiclass_svm_dual,
    one_vs_all,
    predict_all_vs_all,
    predict_ecoc,
    predict_linear,
    predict_one_vs_all,
    svm_learner,
    votes,
)
from mllib.perceptron import perceptron


def separable_classes(n: int, k: int, d: int, seed: int, margin: float = 0.3):
    """n points labelled argmax_i w*_i·x by a random W* (k, d), each with multiclass margin >=
    ``margin``: linearly separable in the multiclass sense. Returns X (n, d), y (n,)."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(k, d))
    kept = []
    while sum(map(len, kept)) < n:
        X = rng.uniform(-3, 3, size=(4 * n, d))
        y = np.argmax(X @ W.T, axis=1)
        kept.append(X[multiclass_margins(W, X, y) >= margin])
    X = np.vstack(kept)[:n]
    return X, np.argmax(X @ W.T, axis=1)


def with_bias(X):
    return np.hstack([X, np.ones((len(X), 1))])


def blobs(n: int, seed: int, centres=((0, 3), (-3, -2), (3, -2), (0, 0))):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, len(centres), n)
    return np.asarray(centres, float)[y] + rng.normal(scale=0.6, size=(n, 2)), y


# --- The multiclass perceptron ---------------------------------------------------------------


def plain_loop(X, y, k, conservative, epochs):
    """The CS446 rules written out with Python loops."""
    W = [[0.0] * X.shape[1] for _ in range(k)]
    history = []
    for _ in range(epochs):
        for index in range(len(y)):
            x, label = X[index], y[index]
            score = [sum(wj * xj for wj, xj in zip(W[c], x, strict=True)) for c in range(k)]
            wrong = [c for c in range(k) if c != label and score[c] >= score[label]]
            if not wrong:
                continue
            if conservative:
                best = max(score[c] for c in wrong)
                wrong = [min(c for c in wrong if score[c] == best)]
            for c in wrong:
                W[c] = [wj - xj for wj, xj in zip(W[c], x, strict=True)]
                W[label] = [wj + xj for wj, xj in zip(W[label], x, strict=True)]
            history.append((index, tuple(wrong)))
    return np.array(W), history


@pytest.mark.parametrize("conservative", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_multiclass_perceptron_equals_a_plain_loop(conservative, seed):
    X, y = blobs(40, seed)
    X = np.round(X, 1)  # one decimal: the loop's and numpy's sums agree, ties do occur
    run = multiclass_perceptron(X, y, k=4, conservative=conservative, max_epochs=3)
    W, history = plain_loop(X, y, 4, conservative, run.epochs)
    np.testing.assert_allclose(run.W, W, atol=1e-9)
    assert [(u.index, u.demoted) for u in run.history] == history


def test_w0_continues_a_run():
    X, y = blobs(30, 4)
    one = multiclass_perceptron(X, y, k=4, max_epochs=1)
    two = multiclass_perceptron(X, y, k=4, max_epochs=2)
    resumed = multiclass_perceptron(X, y, k=4, max_epochs=1, W0=one.W)
    np.testing.assert_array_equal(resumed.W, two.W)
    with pytest.raises(ValueError, match="W0 must have shape"):
        multiclass_perceptron(X, y, k=4, W0=np.zeros((3, 2)))


def test_the_first_update_breaks_the_all_zero_tie_to_the_lowest_rival():
    run = multiclass_perceptron([[1.0, 2.0]], [2], k=4, max_epochs=1)
    np.testing.assert_array_equal(run.history[0].W, [[-1, -2], [0, 0], [1, 2], [0, 0]])
    full = multiclass_perceptron([[1.0, 2.0]], [2], k=4, conservative=False, max_epochs=1)
    np.testing.assert_array_equal(full.history[0].W, [[-1, -2], [-1, -2], [3, 6], [-1, -2]])


@pytest.mark.parametrize("conservative", [True, False])
@pytest.mark.parametrize(("k", "d", "seed"), [(3, 2, 0), (4, 3, 1), (6, 4, 2)])
def test_multiclass_perceptron_converges_on_separable_data(conservative, k, d, seed):
    X, y = separable_classes(120, k, d, seed)
    run = multiclass_perceptron(X, y, k=k, conservative=conservative, max_epochs=500)
    assert run.converged
    assert np.array_equal(predict_linear(run.W, X), y)
    assert np.all(multiclass_margins(run.W, X, y) > 0)


def test_kesler_expansion_has_the_slides_shape_and_rows():
    # CS446: x_ij = (0, x, 0, -x) for k = 4, label 2 against label 4 (here classes 1 and 3).
    X = np.array([[1.0, 2.0]])
    Xk, yk = kesler(X, [1], 4)
    assert Xk.shape == (2 * 1 * 3, 4 * 2) and yk.tolist() == [1, -1] * 3
    np.testing.assert_array_equal(Xk[4], [0, 0, 1, 2, 0, 0, -1, -2])
    np.testing.assert_array_equal(Xk[5], -Xk[4])


@pytest.mark.parametrize(("k", "d", "seed"), [(3, 2, 3), (5, 3, 4)])
def test_a_binary_perceptron_separates_the_kesler_expansion(k, d, seed):
    X, y = separable_classes(60, k, d, seed)
    Xk, yk = kesler(X, y, k)
    assert Xk.shape == (2 * 60 * (k - 1), k * d)
    run = perceptron(Xk, yk, max_epochs=500)
    assert run.converged and np.all(yk * (Xk @ run.w) > 0)
    # Its k·d weights, read as k rows of d, classify the original data by winner-take-all.
    assert np.array_equal(predict_linear(run.w.reshape(k, d), X), y)


# --- One-vs-all and all-vs-all against scikit-learn -------------------------------------------


class MllibPerceptron(ClassifierMixin, BaseEstimator):
    """scikit-learn wrapper around mllib's binary perceptron: classes_[1] is the +1 class."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.w_ = perceptron(X, np.where(y == self.classes_[1], 1.0, -1.0)).w
        return self

    def decision_function(self, X):
        return X @ self.w_

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


@pytest.mark.parametrize("seed", range(3))
def test_one_vs_all_matches_sklearn_one_vs_rest(seed):
    X, y = blobs(120, seed)
    X = with_bias(X)
    ours = one_vs_all(X, y, k=4)
    theirs = OneVsRestClassifier(MllibPerceptron()).fit(X, y)
    X_new = with_bias(np.random.default_rng(seed + 10).uniform(-5, 5, size=(300, 2)))
    scores = ours.scores(X_new)
    np.testing.assert_allclose(scores, theirs.decision_function(X_new), rtol=1e-12, atol=1e-12)
    ordered = np.sort(scores, axis=1)
    clear = ordered[:, -1] - ordered[:, -2] > 1e-9  # sklearn breaks exact ties the other way
    assert clear.mean() > 0.9
    assert np.array_equal(predict_one_vs_all(ours, X_new)[clear], theirs.predict(X_new)[clear])


@pytest.mark.parametrize("seed", range(3))
def test_all_vs_all_matches_sklearn_one_vs_one(seed):
    X, y = blobs(120, seed)
    X = with_bias(X)
    ours = all_vs_all(X, y, k=4)
    theirs = OneVsOneClassifier(MllibPerceptron()).fit(X, y)
    assert [p for p in ours.problems] == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    X_new = with_bias(np.random.default_rng(seed + 20).uniform(-5, 5, size=(300, 2)))
    # sklearn's pair (i, j) calls j positive, so its perceptron is ours with labels negated,
    # which negates every update: w = -ours exactly.
    for ours_scorer, estimator in zip(ours.scorers, theirs.estimators_, strict=True):
        np.testing.assert_array_equal(ours_scorer(X_new), -estimator.decision_function(X_new))
    counts = np.sort(votes(ours, X_new), axis=1)
    clear = counts[:, -1] > counts[:, -2]  # sklearn breaks vote ties by confidence
    assert clear.mean() > 0.5  # the comparison covers most points
    assert np.array_equal(predict_all_vs_all(ours, X_new)[clear], theirs.predict(X_new)[clear])


def test_all_vs_all_separates_a_middle_class_that_one_vs_all_cannot():
    # Three classes on a line, the middle one between the others: "middle against the rest"
    # is not linearly separable, every pair is.
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-3, -1, 30), rng.uniform(-0.5, 0.5, 30), rng.uniform(1, 3, 30)])
    X, y = with_bias(x[:, None]), np.repeat([0, 1, 2], 30)
    assert np.array_equal(predict_all_vs_all(all_vs_all(X, y, k=3), X), y)
    assert not np.array_equal(predict_one_vs_all(one_vs_all(X, y, k=3), X), y)


def test_all_vs_all_ties_go_to_the_lowest_label():
    # Three classifiers that each vote for their +1 class: 0 beats 1, 1 beats 2, 2 beats 0.
    model = all_vs_all(np.eye(3), [0, 1, 2], k=3)
    cyclic = type(model)(3, ((0, 1), (0, 2), (1, 2)),
                         (lambda Z: np.ones(len(Z)), lambda Z: -np.ones(len(Z)),
                          lambda Z: np.ones(len(Z))))
    assert votes(cyclic, np.zeros((1, 3))).tolist() == [[1, 1, 1]]
    assert predict_all_vs_all(cyclic, np.zeros((1, 3))).tolist() == [0]


def test_learners_can_be_swapped():
    X, y = blobs(60, 5)
    model = one_vs_all(with_bias(X), y, k=4, learner=svm_learner(C=1.0))
    assert (predict_one_vs_all(model, with_bias(X)) == y).mean() > 0.5


# --- Error-correcting output codes ------------------------------------------------------------


def test_hamming_decoding_picks_the_nearest_code_word_lowest_on_ties():
    code = [[1, 1, 1, 1], [-1, -1, 1, 1], [1, -1, -1, -1]]
    bits = [[1, 1, 1, -1],   # distance 1, 3, 2 -> 0
            [-1, -1, -1, 1],  # distance 3, 1, 2 -> 1
            [1, -1, 1, 1]]    # distance 1, 1, 2 -> 0 (tie, lowest)
    assert hamming_decode(bits, code).tolist() == [0, 1, 0]


def test_ecoc_corrects_one_wrong_classifier():
    # Three well-separated blobs, and every split of them into two groups, with both signs:
    # code words 4 apart, so one wrong bit is still decoded right.
    X, y = blobs(150, 6, centres=((0, 4), (-4, -3), (4, -3)))
    X = with_bias(X)
    code = np.array([[1, -1, -1, -1, 1, 1], [-1, 1, -1, 1, -1, 1], [-1, -1, 1, 1, 1, -1]])
    model = ecoc(X, y, code=code)
    assert np.array_equal(predict_ecoc(model, X), y)
    broken = type(model)(3, model.problems, (lambda Z: -model.scorers[0](Z), *model.scorers[1:]),
                         model.code)
    assert np.array_equal(predict_ecoc(broken, X), y)


# --- The multiclass SVM -----------------------------------------------------------------------


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_multiclass_svm_reaches_liblinears_crammer_singer_objective(C):
    X, y = blobs(80, 7)
    X = with_bias(X)
    theirs = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-8,
                       max_iter=100_000).fit(X, y)
    optimum = multiclass_objective(theirs.coef_, X, y, C)
    run = multiclass_svm(X, y, k=4, C=C, eta=0.5, iterations=3000)
    # liblinear solves the same objective to 1e-8; subgradient descent with 1/t steps gets
    # within a fraction of a percent in a few thousand steps.
    assert optimum <= run.objectives.min() <= optimum * 1.01
    assert multiclass_objective(run.W, X, y, C) == pytest.approx(run.objectives.min(), rel=1e-12)


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_the_dual_solver_reaches_liblinears_crammer_singer_optimum(C):
    X, y = blobs(80, 7)
    X = with_bias(X)
    theirs = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-10,
                       max_iter=1_000_000).fit(X, y)
    optimum = multiclass_objective(theirs.coef_, X, y, C)
    run = multiclass_svm_dual(X, y, k=4, C=C)
    # Both solve the same problem; liblinear stops at its own tolerance, so agree to 1e-6.
    assert run.objective == pytest.approx(optimum, rel=1e-6)
    assert 0 <= run.gap <= 1e-6 * run.objective  # the certificate: within 1e-6 of the optimum
    assert np.all(run.alpha >= 0) and np.all(run.alpha.sum(axis=1) <= C * (1 + 1e-12))
    assert np.all(run.alpha[np.arange(len(y)), y] == 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_dual_solver_with_a_large_C_solves_the_hard_qp(seed):
    # Independent optimum: scipy's SLSQP on min ½‖W‖² s.t. (w_y - w_j)·x >= 1, written out
    # constraint by constraint.
    X, y = separable_classes(30, 3, 2, seed, margin=0.5)
    X = with_bias(X)
    k, d = 3, X.shape[1]
    rows = []
    for x, label in zip(X, y, strict=True):
        for j in range(k):
            if j != label:
                row = np.zeros((k, d))
                row[label], row[j] = x, -x
                rows.append(row.ravel())
    A = np.array(rows)
    qp = minimize(lambda w: 0.5 * w @ w, np.zeros(k * d), jac=lambda w: w, method="SLSQP",
                  constraints=[{"type": "ineq", "fun": lambda w: A @ w - 1, "jac": lambda w: A}],
                  options={"maxiter": 1000, "ftol": 1e-14})
    assert qp.success
    run = multiclass_svm_dual(X, y, k=k, C=1e4, iterations=20_000)
    # C = 1e4 is far above the hard problem's total dual weight here, so the soft optimum is the
    # hard one; SLSQP's answer is accurate to about 1e-7.
    assert run.alpha.sum(axis=1).max() < 1e4
    np.testing.assert_allclose(run.W.ravel(), qp.x, atol=1e-5)
    assert 0.5 * np.sum(run.W ** 2) == pytest.approx(0.5 * qp.x @ qp.x, rel=1e-6)
    assert multiclass_margins(run.W, X, y).min() >= 1 - 1e-6


def test_the_dual_projection_is_onto_the_capped_simplex():
    # Each row onto {a >= 0, Σa <= C}: against SLSQP on the projection problem itself.
    rng = np.random.default_rng(11)
    A = rng.normal(0, 2, (20, 4))
    P = multiclass._cap_rows(A, 1.5)
    for a, p in zip(A, P, strict=True):
        best = minimize(lambda v, a=a: 0.5 * np.sum((v - a) ** 2), np.zeros(4), method="SLSQP",
                        bounds=[(0, None)] * 4, constraints=[{"type": "ineq",
                                                              "fun": lambda v: 1.5 - v.sum()}],
                        options={"ftol": 1e-14})
        np.testing.assert_allclose(p, best.x, atol=1e-6)


def test_hard_multiclass_objective_is_infinite_when_a_constraint_fails():
    W = np.array([[1.0, 0.0], [0.0, 1.0]])
    X = np.array([[2.0, 0.0], [0.0, 2.0]])
    assert multiclass_objective(W, X, [0, 1], None) == 1.0
    assert multiclass_objective(W, X, [1, 0], None) == float("inf")
    np.testing.assert_array_equal(multiclass_margins(W, X, [0, 1]), [2.0, 2.0])


# --- Bad input --------------------------------------------------------------------------------


def test_bad_multiclass_input_is_rejected():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="0..2"):
        as_classes([0, 3, 1], 3)
    with pytest.raises(ValueError, match="at least 2"):
        multiclass_perceptron(X, [0, 0, 0], k=1)
    with pytest.raises(ValueError, match="0..1"):
        one_vs_all(X, [0, 1, 2], k=2)
    with pytest.raises(ValueError, match="0..2"):
        kesler(X, [0, 1.5, 2], 3)
    with pytest.raises(ValueError, match="duplicate rows"):
        ecoc(X, [0, 1, 1], code=[[1, -1], [1, -1]])
    with pytest.raises(ValueError, match="-1 or \\+1"):
        hamming_decode([[1, 0]], [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="must match"):
        all_vs_all(X, [0, 1], k=2)


def test_docstring_examples_run():
    assert doctest.testmod(multiclass).failed == 0
