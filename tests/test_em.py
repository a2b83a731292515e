"""Tests for mllib.em, the three-coin EM of CS446 Lecture 10 (seed 001).

Oracles: numbers worked by hand from the slides' formulas on the slides' own data (typed as
exact fractions), a plain per-sequence loop written here from the slides' E- and M-step, the
monotonicity of EM and Jensen's inequality (hypothesis), and recovery of known parameters from
a large sample.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples

from mllib.em import (
    e_step,
    expected_loglik,
    head_counts,
    log_likelihood,
    lower_bound,
    m_step,
    restarts,
    sample_coins,
    three_coins,
)
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import em as check

SCENARIO_III = ["HHHT", "HTHT", "HHHT", "HTTH"]  # CS446 "Estimation Problems", scenario III
SCENARIO_II = ["HHHHT", "THTHT", "HHHHT", "HHTTH"]  # scenario II: the first toss is coin 0

FAST = examples(60)


def loop_em_step(heads, m, alpha, p, q):
    """One EM update written sequence by sequence from the slides, as plain Python."""
    posterior = []
    for h in heads:
        coin1 = alpha * p**h * (1 - p) ** (m - h)
        coin2 = (1 - alpha) * q**h * (1 - q) ** (m - h)
        posterior.append(coin1 / (coin1 + coin2))
    n = len(heads)
    new_alpha = sum(posterior) / n
    new_p = sum(P * h / m for P, h in zip(posterior, heads, strict=True)) / sum(posterior)
    new_q = sum((1 - P) * h / m for P, h in zip(posterior, heads, strict=True)) / sum(
        1 - P for P in posterior)
    return posterior, (new_alpha, new_p, new_q)


def loop_loglik(heads, m, alpha, p, q):
    return sum(math.log(alpha * p**h * (1 - p) ** (m - h) + (1 - alpha) * q**h * (1 - q) ** (m - h))
               for h in heads)


# --- The slides' data, by hand -----------------------------------------------------------------


def test_head_counts_reads_the_slides_sequences():
    heads, m = head_counts(SCENARIO_III)
    assert heads.tolist() == [3, 2, 3, 2] and m == 4


def test_one_e_step_on_scenario_iii_matches_the_hand_computation():
    # From α = 1/2, p = 0.6, q = 0.4: for h = 3, P₁ = 0.6³·0.4 / (0.6³·0.4 + 0.4³·0.6)
    # = 0.0864/0.1248 = 9/13; for h = 2 the two coins tie, P₁ = 1/2.
    posterior = e_step(SCENARIO_III, 4, 0.5, 0.6, 0.4)
    np.testing.assert_allclose(posterior, [9 / 13, 1 / 2, 9 / 13, 1 / 2], rtol=1e-14)


def test_one_m_step_on_scenario_iii_matches_the_hand_computation():
    # α̃ = (2·9/13 + 2·1/2)/4 = 31/52; p̃ = (2·9/13·3/4 + 2·1/2·2/4)/(31/13) = 20/31;
    # q̃ = (2·4/13·3/4 + 2·1/2·2/4)/(21/13) = 25/42.
    alpha, p, q = m_step(SCENARIO_III, 4, [9 / 13, 1 / 2, 9 / 13, 1 / 2])
    assert alpha == pytest.approx(31 / 52, rel=1e-14)
    assert p == pytest.approx(20 / 31, rel=1e-14)
    assert q == pytest.approx(25 / 42, rel=1e-14)


def test_one_update_of_three_coins_is_one_e_step_and_one_m_step():
    run = three_coins(SCENARIO_III, 4, alpha=0.5, p=0.6, q=0.4, iterations=1)
    assert (run.alpha, run.p, run.q) == pytest.approx((31 / 52, 20 / 31, 25 / 42), rel=1e-14)
    # LL at the start: two sequences of each kind, 2 log 0.0624 + 2 log 0.0576.
    assert run.history[0].loglik == pytest.approx(2 * math.log(0.0624) + 2 * math.log(0.0576),
                                                  rel=1e-14)
    np.testing.assert_allclose(run.history[0].posterior[[3, 2]], [9 / 13, 1 / 2], rtol=1e-14)


def test_scenario_ii_with_the_coin_known_is_plain_counting():
    # Coin 0's toss says which coin made the other four: H, T, H, H. With P₁ⁱ in {0, 1} the
    # M-step is the ML estimate of the slides' "Key Intuition (1)": α = 3/4,
    # p = (3 + 3 + 2)/12 = 2/3 (HHHT, HHHT, HTTH), q = 2/4 (HTHT).
    first = [s[0] for s in SCENARIO_II]
    rest = [s[1:] for s in SCENARIO_II]
    known = [1.0 if toss == "H" else 0.0 for toss in first]
    assert m_step(rest, 4, known) == pytest.approx((3 / 4, 2 / 3, 1 / 2), rel=1e-14)


def test_scenario_iii_converges_to_one_coin():
    # Four sequences with 3, 2, 3, 2 heads vary less than a single coin's would, so the best
    # "mixture" is one coin with p = q = 10/16 = 0.625 (any α).
    run = three_coins(SCENARIO_III, 4, alpha=0.5, p=0.6, q=0.4, iterations=500, tol=1e-13)
    assert run.converged
    assert run.p == pytest.approx(0.625, abs=1e-9) and run.q == pytest.approx(0.625, abs=1e-9)
    assert run.loglik == pytest.approx(10 * math.log(0.625) + 6 * math.log(0.375), rel=1e-12)


# --- Agreement with a plain loop ----------------------------------------------------------------


@FAST
@given(
    heads=st.lists(st.integers(0, 8), min_size=1, max_size=30),
    start=st.tuples(st.floats(0.05, 0.95), st.floats(0.05, 0.95), st.floats(0.05, 0.95)),
)
def test_each_update_matches_the_slides_formulas_sequence_by_sequence(heads, start):
    m = 8
    run = three_coins(heads, m, alpha=start[0], p=start[1], q=start[2], iterations=5, tol=0)
    params = start
    for step in run.history[1:]:
        posterior, params = loop_em_step(heads, m, *params)
        np.testing.assert_allclose((step.alpha, step.p, step.q), params, rtol=1e-9, atol=1e-12)
        assert step.loglik == pytest.approx(loop_loglik(heads, m, *params), rel=1e-9)
    np.testing.assert_allclose(e_step(heads, m, *start), loop_em_step(heads, m, *start)[0],
                               rtol=1e-12)


def test_strings_and_counts_give_the_same_run():
    by_strings = three_coins(SCENARIO_III, 4, alpha=0.3, p=0.9, q=0.2, iterations=7, tol=0)
    by_counts = three_coins([3, 2, 3, 2], 4, alpha=0.3, p=0.9, q=0.2, iterations=7, tol=0)
    assert [s.loglik for s in by_strings.history] == [s.loglik for s in by_counts.history]


# --- Properties of EM ---------------------------------------------------------------------------


@FAST
@given(
    m=st.integers(1, 15),
    data=st.data(),
    start=st.tuples(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(0.01, 0.99)),
)
def test_loglik_never_decreases(m, data, start):
    heads = data.draw(st.lists(st.integers(0, m), min_size=1, max_size=50))
    run = three_coins(heads, m, alpha=start[0], p=start[1], q=start[2], iterations=40, tol=0)
    logliks = np.array([step.loglik for step in run.history])
    assert np.all(np.diff(logliks) >= -1e-9 * (1 + np.abs(logliks[:-1])))


@FAST
@given(
    heads=st.lists(st.integers(0, 6), min_size=1, max_size=20),
    old=st.tuples(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(0.01, 0.99)),
    new=st.tuples(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(0.01, 0.99)),
)
def test_jensen_bound_lies_below_loglik_and_touches_it_at_the_e_step(heads, old, new):
    posterior = e_step(heads, 6, *old)
    ll_old = log_likelihood(heads, 6, *old)
    assert lower_bound(heads, 6, *old, posterior=posterior) == pytest.approx(ll_old, rel=1e-9)
    assert lower_bound(heads, 6, *new, posterior=posterior) <= log_likelihood(heads, 6, *new) + 1e-9


def test_m_step_maximizes_the_jensen_bound():
    heads = [9, 1, 2, 8, 7, 0, 5, 9]
    posterior = e_step(heads, 10, 0.4, 0.7, 0.3)
    best = m_step(heads, 10, posterior)
    top = lower_bound(heads, 10, *best, posterior=posterior)
    rng = np.random.default_rng(0)
    for nearby in best + rng.normal(0, 0.02, (200, 3)):
        assert lower_bound(heads, 10, *np.clip(nearby, 0.001, 0.999), posterior=posterior) <= top


def test_recovers_known_coins_from_100_000_sequences_up_to_the_label_swap():
    heads = sample_coins(100_000, 10, alpha=0.3, p=0.8, q=0.35, seed=5)
    run = three_coins(heads, 10, alpha=0.6, p=0.4, q=0.5, iterations=2000, tol=1e-12)
    found = (run.alpha, run.p, run.q)
    if run.p < run.q:  # the coins' names are arbitrary: (α, p, q) ≡ (1 - α, q, p)
        found = (1 - run.alpha, run.q, run.p)
    np.testing.assert_allclose(found, (0.3, 0.8, 0.35), atol=0.01)


def test_the_symmetric_start_is_a_trap():
    heads = sample_coins(2000, 10, alpha=0.5, p=0.9, q=0.2, seed=1)
    stuck = three_coins(heads, 10, alpha=0.3, p=0.5, q=0.5, iterations=50, tol=0)
    # Every P₁ⁱ equals α, so α stays and p, q both jump to the overall frequency of heads.
    np.testing.assert_allclose(e_step(heads, 10, 0.3, 0.5, 0.5), 0.3)
    for step in stuck.history[1:]:
        assert step.alpha == pytest.approx(0.3) and step.p == step.q
        assert step.p == pytest.approx(heads.mean() / 10)
    free = max(restarts(heads, 10, count=5, seed=0), key=lambda run: run.loglik)
    assert free.loglik > stuck.loglik + 100
    # The fixed point is unstable: a nudge of 1e-9 off p = q is enough to escape it.
    nudged = three_coins(heads, 10, alpha=0.3, p=0.5, q=0.5 + 1e-9, iterations=200, tol=0)
    assert nudged.loglik == pytest.approx(free.loglik, rel=1e-9)


def test_zero_iterations_return_the_start():
    run = three_coins(SCENARIO_III, 4, alpha=0.5, p=0.6, q=0.4, iterations=0)
    assert (run.alpha, run.p, run.q, run.iterations) == (0.5, 0.6, 0.4, 0)
    assert len(run.history) == 1 and not run.converged
    assert run.loglik == pytest.approx(log_likelihood(SCENARIO_III, 4, 0.5, 0.6, 0.4))


def test_e_step_stays_accurate_where_the_formula_as_written_underflows():
    # m = 1000, h = 500 at (0.4, 0.7, 0.25): both terms (about e^-780 and e^-837) are below the
    # smallest double, so the formula as written is 0/0; the oracle is 1/(1 + e^(l2 - l1)) from
    # the logs of the two terms.
    l1 = math.log(0.4) + 500 * math.log(0.7) + 500 * math.log(0.3)
    l2 = math.log(0.6) + 500 * math.log(0.25) + 500 * math.log(0.75)
    assert 0.4 * 0.7**500 * 0.3**500 == 0 and 0.6 * 0.25**500 * 0.75**500 == 0
    assert e_step([500], 1000, 0.4, 0.7, 0.25)[0] == pytest.approx(1 / (1 + math.exp(l2 - l1)),
                                                                   rel=1e-12)
    # h = 300 at (0.5, 0.6, 0.4): coin 1's term underflows alone, so the formula gives P₁ = 0;
    # the ratio of the terms is 1.5^-400 exactly, so P₁ = 1/(1 + 1.5^400), about 6e-71.
    assert 0.5 * 0.6**300 * 0.4**700 == 0
    assert e_step([300], 1000, 0.5, 0.6, 0.4)[0] == pytest.approx(1 / (1 + 1.5**400), rel=1e-9,
                                                                  abs=0)


def test_the_m_step_is_the_argmax_of_q():
    # CS446 "The General EM Procedure": θ_new = argmax Q(θ, θ_old). No random θ beats it, and
    # Q = Jensen's bound minus the entropy of the weights.
    heads = sample_coins(300, 10, alpha=0.4, p=0.8, q=0.3, seed=7)
    weights = e_step(heads, 10, 0.5, 0.6, 0.4)
    best = m_step(heads, 10, weights)
    top = expected_loglik(heads, 10, *best, posterior=weights)
    others = np.random.default_rng(1).uniform(0.01, 0.99, size=(500, 3))
    assert all(expected_loglik(heads, 10, *t, posterior=weights) < top for t in others)
    entropy = -np.sum(weights * np.log(weights) + (1 - weights) * np.log(1 - weights))
    assert lower_bound(heads, 10, *best, posterior=weights) == pytest.approx(top + entropy,
                                                                             rel=1e-12)


def test_iterations_counts_updates_unless_tol_stops_the_run():
    everything = three_coins(SCENARIO_III, 4, alpha=0.5, p=0.6, q=0.4, iterations=30, tol=0)
    assert everything.iterations == 30 and len(everything.history) == 31
    assert not everything.converged
    assert [step.iteration for step in everything.history] == list(range(31))
    early = three_coins(SCENARIO_III, 4, alpha=0.5, p=0.6, q=0.4, iterations=1000, tol=1e-6)
    assert early.converged and early.iterations < 1000
    last, before = early.history[-1], early.history[-2]
    assert max(abs(last.alpha - before.alpha), abs(last.p - before.p),
               abs(last.q - before.q)) < 1e-6
    assert (early.alpha, early.p, early.q, early.loglik) == (last.alpha, last.p, last.q,
                                                             last.loglik)


def test_restarts_are_reproducible_and_end_at_stationary_points():
    heads = sample_coins(500, 12, alpha=0.4, p=0.75, q=0.3, seed=2)
    runs = restarts(heads, 12, count=6, seed=3, iterations=3000, tol=1e-12)
    again = restarts(heads, 12, count=6, seed=3, iterations=3000, tol=1e-12)
    assert [r.loglik for r in runs] == [r.loglik for r in again]
    assert len({(r.history[0].alpha, r.history[0].p) for r in runs}) == 6
    for run in runs:
        _, params = loop_em_step(heads.tolist(), 12, run.alpha, run.p, run.q)
        np.testing.assert_allclose(params, (run.alpha, run.p, run.q), atol=1e-8)


def test_sample_coins_has_the_mixture_mean():
    heads = sample_coins(200_000, 6, alpha=0.25, p=0.9, q=0.1, seed=0)
    assert heads.mean() / 6 == pytest.approx(0.25 * 0.9 + 0.75 * 0.1, abs=0.003)


def test_a_coin_with_no_weight_keeps_its_bias():
    # q = 0 cannot produce a sequence with a head, so every P₁ⁱ is 1: α̃ = 1, and q, never
    # used, keeps its value in the run (m_step alone says NaN: 0/0).
    run = three_coins([1, 2, 3], 3, alpha=0.5, p=0.5, q=0.0, iterations=3, tol=0)
    assert run.alpha == 1 and run.q == 0 and run.p == pytest.approx(2 / 3)
    assert math.isnan(m_step([1, 2, 3], 3, [1, 1, 1])[2])


# --- Bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: three_coins(SCENARIO_III, 5, alpha=0.5, p=0.6, q=0.4), r"4 tosses but tosses = 5"),
        (lambda: three_coins(["HHT", "HHHT"], 4, alpha=0.5, p=0.6, q=0.4), r"same number"),
        (lambda: three_coins(["HHXT"], 4, alpha=0.5, p=0.6, q=0.4), r"'H' and 'T' only"),
        (lambda: three_coins([1, 5], 4, alpha=0.5, p=0.6, q=0.4), r"between 0 and tosses = 4"),
        (lambda: three_coins([1, 2.5], 4, alpha=0.5, p=0.6, q=0.4), r"whole number"),
        (lambda: three_coins([-1], 4, alpha=0.5, p=0.6, q=0.4), r"between 0 and tosses"),
        (lambda: three_coins([], 4, alpha=0.5, p=0.6, q=0.4), r"non-empty"),
        (lambda: three_coins([[1, 2]], 4, alpha=0.5, p=0.6, q=0.4), r"1-D array"),
        (lambda: three_coins([1], 0, alpha=0.5, p=0.6, q=0.4), r"tosses must be a whole number"),
        (lambda: three_coins([1], 4, alpha=1.5, p=0.6, q=0.4), r"alpha must be a probability"),
        (lambda: three_coins([1], 4, alpha=0.5, p=-0.1, q=0.4), r"p must be a probability"),
        (lambda: three_coins([1], 4, alpha=0.5, p=0.6, q=np.nan), r"q must be a probability"),
        (lambda: three_coins([1], 4, alpha=0.5, p=0.6, q=0.4, iterations=-1), r"iterations"),
        (lambda: three_coins([1], 4, alpha=0.5, p=0.6, q=0.4, iterations=1.5), r"iterations"),
        (lambda: three_coins([1], 4, alpha=0.5, p=0.6, q=0.4, iterations=False), r"iterations"),
        (lambda: three_coins([1], 4, alpha=0.5, p=0.6, q=0.4, tol=-1), r"tol must be"),
        (lambda: three_coins([1], 4, alpha=0.5, p=1.0, q=1.0), r"probability 0 to a sequence"),
        (lambda: head_counts("HHHT"), r"list of strings"),
        (lambda: head_counts(["HHHT", 3]), r"'H' and 'T' only"),
        (lambda: head_counts(["HHHT", ""]), r"same number of tosses"),
        (lambda: m_step([1, 2], 4, [0.5]), r"posterior must hold 2 probabilities"),
        (lambda: m_step([1, 2], 4, [0.5, 1.2]), r"posterior must hold 2 probabilities"),
        (lambda: lower_bound([1], 4, 0.5, 0.5, 0.5, posterior=[2.0]), r"posterior must hold"),
        (lambda: e_step([1], 4, 0.5, 2, 0.5), r"p must be a probability"),
        (lambda: restarts([1], 4, count=0), r"count must be a whole number"),
        (lambda: sample_coins(10, 4, alpha=0.5, p=0.5, q=1.1), r"q must be a probability"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- The exercise notebook's hidden-test checkers -----------------------------------------------


def student_e_step(heads, m, alpha, p, q):  # plain numpy in log space, as the statement asks
    heads = np.asarray(heads)
    log1 = np.log(alpha) + heads * np.log(p) + (m - heads) * np.log(1 - p)
    log2 = np.log(1 - alpha) + heads * np.log(q) + (m - heads) * np.log(1 - q)
    with np.errstate(over="ignore"):  # e^(log2 - log1) = inf gives P₁ = 0, which is right
        return 1 / (1 + np.exp(log2 - log1))


def student_m_step(heads, m, posterior):
    heads, P1 = np.asarray(heads), np.asarray(posterior)
    return (P1.mean(), np.sum(P1 * heads / m) / P1.sum(),
            np.sum((1 - P1) * heads / m) / (1 - P1).sum())


def student_loglik(heads, m, alpha, p, q):
    heads = np.asarray(heads)
    return float(np.sum(np.logaddexp(np.log(alpha) + heads * np.log(p)
                                     + (m - heads) * np.log(1 - p),
                                     np.log(1 - alpha) + heads * np.log(q)
                                     + (m - heads) * np.log(1 - q))))


def student_loop(heads, m, alpha, p, q, iterations):
    for _ in range(iterations):
        alpha, p, q = student_m_step(heads, m, student_e_step(heads, m, alpha, p, q))
    return alpha, p, q


@pytest.mark.parametrize("checker, answer", [
    (check.e_step, student_e_step),
    (check.m_step, student_m_step),
    (check.log_likelihood, student_loglik),
    (check.em_loop, student_loop),
])
def test_checkers_pass_plain_numpy_answers(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.e_step, lambda h, m, a, p, q: student_e_step(h, m, 0.5, p, q), "rarely chosen"),
    (check.m_step, lambda h, m, P: student_m_step(h, 1, P), "spread over"),
    (check.log_likelihood, lambda h, m, a, p, q: student_loglik(h, m, a, p, q) / len(h),
     "40 sequences"),
    (check.em_loop, lambda h, m, a, p, q, k: student_loop(h, m, a, p, q, k + 1), "one update"),
    (check.em_loop, lambda h, m, a, p, q, k: h, "should return 3 values"),
])
def test_checkers_fail_wrong_answers_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"
