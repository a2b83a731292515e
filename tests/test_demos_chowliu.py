"""The Chow-Liu walk-through's widget logic, driven without a browser."""

import itertools

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, png_pixels
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from prose_support import markdown_text

from mllib import bayes, chowliu
from mllib.demos import chowliu as demo
from mllib.demos import explore
from mllib.plotting import PALETTE, alt_text


def test_candidates_are_the_slides_distributions():
    c = demo.slides_candidates()
    assert c.data.tolist() == [[1, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 0]]
    assert sum(c.table.values()) == pytest.approx(1.0)
    assert c.table["0100"] == 0.1 and c.table["1011"] == 0 and c.table["1111"] == 0.05
    assert c.star.parents.tolist() == [3, 3, 3, -1]
    assert c.chain.parents.tolist() == [3, 3, 1, -1]


def test_candidates_table_prints_exact_likelihoods_beside_the_slides():
    rows = demo.candidates_table(demo.slides_candidates()).splitlines()
    assert rows[2].startswith("| Distribution 1 (table) | 0 | 0 | 1/10 | 0 |")
    assert rows[3].startswith("| Distribution 2 (x4 → x1, x2, x3) | 5/36 | 1/36 | 5/72 | "
                              "25/93312 |")
    assert rows[4].startswith("| Distribution 3 (x4 → x1, x2; x2 → x3) | 2/9 | 1/9 | 5/27 | "
                              "10/2187 |")
    assert rows[4].endswith("| 2/9, 1/9, 10/54, 10/3⁷ |")


def test_the_experiment_learns_more_edges_as_the_sample_grows():
    small, large = demo.experiment(10), demo.experiment(10_000)
    assert small.correct < large.correct == 9
    assert large.kl < small.kl
    assert large.learned == chowliu.chow_liu_tree(large.X, root=0)
    with pytest.raises(ValueError, match="m must be between 1 and 10000"):
        demo.experiment(20_000)


def test_the_root_only_redirects_the_edges():
    at_0, at_5 = demo.experiment(2000, 0), demo.experiment(2000, 5)
    assert {frozenset(e) for e in at_0.learned} == {frozenset(e) for e in at_5.learned}
    assert at_5.learned[0][0] == 5
    assert at_5.loglik == pytest.approx(at_0.loglik, rel=1e-3)


def _arrows(fig: Figure, panel: int) -> list[str]:
    """The colour of every arrow drawn on a panel."""
    return [a.arrow_patch.get_edgecolor() for a in fig.axes[panel].texts
            if getattr(a, "arrow_patch", None) is not None]


def test_moving_the_sample_size_slider_redraws_the_learned_tree():
    # The widget's one figure is redrawn in place: read each frame before drawing the next.
    small = demo.show_experiment(10)
    small_title, small_arrows = small.axes[1].get_title(), _arrows(small, 1)
    large = demo.show_experiment(10_000)
    assert small_title != large.axes[1].get_title()
    assert "9 of 9 edges right" in large.axes[1].get_title()
    green = to_rgba(PALETTE[2])
    assert all(colour == green for colour in _arrows(large, 1))
    assert any(colour != green for colour in small_arrows)
    assert len(_arrows(large, 0)) == 9


def test_tree_layout_puts_parents_above_their_children():
    truth, _ = demo.true_tree()
    positions = demo.tree_layout(truth)
    assert np.all(np.abs(positions) <= 1 + 1e-12)
    for parent, child in truth.edges:
        assert positions[parent, 1] > positions[child, 1]
    assert len({tuple(p) for p in positions.round(6)}) == len(positions)


def test_kl_curve_falls_and_chow_liu_catches_up_with_the_true_structure():
    curve = demo.kl_curve(sizes=(10, 100, 1000, 10_000))
    assert np.all(np.diff(curve.chow_liu) < 0)
    assert np.all(curve.chow_liu >= curve.true_structure - 1e-12)
    assert curve.chow_liu[-1] == pytest.approx(curve.true_structure[-1])
    assert curve.correct[-1] == 9
    assert len(demo.show_kl(curve).axes[0].lines) == 2


