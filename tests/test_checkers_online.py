"""Hidden checkers of lecture 12: right answers (written several ways) pass, typical slips fail
with a hint that reveals neither the hidden inputs nor the answers."""

import re

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import online as check


def elimination_vectorised(w, x, y, theta):
    score = w @ x
    if y > 0 and score <= theta:
        return np.where(x == 1, 2 * w, w)
    if y < 0 and score >= theta:
        return np.where(x == 1, 0.0, w)
    return w


def elimination_loop(w, x, y, theta):
    score = sum(wi * xi for wi, xi in zip(w, x, strict=True))
    correct = score > theta if y == 1 else score < theta
    if correct:
        return list(w)
    return [(2 * wi if y == 1 else 0.0) if xi == 1 else wi for wi, xi in zip(w, x, strict=True)]


def elimination_halves(w, x, y, theta):  # plain Winnow's demotion instead of elimination
    score = w @ x
    if (score > theta) if y > 0 else (score < theta):
        return w
    return w * np.where(x == 1, 2.0 if y > 0 else 0.5, 1.0)


def elimination_ties_correct(w, x, y, theta):  # CS446's >= instead of MMDS's convention
    score = w @ x
    if (score >= theta) if y > 0 else (score < theta):
        return w
    return np.where(x == 1, 2 * w if y > 0 else 0.0, w)


def balanced_vectorised(w_plus, w_minus, x, y, theta):
    score = (w_plus - w_minus) @ x
    if (score > theta) if y > 0 else (score < theta):
        return w_plus, w_minus
    factor = np.where(x == 1, 2.0 ** y, 1.0)
    return w_plus * factor, w_minus / factor


def balanced_loop(w_plus, w_minus, x, y, theta):
    score = sum((p - m) * xi for p, m, xi in zip(w_plus, w_minus, x, strict=True))
    wrong = score <= theta if y == 1 else score >= theta
    new_plus, new_minus = list(w_plus), list(w_minus)
    if wrong:
        for i, xi in enumerate(x):
            if xi == 1:
                new_plus[i] *= 2 if y == 1 else 0.5
                new_minus[i] *= 0.5 if y == 1 else 2
    return new_plus, new_minus


def balanced_only_plus(w_plus, w_minus, x, y, theta):  # forgets to move w⁻
    new_plus, _ = balanced_vectorised(w_plus, w_minus, x, y, theta)
    return new_plus, w_minus


def round_vectorised(weights, advice, outcome, beta):
    plus, minus = weights[advice == 1].sum(), weights[advice == -1].sum()
    return (1.0 if plus >= minus else -1.0), np.where(advice != outcome, beta * weights, weights)


def round_by_sign(weights, advice, outcome, beta):  # another way: sign of the weighted sum
    total = float(np.dot(weights, advice))
    new = [w * (beta if a != outcome else 1) for w, a in zip(weights, advice, strict=True)]
    return (1 if total >= 0 else -1), new


def round_loop_reversed(weights, advice, outcome, beta):  # sums by hand, last expert first
    plus = minus = 0.0
    for w, a in zip(reversed(weights.tolist()), reversed(advice.tolist()), strict=True):
        if a > 0:
            plus += w
        else:
            minus += w
    return (1 if plus - minus >= 0 else -1), [w * beta if a != outcome else w
                                              for w, a in zip(weights, advice, strict=True)]


def round_ties_negative(weights, advice, outcome, beta):
    prediction, new = round_vectorised(weights, advice, outcome, beta)
    return (-1.0 if weights @ advice == 0 else prediction), new


def round_punishes_right(weights, advice, outcome, beta):
    prediction, _ = round_vectorised(weights, advice, outcome, beta)
    return prediction, np.where(advice == outcome, beta * weights, weights)


def halving_vectorised(predictions, outcomes):
    alive = np.ones(predictions.shape[1], dtype=bool)
    mistakes = 0
    for advice, outcome in zip(predictions, outcomes, strict=True):
        guess = 1 if np.sum(advice[alive] == 1) >= np.sum(advice[alive] == -1) else -1
        mistakes += guess != outcome
        alive &= advice == outcome
    return mistakes, alive.astype(float)


