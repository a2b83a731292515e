"""Tests for mllib.perceptron.

Every expected value comes from an oracle that does not use mllib: a number printed in one of the
course texts (typed in as a literal), scikit-learn's Perceptron, a plain loop written here from
the text's pseudocode, or an inequality from a text's proof. Sources, in shared/seeds/:
MMDS ch. 12 (003) Example 12.4 and Figs. 12.6-12.9; CS446 slides (001) for Novikoff's bound, the
noise bound and the voted/averaged perceptron; Gupta (000) for the margin-1 perceptron;
Balcan (004) for the margin perceptron.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, target
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from property_support import examples
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron

from mllib.data import noisy, separable
from mllib.perceptron import (
    add_threshold_feature,
    geometric_margin,
    gupta_bound,
    gupta_perceptron,
    margin_deficit,
    margin_perceptron,
    margin_perceptron_bound,
    mistake_bound,
    noise_bound,
    perceptron,
    predict,
    predict_averaged,
    predict_voted,
    radius,
    voted_perceptron,
    winnow,
    winnow_update,
)

# The spam data of MMDS Fig. 12.6, typed from the book (rows a-f; and, viagra, the, of, nigeria).
FIG_12_6_X = [
    [1, 1, 0, 1, 1],
    [0, 0, 1, 1, 0],
    [0, 1, 1, 0, 0],
    [1, 0, 0, 1, 0],
    [1, 0, 1, 0, 1],
    [1, 0, 1, 1, 0],
]
FIG_12_6_Y = [+1, -1, +1, -1, +1, -1]
ROW = {letter: i for i, letter in enumerate("abcdef")}

# Floating-point slack for the proof inequalities: they hold in exact arithmetic.
TOL = 1e-9

FAST = examples(80)


# --- Independent oracles --------------------------------------------------------------------


def loop_perceptron(X, y, *, rule, eta=1.0, max_epochs=100):
    """A plain row-by-row loop: the pseudocode of MMDS §12.2.1 with a pluggable update test.

    ``rule(y_i * (w @ x_i), w)`` says whether to update. Returns (indices, epochs, w, converged)
    where ``indices`` lists (epoch, row) of every update.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1])
    updates = []
    for epoch in range(1, max_epochs + 1):
        clean = True
        for i in range(len(y)):
            if rule(y[i] * float(np.dot(w, X[i])), w):
                w = w + eta * y[i] * X[i]
                updates.append((epoch, i))
                clean = False
        if clean:
            return updates, epoch, w, True
    return updates, max_epochs, w, False


def classic_rule(margin, w):
    return margin <= 0  # MMDS: a score of 0 is wrong whatever the label


def gupta_rule(margin, w):
    return margin < 1


def balcan_rule(gamma):
    def rule(margin, w):
        norm = np.linalg.norm(w)
        return norm == 0 or margin / norm < gamma / 2

    return rule


def cs446_voted(X, y, epochs):
    """The CS446 slide "Regularization via averaged perceptron", written as a direct loop.

    v_1 = 0, c_1 = 0; for each example y' = sign(v_k·x) (sign(0) = 0, so a tie is a mistake);
    if y' = y then c_k += 1, else v_{k+1} = v_k + y·x, c_{k+1} = 1.
    """
    X = np.asarray(X, dtype=float)
    v = [np.zeros(X.shape[1])]
    c = [0]
    for _ in range(epochs):
        for x_i, y_i in zip(X, y, strict=True):
            if np.sign(v[-1] @ x_i) == y_i:
                c[-1] += 1
            else:
                v.append(v[-1] + y_i * x_i)
                c.append(1)
    return np.array(v), np.array(c, dtype=float)


def weights_after_each_epoch(result, d, epochs):
    """mllib's w at the end of epochs 1..epochs, read off the history (carried forward)."""
    w = np.zeros(d)
    per_epoch = []
    updates = iter(result.history)
    pending = next(updates, None)
    for epoch in range(1, epochs + 1):
        while pending is not None and pending.epoch == epoch:
            w = pending.w
            pending = next(updates, None)
        per_epoch.append(w.copy())
    return per_epoch


# --- Hypothesis strategies ------------------------------------------------------------------


