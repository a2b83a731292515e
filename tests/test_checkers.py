"""The hidden-test checkers: right answers pass, wrong ones fail without leaking answers."""

import re

import numpy as np
import pytest

from mllib import perceptron as P
from mllib.grading import ExerciseFailed, assert_close, run_check
from mllib.grading import perceptron as check


def update_ok(w, x, y, eta):
    return w + eta * y * x if y * (w @ x) <= 0 else w


def update_zero_is_fine(w, x, y, eta):  # the classic slip: w·x = 0 not counted as a mistake
    return w + eta * y * x if y * (w @ x) < 0 else w


def update_in_place(w, x, y, eta):
    if y * (w @ x) <= 0:
        w += eta * y * x
    return w


def train_ok(X, y, eta=1.0, max_epochs=100):
    run = P.perceptron(X, y, eta=eta, max_epochs=max_epochs)
    return run.w, run.mistakes


def train_one_epoch_only(X, y, eta=1.0, max_epochs=100):
    run = P.perceptron(X, y, eta=eta, max_epochs=1)
    return run.w, run.mistakes


def winnow_ok(w, x, y, theta):
    score = w @ x
    if (score > theta) if y > 0 else (score < theta):
        return w
    return w * np.where(x == 1, 2.0 if y > 0 else 0.5, 1.0)


def winnow_ties_correct(w, x, y, theta):  # CS446's >= convention instead of MMDS's
    score = w @ x
    if (score >= theta) if y > 0 else (score < theta):
        return w
    return w * np.where(x == 1, 2.0 if y > 0 else 0.5, 1.0)


def bound_ok(X, y, w_star):
    return P.mistake_bound(P.radius(X), P.geometric_margin(w_star, X, y))


def bound_assumes_unit(X, y, w_star):
    return (P.radius(X) / np.min(y * (X @ w_star))) ** 2


class EqualsEverything:
    def __eq__(self, other):
        return True

    def __array__(self, dtype=None, copy=None):
        raise TypeError("not numbers")


@pytest.mark.parametrize(
    "checker, answer",
    [
        (check.update_rule, update_ok),
        (check.update_rule, update_in_place),  # modifying w in place is allowed
        (check.training_loop, train_ok),
        (check.margin, P.geometric_margin),
        (check.bound, bound_ok),
        (check.winnow_update, winnow_ok),
    ],
)
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize(
    "checker, answer, hint",
    [
        (check.update_rule, update_zero_is_fine, "w·x = 0"),
        (check.training_loop, train_one_epoch_only, "separable"),
        (check.margin, lambda w, X, y: float(np.min(y * (X @ w))), "not of unit length"),
        (check.bound, bound_assumes_unit, "not of unit length"),
        (check.winnow_update, winnow_ties_correct, "exactly at the threshold"),
        (check.update_rule, lambda w, x, y, eta: EqualsEverything(), "should be a number"),
    ],
)
def test_wrong_answers_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    message = str(failure.value)
    assert not re.search(r"\d\.\d{3,}|\[", message), "the message shows computed values"
    assert failure.value._render_traceback_() == [f"ExerciseFailed: {message}"]


def test_unimplemented_and_crashing_answers_are_reported_by_name():
    def unimplemented(*args):
        raise NotImplementedError()

    with pytest.raises(ExerciseFailed, match="not answered yet"):
        run_check(check.update_rule(), unimplemented)
    with pytest.raises(ExerciseFailed, match="raised ZeroDivisionError"):
        run_check(check.margin(), lambda w, X, y: 1 / 0)
    with pytest.raises(ExerciseFailed, match="not a function"):
        run_check(check.margin(), None)


def test_a_verdict_quotes_no_text_of_the_students():
    """An exception's message and a class's name are the student's text, which could spell out
    the hidden inputs: the verdict names only Python's and numpy's own types."""

    def leaky(w, X, y):
        raise ValueError(f"inputs {np.asarray(X).tolist()} LEAK")

    def named_after_inputs(w, X, y):
        raise type(f"Leak_{int(abs(np.asarray(X)).sum())}", (Exception,), {})()

    def odd_object(w, X, y):
        return type("Leak_object", (), {})()

    with pytest.raises(ExerciseFailed) as failure:
        run_check(check.margin(), leaky)
    assert "raised ValueError on hidden case 1" in str(failure.value)
    assert "LEAK" not in str(failure.value) and "[" not in str(failure.value)
    with pytest.raises(ExerciseFailed, match="raised an exception on hidden case 1") as failure:
        run_check(check.margin(), named_after_inputs)
    assert "Leak" not in str(failure.value)
    with pytest.raises(ExerciseFailed, match="got an object of another type") as failure:
        run_check(check.margin(), odd_object)
    assert "Leak" not in str(failure.value)


def test_assert_close_compares_values_as_plain_numbers():
    assert_close([0.5, 1], np.array([0.5, 1.0]), "w")
    with pytest.raises(ExerciseFailed, match=r"w is \[0.5, 2.0\]; expected \[0.5, 1.0\]"):
        assert_close([0.5, 2], [0.5, 1], "w")
    with pytest.raises(ExerciseFailed, match="shape"):
        assert_close([1, 2, 3], [1, 2], "w")
    with pytest.raises(ExerciseFailed, match="NaN"):
        assert_close([np.nan], [1.0], "w")
    with pytest.raises(ExerciseFailed, match="should be a number"):
        assert_close(EqualsEverything(), 1.0, "w")


def train_plain_loop(X, y, eta=1.0, max_epochs=100):  # one dot product per row
    w, mistakes = np.zeros(X.shape[1]), 0
    for _ in range(max_epochs):
        before = mistakes
        for x, t in zip(X, y, strict=True):
            if t * (w @ x) <= 0:
                w, mistakes = w + eta * t * x, mistakes + 1
        if mistakes == before:
            break
    return w, mistakes


def train_vectorised(X, y, eta=1.0, max_epochs=100):  # scores the rest of the epoch at once
    w, mistakes = np.zeros(X.shape[1]), 0
    for _ in range(max_epochs):
        before, start = mistakes, 0
        while start < len(y):
            bad = np.flatnonzero(y[start:] * (X[start:] @ w) <= 0)
            if bad.size == 0:
                break
            i = start + bad[0]
            w, mistakes, start = w + eta * y[i] * X[i], mistakes + 1, i + 1
        if mistakes == before:
            break
    return w, mistakes


@pytest.mark.parametrize("answer", [train_plain_loop, train_vectorised])
def test_training_loop_hidden_cases_are_exact_so_any_summation_order_passes(answer):
    """Exercise 2's promise: integer data and η a power of 2 make every score exact, so a
    per-row loop and a vectorised solution get full marks on every hidden case (on real-valued
    data they can differ from mllib's blocked scoring by a rounding that flips ``<= 0``)."""
    checker = check.training_loop()
    for case in checker.cases:
        X, y, eta, _ = case.args
        assert np.array_equal(X, np.round(X)) and np.log2(eta) == np.round(np.log2(eta))
    run_check(checker, answer)
