"""The kernels walk-through's widget logic, tables and figures, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, png_pixels
from matplotlib.figure import Figure
from prose_support import markdown_text
from scipy import stats

from mllib import data, kernels, perceptron, svm
from mllib.demos import explore
from mllib.demos import kernels as demo
from mllib.plotting import alt_text, counted


def test_dual_representation_table_ends_at_the_slides_w():
    rows = demo.dual_representation_table().splitlines()[2:]
    assert [row.split(" | ")[3] for row in rows] == ["mistake", "mistake", "correct", "mistake"]
    # CS446: w = x¹ + x² − x⁴ = [1,0,0] + [0,1,0] − [1,0,1].
    assert rows[-1].endswith("| [1, 1, 0, 1] | [0, 1, -1] |")


def test_side_by_side_lists_the_same_mistakes_with_equal_scores_and_both_converge():
    # The prose: with c = 1 both runs converge, after the same mistakes with the same scores.
    primal, dual = demo.side_by_side_runs()
    assert primal.converged and dual.converged
    assert primal.mistakes == dual.mistakes == len(dual.history)
    rows = [row.split(" | ") for row in demo.side_by_side().splitlines()[2:]]
    assert len(rows) == dual.mistakes
    for row in rows:
        assert row[1] == row[3]  # the same (epoch, row)
        assert abs(float(row[2]) - float(row[4].rstrip(" |"))) <= 1e-6  # printed to 6 decimals


def test_without_the_constant_no_quadratic_separator_exists_for_the_disc():
    # The prose: with c = 0 the runs never converge (the disc needs the constant r²).
    X, y = data.rings(40, gap=0.3, seed=2)
    assert not kernels.kernel_perceptron(X, y, kernel="polynomial", degree=2, c=0).converged


def test_quadratic_features_with_c_give_the_shifted_kernel():
    X = np.random.default_rng(7).standard_normal((5, 3))
    for c in (0.5, 1.0, 3.0):
        phi = kernels.quadratic_features(X, c=c)
        assert phi.shape == (5, 6 + 3 + 1)
        np.testing.assert_allclose(phi @ phi.T, kernels.polynomial(X, degree=2, c=c),
                                   rtol=1e-12, atol=1e-12)  # exact up to rounding
    with pytest.raises(ValueError, match="c must be >= 0"):
        kernels.quadratic_features(X, c=-1.0)


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _legend_covers_no_point(ax) -> bool:
    ax.figure.canvas.draw()
    box = ax.get_legend().get_window_extent()
    for collection in ax.collections:
        points = ax.transData.transform(collection.get_offsets())
        inside = ((points[:, 0] > box.x0) & (points[:, 0] < box.x1) & (points[:, 1] > box.y0)
                  & (points[:, 1] < box.y1))
        if inside.any():
            return False
    return True


@pytest.mark.parametrize("show", [demo.show_circle, demo.show_polar])
def test_circle_and_polar_legends_cover_no_data_point(show):
    for ax in show().axes:
        assert _legend_covers_no_point(ax)


def test_circle_and_polar_figures_separate_with_a_line():
    circle = demo.show_circle()
    mapped = circle.axes[1].collections[0].get_offsets()  # the +1 points after (x₁², x₂²)
    assert np.all(mapped.sum(axis=1) <= 1 + 1e-12)
    polar = demo.show_polar(radius=1.25)
    inside = polar.axes[1].collections[0].get_offsets()[:, 0]
    outside = polar.axes[1].collections[1].get_offsets()[:, 0]
    assert inside.max() < 1.25 < outside.min()


@pytest.fixture(scope="module")
def study():
    return demo.cost_study()


def test_cost_counts_come_from_the_primal_runs_mistakes(study):
    # The dual's mistakes stand for the primal's (section 3): check against primal runs on φ(x).
    rng = np.random.default_rng(3)
    for a, d in enumerate(study.dims[:2]):
        for b, m in enumerate(study.sizes):
            X = rng.standard_normal((m, d))
            y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
            if (a, b) in ((0, 0), (1, 1)):
                run = perceptron.perceptron(kernels.quadratic_features(X), y, max_epochs=3)
                assert (run.epochs, run.mistakes) == (study.epochs[a, b], study.mistakes[a, b])
                D = d * (d + 1) // 2
                assert study.primal[a, b] == m * D * (1 + run.epochs) + run.mistakes * D
                assert study.dual[a, b] == m * m * d + run.mistakes * m


def test_cost_slopes_are_one_for_the_primal_and_two_for_the_dual(study):
    # The prose: log-log slope 1 (primal) and 2 (dual); the mistakes term adds a little noise.
    sizes = np.log2(study.sizes)
    primal = np.diff(np.log2(study.primal), axis=1) / np.diff(sizes)
    dual = np.diff(np.log2(study.dual), axis=1) / np.diff(sizes)
    assert np.all(np.abs(primal - 1) < 0.1)
    assert np.all(np.abs(dual - 2) < 0.06)


def test_cost_lifts_with_d_follow_D_for_the_primal_and_d_for_the_dual(study):
    d = np.array(study.dims, dtype=float)
    D = d * (d + 1) / 2
    last = -1  # the largest m, where the leading terms dominate
    np.testing.assert_allclose(study.primal[1:, last] / study.primal[:-1, last], D[1:] / D[:-1],
                               rtol=0.1)  # the mistakes term differs between runs
    np.testing.assert_allclose(study.dual[1:, last] / study.dual[:-1, last], d[1:] / d[:-1],
                               rtol=0.1)


def test_the_dual_wins_only_for_few_examples_and_many_features(study):
    # The prose: crossing near m ≈ (passes + 1)(d + 1)/2; with d = 4 the dual never wins.
    assert study.dims == (4, 16, 64)
    assert [study.crossover(a) for a in range(3)] == [0, 25, 100]
    passes = 3  # "for three passes"
    assert (study.epochs == passes).all()
    estimates = [(passes + 1) * (d + 1) / 2 for d in study.dims]
    assert estimates == [10, 34, 130]  # "that is 10, 34 and 130"
    # review r4: dual_cost fills all m² Gram entries; with m(m + 1)/2 of them, d·m²/2 equals
    # (passes + 1)·D·m at twice the m: "would double the crossings, to 20, 68 and 260"
    assert demo.dual_cost(10, 4, 0) == 10 * 10 * 4
    assert [2 * e for e in estimates] == [20, 68, 260]
    assert "fills all $m^2$ Gram entries" in _kernels_text()
    assert "would double the crossings, to 20, 68 and 260" in _kernels_text()
    # and §1 no longer reads as if a bias-free perceptron could learn the half-plane
    assert "given a threshold (the constant feature of §3)" in _kernels_text()
    assert estimates[0] < study.sizes[0] == 25  # "below the smallest size measured, 25"
    for a, estimate in enumerate(estimates):
        # the printed verdicts agree: the last size at which the dual is cheaper is the last
        # size measured below the estimate
        assert study.crossover(a) == max((m for m in study.sizes if m <= estimate), default=0)
        assert study.crossover(a) <= estimate
        assert all(q > p for m, p, q in zip(study.sizes, study.primal[a], study.dual[a],
                                            strict=True) if m > 2 * estimate)


def test_cost_figure_has_two_lines_per_d_and_readable_ticks(study):
    fig = demo.show_cost(study)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2 * len(study.dims)
    fig.canvas.draw()
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in labels] == [str(m) for m in study.sizes]
    boxes = [t.get_window_extent() for t in labels]
    assert not any(_boxes_overlap(a, b) for a, b in zip(boxes[:-1], boxes[1:], strict=True))
    assert not [t for t in ax.get_xticklabels(minor=True) if t.get_text()]
    assert len([t for t in ax.get_yticklabels() if t.get_text()]) >= 2


def test_irrelevant_features_shrink_the_ratio_and_hurt_the_perceptron():
    study = demo.irrelevant_features()
    assert study.noise_dims == (0, 2, 8, 32, 128)
    assert study.converged.all()  # the prose: every run converges
    assert np.all(np.diff(study.ratio) < 0)  # γ/max‖x'‖ falls with every block of noise
    np.testing.assert_allclose(study.bound, study.ratio ** -2.0)
    assert np.all(np.diff(study.mistakes) > 0)  # more mistakes
    assert np.all(np.diff(study.test_error[1:]) > 0)  # from 8 noise coordinates on it climbs
    assert study.test_error[2] > study.test_error[0]
    assert abs(study.test_error[-1] - 0.21) < 0.005  # "about 21% with 128"
    table = demo.irrelevant_features_table(study).splitlines()
    assert len(table) == 2 + 5 and "not converged" not in "".join(table)


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


def _log_slider_values(low: float, high: float, step: float) -> list[float]:
    """The values a FloatLogSlider(base=10, min=low, max=high, step=step) can take."""
    return [10.0 ** e for e in np.arange(low, high + step / 2, step)]


@pytest.mark.parametrize("name", demo.DATASETS)
def test_kernel_widget_draws_every_setting_its_controls_allow(name):
    # The notebook's controls: degree 1..6, γ = 10^-1..10^1.5 (step 0.25), C = 10^-2..10^2
    # (step 0.5). Every degree and every γ at both C extremes, every C at the default kernel.
    gammas, Cs = _log_slider_values(-1, 1.5, 0.25), _log_slider_values(-2, 2, 0.5)
    settings = {("linear", 2, 1.0, C) for C in Cs}
    settings |= {("polynomial", p, 1.0, C) for p in range(1, 7) for C in (Cs[0], Cs[-1])}
    settings |= {("polynomial", 2, 1.0, C) for C in Cs}
    settings |= {("rbf", 2, g, C) for g in gammas for C in (Cs[0], Cs[-1])}
    settings |= {("rbf", 2, 1.0, C) for C in Cs}
    for kernel, degree, gamma, C in sorted(settings):
        fig = demo.show_kernels(name, kernel, degree, gamma, C)
        fits = demo.fit(name, kernel, degree, demo.shown(gamma), demo.shown(C))  # as shown
        # Each panel's verdict is the count of training points on the wrong side.
        errors = int(np.sum(kernels.kernel_predict(fits.run, fits.X, fits.y, fits.X) != fits.y))
        assert fig.axes[0].get_title().endswith(counted(errors, "training error"))
        wrong = int(np.sum(np.where(svm.dual_decision(fits.svm, fits.X) > 0, 1, -1) != fits.y))
        assert fig.axes[1].get_title().endswith(counted(wrong, "training error"))


def test_the_widget_prose_holds_at_the_settings_it_names():
    # "the linear kernel on rings (no hope), degree 2 on rings and XOR (enough), degree 2 on
    # moons (not quite), RBF with the largest γ (most points become support vectors)".
    assert not demo.fit("rings", "linear", 2, 1.0, 1.0).run.converged
    assert demo.fit("rings", "linear", 2, 1.0, 1.0).svm.support.size > 0
    linear_svm = demo.fit("rings", "linear", 2, 1.0, 1.0)
    assert np.sum(svm.predict_dual(linear_svm.svm, linear_svm.X) != linear_svm.y) > 0
    for name in ("rings", "xor"):
        fits = demo.fit(name, "polynomial", 2, 1.0, 1.0)
        assert fits.run.converged and np.all(svm.predict_dual(fits.svm, fits.X) == fits.y)
    moons = demo.fit("moons", "polynomial", 2, 1.0, 1.0)
    assert not moons.run.converged and np.any(svm.predict_dual(moons.svm, moons.X) != moons.y)
    for name in demo.DATASETS:
        sharp, smooth = demo.fit(name, "rbf", 2, 10 ** 1.5, 1.0), demo.fit(name, "rbf", 2, 1.0, 1.0)
        assert sharp.svm.support.size >= 0.75 * len(sharp.y) > 2 * smooth.svm.support.size


def test_the_slides_box_only_dual_is_complete_for_the_svm_without_a_bias():
    # Section 6: the slide's primal has no bias, and 0 <= α <= C is its whole dual. Solve the
    # box-only dual with scipy (an independent solver) and check strong duality: the bias-free
    # primal ½wᵀw + CΣ max(0, 1 - yᵢwᵀφ(xᵢ)) at w = Σ αᵢyᵢφ(xᵢ) equals minus the dual
    # optimum. Weak duality makes the primal value >= -dual for every w, so equality proves
    # that w optimal. The equality Σαᵢyᵢ = 0, which comes with a bias, does not hold there.
    from scipy.optimize import minimize

    X, y = data.rings(40, gap=0.3, seed=5)
    y = y.astype(float)
    C = 1.0
    Q = np.outer(y, y) * kernels.gram(X, kernel="rbf", gamma=1.0)
    result = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(len(y)),
                      jac=lambda a: Q @ a - 1, bounds=[(0, C)] * len(y), method="L-BFGS-B",
                      options={"ftol": 1e-14, "gtol": 1e-10, "maxiter": 10_000})
    alpha = result.x
    scores = Q @ alpha * y  # wᵀφ(xᵢ) = Σⱼ αⱼyⱼK(xⱼ, xᵢ)
    primal = 0.5 * alpha @ Q @ alpha + C * np.maximum(0, 1 - y * scores).sum()
    assert abs(primal + result.fun) < 1e-5 * abs(result.fun)  # L-BFGS-B's tolerance, relative
    assert abs(alpha @ y) > 0.1  # the bias-free optimum does not satisfy Σαᵢyᵢ = 0
    # With a bias (svm.solve_dual) the equality holds.
    assert abs(svm.solve_dual(X, y, C=C, kernel="rbf", gamma=1.0).alpha @ y) < 1e-9


def test_the_gram_matrix_section_numbers():
    # Section 5: the RBF Gram matrix is PSD (eigenvalues >= -tolerance); that of ‖x - z‖ has a
    # zero diagonal, so a zero trace, and a negative eigenvalue.
    valid, invalid = demo.spectrum_grams()
    scale = np.abs(valid).max() * len(valid)
    # §5 prints the smallest eigenvalue "(none negative)": 1.5e-09 here, far above eigvalsh's
    # rounding (1e-12 of the scale), so its sign does not depend on the machine.
    assert np.linalg.eigvalsh(valid).min() > 1e-12 * scale
    # sqrt of squared distances computed as ‖x‖² + ‖z‖² - 2x·z: the diagonal is ~1e-8, not 0.
    assert np.abs(np.diag(invalid)).max() < 1e-6 and abs(np.trace(invalid)) < 1e-6
    assert np.linalg.eigvalsh(invalid).min() < -1.0
    np.testing.assert_allclose(np.linalg.eigvalsh(invalid).sum(), np.trace(invalid), atol=1e-9)
    assert kernels.is_psd(valid) and not kernels.is_psd(invalid)


def test_the_widget_prose_at_the_largest_gamma_matches_the_frames():
    # "most points become support vectors"; XOR's +1 region is two islands, one per +1
    # cluster; rings and moons one +1 region; the perceptron panel one +1 region everywhere.
    from scipy import ndimage

    fraction = {}
    for name in demo.DATASETS:
        fits = demo.fit(name, "rbf", 2, demo.shown(10 ** 1.5), 1.0)  # the slider's 31.6
        fraction[name] = fits.svm.support.size / len(fits.y)
        svm_regions, count = ndimage.label(fits.svm_scores > 0)
        assert count == (2 if name == "xor" else 1), name
        assert ndimage.label(fits.perceptron_scores > 0)[1] == 1, name
        if name == "xor":
            # Each +1 cluster (x₁ and x₂ of the same sign) lies in its own island.
            g1, g2 = fits.grid
            positives = fits.X[fits.y > 0]
            cols = np.abs(g1[0][None, :] - positives[:, :1]).argmin(axis=1)
            rows = np.abs(g2[:, 0][None, :] - positives[:, 1:]).argmin(axis=1)
            island = svm_regions[rows, cols]
            quadrant = positives[:, 0] > 0
            assert set(island[quadrant]) != set(island[~quadrant])
            assert len(set(island[quadrant])) == len(set(island[~quadrant])) == 1
    assert fraction == pytest.approx({"rings": 73 / 80, "xor": 63 / 80, "moons": 62 / 80})


def test_the_smallest_C_puts_rings_and_xor_in_one_class():
    # "C = 0.01 ... the RBF SVM puts every point of rings and of XOR in one class: on rings it
    # predicts +1 everywhere, so all 37 points of the -1 class, of 80, are training errors."
    for name, sign in (("rings", 1), ("xor", -1)):
        fits = demo.fit(name, "rbf", 2, 1.0, 0.01)
        predicted = svm.predict_dual(fits.svm, fits.X)
        assert np.all(predicted == sign), name
    rings = demo.fit("rings", "rbf", 2, 1.0, 0.01)
    assert len(rings.y) == 80
    assert int(np.sum(svm.predict_dual(rings.svm, rings.X) != rings.y)) == 37
    assert int(np.sum(rings.y < 0)) == 37


def test_the_frame_uses_and_titles_the_values_the_sliders_display(monkeypatch):
    import ipywidgets

    assert ipywidgets.FloatLogSlider().readout_format == demo.READOUT  # what the slider shows
    used = []
    real_fit = demo.fit

    def recording_fit(name, kernel, degree, gamma, C):
        used.append((gamma, C))
        return real_fit(name, kernel, degree, gamma, C)

    monkeypatch.setattr(demo, "fit", recording_fit)
    for C in _log_slider_values(-2, 2, 0.5):
        for gamma in (10 ** -1, 10 ** 0.25, 10 ** 1.5):
            readout_g, readout_C = format(gamma, ".3g"), format(C, ".3g")
            title = demo.show_kernels("xor", "rbf", 2, gamma, C).axes[1].get_title()
            assert f"(γ = {readout_g}, C = {readout_C})" in title
            assert used[-1] == (float(readout_g), float(readout_C))
    linear = demo.show_kernels("xor", "linear", 2, 1.0, 10 ** -1.5)
    assert "(C = 0.0316)" in linear.axes[1].get_title()


def test_the_svm_legend_sits_beside_the_panel_clear_of_the_points():
    fig = demo.show_kernels("moons", "rbf", 2, 10 ** 1.5, 1.0)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)  # lay out the text, so the extents are the drawn ones
    ax = fig.axes[1]
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.x0 > ax.get_window_extent(renderer).x1  # right of the data area


@pytest.mark.parametrize("setting", [("rings", "polynomial", 2, 1.0, 1.0),
                                     ("xor", "rbf", 2, 10 ** 1.5, 0.01),
                                     ("moons", "linear", 2, 1.0, 100.0)])
def test_kernel_widget_redrawn_in_place_shows_what_a_fresh_build_shows(setting):
    """The same data, and the same pixels, whether the figure was just built for a setting or
    redrawn in place after other data sets, kernels and sliders."""
    demo._kernels_view.cache_clear()
    fresh = demo.show_kernels(*setting)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other in (("moons", "rbf", 2, 0.1, 1.0), ("xor", "polynomial", 5, 1.0, 10.0),
                  (setting[0], "rbf", 2, 3.16, 1.0)):
        png_pixels(demo.show_kernels(*other))
    again = demo.show_kernels(*setting)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_kernel_widget_alt_text_states_both_fits_and_follows_the_controls():
    # Independently: the data and both classifiers rebuilt from the library, not from demo.fit.
    X, y = data.rings(80, gap=0.3, seed=5)
    texts = {}
    for C in (0.01, 100.0):
        run = kernels.kernel_perceptron(X, y, kernel="rbf", max_epochs=50, gamma=1.0)
        solution = svm.solve_dual(X, y, C=C, kernel="rbf", gamma=1.0)
        wrong = int(np.sum(svm.predict_dual(solution, X) != y))
        text = alt_text(demo.show_kernels("rings", "rbf", 2, 1.0, C))
        assert text.startswith(f"80 points of the rings data, {int(np.sum(y > 0))} labelled +1")
        assert f"the kernel perceptron made {counted(run.mistakes, 'mistake')}" in text
        assert (f"C = {C:.3g} has {counted(len(solution.support), 'support vector')} (ringed) "
                f"and {counted(wrong, 'training error')}") in text
        assert "γ = 1" in text
        texts[C] = text
    assert texts[0.01] != texts[100.0]


def test_the_svm_legend_fits_inside_the_widget_image():
    fig = demo.show_kernels("moons", "rbf", 2, 10 ** 1.5, 1.0)
    fig.canvas.draw()
    assert fig.axes[1].get_legend().get_window_extent().x1 <= fig.bbox.x1


def test_the_spectrum_printout_computes_its_verdicts():
    # Review r3: cell 20 printed "(none negative)" whatever the value; it now prints is_psd.
    import json

    from prose_support import SOLUTIONS
    cells = json.loads((SOLUTIONS / "07_kernels/kernels_walkthrough.ipynb").read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "none negative" not in code
    assert "PSD {kernels.is_psd(valid)}" in code and "PSD {kernels.is_psd(invalid)}" in code
    valid, invalid = demo.spectrum_grams()
    assert kernels.is_psd(valid) and not kernels.is_psd(invalid)


def test_spectrum_alt_text_counts_the_negative_eigenvalues():
    X = np.random.default_rng(4).standard_normal((40, 2))
    distances = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1))
    negative = int(np.sum(np.linalg.eigvalsh(distances) < -1e-10))
    text = alt_text(demo.show_spectrum())
    assert "40×40 Gram matrices" in text
    assert "0 negative (positive semi-definite" in text
    assert f"{negative} negative (not a kernel)" in text
    assert "30×30" in alt_text(demo.show_spectrum(n=30))


@pytest.mark.parametrize("show", [demo.show_circle, demo.show_polar])
def test_circle_and_polar_alt_texts_count_the_classes(show):
    seed, gap = (0, 0.3) if show is demo.show_circle else (1, 0.5)
    _, y = data.rings(200, gap=gap, seed=seed)
    text = alt_text(show())
    assert f"{int(np.sum(y > 0))} " in text and f"{int(np.sum(y < 0))} " in text
    assert "separates them" in text and "does not" not in text
    assert alt_text(show(n=100)) != text


def _kernels_text() -> str:
    return markdown_text("07_kernels/kernels_walkthrough.ipynb")


def test_without_the_constant_no_quadratic_separator_exists_on_the_side_by_side_sample():
    # §3: with c = 0 a separator's score is ρ²(a + b cos 2θ + e sin 2θ): its sign depends on the
    # direction only and changes at most twice per half-turn, so the labels sorted by θ mod π
    # may change at most twice (cyclically). The sample alternates more. Independent oracle:
    # scipy's LP finds no w with y·(w·φ(x)) >= 1 for φ = quadratic_features(X, c=0).
    from scipy.optimize import linprog

    X, y = data.rings(40, gap=0.3, seed=2)
    order = np.argsort(np.arctan2(X[:, 1], X[:, 0]) % np.pi)
    labels = y[order]
    assert np.sum(labels != np.roll(labels, 1)) > 2
    phi = kernels.quadratic_features(X, c=0.0)
    lp = linprog(np.zeros(phi.shape[1]), A_ub=-y[:, None] * phi, b_ub=-np.ones(len(y)),
                 bounds=[(None, None)] * phi.shape[1], method="highs")
    assert lp.status == 2  # infeasible
    assert "changes at most twice per half-turn" in _kernels_text()


def test_the_sharp_rbf_perceptron_regions_are_voronoi_cells_of_its_mistakes():
    # §6's widget text at γ = 31.6: one connected +1 region on each data set, 4 mistakes on
    # XOR, and the sign of the score is the label of the nearest mistaken point almost
    # everywhere on the grid (here at least 99.8% of it); at degree 5 and 6 on XOR the +1
    # region has two components.
    from scipy import ndimage

    sharp = demo.shown(10**1.5)
    for name in demo.DATASETS:
        fits = demo.fit(name, "rbf", 2, sharp, 1.0)
        assert ndimage.label(fits.perceptron_scores > 0)[1] == 1
        mistaken = np.flatnonzero(fits.run.alpha > 0)
        g1, g2 = fits.grid
        grid = np.column_stack([g1.ravel(), g2.ravel()])
        nearest = np.argmin(((grid[:, None] - fits.X[mistaken][None]) ** 2).sum(-1), axis=1)
        agree = np.mean(np.sign(fits.perceptron_scores.ravel()) == fits.y[mistaken][nearest])
        assert agree >= 0.998
    assert demo.fit("xor", "rbf", 2, sharp, 1.0).run.mistakes == 4
    for degree in (5, 6):
        fits = demo.fit("xor", "polynomial", degree, 1.0, 1.0)
        assert ndimage.label(fits.perceptron_scores > 0)[1] == 2
    text = _kernels_text()
    assert "after few mistakes (4 on XOR)" in text and "at degree 5 or 6 its $+1$ region" in text


def test_the_held_out_errors_quoted_for_the_sharp_rbf_kernel():
    # §6: "the error rises on rings (0.001 to 0.043) and on XOR (0 to 0.0185), but on moons it
    # falls (0.024 to 0.0055)", on 2000 fresh points; review r4: the XOR row's 0 errors is
    # printed with its exact one-sided 95 % bound, not a bare 0.
    sharp = demo.shown(10**1.5)
    quoted = {"rings": (0.001, 0.043), "xor": (0.0, 0.0185), "moons": (0.024, 0.0055)}
    for name, errors in quoted.items():
        found = [demo.held_out_error(name, g) for g in (1.0, sharp)]
        # within one of the 2000 points (a point on the boundary may fall either way on
        # another machine) plus the rounding of the quoted figure
        np.testing.assert_allclose(found, errors, atol=1 / 2000 + 5e-4)
    assert demo.held_out_error("xor", 1.0) == 0  # the row the bound replaces
    upper = stats.beta.ppf(0.95, 1, 2000)  # Clopper-Pearson one-sided upper bound at 0/2000
    assert f"{upper:.4f}" == "0.0015"
    text = _kernels_text()
    assert "printed ± one standard error; 0 of 2,000 still allows up to 0.0015" in text
    assert "rises on rings (0.001 to 0.043) and on XOR (0 to 0.0185)" in text
    assert "on moons it falls (0.024 to 0.0055)" in text


def test_going_further_proves_the_rules_with_schurs_identity():
    # The optional part proves the product rule by a^T (K ∘ K') a = Σ λ_k (a ∘ v_k)^T K (a ∘ v_k);
    # the identity checked on random Gram matrices, and the part marked as optional.
    rng = np.random.default_rng(0)
    X, a = rng.standard_normal((12, 3)), rng.standard_normal(12)
    K, K2 = kernels.rbf(X, gamma=0.5), kernels.polynomial_of(kernels.linear(X), [1, 1])
    lam, V = np.linalg.eigh(K2)
    right = sum(w * (a * v) @ K @ (a * v) for w, v in zip(lam, V.T, strict=True))
    assert a @ (K * K2) @ a == pytest.approx(right, rel=1e-9)
    text = _kernels_text()
    assert "## Going further (optional) *Not part of the lecture's core: why CS446's rules" in text
    assert "An optional part after the summary proves the rules of §5" in text


def test_the_spectrum_alt_text_rounds_as_the_printout_and_names_moore_aronszajn():
    # The printout says "-21.5" (.1f); the alt text said "-21" (.2g). §5 named Mercer.
    valid, invalid = demo.spectrum_grams()
    smallest = np.linalg.eigvalsh(invalid).min()
    assert f"{smallest:.1f}" == "-21.5"
    assert "smallest -21.5," in alt_text(demo.show_spectrum())
    assert "Moore–Aronszajn" in _kernels_text()


def test_the_printed_direction_changes_prove_no_separator_through_the_origin():
    # §3 prints the cyclic count of label changes by direction mod π (review r1: 24 on the
    # side-by-side sample); the argument needs more than 2. Oracle: the count by hand from sorted
    # angles, and the LP of the test above.
    X, y = data.rings(40, gap=0.3, seed=2)
    angles = np.sort(np.arctan2(X[:, 1], X[:, 0]) % np.pi)
    labels = y[np.argsort(np.arctan2(X[:, 1], X[:, 0]) % np.pi)]
    by_hand = sum(labels[i] != labels[i - 1] for i in range(len(labels)))
    assert np.all(np.diff(angles) > 0)  # no two points share a direction: the order is defined
    assert demo.direction_changes(X, y) == by_hand == 24
    assert "labels change 24 times (printed below), far more than twice" in _kernels_text()
    with pytest.raises(ValueError, match="shape"):
        demo.direction_changes(X[:, :1], y)


def test_exercise_5_plain_quadratic_kernel_cannot_separate_mmds_points():
    # The instructor's answer to Exercise 5.3: labels change 4 times by direction (> 2), the LP
    # for w·φ(x) with φ = quadratic_features(c=0) is infeasible, and with c = 1 it is feasible.
    from scipy.optimize import linprog

    X = np.array([[1.0, 2.0], [2.0, 3.0], [2.0, 1.0], [3.0, 2.0]])
    y = np.array([-1.0, 1.0, 1.0, -1.0])
    assert demo.direction_changes(X, y) == 4
    for c, status in ((0.0, 2), (1.0, 0)):  # 2: infeasible, 0: solved
        phi = kernels.quadratic_features(X, c=c)
        lp = linprog(np.zeros(phi.shape[1]), A_ub=-y[:, None] * phi, b_ub=-np.ones(4),
                     bounds=[(None, None)] * phi.shape[1], method="highs")
        assert lp.status == status


def test_irrelevant_features_table_gives_the_test_errors_standard_error():
    # Review r1: the test errors are estimates on 2,000 points; the table shows sqrt(e(1-e)/n)
    # beside each, and the prose calls the 0 and 2 noise rows' difference noise. Review r3: at
    # 0 errors that plug-in error is 0, so the row shows the exact one-sided 95 % bound instead.
    study = demo.irrelevant_features()
    assert study.test_size == 2000
    se = stats.binom(2000, study.test_error).std() / 2000  # scipy's binomial s.d., as a share
    table = demo.irrelevant_features_table(study)
    assert "test error ± s.e. (2,000 points; at 0, a 95 % bound)" in table
    assert f"{study.test_error[-1]:.2%} ± {se[-1]:.2%}" in table
    assert abs(study.test_error[0] - study.test_error[1]) < 2 * se[0]
    assert "± 0.00%" not in table
    assert study.test_error[1] == 0  # 0 of 2000: the row the bound replaces
    upper = stats.beta.ppf(0.95, 1, 2000)  # Clopper-Pearson one-sided upper bound at 0/2000
    assert f"| 0.00% (≤ {upper:.2%}, 95 %) |" in table
    text = _kernels_text()
    assert f"{upper:.2%}" == "0.15%" and "0 of 2,000 still allows up to 0.15%" in text
    assert "0.05% against 0.00% at 0 and 2 noise coordinates is noise" in text
    assert (f"{study.test_error[0]:.2%}", f"{study.test_error[1]:.2%}") == ("0.05%", "0.00%")
    assert "the dual is the only exact way" in text
    assert "margin lines closing around" not in text


def test_the_widget_shading_is_a_raster_that_can_put_a_correct_point_on_the_other_colour():
    """Review r3: §6's widget shades a 90 × 90 raster by the score at each cell's centre, so at
    rings, RBF, γ = 1.78, C = 3.16 two training points sit on a cell of the other colour in the
    perceptron's panel while its title counts 0 training errors; the prose says so."""
    fig = demo.show_kernels("rings", "rbf", 2, 10 ** 0.25, 10 ** 0.5)
    assert fig.axes[0].get_title().endswith("0 training errors")
    fits = demo.fit("rings", "rbf", 2, demo.shown(10 ** 0.25), demo.shown(10 ** 0.5))
    g1, g2 = fits.grid
    assert g1.shape == (90, 90)
    # the raster cell holding each point: the nearest grid centre on each axis
    col = np.abs(fits.X[:, :1] - g1[0][None]).argmin(axis=1)
    row = np.abs(fits.X[:, 1:] - g2[:, 0][None]).argmin(axis=1)
    shaded = np.where(fits.perceptron_scores[row, col] > 0, 1.0, -1.0)
    own = kernels.kernel_predict(fits.run, fits.X, fits.y, fits.X)
    assert np.all(own == fits.y)  # every point classified correctly by its own score
    scores = kernels.kernel_scores(fits.run, fits.X, fits.y, fits.X)
    against = shaded != fits.y
    assert int(against.sum()) == 2  # "two such points"
    assert np.all(np.abs(scores[against]) < 0.05)  # both a hair from the boundary
    assert "both drawn from the scores at the centres of a 90 × 90 grid" in _kernels_text()
    assert ("γ = 1.78, C = 3.16: two such points in the perceptron's panel, whose title counts "
            "0 training errors") in _kernels_text()
