"""Widgets, figures and tables for the walk-through "Online learning II" (lecture 12).

Sources: CS446 (linear threshold functions, Winnow and its extensions, the thick separator),
Gupta §3 (experts; algorithms of Littlestone and Warmuth 1994), Balcan §1.2 (TD_γ bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mllib import online
from mllib import perceptron as P
from mllib.data import noisy
from mllib.demos.live import animate, set_view
from mllib.plotting import PALETTE, describe, figure, markdown_table

# --- Threshold functions ---------------------------------------------------------------------


def truth_table(columns: dict[str, tuple[list[float], float]], n: int) -> str:
    """A Markdown truth table over all 2ⁿ inputs, one column per named threshold function
    (weights, θ), each output 1 when w·x >= θ (CS446)."""
    X = online.boolean_inputs(n)
    outputs = [online.threshold_function(w, theta, X) for w, theta in columns.values()]
    header = [f"x{j + 1}" for j in range(n)] + list(columns)
    rows = [[*x.astype(int), *(out[i] for out in outputs)] for i, x in enumerate(X)]
    return markdown_table(header, rows)


def xor_search_table(max_weights=(1, 2, 3, 4)) -> str:
    """For OR, AND and XOR on two inputs: integer weights w₁, w₂ and threshold θ, all in
    [−m, m], found by brute force, per range m."""
    X = online.boolean_inputs(2)
    targets = {"OR": [0, 1, 1, 1], "AND": [0, 0, 0, 1], "XOR": [0, 1, 1, 0]}
    rows = []
    for name, labels in targets.items():
        cells = []
        for m in max_weights:
            found = online.find_threshold_weights(X, labels, max_weight=m)
            cells.append("none" if found is None else
                         f"w = {found[0].astype(int).tolist()}, θ = {found[1]}")
        rows.append([name, *cells])
    return markdown_table(["target", *(f"w₁, w₂, θ in [−{m}, {m}]" for m in max_weights)], rows)


# --- Winnow against the perceptron -----------------------------------------------------------


@dataclass(frozen=True)
class Scaling:
    """Mistakes to convergence as the number of variables n grows, for a fixed k-disjunction.

    Attributes
    ----------
    ns : ndarray of shape (m,)
    winnow, perceptron : ndarray of shape (m,)
        Mean mistakes over the trials.
    k : int
    winnow_se, perceptron_se : ndarray of shape (m,)
        The standard errors of those means, s/√trials.
    """

    ns: np.ndarray
    winnow: np.ndarray
    perceptron: np.ndarray
    k: int
    winnow_se: np.ndarray
    perceptron_se: np.ndarray

    def winnow_increments(self) -> np.ndarray:
        """Winnow's extra mistakes per step of ``ns`` (per doubling of n): shape (m - 1,)."""
        return np.diff(self.winnow)

    def winnow_increments_se(self) -> np.ndarray:
        """Standard errors of :meth:`winnow_increments`: the samples at different n are drawn
        independently, so the variances add. Shape (m - 1,)."""
        return np.hypot(self.winnow_se[1:], self.winnow_se[:-1])

    def perceptron_ratios(self) -> np.ndarray:
        """The perceptron's mistakes at each n over those at the previous n: shape (m - 1,)."""
        return self.perceptron[1:] / self.perceptron[:-1]

    def perceptron_ratios_se(self) -> np.ndarray:
        """Standard errors of :meth:`perceptron_ratios` to first order (the delta method): the
        ratio times the root sum of the squared relative errors. Shape (m - 1,)."""
        relative = self.perceptron_se / self.perceptron
        return self.perceptron_ratios() * np.hypot(relative[1:], relative[:-1])


def sparse_disjunction(n: int, k: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """m random examples over n variables labelled by the disjunction of the first k. The
    irrelevant variables are on with probability ½; each relevant one with probability
    1 - 2^(-1/k), so that half of the examples are negative whatever k."""
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < 0.5).astype(float)
    X[:, :k] = rng.random((m, k)) < 1 - 0.5 ** (1 / k)  # P(no relevant variable on) = ½
    return X, np.where(X[:, :k].any(axis=1), 1.0, -1.0)


