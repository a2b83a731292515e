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
from mllib.plotting import NEGATIVE, PALETTE, POSITIVE, describe, figure, markdown_table

# The frame of a labelling no hypothesis realizes: a palette colour no class uses, and a thicker
# line and a ✗ in the panel's title, so that colour is not the only cue.
UNREALIZABLE = PALETTE[3]

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
        The points the checks ran on, in units of ``unit``.
    labelings : ndarray of shape (2ⁿ, n)
        In the order of :func:`mllib.vc.all_labelings`.
    witnesses : tuple
        For each labelling, the widest-margin hypothesis that realizes it
        (:func:`mllib.vc.realize`), or None; in the units of ``points``.
    unit : float
        The drawing scale: point i is drawn at ``points[i] * unit``.
    """

    hclass: vc.HypothesisClass
    points: np.ndarray
    labelings: np.ndarray
    witnesses: tuple
    unit: float = 1.0

    @property
    def realizable(self) -> np.ndarray:
        """Which labellings the class realizes, bool of shape (2ⁿ,)."""
        return np.array([w is not None for w in self.witnesses])

    @property
    def shattered(self) -> bool:
        """True when every labelling is realizable."""
        return bool(self.realizable.all())


def labeling_grid(hclass: vc.HypothesisClass, points, *, unit: float = 1.0) -> LabelingGrid:
    """Try every labelling of ``points`` (shape (n, dim), or (n,) on the line) with ``hclass``;
    ``unit`` is the scale they are drawn at (:class:`LabelingGrid`)."""
    points = np.asarray(points, dtype=float).reshape(-1, hclass.dim)
    labelings = vc.all_labelings(len(points))
    return LabelingGrid(hclass, points, labelings, vc.realize_all(hclass, points), float(unit))


# The sliders move the star in steps of 0.1; the presets' coordinates are tenths too.
SLIDER_STEP = 0.1


def moved(configuration: str, dx: float, dy: float) -> tuple[vc.HypothesisClass, np.ndarray]:
    """A preset with its last point moved by (dx, dy), in the decimals the sliders show (rounded
    to tenths, then to the nearest float); dy is ignored on the line."""
    hclass, points = CONFIGURATIONS[configuration]
    points = np.array(points, dtype=float)
    points[-1] = np.round(points[-1] + [dx, dy][: hclass.dim], 1)
    return hclass, points


def placed(configuration: str, dx: float, dy: float) -> LabelingGrid:
    """The widget's labelling grid: the checks run on the points counted in tenths (whole
    numbers, so exact), which is the geometry of the decimals on screen: a star the sliders put
    on the line through two points is on it, not one rounding error off."""
    hclass, points = moved(configuration, dx, dy)
    return labeling_grid(hclass, np.rint(points / SLIDER_STEP), unit=SLIDER_STEP)


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


def scaled(witness, unit: float):
    """The same hypothesis for points multiplied by ``unit`` > 0 (what :func:`show_labelings`
    draws): w·x + b > 0 becomes w·x + b·unit > 0, and every bound is multiplied by ``unit``."""
    if isinstance(witness, vc.HalfPlane):
        return vc.HalfPlane(witness.w, witness.b * unit)
    if isinstance(witness, vc.Rectangle):
        return vc.Rectangle(witness.x_lo * unit, witness.x_hi * unit, witness.y_lo * unit,
                            witness.y_hi * unit)
    if isinstance(witness, vc.Intervals):
        return vc.Intervals(tuple((lo * unit, hi * unit) for lo, hi in witness.bounds))
    if isinstance(witness, vc.HalfLine):
        return vc.HalfLine(witness.a * unit)
    raise ValueError(f"cannot draw a {type(witness).__name__} witness.")


def _draw_witness(ax: Axes, witness, limits, shift: np.ndarray) -> list:
    """Shade where the witness says +1, inside the panel ``limits`` moved by ``shift`` (2,), with
    no padding: what is shaded is the hypothesis. Returns the artists drawn."""
    x_lo, x_hi, y_lo, y_hi = limits
    dx, dy = shift
    shade = {"color": POSITIVE, "alpha": 0.18, "linewidth": 0}
    band = {"color": POSITIVE, "linewidth": 7, "alpha": 0.35, "solid_capstyle": "butt"}
    drawn = []
    if isinstance(witness, vc.HalfPlane):
        corners = np.array([[x_lo, y_lo], [x_hi, y_lo], [x_hi, y_hi], [x_lo, y_hi]])
        region = _inside(corners, witness.w, witness.b - 1e-12 * (not np.any(witness.w)))
        if len(region):
            drawn += ax.fill(region[:, 0] + dx, region[:, 1] + dy, **shade)
            # The boundary line: the region's corners that lie on w·x + b = 0.
            on_line = region[np.isclose(region @ witness.w + witness.b, 0, atol=1e-9)]
            if len(on_line) == 2:
                ax.plot(on_line[:, 0] + dx, on_line[:, 1] + dy, color=POSITIVE, linewidth=1)
    elif isinstance(witness, vc.Rectangle) and witness.x_lo <= witness.x_hi:
        left, right = max(witness.x_lo, x_lo), min(witness.x_hi, x_hi)
        bottom, top = max(witness.y_lo, y_lo), min(witness.y_hi, y_hi)
        drawn.append(ax.add_patch(Box((left + dx, bottom + dy), right - left, top - bottom,
                                      edgecolor=POSITIVE, facecolor=POSITIVE, alpha=0.25)))
    elif isinstance(witness, vc.Intervals):
        for lo, hi in witness.bounds:
            drawn += ax.plot([max(lo, x_lo) + dx, min(hi, x_hi) + dx], [dy, dy], **band)
    elif isinstance(witness, vc.HalfLine) and witness.a > x_lo:
        drawn += ax.plot([x_lo + dx, min(witness.a, x_hi) + dx], [dy, dy], **band)
    return drawn


def _plane(points: np.ndarray) -> np.ndarray:
    """Points as 2-D coordinates, shape (n, 2): points on the line get y = 0."""
    return points if points.shape[1] == 2 else np.hstack([points, np.zeros_like(points)])


@dataclass(frozen=True)
class Panel:
    """Where :func:`show_labelings` drew one labelling.

    Attributes
    ----------
    labels : ndarray of shape (n,)
    title : str
        The signs in point order and ✓ or ✗.
    realizable : bool
    shift : ndarray of shape (2,)
        The panel's offset in the figure's single axes: point i is drawn at
        points[i]·unit + shift.
    witness : hypothesis or None
        The hypothesis shaded, in drawn coordinates (before the shift).
    artists : tuple
        The matplotlib artists that shade it (a patch, a filled polygon or line bands).
    """

    labels: np.ndarray
    title: str
    realizable: bool
    shift: np.ndarray
    witness: object = None
    artists: tuple = ()


def show_labelings(grid: LabelingGrid, *, title: str | None = None) -> Figure:
    """One small panel per labelling: the points (+ blue circles, - orange squares), the witness
    shaded in blue, and a red frame and ✗ where no hypothesis of the class fits. The first
    panel numbers the points: each title lists the signs in that order. The star marks the
    last point, the one the widget moves.

    The witness is the widest-margin one (:func:`mllib.vc.realize`), drawn without padding, so
    the shading holds exactly the positive points. All panels share one axes, each shifted to
    its place in the grid: one axes draws far faster than 2ⁿ small ones, which is what keeps the
    point-placement widget quick. The figure's ``panels`` attribute lists the :class:`Panel` s
    in the order of ``grid.labelings``.
    """
    count = len(grid.labelings)
    cols = min(count, 8)
    rows = math.ceil(count / cols)
    xy = _plane(grid.points) * grid.unit
    limits = _limits(xy)
    side = limits[1] - limits[0]  # the view is square
    step_x, step_y = 1.12 * side, 1.3 * side  # room between panels, and for a title above each
    height = 1.5 * rows + 0.4
    fig = Figure(figsize=(1.45 * cols, height))
    ax = fig.add_axes((0.01, 0.01, 0.98, 1 - 0.5 / height))
    ax.set_axis_off()
    panels, frames = [], []
    signs_xy: dict[int, list[np.ndarray]] = {1: [], -1: []}
    for k, (labels, witness) in enumerate(zip(grid.labelings, grid.witnesses, strict=True)):
        shift = np.array([(k % cols) * step_x - limits[0], -(k // cols) * step_y - limits[2]])
        shown = None if witness is None else scaled(witness, grid.unit)
        artists = () if shown is None else tuple(_draw_witness(ax, shown, limits, shift))
        for label in (1, -1):
            signs_xy[label].append(xy[labels == label] + shift)
        signs = "".join("+" if v > 0 else "−" for v in labels)
        name = f"{signs} {'✓' if witness is not None else '✗'}"
        ax.text(shift[0] + limits[0] + side / 2, shift[1] + limits[3] + 0.05 * side, name,
                ha="center", va="bottom", fontsize=8, color="black")
        frames.append(Box((shift[0] + limits[0], shift[1] + limits[2]), side, side,
                          fill=False, edgecolor=UNREALIZABLE if witness is None else "0.6",
                          linewidth=2 if witness is None else 0.8))
        panels.append(Panel(labels, name, witness is not None, shift, shown, artists))
    for frame in frames:
        ax.add_patch(frame)
    for label, colour, marker in ((1, POSITIVE, "o"), (-1, NEGATIVE, "s")):
        drawn = np.vstack(signs_xy[label]) if signs_xy[label] else np.zeros((0, 2))
        ax.scatter(drawn[:, 0], drawn[:, 1], s=28, c=colour, marker=marker, zorder=3,
                   edgecolors="black", linewidths=0.5)
    stars = np.array([xy[-1] + panel.shift for panel in panels])
    ax.scatter(stars[:, 0], stars[:, 1], s=98, marker="*", facecolors="none",
               edgecolors="black", linewidths=0.7, zorder=4)
    for i, (x, y) in enumerate(xy + panels[0].shift, start=1):
        ax.annotate(str(i), (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7,
                    zorder=5)
    # Panel k's frame spans [shift + limits]: the first starts at x = 0 and y = 0.
    ax.set_xlim(-0.02 * side, (cols - 1) * step_x + side + 0.02 * side)
    ax.set_ylim(-(rows - 1) * step_y - 0.02 * side, side * 1.25)
    ax.set_aspect("equal")  # the axes box shrinks to fit; the limits stay
    realized = int(grid.realizable.sum())
    verdict = "shattered" if grid.shattered else "not shattered"
    fig.suptitle(title or f"{grid.hclass.name}: {realized} of {count} labellings realizable, "
                 f"{verdict}", fontsize=10)
    fig.panels = tuple(panels)
    return describe(fig, labelings_text(grid, panels))


def labelings_text(grid: LabelingGrid, panels) -> str:
    """The alt text of :func:`show_labelings`: the points, the count, and which labellings no
    hypothesis realizes."""
    drawn = grid.points * grid.unit
    places = ", ".join("(" + ", ".join(f"{v:g}" for v in point) + ")" for point in drawn)
    failing = [panel.title.split()[0] for panel in panels if not panel.realizable]
    verdict = "shattered" if grid.shattered else "not shattered"
    missing = (f"no hypothesis realizes {', '.join(failing)} (framed, marked ✗)" if failing
               else "every labelling has one")
    return (f"{grid.hclass.name} on {len(drawn)} points, numbered 1 to {len(drawn)} at {places}: "
            f"{int(grid.realizable.sum())} of {len(panels)} labellings realizable, {verdict}. "
            f"One panel per labelling (circles +, squares −, signs in point order) with a "
            f"realizing hypothesis shaded; {missing}.")


def show_configuration(configuration: str, dx: float = 0.0, dy: float = 0.0) -> Figure:
    """The point-placement widget's frame: a preset, its starred point moved by (dx, dy) on the
    sliders' grid of tenths (:func:`placed`), and every labelling drawn (:func:`show_labelings`).
    The caption prints the star's position as used."""
    grid = placed(configuration, dx, dy)
    fig = show_labelings(grid)
    star = ", ".join(f"{v:.1f}" for v in grid.points[-1] * grid.unit)
    ignored = "; move y does nothing on the line" if grid.hclass.dim == 1 else ""
    fig.suptitle(f"{fig.get_suptitle()} · ★ at ({star}){ignored}", fontsize=10)
    return describe(fig, f"{labelings_text(grid, fig.panels)} The moved point, starred, is "
                         f"point {len(grid.points)}, at ({star}){ignored}.")


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
    """One panel per class: 2^m, Sauer's bound and the growth function, on a log scale.

    Sauer's bound is a broad translucent band under the growth curve's markers, so it stays
    visible where the two coincide (on the line the lemma is tight); the vertical line is
    m = VC.
    """
    fig, axes = figure(len(curves), width=3.3, height=3.2)
    for ax, curve in zip(axes, curves, strict=True):
        ax.plot(curve.m, 2.0**curve.m, color="grey", linestyle=":", label="2^m")
        ax.plot(curve.m, curve.sauer, color=PALETTE[1], linewidth=6, alpha=0.4,
                solid_capstyle="round", label="Sauer bound")
        ax.plot(curve.m, curve.growth, "o-", ms=4, color=POSITIVE, label="growth Π(m)")
        ax.axvline(curve.vc, color="black", linewidth=0.6, label=f"m = VC = {curve.vc}")
        ax.set_yscale("log", base=2)
        ax.set_xlabel("m (points)")
        ax.set_title(f"{curve.name} (VC = {curve.vc})", fontsize=10)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("labellings")
    return describe(fig, "The growth function Π(m), the most labellings a class realizes on m "
                         "points, against Sauer's bound and 2^m, log scale. " + "; ".join(
                             _growth_text(curve) for curve in curves) + ".")


def _growth_text(curve: GrowthCurve) -> str:
    """One class's growth curve in words: where it leaves 2^m and whether it meets Sauer's
    bound."""
    below = curve.m[curve.growth < 2.0**curve.m]
    leaves = f"below 2^m from m = {below[0]}" if len(below) else "2^m throughout"
    tight = np.flatnonzero(curve.growth < curve.sauer)
    sauer = ("equal to Sauer's bound at every m" if len(tight) == 0 else
             f"below Sauer's bound from m = {curve.m[tight[0]]}")
    return (f"{curve.name} (VC = {curve.vc}): Π({curve.m[-1]}) = {curve.growth[-1]} of "
            f"{2 ** int(curve.m[-1])}, {leaves}, {sauer}")


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
