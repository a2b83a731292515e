"""The nearest-neighbour walk-through's widget logic, tables and figures, without a browser."""

import json

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, png_pixels
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from prose_support import SOLUTIONS, markdown_text
from scipy import stats
from scipy.spatial.distance import cdist

from mllib import data
from mllib import neighbors as N
from mllib.demos import explore
from mllib.demos import neighbors as demo
from mllib.plotting import alt_text, described


def test_fig_12_24_table_prints_the_books_lines_and_sums():
    table = demo.fig_12_24_table().splitlines()
    assert table[4] == "| (3) | wᵢ | 4/25 | 4/9 | 4 | 4 | 4/9 | 4/25 | 4/49 | Σ = 9.29 |"
    assert table[5] == "| (4) | wᵢ yᵢ | 4/25 | 8/9 | 16 | 32 | 16/9 | 8/25 | 4/49 | Σ = 51.23 |"
    assert table[-1] == "Estimate at q = 3.5: 51.23 / 9.29 = 5.51"
    # Review r9-09 (trivia): on a training point it raised OverflowError from the fractions.
    for q in (3, 4.0):
        with pytest.raises(ValueError, match="is a training point"):
            demo.fig_12_24_table(q)


def test_rules_figure_draws_each_rule_and_the_books_line():
    fig = demo.show_rules()
    x, y = data.mmds_peak()
    for ax, rule in zip(fig.axes, N.EX_12_12_RULES, strict=True):
        q, estimate = ax.get_lines()[0].get_data()
        np.testing.assert_allclose(estimate, N.one_d_rule(x, y, q, rule))
    q, line = fig.axes[2].get_lines()[2].get_data()
    # the straight line through (1, 1) and (2, 2), from the signed-weight formula (rounding only)
    np.testing.assert_allclose(line, q, atol=1e-12)


def test_voronoi_colours_every_cell_by_its_dogs_breed():
    fig = demo.show_voronoi()
    mesh = fig.axes[0].collections[0]
    X, y, _ = data.dogs()
    assert set(np.unique(mesh.get_array())) == set(y)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_one_nn_and_distance_weights_fit_the_training_set(weights):
    r = demo.knn_regions(1, weights)
    assert r.training_error == 0
    assert 0 < r.validation_error < 0.5


def test_moving_k_redraws_smoother_regions():
    """Larger k: fewer label changes along the grid rows (a smoother boundary)."""
    changes = [np.sum(np.diff(demo.knn_regions(k).labels, axis=1) != 0) for k in (1, 15, 45)]
    assert changes[0] > changes[1] > changes[2]


def test_kernel_widget_draws_the_gaussian_fit_for_sigma():
    fig = demo.show_kernel(0.8)
    q, fitted = fig.axes[0].get_lines()[0].get_data()
    x, y = data.mmds_peak()
    np.testing.assert_allclose(fitted, N.kernel_regression(x, y, q, kernel="gaussian",
                                                           sigma=0.8))
    assert "σ = 0.80" in fig.axes[0].get_title()


def test_concentration_table_shrinks_with_d():
    rows = demo.concentration_table().splitlines()[2:]
    medians = [float(r.split(" | ")[-2]) for r in rows]  # the median (far − near)/near
    assert medians == sorted(medians, reverse=True)


def test_concentration_ratio_columns_are_per_query_medians_and_quartiles():
    # §6's table: the ratio columns are the median and quartiles over the 20 queries of each
    # query's own ratio, recomputed here from the same draws, not the ratio of the mean distances
    # (at d = 2, (0.986 − 0.021)/0.021 ≈ 46 against a median of 42.6).
    rng = np.random.default_rng(0)
    c = N.distance_concentration(demo.CURSE_DIMS, n=500, queries=20, seed=0)
    for i, d in enumerate(demo.CURSE_DIMS):
        D = cdist(rng.random((20, d)), rng.random((500, d)))
        ratios = (D.max(axis=1) - D.min(axis=1)) / D.min(axis=1)
        np.testing.assert_allclose([c.contrast[i], *c.contrast_quartiles[i]],
                                   [stats.scoreatpercentile(ratios, p) for p in (50, 25, 75)],
                                   rtol=1e-9)
    table = demo.concentration_table()
    header = table.splitlines()[0]
    assert "median over queries of (far − near)/near" in header
    assert "its quartiles over queries" in header
    assert all("±" not in row.split(" | ", 3)[-1] for row in table.splitlines())
    q1, q3 = c.contrast_quartiles[-1]
    assert f"| {c.contrast[-1]:.3f} | {q1:.3f} to {q3:.3f} |" in table


def test_concentration_mean_distances_carry_their_standard_errors():
    # Review r8: §6's mean-distance columns are estimates from 20 queries, so each is printed
    # ± s/√20, recomputed here (scipy's sem) from the same draws.
    rng = np.random.default_rng(0)
    c = N.distance_concentration(demo.CURSE_DIMS, n=500, queries=20, seed=0)
    rows = demo.concentration_table().splitlines()[2:]
    for i, d in enumerate(demo.CURSE_DIMS):
        D = cdist(rng.random((20, d)), rng.random((500, d)))
        near, far = D.min(axis=1), D.max(axis=1)
        np.testing.assert_allclose([c.nearest[i], c.farthest[i]], [near.mean(), far.mean()],
                                   rtol=1e-12)
        np.testing.assert_allclose([c.nearest_se[i], c.farthest_se[i]],
                                   [stats.sem(near), stats.sem(far)], rtol=1e-9)
        cells = rows[i].split(" | ")
        assert cells[1] == f"{near.mean():#.3g} ± {stats.sem(near):#.2g}"
        assert cells[2] == f"{far.mean():#.3g} ± {stats.sem(far):#.2g}"
    assert "mean distances over the 20 queries ± their standard errors" in _neighbors_text()