@lru_cache(maxsize=2)
def winnow_vs_perceptron(ns=(8, 16, 32, 64, 128, 256), k: int = 2, m: int = 400,
                         trials: int = 20) -> Scaling:
    """Run Winnow (θ = n) and the perceptron with a learned threshold (MMDS §12.2.4) on the
    same samples until a clean pass; average the mistakes over ``trials`` seeds."""
    winnow, perceptron = np.zeros((len(ns), trials)), np.zeros((len(ns), trials))
    for i, n in enumerate(ns):
        for seed in range(trials):
            X, y = sparse_disjunction(n, k, m, seed)
            winnow[i, seed] = P.winnow(X, y, max_epochs=200).mistakes
            perceptron[i, seed] = P.perceptron(P.add_threshold_feature(X), y,
                                               max_epochs=200).mistakes
    se = np.sqrt(trials)
    return Scaling(np.array(ns), winnow.mean(axis=1), perceptron.mean(axis=1), k,
                   winnow.std(axis=1, ddof=1) / se, perceptron.std(axis=1, ddof=1) / se)


def show_scaling(result: Scaling) -> Figure:
    """Mistakes against n on a log-2 axis: Winnow's grow like log n, the perceptron's like n."""
    fig, (ax,) = figure(1, width=6, height=3.8)
    ax.plot(result.ns, result.perceptron, "s-", color=PALETTE[1], label="perceptron")
    ax.plot(result.ns, result.winnow, "o-", color=PALETTE[0], label="Winnow")
    bound = [online.winnow_bound(result.k, n) for n in result.ns]
    ax.plot(result.ns, bound, ":", color=PALETTE[0], label="Winnow's bound 3k(⌊log₂ n⌋+1)+1")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="number of variables n", ylabel="mistakes until a clean pass",
           title=f"a {result.k}-disjunction among n variables")
    ax.legend(fontsize=8)
    return describe(fig, f"Mean mistakes until a clean pass against the number of variables n "
                         f"from {result.ns[0]} to {result.ns[-1]} (log scale), for a "
                         f"{result.k}-disjunction: Winnow's grow from {result.winnow[0]:.1f} to "
                         f"{result.winnow[-1]:.1f}, under its bound ({bound[0]} to {bound[-1]}); "
                         f"the perceptron's from {result.perceptron[0]:.1f} to "
                         f"{result.perceptron[-1]:.1f}.")


def extensions_table(seed: int = 4) -> str:
    """Which member of the Winnow family learns which target (mistakes, and whether it reached a
    clean pass within 50 epochs): monotone x1 ∨ x2, non-monotone x1 ∨ ¬x2, and x1 ∧ ¬x2."""
    rng = np.random.default_rng(seed)
    X = (rng.random((300, 8)) < 0.5).astype(float)
    targets = {
        "x1 ∨ x2": (X[:, 0] == 1) | (X[:, 1] == 1),
        "x1 ∨ ¬x2": (X[:, 0] == 1) | (X[:, 1] == 0),
        "x1 ∧ ¬x2": (X[:, 0] == 1) & (X[:, 1] == 0),
    }
    learners = {
        "Winnow": lambda y: P.winnow(X, y, max_epochs=50),
        "Winnow with elimination": lambda y: online.winnow_elimination(X, y, max_epochs=50),
        "Winnow on [x, 1 − x]": lambda y: online.winnow_duplicated(X, y, max_epochs=50),
        "Balanced Winnow": lambda y: online.balanced_winnow(X, y, max_epochs=50),
    }
    rows = []
    for name, learn in learners.items():
        cells = []
        for target in targets.values():
            result = learn(np.where(target, 1.0, -1.0))
            cells.append(f"{result.mistakes} {'✓' if result.converged else '✗ (not learned)'}")
        rows.append([name, *cells])
    # the ✗ are general (representability, §3), the mistake counts are one draw
    return markdown_table([f"learner: mistakes on this sample (seed {seed})", *targets], rows)


# --- A shifting target -----------------------------------------------------------------------


SHIFT_TARGETS = ((0, 1), (4, 5), (6, 7), (8, 9), (2, 3))  # x1 ∨ x2, x5 ∨ x6, …, then x3 ∨ x4


