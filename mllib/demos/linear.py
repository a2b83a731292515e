"""Widgets, figures and tables for the walk-through on linear models by gradient descent
(lecture 11).

Sources: MMDS Example 12.2 and §12.2.2 (η₀/(1 + ct)); CS446 "General stochastic gradient
algorithms" (LMS, hinge, AdaGrad), "Regularization" (ridge, LASSO, logistic regression) and the
exponential loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.figure import Figure

from mllib import linear
from mllib.plotting import (
    NEGATIVE,
    POSITIVE,
    figure,
    markdown_table,
    scatter_labelled,
)

# MMDS Example 12.2's four points (1, 2), (2, 1), (3, 4), (4, 3), as features and targets.
EX_12_2_X = np.array([[1.0], [2.0], [3.0], [4.0]])
EX_12_2_Y = np.array([2.0, 1.0, 4.0, 3.0])

METHODS = ("LMS (constant η)", "gradient descent", "SGD, η₀/(1 + ct)", "AdaGrad")
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red")


# --- MMDS Example 12.2 -----------------------------------------------------------------------


def example_12_2_table() -> str:
    """The three lines of MMDS Example 12.2 with their sums of squared errors (the book's
    "RMSE") next to the true root-mean-square errors √(sse/4)."""
    best = linear.least_squares(EX_12_2_X, EX_12_2_Y)
    origin = linear.least_squares(EX_12_2_X, EX_12_2_Y, fit_intercept=False)
    lines = [
        (f"least squares, y = {best.w[0]:.3g}x + {best.b:.3g}", best.w[0], best.b),
        ("the principal axis y = x (MMDS §11.2.1)", 1.0, 0.0),
        (f"best through the origin, y = (14/15)x = {origin.w[0]:.4f}x", origin.w[0], 0.0),
    ]
    rows = []
    for name, a, b in lines:
        sse = linear.sum_squared_errors([a], b, EX_12_2_X, EX_12_2_Y)
        rows.append([name, f"{sse:.4g}", f"{np.sqrt(sse / 4):.4f}"])
    return markdown_table(["line", "Σ(ax + b − y)², the book's \"RMSE\"", "true RMSE"], rows)


def show_example_12_2() -> Figure:
    """Left: the four points and the three lines. Right: contours of the book's objective
    30a² + 4b² + 20ab − 56a − 20b + 30 with its minimum at (3/5, 1)."""
    fig, (left, right) = figure(2, width=4.8, height=4.0)
    xs = np.linspace(0, 5, 2)
    left.scatter(EX_12_2_X[:, 0], EX_12_2_Y, color="black", zorder=3, label="training points")
    left.plot(xs, 0.6 * xs + 1, label="y = 0.6x + 1 (sse 3.2)")
    left.plot(xs, xs, linestyle="--", label="y = x (sse 4)")
    left.plot(xs, 14 / 15 * xs, linestyle=":", label="y = (14/15)x (sse 3.87)")
    left.set(xlabel="x", ylabel="y", title="MMDS Example 12.2")
    left.legend(fontsize=8)
    a, b = np.meshgrid(np.linspace(-0.5, 1.7, 121), np.linspace(-2, 4, 121))
    sse = 30 * a**2 + 4 * b**2 + 20 * a * b - 56 * a - 20 * b + 30
    contours = right.contour(a, b, sse, levels=[3.5, 4, 6, 10, 20, 40, 80], cmap="viridis")
    right.clabel(contours, fontsize=7)
    right.plot(0.6, 1, "k*", markersize=12, label="minimum (3/5, 1): 3.2")
    right.plot(1, 0, "o", color="tab:orange", label="y = x: 4")
    right.plot(14 / 15, 0, "s", color="tab:green", label="b = 0, a = 14/15")
    right.set(xlabel="slope a", ylabel="intercept b", title="sum of squared errors")
    right.legend(fontsize=8, loc="upper right")
    return fig


# --- The race to the least-squares solution --------------------------------------------------


@lru_cache(maxsize=1)
def race_data(n: int = 40, d: int = 3, seed: int = 11) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """Noisy linear data (X of shape (n, d), y) and its least-squares weights (no intercept)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ np.array([2.0, -1.0, 0.5]) + 0.5 * rng.normal(size=n)
    return X, y, linear.least_squares(X, y, fit_intercept=False).w


