"""The multiclass walk-through's widget logic, tables and figures, driven without a browser."""

import ipywidgets
import numpy as np
import pytest
from figure_support import drawn, png_pixels
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from prose_support import markdown_text
from scipy.optimize import minimize

from mllib import data, multiclass
from mllib.demos import explore
from mllib.demos import multiclass as demo
from mllib.plotting import MARKERS, PALETTE, alt_text


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


def test_ecoc_titles_state_the_code_distance_and_what_it_corrects():
    expected = {"six learnable bits": (3, 1), "exhaustive (7 bits)": (4, 1),
                "one-vs-all (4 bits)": (2, 0), "two bits (minimal)": (1, 0)}
    for name, (distance, corrects) in expected.items():
        # Independent count of the smallest row distance.
        code = demo.CODES[name]
        assert min(np.sum(a != b) for i, a in enumerate(code) for b in code[i + 1:]) == distance
        title = demo.show_ecoc(name).axes[1].get_title()
        assert f"rows at least {distance} apart" in title
        assert f"corrects {corrects} wrong bit" in title
        assert (distance - 1) // 2 == corrects  # distance >= 2e + 1 corrects e errors


def test_the_six_bit_code_survives_any_flipped_column_and_the_short_codes_do_not():
    # The widget prose: six learnable bits decode most points with any one column flipped; the
    # two-bit code sends almost every point to a wrong class.
    six = [demo.ecoc_frame("six learnable bits", f).accuracy for f in range(-1, 6)]
    assert six[0] >= 0.95 and min(six[1:]) >= 0.85
    assert np.all(demo.ecoc_frame("six learnable bits").column_accuracy >= 0.9)  # learnable
    two = [demo.ecoc_frame("two bits (minimal)", f).accuracy for f in (0, 1)]
    assert max(two) < 0.05
    assert demo.ecoc_frame("two bits (minimal)").accuracy >= 0.95
    ova = [demo.ecoc_frame("one-vs-all (4 bits)", f).accuracy for f in range(4)]
    assert max(ova) < min(six[1:])


def test_the_ecoc_one_vs_all_code_decodes_the_reject_tables_perceptrons_by_hamming_distance():
    # The widget's bullet: "section 1's four reject-option perceptrons, decoded by Hamming distance
    # from their signs: 87.5% right, with 17 ties, where the argmax of their scores (the
    # "theta = none" line) gets 94.2%".
    X, y = demo.ecoc_data()
    Z = demo.with_bias(X)
    ova = multiclass.one_vs_all(Z, y, k=4)
    columns = demo._ecoc_model("one-vs-all (4 bits)", -1)
    np.testing.assert_array_equal(columns.scores(Z), ova.scores(Z))  # the same perceptrons
    frame = demo.ecoc_frame("one-vs-all (4 bits)")
    assert (f"{frame.accuracy:.1%}", int(frame.ties.sum())) == ("87.5%", 17)
    theta, rejected, argmax = demo.reject_table()[0]
    assert theta is None and rejected == 0.0 and f"{argmax:.1%}" == "94.2%"
    assert argmax == np.mean(multiclass.predict_one_vs_all(ova, Z) == y)


