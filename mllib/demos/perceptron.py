"""Widgets and tables for the perceptron walk-through (lecture 01).

Sources: MMDS §12.2 (Example 12.4, Fig. 12.7), CS446 and CS578 L2 (the mistake bound and its
proof), Balcan 10-601 (the proof's two claims).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrow

from mllib import data
from mllib.demos.live import animate, set_view
from mllib.demos.svm import legend_below, origin_solution
from mllib.perceptron import (
    PerceptronResult,
    WinnowResult,
    add_threshold_feature,
    geometric_margin,
    gupta_bound,
    gupta_perceptron,
    margin_perceptron,
    margin_perceptron_bound,
    mistake_bound,
    perceptron,
    predict,
    predict_averaged,
    predict_voted,
    radius,
    voted_perceptron,
    winnow,
)
from mllib.plotting import (
    MARKERS,
    PALETTE,
    counted,
    describe,
    figure,
    fraction,
    hyperplane_points,
    log_axis,
    markdown_table,
    scatter_labelled,
    square_limits,
)

ROW_NAMES = "abcdef"


def update_table(result: PerceptronResult, X: np.ndarray, y: np.ndarray, names=ROW_NAMES) -> str:
    """MMDS Example 12.4 as a Markdown table: one row per update, w after it, as the book prints.

    X has shape (n, d) and y shape (n,); ``names`` labels the rows (a, b, ... as in Fig. 12.6).
    """
    header = ["update", "epoch", "example", "y", "w·x before", "w after"]
    rows = [
        [k, u.epoch, names[u.index], f"{y[u.index]:+.0f}", fraction(u.score),
         "[" + ", ".join(fraction(v) for v in u.w) + "]"]
        for k, u in enumerate(result.history, start=1)
    ]
    return markdown_table(header, rows)


def winnow_table(result: WinnowResult, columns: tuple[str, ...], names=ROW_NAMES) -> str:
    """MMDS Fig. 12.7 / 12.9 as a Markdown table: every visit, with w after each update."""
    header = ["x", "y", "w·x", "OK?", *columns]
    rows = [["", "", "", "", *(fraction(1.0) for _ in columns)]]
    for visit in result.history:
        weights = ["" for _ in columns] if visit.correct else [fraction(v) for v in visit.w]
        rows.append([names[visit.index], f"{visit.y:+.0f}", fraction(visit.score),
                     "yes" if visit.correct else "no", *weights])
    return markdown_table(header, rows)


@dataclass(frozen=True)
class MarginExperiment:
    """One run behind the γ slider: the sample, the run, and the bound it must respect.

    Attributes
    ----------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    w_star : ndarray of shape (2,)
        The unit separator the data was drawn around.
    run : PerceptronResult
    radius, margin : float
        R = max‖x‖ and γ = the margin of w* measured on this sample (at least the ``margin``
        the sample was drawn with).
    bound : float
        (R/γ)².
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray
    run: PerceptronResult
    radius: float
    margin: float
    bound: float


@functools.lru_cache(maxsize=1024)
def margin_experiment(margin: float, *, n: int = 200, seed: int = 2) -> MarginExperiment:
    """Draw n separable points in the unit disc with margin >= ``margin``, run the perceptron.

    Cached: the γ widget and :func:`margin_trend` ask for the same runs again.
    """
    X, y, w_star = data.separable(n, 2, margin=margin, radius=1.0, seed=seed)
    R, gamma = radius(X), geometric_margin(w_star, X, y)
    run = perceptron(X, y, w_star=w_star, max_epochs=1000)
    return MarginExperiment(X, y, w_star, run, R, gamma, mistake_bound(R, gamma))


# The γ slider's values (a FloatLogSlider from 10^-2 to 10^-0.4 in steps of 0.1) and the seeds
# averaged over: one sample's mistakes jump up and down along γ, their mean follows the trend.
MARGIN_GRID = tuple(round(10.0**e, 6) for e in np.arange(-2.0, -0.39, 0.1))
TREND_SEEDS = tuple(range(20))


@dataclass(frozen=True)
class MarginTrend:
    """Mistakes and bounds over a grid of γ and many samples.

    Attributes
    ----------
    margins : ndarray of shape (k,)
        The γ the samples were drawn with.
    seeds : tuple of int, length s
    mistakes, bounds : ndarray of shape (k, s)
        The perceptron's mistakes and (R/γ)² (R and γ measured on the sample) per γ and seed.
    """

    margins: np.ndarray
    seeds: tuple[int, ...]
    mistakes: np.ndarray
    bounds: np.ndarray

    @property
    def mean_mistakes(self) -> np.ndarray:
        """Mistakes averaged over the seeds, shape (k,)."""
        return self.mistakes.mean(axis=1)

    @property
    def mistakes_se(self) -> np.ndarray:
        """Standard error of :attr:`mean_mistakes` over the seeds (sample standard deviation
        over √s), shape (k,)."""
        return self.mistakes.std(axis=1, ddof=1) / np.sqrt(len(self.seeds))

    @property
    def mean_bounds(self) -> np.ndarray:
        """(R/γ)² averaged over the seeds, shape (k,)."""
        return self.bounds.mean(axis=1)


