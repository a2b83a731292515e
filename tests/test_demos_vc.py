"""The VC walk-through's widget logic, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from figure_support import assert_redrawn_in_place_like_a_fresh_build
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Polygon
from matplotlib.patches import Rectangle as Box

from mllib import vc
from mllib.demos import explore
from mllib.demos import vc as demo
from mllib.plotting import alt_text

# Realizable labellings of each preset, counted by hand from the slides' arguments. The diamond
# and its centre: the empty set, 5 singletons, each diamond point with the centre (4), the
# centre with two adjacent (4) or two opposite (2) diamond points, the centre with three
# diamond points (4), all five: 1 + 5 + 4 + 6 + 4 + 1 = 21. The square's corners: the empty
# set, 4 singletons, 4 sides, all four (a diagonal pair or three corners span the square):
# 1 + 4 + 4 + 1 = 10.
HAND_COUNTS = {
    "half-lines: 2 points": 3,
    "intervals: 3 points": 7,
    "half-planes: 3 points in a triangle": 8,
    "half-planes: 3 collinear points": 6,
    "half-planes: XOR (square corners)": 14,
    "half-planes: triangle and a point inside": 14,
    "rectangles: diamond of 4": 16,
    "rectangles: square corners": 10,
    "rectangles: diamond and its centre": 21,
}


@pytest.mark.parametrize("name", sorted(demo.CONFIGURATIONS))
def test_each_preset_realizes_the_hand_counted_labellings_with_witnesses(name):
    grid = demo.labeling_grid(*demo.moved(name, 0, 0))
    assert int(grid.realizable.sum()) == HAND_COUNTS[name]
    assert grid.shattered == (HAND_COUNTS[name] == 2 ** len(grid.points))
    for labels, witness in zip(grid.labelings, grid.witnesses, strict=True):
        if witness is not None:
            assert witness.classify(grid.points).tolist() == labels.tolist()


def test_frame_marks_each_unrealizable_labelling_by_more_than_colour():
    fig = demo.show_configuration("half-planes: XOR (square corners)")
    assert [p.title for p in fig.panels if not p.realizable] == ["−−++ ✗", "++−− ✗"]
    crossed = [t.get_text() for t in fig.axes[0].texts if "✗" in t.get_text()]
    assert crossed == ["−−++ ✗", "++−− ✗"]
    # Titles stay black (text needs 4.5:1); the frame is coloured and thicker.
    assert {t.get_color() for t in fig.axes[0].texts} <= {"black"}
    marked = [patch for patch in fig.axes[0].patches
              if to_rgb(patch.get_edgecolor()) == to_rgb(demo.UNREALIZABLE)
              and not patch.get_fill()]
    assert len(marked) == 2 and all(patch.get_linewidth() == 2 for patch in marked)
    assert fig.axes[0].get_title() == ("half-planes: 14 of 16 labellings realizable, "
                                       "not shattered · ★ at (1.0, 0.0)")


def test_moving_the_star_off_the_line_shatters_three_points():
    hclass, points = demo.moved("half-planes: 3 collinear points", 0.0, 0.5)
    assert points[-1].tolist() == [2.0, 2.5]
    assert demo.labeling_grid(hclass, points).shattered
    title = demo.show_configuration("half-planes: 3 collinear points", 0.0, 0.5).axes[0].title
    assert title.get_text().endswith("8 of 8 labellings realizable, shattered · ★ at (2.0, 2.5)")


def test_moving_the_diamonds_top_to_the_centre_breaks_it():
    hclass, points = demo.moved("rectangles: diamond of 4", 0.0, -1.0)
    assert not demo.labeling_grid(hclass, points).shattered


def test_line_presets_ignore_the_vertical_slider():
    _, points = demo.moved("intervals: 3 points", 0.5, 1.5)
    assert points.tolist() == [[1.0], [2.0], [3.5]]




def test_half_plane_shading_is_the_clipped_positive_side():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    region = demo._inside(square, np.array([1.0, 0.0]), -0.25)  # x >= 1/4
    x, y = region[:, 0], region[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert area == pytest.approx(0.75)
    assert len(demo._inside(square, np.array([1.0, 0.0]), -2.0)) == 0


def test_growth_curves_match_the_known_formulas():
    curves = {c.name: c for c in demo.growth_curves(8)}
    m = np.arange(1, 9)
    assert curves["half-lines"].growth.tolist() == (m + 1).tolist()
    assert curves["intervals"].growth.tolist() == (m * (m + 1) // 2 + 1).tolist()
    assert curves["half-planes"].growth.tolist() == (m * m - m + 2).tolist()  # Cover
    assert np.all(curves["half-planes"].growth <= curves["half-planes"].sauer)
    assert curves["unions of 2 intervals"].growth.tolist() == curves[
        "unions of 2 intervals"].sauer.tolist()
    assert len(demo.show_growth(list(curves.values())).axes) == 4


def test_vc_table_lists_each_search():
    table = demo.vc_table({"rectangles": vc.vc_dimension(vc.RECTANGLES, vc.grid(4))})
    row = table.splitlines()[2]
    # Every point and every pair of distinct points is shattered (a lone point's box is the
    # point itself), and once no 5-set is left to examine the row ends with 0/0.
    assert row.startswith("| rectangles | 4 | (1, 0); (0, 1); (2, 1); (1, 2) | 16/16, 120/120, ")
    assert row.endswith(", 0/0 |")


def test_explore_draws_the_placement_widget_statically_while_grading(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_configuration,
                    configuration=ipywidgets.Dropdown(options=list(demo.CONFIGURATIONS),
                                                      value="rectangles: diamond of 4"),
                    dx=ipywidgets.FloatSlider(value=0.0, min=-2, max=2),
                    dy=ipywidgets.FloatSlider(value=0.0, min=-2, max=2))
    assert isinstance(frame, Figure)
    assert len(frame.panels) == 16


def test_moving_a_slider_redraws_other_labellings(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(configuration, dx, dy):
        fig = demo.show_configuration(configuration, dx, dy)
        seen.append(fig.axes[0].get_title())
        return fig

    box = explore(frame, configuration=ipywidgets.Dropdown(
        options=list(demo.CONFIGURATIONS), value="half-planes: 3 collinear points"),
        dx=ipywidgets.FloatSlider(value=0.0, min=-2, max=2),
        dy=ipywidgets.FloatSlider(value=0.0, min=-2, max=2))
    box.children[2].value = 0.5  # dy
    assert seen == ["half-planes: 6 of 8 labellings realizable, not shattered · ★ at (2.0, 2.0)",
                    "half-planes: 8 of 8 labellings realizable, shattered · ★ at (2.0, 2.5)"]


def test_the_first_panel_numbers_the_points_in_the_order_of_the_titles():
    fig = demo.show_configuration("half-planes: XOR (square corners)")
    points = np.array(demo.CONFIGURATIONS["half-planes: XOR (square corners)"][1])
    numbers = [(t.get_text(), t.xy) for t in fig.axes[0].texts if hasattr(t, "xy")]
    assert [n for n, _ in numbers] == ["1", "2", "3", "4"]
    np.testing.assert_allclose([xy for _, xy in numbers], points + fig.panels[0].shift,
                               atol=1e-12)  # drawn from tenths times 0.1
    # Panel k shows labelling k: its title spells the labels in point order.
    for panel in fig.panels:
        signs = panel.title.split()[0]
        assert signs == "".join("+" if v > 0 else "−" for v in panel.labels)


def test_every_point_is_drawn_once_per_panel_in_its_colour():
    fig = demo.show_configuration("rectangles: diamond of 4")
    # The fixed points and the moved one are drawn apart: + then −, each fixed then moved.
    fixed_plus, moved_plus, fixed_minus, moved_minus = fig.axes[0].collections[:4]
    positives = np.vstack([fixed_plus.get_offsets(), moved_plus.get_offsets()])
    negatives = np.vstack([fixed_minus.get_offsets(), moved_minus.get_offsets()])
    assert len(positives) + len(negatives) == 16 * 4
    points = np.array(demo.CONFIGURATIONS["rectangles: diamond of 4"][1])
    drawn_positive = {tuple(np.round(xy, 9)) for xy in positives}
    for panel in fig.panels:
        for point, label in zip(points + panel.shift, panel.labels, strict=True):
            assert (tuple(np.round(point, 9)) in drawn_positive) == (label > 0)


# --- The point-placement widget over every slider position -----------------------------------

# The notebook's sliders: -2.0 to 2.0 in steps of 0.1 (41 positions each).
SLIDER = np.round(np.linspace(-2.0, 2.0, 41), 1)


def _slider_positions(name, values=SLIDER):
    """(dx, dy) pairs the notebook's sliders reach; dy only matters in the plane."""
    dys = values if demo.CONFIGURATIONS[name][0].dim == 2 else [0.0]
    return [(dx, dy) for dx in values for dy in dys]


