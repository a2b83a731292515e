"""Hidden checks for the kernels exercises (lecture 07, CS446 "Dual Representation", "Kernels").

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score) and
describes the check; the grader computes the answers with mllib and compares.
"""

from __future__ import annotations

import math

import numpy as np

from mllib import data
from mllib import kernels as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import decided, finite, labels, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.kernels",)
_rng = seeded(20261207)


def polynomial_kernel() -> Check:
    """Check ``polynomial_kernel(X, Z, degree, c)`` = (X Zᵀ + c)^degree, shape (n, m)."""
    rng = _rng(1)
    X, Z = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    cases = [
        Case("the quadratic kernel (degree 2, c = 0) between two different sets", (X, Z, 2, 0.0)),
        Case("degree 3 with c = 1", (X, Z, 3, 1.0)),
        Case("degree 1 with c = 0 (the linear kernel)", (X, Z, 1, 0.0)),
        Case("a set with itself, degree 2, c = 0.5 (the Gram matrix)", (X, X, 2, 0.5)),
        Case("a single point against several, in 5 dimensions",
             (rng.normal(size=(1, 5)), rng.normal(size=(3, 5)), 2, 2.0)),
        Case("a negative c (the statement allows any real c)", (X, Z, 3, -1.5)),
        Case("Z with no rows: an empty array of shape (n, 0)", (X, Z[:0], 2, 1.0)),
    ]

    def run(X, Z, degree, c):
        return reference.polynomial(X, Z, degree=degree, c=c)

    return Check("polynomial_kernel", cases, run, domain=_polynomial_domain)


def _polynomial_domain(X, Z, degree, c) -> str | None:
    X, Z = np.asarray(X), np.asarray(Z)
    return unmet(("X has shape (n, d) and Z shape (m, d)",
                  X.ndim == Z.ndim == 2 and X.shape[1] == Z.shape[1]),
                 ("degree is a whole number >= 1", whole(degree, 1)),
                 ("X, Z and c are finite numbers", finite(X, Z, c)))


# Exercise 2's statement gives the answer for n = 0 rows.
STATED_NO_ROWS = "With $n = 0$ rows, return an empty array of shape"


