"""Lecture 01's claims bound to the computations behind them, and every widget swept over the
whole range of its controls (issue 28: claims bound to output, widgets swept)."""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from figure_support import labelled_ticks

from mllib import data
from mllib import perceptron as P
from mllib.demos import perceptron as demo
from mllib.plotting import counted

WALKTHROUGH = (Path(__file__).resolve().parents[1]
               / "solutions/01_perceptron/perceptron_walkthrough.ipynb")

# The γ slider: FloatLogSlider(min=-2, max=-0.4, step=0.1); the η slider: min=-3, max=1, step=0.25.
MARGIN_EXPONENTS = np.arange(-2.0, -0.39, 0.1)
ETA_EXPONENTS = np.arange(-3.0, 1.01, 0.25)


def assert_log_axes_readable(fig) -> None:
    for ax in fig.axes:
        for which in ("x", "y"):
            if (ax.get_xscale() if which == "x" else ax.get_yscale()) == "log":
                assert len(labelled_ticks(ax, which)) >= 2, (ax.get_title(), which)


def assert_legend_below(ax) -> None:
    """The legend lies under the axes' tick labels and x label, off the data, and inside the
    figure's canvas (the widget's PNG is not cropped to what is drawn)."""
    fig = ax.figure
    fig.draw_without_rendering()  # lays out every text, the x label included
    legend = ax.get_legend().get_window_extent()
    low, high = sorted(ax.get_xlim())
    texts = [t for t, x in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)
             if t.get_text() and low <= x <= high] + [ax.xaxis.label]
    assert legend.y1 <= min(t.get_window_extent().y0 for t in texts)
    canvas = fig.bbox
    assert canvas.x0 <= legend.x0 and legend.x1 <= canvas.x1 and canvas.y0 <= legend.y0


def widget_cell(function: str) -> str:
    import json

    cells = json.loads(WALKTHROUGH.read_text())["cells"]
    return next("".join(c["source"]) for c in cells
                if c["cell_type"] == "code" and f"demo.{function}," in "".join(c["source"]))


# --- §2: the threshold on the spam data -------------------------------------------------------


def test_the_spam_threshold_is_zero_only_because_the_updates_labels_cancel():
    """θ = -η·Σy over the updates; over all 720 orders of the six rows, 72 end with θ ≠ 0."""
    X, y, _ = data.mmds_spam()
    run = P.perceptron(P.add_threshold_feature(X), y, eta=0.5)
    labels = [y[u.index] for u in run.history]
    assert labels == [1, -1, 1, -1]  # a, b, c, d alternate
    assert run.w[-1] == -0.5 * sum(labels) == 0
    assert demo.threshold_by_order(0.5) == {0.0: 648, -0.5: 51, 0.5: 21}


def test_every_order_ends_with_theta_minus_eta_times_the_updated_labels():
    import itertools

    X, y, _ = data.mmds_spam()
    Xt = P.add_threshold_feature(X)
    for order in itertools.islice(itertools.permutations(range(6)), 0, 720, 7):
        run = P.perceptron(Xt[list(order)], y[list(order)], eta=0.5)
        assert run.w[-1] == -0.5 * sum(y[list(order)][u.index] for u in run.history)


# --- §3: the η widget ------------------------------------------------------------------------


def test_the_eta_curve_from_a_nonzero_start_falls_only_up_to_eta_1():
    trend = demo.eta_trend(demo.ETA_STARTS["w₀ = [-1, 1]"])
    one = demo.ETA_GRID.index(1.0)
    assert np.all(np.diff(trend[: one + 1]) < 0), trend  # falls while η grows to 1
    assert trend[0] == 2114 and trend[one] == 3
    after = trend[one:]
    assert np.any(np.diff(after) > 0) and np.any(np.diff(after) < 0), after  # up and down
    assert list(after[1:]) == [8, 1, 7, 3]
    assert np.all(demo.eta_trend(demo.ETA_STARTS["w₀ = 0"]) == 6)  # flat from w₀ = 0


