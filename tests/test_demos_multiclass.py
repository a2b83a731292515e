"""The multiclass walk-through's widget logic, tables and figures, driven without a browser."""

import ipywidgets
import numpy as np
from matplotlib.figure import Figure

from mllib import multiclass
from mllib.demos import explore
from mllib.demos import multiclass as demo


def test_example_counts_are_the_slides():
    # CS446: m/k positives and (k−1)m/k negatives for OvA; m/k and m/k for AvA.
    rows = demo.example_counts(120, 4).splitlines()[2:]
    assert rows == ["| one-vs-all | 4 | m/k = 30 | (k−1)m/k = 90 | 120 |",
                    "| all-vs-all | 6 | m/k = 30 | m/k = 30 | 60 |"]


def test_ava_is_right_on_the_middle_class_data_and_ova_is_not():
    fig = demo.show_ova_vs_ava()
    ova, ava = (ax.get_title() for ax in fig.axes)
    assert ava.endswith("100% right")
    assert not ova.endswith("100% right")


def test_kesler_table_has_the_slides_rows():
    # x labelled 1 gives x_10 = (−x, x, 0) and x_12 = (0, x, −x), each also negated (label −1).
    rows = demo.kesler_table((1.0, 2.0), 1, 3).splitlines()[2:]
    assert rows == ["| [-1, -2] | [1, 2] | [0, 0] | +1 |", "| [1, 2] | [-1, -2] | [0, 0] | -1 |",
                    "| [0, 0] | [1, 2] | [-1, -2] | +1 |", "| [0, 0] | [-1, -2] | [1, 2] | -1 |"]


def test_kesler_figure_shows_2m_k_minus_1_rows():
    fig = demo.show_kesler(n=45)
    assert fig.axes[1].get_title().startswith("the first 12 of 180 Kesler rows")  # 2·45·2
    assert fig.axes[1].get_images()[0].get_array().shape == (12, 9)  # k·d = 3·3 with the bias


def test_update_scrubber_shows_the_history():
    X, y, run = demo.perceptron_run(True)
    assert run.converged
    first = demo.show_update(0)
    assert "W = 0" in first.axes[0].get_title()
    update = run.history[4]
    frame = demo.show_update(5)
    assert f"promoted {update.label}, demoted {list(update.demoted)}" in frame.axes[0].get_title()
    circled = frame.axes[0].collections[-1].get_offsets()
    np.testing.assert_array_equal(circled[0], X[update.index])
    last = demo.show_update(run.mistakes)
    assert last.axes[0].get_title().endswith("0 training errors")
    assert np.array_equal(multiclass.predict_linear(run.W, demo.with_bias(X)), y)


def test_ecoc_frames_decode_and_a_flipped_column_costs_accuracy():
    exact = demo.show_ecoc("exhaustive (7 bits)")
    flipped = demo.show_ecoc("exhaustive (7 bits)", flipped=0)
    assert exact.axes[1].get_title() == "code matrix: rows at least 4 apart"
    assert exact.axes[0].get_title() != flipped.axes[0].get_title()
    assert demo.show_ecoc("two bits (minimal)").axes[1].get_title().endswith("at least 1 apart")


def test_ecoc_widget_redraws_when_the_code_changes(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(code_name, flipped):
        seen.append(code_name)
        return demo.show_ecoc(code_name, flipped)

    box = explore(frame, code_name=ipywidgets.Dropdown(options=list(demo.CODES),
                                                       value="one-vs-all (4 bits)"),
                  flipped=ipywidgets.IntSlider(value=-1, min=-1, max=6))
    box.children[0].value = "two bits (minimal)"
    assert seen == ["one-vs-all (4 bits)", "two bits (minimal)"]


def test_update_scrubber_is_a_static_frame_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_update, step=ipywidgets.IntSlider(value=3, min=0, max=30))
    assert isinstance(frame, Figure)
    assert frame.axes[0].get_title().startswith("after 3 of")
