"""The EM walk-through's widget logic, driven without a browser."""

import math

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, png_pixels
from matplotlib.figure import Figure
from prose_support import markdown_text

from mllib import em
from mllib.demos import em as demo
from mllib.plotting import alt_text


def test_e_step_table_prints_the_hand_computed_scenario_iii_row():
    run = em.three_coins(list(demo.SCENARIO_III), 4, alpha=0.5, p=0.6, q=0.4, iterations=1)
    rows = demo.e_step_table(demo.SCENARIO_III, 4, run.history[0]).splitlines()
    # α p³ (1-p) = 0.5·0.0864 = 0.0432, (1-α) q³ (1-q) = 0.0192, P₁ = 9/13 = 0.6923.
    assert rows[2] == "| 1 | HHHT | 3 | 0.04320 | 0.01920 | 0.6923 |"
    assert rows[3] == "| 2 | HTHT | 2 | 0.02880 | 0.02880 | 0.5000 |"
    assert len(rows) == 6


def test_iteration_table_shows_the_first_updates_a_gap_and_the_last():
    run = em.three_coins(list(demo.SCENARIO_III), 4, alpha=0.5, p=0.6, q=0.4, iterations=200,
                         tol=1e-12)
    table = demo.iteration_table(run).splitlines()
    assert [row.split(" | ")[0] for row in table[2:]] == [f"| {k}" for k in range(9)] + [
        "| …", f"| {run.iterations}"]
    assert table[3] == "| 1 | 0.596154 | 0.645161 | 0.595238 | -10.59997056 |"
    rows = table[2:11]
    assert len(set(rows)) == len(rows)  # no repeated rows: every shown update moves something
    short = em.three_coins([3, 2], 4, alpha=0.5, p=0.6, q=0.4, iterations=3, tol=0)
    assert len(demo.iteration_table(short).splitlines()) == 2 + 4


def test_em_frame_draws_the_requested_number_of_updates():
    fig = demo.show_em_run(list(demo.SCENARIO_III), 4, 0.5, 0.6, 0.4, 3)
    trace = fig.axes[0].lines[0].get_ydata()
    expected = em.three_coins(list(demo.SCENARIO_III), 4, alpha=0.5, p=0.6, q=0.4,
                              iterations=3, tol=0)
    np.testing.assert_allclose(trace, [s.loglik for s in expected.history])
    # EM never lowers the likelihood; near a fixed point two computed values may be an ulp or
    # so out of order, so allow a relative 1e-9 (as tests/test_em.py does).
    assert np.all(np.diff(trace) >= -1e-9 * (1 + np.abs(trace[:-1])))
    assert len(demo.show_em_run([3, 2], 4, 0.5, 0.6, 0.4, 0).axes[0].lines[0].get_ydata()) == 1


