"""Widgets, figures and tables for the nearest-neighbour walk-through (lecture 09).

Sources: MMDS §12.4 (Example 12.11 and Fig. 12.21 with its footnote, §12.4.2 on building and
searching a Voronoi diagram, Example 12.12 and Figs. 12.22-12.23, Example 12.13 and Fig. 12.24,
§12.4.5 on high dimensions, §12.4.6 on locality-sensitive hashing), §12.5 (categorical
features, the curse of dimensionality).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from mllib import data
from mllib import neighbors as N
from mllib.demos.live import animate
from mllib.plotting import (
    MARKERS,
    NEGATIVE,
    PALETTE,
    POSITIVE,
    describe,
    figure,
    markdown_table,
    scatter_labelled,
    share_and_se,
)

GRID = 120  # cells per side of a decision-region picture
KNN_LEGEND_INCHES = 1.5  # a column right of the k-NN widget's axes for its legend
BREED_COLOURS = PALETTE[:3]  # apart under simulated colour blindness (tests/test_plotting.py)
BREED_MARKERS = MARKERS[:3]
REGION_ALPHA = 0.3  # regions are tints of their class's colour; the points keep the full colour


def _fraction(value: float) -> str:
    """A weight as the book prints it: 4/25, 16, 8/9."""
    f = Fraction(value).limit_denominator(10_000)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def fig_12_24_table(q: float = 3.5) -> str:
    """MMDS Fig. 12.24 as a Markdown table: lines (1)-(4) for the query q with the weights
    1/(x - q)², then the two sums and the estimate, to the book's two decimals. A q on a
    training point (weight 1/0) raises ValueError."""
    x, y = data.mmds_peak()
    if np.any(x == q):
        raise ValueError(f"q = {q:g} is a training point: its weight 1/(x − q)² is infinite, "
                         "so the figure's lines (3) and (4) are undefined there.")
    w = N.kernel_weights(x, q)
    rows = [
        ["(1)", "xᵢ", *(f"{v:g}" for v in x), ""],
        ["(2)", "yᵢ", *(f"{v:g}" for v in y), ""],
        ["(3)", "wᵢ", *map(_fraction, w), f"Σ = {w.sum():.2f}"],
        ["(4)", "wᵢ yᵢ", *map(_fraction, w * y), f"Σ = {(w * y).sum():.2f}"],
    ]
    estimate = N.kernel_regression(x, y, [q])[0]
    table = markdown_table(["", "", *[""] * len(x), "sum"], rows)
    ratio = f"{(w * y).sum():.2f} / {w.sum():.2f} = {estimate:.2f}"
    return table + f"\n\nEstimate at q = {q:g}: {ratio}"


def book_extrapolation(q: np.ndarray) -> np.ndarray:
    """One reading of what MMDS says rule 3 does for 0 < q < 1: its formula with the signed
    weight 1/(q − 1) < 0, which is the line through (1, 1) and (2, 2)."""
    x, y = data.mmds_peak()
    return N.signed_two_point_rule(x[0], y[0], x[1], y[1], q)


def show_rules(resolution: int = 801) -> Figure:
    """MMDS Figs. 12.22-12.23: the four rules of Example 12.12 on the book's data, queries from 0
    to 8. Panel 3 also draws, dashed, the straight-line extrapolation the book describes."""
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, resolution)
    fig, axes = figure(4, width=3.4, height=3.0)
    ranges = []
    for ax, rule in zip(axes, N.EX_12_12_RULES, strict=True):
        estimate = N.one_d_rule(x, y, q, rule)
        ranges.append(f"{rule} from {estimate.min():.2f} to {estimate.max():.2f}")
        ax.plot(q, estimate, color=POSITIVE, lw=1.5, label="estimate")
        ax.plot(x, y, "ko", ms=4, label="training points")
        ax.set_title(rule, fontsize=10)
        ax.set_xlabel("query q")
        ax.set_ylim(0, 9)
    axes[0].set_ylabel("estimated label")
    low = q <= 1
    axes[2].plot(q[low], book_extrapolation(q[low]), "--", color=NEGATIVE, lw=1,
                 label="signed weights")
    axes[2].legend(fontsize=6, loc="upper left", handlelength=1.2)  # small: clear of the peak
    return describe(fig, f"The four rules of MMDS Example 12.12 on {len(x)} training points "
                         f"peaking at y = {y.max():g} (x = {x[np.argmax(y)]:g}), queries 0 to 8: "
                         f"{'; '.join(ranges)}. Dashed in the third panel, the line "
                         f"y = q for q < 1 that signed weights give.")


def _breed_shares(labels: np.ndarray, breeds) -> str:
    """'Chihuahua 31%, ...': the share of the window each breed's region covers."""
    return ", ".join(f"{name} {np.mean(labels == b):.0%}" for b, name in enumerate(breeds))