def test_a_nonzero_start_breaks_novikoffs_bound():
    """The notebook and Exercise 4 quote 2114 mistakes against (R/γ)² = 328."""
    bound = demo.eta_sample_bound()
    assert round(bound) == 328
    assert demo.eta_trend(demo.ETA_STARTS["w₀ = [-1, 1]"])[0] == 2114 > bound
    assert demo.ETA_GRID[0] == 0.001  # Exercise 4: "with η = 0.001 and 2114 mistakes"
    # From w₀ = 0 the same sample respects it, at every η.
    assert np.all(demo.eta_trend(demo.ETA_STARTS["w₀ = 0"]) <= bound)


@pytest.mark.parametrize("start", list(demo.ETA_STARTS))
def test_eta_widget_sweep(start):
    """Every η the slider allows, from both starts: nothing raises, the starred count is the
    count of the run drawn and titled, and both log axes keep two labelled ticks."""
    trend = demo.eta_trend(demo.ETA_STARTS[start])
    assert len(ETA_EXPONENTS) == len(demo.ETA_GRID)
    for k, exponent in enumerate(ETA_EXPONENTS):
        eta = 10.0**exponent
        fig = demo.show_eta(eta, start)
        right = fig.axes[1]
        star = right.get_lines()[-1]
        mistakes = demo.eta_comparison(eta, w0=demo.ETA_STARTS[start]).scaled.mistakes
        assert star.get_xdata()[0] == eta and star.get_ydata()[0] == mistakes == trend[k]
        assert f"{counted(mistakes, 'mistake')} with η = {eta:.3g}" in fig.axes[0].get_title()
        assert_log_axes_readable(fig)
        assert_legend_below(fig.axes[0])
        plt.close(fig)


# --- §3: the γ widget ------------------------------------------------------------------------


def test_the_seed_slider_covers_exactly_the_seeds_of_the_grey_band():
    cell = widget_cell("show_margin_experiment")
    assert "min=min(demo.TREND_SEEDS), max=max(demo.TREND_SEEDS)" in cell
    assert demo.TREND_SEEDS == tuple(range(20))


@pytest.mark.parametrize("seed", demo.TREND_SEEDS)
def test_margin_widget_sweep(seed):
    """Every (γ, seed) the sliders allow: the star lies inside the grey range drawn at its γ,
    the title's count is the run's, and the log axes keep two labelled ticks."""
    trend = demo.margin_trend()
    exponents = MARGIN_EXPONENTS if seed in (0, 2, 19) else MARGIN_EXPONENTS[[0, 8, -1]]
    for exponent in exponents:
        margin = 10.0**exponent
        exp = demo.margin_experiment(margin, seed=seed)
        assert exp.run.converged and exp.run.mistakes <= exp.bound
        assert exp.margin >= margin  # the measured margin is at least the slider's
        row = int(np.argmin(np.abs(trend.margins - margin)))
        assert trend.mistakes[row].min() <= exp.run.mistakes <= trend.mistakes[row].max()
        if exponent in exponents[[0, len(exponents) // 2, -1]]:
            fig = demo.show_margin_experiment(margin, seed)
            assert fig.axes[1].get_title().startswith(
                f"this sample: {counted(exp.run.mistakes, 'mistake')} ≤")
            # The left title shows both the slider's γ and the margin measured on the sample.
            assert fig.axes[0].get_title().startswith(
                f"slider γ = {margin:.3g}, measured γ = {exp.margin:.3g}, ")
            assert_log_axes_readable(fig)
            assert_legend_below(fig.axes[0])
            plt.close(fig)


# --- §3: the update scrubber and the proof ---------------------------------------------------


def test_update_scrubber_sweep_rings_the_example_that_caused_each_update():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y, w_star=w_star)
    for k in range(run.mistakes + 1):
        fig = demo.show_update(run, X, y, k)
        if k:
            update = run.history[k - 1]
            ring = fig.axes[0].collections[-1].get_offsets()[0]
            np.testing.assert_array_equal(ring, X[update.index])
            # The ringed example was a mistake before the update (MMDS: y·w·x <= 0).
            assert y[update.index] * update.score <= 0
            if k in (1, run.mistakes):
                assert_legend_below(fig.axes[0])
            # The legend lists "before"; the first frame, which has none, says why.
            assert ("no dashed line" in fig.axes[0].get_title()) == (k == 1)
        plt.close(fig)
    with pytest.raises(ValueError):
        demo.show_update(run, X, y, run.mistakes + 1)


def test_proof_figure_log_axis_is_readable():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y, w_star=w_star)
    fig = demo.show_proof(run, P.radius(X), P.geometric_margin(w_star, X, y))
    assert_log_axes_readable(fig)
    plt.close(fig)


