"""The perceptron walk-through's widget logic, driven without a browser."""

from html.parser import HTMLParser

import ipywidgets
import numpy as np
import pytest
from figure_support import assert_redrawn_in_place_like_a_fresh_build
from matplotlib.figure import Figure

from mllib import data
from mllib import perceptron as P
from mllib.demos import explore
from mllib.demos import perceptron as demo
from mllib.plotting import alt_text, describe, figure


def test_update_table_prints_mmds_example_12_4():
    X, y, _ = data.mmds_spam()
    table = demo.update_table(P.perceptron(X, y, eta=0.5), X, y).splitlines()
    assert table[2:] == [
        "| 1 | 1 | a | +1 | 0 | [½, ½, 0, ½, ½] |",
        "| 2 | 1 | b | -1 | ½ | [½, ½, -½, 0, ½] |",
        "| 3 | 1 | c | +1 | 0 | [½, 1, 0, 0, ½] |",
        "| 4 | 1 | d | -1 | ½ | [0, 1, 0, -½, ½] |",
    ]


def test_winnow_table_prints_mmds_fig_12_7_rows():
    X, y, words = data.mmds_spam()
    rows = demo.winnow_table(P.winnow(X, y), words).splitlines()
    assert rows[3] == "| a | +1 | 4 | no | 2 | 2 | 1 | 2 | 2 |"
    assert rows[4] == "| b | -1 | 3 | yes |  |  |  |  |  |"
    assert rows[14] == "| f | -1 | 7 | no | 1 | 8 | 2 | ½ | 4 |"


@pytest.mark.parametrize("margin", [0.02, 0.1, 0.3])
def test_margin_experiment_respects_the_bound(margin):
    exp = demo.margin_experiment(margin)
    assert exp.run.converged
    # γ is recomputed as min y·(w*·x)/‖w*‖ with ‖w*‖ = 1 up to rounding, so it may fall an ulp
    # or so short of the requested margin.
    assert exp.margin >= margin * (1 - 1e-12)
    assert exp.run.mistakes <= exp.bound
    assert exp.bound == pytest.approx((exp.radius / exp.margin) ** 2)


def _drawn_points(fig: Figure) -> np.ndarray:
    return np.vstack([c.get_offsets() for c in fig.axes[0].collections])


def test_moving_the_margin_slider_redraws_other_data():
    # The widget's one figure is redrawn in place: read each frame before drawing the next.
    narrow = demo.show_margin_experiment(0.05)
    narrow_points, narrow_title = _drawn_points(narrow), narrow.axes[1].get_title()
    wide = demo.show_margin_experiment(0.3)
    assert len(narrow_points) == len(_drawn_points(wide)) == 200
    assert not np.array_equal(narrow_points, _drawn_points(wide))
    assert narrow_title != wide.axes[1].get_title()


def test_step_frame_rings_the_example_of_update_k():
    X, y, _ = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y)
    assert run.mistakes >= 2
    fig = demo.show_update(run, X, y, 2)
    ring = fig.axes[0].collections[-1].get_offsets()[0]
    np.testing.assert_array_equal(ring, X[run.history[1].index])
    with pytest.raises(ValueError, match="between 0 and"):
        demo.show_update(run, X, y, run.mistakes + 1)


def test_proof_trace_satisfies_both_claims():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    gamma, R = P.geometric_margin(w_star, X, y), P.radius(X)
    trace = demo.proof_trace(P.perceptron(X, y, w_star=w_star))
    assert np.all(trace.alignment >= trace.k * gamma - 1e-12)
    assert np.all(trace.norm**2 <= trace.k * R**2 + 1e-12)
    assert np.all(trace.cosine <= 1 + 1e-12)
    with pytest.raises(ValueError, match="w_star"):
        demo.proof_trace(P.perceptron(X, y))


@pytest.mark.parametrize("eta", [0.001, 0.3, 7.0])
def test_eta_only_rescales_w(eta):
    comparison = demo.eta_comparison(eta)
    assert comparison.same_mistakes
    assert comparison.scale == pytest.approx(eta)
    np.testing.assert_allclose(comparison.scaled.w, eta * comparison.base.w)


def test_noisy_data_never_gives_a_clean_epoch_and_averaging_helps():
    noisy = demo.noisy_comparison(epochs=10)
    assert np.all(noisy.mistakes > 0)
    assert noisy.mistakes.sum() == P.perceptron(*data.noisy(300, 2, margin=0.05, flip=0.1,
                                                             seed=2)[:2], max_epochs=10).mistakes
    assert np.mean(noisy.averaged) > np.mean(noisy.last)


