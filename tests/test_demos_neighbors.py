"""The nearest-neighbour walk-through's widget logic, tables and figures, without a browser."""

import ipywidgets
import numpy as np
import pytest

from mllib import data
from mllib import neighbors as N
from mllib.demos import explore
from mllib.demos import neighbors as demo


def test_fig_12_24_table_prints_the_books_lines_and_sums():
    table = demo.fig_12_24_table().splitlines()
    assert table[4] == "| (3) | wᵢ | 4/25 | 4/9 | 4 | 4 | 4/9 | 4/25 | 4/49 | Σ = 9.29 |"
    assert table[5] == "| (4) | wᵢ yᵢ | 4/25 | 8/9 | 16 | 32 | 16/9 | 8/25 | 4/49 | Σ = 51.23 |"
    assert table[-1] == "Estimate at q = 3.5: 51.23 / 9.29 = 5.51"


def test_rules_figure_draws_each_rule_and_the_books_line():
    fig = demo.show_rules()
    x, y = data.mmds_peak()
    for ax, rule in zip(fig.axes, N.EX_12_12_RULES, strict=True):
        q, estimate = ax.get_lines()[0].get_data()
        np.testing.assert_allclose(estimate, N.one_d_rule(x, y, q, rule))
    q, line = fig.axes[2].get_lines()[2].get_data()
    np.testing.assert_array_equal(line, q)  # the straight line through (1, 1) and (2, 2)


def test_voronoi_colours_every_cell_by_its_dogs_breed():
    fig = demo.show_voronoi()
    mesh = fig.axes[0].collections[0]
    X, y, _ = data.dogs()
    assert set(np.unique(mesh.get_array())) == set(y)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_one_nn_and_distance_weights_fit_the_training_set(weights):
    r = demo.knn_regions(1, weights)
    assert r.training_error == 0
    assert 0 < r.test_error < 0.5


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
    assert "σ = 0.80" in fig.axes[0].get_legend().get_texts()[0].get_text()


def test_concentration_table_shrinks_with_d():
    rows = demo.concentration_table().splitlines()[2:]
    contrast = [float(r.split(" | ")[-1].rstrip(" |")) for r in rows]
    assert contrast == sorted(contrast, reverse=True)


def test_widgets_rerun_their_frames(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    drawn = []

    def frame(k, weights):
        drawn.append(demo.show_knn(k, weights))
        return drawn[-1]

    box = explore(frame, k=ipywidgets.IntSlider(value=1, min=1, max=41, step=2),
                  weights=ipywidgets.Dropdown(options=["uniform", "distance"]))
    box.children[0].value = 9
    assert "k = 9" in drawn[-1].axes[0].get_title()
    assert box.result.data.startswith(b"\x89PNG")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_kernel, sigma=ipywidgets.FloatSlider(value=0.5))
    assert "σ = 0.50" in frame.axes[0].get_legend().get_texts()[0].get_text()
