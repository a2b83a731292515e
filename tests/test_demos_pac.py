"""The PAC walk-through's widget logic, driven without a browser."""

import math

import ipywidgets
import numpy as np
import pytest
from figure_support import assert_redrawn_in_place_like_a_fresh_build
from matplotlib.figure import Figure
from prose_support import markdown_text

from mllib import pac
from mllib.demos import explore
from mllib.demos import pac as demo
from mllib.plotting import alt_text

UNIFORM, SKEWED = list(demo.DISTRIBUTIONS)
WALKTHROUGH = "03_pac/pac_walkthrough.ipynb"


def test_sample_size_curves_are_the_library_bounds():
    curves = demo.sample_sizes(3**10, 0.05, [0.05, 0.1, 0.2])
    assert curves.occam.tolist() == [pac.occam_sample_size(3**10, e, 0.05) for e in curves.eps]
    assert curves.occam[1] == 140 and curves.agnostic[1] == 700  # the worked example
    assert np.all(np.diff(curves.occam) < 0) and np.all(curves.agnostic > curves.occam)


def test_sample_size_frame_follows_the_sliders():
    fig = demo.show_sample_sizes(0.1, 0.05, 5)
    assert fig.axes[1].get_title() == "ε = 0.1: m = 146 realizable, 726 agnostic"
    markers = fig.axes[0].lines[2].get_ydata().tolist()
    assert markers == [146, 726]  # (ln 10^5 + ln 20)/0.1 = 145.1; /(2·0.01) = 725.6
    title = fig.axes[1].get_title()  # the one figure is redrawn in place by the next frame
    assert demo.show_sample_sizes(0.05, 0.05, 5).axes[1].get_title() != title


def test_bound_comparison_puts_the_counting_bound_between_the_vc_bounds():
    comparison = demo.bound_comparison(0.1, 0.05, n_max=30)
    assert comparison.occam[9] == 140  # n = 10
    assert np.all(comparison.vc_lower[2:] < comparison.occam[2:])  # drawn from n = 3 (VC > 2)
    assert np.all(comparison.occam < comparison.vc_upper)
    assert "n = 10: VC bound 5,831" in demo.show_bound_comparison(10, 0.1, 0.05).axes[0].get_title()


def test_elimination_table_prints_the_walkthrough_run():
    X = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 1], [1, 0, 1, 0, 1], [1, 1, 1, 1, 0],
                  [1, 1, 1, 0, 0]])
    y = np.array([1, -1, 1, -1, 1])
    table = demo.elimination_table(pac.eliminate(X, y), y, "abcde").splitlines()
    # Worked by hand: a = 11001 removes x3, x4, ¬x1, ¬x2, ¬x5; c = 10101 removes x2 and ¬x3;
    # e = 11100 removes x5.
    assert table[2:] == [
        "| a | +1 | x3, x4, ¬x1, ¬x2, ¬x5 | x1 ∧ x2 ∧ ¬x3 ∧ ¬x4 ∧ x5 |",
        "| b | -1 | (ignored: negative) | x1 ∧ x2 ∧ ¬x3 ∧ ¬x4 ∧ x5 |",
        "| c | +1 | x2, ¬x3 | x1 ∧ ¬x4 ∧ x5 |",
        "| d | -1 | (ignored: negative) | x1 ∧ ¬x4 ∧ x5 |",
        "| e | +1 | x5 | x1 ∧ ¬x4 |",
    ]


def test_learning_curve_holds_the_bound_at_the_occam_m():
    sim = demo.learning_curve(0.1, 0.05, UNIFORM, m=37)
    assert 37 in sim.sample_sizes and sim.occam_m in sim.sample_sizes
    assert sim.sample_sizes.max() >= 1.2 * sim.occam_m
    at_occam = sim.failure_rate[sim.sample_sizes == sim.occam_m][0]
    assert at_occam <= sim.delta
    assert sim.failure_rate[0] == 1.0  # one example never pins down three literals


def test_the_distribution_moves_the_failure_curve_but_not_the_bound():
    easy, skewed = (demo.learning_curve(0.05, 0.05, name) for name in (UNIFORM, SKEWED))
    np.testing.assert_array_equal(easy.sample_sizes, skewed.sample_sizes)
    assert easy.occam_m == skewed.occam_m
    np.testing.assert_array_equal(easy.failure_bound, skewed.failure_bound)
    assert not np.array_equal(easy.failure_rate, skewed.failure_rate)
    for sim in (easy, skewed):
        assert sim.failure_rate[sim.sample_sizes == sim.occam_m][0] <= sim.delta


