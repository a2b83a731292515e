"""The SVM walk-through's widget logic, tables and figures, driven without a browser."""

import inspect
import itertools
import math

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, labelled_ticks, png_pixels
from matplotlib.figure import Figure

from mllib import svm
from mllib.demos import explore
from mllib.demos import svm as demo
from mllib.plotting import alt_text


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
    assert fit.misclassified == np.sum(z <= 0)  # a score of 0 is a mistake (MMDS)
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
    # The widget's one figure is redrawn in place: read each frame before drawing the next.
    wide = demo.show_soft_margin(0.01).axes[0]
    wide_title, wide_slacks = wide.get_title(), len(wide.collections[-1].get_segments())
    narrow = demo.show_soft_margin(100.0).axes[0]
    assert wide_title != narrow.get_title()
    # Lines: separator and two margin lines; one red segment per example with slack.
    assert len(narrow.get_lines()) == 3
    narrow_slacks = len(narrow.collections[-1].get_segments())
    assert wide_slacks == np.sum(demo.soft_margin(0.01).slack > svm.SUPPORT_TOL)
    assert narrow_slacks == np.sum(demo.soft_margin(100.0).slack > svm.SUPPORT_TOL)
    assert wide_slacks != narrow_slacks


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_c_slider_redrawn_in_place_shows_what_a_fresh_build_shows(C):
    """The same data, and the same pixels, whether the figure was just built for C or redrawn
    in place after other values of C."""
    demo._soft_margin_view.cache_clear()
    fresh = demo.show_soft_margin(C)
    fresh_drawn, fresh_pixels = drawn(fresh), png_pixels(fresh)
    for other in (0.01, 3.0, 100.0):
        png_pixels(demo.show_soft_margin(other))
    again = demo.show_soft_margin(C)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


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


def test_the_underfitting_c_is_named_for_this_one_sample():
    """§6: "C = 0.1 ... the largest leave-one-out error on this one sample (4 mistakes of 30,
    against at most 1 for the others)": mistakes counted, whole numbers."""
    mistakes = {row.C: round(row.error * 30) for row in demo.leave_one_out_study()}
    assert mistakes[0.1] == 4 and max(v for c, v in mistakes.items() if c != 0.1) == 1
    assert "(4 mistakes of 30, against at most 1 for the others)" in _walkthrough_text()


def test_a_smaller_c_never_narrows_the_margin_nor_empties_the_band():
    """§5: "As C falls the margin never narrows and the band holds no fewer points (inside or
    misclassified)", over the slider's values; §6 proves the first half in the optional part."""
    fits = [demo.soft_margin(C) for C in 10.0 ** np.linspace(2, -2, 17)]  # C falling
    margins = [f.solution.margin for f in fits]
    band = [f.inside + f.misclassified for f in fits]
    # 1e-9: the solver's tolerance (C = 100 and 10 share one margin)
    assert all(b >= a - 1e-9 for a, b in zip(margins[:-1], margins[1:], strict=True))
    assert all(b >= a for a, b in zip(band[:-1], band[1:], strict=True))
    text = _walkthrough_text()
    assert "never narrows ($b$ is free here), and on this sample the band holds no fewer" in text
    assert "other samples break that second rule" in text


def test_the_band_rule_of_section_5_is_this_samples_not_the_svms():
    # Review r10 of lecture 02: a sample (its counterexample, b unique) where the smaller C puts
    # fewer points inside the band: at C = 6 points 1 and 6 have z < 1, at C = 5 only point 6
    # (point 1 moves onto its margin line). scikit-learn's SVC, an independent solver, agrees.
    sklearn_svm = pytest.importorskip("sklearn.svm")
    X = np.array([[.947, -.379], [-.819, -.969], [.123, -.648], [-.765, .811], [.365, -.395],
                  [.734, 1.367], [-1.094, -.603], [.943, .719], [.227, 1.162],
                  [-1.088, -1.479], [-.867, .123]])
    y = np.array([1, 1, 1, -1, 1, -1, -1, -1, -1, 1, -1.0])
    inside = {}
    for C in (6.0, 5.0):
        sol = svm.solve(X, y, C=C)
        assert sol.exact
        z = svm.margins(sol.w, sol.b, X, y)
        inside[C] = set(np.flatnonzero(z < 1 - 1e-6))  # 1e-6: far below the 0.27 of point 1
        fit = sklearn_svm.SVC(kernel="linear", C=C, tol=1e-12).fit(X, y)
        np.testing.assert_allclose(fit.coef_[0], sol.w, atol=1e-5)  # SVC's own tolerance
        assert fit.intercept_[0] == pytest.approx(sol.b, abs=1e-5)
    assert inside == {6.0: {1, 6}, 5.0: {6}}


def test_with_b_regularised_a_smaller_c_can_narrow_the_margin():
    # Review r10 of lecture 02: the optional part's proof needs b free. With MMDS's b²/2 on
    # Exercise 12.3.2's data the margin goes 1.377, 1.289, 1.392 as C falls 4, 3.5, 3; with b
    # free it stays √2. scipy's SLSQP on the constrained QP (an independent solver) agrees.
    from scipy.optimize import minimize

    X, y = demo.exercise_12_3_2()
    margins = {C: svm.solve(X, y, C=C, regularize_bias=True).margin for C in (4.0, 3.5, 3.0)}
    assert [round(m, 3) for m in margins.values()] == [1.377, 1.289, 1.392]
    for C in margins:
        assert svm.solve(X, y, C=C).margin == pytest.approx(np.sqrt(2), abs=1e-9)
    n, d = X.shape  # variables [w, b, ξ]: ½(‖w‖² + b²) + C Σξ, yᵢ(w·xᵢ + b) >= 1 - ξᵢ, ξ >= 0
    C = 3.5
    result = minimize(
        lambda v: 0.5 * v[:d + 1] @ v[:d + 1] + C * v[d + 1:].sum(), np.zeros(n + d + 1),
        method="SLSQP", bounds=[(None, None)] * (d + 1) + [(0, None)] * n,
        constraints={"type": "ineq",
                     "fun": lambda v: y * (X @ v[:d] + v[d]) - 1 + v[d + 1:]},
        options={"ftol": 1e-12, "maxiter": 500})
    assert 1 / np.linalg.norm(result.x[:d]) == pytest.approx(margins[3.5], abs=1e-4)
    text = _walkthrough_text()
    assert "**Why, with $b$ free, a smaller $C$ never narrows the margin.**" in text
    assert "With $b$ free, a smaller $C$ never narrows the margin" in text  # §6
    assert ("$C = 4$ gives a margin of 1.377, the smaller $C = 3.5$ a narrower 1.289, and $C = 3$ "
            "a wider 1.392 again, while with $b$ free all three give $\\sqrt2$") in text