@dataclass(frozen=True)
class Shift:
    """Cumulative mistakes of Winnow and Winnow-R on a stream whose target changes.

    Attributes
    ----------
    winnow, winnow_r : ndarray of shape (T,)
        Cumulative mistakes after each example.
    shifts : tuple of int
        The examples at which a new target starts.
    lowest_weight : float
        Plain Winnow's weight of x3 just before x3 joins the target.
    """

    winnow: np.ndarray
    winnow_r: np.ndarray
    shifts: tuple[int, ...]
    lowest_weight: float

    def per_target(self) -> tuple[np.ndarray, np.ndarray]:
        """Mistakes of (Winnow, Winnow-R) on each target in turn, shape (targets,) each."""
        ends = [*self.shifts, len(self.winnow)]
        return tuple(np.diff(np.r_[0, run[np.array(ends) - 1]])
                     for run in (self.winnow, self.winnow_r))

    def after_last_shift(self) -> tuple[int, int]:
        """Mistakes of (Winnow, Winnow-R) from the last shift on."""
        at = self.shifts[-1]
        return (int(self.winnow[-1] - self.winnow[at - 1]),
                int(self.winnow_r[-1] - self.winnow_r[at - 1]))


def shifting_target(n: int = 32, per_target: int = 1500, seed: int = 0) -> Shift:
    """A stream of ``per_target`` examples for each target of :data:`SHIFT_TARGETS` in turn
    (each shift removes two variables and adds two: cost 2 per shift on CS446's scale, see
    :func:`adversary_cost`). Until the last target,
    x3 and x4 are on only in negative examples (each with probability 0.7), so every false
    positive of plain Winnow halves their weights again; Winnow-R stops them at ½."""
    rng = np.random.default_rng(seed)
    X = (rng.random((per_target * len(SHIFT_TARGETS), n)) < 0.5).astype(float)
    late = list(SHIFT_TARGETS[-1])
    positive = np.zeros(len(X), dtype=bool)
    for k, target in enumerate(SHIFT_TARGETS):
        rows = slice(k * per_target, (k + 1) * per_target)
        positive[rows] = X[rows][:, list(target)].any(axis=1)
        if k < len(SHIFT_TARGETS) - 1:
            X[rows, late[0]] = X[rows, late[1]] = 0.0
            X[rows, late[0]] = np.where(positive[rows], 0.0, rng.random(per_target) < 0.7)
            X[rows, late[1]] = np.where(positive[rows], 0.0, rng.random(per_target) < 0.7)
    y = np.where(positive, 1.0, -1.0)
    plain, robust = online.winnow_stream(X, y), online.winnow_r(X, y)
    mistakes = [np.cumsum([not v.correct for v in run.history]) for run in (plain, robust)]
    shifts = tuple(k * per_target for k in range(1, len(SHIFT_TARGETS)))
    return Shift(mistakes[0], mistakes[1], shifts, float(plain.history[shifts[-1] - 1].w[2]))


def adversary_cost(targets=SHIFT_TARGETS) -> int:
    """The cost c of an adversary that moves through ``targets`` (tuples of variables), starting
    from the empty disjunction: CS446 ("Winnow - a robust variation") charges 1 for each
    variable added and nothing for a removal."""
    cost, current = 0, set()
    for target in targets:
        cost += len(set(target) - current)
        current = set(target)
    return cost


def show_shift(shift: Shift) -> Figure:
    """Cumulative mistakes of Winnow and Winnow-R, with each shift of the target marked."""
    fig, (ax,) = figure(1, width=7.0, height=3.8)
    t = np.arange(1, len(shift.winnow) + 1)
    ax.plot(t, shift.winnow, color=PALETTE[1], label="Winnow")
    ax.plot(t, shift.winnow_r, color=PALETTE[0], linestyle="--", label="Winnow-R (weights >= ½)")
    names = [" ∨ ".join(f"x{j + 1}" for j in target) for target in SHIFT_TARGETS]
    for at in shift.shifts:
        ax.axvline(at, color="grey", linestyle=":", linewidth=0.8)
    top = max(shift.winnow[-1], shift.winnow_r[-1])
    for start, name in zip((0, *shift.shifts), names, strict=True):
        ax.text(start + 60, top * 1.02, name, fontsize=8, va="bottom")
    ax.set(xlabel="examples seen", ylabel="cumulative mistakes", ylim=(0, top * 1.12),
           title="a target that shifts four times (CS446's Winnow-R)")
    ax.legend(fontsize=8, loc="center left")
    plain, robust = shift.after_last_shift()
    return describe(fig, f"Cumulative mistakes of Winnow and Winnow-R over {len(t)} examples "
                         f"whose target shifts {len(shift.shifts)} times ({' then '.join(names)}): "
                         f"Winnow ends at {shift.winnow[-1]}, Winnow-R at {shift.winnow_r[-1]}; "
                         f"on the last target Winnow makes {plain} mistakes, Winnow-R {robust}.")


