"""Widgets, figures and tables for the SVM walk-through (lecture 02).

Sources: MMDS §12.3 (Examples 12.8-12.9, Figs. 12.16-12.20), CS578 L2 (C = 100 ... 0.01, support
vectors and LOOCV <= #SV/n), CS446 (SGD for SVM, Pegasos).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mllib import data, svm
from mllib.demos.live import animate, set_view
from mllib.plotting import (
    PALETTE,
    counted,
    describe,
    draw_hyperplane,
    figure,
    hyperplane_points,
    log_axis,
    markdown_table,
    mean_and_se,
    scatter_labelled,
)
from mllib.validation import as_data

# The setting of MMDS Example 12.9.
BOOK_C, BOOK_ETA, BOOK_W0, BOOK_B0 = 0.1, 0.2, (0.0, 1.0), -2.0
# CS578 L2's sequence of C values.
CS578_C = (100.0, 10.0, 1.0, 0.1, 0.01)

# What is wrong with a point (its slack, a bad point's cross): a palette colour no class uses.
SLACK_COLOUR = PALETTE[3]

# The lines every view of a solution shows: w·x + b = o for o in BAND, the separator and both
# margin lines, so that a crossed bad point or a slack segment always has its band edge drawn.
BAND = (-1.0, 0.0, 1.0)

# Room under the axes for the x label and a legend below it (inches), see :func:`legend_below`.
BELOW = 1.3


def legend_below(fig: Figure, ax: Axes, height: float, *, ncol: int = 3) -> None:
    """Move ``ax``'s legend under its x label, off the data, and inside the canvas (a widget's
    PNG is not cropped to what is drawn). ``height`` is the figure's height in inches; the
    figure's bottom margin becomes :data:`BELOW` inches."""
    fig.subplots_adjust(bottom=BELOW / height)
    axes_height = height * (fig.subplotpars.top - fig.subplotpars.bottom)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.5 / axes_height), ncol=ncol,
              fontsize=7)


def _number(value: float) -> str:
    """A table entry to 3 decimals, as MMDS prints Fig. 12.20 (no '-0.000')."""
    return f"{value + 0.0:.3f}" if round(value, 3) != 0 else "0.000"


def _short(values) -> str:
    """Numbers to 3 significant digits, with rounding noise such as -1.3e-16 shown as 0."""
    return ", ".join(f"{round(float(v), 9) + 0.0:.3g}" for v in values)


def descent_table(run: svm.DescentResult) -> str:
    """MMDS Fig. 12.20 as a Markdown table, one row per point of the run, from its history.

    Row (k) shows w and b after k - 1 updates, the bad-point pattern there and the derivatives
    of eq. 12.6 that the next update uses, to 3 decimals.
    """
    d = len(run.w)
    names = ["u", "v"] if d == 2 else [f"w{j + 1}" for j in range(d)]
    header = ["", f"w = [{', '.join(names)}]", "b", "bad", *(f"∂/∂{n}" for n in [*names, "b"])]
    rows = [
        [f"({step.iteration + 1})", "[" + ", ".join(_number(v) for v in step.w) + "]",
         _number(step.b), step.pattern, *(_number(g) for g in step.gradient)]
        for step in run.history
    ]
    return markdown_table(header, rows)


@functools.lru_cache(maxsize=64)
def book_run(iterations: int = 5, eta: float = BOOK_ETA) -> svm.DescentResult:
    """MMDS Example 12.9: C = 0.1, from w = [0, 1], b = -2, with step ``eta`` (the book's 0.2)."""
    X, y = svm.mmds_fig_12_18()
    return svm.gradient_descent(X, y, C=BOOK_C, eta=eta, w0=BOOK_W0, b0=BOOK_B0,
                                iterations=iterations)


# --- Drawing a separator ---------------------------------------------------------------------


def _frame(ax: Axes, X: np.ndarray, pad: float = 0.6, w=None, b: float = 0.0) -> None:
    """Set ``ax``'s limits to :func:`_view`'s."""
    xlim, ylim = _view(ax, X, pad, w, b)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)