# --- Going further: MMDS's exercises----------------------------------------------------------


def test_exercise_12_2_1_three_methods_separate_and_winnow_with_learned_theta_does_not():
    X, y, _ = data.mmds_spam()
    X = X.copy()
    X[1, 4] = 1
    runs = demo.exercise_12_2_1()
    for name in ("(a) perceptron", "(c) perceptron, learned θ"):
        assert runs[name].converged
    assert np.all(P.predict(runs["(a) perceptron"].w, X) == y)
    winnow = runs["(b) Winnow"]
    assert winnow.converged and np.all(np.where(X @ winnow.w > winnow.theta, 1, -1) == y)
    stuck = runs["(d) Winnow, learned θ"]
    assert not stuck.converged
    # Its last weights (θ last, on a -1 feature) misclassify an example.
    scores = P.add_threshold_feature(X) @ stuck.w
    assert np.any(np.where(scores > 0, 1, -1) != y)


def test_exercise_12_2_1_d_fails_although_positive_weights_separate_the_data():
    # Going further: Winnow with a learned θ diverges, but viagra = 10, and = nigeria = 1,
    # the = of = 0.01 with θ = 1.5 separate the modified rows (review r1 of lecture 01).
    X, y, words = data.mmds_spam()
    X = X.copy()
    X[1, words.index("nigeria")] = 1
    witness = np.array([1, 10, 0.01, 0.01, 1])
    scores = X @ witness
    np.testing.assert_allclose(scores, [12.01, 1.02, 10.01, 1.01, 2.01, 1.02], atol=1e-12)
    assert np.all(np.where(scores > 1.5, 1, -1) == y)
    assert y[[0, 2, 4]].tolist() == [1, 1, 1]  # the spam rows a, c, e
    assert not demo.exercise_12_2_1()["(d) Winnow, learned θ"].converged


def test_exercise_12_2_2_separators_are_both_weights_negative_with_theta_in_between():
    X, y = demo.exercise_12_2_2()
    grid = np.linspace(-3, 3, 25)
    for u in grid:
        for v in grid:
            low, high = demo.threshold_interval(np.array([u, v]), X, y)
            derived = (max(2 * u + 3 * v, 3 * u + 2 * v), min(u + 2 * v, 2 * u + v))
            assert (low, high) == pytest.approx(derived)
            assert (low < high) == (u < 0 and v < 0)
    found = P.perceptron(P.add_threshold_feature(X), y)
    w, theta = found.w[:-1], found.w[-1]
    low, high = demo.threshold_interval(w, X, y)
    assert found.converged and np.all(w < 0) and low < theta < high
    np.testing.assert_array_equal(demo.threshold_interval(np.array([-1.0, -1.0]), X, y), [-5, -3])


# --- Claims of §3 and §4 --------------------------------------------------------------------


def test_one_seed_and_even_the_mean_go_up_and_down_along_gamma():
    trend = demo.margin_trend()
    seed_2 = trend.mistakes[:, trend.seeds.index(2)]
    assert np.any(np.diff(seed_2) > 0)  # as γ grows, this seed's mistakes sometimes rise
    assert np.any(np.diff(trend.mean_mistakes) > 0)  # "though not at every step"
    assert trend.mean_mistakes[0] > 5 * trend.mean_mistakes[-1]  # but the trend is down


