"""Hidden checkers of lecture 15: right answers (written several ways) pass, typical slips fail
with a hint that reveals neither the hidden inputs nor the answers."""

import re

import numpy as np
import pytest
from visible_support import failed_visible_checks

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import parallel as check


def map_vectorised(w, X, y, eta):
    wrong = y * (X @ w) <= 0
    return eta * (y[wrong] @ X[wrong]), int(wrong.sum())


def map_loop(w, X, y, eta):
    total, mistakes = [0.0] * len(w), 0
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        if label * sum(a * b for a, b in zip(w, x, strict=True)) <= 0:
            mistakes += 1
            total = [t + eta * label * xi for t, xi in zip(total, x, strict=True)]
    return total, mistakes


def map_flips_x_in_place(w, X, y, eta):  # each example times its label, in the caller's X
    X *= y[:, None]
    wrong = X @ w <= 0
    return eta * X[wrong].sum(axis=0), int(wrong.sum())


def map_strict(w, X, y, eta):  # slip: w·x = 0 counted as right
    wrong = y * (X @ w) < 0
    return eta * (y[wrong] @ X[wrong]), int(wrong.sum())


def map_without_eta(w, X, y, eta):  # slip: forgets the learning rate
    return map_vectorised(w, X, y, 1.0)


def reduce_vectorised(outputs):
    return np.sum([inc for inc, _ in outputs], axis=0), sum(m for _, m in outputs)


def reduce_loop(outputs):
    total, mistakes = None, 0
    for increment, count in outputs:
        total = list(increment) if total is None else [a + b for a, b in
                                                       zip(total, increment, strict=True)]
        mistakes += count
    return total, mistakes


def reduce_into_the_first(outputs):  # adds into the first Map task's increment
    total = outputs[0][0]
    for increment, _ in outputs[1:]:
        total += increment
    return total, sum(m for _, m in outputs)


def reduce_average(outputs):  # slip: averages, as MMDS §12.3.6's first approach does
    return np.mean([inc for inc, _ in outputs], axis=0), sum(m for _, m in outputs)


def round_vectorised(w, chunks, eta):
    outputs = [map_vectorised(w, X, y, eta) for X, y in chunks]
    increment, _ = reduce_vectorised(outputs)
    return w + increment, [m for _, m in outputs]


def round_stacked(w, chunks, eta):  # another way: one product over all rows at once
    X = np.vstack([X for X, _ in chunks])
    y = np.concatenate([y for _, y in chunks])
    wrong = y * (X @ w) <= 0
    edges = np.cumsum([len(y) for _, y in chunks])[:-1]
    return w + eta * (y[wrong] @ X[wrong]), np.array([p.sum() for p in np.split(wrong, edges)])


def round_into_w(w, chunks, eta):  # right increments, added to the caller's w
    increment, _ = reduce_vectorised([map_vectorised(w, X, y, eta) for X, y in chunks])
    w += increment
    return w, [map_vectorised(w - increment, X, y, eta)[1] for X, y in chunks]


def round_sequential(w, chunks, eta):  # slip: each chunk sees the previous chunk's update
    mistakes = []
    for X, y in chunks:
        increment, m = map_vectorised(w, X, y, eta)
        w = w + increment
        mistakes.append(m)
    return w, mistakes


def round_increment_only(w, chunks, eta):  # slip: returns Σ η·y·x, not w + Σ η·y·x
    new_w, mistakes = round_vectorised(w, chunks, eta)
    return new_w - w, mistakes


def _epoch(w, X, y, eta, mistake=lambda score: score <= 0):
    w, wrong = np.array(w, dtype=float), 0
    for x, label in zip(X, y, strict=True):
        if mistake(label * (w @ x)):
            w, wrong = w + eta * label * x, wrong + 1
    return w, wrong


def mixing_loop(w, chunks, eta):
    runs = [_epoch(w, X, y, eta) for X, y in chunks]
    return np.mean([w_p for w_p, _ in runs], axis=0), [m for _, m in runs]


def mixing_sum_then_divide(w, chunks, eta):  # another way: lists and a division at the end
    total, mistakes = [0.0] * len(w), []
    for X, y in chunks:
        w_p, m = _epoch(w, X, y, eta)
        total = [a + b for a, b in zip(total, w_p.tolist(), strict=True)]
        mistakes.append(m)
    return [a / len(chunks) for a in total], tuple(mistakes)


def mixing_from_w_itself(w, chunks, eta):  # w_p = w, no copy: every chunk updates the caller's w
    weights, mistakes = [], []
    for X, y in chunks:
        w_p, wrong = w, 0
        for x, label in zip(X, y, strict=True):
            if label * (w_p @ x) <= 0:
                w_p += eta * label * x
                wrong += 1
        weights.append(w_p.copy())
        mistakes.append(wrong)
    return np.mean(weights, axis=0), mistakes


def mixing_chained(w, chunks, eta):  # slip: each chunk starts from the previous chunk's w_p
    weights, mistakes = [], []
    for X, y in chunks:
        w, m = _epoch(w, X, y, eta)
        weights.append(w)
        mistakes.append(m)
    return np.mean(weights, axis=0), mistakes


def mixing_weighted(w, chunks, eta):  # slip: average weighted by chunk size
    runs = [_epoch(w, X, y, eta) for X, y in chunks]
    sizes = [len(y) for _, y in chunks]
    return np.average([w_p for w_p, _ in runs], axis=0, weights=sizes), [m for _, m in runs]