@pytest.mark.parametrize("name", sorted(demo.CONFIGURATIONS))
def test_every_witness_reproduces_its_labelling_at_every_slider_position(name):
    # The hypothesis each ✓ panel shades, in drawn coordinates, labels the drawn points exactly
    # as the panel's title says; and the half-plane presets of four points always keep at least
    # two failing labellings (Radon), wherever the star goes.
    for dx, dy in _slider_positions(name):
        grid = demo.placed(name, dx, dy)
        drawn = grid.points * grid.unit
        for labels, witness in zip(grid.labelings, grid.witnesses, strict=True):
            if witness is not None:
                shown = demo.scaled(witness, grid.unit)
                assert shown.classify(drawn).tolist() == labels.tolist(), (name, dx, dy, labels)
        if grid.hclass is vc.HALF_PLANES and len(drawn) == 4:
            assert (~grid.realizable).sum() >= 2, (name, dx, dy)


def _shaded(artist, xy: np.ndarray) -> np.ndarray:
    """Which points (k, 2) a witness artist covers: a box, a filled polygon or a band on y = 0."""
    if isinstance(artist, Box):
        x0, y0 = artist.get_xy()
        x1, y1 = x0 + artist.get_width(), y0 + artist.get_height()
        return (x0 <= xy[:, 0]) & (xy[:, 0] <= x1) & (y0 <= xy[:, 1]) & (xy[:, 1] <= y1)
    if isinstance(artist, Polygon):
        return artist.get_path().contains_points(xy)
    xs, ys = artist.get_data()
    return (min(xs) <= xy[:, 0]) & (xy[:, 0] <= max(xs)) & (xy[:, 1] == ys[0])