def test_mi_heatmap_rings_the_tree_edges():
    truth, X = demo.true_tree()
    edges = chowliu.chow_liu_tree(X[:500])
    fig = demo.show_mi_heatmap(chowliu.mutual_information(X[:500]), edges)
    assert len(fig.axes[0].lines) == 2 * len(edges)


def test_explore_wires_the_sample_size_slider_and_root_selector(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(m, root):
        seen.append((m, root))
        return demo.show_experiment(m, root)

    box = explore(frame, m=ipywidgets.SelectionSlider(options=demo.SAMPLE_SIZES, value=32),
                  root=ipywidgets.Dropdown(options=list(range(10)), value=0))
    slider, dropdown = box.children[:2]
    slider.value = 1000
    dropdown.value = 3
    assert seen == [(32, 0), (1000, 0), (1000, 3)]


def test_kruskal_steps_find_prims_tree_and_skip_only_cycles():
    truth, X_all = demo.true_tree()
    mi = chowliu.mutual_information(X_all[:1000])
    off_diagonal = mi[np.triu_indices(10, 1)]
    assert len(np.unique(off_diagonal)) == len(off_diagonal)  # distinct: the tree is unique
    steps = demo.kruskal_steps(mi)
    kept = {frozenset(s.edge) for s in steps if s.kept}
    assert kept == {frozenset(e) for e in chowliu.maximum_spanning_tree(mi)}
    assert steps[-1].components == 1 and sum(s.kept for s in steps) == 9
    weights = [s.weight for s in steps]
    assert weights == sorted(weights, reverse=True)  # heaviest first (exact: read from mi)


def test_kruskal_on_a_small_graph_worked_by_hand():
    W = np.array([[0, 5, 4, 1], [5, 0, 3, 2], [4, 3, 0, 6], [1, 2, 6, 0]], dtype=float)
    # 2–3 (6) kept, 0–1 (5) kept, 0–2 (4) kept, then one component: stop.
    steps = demo.kruskal_steps(W)
    assert [(s.edge, s.kept, s.components) for s in steps] == [
        ((2, 3), True, 3), ((0, 1), True, 2), ((0, 2), True, 1)]
    W[0, 2] = W[2, 0] = 0.5  # now 1–2 (3) joins, after no cycle: 2–3, 0–1, 1–2
    assert [s.edge for s in demo.kruskal_steps(W) if s.kept] == [(2, 3), (0, 1), (1, 2)]
    W[1, 2] = W[2, 1] = 7  # 1–2 first, then 2–3, then 0–1
    W[1, 3] = W[3, 1] = 6.5  # 1–3 would close the cycle 1–2–3 after those two
    steps = demo.kruskal_steps(W)
    assert [(s.edge, s.kept) for s in steps] == [((1, 2), True), ((1, 3), True),
                                                 ((2, 3), False), ((0, 1), True)]


def test_kl_curve_averages_samples_and_the_first_is_the_walkthroughs():
    curve = demo.kl_curve(sizes=(20, 100), samples=4)
    assert curve.per_sample_correct.shape == (2, 4)
    np.testing.assert_allclose(curve.correct, curve.per_sample_correct.mean(axis=1))
    truth, X = demo.true_tree()
    assert curve.per_sample_correct[1, 0] == demo.experiment(100, truth.root).correct
    assert len({tuple(row) for row in curve.per_sample_correct.T}) > 1  # samples differ


# --- Claims of the walk-through, computed from the same calls -----------------------------------


def test_the_three_candidates_are_not_the_same_distribution():
    # §3: "Distribution 1 gives 1011 probability 0, Distribution 2 gives it 10/72 = 5/36 and
    # Distribution 3 gives it 2/9"; and Distribution 3 is about 17 times as likely as 2.
    likelihoods = demo.candidates_likelihoods(demo.slides_candidates())
    first = [probs[0] for probs in likelihoods.values()]
    assert first == pytest.approx([0, 10 / 72, 2 / 9], abs=1e-15)
    table, star, chain = (float(np.prod(p)) for p in likelihoods.values())
    assert table == 0 and round(chain / star) == 17


def test_the_skipped_pairs_are_a_pair_of_siblings_and_a_grandparent_with_its_grandchild():
    # §4: "2–4 are two children of 7 ... 7–9 are a grandparent and its grandchild (7 → 2 → 9).
    # The pair 7–9 is also the brightest cell of the heatmap that is not an edge."
    truth, X_all = demo.true_tree()
    X = X_all[:1000]
    mi = chowliu.mutual_information(X)
    edges = chowliu.chow_liu_tree(X, root=truth.root)
    parent = dict((child, par) for par, child in edges)
    skipped = [s.edge for s in demo.kruskal_steps(mi) if not s.kept]
    assert skipped == [(7, 9), (2, 4)]
    assert parent[2] == parent[4] == 7  # siblings
    assert parent[9] == 2 and parent[2] == 7  # grandparent 7, grandchild 9
    assert demo.tree_path(edges, 7, 9) == [7, 2, 9]
    tree = {frozenset(e) for e in edges}
    non_edges = [(mi[i, j], (i, j)) for i in range(10) for j in range(i + 1, 10)
                 if frozenset((i, j)) not in tree]
    assert max(non_edges)[1] == (7, 9)
    table = demo.kruskal_table(demo.kruskal_steps(mi)).splitlines()
    assert "skipped: 7–2–9 already joins them" in table[9]


def test_tree_path_walks_the_tree_and_refuses_disconnected_ends():
    edges = [(0, 1), (1, 2), (1, 3), (3, 4)]
    assert demo.tree_path(edges, 2, 4) == [2, 1, 3, 4]
    assert demo.tree_path(edges, 4, 4) == [4]
    with pytest.raises(ValueError, match="not connected"):
        demo.tree_path([(0, 1), (2, 3)], 0, 3)


def test_the_decomposition_check_agrees():
    # §4: log P(D | T) = m·ΣI(edges) − m·ΣH(xᵢ), with frequency CPTs (smoothing 1e-9).
    truth, X_all = demo.true_tree()
    X = X_all[:1000]
    mi = chowliu.mutual_information(X)
    edges = chowliu.chow_liu_tree(X, root=truth.root)
    fitted = chowliu.fit_tree(X, edges, smoothing=1e-9)
    p = X.mean(axis=0)
    entropies = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    decomposed = len(X) * (chowliu.total_information(mi, edges) - entropies.sum())
    assert chowliu.log_likelihood(fitted, X) == pytest.approx(decomposed, rel=1e-7)


def test_kl_table_claims():
    # §6: a few dozen samples give wrong edges; at m = 100 most samples give the true tree and
    # at 200 nearly all; from 500 on every one of the 10 does, and the curves coincide; the CPT
    # error left then shrinks roughly like 1/m; the walk-through's own sample is right from 100.
    curve = demo.kl_curve()
    sizes = list(curve.sizes)
    right = (curve.per_sample_correct == 9).sum(axis=1)
    assert curve.correct[sizes.index(20)] < 9 and curve.correct[sizes.index(50)] < 9
    assert right[sizes.index(100)] > 5 and right[sizes.index(200)] >= 9
    late = curve.sizes >= 500
    assert np.all(right[late] == 10)
    np.testing.assert_array_equal(curve.chow_liu[late], curve.true_structure[late])
    scaled = curve.sizes[late] * curve.chow_liu[late]
    assert scaled.max() / scaled.min() < 1.1  # m·KL nearly constant: KL ~ 1/m
    own = curve.per_sample_correct[:, 0]
    assert np.all(own[curve.sizes >= 100] == 9) and own[sizes.index(50)] < 9
    # The prose's counts (review r1: "6 and then 9 of these 10"), and no claim that the
    # widget's sample is "lucky", which the table does not measure.
    assert (right[sizes.index(100)], right[sizes.index(200)]) == (6, 9)
    text = _walkthrough_text()
    assert "most samples give the true tree (6 and then 9 of these 10)" in text
    assert "a little lucky" not in text


def test_kl_means_carry_their_standard_errors():
    # The table's ± is the spread of the 10 samples' KL over sqrt(10), recomputed here from the
    # per-sample fits; small samples vary, and once every sample has the true tree the two
    # columns agree.
    curve = demo.kl_curve(sizes=(20, 1000), samples=3)
    truth, first = demo.true_tree()
    kls = [chowliu.kl_divergence(truth, chowliu.fit_tree(X[:20], chowliu.chow_liu_tree(
        X[:20], root=truth.root))) for X in
        [first] + [bayes.sample(truth, 1000, seed=104 + s) for s in (1, 2)]]
    assert curve.chow_liu_se[0] == pytest.approx(np.std(kls, ddof=1) / np.sqrt(3), rel=1e-9)
    assert curve.chow_liu_se[0] > 0
    np.testing.assert_allclose(curve.chow_liu_se[1], curve.true_structure_se[1], rtol=1e-9)
    with pytest.raises(ValueError, match="at least 2"):
        demo.kl_curve(sizes=(20,), samples=1)


def test_the_slides_are_corrected_in_five_places():
    # Review r1: five bullets follow (Distributions 1-3, the copied title, the verdict).
    text = _walkthrough_text()
    assert "corrects the slides in five places (the second holds three slips):" in text
    assert "four slips" not in text


def test_exercise_6_ties_survive_any_fifth_sample():
    # The instructor's answer to Exercise 6(b): on 000, 111, 000, 111 all three spanning trees
    # tie, with log-likelihood -4 ln 2 (frequency CPTs: smoothing far below the counts); no fifth
    # sample leaves a unique maximum tree (2 or 3 tie, by the pigeonhole argument).
    X = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0], [1, 1, 1]])
    assert demo.count_maximum_trees(chowliu.mutual_information(X)) == 3
    for edges in ([(0, 1), (1, 2)], [(1, 0), (0, 2)], [(0, 2), (2, 1)]):
        loglik = chowliu.log_likelihood(chowliu.fit_tree(X, edges, smoothing=1e-12), X)
        assert loglik == pytest.approx(-4 * np.log(2), abs=1e-9)
    for fifth in itertools.product((0, 1), repeat=3):
        ties = demo.count_maximum_trees(chowliu.mutual_information(np.vstack([X, fifth])))
        assert ties == (3 if len(set(fifth)) == 1 else 2)