def test_the_mean_ratio_in_one_dimension_estimates_nothing():
    """§6: 'in one dimension ... the ratio's expected value is infinite ... a sample mean would
    jump from seed to seed' (why the table prints medians). Over seeds 0-9 the mean of the 20
    per-query ratios at d = 1 spreads over a factor above 5, the medians over far less."""
    means, medians = [], []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        D = cdist(rng.random((20, 1)), rng.random((500, 1)))
        ratios = (D.max(axis=1) - D.min(axis=1)) / D.min(axis=1)
        means.append(ratios.mean())
        medians.append(np.median(ratios))
    assert max(means) / min(means) > 5
    assert max(medians) / min(medians) < max(means) / min(means)


def test_widgets_rerun_their_frames(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    box = explore(demo.show_knn, k=ipywidgets.IntSlider(value=1, min=1, max=41, step=2),
                  weights=ipywidgets.Dropdown(options=["uniform", "distance"]))
    box.children[0].value = 9
    assert "k = 9" in box.result.figure.axes[0].get_title()
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_kernel, sigma=ipywidgets.FloatSlider(value=0.5))
    assert "σ = 0.50" in frame.axes[0].get_title()


# --- §1 corrections and §3 claims of the walk-through ----------------------------------------


def _scipy_breed(points):
    """1-NN breed from scipy's k-d tree: an oracle independent of mllib.neighbors."""
    from scipy.spatial import cKDTree

    X, y, _ = data.dogs()
    return y[cKDTree(X).query(np.atleast_2d(points))[1]]


@pytest.mark.parametrize("breed, other", [(1, 2), (2, 1)])
def test_dachshund_and_beagle_regions_are_not_convex(breed, other):
    """MMDS Ex. 12.11, footnote 2: two points of one breed's region whose midpoint is the other
    breed's, for the Dachshunds and for the Beagles (checked with scipy's tree)."""
    w = demo.nonconvex_witness(breed)
    assert w is not None and w.midpoint_breed == other
    np.testing.assert_array_equal(_scipy_breed([w.p1, w.p2]), [breed, breed])
    assert _scipy_breed(w.midpoint)[0] == other
    np.testing.assert_allclose(w.midpoint, (w.p1 + w.p2) / 2)
    assert w.depth > 0.5  # visibly inside the regions, in inches/pounds: not a grid artefact


def test_the_chihuahua_region_is_not_convex_by_a_pair_beyond_the_window():
    """Review r10-09: no grid pair of the Chihuahuas' region inside the picture's window has a
    midpoint outside it, but the region is not convex: the wider search finds a pair beyond the
    window (checked with scipy's tree, by clear margins), and the printout and the alt text say
    so instead of leaving it open. The reviewers' witnesses agree: (−6, 13) and (16, 10);
    (17, 9.5) and (−18, 15)."""
    assert demo.nonconvex_witness(0) is None
    w = demo.nonconvex_witness(0, margin=demo.WIDE_MARGIN)
    assert w is not None and w.midpoint_breed == 1 and w.depth > 0.2
    np.testing.assert_array_equal(_scipy_breed([w.p1, w.p2, w.midpoint]), [0, 0, 1])
    gx, gy, _ = demo._dog_grid(41)
    outside = [not (gx.min() <= p[0] <= gx.max() and gy.min() <= p[1] <= gy.max())
               for p in (w.p1, w.p2)]
    assert any(outside)
    X, y, breeds = data.dogs()
    for p1, p2 in (([-6.0, 13.0], [16.0, 10.0]), ([17.0, 9.5], [-18.0, 15.0])):
        points = np.array([p1, p2, np.add(p1, p2) / 2])
        assert list(_scipy_breed(points)) == [0, 0, 1]  # two Chihuahuas, a Dachshund midway
        d = np.sort(cdist(points, X), axis=1)  # decided by clear margins, not by rounding
        assert np.all(d[:, 1] - d[:, 0] > 0.2)
    described_pair = (f"({w.p1[0]:.1f}, {w.p1[1]:.1f}) and ({w.p2[0]:.1f}, {w.p2[1]:.1f}), "
                      f"midpoint ({w.midpoint[0]:.1f}, {w.midpoint[1]:.1f}) a Dachshund")
    assert ("Chihuahua's is not convex either, by a pair beyond the window (" + described_pair
            in alt_text(demo.show_voronoi()))
    code = json.loads((SOLUTIONS / "09_neighbors/neighbors_walkthrough.ipynb").read_text())
    printed = "".join("".join(c["source"]) for c in code["cells"] if c["cell_type"] == "code")
    assert "margin=demo.WIDE_MARGIN), \"beyond the window\"" in printed
    assert "may still be" not in printed


def test_the_dachshunds_midpoint_is_a_beagle():
    """The prose: a Beagle is closer to the middle between the two Dachshunds than they are."""
    X, y, _ = data.dogs()
    assert _scipy_breed(X[y == 1].mean(axis=0))[0] == 2


