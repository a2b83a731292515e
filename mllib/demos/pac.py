"""Widgets and tables for the PAC walk-through (lecture 03).

Sources: CS446 slides (seed 001), "Computational Learning Theory" (Occam's razor, the
elimination algorithm, agnostic learning, the VC and lower bounds); Balcan 10-601 (seed 004) for
the online-to-PAC conversion used in the notebook.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from mllib import data, pac, perceptron
from mllib.demos.live import animate, animate_legend, set_view
from mllib.plotting import (
    NEGATIVE,
    PALETTE,
    POSITIVE,
    describe,
    figure,
    log_axis,
    markdown_table,
)

# The target of the simulations: x1 ∧ ¬x2 ∧ x3 over n = 10 variables.
N_VARIABLES = 10
TARGET = pac.make_conjunction(N_VARIABLES, positive=[0, 2], negative=[1])
DISTRIBUTIONS = {
    "uniform bits (p = ½)": np.full(N_VARIABLES, 0.5),
    "irrelevant bits mostly 1 (p = 0.9)": np.array([0.5, 0.5, 0.5] + [0.9] * 7),
}
H_SIZE = pac.conjunction_count(N_VARIABLES) + 1  # the conjunctions and the always-false one
EPS_GRID = np.geomspace(0.005, 0.5, 60)


@dataclass(frozen=True)
class SampleSizes:
    """Occam and agnostic sample sizes over a grid of ε, for one |H| and δ.

    Attributes
    ----------
    eps : ndarray of shape (k,)
    occam, agnostic : ndarray of int, shape (k,)
        :func:`mllib.pac.occam_sample_size` and :func:`mllib.pac.agnostic_sample_size` at each ε.
    """

    eps: np.ndarray
    occam: np.ndarray
    agnostic: np.ndarray


def sample_sizes(h_size, delta: float, eps=EPS_GRID) -> SampleSizes:
    """The two finite-class bounds along a grid of ε (shape (k,))."""
    eps = np.asarray(eps, dtype=float)
    return SampleSizes(eps, np.array([pac.occam_sample_size(h_size, e, delta) for e in eps]),
                       np.array([pac.agnostic_sample_size(h_size, e, delta) for e in eps]))


LOG10_H_GRID = np.linspace(0, 30, 61)


@functools.lru_cache(maxsize=64)
def _curves_in_eps(log10_h: float, delta: float) -> SampleSizes:
    return sample_sizes(10.0**log10_h, delta)


@functools.lru_cache(maxsize=64)
def _curves_in_h(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([pac.occam_sample_size(10.0**k, eps, delta) for k in LOG10_H_GRID]),
            np.array([pac.agnostic_sample_size(10.0**k, eps, delta) for k in LOG10_H_GRID]))


def decades(values) -> tuple[float, float]:
    """The powers of 10 just below and above ``values``' finite positive entries: a log axis's
    view that stays put while the values move within the same decades (so a widget's
    background need not be drawn again)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    low, high = np.floor(np.log10(values.min())), np.ceil(np.log10(values.max()))
    return 10.0**low, 10.0 ** max(high, low + 1)


def nice_ceiling(value: float) -> float:
    """The least of 1, 2, 5, 10, 20, 50, ... that is >= ``value`` (> 0): a linear axis's top
    that stays put while the values move below it."""
    power = 10.0 ** np.floor(np.log10(value))
    return float(next(step * power for step in (1, 2, 5, 10) if step * power >= value))