def halving_with_sets(predictions, outcomes):
    alive = set(range(len(predictions[0])))
    mistakes = 0
    for advice, outcome in zip(predictions.tolist(), outcomes.tolist(), strict=True):
        votes = sum(advice[j] for j in alive)
        mistakes += (1 if votes >= 0 else -1) != outcome
        alive = {j for j in alive if advice[j] == outcome}
    return mistakes, [1 if j in alive else 0 for j in range(len(predictions[0]))]


def halving_all_experts_vote(predictions, outcomes):  # slip: counts eliminated experts too
    mistakes = 0
    for advice, outcome in zip(predictions, outcomes, strict=True):
        mistakes += (1 if advice.sum() >= 0 else -1) != outcome
    alive = np.all(predictions == outcomes[:, None], axis=0)
    return mistakes, alive.astype(float)


@pytest.mark.parametrize("checker, answer", [
    (check.elimination_step, elimination_vectorised),
    (check.elimination_step, elimination_loop),
    (check.balanced_step, balanced_vectorised),
    (check.balanced_step, balanced_loop),
    (check.weighted_majority_round, round_vectorised),
    (check.weighted_majority_round, round_by_sign),
    (check.weighted_majority_round, round_loop_reversed),
    (check.halving, halving_vectorised),
    (check.halving, halving_with_sets),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.elimination_step, elimination_halves, "elimination"),
    (check.elimination_step, elimination_ties_correct, "exactly at the threshold"),
    (check.balanced_step, balanced_only_plus, "promotion"),
    (check.weighted_majority_round, round_ties_negative, "tie"),
    (check.weighted_majority_round, round_punishes_right, "majority is right"),
    (check.halving, halving_all_experts_vote, "one perfect"),
])
def test_typical_slips_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


def test_halving_cases_have_a_perfect_expert_where_the_hint_says_so():
    for case in check.halving().cases:
        predictions, outcomes = case.args
        perfect = np.any(np.all(predictions == outcomes[:, None], axis=0))
        assert perfect == ("none perfect" not in case.hint)


def test_every_balanced_tie_case_is_exact_in_both_orders_of_computation():
    ties = 0
    for case in check.balanced_step().cases:
        w_plus, w_minus, x, _, theta = case.args
        difference_first = float((w_plus - w_minus) @ x)
        products_first = float(w_plus @ x - w_minus @ x)
        looped = sum(float(p) * float(xi) - float(m) * float(xi)
                     for p, m, xi in zip(w_plus, w_minus, x, strict=True))
        if "exactly at the threshold" in case.hint:
            ties += 1
            # dyadic inputs: every order of computation lands exactly on θ, as the statement says
            assert difference_first == products_first == looped == theta
            assert all(np.log2(v) == np.round(np.log2(v)) for v in np.r_[w_plus, w_minus])
        else:  # away from θ by 1, far beyond any rounding
            assert min(abs(s - theta) for s in (difference_first, products_first, looped)) >= 1
    assert ties == 2


def _weight_totals(weights, advice):
    """The totals (weight for +1, weight for -1), summed in several orders."""
    plus, minus = weights[advice > 0], weights[advice < 0]
    return [(float(plus.sum()), float(minus.sum())),
            (sum(reversed(plus.tolist())), sum(reversed(minus.tolist()))),
            (sum(sorted(plus.tolist())), sum(sorted(minus.tolist())))]


def test_every_weighted_majority_tie_is_exact_in_any_order_of_summation():
    """Exercise 3 promises that hidden ties use dyadic weights, tying exactly in any order,
    and that the other cases are far from a tie: every weight is a power of 2, every way of
    summing gives the same totals and the same sign of their difference (also via
    weights @ advice), and the tie case is a tie in every one."""
    ties = 0
    for case in check.weighted_majority_round().cases:
        weights, advice, _, _ = case.args
        assert np.all(np.log2(weights) == np.round(np.log2(weights)))
        totals = _weight_totals(weights, advice)
        assert len(set(totals)) == 1  # exact: every order gives the same two numbers
        plus, minus = totals[0]
        assert float(weights @ advice) == plus - minus
        if "tie" in case.hint:
            ties += 1
            assert plus == minus
        else:  # the smallest weight is 1/16: a non-tie misses by at least that
            assert abs(plus - minus) >= 2.0**-4
    assert ties == 1