def test_voronoi_walls_are_scipys_ridges_and_fewer_than_3n_minus_6():
    """The pairs whose cells touch in the picture are Voronoi neighbours (scipy's ridges), and
    the printed count obeys the planar bound 3n − 6 against n(n − 1)/2 bisectors."""
    from scipy.spatial import Voronoi

    X, _, _ = data.dogs()
    ridges = {tuple(sorted(map(int, p))) for p in Voronoi(X).ridge_points}
    walls = demo.voronoi_walls()
    assert walls <= ridges
    # The printed counts: 21 bisectors; the whole diagram's walls (the count 3n − 6 bounds)
    # are scipy's ridges, 13 <= 15; the picture's window shows only some of them.
    full = N.voronoi_neighbours(X)
    assert set(full) == ridges
    assert len(full) <= 3 * len(X) - 6 < len(X) * (len(X) - 1) // 2
    assert (len(X) * (len(X) - 1) // 2, len(full), 3 * len(X) - 6) == (21, 13, 15)
    assert walls < set(full) and len(walls) == 9


def test_voronoi_figure_marks_each_witness():
    fig = demo.show_voronoi()
    crosses = [ln for ln in fig.axes[0].get_lines() if ln.get_marker() == "x"]
    assert len(crosses) == 2
    mids = {tuple(np.round(ln.get_xydata()[0], 6)) for ln in crosses}
    assert mids == {tuple(np.round(demo.nonconvex_witness(b).midpoint, 6)) for b in (1, 2)}


def test_book_line_in_the_rules_figure_is_the_signed_weight_formula():
    """The dashed line is computed with the signed weight 1/(q − 1), and is the line y = q; the
    positive-weight rule is (4 − 3q)/(3 − 2q), 4/3 at q = 0, and bends up left of 1 and right
    of 7 (the prose)."""
    x, y = data.mmds_peak()
    q = np.linspace(0, 0.99, 30)
    np.testing.assert_allclose(demo.book_extrapolation(q), q, atol=1e-12)
    rule = "weighted average of 2 nearest"
    left = N.one_d_rule(x, y, q, rule)
    np.testing.assert_allclose(left, (4 - 3 * q) / (3 - 2 * q), rtol=1e-12)
    assert left[0] == pytest.approx(4 / 3)
    assert np.all(np.diff(left) < 0)  # rising as q moves left, away from x = 1
    right = N.one_d_rule(x, y, np.linspace(7.01, 8, 30), rule)
    assert np.all(np.diff(right) > 0)
    # Review r9-09: the erratum quotes the book's two phrases that disagree (MMDS §12.4.3,
    # Example 12.12 rule 3, word for word) instead of crediting it with a line it never names.
    text = _neighbors_text()
    for quote in ('"the same weights make sense, and the resulting estimate is an',
                  '"in inverse proportion to their distance"'):
        assert quote in text
    assert "the extrapolation the text describes" not in text


def test_tie_claims_under_the_rules_table():
    """q = 2.5, nearest neighbour: the tie goes to 2 (label 2); q = 3, average of 2: (4 + 2)/2."""
    x, y = data.mmds_peak()
    assert N.one_d_rule(x, y, [2.5], "nearest neighbour")[0] == 2
    assert N.one_d_rule(x, y, [3.0], "average of 2 nearest")[0] == 3


def test_query_on_a_training_point_returns_its_label():
    x, y = data.mmds_peak()
    got = N.kernel_regression(x, y, [3.5, 4.0, 4.001])
    assert got[1] == 8 and got[2] == pytest.approx(8, abs=1e-3) and got[0] == pytest.approx(5.51,
                                                                                          abs=5e-3)


def test_gaussian_widget_small_sigma_steps_large_sigma_flattens_to_the_mean():
    """The prose: small σ approaches the 1-NN step function (away from the midpoints where the
    step jumps); the curve's spread shrinks as σ grows and closes in on 22/7."""
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, 401)
    away = np.min(np.abs(q[:, None] - (x[:-1] + 0.5)), axis=1) > 0.1
    sharp = N.kernel_regression(x, y, q, kernel="gaussian", sigma=0.1)
    np.testing.assert_allclose(sharp[away], N.one_d_rule(x, y, q, "nearest neighbour")[away],
                               atol=1e-3)
    sigmas = np.arange(0.1, 4.0001, 0.05)
    curves = [N.kernel_regression(x, y, q, kernel="gaussian", sigma=s) for s in sigmas]
    spread = np.array([c.max() - c.min() for c in curves])
    assert np.all(np.diff(spread[sigmas >= 0.5]) < 0)
    assert curves[-1].min() < 22 / 7 < curves[-1].max()
    assert np.ptp(N.kernel_regression(x, y, q, kernel="gaussian", sigma=100.0)) < 0.01


def test_moons_classes_are_balanced_75_and_75():
    _, y, *_ = demo._moons_split()
    assert np.sum(y == 1) == np.sum(y == -1) == 75


def test_too_large_a_k_washes_it_out_with_uniform_weights():
    """The printed claim: with uniform weights the validation error roughly doubles from its best
    odd k to k = n − 1 = 149; with 1/distance weights it moves by less than 0.02."""
    uniform, distance = demo.wash_out("uniform"), demo.wash_out("distance")
    assert uniform.largest_k == distance.largest_k == 149
    assert 1.7 < uniform.largest_error / uniform.best_error < 2.5
    assert uniform.best_k < 75
    assert distance.largest_error - distance.best_error < 0.02
    # §5: "one split of 250 points (a standard error of about 0.02 each) ... the doubling is
    # far beyond that noise": binomial s.e. of the best error, and the doubling > 4 s.e.
    n_validation = len(demo._moons_split()[3])
    assert n_validation == 250
    se = np.sqrt(uniform.best_error * (1 - uniform.best_error) / n_validation)
    assert 0.015 < se < 0.025
    assert uniform.largest_error - uniform.best_error > 4 * se


def test_distance_weights_keep_training_error_zero_for_every_k():
    ks, train, _ = demo.error_curve("distance")
    assert ks[-1] == 149 and np.all(train == 0)


def test_curse_sentence_gives_the_seed_sweep_the_table_and_ten_per_cent():
    """'In one dimension the median query's nearest point is 660 to 2,100 times closer than its
    farthest over seeds 0–9 (2,102 in the table); in a thousand dimensions the two differ by
    about ten per cent.' Review r9-09: seed 0 alone (2,102) had been called 'thousands'; r11-09:
    the sentence now names the table's own seed-0 figure beside the sweep."""
    tables = [N.distance_concentration(demo.CURSE_DIMS, n=500, queries=20, seed=seed)
              for seed in range(10)]
    one_d = [t.contrast[0] for t in tables]
    assert (round(min(one_d), -1), round(max(one_d), -2)) == (660, 2100)
    assert round(one_d[0]) == 2102  # the table prints seed 0
    assert all(0.09 < t.contrast[-1] < 0.13 for t in tables)  # "about ten per cent"
    assert ("660 to 2,100 times closer than its farthest over seeds 0–9 (2,102 in the table)"
            in _neighbors_text())


