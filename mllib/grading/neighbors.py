"""Hidden checks for the nearest-neighbour exercises (lecture 09).

Each checker describes fresh inputs drawn from a fixed seed (so a regrade gives the same score)
and the mllib reference that computes the answers, outside the student's kernel.
"""

from __future__ import annotations

import numpy as np

from mllib import neighbors as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, multiples, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.neighbors",)
_rng = seeded(20261209)


def _kernel_estimate(x, y, q, kernel="inverse_square", sigma=1.0):
    sigma = sigma if kernel == "gaussian" else None
    return reference.kernel_regression(x, y, [q], kernel=kernel, sigma=sigma)[0]


def kernel_regression() -> Check:
    """Check ``kernel_regression(x, y, q, kernel, sigma)`` (MMDS §12.4.4, Example 12.13)."""
    rng = _rng(1)
    x = rng.permutation(np.arange(12.0)) + rng.uniform(0.1, 0.9, 12).round(2)  # unsorted
    y = rng.normal(0, 3, 12).round(2)
    twice = np.append(x, x[3])  # one position holding two training points
    y_twice = np.append(y, y[3] + 4.0)
    cases = [
        # 0.15 past x[0]: the others differ from x[0] by a whole number plus -0.8 to 0.8
        Case("the inverse-square kernel, a query between training points",
             (x, y, float(x[0] + 0.15), "inverse_square", 1.0)),
        Case("the inverse-square kernel, a query beyond the largest x",
             (x, y, float(x.max() + 2.5), "inverse_square", 1.0)),
        Case("the inverse-square kernel, a query equal to a training point",
             (x, y, float(x[5]), "inverse_square", 1.0)),
        Case("the inverse-square kernel, a query where two training points coincide",
             (twice, y_twice, float(x[3]), "inverse_square", 1.0)),
        Case("the Gaussian kernel with sigma = 1.5", (x, y, float(x[2] - 0.7), "gaussian", 1.5)),
        Case("the Gaussian kernel with a narrow sigma = 0.4, on a training point",
             (x, y, float(x[7]), "gaussian", 0.4)),
        Case("the Gaussian kernel far from every training point (30 sigma beyond the largest x), "
             "where every plain weight underflows to 0",
             (x, y, float(x.max() + 30 * 0.4), "gaussian", 0.4)),
        # 27.1 from the smallest x, 27.86 from the next: a subnormal weight and a zero one
        Case("the Gaussian kernel 27.1 sigma below the smallest x, where the plain weights are "
             "subnormal and have lost digits",
             (x, y, float(x.min() - 27.1), "gaussian", 1.0)),
    ]
    return Check("kernel_regression", cases, _kernel_estimate, domain=_regression_domain)


# Exercise 1's range, inside which the formula computes to about 1e-12 of the labels' size
# (tests/test_neighbors.py checks it against 50-digit decimals): far below Check's 1e-8.
_RANGE, _SIGMAS, _APART, _GAUSSIAN_REACH = 1000.0, (1e-3, 1e3), 1e-6, 32.0


def _regression_domain(x, y, q, kernel="inverse_square", sigma=1.0) -> str | None:
    x, y = np.asarray(x), np.asarray(y)
    broken = unmet(("x holds at least one point, y one label per point",
                    x.ndim == 1 and len(x) >= 1 and y.shape == x.shape),
                   ("x, y and q are finite numbers", finite(x, y, q)),
                   ("kernel is 'inverse_square' or 'gaussian'", kernel in ("inverse_square",
                                                                           "gaussian")),
                   ("sigma is positive", finite(sigma) and sigma > 0))
    if broken:
        return broken
    distances = np.abs(x - q)
    return unmet(("every x, y and q lies between -1000 and 1000",
                  max(np.abs(x).max(), np.abs(y).max(), abs(q)) <= _RANGE),
                 ("sigma lies between 0.001 and 1000", _SIGMAS[0] <= sigma <= _SIGMAS[1]),
                 ("every training point equals q or is at least 1e-6 from it",
                  bool(np.all((distances == 0) | (distances >= _APART)))),
                 ("with the Gaussian kernel q is at most 32 sigma from its nearest point",
                  kernel != "gaussian" or distances.min() <= _GAUSSIAN_REACH * sigma))


