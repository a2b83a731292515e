"""Lecture 02's hidden checks: right answers pass, typical slips fail with their hint and show
no computed value (tests/test_variants.py replays these for 50 students' inputs)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import svm as check


def objective_ok(w, b, X, y, C):
    return 0.5 * w @ w + C * np.sum(np.maximum(0, 1 - y * (X @ w + b)))


def gradient_ok(w, b, X, y, C):
    bad = y * (X @ w + b) < 1
    return np.append(w - C * (y[bad] @ X[bad]), b - C * np.sum(y[bad]))


def gradient_counts_the_margin(w, b, X, y, C):  # the slip: z = 1 treated as bad
    bad = y * (X @ w + b) <= 1
    return np.append(w - C * (y[bad] @ X[bad]), b - C * np.sum(y[bad]))


def gradient_without_bias_term(w, b, X, y, C):
    return gradient_ok(w, 0.0, X, y, C)


def step_ok(w, b, X, y, C, eta):
    g = gradient_ok(w, b, X, y, C)
    return w - eta * g[:-1], b - eta * g[-1]


def descent_ok(X, y, C, eta, w0, b0, iterations):
    w, b = np.asarray(w0, float), float(b0)
    for _ in range(iterations):
        w, b = step_ok(w, b, X, y, C, eta)
    return w, b


def descent_one_short(X, y, C, eta, w0, b0, iterations):
    return descent_ok(X, y, C, eta, w0, b0, iterations - 1)


def support_ok(w, b, X, y):
    return np.flatnonzero(y * (X @ w + b) <= 1 + 1e-9)


def support_strict(w, b, X, y):  # forgets the points exactly on the margin
    return np.flatnonzero(y * (X @ w + b) < 1)


@pytest.mark.parametrize(
    "checker, answer",
    [
        (check.objective, objective_ok),
        (check.gradient, gradient_ok),
        (check.step, step_ok),
        (check.descent, descent_ok),
        (check.support, support_ok),
    ],
)
def test_checker_passes_a_right_answer(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize(
    "checker, answer, hint",
    [
        (check.objective, lambda w, b, X, y, C: objective_ok(w, 0.0, X, y, C), "bias"),
        (check.objective, lambda w, b, X, y, C: 0.5 * w @ w, "inside"),
        (check.gradient, gradient_counts_the_margin, "exactly on"),
        (check.gradient, gradient_without_bias_term, "own term b"),
        (check.step, lambda w, b, X, y, C, eta: (w, b), "bad"),
        (check.descent, descent_one_short, "iterations"),
        (check.support, support_strict, "exactly on"),
    ],
)
def test_checker_fails_a_wrong_answer_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    message = str(failure.value)
    assert not re.search(r"\d\.\d{3,}|\[", message), "the message shows computed values"


def test_checkers_report_unimplemented_answers():
    def unimplemented(*args):
        raise NotImplementedError()

    for checker in (check.objective, check.gradient, check.step, check.descent, check.support):
        with pytest.raises(ExerciseFailed, match="not answered yet"):
            run_check(checker(), unimplemented)