def test_lsh_table_trade_off():
    """More rows per band: less of the data scanned and the neighbour found less often; at r = 3
    under 1% is scanned and at least 95% of the neighbours are found; each observed share is
    within 0.1 of the S-curve's prediction (100 queries: 2 binomial s.d. ≤ 0.1)."""
    table = demo.lsh_table()
    scanned = [t.scanned for t in table]
    found = [t.found for t in table]
    assert scanned == sorted(scanned, reverse=True) and found == sorted(found, reverse=True)
    r3 = next(t for t in table if t.rows == 3)
    assert r3.scanned < 0.01 and r3.found >= 0.95
    assert table[0].found == 1 and table[-1].found < 0.2
    # "One row per band (r = 1) ...: the neighbour is found for every query here (a miss has
    # probability at most (1 − 0.6)^60 ≈ 1e-24), but so are most other sets" (review r10-09)
    assert table[0].rows == 1 and table[0].bands == 60 and table[0].scanned > 0.5
    S, Q = demo.lsh_sets()
    nearest_similarity = 1 - N.pairwise_distances(Q, S, "jaccard").min(axis=1)
    assert nearest_similarity.min() >= 0.6
    assert ((1 - nearest_similarity) ** 60).max() <= 0.4**60  # a band is one minhash: P(miss)
    assert round(float(np.log10(0.4**60))) == -24
    assert ("the neighbour is found for every query here (a miss has probability at most "
            "$(1 - 0.6)^{60} \\approx 10^{-24}$)") in _neighbors_text()
    assert all(abs(t.found - t.predicted) < 0.1 for t in table)


def test_lsh_table_prints_a_binomial_standard_error_larger_than_the_gaps_at_r_4_and_5():
    """Cell 36: 'found' is a share of 100 queries, printed ± √(p(1 − p)/100); at r = 4 and
    r = 5 its gap to the prediction is smaller than that standard error."""
    table, printed = demo.lsh_table(), demo.lsh_markdown()
    for t in table:
        assert t.queries == 100
        se = stats.binom(t.queries, t.found).std() / t.queries  # scipy's binomial s.d.
        assert t.found_se == pytest.approx(se, rel=1e-12)
        if 0 < t.found < 1:
            assert f"{t.found:.2f} ± {se:.2f}" in printed
    for t in (t for t in table if t.rows in (4, 5)):
        assert abs(t.found - t.predicted) == pytest.approx(0.02, abs=0.005)  # "by 0.02"
        assert abs(t.found - t.predicted) < t.found_se


def test_no_miss_in_100_queries_still_allows_a_miss_rate_of_3_percent():
    # §7: "0 misses in 100 queries still allow a miss rate of up to 3 % (the rule of three, a
    # 95 % bound)": the exact bound solves (1 - q)^100 = 0.05, q = 2.95 %, and 3/100 ≈ it
    exact = 1 - 0.05 ** (1 / 100)
    assert exact == pytest.approx(3 / 100, abs=0.001)
    assert f"{exact:.2%}" == "2.95%"  # "exactly 2.95 %"
    # The table prints that bound, not a plug-in "± 0.00", where all 100 queries succeed
    # (r = 1 and 2); scipy's Clopper-Pearson interval at 95 % one-sided agrees.
    printed = demo.lsh_markdown()
    assert "± 0.00" not in printed
    perfect = [t for t in demo.lsh_table() if t.found == 1]
    assert [t.rows for t in perfect] == [1, 2]
    lower = stats.beta.ppf(0.05, 100, 1)  # Clopper-Pearson one-sided lower bound at 100/100
    assert lower == pytest.approx(1 - exact, rel=1e-9)
    assert printed.count(f"| 1.00 (≥ {lower:.2f}, 95 %) |") == 2
    none_found = demo.LSHRow(10, 6, 0.0, 0.0, 0.0, 100)  # no hit: the mirror-image bound
    assert none_found.found_text == f"0.00 (≤ {exact:.2f}, 95 %)"


def test_lsh_queries_have_one_clear_neighbour_near_0_6():
    S, Q = demo.lsh_sets()
    sim = np.sort(1 - N.pairwise_distances(Q, S, "jaccard"), axis=1)
    assert np.all((sim[:, -1] > 0.5) & (sim[:, -1] < 0.75))
    assert np.all(sim[:, -2] < 0.3)


def test_categorical_codes():
    """0, 1, 2 puts red twice as far from blue as from green; one-hot puts every pair at √2."""
    numbers, one_hot = demo.categorical_distances()
    assert numbers[0, 2] == pytest.approx(2 * numbers[0, 1])
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(one_hot[off], np.sqrt(2), rtol=1e-12)


# --- §4 every widget over every value its controls allow -------------------------------------


def _values(control):
    """Every value a slider allows (min to max by step) or every option of a dropdown."""
    if isinstance(control, ipywidgets.Dropdown):
        return list(control.options)
    count = int(round((control.max - control.min) / control.step)) + 1
    return [control.min + i * control.step for i in range(count)]


