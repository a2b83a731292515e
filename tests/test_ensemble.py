"""Stumps, CART, AdaBoost, bagging and random forests: brute force, the CS446 slides' formulas,
scikit-learn, and the training-error bound."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from mllib import data
from mllib import ensemble as E
from mllib import trees as T
from mllib.grading.ensemble import _every_stump_error as every_stump_error


def all_stumps(X, y, w):
    """Every candidate stump (feature, threshold, polarity) with its weighted error, in the
    documented tie order: feature, then threshold, then polarity +1 before -1."""
    out = []
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for t in [-np.inf, *((v[1:] + v[:-1]) / 2)]:
            for p in (1, -1):
                h = np.where(X[:, j] > t, p, -p)
                out.append((j, t, p, w[h != y].sum() / w.sum()))
    return out


@examples(80)
@given(st.integers(2, 25), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_stump_has_minimum_weighted_error_over_all_candidates(m, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (m, d)).astype(float)  # repeated values: thresholds must skip them
    y = rng.choice([-1.0, 1.0], m)
    w = rng.random(m)
    stump = T.decision_stump(X, y, w)
    best = min(e for *_, e in all_stumps(X, y, w))
    assert stump.error == pytest.approx(best, abs=1e-12)
    h = stump.predict(X)
    assert w[h != y].sum() / w.sum() == pytest.approx(stump.error, abs=1e-12)


def test_stump_ties_go_to_the_lowest_feature_then_threshold():
    X = np.array([[1.0, 1], [2, 2], [3, 3], [4, 4]])  # two identical features
    y = np.array([-1.0, -1, 1, 1])
    assert (T.decision_stump(X, y).feature, T.decision_stump(X, y).threshold) == (0, 2.5)
    y_flat = np.array([1.0, -1, 1, -1])  # several stumps err on one example in four
    first = min((c for c in all_stumps(X, y_flat, np.ones(4))), key=lambda c: c[3])
    got = T.decision_stump(X, y_flat)
    assert (got.feature, got.threshold, got.polarity) == first[:3]


def test_constant_stump_when_every_label_is_the_same():
    stump = T.decision_stump([[1.0], [2.0]], [1, 1])
    assert (stump.threshold, stump.polarity, stump.error) == (-np.inf, 1, 0.0)


def ties_free(seed, m=200, d=5):
    rng = np.random.default_rng(seed)
    # Each column a shuffled grid of step 1/64: no repeated values, exact in float32 too.
    X = np.column_stack([rng.permutation(m) - m / 2 for _ in range(d)]) / 64
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 0.5 + 0.3 * rng.normal(size=m) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("depth", [1, 2, 3, 5, None])
def test_tree_matches_scikit_learn_on_training_predictions(criterion, depth):
    X, y = ties_free(depth or 9)
    ours = T.decision_tree(X, y, max_depth=depth, criterion=criterion)
    theirs = DecisionTreeClassifier(max_depth=depth, criterion=criterion, random_state=0)
    theirs.fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.depth == theirs.get_depth()
    assert len(ours.feature) == theirs.tree_.node_count


def test_tree_with_random_features_is_reproducible_from_the_seed():
    X, y = ties_free(3)
    a, b = (T.decision_tree(X, y, max_features=2, seed=7) for _ in range(2))
    np.testing.assert_array_equal(a.feature, b.feature)
    assert any(not np.array_equal(T.decision_tree(X, y, max_features=2, seed=s).feature,
                                  a.feature) for s in range(8, 12))


def slide_loop(X, y, T_rounds):
    """CS446's AdaBoost formulas, written out plainly with brute-force stumps."""
    m = len(y)
    D = np.full(m, 1 / m)
    alphas, errors, Ds = [], [], []
    for _ in range(T_rounds):
        j, t, p, _ = min(all_stumps(X, y, D), key=lambda c: c[3])  # first minimum: tie order
        h = np.where(X[:, j] > t, p, -p)
        eps = D[h != y].sum()
        alpha = 0.5 * np.log((1 - eps) / eps)
        Ds.append(D)
        alphas.append(alpha)
        errors.append(eps)
        D = D * np.exp(-alpha * y * h)
        D = D / D.sum()
    return np.array(alphas), np.array(errors), np.array(Ds)


def test_adaboost_equals_a_plain_loop_of_the_slide_formulas():
    X, y = data.moons(60, noise=0.3, seed=4)
    run = E.adaboost(X, y, rounds=12)
    alphas, errors, Ds = slide_loop(X, y, 12)
    np.testing.assert_allclose(run.errors, errors, rtol=1e-9)
    np.testing.assert_allclose(run.alphas, alphas, rtol=1e-9)
    np.testing.assert_allclose(run.distributions, Ds, rtol=1e-9)
    np.testing.assert_allclose(run.Z, 2 * np.sqrt(errors * (1 - errors)), rtol=1e-9)
    assert run.distributions.shape == (12, 60)


