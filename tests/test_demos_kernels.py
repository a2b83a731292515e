"""The kernels walk-through's widget logic, tables and figures, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import kernels
from mllib.demos import explore
from mllib.demos import kernels as demo


def test_dual_representation_table_ends_at_the_slides_w():
    rows = demo.dual_representation_table().splitlines()[2:]
    assert [row.split(" | ")[3] for row in rows] == ["mistake", "mistake", "correct", "mistake"]
    # CS446: w = x¹ + x² − x⁴ = [1,0,0] + [0,1,0] − [1,0,1].
    assert rows[-1].endswith("| [1, 1, 0, 1] | [0, 1, -1] |")


def test_side_by_side_lists_the_same_mistakes_with_equal_scores():
    rows = [row.split(" | ") for row in demo.side_by_side(rows=10).splitlines()[2:]]
    assert len(rows) == 10
    for row in rows:
        assert row[1] == row[3]  # the same (epoch, row)
        assert abs(float(row[2]) - float(row[4].rstrip(" |"))) <= 1e-6  # printed to 6 decimals


def test_circle_and_polar_figures_separate_with_a_line():
    circle = demo.show_circle()
    mapped = circle.axes[1].collections[0].get_offsets()  # the +1 points after (x₁², x₂²)
    assert np.all(mapped.sum(axis=1) <= 1 + 1e-12)
    polar = demo.show_polar(radius=1.25)
    inside = polar.axes[1].collections[0].get_offsets()[:, 0]
    outside = polar.axes[1].collections[1].get_offsets()[:, 0]
    assert inside.max() < 1.25 < outside.min()


def test_cost_study_times_every_pair_and_the_figure_has_two_lines_per_d():
    study = demo.cost_study(sizes=(50, 100), dims=(2, 3), epochs=1)
    assert study.primal.shape == study.dual.shape == (2, 2)
    assert np.all(study.primal > 0) and np.all(study.dual > 0)
    assert len(demo.show_cost(study).axes[0].get_lines()) == 4


def test_spectrum_shows_a_negative_eigenvalue_only_for_the_distance():
    fig = demo.show_spectrum()
    valid, invalid = ([p.get_height() for p in ax.patches] for ax in fig.axes)
    assert min(valid) > -1e-10 and min(invalid) < -1e-3
    assert fig.axes[0].get_title().endswith("PSD True")
    assert fig.axes[1].get_title().endswith("PSD False")


@pytest.mark.parametrize("name", demo.DATASETS)
def test_fits_draw_the_kernel_svm_support_vectors(name):
    fits = demo.fit(name, "rbf", 2, 2.0, 1.0)
    fig = demo.show_kernels(name, "rbf", 2, 2.0, 1.0)
    rings = fig.axes[1].collections[-1].get_offsets()
    np.testing.assert_array_equal(rings, fits.X[fits.svm.support])
    np.testing.assert_array_equal(fits.svm.support, np.flatnonzero(fits.svm.alpha > 0))
    # The drawn perceptron regions are the sign of the kernel prediction.
    g1, g2 = fits.grid
    points = np.column_stack([g1.ravel()[::97], g2.ravel()[::97]])
    np.testing.assert_allclose(fits.perceptron_scores.ravel()[::97],
                               kernels.kernel_scores(fits.run, fits.X, fits.y, points))


def test_the_quadratic_kernel_separates_rings_and_xor_but_the_linear_one_does_not():
    for name in ("rings", "xor"):
        assert demo.fit(name, "polynomial", 2, 1.0, 1.0).run.converged
        assert not demo.fit(name, "linear", 2, 1.0, 1.0).run.converged


def test_kernel_widget_redraws_when_a_slider_moves(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(name, kernel, degree, gamma, C):
        seen.append((name, kernel, degree))
        return demo.show_kernels(name, kernel, degree, gamma, C)

    box = explore(frame, name=ipywidgets.Dropdown(options=demo.DATASETS, value="rings"),
                  kernel=ipywidgets.Dropdown(options=demo.KERNEL_NAMES, value="polynomial"),
                  degree=ipywidgets.IntSlider(value=2, min=1, max=6),
                  gamma=ipywidgets.FloatLogSlider(value=1, base=10, min=-1, max=1.5),
                  C=ipywidgets.FloatLogSlider(value=1, base=10, min=-2, max=2))
    box.children[2].value = 3
    assert seen == [("rings", "polynomial", 2), ("rings", "polynomial", 3)]


def test_kernel_widget_is_a_static_frame_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_kernels, name=ipywidgets.Dropdown(options=demo.DATASETS,
                                                                value="xor"))
    assert isinstance(frame, Figure)
    assert frame.axes[1].get_title().startswith("kernel SVM")