@dataclass(frozen=True)
class _SampleSizesView:
    """The ε/δ/|H| widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    in_eps: tuple[Line2D, Line2D]
    in_h: tuple[Line2D, Line2D]
    dots: tuple[Line2D, Line2D]
    eps_line: Line2D


# The two bounds' styles: colour and dash, so that colour is not the only cue.
REALIZABLE_STYLE = {"color": POSITIVE, "linestyle": "-"}
AGNOSTIC_STYLE = {"color": NEGATIVE, "linestyle": "--"}


@functools.lru_cache(maxsize=1)
def _sample_sizes_view() -> _SampleSizesView:
    """Build the ε/δ/|H| widget's figure once: the axes, labels and legends stay; the curves,
    the dots, the ε line and the titles move, and the views change by whole decades (left) or
    1-2-5 steps (right)."""
    fig, (left, right) = figure(2, width=5.0, height=3.8)
    in_eps = (left.plot([], [], label="realizable (Occam)", **REALIZABLE_STYLE)[0],
              left.plot([], [], label="agnostic (Hoeffding)", **AGNOSTIC_STYLE)[0])
    log_axis(left, "x")
    log_axis(left, "y")
    left.set_xlim(*_padded_log(EPS_GRID[0], EPS_GRID[-1]))
    dots = (left.plot([], [], "ko", ms=5)[0], right.plot([], [], "ko", ms=5)[0])
    eps_line = left.axvline(EPS_GRID[0], color="grey", linewidth=0.8)
    left.set_xlabel("ε (accuracy)")
    left.set_ylabel("examples m")
    left.legend(loc="upper right", fontsize=8)  # the curves fall to the right: room above
    in_h = (right.plot([], [], label="realizable", **REALIZABLE_STYLE)[0],
            right.plot([], [], label="agnostic", **AGNOSTIC_STYLE)[0])
    right.set_xlim(LOG10_H_GRID[0] - 1.5, LOG10_H_GRID[-1] + 1.5)
    right.set_xlabel("log₁₀|H|")
    right.set_ylabel("examples m")
    right.legend(loc="upper left", fontsize=8)  # the curves rise to the right: room above
    animate(*in_eps, *in_h, *dots, eps_line, left.title, right.title)
    return _SampleSizesView(fig, left, right, in_eps, in_h, dots, eps_line)


def _padded_log(low: float, high: float, pad: float = 0.05) -> tuple[float, float]:
    """A log axis's view from ``low`` to ``high`` with ``pad`` of the span to spare each side
    (matplotlib's default margins)."""
    ratio = (high / low) ** pad
    return low / ratio, high * ratio


def show_sample_sizes(eps: float, delta: float, log10_h: float) -> Figure:
    """The ε/δ/|H| sliders' frame: m against ε (left) and against log₁₀|H| (right), both bounds.

    The realizable (Occam) size grows like 1/ε, the agnostic one like 1/ε²; both grow only with
    ln|H| and ln(1/δ). The figure is built once and redrawn in place: each call returns the same
    Figure.
    """
    h_size = 10.0**log10_h
    curves = _curves_in_eps(log10_h, delta)
    occam, agnostic = (pac.occam_sample_size(h_size, eps, delta),
                       pac.agnostic_sample_size(h_size, eps, delta))
    occam_in_h, agnostic_in_h = _curves_in_h(eps, delta)
    view = _sample_sizes_view()
    view.in_eps[0].set_data(curves.eps, curves.occam)
    view.in_eps[1].set_data(curves.eps, curves.agnostic)
    set_view(view.left, view.left.get_xlim(),
             decades([*curves.occam, *curves.agnostic, occam, agnostic]))
    view.dots[0].set_data(np.array([eps, eps]), np.array([occam, agnostic]))
    view.eps_line.set_xdata([eps, eps])
    view.left.title.set_text(f"|H| = 10^{log10_h:g}, δ = {delta:.3g}")
    view.in_h[0].set_data(LOG10_H_GRID, occam_in_h)
    view.in_h[1].set_data(LOG10_H_GRID, agnostic_in_h)
    set_view(view.right, view.right.get_xlim(), (0.0, nice_ceiling(1.05 * agnostic_in_h.max())))
    view.dots[1].set_data(np.array([log10_h, log10_h]), np.array([occam, agnostic]))
    view.right.title.set_text(f"ε = {eps:.3g}: m = {occam:,} realizable, {agnostic:,} agnostic")
    return describe(view.fig, (
        f"Examples needed with |H| = 10^{log10_h:g} and δ = {delta:.3g}: at ε = {eps:.3g}, "
        f"{occam:,} in the realizable case (Occam) and {agnostic:,} in the agnostic case "
        f"(Hoeffding). Left, against ε from {curves.eps[0]:g} to {curves.eps[-1]:g}: the "
        f"realizable size falls from {curves.occam[0]:,} to {curves.occam[-1]:,} (like 1/ε), "
        f"the agnostic one from {curves.agnostic[0]:,} to {curves.agnostic[-1]:,} (like 1/ε²). "
        f"Right, against log₁₀|H| from 0 to 30: both grow in a straight line, the realizable "
        f"from {occam_in_h[0]:,} to {occam_in_h[-1]:,}, the agnostic from "
        f"{agnostic_in_h[0]:,} to {agnostic_in_h[-1]:,}."))


@dataclass(frozen=True)
class BoundComparison:
    """The |H| bound against the VC bounds for conjunctions over n variables, n = 1..n_max.

    Attributes
    ----------
    n : ndarray of int, shape (k,)
    occam : ndarray of int
        Occam with |H| = 3ⁿ + 1, the conjunctions and the always-false one (natural logs).
    vc_upper : ndarray of int
        Blumer et al. with VC = :func:`conjunction_vc` (base-2 logs).
    vc_lower : ndarray of float
        The lower bound with the same VC: no learner can do with fewer. NaN where VC <= 2, for
        the theorem needs VC > 2.
    """

    n: np.ndarray
    occam: np.ndarray
    vc_upper: np.ndarray
    vc_lower: np.ndarray


def conjunction_vc(n: int) -> int:
    """The VC dimension of the conjunctions over n variables with the always-false one: n, but 2
    at n = 1 (x₁, ¬x₁, true and false shatter {0, 1}). Lecture 04 finds it by brute force."""
    return max(n, 2)


@functools.lru_cache(maxsize=64)
def bound_comparison(eps: float, delta: float, n_max: int = 40) -> BoundComparison:
    """Sample sizes for conjunctions over 1..n_max variables (|H| = 3ⁿ + 1)."""
    n = np.arange(1, n_max + 1)
    vcs = [conjunction_vc(int(k)) for k in n]
    return BoundComparison(
        n,
        np.array([pac.occam_sample_size(pac.conjunction_count(k) + 1, eps, delta) for k in n]),
        np.array([pac.vc_sample_size(d, eps, delta) for d in vcs]),
        np.array([pac.vc_lower_bound(d, eps, delta) if d > 2 else np.nan for d in vcs]),
    )


@dataclass(frozen=True)
class _BoundView:
    """The n/ε/δ widget's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    curves: tuple[Line2D, Line2D, Line2D]
    dots: Line2D


@functools.lru_cache(maxsize=1)
def _bound_view() -> _BoundView:
    """Build the n/ε/δ widget's figure once: the axes, labels and legend stay; the three
    curves, the dots and the title move, and the view changes by whole decades."""
    fig, (ax,) = figure(1, width=6.5, height=3.8)
    curves = (
        ax.plot([], [], color=PALETTE[1], label="VC upper bound (VC = n; 2 at n = 1)")[0],
        ax.plot([], [], color=POSITIVE, linestyle="-.", label="Occam, |H| = 3ⁿ + 1")[0],
        ax.plot([], [], color="grey", linestyle="--",
                label="VC lower-bound formula (a theorem for VC > 2, small ε, δ)")[0])
    dots, = ax.plot([], [], "ko", ms=5)
    log_axis(ax, "y")
    ax.set_xlim(-1, 42)
    ax.set_xlabel("n (variables)")
    ax.set_ylabel("examples m")
    ax.legend(loc="upper left", fontsize=8)  # the curves rise with n: room above at small n
    animate(*curves, dots, ax.title)
    return _BoundView(fig, ax, curves, dots)


def show_bound_comparison(n: int, eps: float, delta: float) -> Figure:
    """The n/ε/δ sliders' frame: three sample sizes for conjunctions against n. The figure is
    built once and redrawn in place: each call returns the same Figure."""
    comparison = bound_comparison(eps, delta)
    view = _bound_view()
    series = (comparison.vc_upper, comparison.occam, comparison.vc_lower)
    for line, values in zip(view.curves, series, strict=True):
        line.set_data(comparison.n, values)
    set_view(view.ax, view.ax.get_xlim(), decades(np.concatenate(series)))
    row = n - 1
    view.dots.set_data([n] * 3, [values[row] for values in series])
    lower = comparison.vc_lower[row]
    lower_text = f"{lower:,.0f}" if np.isfinite(lower) else "none (VC ≤ 2)"
    view.ax.title.set_text(f"n = {n}: VC bound {comparison.vc_upper[row]:,}, |H| bound "
                           f"{comparison.occam[row]:,}, lower-bound formula {lower_text}")
    last = comparison.n[-1]
    return describe(view.fig, (
        f"Examples needed to learn conjunctions over n variables with ε = {eps:.3g}, "
        f"δ = {delta:.3g}. At n = {n}: the VC upper bound {comparison.vc_upper[row]:,}, the |H| "
        f"bound {comparison.occam[row]:,}, the lower-bound formula {lower_text}. "
        f"From n = 1 to {last} "
        f"the VC bound grows from {comparison.vc_upper[0]:,} to {comparison.vc_upper[-1]:,} "
        f"and the |H| bound from {comparison.occam[0]:,} to {comparison.occam[-1]:,}, "
        f"{'always' if np.all(comparison.occam < comparison.vc_upper) else 'not always'} "
        f"below it."))


def elimination_table(result: pac.EliminationResult, y: np.ndarray, names: str) -> str:
    """The elimination algorithm's run as a Markdown table: one row per example.

    Negative examples are listed with "(ignored)". ``names`` labels the rows (e.g. "abcd").
    """
    steps = {step.index: step for step in result.history}
    rows, current = [], "all 2n literals (always false)"
    for i, label in enumerate(y):
        if i in steps:
            current = str(steps[i].hypothesis)
            removed = ", ".join(steps[i].removed) or "nothing"
        else:
            removed = "(ignored: negative)"
        rows.append([names[i], f"{label:+.0f}", removed, current])
    return markdown_table(["example", "y", "literals removed", "hypothesis after"], rows)


# The simulation widget's ε goes down to 0.02; its Occam m (δ = 0.05) is 700. One simulation
# of every m up to 1.3 times that serves every ε and m of the widget: only the threshold ε and
# the row read change when a slider moves.
EPS_MIN = 0.02
SIMULATION_TRIALS = 400
# A learned conjunction implies the target, so its error is at most P[f = 1] = 1/8.
MAX_ERROR = 0.13


def _simulated_sizes(eps: float, delta: float, m: int | None) -> int:
    """The largest m one simulation must cover for these sliders."""
    needed = [pac.occam_sample_size(H_SIZE, min(eps, EPS_MIN), min(delta, 0.05)), 300]
    return max(math.ceil(1.3 * max(needed)), m or 0)


# The simulation widget's m slider ends here (910): past the Occam m of every ε it offers.
SIMULATED_M = _simulated_sizes(EPS_MIN, 0.05, None)


@functools.lru_cache(maxsize=8)
def _simulation(distribution: str, max_m: int, trials: int, seed: int) -> pac.Simulation:
    return pac.simulate(TARGET, DISTRIBUTIONS[distribution], np.arange(1, max_m + 1), eps=0.1,
                        delta=0.05, trials=trials, seed=seed)


def learning_curve(eps: float, delta: float, distribution: str, *, m: int | None = None,
                   trials: int = SIMULATION_TRIALS, seed: int = 3) -> pac.Simulation:
    """Simulate the elimination algorithm on every sample size from 1 to past the Occam m.

    Every m from 1 to 1.3 times the Occam m at ε = 0.02 (and to ``m`` if larger) is simulated,
    once per distribution (cached), so the curve has no grid: the first m where the failure
    rate drops below δ is read off exactly. ε only sets the threshold of the failure rate.
    Trials, target and seed are fixed, so moving a slider redraws the same experiment.
    """
    sim = _simulation(distribution, _simulated_sizes(eps, delta, m), trials, seed)
    return dataclasses.replace(sim, eps=float(eps), delta=float(delta))


def first_reliable_m(sim: pac.Simulation) -> int | None:
    """The smallest simulated m from which on the failure rate stays at or below δ, or None."""
    above = np.flatnonzero(sim.failure_rate > sim.delta)
    if len(above) == len(sim.sample_sizes):
        return None
    return int(sim.sample_sizes[0] if len(above) == 0 else sim.sample_sizes[above[-1] + 1])


# exact_failure's results by (ε, distribution): the longest run of m = 1, 2, ... computed so far.
_exact_failures: dict[tuple[float, str], np.ndarray] = {}


def exact_failure(eps: float, distribution: str, max_m: int) -> np.ndarray:
    """The exact P[error > ε] for m = 1..max_m (:func:`mllib.pac.failure_probability`).

    Cached by (ε, distribution) and extended only by the m's not computed yet: the widget asks
    for the curve and, for the crossing, for its first Occam-m entries. Read-only.
    """
    key = (float(eps), distribution)
    known = _exact_failures.get(key, np.zeros(0))
    if len(known) < max_m:
        more = pac.failure_probability(TARGET, DISTRIBUTIONS[distribution],
                                       np.arange(len(known) + 1, max_m + 1), eps)
        known = np.concatenate([known, more])
        known.flags.writeable = False
        _exact_failures[key] = known
    return known[:max_m]


def exact_reliable_m(eps: float, delta: float, distribution: str) -> int:
    """The smallest m from which on the exact failure probability stays at or below δ.

    Beyond the Occam m the theorem itself keeps it below δ, so searching m = 1..Occam m finds
    the answer for every m, exactly (no trials).
    """
    occam = pac.occam_sample_size(H_SIZE, eps, delta)
    above = np.flatnonzero(exact_failure(eps, distribution, occam) > delta)
    return 1 if len(above) == 0 else int(above[-1]) + 2


@dataclass(frozen=True)
class _SimulationView:
    """The simulation widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    bars: tuple[Rectangle, ...]
    eps_line: Line2D
    curves: tuple[Line2D, Line2D, Line2D]
    delta_line: Line2D
    occam_line: Line2D
    dot: Line2D


ERROR_BINS = np.linspace(0, MAX_ERROR, 27)


@functools.lru_cache(maxsize=1)
def _simulation_view() -> _SimulationView:
    """Build the simulation widget's figure once: the axes, labels and legends stay (their
    entries' numbers change with ε); the bars, lines, dot and titles move. Every distribution's
    simulation is run here, when the cell runs, so that the dropdown switches at once."""
    for name in DISTRIBUTIONS:
        learning_curve(EPS_MIN, 0.05, name)
    fig, (left, right) = figure(2, width=5.0, height=4.9)
    fig.subplots_adjust(bottom=1.4 / 4.9)  # room below the panels for the right one's legend
    bars = tuple(left.bar(ERROR_BINS[:-1], np.zeros(len(ERROR_BINS) - 1),
                          width=np.diff(ERROR_BINS), align="edge", color=POSITIVE))
    left.set_xlim(0, MAX_ERROR)
    eps_line = left.axvline(0, color="black", linestyle="--", label="ε")
    left.set_xlabel("true error of the learned conjunction")
    left_legend = left.legend(fontsize=8)
    curves = (right.plot([], [], color=POSITIVE, label="trials")[0],
              right.plot([], [], color="black", linestyle=":", label="exact")[0],
              right.plot([], [], color=PALETTE[1], linestyle="-.",
                         label="|H|(1 − ε)^m (capped at 1)")[0])
    delta_line = right.axhline(0, color="black", linewidth=0.8, label="δ")
    occam_line = right.axvline(1, color="grey", linestyle="--", label="Occam m")
    dot, = right.plot([], [], "ko", ms=6)
    log_axis(right, "x")
    right.set_ylim(-0.03, 1.08)
    right.set_xlabel("examples m")
    right.set_ylabel("probability")
    right_legend = right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize=7,
                                ncol=2)
    animate(*bars, eps_line, *curves, delta_line, occam_line, dot, left.title, right.title)
    # Their entries' numbers change with ε: redrawn with every frame, not with the background.
    animate_legend(left_legend)
    animate_legend(right_legend)
    return _SimulationView(fig, left, right, bars, eps_line, curves, delta_line, occam_line,
                           dot)