def mixing_summed(w, chunks, eta):  # slip: the Reduce adds the weights instead of averaging
    runs = [_epoch(w, X, y, eta) for X, y in chunks]
    return np.sum([w_p for w_p, _ in runs], axis=0), [m for _, m in runs]


def mixing_stale(w, chunks, eta):  # slip: the MapReduce round of exercise 3, w never updated
    new_w, mistakes = round_vectorised(w, chunks, eta)
    return w + (new_w - w) / len(chunks), mistakes


def mixing_strict(w, chunks, eta):  # slip: a score of exactly 0 counted as right
    runs = [_epoch(w, X, y, eta, mistake=lambda score: score < 0) for X, y in chunks]
    return np.mean([w_p for w_p, _ in runs], axis=0), [m for _, m in runs]


def share_vectorised(w, b, X, y, C):
    bad = y * (X @ w + b) < 1
    return -C * np.append(y[bad] @ X[bad], y[bad].sum())


def share_loop(w, b, X, y, C):  # another way: lists, the bias as a feature 1
    total = [0.0] * (len(w) + 1)
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        row = [*x, 1.0]
        if label * (sum(a * c for a, c in zip(w, x, strict=True)) + b) < 1:
            total = [t - C * label * r for t, r in zip(total, row, strict=True)]
    return total


def share_margin_counted(w, b, X, y, C):  # slip: a point exactly on the margin counted as bad
    bad = y * (X @ w + b) <= 1
    return -C * np.append(y[bad] @ X[bad], y[bad].sum())


def share_without_bias(w, b, X, y, C):  # slip: forgets the share for b
    return share_vectorised(w, b, X, y, C)[:-1]


def share_without_c(w, b, X, y, C):  # slip: forgets C
    return share_vectorised(w, b, X, y, 1.0)


@pytest.mark.parametrize("checker, answer", [
    (check.hinge_share, share_vectorised),
    (check.hinge_share, share_loop),
    (check.map_mistakes, map_vectorised),
    (check.map_mistakes, map_loop),
    (check.reduce_sums, reduce_vectorised),
    (check.reduce_sums, reduce_loop),
    (check.mapreduce_round, round_vectorised),
    (check.mapreduce_round, round_stacked),
    (check.mixing_round, mixing_loop),
    (check.mixing_round, mixing_sum_then_divide),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    # Caught by the on-the-margin case at the latest; earlier when one of the student's drawn
    # points lands exactly on the margin (a draw on a coarse grid can).
    (check.hinge_share, share_margin_counted, "on the margin|inside the margin"),
    (check.hinge_share, share_without_bias, "some points inside"),
    (check.hinge_share, share_without_c, "some points inside"),
    (check.map_mistakes, map_strict, "exactly 0"),
    (check.map_mistakes, map_without_eta, "η = 0.25"),
    (check.reduce_sums, reduce_average, "four Map outputs"),
    (check.mapreduce_round, round_sequential, "three chunks"),
    (check.mapreduce_round, round_increment_only, "three chunks"),
    (check.mixing_round, mixing_chained, "three chunks"),
    (check.mixing_round, mixing_weighted, "different sizes"),
    (check.mixing_round, mixing_summed, "three chunks"),
    # Caught by the first case where an update changes a later decision in its chunk, which
    # depends on the student's draw: any of the chunk cases.
    (check.mixing_round, mixing_stale, "chunk"),
    # Caught by the w = 0 case at the latest; earlier when a drawn score happens to be 0.
    (check.mixing_round, mixing_strict, "three chunks|exactly 0"),
])
def test_typical_slips_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


def test_the_tie_case_really_has_a_score_of_zero():
    case = check.map_mistakes().cases[2]
    w, X, y, _ = case.args
    scores = X @ w
    assert scores[0] == 0 and np.all(y[1:] * scores[1:] > 0)  # integers: exact


def test_the_mixing_cases_catch_what_they_say():
    cases = check.mixing_round().cases
    w, chunks, _ = cases[0].args
    assert len({len(y) for _, y in chunks}) == 3  # sizes differ: uniform ≠ weighted average
    w, chunks, _ = cases[2].args
    assert not w.any() and all(X[0] @ w == 0 for X, _ in chunks)


def test_the_margin_case_scores_exactly_one():
    w, b, X, y, _ = check.hinge_share().cases[2].args
    assert y[0] * (X[0] @ w + b) == 1  # halves and whole numbers: exact
    w, b, X, y, _ = check.hinge_share().cases[3].args
    assert y[0] * (X[0] @ w + b) == 0.75


# Every statement says "do not modify the arguments". A hidden check cannot see an answer that
# does (each case gets fresh inputs), so the visible tests look at the arguments after a call.
@pytest.mark.parametrize("grade_id, name, right, slip, changed", [
    ("test_map_mistakes_visible", "map_mistakes", map_vectorised, map_flips_x_in_place, "X"),
    ("test_reduce_sums_visible", "reduce_sums", reduce_vectorised, reduce_into_the_first,
     "the first increment"),
    ("test_mapreduce_round_visible", "mapreduce_round", round_vectorised, round_into_w,
     "the caller's w"),
    ("test_mixing_round_visible", "mixing_round", mixing_loop, mixing_from_w_itself,
     "the caller's w"),
])
def test_visible_tests_catch_an_answer_that_changes_its_arguments(grade_id, name, right, slip,
                                                                  changed):
    assert failed_visible_checks("15_parallel", {name: right}, grade_id) == []
    failed = failed_visible_checks("15_parallel", {name: slip}, grade_id)
    assert [f.split(" (it must")[0].removesuffix(" after the call") for f in failed
            if "must not be modified" in f] == [changed]