def _dogs_sentence(y: np.ndarray, breeds) -> str:
    """'7 dogs (3 Chihuahuas, 2 Dachshunds, 2 Beagles) by height and weight'."""
    counts = ", ".join(f"{np.sum(y == b)} {name}s" for b, name in enumerate(breeds))
    return f"{len(y)} dogs ({counts}) by height and weight"


def _dog_grid(n: int, margin: float = 4.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An n × n grid over the dogs' picture (``margin`` units beyond the dogs on every side;
    the picture's window is 4)."""
    X, _, _ = data.dogs()
    lo, hi = X.min(axis=0) - margin, X.max(axis=0) + margin
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n))
    return gx, gy, np.column_stack([gx.ravel(), gy.ravel()])


@dataclass(frozen=True)
class Witness:
    """Two queries a breed's region holds whose midpoint it does not (MMDS Ex. 12.11, note 2).

    ``depth`` is the smallest of three margins, each (distance to the nearest dog of another
    breed) − (distance to the nearest dog of the breed the point is classified as): how far p₁,
    p₂ and the midpoint sit inside their regions.
    """

    breed: int
    p1: np.ndarray  # (2,)
    p2: np.ndarray
    midpoint: np.ndarray
    midpoint_breed: int
    depth: float


def _margin(X: np.ndarray, y: np.ndarray, points: np.ndarray, breed: int) -> np.ndarray:
    """(nearest dog not of ``breed``) − (nearest dog of ``breed``), one per point: positive
    exactly when 1-NN classifies the point as ``breed``."""
    D = N.pairwise_distances(points, X)
    return D[:, y != breed].min(axis=1) - D[:, y == breed].min(axis=1)


# How far beyond the dogs the search for a witness reaches when the picture's window (4 units)
# holds none: the Chihuahuas' region loses a midpoint only to pairs reaching past it.
WIDE_MARGIN = 25.0


@lru_cache(maxsize=6)  # three breeds, in the window and beyond it
def nonconvex_witness(breed: int, n: int = 41, margin: float = 4.0) -> Witness | None:
    """The deepest witness that a breed's 1-NN region is not convex, searched over pairs of an
    n × n grid reaching ``margin`` beyond the dogs (4: the picture's window), or None when there
    is none there (the region can still be non-convex beyond it)."""
    X, y, _ = data.dogs()
    *_, grid = _dog_grid(n, margin)
    inside = grid[_margin(X, y, grid, breed) > 0]
    depth_in = _margin(X, y, inside, breed)
    mids = (inside[:, None] + inside[None]) / 2
    depth_out = -_margin(X, y, mids.reshape(-1, 2), breed).reshape(len(inside), len(inside))
    score = np.minimum(np.minimum(depth_in[:, None], depth_in[None]), depth_out)
    i, j = np.unravel_index(np.argmax(score), score.shape)
    if score[i, j] <= 0:
        return None
    mid = mids[i, j]
    label = int(N.knn_predict(X, y, mid[None], k=1)[0])
    return Witness(breed, inside[i], inside[j], mid, label, float(score[i, j]))