def test_reproduces_cs446_toy_example_and_its_alpha_rounding():
    """ε = 3/10, 3/14, 3/22 give α = 0.42, 0.65, 0.92 as printed; the printed, rounded
    ε₂ = 0.21 and ε₃ = 0.14 would give 0.66 and 0.91."""
    X, y = data.boosting_toy()
    run = E.adaboost(X, y, rounds=3)
    np.testing.assert_allclose(run.errors, [3 / 10, 3 / 14, 3 / 22], rtol=1e-12)
    assert [round(e, 2) for e in run.errors] == [0.30, 0.21, 0.14]
    assert [round(a, 2) for a in run.alphas] == [0.42, 0.65, 0.92]
    assert [round(E.alpha_from_error(e), 2) for e in (0.30, 0.21, 0.14)] == [0.42, 0.66, 0.91]
    assert run.history[-1].training_error == 0  # H_final makes no training mistake


def test_adaboost_predictions_equal_scikit_learns_samme():
    """scikit-learn's only algorithm is SAMME: weight ln((1-ε)/ε) = 2αₜ, same reweighting, so
    the same H. Its stump minimises Gini, ours the weighted error; on this sample (found by a
    search) both pick the same, unique, stump in each of the 5 rounds, which is checked."""
    rng = np.random.default_rng(42)
    X = rng.normal(size=(20, 2)).round(2)
    y = np.where(X[:, 0] + X[:, 1] ** 2 + 0.7 * rng.normal(size=20) > 0.5, 1.0, -1.0)
    run = E.adaboost(X, y, rounds=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a FutureWarning about `algorithm` on some versions
        theirs = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1),
                                    n_estimators=5).fit(X, y)
    for r, tree in zip(run.history, theirs.estimators_, strict=True):
        errors = sorted(e for *_, e in all_stumps(X, y, r.distribution))
        assert errors[1] > errors[0] + 1e-9  # the best stump is unique
        assert tree.tree_.feature[0] == r.learner.feature
        assert tree.tree_.threshold[0] == pytest.approx(r.learner.threshold, abs=1e-6)
    np.testing.assert_allclose(theirs.estimator_weights_, 2 * run.alphas, rtol=1e-6)
    np.testing.assert_allclose(theirs.estimator_errors_, run.errors, rtol=1e-6)
    grid = rng.uniform(-3, 3, (500, 2))
    np.testing.assert_array_equal(run.predict(grid), theirs.predict(grid))


@examples(40)
@given(st.integers(5, 40), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_training_error_never_exceeds_the_product_of_z(m, rounds, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 2))
    y = rng.choice([-1.0, 1.0], m)
    run = E.adaboost(X, y, rounds=rounds)
    for r in run.history:
        assert r.training_error <= r.bound + 1e-12
        assert r.bound == pytest.approx(np.prod([2 * np.sqrt(s.error * (1 - s.error))
                                                 for s in run.history[: r.t]]), rel=1e-9)


def test_zero_error_round_gets_infinite_alpha_and_stops():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, -1, 1, 1])
    run = E.adaboost(X, y, rounds=10)
    assert len(run.history) == 1 and run.alphas[0] == np.inf and run.Z[0] == 0
    assert "weighted error 0" in run.stopped
    np.testing.assert_array_equal(run.predict(X), y)


def test_error_of_one_half_discards_the_round_and_stops():
    X = np.array([[0.0], [0.0], [1.0], [1.0]])  # one feature value each: XOR-like labels
    y = np.array([-1.0, 1, -1, 1])
    run = E.adaboost(X, y, rounds=5)
    assert run.history == () and ">= 1/2" in run.stopped


def test_adaboost_takes_any_weak_learner():
    from functools import partial

    X, y = data.moons(80, seed=2)
    run = E.adaboost(X, y, rounds=5, learner=partial(T.decision_tree, max_depth=2))
    assert isinstance(run.learners[0], T.Tree) and run.history[-1].training_error < 0.2