@functools.lru_cache(maxsize=4)
def margin_trend(margins: tuple[float, ...] = MARGIN_GRID,
                 seeds: tuple[int, ...] = TREND_SEEDS) -> MarginTrend:
    """Run :func:`margin_experiment` for every γ in ``margins`` and every seed (cached)."""
    runs = [[margin_experiment(m, seed=s) for s in seeds] for m in margins]
    return MarginTrend(np.array(margins), tuple(seeds),
                       np.array([[r.run.mistakes for r in row] for row in runs]),
                       np.array([[r.bound for r in row] for row in runs]))


def _points_text(X: np.ndarray, y: np.ndarray) -> str:
    """The alt text's opening: how many points of each class, and how each is drawn."""
    return (f"{len(y)} points in two classes ({int(np.sum(y > 0))} circles y = +1, "
            f"{int(np.sum(y < 0))} squares y = −1)")


def misclassified(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> int:
    """How many examples of X (n, d), y (n,) the separator w·x = 0 gets wrong (y·w·x <= 0)."""
    return int(np.sum(y * (X @ w) <= 0))


def _errors_text(count: int) -> str:
    return "no point misclassified" if count == 0 else f"{count} points misclassified"


def _freeze_view(ax: Axes) -> None:
    """Keep ``ax``'s current (autoscaled) limits, whatever is added to it later."""
    ax.set_xlim(ax.get_xlim())
    ax.set_ylim(ax.get_ylim())


@dataclass(frozen=True)
class _MarginView:
    """The γ widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    points: tuple[PathCollection, PathCollection]
    target: Line2D
    learned: Line2D
    band: tuple[Line2D, Line2D]
    star: Line2D
    marker: Line2D


@functools.lru_cache(maxsize=1)
def _margin_view() -> _MarginView:
    """Build the γ widget's figure once: the axes, the legends and the trend over
    :data:`TREND_SEEDS` stay; the sample, the separators, the star, the γ line and the titles
    move. The legends sit below the axes, where no moving artist is drawn over them (and a
    legend that moved would be drawn again with every frame)."""
    trend = margin_trend()
    height = 4.6
    fig, (left, right) = figure(2, height=height)
    square_limits(left, 1.05)
    scatter_labelled(left, np.zeros((0, 2)), np.zeros(0), size=12)
    target, = left.plot([], [], color="grey", linestyle="--", label="w* (target)")
    learned, = left.plot([], [], color="black", label="perceptron")
    band = tuple(left.plot([], [], color="grey", linewidth=0.6)[0] for _ in range(2))
    legend_below(fig, left, height, ncol=2)
    right.fill_between(trend.margins, trend.mistakes.min(axis=1), trend.mistakes.max(axis=1),
                       color="grey", alpha=0.25, linewidth=0,
                       label=f"range over {len(trend.seeds)} samples")
    right.plot(trend.margins, trend.mean_mistakes, "o-", ms=3, color="black",
               label="mean mistakes")
    right.plot(trend.margins, trend.mean_bounds, color=PALETTE[1], label="mean (R/γ)²")
    log_axis(right, "x")
    log_axis(right, "y")
    right.set_ylim(bottom=0.5)  # a sample with no mistake still shows on the log axis
    _freeze_view(right)  # every sample's count lies in the grey range
    star, = right.plot([], [], "*", ms=13, color=PALETTE[0], label="this sample (seed slider)")
    marker = right.axvline(trend.margins[0], color=PALETTE[0], linewidth=0.8)
    right.set_xlabel("margin γ the samples were drawn with")
    right.set_ylabel("count (log scale)")
    legend_below(fig, right, height, ncol=2)
    points = tuple(left.collections[:2])
    left.title.set_fontsize(9)
    animate(*points, target, learned, *band, star, marker, left.title, right.title)
    return _MarginView(fig, left, right, points, target, learned, band, star, marker)


def show_margin_experiment(margin: float, seed: int = 2) -> Figure:
    """The γ slider's frame: the sample and separators (left); the mistakes against γ averaged
    over :data:`TREND_SEEDS`, next to (R/γ)², with this γ and this sample marked (right).

    The figure is built once and redrawn in place: each call returns the same Figure."""
    exp = margin_experiment(margin, seed=seed)
    trend = margin_trend()
    view = _margin_view()
    for points, label in zip(view.points, (1, -1), strict=True):
        points.set_offsets(exp.X[exp.y == label])
    view.target.set_data(*hyperplane_points(view.left, exp.w_star))
    view.learned.set_data(*hyperplane_points(view.left, exp.run.w))
    for line, offset in zip(view.band, (-exp.margin, exp.margin), strict=True):
        line.set_data(*hyperplane_points(view.left, exp.w_star, offset=offset))
    # The slider's γ is a floor the sample was drawn with; the band and the bound use the
    # margin w* actually has on this sample, which is at least as wide.
    view.left.title.set_text(f"slider γ = {margin:.3g}, measured γ = {exp.margin:.3g}, "
                        f"R = {exp.radius:.3f}")
    view.star.set_data([margin], [exp.run.mistakes])
    view.marker.set_xdata([margin, margin])
    made = counted(exp.run.mistakes, "mistake")
    view.right.title.set_text(f"this sample: {made} ≤ {exp.bound:.0f}")
    means = trend.mean_mistakes
    return describe(view.fig, (
        f"Left: {_points_text(exp.X, exp.y)}, drawn with margin γ ≥ {margin:.3g} (measured "
        f"{exp.margin:.3g}) and R = {exp.radius:.3f}; the perceptron's separator after "
        f"{made}, {_errors_text(misclassified(exp.run.w, exp.X, exp.y))}. "
        f"Right: the mean mistakes over {len(trend.seeds)} samples fall from {means[0]:.1f} at "
        f"γ = {trend.margins[0]:.3g} to {means[-1]:.1f} at γ = {trend.margins[-1]:.3g}, below the "
        f"mean bound (R/γ)² throughout; this sample makes {made}, bound "
        f"{exp.bound:.0f}."))


@dataclass(frozen=True)
class _UpdateView:
    """The update scrubber's figure for one run and its data, and the artists each frame
    updates in place."""

    fig: Figure
    ax: Axes
    before: Line2D
    after: Line2D
    ring: PathCollection
    arrow: FancyArrow
    half: float


# The scrubber's views, by the identity of (run, X, y): the arrays are not hashable, and the
# notebook passes the same objects on every move. The objects are kept, so no id is reused.
_update_views: dict[tuple[int, int, int], tuple[object, _UpdateView]] = {}


def _update_view(run: PerceptronResult, X: np.ndarray, y: np.ndarray) -> _UpdateView:
    """The scrubber's figure for (run, X, y), built on the first call: the points and the
    legend stay; both separators, the ring, the arrow and the title move."""
    key = (id(run), id(X), id(y))
    if key in _update_views:
        return _update_views[key][1]
    height = 5.0
    fig, (ax,) = figure(1, width=5.5, height=height)
    half = 1.1 * float(np.max(np.abs(X)))
    square_limits(ax, half)
    scatter_labelled(ax, X, y, size=14)
    before, = ax.plot([], [], color="grey", linestyle="--", label="before")
    after, = ax.plot([], [], color="black", label="after")
    ring = ax.scatter(*X[:1].T, s=160, facecolors="none", edgecolors=PALETTE[3], linewidths=2,
                      label="mistake")
    arrow = ax.arrow(0, 0, half / 2, 0, width=0.01 * half, color="black")
    legend_below(fig, ax, height)
    animate(before, after, ring, arrow, ax.title)
    view = _UpdateView(fig, ax, before, after, ring, arrow, half)
    if len(_update_views) >= 4:
        _update_views.pop(next(iter(_update_views)))
    _update_views[key] = ((run, X, y), view)
    return view


def show_update(run: PerceptronResult, X: np.ndarray, y: np.ndarray, k: int) -> Figure:
    """The scrubber's frame: the hyperplane after k updates and the example that caused it.

    X has shape (n, 2). k = 0 shows the start (w = 0, no hyperplane yet). The figure is built
    once per (run, X, y) and redrawn in place: each call returns the same Figure.
    """
    if not 0 <= k <= run.mistakes:
        raise ValueError(f"k must be between 0 and {run.mistakes}, the number of updates.")
    view = _update_view(run, X, y)
    view.arrow.set_visible(k > 0)
    if k == 0:
        for line in (view.before, view.after):
            line.set_data([], [])
        view.ring.set_offsets(np.zeros((0, 2)))
        view.arrow.set_data(dx=0.0, dy=0.0)  # w = 0 (hidden)
        view.ax.title.set_text("start: w = 0, every example is a mistake")
        return describe(view.fig, f"{_points_text(X, y)}; the start: w = 0, so there is no "
                                  "separator yet and every example counts as a mistake.")
    update = run.history[k - 1]
    previous = run.history[k - 2].w if k > 1 else np.zeros_like(update.w)
    view.before.set_data(*hyperplane_points(view.ax, previous))
    view.after.set_data(*hyperplane_points(view.ax, update.w))
    x = X[update.index]
    view.ring.set_offsets(x.reshape(1, 2))
    scale = 0.5 * view.half / max(np.linalg.norm(update.w), 1e-12)
    view.arrow.set_data(dx=scale * update.w[0], dy=scale * update.w[1])
    # The legend always lists "before"; the first update has none to draw (w₀ = 0), so say so.
    start = "\nbefore it w = 0: no dashed line" if k == 1 else ""
    view.ax.title.set_text(f"update {k} of {run.mistakes} (epoch {update.epoch}, example "
                           f"{update.index}){start}")
    turned = ("drew the first separator, the solid line" if k == 1 else
              "turned the separator from the dashed line to the solid one")
    return describe(view.fig, (
        f"{_points_text(X, y)}; update {k} of {run.mistakes}: the ringed example "
        f"{update.index}, at ({x[0]:.2f}, {x[1]:.2f}) with y = {y[update.index]:+.0f}, was "
        f"misclassified, and adding it {turned}; the separator now has "
        f"{_errors_text(misclassified(update.w, X, y))}."))


@dataclass(frozen=True)
class ProofTrace:
    """The two quantities of the mistake-bound proof along a run (CS578 L2; Balcan Thm 1).

    Attributes
    ----------
    k : ndarray of shape (m,)
        1, 2, ..., m: the update count.
    alignment : ndarray of shape (m,)
        w_k·w* for a unit w*; claim 1 says it is >= k·γ.
    norm : ndarray of shape (m,)
        ‖w_k‖; claim 2 says ‖w_k‖² <= k·R².
    cosine : ndarray of shape (m,)
        w_k·w*/‖w_k‖ <= 1, yet >= √k·γ/R by the two claims, hence k <= (R/γ)².
    """

    k: np.ndarray
    alignment: np.ndarray
    norm: np.ndarray
    cosine: np.ndarray


def proof_trace(run: PerceptronResult) -> ProofTrace:
    """Read the proof's quantities off a run made with a unit ``w_star``."""
    if not run.history or run.history[0].alignment is None:
        raise ValueError("the run has no updates recorded with w_star; pass w_star= to perceptron.")
    k = np.arange(1, run.mistakes + 1)
    alignment = np.array([u.alignment for u in run.history])
    norm = np.sqrt([u.norm_sq for u in run.history])
    return ProofTrace(k, alignment, norm, alignment / norm)


def show_proof(run: PerceptronResult, radius: float, margin: float) -> Figure:
    """Plot both claims of the proof and the squeeze on cos(w, w*) that bounds k."""
    trace = proof_trace(run)
    fig, axes = figure(3, width=4.2, height=3.6)
    axes[0].plot(trace.k, trace.alignment, "o-", ms=3, label="w·w*")
    axes[0].plot(trace.k, margin * trace.k, "--", label="kγ")
    axes[0].set_title("claim 1: w·w* ≥ kγ")
    axes[1].plot(trace.k, trace.norm**2, "o-", ms=3, label="‖w‖²")
    axes[1].plot(trace.k, radius**2 * trace.k, "--", label="kR²")
    axes[1].set_title("claim 2: ‖w‖² ≤ kR²")
    bound = mistake_bound(radius, margin)
    ks = np.linspace(1, max(bound, trace.k[-1]) * 1.05, 200)
    axes[2].plot(trace.k, trace.cosine, "o-", ms=3, label="cos(w, w*)")
    axes[2].plot(ks, np.sqrt(ks) * margin / radius, "--", label="√k γ/R")
    axes[2].axhline(1, color="grey", linewidth=0.8)
    axes[2].axvline(bound, color=PALETTE[1], linewidth=0.8, label="k = (R/γ)²")
    axes[2].set_title("together: √k γ/R ≤ cos ≤ 1")
    axes[2].set_xscale("log")
    for ax in axes:
        ax.set_xlabel("update k")
        ax.legend(fontsize=8)
    m = len(trace.k)
    return describe(fig, (
        f"The proof's quantities over the run's {m} updates, with R = {radius:.3f} and "
        f"γ = {margin:.4f}. Claim 1: w·w* climbs to {trace.alignment[-1]:.3f}, never below kγ "
        f"(which ends at {m * margin:.3f}). Claim 2: ‖w‖² reaches {trace.norm[-1] ** 2:.3f}, "
        f"never above kR² (ending at {m * radius**2:.3f}). Together: cos(w, w*) ends at "
        f"{trace.cosine[-1]:.3f}, between √k γ/R and 1, which caps k at (R/γ)² = {bound:.0f}."))


# The η widget's starts. From w0 = 0, η only rescales w; from any other start it decides how
# fast the start is outweighed by the updates, so it changes the mistakes.
ETA_STARTS = {"w₀ = 0": (0.0, 0.0), "w₀ = [-1, 1]": (-1.0, 1.0)}
# The η slider's values: a FloatLogSlider from 10^-3 to 10^1 in steps of 0.25.
ETA_GRID = tuple(round(10.0**e, 6) for e in np.arange(-3.0, 1.01, 0.25))


@dataclass(frozen=True)
class EtaComparison:
    """The same sample trained with η = 1 and with another η, from the same w0.

    Attributes
    ----------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    w0 : ndarray of shape (2,)
        The start of both runs.
    base, scaled : PerceptronResult
        The runs with η = 1 and with ``eta``.
    same_mistakes : bool
        Whether both runs updated on exactly the same examples in the same order.
    scale : float
        ‖w_η‖ / ‖w_1‖. From w0 = 0 it equals η: every w of the η-run is η times the w of the
        1-run.
    """

    X: np.ndarray
    y: np.ndarray
    w0: np.ndarray
    base: PerceptronResult
    scaled: PerceptronResult
    same_mistakes: bool
    scale: float


@functools.lru_cache(maxsize=128)
def _eta_run(eta: float, w0: tuple[float, float], n: int, seed: int):
    X, y, _ = data.separable(n, 2, margin=0.05, seed=seed)
    return X, y, perceptron(X, y, eta=eta, w0=np.array(w0), max_epochs=1000)


def eta_comparison(eta: float, *, w0=(0.0, 0.0), n: int = 100, seed: int = 1) -> EtaComparison:
    """Train on one separable sample with η = 1 and with ``eta``, both from ``w0`` (shape (2,))."""
    w0 = tuple(float(v) for v in w0)
    X, y, base = _eta_run(1.0, w0, n, seed)
    scaled = _eta_run(float(eta), w0, n, seed)[2]
    same = [(u.epoch, u.index) for u in base.history] == [(u.epoch, u.index)
                                                           for u in scaled.history]
    return EtaComparison(X, y, np.array(w0), base, scaled, same,
                         float(np.linalg.norm(scaled.w) / np.linalg.norm(base.w)))


def eta_sample_bound(*, n: int = 100, seed: int = 1) -> float:
    """Novikoff's (R/γ)² for the η widget's sample, with γ the margin of the unit w* it was
    drawn around. The theorem assumes the run starts from w = 0."""
    X, y, w_star = data.separable(n, 2, margin=0.05, seed=seed)
    return mistake_bound(radius(X), geometric_margin(w_star, X, y))


def eta_closest_call(eta: float, *, w0=(0.0, 0.0), n: int = 100, seed: int = 1) -> float:
    """How near the η widget's run comes to a tie: the smallest |w·x| / (‖w‖‖x‖) over every
    comparison of the run (scale-free, so comparable across η) made while w ≠ 0.

    Rounding can flip the test y·(w·x) <= 0 only for a score within about 1e-16·‖w‖‖x‖ of 0;
    the run from w0 = 0 also compares the exact score 0·x = 0 once, before its first update.
    """
    X, y, run = _eta_run(float(eta), tuple(float(v) for v in w0), n, seed)
    w, updates, closest = np.array(w0, dtype=float), list(run.history), np.inf
    for epoch in range(1, run.epochs + 1):
        for i, x in enumerate(X):
            if np.any(w):
                closest = min(closest, abs(x @ w) / (np.linalg.norm(x) * np.linalg.norm(w)))
            if updates and (updates[0].epoch, updates[0].index) == (epoch, i):
                w = updates.pop(0).w
    return float(closest)


def eta_drift_example() -> tuple[np.ndarray, np.ndarray]:
    """Four integer examples on which rounding makes η matter in floating point: X of shape
    (4, 2) = [0, 2], [-3, -3], [0, -2], [2, 1], y = [+1, -1, -1, -1]. With η = 1 the fifth epoch
    meets a score of exactly 0; with η = 0.01 the same score carries rounding residue."""
    X = np.array([[0.0, 2.0], [-3.0, -3.0], [0.0, -2.0], [2.0, 1.0]])
    return X, np.array([1.0, -1, -1, -1])


def eta_drift(
    etas: tuple[float, ...] = (1.0, 0.5, 0.125, 0.1, 0.01),
) -> dict[float, PerceptronResult]:
    """The perceptron from w = 0 on :func:`eta_drift_example` for every η in ``etas``. In exact
    arithmetic every run is the η = 1 run scaled by η; in floating point only η a power of 2
    (with integer data) keeps every score exact."""
    X, y = eta_drift_example()
    return {eta: perceptron(X, y, eta=eta) for eta in etas}


@functools.lru_cache(maxsize=4)
def eta_trend(w0: tuple[float, float], etas: tuple[float, ...] = ETA_GRID) -> np.ndarray:
    """Mistakes of the run from ``w0`` for every η in ``etas``, shape (len(etas),) (cached)."""
    return np.array([eta_comparison(eta, w0=w0).scaled.mistakes for eta in etas])


@dataclass(frozen=True)
class _EtaView:
    """The η widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    start: Line2D
    base: Line2D
    scaled: Line2D
    star: Line2D
    ylim: tuple[float, float]


# The mistakes-against-η curve of each start: colour and marker (colour is never the only cue).
ETA_STYLES = {"w₀ = 0": ("black", "o"), "w₀ = [-1, 1]": (PALETTE[1], "s")}


@functools.lru_cache(maxsize=1)
def _eta_view() -> _EtaView:
    """Build the η widget's figure once: the sample, the axes, the legends and both starts'
    curves stay; the three separators, the star and the titles move."""
    comparison = eta_comparison(1.0)
    height = 4.6
    fig, (left, right) = figure(2, height=height)
    square_limits(left, 1.05)
    scatter_labelled(left, comparison.X, comparison.y, size=12)
    start, = left.plot([], [], color="grey", linestyle=":", label="start w₀")
    base, = left.plot([], [], color="black", linewidth=3, label="η = 1")
    scaled, = left.plot([], [], color=PALETTE[3], linestyle="--", label="η of the slider")
    legend_below(fig, left, height)
    for name, (colour, marker) in ETA_STYLES.items():
        right.plot(ETA_GRID, eta_trend(ETA_STARTS[name]), "-", marker=marker, ms=3,
                   color=colour, label=name)
    log_axis(right, "x")
    log_axis(right, "y")
    _freeze_view(right)
    star, = right.plot([], [], "*", ms=13, color=PALETTE[0], label="this η and start")
    right.set_xlabel("learning rate η")
    right.set_ylabel("mistakes until a clean pass")
    legend_below(fig, right, height, ncol=2)
    left.title.set_fontsize(10)
    animate(start, base, scaled, star, left.title, right.title)
    return _EtaView(fig, left, right, start, base, scaled, star, right.get_ylim())


def show_eta(eta: float, start: str = "w₀ = 0") -> Figure:
    """The η slider's frame: the separators of the η = 1 run and the η run from the start
    ``start`` (a key of :data:`ETA_STARTS`) (left); the mistakes against η from each start,
    with this η marked (right).

    The figure is built once and redrawn in place: each call returns the same Figure."""
    comparison = eta_comparison(eta, w0=ETA_STARTS[start])
    mistakes = comparison.scaled.mistakes
    view = _eta_view()
    view.start.set_data(*hyperplane_points(view.left, comparison.w0))
    view.base.set_data(*hyperplane_points(view.left, comparison.base.w))
    view.scaled.set_data(*hyperplane_points(view.left, comparison.scaled.w))
    view.left.title.set_text(f"{start}: {counted(mistakes, 'mistake')} with η = {eta:.3g}, "
                        f"{comparison.base.mistakes} with η = 1")
    # An η between the slider's steps can fall outside both curves: widen the view to it.
    low, high = view.ylim
    set_view(view.right, view.right.get_xlim(),
             (min(low, mistakes / 1.5), max(high, 1.5 * mistakes)))
    view.star.set_data([eta], [mistakes])
    view.right.title.set_text(f"‖w_η‖ / ‖w_1‖ = {comparison.scale:.3g}")
    trends = {name: eta_trend(w0) for name, w0 in ETA_STARTS.items()}
    curves = "; ".join(f"from {name}, {trend[0]} at η = {ETA_GRID[0]:g} and {trend[-1]} at "
                       f"η = {ETA_GRID[-1]:g}" if trend.min() != trend.max()
                       else f"from {name}, {trend[0]} for every η"
                       for name, trend in trends.items())
    return describe(view.fig, (
        f"Left: {_points_text(comparison.X, comparison.y)}; from {start}, the run with "
        f"η = {eta:.3g} makes {counted(mistakes, 'mistake')} and the run with η = 1 makes "
        f"{comparison.base.mistakes}; ‖w_η‖ / ‖w_1‖ = {comparison.scale:.3g}. Right: mistakes "
        f"until a clean pass over η from {ETA_GRID[0]:g} to {ETA_GRID[-1]:g}: {curves}."))


@dataclass(frozen=True)
class NoisyComparison:
    """Training accuracy per epoch on non-separable data.

    Attributes
    ----------
    epochs : ndarray of shape (T,)
    mistakes : ndarray of shape (T,)
        Updates in each epoch: they never reach 0 (the cycling theorem).
    last, averaged, voted : ndarray of shape (T,)
        Training accuracy of the final w, the averaged and the voted perceptron after t epochs.
    """

    epochs: np.ndarray
    mistakes: np.ndarray
    last: np.ndarray
    averaged: np.ndarray
    voted: np.ndarray


def noisy_comparison(*, epochs: int = 15, n: int = 300, flip: float = 0.1,
                     seed: int = 2) -> NoisyComparison:
    """Run the classic, averaged and voted perceptron on noisy data for 1..``epochs`` epochs."""
    X, y, _ = data.noisy(n, 2, margin=0.05, flip=flip, seed=seed)
    run = perceptron(X, y, max_epochs=epochs)
    mistakes = np.bincount([u.epoch for u in run.history], minlength=epochs + 1)[1:]
    last, averaged, voted = [], [], []
    for t in range(1, epochs + 1):
        votes = voted_perceptron(X, y, epochs=t)
        last.append(np.mean(predict(votes.weights[-1], X) == y))
        averaged.append(np.mean(predict_averaged(votes, X) == y))
        voted.append(np.mean(predict_voted(votes, X) == y))
    return NoisyComparison(np.arange(1, epochs + 1), mistakes, *map(np.array,
                                                                    (last, averaged, voted)))


def show_noisy(comparison: NoisyComparison) -> Figure:
    """Mistakes per epoch (left) and training accuracy of the three predictors (right)."""
    fig, (left, right) = figure(2, height=3.5)
    left.bar(comparison.epochs, comparison.mistakes, color="grey")
    left.set_xlabel("epoch")
    left.set_ylabel("updates in the epoch")
    left.set_title("no epoch is ever mistake-free")
    for (name, values), marker in zip((("last w", comparison.last),
                                        ("averaged", comparison.averaged),
                                        ("voted", comparison.voted)), MARKERS[:3], strict=True):
        right.plot(comparison.epochs, values, "-", marker=marker, ms=3, label=name)
    right.set_xlabel("epochs of training")
    right.set_ylabel("training accuracy")
    right.legend(fontsize=8)
    right.set_title("averaging steadies the answer")
    return describe(fig, (
        f"Left: updates in each of {len(comparison.epochs)} epochs on noisy data, between "
        f"{comparison.mistakes.min()} and {comparison.mistakes.max()}, never 0. Right: training "
        f"accuracy after 1 to {len(comparison.epochs)} epochs; the last w moves between "
        f"{comparison.last.min():.3f} and {comparison.last.max():.3f}, the averaged perceptron "
        f"between {comparison.averaged.min():.3f} and {comparison.averaged.max():.3f}, the voted "
        f"between {comparison.voted.min():.3f} and {comparison.voted.max():.3f}."))


# --- A threshold that is not zero (MMDS §12.2.4) -------------------------------------------------


def threshold_example() -> tuple[np.ndarray, np.ndarray]:
    """Four emails scored by one count x (say, how many spam words they hold), spam from x = 3.

    X has shape (4, 1), y shape (4,). Every x is positive, so no separator through the origin
    (w·x = 0) splits them: the perceptron needs a threshold θ with 2 < θ/w < 3.
    """
    return np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([-1.0, -1.0, 1.0, 1.0])


def threshold_by_order(eta: float = 0.5) -> Counter:
    """MMDS §12.2.4 on the spam data (Fig. 12.6) in every order of its six rows: how many of
    the 720 orders end with each learned threshold θ (the weight of the appended -1 feature).

    Every update adds η·y·(-1) to θ, so θ = -η·Σy over the updates: it is 0 exactly when the
    updates' labels balance, which depends on the order, not on whether a threshold is needed.
    """
    X, y, _ = data.mmds_spam()
    X = add_threshold_feature(X)
    return Counter(float(perceptron(X[list(order)], y[list(order)], eta=eta).w[-1])
                   for order in itertools.permutations(range(len(y))))


# --- MMDS's exercises for §12.2 ----------------------------------------------------------------


def exercise_12_2_1() -> dict[str, PerceptronResult | WinnowResult]:
    """MMDS Exercise 12.2.1: Fig. 12.6 with "nigeria" added to example b (still not spam),
    trained by (a) the perceptron (η = ½), (b) Winnow, (c) the perceptron with a learned
    threshold and (d) Winnow with a learned threshold (MMDS §12.2.4)."""
    X, y, _ = data.mmds_spam()
    X = X.copy()
    X[1, 4] = 1.0  # b = [0, 0, 1, 1, 1]: the, of, nigeria
    return {
        "(a) perceptron": perceptron(X, y, eta=0.5),
        "(b) Winnow": winnow(X, y),
        "(c) perceptron, learned θ": perceptron(add_threshold_feature(X), y, eta=0.5),
        "(d) Winnow, learned θ": winnow(X, y, learn_threshold=True),
    }


def exercise_12_2_2() -> tuple[np.ndarray, np.ndarray]:
    """MMDS Exercise 12.2.2's training set: [1, 2] and [2, 1] positive, [2, 3] and [3, 2]
    negative. X has shape (4, 2), y shape (4,)."""
    return np.array([[1.0, 2.0], [2.0, 1.0], [2.0, 3.0], [3.0, 2.0]]), np.array([1.0, 1, -1, -1])


def exercise_12_2_3(max_epochs: int = 100) -> dict[str, PerceptronResult]:
    """MMDS Exercise 12.2.3: [2, 3] and [2, 1] positive, [1, 2] and [3, 2] negative (an XOR-like
    square), trained (a) through the origin, (b) with a learned threshold and (c) with the
    quadratic feature (x₁ - 2)² added as well. Both classes have the mean [2, 2], so no w and θ can
    put every positive score above every negative one: only (c) converges."""
    X = np.array([[2.0, 3.0], [2.0, 1.0], [1.0, 2.0], [3.0, 2.0]])
    y = np.array([1.0, 1, -1, -1])
    quadratic = np.column_stack([X, (X[:, 0] - 2.0) ** 2])
    return {
        "(a) threshold 0": perceptron(X, y, max_epochs=max_epochs),
        "(b) learned θ": perceptron(add_threshold_feature(X), y, max_epochs=max_epochs),
        "(c) learned θ, with (x₁ - 2)²": perceptron(add_threshold_feature(quadratic), y,
                                              max_epochs=max_epochs),
    }


def threshold_interval(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The thresholds θ for which w·x - θ = 0 separates (X, y): the open interval between the
    largest negative score and the smallest positive score (empty when low >= high)."""
    scores = X @ w
    return float(np.max(scores[y < 0])), float(np.min(scores[y > 0]))


# --- The margin variants (Gupta §2.2.2, Balcan) --------------------------------------------------


def sample_margin(X: np.ndarray, y: np.ndarray) -> float:
    """Gupta's γ(S) = 1/‖w*‖ for the shortest w* with yᵢ(w*·xᵢ) >= 1: the largest margin of a
    separator through the origin. X has shape (n, d), y shape (n,).

    Computed as the hard-margin SVM without an offset (:func:`mllib.demos.svm.origin_solution`).
    """
    return origin_solution(X, y).margin


@dataclass(frozen=True)
class Variant:
    """One row of the margin-variants table.

    Attributes
    ----------
    name : str
    run : PerceptronResult
    bound : float
        The variant's bound on its updates.
    guaranteed : float
        The margin its final hyperplane is guaranteed to have (0: no guarantee).
    margin : float
        The margin it actually has on the sample.
    """

    name: str
    run: PerceptronResult
    bound: float
    guaranteed: float
    margin: float


def margin_variants(X: np.ndarray, y: np.ndarray, margin: float) -> tuple[Variant, ...]:
    """Run the classic, Gupta's and Balcan's perceptron on data X (n, d) inside the unit ball.

    ``margin`` is the γ a unit separator is known to have (Balcan's input, Novikoff's γ).
    Gupta's bound and guarantee use his own γ(S) (:func:`sample_margin`): his rule stops with
    yᵢ(w·xᵢ) >= 1 for every i after k <= 3/γ(S)² updates, each adding at most 3 to ‖w‖², so
    ‖w‖ <= 3/γ(S) and the final margin is at least 1/‖w‖ >= γ(S)/3.
    """
    gamma_s = sample_margin(X, y)
    runs = [
        ("classic (y·w·x ≤ 0)", perceptron(X, y), mistake_bound(1, margin), 0.0),
        ("Gupta (y·w·x < 1)", gupta_perceptron(X, y, max_epochs=1000), gupta_bound(gamma_s),
         gamma_s / 3),
        ("Balcan (margin γ/2)", margin_perceptron(X, y, margin=margin, max_epochs=1000),
         margin_perceptron_bound(1, margin), margin / 2),
    ]
    return tuple(Variant(name, run, bound, guaranteed, geometric_margin(run.w, X, y))
                 for name, run, bound, guaranteed in runs)


def variants_table(variants: tuple[Variant, ...]) -> str:
    """The variants as a Markdown table: updates, bound, guaranteed and actual margin."""
    return markdown_table(
        ["variant", "updates", "bound", "guaranteed margin", "margin of the result"],
        [[v.name, v.run.mistakes, f"{v.bound:.0f}",
          f"{v.guaranteed:.4f}" if v.guaranteed else "none", f"{v.margin:.4f}"]
         for v in variants])
