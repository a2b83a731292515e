"""Tests for mllib.pac: the PAC sample-size bounds, the elimination algorithm, the simulation.

Oracles: numbers worked out by hand from the formulas on the CS446 slides (seed 001; the
arithmetic is in the comments), enumeration of every conjunction for |H|, a plain loop of the
elimination algorithm as CS446 states it, exact error formulas against Monte Carlo estimates,
hypothesis properties for monotonicity and for the inversions, and the Occam theorem itself
checked by simulation with a stated Hoeffding margin.
"""

from __future__ import annotations

import doctest
import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples

from mllib import data, pac
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import pac as check_pac
from mllib.perceptron import geometric_margin, mistake_bound, predict, radius

FAST = examples(60)

# --- The bounds, worked by hand -------------------------------------------------------------


def test_occam_sample_size_by_hand():
    # Conjunctions over 10 variables: |H| = 3^10 = 59049, ln|H| = 10.98612, ln(1/0.05) = 2.99573;
    # (10.98612 + 2.99573)/0.1 = 139.82, and m must exceed it: 140.
    assert pac.occam_sample_size(3**10, 0.1, 0.05) == 140
    # |H| = 1000: (6.90776 + ln 100 = 4.60517)/0.05 = 230.26 -> 231.
    assert pac.occam_sample_size(1000, 0.05, 0.01) == 231
    # A single hypothesis: only the confidence term, ln(1/0.1)/0.5 = 4.61 -> 5.
    assert pac.occam_sample_size(1, 0.5, 0.1) == 5


def test_occam_inequality_is_strict_as_on_the_slide():
    # ln|H| = 0 and, in floating point, ln(1/δ) = 1.0 for δ = math.exp(-1), ε = 1/2: the computed
    # bound is exactly 2.0, and m must exceed it. (δ is 1/e rounded up by 1.2e-17, so in exact
    # arithmetic the bound is just below 2; the exercise's tests avoid such bounds.)
    assert pac.occam_sample_size(1, 0.5, math.exp(-1)) == 3


def test_agnostic_sample_size_by_hand():
    # (10.98612 + 2.99573)/(2·0.01) = 699.09 -> 700; (11.51293)/(2·0.0025) = 2302.59 -> 2303.
    assert pac.agnostic_sample_size(3**10, 0.1, 0.05) == 700
    assert pac.agnostic_sample_size(1000, 0.05, 0.01) == 2303


def test_vc_sample_size_by_hand_with_base_two_logs():
    # VC = 3: 8·3·log2(130) = 24·7.02237 = 168.537; 4·log2(40) = 4·5.32193 = 21.288;
    # (168.537 + 21.288)/0.1 = 1898.25 -> 1899.
    assert pac.vc_sample_size(3, 0.1, 0.05) == 1899
    # VC = 4: (32·7.02237 + 21.288)/0.1 = 2460.04 -> 2461.
    assert pac.vc_sample_size(4, 0.1, 0.05) == 2461
    # With natural logs the answer would be 1316: the base matters.
    assert pac.vc_sample_size(3, 0.1, 0.05) != math.ceil(
        (24 * math.log(130) + 4 * math.log(40)) / 0.1)


def test_vc_sample_size_uses_at_least_as_blumer_et_al():
    # VC = 0, ε = δ = 1/2: 4·log2(4)/0.5 = 16 exactly, and m >= 16 is enough.
    assert pac.vc_sample_size(0, 0.5, 0.5) == 16


def test_vc_lower_bound_by_hand():
    # max(ln(20)/0.1 = 29.96, 2/(32·0.1) = 0.63) -> 30; max(ln(10)/0.01 = 230.26,
    # 99/0.32 = 309.38) -> 310.
    assert pac.vc_lower_bound(3, 0.1, 0.05) == 30
    assert pac.vc_lower_bound(100, 0.01, 0.1) == 310


def test_lower_bound_stays_below_the_upper_bound():
    for vc, eps, delta in itertools.product([3, 10, 100], [0.01, 0.1, 0.3], [0.01, 0.1]):
        assert pac.vc_lower_bound(vc, eps, delta) < pac.vc_sample_size(vc, eps, delta)