def _eighths(values: np.ndarray) -> np.ndarray:
    """Round to multiples of 1/8. Every coordinate of Exercises 2 and 3 is such a binary fraction
    (the statements say so): differences, squares and their sums are then exact in floating
    point, so two distances that are equal come out equal however a student computes them,
    and the tie rules decide as written."""
    return np.round(np.asarray(values) * 8) / 8


def _knn_label(X, y, query, k):
    return reference.knn_predict(X, y, np.asarray(query)[None, :], k=k)[0]


def _clear_vote(X, y, query, k: int) -> bool:
    """True when the k nearest have one most common label and no distance tie straddles the
    k-th place, so neither tie rule decides the case. Coordinates are multiples of 1/8, so
    the squared distances are exact."""
    distances = ((X - query) ** 2).sum(axis=1)
    order = np.argsort(distances, kind="stable")
    if k < len(order) and distances[order[k - 1]] == distances[order[k]]:
        return False
    counts = np.unique(y[order[:k]], return_counts=True)[1]
    return int((counts == counts.max()).sum()) == 1


def knn_classify() -> Check:
    """Check ``knn_classify(X_train, y_train, query, k)``: ties in distance by training order,
    ties in the vote to the smallest label."""
    rng = _rng(2)
    near, middle = _eighths(rng.uniform(-4, 4, 2)), _eighths(rng.uniform(-4, 4, 2))
    while True:  # only the tie cases have ties that decide, for every student's draw
        X = rng.integers(-5, 6, (30, 2)).astype(float)  # a grid: distance ties
        y = rng.integers(0, 3, 30)
        if (_clear_vote(X, y, near, 1) and _clear_vote(X, y, middle, 5)
                and _clear_vote(X[:9], y[:9], np.zeros(2), 9)):
            break
    while True:
        far = _eighths(rng.normal(size=(25, 6)))
        y_far = rng.integers(1, 5, 25) * 10
        query = _eighths(rng.normal(size=6))
        if _clear_vote(far, y_far, query, 7):
            break
    # Four points 2 from the query (a diamond around it) and a far one, moved to a grid point
    # of the student's own; labels z < lo < hi of their own.
    centre = rng.integers(-5, 6, 2).astype(float)
    tie_X = centre + np.array([[2.0, 0], [0, 2], [-2, 0], [0, -2], [5, 5]])
    z, lo, hi = np.sort(rng.choice(10, 3, replace=False))
    cases = [
        Case("k = 1", (X, y, near, 1)),
        Case("k = 5 in two dimensions", (X, y, middle, 5)),
        Case("k = 7 in six dimensions, labels 10 to 40", (far, y_far, query, 7)),
        Case("four points at the same distance, k = 2: the first two rows count",
             (tie_X, np.array([hi, hi, z, z, z]), centre, 2)),
        Case("a tied vote, which goes to the smallest label",
             (tie_X, np.array([hi, lo, lo, hi, z]), centre, 4)),
        Case("k equal to the number of training points", (X[:9], y[:9], np.zeros(2), 9)),
    ]
    return Check("knn_classify", cases, _knn_label, domain=_knn_domain)


def _exact_distances(X, query) -> bool:
    """Every coordinate a multiple of 1/8, small enough that squared distances are exact."""
    squares = np.sum(((np.asarray(X) - query) * 8) ** 2, axis=-1)  # in units of 1/64
    return multiples(X, 1 / 8) and multiples(query, 1 / 8) and bool(np.all(squares < 2.0**52))


def _knn_domain(X, y, query, k) -> str | None:
    X, y, query = np.asarray(X), np.asarray(y), np.asarray(query)
    return unmet(("X has shape (n, d), y shape (n,) and query shape (d,)",
                  X.ndim == 2 and y.shape == (len(X),) and query.shape == X.shape[1:]),
                 ("the labels are integers", multiples(y, 1)),
                 ("k is a whole number from 1 to n", whole(k, 1) and k <= len(X)),
                 ("every coordinate is a multiple of 1/8", lambda: _exact_distances(X, query)))