def voronoi_walls(n: int = 300) -> set[tuple[int, int]]:
    """The pairs of dogs whose cells share a wall inside the picture, read off an n × n grid."""
    X, _, _ = data.dogs()
    gx, _, grid = _dog_grid(n)
    cell = N.kneighbors(X, grid, k=1)[1][:, 0].reshape(gx.shape)
    pairs = set()
    for a, b in ((cell[:, 1:], cell[:, :-1]), (cell[1:], cell[:-1])):
        step = a != b
        pairs |= {(int(min(u, v)), int(max(u, v))) for u, v in zip(a[step], b[step], strict=True)}
    return pairs


def show_voronoi() -> Figure:
    """A Voronoi picture in the spirit of MMDS Fig. 12.21: each dog's cell (the queries it is
    nearest to) coloured by breed, cell boundaries drawn, and for each breed whose region is not
    convex a dotted segment between two of its points whose midpoint (a cross) it loses.
    The dogs' coordinates are ours."""
    X, y, breeds = data.dogs()
    gx, gy, queries = _dog_grid(300)
    _, idx = N.kneighbors(X, queries, k=1)
    cell = idx[:, 0].reshape(gx.shape)
    fig, (ax,) = figure(1, width=6.0, height=4.8)
    ax.pcolormesh(gx, gy, y[cell], cmap=ListedColormap(BREED_COLOURS), alpha=0.25,
                  shading="auto", vmin=-0.5, vmax=2.5)
    # Walls differ by width, not colour: thin between dogs, thick where the breed changes.
    ax.contour(gx, gy, cell, levels=np.arange(len(X)) + 0.5, colors="black", linewidths=0.5)
    ax.contour(gx, gy, y[cell], levels=[0.5, 1.5], colors="black", linewidths=2.0)
    for b, (name, marker) in enumerate(zip(breeds, BREED_MARKERS, strict=True)):
        ax.scatter(*X[y == b].T, c=BREED_COLOURS[b], marker=marker, s=60, edgecolors="black",
                   label=name, zorder=3)
    for b in range(len(breeds)):
        w = nonconvex_witness(b)
        if w is not None:
            ax.plot(*np.array([w.p1, w.p2]).T, ":o", color=BREED_COLOURS[b], ms=4, lw=1.5)
            ax.plot(*w.midpoint, "x", color="black", ms=8, mew=2)
    ax.set_xlabel("height (inches)")
    ax.set_ylabel("weight (pounds)")
    ax.set_title("1-NN cells: thin walls between dogs, thick between breeds\n"
                 "dotted: two points of one region whose midpoint (×) is in another", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    found = [nonconvex_witness(b) is not None for b in range(len(breeds))]
    not_convex = [name for name, f in zip(breeds, found, strict=True) if f]
    beyond = [f"{breeds[b]}'s is not convex either, by a pair beyond the window "
              f"({_pair_sentence(nonconvex_witness(b, margin=WIDE_MARGIN), breeds)})"
              for b, f in enumerate(found) if not f]
    return describe(fig, f"Voronoi cells of {_dogs_sentence(y, breeds)}. The 1-NN regions "
                         f"cover {_breed_shares(y[cell], breeds)} of the window; not convex: "
                         f"{' and '.join(not_convex) or 'none'}, each shown by two of its "
                         f"points whose midpoint lies in another breed's region"
                         + "".join(f"; {sentence}" for sentence in beyond) + ".")


def _pair_sentence(w: Witness, breeds) -> str:
    """'(p1) and (p2), midpoint (m) a <breed>', to one decimal."""
    def point(p):
        return f"({p[0]:.1f}, {p[1]:.1f})"

    return (f"{point(w.p1)} and {point(w.p2)}, midpoint {point(w.midpoint)} a "
            f"{breeds[w.midpoint_breed]}")


def two_nn_regions(n: int = 201) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MMDS Exercise 12.4.1 on the dogs' picture: (grid x, grid y, answer), the answer being the
    breed both nearest dogs share, or -1 where they differ (left unclassified)."""
    X, y, _ = data.dogs()
    gx, gy, queries = _dog_grid(n)
    return gx, gy, N.two_nn_unanimous(X, y, queries).reshape(gx.shape)


def show_two_nn() -> Figure:
    """The 2-NN rule of Exercise 12.4.1: breeds' regions where both nearest dogs agree,
    unshaded (unclassified) where they do not."""
    X, y, breeds = data.dogs()
    gx, gy, answer = two_nn_regions()  # one grid for the picture and the share it prints
    fig, (ax,) = figure(1, width=6.0, height=4.8)
    shown = np.ma.masked_less(answer, 0)  # unclassified cells stay unshaded
    ax.pcolormesh(gx, gy, shown, cmap=ListedColormap(BREED_COLOURS), alpha=0.25,
                  shading="auto", vmin=-0.5, vmax=2.5)
    for b, (name, marker) in enumerate(zip(breeds, BREED_MARKERS, strict=True)):
        ax.scatter(*X[y == b].T, c=BREED_COLOURS[b], marker=marker, s=60, edgecolors="black",
                   label=name, zorder=3)
    ax.set_xlabel("height (inches)")
    ax.set_ylabel("weight (pounds)")
    share = np.mean(answer < 0)
    ax.set_title(f"2-NN, a label only where both nearest dogs agree:\n"
                 f"unshaded = unclassified ({share:.0%} of the window)", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    return describe(fig, f"The 2-NN rule of MMDS Exercise 12.4.1 on {_dogs_sentence(y, breeds)}: "
                         f"{share:.0%} of the window is unclassified (its two nearest dogs "
                         f"differ in breed); the breeds' regions cover "
                         f"{_breed_shares(answer, breeds)}.")


# --- k and the weighting on 2-D data ---------------------------------------------------------


@dataclass(frozen=True)
class Regions:
    """A k-NN classifier on the moons data: the label of every grid cell and the errors."""

    k: int
    weights: str
    grid_x: np.ndarray  # (GRID, GRID)
    grid_y: np.ndarray
    labels: np.ndarray  # (GRID, GRID) in {-1, +1}
    training_error: float
    validation_error: float


@lru_cache(maxsize=1)
def _moons_split():
    """Training and validation samples (cached: they do not depend on the sliders)."""
    X, y = data.moons(400, noise=0.35, seed=9)
    lo, hi = X[:150].min(axis=0) - 0.3, X[:150].max(axis=0) + 0.3  # every training point inside
    grid_x, grid_y = np.meshgrid(np.linspace(lo[0], hi[0], GRID), np.linspace(lo[1], hi[1], GRID))
    return X[:150], y[:150], X[150:], y[150:], grid_x, grid_y


def k_max() -> int:
    """The largest k the widget offers: n − 1 for the 150 training points (odd, so a two-class
    uniform vote never ties)."""
    X, *_ = _moons_split()
    return len(X) - 1


def knn_controls() -> dict:
    """The k-NN widget's controls, as the walk-through wires them: odd k from 1 to n − 1."""
    from ipywidgets import Dropdown, IntSlider

    return {"k": IntSlider(value=1, min=1, max=k_max(), step=2, description="k"),
            "weights": Dropdown(options=list(N.WEIGHTS), description="weights")}


def kernel_controls() -> dict:
    """The kernel-regression widget's control: σ from 0.1 to 4."""
    from ipywidgets import FloatSlider

    return {"sigma": FloatSlider(value=1.0, min=0.1, max=4.0, step=0.05, description="σ")}


@lru_cache(maxsize=1)
def _moons_neighbours() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every training point of the moons split, nearest first, for the grid's cells, the
    training points and the validation points: (distances, indices) of shape (queries, n) each, by
    :func:`mllib.neighbors.kneighbors`. Computed once; each k then takes its first k columns."""
    X, _, X_val, _, gx, gy = _moons_split()
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    return {name: N.kneighbors(X, queries, k=len(X))
            for name, queries in (("grid", grid), ("train", X), ("validation", X_val))}


def _vote(neighbours: tuple[np.ndarray, np.ndarray], y: np.ndarray, k: int,
          weights: str) -> np.ndarray:
    """:func:`mllib.neighbors.knn_predict`'s vote among the first k of the sorted
    ``neighbours``: the label with the largest total weight, ties going to the smaller label."""
    distances, indices = neighbours
    return N.vote(y[indices[:, :k]], N.neighbour_weights(distances[:, :k], weights),
                  np.unique(y))


@lru_cache(maxsize=64)  # a slider moved back and forth redraws without recomputing
def knn_regions(k: int, weights: str = "uniform") -> Regions:
    """Decision regions, training and validation error of k-NN on 150 noisy moons points."""
    X, y, X_val, y_val, gx, gy = _moons_split()
    if not 1 <= k <= len(X):
        raise ValueError(f"k must be between 1 and {len(X)}, the number of training points.")
    labels = _vote(_moons_neighbours()["grid"], y, k, weights).reshape(gx.shape)
    return Regions(k, weights, gx, gy, labels, *_errors(k, weights))


def _errors(k: int, weights: str) -> tuple[float, float]:
    """Training and validation error of k-NN on the moons split."""
    _, y, _, y_val, *_ = _moons_split()
    near = _moons_neighbours()
    return (float(np.mean(_vote(near["train"], y, k, weights) != y)),
            float(np.mean(_vote(near["validation"], y, k, weights) != y_val)))


def region_key(name: str, *, alpha: float = REGION_ALPHA) -> list[Patch]:
    """Legend entries for two shaded regions, "<name> says −1" and "<name> says +1"."""
    return [Patch(facecolor=colour, alpha=alpha, edgecolor="grey", label=f"{name} says {sign}")
            for colour, sign in ((NEGATIVE, "−1"), (POSITIVE, "+1"))]


@dataclass(frozen=True)
class _KnnView:
    """The k-NN widget's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    regions: AxesImage


@lru_cache(maxsize=1)
def _knn_view() -> _KnnView:
    """Build the k-NN widget's figure once: the regions' image and the title change; the points
    are drawn over the regions on every frame, so they are animated too. The legend stands
    beside the axes, where no animated artist covers it."""
    X, y, _, _, gx, gy = _moons_split()
    width = 5.5 + KNN_LEGEND_INCHES
    fig, (ax,) = figure(1, width=width, height=4.2)
    fig.subplots_adjust(right=1 - KNN_LEGEND_INCHES / width)
    # Each pixel centred on its grid point (half a step beyond the outer ones), so that the
    # shading under a point is the label of its nearest grid point.
    half_x, half_y = (gx[0, 1] - gx[0, 0]) / 2, (gy[1, 0] - gy[0, 0]) / 2
    extent = (gx.min() - half_x, gx.max() + half_x, gy.min() - half_y, gy.max() + half_y)
    regions = ax.imshow(np.zeros(gx.shape), origin="lower", extent=extent, aspect="auto",
                        cmap=ListedColormap([NEGATIVE, POSITIVE]), vmin=-1, vmax=1,
                        alpha=REGION_ALPHA, interpolation="nearest")
    scatter_labelled(ax, X, y, size=16)
    ax.set_xlim(gx.min(), gx.max())  # the outer grid points: shading fills the axes
    ax.set_ylim(gy.min(), gy.max())
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, *region_key("k-NN")], fontsize=8, loc="upper left",
              bbox_to_anchor=(1.02, 1.0))
    ax.title.set_fontsize(9)
    animate(regions, *ax.collections, ax.title)
    return _KnnView(fig, ax, regions)


