"""Widgets, tables and figures for the EM walk-through (lecture 05, the three coins).

Source: CS446 slides (seed 001), "Lecture 10: EM": scenarios I-III, the E-step P₁ⁱ, the M-step,
Jensen's lower bound, and the advice to restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib import colormaps as plt_colormaps
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.text import Annotation

from mllib import em
from mllib.demos import explore, grading, with_first_frame
from mllib.demos.live import animate, set_view
from mllib.plotting import PALETTE, describe, figure, markdown_table

# CS446 "Estimation Problems". In scenario II the first toss is coin 0's.
SCENARIO_I = "HHTH"
SCENARIO_II = ("HHHHT", "THTHT", "HHHHT", "HHTTH")
SCENARIO_III = ("HHHT", "HTHT", "HHHT", "HTTH")
MAX_STEPS = 60


def e_step_table(sequences, tosses: int, step: em.EMStep) -> str:
    """The E-step at ``step``'s parameters as a Markdown table, one row per sequence.

    Columns: the sequence, its heads h, α p^h (1-p)^(m-h), (1-α) q^h (1-q)^(m-h), and P₁ⁱ, their
    share. ``sequences`` are H/T strings or head counts.
    """
    heads, m = em.as_heads(list(sequences), tosses)
    labels = list(sequences) if isinstance(sequences[0], str) else [""] * len(heads)
    coin1 = step.alpha * step.p**heads * (1 - step.p) ** (m - heads)
    coin2 = (1 - step.alpha) * step.q**heads * (1 - step.q) ** (m - heads)
    header = ["i", "sequence", "h", "α p^h (1-p)^(m-h)", "(1-α) q^h (1-q)^(m-h)", "P₁ⁱ"]
    rows = [[i + 1, label, h, f"{a:.5f}", f"{b:.5f}", f"{step.posterior[h]:.4f}"]
            for i, (label, h, a, b) in enumerate(zip(labels, heads, coin1, coin2, strict=True))]
    return markdown_table(header, rows)


def iteration_table(run: em.ThreeCoinsResult, *, first: int = 8) -> str:
    """The run's history as a Markdown table: iteration, α, p, q (6 decimals) and LL (8), for
    the start, the first ``first`` updates and the last one (a "…" row marks the gap).

    Once EM has settled, later rows would repeat the same digits; the last row shows where the
    run stopped.
    """
    def row(s: em.EMStep) -> list:
        return [s.iteration, f"{s.alpha:.6f}", f"{s.p:.6f}", f"{s.q:.6f}", f"{s.loglik:.8f}"]

    rows = [row(s) for s in run.history[: first + 1]]
    if run.iterations > first:
        if run.iterations > first + 1:
            rows.append(["…", "", "", "", ""])
        rows.append(row(run.history[-1]))
    return markdown_table(["iteration", "α", "p", "q", "LL"], rows)


def three_groups(seed: int = 0) -> tuple[np.ndarray, int]:
    """Head counts of 120 sequences of 20 tosses from three equal groups of coins, with biases
    0.05, 0.5 and 0.95: data that two coins cannot fit in one obvious way."""
    m = 20
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.binomial(m, bias, 40) for bias in (0.05, 0.5, 0.95)]), m


def textbook_em(heads, tosses: int, alpha: float, p: float, q: float, updates: int) -> np.ndarray:
    """The E- and M-step formulas exactly as written (CS446 "EM Algorithm (Coins) - I" and
    "(Cont.)"), with no special case for p = q: (α, p, q) after 0..``updates`` updates, shape
    (updates + 1, 3).

    :func:`mllib.em.three_coins` treats an exact tie p = q exactly; this loop shows what plain
    floating point does from there (the computed P₁ⁱ equal α only to rounding).
    """
    h, m = em.as_heads(heads, tosses)
    path = [(alpha, p, q)]
    for _ in range(updates):
        coin1 = alpha * p**h * (1 - p) ** (m - h)
        coin2 = (1 - alpha) * q**h * (1 - q) ** (m - h)
        P1 = coin1 / (coin1 + coin2)
        alpha, p, q = P1.mean(), P1 @ (h / m) / P1.sum(), (1 - P1) @ (h / m) / (1 - P1).sum()
        path.append((alpha, p, q))
    return np.array(path, dtype=float)


def split_growth(heads, tosses: int, alpha: float, updates: int = 5,
                 split: float = 1e-10) -> np.ndarray:
    """How much :func:`textbook_em` multiplies a small split p - q by at each update, shape
    (updates,), from (α, p̄ + split/2, p̄ - split/2) with p̄ the overall frequency of heads.

    The split is far above rounding (≈ 1e-16) and far below where the map stops being linear,
    so the factors do not depend on the machine's last bits: they are the growth rate that any
    rounding asymmetry off the diagonal meets (below 1 where p = q is a maximum).
    """
    h, m = em.as_heads(heads, tosses)
    centre = h.mean() / m
    path = textbook_em(h, m, alpha, centre + split / 2, centre - split / 2, updates)
    gap = path[:, 1] - path[:, 2]
    return gap[1:] / gap[:-1]


def mixture_loglik(heads, tosses: int, weights, biases) -> float:
    """LL of a mixture of k coins: Σᵢ log Σⱼ wⱼ bⱼ^hᵢ (1-bⱼ)^(m-hᵢ), for weights and biases of
    shape (k,) with 0 < bⱼ < 1 (the three-coin model is k = 2)."""
    h, m = em.as_heads(heads, tosses)
    w, b = np.asarray(weights, dtype=float), np.asarray(biases, dtype=float)
    per_coin = np.log(w) + h[:, None] * np.log(b) + (m - h[:, None]) * np.log1p(-b)
    return float(np.logaddexp.reduce(per_coin, axis=1).sum())


def loglik_slice(heads: np.ndarray, m: int, alpha: float, grid: np.ndarray) -> np.ndarray:
    """LL(α, p, q) for every (p, q) of the grid, shape (len(grid), len(grid)), indexed [q, p]."""
    counts = np.bincount(heads, minlength=m + 1)
    h = np.arange(m + 1)
    per_bias = h[:, None] * np.log(grid) + (m - h[:, None]) * np.log1p(-grid)  # (m+1, g)
    with np.errstate(divide="ignore"):  # α = 0 or 1 when one coin has taken all the data
        mixture = np.logaddexp(np.log(alpha) + per_bias[:, None, :],
                               np.log1p(-alpha) + per_bias[:, :, None])  # (m+1, q, p)
    return np.tensordot(counts, mixture, axes=1)


def grid_maximum(heads, tosses: int, grid: np.ndarray) -> float:
    """The largest LL(α, p, q) over every α, p and q of ``grid`` (values in (0, 1), shape
    (g,)): a global search, unlike EM, for data small enough to afford g³ evaluations."""
    h, m = em.as_heads(heads, tosses)
    return float(max(loglik_slice(h, m, alpha, grid).max() for alpha in grid))


SLICE_GRID = np.linspace(0.005, 0.995, 120)  # the (p, q) grid of the LL pictures


def _slice_levels(drop: np.ndarray) -> np.ndarray:
    """The colour levels for a slice of LL minus its largest value: 14 levels spaced
    geometrically from 0.5 nats below the top to the slice's lowest value, then 0."""
    return np.append(-np.geomspace(0.5, max(-drop.min(), 1.0), 14)[::-1], 0.0)


