"""Shared drawing helpers for the lecture figures and widgets.

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so nothing is kept in
pyplot's global state: a widget redraw returns a fresh figure and the old one is garbage.

Every figure a lecture shows says what it shows in words: :func:`describe` attaches an alt text
written from the data the figure plots, and :func:`alt_text` reads it back for the notebook's
output metadata, the site and the report (WCAG 1.1.1). Colours come from :data:`PALETTE` and
classes also differ by marker shape (:data:`MARKERS`), so colour never carries meaning alone
(WCAG 1.4.1).
"""

from __future__ import annotations

import re

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator

# Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008) without its orange,
# sky blue and yellow, which have less than 3:1 contrast on white (WCAG 1.4.11): blue,
# vermillion, bluish green, reddish purple, black, and an olive of Paul Tol's muted scheme.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#999933")
# What a reader calls each PALETTE colour on screen, the words the lectures' prose uses
# (vermillion looks orange and reddish purple looks pink; "red" and "purple" name neither).
COLOUR_NAMES = ("blue", "orange", "green", "pink", "black", "olive")
MARKERS = ("o", "s", "^", "D", "v", "P")
POSITIVE, NEGATIVE = PALETTE[0], PALETTE[1]
ALT_ATTRIBUTE = "_mllib_alt_text"


def figure(ncols: int = 1, *, width: float = 5.0, height: float = 4.0) -> tuple[Figure, list[Axes]]:
    """A new figure with ``ncols`` side-by-side axes, each ``width`` x ``height`` inches.

    The layout is fixed: margins in inches leave room for tick labels, axis labels and a title,
    and 1.1 inch between panels for the next panel's y label. Constrained layout would place
    everything by measuring the text, which draws the figure twice and costs a widget redraw
    most of its time; Jupyter's ``bbox_inches="tight"`` still crops the PNG to what is drawn.
    """
    total = width * ncols
    left, right, gap = 0.95, 0.15, 1.1  # inches: room for 5-digit tick labels and a y label
    panel = (total - left - right - gap * (ncols - 1)) / ncols
    fig = Figure(figsize=(total, height))
    fig.subplots_adjust(left=left / total, right=1 - right / total, bottom=0.6 / height,
                        top=1 - 0.4 / height, wspace=gap / panel)
    axes = list(np.atleast_1d(fig.subplots(1, ncols)))
    for ax in axes:
        ax.set_prop_cycle(color=PALETTE)
    return fig, axes


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """"1 mistake", "2 mistakes": ``count`` and ``noun`` agreeing in number, for titles and alt
    texts (``plural`` when it is not ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def describe(fig: Figure, text: str) -> Figure:
    """Attach to ``fig`` the alt text that says what it shows; returns ``fig``.

    Write ``text`` from the data the figure plots: what is drawn and the numbers a sighted
    reader takes from it (e.g. "40 points in two classes; the perceptron's separator after 7
    updates; no point misclassified"). A widget that redraws in place describes each frame.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("an alt text must be a non-empty string that says what the figure shows")
    setattr(fig, ALT_ATTRIBUTE, " ".join(text.split()))
    return fig


def described(fig: Figure) -> bool:
    """True if :func:`describe` gave ``fig`` an alt text."""
    return bool(getattr(fig, ALT_ATTRIBUTE, None))


def alt_text(fig: Figure) -> str:
    """The alt text of ``fig``: the one :func:`describe` attached, or else its titles and axis
    labels (a stopgap that names the figure but not what its data say; tests require
    :func:`described` figures)."""
    if described(fig):
        return getattr(fig, ALT_ATTRIBUTE)
    parts = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        parts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        title = " ".join(t.get_text() for t in (ax.title, ax._left_title, ax._right_title)
                         if t.get_text())
        axes = " against ".join(label for label in (ax.get_ylabel(), ax.get_xlabel()) if label)
        text = "; ".join(p for p in (title, axes and f"axes: {axes}") if p)
        if text:
            parts.append(text)
    text = " | ".join(parts) if parts else "an unlabelled plot"
    return "Figure: " + re.sub(r"\$([^$]*)\$", r"\1", text)  # mathtext read as plain text


def log_axis(ax: Axes, which: str = "x") -> None:
    """Put one axis (``"x"`` or ``"y"``) of ``ax`` on a log scale, labelled 0.01, 0.1, 1, 10.

    Plain labels and no minor ticks: matplotlib's default "10⁻²" labels are mathtext, parsed
    again on every draw, and a log axis's minor ticks are many small artists; together they
    cost a widget redraw more than the rest of the figure.
    """
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_locator(NullLocator())


def scatter_labelled(ax: Axes, X: np.ndarray, y: np.ndarray, *, size: float = 18) -> None:
    """Scatter 2-D points X of shape (n, 2), coloured by labels y in {-1, +1}."""
    styles = ((1, POSITIVE, "o", "y = +1"), (-1, NEGATIVE, "s", "y = -1"))
    for label, colour, marker, name in styles:
        rows = y == label
        ax.scatter(X[rows, 0], X[rows, 1], s=size, c=colour, marker=marker, label=name,
                   edgecolors="white", linewidths=0.5)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal")


def draw_hyperplane(
    ax: Axes, w: np.ndarray, b: float = 0.0, *, offset: float = 0.0, **style
) -> None:
    """Draw the line w·x + b = offset in 2-D within the current axis limits.

    ``offset`` draws a margin line (e.g. ±1 for an SVM). A zero w draws nothing.
    """
    if not np.any(w):
        return
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    ax.plot(*hyperplane_points(ax, w, b, offset=offset), **style)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)