def test_simulation_frame_reports_the_failure_rate_at_the_slider_m():
    fig = demo.show_simulation(40, 0.1, UNIFORM)
    sim = demo.learning_curve(0.1, 0.05, UNIFORM, m=40)
    rate = sim.failure_rate[sim.sample_sizes == 40][0]
    assert fig.axes[0].get_title() == f"m = 40: P̂[error > ε] = {rate:.3f} (δ = 0.05)"
    assert sum(p.get_height() for p in fig.axes[0].patches) == sim.trials
    title = fig.axes[0].get_title()  # the one figure is redrawn in place by the next frame
    assert demo.show_simulation(80, 0.1, UNIFORM).axes[0].get_title() != title


def test_simulation_table_rows():
    sim = pac.simulate(demo.TARGET, 0.5, [5, 140], eps=0.1, delta=0.05, trials=100, seed=0)
    rows = demo.simulation_table(sim).splitlines()[2:]
    assert rows[0].startswith("| 5 | ") and rows[0].endswith("| 0.05 | 1 |")
    assert rows[1].endswith("| 0.05 | 0.0232 |")  # 59050 · 0.9^140 = 0.0232


def test_explore_draws_the_simulation_statically_while_grading(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_simulation,
                    m=ipywidgets.IntSlider(value=40, min=1, max=demo.SIMULATED_M),
                    eps=ipywidgets.FloatSlider(value=0.1, min=0.02, max=0.12),
                    distribution=ipywidgets.Dropdown(options=list(demo.DISTRIBUTIONS)))
    assert isinstance(frame, Figure)
    assert frame.axes[0].get_title().startswith("m = 40:")


@pytest.mark.parametrize("slider", ["eps", "delta", "log10_h"])
def test_each_sample_size_slider_reruns_the_frame(monkeypatch, slider):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    controls = {"eps": ipywidgets.FloatSlider(value=0.1, min=0.01, max=0.3),
                "delta": ipywidgets.FloatSlider(value=0.05, min=0.01, max=0.3),
                "log10_h": ipywidgets.FloatSlider(value=5, min=0, max=30)}
    seen = []

    def frame(**values):
        fig = demo.show_sample_sizes(**values)
        seen.append(fig.axes[1].get_title())
        return fig

    explore(frame, **controls)
    controls[slider].value = 0.2 if slider != "log10_h" else 20
    assert len(seen) == 2 and seen[0] != seen[1]


def test_the_learning_curve_has_every_m_and_eps_only_moves_the_threshold():
    coarse, fine = demo.learning_curve(0.1, 0.05, UNIFORM), demo.learning_curve(0.05, 0.05, UNIFORM)
    np.testing.assert_array_equal(coarse.sample_sizes, np.arange(1, len(coarse.sample_sizes) + 1))
    np.testing.assert_array_equal(coarse.errors, fine.errors)  # the same trials
    assert coarse.failure_rate[39] == np.mean(coarse.errors[39] > 0.1)


def test_first_reliable_m_is_where_the_failure_rate_stays_below_delta():
    sim = demo.learning_curve(0.1, 0.05, UNIFORM)
    m = demo.first_reliable_m(sim)
    assert sim.failure_rate[m - 1] <= 0.05 and sim.failure_rate[m - 2] > 0.05
    assert np.all(sim.failure_rate[m - 1:] <= 0.05)
    assert m < sim.occam_m  # the bound is loose


def test_class_size_table_takes_the_exact_logarithm_behind_each_m():
    import math

    classes = [("conjunctions", pac.conjunction_count(10)), ("3-CNF", pac.k_cnf_count(10, 3)),
               ("all", pac.boolean_function_count(20))]
    rows = [row.split(" | ") for row in demo.class_size_table(classes, 0.1, 0.05).splitlines()[2:]]
    for (_, size), row in zip(classes, rows, strict=True):
        ln_h, m = float(row[1].replace(",", "")), int(row[2].strip(" |").replace(",", ""))
        assert ln_h == pytest.approx(math.log(size), abs=0.05)  # printed to 1 decimal
        assert m == pac.occam_sample_size(size, 0.1, 0.05)
        # m is the smallest whole number above (ln|H| + ln 20)/ε, from the exact logarithm.
        assert m - 1 <= (math.log(size) + math.log(20)) / 0.1 < m
    assert rows[1][1] == "935.7"  # 1350 ln 2, not bit_length()·ln 2 = 1351 ln 2 = 936.4