def test_explore_draws_a_static_frame_while_nbgrader_executes(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    slider = ipywidgets.FloatSlider(value=0.2, min=0.01, max=0.4)
    frame = explore(demo.show_margin_experiment, margin=slider)
    assert isinstance(frame, Figure)
    assert frame.axes[0].get_title().startswith("slider γ = 0.2, measured γ = ")


def test_explore_builds_a_widget_whose_slider_reruns_the_frame(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    seen = []

    def frame(margin):
        seen.append(margin)
        return demo.show_margin_experiment(margin)

    box = explore(frame, margin=ipywidgets.FloatSlider(value=0.1, min=0.01, max=0.4))
    slider = box.children[0]
    slider.value = 0.25
    assert seen == [0.1, 0.25]


def test_margin_trend_falls_on_average_and_respects_every_bound():
    trend = demo.margin_trend()
    assert trend.mistakes.shape == (len(demo.MARGIN_GRID), len(demo.TREND_SEEDS))
    assert np.all(trend.mistakes <= trend.bounds)
    # One sample is not monotone in γ; the mean over 20 samples falls by a factor > 5 from the
    # smallest γ to the largest, and so does the bound (by far more).
    assert trend.mean_mistakes[0] > 5 * trend.mean_mistakes[-1]
    assert trend.mean_bounds[0] > 100 * trend.mean_bounds[-1]


def test_margin_frame_marks_this_sample_on_the_trend():
    fig = demo.show_margin_experiment(demo.MARGIN_GRID[5], seed=3)
    exp = demo.margin_experiment(demo.MARGIN_GRID[5], seed=3)
    star = [line for line in fig.axes[1].lines if line.get_marker() == "*"][0]
    assert star.get_ydata()[0] == exp.run.mistakes
    noun = "mistake" if exp.run.mistakes == 1 else "mistakes"  # counts agree in number
    assert fig.axes[1].get_title() == (f"this sample: {exp.run.mistakes} {noun} "
                                       f"≤ {exp.bound:.0f}")


def test_eta_matters_from_a_non_zero_start():
    start = demo.ETA_STARTS["w₀ = [-1, 1]"]
    comparison = demo.eta_comparison(0.01, w0=start)
    assert not comparison.same_mistakes
    from_zero, from_w0 = demo.eta_trend((0.0, 0.0)), demo.eta_trend(start)
    assert len(set(from_zero.tolist())) == 1  # η changes nothing from w0 = 0
    # From w0 = [-1, 1] a small η needs many updates to outweigh the start.
    assert from_w0[0] > 10 * from_zero[0]
    assert from_w0[0] > from_w0[-1]
    fig = demo.show_eta(0.01, "w₀ = [-1, 1]")
    title = fig.axes[0].get_title()
    assert title.startswith(f"w₀ = [-1, 1]: {comparison.scaled.mistakes} mistakes")


def test_png_draws_the_frame_once_at_its_own_size():
    from mllib.demos import png

    fig = demo.show_margin_experiment(0.1)
    image = png(fig)
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")
    assert (width, height) == (round(fig.get_figwidth() * fig.dpi),
                               round(fig.get_figheight() * fig.dpi))


def test_each_margin_variant_keeps_its_bound_and_its_guaranteed_margin():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    R, gamma = P.radius(X), P.geometric_margin(w_star, X, y)
    classic, gupta, balcan = demo.margin_variants(X / R, y, gamma / R)
    for variant in (classic, gupta, balcan):
        assert variant.run.converged and variant.run.mistakes <= variant.bound
        assert variant.margin >= variant.guaranteed
    gamma_s = demo.sample_margin(X / R, y)
    assert gamma_s >= gamma / R - 1e-12  # γ(S) is the best origin margin, w*'s is one of them
    assert gupta.bound == pytest.approx(3 / gamma_s**2)
    assert gupta.guaranteed == pytest.approx(gamma_s / 3)
    assert balcan.guaranteed == pytest.approx(gamma / R / 2)
    # Gupta stops with y·w·x >= 1 everywhere: its margin is at least 1/‖w‖.
    assert np.min(y * (X / R @ gupta.run.w)) >= 1 - 1e-9


def test_sample_margin_is_the_origin_svm_margin():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -3.0]])
    y = np.array([1.0, 1.0, -1.0])
    # The shortest w with y·w·x >= 1 is w = [1/3, 1/3] (tight at the first two points, and
    # -(-1 - 3)/3 = 4/3 >= 1 at the third), so γ(S) = 1/‖w‖ = 3/√2.
    assert demo.sample_margin(X, y) == pytest.approx(3 / np.sqrt(2), rel=1e-9)