def test_knn_widget_sweeps_every_k_and_weighting(monkeypatch):
    """Every odd k from 1 to 149 with both weightings draws, and each frame's regions and title
    agree with knn_predict on the drawn grid and data."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    controls = demo.knn_controls()
    assert controls["k"].max == 149 and controls["k"].min == 1
    X, y, X_val, y_val, gx, gy = demo._moons_split()
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    for weights in _values(controls["weights"]):
        for k in _values(controls["k"]):
            controls["k"].value, controls["weights"].value = k, weights
            fig = explore(demo.show_knn, **controls)
            r = demo.knn_regions(k, weights)
            title = fig.axes[0].get_title()
            assert f"k = {k}, {weights}" in title
            assert f"validation error {r.validation_error:.2f}" in title
            # the shading covers the axes and every training point (no unshaded strip)
            ax = fig.axes[0]
            assert ax.get_xlim() == (gx.min(), gx.max()) and ax.get_ylim() == (gy.min(), gy.max())
            assert gx.min() < X[:, 0].min() and X[:, 0].max() < gx.max()
            assert gy.min() < X[:, 1].min() and X[:, 1].max() < gy.max()
            if k in (1, 75, 149):
                np.testing.assert_array_equal(
                    r.labels.ravel(), N.knn_predict(X, y, grid, k=k, weights=weights))
                assert r.validation_error == np.mean(N.knn_predict(X, y, X_val, k=k,
                                                             weights=weights) != y_val)


def test_kernel_widget_sweeps_every_sigma(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    controls = demo.kernel_controls()
    x, y = data.mmds_peak()
    for sigma in _values(controls["sigma"]):
        controls["sigma"].value = sigma
        fig = explore(demo.show_kernel, **controls)
        q, fitted = fig.axes[0].get_lines()[0].get_data()
        assert np.all(np.isfinite(fitted))
        np.testing.assert_allclose(fitted, N.kernel_regression(x, y, q, kernel="gaussian",
                                                               sigma=controls["sigma"].value))


def test_log_axes_have_two_labelled_ticks():
    fig = demo.show_concentration()
    fig.canvas.draw()
    for ax in fig.axes:
        for axis in [a for a in (ax.xaxis, ax.yaxis) if a.get_scale() == "log"]:
            lo, hi = sorted(axis.get_view_interval())
            shown = [label.get_text() for loc, label in zip(axis.get_ticklocs(),
                                                            axis.get_ticklabels(), strict=True)
                     if label.get_text() and lo <= loc <= hi]
            assert len(shown) >= 2, shown


UNEVEN_X, UNEVEN_Y = [0.0, 1.0, 2.0, 5.0], [0.0, 1.0, 4.0, 9.0]  # §3's continuity example


def test_weighted_two_nn_jumps_only_where_a_point_is_not_midway_between_its_neighbours():
    """§3 (MMDS Exercise 12.4.6; reviews r7/r8): on x = 0, 1, 2, 5 with labels 0, 1, 4, 9 the
    rule is 1 on both sides of q = 1 (1 is midway between 0 and 2) and leaps at q = 3 (2 is
    not midway between 1 and 5) from (1·4 + ½·1)/(3/2) = 3 to (1·4 + ½·9)/(3/2) = 17/3; the
    evenly spaced peak has no jump anywhere (its largest step on a fine grid is the slope's).
    The cell prints the same four values as the prose states."""
    estimates = N.one_d_rule(UNEVEN_X, UNEVEN_Y, [1 - 1e-9, 1 + 1e-9, 3 - 1e-9, 3 + 1e-9],
                             "weighted average of 2 nearest")
    np.testing.assert_allclose(estimates, [1, 1, 3, 17 / 3], atol=1e-8)  # O(1e-9) off the points
    text = _neighbors_text()
    assert "Take the points 0, 1, 2, 5 with labels 0, 1, 4, 9." in text
    assert "the estimate is 1 on both sides of $q = 1$" in text
    assert (f"leaps from $(1\\cdot 4 + \\tfrac12\\cdot 1)/\\tfrac32 = {estimates[2]:.0f}$ to "
            f"$(1\\cdot 4 + \\tfrac12\\cdot 9)/\\tfrac32 \\approx {estimates[3]:.2f}$") in text
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, 80_001)
    steps = np.abs(np.diff(N.one_d_rule(x, y, q, "weighted average of 2 nearest")))
    assert steps.max() < 1e-3  # slopes are at most 4 and the grid step is 1e-4


def test_the_continuity_cell_computes_the_example_its_prose_works():
    # Reviews r7/r8: the cell under the prose ran other points (0, 1, 3 at q = 1.5).
    notebook = SOLUTIONS / "09_neighbors/neighbors_walkthrough.ipynb"
    cells = json.loads(notebook.read_text())["cells"]
    cell = next("".join(c["source"]) for c in cells
                if c["cell_type"] == "code" and "near = " in "".join(c["source"]))
    assert "N.one_d_rule([0.0, 1.0, 2.0, 5.0], [0.0, 1.0, 4.0, 9.0], near," in cell
    assert "near = np.array([1 - 1e-9, 1 + 1e-9, 3 - 1e-9, 3 + 1e-9])" in cell


def test_two_nn_leaves_a_band_of_the_dogs_picture_unclassified():
    """Exercise 12.4.1's cell: the share of the window whose two nearest dogs differ in breed
    (the figure's unshaded band, "about half"), recomputed by brute force."""
    X, y, _ = data.dogs()
    gx, gy, answer = demo.two_nn_regions()
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    assert (grid.min(axis=0) == X.min(axis=0) - 4).all()  # the Voronoi picture's window
    two = np.argsort(((grid[:, None] - X[None]) ** 2).sum(axis=2), axis=1, kind="stable")[:, :2]
    brute = np.where(y[two[:, 0]] == y[two[:, 1]], y[two[:, 0]], -1)
    # grid points equidistant from two dogs may be ranked apart by rounding: a few of 40401
    assert np.mean(brute != answer.ravel()) < 1e-3
    share = np.mean(answer < 0)
    assert 0.4 < share < 0.6  # "about half of the window"
    assert f"({share:.0%} of the window)" in demo.show_two_nn().axes[0].get_title()


def test_two_nn_worked_example_is_unclassified_then_a_chihuahua():
    # The cell's two queries: (11, 22) has a Beagle (√10) then a Dachshund (√26) nearest and is
    # left unclassified; (7, 5) has two Chihuahuas (both √2) and is a Chihuahua.
    X, y, breeds = data.dogs()
    queries = np.array([[11.0, 22.0], [7.0, 5.0]])
    distances, pairs = N.kneighbors(X, queries, k=2)
    assert [breeds[y[j]] for j in pairs[0]] == ["Beagle", "Dachshund"]
    np.testing.assert_allclose(distances, np.sqrt([[10, 26], [2, 2]]), rtol=1e-12)
    assert list(N.two_nn_unanimous(X, y, queries)) == [-1, 0]
    assert list(N.two_nn_unanimous(X, y, queries, unclassified=9)) == [9, 0]
    with pytest.raises(ValueError, match="unclassified = 0 is also a label"):
        N.two_nn_unanimous(X, y, queries, unclassified=0)  # review r8: it must stand apart
    with pytest.raises(ValueError, match="they must match"):
        N.two_nn_unanimous(X, y[:-1], queries)
    with pytest.raises(ValueError, match="larger than the number of training points"):
        N.two_nn_unanimous(X[:1], y[:1], queries)


@examples(40)
@given(st.integers(3, 12).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=n, max_size=n,
             unique=True),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))))
