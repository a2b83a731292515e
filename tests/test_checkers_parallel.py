"""Hidden checkers of lecture 15: right answers (written several ways) pass, typical slips fail
with a hint that reveals neither the hidden inputs nor the answers."""

import re

import numpy as np
import pytest

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


def train_vectorised(chunks, eta, max_rounds):
    w = np.zeros(chunks[0][0].shape[1])
    for number in range(1, max_rounds + 1):
        w, mistakes = round_vectorised(w, chunks, eta)
        if sum(mistakes) == 0:
            return w, number
    return w, max_rounds


def train_while(chunks, eta, max_rounds):  # another way: a while loop on the mistakes
    w, rounds, mistakes = np.zeros(len(chunks[0][0][0])), 0, None
    while mistakes != 0 and rounds < max_rounds:
        w, per_chunk = round_stacked(w, chunks, eta)
        mistakes, rounds = int(np.sum(per_chunk)), rounds + 1
    return w, rounds


def train_uncounted_last_round(chunks, eta, max_rounds):  # slip: the clean round not counted
    w, rounds = train_vectorised(chunks, eta, max_rounds)
    return w, rounds - 1 if rounds < max_rounds else rounds


def train_sequential_rounds(chunks, eta, max_rounds):  # slip: the sequential round inside
    w = np.zeros(chunks[0][0].shape[1])
    for number in range(1, max_rounds + 1):
        new_w, mistakes = round_sequential(w, chunks, eta)
        w = new_w
        if sum(mistakes) == 0:
            return w, number
    return w, max_rounds


@pytest.mark.parametrize("checker, answer", [
    (check.map_mistakes, map_vectorised),
    (check.map_mistakes, map_loop),
    (check.reduce_sums, reduce_vectorised),
    (check.reduce_sums, reduce_loop),
    (check.mapreduce_round, round_vectorised),
    (check.mapreduce_round, round_stacked),
    (check.train_mapreduce, train_vectorised),
    (check.train_mapreduce, train_while),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.map_mistakes, map_strict, "exactly 0"),
    (check.map_mistakes, map_without_eta, "η = 0.25"),
    (check.reduce_sums, reduce_average, "four Map outputs"),
    (check.mapreduce_round, round_sequential, "three chunks"),
    (check.mapreduce_round, round_increment_only, "three chunks"),
    (check.train_mapreduce, train_uncounted_last_round, "separable"),
    (check.train_mapreduce, train_sequential_rounds, "separable"),
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


def test_the_non_separable_case_hits_the_round_limit():
    for case in check.train_mapreduce().cases:
        w, rounds = check._train(*case.args)
        assert (rounds == case.args[2]) == ("not separable" in case.hint)
