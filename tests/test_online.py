"""Tests for mllib.online.

Oracles: CS446's truth tables (typed in), scipy's linprog (is a threshold function an LP-feasible
problem?), plain loops written here from the slides' pseudocode, and hypothesis properties for
the mistake bounds (Winnow, halving, weighted majority, Balcan's non-separable bound).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from scipy.optimize import linprog

from mllib import online
from mllib import perceptron as P
from mllib.data import noisy, separable
from mllib.online import (
    balanced_winnow,
    balanced_winnow_update,
    balcan_nonseparable_bound,
    boolean_inputs,
    duplicate_negations,
    elimination_update,
    farkas_certificate,
    find_threshold_weights,
    halving,
    halving_bound,
    randomized_weighted_majority,
    randomized_weighted_majority_bound,
    thick_perceptron,
    thick_winnow,
    thick_winnow_update,
    threshold_function,
    threshold_lp,
    total_margin_deficit,
    weighted_majority,
    weighted_majority_bound,
    weighted_majority_update,
    weighted_majority_vote,
    winnow_bound,
    winnow_duplicated,
    winnow_elimination,
    winnow_r,
    winnow_r_update,
    winnow_stream,
)

FAST = examples(40)
TOL = 1e-9  # the bounds hold in exact arithmetic; allow rounding in the sums

XOR = [0, 1, 1, 0]


# --- threshold functions -------------------------------------------------------------------


def test_disjunction_is_a_threshold_function():
    X = boolean_inputs(5)
    w = [1, 0, 1, 0, 1]
    expected = [int(x[0] or x[2] or x[4]) for x in X]  # X1 ∨ X3 ∨ X5
    np.testing.assert_array_equal(threshold_function(w, 1, X), expected)


def test_at_least_two_of_three_is_a_threshold_function():
    X = boolean_inputs(5)
    expected = [int(x[0] + x[2] + x[4] >= 2) for x in X]
    np.testing.assert_array_equal(threshold_function([1, 0, 1, 0, 1], 2, X), expected)


def test_boolean_inputs_counts_in_binary():
    np.testing.assert_array_equal(boolean_inputs(2), [[0, 0], [0, 1], [1, 0], [1, 1]])


def test_xor_has_no_small_integer_weights_but_or_and_and_do():
    X = boolean_inputs(2)
    assert find_threshold_weights(X, XOR, max_weight=4) is None
    for labels in ([0, 1, 1, 1], [0, 0, 0, 1]):  # OR, AND
        w, theta = find_threshold_weights(X, labels)
        np.testing.assert_array_equal(threshold_function(w, theta, X), labels)


@pytest.mark.parametrize("labels, feasible", [(XOR, False), ([1, 0, 0, 1], False),
                                               ([0, 1, 1, 1], True), ([0, 0, 0, 1], True)])
def test_threshold_lp_feasibility_agrees_with_scipy(labels, feasible):
    A, b = threshold_lp(boolean_inputs(2), labels)
    result = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=b, bounds=[(None, None)] * A.shape[1])
    assert result.status == (0 if feasible else 2)  # §1: "reports the system infeasible" (2)
    if feasible:
        w, theta = result.x[:-1], result.x[-1]
        np.testing.assert_array_equal(threshold_function(w, theta, boolean_inputs(2)), labels)


def test_xor_lp_has_the_all_ones_farkas_certificate():
    A, b = threshold_lp(boolean_inputs(2), XOR)
    assert farkas_certificate(A, b, [1, 1, 1, 1])
    assert not farkas_certificate(A, b, [1, 1, 0, 1])
    A_or, b_or = threshold_lp(boolean_inputs(2), [0, 1, 1, 1])
    assert not farkas_certificate(A_or, b_or, [1, 1, 1, 1])


# --- the Winnow family ---------------------------------------------------------------------


def disjunction_stream(seed, n, k, length, density=None):
    """Random binary examples labelled by the monotone disjunction of the first k variables."""
    rng = np.random.default_rng(seed)
    density = density if density is not None else 1 / (k + 1)
    X = (rng.random((length, n)) < density).astype(float)
    relevant = rng.choice(n, k, replace=False)
    y = np.where(X[:, relevant].any(axis=1), 1.0, -1.0)
    return X, y


@FAST
@given(st.integers(0, 10**6), st.integers(4, 200), st.integers(1, 4))
def test_winnow_stays_within_its_documented_bound(seed, n, k):
    k = min(k, n)
    X, y = disjunction_stream(seed, n, k, 300)
    result = P.winnow(X, y, max_epochs=20)
    assert result.mistakes <= winnow_bound(k, n)


@FAST
@given(st.integers(0, 10**6), st.integers(4, 200), st.integers(1, 4))
def test_winnow_with_elimination_stays_within_its_bound(seed, n, k):
    k = min(k, n)
    X, y = disjunction_stream(seed, n, k, 300)
    result = winnow_elimination(X, y, max_epochs=20)
    assert result.mistakes <= winnow_bound(k, n, elimination=True)


def test_elimination_zeroes_the_active_weights_of_a_false_positive():
    w = np.array([4.0, 2.0, 1.0, 8.0])
    x = np.array([1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(elimination_update(w, x, -1.0, 5.0), [0, 2, 0, 0])
    np.testing.assert_array_equal(elimination_update(w, x, 1.0, 20.0), [8, 2, 2, 16])
    assert elimination_update(w, x, 1.0, 5.0) is w  # 13 > 5: correct


def test_winnow_elimination_learns_a_disjunction_exactly():
    X, y = disjunction_stream(3, 30, 2, 400)
    result = winnow_elimination(X, y)
    assert result.converged
    np.testing.assert_array_equal(np.where(X @ result.w > 30, 1.0, -1.0), y)


def test_duplicated_variables_learn_a_non_monotone_disjunction():
    rng = np.random.default_rng(4)
    X = (rng.random((300, 6)) < 0.5).astype(float)
    y = np.where((X[:, 0] == 1) | (X[:, 1] == 0), 1.0, -1.0)  # x1 ∨ ¬x2
    assert not P.winnow(X, y, max_epochs=50).converged  # plain Winnow cannot: not monotone
    result = winnow_duplicated(X, y)
    assert result.converged
    np.testing.assert_array_equal(duplicate_negations(X)[:, [0, 7]], np.c_[X[:, 0], 1 - X[:, 1]])


def test_balanced_winnow_update_matches_the_slide():
    wp, wm = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0])
    x = np.array([1.0, 0.0, 1.0])
    # (w⁺ - w⁻)·x = 0 + 2 = 2 <= θ = 3 on a positive: promote where x = 1
    new_p, new_m = balanced_winnow_update(wp, wm, x, 1.0, 3.0)
    np.testing.assert_array_equal(new_p, [2, 2, 8])
    np.testing.assert_array_equal(new_m, [0.5, 1, 1])
    # the same score 2 >= θ = 1 on a negative: demote
    new_p, new_m = balanced_winnow_update(wp, wm, x, -1.0, 1.0)
    np.testing.assert_array_equal(new_p, [0.5, 2, 2])
    np.testing.assert_array_equal(new_m, [2, 1, 4])


def test_balanced_winnow_learns_a_target_with_a_negative_weight():
    rng = np.random.default_rng(5)
    X = (rng.random((300, 8)) < 0.5).astype(float)
    y = np.where(X[:, 0] - X[:, 1] >= 1, 1.0, -1.0)  # x1 ∧ ¬x2
    result = balanced_winnow(X, y)
    assert result.converged
    effective = result.w[:8] - result.w[8:]
    np.testing.assert_array_equal(np.where(X @ effective > result.theta, 1.0, -1.0), y)
    assert effective[1] < 0


def promotions_of_a_lone_variable(update, weight: float, n: int) -> int:
    """How often ``update`` doubles a weight that starts at ``weight`` on the positive example
    where it is the only active variable (the worst case: nothing else adds to w·x), θ = n."""
    w, x, count = np.ones(n), np.eye(n)[0], 0
    w[0] = weight
    while (new := update(w, x, 1.0, float(n))) is not w:
        w, count = new, count + 1
    return count


@pytest.mark.parametrize("n", [5, 8, 32, 33, 100])
def test_a_relevant_weight_is_doubled_while_it_is_at_most_n(n):
    # §2: "each relevant weight can be doubled only while it is at most n (a score equal to θ is
    # a mistake)", so ⌊log₂ n⌋ + 1 promotions from 1 (winnow_bound's count); §4 (Winnow-R):
    # "with a floor it needs at most ⌊log₂ n⌋ + 2" promotions from the floor ½. For n = 8 and 32
    # the weight reaches n exactly and is still doubled: "below n" would count one fewer.
    assert promotions_of_a_lone_variable(P.winnow_update, 1.0, n) == int(np.log2(n)) + 1
    assert winnow_bound(1, n) == 3 * (int(np.log2(n)) + 1) + 1
    assert promotions_of_a_lone_variable(winnow_r_update, 0.5, n) == int(np.log2(n)) + 2


def test_winnow_r_never_lets_a_weight_fall_below_the_floor():
    w = np.array([0.5, 0.75, 4.0])
    x = np.array([1.0, 1.0, 0.0])
    np.testing.assert_array_equal(winnow_r_update(w, x, -1.0, 1.0), [0.5, 0.5, 4.0])
    X, y = disjunction_stream(6, 40, 3, 500)
    assert min(v.w.min() for v in winnow_r(X, y).history) >= 0.5


@pytest.mark.parametrize("seed", range(4))
def test_winnow_r_recovers_faster_than_winnow_after_the_target_shifts(seed):
    # The target is x0 ∨ x1 for 2000 examples, then x2 ∨ x3. Before the shift x2 shows up only
    # in negative examples, so plain Winnow halves its weight far below 1/2; Winnow-R stops it
    # at 1/2 and needs fewer promotions once x2 joins the target.
    rng = np.random.default_rng(seed)
    X = (rng.random((4000, 32)) < 0.5).astype(float)
    first = X[:2000, [0, 1]].any(axis=1)
    X[:2000, 2] = np.where(first, 0.0, rng.random(2000) < 0.7)
    y = np.where(np.r_[first, X[2000:, [2, 3]].any(axis=1)], 1.0, -1.0)
    robust, plain = winnow_r(X, y), winnow_stream(X, y)
    assert plain.history[1999].w[2] < 0.5
    after = [sum(not v.correct for v in run.history[2000:]) for run in (robust, plain)]
    assert after[0] < after[1]


def test_thick_winnow_demotes_a_negative_inside_the_band():
    w, x = np.ones(3), np.array([1.0, 1.0, 0.0])
    # w·x = 2, θ = 3, γ = 1.5: a negative with w·x - θ = -1 > -γ is demoted (the slide's sign
    # slip, "w·x - θ > γ", would leave it alone)
    np.testing.assert_array_equal(thick_winnow_update(w, x, -1.0, 3.0, 1.5), [0.5, 0.5, 1])
    assert thick_winnow_update(w, x, -1.0, 3.0, 0.5) is w
    # a positive with w·x - θ = 1 <= γ = 1.5 is promoted
    np.testing.assert_array_equal(thick_winnow_update(w, x, 1.0, 1.0, 1.5), [2, 2, 1])


def test_thick_winnow_leaves_every_example_outside_the_band():
    X, y = disjunction_stream(8, 20, 2, 300)
    result = thick_winnow(X, y, margin=2.0)
    assert result.converged
    scores = X @ result.w - result.theta
    assert np.all(y * scores > 2.0)


def test_thick_perceptron_ends_with_functional_margin_above_gamma():
    X, y, _ = separable(60, 3, margin=0.1, seed=1)
    result = thick_perceptron(X, y, margin=1.0)
    assert result.converged
    assert np.all(y * (X @ result.w) > 1.0)


# --- experts -------------------------------------------------------------------------------


def experts_problem(seed, T, N, noise, perfect=False):
    """N experts, each wrong with its own probability up to ``noise``; one perfect if asked."""
    rng = np.random.default_rng(seed)
    outcomes = rng.choice([-1.0, 1.0], T)
    error_rates = rng.uniform(0, noise, N)
    wrong = rng.random((T, N)) < error_rates
    if perfect:
        wrong[:, rng.integers(N)] = False
    return np.where(wrong, -outcomes[:, None], outcomes[:, None]), outcomes


@FAST
@given(st.integers(0, 10**6), st.integers(1, 64), st.integers(1, 200))
def test_halving_makes_at_most_log2_n_mistakes_with_a_perfect_expert(seed, N, T):
    predictions, outcomes = experts_problem(seed, T, N, 0.5, perfect=True)
    assert halving(predictions, outcomes).mistakes <= math.floor(halving_bound(N) + TOL)


@FAST
@given(st.integers(0, 10**6), st.integers(1, 64), st.integers(1, 200),
       st.floats(0.0, 0.6), st.sampled_from([0.1, 0.5, 0.9]))
def test_weighted_majority_stays_within_its_bound(seed, N, T, noise, beta):
    predictions, outcomes = experts_problem(seed, T, N, noise)
    result = weighted_majority(predictions, outcomes, beta=beta)
    best = result.expert_mistakes.min()
    assert result.mistakes <= weighted_majority_bound(best, N, beta) + TOL


@FAST
@given(st.integers(0, 10**6), st.integers(1, 64), st.integers(1, 200), st.floats(0.0, 0.6))
def test_randomized_weighted_majority_expectation_stays_within_its_bound(seed, N, T, noise):
    predictions, outcomes = experts_problem(seed, T, N, noise)
    result = randomized_weighted_majority(predictions, outcomes, seed=seed)
    best = result.expert_mistakes.min()
    assert result.expected_mistakes <= randomized_weighted_majority_bound(best, N) + TOL


def test_weighted_majority_bound_is_2_41_for_beta_one_half():
    assert weighted_majority_bound(0, 2) == pytest.approx(1 / math.log2(4 / 3), rel=1e-12)
    assert 1 / math.log2(4 / 3) == pytest.approx(2.41, abs=0.005)


def test_weighted_majority_round_by_hand():
    weights = np.array([1.0, 0.5, 0.5, 0.25])
    advice = np.array([-1.0, 1.0, 1.0, -1.0])
    assert weighted_majority_vote(weights, advice) == -1.0  # 1.25 against 1.0
    np.testing.assert_array_equal(weighted_majority_update(weights, advice, 1.0),
                                  [0.5, 0.5, 0.5, 0.125])
    assert weighted_majority_vote([1.0, 1.0], [1.0, -1.0]) == 1.0  # ties go to +1


def test_weighted_majority_matches_a_plain_loop():
    predictions, outcomes = experts_problem(11, 50, 7, 0.4)
    weights, mistakes = np.ones(7), 0
    for advice, outcome in zip(predictions, outcomes, strict=True):
        plus, minus = weights[advice > 0].sum(), weights[advice < 0].sum()
        mistakes += (1.0 if plus >= minus else -1.0) != outcome
        weights[advice != outcome] *= 0.5
    result = weighted_majority(predictions, outcomes)
    assert result.mistakes == mistakes
    np.testing.assert_allclose(result.weights, weights, rtol=1e-15)


# --- Balcan's bound ------------------------------------------------------------------------


@FAST
@given(st.integers(0, 10**6), st.floats(0.0, 0.3), st.floats(0.05, 0.5))
def test_balcan_bound_holds_for_the_perceptron_on_noisy_data(seed, flip, gamma):
    X, y, w_star = noisy(60, 3, flip=flip, seed=seed)
    epochs = 3
    result = P.perceptron(X, y, max_epochs=epochs)
    passes = result.epochs  # the sequence seen: that many passes over the sample
    td = passes * total_margin_deficit(w_star, X, y, gamma)
    assert result.mistakes <= balcan_nonseparable_bound(P.radius(X), gamma, td) + TOL


def test_total_margin_deficit_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, 1.0, 1.0])
    # u = (1, 0): margins 1, 0, -1; with γ = 0.5 shortfalls 0, 0.5, 1.5
    assert total_margin_deficit([2.0, 0.0], X, y, 0.5) == pytest.approx(2.0, abs=TOL)
    assert balcan_nonseparable_bound(1.0, 0.5, 2.0) == pytest.approx(4 + 8, abs=TOL)


def test_balcan_bound_without_deficit_is_novikoff():
    assert balcan_nonseparable_bound(3.0, 0.5, 0.0) == pytest.approx(P.mistake_bound(3.0, 0.5))


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: winnow_elimination([[0.5, 1]], [1]), "binary"),
        (lambda: weighted_majority([[1, -1]], [1], beta=1.0), "beta"),
        (lambda: weighted_majority([[1, 0]], [1]), "labels"),
        (lambda: halving([[1, -1], [1, 1]], [1]), "must match"),
        (lambda: balcan_nonseparable_bound(1.0, 0.0, 1.0), "gamma"),
        (lambda: balcan_nonseparable_bound(1.0, 0.5, -1.0), "td"),
        (lambda: threshold_lp([[0, 1]], [2]), "0s and 1s"),
        (lambda: thick_winnow([[0, 1]], [1], margin=-1), "margin"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- representation (CS446 "Importance of representation") ---------------------------------


def test_set_cover_sample_makes_consistent_disjunctions_exactly_the_covers():
    sets = [(0, 1), (1, 2), (2, 3), (0, 3)]
    X, y = online.set_cover_sample(sets, 4)
    assert X.shape == (5, 4) and y.tolist() == [1, 1, 1, 1, -1]
    for size in range(5):
        for subset in itertools.combinations(range(4), size):
            covers = set().union(*(set(sets[j]) for j in subset)) == {0, 1, 2, 3}
            consistent = np.array_equal(X[:, list(subset)].any(axis=1), y > 0)
            assert covers == consistent


def test_minimum_consistent_disjunction_is_the_smallest_cover():
    X, y = online.set_cover_sample([(0, 1), (1, 2), (2, 3), (0, 3), (0, 1, 2)], 4)
    smallest, tried = online.minimum_consistent_disjunction(X, y)
    assert smallest == (0, 2)  # {0, 1} ∪ {2, 3}; no single set covers
    assert tried == 1 + 5 + 2  # the empty set, five singletons, then (0, 1), (0, 2)


def test_representation_bad_input_raises_a_clear_value_error():
    with pytest.raises(ValueError, match="sets"):
        online.set_cover_sample([(0, 5)], 3)
    with pytest.raises(ValueError, match="no monotone disjunction"):
        online.minimum_consistent_disjunction([[1.0], [1.0]], [1.0, -1.0])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("gamma", [0.05, 0.5, 2.0])
def test_exercise_5_reference_answer_thick_perceptron_bounds(seed, gamma):
    """Written Exercise 5: from w = 0 the thick perceptron makes at most (R² + 2γ)/ρ² updates,
    ‖w‖² <= M(R² + 2γ), and a finished run has geometric margin above γρ/(R² + 2γ), with R the
    largest ‖xᵢ‖ and ρ the margin of the generating unit separator u."""
    X, y, u = separable(60, 3, margin=0.15, seed=seed)
    R, rho = np.linalg.norm(X, axis=1).max(), (y * (X @ u)).min()
    run = online.thick_perceptron(X, y, margin=gamma, max_epochs=5000)
    assert run.converged
    assert run.mistakes <= (R**2 + 2 * gamma) / rho**2
    assert run.w @ run.w <= run.mistakes * (R**2 + 2 * gamma) * (1 + 1e-12)
    assert (y * (X @ run.w)).min() / np.linalg.norm(run.w) > gamma * rho / (R**2 + 2 * gamma)