def test_generalization_gap_and_occam_epsilon_by_hand():
    # sqrt(13.98185/(2·700)) = sqrt(0.0099870) = 0.099935; 13.98185/140 = 0.099870.
    assert pac.generalization_gap(3**10, 700, 0.05) == pytest.approx(0.0999352, abs=1e-6)
    assert pac.occam_epsilon(3**10, 140, 0.05) == pytest.approx(0.0998704, abs=1e-6)
    # max(ln 20, 2/32)/100 = 0.0299573.
    assert pac.lower_bound_epsilon(3, 100, 0.05) == pytest.approx(0.0299573, abs=1e-6)


def test_inversions_cap_at_one_when_m_promises_nothing():
    assert pac.occam_epsilon(3**10, 5, 0.05) == 1.0
    assert pac.generalization_gap(3**10, 1, 0.05) == 1.0
    assert pac.vc_epsilon(3, 10, 0.05) == 1.0
    assert pac.lower_bound_epsilon(1000, 10, 0.05) == 1.0


def test_vc_epsilon_inverts_the_worked_example():
    # 1899 examples reach the ε = 0.1 of the worked example, 1898 do not.
    assert pac.vc_epsilon(3, 1899, 0.05) <= 0.1 < pac.vc_epsilon(3, 1898, 0.05)


def test_failure_bound_by_hand():
    assert pac.occam_failure_bound(10, 0.5, 4) == pytest.approx(10 / 16)
    assert pac.occam_failure_bound(10, 0.5, 1) == 1.0  # 5 > 1: capped
    assert pac.occam_failure_bound(3**500, 0.01, 10) == 1.0  # no overflow
    # At the Occam m the union bound is below δ, as the derivation promises.
    m = pac.occam_sample_size(3**10, 0.1, 0.05)
    assert pac.occam_failure_bound(3**10, 0.1, m) < 0.05


def test_margin_vc_bound_by_hand():
    assert pac.margin_vc_bound(1.0, 0.5, 100) == 5.0  # R²/γ² = 4 < n
    assert pac.margin_vc_bound(1.0, 0.01, 3) == 4.0  # the dimension caps it: 3 + 1


# --- Properties -------------------------------------------------------------------------------

fractions = st.floats(0.001, 0.999)
sizes = st.one_of(st.integers(1, 10**6), st.integers(1, 400).map(lambda k: 3**k))
SAMPLE_SIZES = [pac.occam_sample_size, pac.agnostic_sample_size]
VC_SIZES = [pac.vc_sample_size, pac.vc_lower_bound]


@pytest.mark.parametrize("bound", SAMPLE_SIZES + VC_SIZES, ids=lambda f: f.__name__)
@FAST
@given(size=sizes, vc=st.integers(0, 500), eps=fractions, eps2=fractions, delta=fractions,
       delta2=fractions)
def test_sample_sizes_are_monotone(bound, size, vc, eps, eps2, delta, delta2):
    first = size if bound in SAMPLE_SIZES else vc
    eps, eps2 = sorted((eps, eps2))
    delta, delta2 = sorted((delta, delta2))
    assert isinstance(bound(first, eps, delta), int)
    assert bound(first, eps, delta) >= bound(first, eps2, delta)  # smaller ε, more examples
    assert bound(first, eps, delta) >= bound(first, eps, delta2)  # smaller δ, more examples
    assert bound(first, eps, delta) <= bound(first + 1, eps, delta)  # larger |H| or VC


@FAST
@given(size=sizes, eps=fractions, delta=fractions)
def test_occam_and_agnostic_sizes_are_the_smallest_m_above_the_bound(size, eps, delta):
    # ε as a function of m falls below the target exactly at the returned m.
    m = pac.occam_sample_size(size, eps, delta)
    assert pac.occam_epsilon(size, m, delta) < eps or math.isclose(
        pac.occam_epsilon(size, m, delta), eps)
    if m > 1:
        assert pac.occam_epsilon(size, m - 1, delta) >= eps * (1 - 1e-12)
    m = pac.agnostic_sample_size(size, eps, delta)
    assert pac.generalization_gap(size, m, delta) <= eps * (1 + 1e-12)
    if m > 1:
        assert pac.generalization_gap(size, m - 1, delta) >= eps * (1 - 1e-12)


@FAST
@given(vc=st.integers(0, 200), m=st.integers(1, 10**7), delta=fractions)
def test_vc_epsilon_is_the_smallest_guaranteed_error(vc, m, delta):
    eps = pac.vc_epsilon(vc, m, delta)
    assert 0 < eps <= 1
    if eps < 1:
        assert pac.vc_sample_size(vc, eps, delta) <= m
        assert pac.vc_sample_size(vc, eps * (1 - 1e-9), delta) > m


