"""Nearest neighbours and kernel regression: MMDS §12.4's numbers, scikit-learn, properties."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors

from mllib import data
from mllib import neighbors as N


def test_reproduces_mmds_fig_12_24_value_by_value():
    """Fig. 12.24 (q = 3.5): lines (3) and (4) as printed fractions, the sums 51.23 and 9.29 and
    the estimate 5.51, each to the printed digits."""
    x, y = data.mmds_peak()
    np.testing.assert_array_equal(x, [1, 2, 3, 4, 5, 6, 7])  # line (1)
    np.testing.assert_array_equal(y, [1, 2, 4, 8, 4, 2, 1])  # line (2)
    w = N.kernel_weights(x, 3.5)
    printed_w = [Fraction(4, 25), Fraction(4, 9), 4, 4, Fraction(4, 9), Fraction(4, 25),
                 Fraction(4, 49)]
    printed_wy = [Fraction(4, 25), Fraction(8, 9), 16, 32, Fraction(16, 9), Fraction(8, 25),
                  Fraction(4, 49)]
    # 1/(x - 3.5)^2 is one rounding away from the fraction: relative error within 4 ulps.
    np.testing.assert_allclose(w, [float(f) for f in printed_w], rtol=1e-15)
    np.testing.assert_allclose(w * y, [float(f) for f in printed_wy], rtol=1e-15)
    assert round(float((w * y).sum()), 2) == 51.23
    assert round(float(w.sum()), 2) == 9.29
    estimate = N.kernel_regression(x, y, [3.5])[0]
    assert round(float(estimate), 2) == 5.51
    assert float(estimate) == pytest.approx(float(sum(printed_wy) / sum(printed_w)), rel=1e-14)


# MMDS Example 12.12, worked by hand from the rules' definitions (Figs. 12.22-12.23).
QUERIES = [0.0, 0.5, 1.25, 2.5, 3.0, 3.75, 4.0, 6.6, 8.0]
BY_HAND = {
    # Ties in distance (2.5 is as near 2 as 3) go to the earlier training point.
    "nearest neighbour": [1, 1, 1, 2, 4, 8, 8, 1, 1],
    # At 3.0 the second neighbour is a tie between 2 and 4: the earlier, 2, is taken.
    "average of 2 nearest": [1.5, 1.5, 1.5, 3, 3, 6, 6, 1.5, 1.5],
    # Between neighbours: linear interpolation. On a training point: its label. Outside the
    # data: a weighted *average* of (1, 1) and (2, 2), e.g. (4 - 3q)/(3 - 2q) at q < 1.
    "weighted average of 2 nearest": [4 / 3, 1.25, 1.25, 3, 4, 7, 8, 1.4, 4 / 3],
    "average of 3 nearest": [7 / 3, 7 / 3, 7 / 3, 7 / 3, 14 / 3, 16 / 3, 16 / 3, 7 / 3, 7 / 3],
}


@pytest.mark.parametrize("rule", N.EX_12_12_RULES)
def test_example_12_12_rules_on_the_books_data(rule):
    x, y = data.mmds_peak()
    np.testing.assert_allclose(N.one_d_rule(x, y, QUERIES, rule), BY_HAND[rule], rtol=1e-12)


@examples(60)
@given(st.lists(st.integers(-50, 50), min_size=2, max_size=12, unique=True),
       st.floats(0.01, 0.99), st.data())
def test_weighted_two_nn_is_linear_interpolation_between_its_neighbours(xs, t, draw):
    """For a query strictly between two consecutive training points whose two nearest
    neighbours are exactly those points, the 1/distance rule is MMDS's interpolation formula."""
    x = np.sort(np.array(xs, dtype=float))
    y = np.array(draw.draw(st.lists(st.floats(-10, 10), min_size=len(x), max_size=len(x))))
    i = draw.draw(st.integers(0, len(x) - 2))
    x1, x2 = x[i], x[i + 1]
    q = x1 + t * (x2 - x1)
    others = np.delete(x, [i, i + 1])
    if len(others) and np.min(np.abs(others - q)) <= max(q - x1, x2 - q):
        return  # a third point is as near as a bracketing one: not the book's case
    got = N.one_d_rule(x, y, [q], "weighted average of 2 nearest")[0]
    line = (y[i] * (x2 - q) + y[i + 1] * (q - x1)) / (x2 - x1)
    assert got == pytest.approx(line, rel=1e-9, abs=1e-9)


