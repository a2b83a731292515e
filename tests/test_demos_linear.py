"""The linear-models walk-through's widget logic, tables and figures, driven without a browser."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import linear
from mllib.demos import explore
from mllib.demos import linear as demo


def test_example_12_2_table_prints_the_books_numbers_and_the_true_rmse():
    rows = demo.example_12_2_table().splitlines()[2:]
    assert rows[0] == "| least squares, y = 0.6x + 1 | 3.2 | 0.8944 |"
    assert rows[1] == "| the principal axis y = x (MMDS §11.2.1) | 4 | 1.0000 |"
    assert rows[2].startswith("| best through the origin, y = (14/15)x = 0.9333x | 3.867 |")


def test_example_12_2_figure_marks_the_minimum_at_three_fifths_and_one():
    fig = demo.show_example_12_2()
    star = fig.axes[1].get_lines()[0]
    np.testing.assert_allclose(np.ravel(star.get_data()), [0.6, 1.0])


def test_race_distances_start_at_the_least_squares_norm_and_sgd_gets_below_lms():
    race = demo.race(0.05, 0.01)
    _, _, w_ls = demo.race_data()
    for distance in race.distances.values():
        assert distance.shape == (26,)
        assert distance[0] == pytest.approx(np.linalg.norm(w_ls), rel=1e-12)
    # a constant rate stalls at a noise floor; the decaying one gets through it
    assert race.distances["SGD, η₀/(1 + ct)"][-1] < race.distances["LMS (constant η)"][-1] / 2


def test_race_decay_zero_makes_sgd_identical_to_lms():
    race = demo.race(0.05, 0.0)
    np.testing.assert_array_equal(race.distances["SGD, η₀/(1 + ct)"],
                                  race.distances["LMS (constant η)"])


def test_race_figure_draws_what_race_computed():
    fig = demo.show_race(0.1, 0.05)
    lines = fig.axes[0].get_lines()
    race = demo.race(0.1, 0.05)
    for line, distance in zip(lines, race.distances.values(), strict=True):
        np.testing.assert_allclose(line.get_ydata(), np.clip(distance, 1e-12, 1e6))


def test_moving_the_decay_slider_reuses_the_runs_that_do_not_depend_on_it():
    demo.race(0.07, 0.01)
    before = demo._paths_for_eta.cache_info()
    demo.race(0.07, 0.02)  # only c moved: LMS, gradient descent and AdaGrad come from the cache
    after = demo._paths_for_eta.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)


def test_lasso_paths_have_exact_zeros_and_ridge_paths_do_not():
    paths = demo.coefficient_paths()
    assert np.all(paths.lasso[-1] == 0)
    assert not np.any(paths.ridge == 0)
    zeros = np.sum(paths.lasso == 0, axis=1)
    assert zeros[0] == 0
    assert np.all(np.diff(zeros) >= 0)  # on this data the zeros only accumulate as α grows


def test_logistic_figure_title_shows_the_fitted_weights():
    X, y = demo.logistic_data()
    w = linear.logistic_regression(X, y, C=1.0).w
    assert str(np.round(w, 2).tolist()) in demo.show_logistic(1.0).axes[0].get_title()


def test_losses_figure_draws_five_curves():
    lines = demo.show_losses().axes[0].get_lines()
    assert [line.get_label() for line in lines[:5]] == ["0-1", "squared", "hinge", "log",
                                                        "exponential"]


def test_explore_draws_a_static_frame_under_nbgrader(monkeypatch):
    from ipywidgets import FloatLogSlider

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_logistic, C=FloatLogSlider(value=1.0, min=-2, max=2))
    assert isinstance(frame, Figure)
