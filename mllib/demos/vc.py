"""Widgets and tables for the VC walk-through (lecture 04).

Sources: CS446 slides (seed 001), "Shattering", "VC Dimension", "Learning Rectangles" and
"Data dependent VC dimension"; Sauer's lemma for the growth function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle as Box

from mllib import vc
from mllib.plotting import NEGATIVE, POSITIVE, draw_hyperplane, figure, markdown_table

# Preset point sets: (class, points). The widget moves the last point, drawn with a star.
CONFIGURATIONS = {
    "half-lines: 2 points": (vc.HALF_LINES, [[1.0], [2.0]]),
    "intervals: 3 points": (vc.INTERVALS, [[1.0], [2.0], [3.0]]),
    "half-planes: 3 points in a triangle": (vc.HALF_PLANES, [[0.0, 0.0], [2.0, 0.0], [1.0, 1.5]]),
    "half-planes: 3 collinear points": (vc.HALF_PLANES, [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]),
    "half-planes: XOR (square corners)": (vc.HALF_PLANES,
                                          [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]),
    "half-planes: triangle and a point inside": (vc.HALF_PLANES,
                                                 [[0.0, 0.0], [2.0, 0.0], [1.0, 2.0], [1.0, 0.7]]),
    "rectangles: diamond of 4": (vc.RECTANGLES, [[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 2.0]]),
    "rectangles: square corners": (vc.RECTANGLES,
                                   [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]),
    "rectangles: diamond and its centre": (vc.RECTANGLES, [[1.0, 0.0], [0.0, 1.0], [2.0, 1.0],
                                                           [1.0, 2.0], [1.0, 1.0]]),
}


@dataclass(frozen=True)
class LabelingGrid:
    """Every labelling of a point set, with a witness hypothesis for each realizable one.

    Attributes
    ----------
    hclass : mllib.vc.HypothesisClass
    points : ndarray of shape (n, dim)
    labelings : ndarray of shape (2ⁿ, n)
        In the order of :func:`mllib.vc.all_labelings`.
    witnesses : tuple
        For each labelling, a hypothesis that realizes it, or None.
    """

    hclass: vc.HypothesisClass
    points: np.ndarray
    labelings: np.ndarray
    witnesses: tuple

    @property
    def realizable(self) -> np.ndarray:
        """Which labellings the class realizes, bool of shape (2ⁿ,)."""
        return np.array([w is not None for w in self.witnesses])

    @property
    def shattered(self) -> bool:
        """True when every labelling is realizable."""
        return bool(self.realizable.all())


def labeling_grid(hclass: vc.HypothesisClass, points) -> LabelingGrid:
    """Try every labelling of ``points`` (shape (n, dim), or (n,) on the line) with ``hclass``."""
    points = np.asarray(points, dtype=float).reshape(-1, hclass.dim)
    labelings = vc.all_labelings(len(points))
    witnesses = tuple(vc.realize(hclass, points, labels) for labels in labelings)
    return LabelingGrid(hclass, points, labelings, witnesses)


def moved(configuration: str, dx: float, dy: float) -> tuple[vc.HypothesisClass, np.ndarray]:
    """A preset with its last point moved by (dx, dy); dy is ignored on the line."""
    hclass, points = CONFIGURATIONS[configuration]
    points = np.array(points, dtype=float)
    points[-1] += [dx, dy][: hclass.dim]
    return hclass, points


def _limits(points: np.ndarray) -> tuple[float, float, float, float]:
    """A square view around the points with a margin, (x_lo, x_hi, y_lo, y_hi)."""
    if points.shape[1] == 1:
        points = np.hstack([points, np.zeros_like(points)])
    low, high = points.min(axis=0), points.max(axis=0)
    centre, half = (low + high) / 2, max(float(np.max(high - low)), 1.0) / 2 + 0.6
    return centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half


def _inside(corners: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """The part of a convex polygon (corners (k, 2), in order) where w·x + b >= 0 (clipping)."""
    kept = []
    for p, q in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        sp, sq = p @ w + b, q @ w + b
        if sp >= 0:
            kept.append(p)
        if (sp >= 0) != (sq >= 0):
            kept.append(p + (q - p) * sp / (sp - sq))
    return np.array(kept).reshape(-1, 2)


def _draw_witness(ax: Axes, witness, limits) -> None:
    """Shade where the witness says +1."""
    x_lo, x_hi, y_lo, y_hi = limits
    shade = {"color": POSITIVE, "alpha": 0.18, "linewidth": 0}
    if isinstance(witness, vc.HalfPlane):
        corners = np.array([[x_lo, y_lo], [x_hi, y_lo], [x_hi, y_hi], [x_lo, y_hi]])
        region = _inside(corners, witness.w, witness.b - 1e-12 * (not np.any(witness.w)))
        if len(region):
            ax.fill(region[:, 0], region[:, 1], **shade)
        draw_hyperplane(ax, witness.w, witness.b, color=POSITIVE, linewidth=1)
    elif isinstance(witness, vc.Rectangle) and math.isfinite(witness.x_lo):
        pad = 0.15
        ax.add_patch(Box((witness.x_lo - pad, witness.y_lo - pad), witness.x_hi - witness.x_lo
                         + 2 * pad, witness.y_hi - witness.y_lo + 2 * pad, edgecolor=POSITIVE,
                         facecolor=POSITIVE, alpha=0.25))
    elif isinstance(witness, vc.Intervals):
        for lo, hi in witness.bounds:
            ax.plot([lo - 0.2, hi + 0.2], [0, 0], color=POSITIVE, linewidth=7, alpha=0.35,
                    solid_capstyle="butt")
    elif isinstance(witness, vc.HalfLine):
        ax.plot([x_lo, min(witness.a, x_hi)], [0, 0], color=POSITIVE, linewidth=7, alpha=0.35,
                solid_capstyle="butt")


def _draw_points(ax: Axes, points: np.ndarray, labels: np.ndarray, size: float = 28, *,
                 numbered: bool = False) -> None:
    """The points (+ blue circles, - orange squares), the last one starred (the point the
    widget moves); with ``numbered``, each point's number 1..n, the order of the signs in the
    panel titles."""
    xy = points if points.shape[1] == 2 else np.hstack([points, np.zeros_like(points)])
    for label, colour, marker in ((1, POSITIVE, "o"), (-1, NEGATIVE, "s")):
        rows = labels == label
        ax.scatter(xy[rows, 0], xy[rows, 1], s=size, c=colour, marker=marker, zorder=3,
                   edgecolors="black", linewidths=0.5)
    ax.scatter(*xy[-1], s=size * 3.5, marker="*", facecolors="none", edgecolors="black",
               linewidths=0.7, zorder=4)
    if numbered:
        for i, (x, y) in enumerate(xy, start=1):
            ax.annotate(str(i), (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7,
                        zorder=5)


def show_labelings(grid: LabelingGrid, *, title: str | None = None) -> Figure:
    """One small panel per labelling: the points (+ blue circles, - orange squares), the witness
    shaded in blue, and a red frame and ✗ where no hypothesis of the class fits. The first
    panel numbers the points: each title lists the signs in that order. The star marks the
    last point, the one the widget moves."""
    count = len(grid.labelings)
    cols = min(count, 8)
    rows = math.ceil(count / cols)
    height = 1.5 * rows + 0.4
    fig = Figure(figsize=(1.45 * cols, height))  # many small axes: a fixed layout is faster
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - 0.5 / height, wspace=0.08,
                        hspace=0.3)
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    limits = _limits(grid.points)
    for k, (ax, labels, witness) in enumerate(zip(axes, grid.labelings, grid.witnesses,
                                                  strict=False)):
        ax.set_xlim(*limits[:2])
        ax.set_ylim(*limits[2:])
        if witness is not None:
            _draw_witness(ax, witness, limits)
        _draw_points(ax, grid.points, labels, numbered=k == 0)
        signs = "".join("+" if v > 0 else "−" for v in labels)
        ax.set_title(f"{signs} {'✓' if witness is not None else '✗'}", fontsize=8,
                     color="black" if witness is not None else "red")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_aspect("equal")
        if witness is None:
            for spine in ax.spines.values():
                spine.set_color("red")
                spine.set_linewidth(2)
    for ax in axes[count:]:
        ax.set_axis_off()
    realized = int(grid.realizable.sum())
    verdict = "shattered" if grid.shattered else "not shattered"
    fig.suptitle(title or f"{grid.hclass.name}: {realized} of {count} labellings realizable, "
                 f"{verdict}", fontsize=10)
    return fig


def show_configuration(configuration: str, dx: float = 0.0, dy: float = 0.0) -> Figure:
    """The point-placement widget's frame: a preset, its starred point moved by (dx, dy), and
    every labelling drawn (:func:`show_labelings`)."""
    hclass, points = moved(configuration, dx, dy)
    return show_labelings(labeling_grid(hclass, points))


# --- Growth function and Sauer's lemma ----------------------------------------------------------


@dataclass(frozen=True)
class GrowthCurve:
    """Π_H(m) for one class next to Sauer's bound, m = 1..len(m).

    Attributes
    ----------
    name : str
    vc : int
        The class's VC dimension d.
    m : ndarray of int, shape (k,)
    growth : ndarray of int, shape (k,)
        The most labellings the class realizes on m points.
    sauer : ndarray of int, shape (k,)
        Σ_{i<=d} C(m, i).
    """

    name: str
    vc: int
    m: np.ndarray
    growth: np.ndarray
    sauer: np.ndarray


def growth_curves(m_max: int = 8) -> list[GrowthCurve]:
    """The growth functions of four classes, on point sets that attain them.

    On the line any m distinct points do; for half-planes, points in general position (here on
    a parabola, no three collinear), which give Cover's count m² - m + 2.
    """
    m = np.arange(1, m_max + 1)
    line = np.arange(float(m_max))
    parabola = np.array([[i, i * i] for i in range(m_max)], dtype=float)
    classes = [(vc.HALF_LINES, 1, line), (vc.INTERVALS, 2, line), (vc.HALF_PLANES, 3, parabola),
               (vc.unions_of_intervals(2), 4, line)]
    return [GrowthCurve(hclass.name, d, m,
                        np.array([vc.count_labelings(hclass, pool[:k]) for k in m]),
                        np.array([vc.sauer_bound(k, d) for k in m]))
            for hclass, d, pool in classes]


def show_growth(curves: list[GrowthCurve]) -> Figure:
    """One panel per class: 2^m, Sauer's bound and the growth function, on a log scale."""
    fig, axes = figure(len(curves), width=3.3, height=3.2)
    for ax, curve in zip(axes, curves, strict=True):
        ax.plot(curve.m, 2.0**curve.m, color="grey", linestyle=":", label="2^m")
        ax.plot(curve.m, curve.sauer, color="tab:red", linestyle="--", label="Sauer bound")
        ax.plot(curve.m, curve.growth, "o-", ms=4, color=POSITIVE, label="growth Π(m)")
        ax.axvline(curve.vc, color="black", linewidth=0.6)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("m (points)")
        ax.set_title(f"{curve.name} (VC = {curve.vc})", fontsize=10)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("labellings")
    return fig


def vc_table(searches: dict[str, vc.VCSearch]) -> str:
    """Markdown: one row per search, with the witness and the shattered/examined counts."""
    rows = []
    for name, search in searches.items():
        witness = "; ".join("(" + ", ".join(f"{v:g}" for v in point) + ")"
                            for point in search.witness)
        counts = ", ".join(f"{s}/{e}" for s, e in zip(search.shattered, search.examined,
                                                         strict=True))
        rows.append([name, search.dimension, witness, counts])
    return markdown_table(["class and pool", "VC found", "a shattered set",
                           "shattered/examined by size 1, 2, …"], rows)