def _two_nn(x, y, q):
    return reference.one_d_rule(x, y, [q], "weighted average of 2 nearest")[0]


def weighted_two_nn() -> Check:
    """Check ``weighted_two_nn(x, y, q)``: MMDS Example 12.12's third rule."""
    rng = _rng(3)
    x = np.sort(rng.choice(np.arange(40), 9, replace=False)).astype(float)
    y = rng.normal(0, 5, 9).round(2)
    gap = int(np.argmin(np.diff(x)))  # a query inside the smallest gap has its ends nearest
    query = float(x[gap] + 0.25 * (x[gap + 1] - x[gap]))
    while True:  # an order in which the query's list neighbours are not its nearest points
        shuffled = rng.permutation(9)
        after = int(np.clip(np.searchsorted(x[shuffled], query) - 1, 0, 7))
        if set(shuffled[after:after + 2]) != {gap, gap + 1}:
            break
    # q's nearest point is 1 away, the next two both 2 away (below and above), moved by a
    # whole number of the student's own.
    shift = float(rng.integers(-20, 21))
    tie_x, tie_y = np.array([0.0, 1.0, 4.0, 9.0]) + shift, rng.normal(0, 5, 4).round(2)
    cases = [
        Case("a query between its two nearest neighbours", (x, y, query)),
        Case("training points not in increasing order", (x[shuffled], y[shuffled], query)),
        Case("a query below every training point", (x, y, float(x[0] - 3.0))),
        Case("a query above every training point", (x, y, float(x[-1] + 0.5))),
        Case("a query equal to a training point", (x, y, float(x[6]))),
        Case("two training points at the query: the mean of their labels",
             (np.append(x, x[2]), np.append(y, y[2] + 6.0), float(x[2]))),
        Case("the second-nearest distance shared by two points (2 below and 2 above q): "
             "the one listed first counts", (tie_x, tie_y, 2.0 + shift)),
        Case("the same tie with the point above q listed first",
             (tie_x[[2, 1, 0, 3]], tie_y[[2, 1, 0, 3]], 2.0 + shift)),
    ]
    return Check("weighted_two_nn", cases, _two_nn, domain=_two_nn_domain)


def _two_nn_domain(x, y, q) -> str | None:
    x, y = np.asarray(x), np.asarray(y)
    return unmet(("x holds at least two points, y one label per point",
                  x.ndim == 1 and len(x) >= 2 and y.shape == x.shape),
                 ("the labels are finite", finite(y)),
                 ("every x and q is a multiple of 1/8", lambda: _exact_distances(x[:, None], q)))


def _contrast(X, q):
    d = reference.pairwise_distances(np.asarray(q)[None, :], X)[0]
    return (d.max() - d.min()) / d.min()


def relative_contrast() -> Check:
    """Check ``relative_contrast(X, q)`` = (max distance − min distance) / min distance."""
    cases = []
    for offset, d in enumerate((2, 40, 400)):
        rng = _rng(10 + offset)
        cases.append(Case(f"200 uniform points in {d} dimensions",
                          (rng.random((200, d)), rng.random(d))))
    return Check("relative_contrast", cases, _contrast, domain=_contrast_domain)


def _contrast_domain(X, q) -> str | None:
    X, q = np.asarray(X, dtype=float), np.asarray(q, dtype=float)
    broken = unmet(("X has shape (n, d) with n >= 1, and q shape (d,)",
                    X.ndim == 2 and len(X) >= 1 and q.shape == X.shape[1:]),
                   ("X and q are finite", finite(X, q)))
    if broken:
        return broken
    distances = np.linalg.norm(X - q, axis=1)
    return unmet(("q is never a row of X: the nearest distance is at least 1/1000 of the farthest",
                  distances.min() >= 1e-3 * distances.max() > 0),)
