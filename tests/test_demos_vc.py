"""The VC walk-through's widget logic, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import vc
from mllib.demos import explore
from mllib.demos import vc as demo

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


def test_frame_marks_each_unrealizable_labelling_in_red():
    fig = demo.show_configuration("half-planes: XOR (square corners)")
    assert [p.title for p in fig.panels if not p.realizable] == ["−−++ ✗", "++−− ✗"]
    red_titles = [t.get_text() for t in fig.axes[0].texts if t.get_color() == "red"]
    assert red_titles == ["−−++ ✗", "++−− ✗"]
    red_frames = [patch for patch in fig.axes[0].patches
                  if patch.get_edgecolor()[:3] == (1, 0, 0) and not patch.get_fill()]
    assert len(red_frames) == 2
    assert fig._suptitle.get_text() == ("half-planes: 14 of 16 labellings realizable, "
                                        "not shattered")


def test_moving_the_star_off_the_line_shatters_three_points():
    hclass, points = demo.moved("half-planes: 3 collinear points", 0.0, 0.5)
    assert points[-1].tolist() == [2.0, 2.5]
    assert demo.labeling_grid(hclass, points).shattered
    title = demo.show_configuration("half-planes: 3 collinear points", 0.0, 0.5)._suptitle
    assert title.get_text().endswith("8 of 8 labellings realizable, shattered")


def test_moving_the_diamonds_top_to_the_centre_breaks_it():
    hclass, points = demo.moved("rectangles: diamond of 4", 0.0, -1.0)
    assert not demo.labeling_grid(hclass, points).shattered


def test_line_presets_ignore_the_vertical_slider():
    _, points = demo.moved("intervals: 3 points", 0.5, 1.5)
    assert points.tolist() == [[1.0], [2.0], [3.5]]


@pytest.mark.parametrize("seed", range(5))
def test_four_points_are_never_shattered_wherever_the_star_goes(seed):
    # Radon: whatever the star's position, some labelling of the four points fails.
    dx, dy = np.random.default_rng(seed).uniform(-2, 2, size=2)
    grid = demo.labeling_grid(*demo.moved("half-planes: triangle and a point inside", dx, dy))
    assert grid.realizable.sum() <= 14


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
        seen.append(fig._suptitle.get_text())
        return fig

    box = explore(frame, configuration=ipywidgets.Dropdown(
        options=list(demo.CONFIGURATIONS), value="half-planes: 3 collinear points"),
        dx=ipywidgets.FloatSlider(value=0.0, min=-2, max=2),
        dy=ipywidgets.FloatSlider(value=0.0, min=-2, max=2))
    box.children[2].value = 0.5  # dy
    assert seen == ["half-planes: 6 of 8 labellings realizable, not shattered",
                    "half-planes: 8 of 8 labellings realizable, shattered"]


def test_the_first_panel_numbers_the_points_in_the_order_of_the_titles():
    fig = demo.show_configuration("half-planes: XOR (square corners)")
    points = np.array(demo.CONFIGURATIONS["half-planes: XOR (square corners)"][1])
    numbers = [(t.get_text(), t.xy) for t in fig.axes[0].texts if hasattr(t, "xy")]
    assert [n for n, _ in numbers] == ["1", "2", "3", "4"]
    np.testing.assert_array_equal([xy for _, xy in numbers], points + fig.panels[0].shift)
    # Panel k shows labelling k: its title spells the labels in point order.
    for panel in fig.panels:
        signs = panel.title.split()[0]
        assert signs == "".join("+" if v > 0 else "−" for v in panel.labels)


def test_every_point_is_drawn_once_per_panel_in_its_colour():
    fig = demo.show_configuration("rectangles: diamond of 4")
    positives, negatives = (c.get_offsets() for c in fig.axes[0].collections[:2])
    assert len(positives) + len(negatives) == 16 * 4
    points = np.array(demo.CONFIGURATIONS["rectangles: diamond of 4"][1])
    drawn_positive = {tuple(np.round(xy, 9)) for xy in positives}
    for panel in fig.panels:
        for point, label in zip(points + panel.shift, panel.labels, strict=True):
            assert (tuple(np.round(point, 9)) in drawn_positive) == (label > 0)