def test_laplace_smoothing_moves_the_numbers_only_slightly_between_roots():
    # §5: the root changes nothing with frequency CPTs; with smoothing the numbers move a little
    # for small m.
    at_0, at_5 = demo.experiment(10, 0), demo.experiment(10, 5)
    assert at_0.loglik != at_5.loglik
    assert at_5.loglik == pytest.approx(at_0.loglik, rel=0.05)


# --- The widget swept over every control --------------------------------------------------------


GREEN = to_rgba(PALETTE[2])  # a right edge; a wrong one is dashed vermillion


def test_sample_size_stops_are_whole_numbers_a_tenth_of_a_decade_apart():
    sizes = np.array(demo.SAMPLE_SIZES)
    assert sizes[0] == 10 and sizes[-1] == 10_000 and len(sizes) == 31
    assert all(isinstance(m, int) for m in demo.SAMPLE_SIZES)
    np.testing.assert_allclose(np.diff(np.log10(sizes)), 0.1, atol=0.02)


def test_every_slider_stop_and_root_learns_a_tree_and_counts_its_edges():
    truth, _ = demo.true_tree()
    truth_edges = {frozenset(e) for e in truth.edges}
    for m in demo.SAMPLE_SIZES:
        for root in range(10):
            exp = demo.experiment(m, root)
            assert exp.m == m and exp.learned[0][0] == root
            assert exp.correct == sum(frozenset(e) in truth_edges for e in exp.learned)
            assert np.isfinite(exp.kl) and np.isfinite(exp.loglik)


