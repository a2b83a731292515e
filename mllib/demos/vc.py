"""Widgets and tables for the VC walk-through (lecture 04).

Sources: CS446 slides (seed 001), "Shattering", "VC Dimension", "Learning Rectangles" and
"Data dependent VC dimension"; Sauer's lemma for the growth function.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle as Box

from mllib import vc
from mllib.demos.live import animate
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


def rectangle_error(learned: vc.Rectangle, target: vc.Rectangle) -> float:
    """The exact error of ``learned`` against ``target`` for points uniform on the unit square:
    the area of their symmetric difference inside [0, 1]², area(A) + area(B) - 2·area(A ∩ B)."""
    def clipped(box: vc.Rectangle) -> tuple[float, float, float, float]:
        return (max(box.x_lo, 0.0), min(box.x_hi, 1.0), max(box.y_lo, 0.0), min(box.y_hi, 1.0))

    def area(x_lo: float, x_hi: float, y_lo: float, y_hi: float) -> float:
        return max(x_hi - x_lo, 0.0) * max(y_hi - y_lo, 0.0)

    a, b = clipped(learned), clipped(target)
    both = (max(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), min(a[3], b[3]))
    return area(*a) + area(*b) - 2 * area(*both)


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
        exact = witness.exact and (witness.exact[0], witness.exact[1] * Fraction(unit))
        return vc.HalfPlane(witness.w, witness.b * unit, exact)
    if isinstance(witness, vc.Rectangle):
        return vc.Rectangle(witness.x_lo * unit, witness.x_hi * unit, witness.y_lo * unit,
                            witness.y_hi * unit)
    if isinstance(witness, vc.Intervals):
        return vc.Intervals(tuple((lo * unit, hi * unit) for lo, hi in witness.bounds))
    if isinstance(witness, vc.HalfLine):
        return vc.HalfLine(witness.a * unit)
    raise ValueError(f"cannot draw a {type(witness).__name__} witness.")


# How a witness is shaded: a filled region, a band on the line, and their outlines.
SHADE = {"color": POSITIVE, "alpha": 0.18, "linewidth": 0}
BAND = {"color": POSITIVE, "linewidth": 7, "alpha": 0.35, "solid_capstyle": "butt"}
BOX = {"edgecolor": POSITIVE, "facecolor": POSITIVE, "alpha": 0.25}
BOUNDARY = {"color": POSITIVE, "linewidth": 1}


@dataclass(frozen=True)
class WitnessShape:
    """Where a witness is shaded inside a panel's ``limits``, in panel coordinates.

    Attributes
    ----------
    region : ndarray of shape (k, 2) or None
        The polygon where a half-plane says +1 (clipped to the panel), with ``boundary``, the
        segment (2, 2) of its line inside the panel, or None.
    box : tuple (x, y, width, height) or None
        A rectangle's part inside the panel.
    bands : tuple of ndarray of shape (2, 2)
        Segments on y = 0 where a half-line or intervals say +1.
    """

    region: np.ndarray | None = None
    boundary: np.ndarray | None = None
    box: tuple[float, float, float, float] | None = None
    bands: tuple[np.ndarray, ...] = ()


def witness_shape(witness, limits) -> WitnessShape:
    """Where ``witness`` says +1 inside the panel ``limits`` (x_lo, x_hi, y_lo, y_hi), with no
    padding: what is shaded is the hypothesis."""
    x_lo, x_hi, y_lo, y_hi = limits
    if isinstance(witness, vc.HalfPlane):
        corners = np.array([[x_lo, y_lo], [x_hi, y_lo], [x_hi, y_hi], [x_lo, y_hi]])
        region = _inside(corners, witness.w, witness.b - 1e-12 * (not np.any(witness.w)))
        if not len(region):
            return WitnessShape()
        # The boundary line: the region's corners that lie on w·x + b = 0.
        on_line = region[np.isclose(region @ witness.w + witness.b, 0, atol=1e-9)]
        return WitnessShape(region=region, boundary=on_line if len(on_line) == 2 else None)
    if isinstance(witness, vc.Rectangle) and witness.x_lo <= witness.x_hi:
        left, right = max(witness.x_lo, x_lo), min(witness.x_hi, x_hi)
        bottom, top = max(witness.y_lo, y_lo), min(witness.y_hi, y_hi)
        return WitnessShape(box=(left, bottom, right - left, top - bottom))
    if isinstance(witness, vc.Intervals):
        return WitnessShape(bands=tuple(np.array([[max(lo, x_lo), 0.0], [min(hi, x_hi), 0.0]])
                                        for lo, hi in witness.bounds))
    if isinstance(witness, vc.HalfLine) and witness.a > x_lo:
        return WitnessShape(bands=(np.array([[x_lo, 0.0], [min(witness.a, x_hi), 0.0]]),))
    return WitnessShape()


def _draw_witness(ax: Axes, witness, limits, shift: np.ndarray) -> list:
    """Shade where the witness says +1, inside the panel ``limits`` moved by ``shift`` (2,).
    Returns the artists that shade it (the boundary line is not one)."""
    shape = witness_shape(witness, limits)
    drawn = []
    if shape.region is not None:
        drawn += ax.fill(*(shape.region + shift).T, **SHADE)
        if shape.boundary is not None:
            ax.plot(*(shape.boundary + shift).T, **BOUNDARY)
    if shape.box is not None:
        x, y, width, height = shape.box
        drawn.append(ax.add_patch(Box((x + shift[0], y + shift[1]), width, height, **BOX)))
    for band in shape.bands:
        drawn += ax.plot(*(band + shift).T, **BAND)
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
    shaded in blue, and a thick pink frame and ✗ where no hypothesis of the class fits. The first
    panel numbers the points: each title lists the signs in that order. The star marks the
    last point, the one the widget moves.

    The witness is the widest-margin one (:func:`mllib.vc.realize`), drawn without padding, so
    the shading holds exactly the positive points. All panels share one axes, each shifted to
    its place in the grid: one axes draws far faster than 2ⁿ small ones, which is what keeps the
    point-placement widget quick. The figure's ``panels`` attribute lists the :class:`Panel` s
    in the order of ``grid.labelings``.
    """
    xy = _plane(grid.points) * grid.unit
    limits = _limits(xy)
    fig, ax, shifts = _panel_grid(len(grid.labelings), limits)
    panels = []
    for labels, witness, shift in zip(grid.labelings, grid.witnesses, shifts, strict=True):
        shown = None if witness is None else scaled(witness, grid.unit)
        artists = () if shown is None else tuple(_draw_witness(ax, shown, limits, shift))
        panels.append(Panel(labels, _panel_title(labels, witness is not None), witness is not None,
                            shift, shown, artists))
    _draw_panel_frames(ax, panels, limits)
    for label, colour, marker in ((1, POSITIVE, "o"), (-1, NEGATIVE, "s")):
        drawn = np.vstack([xy[p.labels == label] + p.shift for p in panels])
        ax.scatter(drawn[:, 0], drawn[:, 1], s=28, c=colour, marker=marker, zorder=3,
                   edgecolors="black", linewidths=0.5)
    stars = xy[-1] + shifts
    ax.scatter(stars[:, 0], stars[:, 1], **STAR)
    for i, (x, y) in enumerate(xy + shifts[0], start=1):
        ax.annotate(str(i), (x, y), **NUMBER)
    realized = int(grid.realizable.sum())
    count = len(grid.labelings)
    verdict = "shattered" if grid.shattered else "not shattered"
    fig.suptitle(title or f"{grid.hclass.name}: {realized} of {count} labellings realizable, "
                 f"{verdict}", fontsize=10)
    fig.panels = tuple(panels)
    return describe(fig, labelings_text(grid, panels))