@st.composite
def generated_separable(draw, max_n=60, max_d=5):
    """A sample from mllib.data.separable with drawn size, dimension, margin and seed."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    margin = draw(st.floats(0.1, 0.6))
    seed = draw(st.integers(0, 2**32 - 1))
    return separable(n, d, margin=margin, radius=1.0, seed=seed)


@st.composite
def labelled_points(draw, max_n=30, max_d=4):
    """Arbitrary points labelled by a drawn unit vector u, keeping those with |u·x| >= a drawn γ.

    Coordinates are multiples of 1/4 in [-2, 2], so every dot product with the data is exact and
    score ties (w·x = 0) really happen.
    """
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(np.int64, (n, d), elements=st.integers(-8, 8))) / 4
    u = draw(arrays(np.float64, d, elements=st.floats(-1, 1)))
    norm = np.linalg.norm(u)
    assume(norm > 1e-3)
    u = u / norm
    gamma = draw(st.floats(0.1, 1.0))
    scores = X @ u
    keep = np.abs(scores) >= gamma
    assume(keep.any())
    return X[keep], np.where(scores[keep] > 0, 1.0, -1.0), u


any_separable = st.one_of(generated_separable(), labelled_points())


# --- MMDS worked examples -------------------------------------------------------------------


def test_reproduces_mmds_example_12_4():
    # MMDS Example 12.4, eta = 1/2: (row, w·x before the update, w after the update).
    book = [
        ("a", 0.0, [0.5, 0.5, 0.0, 0.5, 0.5]),
        ("b", 0.5, [0.5, 0.5, -0.5, 0.0, 0.5]),
        ("c", 0.0, [0.5, 1.0, 0.0, 0.0, 0.5]),
        # Erratum: the book prints w·d = [1/2, 1, 0, 0, 1/2]·[1, 0, 0, 1, 0] = 1, but the product
        # is 1/2. Either way d (y = -1) is misclassified and the update the book shows follows.
        ("d", 0.5, [0.0, 1.0, 0.0, -0.5, 0.5]),
    ]
    result = perceptron(FIG_12_6_X, FIG_12_6_Y, eta=0.5)
    assert len(result.history) == len(book)
    for update, (row, score, w) in zip(result.history, book, strict=True):
        assert update.epoch == 1
        assert update.index == ROW[row]
        assert update.score == score
        assert update.w.tolist() == w
        assert update.norm_sq == sum(v * v for v in w)
        assert update.alignment is None
    # e (w·e = 1/2) and f (w·f = -1/2) are right, and a second pass changes nothing.
    assert result.w.tolist() == [0.0, 1.0, 0.0, -0.5, 0.5]
    assert result.converged is True
    assert result.mistakes == 4
    assert result.epochs == 2


def test_example_12_4_final_w_classifies_every_row_as_the_book_says():
    w = np.array([0.0, 1.0, 0.0, -0.5, 0.5])
    scores = np.asarray(FIG_12_6_X, dtype=float) @ w
    assert scores[ROW["e"]] == 0.5 and scores[ROW["f"]] == -0.5  # the book's two dot products
    assert predict(w, FIG_12_6_X).tolist() == FIG_12_6_Y


# MMDS Fig. 12.7: x, y, w·x, OK?, then w after the visit (None where the figure leaves the row
# blank because w did not change).
FIG_12_7 = [
    ("a", +1, 4, False, [2, 2, 1, 2, 2]),
    ("b", -1, 3, True, None),
    ("c", +1, 3, False, [2, 4, 2, 2, 2]),
    ("d", -1, 4, True, None),
    ("e", +1, 6, True, None),
    ("f", -1, 6, False, [1, 4, 1, 1, 2]),
    ("a", +1, 8, True, None),
    ("b", -1, 2, True, None),
    ("c", +1, 5, False, [1, 8, 2, 1, 2]),
    ("d", -1, 2, True, None),
    ("e", +1, 5, False, [2, 8, 4, 1, 4]),
    ("f", -1, 7, False, [1, 8, 2, 0.5, 4]),
]


def test_reproduces_mmds_fig_12_7_winnow_row_by_row():
    result = winnow(FIG_12_6_X, FIG_12_6_Y, theta=5)
    assert result.theta == 5
    w_book = [1, 1, 1, 1, 1]  # the figure's first line
    for k, (visit, (row, label, score, ok, w_after)) in enumerate(
        zip(result.history, FIG_12_7, strict=False)
    ):
        w_book = w_book if w_after is None else w_after
        assert visit.epoch == 1 + k // 6
        assert visit.index == ROW[row]
        assert visit.y == label
        assert visit.score == score
        assert visit.correct is ok
        assert visit.w.tolist() == w_book, f"visit {k + 1} ({row})"
    assert result.w.tolist() == [1, 8, 2, 0.5, 4]
    # The figure stops after the 12 visits that change something; the algorithm needs a third,
    # clean pass to know it has converged.
    assert result.mistakes == 6
    assert result.converged is True
    assert result.epochs == 3
    assert len(result.history) == 18
    assert all(visit.correct for visit in result.history[12:])


def test_winnow_default_theta_is_d_as_in_mmds():
    # MMDS §12.2.3: "let the threshold θ equal d"; Fig. 12.7 uses θ = 5 with d = 5.
    default = winnow(FIG_12_6_X, FIG_12_6_Y)
    assert default.theta == 5
    assert default.w.tolist() == [1, 8, 2, 0.5, 4]


# MMDS Fig. 12.9 (the threshold as a sixth weight, data of Fig. 12.8).
FIG_12_9 = [
    ("a", +1, 3, True, None),
    ("b", -1, 1, False, [1, 1, 0.5, 0.5, 1, 2]),
    ("c", +1, -0.5, False, [1, 2, 1, 0.5, 1, 1]),
    ("d", -1, 0.5, False, [0.5, 2, 1, 0.25, 1, 2]),
]


def test_reproduces_mmds_fig_12_9_winnow_with_threshold_feature():
    result = winnow(FIG_12_6_X, FIG_12_6_Y, learn_threshold=True)
    w_book = [1, 1, 1, 1, 1, 1]
    for visit, (row, label, score, ok, w_after) in zip(
        result.history, FIG_12_9, strict=False
    ):
        w_book = w_book if w_after is None else w_after
        assert visit.index == ROW[row]
        assert visit.y == label
        assert visit.score == score
        assert visit.correct is ok
        assert visit.w.tolist() == w_book, row
    # "there are no further changes to the weights"
    assert result.w.tolist() == [0.5, 2, 1, 0.25, 1, 2]
    assert result.theta == 0
    assert result.mistakes == 3
    assert result.converged is True
    assert result.epochs == 2
    assert all(visit.correct for visit in result.history[4:])


def test_winnow_update_follows_fig_12_7_including_the_tie_at_theta():
    a, c = np.array(FIG_12_6_X[ROW["a"]], float), np.array(FIG_12_6_X[ROW["c"]], float)
    w = np.ones(5)
    assert winnow_update(w, a, +1, 5.0).tolist() == [2, 2, 1, 2, 2]  # w·a = 4 < θ: promote
    w = np.array([1.0, 4, 1, 1, 2])
    assert winnow_update(w, c, +1, 5.0).tolist() == [1, 8, 2, 1, 2]  # w·c = 5 = θ is wrong
    assert winnow_update(w, c, -1, 5.0).tolist() == [1, 2, 0.5, 1, 2]  # and wrong for y = -1
    assert winnow_update(w, c, +1, 4.0) is w  # w·c = 5 > 4: unchanged, the same object


def test_winnow_rejects_non_binary_features():
    X = np.array(FIG_12_6_X, dtype=float)
    X[0, 0] = 0.5
    with pytest.raises(ValueError, match="binary"):
        winnow(X, FIG_12_6_Y)
    with pytest.raises(ValueError, match="binary"):
        winnow(2 * np.array(FIG_12_6_X), FIG_12_6_Y)


def test_winnow_rejects_theta_together_with_learn_threshold():
    with pytest.raises(ValueError, match="theta cannot be given"):
        winnow(FIG_12_6_X, FIG_12_6_Y, theta=3, learn_threshold=True)


def test_add_threshold_feature_gives_mmds_fig_12_8():
    fig_12_8 = [row + [-1] for row in FIG_12_6_X]
    assert add_threshold_feature(FIG_12_6_X).tolist() == fig_12_8
    assert add_threshold_feature(FIG_12_6_X, value=1.0)[:, -1].tolist() == [1] * 6


def test_perceptron_on_threshold_feature_learns_a_threshold_that_classifies_every_row():
    result = perceptron(add_threshold_feature(FIG_12_6_X), FIG_12_6_Y, eta=0.5)
    assert result.converged
    w, theta = result.w[:-1], result.w[-1]
    scores = np.asarray(FIG_12_6_X, dtype=float) @ w
    # MMDS §12.2.4: w'·x' > 0 exactly when w·x > θ.
    assert np.all(np.where(scores > theta, 1, -1) == FIG_12_6_Y)


def test_threshold_feature_separates_data_no_separator_through_the_origin_can():
    # On a line, x in {1, 2} is negative and x in {3, 4} positive: every separator through the
    # origin labels all four alike, but w·x > θ with θ in (2w, 3w) separates them.
    X = [[1.0], [2.0], [3.0], [4.0]]
    y = [-1, -1, +1, +1]
    assert perceptron(X, y, max_epochs=50).converged is False
    result = perceptron(add_threshold_feature(X), y, max_epochs=1000)
    assert result.converged
    w, theta = result.w
    assert w > 0 and 2 * w < theta < 3 * w


# --- Agreement with independent implementations ---------------------------------------------


VARIANTS = {
    "classic": (lambda X, y, gamma: perceptron(X, y, max_epochs=50), lambda g: classic_rule),
    "gupta": (lambda X, y, gamma: gupta_perceptron(X, y, max_epochs=50), lambda g: gupta_rule),
    "balcan": (lambda X, y, gamma: margin_perceptron(X, y, margin=gamma, max_epochs=50),
               balcan_rule),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@FAST
@given(data=any_separable, gamma=st.floats(0.05, 0.5))
def test_each_variant_matches_a_plain_loop(variant, data, gamma):
    X, y, _ = data
    train, rule = VARIANTS[variant]
    result = train(X, y, gamma)
    updates, epochs, w, converged = loop_perceptron(X, y, rule=rule(gamma), max_epochs=50)
    assert [(u.epoch, u.index) for u in result.history] == updates
    assert (result.epochs, result.converged, result.mistakes) == (epochs, converged, len(updates))
    np.testing.assert_allclose(result.w, w, rtol=1e-12, atol=1e-12)


def test_long_gaps_between_mistakes_match_a_plain_loop():
    # Thousands of rows between mistakes: exercises the block scoring at its largest blocks.
    X, y, _ = separable(20_000, 3, margin=0.01, seed=7)
    result = perceptron(X, y, max_epochs=20)
    updates, epochs, w, converged = loop_perceptron(X, y, rule=classic_rule, max_epochs=20)
    assert [(u.epoch, u.index) for u in result.history] == updates
    assert (result.epochs, result.converged) == (epochs, converged)
    np.testing.assert_allclose(result.w, w, rtol=1e-12, atol=1e-12)


def sklearn_perceptron(eta0):
    return Perceptron(fit_intercept=False, shuffle=False, tol=None, eta0=eta0)


@pytest.mark.parametrize(
    ("seed", "n", "d", "margin"),
    [(0, 500, 5, 0.05), (1, 1000, 10, 0.02), (2, 2000, 20, 0.02), (3, 1500, 8, 0.01)],
)
def test_weights_after_each_epoch_match_sklearn(seed, n, d, margin):
    X, y, _ = separable(n, d, margin=margin, seed=seed)
    result = perceptron(X, y, max_epochs=500)
    assert result.converged and result.epochs > 2  # several epochs, so the check has teeth
    mine = weights_after_each_epoch(result, d, result.epochs)
    clf = sklearn_perceptron(eta0=1)
    for epoch, w in enumerate(mine, start=1):
        clf.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
        np.testing.assert_allclose(
            clf.coef_.ravel(), w, rtol=1e-12, atol=1e-12, err_msg=f"epoch {epoch}"
        )


def test_eta_one_half_matches_sklearn_eta0_one_half():
    X, y, _ = separable(1000, 6, margin=0.02, seed=11)
    result = perceptron(X, y, eta=0.5, max_epochs=500)
    clf = sklearn_perceptron(eta0=0.5).set_params(max_iter=result.epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    np.testing.assert_allclose(clf.coef_.ravel(), result.w, rtol=1e-12, atol=1e-12)


def test_final_weights_match_sklearn_on_non_separable_data():
    X, y, _ = noisy(800, 5, margin=0.05, flip=0.05, seed=3)
    result = perceptron(X, y, max_epochs=7)
    clf = sklearn_perceptron(eta0=1).set_params(max_iter=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    np.testing.assert_allclose(clf.coef_.ravel(), result.w, rtol=1e-12, atol=1e-12)


# --- Learning rate --------------------------------------------------------------------------


@pytest.mark.parametrize("eta", [0.125, 0.5, 2.0, 16.0, 0.1, 3.0])
def test_eta_from_zero_only_rescales_w(eta):
    for X, y in [
        (FIG_12_6_X, FIG_12_6_Y),
        separable(300, 4, margin=0.05, seed=5)[:2],
        noisy(300, 4, margin=0.05, flip=0.05, seed=5)[:2],
    ]:
        base = perceptron(X, y, eta=1.0, max_epochs=20)
        scaled = perceptron(X, y, eta=eta, max_epochs=20)
        assert scaled.mistakes == base.mistakes
        assert [(u.epoch, u.index) for u in scaled.history] == [
            (u.epoch, u.index) for u in base.history
        ]
        np.testing.assert_allclose(scaled.w, eta * base.w, rtol=1e-12, atol=1e-12)


def test_eta_matters_when_starting_away_from_zero():
    # The invariance needs w0 = 0: from w0 != 0 a larger step overrides the start sooner.
    w0 = [0, 0, 0, 1, 0]
    small = perceptron(FIG_12_6_X, FIG_12_6_Y, eta=0.01, w0=w0, max_epochs=1000)
    large = perceptron(FIG_12_6_X, FIG_12_6_Y, eta=10.0, w0=w0, max_epochs=1000)
    assert small.mistakes != large.mistakes


def test_w0_is_the_starting_point_and_is_not_modified():
    w0 = np.array([0.0, 1.0, 0.0, -0.5, 0.5])  # MMDS's converged w
    result = perceptron(FIG_12_6_X, FIG_12_6_Y, w0=w0)
    assert (result.mistakes, result.epochs, result.converged) == (0, 1, True)
    assert result.w.tolist() == w0.tolist()
    w0 = np.zeros(5)
    perceptron(FIG_12_6_X, FIG_12_6_Y, w0=w0)
    assert w0.tolist() == [0.0] * 5


# --- Mistake bounds and the proof quantities ------------------------------------------------


# The theorems bound mistakes by exact functions of R and γ; the tests compute R and γ in floats.
# Each is a norm or a dot product of d-vectors (u normalised first), exact to a relative few·d·ε
# (ε = 2.2e-16), so a computed bound can sit a few 1e-16 of itself below the exact one: one
# point x = (0.75, 0.75) with u ∥ x gives u·x two ulps above ‖x‖ and (R/γ)² = 1 - 4e-16 for
# the one mistake the theorem allows. Mistakes are integers, so a relative 1e-12 forgives that
# rounding and would hide no real excess below a bound of 1e12.
ROUNDING = 1e-12


def rounded_up(bound):
    """``bound`` with the allowance for the floating-point rounding of R and γ."""
    return bound * (1 + ROUNDING)


def epochs_allowed(bound):
    """Every pass but the last makes a mistake, so at most floor(bound) + 1 passes are needed."""
    return math.floor(rounded_up(bound)) + 1


@FAST
@given(data=any_separable)
def test_perceptron_mistakes_within_novikoff_bound_and_proof_inequalities_hold(data):
    X, y, u = data  # u is a unit separator
    R, gamma = radius(X), geometric_margin(u, X, y)
    bound = mistake_bound(R, gamma)
    result = perceptron(X, y, w_star=u, max_epochs=epochs_allowed(bound))
    target(result.mistakes / bound)  # steer the search towards runs near the bound
    assert result.converged
    assert result.mistakes <= rounded_up(bound)
    for k, update in enumerate(result.history, start=1):
        alignment, norm_sq = float(update.w @ u), float(update.w @ update.w)
        assert update.alignment == pytest.approx(alignment, rel=1e-12, abs=1e-12)
        assert update.norm_sq == pytest.approx(norm_sq, rel=1e-12, abs=1e-12)
        assert alignment >= k * gamma - TOL  # each update adds y·(u·x) >= γ
        assert norm_sq <= k * R**2 + TOL  # each update adds 2y(w·x) + ‖x‖² <= R²


@FAST
@given(data=any_separable)
def test_gupta_perceptron_within_three_over_gamma_squared(data):
    X, y, u = data
    X = X / radius(X)  # Gupta assumes every ‖x‖ <= 1
    gamma = geometric_margin(u, X, y)
    # y·(u·x) >= γ for every example, so w* = u/γ has y·(w*·x) >= 1: it is a vector of the kind
    # Gupta's theorem takes, with ‖w*‖ = 1/γ. Gupta's γ(S) = 1/‖shortest such w*‖ is at least
    # this γ, so 3/γ² is at least his bound 3/γ(S)², and the proof works with this w* directly.
    w_star = u / gamma
    assert np.all(y * (X @ w_star) >= 1 - TOL)
    bound = gupta_bound(gamma)
    result = gupta_perceptron(X, y, w_star=w_star, max_epochs=epochs_allowed(bound))
    target(result.mistakes / bound)  # steer the search towards runs near the bound
    assert result.converged
    assert result.mistakes <= rounded_up(bound)
    # converged means margin 1 on every example; the engine scored rows in blocks, and X @ w
    # here may round differently in the last bits, hence TOL
    assert np.all(y * (X @ result.w) >= 1 - TOL)
    for k, update in enumerate(result.history, start=1):
        assert float(update.w @ w_star) >= k - TOL  # each update adds y·(w*·x) >= 1
        assert float(update.w @ update.w) <= 3 * k + TOL  # each adds 2y(w·x) + ‖x‖² < 2 + 1


@FAST
@given(data=any_separable)
def test_margin_perceptron_within_balcan_bound(data):
    X, y, u = data
    R, gamma = radius(X), geometric_margin(u, X, y)
    bound = margin_perceptron_bound(R, gamma)
    result = margin_perceptron(X, y, margin=gamma, w_star=u, max_epochs=epochs_allowed(bound))
    target(result.mistakes / bound)  # steer the search towards runs near the bound
    assert result.converged
    assert result.mistakes <= rounded_up(bound)
    w = result.w
    # out of the band everywhere, up to the rounding of a recomputed score (TOL)
    assert np.all(y * (X @ w) / np.linalg.norm(w) >= gamma / 2 - TOL)
    for k, update in enumerate(result.history, start=1):
        assert float(update.w @ u) >= k * gamma - TOL
        # Balcan's proof: ‖w‖ grows by at most R, and by at most 3γ/4 once ‖w‖ >= 2R²/γ.
        assert np.linalg.norm(update.w) <= 2 * R**2 / gamma + R + 0.75 * k * gamma + TOL


@FAST
@given(
    n=st.integers(5, 80),
    d=st.integers(1, 5),
    flip=st.floats(0.0, 0.3),
    gamma=st.floats(0.02, 0.8),
    epochs=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_perceptron_within_noise_bound(n, d, flip, gamma, epochs, seed):
    X, y, u = noisy(n, d, margin=0.1, flip=flip, seed=seed)
    R = radius(X)
    # CS446: for any unit u and any γ > 0, at most ((R + D₂)/γ)² mistakes on a sequence, where
    # D₂ is computed over that sequence. Over the first pass the sequence is the data once.
    deficit = margin_deficit(u, X, y, gamma)
    result = perceptron(X, y, w_star=u, max_epochs=epochs)
    first_pass = sum(1 for update in result.history if update.epoch == 1)
    assert first_pass <= noise_bound(R, gamma, deficit)
    # Over T passes the sequence is the data T times, whose D₂ is √T times larger.
    assert result.mistakes <= noise_bound(R, gamma, math.sqrt(epochs) * deficit)


def test_noise_bound_with_one_pass_deficit_does_not_cover_many_passes():
    # A trap the course should warn about: the perceptron keeps erring on flipped labels every
    # pass, so the one-pass D₂ cannot bound the mistakes of a long run.
    X, y, u = noisy(200, 2, margin=0.1, flip=0.1, seed=0)
    gamma = 0.1
    result = perceptron(X, y, max_epochs=100)
    assert result.mistakes > noise_bound(radius(X), gamma, margin_deficit(u, X, y, gamma))


def test_gupta_stops_at_functional_margin_exactly_one():
    # Gupta updates while y·(w·x) < 1: after w = x the margin is ‖x‖² = 1, so it stops.
    result = gupta_perceptron([[0.6, 0.8]], [1])
    assert (result.mistakes, result.epochs, result.converged) == (1, 2, True)
    assert result.w.tolist() == [0.6, 0.8]


def test_margin_perceptron_band_is_open_at_half_gamma():
    # Balcan: a margin mistake is y·(w·x)/‖w‖ < γ/2. The first update makes w = (1, 0); the second
    # point then sits exactly γ/2 = 0.5 from the hyperplane, which is not a margin mistake.
    result = margin_perceptron([[1.0, 0.0], [0.5, 1.0]], [1, 1], margin=1.0)
    assert [u.index for u in result.history] == [0]
    assert (result.mistakes, result.epochs, result.converged) == (1, 2, True)
    # With γ slightly larger the second point is inside the band and forces an update.
    assert margin_perceptron([[1.0, 0.0], [0.5, 1.0]], [1, 1], margin=1.01).mistakes > 1


def test_margin_deficit_by_hand():
    # u = e1, γ = 1: margins 2, 0.5, -1 fall short by 0, 0.5, 2, so D₂ = √(0.25 + 4).
    X = [[2.0, 0.0], [0.5, 3.0], [1.0, 1.0]]
    y = [1, 1, -1]
    assert margin_deficit([3.0, 0.0], X, y, 1.0) == pytest.approx(math.sqrt(4.25))
    assert margin_deficit([1.0, 0.0], [[2.0, 0.0]], [1], 1.0) == 0


def test_geometric_margin_and_radius_by_hand():
    X = [[3.0, 4.0], [0.0, -1.0], [-2.0, 0.0]]
    y = [1, -1, -1]
    assert radius(X) == 5.0
    # w = (1, 1)/√2 scaled by 10: margins 7/√2, 1/√2, 2/√2.
    assert geometric_margin([10.0, 10.0], X, y) == pytest.approx(1 / math.sqrt(2))
    assert geometric_margin([-1.0, -1.0], X, y) == pytest.approx(-7 / math.sqrt(2))


def test_bounds_by_hand():
    assert mistake_bound(2, 0.5) == 16
    assert mistake_bound(1, 0.1) == pytest.approx(100)
    assert margin_perceptron_bound(2, 0.5) == 8 * 16 + 4 * 4
    assert margin_perceptron_bound(1, 1) == 12
    assert gupta_bound(0.5) == 12
    assert gupta_bound(1) == 3
    assert noise_bound(2, 0.5, 0) == 16
    assert noise_bound(2, 0.5, 1) == 36
    assert noise_bound(1, 0.25, 1) == 64


# --- Non-separable data ---------------------------------------------------------------------


def test_non_separable_data_never_converges():
    # x and -x with the same label: no w has y·(w·x) > 0 on both.
    X = [[1.0, 2.0], [-1.0, -2.0]]
    result = perceptron(X, [1, 1], max_epochs=9)
    assert result.converged is False
    assert result.epochs == 9
    assert result.mistakes >= 9
    # MMDS §12.2.2 / CS446 cycling theorem: on integer data the weights repeat.
    pairs = zip(result.history, result.history[2:], strict=False)
    assert any(np.array_equal(a.w, b.w) for a, b in pairs)


def test_noisy_data_does_not_converge():
    X, y, _ = noisy(300, 3, margin=0.1, flip=0.1, seed=4)
    result = perceptron(X, y, max_epochs=30)
    assert result.converged is False
    assert result.epochs == 30
    assert result.mistakes > 30
    assert {u.epoch for u in result.history} == set(range(1, 31))


# --- Voted and averaged perceptron ----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "epochs"),
    [
        ((FIG_12_6_X, FIG_12_6_Y), 3),
        (separable(200, 3, margin=0.05, seed=1)[:2], 10),  # converges before the last epoch
        (noisy(150, 3, margin=0.05, flip=0.1, seed=2)[:2], 5),  # mistakes in every epoch
    ],
)
def test_voted_perceptron_matches_the_cs446_loop(data, epochs):
    X, y = np.asarray(data[0], dtype=float), np.asarray(data[1], dtype=float)
    result = voted_perceptron(X, y, epochs=epochs)
    v, c = cs446_voted(X, y, epochs)
    np.testing.assert_allclose(result.weights, v, rtol=1e-12, atol=1e-12)
    assert result.counts.tolist() == c.tolist()
    assert result.counts.sum() == epochs * len(y)
    np.testing.assert_allclose(result.averaged, c @ v, rtol=1e-12, atol=1e-12)

    queries = np.vstack([X, np.random.default_rng(0).normal(size=(50, X.shape[1]))])
    votes = np.sign(queries @ v.T) @ c
    # The slide's outer sign is undefined at 0; mllib predicts -1 there, as for a score of 0.
    assert predict_voted(result, queries).tolist() == np.where(votes > 0, 1.0, -1.0).tolist()
    averaged_scores = queries @ (c @ v)
    assert predict_averaged(result, queries).tolist() == (
        np.where(averaged_scores > 0, 1.0, -1.0).tolist()
    )


def test_voted_perceptron_on_mmds_by_hand():
    # The hypotheses are 0 and the four w's of Example 12.4 (η = 1, so doubled). v1 = 0 errs on a
    # at once (c = 0); each next one errs on the next row (c = 1); the last gets the mistake
    # on d plus e, f and two clean passes: 1 + 2 + 12 = 15 of the 3 × 6 = 18 visits.
    result = voted_perceptron(FIG_12_6_X, FIG_12_6_Y, epochs=3)
    assert result.counts.tolist() == [0, 1, 1, 1, 15]
    assert result.weights.tolist() == [
        [0, 0, 0, 0, 0],
        [1, 1, 0, 1, 1],
        [1, 1, -1, 0, 1],
        [1, 2, 0, 0, 1],
        [0, 2, 0, -1, 1],
    ]
    assert result.averaged.tolist() == [3, 34, -1, -14, 18]


def test_predict_scores_zero_as_minus_one():
    assert predict([1.0, -1.0], [[1.0, 1.0], [2.0, 1.0], [0.0, 1.0]]).tolist() == [-1, 1, -1]


# --- Bad input ------------------------------------------------------------------------------

X_OK = np.array(FIG_12_6_X, dtype=float)
Y_OK = np.array(FIG_12_6_Y, dtype=float)
W_OK = np.ones(5)

# Every public function that takes a labelled sample, as f(X, y).
SAMPLE_FUNCTIONS = {
    "perceptron": perceptron,
    "gupta_perceptron": gupta_perceptron,
    "margin_perceptron": lambda X, y: margin_perceptron(X, y, margin=0.1),
    "voted_perceptron": voted_perceptron,
    "winnow": winnow,
    "geometric_margin": lambda X, y: geometric_margin(np.ones(np.shape(X)[-1]), X, y),
    "margin_deficit": lambda X, y: margin_deficit(np.ones(np.shape(X)[-1]), X, y, 0.1),
}
# Every public function that takes X alone, as f(X).
MATRIX_FUNCTIONS = {
    "radius": radius,
    "add_threshold_feature": add_threshold_feature,
    "predict": lambda X: predict(np.ones(np.shape(X)[-1]), X),
    "predict_voted": lambda X: predict_voted(voted_perceptron(X_OK, Y_OK), X),
    "predict_averaged": lambda X: predict_averaged(voted_perceptron(X_OK, Y_OK), X),
}

NAN_X = X_OK.copy()
NAN_X[2, 3] = np.nan
INF_X = X_OK.copy()
INF_X[0, 0] = np.inf


@pytest.mark.parametrize("name", SAMPLE_FUNCTIONS)
@pytest.mark.parametrize(
    ("X", "y", "message"),
    [
        (X_OK, (Y_OK + 1) / 2, r"labels must be -1 or \+1.*found \[0\.0\]"),
        (X_OK, [1, -1, 1, -1, 1, 2], r"labels must be -1 or \+1.*found \[2\.0\]"),
        (X_OK, [1, -1, 1, -1, 1, np.nan], r"labels must be -1 or \+1"),
        (X_OK, ["spam", "ham", "spam", "ham", "spam", "ham"], r"labels must be the numbers"),
        (X_OK, Y_OK[:5], r"X has 6 rows but y has 5 labels"),
        (X_OK, Y_OK[:, None], r"y must be a 1-D vector"),
        (NAN_X, Y_OK, r"X contains NaN or inf"),
        (INF_X, Y_OK, r"X contains NaN or inf"),
        (np.empty((0, 5)), [], r"X is empty"),
        (X_OK[0], Y_OK[:1], r"X must be a 2-D array"),
        (X_OK[None], Y_OK, r"X must be a 2-D array"),
    ],
    ids=["y01", "y2", "ynan", "ystr", "short-y", "2d-y", "nan", "inf", "empty", "1d", "3d"],
)
def test_sample_functions_reject_bad_samples(name, X, y, message):
    with pytest.raises(ValueError, match=message):
        SAMPLE_FUNCTIONS[name](X, y)


@pytest.mark.parametrize("name", MATRIX_FUNCTIONS)
@pytest.mark.parametrize(
    ("X", "message"),
    [
        (NAN_X, r"X contains NaN or inf"),
        (INF_X, r"X contains NaN or inf"),
        (np.empty((0, 5)), r"X is empty"),
        (X_OK[0], r"X must be a 2-D array"),
    ],
    ids=["nan", "inf", "empty", "1d"],
)
def test_matrix_functions_reject_bad_matrices(name, X, message):
    with pytest.raises(ValueError, match=message):
        MATRIX_FUNCTIONS[name](X)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: perceptron(X_OK, Y_OK, eta=0), r"eta must be a positive number"),
        (lambda: perceptron(X_OK, Y_OK, eta=-0.5), r"eta must be a positive number"),
        (lambda: perceptron(X_OK, Y_OK, eta=np.nan), r"eta must be a positive number"),
        (lambda: perceptron(X_OK, Y_OK, max_epochs=0), r"max_epochs must be a whole number"),
        (lambda: perceptron(X_OK, Y_OK, max_epochs=2.5), r"max_epochs must be a whole number"),
        (lambda: perceptron(X_OK, Y_OK, max_epochs=True), r"max_epochs must be a whole number"),
        (lambda: gupta_perceptron(X_OK, Y_OK, max_epochs=0), r"max_epochs must be a whole"),
        (lambda: margin_perceptron(X_OK, Y_OK, margin=0.1, max_epochs=0), r"max_epochs must"),
        (lambda: winnow(X_OK, Y_OK, max_epochs=0), r"max_epochs must be a whole number"),
        (lambda: voted_perceptron(X_OK, Y_OK, epochs=0), r"epochs must be a whole number"),
        (lambda: perceptron(X_OK, Y_OK, w0=[0, 0, 0]), r"w0 has length 3, but the data has 5"),
        (lambda: perceptron(X_OK, Y_OK, w0=np.zeros((5, 1))), r"w0 must be a 1-D vector"),
        (lambda: perceptron(X_OK, Y_OK, w0=[0, 0, np.nan, 0, 0]), r"w0 contains NaN or inf"),
        (lambda: perceptron(X_OK, Y_OK, w_star=[1, 0]), r"w_star has length 2, but the data"),
        (lambda: gupta_perceptron(X_OK, Y_OK, w_star=[1, 0]), r"w_star has length 2"),
        (lambda: margin_perceptron(X_OK, Y_OK, margin=0), r"margin must be a positive number"),
        (lambda: margin_perceptron(X_OK, Y_OK, margin=-1), r"margin must be a positive number"),
        (lambda: geometric_margin(np.zeros(5), X_OK, Y_OK), r"zero vector"),
        (lambda: geometric_margin([1, 1], X_OK, Y_OK), r"w has length 2, but the data has 5"),
        (lambda: margin_deficit(np.zeros(5), X_OK, Y_OK, 0.1), r"zero vector"),
        (lambda: margin_deficit(W_OK, X_OK, Y_OK, 0), r"margin must be a positive number"),
        (lambda: predict([1, 1], X_OK), r"w has length 2, but the data has 5"),
        (lambda: mistake_bound(0, 0.5), r"radius must be a positive number"),
        (lambda: mistake_bound(1, 0), r"margin must be a positive number"),
        (lambda: mistake_bound(1, np.inf), r"margin must be a positive number"),
        (lambda: gupta_bound(-0.1), r"margin must be a positive number"),
        (lambda: margin_perceptron_bound(-1, 0.5), r"radius must be a positive number"),
        (lambda: margin_perceptron_bound(1, 0), r"margin must be a positive number"),
        (lambda: noise_bound(1, 0.5, -1), r"deficit \(D₂\) must be a number >= 0"),
        (lambda: noise_bound(1, 0.5, np.nan), r"deficit \(D₂\) must be a number >= 0"),
        (lambda: noise_bound(0, 0.5, 1), r"radius must be a positive number"),
        (lambda: winnow(X_OK, Y_OK, theta=2, learn_threshold=True), r"theta cannot be given"),
    ],
)
def test_parameters_are_checked(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("theta", [np.nan, np.inf])
def test_winnow_rejects_a_non_finite_theta(theta):
    with pytest.raises(ValueError, match="theta"):
        winnow(X_OK, Y_OK, theta=theta)


def test_add_threshold_feature_rejects_a_non_finite_value():
    with pytest.raises(ValueError, match="value"):
        add_threshold_feature(X_OK, value=np.nan)
