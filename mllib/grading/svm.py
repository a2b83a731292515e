"""Hidden checks for the SVM exercises (lecture 02).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function. The exercises follow
MMDS §12.3: eq. 12.4 as printed for the objective, eq. 12.6 with the bias regularised (MMDS's
treatment of b as w_{d+1}) for the gradient and the descent.
"""

from __future__ import annotations

import numpy as np

from mllib import data
from mllib import svm as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import decided, finite, labels, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.svm",)
_rng = seeded(20261202)


def _integer_sample(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Small integer points with mixed labels, so that margins such as 1 come out exact."""
    X = rng.integers(-4, 5, (n, d)).astype(float)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return X, rng.permutation(y)


def _margin_line(rng: np.random.Generator, d: int) -> tuple[np.ndarray, int]:
    """A w of quarters in [-2, 2] of the student's own, and a coordinate j where w_j is ±1/4,
    ±1/2 or ±1: moving a point of whole numbers along j onto its margin line keeps every number a
    quarter (:func:`_on_margin`)."""
    w = rng.integers(-8, 9, d) / 4
    j = int(rng.integers(d))
    w[j] = rng.choice([-1.0, -0.5, -0.25, 0.25, 0.5, 1.0])
    return w, j


def _on_margin(X: np.ndarray, y: np.ndarray, w: np.ndarray, j: int,
               rows: list[int]) -> np.ndarray:
    """Move the given rows along coordinate j so that their margin y·(w·x) is exactly 1 (b = 0).

    With X of whole numbers and w of quarters, w·x is a quarter, and dividing y - w·x by w_j
    (±1/4, ±1/2 or ±1) gives a quarter again: every product and sum of the new margin is exact.
    """
    X = X.copy()
    for i in rows:
        X[i, j] += (y[i] - X[i] @ w) / w[j]
    return X


def _sample_domain(w, b, X, y, C) -> str | None:
    """The shapes and numbers every exercise of the notebook promises."""
    X = np.asarray(X, dtype=float)
    return unmet(("w has shape (d,), X shape (n, d) with n >= 1 and y shape (n,)",
                  X.ndim == 2 and len(X) >= 1 and np.shape(w) == X.shape[1:]
                  and np.shape(y) == (len(X),)),
                 ("w, b and X are finite, C > 0", finite(w, b, X, C) and C > 0),
                 ("y holds labels -1 and +1", labels(y)))


def _margins_decided(w, b, X, y) -> bool:
    """Whether every comparison z = y(w·x + b) < 1 comes out the same however z is computed."""
    w = np.asarray(w, dtype=float)
    return all(decided(np.append(label * w, [label * b, -1.0]), np.append(x, [1.0, 1.0]))
               for x, label in zip(np.asarray(X, dtype=float), y, strict=True))


_MARGIN_PROMISE = ("a margin z = 1 is exact, and every other margin is farther from 1 than "
                   "rounding can reach")


def _gradient_domain(w, b, X, y, C) -> str | None:
    return _sample_domain(w, b, X, y, C) or unmet(
        (_MARGIN_PROMISE, lambda: _margins_decided(w, b, X, y)))


def _step_domain(w, b, X, y, C, eta) -> str | None:
    return _gradient_domain(w, b, X, y, C) or unmet(("eta > 0", finite(eta) and eta > 0))


def _descent_domain(X, y, C, eta, w0, b0, iterations) -> str | None:
    """Exercise 4's promises, and at every iterate of the statement's own run, margins that
    rounding cannot put on the other side of 1."""
    broken = _step_domain(w0, b0, X, y, C, eta) or unmet(
        ("iterations is a whole number >= 0", whole(iterations)))
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    w, b = np.asarray(w0, dtype=float), float(b0)
    for _ in range(int(iterations) if broken is None else 0):
        bad = y * (X @ w + b) < 1
        w, b = w - eta * (w - C * (y[bad] @ X[bad])), b - eta * (b - C * y[bad].sum())
        if not _margins_decided(w, b, X, y):
            return _MARGIN_PROMISE
    return broken


def _support_domain(w, b, X, y) -> str | None:
    z = np.asarray(y) * (np.asarray(X) @ np.asarray(w) + b)
    return _sample_domain(w, b, X, y, 1.0) or unmet(
        ("every margin is within 1e-12 of 1 (on its line) or farther than 1e-6 from it",
         bool(np.all((np.abs(z - 1) <= 1e-12) | (np.abs(z - 1) >= 1e-6)))))


def objective() -> Check:
    """Check ``svm_objective(w, b, X, y, C)``: MMDS eq. 12.4, b not in the norm."""
    rng = _rng(1)
    X, y, w_star = data.separable(12, 3, margin=0.3, seed=rng)
    X_noisy, y_noisy = _integer_sample(rng, 15, 3)
    while True:  # b = 1.75 changes the hinge loss: what it adds on one side may be taken away
        w = rng.normal(size=3)  # on the other, and ignoring b must not pass by that chance
        if abs(np.subtract(*(reference.objective(w, b, X_noisy, y_noisy, 0.5)
                             for b in (1.75, 0.0)))) > 1e-3:
            break
    cases = [
        Case("b = 0 and every example beyond its margin line, so there is no hinge loss",
             (4 * w_star, 0.0, X, y, 1.0)),
        Case("b = 0 and some examples inside the margin or misclassified",
             (w, 0.0, X_noisy, y_noisy, 0.5)),
        Case("a non-zero bias b, which shifts every example's margin",
             (w, 1.75, X_noisy, y_noisy, 0.5)),
        Case("a large C = 100", (w, -0.5, X_noisy, y_noisy, 100.0)),
    ]
    return Check("svm_objective", cases, reference.objective, domain=_sample_domain)


def gradient() -> Check:
    """Check ``svm_gradient(w, b, X, y, C)`` = [∂f/∂w₁, ..., ∂f/∂w_d, ∂f/∂b] (MMDS eq. 12.6)."""
    rng = _rng(2)
    X, y = _integer_sample(rng, 14, 3)
    w, j = _margin_line(rng, 3)  # quarters, so examples can sit exactly on the margin
    X_tied = _on_margin(X, y, w, j, [0, 3, 6])
    cases = [
        Case("b = 0 with some bad points", (w + rng.normal(size=3) / 4, 0.0, X, y, 0.1)),
        Case("a non-zero b: ∂f/∂b has its own term b as well (MMDS treats b as w_{d+1})",
             (w + rng.normal(size=3) / 4, -1.5, X, y, 0.1)),
        Case("examples exactly on their margin line (z = 1), which are not bad",
             (w, 0.0, X_tied, y, 0.1)),
        Case("a large C = 10", (w - 0.25, 0.75, X, y, 10.0)),  # quarters: margins exact
    ]
    return Check("svm_gradient", cases, reference.gradient, domain=_gradient_domain)


def _step(w, b, X, y, C, eta):
    run = reference.gradient_descent(X, y, C=C, eta=eta, w0=w, b0=b, iterations=1)
    return run.w, run.b


def step() -> Check:
    """Check ``gradient_step(w, b, X, y, C, eta)`` returns the new (w, b)."""
    rng = _rng(3)
    X, y = _integer_sample(rng, 10, 2)
    w = rng.normal(size=2)
    cases = [
        Case("a start with some bad points", (w, 0.5, X, y, 0.1, 0.2)),
        Case("a small step η = 0.01", (w, -1.0, X, y, 1.0, 0.01)),
        Case("a start where no point is bad", (np.zeros(2), 3.0, X[y > 0], y[y > 0], 0.1, 0.2)),
    ]
    return Check("gradient_step", cases, _step, builds_on=("svm_gradient",),
                 domain=_step_domain)


def _descent(X, y, C, eta, w0, b0, iterations):
    run = reference.gradient_descent(X, y, C=C, eta=eta, w0=w0, b0=b0, iterations=iterations)
    return run.w, run.b


def descent() -> Check:
    """Check ``svm_gradient_descent(X, y, C, eta, w0, b0, iterations)`` returns the final (w, b)."""
    rng = _rng(4)
    X, y, _ = data.noisy(20, 2, margin=0.1, flip=0.1, seed=rng)
    while True:  # rounding cannot decide which points count, for every student's draw
        X3, y3 = _integer_sample(rng, 12, 3)
        start = (0.1, 0.2, rng.uniform(-1.5, 1.5, 3), rng.uniform(-3, -1), 30)
        if _descent_domain(X3, y3, *start) is None:
            break
    cases = [
        Case("a run of a few iterations from w = 0, b = 0", (X, y, 1.0, 0.1, np.zeros(2), 0.0, 4)),
        Case("a run of many iterations from a non-zero start", (X3, y3, *start)),
        Case("a single iteration", (X, y, 0.5, 0.3, np.ones(2), 1.0, 1)),
        Case("iterations = 0, which returns the start", (X, y, 0.5, 0.3, np.ones(2), 1.0, 0)),
    ]
    return Check("svm_gradient_descent", cases, _descent,
                 builds_on=("gradient_step", "svm_gradient"), domain=_descent_domain)


def support() -> Check:
    """Check ``support_vectors(w, b, X, y)``: the indices with y(w·x + b) <= 1, increasing."""
    rng = _rng(5)
    X, y, _ = data.separable(25, 2, margin=0.3, seed=rng)
    best = reference.solve(X, y)
    Xi, yi = _integer_sample(rng, 16, 2)
    w, j = _margin_line(rng, 2)
    X_tied = _on_margin(Xi, yi, w, j, [1, 4, 9])
    cases = [
        Case("the hard-margin optimum of a separable sample, whose support vectors lie exactly on "
             "their margin lines (up to rounding)", (best.w, best.b, X, y)),
        Case("examples exactly on their margin line (z = 1) are support vectors",
             (w, 0.0, X_tied, yi)),
        Case("a w that misclassifies some examples", (-best.w, best.b, X, y)),
        Case("a separator with every example beyond its margin line (no support vectors)",
             (4 * best.w, 4 * best.b, X, y)),
    ]
    return Check("support_vectors", cases, reference.support_vectors, domain=_support_domain)