# --- Experts ---------------------------------------------------------------------------------


N_EXPERTS = 16


def expert_error_rates(noise: float, n_experts: int = N_EXPERTS) -> np.ndarray:
    """Expert j errs with probability noise + (½ - noise)·j/(N - 1): the best expert in
    expectation (j = 0) at rate ``noise``, the others evenly up to a coin flip (½). With noise 0
    expert 0 never errs (another may, by luck, err in no round of a run). noise in [0, ½]."""
    return noise + (0.5 - noise) * np.arange(n_experts) / (n_experts - 1)


@lru_cache(maxsize=16)
def experts_problem(noise: float, *, n_experts: int = N_EXPERTS, rounds: int = 300, seed: int = 7
                    ) -> tuple[np.ndarray, np.ndarray]:
    """N experts predicting ±1 outcomes, expert j wrong independently in each round with
    probability :func:`expert_error_rates` (noise)[j]. Returns predictions (rounds, N) and
    outcomes (rounds,), read-only."""
    rng = np.random.default_rng(seed)
    outcomes = rng.choice([-1.0, 1.0], rounds)
    wrong = rng.random((rounds, n_experts)) < expert_error_rates(noise, n_experts)
    predictions = np.where(wrong, -outcomes[:, None], outcomes[:, None])
    predictions.setflags(write=False)
    return predictions, outcomes


@dataclass(frozen=True)
class ExpertsFrame:
    """What :func:`show_experts` draws, for tests.

    Attributes
    ----------
    curves : dict of str to ndarray of shape (T,)
        Cumulative mistakes (expected ones for the randomised learner) by label.
    bounds : dict of str to float
        The horizontal bound lines drawn, by label; a bound is drawn only where it applies.
    eliminated_at : int or None
        β = 0 only: the round after which no expert is left (halving then predicts +1 on the
        0-0 tie), or None.
    """

    curves: dict[str, np.ndarray]
    bounds: dict[str, float]
    eliminated_at: int | None


@lru_cache(maxsize=64)  # a slider moved back and forth redraws without rerunning the learners
def experts_frame(beta: float, noise: float) -> ExpertsFrame:
    """The curves and bounds of the experts widget: the best expert; halving (β = 0) or
    deterministic weighted majority with its bound; for β > 0 randomised weighted majority's
    expected mistakes with its bound; for β = 0 the halving bound log₂ N when an expert is
    perfect, else the round at which every expert has been eliminated."""
    predictions, outcomes = experts_problem(noise)
    n = predictions.shape[1]
    wm = online.weighted_majority(predictions, outcomes, beta=beta)
    best, m = int(np.argmin(wm.expert_mistakes)), int(wm.expert_mistakes.min())
    learner = np.cumsum([r.prediction != r.outcome for r in wm.history])
    curves = {f"best expert (#{best}, {m} mistakes)": np.cumsum(predictions[:, best] !=
                                                                outcomes)}
    bounds, eliminated_at = {}, None
    if beta == 0:
        curves["halving (β = 0)"] = learner
        if m == 0:
            bounds[f"halving bound log₂{n} = {online.halving_bound(n):.0f}"] = \
                online.halving_bound(n)
        else:
            eliminated_at = next(r.t for r in wm.history if not np.any(r.weights))
    else:
        curves[f"weighted majority (β = {beta:g})"] = learner
        rwm = online.randomized_weighted_majority(predictions, outcomes, beta=beta)
        curves["randomised WM (expected)"] = np.cumsum([r.p_wrong for r in rwm.history])
        wm_bound = online.weighted_majority_bound(m, n, beta)
        rwm_bound = online.randomized_weighted_majority_bound(m, n, beta)
        bounds[f"WM bound {wm_bound:.1f}"] = wm_bound
        bounds[f"randomised WM bound {rwm_bound:.1f}"] = rwm_bound
    return ExpertsFrame(curves, bounds, eliminated_at)


def experts_scale(frame: ExpertsFrame) -> float:
    """The top of the experts figure's mistakes axis: the largest curve or bound drawn, leaving
    out bounds above the number of rounds (vacuous for this run, and marked off scale)."""
    rounds = len(next(iter(frame.curves.values())))
    return float(max([curve.max() for curve in frame.curves.values()]
                     + [bound for bound in frame.bounds.values() if bound <= rounds]))


