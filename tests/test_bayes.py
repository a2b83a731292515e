"""Tests for mllib.bayes: naive Bayes and tree-dependent distributions (CS446, seed 001).

Oracles: scikit-learn's BernoulliNB (test-only), counts done by hand, brute-force enumeration of
all 2ⁿ assignments, and the slides' worked likelihoods for the data 1011, 1001, 0100.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from sklearn.naive_bayes import BernoulliNB

from mllib import bayes
from mllib.bayes import (
    joint,
    log_joint,
    marginal,
    marginals,
    naive_bayes,
    naive_bayes_log_posterior,
    naive_bayes_predict,
    pairwise,
    parents_from_edges,
    random_tree,
    sample,
    tree_distribution,
)

FAST = examples(40)

# CS446 "Example: Learning Distributions", variables x1..x4 in the order of the strings "1011".
SLIDES_DATA = [[1, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 0]]
# Distribution 2: x4 is the parent of x1, x2, x3. cpt[i] = [P(xi=1 | parent=0), P(xi=1 | parent=1)].
DISTRIBUTION_2 = ([3, 3, 3, -1], [[1 / 2, 1 / 2], [1 / 3, 1 / 3], [1 / 6, 5 / 6], [1 / 2, 1 / 2]])
# Distribution 3: x4 is the parent of x1 and x2, and x2 the parent of x3.
DISTRIBUTION_3 = ([3, 3, 1, -1], [[1 / 3, 1], [1, 1 / 2], [2 / 3, 1 / 6], [2 / 3, 2 / 3]])


def all_assignments(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=float)


def enumerated(tree):
    """Every assignment and its probability, by the product formula, in plain Python."""
    X = all_assignments(len(tree.parents))
    probs = []
    for x in X.astype(int):
        p = 1.0
        for i, parent in enumerate(tree.parents):
            p_one = tree.cpt[i, 0] if parent < 0 else tree.cpt[i, x[parent]]
            p *= p_one if x[i] == 1 else 1 - p_one
        probs.append(p)
    return X, np.array(probs)


# --- Naive Bayes --------------------------------------------------------------------------------


def test_laplace_smoothing_by_hand():
    # Class 1 has two examples; feature 0 is on in both: (2 + 1)/(2 + 2) = 3/4. Feature 1 is on
    # in neither: (0 + 1)/(2 + 2) = 1/4. Class 0 has one example with both features on: 2/3.
    model = naive_bayes([[1, 0], [1, 0], [1, 1]], [1, 1, 0])
    assert model.classes.tolist() == [0, 1]
    np.testing.assert_allclose(model.prior, [1 / 3, 2 / 3])
    np.testing.assert_allclose(model.theta, [[2 / 3, 2 / 3], [3 / 4, 1 / 4]])


@pytest.mark.parametrize("smoothing", [1.0, 0.5, 3.0])
def test_naive_bayes_matches_sklearn_bernoulli_nb(smoothing):
    rng = np.random.default_rng(4)
    y = rng.choice([-1, 1, 7], size=300)
    X = (rng.random((300, 12)) < np.where(y[:, None] == 1, 0.7, 0.3)).astype(float)
    model = naive_bayes(X, y, smoothing=smoothing)
    reference = BernoulliNB(alpha=smoothing, force_alpha=True).fit(X, y)
    np.testing.assert_allclose(np.log(model.theta), reference.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(np.log(model.prior), reference.class_log_prior_, rtol=1e-12)
    X_new = (rng.random((50, 12)) < 0.5).astype(float)
    np.testing.assert_allclose(naive_bayes_log_posterior(model, X_new),
                               reference.predict_log_proba(X_new), rtol=1e-9, atol=1e-12)
    assert naive_bayes_predict(model, X_new).tolist() == reference.predict(X_new).tolist()


# --- The slides' candidate distributions --------------------------------------------------------


def test_distribution_3_gives_the_slides_likelihoods():
    # CS446: P(1011|T) = 2/9, P(1001|T) = 1/9, P(0100|T) = 10/54, P(Data|Tree) = 10/3⁷.
    tree = tree_distribution(*DISTRIBUTION_3)
    np.testing.assert_allclose(joint(tree, SLIDES_DATA), [2 / 9, 1 / 9, 10 / 54], rtol=1e-14)
    assert np.prod(joint(tree, SLIDES_DATA)) == pytest.approx(10 / 3**7, rel=1e-14)


def test_distribution_2_likelihoods_with_the_slides_errata():
    # The slides print 10/72 for all three points. Only P(1011|T) = 1/2·1/2·2/3·5/6 = 10/72 is
    # right: 1001 has x3 = 0 given x4 = 1, probability 1/6, so 1/2·1/2·2/3·1/6 = 2/72; 0100
    # has x4 = 0 and x2 = 1, so 1/2·1/2·1/3·5/6 = 5/72. The product is 100/72³, not 125/(4·3⁶),
    # and Distribution 3 (10/3⁷) is the more likely, not Distribution 2.
    tree = tree_distribution(*DISTRIBUTION_2)
    np.testing.assert_allclose(joint(tree, SLIDES_DATA), [10 / 72, 2 / 72, 5 / 72], rtol=1e-14)
    assert np.prod(joint(tree, SLIDES_DATA)) < 10 / 3**7


# --- Inference on trees against enumeration -----------------------------------------------------


@FAST
@given(n=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_joint_sums_to_one_and_matches_the_product_formula(n, seed):
    tree = random_tree(n, seed=seed)
    X, probs = enumerated(tree)
    np.testing.assert_allclose(joint(tree, X), probs, rtol=1e-12)
    assert joint(tree, X).sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(log_joint(tree, X), np.log(probs), rtol=1e-12)


@FAST
@given(n=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_marginals_by_recursion_match_enumeration(n, seed):
    tree = random_tree(n, seed=seed)
    X, probs = enumerated(tree)
    brute = probs @ X
    np.testing.assert_allclose(marginals(tree), brute, rtol=1e-12)
    np.testing.assert_allclose([marginal(tree, i) for i in range(n)], brute, rtol=1e-12)


@FAST
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32 - 1))
def test_pairwise_queries_match_enumeration_for_every_pair(n, seed):
    tree = random_tree(n, seed=seed)
    X, probs = enumerated(tree)
    for i, j in itertools.product(range(n), repeat=2):
        brute = [[probs[(X[:, i] == a) & (X[:, j] == b)].sum() for b in (0, 1)] for a in (0, 1)]
        np.testing.assert_allclose(pairwise(tree, i, j), brute, rtol=1e-12, atol=1e-15)


def test_pairwise_covers_the_slides_three_cases():
    # A chain 0 -> 1 -> 2 plus 0 -> 3: (2, 0) is an ancestor query up a path of length 2,
    # (2, 3) has no direct path and meets at the root 0.
    tree = tree_distribution([-1, 0, 1, 0], [[0.3, 0.3], [0.2, 0.9], [0.1, 0.6], [0.7, 0.4]])
    X, probs = enumerated(tree)
    for i, j in [(2, 0), (0, 2), (2, 3), (1, 3), (1, 1)]:
        brute = [[probs[(X[:, i] == a) & (X[:, j] == b)].sum() for b in (0, 1)] for a in (0, 1)]
        np.testing.assert_allclose(pairwise(tree, i, j), brute, rtol=1e-12)


def test_sample_frequencies_approach_the_marginals():
    tree = random_tree(6, seed=11)
    X = sample(tree, 200_000, seed=3)
    assert set(np.unique(X)) == {0.0, 1.0}
    # 5 standard errors of a frequency from 200,000 draws is at most 0.0056.
    np.testing.assert_allclose(X.mean(axis=0), marginals(tree), atol=0.0056)
    for parent, child in tree.edges:
        given_one = X[X[:, parent] == 1, child].mean()
        assert given_one == pytest.approx(tree.cpt[child, 1], abs=0.01)


def test_sampling_is_reproducible():
    tree = random_tree(5, seed=1)
    assert np.array_equal(sample(tree, 100, seed=9), sample(tree, 100, seed=9))


def test_parents_from_edges_and_back():
    parents = parents_from_edges([(3, 0), (3, 1), (1, 2)], 4)
    assert parents.tolist() == [3, 3, 1, -1]
    tree = tree_distribution(parents, np.full((4, 2), 0.5))
    assert tree.root == 3 and sorted(tree.edges) == [(1, 2), (3, 0), (3, 1)]


def test_random_tree_is_a_tree_with_dependent_links():
    tree = random_tree(30, seed=2)
    assert len(tree.order) == 30 and sorted(tree.order) == list(range(30))
    for _, child in tree.edges:
        assert abs(tree.cpt[child, 1] - tree.cpt[child, 0]) > 0.4


# --- Bad input ----------------------------------------------------------------------------------

HALF = np.full((3, 2), 0.5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tree_distribution([-1, -1, 0], HALF), r"exactly one root"),
        (lambda: tree_distribution([1, 2, 0], HALF), r"exactly one root"),
        (lambda: tree_distribution([-1, 2, 1], HALF), r"cycle"),
        (lambda: tree_distribution([-1, 0, 5], HALF), r"index of another"),
        (lambda: tree_distribution([-1, 1, 0], HALF), r"index of another"),
        (lambda: tree_distribution([-1], [[0.5, 0.5]]), r"at least 2 variables"),
        (lambda: tree_distribution([-1.0, 0.0, 0.0], HALF), r"integers"),
        (lambda: tree_distribution([-1, 0, 0], [[0.5, 0.5], [0.2, 1.2], [0.1, 0.1]]),
         r"probabilities in \[0, 1\]"),
        (lambda: tree_distribution([-1, 0, 0], [[0.5, 0.5], [0.2, np.nan], [0.1, 0.1]]),
         r"probabilities in \[0, 1\]"),
        (lambda: tree_distribution([-1, 0, 0], np.full((3, 3), 0.5)), r"shape \(3, 2\)"),
        (lambda: tree_distribution([-1, 0, 0], [[0.5, 0.6], [0.2, 0.2], [0.1, 0.1]]),
         r"root: both cpt entries"),
        (lambda: parents_from_edges([(0, 1), (2, 1)], 3), r"two parents"),
        (lambda: parents_from_edges([(0, 1), (0, 7)], 3), r"outside 0..2"),
        (lambda: parents_from_edges([(0, 1)], 3), r"exactly one root"),
        (lambda: joint(tree_distribution([-1, 0, 0], HALF), [[0, 1]]), r"2 variables; the tree"),
        (lambda: joint(tree_distribution([-1, 0, 0], HALF), [[0, 1, 2]]), r"binary"),
        (lambda: marginal(tree_distribution([-1, 0, 0], HALF), 3), r"integer in 0..2"),
        (lambda: pairwise(tree_distribution([-1, 0, 0], HALF), 0, 1.5), r"integer in 0..2"),
        (lambda: sample(tree_distribution([-1, 0, 0], HALF), 0), r"size must be"),
        (lambda: random_tree(1), r"at least 2 variables"),
        (lambda: random_tree(5, strength=0.6), r"strength"),
        (lambda: naive_bayes([[0, 1], [1, 0.5]], [0, 1]), r"binary"),
        (lambda: naive_bayes([[0, 1], [1, 0]], [0, 1, 1]), r"2 rows but y has shape"),
        (lambda: naive_bayes([[0, 1], [1, 0]], [0, 1], smoothing=0), r"smoothing must be"),
        (lambda: naive_bayes(np.empty((0, 2)), []), r"empty"),
        (lambda: naive_bayes_predict(naive_bayes([[0, 1]], [1]), [[0, 1, 1]]), r"3 features"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_markov_chain_ml_beats_every_other_transition_matrix():
    rng = np.random.default_rng(7)
    tokens = rng.choice(list("abcd"), 200, p=[0.4, 0.3, 0.2, 0.1]).tolist()
    chain = bayes.markov_chain_ml(tokens)
    np.testing.assert_allclose(chain.transitions.sum(axis=1), 1, rtol=0, atol=1e-12)
    best = chain.log_likelihood(tokens)
    for _ in range(50):  # random row-stochastic rivals (Dirichlet rows) do no better
        rival = bayes.MarkovChain(chain.states, chain.counts, rng.dirichlet(np.ones(4), 4))
        assert rival.log_likelihood(tokens) < best


def test_markov_chain_ml_rejects_short_sequences_and_unknown_tokens():
    with pytest.raises(ValueError, match="at least two tokens"):
        bayes.markov_chain_ml(["a"])
    with pytest.raises(ValueError, match="not a state"):
        bayes.markov_chain_ml("abab").log_likelihood("abc")