def _slice_image(ax: Axes, drop: np.ndarray, levels: np.ndarray) -> AxesImage:
    """LL minus its largest value on the (p, q) square as an image in bands at ``levels`` (0 at
    the top; anything lower than the lowest level in its colour), with a colour bar, the
    dotted diagonal p = q, and the square's limits and labels."""
    colours = plt_colormaps["Blues"].with_extremes(under=plt_colormaps["Blues"](0.0))
    step = (SLICE_GRID[1] - SLICE_GRID[0]) / 2
    extent = (SLICE_GRID[0] - step, SLICE_GRID[-1] + step) * 2
    image = ax.imshow(drop, cmap=colours, norm=BoundaryNorm(levels, colours.N), origin="lower",
                      extent=extent, interpolation="nearest")
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, ticks=np.append(levels[:-1:3], 0.0))
    bar.ax.yaxis.set_major_formatter("{x:.3g}" if levels[0] > -100 else "{x:.0f}")
    bar.set_label("LL − its largest value on this slice (nats)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])  # fewer labels to draw than the default six
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_aspect("equal")
    ax.set_xlabel("p (coin 1)")
    ax.set_ylabel("q (coin 2)")
    return image


def _slice_drop(heads: np.ndarray, m: int, alpha: float) -> np.ndarray:
    """LL(α, p, q) minus its largest value over the grid, indexed [q, p].

    Renaming the coins maps (α, p, q) to (1 - α, q, p), so the slice at α is the mirror image of
    the slice at 1 - α: only the slice α = 1/2 is symmetric about the diagonal.
    """
    surface = loglik_slice(heads, m, alpha, SLICE_GRID)
    return surface - surface.max()


def _contours(ax: Axes, heads: np.ndarray, m: int, alpha: float) -> None:
    """LL over the (p, q) square at a fixed α, in bands of LL minus its largest value on the
    slice (0 at the top), with a colour bar and the dotted diagonal p = q."""
    drop = _slice_drop(heads, m, alpha)
    _slice_image(ax, drop, _slice_levels(drop))
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")


MIN_LL_SPAN = 1.0  # nats: a flat stretch (EM at a fixed point) is drawn flat, not magnified


def _visible_range(trace: np.ndarray) -> tuple[float, float]:
    """The LL range to draw: everything, unless the first update's jump is more than ten times
    all later progress, in which case the range from update 1 on (with a margin), so that the
    later climb stays visible. Never narrower than :data:`MIN_LL_SPAN`."""
    later = trace[1:]
    if len(later) < 2 or (trace[1] - trace[0]) <= 10 * (later.max() - later.min()):
        low, high = trace.min(), trace.max()
    else:
        low, high = later.min(), later.max()
    pad = max(0.05 * (high - low), (MIN_LL_SPAN - (high - low)) / 2)
    return low - pad, high + pad


def _room_for_the_colour_bar(fig: Figure) -> None:
    """Widen the margins of a two-panel :func:`mllib.plotting.figure` for five-digit LL ticks
    on the left and the colour bar's ticks and label on the right, and leave room below for a
    legend under the right panel: a widget's PNG is drawn at the figure's size, uncropped."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=1.2 / width, right=1 - 1.0 / width, bottom=1.0 / height)


# The LL panel is scaled to the run up to the first of these that holds the steps shown (the
# start alone, then the first 5 updates, ...), so a step within a block moves only the curve.
BLOCKS = (0, 5, 10, 20, 40, MAX_STEPS)


@dataclass(frozen=True)
class _StepperView:
    """The EM stepper's figure for one data set and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    trace: Line2D
    below: Annotation
    surface: AxesImage
    path: Line2D
    start: Line2D


@lru_cache(maxsize=2)
def _stepper_view(heads: tuple[int, ...], m: int) -> _StepperView:
    """Build the stepper's figure once per data set: the axes, the colour bar (its bands fixed
    by the slice at α = 1/2), and the legend under the right panel, so that it never hides the
    start; the LL trace, the slice, the path and the titles move with the controls."""
    fig, (left, right) = figure(2, width=5.0, height=4.4)
    _room_for_the_colour_bar(fig)
    trace, = left.plot([], [], "o-", ms=4, color="black")
    below = left.annotate("", xy=(0, 0), xytext=(0.5, 0.04), textcoords="axes fraction",
                          fontsize=8, ha="center", arrowprops={"arrowstyle": "->",
                                                               "color": "grey"})
    left.ticklabel_format(axis="y", useOffset=False)
    left.set_autoscaley_on(False)
    left.set_xlabel("EM update")
    left.set_ylabel("log-likelihood LL")
    drop = _slice_drop(np.array(heads), m, 0.5)
    surface = _slice_image(right, drop, _slice_levels(drop))
    diagonal, = right.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
    path, = right.plot([], [], "o-", ms=3, color=PALETTE[1], label="EM path")
    start, = right.plot([], [], "s", color=PALETTE[1], ms=7, label="start")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, ncols=2)
    # The LL axis is drawn with the trace on every frame (see :func:`_set_ll_range`).
    _drawn_every_frame(left.yaxis)
    animate(trace, below, left.yaxis, left.title, surface, diagonal, path, start, right.title)
    return _StepperView(fig, left, right, trace, below, surface, path, start)