EXPERTS_LEGEND_INCHES = 2.6  # a column right of the experts widget's axes for its legend
CURVE_STYLES = ((PALETTE[4], "-"), (PALETTE[0], "-"), (PALETTE[2], "--"))  # best, WM, RWM
BOUND_COLOURS = (PALETTE[0], PALETTE[2])  # WM's (or halving's), randomised WM's
HIDDEN = "_hidden"  # the label of a line a frame does not use (legends leave out "_" labels)


@dataclass(frozen=True)
class _ExpertsView:
    """The experts widget's figure and the lines each frame updates in place: up to three
    curves, two bounds and the round at which every expert is eliminated."""

    fig: Figure
    ax: Axes
    curves: tuple[Line2D, ...]
    bounds: tuple[Line2D, ...]
    eliminated: Line2D


@lru_cache(maxsize=1)
def _experts_view() -> _ExpertsView:
    """Build the experts figure once. The lines and the title change in place; a new y-range
    or new legend labels (their numbers change with the sliders) redraw the whole figure."""
    rounds = len(experts_problem(0.0)[1])
    t = np.arange(1, rounds + 1)
    width = 9.6
    fig, (ax,) = figure(1, width=width, height=3.8)
    fig.subplots_adjust(right=1 - EXPERTS_LEGEND_INCHES / width)  # the legend, inside the canvas
    curves = tuple(ax.plot(t, np.zeros(rounds), color=colour, linestyle=style)[0]
                   for colour, style in CURVE_STYLES)
    ax.set_xlim(ax.get_xlim())  # the rounds' range, whatever the other lines
    bounds = tuple(ax.axhline(0, color=colour, linestyle=":") for colour in BOUND_COLOURS)
    eliminated = ax.axvline(0, color=PALETTE[1], linestyle=":")
    ax.set(xlabel="round", ylabel="cumulative mistakes")
    animate(*curves, *bounds, eliminated, ax.title)
    return _ExpertsView(fig, ax, curves, bounds, eliminated)


def _show_line(line: Line2D, label: str | None, **data) -> None:
    """Show ``line`` with ``label`` and the data given (``xdata`` or ``ydata``), or, when
    ``label`` is None, hide it with zeros for that data (the state it was built in, so that a
    frame holds the same artists whatever the frames before it)."""
    line.set_visible(label is not None)
    line.set_label(HIDDEN if label is None else label)
    line.set(**data)


def show_experts(beta: float, noise: float) -> Figure:
    """Cumulative mistakes of the best expert and the learners, with the bounds that apply.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    frame = experts_frame(beta, noise)
    rounds = len(next(iter(frame.curves.values())))
    top = 1.08 * experts_scale(frame)
    view = _experts_view()
    curves, bounds = list(frame.curves.items()), list(frame.bounds.items())
    for k, line in enumerate(view.curves):
        label, curve = curves[k] if k < len(curves) else (None, np.zeros(rounds))
        _show_line(line, label, ydata=curve)
    for k, line in enumerate(view.bounds):
        label, bound = bounds[k] if k < len(bounds) else (None, 0.0)
        if label is not None and bound > top:  # a bound above the rounds is vacuous here
            label += f"\n(off scale: > {rounds} rounds)"
        _show_line(line, label, ydata=[bound, bound])
    at = frame.eliminated_at
    _show_line(view.eliminated, None if at is None else
               f"no perfect expert: all {N_EXPERTS}\neliminated by round {at}",
               xdata=[at or 0, at or 0])
    set_view(view.ax, view.ax.get_xlim(), (0, top))
    view.ax.title.set_text(f"{N_EXPERTS} experts, β = {beta:g}, expert 0's error rate "
                           f"{noise:g}")
    _update_legend(view.ax)
    return describe(view.fig, _experts_alt(frame, beta, noise, top))


def _update_legend(ax: Axes) -> None:
    """Give ``ax`` a legend of its visible lines beside the axes, made anew only when their
    labels changed (a new legend redraws the whole figure)."""
    labels = [line.get_label() for line in ax.get_lines() if line.get_visible()]
    legend = ax.get_legend()
    if legend is None or [text.get_text() for text in legend.get_texts()] != labels:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))


def _experts_alt(frame: ExpertsFrame, beta: float, noise: float, top: float) -> str:
    """The experts frame in words: every curve's final count, the bounds (those above ``top``,
    the axis's end, are off scale) and the elimination."""
    rounds = len(next(iter(frame.curves.values())))
    ends = "; ".join(f"{label.split(' (')[0]} {curve[-1]:.0f}"
                     for label, curve in frame.curves.items())
    text = (f"Cumulative mistakes over {rounds} rounds of the best of {N_EXPERTS} experts and of "
            f"the learners, β = {beta:g}, expert 0's error rate {noise:g}. After {rounds} "
            f"rounds: {ends}.")
    if frame.bounds:
        text += " Bounds: " + ", ".join(label + (f" (above {rounds}, off scale)"
                                                 if bound > top else "")
                                        for label, bound in frame.bounds.items()) + "."
    if frame.eliminated_at is not None:
        text += f" Every expert is eliminated by round {frame.eliminated_at}."
    return text