def test_a_constant_step_settles_only_where_the_margin_points_carry_no_weight():
    # Review r10 of lecture 02. Example 12.9: the one point on its margin line, (1, 4), has dual
    # weight 0, so the gradient of the settled pattern oxxxxx vanishes at the optimum. The
    # race: three points on their margin lines with weights strictly between 0 and C = 1, and
    # for each of the 2³ ways to count them bad the gradient at the optimum is far from 0.
    X, y = svm.mmds_fig_12_18()
    best = svm.solve(X, y, C=demo.BOOK_C, regularize_bias=True)
    np.testing.assert_allclose(best.alpha, [0, 0.1, 0.1, 0.1, 0.1, 0.1], atol=1e-12)
    assert svm.bad_pattern(svm.margins(best.w, best.b, X, y)) == "oxxxxx"
    assert np.abs(svm.gradient(best.w, best.b, X, y, demo.BOOK_C)).max() < 1e-12
    X, y = demo.race_sample()
    best = svm.solve(X, y, C=1.0, regularize_bias=True)
    z = svm.margins(best.w, best.b, X, y)
    on_line = np.flatnonzero(np.abs(z - 1) < 1e-9)
    assert np.round(best.alpha[on_line], 3).tolist() == [0.016, 0.729, 0.467]
    Z = y[:, None] * np.hstack([X, np.ones((len(y), 1))])
    inside = Z[z < 1 - 1e-9].sum(axis=0)
    for counted in itertools.product((0, 1), repeat=len(on_line)):  # 1: counted as bad
        gradient = np.append(best.w, best.b) - inside - np.array(counted) @ Z[on_line]
        assert np.linalg.norm(gradient) > 0.01, counted
    text = _walkthrough_text()
    assert "$(1, 4)$, carries dual weight 0 (printed above)" in text
    assert "lie on their margin lines with weights strictly between 0 and $C = 1$" in text
    assert "no constant step can converge" in text


def test_the_race_is_one_run_and_the_sweep_says_how_often_each_method_wins():
    # Review r10 of lecture 02: with seed 6 Pegasos ends above batch descent. Over seeds 0-19
    # Pegasos ends lowest on 16 samples, constant-step batch descent on 4, SGD's constant γ on 0.
    names, ends = demo.race_ends()
    assert ends.shape == (20, 4) and names[3] == "SGD, γ = 1/t (Pegasos)"
    lowest = np.bincount(np.argmin(ends, axis=1), minlength=4)
    assert lowest.tolist() == [4, 0, 0, 16]
    six = demo.compare_methods(seed=6)
    assert six.sgd_pegasos[-1] > six.batch_constant[-1]
    table = demo.race_ends_table(names, ends)
    assert "| SGD, γ = 1/t (Pegasos) | " in table and table.rstrip().endswith("| 16 |")
    text = _walkthrough_text()
    assert "These numbers come from one sample and one shuffle (seed 5)" in text
    # Review r11: the constant SGD step is stated; each pull adds γC' = γ·nC times an example.
    gamma = inspect.signature(demo.compare_methods).parameters["gamma"].default
    assert math.isclose(gamma * len(demo.race_sample()[1]) * 1.0, 0.2, rel_tol=1e-12)
    assert "constant step is $\\gamma = 0.001$: with $n = 200$ and $C = 1$" in text
    assert "pull adds $\\gamma C' = 0.2$ times an example" in text
    assert ("Pegasos ends lowest on 16 of them, batch descent with the constant step on the "
            "other 4, and SGD's constant $\\gamma$ never") in text


def test_a_unit_step_lands_on_the_optimum_once_the_pattern_is_fixed():
    """The optional part: with the pattern fixed the gradient is v - v*, so from row (7) one
    step of η = 1 lands on the optimum (η < 1 keeps 1 - η of the distance: the test above)."""
    row7 = demo.book_run(6).history[6]
    X, y = svm.mmds_fig_12_18()
    step = svm.gradient_descent(X, y, C=demo.BOOK_C, eta=1.0, w0=row7.w, b0=row7.b,
                                iterations=1)
    np.testing.assert_allclose(np.append(step.w, step.b), [-0.1, 0.3, -0.1], atol=1e-12)
    text = _walkthrough_text()
    assert "from a point already in that pattern $\\eta = 1$ would land in one step" in text
    # Reviews r11/r12 of lecture 02: from the book's start η = 1 never settles (§4's table).
    assert demo.descent_cycle(1.0).period == 2
    assert "from the book's start it never gets there: it ends in a 2-cycle" in text


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
    # The widget's one figure is redrawn in place: read each frame before drawing the next.
    slow = demo.show_descent(0.05, 10).axes[1]
    slow_title, slow_gap = slow.get_title(), slow.get_lines()[0].get_ydata().copy()
    fast = demo.show_descent(1.0, 10).axes[1]
    assert slow_title != fast.get_title()
    assert not np.allclose(slow_gap, fast.get_lines()[0].get_ydata())


@pytest.mark.parametrize(("eta", "k"), [(0.2, 0), (0.2, 5), (1.0, 30)])
def test_descent_redrawn_in_place_shows_what_a_fresh_build_shows(eta, k):
    """The same data, and the same pixels, whether the figure was just built for (η, k) or
    redrawn in place after other steps and other η."""
    demo._descent_view.cache_clear()
    fresh = demo.show_descent(eta, k)
    fresh_drawn, fresh_pixels = drawn(fresh), png_pixels(fresh)
    for other_eta, other_k in ((eta, 60), (eta, 1), (0.05, k), (eta, 3)):
        png_pixels(demo.show_descent(other_eta, other_k))
    again = demo.show_descent(eta, k)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


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


# --- Issue 28: claims bound to the computations, widgets swept -------------------------------

# FloatSlider(min=0.05, max=1.5, step=0.05)
ETA_VALUES = [round(0.05 * k, 2) for k in range(1, 31)]
C_VALUES = [10.0**e for e in np.arange(-2, 2.01, 0.25)]  # FloatLogSlider(min=-2, max=2, step=0.25)


def _crosses_view(ax, w, b, offset: float) -> bool:
    """Whether the line w·x + b = offset passes through ``ax``'s view: w·x + b - offset changes
    sign over the view's four corners (an oracle that does not use the module's own view)."""
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    values = [w @ [x, y] + b - offset for x in (x_lo, x_hi) for y in (y_lo, y_hi)]
    return min(values) < 0 < max(values)