@FAST
@given(vc=st.integers(0, 200), m=st.integers(1, 10**6), delta=fractions)
def test_more_examples_never_worsen_a_guarantee(vc, m, delta):
    assert pac.vc_epsilon(vc, m + 1, delta) <= pac.vc_epsilon(vc, m, delta)
    assert pac.occam_epsilon(3**vc, m + 1, delta) <= pac.occam_epsilon(3**vc, m, delta)
    assert pac.generalization_gap(3**vc, m + 1, delta) <= pac.generalization_gap(3**vc, m, delta)


# --- Bad input --------------------------------------------------------------------------------

BAD_FRACTIONS = [0, 1, -0.1, 1.5, float("nan"), float("inf"), "half", None, True]


@pytest.mark.parametrize("bad", BAD_FRACTIONS)
@pytest.mark.parametrize("bound", SAMPLE_SIZES, ids=lambda f: f.__name__)
def test_eps_and_delta_outside_the_open_unit_interval_are_refused(bound, bad):
    with pytest.raises(ValueError, match="ε .* strictly between 0 and 1"):
        bound(100, bad, 0.05)
    with pytest.raises(ValueError, match="δ .* strictly between 0 and 1"):
        bound(100, 0.1, bad)


@pytest.mark.parametrize("bad", BAD_FRACTIONS)
def test_vc_bounds_refuse_bad_eps_and_delta(bad):
    for bound in VC_SIZES:
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            bound(3, bad, 0.05)
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            bound(3, 0.1, bad)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        pac.vc_epsilon(3, 100, bad)


@pytest.mark.parametrize("bad", [0, -5, 0.5, float("nan"), float("inf"), True, "10", None])
def test_h_size_below_one_is_refused(bad):
    for function in (pac.occam_sample_size, pac.agnostic_sample_size):
        with pytest.raises(ValueError, match=r"\|H\|"):
            function(bad, 0.1, 0.05)
    with pytest.raises(ValueError, match=r"\|H\|"):
        pac.occam_epsilon(bad, 100, 0.05)


@pytest.mark.parametrize("bad", [-1, 2.5, float("nan"), "three", True])
def test_vc_must_be_a_whole_number(bad):
    with pytest.raises(ValueError, match="VC dimension"):
        pac.vc_sample_size(bad, 0.1, 0.05)
    with pytest.raises(ValueError, match="VC dimension"):
        pac.vc_lower_bound(bad, 0.1, 0.05)


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_m_must_be_a_whole_number(bad):
    for invert in (pac.occam_epsilon, pac.generalization_gap):
        with pytest.raises(ValueError, match="m must be a whole number"):
            invert(100, bad, 0.05)
    with pytest.raises(ValueError, match="m must be a whole number"):
        pac.vc_epsilon(3, bad, 0.05)


# --- |H| for finite classes ------------------------------------------------------------------


def truth_tables(n: int) -> set[tuple[bool, ...]]:
    """Every distinct function a conjunction of literals computes on {0,1}^n, by enumeration."""
    points = list(itertools.product([0, 1], repeat=n))
    tables = set()
    for choice in itertools.product(["x", "not x", "absent"], repeat=n):
        tables.add(tuple(all((x[i] == 1) if c == "x" else (x[i] == 0) if c == "not x" else True
                             for i, c in enumerate(choice)) for x in points))
    return tables


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_conjunction_count_matches_enumeration(n):
    # The 3^n choices give 3^n different functions (none of them always false).
    tables = truth_tables(n)
    assert pac.conjunction_count(n) == len(tables) == 3**n
    assert not any(not any(t) for t in tables)


def test_class_sizes_by_hand():
    assert pac.k_cnf_count(2, 1) == 2**4  # the 4 literals, each in or out
    assert pac.k_cnf_count(3, 2) == 2 ** (6 + 15)  # C(6,1) + C(6,2) clauses
    assert pac.k_term_dnf_count(3, 2) == 3**6
    assert pac.boolean_function_count(3) == 256
    assert pac.finite_vc_bound(3**10) == 15  # 10·log2(3) = 15.85
    assert pac.finite_vc_bound(2**20) == 20
    assert pac.finite_vc_bound(2**20 - 1) == 19
    assert pac.finite_vc_bound(1) == 0
    assert pac.finite_vc_bound(1e6) == 19  # log2(10^6) = 19.93