def test_weighted_rule_does_not_extrapolate_beyond_the_data():
    """The book calls the rule an extrapolation for 0 < q < 1; it is an average, so it stays
    between the two labels, 1 and 2, and tends to 4/3 (not the line's 0) at q = 0."""
    x, y = data.mmds_peak()
    q = np.linspace(-5, 0.99, 50)
    got = N.one_d_rule(x, y, q, "weighted average of 2 nearest")
    assert np.all((got > 1) & (got < 2))
    np.testing.assert_allclose(got, (4 - 3 * q) / (3 - 2 * q), rtol=1e-12)


def _without_distance_ties(seed, n=200, q=80, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(q, d)), rng


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k", [1, 4, 7])
def test_knn_classifier_matches_scikit_learn(weights, k):
    X, Q, rng = _without_distance_ties(k)
    y = rng.integers(0, 3, len(X))  # three classes, so vote ties occur (smallest label wins)
    ours = N.knn_predict(X, y, Q, k=k, weights=weights)
    theirs = KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours, theirs.predict(Q))


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_knn_regressor_matches_scikit_learn(weights, metric):
    X, Q, rng = _without_distance_ties(11)
    y = rng.normal(size=len(X))
    ours = N.knn_predict(X, y, Q, k=5, weights=weights, task="regress", metric=metric)
    theirs = KNeighborsRegressor(n_neighbors=5, weights=weights, algorithm="brute",
                                 metric=metric).fit(X, y)
    # The same neighbours averaged in another order: agreement to rounding.
    np.testing.assert_allclose(ours, theirs.predict(Q), rtol=1e-10, atol=1e-12)


def test_jaccard_neighbours_match_scikit_learn():
    rng = np.random.default_rng(5)
    X = (rng.random((60, 12)) < 0.4).astype(float)
    Q = (rng.random((10, 12)) < 0.4).astype(float)
    D = N.pairwise_distances(Q, X, "jaccard")
    theirs = NearestNeighbors(metric="jaccard").fit(X.astype(bool))
    their_d, _ = theirs.kneighbors(Q.astype(bool), n_neighbors=60)
    np.testing.assert_allclose(np.sort(D, axis=1), their_d, atol=1e-12)


def test_blocks_do_not_change_the_answer(monkeypatch):
    X, Q, rng = _without_distance_ties(3, n=50, q=37)
    y = rng.normal(size=50)
    whole = N.knn_predict(X, y, Q, k=3, task="regress")
    monkeypatch.setattr(N, "BLOCK_ENTRIES", 50 * 4)  # four queries per block
    np.testing.assert_array_equal(N.knn_predict(X, y, Q, k=3, task="regress"), whole)