def test_each_rise_of_the_mean_mistakes_is_within_one_standard_error():
    # §3: "each rise of the mean is smaller than its standard error" (issue 36 review: the
    # mean over 20 seeds is an estimate, printed with its ± s.e.).
    trend = demo.margin_trend()
    se = trend.mistakes_se
    np.testing.assert_allclose(se, [np.std(row, ddof=1) / np.sqrt(len(row))
                                    for row in trend.mistakes], rtol=1e-12)
    rises = np.flatnonzero(np.diff(trend.mean_mistakes) > 0)
    assert len(rises) >= 1
    for i in rises:
        assert trend.mean_mistakes[i + 1] - trend.mean_mistakes[i] < min(se[i], se[i + 1])


def test_every_run_of_the_margin_grid_stays_under_its_own_bound():
    # §3: "Every run stays under its own bound ... checked on all 340 runs of the grid: 17
    # values of γ times 20 seeds" (Novikoff's theorem; the count is the grid's).
    trend = demo.margin_trend()
    assert trend.mistakes.shape == (17, 20) == trend.bounds.shape
    assert np.all(trend.mistakes <= trend.bounds)


def test_the_proof_run_ends_far_left_of_the_bound_and_the_variants_table_reads_as_stated():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    R, gamma = P.radius(X), P.geometric_margin(w_star, X, y)
    run = P.perceptron(X, y, w_star=w_star)
    assert run.mistakes < P.mistake_bound(R, gamma) / 100  # "far to the left of the red line"
    classic, gupta, balcan = demo.margin_variants(X / R, y, gamma / R)
    gamma_s = demo.sample_margin(X / R, y)
    assert gupta.run.mistakes > 10 * max(classic.run.mistakes, balcan.run.mistakes)
    assert gamma_s * 0.99 < gupta.margin <= gamma_s  # "almost at γ(S)"
    assert balcan.margin < classic.margin and balcan.margin < gupta.margin  # the smallest


def test_section_5_no_clean_epoch_and_averaging_and_voting_are_steadier():
    """The walk-through's run (15 epochs): every epoch has updates, and the averaged and voted
    perceptron's training accuracy varies far less from epoch to epoch than the last w's."""
    noisy = demo.noisy_comparison(epochs=15)
    assert np.all(noisy.mistakes > 0)
    for steadier in (noisy.averaged, noisy.voted):
        assert np.std(steadier) < np.std(noisy.last) / 3
        assert np.all(steadier[1:] >= noisy.last[1:])


# --- η in floating point (§3's η widget, Exercise 6) ------------------------------------------


def exact_perceptron(X, y, eta):
    """The perceptron from w = 0 in exact rational arithmetic: (w, the (epoch, index) updates)."""
    from fractions import Fraction

    eta = Fraction(eta).limit_denominator(10**6)
    rows = [[Fraction(int(v)) for v in row] for row in X]
    w, updates = [Fraction(0)] * len(rows[0]), []
    for epoch in range(1, 101):
        before = len(updates)
        for i, (row, t) in enumerate(zip(rows, y, strict=True)):
            if t * sum(a * b for a, b in zip(w, row, strict=True)) <= 0:
                w = [a + eta * int(t) * b for a, b in zip(w, row, strict=True)]
                updates.append((epoch, i))
        if len(updates) == before:
            break
    return np.array([float(v / eta) for v in w]), updates