@dataclass(frozen=True)
class Race:
    """Distance ‖w - w_LS‖ after each pass over the data, for each of :data:`METHODS`.

    Attributes
    ----------
    epochs : ndarray of shape (E + 1,)
        0, 1, …, E.
    distances : dict of str to ndarray of shape (E + 1,)
    """

    epochs: np.ndarray
    distances: dict[str, np.ndarray]


RACE_EPOCHS = 25


@lru_cache(maxsize=8)
def _paths_for_eta(eta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LMS, gradient descent and AdaGrad paths, which do not depend on the decay c (cached, so
    moving the c slider reruns SGD alone)."""
    X, y, _ = race_data()
    return (linear.lms(X, y, eta=eta, epochs=RACE_EPOCHS).path(),
            linear.gradient_descent("squared", X, y, eta=eta, iterations=RACE_EPOCHS).path(),
            linear.adagrad("squared", X, y, eta=eta, epochs=RACE_EPOCHS).path())


def race(eta: float, decay: float) -> Race:
    """Run LMS, batch gradient descent, SGD with η₀/(1 + ct) and AdaGrad from w = 0 with the same
    η on :func:`race_data` for 25 epochs; one epoch is one pass (n examples, or one full
    gradient)."""
    X, y, w_ls = race_data()
    n = len(y)
    lms, batch, ada = _paths_for_eta(eta)
    sgd = linear.sgd("squared", X, y, eta=eta, epochs=RACE_EPOCHS, decay=decay).path()
    per_epoch = (lms[::n], batch, sgd[::n], ada[::n])
    distances = {name: np.linalg.norm(path - w_ls, axis=1)
                 for name, path in zip(METHODS, per_epoch, strict=True)}
    return Race(np.arange(RACE_EPOCHS + 1), distances)


def show_race(eta: float, decay: float) -> Figure:
    """The distance to the least-squares solution per epoch, log scale, for the four methods."""
    result = race(eta, decay)
    fig, (ax,) = figure(1, width=7.0, height=3.8)
    for (name, distance), colour in zip(result.distances.items(), COLOURS, strict=True):
        ax.semilogy(result.epochs, np.clip(distance, 1e-12, 1e6), color=colour, label=name)
    ax.set(xlabel="epochs (passes over the 40 examples)", ylabel="‖w − w_LS‖",
           title=f"η = {eta:g}, c = {decay:g}", ylim=(1e-6, 1e3))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


# --- Ridge and LASSO paths -------------------------------------------------------------------


@dataclass(frozen=True)
class Paths:
    """Coefficients against the regularisation strength.

    Attributes
    ----------
    alphas : ndarray of shape (k,)
    ridge, lasso : ndarray of shape (k, d)
    true_w : ndarray of shape (d,)
    """

    alphas: np.ndarray
    ridge: np.ndarray
    lasso: np.ndarray
    true_w: np.ndarray


@lru_cache(maxsize=1)
def coefficient_paths(n: int = 60, seed: int = 5) -> Paths:
    """Ridge and LASSO on data with 8 features of which 3 matter, over α from 10⁻³ to 10³
    (ridge's α multiplies ‖w‖² against the plain sum of squares; LASSO's α multiplies ‖w‖₁
    against the mean, (1/2n)·Σ: the two scales differ by design, as in scikit-learn)."""
    rng = np.random.default_rng(seed)
    true_w = np.array([3.0, -2.0, 1.5, 0, 0, 0, 0, 0])
    X = rng.normal(size=(n, len(true_w)))
    y = X @ true_w + rng.normal(size=n)
    alphas = np.logspace(-3, 3, 49)
    ridge = np.array([linear.ridge(X, y, alpha=n * a) for a in alphas])
    lasso = np.array([linear.lasso(X, y, alpha=a, tol=1e-8).w for a in alphas])
    return Paths(alphas, ridge, lasso, true_w)


def show_paths() -> Figure:
    """Ridge shrinks every coefficient smoothly; LASSO sets them to exactly 0 one by one."""
    paths = coefficient_paths()
    fig, axes = figure(2, width=4.8, height=3.8)
    for ax, name, coefs in ((axes[0], "ridge (α·n on ‖w‖²)", paths.ridge),
                            (axes[1], "LASSO (α on ‖w‖₁)", paths.lasso)):
        for j in range(coefs.shape[1]):
            ax.semilogx(paths.alphas, coefs[:, j], color="tab:blue" if paths.true_w[j] else
                        "grey", linewidth=1.5 if paths.true_w[j] else 0.8)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set(xlabel="α", ylabel="coefficient", title=name)
    zeros = np.sum(paths.lasso == 0, axis=1)
    axes[1].text(0.02, 0.03, f"exact zeros: {zeros[0]} at α = 10⁻³, {zeros[len(zeros) // 2]} at "
                 f"α = 1", transform=axes[1].transAxes, fontsize=8)
    return fig


def lasso_zero_table() -> str:
    """How many LASSO and ridge coefficients are exactly 0 at a few α."""
    paths = coefficient_paths()
    rows = []
    for k in range(0, len(paths.alphas), 8):
        rows.append([f"{paths.alphas[k]:.3g}", int(np.sum(paths.lasso[k] == 0)),
                     int(np.sum(paths.ridge[k] == 0))])
    return markdown_table(["α", "LASSO coefficients = 0", "ridge coefficients = 0"], rows)


# --- Logistic regression ---------------------------------------------------------------------


@lru_cache(maxsize=1)
def logistic_data(n: int = 80, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two overlapping Gaussian clouds in 2-D with a constant feature 1 appended (shape (n, 3))."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + np.outer(y, [1.0, 0.7])
    return np.hstack([X, np.ones((n, 1))]), y


def show_logistic(C: float) -> Figure:
    """P(y = +1 | x) = σ(w·x) as a shaded map with the 0.1/0.5/0.9 contours, for penalty C."""
    X, y = logistic_data()
    w = linear.logistic_regression(X, y, C=C).w
    fig, (ax,) = figure(1, width=5.6, height=4.4)
    g = np.linspace(-4, 4, 81)
    gx, gy = np.meshgrid(g, g)
    grid = np.column_stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    p = linear.predict_proba(w, grid).reshape(gx.shape)
    image = ax.pcolormesh(gx, gy, p, cmap="coolwarm_r", vmin=0, vmax=1, shading="auto", alpha=0.6)
    lines = ax.contour(gx, gy, p, levels=[0.1, 0.5, 0.9], colors="black", linewidths=0.8)
    ax.clabel(lines, fontsize=7)
    scatter_labelled(ax, X[:, :2], y, size=16)
    fig.colorbar(image, ax=ax, label="P(y = +1 | x)")
    ax.set_title(f"C = {C:g}: w = {np.round(w, 2).tolist()}")
    return fig


# --- The five losses -------------------------------------------------------------------------


def show_losses() -> Figure:
    """The 0-1, squared, hinge, log and exponential losses against the margin z = y·w·x."""
    z = np.linspace(-2, 3, 501)
    values = linear.losses(z)
    fig, (ax,) = figure(1, width=6, height=3.8)
    styles = {"0-1": ("black", "-"), "squared": ("tab:purple", "--"), "hinge": (POSITIVE, "-"),
              "log": ("tab:green", "-"), "exponential": (NEGATIVE, ":")}
    for name, value in values.items():
        colour, style = styles[name]
        ax.plot(z, value, color=colour, linestyle=style, label=name, linewidth=1.6)
    ax.set(xlabel="margin z = y·(w·x)", ylabel="loss", ylim=(-0.1, 4), title="five losses")
    ax.axvline(0, color="grey", linewidth=0.6)
    ax.legend(fontsize=8)
    return fig
