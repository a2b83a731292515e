"""Lecture 13's hidden checks: right answers written several ways pass, typical slips fail."""

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from visible_support import exercise_cell, failed_visible_checks

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import bayesnet as check

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "solutions/13_bayesnet/bayesnet_exercises.ipynb"

# --- answers as a student might write them ---------------------------------------------------


def map_ok(heads, tosses, a, b):
    return (heads + a - 1) / (tosses + a + b - 2)


def map_forgets_the_minus_ones(heads, tosses, a, b):  # the posterior mean, not its mode
    return (heads + a) / (tosses + a + b)


def map_ignores_the_prior(heads, tosses, a, b):
    return heads / tosses if tosses else 0.5


def nb_ok(X, y, x, s):
    X, y, x = np.asarray(X), np.asarray(y), np.asarray(x)
    best, label = -np.inf, None
    for v in (-1.0, 1.0):
        rows = X[y == v]
        theta = (rows.sum(axis=0) + s) / (len(rows) + 2 * s)
        score = np.log(len(rows) / len(X)) + np.sum(np.where(x == 1, np.log(theta),
                                                              np.log(1 - theta)))
        if score > best:
            best, label = score, v
    return label


def nb_with_products(X, y, x, s):  # probabilities multiplied, with lists: also right
    scores = {}
    for v in (1, -1):
        rows = [r for r, label in zip(X, y, strict=True) if label == v]
        p = len(rows) / len(X)
        for j, bit in enumerate(x):
            on = (sum(r[j] for r in rows) + s) / (len(rows) + 2 * s)
            p *= on if bit == 1 else 1 - on
        scores[v] = p
    return max(scores, key=scores.get)


def nb_recodes_y_in_place(X, y, x, s):  # labels to 0/1 in the caller's array
    y = np.asarray(y)
    y[y == -1] = 0
    return nb_ok(X, 2.0 * y - 1, x, s)


def nb_without_prior(X, y, x, s):
    X, y, x = np.asarray(X), np.asarray(y), np.asarray(x)
    scores = []
    for v in (-1.0, 1.0):
        theta = (X[y == v].sum(axis=0) + s) / ((y == v).sum() + 2 * s)
        scores.append(np.sum(np.where(x == 1, np.log(theta), np.log(1 - theta))))
    return [-1.0, 1.0][int(np.argmax(scores))]


def nb_ignores_absent_words(X, y, x, s):  # multiplies only over the words present
    X, y, x = np.asarray(X), np.asarray(y), np.asarray(x)
    scores = []
    for v in (-1.0, 1.0):
        theta = (X[y == v].sum(axis=0) + s) / ((y == v).sum() + 2 * s)
        scores.append(np.log(np.mean(y == v)) + np.sum(np.log(theta[x == 1])))
    return [-1.0, 1.0][int(np.argmax(scores))]


def nb_without_smoothing(X, y, x, s):  # s left out: a word never seen in a class rules it out
    with np.errstate(divide="ignore"):
        return nb_ok(X, y, x, 0.0)


def joint_ok(parents, cpts, assignment):
    p = 1.0
    for v, table in cpts.items():
        index = tuple(assignment[u] for u in parents[v]) + (assignment[v],)
        p *= np.asarray(table)[index]
    return p


def joint_with_logs(parents, cpts, assignment):
    total = 0.0
    for v in parents:
        row = cpts[v]
        for u in parents[v]:
            row = row[assignment[u]]
        total += math.log(row[assignment[v]])
    return math.exp(total)


def joint_consumes_the_assignment(parents, cpts, assignment):  # pops the caller's dict empty
    values, p = {}, 1.0
    while assignment:
        v, value = assignment.popitem()
        values[v] = value
    for v, table in cpts.items():
        p *= np.asarray(table)[tuple(values[u] for u in parents[v]) + (values[v],)]
    return p


def joint_ignores_parents(parents, cpts, assignment):  # uses the first row of every CPT
    p = 1.0
    for v, table in cpts.items():
        table = np.asarray(table)
        p *= table.reshape(-1, 2)[0, assignment[v]]
    return p


def query_ok(parents, cpts, target, evidence):
    hidden = [v for v in cpts if v != target and v not in evidence]
    totals = np.zeros(2)
    for value in (0, 1):
        for values in itertools.product((0, 1), repeat=len(hidden)):
            world = {**evidence, target: value, **dict(zip(hidden, values, strict=True))}
            totals[value] += joint_ok(parents, cpts, world)
    return totals / totals.sum()


def query_by_rejection_of_worlds(parents, cpts, target, evidence):  # all 2ⁿ worlds, filtered
    names = list(cpts)
    totals = [0.0, 0.0]
    for values in itertools.product((0, 1), repeat=len(names)):
        world = dict(zip(names, values, strict=True))
        if all(world[v] == e for v, e in evidence.items()):
            totals[world[target]] += joint_with_logs(parents, cpts, world)
    return [t / sum(totals) for t in totals]


def query_into_the_evidence(parents, cpts, target, evidence):  # sets the target in evidence
    hidden = [v for v in cpts if v != target and v not in evidence]
    totals = np.zeros(2)
    for value in (0, 1):
        evidence[target] = value
        for values in itertools.product((0, 1), repeat=len(hidden)):
            totals[value] += joint_ok(parents, cpts,
                                      {**evidence, **dict(zip(hidden, values, strict=True))})
    return totals / totals.sum()