def _set_legend_texts(ax: Axes, texts: list[str]) -> None:
    """Rename ``ax``'s legend entries."""
    for entry, text in zip(ax.get_legend().get_texts(), texts, strict=True):
        entry.set_text(text)


def show_simulation(m: int, eps: float, distribution: str, delta: float = 0.05) -> Figure:
    """The simulation widget's frame.

    Left: the exact true errors of the T learned conjunctions at sample size m, with ε marked;
    the axis stops at ``MAX_ERROR``, above every error a learned conjunction can have. Right:
    the empirical P[error > ε] against m, next to δ and the union bound |H|(1 - ε)^m; the dashed
    line is the Occam m, where the Occam bound first promises failure at most δ. The union bound
    itself reaches δ earlier (at ε = 0.1: m = 133 against 140), because the Occam bound replaces
    -ln(1 - ε) by the smaller ε. The right panel's
    legend sits below the axes, clear of the curves. The figure is built once and redrawn in
    place: each call returns the same Figure.
    """
    view = _simulation_view()
    sim = learning_curve(eps, delta, distribution, m=m)
    row = int(np.flatnonzero(sim.sample_sizes == m)[0])
    counts, _ = np.histogram(sim.exact_errors[row], bins=ERROR_BINS)
    for bar, count in zip(view.bars, counts, strict=True):
        bar.set_height(count)
    # One height for every distribution at this m: switching them keeps the background.
    tallest = max(np.histogram(learning_curve(eps, delta, name, m=m).exact_errors[row],
                               bins=ERROR_BINS)[0].max() for name in DISTRIBUTIONS)
    set_view(view.left, (0, MAX_ERROR), (0, nice_ceiling(1.05 * tallest)))
    view.eps_line.set_xdata([eps, eps])
    if view.left.get_ylabel() != f"trials (of {sim.trials})":  # set_ylabel redraws all
        view.left.set_ylabel(f"trials (of {sim.trials})")
    rate = sim.failure_rate[row]
    view.left.title.set_text(f"m = {m}: P̂[error > ε] = {rate:.3f} (δ = {delta:g})")
    shown = sim.sample_sizes <= max(1.3 * sim.occam_m, 300)
    sizes = sim.sample_sizes[shown]
    exact = exact_failure(float(eps), distribution, int(sizes.max()))
    for line, values in zip(view.curves, (sim.failure_rate[shown], exact,
                                          np.minimum(sim.failure_bound[shown], 1.05)),
                            strict=True):
        line.set_data(sizes, values)
    # Every ε of the slider shares one m axis, up to the longest simulation: moving ε moves
    # the curves along a fixed scale (and keeps the background).
    longest = learning_curve(EPS_MIN, 0.05, distribution).sample_sizes.max()
    set_view(view.right, _padded_log(1, max(longest, sizes.max())), (-0.03, 1.08))
    view.delta_line.set_ydata([delta, delta])
    view.occam_line.set_xdata([sim.occam_m, sim.occam_m])
    view.dot.set_data([m], [rate])
    view.right.title.set_text(distribution)
    reliable, exact_m = first_reliable_m(sim), exact_reliable_m(eps, delta, distribution)
    _set_legend_texts(view.left, [f"ε = {eps:g}"])
    _set_legend_texts(view.right, [
        f"{sim.trials} trials: P̂[error > ε] (≤ δ from m = {reliable})",
        f"exact P[error > ε] (≤ δ from m = {exact_m})", "|H|(1 − ε)^m (capped at 1)",
        f"δ = {delta:g}", f"Occam m = {sim.occam_m}"])
    above = int(np.sum(sim.exact_errors[row] > eps))
    union_m = int(sim.sample_sizes[np.argmax(sim.failure_bound <= delta)])
    return describe(view.fig, (
        f"Left: the true errors of {sim.trials} conjunctions learned from m = {m} examples "
        f"({distribution}); {above} of them exceed ε = {eps:g}, a rate of {rate:.3f} against "
        f"δ = {delta:g}. Right: that rate against m falls to δ or below from m = {reliable} "
        f"on (exactly: from m = {exact_m}), while the union bound |H|(1 − ε)^m reaches δ at "
        f"m = {union_m}; the Occam bound, which replaces −ln(1 − ε) by the smaller ε, asks for "
        f"{sim.occam_m}."))