def best_epsilon(best_mistakes: int, n_experts: int = N_EXPERTS) -> tuple[float, float]:
    """Where randomised weighted majority's bound (m·ln(1/β) + ln N)/(1 - β) is smallest, over
    ε = 1 - β on a grid of step 10⁻⁴ in (0, 1), and the small-ε form's minimiser √(2 ln N/m)
    (which minimises (1 + ε/2)·m + ln N/ε). Returns (ε exact, ε small-ε form)."""
    eps = np.arange(1, 10_000) / 10_000
    bounds = [online.randomized_weighted_majority_bound(best_mistakes, n_experts, 1 - e)
              for e in eps]
    return float(eps[int(np.argmin(bounds))]), float(np.sqrt(2 * np.log(n_experts)
                                                             / best_mistakes))


def randomized_bound_table(best_mistakes: int, betas=(0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999),
                           n_experts: int = N_EXPERTS) -> str:
    """Randomised weighted majority's bound (m·ln(1/β) + ln N)/(1 - β) against β = 1 - ε, next
    to its small-ε form (1 + ε/2)·m + ln N/ε."""
    rows = []
    for beta in betas:
        eps = 1 - beta
        exact = online.randomized_weighted_majority_bound(best_mistakes, n_experts, beta)
        rows.append([f"{beta:g}", f"{exact:.1f}",
                     f"{(1 + eps / 2) * best_mistakes + np.log(n_experts) / eps:.1f}"])
    return markdown_table(["β", "bound on expected mistakes", "(1 + ε/2)m + ln N/ε"], rows)


# --- Representation (CS446 "Importance of representation") ----------------------------------

# A set-cover instance: 10 elements, 8 sets; the smallest cover has 3 sets (numbers 0, 3, 5).
COVER_SETS = ((0, 1, 2, 3), (3, 4, 5), (5, 6, 7), (7, 8, 9, 0), (1, 4, 7), (4, 5, 6, 8),
              (9, 2, 1), (2, 6))
COVER_ELEMENTS = 10


@dataclass(frozen=True)
class Representation:
    """The set-cover sample learned two ways.

    Attributes
    ----------
    smallest : tuple of int
        The smallest consistent disjunction's variables (a minimum set cover).
    subsets_tried : int
        Subsets the exhaustive search tried before finding it.
    winnow : WinnowResult
        Winnow on the same sample: a consistent threshold function, found online.
    """

    smallest: tuple[int, ...]
    subsets_tried: int
    winnow: P.WinnowResult


def representation_demo() -> Representation:
    """Minimum consistent disjunction by exhaustive search against Winnow, on
    :func:`mllib.online.set_cover_sample` (COVER_SETS)."""
    X, y = online.set_cover_sample(COVER_SETS, COVER_ELEMENTS)
    smallest, tried = online.minimum_consistent_disjunction(X, y)
    return Representation(smallest, tried, P.winnow(X, y))


@dataclass(frozen=True)
class DNF:
    """(x₁ ∧ x₂) ∨ (x₃ ∧ x₄) over {0, 1}⁴: no threshold function, a threshold over products.

    Attributes
    ----------
    labels : ndarray of shape (16,)
    search : tuple or None
        Integer weights in [-3, 3] found by brute force (None).
    certificate_rows : tuple of int
        The four inputs whose inequalities add up to 0 <= -4.
    certified : bool
        Whether those rows are a Farkas certificate.
    on_products : tuple
        (w, θ) found over the two features x₁x₂ and x₃x₄.
    """

    labels: np.ndarray
    search: tuple | None
    certificate_rows: tuple[int, ...]
    certified: bool
    on_products: tuple


