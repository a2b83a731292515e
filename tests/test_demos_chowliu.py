"""The Chow-Liu walk-through's widget logic, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import chowliu
from mllib.demos import chowliu as demo
from mllib.demos import explore


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
    small, large = demo.show_experiment(10), demo.show_experiment(10_000)
    assert small.axes[1].get_title() != large.axes[1].get_title()
    assert "9 of 9 edges right" in large.axes[1].get_title()
    green = (0.17254901960784313, 0.6274509803921569, 0.17254901960784313, 1.0)
    assert all(colour == green for colour in _arrows(large, 1))
    assert any(colour != green for colour in _arrows(small, 1))
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

    box = explore(frame, m=ipywidgets.FloatLogSlider(value=100, base=10, min=1, max=4),
                  root=ipywidgets.Dropdown(options=list(range(10)), value=0))
    slider, dropdown = box.children[:2]
    slider.value = 1000
    dropdown.value = 3
    assert seen == [(100, 0), (1000, 0), (1000, 3)]


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