def test_step_button_adds_one_update_and_sliders_restart_the_run(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []
    original = demo.show_em_run

    def spy(heads, tosses, alpha, p, q, steps):
        seen.append((alpha, p, q, steps))
        return original(heads, tosses, alpha, p, q, steps)

    monkeypatch.setattr(demo, "show_em_run", spy)
    box = demo.em_stepper([3, 2, 3, 2], 4)
    button, view = box.children
    assert isinstance(button, ipywidgets.Button) and button.description == "Step"
    sliders = {w.description: w for w in view.children if hasattr(w, "description")}
    assert {"initial α", "initial p", "initial q", "EM steps"} <= set(sliders)
    button.click()
    button.click()
    sliders["initial p"].value = 0.8
    assert seen == [(0.5, 0.6, 0.4, 0), (0.5, 0.6, 0.4, 1), (0.5, 0.6, 0.4, 2),
                    (0.5, 0.8, 0.4, 2)]
    sliders["EM steps"].value = demo.MAX_STEPS
    button.click()
    assert sliders["EM steps"].value == demo.MAX_STEPS


def test_stepper_is_a_static_figure_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert isinstance(demo.em_stepper([3, 2, 3, 2], 4), Figure)


def test_restarts_find_two_local_maxima_on_three_groups():
    heads, m = demo.three_groups()
    landscape = demo.restart_landscape(heads, m, count=30)
    assert len(landscape.maxima) == 2 and landscape.visits.sum() == 30
    assert landscape.maxima[0, 3] > landscape.maxima[1, 3]
    assert np.all(landscape.finals[:, 1] >= landscape.finals[:, 2])
    for run in landscape.runs:  # each end is a fixed point of EM
        again = em.three_coins(heads, m, alpha=run.alpha, p=run.p, q=run.q, iterations=1)
        assert again.loglik == pytest.approx(run.loglik, abs=1e-6)
    assert len(demo.show_restarts(heads, m, landscape).axes[0].lines[0].get_ydata()) == 30


def test_jensen_bound_touches_at_the_start_and_peaks_at_the_m_step():
    heads, m = demo.three_groups()
    curves = demo.jensen_curves(heads, m, 0.5, 0.3, 0.6)
    assert np.all(curves.bound <= curves.loglik + 1e-9)
    touch = np.argmin(np.abs(curves.grid - curves.p_old))
    assert curves.bound[touch] == pytest.approx(curves.loglik[touch], rel=1e-12)
    assert abs(curves.grid[np.argmax(curves.bound)] - curves.p_new) <= 0.005
    # §2: "meets it only at p₀ ... LL there (at the bound's peak) is higher still"
    away = np.abs(curves.grid - curves.p_old) > 0.01
    assert np.all(curves.bound[away] < curves.loglik[away])
    peak = np.argmax(curves.bound)
    assert curves.loglik[peak] > curves.bound[peak] > curves.loglik[touch]
    assert isinstance(demo.show_jensen(curves), Figure)


def test_restart_ends_are_drawn_with_p_at_least_q():
    heads, m = demo.three_groups()
    landscape = demo.restart_landscape(heads, m, count=20, seed=1)
    fig = demo.show_restarts(heads, m, landscape)
    ends = [line.get_xydata()[0] for line in fig.axes[1].lines if line.get_marker() == "o"]
    assert len(ends) == 20
    assert all(p >= q for p, q in ends)
    swapped = [run.p < run.q for run in landscape.runs]
    assert any(swapped)  # some runs did end with the coins the other way round


def test_dispersion_tells_the_maximum_from_the_saddle():
    observed, one_coin = demo.dispersion(demo.SCENARIO_III, 4)
    # heads 3, 2, 3, 2: variance 1/4; one coin with p̄ = 10/16: 4 · 5/8 · 3/8 = 15/16.
    assert observed == pytest.approx(0.25) and one_coin == pytest.approx(15 / 16)
    observed, one_coin = demo.dispersion(*demo.three_groups())
    assert observed > 5 * one_coin


# --- Claims of the walk-through, computed from the same calls -----------------------------------


def test_scenario_iii_ll_never_decreases_and_settles_at_one_coin():
    # §1: "LL never decreases. It climbs by 0.66 in the first update ...; from update 13 on the
    # changes are below 1e-14 ... rounding decides their sign ... p = q = 0.625". The true
    # change at update 12 is 4.4e-14 (25 units in the last place of LL), at 13 about 3.6e-15.
    heads, m = em.head_counts(demo.SCENARIO_III)
    run = em.three_coins(heads, m, alpha=0.5, p=0.6, q=0.4, iterations=200, tol=1e-12)
    changes = np.diff([s.loglik for s in run.history])
    assert round(changes[0], 2) == 0.66
    assert np.all(changes[:12] > 0)  # a real climb up to update 12
    assert np.all(np.abs(changes[12:]) < 1e-14)  # rounding from update 13 on (either sign)
    assert run.converged and run.p == pytest.approx(0.625, abs=1e-9)
    assert run.q == pytest.approx(0.625, abs=1e-9)


def test_jensen_on_the_slides_average_is_an_equality_and_the_bound_is_not_strict():
    # The erratum: the slides average log P(Dⁱ | θ), which does not depend on y, so the average
    # is log P(Dⁱ | θ) itself (Jensen bounds nothing). The right bound, with the weights frozen
    # at θ₀, equals LL at θ₀ (so ">" must be "≥") and lies strictly below LL elsewhere.
    heads, m = demo.three_groups()
    theta0 = (0.5, 0.3, 0.6)
    weights = em.e_step(heads, m, *theta0)
    single = np.array([em.log_likelihood([h], m, *theta0) for h in heads])
    np.testing.assert_allclose(weights * single + (1 - weights) * single, single, rtol=1e-14)
    assert em.lower_bound(heads, m, *theta0, posterior=weights) == pytest.approx(
        em.log_likelihood(heads, m, *theta0), rel=1e-13)
    theta1 = em.m_step(heads, m, weights)
    assert (em.lower_bound(heads, m, *theta1, posterior=weights)
            < em.log_likelihood(heads, m, *theta1) - 1)


def test_the_variance_of_a_two_coin_mixture_exceeds_one_coins_by_the_stated_term():
    # §4: Var = m p̄(1 - p̄) + m(m - 1) α(1 - α)(p - q)², checked on the exact distribution of h.
    m, alpha, p, q = 7, 0.3, 0.8, 0.35
    h = np.arange(m + 1)
    binom = np.array([math.comb(m, k) for k in h])
    pmf = binom * (alpha * p**h * (1 - p) ** (m - h) + (1 - alpha) * q**h * (1 - q) ** (m - h))
    mean = pmf @ h
    bar = alpha * p + (1 - alpha) * q
    assert pmf @ (h - mean) ** 2 == pytest.approx(
        m * bar * (1 - bar) + m * (m - 1) * alpha * (1 - alpha) * (p - q) ** 2, rel=1e-12)


def test_the_dispersion_numbers_printed_in_section_4():
    observed, one_coin = demo.dispersion(demo.SCENARIO_III, 4)
    assert (round(observed, 3), round(one_coin, 3)) == (0.25, 0.938)
    observed, one_coin = demo.dispersion(*demo.three_groups())
    assert observed > one_coin  # "far more spread than one coin's": 53.7 against 5.0
    assert (round(observed, 1), round(one_coin, 1)) == (53.7, 5.0)


def test_the_symmetric_start_sticks_and_a_nudge_escapes():
    heads, m = demo.three_groups()
    stuck = em.three_coins(heads, m, alpha=0.3, p=0.5, q=0.5, iterations=100, tol=0)
    nudged = em.three_coins(heads, m, alpha=0.3, p=0.5, q=0.5 + 1e-6, iterations=100, tol=0)
    assert stuck.alpha == 0.3 and stuck.p == stuck.q == pytest.approx(heads.mean() / m)
    assert nudged.loglik > stuck.loglik + 400  # -1195.58 against -1663.47


def test_a_plain_floating_point_loop_drifts_off_the_diagonal():
    # §4 and Exercise 5, as they hold on every IEEE machine: the first nonzero p - q is a rounding
    # error (after one update on some CPUs and BLAS kernels, two on others: which one is not
    # asserted), it then grows about tenfold per update (a factor 10.75⁸ ≈ 1.8e8 over eight
    # updates, within 10x either way, since rounding adds ≈ 1e-16 at every update), and after
    # 100 updates the loop sits at the maximum the nudged run found, (0.345, 0.063, 0.724).
    heads, m = demo.three_groups()
    path = demo.textbook_em(heads, m, 0.3, 0.5, 0.5, 100)
    split = path[:, 1] - path[:, 2]
    first = np.flatnonzero(split)[0]
    assert abs(split[first]) < 1e-14  # a few units in the last place of 0.5 (2.2e-16 each)
    assert 1.8e7 < abs(split[first + 8] / split[first]) < 1.8e9
    assert abs(split[first + 15]) > 0.1  # "order 1 within fifteen to twenty updates"
    assert 1e-16 * 10.75**15 < 1 < 1e-16 * 10.75**20  # from a split of 1e-16, in exact growth
    np.testing.assert_allclose(path[100], (0.345, 0.063, 0.724), atol=5e-4)
    nudged = em.three_coins(heads, m, alpha=0.3, p=0.5, q=0.5 + 1e-6, iterations=100, tol=0)
    np.testing.assert_allclose(path[100], (nudged.alpha, nudged.p, nudged.q), atol=1e-6)


@pytest.mark.parametrize("data, alpha", [(demo.three_groups(), 0.3),
                                         ((demo.SCENARIO_III, 4), 0.5)])
def test_a_small_split_grows_by_the_ratio_of_the_variances(data, alpha):
    # §4's "about 10.75 per update", against an independent first-order derivation. Near the
    # diagonal P₁ⁱ = α + α(1-α)(p-q)(hᵢ - m p̄)/(p̄(1-p̄)), and the M-step turns that into
    # p̃ - q̃ = (p - q) · Var(h) / (m p̄(1 - p̄)): the dispersion ratio. Above 1 (three groups,
    # 53.7/5.0) the split grows; below 1 (scenario III, 1/4 against 15/16) it dies out. The
    # tolerance is the first-order error plus rounding relative to a split of at most 1e-10
    # shrunk by 0.27 per update (≈ 1e-16 / 1e-13 after five updates).
    observed, one_coin = demo.dispersion(*data)
    np.testing.assert_allclose(demo.split_growth(*data, alpha), observed / one_coin, rtol=2e-3)


def test_the_printed_growth_rate_is_the_one_the_prose_quotes():
    heads, m = demo.three_groups()
    assert f"{demo.split_growth(heads, m, 0.3).mean():.2f}" == "10.75"
    text = _walkthrough_text()
    assert "about 10.75 on these data" in text
    assert "within fifteen to twenty updates" in text
    assert "Exercise 5 asks the same question on new data" in text
    assert "after 100 updates the plain loop sits at the maximum the nudged run found" in text


def test_under_dispersion_is_a_local_test_only():
    # dispersion's docstring: observed (2.0) below one coin (5.0), yet a mixture beats one coin.
    h = np.array([10] * 98 + [0, 20])
    assert demo.dispersion(h, 20) == pytest.approx((2.0, 5.0))
    one_coin = em.log_likelihood(h, 20, 0.5, 0.5, 0.5)
    assert em.log_likelihood(h, 20, 0.99, 0.5, 1e-9) > one_coin + 8  # -1378.03 against -1386.29


def test_scenario_iii_one_coin_is_the_global_maximum_on_the_grid():
    # §1: "the search over a grid of (α, p, q) ... finds nothing above one coin", with the
    # notebook's grid (steps of 0.005, which contains p̄ = 0.625).
    heads, m = em.head_counts(demo.SCENARIO_III)
    one_coin = em.log_likelihood(heads, m, 0.5, 0.625, 0.625)
    grid = np.linspace(0.005, 0.995, 199)
    assert demo.grid_maximum(heads, m, grid) == pytest.approx(one_coin, abs=1e-12)
    text = _walkthrough_text()
    assert "in steps of 0.005" in text and "finds nothing above one coin" in text


def test_restart_table_of_the_walkthrough_and_the_asymmetric_slice():
    # §5 with the notebook's call: two maxima; the better one (LL -1195.583) is reached by
    # fewer runs (20 of 60); the slice at its α is 64.7 nats from symmetric, the α = 1/2 slice
    # symmetric, and the swap maps the slice at α to the mirror of the slice at 1 - α.
    heads, m = demo.three_groups()
    landscape = demo.restart_landscape(heads, m, count=60, seed=1)
    assert len(landscape.maxima) == 2 and landscape.visits.tolist() == [20, 40]
    assert landscape.maxima[0, 3] == pytest.approx(-1195.583, abs=5e-4)
    grid = np.linspace(0.005, 0.995, 120)
    best = demo.loglik_slice(heads, m, landscape.maxima[0, 0], grid)
    assert round(np.abs(best - best.T).max(), 1) == 64.7
    half = demo.loglik_slice(heads, m, 0.5, grid)
    np.testing.assert_allclose(half, half.T, rtol=1e-14)
    mirror = demo.loglik_slice(heads, m, 1 - landscape.maxima[0, 0], grid)
    np.testing.assert_allclose(best, mirror.T, rtol=1e-12)


def test_a_large_sample_gives_the_coins_back_to_two_decimals():
    truth = {"alpha": 0.3, "p": 0.8, "q": 0.35}
    big = em.sample_coins(100_000, 10, **truth, seed=5)
    fit = em.three_coins(big, 10, alpha=0.6, p=0.4, q=0.5, iterations=2000, tol=1e-10)
    found = (fit.alpha, fit.p, fit.q) if fit.p > fit.q else (1 - fit.alpha, fit.q, fit.p)
    assert fit.converged
    np.testing.assert_allclose(found, (0.3, 0.8, 0.35), atol=0.005)


def test_section_7_q_is_maximized_by_the_m_step_and_two_coins_fall_short_of_three():
    heads, m = demo.three_groups()
    weights = em.e_step(heads, m, 0.5, 0.3, 0.6)
    theta_new = em.m_step(heads, m, weights)
    randoms = np.random.default_rng(0).uniform(0.01, 0.99, size=(2000, 3))
    top = em.expected_loglik(heads, m, *theta_new, posterior=weights)
    assert max(em.expected_loglik(heads, m, *t, posterior=weights) for t in randoms) < top
    landscape = demo.restart_landscape(heads, m, count=60, seed=1)
    three = demo.mixture_loglik(heads, m, [1 / 3] * 3, [0.05, 0.5, 0.95])
    assert three > landscape.maxima[0, 3] + 100  # -1055.1 against -1195.6
    # the comparison is fitted two coins against the true, unfitted three (review r4)
    assert "far below even the true three-coin model, before any fitting" in _walkthrough_text()
    # k = 2 reproduces the three-coin model's LL
    assert demo.mixture_loglik(heads, m, [0.4, 0.6], [0.7, 0.2]) == pytest.approx(
        em.log_likelihood(heads, m, 0.4, 0.7, 0.2), rel=1e-12)


def test_restarts_draw_their_starts_where_the_docstring_says():
    runs = em.restarts([3, 2, 3, 2], 4, count=200, seed=0, iterations=1)
    starts = np.array([(r.history[0].alpha, r.history[0].p, r.history[0].q) for r in runs])
    assert starts.min() >= 0.02 and starts.max() <= 0.98
    assert starts.min() < 0.03 and starts.max() > 0.97  # the whole documented range


# --- The stepper swept over every control -------------------------------------------------------


def _stepper_controls(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    heads, m = demo.three_groups()
    _, view = demo.em_stepper(heads, m, alpha=0.5, p=0.6, q=0.4).children
    return {w.description: w for w in view.children if hasattr(w, "description")}


def test_stepper_controls_cover_the_ranges_the_sweep_uses(monkeypatch):
    controls = _stepper_controls(monkeypatch)
    for name in ("initial α", "initial p", "initial q"):
        slider = controls[name]
        assert (slider.min, slider.max, slider.step) == (0.01, 0.99, 0.01)
        assert slider.readout_format == ".2f"  # the readout shows the value used, to the step
    assert (controls["EM steps"].min, controls["EM steps"].max) == (0, demo.MAX_STEPS)


EXTREMES_AND_INSIDE = [0.01, 0.37, 0.5, 0.99]  # the slider's ends, p = q, and p != q


@pytest.mark.parametrize("alpha", [0.01, 0.5, 0.99])
def test_em_frame_over_the_whole_slider_range(alpha):
    # The drawn frame at every combination of the extremes and inside values, with 0, 1 and
    # MAX_STEPS steps: nothing raises, the trace is the run's LL, LL never drops beyond
    # rounding, the titles show the state drawn, and the square is the sliders' start.
    heads, m = demo.three_groups()
    for p in EXTREMES_AND_INSIDE:
        for q in EXTREMES_AND_INSIDE:
            for steps in (0, 1, demo.MAX_STEPS):
                fig = demo.show_em_run(heads, m, alpha, p, q, steps)
                run = em.three_coins(heads, m, alpha=alpha, p=p, q=q, iterations=steps, tol=0)
                trace = fig.axes[0].lines[0].get_ydata()
                np.testing.assert_array_equal(trace, [s.loglik for s in run.history])
                assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))
                assert fig.axes[0].get_title() == f"LL = {run.loglik:.3f} after {steps} update(s)"
                assert fig.axes[1].get_title() == (f"α = {run.alpha:.3f}, p = {run.p:.3f}, "
                                                   f"q = {run.q:.3f}")
                assert tuple(fig.axes[1].lines[-1].get_xydata()[0]) == (p, q)
                low, top = fig.axes[0].get_ylim()
                # every point is inside the axis, except a start below it, which is annotated
                inside = trace if low <= trace[0] else trace[1:]
                assert low <= inside.min() and inside.max() <= top
                assert low <= trace[0] or fig.axes[0].texts[0].get_text().startswith("start:")


