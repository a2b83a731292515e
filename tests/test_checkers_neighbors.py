"""Lecture 09's hidden checkers: right answers pass (however written), typical slips fail."""

from decimal import Decimal, localcontext

import numpy as np
import pytest
from prose_support import markdown_text

from mllib import neighbors as reference
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import neighbors as check


def kernel_vectorised(x, y, q, kernel="inverse_square", sigma=1.0):
    x, y = np.asarray(x, float), np.asarray(y, float)
    d2 = (x - q) ** 2
    if kernel == "gaussian":
        w = np.exp(-(d2 - d2.min()) / sigma**2)
    elif np.any(d2 == 0):
        return float(y[d2 == 0].mean())
    else:
        w = d2.min() / d2
    return float(w @ y / w.sum())


def kernel_plain(x, y, q, kernel="inverse_square", sigma=1.0):  # unscaled: 0/0 far away
    x, y = np.asarray(x, float), np.asarray(y, float)
    d2 = (x - q) ** 2
    if kernel == "inverse_square" and np.any(d2 == 0):
        return float(y[d2 == 0].mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.exp(-d2 / sigma**2) if kernel == "gaussian" else 1 / d2
        return float(w @ y / w.sum())


def kernel_plain_catching_nan(x, y, q, kernel="inverse_square", sigma=1.0):
    """The plain formula, with the nearest point's label when it gives 0/0: the fallback the
    statement says is not enough (subnormal weights lose digits before they underflow)."""
    estimate = kernel_plain(x, y, q, kernel, sigma)
    if np.isnan(estimate):
        return kernel_vectorised(x, y, q, kernel, sigma)
    return estimate


def kernel_loops(x, y, q, kernel="inverse_square", sigma=1.0):
    hits = [yi for xi, yi in zip(x, y, strict=True) if xi == q]
    if kernel == "inverse_square" and hits:
        return sum(hits) / len(hits)
    nearest = min((xi - q) ** 2 for xi in x)
    num = den = 0.0
    for xi, yi in zip(x, y, strict=True):
        if kernel == "gaussian":
            w = np.exp(-((xi - q) ** 2 - nearest) / sigma**2)
        else:
            w = nearest / (xi - q) ** 2
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


def knn_expanded(X, y, query, k):  # ‖x‖² + ‖q‖² − 2x·q, no differences taken
    X, query = np.asarray(X, float), np.asarray(query, float)
    d2 = (X * X).sum(axis=1) + query @ query - 2 * X @ query
    nearest = np.argsort(d2, kind="stable")[:k]
    labels, counts = np.unique(np.asarray(y)[nearest], return_counts=True)
    return labels[np.argmax(counts)]


def knn_hypot(X, y, query, k):  # math.hypot of the differences, ranked with sorted()
    import math

    d = [math.hypot(*(float(a) - float(b) for a, b in zip(row, query, strict=True)))
         for row in X]
    nearest = sorted(range(len(X)), key=lambda i: (d[i], i))[:k]
    votes = [int(y[i]) for i in nearest]
    return min(set(votes), key=lambda label: (-votes.count(label), label))


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
    if d[j] == 0:
        return float((y[i] + y[j]) / 2)
    if d[i] == 0:
        return float(y[i])
    return float((y[i] / d[i] + y[j] / d[j]) / (1 / d[i] + 1 / d[j]))


def two_nn_squares(x, y, q):  # ranks by (q − x)², takes square roots for the weights
    d2 = [(q - float(v)) ** 2 for v in x]
    i, j = sorted(range(len(x)), key=lambda t: (d2[t], t))[:2]
    if d2[j] == 0:
        return (y[i] + y[j]) / 2
    if d2[i] == 0:
        return float(y[i])
    di, dj = d2[i] ** 0.5, d2[j] ** 0.5
    return float((y[i] * dj + y[j] * di) / (di + dj))


def two_nn_last_tie(x, y, q):  # equal distances: the point listed last counts as nearer
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = len(x)
    order = n - 1 - np.argsort(np.abs(x - q)[::-1], kind="stable")
    return two_nn_ok(x[order], y[order], q)


def two_nn_first_label(x, y, q):  # two points at q: takes the first one's label only
    x, y = np.asarray(x, float), np.asarray(y, float)
    d = np.abs(x - q)
    if np.any(d == 0):
        return float(y[np.argmax(d == 0)])
    return two_nn_ok(x, y, q)


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


def _exact_estimate(x, y, q, kernel, sigma) -> float:
    """The formula of Exercise 1 in 50-digit decimal arithmetic on the floats' exact values."""
    with localcontext() as context:
        context.prec = 50
        gaps = [(Decimal(float(xi)) - Decimal(float(q))) ** 2 for xi in x]
        labels = [Decimal(float(yi)) for yi in y]
        if kernel == "inverse_square" and min(gaps) == 0:
            hits = [yi for g, yi in zip(gaps, labels, strict=True) if g == 0]
            return float(sum(hits) / len(hits))
        if kernel == "inverse_square":
            w = [min(gaps) / g for g in gaps]
        else:
            w = [(-(g - min(gaps)) / Decimal(float(sigma)) ** 2).exp() for g in gaps]
        return float(sum(wi * yi for wi, yi in zip(w, labels, strict=True)) / sum(w))


def _reference_estimate(x, y, q, kernel, sigma):
    return reference.kernel_regression(x, y, [q], kernel=kernel,
                                       sigma=sigma if kernel == "gaussian" else None)[0]


def test_inside_its_range_exercise_1_computes_to_far_below_the_tolerance():
    """Exercise 1 promises (reviews r7/r8): inside the tests' range (x, y, q in [−1000, 1000],
    σ in [1e-3, 1e3], a point equal to q or ≥ 1e-6 from it, q ≤ 32σ from the nearest point for
    the Gaussian) the recommended computation agrees with the formula's exact value to far
    better than the 1e-8·(1 + |ŷ|) the hidden test allows. 2,000 draws at the range's edges
    (clustered points far from q, tiny and huge σ, q near 32σ) against 50-digit decimals: the
    reference and both second solutions stay within 1e-10; 5e-12 is the worst seen."""
    domain = check.kernel_regression().domain
    rng = np.random.default_rng(9)
    checked = 0
    while checked < 2000:
        n, kernel = int(rng.integers(1, 12)), str(rng.choice(["inverse_square", "gaussian"]))
        sigma = float(10 ** rng.uniform(-3, 3))
        x = np.clip(rng.uniform(-1000, 1000) + 10 ** rng.uniform(-8, 3) * rng.normal(size=n),
                    -1000, 1000)
        y = np.clip(rng.choice([1, 1000]) * rng.normal(size=n), -1000, 1000)
        reach = sigma * rng.uniform(0, 32) if kernel == "gaussian" else 10 ** rng.uniform(-6, 3)
        q = float(np.clip(x[rng.integers(n)] + rng.choice([-1, 0, 1]) * reach, -1000, 1000))
        if domain(x, y, q, kernel, sigma) is not None:
            continue
        checked += 1
        exact = _exact_estimate(x, y, q, kernel, sigma)
        for answer in (_reference_estimate, kernel_vectorised, kernel_loops):
            assert abs(answer(x, y, q, kernel, sigma) - exact) <= 1e-10 * (1 + abs(exact))


def test_the_range_leaves_out_the_cases_the_reviews_found():
    # a subnormal (x − q)², where min-scaling loses digits, and σ² underflowing to 0
    domain = check.kernel_regression().domain
    assert "1e-6" in domain([0.0, 1e-161, 1.0], [0.0, 5.0, 1.0], 2e-162, "inverse_square", 1.0)
    assert "sigma lies between" in domain([1.0, 2.0], [1.0, 2.0], 1.4, "gaussian", 1e-170)


@pytest.mark.parametrize("checker, answer", [
    (check.kernel_regression, kernel_vectorised),
    (check.kernel_regression, kernel_loops),
    (check.knn_classify, knn_stable),
    (check.knn_classify, knn_lists),
    (check.knn_classify, knn_expanded),
    (check.knn_classify, knn_hypot),
    (check.weighted_two_nn, two_nn_ok),
    (check.weighted_two_nn, two_nn_squares),
    (check.relative_contrast, contrast_ok),
    (check.relative_contrast, lambda X, q: contrast_ok(X, q).tolist()),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, situation", [
    (check.kernel_regression, kernel_first_hit, "two training points coincide"),
    (check.kernel_regression, kernel_standard_deviation, "Gaussian"),
    (check.kernel_regression, kernel_plain, "far from every training point"),
    (check.kernel_regression, kernel_plain_catching_nan, "subnormal"),
    (check.weighted_two_nn, two_nn_first_label, "two training points at the query"),
    (check.knn_classify, knn_last_tie, "same distance"),
    (check.knn_classify, knn_largest_label_wins, "tied vote"),
    (check.weighted_two_nn, two_nn_interpolating, "below every training point"),
    (check.weighted_two_nn, two_nn_assumes_sorted, "not in increasing order"),
    (check.relative_contrast, contrast_squared, "2 dimensions"),
    (check.weighted_two_nn, two_nn_last_tie, "the one listed first counts"),
])
def test_typical_slips_fail_with_the_situation_named(checker, answer, situation):
    with pytest.raises(ExerciseFailed, match=situation):
        run_check(checker(), answer)


def test_unimplemented_and_broken_answers_are_reported():
    def todo(*args):
        raise NotImplementedError()

    with pytest.raises(ExerciseFailed, match="not answered yet"):
        run_check(check.kernel_regression(), todo)
    with pytest.raises(ExerciseFailed, match="raised ZeroDivisionError"):
        run_check(check.relative_contrast(), lambda X, q: 1 / 0)


def test_the_plain_formula_loses_digits_from_26_6_sigma_as_exercise_1_says():
    """Review r9-09: the weights turn subnormal (below numpy's smallest normal float) from
    √708.4 ≈ 26.6σ and underflow to 0 from √744.4 ≈ 27.3σ; in between, the plain formula is
    already off by more than the hidden test's tolerance. The reviewer's case: points 0 and
    −0.5 with labels 0.3 and 0.7, σ = 1, q = 27 (relative error 6e-8, against 50 digits)."""
    tiny, least = np.finfo(float).tiny, np.finfo(float).smallest_subnormal
    assert round(float(np.sqrt(-np.log(tiny))), 1) == 26.6
    assert round(float(np.sqrt(-np.log(least))), 1) == 27.3
    x, y = [0.0, -0.5], [0.3, 0.7]
    exact = _exact_estimate(x, y, 27.0, "gaussian", 1.0)
    assert abs(kernel_plain(x, y, 27.0, "gaussian", 1.0) - exact) > 1e-8 * (1 + abs(exact))
    assert abs(kernel_vectorised(x, y, 27.0, "gaussian", 1.0) - exact) <= 1e-12
    text = markdown_text("09_neighbors/neighbors_exercises.ipynb")
    assert "From about 26.6σ from every training point the Gaussian weights fall below" in text
    assert "by 27σ the estimate can be off by more than the tolerance" in text
    assert "Beyond about 27.3σ they underflow to 0" in text
