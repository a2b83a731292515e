"""Shared drawing helpers for the lecture figures and widgets.

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so nothing is kept in
pyplot's global state: a widget redraw returns a fresh figure and the old one is garbage.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator

POSITIVE = "tab:blue"
NEGATIVE = "tab:orange"


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
    return fig, list(np.atleast_1d(fig.subplots(1, ncols)))


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