def test_the_threshold_example_needs_a_threshold_and_learns_one_between_2_and_3():
    X, y = demo.threshold_example()
    assert not P.perceptron(X, y, max_epochs=50).converged
    run = P.perceptron(P.add_threshold_feature(X), y)
    assert run.converged
    w, theta = run.w
    assert 2 < theta / w < 3


def test_the_live_widget_shows_the_frame_as_its_png(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    from mllib.demos import PNG, png

    box = explore(demo.show_update, run=ipywidgets.fixed(P.perceptron(*data.mmds_spam()[:2])),
                  X=ipywidgets.fixed(data.mmds_spam()[0][:, :2]),
                  y=ipywidgets.fixed(data.mmds_spam()[1]),
                  k=ipywidgets.IntSlider(value=0, min=0, max=1))
    assert isinstance(box.result, PNG)
    image, metadata = box.result._repr_png_()
    assert image[:8] == b"\x89PNG\r\n\x1a\n" and metadata == {"alt": box.result.alt}
    fig = demo.show_update(P.perceptron(*data.mmds_spam()[:2]), data.mmds_spam()[0][:, :2],
                           data.mmds_spam()[1], 0)
    assert len(image) == len(png(fig))  # the same frame, drawn the same way


class Tags(HTMLParser):
    """Each start tag's attributes and the text of the page, as a browser's parser reads them."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []
        self.feed(markup)

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data) -> None:
        self.text.append(data)


def counted_points(n: int) -> Figure:
    """A figure whose alt text names its data, with markup characters a page must escape."""
    fig, (ax,) = figure()
    ax.plot(range(n), "o")
    return describe(fig, f'{n} points <b>"&amp;"</b>')


def test_each_redraw_says_the_frames_alt_text_in_a_status_line_under_the_figure(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    box = explore(counted_points, n=ipywidgets.IntSlider(value=3, min=1, max=9, description="n"))
    slider, output, summary = box.children
    assert "mllib-explorer" in box._dom_classes
    for n in (3, 7):  # the first frame, then a move of the slider
        slider.value = n
        line = Tags(summary.value)
        assert line.tags == [("p", {"class": "mllib-frame-summary", "role": "status",
                                    "aria-live": "polite", "aria-atomic": "true"})]
        assert "".join(line.text) == f'{n} points <b>"&amp;"</b>' == alt_text(counted_points(n))
        (shown,) = output.outputs  # the image's own name: JupyterLab shows the text/html <img>
        (tag, attributes), = Tags(shown["data"]["text/html"]).tags
        assert tag == "img" and attributes["alt"] == alt_text(counted_points(n))
        assert attributes["src"] == "data:image/png;base64," + shown["data"]["image/png"]


def test_a_redraw_that_fails_says_so_in_the_status_line(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)

    def frame(n):
        if n > 5:
            raise ValueError(f"no frame for n = {n}")
        return counted_points(n)

    box = explore(frame, n=ipywidgets.IntSlider(value=3, min=1, max=9))
    box.children[0].value = 8
    said = "".join(Tags(box.children[-1].value).text)
    assert "not redrawn" in said.lower() and "ValueError: no frame for n = 8" in said
    assert box.children[1].outputs[0]["name"] == "stderr"
# --- The widgets redraw one figure in place, and say what each frame shows ------------------


@pytest.mark.parametrize(("margin", "seed"), [(0.1, 2), (0.01, 0), (0.398107, 19)])
def test_margin_widget_redrawn_in_place_shows_what_a_fresh_build_shows(margin, seed):
    assert_redrawn_in_place_like_a_fresh_build(
        demo._margin_view, lambda: demo.show_margin_experiment(margin, seed),
        [lambda: demo.show_margin_experiment(0.05, seed),
         lambda: demo.show_margin_experiment(margin, seed + 1),
         lambda: demo.show_margin_experiment(0.2, 7)])


@pytest.mark.parametrize(("eta", "start"), [(0.1, "w₀ = 0"), (0.001, "w₀ = [-1, 1]"),
                                            (0.5, "w₀ = [-1, 1]")])
def test_eta_widget_redrawn_in_place_shows_what_a_fresh_build_shows(eta, start):
    others = [lambda s=s, e=e: demo.show_eta(e, s) for s in demo.ETA_STARTS for e in (0.01, 3.0)]
    assert_redrawn_in_place_like_a_fresh_build(demo._eta_view,
                                               lambda: demo.show_eta(eta, start), others)


@pytest.mark.parametrize("k", [0, 1, 9])
def test_update_scrubber_redrawn_in_place_shows_what_a_fresh_build_shows(k):
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y, w_star=w_star)

    class Views:  # the scrubber's views are kept by the identity of (run, X, y)
        cache_clear = staticmethod(demo._update_views.clear)

    assert_redrawn_in_place_like_a_fresh_build(
        Views, lambda: demo.show_update(run, X, y, k),
        [lambda j=j: demo.show_update(run, X, y, j) for j in (run.mistakes, 0, 3, 1)])


def test_update_alt_text_states_the_update_and_what_the_separator_gets_wrong():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y, w_star=w_star)
    k = 5
    update = run.history[k - 1]
    wrong = int(np.sum(np.sign(X @ update.w) != y))  # sign 0 counts as wrong, as y·w·x <= 0
    text = alt_text(demo.show_update(run, X, y, k))
    assert text.startswith(f"300 points in two classes ({np.sum(y == 1)} circles y = +1, "
                           f"{np.sum(y == -1)} squares y = −1); update {k} of {run.mistakes}: ")
    assert f"example {update.index}, at ({X[update.index, 0]:.2f}, " in text
    assert text.endswith(f"the separator now has {wrong} points misclassified.")
    assert alt_text(demo.show_update(run, X, y, k + 1)) != text
    assert "every example counts as a mistake" in alt_text(demo.show_update(run, X, y, 0))


def test_margin_alt_text_states_the_sample_the_run_and_the_trend():
    X, y, w_star = data.separable(200, 2, margin=0.05, radius=1.0, seed=4)
    run = P.perceptron(X, y, w_star=w_star, max_epochs=1000)
    R, gamma = P.radius(X), P.geometric_margin(w_star, X, y)
    text = alt_text(demo.show_margin_experiment(0.05, 4))
    assert f"{np.sum(y == 1)} circles y = +1, {np.sum(y == -1)} squares y = −1" in text
    assert f"(measured {gamma:.3g}) and R = {R:.3f}" in text
    assert f"after {run.mistakes} mistakes, no point misclassified" in text
    assert text.endswith(f"this sample makes {run.mistakes} mistakes, bound "
                         f"{(R / gamma) ** 2:.0f}.")
    # The trend is the mean over the 20 seeds at the slider's ends.
    first = np.mean([P.perceptron(*data.separable(200, 2, margin=0.01, radius=1.0, seed=s)[:2],
                                  max_epochs=1000).mistakes for s in demo.TREND_SEEDS])
    assert f"fall from {first:.1f} at γ = 0.01 " in text
    assert alt_text(demo.show_margin_experiment(0.05, 5)) != text


def test_eta_alt_text_follows_the_slider_and_the_start():
    text = alt_text(demo.show_eta(0.01, "w₀ = [-1, 1]"))
    X, y, _ = data.separable(100, 2, margin=0.05, seed=1)
    slow = P.perceptron(X, y, eta=0.01, w0=np.array([-1.0, 1.0]), max_epochs=1000)
    assert f"the run with η = 0.01 makes {slow.mistakes} mistakes" in text
    assert alt_text(demo.show_eta(0.1, "w₀ = [-1, 1]")) != text
    assert alt_text(demo.show_eta(0.01, "w₀ = 0")) != text


def test_proof_alt_text_states_where_each_claim_ends():
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    run = P.perceptron(X, y, w_star=w_star)
    R, gamma = P.radius(X), P.geometric_margin(w_star, X, y)
    w = run.w  # the last update's w: the quantities at k = run.mistakes
    text = alt_text(demo.show_proof(run, R, gamma))
    assert f"over the run's {run.mistakes} updates" in text
    assert f"w·w* climbs to {w @ w_star:.3f}" in text
    assert f"‖w‖² reaches {w @ w:.3f}" in text
    assert f"caps k at (R/γ)² = {(R / gamma) ** 2:.0f}." in text