def _drawn_every_frame(axis, ticks: int = 16) -> None:
    """Keep an animated ``axis`` from marking its figure stale when it is drawn.

    Drawing an axis places its ticks, tick labels and label, and each of them reports the change
    to the axes directly (not through the axis), which would have the next frame draw the whole
    background again for nothing: the axis is drawn over the background on every frame anyway.
    The pool of ``ticks`` ticks is made now, more than any view here needs, so that no tick is
    made (and reports) later.
    """
    for tick in axis.get_major_ticks(ticks):
        for artist in (tick, tick.tick1line, tick.tick2line, tick.gridline, tick.label1,
                       tick.label2):
            artist.stale_callback = None
    axis.label.stale_callback = None
    axis.offsetText.stale_callback = None


def _set_ll_range(ax: Axes, low: float, top: float) -> None:
    """Set the LL panel's y limits without marking the figure stale.

    A new start changes the LL range, and ``set_ylim`` would have the whole figure, colour bar
    and all, drawn again for it. Only the y axis and the animated artists of the panel depend
    on these limits, and the y axis is animated (:func:`_stepper_view`): all are drawn on every
    frame, so setting the view box itself is enough.
    """
    ax.viewLim.intervaly = (low, top)


@lru_cache(maxsize=256)
def _em_block(heads: tuple[int, ...], m: int, alpha: float, p: float, q: float,
              block: int) -> em.ThreeCoinsResult:
    """``block`` EM updates from (α, p, q) (cached: a frame shows a prefix of the run)."""
    return em.three_coins(np.array(heads), m, alpha=alpha, p=p, q=q, iterations=block, tol=0)


