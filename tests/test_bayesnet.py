"""Tests for mllib.bayesnet (CS446 Bayesian networks; R&N §14.4).

Oracles: pgmpy's VariableElimination (test-only), R&N's printed P(B | j, m) ≈ 0.284, the
slide's parameter counts, brute-force sums of the joint, and sampling error bounds for fit.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pgmpy_support import VariableElimination, pgmpy_query, to_pgmpy
from property_support import examples

from mllib.bayesnet import alarm_network, bayes_net, random_network

FAST = examples(15)


def test_alarm_parameter_counts_match_the_slide():
    net = alarm_network()
    assert net.parameter_count() == 12  # E 1, B 1, R 2, A 4, M 2, J 2
    assert net.full_joint_parameter_count() == 2**6 - 1


def test_alarm_reproduces_russell_norvig_p_burglary_given_both_calls():
    # R&N §14.4.1 prints P(B | j, m) ≈ <0.284, 0.716>; three digits, so tolerance 5e-4.
    for method in ("enumeration", "elimination"):
        p = alarm_network().query("B", {"J": 1, "M": 1}, method=method)
        assert abs(p[1] - 0.284) < 5e-4


def test_alarm_joint_is_the_product_of_the_slides_factors():
    # P(E=0) P(B=1) P(R=0 | E=0) P(A=1 | E=0, B=1) P(M=1 | A=1) P(J=0 | A=1), from the CPTs.
    expected = 0.998 * 0.001 * 0.999 * 0.94 * 0.7 * 0.1
    got = alarm_network().joint({"E": 0, "B": 1, "R": 0, "A": 1, "M": 1, "J": 0})
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_joint_sums_to_one(seed):
    net = random_network(6, max_parents=2, domain_size=3, seed=seed)
    total = sum(net.joint(dict(zip(net.names, values, strict=True)))
                for values in itertools.product(range(3), repeat=6))
    assert total == pytest.approx(1.0, abs=1e-12)  # 729 products of numbers <= 1


ALARM_QUERIES = [
    ("B", {"J": 1, "M": 1}), ("E", {"J": 1, "M": 1}), ("A", {"R": 1}), ("B", {"A": 1, "R": 1}),
    ("J", {}), ("R", {"M": 0}), ("E", {"B": 1, "A": 1}),
]


@pytest.mark.parametrize("target, evidence", ALARM_QUERIES)
def test_alarm_queries_equal_pgmpy(target, evidence):
    net = alarm_network()
    expected = pgmpy_query(VariableElimination(to_pgmpy(net)), net, target, evidence)
    for method in ("elimination", "enumeration"):
        np.testing.assert_allclose(net.query(target, evidence, method=method), expected,
                                   rtol=1e-9, atol=1e-12)  # both exact: rounding only


@FAST
@given(seed=st.integers(0, 10**6), n=st.integers(2, 9), parents=st.integers(1, 3),
       size=st.integers(2, 3), observed=st.integers(0, 3))
def test_random_network_queries_equal_pgmpy_and_enumeration(seed, n, parents, size, observed):
    net = random_network(n, max_parents=parents, domain_size=size, seed=seed)
    rng = np.random.default_rng(seed)
    names = list(rng.permutation(net.names))
    target, evidence = names[0], {v: int(rng.integers(size)) for v in names[1:1 + observed]}
    expected = pgmpy_query(VariableElimination(to_pgmpy(net)), net, target, evidence)
    np.testing.assert_allclose(net.query(target, evidence), expected, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(net.query(target, evidence, method="enumeration"), expected,
                               rtol=1e-8, atol=1e-12)


def test_elimination_answers_a_30_node_network_like_pgmpy():
    net = random_network(30, max_parents=3, seed=7)
    engine = VariableElimination(to_pgmpy(net))
    evidence = {"X0": 1, "X12": 0, "X25": 1}
    np.testing.assert_allclose(net.query("X29", evidence),
                               pgmpy_query(engine, net, "X29", evidence), rtol=1e-8)


def test_fit_recovers_known_cpts_from_a_hundred_thousand_samples():
    net = random_network(8, max_parents=2, domain_size=3, seed=3)
    data = net.sample(100_000, seed=4)
    fitted = net.fit(data)
    for v in net.names:
        # Each row is a frequency over the rows' N_u samples: allow 5 standard errors.
        index = tuple(np.searchsorted(net.domains[u], data[u]) for u in net.parents[v])
        n_u = np.zeros(net.cpts[v].shape[:-1])
        np.add.at(n_u, index, 1)
        p = net.cpts[v]
        bound = 5 * np.sqrt(p * (1 - p) / np.maximum(n_u, 1)[..., None]) + 1e-3
        assert np.all(np.abs(fitted.cpts[v] - p) <= bound), v


def test_fit_counts_by_hand_with_and_without_smoothing():
    net = bayes_net({"A": (0, 1), "B": ("x", "y", "z")}, {"B": ("A",)},
                    {"A": [0.5, 0.5], "B": [[1 / 3] * 3, [1 / 3] * 3]})
    data = {"A": [0, 0, 0, 1], "B": ["x", "x", "z", "y"]}
    ml = net.fit(data)
    np.testing.assert_allclose(ml.cpts["A"], [3 / 4, 1 / 4])
    np.testing.assert_allclose(ml.cpts["B"], [[2 / 3, 0, 1 / 3], [0, 1, 0]])
    laplace = net.fit(data, smoothing=1)
    np.testing.assert_allclose(laplace.cpts["A"], [4 / 6, 2 / 6])
    np.testing.assert_allclose(laplace.cpts["B"], [[3 / 6, 1 / 6, 2 / 6], [1 / 4, 2 / 4, 1 / 4]])


def test_fit_gives_an_unseen_parent_configuration_a_uniform_row():
    net = bayes_net({"A": (0, 1), "B": (0, 1)}, {"B": ["A"]},
                    {"A": [0.5, 0.5], "B": [[0.9, 0.1], [0.2, 0.8]]})
    fitted = net.fit({"A": [0, 0], "B": [1, 0]})
    np.testing.assert_allclose(fitted.cpts["B"], [[0.5, 0.5], [0.5, 0.5]])


def test_sample_returns_domain_values_and_is_reproducible():
    net = bayes_net({"W": ("sun", "rain")}, {}, {"W": [0.25, 0.75]})
    first, second = net.sample(1000, seed=5), net.sample(1000, seed=5)
    assert set(first["W"].tolist()) == {"sun", "rain"}
    assert list(first["W"]) == list(second["W"])


@pytest.mark.parametrize(
    "domains, parents, cpts, message",
    [
        ({"A": (0, 1), "B": (0, 1)}, {"A": ["B"], "B": ["A"]},
         {"A": [[1, 0], [0, 1]], "B": [[1, 0], [0, 1]]}, "cycle"),
        ({"A": (0, 1)}, {}, {"A": [0.5, 0.6]}, "sum"),
        ({"A": (0, 1)}, {"A": ["Z"]}, {"A": [0.5, 0.5]}, "unknown"),
        ({"A": (0, 1)}, {}, {"A": [[0.5, 0.5]]}, "shape"),
        ({"A": (0, 1)}, {}, {}, "no CPT"),
        ({"A": (0, 1)}, {}, {"A": [1.5, -0.5]}, "non-negative"),
    ],
)
def test_bad_networks_are_rejected(domains, parents, cpts, message):
    with pytest.raises(ValueError, match=message):
        bayes_net(domains, parents, cpts)


def test_bad_queries_and_data_are_rejected():
    net = alarm_network()
    with pytest.raises(ValueError, match="not in the domain"):
        net.query("B", {"J": 2})
    with pytest.raises(ValueError, match="unknown variable"):
        net.query("Burglary", {})
    with pytest.raises(ValueError, match="both the target and evidence"):
        net.query("B", {"B": 1})
    with pytest.raises(ValueError, match="method"):
        net.query("B", {}, method="sampling")
    with pytest.raises(ValueError, match="not in its domain"):
        net.fit({v: [0, 1] for v in "EBRAM"} | {"J": [0, 7]})
    with pytest.raises(ValueError, match="every variable"):
        net.joint({"E": 0})
    zero = bayes_net({"A": (0, 1), "B": (0, 1)}, {"B": ["A"]},
                     {"A": [1.0, 0.0], "B": [[1.0, 0.0], [0.0, 1.0]]})
    with pytest.raises(ValueError, match="probability 0"):
        zero.query("A", {"B": 1})


def test_elimination_plan_prunes_to_ancestors_and_sizes_each_table_by_hand():
    # P(B | J, M): the radio R is no ancestor of B, J or M, so it is dropped; A and E are
    # summed out. Worked by hand with the greedy rule: A's new factor would be over {E, B}
    # (4 entries), E's over {A, B} (4 entries) too: a tie, broken by name, so A first; its
    # product is over {A, E, B} (8 entries); then E, whose product is over {E, B} (4).
    plan = alarm_network().elimination_plan("B", {"J": 1, "M": 1})
    assert plan.relevant == ("E", "B", "A", "M", "J")
    assert [(s.variable, s.scope, s.entries) for s in plan.steps] == [
        ("A", ("E", "B"), 8), ("E", ("B",), 4)]
    assert plan.largest_table == 8
    assert alarm_network().elimination_plan("E").steps == ()  # a root: nothing to sum
    assert alarm_network().elimination_plan("E").largest_table == 0
    with pytest.raises(ValueError, match="both the target and evidence"):
        alarm_network().elimination_plan("B", {"B": 1})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_most_probable_explanation_equals_pgmpy_map_query(seed):
    # pgmpy's map_query maximises the joint of the hidden variables given the evidence.
    net = random_network(7, max_parents=2, seed=seed)
    evidence = {net.names[-1]: 1}
    hidden = [v for v in net.names if v not in evidence]
    expected = VariableElimination(to_pgmpy(net)).map_query(hidden, evidence=evidence,
                                                            show_progress=False)
    found, p = net.most_probable_explanation(evidence)
    assert {v: int(x) for v, x in found.items()} == {v: int(x) for v, x in expected.items()}
    assert p == pytest.approx(net.joint({**evidence, **found})
                              / net.query(net.names[-1])[1], rel=1e-9)


def test_most_probable_explanation_refuses_impossible_evidence():
    net = bayes_net({"X": (0, 1)}, {}, {"X": [1.0, 0.0]})
    with pytest.raises(ValueError, match="probability 0"):
        net.most_probable_explanation({"X": 1})


def test_log_likelihood_is_the_sum_of_the_log_joints():
    net = alarm_network()
    data = net.sample(50, seed=3)
    cases = [{v: data[v][i] for v in net.names} for i in range(50)]
    expected = sum(np.log(net.joint(case)) for case in cases)
    assert net.log_likelihood(data) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="one column per variable"):
        net.log_likelihood({"E": data["E"]})


@FAST
@given(seed=st.integers(0, 10**6), n=st.integers(2, 8), observed=st.integers(0, 3))
def test_a_compiled_schedule_answers_every_evidence_value_and_stays_with_its_network(
        seed, n, observed):
    # Elimination compiles one schedule per (target, observed names) and keeps it with the
    # network. Oracle: enumeration, for every value of the evidence through the one schedule,
    # and on a second network with the same names and another graph (its own schedule).
    rng = np.random.default_rng(seed)
    first, second = (random_network(n, max_parents=2, domain_size=2, seed=s)
                     for s in (seed, seed + 1))
    names = list(rng.permutation(first.names))
    target, observed_names = names[0], names[1:1 + observed]
    for net in (first, second, first):
        for values in itertools.product((0, 1), repeat=len(observed_names)):
            evidence = dict(zip(observed_names, values, strict=True))
            try:
                expected = net.query(target, evidence, method="enumeration")
            except ValueError:  # evidence of probability 0: both methods must refuse it
                with pytest.raises(ValueError, match="probability 0"):
                    net.query(target, evidence)
                continue
            np.testing.assert_allclose(net.query(target, evidence), expected,
                                       rtol=1e-9, atol=1e-12)  # both exact: rounding only


def test_schedules_kept_per_network_stay_bounded_and_answer_after_eviction(monkeypatch):
    # Oracle: enumeration. With room for two schedules, a third query drops the oldest; asking
    # the first again compiles it anew and still answers right.
    from mllib import bayesnet

    monkeypatch.setattr(bayesnet, "SCHEDULES_PER_NETWORK", 2)
    net = alarm_network()
    queries = [("B", {"J": 1}), ("E", {"M": 0}), ("A", {"R": 1}), ("B", {"J": 0})]
    for target, evidence in queries:
        np.testing.assert_allclose(net.query(target, evidence),
                                   net.query(target, evidence, method="enumeration"),
                                   rtol=1e-9, atol=1e-12)  # both exact: rounding only
        assert len(bayesnet._SCHEDULES[net]) <= 2
    assert set(bayesnet._SCHEDULES[net]) == {("A", frozenset({"R"})), ("B", frozenset({"J"}))}