def test_online_to_pac_is_tested_on_examples_it_never_read():
    otp = demo.online_to_pac_demo()
    assert otp.picked.sample_size <= len(otp.y)
    train = {tuple(row) for row in otp.X}
    assert not any(tuple(row) in train for row in otp.X_test)
    from mllib import perceptron

    assert otp.picked_error == np.mean(perceptron.predict(otp.picked.w, otp.X_test) != otp.y_test)
    assert 0.4 < otp.test_errors[0] < 0.6  # w = 0 predicts one class: wrong on about half
    assert otp.picked_error <= 0.05
    assert len(otp.test_errors) > 2  # several hypotheses before the one picked


# --- Claims of the walk-through, computed as the notebook computes them ------------------------


def test_the_exact_first_reliable_m_is_52_34_84_97():
    # Issue 28's table: the exact failure probability drops to δ = 0.05 for good at these m.
    found = [demo.exact_reliable_m(eps, 0.05, name) for eps in (0.1, 0.05)
             for name in (UNIFORM, SKEWED)]
    assert found == [52, 34, 84, 97]
    exact = demo.exact_failure(0.1, UNIFORM, 140)
    assert exact[51] <= 0.05 < exact[50]  # m = 52 (index 51) below, m = 51 still above


def test_the_400_trials_find_about_50_and_the_skew_helps_then_hurts():
    # §5's prose: "from about 50 examples on" in the trials (uniform, ε = 0.1); with p = 0.9 the
    # curve reaches δ earlier at ε = 0.1 and later at ε = 0.05, in the trials and exactly.
    simulated = {(eps, name): demo.first_reliable_m(demo.learning_curve(eps, 0.05, name))
                 for eps in (0.1, 0.05) for name in (UNIFORM, SKEWED)}
    assert simulated[0.1, UNIFORM] == 50
    assert simulated[0.1, SKEWED] < simulated[0.1, UNIFORM]
    assert simulated[0.05, SKEWED] > simulated[0.05, UNIFORM]
    assert demo.exact_reliable_m(0.1, 0.05, SKEWED) < demo.exact_reliable_m(0.1, 0.05, UNIFORM)
    assert demo.exact_reliable_m(0.05, 0.05, SKEWED) > demo.exact_reliable_m(0.05, 0.05, UNIFORM)


SECTION_5_ROWS = [5, 10, 20, 40, 50, 60, 80, 100, 140]


def test_the_section_5_table_claims():
    # The cell's own call: at the Occam m = 140 no trial failed; the union bound is capped at 1
    # until m = 105 (34 868 uncapped at m = 5); the header says it is capped.
    sim = demo.learning_curve(0.1, 0.05, UNIFORM)
    rows = demo.simulation_table(sim, SECTION_5_ROWS).splitlines()[2:]
    assert [int(row.split(" | ")[0].strip("| ")) for row in rows] == SECTION_5_ROWS
    assert sim.occam_m == 140 and rows[-1].startswith("| 140 | 0.000 |")
    first_below_one = next(m for m in range(1, 200)
                           if pac.occam_failure_bound(sim.h_size, 0.1, m) < 1)
    assert first_below_one == 105
    assert round(sim.h_size * 0.9**5) == 34868
    assert demo.simulation_table(sim).splitlines()[0].endswith("| |H|(1 − ε)^m (capped at 1) |")


def test_the_online_to_pac_printout_is_consistent():
    # M = ⌊(R/γ)²⌋ and the sample size printed is (M + 1)·L.
    import math

    otp = demo.online_to_pac_demo()
    M = int(otp.bound)
    assert M == math.floor(otp.bound) == 1110
    assert (M + 1) * otp.picked.needed == otp.picked.sample_size == 223_311


def test_the_lower_bound_waits_for_n_97_and_vc_two_at_n_one():
    from mllib import vc

    first = next(n for n in range(1, 200) if (n - 1) / 32 > np.log(20))
    assert first == 97
    for n in range(1, 5):  # lecture 04's brute force on the cube
        assert vc.vc_dimension(vc.conjunctions(n), vc.cube(n)).dimension == demo.conjunction_vc(n)
    comparison = demo.bound_comparison(0.1, 0.05)
    assert np.isnan(comparison.vc_lower[:2]).all() and np.isfinite(comparison.vc_lower[2:]).all()
    title = demo.show_bound_comparison(2, 0.1, 0.05).axes[0].get_title()
    assert title.endswith("lower-bound formula none (VC ≤ 2)")