def test_exercise_5_reference_ratio_of_training_times():
    # The instructor's answer to 5.2: with time n^p per binary problem of n examples, AvA/OvA
    # = 2^(p-1)(k-1)/k^p. Oracle: the problem sizes counted from balanced labels.
    m = 120
    for k in (2, 3, 4, 6):
        y = np.repeat(np.arange(k), m // k)
        pair_sizes = [np.sum((y == i) | (y == j)) for i in range(k) for j in range(i + 1, k)]
        for p in (0.5, 1.0, 2.0, 3.0):
            ratio = sum(n ** p for n in pair_sizes) / (k * m ** p)
            assert ratio == pytest.approx(2 ** (p - 1) * (k - 1) / k ** p, rel=1e-12)
    # p = 1: km against (k - 1)m; p > 1 favours AvA and p < 1 OvA once k is large.
    assert 2 ** 1 * (10 - 1) / 10 ** 2 < 1 < 2 ** -0.5 * (10 - 1) / 10 ** 0.5


def test_why_the_two_bit_code_beats_the_seven_bit_code():
    # The numbers the walk-through prints beside its explanation.
    X, y = demo.ecoc_data()
    seven, two, six = (demo.ecoc_frame(name) for name in
                       ("exhaustive (7 bits)", "two bits (minimal)", "six learnable bits"))
    assert six.accuracy > two.accuracy > seven.accuracy  # "nearly as accurate", then the loss
    assert six.accuracy - two.accuracy < 0.02
    wrong = seven.bits != seven.code[y]
    assert abs(seven.column_accuracy[1] - 0.68) < 0.005  # printed as 68%
    assert not np.any(~wrong[y == 2, 1])  # column 1 is wrong on every class-2 point
    others = np.delete(wrong, 1, axis=1).any(axis=1)
    assert np.sum(others & (y == 2)) > others.sum() / 2  # "more than half ... on class 2"
    lost = seven.predictions != y
    assert np.sum(lost & (y == 2)) > lost.sum() / 2
    assert np.sum(lost & seven.ties) > lost.sum() / 2  # mostly lost to ties
    tied = lost & seven.ties & (y == 2)
    assert np.all(seven.predictions[tied] < 2)  # ties go to the lowest tied label
    # The lowest-label rule: a tied point is decoded as the smallest nearest code word.
    distances = np.sum(seven.bits[:, None, :] != seven.code[None], axis=2)
    nearest = np.argmax(distances == distances.min(axis=1, keepdims=True), axis=1)
    np.testing.assert_array_equal(seven.predictions, nearest)
    # Flipping the unlearnable column raises accuracy.
    assert demo.ecoc_frame("exhaustive (7 bits)", 1).accuracy > seven.accuracy + 0.05


def test_ecoc_frame_accuracy_is_what_the_title_says_and_the_flip_is_checked():
    for name in demo.CODES:
        low, high = demo.flip_range(name)
        assert (low, high) == (-1, demo.CODES[name].shape[1] - 1)
        for flipped in range(low, high + 1):
            fig = demo.show_ecoc(name, flipped)
            frame = demo.ecoc_frame(name, flipped)
            assert f"{frame.accuracy:.1%} right" in fig.axes[0].get_title()
            ties = int(frame.ties.sum())
            assert f"({ties} tie{'' if ties == 1 else 's'}," in fig.axes[0].get_title()
        with pytest.raises(ValueError, match="flipped must be -1"):
            demo.ecoc_frame(name, high + 1)


def test_ecoc_matrix_has_a_colour_key_for_both_bits():
    ax = demo.show_ecoc("exhaustive (7 bits)").axes[1]
    key = ax.get_legend()
    assert [t.get_text() for t in key.get_texts()] == ["bit +1", "bit -1"]
    image = ax.get_images()[0]
    colours = [tuple(h.get_facecolor()) for h in key.legend_handles]
    assert colours == [tuple(image.cmap(image.norm(1))), tuple(image.cmap(image.norm(-1)))]


def test_flip_slider_follows_the_code_and_the_widget_never_raises(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(code_name, flipped):
        seen.append((code_name, flipped))
        return demo.show_ecoc(code_name, flipped)

    code, flip = demo.ecoc_controls("exhaustive (7 bits)")
    explore(frame, code_name=code, flipped=flip)
    for name in demo.CODES:  # sweep every code and every flip its slider allows
        code.value = name
        assert (flip.min, flip.max) == demo.flip_range(name)
        for value in range(flip.min, flip.max + 1):
            flip.value = value
    code.value = "exhaustive (7 bits)"
    flip.value = 6
    code.value = "two bits (minimal)"  # from column 6 to a 2-column code: clipped, no error
    assert flip.value == 1
    assert all(-1 <= f < demo.CODES[n].shape[1] for n, f in seen)
    assert seen[-1] == ("two bits (minimal)", 1)


def test_ova_scores_share_no_common_range():
    rows = demo.ova_rescaled(label=1)
    own = {round(b, 12) for _, b, _ in rows}
    assert len(own) == 1 and own.pop() < 0.5  # the middle classifier fails at every scale
    wta = {s: w for s, _, w in rows}
    assert wta[0.1] == 1.0 and wta[10.0] < 0.5 and wta[1.0] < 1.0
    # Scale 1 is plain OvA.
    X, y = demo.middle_data()
    ova = multiclass.one_vs_all(demo.with_bias(X), y, k=3)
    assert wta[1.0] == np.mean(multiclass.predict_one_vs_all(ova, demo.with_bias(X)) == y)


def test_the_reject_option_rejects_more_and_is_more_accurate_on_the_rest():
    rows = demo.reject_table()
    assert rows[0][0] is None and rows[0][1] == 0.0
    rejected = [r for _, r, _ in rows]
    assert np.all(np.diff(rejected) > 0)
    assert all(accuracy > rows[0][2] for _, _, accuracy in rows[1:])
    # "though not steadily in θ" (review r2: 97.2%, 98.0%, 98.8%, then 98.4%): some larger θ is
    # less accurate on what it keeps than a smaller one.
    kept = [accuracy for _, _, accuracy in rows[1:]]
    assert np.any(np.diff(kept) < 0)
    assert "though not steadily in $\\theta$" in " ".join(_walkthrough_markdown().split())


def test_the_overview_claims_ecoc_generalise_one_vs_all_only():
    # Review r2: with ±1 code words every column uses every class, so AvA is not an instance of
    # the codes §2 defines; the overview must not say that ECOC generalise both.
    text = " ".join(_walkthrough_markdown().split())
    assert "generalise both" not in text
    assert "generalise one-vs-all (all-vs-all needs a third symbol" in text


def test_reject_option_labels_minus_one_exactly_below_theta():
    X, y = demo.ecoc_data()
    model = multiclass.one_vs_all(demo.with_bias(X), y, k=4)
    scores = model.scores(demo.with_bias(X))
    labels = multiclass.predict_one_vs_all(model, demo.with_bias(X), theta=2.0)
    np.testing.assert_array_equal(labels == -1, scores.max(axis=1) < 2.0)
    kept = labels >= 0
    np.testing.assert_array_equal(labels[kept], np.argmax(scores, axis=1)[kept])
    with pytest.raises(ValueError, match="theta"):
        multiclass.predict_one_vs_all(model, demo.with_bias(X), theta=float("nan"))


def test_winner_take_all_trained_jointly_solves_three_in_a_row():
    X, y = demo.middle_data()
    run = multiclass.multiclass_perceptron(demo.with_bias(X), y, k=3)
    assert run.converged
    assert np.array_equal(multiclass.predict_linear(run.W, demo.with_bias(X)), y)


@pytest.fixture(scope="module")
def square_runs():
    X4, y4, run = demo.perceptron_run(True)
    Xb4 = demo.with_bias(X4)
    full = multiclass.multiclass_perceptron(Xb4, y4, k=4, conservative=False)
    svm_run = multiclass.multiclass_svm(Xb4, y4, k=4, C=100.0, eta=1.0, iterations=4000)
    return Xb4, y4, run, full, svm_run


@pytest.fixture(scope="module")
def square_optimum(square_runs):
    Xb4, y4, *_ = square_runs
    return multiclass.multiclass_svm_dual(Xb4, y4, k=4, C=100.0)


def test_both_updates_respect_their_kesler_bounds(square_runs):
    # Conservative: at most 2R²/γ² updates; full: at most kR²/γ² Kesler rows in all, with γ
    # the Kesler margin of any unit separator (here the SVM's W / ‖W‖).
    Xb4, y4, run, full, svm_run = square_runs
    R2 = float(np.max(np.sum(Xb4 ** 2, axis=1)))
    gamma = multiclass.multiclass_margins(svm_run.W, Xb4, y4).min() / np.linalg.norm(svm_run.W)
    assert gamma > 0
    assert run.converged and full.converged
    assert run.mistakes <= 2 * R2 / gamma ** 2
    rows_added = sum(len(update.demoted) for update in full.history)
    assert full.mistakes <= rows_added <= 4 * R2 / gamma ** 2
    assert all(len(u.demoted) == 1 for u in run.history)  # one Kesler row per update
    assert any(len(u.demoted) > 1 for u in full.history)  # several rows at once


def test_the_large_C_svm_has_the_largest_normalised_margin(square_runs, square_optimum):
    Xb4, y4, run, full, svm_run = square_runs
    exact = square_optimum
    # "The dual solver's gap is below 1e-6"; "no example's alphas reach C"; "every margin is 1
    # or more (to 1e-9)", so W solves the hard problem too.
    assert 0 <= exact.gap < 1e-6
    assert exact.alpha.sum(axis=1).max() < 100.0
    assert multiclass.multiclass_margins(exact.W, Xb4, y4).min() >= 1 - 1e-9
    assert exact.objective == pytest.approx(0.5 * np.sum(exact.W ** 2), abs=1e-6)  # no slack
    # Independent optimum of the hard QP, by scipy's SLSQP from the constraints written out.
    rows = [np.kron(np.eye(4)[label] - np.eye(4)[j], x) for x, label in zip(Xb4, y4, strict=True)
            for j in range(4) if j != label]
    A = np.array(rows)
    qp = minimize(lambda w: 0.5 * w @ w, exact.W.ravel(), jac=lambda w: w, method="SLSQP",
                  constraints=[{"type": "ineq", "fun": lambda w: A @ w - 1, "jac": lambda w: A}],
                  options={"maxiter": 500, "ftol": 1e-14})
    assert qp.success and 0.5 * qp.x @ qp.x == pytest.approx(exact.objective, rel=1e-7)
    normalised = {name: multiclass.multiclass_margins(W, Xb4, y4).min() / np.linalg.norm(W)
                  for name, W in (("run", run.W), ("full", full.W), ("sub", svm_run.W),
                                  ("svm", exact.W))}
    assert normalised["svm"] > 3 * max(normalised["run"], normalised["full"])  # "several times"
    assert normalised["svm"] == max(normalised.values())
    # Subgradient descent: constraints met (margins printed as 1.000), ½‖W‖² "18% above the
    # optimum", normalised margin "8% below".
    assert multiclass.multiclass_margins(svm_run.W, Xb4, y4).min() >= 1 - 5e-4
    assert np.isfinite(multiclass.multiclass_objective(svm_run.W, Xb4, y4, None))
    assert f"{0.5 * np.sum(svm_run.W ** 2) / exact.objective - 1:.0%}" == "18%"
    assert f"{1 - normalised['sub'] / normalised['svm']:.0%}" == "8%"


def test_slide_margin_equals_ours_exactly_on_correct_examples(square_runs):
    Xb4, y4, run, full, svm_run = square_runs
    W = run.history[5].W  # mid-training: some examples still wrong
    scores = Xb4 @ W.T
    top2 = np.sort(scores, axis=1)[:, -2:]
    slide = top2[:, 1] - top2[:, 0]
    ours = multiclass.multiclass_margins(W, Xb4, y4)
    right = multiclass.predict_linear(W, Xb4) == y4
    assert right.any() and (~right).any()
    np.testing.assert_allclose(ours[right], slide[right])
    assert np.all(slide[~right] >= 0) and np.all(ours[~right] <= 0)


def test_update_scrubber_is_a_static_frame_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_update, step=ipywidgets.IntSlider(value=3, min=0, max=30))
    assert isinstance(frame, Figure)
    assert frame.axes[0].get_title().startswith("after 3 of")


def test_update_slider_follows_the_rule_and_every_frame_draws(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    step, rule = demo.update_controls()
    explore(demo.show_update, step=step, conservative=rule)
    assert (step.description, rule.description) == ("update", "rule")  # two distinct labels
    seen_one = False
    for conservative in (True, False):
        rule.value = conservative
        X, y, run = demo.perceptron_run(conservative)
        assert (step.min, step.max) == (0, run.mistakes)
        for value in range(step.max + 1):
            step.value = value
            fig = demo.show_update(value, conservative)
            W = run.history[value - 1].W if value else np.zeros((4, 3))
            wrong = int(np.sum(multiclass.predict_linear(W, demo.with_bias(X)) != y))
            plural = "" if wrong == 1 else "s"
            assert fig.axes[0].get_title().endswith(f"{wrong} training error{plural}")
            seen_one |= wrong == 1
            assert f"after {value} of {run.mistakes} updates" in fig.axes[0].get_title()
    assert seen_one  # some frame has exactly one training error: "1 training error"
    rule.value = True
    step.value = step.max
    rule.value = False  # to the shorter run: the slider is clipped to its last update
    assert step.value == step.max == demo.perceptron_run(False)[2].mistakes


def test_why_flipping_column_1_helps_per_class():
    # The walk-through's second ECOC paragraph, from the printed per-class table.
    seven = demo.ecoc_frame("exhaustive (7 bits)")
    flipped = demo.ecoc_frame("exhaustive (7 bits)", 1)
    before, after = demo.per_class(seven, 1), demo.per_class(flipped, 1)
    # "right on 0%, 13%, 100% and 20% of classes 0 to 3" (printed to whole percents).
    np.testing.assert_allclose(after.column_right, [0.0, 0.13, 1.0, 0.20], atol=0.005)
    np.testing.assert_allclose(after.column_right, 1 - before.column_right)
    # "11 of 20": points (not bits) on which another column errs, more than half of class 2.
    assert before.others_wrong.sum() == 20 and before.others_wrong[2] == 11
    assert before.others_wrong[2] > before.others_wrong.sum() / 2
    # "8 class-2 ties, 1 decoded right"
    assert (before.ties[2], before.ties_right[2]) == (8, 1)
    # After the flip: ties mostly decoded as class 0; class 0 wins its 3 of 3; 2 of 6 lost.
    assert flipped.ties.sum() == 6
    assert np.sum(flipped.ties & (flipped.predictions == 0)) > flipped.ties.sum() / 2
    assert (after.ties[0], after.ties_right[0]) == (3, 3)
    assert after.ties.sum() - after.ties_right.sum() == 2
    # Class 2 gains most; accuracy rises; the six-bit code still does best.
    gains = after.accuracy - before.accuracy
    assert np.argmax(gains) == 2 and np.all(gains >= 0)
    assert [f"{a:.0%}" for a in (before.accuracy[2], after.accuracy[2])] == ["63%", "89%"]
    assert flipped.accuracy > seven.accuracy
    assert demo.ecoc_frame("six learnable bits").accuracy > flipped.accuracy
    table = demo.flip_table("exhaustive (7 bits)", 1).splitlines()
    assert table[2 + 2].startswith("| 2 | 27 | 0% → 100% | 11 | 8 → 1 | 1 → 0 |")


def test_ecoc_title_counts_ties_in_good_english():
    # "(1 tie, ...)", "(0 ties, ...)", "(6 ties, ...)".
    assert "(1 tie, sent" in demo.show_ecoc("six learnable bits", 1).axes[0].get_title()
    assert "(0 ties, sent" in demo.show_ecoc("six learnable bits", 3).axes[0].get_title()
    assert "(6 ties, sent" in demo.show_ecoc("exhaustive (7 bits)", 1).axes[0].get_title()


def test_show_ecoc_clamps_a_flip_outside_the_code_and_never_raises():
    for name in demo.CODES:
        low, high = demo.flip_range(name)
        for flipped in (low - 5, low - 1, high + 1, high + 10):
            title = demo.show_ecoc(name, flipped).axes[0].get_title()
            clamped = min(max(flipped, low), high)
            expected = demo.ecoc_frame(name, clamped)
            assert f"{expected.accuracy:.1%} right" in title
            assert (f"column {clamped} flipped" in title) == (clamped >= 0)


def test_ova_fails_on_three_in_a_row_only_through_scale():
    # "the unscaled vote in the figure above is 96% right, and multiplying f_1 by 0.1 or 0.3
    # makes it 100% right, although f_1 alone is still wrong on most points."
    wta = {s: w for s, _, w in demo.ova_rescaled(label=1)}
    own = {s: b for s, b, _ in demo.ova_rescaled(label=1)}
    assert wta[0.1] == wta[0.3] == 1.0
    assert f"{wta[1.0]:.0%}" == "96%"
    assert all(b < 0.5 for b in own.values())
    # "the same yes/no answers at every scale, right on only 37% of the points"
    assert {f"{b:.0%}" for b in own.values()} == {"37%"}
    assert demo.show_ova_vs_ava().axes[0].get_title().endswith("96% right")


def test_winner_take_all_and_the_margin_at_ties_follow_the_lowest_label_rule():
    # Kesler section: y is predicted exactly when (w_y - w_j)·x > 0 for j < y and >= 0 for
    # j > y. Margin section: margin > 0 => right, margin < 0 => wrong, margin 0 => right exactly
    # when y is the lowest tied label. Small integer weights make exact ties common.
    rng = np.random.default_rng(8)
    k, seen_ties = 4, 0
    for _ in range(300):
        W = rng.integers(-1, 2, size=(k, 2)).astype(float)
        x = rng.integers(-1, 2, size=(1, 2)).astype(float)
        scores = (W @ x.T).ravel()
        predicted = int(multiclass.predict_linear(W, x)[0])
        for y in range(k):
            diffs = scores[y] - scores
            rule = all(diffs[j] > 0 for j in range(y)) and all(diffs[j] >= 0
                                                                for j in range(y + 1, k))
            assert rule == (predicted == y)
            margin = float(multiclass.multiclass_margins(W, x, np.array([y]))[0])
            if margin > 0:
                assert predicted == y
            elif margin < 0:
                assert predicted != y
            else:
                seen_ties += 1
                tied = np.flatnonzero(scores == scores[y])
                assert (predicted == y) == (y == tied.min())
    assert seen_ties > 50  # the tie case was exercised


def test_two_wrong_bits_can_tie_and_the_flip_halves_the_points_that_have_them():
    # Cells 14-15: with rows 4 apart, one wrong bit is always corrected, two "can" leave a tie
    # ("here all 12 points with exactly two wrong bits tie"), and the points with two or more
    # wrong bits "fall from 15 to 8".
    X, y = demo.ecoc_data()
    seven = demo.ecoc_frame("exhaustive (7 bits)")
    flipped = demo.ecoc_frame("exhaustive (7 bits)", 1)
    assert seven.distance == 4
    counts = []
    for frame in (seven, flipped):
        wrong_bits = np.sum(frame.bits != frame.code[y], axis=1)
        assert np.all(frame.predictions[wrong_bits <= 1] == y[wrong_bits <= 1])  # corrected
        counts.append((int(np.sum(wrong_bits >= 2)), int(np.sum(wrong_bits == 2)),
                       int(np.sum(frame.ties & (wrong_bits == 2)))))
    assert counts == [(15, 12, 12), (8, 6, 6)]
    # "can", not "does": two wrong bits leave a tie only when another code word is 2 away from
    # the received bits. Class 0's row with bits 3 and 4 wrong is 2 from its own row and 4 from
    # every other.
    received = seven.code[0].copy()
    received[[3, 4]] *= -1
    assert sorted(np.sum(received != seven.code, axis=1).tolist()) == [2, 4, 4, 4]
    # "97.5% against 88.3%" (cell 13), also in the six-bit widget frame's title
    six = demo.ecoc_frame("six learnable bits")
    assert (f"{six.accuracy:.1%}", f"{seven.accuracy:.1%}") == ("97.5%", "88.3%")
    assert "97.5% right" in demo.show_ecoc("six learnable bits").axes[0].get_title()


def test_kesler_panel_has_a_colour_key():
    fig = demo.show_kesler()
    assert len(fig.axes) == 3  # the regions, the Kesler rows and their colour bar
    assert fig.axes[2].get_ylabel() == "entry of the Kesler row"
    image = fig.axes[1].get_images()[0]
    low, high = image.get_clim()
    assert low == -high and high > 0  # symmetric: white is 0, blue positive, red negative
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == [
        "class 0", "class 1", "class 2"]


def test_update_title_counts_the_promotions_of_the_full_rule():
    # Section 4: the full update promotes w_y once per demoted rival; the title says how often.
    seen_several = False
    for conservative in (True, False):
        X, y, run = demo.perceptron_run(conservative)
        Xb = demo.with_bias(X)
        for step in range(1, run.mistakes + 1):
            update = run.history[step - 1]
            before = run.history[step - 2].W if step > 1 else np.zeros((4, 3))
            times = len(update.demoted)
            # the weights say how often w_y was promoted (a few float additions: 1e-9 is ample)
            np.testing.assert_allclose(update.W[update.label] - before[update.label],
                                       times * Xb[update.index], atol=1e-9)
            title = demo.show_update(step, conservative).axes[0].get_title()
            if times > 1:
                assert not conservative
                promoted = f"promoted {update.label} (×{times})"
                assert f"{promoted}, demoted {list(update.demoted)}" in title
                seen_several = True
            else:
                assert f"promoted {update.label}, demoted {list(update.demoted)}" in title
                assert "×" not in title
    assert seen_several  # the sweep meets a full update that demotes several rivals


def test_the_widget_prose_example_is_the_full_rules_first_update():
    # Cell 27 quotes "promoted 3 (×3)": the full rule's first update, from W = 0.
    title = demo.show_update(1, conservative=False).axes[0].get_title()
    assert "promoted 3 (×3), demoted [0, 1, 2]" in title


def test_the_multiclass_margin_is_the_smallest_kesler_margin():
    # Section 5: an example's margin w_y·x − max_{j≠y} w_j·x is the smallest W·x_yj over its
    # Kesler rows (the positive ones), for any W.
    X, y, run = demo.perceptron_run(True)
    Xb = demo.with_bias(X)
    rng = np.random.default_rng(8)
    for W in (run.W, rng.normal(size=run.W.shape)):
        margins = multiclass.multiclass_margins(W, Xb, y)
        for n in range(len(y)):
            rows, labels = multiclass.kesler(Xb[n:n + 1], y[n:n + 1], 4)
            smallest = np.min(rows[labels > 0] @ W.ravel())
            assert margins[n] == pytest.approx(smallest, abs=1e-12)  # same sums, reordered


@pytest.mark.parametrize(("code_name", "flipped"), [("six learnable bits", -1),
                                                    ("exhaustive (7 bits)", 1),
                                                    ("two bits (minimal)", 0)])
def test_ecoc_redrawn_in_place_shows_what_a_fresh_build_shows(code_name, flipped):
    """The same data, pixels and alt text, whether the figure was just built for a code and
    flip or redrawn in place after other codes and flips."""
    demo._ecoc_view.cache_clear()
    fresh = demo.show_ecoc(code_name, flipped)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other in (("exhaustive (7 bits)", 6), (code_name, flipped + 1), ("one-vs-all (4 bits)",
                                                                         -1)):
        png_pixels(demo.show_ecoc(*other))
    again = demo.show_ecoc(code_name, flipped)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


@pytest.mark.parametrize(("step", "conservative"), [(0, True), (7, True), (12, False)])
def test_update_redrawn_in_place_shows_what_a_fresh_build_shows(step, conservative):
    demo._update_view.cache_clear()
    fresh = demo.show_update(step, conservative)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    for other in ((step + 3, conservative), (1, not conservative), (0, True)):
        png_pixels(demo.show_update(*other))
    again = demo.show_update(step, conservative)
    assert again is fresh
    assert drawn(again) == fresh_drawn
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_ecoc_regions_are_hamming_decoding_of_the_grid():
    fig = demo.show_ecoc("exhaustive (7 bits)", 1)
    image = fig.axes[0].get_images()[0]
    X, _ = demo.ecoc_data()
    g1, g2, points = demo._grid(X)
    model = demo._ecoc_model("exhaustive (7 bits)", 1)
    expected = multiclass.predict_ecoc(model, demo.with_bias(points)).reshape(g1.shape)
    np.testing.assert_array_equal(image.get_array(), expected)
    # pixels centred on the grid points, as pcolormesh drew them
    left, right, bottom, top = image.get_extent()
    assert left < g1.min() < g1.max() < right and bottom < g2.min() < g2.max() < top


def test_ecoc_alt_text_states_the_decoding_and_follows_the_flip():
    # Independently: the column classifiers trained on the same blobs, decoded by hand.
    X, y = data.blobs(120, demo.SQUARE_CENTRES, spread=0.8, seed=4)
    code = demo.CODES["exhaustive (7 bits)"]
    Xb = np.hstack([X, np.ones((len(X), 1))])
    scores = np.column_stack([multiclass.perceptron_learner(Xb, column[y])(Xb)
                              for column in code.T])
    texts = []
    for flipped in (-1, 1):
        signs = np.where(np.arange(code.shape[1]) == flipped, -1.0, 1.0)
        bits = np.where(scores * signs > 0, 1.0, -1.0)
        distances = np.sum(bits[:, None, :] != code[None], axis=2)
        decoded = np.argmax(distances == distances.min(axis=1, keepdims=True), axis=1)
        ties = int(np.sum(np.sum(distances == distances.min(axis=1, keepdims=True), axis=1) > 1))
        text = alt_text(demo.show_ecoc("exhaustive (7 bits)", flipped))
        counts = [int(np.sum(y == c)) for c in range(4)]
        assert text.startswith(f"120 points in 4 classes ({counts[0]} circles of class 0, "
                               f"{counts[1]} squares of class 1")
        assert f"{np.mean(decoded == y):.1%} of the points decoded right" in text
        assert f"{ties} tie{'' if ties == 1 else 's'} sent to the lowest label" in text
        assert "rows are at least 4 apart, so it corrects 1 wrong bit;" in text
        column = np.mean(bits[:, 1] == code[y, 1])
        assert f"right on {np.mean(bits[:, 0] == code[y, 0]):.0%}, {column:.0%}," in text
        texts.append(text)
    assert "column 1 flipped" in texts[1] and "flipped" not in texts[0]


def test_update_alt_text_names_the_update_and_counts_the_errors():
    X, y = data.blobs(60, demo.SQUARE_CENTRES, spread=0.7, seed=3)
    run = multiclass.multiclass_perceptron(np.hstack([X, np.ones((60, 1))]), y, k=4,
                                           conservative=True)
    for step in (0, 3, run.mistakes):
        W = run.history[step - 1].W if step else np.zeros((4, 3))
        wrong = int(np.sum(np.argmax(np.hstack([X, np.ones((60, 1))]) @ W.T, axis=1) != y))
        text = alt_text(demo.show_update(step, True))
        assert f"(conservative rule) after {step} of its {run.mistakes} updates" in text
        assert text.endswith(f"{wrong} training error{'' if wrong == 1 else 's'}.")
        if step:
            update = run.history[step - 1]
            x1, x2 = X[update.index]
            assert f"the ringed example at ({x1:.1f}, {x2:.1f}), of class {update.label}" in text
    assert "(full rule)" in alt_text(demo.show_update(3, False))


def test_static_figures_alt_texts_give_their_accuracies():
    X, y = demo.middle_data()
    ova = multiclass.one_vs_all(demo.with_bias(X), y, k=3)
    accuracy = np.mean(np.argmax(ova.scores(demo.with_bias(X)), axis=1) == y)
    text = alt_text(demo.show_ova_vs_ava())
    assert f"one-vs-all (winner takes all), {accuracy:.0%} of the points right" in text
    assert "all-vs-all (majority vote), 100% of the points right" in text
    assert "the first 12 of the 180 Kesler rows" in alt_text(demo.show_kesler(n=45))
    assert "the first 12 of the 120 Kesler rows" in alt_text(demo.show_kesler(n=30))


def test_classes_differ_by_marker_and_palette_colour():
    fig = demo.show_ova_vs_ava()
    from matplotlib.collections import PathCollection

    scatters = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    shapes = {tuple(np.round(s.get_paths()[0].vertices, 3).ravel()) for s in scatters}
    assert len(shapes) == 3  # three classes, three marker shapes
    from matplotlib.markers import MarkerStyle

    assert shapes == {tuple(np.round(MarkerStyle(m).get_path().transformed(
        MarkerStyle(m).get_transform()).vertices, 3).ravel()) for m in MARKERS[:3]}
    assert [to_hex(s.get_facecolor()[0]) for s in scatters] == [c.lower() for c in PALETTE[:3]]
    # the regions are outlined, not told apart by their pale shades alone
    assert len(fig.axes[0].collections[0].get_segments()) >= 2


@pytest.mark.parametrize("code_name", list(demo.CODES))
def test_every_code_entry_is_written_on_its_cell_not_only_coloured(code_name):
    fig = demo.show_ecoc(code_name)
    right = fig.axes[1]
    plus, minus = (c for c in right.collections if c.get_offsets().size)
    code = demo.CODES[code_name]
    image = right.get_images()[0]
    left, width = image.get_extent()[0], image.get_extent()[1] - image.get_extent()[0]
    for marks, sign in ((plus, 1), (minus, -1)):
        # each mark's cell: column from x across the image's width, row from y
        cells = {(int(round(y)), int((x - left) // (width / code.shape[1])))
                 for x, y in marks.get_offsets()}
        assert cells == {tuple(cell) for cell in np.argwhere(code == sign)}
    assert [t.get_text() for t in right.texts if t.get_text()] == [
        f"{c}\n{a:.0%}" for c, a in enumerate(demo.ecoc_frame(code_name).column_accuracy)]


def _walkthrough_markdown() -> str:
    return markdown_text("08_multiclass/multiclass_walkthrough.ipynb")


def test_review_r1_corrections_hold_in_the_text():
    # Exercise 5.1's verdict is no longer given in §1 (only the count table and the question);
    # the code matrix names no colour outside the palette ("red"); §6 is the optional part.
    text = _walkthrough_markdown()
    assert "many small problems are cheaper than a few big ones" not in text
    assert "AvA's many small problems suit dual methods" not in text
    assert 'the slide\'s question "which methods would prefer all vs. all?" is Exercise 5' in text
    assert "red $-1$" not in text and "blue $+1$" not in text
    assert "## Going further (optional) *Not part of the lecture's core" in text
    assert "$\\lVert W - W^*\\rVert^2 \\le 2\\cdot$gap" in text
