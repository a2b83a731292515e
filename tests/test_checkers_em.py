"""Hidden checkers of lecture 05: the statements' edges (long sequences, iterations = 0, the
symmetric start) are graded as the statements say, and correct answers pass however written."""

import numpy as np
import pytest

from mllib import em
from mllib.demos import em as demo
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import em as check


def e_step_naive(heads, m, alpha, p, q):  # the formula as written: underflows for long runs
    heads = np.asarray(heads)
    coin1 = alpha * p**heads * (1 - p) ** (m - heads)
    coin2 = (1 - alpha) * q**heads * (1 - q) ** (m - heads)
    return coin1 / (coin1 + coin2)


def e_step_logs(heads, m, alpha, p, q):  # the notebook's solution
    heads = np.asarray(heads)
    log1 = np.log(alpha) + heads * np.log(p) + (m - heads) * np.log(1 - p)
    log2 = np.log(1 - alpha) + heads * np.log(q) + (m - heads) * np.log(1 - q)
    return np.exp(-np.logaddexp(0, log2 - log1))


def loglik_naive(heads, m, alpha, p, q):
    heads = np.asarray(heads)
    coin1 = alpha * p**heads * (1 - p) ** (m - heads)
    coin2 = (1 - alpha) * q**heads * (1 - q) ** (m - heads)
    return float(np.sum(np.log(coin1 + coin2)))


def loglik_logs(heads, m, alpha, p, q):
    heads = np.asarray(heads)
    log1 = np.log(alpha) + heads * np.log(p) + (m - heads) * np.log(1 - p)
    log2 = np.log(1 - alpha) + heads * np.log(q) + (m - heads) * np.log(1 - q)
    return float(np.sum(np.logaddexp(log1, log2)))


def em_loop_textbook(heads, m, alpha, p, q, iterations):  # plain formulas, no p = q special case
    return tuple(demo.textbook_em(heads, m, alpha, p, q, iterations)[-1])


def em_loop_no_zero(heads, m, alpha, p, q, iterations):  # slip: always makes one update
    return em_loop_textbook(heads, m, alpha, p, q, max(iterations, 1))


def test_long_sequences_underflow_in_the_formula_as_written_and_fail():
    with np.errstate(all="ignore"):
        with pytest.raises(ExerciseFailed, match="1000 tosses"):
            run_check(check.e_step(), e_step_naive)
        with pytest.raises(ExerciseFailed, match="1000 tosses"):
            run_check(check.log_likelihood(), loglik_naive)
    run_check(check.e_step(), e_step_logs)
    run_check(check.log_likelihood(), loglik_logs)


def test_the_long_case_really_underflows_for_both_coins():
    heads = check._long_sequences(3)
    alpha, p, q = check._UNDERFLOW
    with np.errstate(all="ignore"):
        assert np.any(np.isnan(e_step_naive(heads, 1000, alpha, p, q)))
    assert np.all(np.isfinite(em.e_step(heads, 1000, alpha, p, q)))


def test_hidden_cases_keep_the_parameters_strictly_inside_0_1():
    # Exercise 1 and 3 promise that the hidden tests never touch the ends.
    for factory in (check.e_step, check.log_likelihood, check.em_loop):
        for case in factory().cases:
            alpha, p, q = case.args[2:5]
            assert all(0 < v < 1 for v in (alpha, p, q)), case.hint


def test_iterations_zero_returns_the_start_and_a_loop_that_always_updates_fails():
    run_check(check.em_loop(), em_loop_textbook)
    with pytest.raises(ExerciseFailed, match="iterations = 0"):
        run_check(check.em_loop(), em_loop_no_zero)


def test_the_symmetric_hidden_case_is_too_short_for_floating_point_drift():
    # Exercise 5: a plain loop drifts off p = q by rounding that grows about tenfold per update.
    # The hidden case makes 3 updates; the drift there must be far below the check's
    # tolerance (1e-7), so that a correct textbook answer is never marked wrong.
    (case,) = [c for c in check.em_loop().cases if c.args[3] == c.args[4]]
    heads, m, alpha, p, q, iterations = case.args
    _, p_end, q_end = demo.textbook_em(heads, m, alpha, p, q, iterations)[-1]
    assert abs(p_end - q_end) < 1e-12
    exact = em.three_coins(heads, m, alpha=alpha, p=p, q=q, iterations=iterations, tol=0)
    assert exact.p == exact.q


def test_m_step_with_every_posterior_zero_returns_nan_for_the_unused_coin():
    # Exercise 2's statement: p̃ = 0/0 is nan when every P₁ⁱ is 0 (q̃ likewise when all are 1).
    with np.errstate(invalid="ignore"):
        alpha, p, q = em.m_step([3, 2, 3, 2], 4, np.zeros(4))
        assert (alpha, q) == (0.0, 0.625) and np.isnan(p)
        alpha, p, q = em.m_step([3, 2, 3, 2], 4, np.ones(4))
        assert (alpha, p) == (1.0, 0.625) and np.isnan(q)