@pytest.mark.parametrize("name", sorted(demo.CONFIGURATIONS))
def test_the_shading_drawn_covers_exactly_the_positive_points(name):
    # Read back from the artists themselves: no padding covers a negative point, and every
    # positive point lies in the shading (half a slider step apart, both sliders).
    for dx, dy in _slider_positions(name, SLIDER[::5]):
        fig = demo.show_configuration(name, dx, dy)
        grid = demo.placed(name, dx, dy)
        xy = demo._plane(grid.points) * grid.unit
        for panel in fig.panels:
            if not panel.realizable:
                assert panel.artists == ()
                continue
            covered = np.zeros(len(xy), dtype=bool)
            for artist in panel.artists:
                covered |= _shaded(artist, xy + panel.shift)
            assert covered.tolist() == (panel.labels > 0).tolist(), (name, dx, dy, panel.title)


def test_the_reviewers_mislabelled_panel_is_now_drawn_right():
    # "3 points in a triangle", move (-0.8, -0.9), panel "−−+": the first separating direction
    # rounded to floats mislabelled a point; the widest-margin line keeps 0.1 clear of each.
    fig = demo.show_configuration("half-planes: 3 points in a triangle", -0.8, -0.9)
    panel = next(p for p in fig.panels if p.title == "−−+ ✓")
    points = demo.placed("half-planes: 3 points in a triangle", -0.8, -0.9)
    drawn = points.points * points.unit
    assert panel.witness.classify(drawn).tolist() == [-1, -1, 1]
    assert np.min(panel.labels * (drawn @ panel.witness.w + panel.witness.b)) > 0.1