def _view(ax: Axes, X: np.ndarray, pad: float = 0.6, w=None,
          b: float = 0.0) -> tuple[tuple[float, float], tuple[float, float]]:
    """The limits (xlim, ylim) of a view of the data X, shape (n, 2), with ``pad`` to spare on
    every side, that also shows the separator w·x + b = 0 and both margin lines w·x + b = ±1
    (a small C or a wild descent step can put them far from the data): each line's point
    nearest the data's centre is brought into view. The shorter side is then widened, about
    the same centre, to the shape of ``ax``'s box, so that an equal-aspect panel fills its box
    instead of shrinking to a sliver."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    if w is not None and np.any(w):
        centre = (lo + hi) / 2
        for offset in BAND:
            nearest = centre - (centre @ w + b - offset) / (w @ w) * w
            lo, hi = np.minimum(lo, nearest), np.maximum(hi, nearest)
    lo, hi = lo - pad, hi + pad
    box = ax.get_position(original=True)
    width, height = ax.figure.get_size_inches() * (box.width, box.height)
    span = np.maximum(hi - lo, (hi - lo)[::-1] * [width / height, height / width])
    middle = (lo + hi) / 2
    return ((middle[0] - span[0] / 2, middle[0] + span[0] / 2),
            (middle[1] - span[1] / 2, middle[1] + span[1] / 2))


def slack_segments(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """MMDS Fig. 12.16's arrows: for every example with slack, the segment from its own margin
    line w·x + b = y to the example. Shape (k, 2, d): k segments, [start, end] points each."""
    bad = svm.margins(w, b, X, y) < 1 - svm.SUPPORT_TOL  # not those on the line up to rounding
    feet = X[bad] + ((y[bad] - (X[bad] @ w + b)) / (w @ w))[:, None] * w
    return np.stack([feet, X[bad]], axis=1)


def draw_svm(ax: Axes, X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, *,
             support: np.ndarray | None = None, slacks: bool = False, pad: float = 0.6) -> None:
    """Points, the separator w·x + b = 0, its margin lines (±1), rings on ``support`` and, with
    ``slacks``, each bad point's slack drawn as a pink segment from its margin line. The view
    holds the data with ``pad`` to spare on every side and all three lines (:func:`_view`)."""
    scatter_labelled(ax, X, y, size=30)
    _frame(ax, X, pad, w, b)
    draw_hyperplane(ax, w, b, color="black", label="w·x + b = 0")
    for offset in (-1, 1):
        draw_hyperplane(ax, w, b, offset=offset, color="grey", linestyle="--", linewidth=1,
                        label="w·x + b = ±1" if offset > 0 else None)
    if support is not None and len(support):
        ax.scatter(*X[support].T, s=170, facecolors="none", edgecolors="black", linewidths=1.2,
                   label="support vectors")
    if slacks and np.any(w):
        for start, end in slack_segments(w, b, X, y):
            ax.plot(*np.transpose([start, end]), color=SLACK_COLOUR, linewidth=1.2)


def points_text(y: np.ndarray) -> str:
    """An alt text's opening: how many points of each class, and how each is drawn."""
    return (f"{len(y)} points in two classes ({int(np.sum(y > 0))} circles y = +1, "
            f"{int(np.sum(y < 0))} squares y = −1)")


def _separator_text(w: np.ndarray, b: float) -> str:
    return f"w = [{_short(w)}], b = {_short([b])}"


def show_example_12_8() -> Figure:
    """MMDS Example 12.8 solved: all four points are support vectors."""
    X, y = svm.mmds_example_12_8()
    sol = svm.solve(X, y)
    fig, (ax,) = figure(1, width=5)
    draw_svm(ax, X, y, sol.w, sol.b, support=sol.support)
    ax.set_title(f"w = [{_short(sol.w)}], b = {_short([sol.b])}, "
                 f"γ = 1/‖w‖ = {sol.margin:.3f}")
    ax.legend(loc="best", fontsize=8)  # "best" keeps clear of the points
    return describe(fig, f"{points_text(y)}; the widest-margin separator "
                         f"{_separator_text(sol.w, sol.b)}, margin γ = {sol.margin:.3f}, with "
                         f"its two margin lines; {len(sol.support)} of the {len(y)} points are "
                         "support vectors, ringed, on the margin lines.")


def origin_solution(X: np.ndarray, y: np.ndarray) -> svm.SVMSolution:
    """The hard-margin SVM without an offset (CS578 L2: yᵢ(θ·xᵢ) >= 1), for X of shape (n, d).

    Solved as the SVM with offset of the sample together with its mirror image {(-xᵢ, -yᵢ)},
    whose optimum is symmetric, so its b is 0. Raises ValueError when no line through the origin
    separates the sample (the mirrored sample's classes overlap then).
    """
    X, y = as_data(X, y)  # bad input raises here, so the only ValueError below is separability
    try:
        return svm.solve(np.vstack([X, -X]), np.concatenate([y, -y]))
    except ValueError as error:
        raise ValueError("no line through the origin separates this sample; a separator with "
                         "an offset b may still exist: try svm.solve(X, y)") from error


def tight_with_zero_weight() -> tuple[np.ndarray, np.ndarray]:
    """Three points, +(1, 0), -(-1, 0), +(1, 5), all on their margin lines at the optimum
    w = [1, 0], b = 0, where every dual solution gives (1, 5) the weight α = 0: a witness against
    CS446's "αᵢ > 0 for every i in I". X has shape (3, 2), y shape (3,)."""
    return np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 5.0]]), np.array([1.0, -1.0, 1.0])


