"""Lecture 09's hidden checkers: right answers pass (however written), typical slips fail."""

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import neighbors as check


def kernel_vectorised(x, y, q, kernel="inverse_square", sigma=1.0):
    x, y = np.asarray(x, float), np.asarray(y, float)
    d2 = (x - q) ** 2
    if kernel == "gaussian":
        w = np.exp(-d2 / sigma**2)
    elif np.any(d2 == 0):
        return float(y[d2 == 0].mean())
    else:
        w = 1 / d2
    return float(w @ y / w.sum())


def kernel_loops(x, y, q, kernel="inverse_square", sigma=1.0):
    hits = [yi for xi, yi in zip(x, y, strict=True) if xi == q]
    if kernel == "inverse_square" and hits:
        return sum(hits) / len(hits)
    num = den = 0.0
    for xi, yi in zip(x, y, strict=True):
        w = np.exp(-((xi - q) ** 2) / sigma**2) if kernel == "gaussian" else 1 / (xi - q) ** 2
        num += w * yi
        den += w
    return num / den


def kernel_first_hit(x, y, q, kernel="inverse_square", sigma=1.0):  # ignores a second point
    x = np.asarray(x, float)
    if kernel == "inverse_square" and np.any(x == q):
        return float(np.asarray(y)[np.argmax(x == q)])
    return kernel_vectorised(x, y, q, kernel, sigma)


def kernel_standard_deviation(x, y, q, kernel="inverse_square", sigma=1.0):  # 2σ² slip
    return kernel_vectorised(x, y, q, kernel, sigma / np.sqrt(2) * 2 if kernel == "gaussian"
                             else sigma)


def knn_stable(X, y, query, k):
    d = np.linalg.norm(np.asarray(X, float) - query, axis=1)
    nearest = np.argsort(d, kind="stable")[:k]
    labels, counts = np.unique(np.asarray(y)[nearest], return_counts=True)
    return labels[np.argmax(counts)]


def knn_lists(X, y, query, k):
    def squared(i):
        return sum((a - b) ** 2 for a, b in zip(X[i], query, strict=True))

    ranked = sorted(range(len(X)), key=lambda i: (squared(i), i))
    votes = {}
    for i in ranked[:k]:
        votes[int(y[i])] = votes.get(int(y[i]), 0) + 1
    best = max(votes.values())
    return min(label for label, v in votes.items() if v == best)


def knn_last_tie(X, y, query, k):  # equal distances taken last row first
    d = np.linalg.norm(np.asarray(X, float) - query, axis=1)
    nearest = (len(d) - 1 - np.argsort(d[::-1], kind="stable"))[:k]
    labels, counts = np.unique(np.asarray(y)[nearest], return_counts=True)
    return labels[np.argmax(counts)]


def knn_largest_label_wins(X, y, query, k):
    d = np.linalg.norm(np.asarray(X, float) - query, axis=1)
    nearest = np.argsort(d, kind="stable")[:k]
    labels, counts = np.unique(np.asarray(y)[nearest], return_counts=True)
    return labels[len(counts) - 1 - np.argmax(counts[::-1])]


def two_nn_ok(x, y, q):
    x, y = np.asarray(x, float), np.asarray(y, float)
    d = np.abs(x - q)
    i, j = np.argsort(d, kind="stable")[:2]
    if d[i] == 0:
        return float(y[i])
    return float((y[i] / d[i] + y[j] / d[j]) / (1 / d[i] + 1 / d[j]))


def two_nn_interpolating(x, y, q):  # the line through the two neighbours, even outside them
    x, y = np.asarray(x, float), np.asarray(y, float)
    i, j = np.argsort(np.abs(x - q), kind="stable")[:2]
    return float(y[i] + (y[j] - y[i]) * (q - x[i]) / (x[j] - x[i]))


def two_nn_assumes_sorted(x, y, q):
    x, y = np.asarray(x, float), np.asarray(y, float)
    i = int(np.clip(np.searchsorted(x, q) - 1, 0, len(x) - 2))
    return two_nn_ok(x[i:i + 2], y[i:i + 2], q)


def contrast_ok(X, q):
    d = np.linalg.norm(X - q, axis=1)
    return (d.max() - d.min()) / d.min()


def contrast_squared(X, q):
    d = ((X - q) ** 2).sum(axis=1)
    return (d.max() - d.min()) / d.min()


@pytest.mark.parametrize("checker, answer", [
    (check.kernel_regression, kernel_vectorised),
    (check.kernel_regression, kernel_loops),
    (check.knn_classify, knn_stable),
    (check.knn_classify, knn_lists),
    (check.weighted_two_nn, two_nn_ok),
    (check.relative_contrast, contrast_ok),
    (check.relative_contrast, lambda X, q: contrast_ok(X, q).tolist()),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, situation", [
    (check.kernel_regression, kernel_first_hit, "two training points coincide"),
    (check.kernel_regression, kernel_standard_deviation, "Gaussian"),
    (check.knn_classify, knn_last_tie, "same distance"),
    (check.knn_classify, knn_largest_label_wins, "tied vote"),
    (check.weighted_two_nn, two_nn_interpolating, "below every training point"),
    (check.weighted_two_nn, two_nn_assumes_sorted, "not in increasing order"),
    (check.relative_contrast, contrast_squared, "2 dimensions"),
])
def test_typical_slips_fail_with_the_situation_named(checker, answer, situation):
    with pytest.raises(ExerciseFailed, match=situation):
        run_check(checker(), answer)


def test_unimplemented_and_broken_answers_are_reported():
    def todo(*args):
        raise NotImplementedError()

    with pytest.raises(ExerciseFailed, match="not implemented yet"):
        run_check(check.kernel_regression(), todo)
    with pytest.raises(ExerciseFailed, match="raised ZeroDivisionError"):
        run_check(check.relative_contrast(), lambda X, q: 1 / 0)
