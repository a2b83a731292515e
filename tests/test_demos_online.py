"""The online-learning walk-through's widget logic, tables and figures, driven without a
browser."""

import numpy as np

from mllib import online
from mllib.demos import online as demo


def test_truth_table_prints_cs446s_disjunction_and_two_of_three():
    rows = demo.truth_table({"or": ([1, 1, 1], 1), "2 of 3": ([1, 1, 1], 2)}, 3).splitlines()
    assert rows[0] == "| x1 | x2 | x3 | or | 2 of 3 |"
    assert rows[2] == "| 0 | 0 | 0 | 0 | 0 |"
    assert rows[5] == "| 0 | 1 | 1 | 1 | 1 |"
    assert rows[6] == "| 1 | 0 | 0 | 1 | 0 |"


def test_xor_search_finds_nothing_for_xor():
    row = next(r for r in demo.xor_search_table().splitlines() if r.startswith("| XOR"))
    assert row == "| XOR | none | none | none | none |"


def test_winnow_grows_slower_than_the_perceptron():
    scaling = demo.winnow_vs_perceptron()
    assert np.all(scaling.winnow <= [online.winnow_bound(2, n) for n in scaling.ns])
    # from n = 8 to 256 (32 times more variables) the perceptron's mistakes grow much more
    assert scaling.perceptron[-1] / scaling.perceptron[0] > 2 * scaling.winnow[-1] / \
        scaling.winnow[0]


def test_extensions_table_marks_what_each_learner_learns():
    rows = {r.split(" | ")[0][2:]: r for r in demo.extensions_table().splitlines()[2:]}
    assert rows["Winnow"].count("✓") == 1
    assert rows["Winnow on [x, 1 − x]"].count("✓") == 3
    assert rows["Balanced Winnow"].endswith("✓ |")  # x1 ∧ ¬x2


def test_shifting_target_favours_winnow_r_after_the_shift():
    shift = demo.shifting_target()
    assert shift.lowest_weight < 0.5
    after = [m[-1] - m[shift.at - 1] for m in (shift.winnow_r, shift.winnow)]
    assert after[0] < after[1]


def test_experts_figure_plots_the_algorithms_and_the_bound():
    fig = demo.show_experts(0.5, 0.3)
    lines = fig.axes[0].get_lines()
    predictions, outcomes = demo.experts_problem(0.3)
    wm = online.weighted_majority(predictions, outcomes)
    assert lines[1].get_ydata()[-1] == wm.mistakes
    assert lines[1].get_ydata()[-1] <= lines[3].get_ydata()[0]  # the bound's horizontal line


def test_experts_figure_with_beta_zero_draws_halving_without_a_bound_line():
    assert len(demo.show_experts(0.0, 0.0).axes[0].get_lines()) == 2


def test_balcan_table_bounds_hold():
    for row in demo.balcan_table().splitlines()[2:]:
        _, mistakes, _, bound = (cell.strip() for cell in row.strip("|").split("|"))
        assert int(mistakes) <= float(bound)
