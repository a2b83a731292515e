"""Widgets, figures and tables for the nearest-neighbour walk-through (lecture 09).

Sources: MMDS §12.4 (Example 12.11 and Fig. 12.21, Example 12.12 and Figs. 12.22-12.23,
Example 12.13 and Fig. 12.24, §12.4.5 and §12.5 on high dimensions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from mllib import data
from mllib import neighbors as N
from mllib.plotting import figure, markdown_table, scatter_labelled

GRID = 120  # cells per side of a decision-region picture
BREED_COLOURS = ("tab:red", "tab:green", "tab:purple")


def _fraction(value: float) -> str:
    """A weight as the book prints it: 4/25, 16, 8/9."""
    f = Fraction(value).limit_denominator(10_000)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def fig_12_24_table(q: float = 3.5) -> str:
    """MMDS Fig. 12.24 as a Markdown table: lines (1)-(4) for the query q with the weights
    1/(x - q)², then the two sums and the estimate, to the book's two decimals."""
    x, y = data.mmds_peak()
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
    """What MMDS says rule 3 does for 0 < q < 1: extend the line through (1, 1) and (2, 2)."""
    return q.astype(float)


def show_rules(resolution: int = 801) -> Figure:
    """MMDS Figs. 12.22-12.23: the four rules of Example 12.12 on the book's data, queries from 0
    to 8. Panel 3 also draws, dashed, the straight-line extrapolation the book describes."""
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, resolution)
    fig, axes = figure(4, width=3.4, height=3.0)
    for ax, rule in zip(axes, N.EX_12_12_RULES, strict=True):
        ax.plot(q, N.one_d_rule(x, y, q, rule), color="tab:blue", lw=1.5, label="estimate")
        ax.plot(x, y, "ko", ms=4, label="training points")
        ax.set_title(rule, fontsize=10)
        ax.set_xlabel("query q")
        ax.set_ylim(0, 9)
    axes[0].set_ylabel("estimated label")
    low = q <= 1
    axes[2].plot(q[low], book_extrapolation(q[low]), "r--", lw=1, label="the book's line")
    axes[2].legend(fontsize=7, loc="upper left")
    return fig


def show_voronoi() -> Figure:
    """A Voronoi picture in the spirit of MMDS Fig. 12.21: each dog's cell (the queries it is
    nearest to) coloured by breed, cell boundaries drawn. The dogs' coordinates are ours."""
    X, y, breeds = data.dogs()
    lo, hi = X.min(axis=0) - 4, X.max(axis=0) + 4
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 300), np.linspace(lo[1], hi[1], 300))
    queries = np.column_stack([gx.ravel(), gy.ravel()])
    _, idx = N.kneighbors(X, queries, k=1)
    cell = idx[:, 0].reshape(gx.shape)
    fig, (ax,) = figure(1, width=5.5, height=4.5)
    colours = np.array([BREED_COLOURS[c] for c in y])
    ax.pcolormesh(gx, gy, y[cell], cmap=ListedColormap(BREED_COLOURS), alpha=0.25,
                  shading="auto", vmin=-0.5, vmax=2.5)
    ax.contour(gx, gy, cell, levels=np.arange(len(X)) + 0.5, colors="grey", linewidths=0.8)
    ax.contour(gx, gy, y[cell], levels=[0.5, 1.5], colors="black", linewidths=1.8)
    for b, name in enumerate(breeds):
        ax.scatter(*X[y == b].T, c=colours[y == b], s=50, edgecolors="black", label=name)
    ax.set_xlabel("height (inches)")
    ax.set_ylabel("weight (pounds)")
    ax.set_title("1-NN cells: grey between dogs, black between breeds")
    ax.legend(fontsize=8, loc="lower right")
    return fig


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
    test_error: float


@lru_cache(maxsize=1)
def _moons_split():
    """Training and test samples (cached: they do not depend on the sliders)."""
    X, y = data.moons(400, noise=0.35, seed=9)
    grid_x, grid_y = np.meshgrid(np.linspace(-1.6, 2.6, GRID), np.linspace(-1.3, 1.8, GRID))
    return X[:150], y[:150], X[150:], y[150:], grid_x, grid_y


@lru_cache(maxsize=64)  # a slider moved back and forth redraws without recomputing
def knn_regions(k: int, weights: str = "uniform") -> Regions:
    """Decision regions, training and test error of k-NN on 150 noisy moons points."""
    X, y, X_test, y_test, gx, gy = _moons_split()
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    labels = N.knn_predict(X, y, grid, k=k, weights=weights).reshape(gx.shape)
    train = np.mean(N.knn_predict(X, y, X, k=k, weights=weights) != y)
    test = np.mean(N.knn_predict(X, y, X_test, k=k, weights=weights) != y_test)
    return Regions(k, weights, gx, gy, labels, float(train), float(test))


