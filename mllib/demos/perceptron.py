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
from matplotlib.figure import Figure

from mllib import data
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
    draw_hyperplane,
    figure,
    fraction,
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


def show_margin_experiment(margin: float, seed: int = 2) -> Figure:
    """The γ slider's frame: the sample and separators (left); the mistakes against γ averaged
    over :data:`TREND_SEEDS`, next to (R/γ)², with this γ and this sample marked (right)."""
    exp = margin_experiment(margin, seed=seed)
    trend = margin_trend()
    height = 4.6
    fig, (left, right) = figure(2, height=height)
    square_limits(left, 1.05)
    scatter_labelled(left, exp.X, exp.y, size=12)
    draw_hyperplane(left, exp.w_star, color="grey", linestyle="--", label="w* (target)")
    draw_hyperplane(left, exp.run.w, color="black", label="perceptron")
    for offset in (-exp.margin, exp.margin):
        draw_hyperplane(left, exp.w_star, offset=offset, color="grey", linewidth=0.6)
    # The slider's γ is a floor the sample was drawn with; the band and the bound use the
    # margin w* actually has on this sample, which is at least as wide.
    left.set_title(f"slider γ = {margin:.3g}, measured γ = {exp.margin:.3g}, R = {exp.radius:.3f}",
                   fontsize=9)
    legend_below(fig, left, height, ncol=2)
    right.fill_between(trend.margins, trend.mistakes.min(axis=1), trend.mistakes.max(axis=1),
                       color="grey", alpha=0.25, linewidth=0,
                       label=f"range over {len(trend.seeds)} samples")
    right.plot(trend.margins, trend.mean_mistakes, "o-", ms=3, color="black",
               label="mean mistakes")
    right.plot(trend.margins, trend.mean_bounds, color="tab:red", label="mean (R/γ)²")
    right.plot([margin], [exp.run.mistakes], "*", ms=13, color="tab:blue",
               label=f"this sample (seed {seed})")
    right.axvline(margin, color="tab:blue", linewidth=0.8)
    log_axis(right, "x")
    log_axis(right, "y")
    right.set_ylim(bottom=0.5)  # a sample with no mistake still shows on the log axis
    right.set_xlabel("margin γ the samples were drawn with")
    right.set_ylabel("count (log scale)")
    right.set_title(f"this sample: {exp.run.mistakes} mistakes ≤ {exp.bound:.0f}")
    right.legend(loc="upper right", fontsize=7)
    return fig


def show_update(run: PerceptronResult, X: np.ndarray, y: np.ndarray, k: int) -> Figure:
    """The scrubber's frame: the hyperplane after k updates and the example that caused it.

    X has shape (n, 2). k = 0 shows the start (w = 0, no hyperplane yet).
    """
    if not 0 <= k <= run.mistakes:
        raise ValueError(f"k must be between 0 and {run.mistakes}, the number of updates.")
    height = 5.0
    fig, (ax,) = figure(1, width=5.5, height=height)
    half = 1.1 * float(np.max(np.abs(X)))
    square_limits(ax, half)
    scatter_labelled(ax, X, y, size=14)
    if k == 0:
        ax.set_title("start: w = 0, every example is a mistake")
        return fig
    update = run.history[k - 1]
    previous = run.history[k - 2].w if k > 1 else np.zeros_like(update.w)
    draw_hyperplane(ax, previous, color="grey", linestyle="--", label="before")
    draw_hyperplane(ax, update.w, color="black", label="after")
    x = X[update.index]
    ax.scatter(*x, s=160, facecolors="none", edgecolors="red", linewidths=2, label="mistake")
    scale = 0.5 * half / max(np.linalg.norm(update.w), 1e-12)
    ax.arrow(0, 0, *(scale * update.w), width=0.01 * half, color="black")
    ax.set_title(f"update {k} of {run.mistakes} (epoch {update.epoch}, example {update.index})")
    legend_below(fig, ax, height)
    return fig


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
    axes[2].axvline(bound, color="red", linewidth=0.8, label="k = (R/γ)²")
    axes[2].set_title("together: √k γ/R ≤ cos ≤ 1")
    axes[2].set_xscale("log")
    for ax in axes:
        ax.set_xlabel("update k")
        ax.legend(fontsize=8)
    return fig


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


def show_eta(eta: float, start: str = "w₀ = 0") -> Figure:
    """The η slider's frame: the separators of the η = 1 run and the η run from the start
    ``start`` (a key of :data:`ETA_STARTS`) (left); the mistakes against η from each start,
    with this η marked (right)."""
    w0 = ETA_STARTS[start]
    comparison = eta_comparison(eta, w0=w0)
    height = 4.6
    fig, (left, right) = figure(2, height=height)
    square_limits(left, 1.05)
    scatter_labelled(left, comparison.X, comparison.y, size=12)
    draw_hyperplane(left, comparison.w0, color="grey", linestyle=":", label="start w₀")
    draw_hyperplane(left, comparison.base.w, color="black", linewidth=3, label="η = 1")
    draw_hyperplane(left, comparison.scaled.w, color="red", linestyle="--", label=f"η = {eta:.3g}")
    legend_below(fig, left, height)
    left.set_title(f"{start}: {comparison.scaled.mistakes} mistakes with η = {eta:.3g}, "
                   f"{comparison.base.mistakes} with η = 1", fontsize=10)
    for name, colour in zip(ETA_STARTS, ("black", "tab:red"), strict=True):
        right.plot(ETA_GRID, eta_trend(ETA_STARTS[name]), "o-", ms=3, color=colour, label=name)
    right.plot([eta], [comparison.scaled.mistakes], "*", ms=13, color="tab:blue",
               label="this η and start")
    log_axis(right, "x")
    log_axis(right, "y")
    right.set_xlabel("learning rate η")
    right.set_ylabel("mistakes until a clean pass")
    right.set_title(f"‖w_η‖ / ‖w_1‖ = {comparison.scale:.3g}")
    right.legend(fontsize=8)
    return fig


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
    for name, values in (("last w", comparison.last), ("averaged", comparison.averaged),
                         ("voted", comparison.voted)):
        right.plot(comparison.epochs, values, "o-", ms=3, label=name)
    right.set_xlabel("epochs of training")
    right.set_ylabel("training accuracy")
    right.legend(fontsize=8)
    right.set_title("averaging steadies the answer")
    return fig


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