def show_knn(k: int = 1, weights: str = "uniform") -> Figure:
    """The widget frame: k-NN decision regions for the chosen k and weighting.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    r = knn_regions(k, weights)
    view = _knn_view()
    view.regions.set_data(r.labels)
    # title.set_text, not set_title: set_title also moves the side titles, which are static,
    # and so would mark the figure stale and redraw it all
    view.ax.title.set_text(f"k = {k}, {weights} weights: training error "
                           f"{r.training_error:.2f}, validation error {r.validation_error:.2f}")
    n = len(_moons_split()[1])
    return describe(view.fig, f"{n} training points of two moon-shaped classes. With k = {k} "
                              f"and {weights} weights, k-NN predicts +1 on "
                              f"{np.mean(r.labels > 0):.0%} of the window; training error "
                              f"{r.training_error:.2f}, validation error {r.validation_error:.2f}.")


@lru_cache(maxsize=4)
def error_curve(weights: str = "uniform") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, training error, validation error) for every odd k from 1 to n − 1 on the moons split."""
    ks = np.arange(1, k_max() + 1, 2)
    train, validation = np.array([_errors(int(k), weights) for k in ks]).T
    return ks, train, validation


def show_error_curve() -> Figure:
    """Training and validation error of k-NN on the moons split against k, for both weightings."""
    fig, (ax,) = figure(1, width=5.5, height=3.5)
    summary = []
    for weights, style in (("uniform", "-"), ("distance", "--")):
        ks, train, validation = error_curve(weights)
        ax.plot(ks, train, style, color=PALETTE[4], label=f"training, {weights}")
        ax.plot(ks, validation, style, color=NEGATIVE, label=f"validation, {weights}")
        best = int(np.argmin(validation))
        summary.append(f"with {weights} weights the validation error is lowest, "
                       f"{validation[best]:.3f}, at k = {ks[best]} and {validation[-1]:.3f} at "
                       f"k = {ks[-1]}; the training error goes from {train[0]:.3f} to "
                       f"{train[-1]:.3f}")
    ax.set_xlabel(f"k (up to n − 1 = {k_max()})")
    ax.set_ylabel("error")
    ax.set_ylim(bottom=0)
    ax.set_title("Small k memorises; with uniform weights, large k blurs")
    ax.legend(fontsize=8, loc="upper left", ncols=2)
    return describe(fig, f"k-NN error against odd k from 1 to {k_max()} on the moons split: "
                         + "; ".join(summary) + ".")


