"""Hidden checks for the perceptron exercises (lecture 01).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

import numpy as np

from mllib import data
from mllib import perceptron as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import decided, finite, labels, multiples, power_of_two, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.perceptron",)
_rng = seeded(20261122)


def _one_step(w, x, y, eta):
    """One visit of the perceptron: a one-example, one-epoch run of mllib's perceptron."""
    return reference.perceptron(x[None, :], [y], eta=eta, w0=w, max_epochs=1).w


def update_rule() -> Check:
    """Check ``perceptron_update(w, x, y, eta)`` (MMDS §12.2.1)."""
    rng = _rng(1)
    d = 7
    x = rng.integers(1, 4, d) * rng.choice([-1.0, 1.0], d)
    w = rng.integers(-3, 4, d).astype(float)
    w[0] += 0.5  # keeps w·x away from 0 in the first cases
    on_plane = np.zeros(d)
    on_plane[:2] = x[1], -x[0]  # w·x = 0 exactly: still a mistake in MMDS's convention
    sign = 1.0 if w @ x > 0 else -1.0
    cases = [
        Case("a correctly classified example, which must leave w unchanged", (w, x, sign, 1.0)),
        Case("a misclassified example", (w, x, -sign, 1.0)),
        Case("a misclassified example with learning rate 0.25", (w, x, -sign, 0.25)),
        Case("an example with w·x = 0 and y = +1 (MMDS counts w·x = 0 as a mistake)",
             (on_plane, x, 1.0, 0.5)),
        Case("an example with w·x = 0 and y = -1", (on_plane, x, -1.0, 2.0)),
    ]
    return Check("perceptron_update", cases, _one_step, domain=_update_domain)


def _update_domain(w, x, y, eta) -> str | None:
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    return unmet(("w and x have one shape (d,)", w.ndim == 1 and w.shape == x.shape),
                 ("w, x and eta are finite, eta > 0", finite(w, x, eta) and eta > 0),
                 ("y is -1 or +1", labels(y)),
                 ("a score w·x of 0 is exact, and every other score farther from 0 than "
                  "rounding can reach", lambda: decided(w, x)))


def integer_sample(rng, n: int, d: int, *, flip: float = 0.0):
    """Integer examples in [-6, 6]^d labelled by an integer w* (rows with w*·x = 0 dropped),
    with a fraction ``flip`` of the labels flipped. With such data and η a power of 2 every
    score and update of the perceptron is exact in floating point, so a plain loop and a
    vectorised run make the same decisions (Exercise 2's promise)."""
    w_star = rng.integers(-5, 6, d)
    w_star[0] = rng.choice([-5, -4, 4, 5])  # never the zero vector
    X = rng.integers(-6, 7, (3 * n, d))
    X = X[X @ w_star != 0][:n].astype(float)
    y = np.sign(X @ w_star)
    flipped = rng.random(len(y)) < flip
    return X, np.where(flipped, -y, y)


def training_loop() -> Check:
    """Check ``train_perceptron(X, y, eta, max_epochs)`` returns (w, mistakes).

    Every hidden case has integer data and η a power of 2 (see :func:`integer_sample`): the
    arithmetic is exact, so the answer does not depend on how the scores are summed.
    """

    def run(X, y, eta, max_epochs):
        result = reference.perceptron(X, y, eta=eta, max_epochs=max_epochs)
        return result.w, result.mistakes

    cases = []
    for offset, (n, d, eta) in enumerate([(40, 3, 1.0), (60, 5, 0.5), (30, 2, 0.125)]):
        X, y = integer_sample(_rng(10 + offset), n, d)
        cases.append(Case(f"a separable sample of {n} integer examples in {d} dimensions, "
                          f"η = {eta}", (X, y, eta, 100)))
    X, y = integer_sample(_rng(20), 30, 2, flip=0.2)
    cases.append(Case("a sample that is not separable, stopped after max_epochs = 3",
                      (X, y, 0.25, 3)))
    return Check("train_perceptron", cases, run, domain=_training_domain)


def _training_domain(X, y, eta, max_epochs) -> str | None:
    X = np.asarray(X, dtype=float)
    return unmet(("X has shape (n, d) with n >= 1 and y shape (n,)",
                  X.ndim == 2 and len(X) >= 1 and np.shape(y) == (len(X),)),
                 ("y holds labels -1 and +1", labels(y)),
                 ("the examples are whole numbers and eta a power of 2",
                  multiples(X, 1) and power_of_two(eta)),
                 ("max_epochs is a whole number >= 1", whole(max_epochs, 1)))