def test_eta_drift_rounding_changes_the_mistakes_only_in_floating_point():
    """The walk-through's printed example: exactly, every η gives the η = 1 run (10 mistakes,
    w ∝ [-3, 5]); in floating point η a power of 2 keeps that, η = 0.01 makes 7 (w ∝ [-2, 4])."""
    X, y = demo.eta_drift_example()
    runs = demo.eta_drift()
    exact_w, exact_updates = exact_perceptron(X, y, 1)
    for eta in (0.01, 0.1):  # in exact arithmetic η changes nothing but the length of w
        w_eta, updates_eta = exact_perceptron(X, y, eta)
        assert updates_eta == exact_updates and np.array_equal(w_eta, exact_w)
    assert len(exact_updates) == 10 and np.array_equal(exact_w, [-3, 5])
    base = [(u.epoch, u.index) for u in runs[1.0].history]
    assert base == exact_updates
    for eta in (0.5, 0.125):  # powers of 2: every score exact, the same run scaled by η
        assert [(u.epoch, u.index) for u in runs[eta].history] == base
        np.testing.assert_array_equal(runs[eta].w, eta * runs[1.0].w)
    drifted = runs[0.01]
    assert drifted.mistakes == 7 and drifted.converged
    # w / η is [-2, 4] up to the rounding of a few additions (1e-12 is far above it).
    np.testing.assert_allclose(drifted.w / 0.01, [-2, 4], atol=1e-12)
    # The η = 1 run meets a score of exactly 0 in epoch 5, at the example η = 0.01 passes.
    assert (5, 3) in base and (5, 3) not in [(u.epoch, u.index) for u in drifted.history]


def test_exercise_12_2_1_d_weights_blow_up_and_vanish():
    """Going further's description of Winnow with a learned threshold: the largest weight reaches
    2²⁶ ≈ 6.7e7 while others fall below 1e-7 and print as 0 at 3 decimals."""
    stuck = demo.exercise_12_2_1()["(d) Winnow, learned θ"]
    # Weights of and, viagra, the, of, nigeria, θ: the walk-through names these powers of 2.
    np.testing.assert_array_equal(np.log2(stuck.w[[0, 1, 4, 5]]), [24, 26, 25, 25])
    assert np.all((0 < stuck.w[2:4]) & (stuck.w[2:4] < 1e-7))
    assert np.sum(np.round(stuck.w, 3) == 0) == 2


def test_exercise_12_2_3_only_the_quadratic_feature_separates():
    runs = demo.exercise_12_2_3()
    assert not runs["(a) threshold 0"].converged and not runs["(b) learned θ"].converged
    quadratic = runs["(c) learned θ, with (x₁ - 2)²"]
    assert quadratic.converged
    X = np.array([[2.0, 3.0], [2.0, 1.0], [1.0, 2.0], [3.0, 2.0]])
    features = P.add_threshold_feature(np.column_stack([X, (X[:, 0] - 2) ** 2]))
    np.testing.assert_array_equal(P.predict(quadratic.w, features), [1, 1, -1, -1])
    # No (w, θ) separates the raw points: both classes have the mean [2, 2], so the mean positive
    # score equals the mean negative score for every w.
    positives, negatives = X[:2].mean(axis=0), X[2:].mean(axis=0)
    np.testing.assert_array_equal(positives, negatives)


def test_the_drifted_run_stops_on_a_rounding_residue_of_the_right_sign():
    """The printed score: [2, 1]·w is exactly 0 for w = 0.01·[-2, 4], but in floating point it
    is a residue of order 1e-17 with the negative example's sign, so the run stops."""
    X, y = demo.eta_drift_example()
    w = demo.eta_drift()[0.01].w
    score = X[3] @ w
    assert y[3] == -1 and -1e-15 < score < 0


def test_margin_alt_text_counts_one_mistake_in_the_singular():
    # Review (issue 36): γ = 10^-0.4 with seed 19 makes one mistake; the alt text said
    # "after 1 mistakes" and "makes 1 mistakes".
    from mllib.plotting import alt_text

    fig = demo.show_margin_experiment(10**-0.4, seed=19)
    text = alt_text(fig)
    assert "after 1 mistake," in text and "makes 1 mistake," in text
    assert "1 mistakes" not in text and "1 mistakes" not in fig.axes[1].get_title()


