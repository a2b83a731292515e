"""Lecture 13's widget logic, driven without a browser."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import bayes
from mllib.demos import bayesnet as demo


def test_beta_density_integrates_to_one_and_has_the_map_as_its_mode():
    grid = np.linspace(0.00005, 0.99995, 10000)  # midpoints of 10⁴ cells of width 1e-4
    density = demo.beta_density(grid, 5.0, 3.0)
    assert np.sum(density) * 1e-4 == pytest.approx(1.0, abs=1e-6)
    assert grid[np.argmax(density)] == pytest.approx(bayes.coin_map("HHTH", 2, 2), abs=1e-4)


def test_coin_table_starts_at_the_prior_and_shows_hhth():
    rows = demo.coin_table(bayes.coin_posterior("HHTH", 2, 2)).splitlines()
    assert rows[2] == "| 0 | 0 | Beta(2, 2) | – | 0.500 | 0.500 |"
    assert rows[6] == "| 4 | 3 | Beta(5, 3) | 0.750 | 0.667 | 0.625 |"


def test_coin_frame_draws_the_posterior_after_the_tosses_seen():
    fig = demo.show_coin(2, 2, 4)
    posterior = fig.axes[0].lines[1].get_ydata()
    grid = fig.axes[0].lines[1].get_xdata()
    np.testing.assert_allclose(posterior, demo.beta_density(grid, 5, 3))
    assert fig.axes[0].get_title() == "after 4 toss(es): HHTH"


def test_coin_explorer_sliders_redraw(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []
    monkeypatch.setattr(demo, "show_coin", lambda **kw: seen.append(kw) or Figure())
    box = demo.coin_explorer()
    sliders = {w.description: w for w in box.children if hasattr(w, "description")}
    sliders["prior a"].value = 5
    assert (seen[-1]["a"], seen[-1]["b"], seen[-1]["seen"]) == (5, 2, 4)


def test_explorers_draw_a_static_frame_under_nbgrader(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert isinstance(demo.coin_explorer(), Figure)
    assert isinstance(demo.alarm_explorer(), Figure)


def test_alarm_frame_shows_p_burglary_given_both_calls():
    fig = demo.show_alarm(J="1", M="1")
    bars = {label.get_text(): patch.get_width() for label, patch in
            zip(fig.axes[1].get_yticklabels(), fig.axes[1].patches, strict=True)}
    assert bars["B (burglary)"] == pytest.approx(0.2842, abs=1e-4)  # R&N §14.4.1: 0.284
    assert "12 parameters" in fig.axes[0].get_title()


def test_bayes_optimal_table_marks_minus_in_mitchells_example():
    table = demo.bayes_optimal_table([0.4, 0.3, 0.3], [["+"], ["-"], ["-"]], ["h1", "h2", "h3"])
    assert "| **P(- given x, D)** | 0.60 | Bayes-optimal |" in table.splitlines()


def test_multinomial_beats_bernoulli_on_the_synthetic_corpus_with_enough_data():
    rows = demo.naive_bayes_accuracy([300, 1000])
    assert all(0.5 < b <= 1 and 0.5 < m <= 1 for _, b, m in rows)
    assert rows[-1][2] >= rows[-1][1]


def test_inference_cost_measures_both_methods():
    cost = demo.inference_cost((4, 8))
    assert cost.enumeration.shape == cost.elimination.shape == (2,)
    assert np.all(cost.enumeration > 0) and np.all(cost.elimination > 0)
    assert isinstance(demo.show_cost(cost), Figure)
