"""Hidden checkers of lecture 05: the statements' edges (long sequences, iterations = 0, the
symmetric start) are graded as the statements say, and correct answers pass however written."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from mllib import em
from mllib.demos import em as demo
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import em as check

ROOT = Path(__file__).resolve().parents[1]


def exercise_cell(grade_id: str) -> str:
    notebook = json.loads((ROOT / "solutions/05_em/em_exercises.ipynb").read_text())
    (cell,) = [c for c in notebook["cells"]
               if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return "".join(cell["source"])


def fairness_answers() -> dict:
    spec = importlib.util.spec_from_file_location("fair05", ROOT / "tests/fairness/05_em.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ANSWERS


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


def test_the_solution_and_a_second_answer_pass_near_the_ends_of_the_open_interval():
    # Review: the statement promised [0, 1] while the log-form solution gives nan at p = 0.
    # Exercise 1 now says 0 < alpha, p, q < 1; a hidden case sits close to the ends, and both
    # the solution's log form and the fairness answer's per-sequence loop pass all cases.
    statement = exercise_cell("q_e_step")
    assert "strictly between 0 and 1" in statement and "[0, 1]" not in statement
    (case,) = [c for c in check.e_step().cases if "close to the ends" in c.hint]
    alpha, p, q = case.args[2:5]
    assert min(p, 1 - q) < 0.01
    run_check(check.e_step(), e_step_logs)
    namespace = {"np": np}
    exec(fairness_answers()["e_step"], namespace)
    run_check(check.e_step(), namespace["e_step"])


def test_exercise_4_says_its_hidden_sequences_are_short_and_they_are():
    # Review: Exercise 4 did not say whether the m = 1000 sequences of Exercises 1 and 3 are
    # used. The statement says at most 10 tosses; the cases keep that, and the E-step as
    # written (no logarithms) passes them.
    statement = exercise_cell("q_em_loop")
    assert "at most 10 tosses" in statement and "m = 1000" in statement
    assert max(case.args[1] for case in check.em_loop().cases) <= 10
    run_check(check.em_loop(), em_loop_textbook)


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