# The star on the moved point, and the points' numbers in the first panel.
STAR = {"s": 98, "marker": "*", "facecolors": "none", "edgecolors": "black", "linewidths": 0.7,
        "zorder": 4}
NUMBER = {"xytext": (4, 4), "textcoords": "offset points", "fontsize": 7, "zorder": 5}


def _panel_grid(count: int, limits) -> tuple[Figure, Axes, np.ndarray]:
    """A figure with one axes for ``count`` panels of the square view ``limits``, 8 to a row.
    Returns it with each panel's shift, shape (count, 2): a point at p in the view is drawn at
    p + shift. Panel k's frame spans [shift + limits]: the first starts at x = 0 and y = 0."""
    cols = min(count, 8)
    rows = math.ceil(count / cols)
    side = limits[1] - limits[0]  # the view is square
    step_x, step_y = 1.12 * side, 1.3 * side  # room between panels, and for a title above each
    height = 1.5 * rows + 0.4
    fig = Figure(figsize=(1.45 * cols, height))
    ax = fig.add_axes((0.01, 0.01, 0.98, 1 - 0.5 / height))
    ax.set_axis_off()
    ax.set_xlim(-0.02 * side, (cols - 1) * step_x + side + 0.02 * side)
    ax.set_ylim(-(rows - 1) * step_y - 0.02 * side, side * 1.25)
    ax.set_aspect("equal")  # the axes box shrinks to fit; the limits stay
    k = np.arange(count)
    shifts = np.column_stack([(k % cols) * step_x - limits[0], -(k // cols) * step_y - limits[2]])
    return fig, ax, shifts


def _panel_title(labels: np.ndarray, realizable: bool) -> str:
    """The signs in point order, and ✓ or ✗."""
    return f"{''.join('+' if v > 0 else '−' for v in labels)} {'✓' if realizable else '✗'}"


def _frame_style(realizable: bool) -> dict:
    return ({"edgecolor": "0.6", "linewidth": 0.8} if realizable
            else {"edgecolor": UNREALIZABLE, "linewidth": 2})


def _draw_panel_frames(ax: Axes, panels, limits) -> tuple[list, list]:
    """Each panel's title (black: text needs 4.5:1) and frame; returns (titles, frames)."""
    side = limits[1] - limits[0]
    titles, frames = [], []
    for panel in panels:
        x, y = panel.shift[0] + limits[0], panel.shift[1] + limits[2]
        titles.append(ax.text(x + side / 2, panel.shift[1] + limits[3] + 0.05 * side,
                              panel.title, ha="center", va="bottom", fontsize=8, color="black"))
        frames.append(Box((x, y), side, side, fill=False, **_frame_style(panel.realizable)))
    for frame in frames:
        ax.add_patch(frame)
    return titles, frames


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


# The sliders move the star at most this far from its preset place, along each axis.
SLIDER_REACH = 2.0


@dataclass(frozen=True)
class _ConfigurationView:
    """The point-placement widget's figure for one preset, and what each frame updates."""

    fig: Figure
    ax: Axes
    limits: tuple[float, float, float, float]
    shifts: np.ndarray
    titles: list
    frames: list
    moved: tuple  # the moved point's markers in the panels where it is +1, and where -1
    stars: object
    number: object
    pools: tuple  # per panel: (region, boundary, box, band, band)


def _witness_pool(ax: Axes, hclass: vc.HypothesisClass) -> tuple:
    """One panel's shading artists for ``hclass``, hidden until a witness needs them: a
    half-plane's region and boundary, a rectangle, or two bands on the line (None for the
    kinds the class never draws: fewer artists to build)."""
    plane, boxes = hclass is vc.HALF_PLANES, hclass is vc.RECTANGLES
    region = ax.fill([0, 1, 1], [0, 0, 1], **SHADE)[0] if plane else None
    boundary = ax.plot([], [], **BOUNDARY)[0] if plane else None
    box = ax.add_patch(Box((0, 0), 0, 0, **BOX)) if boxes else None
    bands = [ax.plot([], [], **BAND)[0] if hclass.dim == 1 else None for _ in range(2)]
    pool = (region, boundary, box, *bands)
    drawn = [artist for artist in pool if artist is not None]
    for artist in drawn:
        artist.set_visible(False)
    animate(*drawn)
    return pool


@functools.lru_cache(maxsize=len(CONFIGURATIONS))
def _configuration_view(configuration: str) -> _ConfigurationView:
    """Build the widget's figure for a preset once: one panel per labelling, each holding
    every place the sliders can put the star, so that panels, frames, titles and the fixed
    points stay; the moved point, the star, its number, the shading, the frames and titles
    whose verdict changes and the caption move."""
    grid = placed(configuration, 0.0, 0.0)
    xy = _plane(grid.points) * grid.unit
    reach = np.array([SLIDER_REACH, SLIDER_REACH if grid.hclass.dim == 2 else 0.0])
    limits = _limits(np.vstack([xy, xy[-1] - reach, xy[-1] + reach]))
    fig, ax, shifts = _panel_grid(len(grid.labelings), limits)
    pools = tuple(_witness_pool(ax, grid.hclass) for _ in shifts)
    panels = [Panel(labels, _panel_title(labels, True), True, shift)
              for labels, shift in zip(grid.labelings, shifts, strict=True)]
    titles, frames = _draw_panel_frames(ax, panels, limits)
    moved, fixed = [], []
    for label, colour, marker in ((1, POSITIVE, "o"), (-1, NEGATIVE, "s")):
        places = np.vstack([xy[:-1][p.labels[:-1] == label] + p.shift for p in panels])
        fixed.append(ax.scatter(places[:, 0], places[:, 1], s=28, c=colour, marker=marker,
                                zorder=3, edgecolors="black", linewidths=0.5))
        moved.append(ax.scatter([], [], s=28, c=colour, marker=marker, zorder=3,
                                edgecolors="black", linewidths=0.5))
    stars = ax.scatter(*(xy[-1] + shifts).T, **STAR)
    numbers = [ax.annotate(str(i), (x, y), **NUMBER)
               for i, (x, y) in enumerate(xy + shifts[0], start=1)]
    ax.title.set_fontsize(10)
    # The points and their numbers move to the front with the shading (animated artists are
    # drawn over the static ones), so that the shading never covers them.
    animate(*fixed, *moved, stars, *numbers, ax.title)
    return _ConfigurationView(fig, ax, limits, shifts, titles, frames, tuple(moved), stars,
                              numbers[-1], pools)


def _show_witness(pool: tuple, witness, limits, shift: np.ndarray) -> tuple:
    """Shade ``witness`` (None: nothing) with a panel's pool; returns the artists that shade it
    (the boundary line is not one), as :func:`_draw_witness` does."""
    region, boundary, box, *bands = pool
    shape = WitnessShape() if witness is None else witness_shape(witness, limits)
    # A hidden artist is reset too, so that a frame never depends on the frames before it.
    if region is not None:
        region.set_xy(np.zeros((3, 2)) if shape.region is None else shape.region + shift)
        region.set_visible(shape.region is not None)
        boundary.set_data(*(np.zeros((2, 0)) if shape.boundary is None else
                            (shape.boundary + shift).T))
        boundary.set_visible(shape.boundary is not None)
    if box is not None:
        box.set_bounds(*((0.0, 0.0, 0.0, 0.0) if shape.box is None else
                         (shape.box[0] + shift[0], shape.box[1] + shift[1], *shape.box[2:])))
        box.set_visible(shape.box is not None)
    for i, band in enumerate(bands):
        if band is not None:
            band.set_data(*((shape.bands[i] + shift).T if i < len(shape.bands) else
                            np.zeros((2, 0))))
            band.set_visible(i < len(shape.bands))
    return ((region,) if shape.region is not None else ()) + \
        ((box,) if shape.box is not None else ()) + tuple(bands[:len(shape.bands)])


def show_configuration(configuration: str, dx: float = 0.0, dy: float = 0.0) -> Figure:
    """The point-placement widget's frame: a preset, its starred point moved by (dx, dy) on the
    sliders' grid of tenths (:func:`placed`), and every labelling drawn as
    :func:`show_labelings` draws it, in panels that hold every place the sliders reach. The
    caption prints the star's position as used.

    The figure is built once per preset and redrawn in place: each call returns the same
    Figure, whose ``panels`` describe this frame."""
    grid = placed(configuration, dx, dy)
    view = _configuration_view(configuration)
    xy = _plane(grid.points) * grid.unit
    panels = []
    for k, (labels, witness) in enumerate(zip(grid.labelings, grid.witnesses, strict=True)):
        shown = None if witness is None else scaled(witness, grid.unit)
        artists = _show_witness(view.pools[k], shown, view.limits, view.shifts[k])
        panels.append(Panel(labels, _panel_title(labels, witness is not None),
                            witness is not None, view.shifts[k], shown, artists))
        # Only a verdict that changed touches the static part (and so redraws it).
        view.titles[k].set_text(panels[-1].title)
        if (view.frames[k].get_linewidth() == 2) == panels[-1].realizable:
            view.frames[k].set(**_frame_style(panels[-1].realizable))
    last = grid.labelings[:, -1]
    for points, label in zip(view.moved, (1, -1), strict=True):
        points.set_offsets(xy[-1] + view.shifts[last == label])
    view.stars.set_offsets(xy[-1] + view.shifts)
    view.number.xy = tuple(xy[-1] + view.shifts[0])
    star = ", ".join(f"{v:.1f}" for v in grid.points[-1] * grid.unit)
    ignored = "; move y does nothing on the line" if grid.hclass.dim == 1 else ""
    verdict = "shattered" if grid.shattered else "not shattered"
    view.ax.title.set_text(f"{grid.hclass.name}: {int(grid.realizable.sum())} of "
                           f"{len(panels)} labellings realizable, {verdict} · ★ at ({star})"
                           f"{ignored}")
    view.fig.panels = tuple(panels)
    return describe(view.fig, f"{labelings_text(grid, panels)} The moved point, starred, is "
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