def show_hinge() -> Figure:
    """MMDS Fig. 12.17: the hinge loss max(0, 1 - z) against the 0-1 loss it bounds, with
    CS446's two other losses ("What do we optimize?"): the L2-loss SVM's squared hinge and the
    logistic loss log(1 + e^-z)."""
    z = np.linspace(-2, 3, 501)
    fig, (ax,) = figure(1, width=5.5, height=3.5)
    ax.plot(z, svm.hinge_loss(z), color="black", linewidth=2, label="hinge max(0, 1 − z)")
    ax.plot(z, svm.hinge_loss(z) ** 2, color=PALETTE[0], linestyle="-.",
            label="squared hinge (L2-loss SVM)")
    ax.plot(z, np.logaddexp(0.0, -z), color=PALETTE[2], linestyle=":", linewidth=2,
            label="logistic log(1 + e^−z)")
    ax.set_ylim(-0.1, 4)
    ax.step(z, (z <= 0).astype(float), where="post", color=PALETTE[1], linestyle="--",
            label="mistake (z ≤ 0)")
    ax.axvline(1, color="grey", linewidth=0.8)
    ax.annotate("kink at z = 1:\nno loss from here on", (1, 0), (1.3, 1.2), fontsize=8,
                arrowprops={"arrowstyle": "->", "color": "grey"})
    ax.set_xlabel("z = y (w·x + b)")
    ax.set_ylabel("loss")
    ax.legend(fontsize=8)
    ax.set_title("the hinge loss (MMDS Fig. 12.17) and two more from CS446", fontsize=10)
    hinge, logistic = svm.hinge_loss(z), np.logaddexp(0.0, -z)
    return describe(fig, (
        f"Four losses against z = y(w·x + b) from {z[0]:g} to {z[-1]:g}: the mistake (0-1) loss, "
        f"1 up to z = 0 and 0 after; the hinge max(0, 1 − z), falling from {hinge[0]:g} to 0 at "
        f"z = 1 and 0 beyond, never below the 0-1 loss; the squared hinge, {hinge[0] ** 2:g} at "
        f"z = {z[0]:g}; and the logistic loss, {logistic[0]:.2f} at z = {z[0]:g}, "
        f"{np.log(2):.2f} at z = 0 and {logistic[-1]:.2f} at z = {z[-1]:g}."))


def show_bias_conventions() -> Figure:
    """MMDS Example 12.9's data solved exactly for C = 0.1 twice: eq. 12.4 as printed (b free),
    which gives the horizontal line y = 2.5, and eq. 12.4 + b²/2 (MMDS's descent), which tilts.
    Each panel shows both margin lines, so the band the points lie inside is seen whole."""
    X, y = svm.mmds_fig_12_18()
    fig, axes = figure(2, width=4.4, height=4.0)
    panels = []
    for ax, regularize, name in ((axes[0], False, "eq. 12.4 (b free)"),
                                 (axes[1], True, "eq. 12.4 + b²/2 (MMDS's descent)")):
        sol = svm.solve(X, y, C=BOOK_C, regularize_bias=regularize)
        draw_svm(ax, X, y, sol.w, sol.b, pad=1.0)
        ax.set_title(f"{name}\nw = [{_short(sol.w)}], b = {_short([sol.b])}, "
                     f"γ = {sol.margin:.2f}", fontsize=9)
        panels.append(f"{name}, {_separator_text(sol.w, sol.b)}, margin γ = {sol.margin:.2f}")
    return describe(fig, f"The same {points_text(y)}, solved exactly with C = {BOOK_C:g} twice. "
                         f"Left: {panels[0]}. Right: {panels[1]}.")


# --- The C slider ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SoftMargin:
    """The soft-margin optimum for one C on the walk-through's sample.

    Attributes
    ----------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    solution : svm.SVMSolution
    slack : ndarray of shape (n,)
        ξᵢ = max(0, 1 - yᵢ(w·xᵢ + b)), CS578's slack variables.
    on_margin, inside, misclassified : int
        CS578's three kinds of support vectors: ξ = 0 (on the margin line, up to SUPPORT_TOL),
        0 < ξ < 1 (inside the margin, still on the right side), ξ >= 1 (on the separator or
        beyond it: a mistake, by MMDS's convention that a score of 0 is wrong).
    """

    X: np.ndarray
    y: np.ndarray
    solution: svm.SVMSolution
    slack: np.ndarray
    on_margin: int
    inside: int
    misclassified: int