def query_unnormalised(parents, cpts, target, evidence):
    hidden = [v for v in cpts if v != target and v not in evidence]
    totals = np.zeros(2)
    for value in (0, 1):
        for values in itertools.product((0, 1), repeat=len(hidden)):
            world = {**evidence, target: value, **dict(zip(hidden, values, strict=True))}
            totals[value] += joint_ok(parents, cpts, world)
    return totals


def query_reads_the_cpt(parents, cpts, target, evidence):  # ignores evidence below the target
    table = np.asarray(cpts[target])
    return table if table.ndim == 1 else table.reshape(-1, 2).mean(axis=0)


@pytest.mark.parametrize("checker, answer", [
    (check.map_estimate, map_ok),
    (check.naive_bayes_prediction, nb_ok),
    (check.naive_bayes_prediction, nb_with_products),
    (check.joint_probability, joint_ok),
    (check.joint_probability, joint_with_logs),
    (check.query_by_enumeration, query_ok),
    (check.query_by_enumeration, query_by_rejection_of_worlds),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer", [
    (check.map_estimate, map_forgets_the_minus_ones),
    (check.map_estimate, map_ignores_the_prior),
    (check.naive_bayes_prediction, nb_without_prior),
    (check.naive_bayes_prediction, nb_ignores_absent_words),
    (check.joint_probability, joint_ignores_parents),
    (check.query_by_enumeration, query_unnormalised),
    (check.query_by_enumeration, query_reads_the_cpt),
])
def test_typical_slips_fail_with_a_hint(checker, answer):
    with pytest.raises(ExerciseFailed, match="hidden case"):
        run_check(checker(), answer)


@pytest.mark.parametrize("slip, edge", [
    (nb_without_smoothing, "a word never seen in spam"),
    (nb_without_prior, "a word never seen in spam"),  # only spam's prior outweighs the word
    (nb_ignores_absent_words, "lacks a word every spam e-mail has"),
])
def test_each_hand_built_naive_bayes_edge_alone_catches_its_slip(slip, edge):
    # Drawn for each student, the case still holds its edge: right answers pass it, the slip
    # it is there for fails it (tests/test_variants.py replays this for 50 students).
    full = check.naive_bayes_prediction()
    alone = dataclasses.replace(full, cases=[c for c in full.cases if edge in c.hint])
    assert len(alone.cases) == 1
    run_check(alone, nb_ok)
    run_check(alone, nb_with_products)
    with pytest.raises(ExerciseFailed, match=edge):
        run_check(alone, slip)


def test_hidden_naive_bayes_cases_have_no_near_ties():
    for case in check.naive_bayes_prediction().cases:
        assert check._clear_margin(*case.args)


def test_the_statements_tie_example_is_a_tie():
    # Ex 2 puts ties outside the specification; its example, one e-mail labelled both ways
    # with x that e-mail, gives the two labels identical scores (the same counts), for any s.
    from mllib import bayes

    email = [1.0, 0.0, 1.0, 1.0, 0.0]
    for s in (0.5, 1.0, 3.0):
        model = bayes.naive_bayes([email, email], [1, -1], smoothing=s)
        low, high = bayes.naive_bayes_log_posterior(model, [email])[0]
        assert low == pytest.approx(high, abs=1e-12)  # the same counts, so the same sums


def test_unimplemented_answers_are_reported_by_name():
    def unimplemented(*args):
        raise NotImplementedError

    with pytest.raises(ExerciseFailed, match="query is not answered yet"):
        run_check(check.query_by_enumeration(), unimplemented)


def test_skipping_absent_words_fails_exactly_the_visible_of_nigeria_check():
    # The statement and the notebook's header: the slip passes every visible check of
    # Exercise 2 but the one for "of nigeria" (and fails the hidden test, checked above).
    assert failed_visible_checks("13_bayesnet", {"nb_predict": nb_ok},
                                 "test_nb_predict_visible") == []
    (failure,) = failed_visible_checks("13_bayesnet", {"nb_predict": nb_ignores_absent_words},
                                       "test_nb_predict_visible")
    assert "label of 'of nigeria'" in failure
    header = "".join(json.loads(EXERCISES.read_text())["cells"][0]["source"])
    assert '"of nigeria"' in exercise_cell("13_bayesnet", "q_nb_predict")
    assert '"of nigeria"' in header


# The statements say "do not modify the arguments". A hidden check cannot see an answer that
# does (each case gets fresh inputs), so the visible tests look at the arguments after a call.
@pytest.mark.parametrize("grade_id, name, right, slip, changed", [
    ("test_nb_predict_visible", "nb_predict", nb_ok, nb_recodes_y_in_place, "y"),
    ("test_joint_probability_visible", "joint_probability", joint_ok,
     joint_consumes_the_assignment, "the assignment"),
    ("test_query_visible", "query", query_ok, query_into_the_evidence, "the evidence"),
])
def test_visible_tests_catch_an_answer_that_changes_its_arguments(grade_id, name, right, slip,
                                                                  changed):
    assert failed_visible_checks("13_bayesnet", {name: right}, grade_id) == []
    failed = failed_visible_checks("13_bayesnet", {name: slip}, grade_id)
    assert [f.split(" after ")[0] for f in failed if "must not be modified" in f] == [changed]