def test_huge_classes_work_through_their_logarithm():
    # 3^1000 does not fit a float; ln|H| = 1000·ln 3 = 1098.61, /0.1 + ln(20)/0.1 -> 11016.
    assert pac.occam_sample_size(3**1000, 0.1, 0.05) == math.floor(
        (1000 * math.log(3) + math.log(20)) / 0.1) + 1
    assert pac.occam_sample_size(pac.k_cnf_count(20, 3), 0.1, 0.05) > 0


# --- Conjunctions and the elimination algorithm -------------------------------------------


def test_elimination_by_hand():
    # Target x1 ∧ ¬x3 over 4 variables. a = 1101 (+) removes ¬x1, ¬x2, x3, ¬x4; b = 0101 (-)
    # is ignored; c = 1000 (+) removes x2 and x4, leaving exactly the target.
    X = [[1, 1, 0, 1], [0, 1, 0, 1], [1, 0, 0, 0], [1, 1, 1, 0]]
    y = [1, -1, 1, -1]
    result = pac.eliminate(X, y)
    assert str(result.hypothesis) == "x1 ∧ ¬x3"
    assert [step.index for step in result.history] == [0, 2]
    assert result.history[0].removed == ("x3", "¬x1", "¬x2", "¬x4")
    assert str(result.history[0].hypothesis) == "x1 ∧ x2 ∧ ¬x3 ∧ x4"
    assert result.history[1].removed == ("x2", "x4")
    assert pac.predict_conjunction(result.hypothesis, X).tolist() == y


def test_elimination_without_positives_stays_always_false():
    result = pac.eliminate([[0, 1], [1, 1]], [-1, -1])
    assert result.history == ()
    assert result.hypothesis.positive.all() and result.hypothesis.negative.all()
    assert pac.predict_conjunction(result.hypothesis, [[0, 0], [1, 0], [0, 1], [1, 1]]).tolist() \
        == [-1, -1, -1, -1]
    assert pac.conjunction_probability(result.hypothesis, 0.5) == 0


def cs446_elimination(X, y):
    """CS446's rule as a plain loop over literal names: drop every literal a positive falsifies."""
    n = len(X[0])
    literals = {(i, sign) for i in range(n) for sign in (True, False)}
    for x, label in zip(X, y, strict=True):
        if label == 1:
            literals -= {(i, sign) for i, sign in literals if (x[i] == 1) != sign}
    return literals


@st.composite
def conjunction_samples(draw):
    n = draw(st.integers(1, 8))
    roles = draw(st.lists(st.sampled_from(["x", "not x", "absent"]), min_size=n, max_size=n))
    target = pac.make_conjunction(n, [i for i, r in enumerate(roles) if r == "x"],
                                  [i for i, r in enumerate(roles) if r == "not x"])
    m = draw(st.integers(1, 30))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n),
                               min_size=m, max_size=m)), dtype=float)
    return target, X, pac.predict_conjunction(target, X)


@FAST
@given(sample=conjunction_samples())
def test_elimination_matches_the_plain_loop_and_is_consistent(sample):
    target, X, y = sample
    h = pac.eliminate(X, y).hypothesis
    literals = cs446_elimination(X.astype(int).tolist(), y.tolist())
    assert {(i, True) for i in np.flatnonzero(h.positive)} | {
        (i, False) for i in np.flatnonzero(h.negative)} == literals
    assert np.all(h.positive >= target.positive) and np.all(h.negative >= target.negative)
    assert pac.predict_conjunction(h, X).tolist() == y.tolist()  # consistent with the sample


@FAST
@given(sample=conjunction_samples(), seed=st.integers(0, 2**32 - 1))
def test_prefix_learning_matches_eliminate_on_each_prefix(sample, seed):
    _, X, y = sample
    sizes = np.unique(np.random.default_rng(seed).integers(1, len(y) + 1, size=3))
    literals = pac._prefix_literals(X[None] == 1, (y > 0)[None], sizes)
    for row, m in zip(literals, sizes, strict=True):
        h = pac.eliminate(X[:m], y[:m]).hypothesis
        assert row.tolist() == h.positive.tolist() + h.negative.tolist()