def _fills_its_box(ax) -> bool:
    """An equal-aspect panel keeps its box (within 1%) instead of shrinking to a sliver."""
    ax.apply_aspect()
    shown, box = ax.get_position(), ax.get_position(original=True)
    return shown.width >= 0.99 * box.width and shown.height >= 0.99 * box.height


def test_every_gallery_panel_shows_its_whole_band():
    # Reviews r9/r10 of lecture 02: at C = 0.01 the margin line w·x + b = -1 was out of view, so
    # the 19 misclassified negatives' slack segments started on an undrawn line, and the panel
    # was a narrow sliver. C = 0.01 puts the separator itself far from the data.
    fig = demo.show_c_gallery()
    for ax, C in zip(fig.axes, demo.CS578_C, strict=True):
        sol = demo.soft_margin(C).solution
        assert all(_crosses_view(ax, sol.w, sol.b, o) for o in (-1, 0, 1)), C
        assert _fills_its_box(ax), C
    fit = demo.soft_margin(0.01)
    centre = (fit.X.min(axis=0) + fit.X.max(axis=0)) / 2
    w, b = fit.solution.w, fit.solution.b
    assert abs(centre @ w + b) / np.linalg.norm(w) > 2  # the separator is far from the data


@pytest.mark.parametrize("eta", ETA_VALUES)
def test_every_descent_frame_shows_both_margin_lines(eta):
    # Review r9 of lecture 02: at the book's η = 0.2 the lower margin line was out of view for
    # k = 8...60, at η = 0.4 the upper one at every even k >= 6 (931 lines missing over the
    # 30 x 61 frames), so crossed bad points had no band edge near them.
    run = demo.book_run(60, eta)
    for k, step in enumerate(run.history):
        ax = demo.show_descent(eta, k).axes[0]
        assert all(_crosses_view(ax, step.w, step.b, o) for o in (-1, 0, 1)), (eta, k)
        assert _fills_its_box(ax), (eta, k)


@pytest.mark.parametrize("C", C_VALUES)
def test_every_c_slider_frame_shows_both_margin_lines(C):
    # Review r9 of lecture 02: C = 0.01, 0.0178 and 0.0316 left w·x + b = -1 out of view.
    sol = demo.soft_margin(C).solution
    ax = demo.show_soft_margin(C).axes[0]
    assert all(_crosses_view(ax, sol.w, sol.b, o) for o in (-1, 0, 1)), C
    assert _fills_its_box(ax), C


def test_no_mark_reuses_a_class_colour():
    # Review r10 of lecture 02: the "misclassified" bar and the iteration marker were the
    # negative class's orange.
    from matplotlib.colors import same_color

    from mllib.plotting import NEGATIVE, POSITIVE

    bars = demo.show_soft_margin(1.0).axes[1].patches
    marker = demo.show_descent(0.2, 5).axes[1].lines[-1]
    for colour in [bar.get_facecolor() for bar in bars] + [marker.get_color()]:
        assert not same_color(colour, NEGATIVE) and not same_color(colour, POSITIVE)




def test_a_point_on_its_margin_line_can_need_weight_zero():
    """The witness against CS446's αᵢ > 0: +(1, 0), -(-1, 0), +(1, 5). Any dual solution has
    w = [α₁ + α₂ + α₃, 5α₃] = [1, 0], so α₃ = 0, although (1, 5) is tight."""
    X, y = demo.tight_with_zero_weight()
    sol = svm.solve(X, y)
    np.testing.assert_allclose(sol.w, [1, 0], atol=1e-12)
    assert abs(sol.b) < 1e-12
    np.testing.assert_allclose(svm.margins(sol.w, sol.b, X, y), 1, atol=1e-12)
    assert sol.alpha[2] == pytest.approx(0, abs=1e-12)
    np.testing.assert_allclose((sol.alpha * y) @ X, sol.w, atol=1e-12)


def test_example_12_8_has_strictly_positive_dual_weights_too():
    """α = (1 - t, 1 - t, t, t) is optimal for every t in [0, 1], so t = ½ is all positive."""
    X, y = svm.mmds_example_12_8()
    for t in (0.0, 0.5, 1.0):
        alpha = np.array([1 - t, 1 - t, t, t])
        np.testing.assert_allclose((alpha * y) @ X, [-1, 1])
        assert alpha @ y == 0


def test_the_offset_makes_fig_12_18_separable():
    X, y = svm.mmds_fig_12_18()
    assert svm.solve(X, y).margin == pytest.approx(0.5)
    # The message names the real cause (no line through 0) and the remedy, not the mirrored
    # sample the function builds inside; bad input still gets its own message.
    with pytest.raises(ValueError, match="no line through the origin separates.*svm.solve"):
        demo.origin_solution(X, y)
    with pytest.raises(ValueError, match="labels"):
        demo.origin_solution(X, np.zeros(len(y)))


def test_titles_print_no_rounding_noise():
    assert "w = [0, 0.667], b = -1.67" in demo.show_bias_conventions().axes[0].get_title()
    assert demo.show_example_12_8().axes[0].get_title().startswith("w = [-1, 1], b = 0,")


def test_hinge_figure_draws_cs446s_three_losses():
    lines = demo.show_hinge().axes[0].get_lines()
    z = lines[0].get_xdata()
    np.testing.assert_allclose(lines[1].get_ydata(), np.maximum(0, 1 - z) ** 2)
    np.testing.assert_allclose(lines[2].get_ydata(), np.log(1 + np.exp(-z)))
    assert np.log(2) < 1  # the logistic loss at z = 0: below the mistake it should bound


def test_the_constant_step_cycles_described_in_section_4():
    start = demo.book_run(1).history[0].objective
    assert start == pytest.approx(2.6)
    # "(f_b = 2.6 at row (1), where f = 0.6)": f_b adds b²/2 = 2 to eq. 12.4's f
    X, y = svm.mmds_fig_12_18()
    assert svm.objective(np.array([0.0, 1.0]), -2.0, X, y, 0.1) == pytest.approx(0.6)
    assert "($f_b = 2.6$ at row (1), where $f = 0.6$)" in _walkthrough_text()
    differing = {}
    for eta in ETA_VALUES:
        cycle = demo.descent_cycle(eta)
        if eta < 0.4:  # settles on f* or is still approaching it: no two-point cycle
            assert cycle.period in (0, 1)
            if cycle.period:
                assert cycle.objectives[0] == pytest.approx(demo.book_optimum(), abs=1e-12)
            continue
        assert cycle.period == 2, eta
        a, b = cycle.patterns
        differing[eta] = sum(p != q for p, q in zip(a, b, strict=True))
        assert (cycle.objectives.max() > start) == (eta >= 1.2), eta
        assert (cycle.objectives.min() > start) == (eta >= 1.25), eta
    marks = {count: {e for e, d in differing.items() if d == count} for count in (2, 5, 6)}
    assert marks[2] == {e for e in ETA_VALUES if 0.4 <= e <= 0.7}
    assert marks[5] == {e for e in ETA_VALUES if 0.75 <= e <= 0.9}
    assert marks[6] == {e for e in ETA_VALUES if e >= 0.95}
    assert demo.descent_cycle(1.5).objectives.min() == pytest.approx(6.555)
    # "the larger the step, the higher the cycle sits": both of its points rise with η
    cycles = [demo.descent_cycle(e).objectives for e in ETA_VALUES if e >= 0.4]
    assert np.all(np.diff([c.max() for c in cycles]) > 0)
    assert np.all(np.diff([c.min() for c in cycles]) > 0)