def test_bagging_votes_and_oob_error_against_a_hand_count():
    X, y = data.moons(80, noise=0.3, seed=5)
    bag = E.bagging(X, y, n_estimators=15, seed=3)
    preds = np.array([h.predict(X) for h in bag.learners])  # (B, m)
    out = np.array([np.isin(np.arange(80), r.sample, invert=True) for r in bag.history])
    plus = ((preds == 1) & out).sum(axis=0)
    minus = ((preds == -1) & out).sum(axis=0)
    heard = out.sum(axis=0) > 0
    oob = np.where(plus > minus, 1.0, -1.0)  # ties to the smaller label, -1
    assert bag.oob_error == pytest.approx(np.mean(oob[heard] != y[heard]), abs=1e-15)
    np.testing.assert_array_equal(bag.oob_prediction[heard], oob[heard])
    assert np.all(np.isnan(bag.oob_prediction[~heard]))
    votes = (preds == 1).sum(axis=0)
    np.testing.assert_array_equal(bag.predict(X), np.where(votes > 15 - votes, 1.0, -1.0))


def test_bagging_regression_averages():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (50, 1))
    y = np.sin(6 * X[:, 0])
    bag = E.bagging(X, y, n_estimators=5, task="regress", seed=1,
                    learner=lambda A, b: _Mean(b.mean()))
    np.testing.assert_allclose(bag.predict(X), np.mean([y[r.sample].mean()
                                                        for r in bag.history]))


class _Mean:
    def __init__(self, value):
        self.value = value

    def predict(self, X):
        return np.full(len(X), self.value)


def test_bagging_and_forest_are_reproducible_from_the_seed():
    X, y = data.moons(60, seed=6)
    for fit in (lambda s: E.bagging(X, y, n_estimators=4, seed=s),
                lambda s: E.random_forest(X, y, n_estimators=4, max_features=1, seed=s)):
        a, b, c = fit(9), fit(9), fit(10)
        for ra, rb in zip(a.history, b.history, strict=True):
            np.testing.assert_array_equal(ra.sample, rb.sample)
            np.testing.assert_array_equal(ra.learner.feature, rb.learner.feature)
        assert a.oob_error == b.oob_error
        assert not np.array_equal(a.history[0].sample, c.history[0].sample)


