"""The SVM walk-through's widget logic, tables and figures, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import svm
from mllib.demos import explore
from mllib.demos import svm as demo


def test_descent_table_prints_mmds_fig_12_20_rows_1_to_4():
    """Typed from the book; row (4) prints "xxxxxxx", a misprint for six x's."""
    table = demo.descent_table(demo.book_run(5)).splitlines()
    assert table[0] == "|  | w = [u, v] | b | bad | ∂/∂u | ∂/∂v | ∂/∂b |"
    assert table[2:6] == [
        "| (1) | [0.000, 1.000] | -2.000 | oxoooo | -0.200 | 0.800 | -2.100 |",
        "| (2) | [0.040, 0.840] | -1.580 | oxoxxx | 0.440 | 0.940 | -1.380 |",
        "| (3) | [-0.048, 0.652] | -1.304 | oxoxxx | 0.352 | 0.752 | -1.104 |",
        "| (4) | [-0.118, 0.502] | -1.083 | xxxxxx | -0.118 | -0.198 | -1.083 |",
    ]
    assert len(table) == 2 + 6  # rows (1)-(6): the start and five updates


def test_descent_table_continues_for_exercise_12_3_1():
    rows = demo.descent_table(demo.book_run(8)).splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| ({k})" for k in range(1, 10)]
    assert all(" | oxxxxx | " in row for row in rows[6:])


def test_example_12_8_figure_rings_all_four_points():
    fig = demo.show_example_12_8()
    rings = fig.axes[0].collections[-1].get_offsets()
    np.testing.assert_array_equal(rings, [[1, 2], [2, 1], [3, 4], [4, 3]])
    assert "γ = 1/‖w‖ = 0.707" in fig.axes[0].get_title()


def test_hinge_figure_draws_the_hinge_of_fig_12_17():
    line = demo.show_hinge().axes[0].get_lines()[0]
    z, loss = line.get_data()
    np.testing.assert_allclose(loss, np.maximum(0, 1 - z))


@pytest.mark.parametrize("C", demo.CS578_C)
def test_soft_margin_sorts_support_vectors_into_cs578s_three_kinds(C):
    fit = demo.soft_margin(C)
    sol = fit.solution
    z = svm.margins(sol.w, sol.b, fit.X, fit.y)
    assert fit.on_margin + fit.inside + fit.misclassified == len(sol.support)
    assert fit.misclassified == np.sum(z < 0)
    np.testing.assert_allclose(fit.slack, np.maximum(0, 1 - z))
    assert np.all(fit.slack[np.setdiff1d(np.arange(len(z)), sol.support)] == 0)


def test_smaller_c_widens_the_margin_and_adds_support_vectors():
    """CS578: large C allows few violations, small C many; MMDS: small C, large margin."""
    fits = [demo.soft_margin(C) for C in demo.CS578_C]  # C decreasing
    margins = np.array([f.solution.margin for f in fits])
    counts = [len(f.solution.support) for f in fits]
    # Non-decreasing up to rounding: when two C's give the same solution (both hard-margin, say)
    # their margins are equal in exact arithmetic but may come out an ulp apart in either order,
    # depending on the BLAS. 1e-9 relative is far above rounding and far below a real change.
    assert np.all(np.diff(margins) >= -1e-9 * margins[:-1]), margins
    assert margins[-1] > margins[0] * (1 + 1e-3), margins  # and the margin really widens
    assert counts == sorted(counts) and counts[0] < counts[-1]  # integers: exact order is fine


def test_slack_segments_run_from_the_margin_line_to_the_point():
    fit = demo.soft_margin(1.0)
    w, b = fit.solution.w, fit.solution.b
    segments = demo.slack_segments(w, b, fit.X, fit.y)
    bad = fit.slack > svm.SUPPORT_TOL  # points on their margin line up to rounding have none
    assert len(segments) == bad.sum() == fit.inside + fit.misclassified
    np.testing.assert_allclose(segments[:, 0] @ w + b, fit.y[bad])  # on the own margin line
    np.testing.assert_array_equal(segments[:, 1], fit.X[bad])
    lengths = np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1)
    np.testing.assert_allclose(lengths, fit.slack[bad] / np.linalg.norm(w))


def test_moving_the_c_slider_redraws_separator_support_and_slacks():
    wide, narrow = demo.show_soft_margin(0.01), demo.show_soft_margin(100.0)
    assert wide.axes[0].get_title() != narrow.axes[0].get_title()
    # Lines: separator, two margin lines, then one red segment per example with slack.
    wide_lines, narrow_lines = len(wide.axes[0].get_lines()), len(narrow.axes[0].get_lines())
    assert wide_lines - 3 == np.sum(demo.soft_margin(0.01).slack > svm.SUPPORT_TOL)
    assert narrow_lines - 3 == np.sum(demo.soft_margin(100.0).slack > svm.SUPPORT_TOL)
    assert wide_lines != narrow_lines


def test_c_gallery_has_one_panel_per_cs578_value():
    titles = [ax.get_title() for ax in demo.show_c_gallery().axes]
    assert [t.split(":")[0] for t in titles] == ["C = 100", "C = 10", "C = 1", "C = 0.1",
                                                 "C = 0.01"]