def test_the_printed_sweep_covers_the_slider_and_says_what_it_measures():
    # §4 prints one row per slider value. Up to η = 0.35 the pattern ends as oxxxxx and from its
    # last change on the distance to the optimum shrinks by 1 - η per step (steps whose distance
    # is above 1e-10, far above rounding); the rows say "steps < 1e-9" exactly from η = 0.3.
    assert list(demo.ETA_SLIDER) == ETA_VALUES
    rows = demo.descent_endings().splitlines()[2:]
    assert len(rows) == len(ETA_VALUES)
    optimum = np.array([-0.1, 0.3, -0.1])
    for eta, row in zip(ETA_VALUES, rows, strict=True):
        if eta >= 0.4:
            assert "| 2-cycle |" in row, row
            continue
        history = demo.book_run(60, eta).history
        fixed = max(i for i, step in enumerate(history) if step.pattern != "oxxxxx") + 1
        distance = np.array([np.linalg.norm(np.append(step.w, step.b) - optimum)
                             for step in history[fixed:]])
        distance = distance[distance > 1e-10]
        assert len(distance) >= 10, eta
        np.testing.assert_allclose(distance[1:] / distance[:-1], 1 - eta, rtol=1e-5)
        assert ("steps < 1e-9" in row) == (eta >= 0.3) and "oxxxxx" in row, row
    # a run too short to settle says so (rows (1)-(6) of Fig. 12.20 change pattern)
    assert demo.descent_ending(0.2, 5)[1] == "patterns still change"
    text = _walkthrough_text()
    assert "Up to η = 0.35 the pattern ends as `oxxxxx`" in text
    assert "shrinks by the factor $1 - \\eta$ per step" in text
    assert "from η = 0.3 its last steps are below $10^{-9}$" in text


@pytest.mark.parametrize("eta", ETA_VALUES)
def test_descent_widget_sweep(eta):
    """Every step the slider allows, the scrubber's ends and a few iterations between: the
    crosses are the bad points of that iteration, and the log axis keeps two labelled ticks."""
    import matplotlib.pyplot as plt

    run = demo.book_run(60, eta)
    for k in (0, 1, 7, 30, 59, 60):
        fig = demo.show_descent(eta, k)
        crosses = fig.axes[0].collections[-1].get_offsets()
        X, _ = svm.mmds_fig_12_18()
        bad = [c == "x" for c in run.history[k].pattern]
        np.testing.assert_array_equal(crosses, X[bad].reshape(-1, 2))
        title = f"η = {eta:g}, iteration {k}: bad = {run.history[k].pattern}"
        assert fig.axes[0].get_title() == title
        assert len(labelled_ticks(fig.axes[1], "y")) >= 2, (eta, k)
        plt.close(fig)


@pytest.mark.parametrize("C", C_VALUES)
def test_c_slider_sweep(C):
    """Every C the slider allows: the bars count the support vectors, the title shows the C
    used, and the legend sits below the axes, off the separator."""
    import matplotlib.pyplot as plt

    fig = demo.show_soft_margin(C)
    fit = demo.soft_margin(C)
    left, right = fig.axes
    assert left.get_title().startswith(f"C = {C:.3g}: {len(fit.solution.support)} support")
    assert sum(p.get_height() for p in right.patches) == len(fit.solution.support)
    fig.draw_without_rendering()  # lays out every text, the x label included
    legend, frame = left.get_legend().get_window_extent(), left.get_window_extent()
    assert legend.y1 <= frame.y0  # entirely below the plotting area
    low, high = sorted(left.get_xlim())
    texts = [t for t, x in zip(left.get_xticklabels(), left.get_xticks(), strict=True)
             if t.get_text() and low <= x <= high] + [left.xaxis.label]
    assert legend.y1 <= min(t.get_window_extent().y0 for t in texts)  # and below the x labels
    canvas = fig.bbox  # inside the canvas: the widget's PNG is not cropped to what is drawn
    assert canvas.x0 <= legend.x0 and legend.x1 <= canvas.x1 and canvas.y0 <= legend.y0
    plt.close(fig)


def test_the_gallery_s_first_two_panels_are_one_solution():
    fixed = demo.stable_from()
    assert fixed == pytest.approx(5.0047, abs=1e-3)
    top = demo.soft_margin(100.0).solution
    assert demo.same_solution(demo.soft_margin(10.0).solution, top)
    fit = demo.soft_margin(100.0)
    assert demo.same_solution(svm.solve(fit.X, fit.y, C=fixed), top)
    assert not demo.same_solution(svm.solve(fit.X, fit.y, C=0.99 * fixed), top)
    assert not demo.same_solution(demo.soft_margin(1.0).solution, top)


def test_c_changes_the_answer_on_separable_data():
    """CS578: C can matter even in the separable case. Here the hard margin's largest dual
    weight is 17.64, so C = 10 already gives another, wider margin; C = max α gives the hard one."""
    X, y = demo.leave_one_out_sample()
    hard = svm.solve(X, y)
    assert hard.alpha.max() == pytest.approx(17.64, abs=0.005)
    ten = svm.solve(X, y, C=10.0)
    assert ten.margin > hard.margin * (1 + 1e-3)
    assert demo.same_solution(svm.solve(X, y, C=hard.alpha.max() * (1 + 1e-9)), hard, tol=1e-7)
    rows = demo.leave_one_out_study()
    margins = [r.margin for r in rows]  # hard, 10, 1, 0.1
    assert margins == sorted(margins) and margins[0] == pytest.approx(hard.margin)
    assert [r.support for r in rows] == sorted(r.support for r in rows)
    assert rows[-1].error == max(r.error for r in rows) > rows[0].error  # C = 0.1 underfits