def hyperplane_points(ax: Axes, w: np.ndarray, b: float = 0.0, *,
                      offset: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The ends (xs, ys) of the line w·x + b = offset across ``ax``'s view, for a line that is
    redrawn in place; both empty for a zero w, which has no line."""
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        return np.array([]), np.array([])
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    if abs(w[1]) >= abs(w[0]):
        xs = np.array([x_lo, x_hi])
        return xs, (offset - b - w[0] * xs) / w[1]
    ys = np.array([y_lo, y_hi])
    return (offset - b - w[1] * ys) / w[0], ys


def square_limits(ax: Axes, half_width: float) -> None:
    """Centre the view on the origin, ``half_width`` each way."""
    ax.set_xlim(-half_width, half_width)
    ax.set_ylim(-half_width, half_width)


def mean_and_se(values, spec: str = ".3f") -> str:
    """'mean ± standard error' of a sample (s/√n, with s the ddof = 1 standard deviation), both
    formatted with the format ``spec``: a sweep's summary for a table."""
    values = np.asarray(values, dtype=float)
    return f"{values.mean():{spec}} ± {values.std(ddof=1) / np.sqrt(len(values)):{spec}}"


def share_and_se(share: float, n: int, spec: str = ".2f") -> str:
    """'share ± standard error' of a binomial share of ``n`` trials, both formatted with the
    format ``spec``, the error √(p(1 − p)/n).

    At 0 or 1 that plug-in error is 0 and claims a certainty no sample gives, so the exact
    one-sided 95 % bound is shown instead: with no failure (or no success) in n trials, the rate
    q with (1 − q)ⁿ = 0.05 (the "rule of three", q ≈ 3/n), e.g. "0.00 (≤ 0.03, 95 %)".

    Raises
    ------
    ValueError
        If ``n`` < 1 or ``share`` lies outside [0, 1].
    """
    if n < 1:
        raise ValueError(f"a share needs at least one trial, got n = {n}")
    if not 0 <= share <= 1:
        raise ValueError(f"a share lies in [0, 1], got {share}")
    if 0 < share < 1:
        return f"{share:{spec}} ± {np.sqrt(share * (1 - share) / n):{spec}}"
    bound = 1 - 0.05 ** (1 / n)
    return (f"{1:{spec}} (≥ {1 - bound:{spec}}, 95 %)" if share == 1
            else f"{0:{spec}} (≤ {bound:{spec}}, 95 %)")


def markdown_table(header: list[str], rows: list[list[object]]) -> str:
    """A Markdown table (for ``IPython.display.Markdown``) from a header and rows of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def fraction(value: float) -> str:
    """Show a multiple of 1/4 as the book prints it (½, -¼, 2), other numbers to 3 decimals."""
    quarters = {0.25: "¼", 0.5: "½", 0.75: "¾"}
    whole, part = divmod(abs(value), 1)
    sign = "-" if value < 0 else ""
    if part == 0:
        return f"{sign}{int(whole)}"
    if part in quarters:
        return f"{sign}{int(whole) if whole else ''}{quarters[part]}"
    return f"{value:.3f}"