@pytest.mark.parametrize("root", [0, 1, 9])
def test_the_drawn_frame_shows_the_slider_value_and_colours_agree_with_the_count(root):
    # The readout of the SelectionSlider is the option itself, and the title shows the same m;
    # the green arrows are exactly the edges the title counts as right.
    sizes = demo.SAMPLE_SIZES if root == 1 else demo.SAMPLE_SIZES[::6]
    slider = ipywidgets.SelectionSlider(options=demo.SAMPLE_SIZES, value=32)  # as wired
    for m in sizes:
        slider.value = m
        assert slider.label == str(m)  # the readout
        fig = demo.show_experiment(slider.value, root)
        exp = demo.experiment(m, root)
        assert fig.axes[1].get_title() == (f"learned from m = {m}: {exp.correct} of 9 edges "
                                           "right")
        colours = _arrows(fig, 1)
        assert len(colours) == 9 and colours.count(GREEN) == exp.correct


def test_the_kl_plot_has_labelled_ticks_on_both_log_axes():
    fig = demo.show_kl(demo.kl_curve(sizes=(10, 100, 1000, 10_000), samples=2))
    ax = fig.axes[0]
    fig.canvas.draw()
    for axis, (low, high) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        shown = [t for t, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(),
                                       strict=True)
                 if low <= t <= high and label.get_text()]
        assert len(shown) >= 2


