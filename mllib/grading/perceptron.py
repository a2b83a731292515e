"""Hidden checks for the perceptron exercises (lecture 01).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mllib import data
from mllib import perceptron as reference
from mllib.grading import Case, check_cases, seeded

_rng = seeded(20261122)


def _one_step(w, x, y, eta):
    """One visit of the perceptron: a one-example, one-epoch run of mllib's perceptron."""
    return reference.perceptron(x[None, :], [y], eta=eta, w0=w, max_epochs=1).w


def update_rule(student: Callable) -> None:
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
    check_cases(student, _one_step, cases, name="perceptron_update")


def training_loop(student: Callable) -> None:
    """Check ``train_perceptron(X, y, eta, max_epochs)`` returns (w, mistakes)."""

    def run(X, y, eta, max_epochs):
        result = reference.perceptron(X, y, eta=eta, max_epochs=max_epochs)
        return result.w, result.mistakes

    cases = []
    for offset, (n, d, eta) in enumerate([(40, 3, 1.0), (60, 5, 0.5), (30, 2, 0.1)]):
        X, y, _ = data.separable(n, d, margin=0.05, seed=_rng(10 + offset))
        cases.append(Case(f"a separable sample of {n} examples in {d} dimensions, η = {eta}",
                          (X, y, eta, 100)))
    X, y, _ = data.noisy(30, 2, flip=0.2, seed=_rng(20))
    cases.append(Case("a sample that is not separable, stopped after max_epochs = 3",
                      (X, y, 1.0, 3)))
    check_cases(student, run, cases, name="train_perceptron")


def margin(student: Callable) -> None:
    """Check ``geometric_margin(w, X, y)`` (CS578 L2)."""
    X, y, w_star = data.separable(25, 3, margin=0.1, seed=_rng(30))
    cases = [
        Case("a separating w of unit length", (w_star, X, y)),
        Case("a separating w that is not of unit length", (3.5 * w_star, X, y)),
        Case("a w that misclassifies some examples (the margin is negative)", (-w_star, X, y)),
    ]
    check_cases(student, reference.geometric_margin, cases, name="geometric_margin")


def bound(student: Callable) -> None:
    """Check ``mistake_bound(X, y, w_star)`` = (R/γ)² with γ the margin of w_star."""

    def run(X, y, w_star):
        return reference.mistake_bound(reference.radius(X),
                                       reference.geometric_margin(w_star, X, y))

    X, y, w_star = data.separable(30, 4, margin=0.2, radius=3.0, seed=_rng(40))
    cases = [
        Case("data of radius about 3 and a unit-length w_star", (X, y, w_star)),
        Case("the same data with w_star not of unit length", (X, y, 0.25 * w_star)),
    ]
    check_cases(student, run, cases, name="mistake_bound")


def winnow_update(student: Callable) -> None:
    """Check ``winnow_update(w, x, y, theta)`` (MMDS §12.2.3)."""
    rng = _rng(50)
    d = 8
    x = rng.integers(0, 2, d).astype(float)
    x[:2] = 1.0
    w = 2.0 ** rng.integers(-2, 3, d)
    score = float(w @ x)
    cases = [
        Case("a positive example above the threshold (no change)", (w, x, 1.0, score - 1)),
        Case("a positive example below the threshold (promotion)", (w, x, 1.0, score + 1)),
        Case("a negative example above the threshold (demotion)", (w, x, -1.0, score - 1)),
        Case("a negative example below the threshold (no change)", (w, x, -1.0, score + 1)),
        Case("a positive example exactly at the threshold", (w, x, 1.0, score)),
        Case("a negative example exactly at the threshold", (w, x, -1.0, score)),
    ]
    check_cases(student, reference.winnow_update, cases, name="winnow_update")