def test_a_two_term_dnf_is_a_two_cnf():
    # Going further's rewriting, checked on every input.
    import itertools

    x1, x2, x3, x4 = np.array(list(itertools.product([0, 1], repeat=4)), dtype=bool).T
    assert np.array_equal((x1 & x2) | (x3 & x4), (x1 | x3) & (x1 | x4) & (x2 | x3) & (x2 | x4))


# --- Every widget over the full range of its controls ------------------------------------------


def _log_slider(low, high, step):
    """The values of a FloatLogSlider(base=10, min=low, max=high, step=step)."""
    return 10.0 ** np.round(np.arange(low, high + step / 2, step), 10)


def _labelled_ticks(ax, which, draw=True):
    """The labelled major ticks inside the view of one axis of the figure, drawn first unless
    ``draw`` is False (it was drawn since its last change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if draw:
        FigureCanvasAgg(ax.figure).draw()
    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    return [t for t in axis.get_major_ticks()
            if low <= t.get_loc() <= high and t.label1.get_visible() and t.label1.get_text()]


EPS_VALUES = _log_slider(-2, -0.5, 0.05)
DELTA_VALUES = _log_slider(-4, -0.5, 0.25)


def _one_at_a_time(ranges, default):
    """Each control over its whole range, the others at their defaults and at both ends."""
    for name, values in ranges.items():
        others = {k: v for k, v in ranges.items() if k != name}
        for corner in ("default", 0, -1):
            fixed = {k: default[k] if corner == "default" else v[corner]
                     for k, v in others.items()}
            for value in values:
                yield {name: value, **fixed}


def test_sample_size_widget_over_every_slider_value():
    ranges = {"eps": EPS_VALUES, "delta": DELTA_VALUES, "log10_h": np.arange(0.0, 31.0)}
    for values in _one_at_a_time(ranges, {"eps": 0.1, "delta": 0.05, "log10_h": 5.0}):
        fig = demo.show_sample_sizes(**values)
        h = 10.0 ** values["log10_h"]
        occam = pac.occam_sample_size(h, values["eps"], values["delta"])
        agnostic = pac.agnostic_sample_size(h, values["eps"], values["delta"])
        assert fig.axes[1].get_title() == (f"ε = {values['eps']:.3g}: m = {occam:,} realizable, "
                                           f"{agnostic:,} agnostic")
        assert fig.axes[0].get_title() == (f"|H| = 10^{values['log10_h']:g}, "
                                           f"δ = {values['delta']:.3g}")
        for which in ("x", "y"):  # one draw shows both
            assert len(_labelled_ticks(fig.axes[0], which, draw=which == "x")) >= 2, (values,
                                                                                   which)


def test_bound_widget_over_every_slider_value():
    ranges = {"n": np.arange(1, 41), "eps": EPS_VALUES, "delta": DELTA_VALUES}
    for values in _one_at_a_time(ranges, {"n": 10, "eps": 0.1, "delta": 0.05}):
        fig = demo.show_bound_comparison(**values)
        comparison = demo.bound_comparison(values["eps"], values["delta"])
        row = values["n"] - 1
        assert fig.axes[0].get_title().startswith(
            f"n = {values['n']}: VC bound {comparison.vc_upper[row]:,}, |H| bound "
            f"{comparison.occam[row]:,}")
        # The counting bound always beats the VC bound for this finite class.
        assert comparison.occam[row] < comparison.vc_upper[row]
        assert len(_labelled_ticks(fig.axes[0], "y")) >= 2, values


@pytest.mark.parametrize("name", [UNIFORM, SKEWED])
def test_simulation_widget_over_every_slider_value(name):
    # ε runs 0.02..0.12 (the notebook's slider); every value leaves failures to see at small m,
    # because ε < P[f = 1] = 1/8; m sweeps its ends and a grid inside.
    eps_values = np.round(np.arange(0.02, 0.12 + 0.005, 0.01), 2)
    assert eps_values.max() < 1 / 8
    for eps in eps_values:
        assert demo.exact_failure(float(eps), name, 1)[0] > 0.05
        for m in (1, 2, 40, 137, 299, 300, demo.SIMULATED_M):
            fig = demo.show_simulation(m, float(eps), name)
            sim = demo.learning_curve(float(eps), 0.05, name, m=m)
            rate = sim.failure_rate[sim.sample_sizes == m][0]
            assert fig.axes[0].get_title() == f"m = {m}: P̂[error > ε] = {rate:.3f} (δ = 0.05)"
            assert fig.axes[0].get_legend().get_texts()[0].get_text() == f"ε = {eps:g}"
        assert len(_labelled_ticks(fig.axes[1], "x")) >= 2


def test_the_3_cnf_paragraph_numbers():
    # §3: 20 + 190 + 1140 = 1350 clauses of at most 3 literals over 10 variables, 2^1350 formulas;
    # counting the at most 2^1024 functions instead, 7,128 examples would do.
    from math import comb

    assert comb(20, 1) + comb(20, 2) + comb(20, 3) == 1350
    assert pac.k_cnf_count(10, 3) == 2**1350
    assert pac.occam_sample_size(2**1024, 0.1, 0.05) == 7128
    assert pac.occam_sample_size(pac.conjunction_count(10) + 1, 0.1, 0.05) == 140


# --- Review fixes: exact errors, one shared run, the histogram's axis, the legend ---------------


def test_the_table_and_the_widget_share_one_run():
    # §5's table and the widget's default frame (m = 40, ε = 0.1) read the same 400 trials.
    sim = demo.learning_curve(0.1, 0.05, UNIFORM)
    row_40 = demo.simulation_table(sim, SECTION_5_ROWS).splitlines()[2 + SECTION_5_ROWS.index(40)]
    title = demo.show_simulation(40, 0.1, UNIFORM).axes[0].get_title()
    rate = row_40.split(" | ")[1]
    assert title == f"m = 40: P̂[error > ε] = {rate} (δ = 0.05)" and rate == "0.135"
    with pytest.raises(ValueError, match="sizes"):
        demo.simulation_table(sim, [5, 10_000])


def test_the_trials_count_exact_errors_and_cross_where_the_review_found():
    # Counted with the exact errors: ε = 0.05 with p = 0.9 crosses δ for good at m = 99 in the
    # trials (exactly: 97); uniform bits at ε = 0.12 at 41 in the trials and exactly.
    for eps, name in ((0.05, SKEWED), (0.12, UNIFORM), (0.1, UNIFORM)):
        sim = demo.learning_curve(eps, 0.05, name)
        np.testing.assert_array_equal(sim.failure_rate, np.mean(sim.exact_errors > eps, axis=1))
    assert demo.first_reliable_m(demo.learning_curve(0.05, 0.05, SKEWED)) == 99
    assert demo.exact_reliable_m(0.05, 0.05, SKEWED) == 97
    uniform_12 = demo.learning_curve(0.12, 0.05, UNIFORM)
    assert demo.first_reliable_m(uniform_12) == demo.exact_reliable_m(0.12, 0.05, UNIFORM) == 41
    legend = [t.get_text() for t in demo.show_simulation(40, 0.12, UNIFORM).axes[1]
              .get_legend().get_texts()]
    assert "400 trials: P̂[error > ε] (≤ δ from m = 41)" in legend
    assert "exact P[error > ε] (≤ δ from m = 41)" in legend


def test_the_histogram_axis_covers_every_possible_error():
    # A learned conjunction implies f, so its error is at most P[f = 1] = 1/8 < MAX_ERROR.
    for name in (UNIFORM, SKEWED):
        sim = demo.learning_curve(0.1, 0.05, name)
        assert sim.exact_errors.max() <= 1 / 8 < demo.MAX_ERROR
    ax = demo.show_simulation(1, 0.1, UNIFORM).axes[0]
    assert ax.get_xlim() == (0.0, demo.MAX_ERROR)
    assert ax.get_xlabel() == "true error of the learned conjunction"


def test_the_lower_bound_is_exactly_30_for_every_n_from_3_to_40():
    # §4's sentence, at the widget's defaults ε = 0.1, δ = 0.05: ⌈ln 20 / 0.1⌉ = 30.
    comparison = demo.bound_comparison(0.1, 0.05)
    assert comparison.n[2:].tolist() == list(range(3, 41))
    assert set(comparison.vc_lower[2:].tolist()) == {30.0}
    assert np.ceil(np.log(20) / 0.1) == 30


def _window_box(artist):
    return artist.get_window_extent()


@pytest.mark.parametrize("name", [UNIFORM, SKEWED])
def test_simulation_legend_stays_off_the_data(name):
    # The right panel's legend sits outside its axes (so it covers no curve or dot) and inside
    # the figure, for every ε and m at both ends and the review's frame (40); the legend's place
    # is fixed to the axes, so its entries' text is all that changes along the sweep.
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for eps in np.round(np.arange(0.02, 0.12 + 0.005, 0.01), 2):
        for m in (1, 40, 300, demo.SIMULATED_M):
            fig = demo.show_simulation(m, float(eps), name)
            FigureCanvasAgg(fig).draw()
            ax = fig.axes[1]
            legend = _window_box(ax.get_legend())
            assert not legend.overlaps(_window_box(ax)), (eps, m)
            assert not legend.overlaps(_window_box(fig.axes[0])), (eps, m)
            figure_box = fig.bbox
            assert (legend.x0 >= figure_box.x0 and legend.x1 <= figure_box.x1
                    and legend.y0 >= figure_box.y0), (eps, m)


# --- The widgets redraw one figure in place, and say what each frame shows ------------------


@pytest.mark.parametrize(("eps", "delta", "log10_h"), [(0.1, 0.05, 5.0), (0.01, 1e-4, 30.0)])
def test_sample_size_widget_redrawn_in_place_shows_what_a_fresh_build_shows(eps, delta, log10_h):
    assert_redrawn_in_place_like_a_fresh_build(
        demo._sample_sizes_view, lambda: demo.show_sample_sizes(eps, delta, log10_h),
        [lambda: demo.show_sample_sizes(0.3, delta, log10_h),
         lambda: demo.show_sample_sizes(eps, 0.3, log10_h),
         lambda: demo.show_sample_sizes(eps, delta, 0.0)])


@pytest.mark.parametrize(("n", "eps", "delta"), [(10, 0.1, 0.05), (1, 0.01, 1e-4)])
def test_bound_widget_redrawn_in_place_shows_what_a_fresh_build_shows(n, eps, delta):
    assert_redrawn_in_place_like_a_fresh_build(
        demo._bound_view, lambda: demo.show_bound_comparison(n, eps, delta),
        [lambda: demo.show_bound_comparison(40, eps, delta),
         lambda: demo.show_bound_comparison(n, 0.3, delta),
         lambda: demo.show_bound_comparison(n, eps, 0.3)])


@pytest.mark.parametrize(("m", "eps", "name"), [(40, 0.1, UNIFORM), (1, 0.02, SKEWED)])
def test_simulation_widget_redrawn_in_place_shows_what_a_fresh_build_shows(m, eps, name):
    other = SKEWED if name == UNIFORM else UNIFORM
    assert_redrawn_in_place_like_a_fresh_build(
        demo._simulation_view, lambda: demo.show_simulation(m, eps, name),
        [lambda: demo.show_simulation(300, eps, name), lambda: demo.show_simulation(m, 0.12, name),
         lambda: demo.show_simulation(m, eps, other)])


def test_sample_size_alt_text_states_both_bounds_at_the_sliders():
    # Occam: ⌈(ln|H| + ln(1/δ))/ε⌉; agnostic (CS446's Hoeffding form): the same over 2ε².
    text = alt_text(demo.show_sample_sizes(0.1, 0.05, 5.0))
    occam = math.ceil((5 * math.log(10) + math.log(1 / 0.05)) / 0.1)
    agnostic = math.ceil((5 * math.log(10) + math.log(1 / 0.05)) / (2 * 0.1**2))
    assert text.startswith(f"Examples needed with |H| = 10^5 and δ = 0.05: at ε = 0.1, {occam:,} "
                           f"in the realizable case (Occam) and {agnostic:,} in the agnostic case")
    assert alt_text(demo.show_sample_sizes(0.2, 0.05, 5.0)) != text
    assert alt_text(demo.show_sample_sizes(0.1, 0.05, 6.0)) != text


def test_simulation_alt_text_counts_the_trials_above_eps():
    sim = demo.learning_curve(0.1, 0.05, UNIFORM, m=40)
    errors = sim.exact_errors[np.flatnonzero(sim.sample_sizes == 40)[0]]
    above = int(np.sum(errors > 0.1))
    text = alt_text(demo.show_simulation(40, 0.1, UNIFORM))
    assert f"the true errors of {len(errors)} conjunctions learned from m = 40 examples" in text
    assert f"{above} of them exceed ε = 0.1, a rate of {above / len(errors):.3f}" in text
    # the Occam m of |H| = 3^10 + 1 at ε = 0.1, δ = 0.05 is the walk-through's 140
    assert text.endswith("the Occam bound, which replaces −ln(1 − ε) by the smaller ε, asks for "
                         "140.")
    assert alt_text(demo.show_simulation(41, 0.1, UNIFORM)) != text
    assert alt_text(demo.show_simulation(40, 0.1, SKEWED)) != text


def test_bound_alt_text_reads_the_three_bounds_at_n():
    text = alt_text(demo.show_bound_comparison(10, 0.1, 0.05))
    assert ("At n = 10: the VC upper bound 5,831, the |H| bound 140, the lower-bound formula 30."
            in text)
    assert "lower-bound formula none (VC ≤ 2)" in alt_text(demo.show_bound_comparison(2, 0.1, 0.05))


@pytest.mark.parametrize("eps, union_m, occam_m", [(0.1, 133, 140), (0.02, 693, 700)])
def test_simulation_alt_text_says_where_the_union_bound_reaches_delta(eps, union_m, occam_m):
    # Review (issue 36): the alt text said the union bound reaches δ "only at the Occam m".
    # Oracle: the smallest m with |H|(1 - ε)^m <= δ, |H| = 3^10 + 1, by direct search.
    from mllib.plotting import alt_text

    h_size, delta = 3**10 + 1, 0.05
    first = next(m for m in range(1, 10_000) if h_size * (1 - eps) ** m <= delta)
    assert first == union_m
    text = alt_text(demo.show_simulation(60, eps, next(iter(demo.DISTRIBUTIONS))))
    assert f"reaches δ at m = {union_m}; the Occam bound" in text
    assert f"asks for {occam_m}." in text


def test_thresholds_on_a_large_grid_lose_the_counting_bound_to_the_vc_bound():
    # §4 (review r1 of lecture 03): the counting bound wins for conjunctions, not for every
    # finite class. Thresholds on N grid points: VC = 1, |H| = N + 1; at ε = 0.1, δ = 0.05 the
    # counting bound is the larger from a size between 10^32 and 10^33 on.
    vc = pac.vc_sample_size(1, 0.1, 0.05)
    assert pac.occam_sample_size(10**32 + 1, 0.1, 0.05) < vc < pac.occam_sample_size(10**33 + 1,
                                                                                      0.1, 0.05)
    for n in (10, 100):  # conjunctions: the counting bound is far below
        assert pac.occam_sample_size(pac.conjunction_count(n) + 1, 0.1, 0.05) < \
            pac.vc_sample_size(n, 0.1, 0.05) / 5


def test_exercise_6_reference_answer_on_the_simulation():
    # Part 1 (the widget's second distribution: irrelevant bits 1 with probability 0.9): every
    # learned error is (1/8)(1 - 0.9^a 0.1^b) for a surviving x_j's and b surviving ¬x_j's (or
    # 1/8 without a positive example), and it exceeds ε = 0.1 iff b >= 1.
    sim = demo.learning_curve(0.1, 0.05, SKEWED)
    np.testing.assert_array_equal(demo.DISTRIBUTIONS[SKEWED], [0.5] * 3 + [0.9] * 7)
    possible = {(a, b): (1 - 0.9**a * 0.1**b) / 8 for a in range(8) for b in range(8 - a)}
    assert set(np.round(np.unique(sim.exact_errors), 12)) <= \
        {round(v, 12) for v in [*possible.values(), 1 / 8]}
    assert all((error > 0.1) == (b >= 1) for (a, b), error in possible.items())
    assert round(possible[7, 0], 3) == 0.065 and possible[0, 1] == pytest.approx(0.1125)
    # Part 2: the union bound 7·0.1^k first reaches δ = 0.05 at k = 3, and it bounds the exact
    # chance 1 - (1 - 0.1^k)^7 that some ¬x_j survives k positives.
    union = {k: 7 * 0.1**k for k in range(1, 9)}
    assert min(k for k, bound in union.items() if bound <= 0.05) == 3
    for k, bound in union.items():
        assert 1 - (1 - 0.1**k) ** 7 <= bound
    assert 3 / (1 / 8) == 24  # "about 24 examples hold 3 positives on average"


def test_elimination_can_return_2188_of_the_59050_conjunctions():
    # §5's first source of slack. Oracle: brute force over every sample of one or two positives
    # (two suffice: one with the mixed irrelevant bits 1, one with them 0) and one without; 3^7
    # + 1 is also the most there can be (each irrelevant variable keeps x_j, ¬x_j or neither).
    from itertools import combinations, product

    points = np.array(list(product([0, 1], repeat=demo.N_VARIABLES)))
    positives = points[pac.predict_conjunction(demo.TARGET, points) > 0]
    assert len(positives) == 2**7
    samples = [(positives[list(rows)], np.ones(len(rows)))
               for size in (1, 2) for rows in combinations(range(len(positives)), size)]
    samples.append((points[:1], -np.ones(1)))  # no positive example: the always-false one
    results = {(tuple(h.positive), tuple(h.negative))
               for h in (pac.eliminate(X, y).hypothesis for X, y in samples)}
    assert len(results) == 3**7 + 1 == 2188
    assert pac.conjunction_count(10) + 1 == 59050
    assert "only ever return $3^7 + 1 = 2\\,188$ of them" in markdown_text(WALKTHROUGH)
    assert "handful" not in markdown_text(WALKTHROUGH)


def test_the_online_to_pac_test_error_comes_with_its_95_percent_bound():
    # §6's printout: 0 mistakes on 50,000 new examples, so the true error is below
    # 1 - 0.05^(1/50000) ≈ 6.0e-05 ≈ 3/50,000 with 95% confidence (the rule of three).
    from scipy.stats import beta

    otp = demo.online_to_pac_demo()
    assert len(otp.y_test) == 50_000 and otp.picked_error == 0
    upper = beta.ppf(0.95, 1, 50_000)
    assert upper == pytest.approx(1 - 0.05 ** (1 / 50_000), rel=1e-9)
    assert f"{upper:.1e}" == "6.0e-05" and upper == pytest.approx(3 / 50_000, rel=0.01)


def test_the_agnostic_bounds_say_at_most_and_the_two_sided_reason_is_h_stars_tail():
    # Review r4 of lecture 03: Hoeffding is "≤"; the comparison of ĥ with h* needs h*'s
    # pessimistic tail, and the uniform two-sided version is only a sufficient way to get it.
    text = markdown_text(WALKTHROUGH)
    assert "\\le e^{-2m\\varepsilon^2}$ (the slide writes $<$" in text
    assert "its training error must not be too *pessimistic*" in text
    assert "A simple sufficient way to get both" in text
    assert "too optimistic either" not in text
    # Review r5/r6: the displayed agnostic size is the slide's strict ">", which
    # agnostic_sample_size computes (⌊bound⌋ + 1), in §3 and in the Summary alike.
    strict = ("m > \\frac1{2\\varepsilon^2}", "m > \\frac{1}{2\\varepsilon^2}")
    assert sum(text.count(form) for form in strict) == 2
    assert "m \\ge \\frac{1}{2" not in text and "as in `pac.agnostic_sample_size`" in text


def test_the_m_slider_reaches_past_every_occam_m():
    # §5: the simulation widget's m slider (max = SIMULATED_M = 910) reaches past the Occam m of
    # every ε its slider offers; the largest, at ε = 0.02, is 700 (δ = 0.05, |H| = 3^10 + 1).
    eps_values = np.round(np.arange(0.02, 0.12 + 0.005, 0.01), 2)
    occam = [pac.occam_sample_size(demo.H_SIZE, float(eps), 0.05) for eps in eps_values]
    assert max(occam) == occam[0] == 700 and demo.SIMULATED_M >= max(occam)
    assert demo.learning_curve(0.02, 0.05, UNIFORM).sample_sizes.max() == demo.SIMULATED_M
    text = markdown_text(WALKTHROUGH)
    assert "the $m$ slider reaches past the Occam $m$ of every $\\varepsilon$ (700 at 0.02)" \
        in text
    assert "do not move when you switch the distribution" in text
    assert "do not move at all" not in text


def test_bound_comparison_alt_text_rounds_delta_as_it_rounds_eps():
    # Review r1 of lecture 03: at the sliders' top the alt text read "ε = 0.316, δ = 0.316228".
    top = 10**-0.5
    assert "ε = 0.316, δ = 0.316." in alt_text(demo.show_bound_comparison(10, top, top))