def test_every_slider_position_on_a_grid_runs_and_climbs():
    # The run behind the frame on a grid of every 14th slider stop (0.01 ... 0.99) for each of α,
    # p and q, with the most steps: no start raises, and LL never drops beyond rounding.
    heads, m = demo.three_groups()
    stops = np.round(np.arange(0.01, 1.0, 0.14), 2)
    assert stops[0] == 0.01 and stops[-1] == 0.99
    for alpha in stops:
        for p in stops:
            for q in stops:
                run = em.three_coins(heads, m, alpha=alpha, p=p, q=q,
                                     iterations=demo.MAX_STEPS, tol=0)
                ll = np.array([s.loglik for s in run.history])
                assert np.all(np.isfinite(ll)) and np.all(np.diff(ll) >= -1e-9 * np.abs(ll[:-1]))


def test_the_first_jump_no_longer_hides_the_climb_after_it():
    # Issue 28: at α = 0.01, p = 0.99, q = 0.01 the first update jumps by hundreds of nats and
    # the rest of the climb was a flat line. The axis now starts at update 1 and the climb after
    # it fills most of the height; an arrow names the start's LL.
    heads, m = demo.three_groups()
    fig = demo.show_em_run(heads, m, 0.01, 0.99, 0.01, demo.MAX_STEPS)
    trace = fig.axes[0].lines[0].get_ydata()
    low, top = fig.axes[0].get_ylim()
    assert trace[1] - trace[0] > 10 * (trace[1:].max() - trace[1:].min())
    assert (trace[1:].max() - trace[1:].min()) / (top - low) > 0.8
    assert low > trace[0]
    assert any(t.get_text().startswith(f"start: LL = {trace[0]:.1f}") for t in fig.axes[0].texts)