def test_two_nn_unanimous_agrees_with_a_plain_loop(case):
    points, labels = case
    X, y = np.array(points, dtype=float) / 8, np.array(labels)  # multiples of 1/8: exact
    Q = np.array([[0.3, -0.7], [1.1, 2.2], [-2.0, 0.5]])
    for q, answer in zip(Q, N.two_nn_unanimous(X, y, Q), strict=True):
        first, second = np.argsort(((X - q) ** 2).sum(axis=1), kind="stable")[:2]
        assert answer == (y[first] if y[first] == y[second] else -1)


def test_the_gaussian_kernel_estimate_does_not_jump_where_the_2nn_rule_does():
    # Section 4's reason for kernels (MMDS §12.4.4): on §3's uneven data the weighted 2-NN
    # rule jumps by 8/3 at q = 3; kernel regression changes there by O(1e-9) at most.
    near = [3 - 1e-9, 3 + 1e-9]
    jump = np.diff(N.one_d_rule(UNEVEN_X, UNEVEN_Y, near, "weighted average of 2 nearest"))[0]
    assert jump == pytest.approx(8 / 3, abs=1e-6)
    for kernel, sigma in (("gaussian", 1.0), ("inverse_square", None)):
        smooth = np.diff(N.kernel_regression(UNEVEN_X, UNEVEN_Y, near, kernel=kernel,
                                             sigma=sigma))[0]
        assert abs(smooth) < 1e-6  # slope times 2e-9, far below the rule's jump


def test_voronoi_walls_grow_linearly_not_as_n_log_n():
    # MMDS Example 12.11 says "O(n log n) lines"; the diagram has at most 3n − 6 walls. Our
    # dogs: 13 <= 15. Random points: the count matches scipy's Voronoi and stays below 3n − 6.
    from scipy.spatial import Voronoi

    X, _, _ = data.dogs()
    assert len(N.voronoi_neighbours(X)) == 13 <= 3 * len(X) - 6
    rng = np.random.default_rng(12)
    for n in (20, 60):
        P = rng.random((n, 2))
        walls = N.voronoi_neighbours(P)
        assert {tuple(sorted(map(int, r))) for r in Voronoi(P).ridge_points} == set(walls)
        assert len(walls) <= 3 * n - 6


# --- widgets redrawn in place, and what every figure says in words ---------------------------


@pytest.mark.parametrize("k, weights", [(1, "uniform"), (31, "distance")])
def test_knn_redrawn_in_place_shows_what_a_fresh_build_shows(k, weights):
    """The k-NN frame drawn after other k and weightings is the frame of a fresh figure."""
    demo._knn_view.cache_clear()
    fresh = demo.show_knn(k, weights)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other_k, other_weights in ((149, "uniform"), (7, "distance"), (k, "uniform")):
        png_pixels(demo.show_knn(other_k, other_weights))
    again = demo.show_knn(k, weights)
    assert again is fresh and not again.stale  # nothing but the animated artists changed
    assert drawn(again) == fresh_drawn and alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


@pytest.mark.parametrize("sigma", [0.3, 2.5])
def test_kernel_redrawn_in_place_shows_what_a_fresh_build_shows(sigma):
    demo._kernel_view.cache_clear()
    fresh = demo.show_kernel(sigma)
    fresh_drawn, fresh_pixels = drawn(fresh), png_pixels(fresh)
    for other in (0.1, 4.0, 1.0):
        png_pixels(demo.show_kernel(other))
    again = demo.show_kernel(sigma)
    assert again is fresh and not again.stale
    assert drawn(again) == fresh_drawn
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_knn_regions_are_knn_predict_for_every_k_on_the_cached_neighbours():
    """The widget votes among the first k of each query's sorted neighbours; knn_predict (an
    independent selection of the k nearest) gives the same labels and errors."""
    X, y, X_val, y_val, gx, gy = demo._moons_split()
    grid = np.column_stack([gx.ravel(), gy.ravel()])[::7]
    for weights in N.WEIGHTS:
        for k in (2, 3, 20, 64, 150):
            r = demo.knn_regions(k, weights)
            np.testing.assert_array_equal(r.labels.ravel()[::7],
                                          N.knn_predict(X, y, grid, k=k, weights=weights))
            assert r.training_error == np.mean(N.knn_predict(X, y, X, k=k, weights=weights) != y)
    with pytest.raises(ValueError, match="between 1 and 150"):
        demo.knn_regions(0)


def test_knn_frame_says_k_the_share_predicted_positive_and_the_errors():
    """The alt text states k, the weighting, the share of the window predicted +1 and the
    errors, all recomputed here with knn_predict, and changes with k."""
    X, y, X_val, y_val, gx, gy = demo._moons_split()
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    texts = []
    for k in (1, 45):
        text = alt_text(demo.show_knn(k, "uniform"))
        positive = np.mean(N.knn_predict(X, y, grid, k=k) > 0)
        train = np.mean(N.knn_predict(X, y, X, k=k) != y)
        test = np.mean(N.knn_predict(X, y, X_val, k=k) != y_val)
        assert f"{len(X)} training points" in text
        assert f"k = {k} and uniform weights" in text
        assert f"+1 on {positive:.0%} of the window" in text
        assert f"training error {train:.2f}, validation error {test:.2f}" in text
        texts.append(text)
    assert texts[0] != texts[1]


def test_kernel_frame_says_the_estimate_at_the_books_query():
    """The alt text gives the Gaussian estimate at q = 3.5, computed here from the kernel's
    definition, next to the book's 5.51, and changes with σ."""
    x, y = data.mmds_peak()
    texts = []
    for sigma in (0.5, 2.0):
        w = np.exp(-((x - 3.5) ** 2) / sigma**2)
        text = alt_text(demo.show_kernel(sigma))
        assert f"σ = {sigma:.2f} estimates {(w @ y) / w.sum():.2f} at q = 3.5" in text
        assert "kernel: 5.51" in text
        texts.append(text)
    assert texts[0] != texts[1]