def test_kl_from_the_empirical_distribution_is_minus_entropy_minus_the_mean_loglik():
    # §4: D(P̂, T) = -H(P̂) - (1/m) log P(D | T), so the ML tree also minimizes the KL (problem 2).
    _, X = demo.true_tree(4, seed=3, max_m=60)
    tree = chowliu.fit_tree(X, chowliu.chow_liu_tree(X), smoothing=0.5)
    strings, counts = np.unique(X, axis=0, return_counts=True)
    p_hat = counts / len(X)
    kl = float(np.sum(p_hat * np.log(p_hat / bayes.joint(tree, strings))))
    entropy = -float(np.sum(p_hat * np.log(p_hat)))
    assert kl == pytest.approx(-entropy - chowliu.log_likelihood(tree, X) / len(X), rel=1e-12)


def test_walking_up_distribution_3_matches_enumeration():
    # §2: marginals and the pairs (x3, x4) and (x3, x1) up the tree equal brute-force sums.
    tree = demo.slides_candidates().chain
    everything = np.array(list(itertools.product([0, 1], repeat=4)), dtype=float)
    probabilities = bayes.joint(tree, everything)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    for i in range(4):
        assert bayes.marginal(tree, i) == pytest.approx(probabilities @ everything[:, i],
                                                        abs=1e-12)
    for i, j in [(2, 3), (2, 0)]:
        brute = [[probabilities[(everything[:, i] == a) & (everything[:, j] == b)].sum()
                  for b in (0, 1)] for a in (0, 1)]
        np.testing.assert_allclose(bayes.pairwise(tree, i, j), brute, atol=1e-12)


# --- Ties in the mutual information, and the KL divergence's properties ----------------------


def test_count_maximum_trees_on_hand_checked_graphs():
    # Equal weights: every spanning tree is a maximum, n^(n-2) of them (Cayley: 16 and 125).
    assert demo.count_maximum_trees(np.ones((4, 4))) == 16
    assert demo.count_maximum_trees(np.ones((5, 5))) == 125
    # Distinct weights: one maximum tree. A tie that never matters (two light edges that both
    # close cycles) leaves it unique; a tie between two ways to reach vertex 3 gives two.
    W = np.array([[0, 9, 8, 1], [9, 0, 7, 1], [8, 7, 0, 3], [1, 1, 3, 0]], dtype=float)
    assert demo.count_maximum_trees(W) == 1
    W[1, 3] = W[3, 1] = 3
    assert demo.count_maximum_trees(W) == 2


@pytest.mark.parametrize(("m", "trees", "fewest", "most"),
                         [(10, 36, 2, 5), (13, 8, 3, 6), (20, 2, 6, 7), (50, 1, 7, 7)])