@dataclass(frozen=True)
class WashOut:
    """What the largest k does to the validation error, for one weighting."""

    weights: str
    best_k: int
    best_error: float
    largest_k: int
    largest_error: float


def wash_out(weights: str = "uniform") -> WashOut:
    """The best validation error over odd k against the validation error at k = n − 1."""
    ks, _, validation = error_curve(weights)
    best = int(np.argmin(validation))
    return WashOut(weights, int(ks[best]), float(validation[best]), int(ks[-1]),
                   float(validation[-1]))


# --- kernel regression -----------------------------------------------------------------------


EX_12_13_Q = 3.5  # MMDS Example 12.13's query


@lru_cache(maxsize=1)
def _kernel_background():
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, 401)
    return x, y, q, N.kernel_regression(x, y, q)


@dataclass(frozen=True)
class _KernelView:
    """The kernel widget's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    gaussian: Line2D


@lru_cache(maxsize=1)
def _kernel_view() -> _KernelView:
    """Build the kernel widget's figure once: the Gaussian fit and the title change."""
    x, y, q, inverse = _kernel_background()
    fig, (ax,) = figure(1, width=6.0, height=3.6)
    gaussian, = ax.plot(q, np.zeros_like(q), color=POSITIVE, label="Gaussian kernel")
    ax.plot(q, inverse, color=PALETTE[4], lw=1, ls="--", label="1/(x − q)² (Ex. 12.13)")
    ax.plot([EX_12_13_Q], N.kernel_regression(x, y, [EX_12_13_Q]), "s", color=PALETTE[4], ms=5)
    ax.plot(x, y, "ko", ms=4, label="training points")
    ax.set_xlabel("query q")
    ax.set_ylabel("estimated label")
    ax.set_ylim(0, 9)
    ax.legend(fontsize=8, loc="upper right")
    ax.title.set_fontsize(10)
    animate(gaussian, ax.title)
    return _KernelView(fig, ax, gaussian)


