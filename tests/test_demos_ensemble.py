"""The ensembles walk-through's widget logic, tables and figures, without a browser."""

import ipywidgets
import numpy as np

from mllib.demos import ensemble as demo
from mllib.demos import explore


def test_toy_table_shows_the_slides_alpha_slip():
    rows = demo.toy_table().splitlines()[2:]
    assert rows[1] == "| 2 | 3/14 = 0.2143 | 0.21 | 0.6496 | 0.65 | 0.6625 |"
    assert rows[2] == "| 3 | 3/22 = 0.1364 | 0.14 | 0.9229 | 0.92 | 0.9076 |"


def test_round_frame_sizes_points_by_the_distribution():
    movie = demo.boosting_movie("toy")
    fig = demo.show_round(2, "toy")
    sizes = np.concatenate([c.get_sizes() for c in fig.axes[0].collections[-2:]])
    D = movie.run.history[1].distribution
    order = np.concatenate([np.flatnonzero(movie.y == 1), np.flatnonzero(movie.y == -1)])
    np.testing.assert_allclose(sizes / sizes.max(), D[order] / D.max())
    assert "ε = 0.214, α = 0.650" in fig.axes[0].get_title()


def test_round_scrubber_regions_are_h_after_t_rounds():
    movie = demo.boosting_movie("moons")
    for t in (1, 5, 20):
        grid = np.column_stack([movie.grid_x.ravel(), movie.grid_y.ravel()])
        expected = movie.run.predict(grid, rounds=t).reshape(movie.grid_x.shape)
        np.testing.assert_array_equal(np.where(movie.grid_scores[t - 1] > 0, 1.0, -1.0),
                                      expected)


def test_training_error_stays_under_the_bound_and_falls():
    c = demo.boosting_curves()
    assert np.all(c.training_error <= c.bound + 1e-12)
    assert c.training_error[-1] < c.training_error[0]


def test_bagging_moves_the_boundary_less_than_one_tree():
    v = demo.bagging_variance()
    assert v.bag_disagreement < v.tree_disagreement


def test_oob_error_tracks_test_error():
    c = demo.forest_curves()
    assert abs(c.bag_oob[-1] - c.bag_test[-1]) < 0.05
    assert abs(c.forest_oob[-1] - c.forest_test[-1]) < 0.05


def test_round_widget_reruns_its_frame(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    drawn = []

    def frame(t, dataset):
        drawn.append(demo.show_round(t, dataset))
        return drawn[-1]

    box = explore(frame, t=ipywidgets.IntSlider(value=1, min=1, max=30),
                  dataset=ipywidgets.Dropdown(options=["toy", "moons"]))
    box.children[0].value = 3
    assert drawn[-1].axes[0].get_title().startswith("round 3:")
    assert box.result.data.startswith(b"\x89PNG")