def test_small_samples_tie_and_the_edges_right_depend_on_the_tie_rule(m, trees, fewest, most):
    # Review: at small m the widget silently picked one of several maximum-weight trees. An
    # independent oracle, networkx's spanning-tree iterator (heaviest first), lists every tree
    # whose total information is the maximum (to 1e-9 nats, far above rounding, far below the
    # gaps between distinct totals), and how many true edges each has; the frame's count is one
    # of them and its note names the number of tied trees.
    nx = pytest.importorskip("networkx")
    exp = demo.experiment(m, 0)
    W = chowliu.mutual_information(exp.X[:m])
    graph = nx.Graph()
    graph.add_weighted_edges_from((i, j, W[i, j]) for i, j in itertools.combinations(range(10), 2))
    truth = {frozenset(e) for e in exp.truth.edges}
    best, scores = None, []
    for tree in nx.SpanningTreeIterator(graph, weight="weight", minimum=False):
        total = tree.size(weight="weight")
        best = total if best is None else best
        if total < best - 1e-9:
            break
        scores.append(sum(frozenset(e) in truth for e in tree.edges))
    assert (len(scores), min(scores), max(scores)) == (trees, fewest, most)
    assert exp.maximum_trees == trees and fewest <= exp.correct <= most
    texts = [t.get_text() for t in demo.show_experiment(m).axes[1].texts]
    if trees > 1:
        assert f"ties in I: the tie rule picked 1 of {trees} maximum trees" in texts
    else:
        assert "no ties in I that matter: the only maximum tree" in texts


def test_the_walkthroughs_sample_of_1000_has_a_unique_maximum_tree():
    # Section 4 prints the count (1) before saying Kruskal and Prim must agree there.
    truth, X_all = demo.true_tree()
    assert demo.count_maximum_trees(chowliu.mutual_information(X_all[:1000])) == 1
    assert all(demo.experiment(m).maximum_trees == 1 for m in (200, 1000, 10_000))


def test_kl_divergence_is_nonnegative_zero_only_for_identical_and_not_symmetric():
    # CS446 "Distance Measure", on the slides' Distributions 2 and 3, with scipy's relative
    # entropy over the 16 strings as the oracle: D(2, 3) = inf (Distribution 3 rules out strings
    # that 2 allows), D(3, 2) finite and positive, D(P, P) = 0.
    from scipy.stats import entropy

    c = demo.slides_candidates()
    strings = np.array(list(itertools.product([0, 1], repeat=4)), dtype=float)
    star, chain = bayes.joint(c.star, strings), bayes.joint(c.chain, strings)
    assert chowliu.kl_divergence(c.star, c.chain) == np.inf == entropy(star, chain)
    forward = chowliu.kl_divergence(c.chain, c.star)
    assert forward == pytest.approx(entropy(chain, star), rel=1e-12)  # rounding only
    assert round(forward, 4) == 1.3282
    assert chowliu.kl_divergence(c.star, c.star) == 0 == chowliu.kl_divergence(c.chain, c.chain)
    # Full-support random trees: non-negative, and both directions differ.
    for seed in range(5):
        P, T = bayes.random_tree(5, seed=seed), bayes.random_tree(5, seed=seed + 50)
        there, back = chowliu.kl_divergence(P, T), chowliu.kl_divergence(T, P)
        assert there > 0 and back > 0 and abs(there - back) > 1e-6


def _walkthrough_text() -> str:
    return markdown_text("06_chowliu/chowliu_walkthrough.ipynb")


def test_the_walkthrough_flags_the_copied_slide_title():
    text = _walkthrough_text()
    assert "**A copied title.**" in text and "*Distribution 2*" in text
    assert "not* symmetric" in text and "exactly when $P$ and $T$ are the same" in text
    assert "Ties at small m." in text