@lru_cache(maxsize=256)
def _cached_drop(heads: tuple[int, ...], m: int, alpha: float) -> np.ndarray:
    """:func:`_slice_drop` cached by α (each EM update moves α, so each frame needs one)."""
    return _slice_drop(np.array(heads), m, alpha)


def show_em_run(heads, tosses: int, alpha: float, p: float, q: float, steps: int) -> Figure:
    """The stepper's frame: ``steps`` EM updates from (α, p, q).

    Left: LL after each update, which never goes down beyond rounding, scaled to the run up to
    the first of :data:`BLOCKS` that holds ``steps`` updates, so that a step within it moves
    only the curve (when the first update's jump would flatten the rest, the axis starts at
    update 1 and an arrow points to the start). Right: the path of (p, q) over LL at the current α,
    in bands with a colour bar; the dotted diagonal p = q is the symmetric trap. The legend
    sits under the right panel, so it never hides the start.

    The figure is built once per data set and redrawn in place: each call returns the same
    Figure.
    """
    heads, m = em.as_heads(heads, tosses)
    key = tuple(int(h) for h in heads)
    block = next(b for b in BLOCKS if b >= steps) if steps <= MAX_STEPS else steps
    run = _em_block(key, m, alpha, p, q, block)
    shown = run.history[: steps + 1]
    now = shown[-1]
    view = _stepper_view(key, m)
    whole = np.array([s.loglik for s in run.history])
    trace = whole[: len(shown)]
    view.trace.set_data(np.arange(len(trace)), trace)
    low, top = _visible_range(whole)
    set_view(view.left, (-0.5, max(block, 5) + 0.5), view.left.get_ylim())
    _set_ll_range(view.left, low, top)
    off_scale = low > trace[0]  # the first jump would flatten the rest: the start is below
    view.below.set_visible(off_scale)
    view.below.set_text(f"start: LL = {trace[0]:.1f} (below)" if off_scale else "")
    view.below.xy = (0, low)
    view.left.title.set_text(f"LL = {now.loglik:.3f} after {steps} update(s)")
    view.surface.set_data(_cached_drop(key, m, now.alpha))
    view.path.set_data([s.p for s in shown], [s.q for s in shown])
    view.start.set_data([shown[0].p], [shown[0].q])
    view.right.title.set_text(f"α = {now.alpha:.3f}, p = {now.p:.3f}, q = {now.q:.3f}")
    trap = " on the diagonal p = q, the symmetric trap" if now.p == now.q else ""
    climb = (f"LL rises from {trace[0]:.1f} to {now.loglik:.1f} over {steps} update(s) and "
             "never goes down (beyond rounding)" if steps
             else f"the start's LL = {trace[0]:.1f}, before any update")
    return describe(view.fig, (
        f"EM on {len(heads)} sequences of {m} tosses from α = {alpha:.2f}, p = {p:.2f}, "
        f"q = {q:.2f}. Left: {climb}. Right: the path of (p, q) ends at α = {now.alpha:.3f}, "
        f"p = {now.p:.3f}, q = {now.q:.3f}{trap}, drawn over LL at that α."))