def show_knn(k: int = 1, weights: str = "uniform") -> Figure:
    """The widget frame: k-NN decision regions for the chosen k and weighting."""
    r = knn_regions(k, weights)
    X, y, *_ = _moons_split()
    fig, (ax,) = figure(1, width=5.5, height=4.2)
    ax.contourf(r.grid_x, r.grid_y, r.labels, levels=[-2, 0, 2],
                colors=["#fde0c5", "#c6dbef"])
    scatter_labelled(ax, X, y, size=16)
    ax.set_title(f"k = {k}, {weights} weights: training error {r.training_error:.2f}, "
                 f"test error {r.test_error:.2f}", fontsize=9)
    ax.legend(fontsize=8, loc="lower left")
    return fig


@lru_cache(maxsize=4)
def error_curve(weights: str = "uniform", ks: tuple[int, ...] = tuple(range(1, 60, 2))
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, training error, test error) for odd k on the moons split."""
    X, y, X_test, y_test, *_ = _moons_split()
    train = [np.mean(N.knn_predict(X, y, X, k=k, weights=weights) != y) for k in ks]
    test = [np.mean(N.knn_predict(X, y, X_test, k=k, weights=weights) != y_test) for k in ks]
    return np.array(ks), np.array(train), np.array(test)


def show_error_curve() -> Figure:
    fig, (ax,) = figure(1, width=5.5, height=3.5)
    for weights, style in (("uniform", "-"), ("distance", "--")):
        ks, train, test = error_curve(weights)
        ax.plot(ks, train, style, color="tab:grey", label=f"training, {weights}")
        ax.plot(ks, test, style, color="tab:red", label=f"test, {weights}")
    ax.set_xlabel("k")
    ax.set_ylabel("error")
    ax.set_title("Small k memorises, large k blurs")
    ax.legend(fontsize=8)
    return fig


# --- kernel regression -----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _kernel_background():
    x, y = data.mmds_peak()
    q = np.linspace(0, 8, 401)
    return x, y, q, N.kernel_regression(x, y, q)


def show_kernel(sigma: float = 1.0) -> Figure:
    """The widget frame: Gaussian kernel regression exp(-(x - q)²/σ²) on the book's data, with
    the inverse-square kernel of Example 12.13 for comparison and its value 5.51 at q = 3.5."""
    x, y, q, inverse = _kernel_background()
    fig, (ax,) = figure(1, width=6.0, height=3.6)
    ax.plot(q, N.kernel_regression(x, y, q, kernel="gaussian", sigma=sigma), color="tab:blue",
            label=f"Gaussian, σ = {sigma:.2f}")
    ax.plot(q, inverse, color="tab:grey", lw=1, ls="--", label="1/(x − q)² (Ex. 12.13)")
    ax.plot([3.5], [N.kernel_regression(x, y, [3.5])[0]], "s", color="tab:grey", ms=5)
    ax.plot(x, y, "ko", ms=4, label="training points")
    ax.set_xlabel("query q")
    ax.set_ylabel("estimated label")
    ax.set_ylim(0, 9)
    ax.legend(fontsize=8, loc="upper right")
    return fig


# --- the curse of dimensionality -------------------------------------------------------------

CURSE_DIMS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def show_concentration(seed: int = 0) -> Figure:
    """Nearest and farthest distance, and their relative gap, as d grows (MMDS §12.4.5)."""
    c = N.distance_concentration(CURSE_DIMS, n=500, queries=20, seed=seed)
    fig, axes = figure(2, width=4.5, height=3.4)
    axes[0].plot(c.dims, c.nearest / np.sqrt(c.dims), "o-", ms=3, label="nearest")
    axes[0].plot(c.dims, c.farthest / np.sqrt(c.dims), "o-", ms=3, label="farthest")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("dimension d")
    axes[0].set_ylabel("distance / √d")
    axes[0].legend(fontsize=8)
    axes[1].loglog(c.dims, c.contrast, "o-", ms=3, color="tab:red")
    axes[1].set_xlabel("dimension d")
    axes[1].set_ylabel("(farthest − nearest) / nearest")
    fig.suptitle("500 uniform points in [0, 1]^d, 20 queries")
    return fig


def concentration_table(seed: int = 0) -> str:
    c = N.distance_concentration(CURSE_DIMS, n=500, queries=20, seed=seed)
    rows = [[int(d), f"{a:.3f}", f"{b:.3f}", f"{r:.3f}"]
            for d, a, b, r in zip(c.dims, c.nearest, c.farthest, c.contrast, strict=True)]
    return markdown_table(["d", "nearest", "farthest", "(far − near)/near"], rows)
