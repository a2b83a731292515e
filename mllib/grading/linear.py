"""Hidden checks for the exercises of lecture 11 (linear models by gradient descent).

Each checker returns a :class:`~mllib.grading.Check`: fresh inputs drawn from a fixed seed (so a
regrade gives the same score) and the mllib function that computes the expected answers.
"""

from __future__ import annotations

import numpy as np

from mllib import linear as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, unmet

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.linear",)
_rng = seeded(20261111)


def _least_squares(X, y):
    fit = reference.least_squares(X, y)
    return fit.w, fit.b


# The statement's bound on cond(A): solving AᵀA v = Aᵀy squares it, so that route and lstsq agree
# to about cond(A)²·1e-16 relative to |v|, 1e-12 here, far inside every test's tolerance.
NORMAL_EQUATIONS_CONDITION = 100.0


def normal_equations() -> Check:
    """Check ``normal_equations(X, y)`` returns (w, b) minimising Σ(w·x + b - y)²
    (MMDS Example 12.2)."""
    rng = _rng(1)
    X1 = rng.uniform(-3, 3, (12, 1))
    X3 = rng.normal(size=(30, 3))
    # Six evenly spaced points, a line through them and a flat level, all the student's own.
    line = (rng.uniform(-3, 3) + rng.uniform(0.5, 2) * np.arange(6.0))[:, None]
    slope, intercept, level = rng.uniform(-2, 2), rng.uniform(-3, 3), rng.uniform(-5, 5)
    cases = [
        Case("one feature, noisy points", (X1, 2.0 * X1[:, 0] - 1 + rng.normal(size=12))),
        Case("three features", (X3, X3 @ [1.0, -2.0, 0.5] + 3 + 0.1 * rng.normal(size=30))),
        Case("points exactly on a line (the errors are all 0)",
             (line, slope * line[:, 0] + intercept)),
        Case("a flat line: the best slope is 0", (line, np.full(6, level))),
    ]
    return Check("normal_equations", cases, _least_squares, tolerance=1e-6,
                 domain=_normal_equations_domain)


def _normal_equations_domain(X, y) -> str | None:
    X = np.asarray(X, dtype=float)
    return unmet(("X has shape (n, d) and y shape (n,)",
                  X.ndim == 2 and np.shape(y) == (len(X),)),
                 ("X and y are finite", finite(X, y)),
                 ("A = [X, 1] has full column rank and is well conditioned (condition number "
                  "below 100)", lambda: np.linalg.cond(np.column_stack([X, np.ones(len(X))]))
                  < NORMAL_EQUATIONS_CONDITION))


def _vectors(*vectors) -> bool:
    """Whether the vectors share one shape (d,) and hold finite numbers."""
    return len({np.shape(v) for v in vectors}) == 1 and np.ndim(vectors[0]) == 1 and finite(
        *vectors)


def _lms_step(w, x, y, eta):
    return reference.lms(x[None, :], [y], eta=eta, epochs=1, w0=w).w


def lms_step() -> Check:
    """Check ``lms_step(w, x, y, eta)`` = w + η(y - w·x)x (CS446, Widrow-Hoff)."""
    rng = _rng(2)
    w, x = rng.normal(size=4), rng.normal(size=4)
    exact = float(w @ x)
    cases = [
        Case("a target above the score", (w, x, exact + 2.0, 0.1)),
        Case("a target below the score (the step goes the other way)", (w, x, exact - 1.5, 0.3)),
        Case("a target equal to the score (no change)", (w, x, exact, 0.5)),
        Case("starting from w = 0", (np.zeros(4), x, 1.0, 0.05)),
    ]
    return Check("lms_step", cases, _lms_step, domain=_lms_domain)


def _lms_domain(w, x, y, eta) -> str | None:
    return unmet(("w and x are finite vectors of shape (d,)", _vectors(w, x)),
                 ("y is a real number", np.ndim(y) == 0 and finite(y)),
                 ("eta > 0", finite(eta) and eta > 0))