def em_stepper(heads, tosses: int, *, alpha: float = 0.5, p: float = 0.6, q: float = 0.4):
    """Sliders for the initial α, p and q, an "EM steps" slider and a Step button that adds one
    update, all redrawing :func:`show_em_run`.

    Returns the widget box, or a static Figure while nbgrader executes the notebook (no button:
    nobody could press it).
    """
    import ipywidgets

    def slider(value, label):
        return ipywidgets.FloatSlider(value=value, min=0.01, max=0.99, step=0.01,
                                      description=label, continuous_update=False,
                                      style={"description_width": "initial"})

    steps = ipywidgets.IntSlider(value=0, min=0, max=MAX_STEPS, description="EM steps",
                                 continuous_update=False)
    view = explore(show_em_run, heads=ipywidgets.fixed(heads), tosses=ipywidgets.fixed(tosses),
                   alpha=slider(alpha, "initial α"), p=slider(p, "initial p"),
                   q=slider(q, "initial q"), steps=steps)
    if grading():
        return view
    button = ipywidgets.Button(description="Step", tooltip="one more EM update")

    def step_once(_button) -> None:
        steps.value = min(steps.value + 1, steps.max)

    button.on_click(step_once)

    class Stepper(ipywidgets.VBox):
        """The button over the sliders and frame; shown headless (nbconvert, the site) as the
        first frame with its alt text, as :func:`mllib.demos.explore`'s box is."""

        def _repr_mimebundle_(self, **kwargs) -> tuple[dict, dict]:
            return with_first_frame(super()._repr_mimebundle_(**kwargs), view.result)

    return Stepper([button, view])


@dataclass(frozen=True)
class Landscape:
    """Where EM ends from many random starts.

    Attributes
    ----------
    runs : tuple of ThreeCoinsResult
    finals : ndarray of shape (count, 4)
        α, p, q, LL at the end of each run, named so that p >= q (the label swap undone).
    maxima : ndarray of shape (k, 4)
        The distinct end points (rounded to 3 decimals), best first.
    visits : ndarray of shape (k,)
        How many runs ended at each of them.
    """

    runs: tuple[em.ThreeCoinsResult, ...]
    finals: np.ndarray
    maxima: np.ndarray
    visits: np.ndarray


def restart_landscape(heads, tosses: int, *, count: int = 60, seed: int = 1) -> Landscape:
    """Run EM from ``count`` random starts to convergence and group the end points."""
    runs = em.restarts(heads, tosses, count=count, seed=seed, iterations=3000, tol=1e-10)
    finals = np.array([(r.alpha, r.p, r.q, r.loglik) if r.p >= r.q
                       else (1 - r.alpha, r.q, r.p, r.loglik) for r in runs])
    maxima, visits = np.unique(np.round(finals, 3), axis=0, return_counts=True)
    best_first = np.argsort(-maxima[:, 3], kind="stable")
    return Landscape(runs, finals, maxima[best_first], visits[best_first])


def show_restarts(heads, tosses: int, landscape: Landscape) -> Figure:
    """Left: the LL reached by each run, sorted: the steps are the local maxima. Right: every
    start (grey) joined to its end (red), over LL at the best α (colour bar on the right), with
    the coins named so that each end has p >= q (the label swap undone)."""
    heads, m = em.as_heads(heads, tosses)
    fig, (ranked, paths) = figure(2, width=4.8, height=4.0)  # the contours (and bar) last
    _contours(paths, heads, m, landscape.maxima[0, 0])
    for run, (_, p_end, q_end, _) in zip(landscape.runs, landscape.finals, strict=True):
        start, end = run.history[0], run.history[-1]
        # A run whose ends were renamed (coins swapped so that p >= q) has its start renamed
        # too, so that each segment joins a start to its own end.
        p_start, q_start = (start.p, start.q) if end.p >= end.q else (start.q, start.p)
        paths.plot([p_start, p_end], [q_start, q_end], color="grey", linewidth=0.5)
        paths.plot(p_start, q_start, ".", color="grey", ms=4)
        paths.plot(p_end, q_end, "o", color=PALETTE[1], ms=5)
    paths.set_title(f"{len(landscape.runs)} starts, {len(landscape.maxima)} distinct ends\n"
                    f"(contours at the best α = {landscape.maxima[0, 0]:.3f})", fontsize=10)
    ordered = np.sort(landscape.finals[:, 3])[::-1]
    ranked.plot(np.arange(1, len(ordered) + 1), ordered, "o", ms=4, color=PALETTE[1])
    ranked.set_xlabel("run (sorted by final LL)")
    ranked.set_ylabel("final log-likelihood")
    ranked.set_title("the local maxima EM reaches")
    best, worst = landscape.maxima[0], landscape.maxima[-1]
    return describe(fig, (
        f"EM from {len(landscape.runs)} random starts ends at {len(landscape.maxima)} distinct "
        f"points. Left: the final LL of each run, sorted, in steps: {landscape.visits[0]} runs "
        f"reach the best, LL = {best[3]:.1f} at α = {best[0]:.3f}, p = {best[1]:.3f}, "
        f"q = {best[2]:.3f}; the lowest end has LL = {worst[3]:.1f}. Right: each start (grey "
        f"dot) joined to its end (vermillion circle) over LL at the best α, with the coins "
        "named so that p ≥ q."))