def test_the_star_on_a_line_through_two_points_is_on_it():
    # Triangle and inner point moved by (0.4, 0.5): the star sits at (1.4, 1.2), on the edge from
    # (2, 0) to (1, 2). On screen that makes 12 labellings of 16 realizable (the star cannot be
    # split from both ends of its edge); adding 0.4 and 0.5 in binary floats put it an ulp off
    # the edge and counted 14.
    hclass, points = demo.moved("half-planes: triangle and a point inside", 0.4, 0.5)
    assert points[-1].tolist() == [1.4, 1.2]
    grid = demo.placed("half-planes: triangle and a point inside", 0.4, 0.5)
    assert int(grid.realizable.sum()) == 12
    fig = demo.show_configuration("half-planes: triangle and a point inside", 0.4, 0.5)
    assert fig.axes[0].get_title().endswith("12 of 16 labellings realizable, not shattered · "
                                         "★ at (1.4, 1.2)")


@pytest.mark.parametrize("name", [n for n in sorted(demo.CONFIGURATIONS)
                                  if demo.CONFIGURATIONS[n][0] is vc.HALF_PLANES])
def test_half_plane_verdicts_agree_with_a_linear_program(name):
    # Independent oracle: a labelling is realizable exactly when the LP
    # y_i (w·x_i + b) >= 1 is feasible on the points in tenths (whole numbers: exact input).
    linprog = pytest.importorskip("scipy.optimize").linprog
    for dx, dy in _slider_positions(name, SLIDER[::4]):
        grid = demo.placed(name, dx, dy)
        for labels, fits in zip(grid.labelings, grid.realizable, strict=True):
            a_ub = -labels[:, None] * np.hstack([grid.points, np.ones((len(labels), 1))])
            lp = linprog(np.zeros(3), A_ub=a_ub, b_ub=-np.ones(len(labels)),
                         bounds=[(None, None)] * 3, method="highs")
            assert (lp.status == 0) == fits, (name, dx, dy, labels)


def test_moving_the_inner_point_up_makes_point_3_the_inner_one():
    # §6: the failing labellings are not always an XOR pair. At move y = 2.0 the star is at
    # (1, 2.7), above point 3 = (1, 2), which now lies inside the triangle of the other three.
    grid = demo.placed("half-planes: triangle and a point inside", 0.0, 2.0)
    failing = ["".join("+" if v > 0 else "−" for v in labels)
               for labels, ok in zip(grid.labelings, grid.realizable, strict=True) if not ok]
    assert failing == ["−−+−", "++−+"]
    # Moved right to (2.5, 0.7) it is a corner of a convex quadrilateral 1, 2, 4, 3: the XOR
    # pair puts the diagonals 1-4 and 2-3 together.
    grid = demo.placed("half-planes: triangle and a point inside", 1.5, 0.0)
    failing = ["".join("+" if v > 0 else "−" for v in labels)
               for labels, ok in zip(grid.labelings, grid.realizable, strict=True) if not ok]
    assert failing == ["−++−", "+−−+"]


def test_the_first_panel_frame_is_inside_the_axes():
    fig = demo.show_configuration("rectangles: diamond of 4")
    ax = fig.axes[0]
    frame = next(p for p in ax.patches if isinstance(p, Box) and not p.get_fill())
    assert ax.get_xlim()[0] < frame.get_x()
    assert ax.get_ylim()[1] > frame.get_y() + frame.get_height()


# --- Claims of the walk-through and its other figures -------------------------------------------


def test_conjunctions_have_vc_n_except_2_at_n_1():
    # §7's prose: n for n >= 2, and 2 at n = 1, below log2(3^n + 1) each time.
    for n_vars, expected in ((1, 2), (2, 2), (3, 3)):
        assert vc.vc_dimension(vc.conjunctions(n_vars), vc.cube(n_vars)).dimension == expected
        assert expected <= np.log2(3**n_vars + 1)


def test_growth_figure_keys_every_line_and_labels_two_ticks():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = demo.show_growth(demo.growth_curves(8))
    FigureCanvasAgg(fig).draw()
    for ax, d in zip(fig.axes, (1, 2, 3, 4), strict=True):
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert texts == ["2^m", "Sauer bound", "growth Π(m)", f"m = VC = {d}"]
        low, high = ax.get_ylim()
        labelled = [t for t in ax.yaxis.get_major_ticks()
                    if low <= t.get_loc() <= high and t.label1.get_text()]
        assert len(labelled) >= 2
        sauer = next(line for line in ax.lines if line.get_label() == "Sauer bound")
        assert sauer.get_linewidth() > 3 * ax.lines[2].get_linewidth()  # a band under the markers