def show_kernel(sigma: float = 1.0) -> Figure:
    """The widget frame: Gaussian kernel regression exp(-(x - q)²/σ²) on the book's data, with
    the inverse-square kernel of Example 12.13 for comparison and its value 5.51 at q = 3.5.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    x, y, q, _ = _kernel_background()
    view = _kernel_view()
    fitted = N.kernel_regression(x, y, q, kernel="gaussian", sigma=sigma)
    at = N.kernel_regression(x, y, [EX_12_13_Q], kernel="gaussian", sigma=sigma)[0]
    book = N.kernel_regression(x, y, [EX_12_13_Q])[0]
    view.gaussian.set_ydata(fitted)
    view.ax.title.set_text(f"Gaussian kernel, σ = {sigma:.2f}: {at:.2f} at q = {EX_12_13_Q:g}")
    return describe(view.fig, f"Kernel regression on the {len(x)} points of MMDS Example 12.13 "
                              f"(a peak of {y.max():g} at x = {x[np.argmax(y)]:g}). The Gaussian "
                              f"kernel with σ = {sigma:.2f} estimates {at:.2f} at "
                              f"q = {EX_12_13_Q:g} (the 1/(x − q)² kernel: {book:.2f}) and peaks "
                              f"at {fitted.max():.2f}.")


# --- the curse of dimensionality -------------------------------------------------------------

CURSE_DIMS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def show_concentration(seed: int = 0) -> Figure:
    """Nearest and farthest distance, and their relative gap, as d grows (MMDS §12.4.5)."""
    c = N.distance_concentration(CURSE_DIMS, n=500, queries=20, seed=seed)
    fig, axes = figure(2, width=4.5, height=3.4)
    for mean, se, label in ((c.nearest, c.nearest_se, "nearest"),
                            (c.farthest, c.farthest_se, "farthest")):
        axes[0].errorbar(c.dims, mean / np.sqrt(c.dims), yerr=se / np.sqrt(c.dims), fmt="o-",
                         ms=3, capsize=2, label=f"{label} (± s.e.)")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("dimension d")
    axes[0].set_ylabel("distance / √d")
    axes[0].legend(fontsize=8)
    lower, upper = c.contrast_quartiles.T
    axes[1].fill_between(c.dims, lower, upper, color=NEGATIVE, alpha=0.25, lw=0,
                         label="quartiles")
    axes[1].loglog(c.dims, c.contrast, "o-", ms=3, color=NEGATIVE, label="median")
    axes[1].set_xlabel("dimension d")
    axes[1].set_ylabel("median over queries of\n(farthest − nearest) / nearest")
    axes[1].legend(fontsize=8)
    fig.suptitle("500 uniform points in [0, 1]^d, 20 queries")
    return describe(fig, f"Mean distances from 20 queries to 500 uniform points in [0, 1]^d, "
                         f"with standard-error bars, d from "
                         f"{c.dims[0]} to {c.dims[-1]}: nearest/√d rises from "
                         f"{c.nearest[0] / np.sqrt(c.dims[0]):.3f} to "
                         f"{c.nearest[-1] / np.sqrt(c.dims[-1]):.3f} and farthest/√d goes from "
                         f"{c.farthest[0] / np.sqrt(c.dims[0]):.3f} to "
                         f"{c.farthest[-1] / np.sqrt(c.dims[-1]):.3f}; the median over queries "
                         "of their relative gap "
                         f"falls from {c.contrast[0]:.3g} to {c.contrast[-1]:.3g}, the band "
                         "between its quartiles shaded.")


def concentration_table(seed: int = 0) -> str:
    """The mean nearest and farthest distances of :func:`show_concentration` ± their standard
    errors, and the median and the quartiles over the queries of each query's own relative gap,
    as a markdown table."""
    c = N.distance_concentration(CURSE_DIMS, n=500, queries=20, seed=seed)
    rows = [[int(d), f"{a:#.3g} ± {a_se:#.2g}", f"{b:#.3g} ± {b_se:#.2g}", f"{m:.3f}",
             f"{q1:.3f} to {q3:.3f}"]
            for d, a, a_se, b, b_se, m, (q1, q3) in zip(
                c.dims, c.nearest, c.nearest_se, c.farthest, c.farthest_se, c.contrast,
                c.contrast_quartiles, strict=True)]
    return markdown_table(["d", "mean nearest distance ± s.e.", "mean farthest distance ± s.e.",
                           "median over queries of (far − near)/near",
                           "its quartiles over queries"], rows)


# --- locality-sensitive hashing (§12.4.6) ----------------------------------------------------

LSH_HASHES = 60
LSH_BANDS = (60, 30, 20, 15, 12, 10, 6)  # r = 1, 2, 3, 4, 5, 6, 10 rows per band


@dataclass(frozen=True)
class LSHRow:
    """One banding of the signatures, measured on the queries of :func:`lsh_sets`."""

    bands: int
    rows: int
    scanned: float  # mean share of the training sets a query compares exactly
    found: float  # share of queries whose exact Jaccard nearest neighbour is a candidate
    predicted: float  # mean of 1 − (1 − sʳ)ᵇ at each query's nearest-neighbour similarity
    queries: int  # how many queries ``found`` is a share of

    @property
    def found_se(self) -> float:
        """The binomial standard error of ``found``, √(p(1 − p)/queries)."""
        return float(np.sqrt(self.found * (1 - self.found) / self.queries))

    @property
    def found_text(self) -> str:
        """``found`` ± its standard error, or at 0 or 1 the exact one-sided 95 % bound
        (:func:`mllib.plotting.share_and_se`)."""
        return share_and_se(self.found, self.queries)


@lru_cache(maxsize=1)
def lsh_sets(n: int = 1000, words: int = 300, queries: int = 100, seed: int = 4):
    """n random 'documents' (sets of about 20 of ``words`` words) and ``queries`` edited copies
    of some of them (about a quarter of each set's words swapped for others)."""
    rng = np.random.default_rng(seed)
    S = rng.random((n, words)) < 20 / words
    S[np.arange(n), rng.integers(0, words, n)] = True  # no empty set
    Q = S[rng.choice(n, queries, replace=False)].copy()
    for row in Q:
        present, absent = np.flatnonzero(row), np.flatnonzero(~row)
        k = max(1, len(present) // 4)
        row[rng.choice(present, k, replace=False)] = False
        row[rng.choice(absent, k, replace=False)] = True
    return S.astype(float), Q.astype(float)


@lru_cache(maxsize=1)
def lsh_table() -> tuple[LSHRow, ...]:
    """Scanned share, nearest neighbours found and the S-curve's prediction for each banding of
    60 minhashes."""
    S, Q = lsh_sets()
    A = N.minhash_signatures(S, LSH_HASHES, seed=1)
    B = N.minhash_signatures(Q, LSH_HASHES, seed=1)
    D = N.pairwise_distances(Q, S, "jaccard")
    nearest, similarity = D.argmin(axis=1), 1 - D.min(axis=1)
    rows = []
    for b in LSH_BANDS:
        found = N.lsh_candidates(A, B, b)
        r = LSH_HASHES // b
        rows.append(LSHRow(b, r, float(np.mean([len(c) for c in found]) / len(S)),
                           float(np.mean([i in c for i, c in zip(nearest, found, strict=True)])),
                           float(N.lsh_probability(similarity, b, r).mean()), len(Q)))
    return tuple(rows)


def lsh_markdown() -> str:
    rows = [[t.bands, t.rows, f"{t.scanned:.4f}", t.found_text, f"{t.predicted:.2f}"]
            for t in lsh_table()]
    return markdown_table(["bands b", "rows r", "share of the data scanned",
                           "nearest neighbour found ± s.e.", "predicted 1 − (1 − sʳ)ᵇ"], rows)


# --- categorical features (§12.5) ------------------------------------------------------------

COLOURS = ("red", "green", "blue")


def categorical_distances() -> tuple[np.ndarray, np.ndarray]:
    """Euclidean distances between the three colours coded as the numbers 0, 1, 2 and as
    one-hot vectors: (3, 3) each."""
    numbers = np.arange(len(COLOURS), dtype=float)[:, None]
    one_hot = np.eye(len(COLOURS))
    return N.pairwise_distances(numbers, numbers), N.pairwise_distances(one_hot, one_hot)