@dataclass(frozen=True)
class JensenCurves:
    """LL and its Jensen lower bound along p, with α and q held at the start.

    Attributes
    ----------
    grid : ndarray of shape (g,)
        Values of p.
    loglik, bound : ndarray of shape (g,)
        LL(α₀, p, q₀) and the bound B(α₀, p, q₀) built from the E-step at (α₀, p₀, q₀).
    p_old : float
        p₀, where the bound touches LL.
    p_new : float
        The M-step's p̃, where the bound peaks.
    """

    grid: np.ndarray
    loglik: np.ndarray
    bound: np.ndarray
    p_old: float
    p_new: float


def jensen_curves(heads, tosses: int, alpha: float, p: float, q: float) -> JensenCurves:
    """Evaluate LL and the lower bound of :func:`mllib.em.lower_bound` along p."""
    heads, m = em.as_heads(heads, tosses)
    posterior = em.e_step(heads, m, alpha, p, q)
    grid = np.linspace(0.01, 0.99, 197)
    loglik = np.array([em.log_likelihood(heads, m, alpha, x, q) for x in grid])
    bound = np.array([em.lower_bound(heads, m, alpha, x, q, posterior=posterior) for x in grid])
    return JensenCurves(grid, loglik, bound, float(p), em.m_step(heads, m, posterior)[1])


def show_jensen(curves: JensenCurves) -> Figure:
    """LL (black) and the bound (blue) against p: they touch at p₀; the M-step jumps to the
    bound's peak p̃, where LL is at least as high as the bound, hence at least LL(p₀)."""
    fig, (ax,) = figure(1, width=6.0, height=4.0)
    ax.plot(curves.grid, curves.loglik, color="black", label="LL(p)")
    ax.plot(curves.grid, curves.bound, color=PALETTE[0], linestyle="-.",
            label="Jensen bound B(p)")
    low = np.interp(curves.p_old, curves.grid, curves.loglik)
    ax.axvline(curves.p_old, color="grey", linestyle=":", label="p₀ (bound touches LL)")
    ax.axvline(curves.p_new, color=PALETTE[1], linestyle="--", label="p̃ (M-step: bound's peak)")
    top = max(curves.loglik.max(), curves.bound.max())
    ax.set_ylim(low - 2 * (top - low) - 1, top + 0.1 * (top - low) + 0.5)
    ax.set_xlabel("p (α and q held at the start)")
    ax.set_ylabel("log-likelihood")
    ax.legend(fontsize=8, loc="lower center")
    ax.set_title("EM maximizes a lower bound that touches LL")
    high = np.interp(curves.p_new, curves.grid, curves.loglik)
    return describe(fig, (
        f"LL (solid) and its Jensen lower bound (dash-dotted) against p from "
        f"{curves.grid[0]:.2f} to {curves.grid[-1]:.2f}, α and q held at the start. The bound "
        f"stays below LL and touches it at p₀ = {curves.p_old:.2f}, where LL = {low:.1f}; it "
        f"peaks at the M-step's p̃ = {curves.p_new:.3f}, where LL = {high:.1f}, higher than at "
        "p₀."))


def dispersion(heads, tosses: int) -> tuple[float, float]:
    """(observed, one-coin) variance of the head counts: the variance of hᵢ (divided by n) and
    m·p̄(1 - p̄), what one coin with the overall frequency p̄ would give.

    This is a second-order test at the diagonal. Observed below one-coin (under-dispersed data,
    CS446's scenario III): no *small* split raises LL, so p = q = p̄ is a local maximum, but not
    necessarily the global one (98 sequences of 20 tosses with 10 heads and one each with 0
    and 20 give (2.0, 5.0), yet α = 0.99, p = 0.5, q = 1e-9 beats one coin). Observed above: a
    small split raises LL, and p = q = p̄ is a saddle point.
    """
    heads, m = em.as_heads(heads, tosses)
    mean = heads.mean() / m
    return float(heads.var()), float(m * mean * (1 - mean))