def test_staged_predict_ends_at_predict():
    X, y = data.moons(60, seed=7)
    forest = E.random_forest(X, y, n_estimators=7, seed=0)
    stages = forest.staged_predict(X)
    assert stages.shape == (7, 60)
    np.testing.assert_array_equal(stages[-1], forest.predict(X))
    np.testing.assert_array_equal(stages[0], forest.learners[0].predict(X))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: E.adaboost([[0.0], [1]], [0, 1], rounds=3), "labels must be -1 or \\+1"),
        (lambda: E.adaboost([[0.0], [1]], [-1, 1], rounds=0), "rounds must be"),
        (lambda: T.decision_stump([[0.0], [1]], [-1, 1], [0.5, -0.5]), "non-negative"),
        (lambda: T.decision_stump([[0.0], [1]], [-1, 1], [0.0, 0.0]), "all zero"),
        (lambda: T.decision_tree([[0.0], [1]], [0, 1], max_depth=0), "max_depth"),
        (lambda: T.decision_tree([[0.0], [1]], [0, 1], criterion="mse"), "criterion"),
        (lambda: T.decision_tree([[0.0], [1]], [0, 1], max_features=3), "max_features"),
        (lambda: E.bagging([[0.0], [1]], [0, 1], n_estimators=0), "n_estimators"),
        (lambda: E.bagging([[0.0], [1]], [0, 1, 1], n_estimators=2), "must match"),
        (lambda: E.alpha_from_error(1.0), "in \\[0, 1\\)"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_reweight_on_the_toy_example_gives_one_fourteenth_and_one_sixth():
    y = np.array([1.0] * 5 + [-1.0] * 5)
    h = y.copy()
    h[:3] *= -1  # three mistakes: ε₁ = 0.3
    D, Z = E.reweight(np.full(10, 0.1), y, h, E.alpha_from_error(0.3))
    np.testing.assert_allclose(D, [1 / 6] * 3 + [1 / 14] * 7, rtol=1e-12)
    assert Z == pytest.approx(2 * np.sqrt(0.3 * 0.7), rel=1e-12)


def test_plurality_vote_counts_and_breaks_ties_to_the_smallest_label():
    votes = np.array([[2, 1, 5, 0], [2, 3, 4, 1], [1, 3, 4, 1], [1, 1, 5, 0]])
    np.testing.assert_array_equal(E.plurality_vote(votes), [1, 1, 4, 0])


# --- review round 8: edge cases of the library ------------------------------------------------


@pytest.mark.parametrize("fit", [
    lambda X, y: E.bagging(X, y, n_estimators=1000, seed=5),
    lambda X, y: E.random_forest(X, y, n_estimators=1000, seed=0),
])
def test_a_replicate_holding_every_example_adds_no_out_of_bag_vote(fit):
    """Seeds on which one of 1000 replicates of the 10 toy points holds all 10 (m!/mᵐ ≈ 3.6e-4
    each): that learner votes for no example, and the OOB figures equal the hand count over
    the replicates (:func:`E.oob_error`, which skips learners with no out-of-bag example)."""
    X, y = data.boosting_toy()
    bag = fit(X, y)
    samples = np.array([r.sample for r in bag.history])
    assert any(len(np.unique(row)) == len(y) for row in samples)  # the case this test is about
    predictions = np.array([h.predict(X) for h in bag.learners])
    assert bag.oob_error == pytest.approx(E.oob_error(predictions, samples, y), abs=1e-15)


def test_a_single_example_has_no_out_of_bag_prediction():
    bag = E.bagging([[1.0]], [1], n_estimators=3, seed=0)
    assert np.isnan(bag.oob_error) and np.isnan(bag.oob_prediction).all()
    np.testing.assert_array_equal(bag.predict([[0.0], [2.0]]), [1, 1])


def test_adjacent_doubles_are_split_although_their_midpoint_rounds_up():
    """0.3 and 0.1 + 0.2 are adjacent doubles whose midpoint rounds to 0.1 + 0.2, so the rule
    x <= midpoint would not separate them: the stump, AdaBoost and the tree must."""
    X, y = np.array([[0.3], [0.1 + 0.2]]), np.array([-1.0, 1.0])
    assert (0.3 + (0.1 + 0.2)) / 2 == 0.1 + 0.2  # the premise: the midpoint rounds up
    stump = T.decision_stump(X, y)
    assert stump.error == 0 and stump.threshold == 0.3
    np.testing.assert_array_equal(stump.predict(X), y)
    assert "weighted error 0" in E.adaboost(X, y, rounds=5).stopped
    np.testing.assert_array_equal(T.decision_tree(X, y).predict(X), y)
    rng = np.random.default_rng(0)
    X_more = np.vstack([rng.normal(size=(20, 1)), X])
    y_more = np.concatenate([rng.choice([-1.0, 1.0], 20), y])
    bag = E.bagging(X_more, y_more, n_estimators=20, seed=0)  # once: RecursionError
    assert all(np.array_equal(h.predict(X_more[r.sample]), y_more[r.sample])
               for r, h in zip(bag.history, bag.learners, strict=True))


@examples(60)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_stump_and_tree_split_columns_of_neighbouring_doubles(m, seed):
    """Columns of values a few ulps apart (half their neighbouring pairs have a midpoint that
    rounds up): the stump reaches the oracle's minimum and a full tree fits every point."""
    rng = np.random.default_rng(seed)
    base = rng.choice([0.3, 1.0, -2.5, 1e6])
    X = np.column_stack([base + rng.integers(0, 6, m) * np.spacing(base) for _ in range(2)])
    y = rng.choice([-1.0, 1.0], m)
    w = rng.random(m) + 0.01
    # the grader's oracle: thresholds at the data values themselves, so x > v needs no rounding
    assert T.decision_stump(X, y, w).error == pytest.approx(
        every_stump_error(X, y, w).min(), abs=1e-12)
    distinct = np.unique(X, axis=0, return_inverse=True)[1].ravel()
    consistent = all(len(np.unique(y[distinct == k])) == 1 for k in np.unique(distinct))
    if consistent:  # no two equal rows with different labels: a full tree fits them all
        np.testing.assert_array_equal(T.decision_tree(X, y).predict(X), y)


def test_a_node_whose_drawn_features_are_all_constant_draws_another():
    """Feature 0 is constant, feature 1 separates the labels. With max_features = 1 a root that
    draws feature 0 must draw again (as scikit-learn's splitter does), so every tree is fully
    grown and fits the training points, whatever the seed (3 of seeds 0-9 once made a single
    leaf with training error 1/2)."""
    X = np.array([[0.0, i] for i in range(6)])
    y = np.array([1, 1, 1, -1, -1, -1])
    for seed in range(10):
        tree = T.decision_tree(X, y, max_features=1, seed=seed)
        np.testing.assert_array_equal(tree.predict(X), y)
        assert set(tree.feature[tree.feature >= 0]) == {1}


def test_a_run_that_kept_no_round_has_no_h_to_predict_with():
    """The 4-point XOR: every stump errs on half, so round 1 is discarded. The staged scores
    are then an empty (0, n) array, and predict says why it cannot vote."""
    X = np.array([[0.0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([-1.0, 1, 1, -1])
    run = E.adaboost(X, y, rounds=5)
    assert run.history == ()
    assert run.staged_scores(X).shape == (0, 4)
    with pytest.raises(ValueError, match="no round.*weighted error 0.500"):
        run.predict(X)