def test_the_race_claims_of_section_7():
    race = demo.compare_methods()
    late = race.sgd_pegasos[50:60]
    assert late.min() == pytest.approx(8.5e-5, rel=0.01)
    assert late.max() == pytest.approx(5.3e-3, rel=0.01)
    assert late.max() / late.min() > 50  # "almost two orders of magnitude"
    assert race.sgd_pegasos[57] > race.batch_constant[57]  # epoch 58: behind batch descent
    assert race.sgd_pegasos[-1] < race.sgd_constant[-1]
    for gap in (race.batch_constant[-1], race.batch_decaying[-1]):
        assert 1e-3 < gap < 1e-2  # "a few thousandths"
    bolder = demo.compare_methods(eta=3 * demo.race_step())
    assert bolder.batch_constant[-1] < 1e-4 < race.batch_constant[-1]
    assert demo.race_step() == race_step()


def test_mmds_exercises_12_3_2_and_12_3_3():
    X, y = demo.exercise_12_3_2()
    assert np.all((X.sum(axis=1) >= 10) == (y > 0))
    z = svm.margins(np.full(3, 2 / 3), -19 / 3, X, y)
    assert np.all(z >= 1 - 1e-12) and np.sum(np.isclose(z, 1)) == 2  # sums 11 and 8 are tight
    best = svm.solve(X, y)
    np.testing.assert_allclose(best.w, [0, 0.5, 0.5], atol=1e-9)
    assert best.b == pytest.approx(-3.5) and best.margin == pytest.approx(np.sqrt(2))
    np.testing.assert_array_equal(best.support, [0, 1, 3, 4, 5])
    assert best.alpha[3] == pytest.approx(0, abs=1e-12)  # [1, 2, 3]: tight, weight 0 here
    X3, y3 = demo.exercise_12_3_3()
    assert np.all((X3.sum(axis=1) % 2 == 1) == (y3 > 0))
    with pytest.raises(ValueError):
        svm.solve(X3, y3)
    assert np.sum(svm.predict(np.array([-1.0, 1.0]), 0.0, X3) == y3) == 4
    soft = svm.solve(X3, y3, C=1.0)
    assert np.sum(svm.predict(soft.w, soft.b, X3) == y3) == 4


def test_at_c_001_the_margin_is_about_6_5_and_wider_than_the_data():
    fit = demo.soft_margin(0.01)
    assert round(fit.solution.margin, 1) == 6.5
    assert fit.solution.margin > np.ptp(fit.X, axis=0).max()


def test_the_solver_returns_t_0_of_example_12_8s_family():
    """The walk-through: "Our solver happens to return t = 0, using only two points"."""
    X, y = svm.mmds_example_12_8()
    sol = svm.solve(X, y)
    np.testing.assert_allclose(sol.alpha, [1, 1, 0, 0], atol=1e-12)
    np.testing.assert_array_equal(sol.support, [0, 1, 2, 3])


def test_the_long_run_settles_on_the_regularised_optimum_as_section_4_says():
    run = demo.book_run(300)
    assert all(step.pattern == "oxxxxx" for step in run.history[6:])  # from row (7) on
    last = run.history[-1]
    np.testing.assert_allclose(last.w, [-0.1, 0.3], atol=1e-9)  # "better than 10^-9"
    assert last.b == pytest.approx(-0.1, abs=1e-9)
    # Geometric, never exact: with the pattern fixed each step keeps (1 - η) = 0.8 of the
    # distance to the optimum. Rows 7-60 (distances 1e-1 .. 1e-6, far above rounding) show it.
    optimum = np.array([-0.1, 0.3, -0.1])
    distance = [np.linalg.norm(np.append(step.w, step.b) - optimum) for step in run.history[6:60]]
    np.testing.assert_allclose(np.divide(distance[1:], distance[:-1]), 0.8, rtol=1e-6)
    text = _walkthrough_text()
    assert "converges to the optimum of $f_b$" in text and "never lands on it" in text
    assert "shrinks by the factor 0.8 per step" in text and "better than $10^{-9}$" in text
    assert "lands exactly" not in text and "settles on the exact" not in text
    X, y = svm.mmds_fig_12_18()
    z = svm.margins(np.array([-0.1, 0.3]), -0.1, X, y)
    assert z[0] == pytest.approx(1)  # (1, 4) on its margin line
    assert np.all(z[1:] < 1) and z[3] < 0  # the rest inside the band, (1, 1) on the wrong side
    assert z[4] == pytest.approx(0, abs=1e-12)  # and (2, 1) exactly on the separator
    np.testing.assert_array_equal(X[[3, 4]], [[1, 1], [2, 1]])


def qp_optimum(X, y, C, regularize_bias):
    """Independent oracle: ½‖w‖² (+ b²/2) + CΣξ subject to y(w·x + b) ≥ 1 - ξ, ξ ≥ 0, by
    scipy's SLSQP on the constrained QP (not mllib's Newton-on-the-smoothed-hinge)."""
    from scipy.optimize import minimize

    n, d = X.shape

    def f(v):
        w, b, xi = v[:d], v[d], v[d + 1:]
        return 0.5 * (w @ w + (b * b if regularize_bias else 0.0)) + C * xi.sum()

    constraints = [{"type": "ineq", "fun": lambda v: y * (X @ v[:d] + v[d]) - 1 + v[d + 1:]},
                   {"type": "ineq", "fun": lambda v: v[d + 1:]}]
    start = np.concatenate([np.zeros(d + 1), np.ones(n)])
    result = minimize(f, start, constraints=constraints, method="SLSQP",
                      options={"ftol": 1e-12, "maxiter": 500})
    return result.x[:d], result.x[d]