def test_static_figures_say_what_their_data_show():
    """Every figure of the walk-through is described; the numbers are recomputed here."""
    X, y, breeds = data.dogs()
    voronoi = alt_text(demo.show_voronoi())
    assert "7 dogs (3 Chihuahuas, 2 Dachshunds, 2 Beagles)" in voronoi
    assert "not convex: Dachshund and Beagle" in voronoi
    _, _, answer = demo.two_nn_regions()
    unclassified = f"{np.mean(answer < 0):.0%} of the window is unclassified"
    assert unclassified in alt_text(demo.show_two_nn())
    curve = alt_text(demo.show_error_curve())
    ks, _, test = demo.error_curve("uniform")
    assert f"lowest, {test.min():.3f}, at k = {ks[np.argmin(test)]}" in curve
    rules = alt_text(demo.show_rules())
    assert "average of 3 nearest from 2.33 to 5.33" in rules  # (1+2+4)/3 and (4+8+4)/3
    concentration = alt_text(demo.show_concentration())
    c = N.distance_concentration(demo.CURSE_DIMS, n=500, queries=20, seed=0)
    assert f"falls from {c.contrast[0]:.3g} to {c.contrast[-1]:.3g}" in concentration
    for fig in (demo.show_voronoi(), demo.show_two_nn(), demo.show_error_curve(),
                demo.show_rules(), demo.show_concentration()):
        assert described(fig)


def test_breeds_and_classes_differ_by_marker_as_well_as_colour():
    ax = demo.show_voronoi().axes[0]
    markers = [c.get_paths()[0].vertices.round(3).tolist() for c in ax.collections[-3:]]
    assert len({str(m) for m in markers}) == 3
    assert demo.BREED_COLOURS == demo.PALETTE[:3]


def test_exercise_5_reference_answer_on_mmds_exercise_12_4_3():
    """The reference answer to written Exercise 5.1 (MMDS 12.4.3(c), q > 1; review r10-09: no
    longer cell 14's computation on one interval): ŷ(2q) = ŷ(q) + 1 on 1.25 < q < 16 (review
    r12-09: the jump at 5 needs it left of 2.5) and not below (1.2 → 1.2, 2.4 → 1.778); jumps of
    0.5 at 2.5, 5, 10 and 20 only (1.75 → 2.25, ..., 4.75 → 5.25), the left value at the point
    itself; none where the nearest point changes (1.5, 3, 6, 12, 24); (11q − 256)/(2q − 48)
    beyond 32, 6 at 32 and tending to 5.5."""
    x, y = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]

    def f(q):
        return N.one_d_rule(x, y, np.atleast_1d(q), "weighted average of 2 nearest")

    q = np.linspace(1.25, 16, 5901)[1:-1]
    np.testing.assert_allclose(f(2 * q), f(q) + 1, rtol=1e-12)
    low = np.linspace(1.0, 1.25, 101)[1:-1]  # 1 is a neighbour of 2q < 2.5: the relation fails
    assert np.all(f(2 * low) < f(low) + 1 - 1e-3)
    assert f(1.2)[0] == pytest.approx(1.2, abs=1e-12)
    assert f(2.4)[0] == pytest.approx(1.778, abs=5e-4)  # printed to three decimals
    for point, before, after in ((2.5, 1.75, 2.25), (5, 2.75, 3.25), (10, 3.75, 4.25),
                                 (20, 4.75, 5.25)):
        left, at, right = f([point - 1e-9, point, point + 1e-9])
        assert at == pytest.approx(before, abs=1e-12)  # the tie rule: the left value
        assert left == pytest.approx(before, abs=1e-7) and right == pytest.approx(after, abs=1e-7)
    np.testing.assert_allclose(f(np.array([1.5, 3, 6, 12, 24]) - 1e-9),
                               f(np.array([1.5, 3, 6, 12, 24]) + 1e-9), atol=1e-7)
    # no other jump: on a fine grid of (1, 64) the only steps above 1e-3 are the four above
    grid = np.linspace(1.0, 64.0, 630_001)[1:]
    steps = grid[1:][np.abs(np.diff(f(grid))) > 1e-3]
    np.testing.assert_allclose(steps, [2.5, 5, 10, 20], atol=2e-4)
    far = np.linspace(32.0, 1e6, 1000)
    np.testing.assert_allclose(f(far), (11 * far - 256) / (2 * far - 48), rtol=1e-12)
    assert f(32.0)[0] == pytest.approx(6, abs=1e-12) and f(1e12)[0] == pytest.approx(5.5, abs=1e-9)
    assert np.all(np.diff(f(far)) < 0) and np.all(f(far[1:]) > 5.5)  # inside [5, 6]
    assert np.all(f(far[1:]) < 5 + (far[1:] - 16) / 16)  # below the line through (16, 5), (32, 6)


def test_exercise_5_reference_answer_on_mmds_exercise_12_4_4():
    # Part 2 of written Exercise 5: all six points weighted by 1/(x − q)² at q = 3. The weights
    # sum to 2.297 and the weighted labels to 5.447, the estimate is 2.37, below the
    # two-neighbour rule's 2.5; the point 1 contributes −0.375 to Σ wᵢ(yᵢ − 2.5), the points 8,
    # 16 and 32 together +0.079 (each rounded as printed).
    x, y = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    w = 1 / (x - 3) ** 2
    printed = pytest.approx  # a figure printed to n decimals is within half a unit of its last
    assert w.sum() == printed(2.297, abs=5e-4) and w @ y == printed(5.447, abs=5e-4)
    estimate = N.kernel_regression(x, y, [3.0])[0]
    assert estimate == printed(2.37, abs=5e-3)
    assert N.one_d_rule(x, y, [3.0], "weighted average of 2 nearest")[0] == pytest.approx(2.5)
    pull = w * (y - 2.5)
    assert pull[0] == printed(-0.375, abs=5e-4) and pull[3:].sum() == printed(0.079, abs=5e-4)
    assert w[3:].sum() == printed(0.047, abs=5e-4)
    assert estimate == pytest.approx(2.5 + pull.sum() / w.sum(), rel=1e-12)