def test_leave_one_out_study_respects_the_cs578_bound():
    rows = demo.leave_one_out_study()
    assert rows[0].C is None
    for row in rows:
        assert row.error <= row.bound
    table = demo.leave_one_out_table(rows).splitlines()
    assert table[2].startswith("| hard margin | ")
    assert len(table) == 2 + len(rows)


def test_descent_frame_crosses_the_bad_points_of_iteration_k():
    run = demo.book_run(60, 0.2)
    for k in (0, 3, 5, 40):
        fig = demo.show_descent(0.2, k)
        crosses = fig.axes[0].collections[-1].get_offsets()
        assert len(crosses) == run.history[k].pattern.count("x")
        assert fig.axes[0].get_title().endswith(f"iteration {k}: bad = {run.history[k].pattern}")
    with pytest.raises(ValueError, match="between 0 and 60"):
        demo.show_descent(0.2, 61)


def test_moving_eta_changes_the_run():
    slow, fast = demo.show_descent(0.05, 10), demo.show_descent(1.0, 10)
    assert slow.axes[1].get_title() != fast.axes[1].get_title()
    slow_gap = slow.axes[1].get_lines()[0].get_ydata()
    fast_gap = fast.axes[1].get_lines()[0].get_ydata()
    assert not np.allclose(slow_gap, fast_gap)


def test_method_comparison_never_beats_the_exact_optimum():
    comparison = demo.compare_methods(epochs=30)
    for gap in (comparison.batch_constant, comparison.batch_decaying, comparison.sgd_constant,
                comparison.sgd_pegasos):
        assert len(gap) == 30
        assert np.all(gap >= -1e-12)  # f* is the minimum: no descent may go below it
    # Pegasos's 1/t settles where a constant SGD step keeps bouncing.
    assert comparison.sgd_pegasos[-1] < comparison.sgd_constant[-1]
    # With a step too large for the data, the decaying step still closes in; the constant stalls.
    too_large = demo.compare_methods(epochs=30, eta=10 * race_step())
    assert too_large.batch_decaying[-1] < too_large.batch_constant[-1]
    assert len(demo.show_comparison(comparison).axes[0].get_lines()) == 4


def test_c_slider_is_a_static_frame_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    slider = ipywidgets.FloatLogSlider(value=1, base=10, min=-2, max=2, description="penalty C")
    frame = explore(demo.show_soft_margin, C=slider)
    assert isinstance(frame, Figure)
    assert frame.axes[0].get_title().startswith("C = 1:")


def test_descent_widget_reruns_the_frame_when_a_slider_moves(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(eta, k):
        seen.append((eta, k))
        return demo.show_descent(eta, k)

    box = explore(frame, eta=ipywidgets.FloatSlider(value=0.2, min=0.05, max=1.5),
                  k=ipywidgets.IntSlider(value=0, min=0, max=60))
    box.children[1].value = 5
    assert seen == [(0.2, 0), (0.2, 5)]


def test_the_tilt_of_example_12_9_comes_from_the_b_squared_term_not_from_c():
    X, y = svm.mmds_fig_12_18()
    plain = svm.solve(X, y, C=0.1)
    # b free: the horizontal line y = 2.5 (worked by hand: w = [0, 2/3], b = -5/3; the
    # constraints of the four points on y = 1 and y = 4 hold with z = 1, the two others inside).
    np.testing.assert_allclose(plain.w, [0.0, 2 / 3], atol=1e-9)
    assert plain.b == pytest.approx(-5 / 3, abs=1e-9)
    tilted = svm.solve(X, y, C=0.1, regularize_bias=True)
    np.testing.assert_allclose(tilted.w, [-0.1, 0.3], atol=1e-9)
    assert tilted.b == pytest.approx(-0.1, abs=1e-9)
    fig = demo.show_bias_conventions()
    assert "b = -1.67" in fig.axes[0].get_title() and "b = -0.1" in fig.axes[1].get_title()


def test_the_batch_step_keeps_the_race_from_stalling():
    race = demo.compare_methods()
    # With η = 1/(CΣ‖x‖²) the constant-step run keeps improving: 10x closer from epoch 10 to 60.
    assert race.batch_constant[-1] < race.batch_constant[9] / 10
    stalled = demo.compare_methods(eta=10 * race_step())
    assert stalled.batch_constant[-1] > 10 * race.batch_constant[-1]


def race_step():
    from mllib import data

    X, _, _ = data.noisy(200, 2, margin=0.05, flip=0.1, seed=5)
    return demo.batch_step(np.hstack([X, np.ones((200, 1))]), 1.0)


def test_a_small_c_keeps_the_separator_in_view():
    ax = demo.show_c_gallery().axes[-1]  # C = 0.01
    fit = demo.soft_margin(0.01)
    w, b = fit.solution.w, fit.solution.b
    centre = (fit.X.min(axis=0) + fit.X.max(axis=0)) / 2
    assert abs(centre @ w + b) / np.linalg.norm(w) > 2  # far from the data: it was off-screen
    nearest = centre - (centre @ w + b) / (w @ w) * w  # a point of the separator
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    assert x_lo < nearest[0] < x_hi and y_lo < nearest[1] < y_hi