@examples(60)
@given(st.integers(1, 40), st.integers(1, 48), st.integers(0, 2**32 - 1), st.data())
def test_tiled_selection_equals_a_stable_sort_for_any_tiling(rows, n, seed, draw):
    """The k smallest per row, searched tile by tile below a bound, are those of a stable sort
    of the whole row (a theorem: every entry at or below the final k-th is looked at). Entries
    from a handful of integers: ties everywhere, also across tiles and at the k-th place."""
    rng = np.random.default_rng(seed)
    D = rng.integers(-3, 4, (rows, n)).astype(float)
    k = draw.draw(st.integers(1, n))
    width = draw.draw(st.integers(1, n))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(N, "GROUP", draw.draw(st.integers(1, 4)))
        tiles = ((start, D[:, start : start + width].copy()) for start in range(0, n, width))
        values, columns = N._k_smallest(tiles, rows, n, k)
    expected = np.argsort(D, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(columns, expected)
    np.testing.assert_array_equal(values, np.take_along_axis(D, expected, axis=1))


@examples(30)
@given(st.integers(1, 30), st.integers(1, 3), st.integers(0, 2**32 - 1), st.data())
def test_neighbours_with_tiny_tiles_equal_a_stable_sort(n, d, seed, draw):
    """kneighbors through many tiles and blocks (a few columns and queries each), on integer
    points with many exactly tied distances, which must go to the earlier row."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, d)).astype(float)
    Q = rng.integers(-2, 3, (9, d)).astype(float)
    k = draw.draw(st.integers(1, n))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(N, "TILE_COLUMNS", draw.draw(st.integers(1, n)))
        patch.setattr(N, "BLOCK_ENTRIES", draw.draw(st.integers(1, 3 * n)))
        patch.setattr(N, "GROUP", draw.draw(st.integers(1, 3)))
        for metric in ("euclidean", "manhattan"):
            _, idx = N.kneighbors(X, Q, k=k, metric=metric)
            D = N.pairwise_distances(Q, X, metric)
            np.testing.assert_array_equal(idx, np.argsort(D, axis=1, kind="stable")[:, :k])


def test_distance_ties_go_to_training_order_and_vote_ties_to_the_smallest_label():
    X = np.array([[1.0], [-1.0], [2.0], [-2.0]])
    _, idx = N.kneighbors(X, [[0.0]], k=3)
    np.testing.assert_array_equal(idx, [[0, 1, 2]])  # 1 and -1 tie: row 0 first
    y = np.array([5, 3, 9, 9])
    assert N.knn_predict(X, y, [[0.0]], k=2)[0] == 3  # one vote each for 5 and 3


@examples(60)
@given(st.integers(1, 30), st.integers(1, 3), st.integers(0, 2**32 - 1), st.data())
def test_neighbours_equal_a_stable_sort_even_with_many_ties(n, d, seed, draw):
    """Integer points: many exactly tied distances, which must go to the earlier row."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, d)).astype(float)
    Q = rng.integers(-2, 3, (7, d)).astype(float)
    k = draw.draw(st.integers(1, n))
    for metric in ("euclidean", "manhattan"):
        distances, idx = N.kneighbors(X, Q, k=k, metric=metric)
        D = N.pairwise_distances(Q, X, metric)
        np.testing.assert_array_equal(idx, np.argsort(D, axis=1, kind="stable")[:, :k])
        np.testing.assert_allclose(distances, np.take_along_axis(D, idx, axis=1), atol=1e-12)


def test_query_on_a_training_point_takes_its_label():
    x, y = data.mmds_peak()
    np.testing.assert_array_equal(N.kernel_regression(x, y, x), y)
    np.testing.assert_array_equal(N.knn_predict(x[:, None], y, x[:, None], k=3,
                                                weights="distance", task="regress"), y)
    # Two training points at the query: the mean of their labels.
    assert N.kernel_regression([1.0, 1.0, 3.0], [2.0, 4.0, 10.0], [1.0])[0] == 3.0


def test_kernel_regression_tends_to_the_label_near_a_training_point():
    """MMDS "Problems in the Limit": as q -> x, the estimate -> the label of x."""
    x, y = data.mmds_peak()
    near = N.kernel_regression(x, y, [4 - 1e-6, 4 + 1e-6])
    np.testing.assert_allclose(near, 8.0, rtol=1e-9)


def test_kernel_regression_stays_finite_where_the_plain_weights_overflow():
    """Within 1e-154 of a point 1/(x - q)^2 overflows (the plain ratio is inf/inf = nan); the
    scaled weights give the limit, the point's label. Below ~1e-162 (x - q)^2 underflows to 0
    and the point counts as coinciding: the same answer."""
    x, y = data.mmds_peak()
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        plain = 1.0 / (x - (4 + 1e-155)) ** 2
        assert np.isnan((plain @ y) / plain.sum())  # the failure the scaling avoids
    for q in (4 + 1e-155, 4 - 1e-160, 4 + 1e-170, 4 + 1e-300):
        assert N.kernel_regression(x, y, [q])[0] == 8.0


def test_kernel_regression_keeps_its_digits_where_squares_are_subnormal_or_sigma_extreme():
    """Reviews r7/r8: scaling by min (x − q)² lost digits where that square is subnormal
    (0.3571 where the formula gives 5/17 = 0.2941), σ = 1e-170 gave nan (σ² = 0) and
    σ = 1e200 raised OverflowError (σ**2). Distances, not squares, keep the formula's value."""
    # weights 1/(2e-162)², 1/(8e-162)² and 1: in exact arithmetic (5/16 + tiny)/(17/16 + tiny)
    x, y, q = [0.0, 1e-161, 1.0], [0.0, 5.0, 1.0], 2e-162
    w = [1 / (Fraction(xi) - Fraction(q)) ** 2 for xi in x]
    exact = sum(wi * Fraction(yi) for wi, yi in zip(w, y, strict=True)) / sum(w)
    assert N.kernel_regression(x, y, [q])[0] == pytest.approx(float(exact), rel=1e-12)
    x_peak, y_peak = data.mmds_peak()
    # σ → 0: the nearest point's label (x = 3 for q = 3.4); σ → ∞: the mean label, 22/7
    tiny = N.kernel_regression(x_peak, y_peak, [3.4], kernel="gaussian", sigma=1e-170)[0]
    huge = N.kernel_regression(x_peak, y_peak, [3.4], kernel="gaussian", sigma=1e200)[0]
    assert tiny == 4.0 and huge == pytest.approx(22 / 7, rel=1e-15)
    np.testing.assert_allclose(N.kernel_weights(x_peak, 3.4, kernel="gaussian", sigma=1e200), 1.0)


def test_gaussian_kernel_regression_against_the_formula_and_far_away():
    x, y = data.mmds_peak()
    q = np.array([0.3, 3.5, 6.1])
    w = np.exp(-((x[None] - q[:, None]) ** 2) / 1.5**2)
    np.testing.assert_allclose(N.kernel_regression(x, y, q, kernel="gaussian", sigma=1.5),
                               (w @ y) / w.sum(axis=1), rtol=1e-12)
    # Beyond ~27 sigma every weight underflows (exp(-27.3**2) < 5e-324), so the plain ratio
    # is 0/0; the scaled weights give the limit, the nearest point's label.
    assert np.exp(-27.3**2) == 0.0
    q_far = x.max() + 27.3 * 0.5
    with np.errstate(invalid="ignore"):
        plain = np.exp(-((x - q_far) ** 2) / 0.5**2)
        assert np.isnan((plain @ y) / plain.sum())
    assert N.kernel_regression(x, y, [q_far], kernel="gaussian", sigma=0.5)[0] == 1.0
    np.testing.assert_allclose(N.kernel_regression(x, y, [1000.0], kernel="gaussian",
                                                   sigma=0.5), [1.0])


def test_curse_of_dimensionality_shrinks_the_relative_contrast():
    c = N.distance_concentration([1, 10, 100, 1000], n=300, queries=10, seed=0)
    assert np.all(np.diff(c.contrast) < 0)
    assert c.contrast[-1] < 0.3 < 10 < c.contrast[0]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2], [[0.5]], k=0), "k must be"),
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2], [[0.5]], k=3), "larger than"),
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2], [[0.5]], k=1, metric="chebyshev"),
         "unknown metric"),
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2, 3], [[0.5]], k=1), "must match"),
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2], [[0.5, 1]], k=1), "features"),
        (lambda: N.knn_predict([[0.0], [1.0]], [1, 2], [[0.5]], k=1, weights="gauss"),
         "unknown weights"),
        (lambda: N.kernel_regression([1, 2], [1, 2], [1.5], kernel="gaussian"), "sigma"),
        (lambda: N.kernel_regression([1, 2], [1], [1.5]), "must match"),
        (lambda: N.pairwise_distances([[0.0, 0]], [[1.0, 1]], "cosine"), "zero vector"),
        (lambda: N.pairwise_distances([[0.5]], [[1.0]], "jaccard"), "0/1"),
        (lambda: N.one_d_rule([1, 2], [1, 2], [1], "spline"), "unknown rule"),
        (lambda: N.distance_concentration([2], queries=1), "queries must be at least 2"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_signed_weights_give_the_books_straight_line():
    """MMDS's formula with the signed weight 1/(q − x₁) < 0 for q < x₁ is the line through the
    two points: at q = 0 it gives 0, where the true 1/distance rule gives 4/3."""
    q = np.linspace(-3, 0.99, 40)
    np.testing.assert_allclose(N.signed_two_point_rule(1, 1, 2, 2, q), q, atol=1e-12)
    np.testing.assert_allclose(N.signed_two_point_rule(3, 4, 4, 8, [2.0, 3.0, 4.0, 5.0]),
                               [0.0, 4.0, 8.0, 12.0], atol=1e-12)


@examples(40)
@given(st.lists(st.floats(-20, 20), min_size=4, max_size=4), st.integers(0, 2**31))
def test_bisector_side_is_half_the_difference_of_squared_distances(ab, seed):
    a, b = np.array(ab[:2]), np.array(ab[2:])
    Q = np.random.default_rng(seed).normal(scale=10, size=(30, 2))
    expected = (np.sum((Q - a) ** 2, axis=1) - np.sum((Q - b) ** 2, axis=1)) / 2
    # a difference of squares of size up to ~2000: 1e-9 relative to that scale
    np.testing.assert_allclose(N.bisector_side(a, b, Q), expected, atol=1e-9 * 2000)


def test_minhash_agreement_estimates_jaccard_similarity():
    """P[one minhash agrees] = Jaccard similarity (MMDS §3.3.3): over 2000 hashes the share of
    agreements is within 4 binomial standard deviations of it."""
    rng = np.random.default_rng(3)
    S = (rng.random((2, 80)) < 0.4).astype(float)
    S[1, :40] = S[0, :40]
    sim = 1 - N.pairwise_distances(S[:1], S[1:], "jaccard")[0, 0]
    sig = N.minhash_signatures(S, 2000, seed=5)
    share = np.mean(sig[0] == sig[1])
    assert abs(share - sim) < 4 * np.sqrt(sim * (1 - sim) / 2000)


def test_lsh_candidates_are_the_sets_agreeing_on_a_whole_band():
    """Brute force over every pair against the bucket lookup."""
    rng = np.random.default_rng(8)
    A, B = rng.integers(0, 3, (40, 12)), rng.integers(0, 3, (15, 12))
    for bands in (1, 2, 3, 4, 6, 12):
        r = 12 // bands
        same = (A[None] == B[:, None]).reshape(15, 40, bands, r).all(axis=3).any(axis=2)
        got = N.lsh_candidates(A, B, bands)
        for row, cand in zip(same, got, strict=True):
            np.testing.assert_array_equal(cand, np.flatnonzero(row))


def test_lsh_probability_is_the_s_curve():
    assert N.lsh_probability(0.8, 20, 5) == pytest.approx(1 - (1 - 0.8**5) ** 20)
    assert N.lsh_probability(0.0, 20, 5) == 0 and N.lsh_probability(1.0, 20, 5) == 1


@pytest.mark.parametrize("call, message", [
    (lambda: N.signed_two_point_rule(1, 1, 1, 2, [0.5]), "must differ"),
    (lambda: N.bisector_side([0, 0], [1, 1], [[1, 2, 3]]), "columns"),
    (lambda: N.minhash_signatures([[0, 0], [1, 0]], 3), "at least one 1"),
    (lambda: N.lsh_candidates(np.zeros((2, 6)), np.zeros((1, 6)), 4), "must divide"),
    (lambda: N.kernel_regression([], [], [1.5]), "x is empty"),
    (lambda: N.kernel_regression([1.0], [2.0], [1.5], kernel="gaussian", sigma=0.0), "sigma"),
    (lambda: N.kernel_regression([1.0], [2.0], [1.5], kernel="gaussian", sigma=-1.0), "sigma"),
])
def test_new_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e6])
def test_euclidean_distances_of_nearby_points_match_scipy(scale):
    """Near-coincident points far from the origin: ‖q‖² + ‖x‖² − 2q·x alone loses every digit
    (its square root can be off by more than the distance itself); the distances must match
    scipy's cdist, which takes the differences, to a relative 5e-12 (about d·1e-12, the bound
    CANCELLATION gives, d = 5)."""

    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 5)) * scale
    Q = np.vstack([X[:20] + rng.normal(size=(20, 5)) * scale * 1e-9, X[20:25],
                   rng.normal(size=(5, 5)) * scale])
    expected = cdist(Q, X)
    D = N.pairwise_distances(Q, X)
    np.testing.assert_allclose(D, expected, rtol=5e-12, atol=0)
    distances, indices = N.kneighbors(X, Q, k=3)
    np.testing.assert_allclose(distances, np.take_along_axis(expected, indices, axis=1),
                               rtol=5e-12, atol=0)
    assert np.all(np.diff(distances, axis=1) >= 0)  # still nearest first after recomputing
    np.testing.assert_array_equal(indices[:25, 0], np.arange(25))  # each copy finds its point
    np.testing.assert_array_equal(distances[20:25, 0], 0.0)  # exact copies: exactly 0