def test_learning_a_rectangle_lowers_the_error_as_m_grows():
    # §10's cell, computed the same way: the exact error of the learned box falls at every step.
    rng = np.random.default_rng(4)
    target = vc.Rectangle(0.2, 0.7, 0.3, 0.6)
    errors = []
    for m in (10, 100, 1000, 10000):
        sample = rng.random((m, 2))
        learned = vc.realize(vc.RECTANGLES, sample, target.classify(sample))
        assert learned.classify(sample).tolist() == target.classify(sample).tolist()
        errors.append(demo.rectangle_error(learned, target))
    assert np.all(np.diff(errors) < 0) and errors[-1] > 0  # > 0: the VC column is defined


def test_rectangle_error_is_the_area_where_the_boxes_disagree():
    # By hand: [0, 0.5]² against [0.25, 0.75]²: 0.25 + 0.25 - 2·0.0625 = 0.375; a box sticking
    # out of the unit square counts only inside it; and a Monte Carlo oracle (10⁶ uniform
    # points, standard error below 5e-4) within 4 standard errors.
    assert demo.rectangle_error(vc.Rectangle(0, 0.5, 0, 0.5),
                                vc.Rectangle(0.25, 0.75, 0.25, 0.75)) == pytest.approx(0.375)
    assert demo.rectangle_error(vc.Rectangle(-1, 0.5, 0, 2),
                                vc.Rectangle(0, 0.5, 0, 1)) == pytest.approx(0.0)
    empty = vc.Rectangle(np.inf, -np.inf, np.inf, -np.inf)
    assert demo.rectangle_error(empty, vc.Rectangle(0.2, 0.7, 0.3, 0.6)) == pytest.approx(0.15)
    learned, target = vc.Rectangle(0.1, 0.65, 0.35, 0.9), vc.Rectangle(0.2, 0.7, 0.3, 0.6)
    points = np.random.default_rng(0).random((1_000_000, 2))
    estimate = np.mean(learned.classify(points) != target.classify(points))
    assert demo.rectangle_error(learned, target) == pytest.approx(estimate, abs=4 * 5e-4)


def test_the_star_above_the_triangle_fails_point_3_alone_and_its_complement():
    # §6: "moved up (move y = 2.0) ... "point 3 alone" and its complement fail" (Radon: a point
    # inside the triangle of the others, alone against the rest).
    grid = demo.placed("half-planes: triangle and a point inside", 0.0, 2.0)
    failing = {tuple(labels.tolist()) for labels, fits in zip(grid.labelings, grid.realizable,
                                                               strict=True) if not fits}
    assert failing == {(-1.0, -1.0, 1.0, -1.0), (1.0, 1.0, -1.0, 1.0)}


def test_the_line_presets_say_the_vertical_slider_does_nothing():
    fig = demo.show_configuration("intervals: 3 points", 0.5, 1.5)
    assert fig.axes[0].get_title().endswith("★ at (3.5); move y does nothing on the line")


def test_the_brute_force_table_of_section_7():
    # The cell's searches: 1, 2, 3, 4 for the slides' classes, 4 for two intervals, 3 for
    # conjunctions over 3 variables, each count row ending in 0; no 5-subset of the 5 × 5 grid
    # is even examined for rectangles.
    searches = [(vc.HALF_LINES, np.arange(4.0), 1), (vc.INTERVALS, np.arange(5.0), 2),
                (vc.HALF_PLANES, vc.grid(4), 3), (vc.RECTANGLES, vc.grid(5), 4),
                (vc.unions_of_intervals(2), np.arange(6.0), 4), (vc.conjunctions(3), vc.cube(3), 3)]
    for hclass, pool, dimension in searches:
        search = vc.vc_dimension(hclass, pool)
        assert search.dimension == dimension and search.complete
        assert search.shattered[-1] == 0
    assert vc.vc_dimension(vc.RECTANGLES, vc.grid(5)).examined[-1] == 0


def test_the_margin_table_shrinks_with_the_margin():
    # §9: a larger margin, a smaller VC bound and sample size; no margin gives n + 1 = 1001.
    from mllib import pac

    bounds = [pac.margin_vc_bound(1.0, g, 1000) for g in (0.5, 0.2, 0.1, 0.05, 0.02)]
    assert bounds == [5, 26, 101, 401, 1001]
    sizes = [pac.vc_sample_size(int(b), 0.1, 0.05) for b in bounds]
    assert sizes == sorted(sizes) and sizes[-1] == pac.vc_sample_size(1001, 0.1, 0.05)