@pytest.mark.parametrize(("m", "root"), [(32, 0), (10, 5), (10_000, 9)])
def test_experiment_redrawn_in_place_shows_what_a_fresh_build_shows(m, root):
    """The same data, pixels and alt text, whether the figure was just built for (m, root) or
    redrawn in place after other sample sizes and roots."""
    demo._experiment_view.cache_clear()
    fresh = demo.show_experiment(m, root)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other in ((13, root), (m, (root + 3) % 10), (1000, 1)):
        png_pixels(demo.show_experiment(*other))
    again = demo.show_experiment(m, root)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_wrong_edges_are_dashed_as_well_as_coloured():
    fig = demo.show_experiment(13, 0)
    for arrow in (a for a in fig.axes[1].texts if getattr(a, "arrow_patch", None) is not None):
        right = arrow.arrow_patch.get_edgecolor() == GREEN
        assert (arrow.arrow_patch.get_linestyle() == "-") == right


def test_experiment_alt_text_counts_the_right_edges_and_follows_m():
    # Independently: the sample drawn again from the seeds, the tree learned by the library.
    truth = bayes.random_tree(10, seed=4, strength=0.25)
    X = bayes.sample(truth, 10_000, seed=104)
    truth_edges = {frozenset(e) for e in truth.edges}
    texts = []
    for m in (13, 10_000):
        learned = chowliu.chow_liu_tree(X[:m], root=2)
        right = sum(frozenset(e) in truth_edges for e in learned)
        wrong = [f"{a}–{b}" for a, b in learned if frozenset((a, b)) not in truth_edges]
        text = alt_text(demo.show_experiment(m, 2))
        assert f"learns from m = {m} samples, directed away from the root 2: {right} of its 9" \
            in text
        assert (f"the wrong ones, dashed: {', '.join(wrong)}." in text) == bool(wrong)
        texts.append(text)
    assert "9 of its 9 edges" in texts[1] and texts[0] != texts[1]


def test_mi_heatmap_and_kl_alt_texts_state_their_numbers():
    truth, X = demo.true_tree()
    mi = chowliu.mutual_information(X[:500])
    off = mi[~np.eye(10, dtype=bool)]
    text = alt_text(demo.show_mi_heatmap(mi, chowliu.chow_liu_tree(X[:500])))
    assert f"from {off.min():.4f} to {off.max():.4f} nats" in text
    assert "the 9 Chow-Liu edges are ringed" in text
    curve = demo.kl_curve(sizes=(10, 100), samples=2)
    kl = alt_text(demo.show_kl(curve))
    assert f"falls from {curve.chow_liu[0]:.3g} to {curve.chow_liu[1]:.3g} nats" in kl
    assert "each the mean of 2 samples" in kl


def _chowliu_text(name: str) -> str:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / f"solutions/06_chowliu/chowliu_{name}.ipynb"
    return " ".join(" ".join("".join(c["source"]).split())
                    for c in json.loads(path.read_text())["cells"])


def test_the_right_edge_count_over_the_slider_is_as_the_widget_text_says():
    # §5: "climbs from 5 of 9 at m = 10 to 8 at m = 40, drops back to 7 at m = 50 ..., and
    # stays at 9 from m = 100 on" (review: "watch the red edges disappear" is not monotone).
    counts = {m: demo.experiment(m).correct for m in demo.SAMPLE_SIZES}
    assert (counts[10], counts[40], counts[50]) == (5, 8, 7)
    assert all(counts[m] == 9 for m in demo.SAMPLE_SIZES if m >= 100)
    assert all(counts[m] < 9 for m in demo.SAMPLE_SIZES if m < 100)
    text = _chowliu_text("walkthrough")
    assert "climbs from 5 of 9 at $m = 10$ to 8 at $m = 40$, drops back to 7 at $m = 50$" in text
    assert "stays at 9 from $m = 100$ on" in text


def test_the_edge_colour_words_name_the_drawn_styles():
    # §5: "solid green" right edges, "dashed orange" wrong ones, and the tie line is the last,
    # uncoloured (black) line under the caption.
    from mllib.plotting import PALETTE

    assert demo.RIGHT_EDGE == {"color": PALETTE[2], "linestyle": "-"}
    assert demo.WRONG_EDGE == {"color": PALETTE[1], "linestyle": "--"}
    fig = demo.show_experiment(40, 0)
    lowest = min(fig.axes[1].texts, key=lambda t: t.get_position()[1])
    assert lowest.get_color() == "black"
    text = _chowliu_text("walkthrough")
    assert "The red line" not in text and "watch the red edges" not in text
    assert "dashed orange when it does not" in text and "The last line under the caption" in text