def _neighbors_text() -> str:
    return markdown_text("09_neighbors/neighbors_walkthrough.ipynb")


def test_the_tie_rule_is_exact_on_a_binary_grid_and_said_to_be():
    # Review r4: kneighbors ranks by ‖x‖² − 2q·x, so two distances equal in exact arithmetic
    # tie exactly (and go to training order) when the coordinates are dyadic, as here.
    X = np.array([[0.0], [1.0], [2.0]])
    _, idx = N.kneighbors(X, np.array([[0.5], [1.5]]), k=2)
    assert idx.tolist() == [[0, 1], [1, 2]]  # equally far: the earlier first
    assert ("in training order (exactly so for coordinates on a binary grid, such as the book's "
            "integers; otherwise rounding can split a tie)") in _neighbors_text()


def test_a_narrow_gaussian_averages_the_two_tied_neighbours_at_a_midpoint():
    # §4 (review r4): "6.00 at q = 3.5 for σ = 0.1, where 1-NN says 4": the Gaussian weights of
    # x = 3 and x = 4 are equal there, and every other weight is e^-225 smaller.
    x, y = data.mmds_peak()
    narrow = N.kernel_regression(x, y, [3.5], kernel="gaussian", sigma=0.1)[0]
    assert narrow == pytest.approx((4 + 8) / 2, abs=1e-9)
    one_nn = N.knn_predict(x[:, None], y, np.array([[3.5]]), k=1, task="regress")[0]
    assert one_nn == 4  # the tie goes to x = 3, earlier in training order
    assert "6.00 at $q = 3.5$ for σ = 0.1, where 1-NN says 4" in _neighbors_text()
    assert "The book calls $w = e^{-(x-q)^2/\\sigma^2}$ a popular choice" in _neighbors_text()
    # the site's errata page (site/coursesite/errata.py) collects the paragraphs that say "slip"
    assert "σ the standard deviation, a slip: a normal density has" in _neighbors_text()
    # r12-09 (trivia): §7 says it corrects MMDS's d(x − q) in the exponent, not silently
    assert "$e^{-d(x, q)^2/\\sigma^2}$ for any distance $d$ (MMDS's $d(x - q)$ is a slip;" in (
        _neighbors_text())


def test_distance_weighted_frames_shade_some_correct_training_points_as_the_other_class():
    """§5 (reviews r3/r4/r12): with distance weights the training error is 0 at every k, yet the
    120 × 120 picture shows training points on the other class's shading at 72 of the 75 odd k,
    5 at k = 51 and 4 at k = 149: each wins only on a disc around itself (r11-09: not at one
    spot), which misses the grid point of its pixel."""
    X, y, *_, gx, gy = demo._moons_split()
    assert gx.shape == (120, 120)
    col = np.abs(X[:, :1] - gx[0][None]).argmin(axis=1)  # each point's pixel
    row = np.abs(X[:, 1:] - gy[:, 0][None]).argmin(axis=1)
    shaded_wrong = {}
    for k in range(1, 150, 2):
        r = demo.knn_regions(k, "distance")
        assert r.training_error == 0
        shaded_wrong[k] = int(np.sum(r.labels[row, col] != y))
    assert (shaded_wrong[51], shaded_wrong[149]) == (5, 4)
    assert (sum(count > 0 for count in shaded_wrong.values()), len(shaded_wrong)) == (72, 75)
    assert ("of a 120 × 120 grid, not at the training points, so a correctly classified point can "
            "sit on the other class's shading: with `distance` weights at 72 of the 75 k (5 points "
            "at k = 51, 4 at k = 149), since a point's own label wins only on a disc around it "
            "that the grid misses") in _neighbors_text()


def test_the_second_document_query_ties_at_jaccard_distance_one_half():
    # §7 (review r3): the second query {team, vote, law} is at distance 0.5 from the third and
    # fourth documents (2 shared words of 4 each: exact in binary), and k = 1 takes the third.
    docs = np.array([[1, 1, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1],
                     [0, 0, 1, 1, 1, 0]])
    query = np.array([[0, 0, 1, 1, 0, 1]])
    d = N.pairwise_distances(query, docs, "jaccard")[0]
    np.testing.assert_allclose(d, [0.8, 0.75, 0.5, 0.5], atol=1e-12)
    assert N.kneighbors(docs, query, k=1, metric="jaccard")[1][0, 0] == 2
    assert ("The second query is at distance 0.5 from both the third and the fourth document; "
            "by the tie rule of §1 the third") in _neighbors_text()


def test_the_lsh_standard_error_is_said_to_be_given_the_hash_functions():
    # Review r4: the 100 queries share the 60 minhash functions, so √(p(1 − p)/100) is the
    # standard error given them.
    assert demo.LSH_HASHES == 60 and len(demo.lsh_sets()[1]) == 100
    assert "given these 60 hash functions (all queries share them" in _neighbors_text()


def test_the_knn_shading_puts_each_pixel_on_its_grid_point():
    """Review r10-09 (trivia): the labels computed on linspace(lo, hi, GRID) were drawn into
    GRID equal pixels spanning lo..hi, half a pixel off; now pixel i's centre is grid point i."""
    demo.show_knn(19, "uniform")
    view = demo._knn_view()
    *_, gx, gy = demo._moons_split()
    left, right, bottom, top = view.regions.get_extent()
    step_x, step_y = (right - left) / gx.shape[1], (top - bottom) / gx.shape[0]
    centres_x = left + step_x * (np.arange(gx.shape[1]) + 0.5)
    centres_y = bottom + step_y * (np.arange(gx.shape[0]) + 0.5)
    np.testing.assert_allclose(centres_x, gx[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(centres_y, gy[:, 0], rtol=0, atol=1e-12)