def test_the_vertical_line_is_the_last_m_where_growth_equals_two_to_the_m():
    # §8: the line at m = VC marks the last m with Π(m) = 2^m; from VC + 1 on Π(m) < 2^m.
    for curve in demo.growth_curves(8):
        full = curve.growth == 2**curve.m
        assert curve.m[full].max() == curve.vc, curve.name
        assert np.all(curve.growth[curve.m > curve.vc] < 2 ** curve.m[curve.m > curve.vc])
    fig = demo.show_growth(demo.growth_curves(8))
    for ax, curve in zip(fig.axes, demo.growth_curves(8), strict=True):
        assert curve.vc in [line.get_xdata()[0] for line in ax.lines
                            if line.get_label() == f"m = VC = {curve.vc}"]


def test_the_exercise_statements_match_the_hidden_cases():
    # Exercise 1: a point listed with both labels is never realizable (return False), as the
    # hidden case expects; exercises 1 and 2 promise at least one point, and no hidden case
    # has fewer.
    from mllib.grading import vc as grading

    intervals = grading.interval_realizable()
    both = next(c for c in intervals.cases if "different labels" in c.hint)
    assert intervals.reference(*both.args) is False
    assert all(len(c.args[0]) >= 1 for c in intervals.cases)
    assert all(len(c.args[1]) >= 1 for c in grading.shattering().cases)


# --- Alt texts -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(demo.CONFIGURATIONS))
def test_configuration_alt_text_states_the_hand_count_and_the_points(name):
    points = demo.CONFIGURATIONS[name][1]
    count = 2 ** len(points)
    text = alt_text(demo.show_configuration(name))
    places = ", ".join("(" + ", ".join(f"{v:g}" for v in point) + ")" for point in points)
    assert f"on {len(points)} points, numbered 1 to {len(points)} at {places}: " in text
    assert f"{HAND_COUNTS[name]} of {count} labellings realizable" in text
    assert ("not shattered" in text) == (HAND_COUNTS[name] < count)
    assert text.count("✗") == (1 if HAND_COUNTS[name] < count else 0)


def test_configuration_alt_text_follows_the_star():
    off = alt_text(demo.show_configuration("half-planes: 3 collinear points", 0.0, 0.5))
    on = alt_text(demo.show_configuration("half-planes: 3 collinear points"))
    assert "8 of 8 labellings realizable, shattered" in off and "(2, 2.5): " in off
    # On the line, the middle point cannot be split from the two ends (−+− and +−+).
    assert "6 of 8" in on and "no hypothesis realizes −+−, +−+" in on


def test_growth_alt_text_reads_the_known_formulas_at_m_8():
    text = alt_text(demo.show_growth(demo.growth_curves(8)))
    m = 8
    assert f"half-lines (VC = 1): Π(8) = {m + 1} of {2**m}" in text
    assert f"intervals (VC = 2): Π(8) = {m * (m + 1) // 2 + 1} of {2**m}" in text
    assert f"half-planes (VC = 3): Π(8) = {m * m - m + 2} of {2**m}" in text  # Cover
    assert alt_text(demo.show_growth(demo.growth_curves(6))) != text


# --- The widget redraws one figure per preset in place ----------------------------------------


@pytest.mark.parametrize(("name", "dx", "dy"), [
    ("half-planes: triangle and a point inside", 0.0, 0.0),
    ("half-planes: 3 collinear points", 0.0, 0.5),
    ("rectangles: diamond and its centre", -2.0, 2.0),
    ("intervals: 3 points", 1.5, 0.0),
    ("half-lines: 2 points", -2.0, 0.0),
])
def test_placement_widget_redrawn_in_place_shows_what_a_fresh_build_shows(name, dx, dy):
    others = [lambda x=x, y=y: demo.show_configuration(name, x, y)
              for x, y in ((2.0, -2.0), (dx, -dy), (0.0, 0.0), (-dx, dy))]
    assert_redrawn_in_place_like_a_fresh_build(
        demo._configuration_view, lambda: demo.show_configuration(name, dx, dy), others)