def test_the_exercise_6_example_has_three_tied_maximum_likelihood_trees():
    # The reference answer of the new Ex 6(b): samples 000, 111, 000, 111; every pair has
    # I = ln 2; three spanning trees tie; each has log-likelihood -4 ln 2.
    X = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0], [1, 1, 1]])
    info = chowliu.mutual_information(X)
    np.testing.assert_allclose(info[np.triu_indices(3, 1)], np.log(2), rtol=1e-12)
    assert demo.count_maximum_trees(info) == 3
    for edges in ([(0, 1), (1, 2)], [(1, 0), (0, 2)], [(0, 2), (2, 1)]):
        # smoothing 1e-12 ≈ the frequency CPTs (s must be > 0): off by about 1e-11 relative
        tree = chowliu.fit_tree(X, edges, smoothing=1e-12)
        assert chowliu.log_likelihood(tree, X) == pytest.approx(-4 * np.log(2), rel=1e-9)
    assert "samples 000, 111, 000, 111" in _chowliu_text("exercises")


# --- Reviews r3/r4 of lecture 06 ----------------------------------------------------------------


def test_the_root_moves_the_smoothed_numbers_at_every_m_but_never_the_tree():
    # §5: the undirected tree is the same for every root; Laplace smoothing (s = 1) makes the
    # KL shift with the root: 1.1999 to 1.2703 nats at m = 10, by less than 1e-4 at m = 1000
    # (8e-5 here, far above rounding); with frequency CPTs no root is better.
    truth, X = demo.true_tree()
    for m in (10, 50, 1000):
        runs = [demo.experiment(m, root) for root in range(10)]
        assert len({frozenset(frozenset(edge) for edge in run.learned) for run in runs}) == 1
        kls = [run.kl for run in runs]
        assert max(kls) - min(kls) > 1e-6
        if m == 10:
            assert (round(min(kls), 4), round(max(kls), 4)) == (1.1999, 1.2703)
        if m == 1000:
            assert max(kls) - min(kls) < 1e-4
        # s -> 0 (fit_tree asks for s > 0): frequency CPTs, the same likelihood from every root
        # up to O(s) = 1e-9, far below the smoothed shifts above.
        plain = [chowliu.log_likelihood(chowliu.fit_tree(X[:m], run.learned, smoothing=1e-9),
                                        X[:m]) for run in runs]
        np.testing.assert_allclose(plain, plain[0], rtol=1e-6)
    text = markdown_text("06_chowliu/chowliu_walkthrough.ipynb")
    assert "the root is chosen only after the spanning tree (step 4)" in text
    assert "0.07 nats at $m = 10$ (1.1999 to 1.2703), by less than 0.0001 at $m = 1000$" in text
    assert "CS446's last step" not in text and "maximum-likelihood tree" in text


def test_the_kl_figure_shows_the_standard_error_of_both_curves():
    curve = demo.kl_curve(sizes=(10, 100), samples=2)
    ax = demo.show_kl(curve).axes[0]
    bars = [c for c in ax.collections if len(c.get_segments()) == 2]
    assert len(bars) == 2  # one vertical bar per size, per curve
    for segments, means, se in zip((b.get_segments() for b in bars),
                                   (curve.chow_liu, curve.true_structure),
                                   (curve.chow_liu_se, curve.true_structure_se), strict=True):
        np.testing.assert_allclose([seg[1][1] - seg[0][1] for seg in segments], 2 * se,
                                   rtol=1e-9)
        np.testing.assert_allclose([(seg[0][1] + seg[1][1]) / 2 for seg in segments], means,
                                   rtol=1e-9)
    assert all("± s.e." in t.get_text() for t in ax.get_legend().get_texts())