def test_exact_error_matches_enumeration():
    p = np.array([0.2, 0.5, 0.7, 0.9])
    h = pac.make_conjunction(4, positive=[0], negative=[3])
    f = pac.make_conjunction(4, positive=[0, 2])
    cube = np.array(list(itertools.product([0, 1], repeat=4)), dtype=float)
    weight = np.prod(np.where(cube == 1, p, 1 - p), axis=1)
    disagree = pac.predict_conjunction(h, cube) != pac.predict_conjunction(f, cube)
    assert pac.conjunction_error(h, f, p) == pytest.approx(weight @ disagree)
    assert pac.conjunction_probability(f, p) == pytest.approx(0.2 * 0.7)


def test_conjunction_input_checks():
    with pytest.raises(ValueError, match="boolean"):
        pac.eliminate([[0, 2]], [1])
    with pytest.raises(ValueError, match="labels must be -1 or \\+1"):
        pac.eliminate([[0, 1]], [0])
    with pytest.raises(ValueError, match="variable indices"):
        pac.make_conjunction(3, positive=[3])
    with pytest.raises(ValueError, match="over 3 variables"):
        pac.predict_conjunction(pac.make_conjunction(3), [[0, 1]])
    with pytest.raises(ValueError, match="probabilities"):
        pac.conjunction_probability(pac.make_conjunction(2), [0.5, 1.5])


# --- The simulation harness -------------------------------------------------------------------

TARGET = pac.make_conjunction(10, positive=[0, 2], negative=[1])  # x1 ∧ ¬x2 ∧ x3


def test_simulation_at_the_occam_m_fails_less_often_than_delta():
    # The theorem: at the Occam m, P[error > ε] <= δ. T = 2000 trials with a fixed seed. By
    # Hoeffding, if the true failure probability were above the empirical rate + 0.0588
    # (= sqrt(ln(10^6)/(2·2000))), a rate this low would occur with probability below 10^-6; so
    # an empirical rate at most δ - 0.0588 shows the true one is below δ at that confidence.
    eps, delta = 0.1, 0.1
    m = pac.occam_sample_size(pac.conjunction_count(10) + 1, eps, delta)
    assert m == 133  # (ln(59050) + ln 10)/0.1 = 132.89
    sim = pac.simulate(TARGET, 0.5, [m], eps=eps, delta=delta, trials=2000, seed=7)
    assert sim.occam_m == m
    assert sim.margin(1e-6) == pytest.approx(0.05877, abs=1e-4)
    assert sim.failure_rate[0] <= delta - sim.margin(1e-6)


def test_simulation_shows_failures_with_too_few_examples():
    # The harness can see a bound fail: with 10 examples the learner is often worse than ε.
    sim = pac.simulate(TARGET, 0.5, [10], eps=0.1, delta=0.1, trials=500, seed=7)
    assert sim.failure_rate[0] > 0.5


def test_simulated_errors_agree_with_the_exact_errors():
    # Each estimate is a mean of 20000 indicators; with a union bound over the at most
    # 3·400 hypotheses, Hoeffding puts every estimate within sqrt(ln(2·1200/10^-6)/40000)
    # = 0.0232 of the truth except with probability 10^-6.
    sim = pac.simulate(TARGET, [0.5, 0.3, 0.6] + [0.8] * 7, [5, 30, 200], eps=0.1, delta=0.1,
                       trials=400, seed=3)
    assert sim.errors.shape == (3, 400)
    assert np.max(np.abs(sim.errors - sim.exact_errors)) <= 0.0232
    assert np.all(np.diff(sim.exact_errors, axis=0) <= 0)  # more data, never a worse hypothesis


def test_the_failure_rate_counts_the_exact_errors_and_the_estimate_is_only_a_check():
    # Review finding: counting the test-sample estimates moves the rate wherever a learned error
    # sits within a test-sample s.d. of ε, e.g. 0.125·(1 - 0.9^5) = 0.0512 against ε = 0.05.
    sim = pac.simulate(TARGET, [0.5] * 3 + [0.9] * 7, [20, 60, 100], eps=0.05, delta=0.05,
                       trials=300, seed=3)
    np.testing.assert_array_equal(sim.failure_rate, np.mean(sim.exact_errors > 0.05, axis=1))
    np.testing.assert_array_equal(sim.estimated_failure_rate, np.mean(sim.errors > 0.05, axis=1))
    assert 0.125 * (1 - 0.9**5) == pytest.approx(0.0512, abs=5e-5)
    assert np.any(np.isclose(sim.exact_errors, 0.125 * (1 - 0.9**5), rtol=1e-12))