@functools.lru_cache(maxsize=64)
def soft_margin(C: float, *, n: int = 40, seed: int = 3) -> SoftMargin:
    """Solve eq. 12.4 exactly for ``C`` on a 2-D sample with a tenth of its labels flipped."""
    X, y, _ = data.noisy(n, 2, margin=0.15, flip=0.1, seed=seed)
    sol = svm.solve(X, y, C=C)
    slack = svm.hinge_loss(svm.margins(sol.w, sol.b, X, y))
    on = int(np.sum(slack[sol.support] <= svm.SUPPORT_TOL))
    wrong = int(np.sum(slack >= 1))  # ξ = 1 is z = 0, on the separator: a mistake
    return SoftMargin(X, y, sol, slack, on, len(sol.support) - on - wrong, wrong)


@dataclass(frozen=True)
class _SoftMarginView:
    """The C slider's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    separator: Line2D
    margin_lines: tuple[Line2D, Line2D]
    support: PathCollection
    slacks: LineCollection
    bars: BarContainer


@functools.lru_cache(maxsize=4)
def _soft_margin_view(seed: int) -> _SoftMarginView:
    """Build the C slider's figure once per sample: the points, the legend and the bar chart's
    axes stay; the separator, margin lines, rings, slacks, bars and titles move."""
    fit = soft_margin(1.0, seed=seed)
    height = 4.6
    fig, (left, right) = figure(2, width=4.8, height=height)
    scatter_labelled(left, fit.X, fit.y, size=30)
    separator, = left.plot([], [], color="black", label="w·x + b = 0")
    margin_lines = tuple(left.plot([], [], color="grey", linestyle="--", linewidth=1,
                                   label="w·x + b = ±1" if offset > 0 else None)[0]
                         for offset in (-1, 1))
    support = left.scatter(*fit.X[:1].T, s=170, facecolors="none", edgecolors="black",
                           linewidths=1.2, label="support vectors")
    slacks = left.add_collection(LineCollection([], colors=SLACK_COLOUR, linewidths=1.2),
                                 autolim=False)
    # Below the axes, not on them: at small C the separator runs where "best" would put it.
    legend_below(fig, left, height)
    bars = right.bar(["on the\nmargin", "inside the\nmargin", "mis-\nclassified"], [0, 0, 0],
                     color=["grey", PALETTE[5], PALETTE[2]])  # not a class's colour
    right.set_ylabel("support vectors")
    right.set_ylim(0, len(fit.y))
    animate(separator, *margin_lines, support, slacks, *bars, left.title, right.title)
    return _SoftMarginView(fig, left, right, separator, margin_lines, support, slacks, bars)


def show_soft_margin(C: float, seed: int = 3) -> Figure:
    """The C slider's frame: separator, margin lines, support vectors and slacks (left); the
    three kinds of support vectors and the margin (right).

    The figure is built once and redrawn in place: each call returns the same Figure, showing
    ``C``."""
    fit = soft_margin(C, seed=seed)
    sol = fit.solution
    view = _soft_margin_view(seed)
    set_view(view.left, *_view(view.left, fit.X, 0.6, sol.w, sol.b))
    view.separator.set_data(*hyperplane_points(view.left, sol.w, sol.b))
    for line, offset in zip(view.margin_lines, (-1, 1), strict=True):
        line.set_data(*hyperplane_points(view.left, sol.w, sol.b, offset=offset))
    view.support.set_offsets(fit.X[sol.support].reshape(-1, 2))
    view.slacks.set_segments(slack_segments(sol.w, sol.b, fit.X, fit.y) if np.any(sol.w) else [])
    for bar, count in zip(view.bars, (fit.on_margin, fit.inside, fit.misclassified),
                          strict=True):
        bar.set_height(count)
    view.left.title.set_text(f"C = {C:.3g}: {len(sol.support)} support vectors, "
                        f"Σξ = {fit.slack.sum():.2f}")
    view.right.title.set_text(f"γ = 1/‖w‖ = {sol.margin:.3f}")
    return describe(view.fig, (
        f"{points_text(fit.y)} with C = {C:.3g}: the soft-margin separator "
        f"{_separator_text(sol.w, sol.b)}, margin γ = {sol.margin:.3f}, total slack "
        f"Σξ = {fit.slack.sum():.2f}. Its {len(sol.support)} support vectors: {fit.on_margin} on "
        f"the margin, {fit.inside} inside it, {fit.misclassified} misclassified."))


def show_c_gallery(values=CS578_C, seed: int = 3) -> Figure:
    """CS578 L2's sequence: the same sample solved for each C in ``values``."""
    fig, axes = figure(len(values), width=3.0, height=3.2)
    for ax, C in zip(axes, values, strict=True):
        fit = soft_margin(C, seed=seed)
        draw_svm(ax, fit.X, fit.y, fit.solution.w, fit.solution.b,
                 support=fit.solution.support, slacks=True)
        ax.set_title(f"C = {C:g}: {len(fit.solution.support)} SVs, γ = {fit.solution.margin:.2f}",
                     fontsize=9)
    fits = [soft_margin(C, seed=seed) for C in values]
    panels = "; ".join(f"C = {C:g}: {len(fit.solution.support)} support vectors, margin "
                       f"{fit.solution.margin:.2f}" for C, fit in zip(values, fits, strict=True))
    return describe(fig, f"The same {points_text(fits[0].y)}, one panel per C, each with its "
                         f"separator, margin lines, ringed support vectors and slacks. {panels}.")