@pytest.mark.parametrize(
    "exercise, C, regularize_bias, w, b",
    [  # the optional part's printed optima (3 decimals); 1e-3 tolerates the printed rounding
        (demo.exercise_12_3_2, 10.0, True, [0, 0.5, 0.5], -3.5),
        (demo.exercise_12_3_2, 10.0, False, [0, 0.5, 0.5], -3.5),
        (demo.exercise_12_3_2, 1.0, True, [-0.141, 0.282, 0.329], -1.352),
        (demo.exercise_12_3_3, 1.0, True, [-0.381, 0.476], 0.238),
        (demo.exercise_12_3_3, 1.0, False, [-0.4, 0.4], 0.6),
        (demo.exercise_12_3_3, 10.0, True, [-0.4, 0.4], 0.6),
        (demo.exercise_12_3_3, 10.0, False, [-0.4, 0.4], 0.6),
    ],
)
def test_mmds_exercises_optima_depend_on_c_and_on_regularising_b(
    exercise, C, regularize_bias, w, b
):
    X, y = exercise()
    opt = svm.solve(X, y, C=C, regularize_bias=regularize_bias)
    np.testing.assert_allclose(opt.w, w, atol=1e-3)
    assert opt.b == pytest.approx(b, abs=1e-3)
    w_qp, b_qp = qp_optimum(X, y, C, regularize_bias)
    # SLSQP stops at ftol 1e-12 on the objective; 1e-4 on the variables is well above that.
    np.testing.assert_allclose(w_qp, opt.w, atol=1e-4)
    assert b_qp == pytest.approx(opt.b, abs=1e-4)
    if exercise is demo.exercise_12_3_3:
        assert np.sum(svm.predict(opt.w, opt.b, X) == y) == 4  # "four of the six"


def test_mmds_hint_for_12_3_2_holds_at_c_10_and_fails_at_c_1():
    """MMDS 12.3.2 (optional part): at C = 10 the optimum keeps every z ≥ 1 (the hinge term is
    0, the hard margin's answer); at C = 1 with b regularised it does not."""
    X, y = demo.exercise_12_3_2()
    hard = svm.solve(X, y)
    for regularised in (True, False):
        opt = svm.solve(X, y, C=10.0, regularize_bias=regularised)
        assert np.all(svm.margins(opt.w, opt.b, X, y) >= 1 - 1e-9)
        np.testing.assert_allclose(opt.w, hard.w, atol=1e-9)
    loose = svm.solve(X, y, C=1.0, regularize_bias=True)
    assert np.any(svm.margins(loose.w, loose.b, X, y) < 1 - 1e-3)
    # "a b much closer to 0 (−1.352 instead of −3.5)": the size of b shrinks, not b itself
    assert hard.b == pytest.approx(-3.5, abs=1e-9) and loose.b == pytest.approx(-1.352, abs=5e-4)
    assert "to a $b$ much closer to 0 ($-1.352$ instead of $-3.5$" in _walkthrough_text()


def test_the_descent_for_12_3_2_crosses_into_the_margin_and_is_pushed_back():
    """Review r13: the hint holds at the C = 10 optimum, not along the way. The descent has no
    constraints: "from the first step on, at about half of the 5,001 iterates (smallest z_i
    0.86)" a point is inside the margin."""
    X, y = demo.exercise_12_3_2()
    run, _ = demo.exercise_descent(X, y, 10.0, np.full(3, 2 / 3), -19 / 3)
    smallest = demo.smallest_margins(run, X, y)
    inside = smallest < 1 - 1e-9  # the start has z = 1 exactly, up to rounding
    assert len(inside) == 5001 and not inside[0] and inside[1]
    assert 0.4 < inside.mean() < 0.6  # "about half": thousands of iterates hover near z = 1
    assert smallest.min() == pytest.approx(0.86, abs=5e-3)  # printed to two digits
    text = _walkthrough_text()
    assert "the descent has no constraints" in text and "subject to the constraints" not in text


def test_a_ten_times_larger_batch_step_stalls_far_above_f_star():
    """The race's printed evidence (optional part): relative gap 0.234 after 60 epochs, never
    below 0.181, against a few thousandths for the batch step itself."""
    reckless = demo.compare_methods(eta=10 * demo.race_step())
    assert reckless.batch_constant[-1] == pytest.approx(0.234, abs=5e-4)
    assert reckless.batch_constant.min() == pytest.approx(0.181, abs=5e-4)
    assert reckless.batch_constant.min() > 30 * demo.compare_methods().batch_constant[-1]


def test_exercise_6_large_c_gives_the_line_at_height_1_5_and_b_free_small_c_misclassifies():
    X, y = svm.mmds_fig_12_18()
    for regularised in (True, False):  # "from C = 10 on (with b²/2 or without)"
        for C in (10.0, 100.0):
            opt = svm.solve(X, y, C=C, regularize_bias=regularised)
            np.testing.assert_allclose(opt.w, [0, 2], atol=1e-9)
            assert opt.b == pytest.approx(-3, abs=1e-9)
    plain = svm.solve(X, y, C=0.1)  # b free at C = 0.1: the line y = 2.5
    # Exercise 6's answers (parts 2 and 3): the line at height 1.5 is the optimum from C = 6 on
    # with b²/2 and from C = 2 on with b free; just below, the optimum moves. SLSQP's 1e-12
    # tolerance leaves the optimum within ~1e-5, far below the 1e-2 moves asserted below.
    def optima(C, regularised):  # (w, b) from mllib's solver and from the SLSQP oracle
        fit = svm.solve(X, y, C=C, regularize_bias=regularised)
        return np.append(fit.w, fit.b), np.append(*qp_optimum(X, y, C, regularised))

    for regularised, threshold in ((True, 6.0), (False, 2.0)):
        for optimum in optima(threshold, regularised):
            np.testing.assert_allclose(optimum, [0, 2, -3], atol=1e-5)
        for optimum in optima(threshold - 0.1, regularised):
            assert np.max(np.abs(optimum - [0, 2, -3])) > 1e-2
    # Part 1's model answer: on eq. 12.4 + b²/2 the line scores 6.5 at every C, the descent's
    # limit 0.055 + 3.9C; they cross at C = 6.445/3.9 ≈ 1.653 (checked 1e-3 either side).
    def score(w, b, C):
        return svm.objective(np.array(w), b, X, y, C, regularize_bias=True)

    for C in (0.1, 1.0, 2.0):
        assert score([0, 2], -3, C) == pytest.approx(6.5, abs=1e-12)
        assert score([-0.1, 0.3], -0.1, C) == pytest.approx(0.055 + 3.9 * C, abs=1e-12)
    assert score([0, 2], -3, 1.652) > score([-0.1, 0.3], -0.1, 1.652)
    assert score([0, 2], -3, 1.654) < score([-0.1, 0.3], -0.1, 1.654)
    # Part 3's model answer: with b free the weights (2; t, 2 - 2t, t) of (2, 2) and the three
    # negatives satisfy w = Σ aᵢyᵢxᵢ = [0, 2] and Σ aᵢyᵢ = 0 for every t in [0, 1].
    for t in (0.0, 0.25, 1.0):
        weights = np.zeros(6)
        weights[[1, 3, 4, 5]] = [2, t, 2 - 2 * t, t]
        np.testing.assert_allclose((weights * y) @ X, [0, 2], atol=1e-12)
        assert weights @ y == pytest.approx(0, abs=1e-12)
    z = svm.margins(plain.w, plain.b, X, y)
    assert z[1] == pytest.approx(-1 / 3, abs=1e-9)  # (2, 2) on the wrong side, as §4 says
    np.testing.assert_array_equal(X[1], [2, 2])