def test_simulation_is_deterministic_for_a_seed():
    one = pac.simulate(TARGET, 0.5, [20, 40], eps=0.1, delta=0.1, trials=50, seed=11)
    two = pac.simulate(TARGET, 0.5, [20, 40], eps=0.1, delta=0.1, trials=50, seed=11)
    np.testing.assert_array_equal(one.errors, two.errors)


def test_simulation_input_checks():
    with pytest.raises(ValueError, match="each sample size"):
        pac.simulate(TARGET, 0.5, [0, 5], eps=0.1, delta=0.1)
    with pytest.raises(ValueError, match="ε"):
        pac.simulate(TARGET, 0.5, [5], eps=1.0, delta=0.1)
    with pytest.raises(ValueError, match="p has length"):
        pac.simulate(TARGET, [0.5, 0.5], [5], eps=0.1, delta=0.1)


# --- Online to PAC (Balcan §1.2) ----------------------------------------------------------


def test_online_to_pac_sizes_by_hand():
    # M = 100: 101 hypotheses, L = ceil(ln(101/0.05)/0.1) = ceil(76.11) = 77, 101·77 = 7777.
    assert pac.online_to_pac_sizes(100, 0.1, 0.05) == (77, 7777)


def test_online_to_pac_picks_a_hypothesis_with_small_error():
    X, y, w_star = data.separable(30_000, 2, margin=0.1, seed=5)
    M = mistake_bound(radius(X), geometric_margin(w_star, X, y))
    picked = pac.online_to_pac(X[:20_000], y[:20_000], mistake_bound=M, eps=0.05, delta=0.05)
    assert picked.stretch >= picked.needed
    assert np.mean(predict(picked.w, X[20_000:]) != y[20_000:]) <= 0.05
    with pytest.raises(ValueError, match="needs at least"):
        pac.online_to_pac(X[:100], y[:100], mistake_bound=M, eps=0.05, delta=0.05)


def test_docstring_examples_run():
    assert doctest.testmod(pac).failed == 0


# --- The hidden-test checkers (mllib.grading.pac) --------------------------------------------
# Right answers written as a student would (plain numpy and math) pass; typical slips fail with
# a hint that names the situation but shows no computed value.


def occam_ok(h_size, eps, delta):
    return math.floor((math.log(h_size) + math.log(1 / delta)) / eps) + 1


def occam_ceil(h_size, eps, delta):
    # Also right: the bound is never a whole number in exact arithmetic, and the hidden bounds
    # stay 1e-9 away from one, so ceil and floor + 1 agree on every one of them.
    return math.ceil((math.log(h_size) - math.log(delta)) / eps)


def occam_log10(h_size, eps, delta):
    return math.floor((math.log10(h_size) + math.log10(1 / delta)) / eps) + 1


def epsilon_ok(h_size, m, delta):
    return min(1.0, (math.log(h_size) + math.log(1 / delta)) / m)


def epsilon_uncapped(h_size, m, delta):
    return (math.log(h_size) + math.log(1 / delta)) / m


def vc_ok(vc, eps, delta):
    return math.ceil((8 * vc * math.log2(13 / eps) + 4 * math.log2(2 / delta)) / eps)


def vc_natural_logs(vc, eps, delta):
    return math.ceil((8 * vc * math.log(13 / eps) + 4 * math.log(2 / delta)) / eps)


def vc_strict(vc, eps, delta):
    return math.floor((8 * vc * math.log2(13 / eps) + 4 * math.log2(2 / delta)) / eps) + 1


def eliminate_ok(X, y):
    keep_x, keep_not_x = np.ones(X.shape[1], bool), np.ones(X.shape[1], bool)
    for x, label in zip(X, y, strict=True):
        if label == 1:
            keep_x &= x == 1
            keep_not_x &= x == 0
    return keep_x, keep_not_x


def eliminate_with_negatives(X, y):  # also lets negative examples delete literals
    keep_x, keep_not_x = np.ones(X.shape[1], bool), np.ones(X.shape[1], bool)
    for x in X:
        keep_x &= x == 1
        keep_not_x &= x == 0
    return keep_x, keep_not_x