def same_solution(a: svm.SVMSolution, b: svm.SVMSolution, tol: float = 1e-9) -> bool:
    """Whether two solutions are the same separator (w and b equal up to ``tol``)."""
    return bool(np.allclose(a.w, b.w, rtol=0, atol=tol) and abs(a.b - b.b) <= tol)


def stable_from(C_high: float = CS578_C[0], *, seed: int = 3, steps: int = 40) -> float:
    """The smallest C (found by bisection, to ``C_high``·2^-steps) from which the soft-margin
    optimum of :func:`soft_margin`'s sample no longer changes up to ``C_high``: above it, the
    examples inside the margin and the few on it are fixed, and w, b solve the same equations."""
    top = soft_margin(C_high, seed=seed).solution
    low, high = 0.0, C_high
    for _ in range(steps):
        middle = (low + high) / 2
        X, y = soft_margin(C_high, seed=seed).X, soft_margin(C_high, seed=seed).y
        if same_solution(svm.solve(X, y, C=middle), top):
            high = middle
        else:
            low = middle
    return high


# --- MMDS's exercises for §12.3 ---------------------------------------------------------------


def exercise_12_3_2() -> tuple[np.ndarray, np.ndarray]:
    """MMDS Exercise 12.3.2: positives sum to 10 or more, negatives to less. X (6, 3), y (6,)."""
    X = np.array([[3, 4, 5], [2, 7, 2], [5, 5, 5], [1, 2, 3], [3, 3, 2], [2, 4, 1]], dtype=float)
    return X, np.array([1.0, 1, 1, -1, -1, -1])


def exercise_12_3_3() -> tuple[np.ndarray, np.ndarray]:
    """MMDS Exercise 12.3.3: positives have an odd coordinate sum, negatives an even one.
    X (6, 2), y (6,)."""
    X = np.array([[1, 2], [3, 4], [5, 2], [2, 4], [3, 1], [7, 3]], dtype=float)
    return X, np.array([1.0, 1, 1, -1, -1, -1])


def exercise_descent(X: np.ndarray, y: np.ndarray, C: float, w0: np.ndarray, b0: float, *,
                     iterations: int = 5000) -> tuple[svm.DescentResult, float]:
    """Exercises 12.3.2(c) and 12.3.3(b) as set: descend on MMDS's objective (eq. 12.4 + b²/2)
    from the start (``w0`` of shape (d,), ``b0``) for ``iterations`` steps decaying from
    :func:`batch_step`'s η. Returns the run and the largest coordinate of its distance to the
    exact optimum of :func:`mllib.svm.solve` (X of shape (n, d), y of shape (n,))."""
    eta = batch_step(np.hstack([X, np.ones((len(y), 1))]), C)
    run = svm.gradient_descent(X, y, C=C, eta=eta, w0=w0, b0=b0, iterations=iterations,
                               regularize_bias=True, decay=True)
    best = svm.solve(X, y, C=C, regularize_bias=True)
    return run, float(np.abs(np.append(run.w - best.w, run.b - best.b)).max())