def _is_quadratic_map(answer, expected, case: Case) -> str | None:
    """Any φ with φ(x)·φ(z) = (x·z)² and d(d+1)/2 coordinates is right, in any order and with
    any signs: check that property, not the reference's order."""
    (X,) = case.args
    try:
        phi = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return "return an array of numbers, one row per example"
    n, d = X.shape
    if phi.shape != (n, d * (d + 1) // 2):
        if n == 0:
            return "with n = 0 rows, return an empty array of shape (0, d(d+1)/2)"
        return "for d features the map has d(d+1)/2 coordinates per row"
    if not np.all(np.isfinite(phi)):
        return "the rows contain NaN or inf"
    target = (X @ X.T) ** 2
    scale = 1 + np.abs(target).max(initial=0.0)  # initial: no rows, no pairs to compare
    if not np.allclose(phi @ phi.T, target, rtol=1e-8, atol=1e-8 * scale):
        return "φ(x)·φ(z) differs from (x·z)² for some pair of rows"
    return None


def quadratic_map() -> Check:
    """Check ``quadratic_map(X)``: φ with φ(x)·φ(z) = (x·z)², d(d+1)/2 coordinates per row."""
    rng = _rng(10)
    cases = [
        Case("2-D points (the slide's case)", (rng.normal(size=(5, 2)),)),
        Case("3-D points", (rng.normal(size=(4, 3)),)),
        Case("a single 6-D point", (rng.normal(size=(1, 6)),)),
        Case("1-D points (φ(x) = x²)", (rng.normal(size=(3, 1)),)),
        Case("no rows (n = 0)", (np.empty((0, int(rng.integers(2, 7)))),), stated=STATED_NO_ROWS),
    ]
    return Check("quadratic_map", cases, reference.quadratic_features, judge=_is_quadratic_map,
                 domain=_quadratic_domain)


def _quadratic_domain(X) -> str | None:
    X = np.asarray(X)
    return unmet(("X has shape (n, d) with d >= 1", X.ndim == 2 and X.shape[1] >= 1),
                 ("X is finite", finite(X)))


_SCORE_PROMISE = ("every score is exact in floating point (whole-number kernel values) or "
                  "farther from 0 than rounding can reach")


def _alpha(K, y, max_epochs):
    return reference.kernel_perceptron(K, y, kernel="precomputed", max_epochs=max_epochs).alpha


def dual_perceptron() -> Check:
    """Check ``dual_perceptron(K, y, max_epochs)`` returns α, the mistakes on each example."""
    X, y = data.xor(12, seed=_rng(23))
    cases = [Case("XOR with (x·z)² and max_epochs = 1 (a score of 0 is a mistake)",
                  (reference.polynomial(X, degree=2), y, 1))]
    X, y = data.rings(30, gap=0.4, seed=_rng(20))
    cases.append(Case("rings with the kernel (x·z + 1)², which separates them",
                      (reference.polynomial(X, degree=2, c=1.0), y, 100)))
    X, y = data.xor(24, noise=0.2, seed=_rng(21))
    cases.append(Case("XOR data with an RBF kernel", (reference.rbf(X, gamma=1.0), y, 100)))
    X, y = data.rings(20, gap=0.4, seed=_rng(22))
    cases.append(Case("rings with the linear kernel, which never converges: stop after "
                      "max_epochs = 3", (reference.linear(X), y, 3)))
    return Check("dual_perceptron", cases, _alpha, domain=_dual_domain)


def _dual_domain(K, y, max_epochs) -> str | None:
    """Exercise 3's promises, and along the statement's own run, every score's sign decided."""
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    n = len(y)
    broken = unmet(("K is a symmetric (n, n) Gram matrix of finite numbers",
                    K.shape == (n, n) and finite(K) and np.array_equal(K, K.T)),
                   ("y holds labels -1 and +1", labels(y)),
                   ("max_epochs is a whole number >= 0", whole(max_epochs)))
    alpha = np.zeros(n)
    for _ in range(int(max_epochs) if broken is None else 0):
        mistakes = 0
        for i in range(n):
            if not decided(alpha * y, K[:, i]):
                return _SCORE_PROMISE
            if y[i] * math.fsum(alpha * y * K[:, i]) <= 0:  # fsum: the exact sum's sign
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return broken


def _predict(alpha, y, K_new):
    return np.where((alpha * y) @ K_new > 0, 1.0, -1.0)


def kernel_prediction() -> Check:
    """Check ``kernel_prediction(alpha, y, K_new)`` = sign(Σᵢ αᵢyᵢK(xᵢ, x)), 0 predicting -1."""
    rng = _rng(30)
    X, y = data.rings(20, gap=0.4, seed=rng)
    run = reference.kernel_perceptron(X, y, kernel="rbf", gamma=1.0)
    X_new = rng.uniform(-2, 2, size=(15, 2))
    K_new = reference.rbf(X, X_new, gamma=1.0)
    counts = rng.integers(0, 3, 20).astype(float)
    cases = [
        Case("the α of a trained kernel perceptron and new points", (run.alpha, y, K_new)),
        Case("α with several mistakes per example", (counts, y, K_new)),
        Case("α all zero: every score is 0, which predicts -1", (np.zeros(20), y, K_new)),
        Case("a single new point", (run.alpha, y, K_new[:, :1])),
    ]
    return Check("kernel_prediction", cases, _predict, domain=_prediction_domain)


def _prediction_domain(alpha, y, K_new) -> str | None:
    alpha, y, K_new = (np.asarray(a, dtype=float) for a in (alpha, y, K_new))
    return unmet(("alpha and y have shape (n,), K_new shape (n, m)",
                  alpha.shape == y.shape and K_new.ndim == 2 and len(K_new) == len(y)),
                 ("y holds labels -1 and +1", labels(y)),
                 ("alpha and K_new are finite", finite(alpha, K_new)),
                 (_SCORE_PROMISE, lambda: all(decided(alpha, y, k) for k in K_new.T)))