def error_ok(keep_x, keep_not_x, X, y):
    true = np.all(X[:, keep_x] == 1, axis=1) & np.all(X[:, keep_not_x] == 0, axis=1)
    return float(np.mean(np.where(true, 1, -1) != y))


def error_empty_is_false(keep_x, keep_not_x, X, y):  # an empty conjunction taken as false
    true = np.all(X[:, keep_x] == 1, axis=1) & np.all(X[:, keep_not_x] == 0, axis=1)
    true &= keep_x.any() or keep_not_x.any()
    return float(np.mean(np.where(true, 1, -1) != y))


@pytest.mark.parametrize(("checker", "answer"), [
    (check_pac.occam_size, occam_ok), (check_pac.occam_size, occam_ceil),
    (check_pac.occam_inverse, epsilon_ok),
    (check_pac.vc_size, vc_ok), (check_pac.elimination, eliminate_ok),
    (check_pac.error_rate, error_ok)])
def test_checkers_pass_right_answers(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize(("checker", "answer", "hint"), [
    (check_pac.occam_size, occam_log10, "conjunctions over 20 variables"),
    (check_pac.occam_inverse, epsilon_uncapped, "must be capped"),
    (check_pac.vc_size, vc_natural_logs, "VC = 3"),
    (check_pac.vc_size, vc_strict, "m ≥ the bound"),
    (check_pac.elimination, eliminate_with_negatives, "60 examples"),
    (check_pac.error_rate, error_empty_is_false, "always true"),
    (check_pac.occam_size, lambda *args: args[0], "conjunctions over 20 variables"),
])
def test_checkers_fail_slips_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


# --- The exact failure probability ------------------------------------------------------------


def test_failure_probability_matches_enumerating_every_sample():
    # Independent oracle: every sample of m examples over 3 bits, with its probability, learned
    # by eliminate() and scored by conjunction_error(); target x1 ∧ ¬x2, free variable x3.
    import itertools

    target = pac.make_conjunction(3, positive=[0], negative=[1])
    p = np.array([0.6, 0.3, 0.8])
    cube = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    weight = np.prod(np.where(cube == 1, p, 1 - p), axis=1)
    labels = pac.predict_conjunction(target, cube)
    for eps in (0.05, 0.2, 0.4):
        expected = []
        for m in (1, 2, 3):
            total = 0.0
            for rows in itertools.product(range(8), repeat=m):
                h = pac.eliminate(cube[list(rows)], labels[list(rows)]).hypothesis
                if pac.conjunction_error(h, target, p) > eps:
                    total += np.prod(weight[list(rows)])
            expected.append(total)
        # tolerance: sums of at most 512 products of floats, exact to rounding
        np.testing.assert_allclose(pac.failure_probability(target, p, [1, 2, 3], eps),
                                   expected, rtol=1e-12, atol=1e-15)


def test_failure_probability_agrees_with_the_simulated_trials():
    # 4000 trials: by Hoeffding each rate lies within sqrt(ln(2·4/10^-6)/(2·4000)) = 0.045 of
    # the exact probability except with probability 10^-6 (union over the 4 sizes, two tails).
    sizes = [10, 30, 60, 120]
    sim = pac.simulate(TARGET, 0.5, sizes, eps=0.1, delta=0.05, trials=4000, seed=5)
    exact = pac.failure_probability(TARGET, 0.5, sizes, 0.1)
    np.testing.assert_array_equal(sim.failure_rate, np.mean(sim.exact_errors > 0.1, axis=1))
    assert np.max(np.abs(sim.failure_rate - exact)) <= 0.045


def test_failure_probability_edges():
    # No positive example can ever occur (P[f = 1] = 0): the always-false answer is exact.
    never = pac.Conjunction(np.array([True, False]), np.array([True, False]))
    assert pac.failure_probability(never, 0.5, [1, 5], 0.1).tolist() == [0.0, 0.0]
    # Every example positive (all relevant bits certain) and the free bit certain too.
    sure = pac.make_conjunction(2, positive=[0])
    assert pac.failure_probability(sure, [1.0, 1.0], [1, 3], 0.01).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="at most 10"):
        pac.failure_probability(pac.make_conjunction(12, positive=[0]), 0.5, [5], 0.1)
    with pytest.raises(ValueError, match="each sample size"):
        pac.failure_probability(TARGET, 0.5, [0], 0.1)