def test_voronoi_neighbours_are_scipys_ridges():
    from scipy.spatial import Voronoi

    rng = np.random.default_rng(12)
    for n in (3, 4, 7, 25, 60):
        P = rng.normal(size=(n, 2))
        ridges = {tuple(sorted(map(int, p))) for p in Voronoi(P).ridge_points}
        walls = N.voronoi_neighbours(P)
        assert set(walls) == ridges and walls == sorted(walls)
        assert len(walls) <= 3 * n - 6  # a planar graph
    collinear = np.column_stack([np.arange(5.0), np.zeros(5)])
    assert N.voronoi_neighbours(collinear) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # on one circle
    assert N.voronoi_neighbours(square) == [(0, 1), (0, 2), (1, 3), (2, 3)]  # no corner walls
    with pytest.raises(ValueError, match="2 columns"):
        N.voronoi_neighbours(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="repeated points"):
        N.voronoi_neighbours(np.zeros((3, 2)))


@pytest.mark.parametrize("offset", [1e6, 1e7, 1e9])
@pytest.mark.parametrize("far_cluster", [False, True])
def test_neighbours_of_offset_data_match_a_direct_oracle(offset, far_cluster):
    """Review r10-09: 1e6 + N(0, I) points (UTM metres, timestamps) ranked by ‖x‖² − 2q·x in
    raw coordinates lost their digits (12 of 200 nearest neighbours wrong at 1e6, 185 at 1e7).
    With ``far_cluster`` half the training points sit near the origin, so centring on their
    mean alone would not save the digits. The oracle is scipy's cdist, which takes the
    differences, sorted stably: q − x is exact for such close floats (Sterbenz), so its
    distances are correct to a few ulps, far below the gaps between the neighbours (about 1e-4
    here), and the rankings must agree exactly."""
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(0)
    X = offset + rng.normal(size=(2000, 2))
    if far_cluster:
        X[::2] -= offset
    Q = offset + rng.normal(size=(200, 2))
    expected_d = cdist(Q, X)
    expected = np.argsort(expected_d, axis=1, kind="stable")[:, :3]
    distances, indices = N.kneighbors(X, Q, k=3)
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_allclose(distances, np.take_along_axis(expected_d, expected, axis=1),
                               rtol=1e-13, atol=0)  # both from the differences: a few ulps
    theirs = NearestNeighbors(n_neighbors=1, algorithm="kd_tree").fit(X)
    np.testing.assert_array_equal(indices[:, :1], theirs.kneighbors(Q)[1])