# --- Alt texts -------------------------------------------------------------------------------


@pytest.mark.parametrize("C", [1.0, 0.01])
def test_soft_margin_alt_text_counts_the_slack_from_the_solution(C):
    from mllib import data

    X, y, _ = data.noisy(40, 2, margin=0.15, flip=0.1, seed=3)
    sol = svm.solve(X, y, C=C)
    slack = np.maximum(0.0, 1 - y * (X @ sol.w + sol.b))  # ξᵢ, recomputed here
    text = alt_text(demo.show_soft_margin(C))
    assert text.startswith(f"40 points in two classes ({np.sum(y == 1)} circles y = +1, "
                           f"{np.sum(y == -1)} squares y = −1) with C = {C:.3g}: ")
    assert f"margin γ = {1 / np.linalg.norm(sol.w):.3f}, total slack Σξ = {slack.sum():.2f}." \
        in text
    inside, wrong = np.sum((slack > 1e-6) & (slack < 1)), np.sum(slack >= 1)
    assert text.endswith(f"Its {len(sol.support)} support vectors: "
                         f"{len(sol.support) - inside - wrong} on the margin, {inside} inside it, "
                         f"{wrong} misclassified.")
    assert alt_text(demo.show_soft_margin(10 * C)) != text


def test_descent_alt_text_counts_the_bad_points_of_step_k():
    X, y = svm.mmds_fig_12_18()
    step = demo.book_run(60, 0.2).history[7]
    bad = int(np.sum(y * (X @ step.w + step.b) < 1))  # MMDS: bad when y(w·x + b) < 1
    text = alt_text(demo.show_descent(0.2, 7))
    assert "after 7 steps of size η = 0.2: " in text and f"bad points: {bad} " in text
    assert alt_text(demo.show_descent(0.2, 8)) != text
    assert "after 1 step of size" in alt_text(demo.show_descent(0.2, 1))  # review r12: "1 steps"


def test_hinge_alt_text_reads_the_losses_off_the_curves():
    text = alt_text(demo.show_hinge())
    # At z = -2: hinge 1 - (-2) = 3, squared 9, logistic ln(1 + e²); at z = 0 the logistic is ln 2.
    assert "falling from 3 to 0 at z = 1" in text and "the squared hinge, 9 at z = -2" in text
    assert f"{np.log1p(np.exp(2)):.2f} at z = -2, {np.log(2):.2f} at z = 0" in text