def test_balcans_first_step_is_counted_as_the_text_says():
    # §4: mllib starts from w = 0, where every example is inside the band, and counts the
    # first step w = y₁x₁ (Balcan's initialisation) as an update.
    X, y = np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([1.0, 1.0])
    run = P.margin_perceptron(X, y, margin=0.1)
    assert run.history[0].index == 0 and run.mistakes == len(run.history) >= 1
    np.testing.assert_array_equal(run.history[0].w, y[0] * X[0])  # exact: one addition to 0
    import json

    text = " ".join(" ".join("".join(c["source"]).split())
                    for c in json.loads(WALKTHROUGH.read_text())["cells"])
    assert "counts the same first step as an update" in text


# --- Reviews r3/r4 of lecture 01 ----------------------------------------------------------------


def test_the_eta_runs_from_zero_never_come_near_a_tie():
    # Cell 28: after the first (exact) score 0·x = 0, the smallest |w·x| / (‖w‖‖x‖) is about
    # 1e-3 at every η, far above rounding's 1e-16. Oracle: a plain loop of MMDS's rule, η = 1
    # (from w₀ = 0 every η-run is the η = 1 run scaled, so its ratios are the same).
    X, y, _ = data.separable(100, 2, margin=0.05, seed=1)
    w, closest, clean = np.zeros(2), np.inf, False
    while not clean:
        clean = True
        for x, label in zip(X, y, strict=True):
            if np.any(w):
                closest = min(closest, abs(x @ w) / (np.linalg.norm(x) * np.linalg.norm(w)))
            if label * (x @ w) <= 0:
                w, clean = w + label * x, False
    found = [demo.eta_closest_call(eta) for eta in demo.ETA_GRID]
    np.testing.assert_allclose(found, closest, rtol=1e-6)  # scaling changes only last bits
    assert 1e-3 < closest < 2e-3 and f"{closest:.1e}" == "1.3e-03"
    text = _walkthrough_markdown()
    assert ("the smallest $|w\\cdot x|/(\\lVert w\\rVert\\lVert x\\rVert)$ is about $10^{-3}$"
            in text)
    assert "no score is ever exactly 0" not in text


def test_the_margin_slider_repeats_a_sample_when_it_clears_the_next_floor():
    # Cell 13: seed 2 draws one sample for the slider's 0.0158 and 0.02, one for 0.0251 and
    # 0.0316; the measured margin at 0.0158 is 0.0233.
    pairs = [(10**-1.8, 10**-1.7), (10**-1.6, 10**-1.5)]
    for low, high in pairs:
        a, b = demo.margin_experiment(low, seed=2), demo.margin_experiment(high, seed=2)
        np.testing.assert_array_equal(a.X, b.X)
        np.testing.assert_array_equal(a.y, b.y)
    assert round(demo.margin_experiment(10**-1.8, seed=2).margin, 4) == 0.0233
    assert "for seed 2 the slider's 0.0158 and 0.02 draw the same sample" in _walkthrough_markdown()


def test_the_noisy_sample_of_section_5_has_no_separator_even_with_a_bias():
    # Cell 22: "here no separator exists, not even one with a bias" (lecture 02's solver).
    from mllib import svm

    X, y, _ = data.noisy(300, 2, margin=0.05, flip=0.1, seed=2)
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.solve(X, y)
    assert demo.noisy_comparison().mistakes.min() > 0  # every epoch makes a mistake
    assert "Flip the labels of a tenth of the examples and, here, no separator exists" in \
        _walkthrough_markdown()


def test_the_tie_rule_cites_the_mistake_bound_theorem_slide():
    text = _walkthrough_markdown()
    assert '"Perceptron: Mistake Bound Theorem" slide settles it' in text
    assert "its threshold and Winnow slides" not in text


def _walkthrough_markdown() -> str:
    from prose_support import markdown_text

    return markdown_text("01_perceptron/perceptron_walkthrough.ipynb")