def smallest_margins(run: svm.DescentResult, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """minᵢ zᵢ of every iterate of ``run``, its start included, shape (len(run.history),): below
    1 where the descent, which has no constraints, has a point inside the margin (X of shape
    (n, d), y of shape (n,))."""
    return np.array([svm.margins(step.w, step.b, X, y).min() for step in run.history])


# --- Leave-one-out ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaveOneOut:
    """One row of the LOOCV table: C (None for the hard margin), #SV, the error, #SV/n and the
    margin γ = 1/‖w‖ of the solution on all n examples."""

    C: float | None
    support: int
    error: float
    bound: float
    margin: float


def leave_one_out_sample(*, n: int = 30, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """The separable sample of the LOOCV table: X of shape (n, 2), y of shape (n,)."""
    X, y, _ = data.separable(n, 2, margin=0.1, seed=seed)
    return X, y


def leave_one_out_study(values=(None, 10.0, 1.0, 0.1), *, n: int = 30,
                        seed: int = 4) -> tuple[LeaveOneOut, ...]:
    """CS578's LOOCV <= #SV/n, measured on one separable sample for each C in ``values``."""
    X, y = leave_one_out_sample(n=n, seed=seed)
    rows = []
    for C in values:
        solution = svm.solve(X, y, C=C)
        count = len(solution.support)
        rows.append(LeaveOneOut(C, count, svm.leave_one_out_error(X, y, C=C), count / n,
                                solution.margin))
    return tuple(rows)


def leave_one_out_table(rows: tuple[LeaveOneOut, ...]) -> str:
    """The study as a Markdown table."""
    return markdown_table(
        ["C", "margin γ", "support vectors", "LOOCV error", "bound #SV/n"],
        [["hard margin" if r.C is None else f"{r.C:g}", f"{r.margin:.3f}", r.support,
          f"{r.error:.3f}", f"{r.bound:.3f}"] for r in rows],
    )


# --- The η slider and iteration scrubber -----------------------------------------------------


@functools.lru_cache(maxsize=1)
def book_optimum() -> float:
    """f* of Example 12.9's objective (eq. 12.4 + b²/2, C = 0.1)."""
    X, y = svm.mmds_fig_12_18()
    best = svm.solve(X, y, C=BOOK_C, regularize_bias=True)
    return svm.objective(best.w, best.b, X, y, BOOK_C, regularize_bias=True)


@dataclass(frozen=True)
class DescentCycle:
    """The points a constant-step run of Example 12.9 keeps returning to at its end.

    Attributes
    ----------
    period : int
        The length of the cycle (1: the run has settled on one point); 0 when the last
        iterations do not repeat.
    patterns : tuple of str
        The bad-point patterns along the cycle.
    objectives : ndarray of shape (period,)
        The objective (eq. 12.4 + b²/2) at the cycle's points.
    """

    period: int
    patterns: tuple[str, ...]
    objectives: np.ndarray


def descent_cycle(eta: float, iterations: int = 60, *, longest: int = 10,
                  tol: float = 1e-9) -> DescentCycle:
    """Find the cycle at the end of :func:`book_run` (``iterations`` steps of size ``eta``): the
    shortest period p <= ``longest`` with which the last 2p points repeat, to ``tol``."""
    history = book_run(iterations, eta).history
    for period in range(1, min(longest, len(history) // 2) + 1):
        tail = history[-2 * period:]
        if all(np.allclose(a.w, b.w, rtol=0, atol=tol) and abs(a.b - b.b) <= tol
               for a, b in zip(tail[:period], tail[period:], strict=True)):
            last = history[-period:]
            return DescentCycle(period, tuple(s.pattern for s in last),
                                np.array([s.objective for s in last]))
    return DescentCycle(0, (), np.array([]))


# The descent widget's step slider: FloatSlider(min=0.05, max=1.5, step=0.05).
ETA_SLIDER = tuple(round(0.05 * k, 2) for k in range(1, 31))


def descent_ending(eta: float, iterations: int = 60, *, tol: float = 1e-9) -> tuple[str, ...]:
    """How the ``iterations``-step run of Example 12.9 with step ``eta`` ends, as one table row
    (η, ending, bad patterns, f): a 2-cycle (or longer) of :func:`descent_cycle`, or one pattern
    for the last ten steps with the last step below ``tol`` ("steps < 1e-9") or not yet."""
    cycle = descent_cycle(eta, iterations, tol=tol)
    if cycle.period > 1:
        return (f"{eta:g}", f"{cycle.period}-cycle", " ↔ ".join(cycle.patterns),
                " ↔ ".join(f"{f:.3f}" for f in cycle.objectives))
    history = book_run(iterations, eta).history
    patterns = {step.pattern for step in history[-10:]}
    ending = ("one pattern, steps < 1e-9" if cycle.period == 1 else
              "one pattern, steps still ≥ 1e-9" if len(patterns) == 1 else "patterns still change")
    return f"{eta:g}", ending, history[-1].pattern, f"{history[-1].objective:.3f}"


def descent_endings(etas=ETA_SLIDER, iterations: int = 60) -> str:
    """A Markdown table of :func:`descent_ending` for every step in ``etas``."""
    return markdown_table(["η", f"the last steps of {iterations}", "bad points", "f_b = f + b²/2"],
                          [list(descent_ending(eta, iterations)) for eta in etas])


@dataclass(frozen=True)
class _DescentView:
    """The descent widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    separator: Line2D
    margin_lines: tuple[Line2D, Line2D]
    crosses: PathCollection
    gap: Line2D
    marker: Line2D


@functools.lru_cache(maxsize=1)
def _descent_view() -> _DescentView:
    """Build the descent widget's figure once: the six points, the axes' labels and the legend
    stay; the separator, margin lines, crosses and titles move with k, the gap curve with η.
    The legend sits below the axes: an animated one would be drawn again with every frame, and
    drawing it marks the whole figure for a redraw."""
    X, y = svm.mmds_fig_12_18()
    height = 4.6
    fig, (left, right) = figure(2, width=4.8, height=height)
    scatter_labelled(left, X, y, size=30)
    separator, = left.plot([], [], color="black", label="w·x + b = 0")
    margin_lines = tuple(left.plot([], [], color="grey", linestyle="--", linewidth=1,
                                   label="w·x + b = ±1" if offset > 0 else None)[0]
                         for offset in (-1, 1))
    crosses = left.scatter(*X[:1].T, s=150, marker="x", color=SLACK_COLOUR, linewidths=1,
                           label="bad point")
    legend_below(fig, left, height)
    gap, = right.plot([0], [1], "o-", ms=3, color="black")
    marker = right.axvline(0, color="grey", linewidth=1)  # not a class's colour
    log_axis(right, "y")
    right.set_xlabel("iteration")
    right.set_ylabel("f_b − f_b* (log scale), f_b = f + b²/2")
    animate(separator, *margin_lines, crosses, marker, left.title, right.title)
    return _DescentView(fig, left, right, separator, margin_lines, crosses, gap, marker)


def show_descent(eta: float, k: int, iterations: int = 60) -> Figure:
    """The descent widget's frame: MMDS Example 12.9 run with step ``eta``.

    Left: the six points, the separator and margin lines after k updates, the bad points
    crossed. Right: how far the objective (eq. 12.4 + b²/2, which the run minimises) is above
    the exact optimum at each iteration, on a log scale, with iteration k marked. The figure is
    built once and redrawn in place: each call returns the same Figure.
    """
    if not 0 <= k <= iterations:
        raise ValueError(f"k must be between 0 and {iterations}, the number of iterations.")
    X, labels = svm.mmds_fig_12_18()
    run = book_run(iterations, eta)
    optimum = book_optimum()
    step = run.history[k]
    view = _descent_view()
    set_view(view.left, *_view(view.left, X, 1.2, step.w, step.b))
    view.separator.set_data(*hyperplane_points(view.left, step.w, step.b))
    for line, offset in zip(view.margin_lines, (-1, 1), strict=True):
        line.set_data(*hyperplane_points(view.left, step.w, step.b, offset=offset))
    bad = np.array([c == "x" for c in step.pattern])
    view.crosses.set_offsets(X[bad].reshape(-1, 2))
    view.left.title.set_text(f"η = {eta:g}, iteration {k}: bad = {step.pattern}")
    above = np.maximum([s.objective - optimum for s in run.history], 1e-16)
    if not np.array_equal(view.gap.get_ydata(), above):
        view.gap.set_data(np.arange(len(above)), above)
        # At least two powers of 10 in view, so that the log axis has two labelled ticks even
        # when a large step leaves the gap within one decade.
        low, high = np.floor(np.log10(above.min())), np.ceil(np.log10(above.max()))
        view.right.set_ylim(10.0 ** min(low, high - 1), 10.0 ** high)
        last = len(above) - 1
        view.right.set_xlim(-0.05 * last, 1.05 * last)  # matplotlib's 5% margins
    view.marker.set_xdata([k, k])
    view.right.title.set_text(f"f_b = {step.objective:.4f} at iteration {k}; f_b* = {optimum:.4f}")
    bad_count = int(bad.sum())
    return describe(view.fig, (
        f"Left: the {points_text(labels)} of MMDS Example 12.9 after {counted(k, 'step')} of size "
        f"η = {eta:g}: {_separator_text(step.w, step.b)}; bad points: {bad_count}"
        f" (pattern {step.pattern}), crossed. Right: the gap of f_b = f + b²/2 to f_b* = "
        f"{optimum:.4f} over {iterations} iterations, log scale, from {above[0]:.3g} to "
        f"{above[-1]:.3g}; at iteration {k}, f_b = {step.objective:.4f}."))


# --- Batch GD, SGD and the optimum -----------------------------------------------------------


@dataclass(frozen=True)
class MethodComparison:
    """Relative gap (f - f*)/f* after each epoch, one pass over the data each.

    Attributes
    ----------
    epochs : ndarray of shape (T,)
    batch_constant, batch_decaying : ndarray of shape (T,)
        Batch gradient descent (one update per epoch) with a constant and a decaying step.
    sgd_constant, sgd_pegasos : ndarray of shape (T,)
        SGD with the CS446 constant γ and with Pegasos's 1/t.
    optimum : float
        f*, from :func:`mllib.svm.solve`.
    """

    epochs: np.ndarray
    batch_constant: np.ndarray
    batch_decaying: np.ndarray
    sgd_constant: np.ndarray
    sgd_pegasos: np.ndarray
    optimum: float


def batch_step(X: np.ndarray, C: float) -> float:
    """η = 1/(C·Σᵢ‖xᵢ‖²) for batch descent on eq. 12.4 with data X of shape (n, d).

    The hinge sum's gradient is up to C·Σᵢ yᵢxᵢ, so a step of η moves an example's zᵢ by up to
    η·C·Σⱼ|xᵢ·xⱼ|. On data of comparable norms (not in general: one long xᵢ
    among short ones breaks it) no update then moves any zᵢ by much more than 1, the width of the
    region where the hinge is linear; larger steps jump over the kinks and stall.
    """
    return 1.0 / (C * float(np.sum(X * X)))


def race_sample(*, n: int = 200, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The race's noisy 2-D sample, a tenth of its labels flipped: X (n, 2), y (n,)."""
    X, y, _ = data.noisy(n, 2, margin=0.05, flip=0.1, seed=seed)
    return X, y


def race_step(*, n: int = 200, C: float = 1.0, seed: int = 5) -> float:
    """:func:`batch_step` for the race's sample, with the constant feature for b."""
    X, _ = race_sample(n=n, seed=seed)
    return batch_step(np.hstack([X, np.ones((n, 1))]), C)


def compare_methods(*, n: int = 200, C: float = 1.0, epochs: int = 60, eta: float | None = None,
                    gamma: float = 1e-3, seed: int = 5) -> MethodComparison:
    """Run the four descents on one noisy 2-D sample, MMDS's regularised bias throughout.

    Batch descent takes step ``eta`` (constant, or decaying from it; by default
    :func:`batch_step`); SGD takes the constant ``gamma`` or Pegasos's 1/t.
    """
    X, y = race_sample(n=n, seed=seed)
    eta = race_step(n=n, C=C, seed=seed) if eta is None else eta
    best = svm.solve(X, y, C=C, regularize_bias=True)
    optimum = svm.objective(best.w, best.b, X, y, C, regularize_bias=True)

    def gap(values):
        return (np.array(values) - optimum) / optimum

    batch = {decay: svm.gradient_descent(X, y, C=C, eta=eta, iterations=epochs,
                                         decay=decay).history[1:] for decay in (False, True)}
    constant = svm.sgd(X, y, C=C, eta=gamma, epochs=epochs, seed=seed).history
    pegasos = svm.sgd(X, y, C=C, epochs=epochs, seed=seed).history
    return MethodComparison(
        np.arange(1, epochs + 1),
        gap([s.objective for s in batch[False]]),
        gap([s.objective for s in batch[True]]),
        gap([e.objective for e in constant]),
        gap([e.objective for e in pegasos]),
        optimum,
    )


def _curves(comparison: MethodComparison) -> list[tuple[str, np.ndarray]]:
    """The race's four gap curves, each with its name."""
    return [("batch GD, constant η", comparison.batch_constant),
            ("batch GD, decaying η", comparison.batch_decaying),
            ("SGD, constant γ (CS446)", comparison.sgd_constant),
            ("SGD, γ = 1/t (Pegasos)", comparison.sgd_pegasos)]


def race_ends(seeds=tuple(range(20))) -> tuple[tuple[str, ...], np.ndarray]:
    """The race (:func:`compare_methods`) rerun on a fresh sample and shuffle for each seed in
    ``seeds``: the four methods' names and their relative gaps after the last epoch, an array of
    shape (len(seeds), 4), one row per seed."""
    runs = [_curves(compare_methods(seed=seed)) for seed in seeds]
    return (tuple(name for name, _ in runs[0]),
            np.array([[gap[-1] for _, gap in run] for run in runs]))


def race_ends_table(names: tuple[str, ...], ends: np.ndarray) -> str:
    """:func:`race_ends` as a Markdown table: each method's mean end gap ± its standard error,
    its median, and how many samples it ends best on."""
    best = np.argmin(ends, axis=1)
    return markdown_table(
        ["method", f"(f − f*)/f* after 60 epochs, mean ± SE over {len(ends)} samples", "median",
         "samples where it ends lowest"],
        [[name, mean_and_se(ends[:, j], ".1e"), f"{np.median(ends[:, j]):.1e}",
          int(np.sum(best == j))] for j, name in enumerate(names)])


def show_comparison(comparison: MethodComparison) -> Figure:
    """The four gaps against epochs, on a log scale."""
    fig, (ax,) = figure(1, width=6.5, height=4)
    curves = _curves(comparison)
    for (name, gap), style in zip(curves, ("-", "--", "-.", ":"), strict=True):
        ax.plot(comparison.epochs, np.maximum(gap, 1e-16), linestyle=style, label=name)
    ax.set_yscale("log")
    ax.set_xlabel("epochs (passes over the data)")
    ax.set_ylabel("(f_b − f_b*) / f_b*")
    ax.set_title(f"distance to the exact optimum f_b* = {comparison.optimum:.3f}")
    ax.legend(fontsize=8)
    ends = "; ".join(f"{name} {gap[-1]:.1e}" for name, gap in curves)
    return describe(fig, (
        f"The relative distance (f_b − f_b*)/f_b* (f_b = f + b²/2) to the exact optimum "
        f"f_b* = {comparison.optimum:.3f} "
        f"after each of {len(comparison.epochs)} epochs, log scale, for four descents. After the "
        f"last epoch: {ends}."))