def _walkthrough_text() -> str:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "solutions/02_svm/svm_walkthrough.ipynb"
    return " ".join(" ".join("".join(c["source"]).split())
                    for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown")


def test_soft_equals_hard_from_the_largest_dual_weight_only_when_the_weights_are_unique():
    # §6: on the LOOCV sample the three support vectors fix their weights (the system
    # Σαᵢyᵢxᵢ = w, Σαᵢyᵢ = 0 is square and nonsingular), and the hard solution appears exactly
    # from C = max α (checked 2% either side). On MMDS Example 12.8 solve returns α = (1, 1, 0, 0),
    # but (½, ½, ½, ½) gives the same w and b, and C = 0.5 already gives the hard answer.
    X, y = demo.leave_one_out_sample()
    hard = svm.solve(X, y)
    sv = hard.support
    system = np.vstack([(y[sv, None] * X[sv]).T, y[sv]])
    assert abs(np.linalg.det(system)) > 0.1  # 0.37: far from singular
    top = hard.alpha.max()
    assert abs(svm.solve(X, y, C=0.98 * top).margin - hard.margin) > 1e-3
    below_it = svm.solve(X, y, C=1.02 * top)
    np.testing.assert_allclose(below_it.w, hard.w, atol=1e-9)
    X8, y8 = svm.mmds_example_12_8()
    exact = svm.solve(X8, y8)
    np.testing.assert_allclose(exact.alpha, [1, 1, 0, 0], atol=1e-12)
    half = np.full(4, 0.5)
    np.testing.assert_allclose((half * y8) @ X8, exact.w, atol=1e-12)
    assert half @ y8 == 0  # exact: ±½ sums
    soft = svm.solve(X8, y8, C=0.5)
    np.testing.assert_allclose(soft.w, [-1, 1], atol=1e-12)
    assert soft.b == pytest.approx(0, abs=1e-12)  # 2e-16 here: rounding, machine-dependent
    text = _walkthrough_text()
    assert "$C = 0.5$ already gives the hard answer $w = [-1, 1]$, $b = 0$" in text
    assert "$\\alpha = (1, 1, 0, 0)$" in text


def test_the_c_01_loocv_entry_rests_on_a_tie_break_in_b():
    # §6: leaving out point 4 at C = 0.1, every b in about [0.313, 0.399] minimises f for the
    # (unique) w; the left-out z goes from +0.03 to -0.06 over it; solve takes the lowest b;
    # scikit-learn's SVC (independent solver) takes b ≈ 0.356 and gets 5/30 for the row.
    sklearn_svm = pytest.importorskip("sklearn.svm")
    X, y = demo.leave_one_out_sample()
    C, out = 0.1, 4
    ours, flat = _optimal_bs_without(out, C)
    assert round(flat.min(), 3) == 0.313 and round(flat.max(), 3) == 0.399
    assert ours.b == pytest.approx(flat.min(), abs=2e-5)
    # "no rule": without point 13 solve returns the highest optimal b (the interval is over 0.1
    # wide, so 2e-5 on the 1e-5 grid tells its ends apart). Which b it returns is not robust
    # everywhere: without point 25 (wrong for every optimal b) it moves with the BLAS kernel.
    high, flat_13 = _optimal_bs_without(13, C)
    assert high.b == pytest.approx(flat_13.max(), abs=2e-5) and np.ptp(flat_13) > 0.1
    z_ends = y[out] * (X[out] @ ours.w + flat[[0, -1]])
    assert (round(z_ends[0], 2), round(z_ends[1], 2)) == (0.03, -0.06)
    wrong = 0
    for i in range(len(y)):
        rest = np.arange(len(y)) != i
        fit = sklearn_svm.SVC(kernel="linear", C=C, tol=1e-10).fit(X[rest], y[rest])
        wrong += y[i] * fit.decision_function(X[i:i + 1])[0] <= 0
        if i == out:
            assert fit.intercept_[0] == pytest.approx(0.356, abs=5e-4)
    assert wrong == 5
    text = _walkthrough_text()
    assert "every $b$ from about 0.313 to 0.399" in text and "$5/30 = 0.167$" in text
    assert "Here `svm.solve` returns the lowest such $b$" in text
    assert "which with point 13 left out is the highest $b$" in text


def _optimal_b_interval(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The interval of b at which w attains the least hinge sum: the sum is convex and piecewise
    linear in b with kinks at bᵢ = yᵢ - w·xᵢ, so its minimisers are the kinks between the
    lowest and the highest kink where it is least (to a relative 1e-12)."""
    kinks = y - X @ w
    sums = np.maximum(0, 1 - y[None, :] * ((X @ w)[None, :] + kinks[:, None])).sum(axis=1)
    least = kinks[sums <= sums.min() * (1 + 1e-12) + 1e-12]
    return float(least.min()), float(least.max())


def test_at_c_01_most_leave_one_out_fits_have_a_flat_b():
    # Review r10 of lecture 02: at C = 0.1, 24 of the 30 fits have an interval of optimal b (up
    # to 0.19 wide), only point 4's changes the verdict; at C = 10 and 1 every b is unique.
    X, y = demo.leave_one_out_sample()
    for C, flat, widest, changed in ((10.0, 0, 0.0, 0), (1.0, 0, 0.0, 0), (0.1, 24, 0.19, 1)):
        widths, verdicts = [], 0
        for out in range(len(y)):
            keep = np.arange(len(y)) != out
            w = svm.solve(X[keep], y[keep], C=C).w
            ends = np.array(_optimal_b_interval(w, X[keep], y[keep]))
            widths.append(ends[1] - ends[0])
            verdicts += len({bool(v > 0) for v in y[out] * (X[out] @ w + ends)}) > 1
        widths = np.array(widths)
        # unique b: width 0 up to rounding; a flat b: far wider than 1e-6
        assert np.all((widths < 1e-9) | (widths > 1e-3)), C
        assert (np.sum(widths > 1e-6), round(widths.max(), 2), verdicts) == (flat, widest, changed)
    text = _walkthrough_text()
    assert "at $C = 0.1$, 24 of the 30 fits below have an interval of optimal $b$" in text
    assert "24 of the 30 leave-one-out fits have one (up to 0.19 wide)" in text
    assert "$C = 10$ and $C = 1$ rows every $b$ is unique" in text


def test_the_hard_margins_support_vectors_cause_no_leave_one_out_mistake():
    # Review r9 of lecture 02: CS578's "leave out a support vector and you make a mistake" is the
    # bound's worst case; the hard-margin row has three support vectors and no mistake.
    hard = demo.leave_one_out_study()[0]
    assert hard.C is None and hard.support == 3 and hard.error == 0
    assert "the hard margin's three support vectors cause none" in _walkthrough_text()


def _optimal_bs_without(out: int, C: float) -> tuple[svm.SVMSolution, np.ndarray]:
    """solve's answer without example ``out`` of the LOOCV sample, and every b on a 1e-5 grid
    of [-0.5, 1] at which its (unique) w attains the minimum: the objective scanned over b."""
    X, y = demo.leave_one_out_sample()
    keep = np.arange(len(y)) != out
    ours = svm.solve(X[keep], y[keep], C=C)
    grid = np.linspace(-0.5, 1.0, 150001)
    hinge = np.maximum(0, 1 - y[keep, None] * ((X[keep] @ ours.w)[:, None] + grid))
    values = C * hinge.sum(axis=0)
    return ours, grid[values <= values.min() + 1e-12]


def test_loocv_rests_on_the_unique_optimum_and_counts_a_point_on_the_separator_wrong():
    # §6's hypotheses as the text states them, and on this sample the support vectors grow in
    # number as C falls (hard, 10, 1, 0.1), while the margin widens.
    rows = demo.leave_one_out_study()
    counts = [row.support for row in rows]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    margins = [row.margin for row in rows]
    assert np.all(np.diff(margins) > 0)
    text = _walkthrough_text()
    assert "a left-out point on the separator counts as a mistake" in text
    assert "When the optimum is unique the solver returns it again" in text
    assert "on this sample, gives more support vectors" in text


def test_the_condensed_errata_of_example_12_9():
    # §4: the third condition holds at row (2), 3u + 4v + b = 1.9 >= 1 (so "oxoxxx"), and the
    # first step's u is +0.04 (the book's text says -0.04).
    run = demo.book_run(5)
    second = run.history[1]
    assert 3 * second.w[0] + 4 * second.w[1] + second.b == pytest.approx(1.9, abs=1e-12)
    assert second.w[0] == pytest.approx(0.04, abs=1e-12)
    text = _walkthrough_text()
    assert "($3u + 4v + b = 1.9 \\ge 1$ at row (2), so `oxoxxx`)" in text


def test_the_bias_conventions_figure_shows_each_solutions_whole_band():
    # Review r5 of lecture 02: the tilted solution's lower margin line was out of view. Each
    # panel now holds, for both margin lines w·x + b = ±1, their point nearest the data's centre.
    X, y = svm.mmds_fig_12_18()
    fig = demo.show_bias_conventions()
    centre = (X.min(axis=0) + X.max(axis=0)) / 2
    for ax, regularised in zip(fig.axes, (False, True), strict=True):
        sol = svm.solve(X, y, C=0.1, regularize_bias=regularised)
        for offset in (-1, 1):
            point = centre - (centre @ sol.w + sol.b - offset) / (sol.w @ sol.w) * sol.w
            (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
            assert x_lo < point[0] < x_hi and y_lo < point[1] < y_hi, (regularised, offset)


def test_the_exercises_descents_end_as_the_walkthrough_says():
    # Review r12 of lecture 02: Exercises 12.3.2(c) and 12.3.3(b) ask for gradient descent. The
    # optional part runs it: from 12.3.2's suggested start at C = 10 it ends "a few hundredths"
    # from the exact optimum, from w = [-1, 1], b = 0 at C = 1 "within a hundredth".
    X, y = demo.exercise_12_3_2()
    run, gap = demo.exercise_descent(X, y, 10.0, np.full(3, 2 / 3), -19 / 3)
    assert len(run.history) == 5001 and 0.01 < gap < 0.1
    X, y = demo.exercise_12_3_3()
    assert demo.exercise_descent(X, y, 1.0, np.array([-1.0, 1.0]), 0.0)[1] < 0.01
    text = _walkthrough_text()
    assert "5,000 steps with a decaying step still end a few hundredths from the optimum" in text
    assert "(b) gets within a hundredth of the regularised optimum in 5,000 steps" in text
