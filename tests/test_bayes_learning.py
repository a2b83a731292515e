"""Tests for the Bayesian-learning part of mllib.bayes (CS446 "Basics of Bayesian Learning" to
"Naive Bayes"; Mitchell §6.2, §6.7).

Oracles: the slides' HHTH coin (p_ML = 3/4), the Beta posterior's mode found numerically with
scipy, Mitchell's three-hypothesis example, and scikit-learn's MultinomialNB (test-only).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from scipy import stats
from sklearn.naive_bayes import MultinomialNB

from mllib.bayes import (
    bayes_optimal,
    coin_map,
    coin_ml,
    coin_posterior,
    hypothesis_posterior,
    multinomial_naive_bayes,
    naive_bayes,
    naive_bayes_log_posterior,
    naive_bayes_predict,
)
from mllib.data import mmds_spam

FAST = examples(40)


def test_hhth_gives_the_slides_ml_estimate_three_quarters():
    assert coin_ml("HHTH") == 0.75
    assert coin_ml([1, 1, 0, 1]) == 0.75


def test_map_estimates_by_hand():
    # (k + a - 1) / (m + a + b - 2) with k = 3, m = 4.
    assert coin_map("HHTH", 2, 2) == pytest.approx(4 / 6)
    assert coin_map("HHTH", 1, 1) == pytest.approx(3 / 4)  # the uniform prior gives ML
    assert coin_map("HHTH", 1, 5) == pytest.approx(3 / 8)
    assert coin_map("", 3, 2) == pytest.approx(2 / 3)  # no data: the prior's mode


@FAST
@given(tosses=st.lists(st.integers(0, 1), max_size=30), a=st.floats(1, 20), b=st.floats(1, 20))
def test_map_is_the_mode_of_the_beta_posterior(tosses, a, b):
    k, m = sum(tosses), len(tosses)
    if m + a + b - 2 < 1e-9:
        return
    grid = np.linspace(0, 1, 20001)
    mode = grid[np.argmax(stats.beta(k + a, m - k + b).pdf(grid))]
    assert abs(coin_map(tosses, a, b) - mode) <= 1e-4  # the grid spacing is 5e-5


def test_posterior_is_updated_toss_by_toss():
    post = coin_posterior("HHTH", a=2, b=3)
    assert (post.a, post.b) == (5, 4)
    assert [(s.a, s.b) for s in post.history] == [(2, 3), (3, 3), (4, 3), (4, 4), (5, 4)]
    assert np.isnan(post.history[0].ml)
    assert post.history[2].ml == 1.0
    assert post.map == pytest.approx(4 / 7)
    assert post.history[-1].mean == pytest.approx(5 / 9)


def test_hypothesis_posterior_and_ml_versus_map():
    prior = [0.7, 0.2, 0.1]
    likelihood = [0.01, 0.05, 0.2]
    post = hypothesis_posterior(prior, likelihood)
    evidence = 0.007 + 0.01 + 0.02
    np.testing.assert_allclose(post, [0.007 / evidence, 0.01 / evidence, 0.02 / evidence])
    assert np.argmax(likelihood) == 2 and np.argmax(post) == 2
    uniform = hypothesis_posterior([1 / 3] * 3, likelihood)
    assert np.argmax(uniform) == np.argmax(likelihood)  # uniform prior: h_MAP = h_ML


def test_mitchell_three_hypotheses_bayes_optimal_disagrees_with_map():
    result = bayes_optimal([0.4, 0.3, 0.3], [["+"], ["-"], ["-"]])
    assert result.map_hypothesis == 0 and result.map_labels.tolist() == ["+"]
    assert result.labels.tolist() == ["-"]
    np.testing.assert_allclose(result.votes, [[0.4, 0.6]])  # columns "+", "-"


@FAST
@given(seed=st.integers(0, 10**6), k=st.integers(1, 6), n=st.integers(1, 8))
def test_bayes_optimal_label_has_at_least_the_map_labels_posterior(seed, k, n):
    rng = np.random.default_rng(seed)
    posterior = rng.dirichlet(np.ones(k))
    predictions = rng.integers(0, 3, (k, n))
    result = bayes_optimal(posterior, predictions)
    column = {v: i for i, v in enumerate(result.values.tolist())}
    chosen = result.votes[np.arange(n), [column[v] for v in result.labels.tolist()]]
    of_map = result.votes[np.arange(n), [column[v] for v in result.map_labels.tolist()]]
    assert np.all(chosen >= of_map - 1e-12)
    np.testing.assert_allclose(result.votes.sum(axis=1), 1.0)


@FAST
@given(seed=st.integers(0, 10**6), alpha=st.floats(0.01, 5), d=st.integers(1, 12))
def test_multinomial_naive_bayes_equals_sklearn(seed, alpha, d):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (30, d))
    y = rng.integers(0, 3, 30)
    y[:3] = [0, 1, 2]
    model = multinomial_naive_bayes(X, y, smoothing=alpha)
    oracle = MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y)
    np.testing.assert_allclose(np.log(model.theta), oracle.feature_log_prob_, rtol=1e-10)
    np.testing.assert_allclose(np.log(model.prior), oracle.class_log_prior_, rtol=1e-10)
    X_test = rng.poisson(2.0, (10, d))
    np.testing.assert_allclose(naive_bayes_log_posterior(model, X_test),
                               oracle.predict_log_proba(X_test), rtol=1e-9, atol=1e-9)
    proba = oracle.predict_proba(X_test)
    clear = np.sort(proba, axis=1)[:, -1] - np.sort(proba, axis=1)[:, -2] > 1e-9  # no near-ties
    np.testing.assert_array_equal(naive_bayes_predict(model, X_test)[clear],
                                  oracle.predict(X_test)[clear])


def test_multinomial_by_hand_on_the_mmds_spam_words():
    X, y, _ = mmds_spam()
    model = multinomial_naive_bayes(X, y, smoothing=1.0)
    spam = X[y == 1].sum(axis=0)
    np.testing.assert_allclose(model.theta[1], (spam + 1) / (spam.sum() + 5))
    assert model.parameter_count == 2 * 5 + 2


def test_parameter_counts_are_n_v_plus_v():
    X, y, _ = mmds_spam()
    assert naive_bayes(X, y).parameter_count == 5 * 2 + 2  # CS446: n|V| + |V|


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="H and T"):
        coin_ml("HHXT")
    with pytest.raises(ValueError, match="at least one toss"):
        coin_ml("")
    with pytest.raises(ValueError, match=">= 1"):
        coin_map("HT", 0.5, 2)
    with pytest.raises(ValueError, match="every p"):
        coin_map("", 1, 1)
    with pytest.raises(ValueError, match="sum to 1"):
        hypothesis_posterior([0.5, 0.6], [0.1, 0.2])
    with pytest.raises(ValueError, match="probability 0"):
        hypothesis_posterior([0.5, 0.5], [0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        bayes_optimal([0.5, 0.5], [[1, 0]])
    with pytest.raises(ValueError, match="negative"):
        multinomial_naive_bayes([[1, -1], [0, 2]], [0, 1])
    model = multinomial_naive_bayes([[1, 0], [0, 2]], [0, 1])
    with pytest.raises(ValueError, match="features"):
        naive_bayes_predict(model, [[1, 2, 3]])