def adagrad_step() -> Check:
    """Check ``adagrad_step(w, g, G, eta)`` returns (w, G) after one AdaGrad step (CS446);
    wherever the updated Gⱼ is 0 (g = 0, or gⱼ² underflows) wⱼ is unchanged."""
    rng = _rng(3)
    w, g = rng.normal(size=5), rng.normal(size=5)
    G = rng.uniform(0.5, 4.0, 5)
    sparse_g = g.copy()
    sparse_g[[1, 3]] = 0.0
    fresh_G = G.copy()
    fresh_G[[1, 3]] = 0.0
    cases = [
        Case("the first step (G = 0 everywhere)", (w, g, np.zeros(5), 0.5)),
        Case("a later step with accumulated G", (w, g, G, 0.1)),
        Case("a step where some features have zero gradient (their G is unchanged)",
             (w, sparse_g, G, 1.0)),
        Case("a feature whose gradients have all been 0 (G = 0, g = 0: leave it alone)",
             (w, sparse_g, fresh_G, 1.0)),
        Case("a gradient whose square underflows (the updated G is 0: leave it alone)",
             (w, np.where(np.arange(5) == 1, 1e-170, sparse_g), fresh_G, 1.0)),
    ]
    return Check("adagrad_step", cases, reference.adagrad_step, domain=_adagrad_domain)


# Exercise 3's bound on the rate. With |g| < 1e150 and √G ≥ √(5e-324) ≈ 2.2e-162, every order of
# evaluating g·η/√G (η/√G first, g·η first, g/√G first) stays finite and accurate for
# η ≤ 1e3; without a bound, η/√G overflows at η = 1e200 and g = 1e-160, and g·η at η = 1e300.
ADAGRAD_MAX_ETA = 1e3


def _squares_stay_finite(g, G) -> bool:
    """Exercise 3's promise: every g_j² and every updated G_j + g_j² is finite."""
    g, G = np.asarray(g, dtype=float), np.asarray(G, dtype=float)
    with np.errstate(over="ignore"):
        return bool(np.all(np.abs(g) < 1e150) and np.all(np.isfinite(G + g * g)))


def _adagrad_domain(w, g, G, eta) -> str | None:
    return unmet(("w, g and G are finite vectors of shape (d,)", _vectors(w, g, G)),
                 ("G holds sums of squares (>= 0)", lambda: bool(np.all(np.asarray(G) >= 0))),
                 ("no g_j² overflows: |g_j| < 1e150 and the updated G is finite",
                  lambda: _squares_stay_finite(g, G)),
                 (f"0 < eta <= {ADAGRAD_MAX_ETA:g}",
                  finite(eta) and 0 < eta <= ADAGRAD_MAX_ETA))


def logistic_gradient() -> Check:
    """Check ``logistic_gradient(w, X, y, C)``, the gradient of ½‖w‖² + C·Σ log(1 + e^(-y w·x))."""
    rng = _rng(4)
    X = rng.normal(size=(20, 3))
    y = rng.choice([-1.0, 1.0], 20)
    w = rng.normal(size=3)
    cases = [
        Case("w = 0, C = 1", (np.zeros(3), X, y, 1.0)),
        Case("a random w, C = 0.5", (w, X, y, 0.5)),
        Case("a large w (scores far from 0)",
             (40 * w, X, y, 2.0)),
        Case("a single example", (w, X[:1], y[:1], 3.0)),
        Case("no examples (X of shape (0, d)): the sum is empty, the gradient is w",
             (w, X[:0], y[:0], 1.0)),
    ]
    return Check("logistic_gradient", cases, reference.logistic_gradient,
                 domain=_logistic_domain)


def _logistic_domain(w, X, y, C) -> str | None:
    X = np.asarray(X)
    return unmet(("w has shape (d,), X shape (n, d) and y shape (n,)",
                  X.ndim == 2 and np.shape(w) == X.shape[1:] and np.shape(y) == (len(X),)),
                 ("w, X and C are finite", finite(w, X, C)),
                 ("y holds labels -1 and +1", labels(y)),
                 ("C > 0", C > 0))