def _margin_domain(w, X, y) -> str | None:
    X = np.asarray(X, dtype=float)
    return unmet(("w has shape (d,), X shape (n, d) with n >= 1, y shape (n,)",
                  X.ndim == 2 and len(X) >= 1 and np.shape(w) == X.shape[1:]
                  and np.shape(y) == (len(X),)),
                 ("w and X are finite", finite(w, X)),
                 ("y holds labels -1 and +1", labels(y)))


def margin() -> Check:
    """Check ``geometric_margin(w, X, y)`` (CS578 L2)."""
    X, y, w_star = data.separable(25, 3, margin=0.1, seed=_rng(30))
    cases = [
        Case("a separating w of unit length", (w_star, X, y)),
        Case("a separating w that is not of unit length", (3.5 * w_star, X, y)),
        Case("a w that misclassifies some examples (the margin is negative)", (-w_star, X, y)),
    ]
    return Check("geometric_margin", cases, reference.geometric_margin, domain=_margin_domain)


def bound() -> Check:
    """Check ``mistake_bound(X, y, w_star)`` = (R/γ)² with γ the margin of w_star."""

    def run(X, y, w_star):
        return reference.mistake_bound(reference.radius(X),
                                       reference.geometric_margin(w_star, X, y))

    X, y, w_star = data.separable(30, 4, margin=0.2, radius=3.0, seed=_rng(40))
    cases = [
        Case("data of radius about 3 and a unit-length w_star", (X, y, w_star)),
        Case("the same data with w_star not of unit length", (X, y, 0.25 * w_star)),
    ]
    return Check("mistake_bound", cases, run, builds_on=("geometric_margin",),
                 domain=_bound_domain)


def _bound_domain(X, y, w_star) -> str | None:
    """Exercise 3's promises, and whether w_star separates (γ > 0) decided beyond rounding."""
    return _margin_domain(w_star, X, y) or unmet(
        ("every score y·(w_star·x) is 0 exactly or farther from 0 than rounding can reach",
         all(decided(label * np.asarray(w_star, dtype=float), x) for x, label in zip(
             np.asarray(X, dtype=float), y, strict=True))))


def winnow_cases(rng, demotion: str = "demotion") -> list[Case]:
    """One Winnow step's six situations on binary x and power-of-2 weights (exact scores):
    promotion, ``demotion`` (or elimination), no change either way, and both ties at θ."""
    d = 8
    x = rng.integers(0, 2, d).astype(float)
    x[:2] = 1.0
    w = 2.0 ** rng.integers(-2, 3, d)
    score = float(w @ x)
    return [
        Case("a positive example above the threshold (no change)", (w, x, 1.0, score - 1)),
        Case("a positive example below the threshold (promotion)", (w, x, 1.0, score + 1)),
        Case(f"a negative example above the threshold ({demotion})", (w, x, -1.0, score - 1)),
        Case("a negative example below the threshold (no change)", (w, x, -1.0, score + 1)),
        Case("a positive example exactly at the threshold", (w, x, 1.0, score)),
        Case("a negative example exactly at the threshold", (w, x, -1.0, score)),
    ]


SCORE_AT_THETA = ("a score equal to theta is exact (dyadic numbers), and every other score "
                  "is farther from theta than rounding can reach")


def winnow_domain(w, x, y, theta) -> str | None:
    """Winnow's promises (lecture 01 Exercise 5, lecture 12 Exercise 1): positive weights (0
    after an elimination), a 0/1 x, a label ±1, and a comparison with θ that rounding cannot
    decide."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    return unmet(("w and x have one shape (d,)", w.ndim == 1 and w.shape == x.shape),
                 ("the weights are finite and >= 0", finite(w) and bool(np.all(w >= 0))),
                 ("x is a 0/1 vector and y is -1 or +1", labels(x, (0, 1)) and labels(y)),
                 (SCORE_AT_THETA, lambda: finite(theta) and decided(np.append(w, -theta),
                                                                    np.append(x, 1))))


def winnow_update() -> Check:
    """Check ``winnow_update(w, x, y, theta)`` (MMDS §12.2.3)."""
    return Check("winnow_update", winnow_cases(_rng(50)), reference.winnow_update,
                 domain=winnow_domain)