def test_every_slider_position_stays_inside_its_panel():
    # The panels are sized once per preset for every place the sliders reach.
    for name, (_, points) in demo.CONFIGURATIONS.items():
        for dx, dy in ((-2.0, -2.0), (2.0, 2.0), (-2.0, 2.0), (2.0, -2.0)):
            fig = demo.show_configuration(name, dx, dy)
            x_lo, x_hi, y_lo, y_hi = demo._configuration_view(name).limits
            star = demo._plane(demo.placed(name, dx, dy).points)[-1] * demo.SLIDER_STEP
            assert x_lo < star[0] < x_hi and y_lo < star[1] < y_hi, (name, dx, dy)
            assert len(fig.panels) == 2 ** len(points)


def test_the_rules_cell_says_what_grading_hides_here():
    # Review (issue 36): the rules said the modules implementing the exercises "are not
    # importable" while grading, yet the setup cell imports mllib.vc for the visible tests.
    # mllib.grading.vc hides nothing (REFERENCE is empty), so that import works when graded.
    import json
    import re
    from pathlib import Path

    from mllib.grading import vc as hidden

    path = Path(__file__).resolve().parents[1] / "solutions/04_vc/vc_exercises.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    setup = next(c for c in cells if "import numpy as np" in c)
    imported = set(re.findall(r"from (mllib\.\w+) import", setup))
    assert "mllib.vc" in imported and not imported & set(hidden.REFERENCE)
    rules = " ".join(cells[0].split())
    assert "so that module stays importable while your work is graded" in rules
    assert "not importable" not in rules


# --- Reviews r3/r4 of lecture 04 ----------------------------------------------------------------


def _walkthrough_markdown() -> str:
    from prose_support import markdown_text

    return markdown_text("04_vc/vc_walkthrough.ipynb")


def test_the_k_gon_cuts_close_only_for_well_spread_points():
    # §10: with 2k + 1 equally spaced points and k single negatives, the cuts' outward
    # directions (the negatives' own directions) leave gaps of at most 3·360°/(2k + 1), under
    # 180° from k = 3 on (154.3° at k = 3); seven points bunched within 120° (P, N, P, N, P, N, P
    # at 0°, 20°, ..., 120°) leave about 280°.
    def largest_gap(degrees):
        ordered = np.sort(np.asarray(degrees) % 360)
        return max(np.max(np.diff(ordered), initial=0), 360 - ordered[-1] + ordered[0])

    for k in range(3, 20):
        step = 360 / (2 * k + 1)
        negatives = [step * (2 * i + 1) for i in range(k)]  # one pair of positives is adjacent
        assert largest_gap(negatives) == pytest.approx(3 * step) and 3 * step < 180
    assert 3 * 360 / 7 == pytest.approx(154.29, abs=0.01)
    assert largest_gap([20, 60, 100]) == 280
    text = _walkthrough_markdown()
    assert "Put $2k + 1$ **equally spaced** points on a circle" in text


def test_the_margin_table_caps_at_n_plus_one_for_gamma_002():
    from mllib import pac

    assert pac.margin_vc_bound(1.0, 0.02, 1000) == 1001 == 1000 + 1  # 1/0.02² = 2500 > n
    assert pac.margin_vc_bound(1.0, 0.05, 1000) == 401
    assert "the bound caps at $n + 1 = 1001$" in _walkthrough_markdown()


def test_conjunctions_over_one_variable_reach_h_equals_two_to_the_vc():
    # §7: the slide's "|H| > 2^m" is a slip; n = 1 has |H| = 3 + 1 = 4 = 2^2 and VC = 2.
    from mllib.demos.pac import conjunction_vc

    assert 3**1 + 1 == 2 ** conjunction_vc(1) == 4
    text = _walkthrough_markdown()
    assert "the condition is $|H| \\ge 2^m$, and $n = 1$ attains it" in text
    # The upper bound is proved for every n (the brute force of tests/test_vc.py checks n <= 4).
    assert "the literals sit on $n + 1$ different variables, and there are only $n$" in text
    assert "Kearns and Vazirani, 1994, ch. 1" in text
    assert "CS446's learner is the tight box" not in text