def simulation_table(sim: pac.Simulation, sizes=None) -> str:
    """Markdown: m, the empirical failure rate with its Hoeffding margin, δ and the union bound,
    one row for each m in ``sizes`` (default: every simulated m)."""
    picked = sim.sample_sizes if sizes is None else np.asarray(sizes)
    index = np.searchsorted(sim.sample_sizes, picked)
    if np.any(index >= len(sim.sample_sizes)) or np.any(sim.sample_sizes[index] != picked):
        raise ValueError("sizes: every m must be one of the simulated sample sizes.")
    rows = [[m, f"{rate:.3f}", f"{min(1.0, rate + sim.margin(0.05)):.3f}", f"{sim.delta:g}",
             f"{bound:.3g}"]
            for m, rate, bound in zip(picked, sim.failure_rate[index], sim.failure_bound[index],
                                      strict=True)]
    return markdown_table(["m", "P̂[error > ε]", "per-m 95% upper limit", "δ",
                           "|H|(1 − ε)^m (capped at 1)"], rows)


# --- The size of a class (§3) -------------------------------------------------------------------


def class_size_table(classes, eps: float, delta: float) -> str:
    """Markdown: each class's ln|H| and Occam m; ``classes`` are (name, exact |H|) pairs.

    ln|H| is ``math.log`` of the exact integer, which Python computes for any size (it never
    converts 2^(2^20) to a float), so the column agrees with the m column digit for digit.
    """
    rows = [[name, f"{math.log(size):,.1f}", f"{pac.occam_sample_size(size, eps, delta):,}"]
            for name, size in classes]
    return markdown_table(["class H", "ln|H|", "Occam m"], rows)