def dnf_example() -> DNF:
    """Prove (x₁ ∧ x₂) ∨ (x₃ ∧ x₄) is not a threshold function: the positives 1100 and 0011 and
    the negatives 1010 and 0101 have the same sum (1, 1, 1, 1), so adding their four LP
    inequalities gives 0 <= -4 (multipliers 1 on those rows). Over the products x₁x₂ and x₃x₄
    it is the disjunction z₁ ∨ z₂."""
    X = online.boolean_inputs(4)
    labels = ((X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3]) > 0).astype(int)
    A, b = online.threshold_lp(X, labels)
    rows = tuple(int(np.flatnonzero((X == pattern).all(axis=1))[0])
                 for pattern in ([1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]))
    multipliers = np.zeros(len(X))
    multipliers[list(rows)] = 1.0
    Z = np.column_stack([X[:, 0] * X[:, 1], X[:, 2] * X[:, 3]])
    return DNF(labels, online.find_threshold_weights(X, labels, max_weight=3), rows,
               online.farkas_certificate(A, b, multipliers),
               online.find_threshold_weights(Z, labels, max_weight=1))


# --- Balcan's bound --------------------------------------------------------------------------


def balcan_table(flips=(0.0, 0.02, 0.05, 0.1, 0.2), gamma: float = 0.1, n: int = 200,
                 seed: int = 1) -> str:
    """The perceptron's mistakes in one pass over noisy data against (R/γ)² + 2·TD_γ/γ, with w*
    the clean labels' separator (the bound holds for every unit w* and γ)."""
    rows = []
    for flip in flips:
        X, y, w_star = noisy(n, 2, margin=gamma, flip=flip, seed=seed)
        mistakes = P.perceptron(X, y, max_epochs=1).mistakes
        td = online.total_margin_deficit(w_star, X, y, gamma)
        bound = online.balcan_nonseparable_bound(P.radius(X), gamma, td)
        rows.append([f"{flip:.0%}", mistakes, f"{td:.2f}", f"{bound:.1f}"])
    return markdown_table(["labels flipped", "perceptron mistakes (1 pass)", "TD_γ",
                           "(R/γ)² + 2·TD_γ/γ"], rows)


# --- Which algorithm to choose (CS446, after Kivinen and Warmuth 1995) -----------------------


def kivinen_warmuth_examples(d: int = 100, m: int = 200, seed: int = 12
                             ) -> dict[str, tuple[float, float]]:
    """M_w and M_p (:func:`mllib.online.kivinen_warmuth_bounds`) on two samples of m examples
    over d features, labelled by their target with margin 1 on every example:

    * a sparse target among dense examples: x ∈ {-1, +1}^d, u = e₁, y = x₁
      (M_w = 2 ln d, M_p = d);
    * a dense target among sparse examples: x = ±e_j (one active feature), u = (1, …, 1),
      y = the sign of x's entry (M_w = 2 d² ln d, M_p = d).
    """
    rng = np.random.default_rng(seed)
    dense_X = rng.choice([-1.0, 1.0], (m, d))
    sparse_target = np.zeros(d)
    sparse_target[0] = 1.0
    signs = rng.choice([-1.0, 1.0], m)
    sparse_X = np.zeros((m, d))
    sparse_X[np.arange(m), rng.integers(0, d, m)] = signs
    return {
        "sparse target, dense examples":
            online.kivinen_warmuth_bounds(sparse_target, dense_X, dense_X[:, 0]),
        "dense target, sparse examples":
            online.kivinen_warmuth_bounds(np.ones(d), sparse_X, signs),
    }


def kivinen_warmuth_table(d: int = 100) -> str:
    """:func:`kivinen_warmuth_examples` as a Markdown table."""
    rows = [[name, f"{winnow:.4g}", f"{perceptron:.4g}",
             "multiplicative" if winnow < perceptron else "additive"]
            for name, (winnow, perceptron) in kivinen_warmuth_examples(d).items()]
    return markdown_table(["data (d = " + str(d) + ")", "M_w (multiplicative)",
                           "M_p (additive)", "smaller bound"], rows)
