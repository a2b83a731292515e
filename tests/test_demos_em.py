"""The EM walk-through's widget logic, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import em
from mllib.demos import em as demo


def test_e_step_table_prints_the_hand_computed_scenario_iii_row():
    run = em.three_coins(list(demo.SCENARIO_III), 4, alpha=0.5, p=0.6, q=0.4, iterations=1)
    rows = demo.e_step_table(demo.SCENARIO_III, 4, run.history[0]).splitlines()
    # α p³ (1-p) = 0.5·0.0864 = 0.0432, (1-α) q³ (1-q) = 0.0192, P₁ = 9/13 = 0.6923.
    assert rows[2] == "| 1 | HHHT | 3 | 0.04320 | 0.01920 | 0.6923 |"
    assert rows[3] == "| 2 | HTHT | 2 | 0.02880 | 0.02880 | 0.5000 |"
    assert len(rows) == 6


def test_iteration_table_lists_every_step_and_the_last_one():
    run = em.three_coins(list(demo.SCENARIO_III), 4, alpha=0.5, p=0.6, q=0.4, iterations=5,
                         tol=0)
    table = demo.iteration_table(run, every=2).splitlines()
    assert [row.split(" | ")[0] for row in table[2:]] == ["| 0", "| 2", "| 4", "| 5"]
    assert table[3] == "| 2 | 0.5968 | 0.6303 | 0.6171 | -10.5861 |"


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
    assert len(demo.show_restarts(heads, m, landscape).axes[1].lines[0].get_ydata()) == 30


def test_jensen_bound_touches_at_the_start_and_peaks_at_the_m_step():
    heads, m = demo.three_groups()
    curves = demo.jensen_curves(heads, m, 0.5, 0.3, 0.6)
    assert np.all(curves.bound <= curves.loglik + 1e-9)
    touch = np.argmin(np.abs(curves.grid - curves.p_old))
    assert curves.bound[touch] == pytest.approx(curves.loglik[touch], rel=1e-12)
    assert abs(curves.grid[np.argmax(curves.bound)] - curves.p_new) <= 0.005
    assert isinstance(demo.show_jensen(curves), Figure)


def test_restart_ends_are_drawn_with_p_at_least_q():
    heads, m = demo.three_groups()
    landscape = demo.restart_landscape(heads, m, count=20, seed=1)
    fig = demo.show_restarts(heads, m, landscape)
    ends = [line.get_xydata()[0] for line in fig.axes[0].lines if line.get_marker() == "o"]
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
