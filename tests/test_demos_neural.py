"""Lecture 14's widget logic, driven without a browser."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from mllib import neural
from mllib.demos import neural as demo


def test_one_unit_gets_at_most_three_xor_points_right():
    # No line separates XOR; every (w1, w2, b) on a small grid leaves a point wrong.
    for w1 in (-2, 1, 3):
        for w2 in (-1, 2):
            for b in (-1.5, -0.5, 0.5):
                assert "of 4 XOR points right" in demo.show_unit(w1, w2, b).axes[0].get_title()
                assert not demo.show_unit(w1, w2, b).axes[0].get_title().startswith("one unit: 4")


def test_backprop_table_reproduces_hand_numbers():
    table = demo.backprop_table(demo.HAND_NETWORK, [1.0, 0.0], 1.0)
    # z_out = 0.5·σ(0.15) - 0.6·σ(-0.25) + 0.1 = 0.1060; o = σ(0.1060) = 0.5265.
    assert "| output | z = 0.1060, o = σ(z) = 0.5265 | δ_out = (o - t)·o(1-o) = -0.11805 |" in table


def test_training_frame_reads_the_cached_history():
    fig = demo.show_training(2.0, 3, 0, 10)
    curve = fig.axes[1].lines[0].get_ydata()
    np.testing.assert_allclose(curve, demo._training(2.0, 3, 0).losses[:11])


def test_trainer_step_button_and_sliders_redraw(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []
    monkeypatch.setattr(demo, "show_training", lambda **kw: seen.append(kw) or Figure())
    buttons, view = demo.trainer().children
    step, play = buttons.children
    sliders = {w.description: w for w in view.children if hasattr(w, "description")}
    assert {"learning rate η", "hidden units", "seed", "epoch"} <= set(sliders)
    sliders["hidden units"].value = 5
    assert seen[-1]["width"] == 5 and seen[-1]["epoch"] == 0
    step.click()
    step.click()
    assert seen[-1]["epoch"] == 2 * demo.STEP_EPOCHS
    sliders["epoch"].value = demo.WIDGET_EPOCHS
    step.click()  # stays at the last epoch
    assert sliders["epoch"].value == demo.WIDGET_EPOCHS
    assert play.max == sliders["epoch"].max == demo.WIDGET_EPOCHS


def test_trainer_is_a_static_frame_under_nbgrader(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert isinstance(demo.trainer(), Figure)


def test_gradient_check_table_has_one_row_per_parameter():
    check = neural.gradient_check(demo.HAND_NETWORK, [1.0, 0.0], 1.0)
    rows = demo.gradient_check_table(check, demo.HAND_NETWORK).splitlines()
    assert len(rows) == 2 + 9  # 2-2-1: 4 + 2 + 2 + 1 parameters
    assert rows[2].startswith("| W1[0, 0] |")


@pytest.mark.parametrize("run, right", [(0, 4), (1, 3)])
def test_xor_runs_solve_and_stick(run, right):
    from mllib.data import xor_table
    X, t = xor_table()
    assert int(np.sum(neural.predict(demo.xor_runs()[run].network, X) == t)) == right