# --- From a mistake bound to a PAC guarantee (§6) -------------------------------------------------


@dataclass(frozen=True)
class OnlineToPacDemo:
    """The online-to-PAC conversion on one stream, judged on an independent test sample.

    Attributes
    ----------
    X, y : ndarray of shape (m, 2) and (m,)
        The training stream.
    X_test, y_test : ndarray of shape (t, 2) and (t,)
        Fresh examples from the same distribution: rows of the same draw that the training
        stream never sees.
    bound : float
        M = (R/γ)² for the training stream.
    picked : mllib.pac.OnlineToPac
    test_errors : ndarray of shape (k,)
        The test error of every hypothesis the perceptron went through (w = 0 first).
    picked_error : float
        The test error of the picked hypothesis.
    """

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    bound: float
    picked: pac.OnlineToPac
    test_errors: np.ndarray
    picked_error: float


def online_to_pac_demo(*, train: int = 230_000, test: int = 50_000, margin: float = 0.03,
                       eps: float = 0.05, delta: float = 0.05, seed: int = 5) -> OnlineToPacDemo:
    """Draw train + test examples in one go (one w*), convert on the first ``train`` rows and
    measure every hypothesis on the last ``test`` rows, which the conversion never reads."""
    X_all, y_all, w_star = data.separable(train + test, 2, margin=margin, seed=seed)
    X, y, X_test, y_test = X_all[:train], y_all[:train], X_all[train:], y_all[train:]
    bound = perceptron.mistake_bound(perceptron.radius(X),
                                     perceptron.geometric_margin(w_star, X, y))
    picked = pac.online_to_pac(X, y, mistake_bound=bound, eps=eps, delta=delta)
    run = perceptron.perceptron(X[:picked.sample_size], y[:picked.sample_size], max_epochs=1)
    weights = [np.zeros(2)] + [u.w for u in run.history]
    errors = np.array([np.mean(perceptron.predict(w, X_test) != y_test) for w in weights])
    return OnlineToPacDemo(X, y, X_test, y_test, bound, picked, errors,
                           float(np.mean(perceptron.predict(picked.w, X_test) != y_test)))