def test_contour_panels_have_a_colour_bar():
    heads, m = demo.three_groups()
    stepper = demo.show_em_run(heads, m, 0.5, 0.6, 0.4, 2)
    assert len(stepper.axes) == 3 and "LL − its largest value" in stepper.axes[2].get_ylabel()
    landscape = demo.restart_landscape(heads, m, count=5, seed=1)
    assert len(demo.show_restarts(heads, m, landscape).axes) == 3


# --- The stepper's PNG holds every label, and the legend never hides the start -------------------

SWEEP_CORNERS = [(alpha, p, q, steps) for alpha in (0.01, 0.99) for p in (0.01, 0.99)
                 for q in (0.01, 0.99) for steps in (0, demo.MAX_STEPS)]


def _drawn_like_the_widget(fig):
    """Draw ``fig`` as the widget's PNG is drawn (mllib.demos.png: figure size, no tight bbox)
    and return an Agg renderer at the same size and dpi for measuring the artists."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from mllib.demos import png

    data = png(fig)
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (round(fig.bbox.width), round(fig.bbox.height))
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return renderer


@pytest.mark.parametrize(("alpha", "p", "q", "steps"), [(0.5, 0.6, 0.4, 5), *SWEEP_CORNERS])
def test_every_label_of_the_stepper_lies_inside_its_png(alpha, p, q, steps):
    # Review: the colour bar's label, its lowest tick ("−5.22e") and the left y label were cut
    # off the PNG. Every visible text's extent must lie inside the figure (half a pixel of
    # rounding allowed).
    from matplotlib.text import Text

    heads, m = demo.three_groups()
    fig = demo.show_em_run(heads, m, alpha, p, q, steps)
    renderer = _drawn_like_the_widget(fig)
    # matplotlib keeps labels of ticks outside the axis's range but does not draw them
    undrawn = {id(label) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
               for tick in axis.get_major_ticks()
               if not min(axis.get_view_interval()) <= tick.get_loc()
               <= max(axis.get_view_interval())
               for label in (tick.label1, tick.label2)}
    texts = [t for t in fig.findobj(Text)
             if t.get_visible() and t.get_text() and id(t) not in undrawn]
    assert {"log-likelihood LL", "LL − its largest value on this slice (nats)"} <= {
        t.get_text() for t in texts}
    for text in texts:
        box = text.get_window_extent(renderer)
        assert box.x0 >= -0.5 and box.y0 >= -0.5, text.get_text()
        assert box.x1 <= fig.bbox.width + 0.5 and box.y1 <= fig.bbox.height + 0.5, text.get_text()


@pytest.mark.parametrize(("alpha", "p", "q", "steps"), [(0.99, 0.01, 0.99, 0), *SWEEP_CORNERS])
def test_the_legend_never_covers_the_start_square(alpha, p, q, steps):
    # Review: at p = 0.01, q >= 0.9 the start square hid under the legend. The legend now sits
    # under the panel: its box must not meet the square's box (marker size included).
    heads, m = demo.three_groups()
    fig = demo.show_em_run(heads, m, alpha, p, q, steps)
    renderer = _drawn_like_the_widget(fig)
    right = fig.axes[1]
    legend = right.get_legend().get_window_extent(renderer)
    x, y = right.transData.transform((p, q))
    half = right.lines[-1].get_markersize() * fig.dpi / 72 / 2
    assert right.lines[-1].get_label() == "start"
    assert (legend.x1 < x - half or legend.x0 > x + half
            or legend.y1 < y - half or legend.y0 > y + half)


def _walkthrough_text(name: str = "em_walkthrough") -> str:
    """The Markdown of a lecture-05 notebook: the walk-through unless ``name`` says otherwise."""
    return markdown_text(f"05_em/{name}.ipynb")


def test_the_symmetric_start_sticks_only_in_exact_arithmetic_as_the_text_says():
    # Review: "EM can never leave" / "never moves" must say "in exact arithmetic", since §4's
    # plain loop drifts off p = q: the exact run stays, the textbook loop leaves the diagonal.
    text = _walkthrough_text()
    assert "symmetric start that EM, in exact arithmetic, can never leave" in text
    assert "in exact arithmetic the symmetric start $p = q$ never moves" in text
    heads, m = demo.three_groups()
    exact = em.three_coins(heads, m, alpha=0.3, p=0.5, q=0.5, iterations=100, tol=0)
    assert exact.p == exact.q
    _, p_end, q_end = demo.textbook_em(heads, m, 0.3, 0.5, 0.5, 100)[-1]
    assert abs(p_end - q_end) > 0.5


def test_the_mixture_variance_term_needs_a_proper_mixing_weight():
    # Review: m(m-1) α(1-α)(p-q)² is positive only if also 0 < α < 1; at α = 0 or 1 the
    # mixture is one coin and the term vanishes even with p != q.
    assert "positive whenever $m \\ge 2$, $0 < \\alpha < 1$ and $p \\ne q$" in _walkthrough_text()
    m, p, q = 5, 0.8, 0.3

    def extra(alpha):
        return m * (m - 1) * alpha * (1 - alpha) * (p - q) ** 2

    assert extra(0.0) == 0.0 and extra(1.0) == 0.0
    assert all(extra(a) > 0 for a in (0.01, 0.5, 0.99))


@pytest.mark.parametrize("alpha, p, q, steps", [(0.5, 0.5, 0.5, 60), (0.3, 0.5, 0.5, 5)])
def test_a_start_on_the_diagonal_draws_a_readable_ll_axis(alpha, p, q, steps):
    """Exact EM stays at one LL after its first update from p = q: the axis must still span
    at least a nat, with plain tick labels (no 1e-10 offset)."""
    heads, m = demo.three_groups()
    fig = demo.show_em_run(heads, m, alpha, p, q, steps)
    left = fig.axes[0]
    fig.canvas.draw()
    low, high = left.get_ylim()
    assert high - low >= demo.MIN_LL_SPAN - 1e-9
    assert left.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in left.get_yticklabels() if t.get_text()]
    assert len(labels) >= 2 and all("e" not in label for label in labels), labels


@pytest.mark.parametrize(("alpha", "p", "q", "steps"), [(0.5, 0.6, 0.4, 0), (0.5, 0.6, 0.4, 3),
                                                        (0.01, 0.99, 0.01, 60),
                                                        (0.3, 0.5, 0.5, 12)])
def test_stepper_redrawn_in_place_shows_what_a_fresh_build_shows(alpha, p, q, steps):
    """The same data, pixels and alt text, whether the figure was just built for a start and
    a number of steps or redrawn in place after other steps and other starts."""
    heads, m = demo.three_groups()
    demo._stepper_view.cache_clear()
    fresh = demo.show_em_run(heads, m, alpha, p, q, steps)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other in ((alpha, p, q, steps + 1), (alpha, p, q, 0), (0.7, 0.2, 0.9, 25),
                  (alpha, 0.8, q, steps)):
        png_pixels(demo.show_em_run(heads, m, *other))
    again = demo.show_em_run(heads, m, alpha, p, q, steps)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_stepper_alt_text_states_the_climb_and_follows_the_steps():
    # Independently: the three groups drawn again from their seed, EM run by the library.
    rng = np.random.default_rng(0)
    heads = np.concatenate([rng.binomial(20, bias, 40) for bias in (0.05, 0.5, 0.95)])
    texts = []
    for steps in (2, 9):
        run = em.three_coins(heads, 20, alpha=0.5, p=0.6, q=0.4, iterations=steps, tol=0)
        text = alt_text(demo.show_em_run(heads, 20, 0.5, 0.6, 0.4, steps))
        assert text.startswith("EM on 120 sequences of 20 tosses from α = 0.50, p = 0.60, "
                               "q = 0.40.")
        assert (f"LL rises from {run.history[0].loglik:.1f} to {run.loglik:.1f} over {steps} "
                "update(s)") in text
        assert f"ends at α = {run.alpha:.3f}, p = {run.p:.3f}, q = {run.q:.3f}" in text
        texts.append(text)
    assert texts[0] != texts[1]
    start = em.log_likelihood(heads, 20, 0.5, 0.6, 0.4)
    assert (f"Left: the start's LL = {start:.1f}, before any update."
            in alt_text(demo.show_em_run(heads, 20, 0.5, 0.6, 0.4, 0)))
    trapped = alt_text(demo.show_em_run(heads, 20, 0.3, 0.5, 0.5, 5))
    assert "on the diagonal p = q, the symmetric trap" in trapped
    # "never goes down (beyond rounding)": once EM has settled, LL may dip by rounding errors
    # (a few 1e-13 on LL ≈ -1.2e3, whose last place is 2.3e-13), never by more than 1e-9.
    settled = em.three_coins(heads, 20, alpha=0.5, p=0.6, q=0.4, iterations=MAX_DEMO_STEPS, tol=0)
    assert np.diff([s.loglik for s in settled.history]).min() > -1e-9
    assert "never goes down (beyond rounding)" in text


MAX_DEMO_STEPS = demo.MAX_STEPS


def test_colour_words_of_sections_2_and_5_name_the_drawn_colour():
    # Review (issue 36): "(red)" for PALETTE[1], which renders vermillion/orange.
    from mllib.plotting import PALETTE

    text = _walkthrough_text()
    assert "(red)" not in text and "Its peak (orange)" in text
    assert "where EM ended (orange)" in text and "every orange end" in text
    assert PALETTE[1] == "#D55E00"


def test_jensen_alt_text_gives_the_touching_point_and_the_m_step():
    heads, m = demo.three_groups()
    posterior = em.e_step(heads, m, 0.5, 0.3, 0.6)
    p_new = em.m_step(heads, m, posterior)[1]
    text = alt_text(demo.show_jensen(demo.jensen_curves(heads, m, 0.5, 0.3, 0.6)))
    assert f"touches it at p₀ = 0.30, where LL = {em.log_likelihood(heads, m, 0.5, 0.3, 0.6):.1f}" \
        in text
    assert f"peaks at the M-step's p̃ = {p_new:.3f}" in text
    assert "p₀ = 0.40" in alt_text(demo.show_jensen(demo.jensen_curves(heads, m, 0.5, 0.4, 0.6)))


def test_restarts_alt_text_counts_the_ends():
    heads, m = demo.three_groups()
    landscape = demo.restart_landscape(heads, m, count=8, seed=1)
    ends = {tuple(row) for row in np.round(landscape.finals, 3)}
    text = alt_text(demo.show_restarts(heads, m, landscape))
    assert text.startswith(f"EM from 8 random starts ends at {len(ends)} distinct points.")
    assert f"LL = {max(e[3] for e in ends):.1f}" in text


def test_stepper_box_carries_its_frame_and_alt_text_for_a_page_without_widgets(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    heads, m = demo.three_groups()
    box = demo.em_stepper(heads, m)
    data, metadata = box._repr_mimebundle_()
    assert data["image/png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert metadata["image/png"]["alt"].startswith("EM on 120 sequences of 20 tosses from α = 0.50")


def test_these_four_points_not_four_points_as_such():
    # §1: "These four data points cannot tell two coins apart (four others could: counts 0, 4,
    # 0, 4 ...)": one fair coin scores 4 log(1/16) = -11.09, coins near 1 and 0 about 4 log(1/2).
    text = _walkthrough_text()
    assert "These four data points cannot tell two coins apart" in text
    assert "Four data points cannot" not in text
    h = np.array([0, 4, 0, 4])
    one_coin = em.log_likelihood(h, 4, 0.5, 0.5, 0.5)
    assert one_coin == pytest.approx(4 * math.log(1 / 16))
    assert em.log_likelihood(h, 4, 0.5, 0.999, 0.001) > one_coin + 8


def test_the_m_step_derivation_gives_zero_derivatives_at_the_m_step():
    # §2's derivatives of E[LL] with the weights held fixed vanish at em.m_step's answer, and
    # each sum is concave in its parameter (negative second derivative), so that zero is the
    # maximum. The tolerance is rounding of sums of about 120 terms of size up to 40.
    heads, m = demo.three_groups()
    weights = em.e_step(heads, m, 0.5, 0.3, 0.6)
    a, p, q = em.m_step(heads, m, weights)
    assert np.sum(weights / a - (1 - weights) / (1 - a)) == pytest.approx(0, abs=1e-9)
    assert np.sum(weights * (heads / p - (m - heads) / (1 - p))) == pytest.approx(0, abs=1e-9)
    assert np.sum((1 - weights) * (heads / q - (m - heads) / (1 - q))) == pytest.approx(0, abs=1e-9)
    assert "Each sum is concave in its parameter, so the zero is the maximum" in _walkthrough_text()


def test_the_basin_share_is_printed_with_its_standard_error():
    # §5: 40 of 60 starts end at the worse maximum: 0.67 ± 0.06 (binomial s.e. sqrt(p(1-p)/60)).
    heads, m = demo.three_groups()
    visits = demo.restart_landscape(heads, m, count=60, seed=1).visits
    share = 1 - visits[0] / visits.sum()  # maxima come best first, as the notebook relies on
    assert (f"{share:.2f}", f"{math.sqrt(share * (1 - share) / 60):.2f}") == ("0.67", "0.06")
    assert "In this run the worse maximum attracts more of the starts" in _walkthrough_text()


def _exercise_5_data():
    return np.array([5] * 48 + [0, 10]), 10


def test_exercise_5_case_is_under_dispersed_yet_beaten_by_two_coins():
    # The instructor's answer to Exercise 5: variances 1.0 and 2.5; one coin -346.57 against
    # (0.98, 0.5, 1e-9) at -344.50; random starts reach a model above one coin.
    heads, m = _exercise_5_data()
    assert demo.dispersion(heads, m) == pytest.approx((1.0, 2.5))
    one_coin = em.log_likelihood(heads, m, 0.5, 0.5, 0.5)
    assert round(one_coin, 2) == -346.57
    assert round(em.log_likelihood(heads, m, 0.98, 0.5, 1e-9), 2) == -344.50
    ends = [em.three_coins(heads, m, alpha=a, p=p, q=q, iterations=2000, tol=1e-12).loglik
            for a, p, q in np.random.default_rng(0).uniform(0.01, 0.99, size=(10, 3))]
    assert max(ends) > one_coin + 2
    exercises = _walkthrough_text("em_exercises")
    assert "48 with 5 heads, one with 0 heads and one with 10 heads" in exercises


def test_exercise_5_split_shrinks_by_the_variance_ratio():
    # Part 3: the split p - q shrinks by 1.0 / 2.5 = 0.4 per update (first order), so EM from
    # (0.5, 0.5, 0.5 + 1e-6) goes back to the diagonal: -1e-6, -4e-7, -1.6e-7, ...
    heads, m = _exercise_5_data()
    np.testing.assert_allclose(demo.split_growth(heads, m, 0.5), 0.4, rtol=1e-3)
    run = em.three_coins(heads, m, alpha=0.5, p=0.5, q=0.5 + 1e-6, iterations=3, tol=0)
    splits = [s.p - s.q for s in run.history]
    np.testing.assert_allclose(splits[:3], [-1e-6, -4e-7, -1.6e-7], rtol=1e-3)


def test_the_stepper_colour_bands_are_fixed_by_the_half_slice_as_the_text_says():
    # Review r1 trivia: at α = 0.582 the bar still shows the α = 1/2 slice's bands; §3 now says
    # so. The bands (the image's norm) are the same whatever the current α.
    heads, m = demo.three_groups()
    fig = demo.show_em_run(heads, m, 0.5, 0.6, 0.4, 0)
    first = fig.axes[1].images[0].norm.boundaries.copy()
    demo.show_em_run(heads, m, 0.9, 0.2, 0.7, 5)
    np.testing.assert_array_equal(fig.axes[1].images[0].norm.boundaries, first)
    half = demo._slice_drop(heads, m, 0.5)
    np.testing.assert_array_equal(first, demo._slice_levels(half))
    assert "in bands fixed by the $\\alpha = 1/2$ slice" in _walkthrough_text()


def test_variance_divides_by_n_as_the_statements_say():
    # Review r4: §4's "variance ¼" of 3, 2, 3, 2 and Exercise 5's 1.0 divide by n (n - 1
    # would give ⅓ and 1.02); demo.dispersion does the same.
    assert demo.dispersion(demo.SCENARIO_III, 4)[0] == pytest.approx(0.25, abs=1e-12)
    friend = np.array([5] * 48 + [0, 10])
    assert demo.dispersion(friend, 10)[0] == pytest.approx(1.0, abs=1e-12)
    assert np.var(friend, ddof=1) == pytest.approx(1.0204, abs=1e-4)
    assert "have variance $\\tfrac14$ (dividing by $n$)" in _walkthrough_text()
    exercises = _walkthrough_text("em_exercises")
    assert "variance of her head counts (divide by $n$, as §4 does)" in exercises
    assert "drift of walk-through §4 to show" in exercises
