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
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.text import Text

from mllib import linear
from mllib.demos.live import animate, set_view
from mllib.plotting import (
    NEGATIVE,
    PALETTE,
    POSITIVE,
    describe,
    figure,
    hyperplane_points,
    log_axis,
    markdown_table,
    mean_and_se,
    scatter_labelled,
)

# MMDS Example 12.2's four points (1, 2), (2, 1), (3, 4), (4, 3), as features and targets.
EX_12_2_X = np.array([[1.0], [2.0], [3.0], [4.0]])
EX_12_2_Y = np.array([2.0, 1.0, 4.0, 3.0])

METHODS = ("LMS (constant η)", "gradient descent", "SGD, η₀/(1 + ct)", "AdaGrad")
COLOURS = PALETTE[:4]  # apart under simulated colour blindness; the markers differ too
MARKERS = "o^sD"
LEGEND_INCHES = 2.0  # a column right of the axes, inside the figure, for a legend beside a plot
READOUT = ".3g"  # how a FloatLogSlider shows its value (its default readout_format)


def as_shown(value: float) -> float:
    """``value`` rounded as a FloatLogSlider's readout shows it (3 significant digits): the
    frames compute with exactly the number the slider displays (31.6, not 31.6228)."""
    return float(format(value, READOUT))


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
    right.clabel(contours, contours.levels[1:], fontsize=7)  # 3.5's ring is too small to label
    right.plot(0.6, 1, "k*", markersize=12, label="minimum (3/5, 1): 3.2, inner ring 3.5")
    right.plot(1, 0, "o", color=PALETTE[1], label="y = x: 4")
    right.plot(14 / 15, 0, "s", color=PALETTE[2], label="b = 0, a = 14/15: 3.87")
    right.set(xlabel="slope a", ylabel="intercept b", title="sum of squared errors")
    right.legend(fontsize=8, loc="upper right")
    best = linear.least_squares(EX_12_2_X, EX_12_2_Y)
    origin = linear.least_squares(EX_12_2_X, EX_12_2_Y, fit_intercept=False)
    points = ", ".join(f"({x:g}, {y:g})" for x, y in zip(EX_12_2_X[:, 0], EX_12_2_Y, strict=True))
    return describe(fig, f"MMDS Example 12.2: the points {points} with three lines, least "
                         f"squares y = {best.w[0]:.3g}x + {best.b:.3g} (sum of squared errors "
                         f"{best.sse:.3g}), y = x (4) and y = {origin.w[0]:.4f}x through the "
                         f"origin ({origin.sse:.3g}). Right: contours of the sum of squared "
                         f"errors over slope and intercept, lowest at ({best.w[0]:.3g}, "
                         f"{best.b:.3g}).")


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
def _fixed_rate_paths(eta: float) -> tuple[np.ndarray, np.ndarray]:
    """LMS and gradient-descent paths, which depend on η alone (cached, so moving the c or the
    AdaGrad slider reruns only that method)."""
    X, y, _ = race_data()
    return (linear.lms(X, y, eta=eta, epochs=RACE_EPOCHS).path(),
            linear.gradient_descent("squared", X, y, eta=eta, iterations=RACE_EPOCHS).path())


@lru_cache(maxsize=8)
def _adagrad_path(rate: float) -> np.ndarray:
    X, y, _ = race_data()
    return linear.adagrad("squared", X, y, eta=rate, epochs=RACE_EPOCHS).path()


@lru_cache(maxsize=64)  # a slider moved back and forth redraws without recomputing
def race(eta: float, decay: float, adagrad_rate: float = 0.2) -> Race:
    """Run LMS, batch gradient descent and SGD with η₀/(1 + ct), all with the rate η, and AdaGrad
    with its own rate r, from w = 0 on :func:`race_data` for 25 epochs; one epoch is one pass
    (n examples, or one full gradient).

    AdaGrad gets its own rate because its r is a step length, not a multiplier of the gradient:
    its first step moves every coordinate with a nonzero gradient g by |g|·r/√(g²) = r, whatever
    the size of g, up to rounding unless g² underflows (|g| below about 1e-154: then g² is
    subnormal and the step is off by up to about 30 %, or g² is 0 and there is no step).
    """
    X, y, w_ls = race_data()
    n = len(y)
    lms, batch = _fixed_rate_paths(eta)
    sgd = linear.sgd("squared", X, y, eta=eta, epochs=RACE_EPOCHS, decay=decay).path()
    per_epoch = (lms[::n], batch, sgd[::n], _adagrad_path(adagrad_rate)[::n])
    distances = {name: np.linalg.norm(path - w_ls, axis=1)
                 for name, path in zip(METHODS, per_epoch, strict=True)}
    return Race(np.arange(RACE_EPOCHS + 1), distances)


def decade_limits(values) -> tuple[float, float]:
    """Powers of ten around the positive finite ``values``, at least two decades apart, so a
    log axis with these limits shows at least three labelled ticks (1e-12 floor, 1e6 ceiling)."""
    values = np.clip(np.asarray(values, dtype=float), 1e-12, 1e6)
    low = np.floor(np.log10(values.min()))
    high = max(np.ceil(np.log10(values.max())), low + 2)
    return 10.0**low, 10.0**high


@dataclass(frozen=True)
class _RaceView:
    """The race widget's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    curves: tuple[Line2D, ...]


@lru_cache(maxsize=1)
def _race_view() -> _RaceView:
    """Build the race's figure once: the four curves and the title change, and the y-range when
    the curves' decades do; the legend stands beside the axes."""
    fig, (ax,) = figure(1, width=9.0, height=3.8)
    fig.subplots_adjust(right=1 - LEGEND_INCHES / 9.0)  # the legend's column inside the canvas
    epochs = np.arange(RACE_EPOCHS + 1)
    curves = tuple(ax.plot(epochs, np.ones_like(epochs, dtype=float), color=colour,
                           marker=marker, markersize=3, label=name)[0]
                   for name, colour, marker in zip(METHODS, COLOURS, MARKERS, strict=True))
    log_axis(ax, "y")
    ax.set(xlabel="epochs (passes over the 40 examples)", ylabel="‖w − w_LS‖")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    animate(*curves, ax.title)
    return _RaceView(fig, ax, curves)


def show_race(eta: float, decay: float, adagrad_rate: float = 0.2) -> Figure:
    """The distance to the least-squares solution per epoch, log scale, for the four methods;
    the y-range is the decades the curves cover. Each rate is used as its slider shows it
    (:func:`as_shown`).

    The figure is built once and redrawn in place: each call returns the same Figure."""
    eta, decay, adagrad_rate = as_shown(eta), as_shown(decay), as_shown(adagrad_rate)
    result = race(eta, decay, adagrad_rate)
    view = _race_view()
    for curve, distance in zip(view.curves, result.distances.values(), strict=True):
        curve.set_ydata(np.clip(distance, 1e-12, 1e6))
    set_view(view.ax, view.ax.get_xlim(),
             decade_limits(np.concatenate(list(result.distances.values()))))
    # title.set_text, not set_title, which also moves the static side titles (a full redraw)
    view.ax.title.set_text(f"η = {eta:.3g}, c = {decay:.3g}, AdaGrad r = {adagrad_rate:.3g}")
    ends = ", ".join(f"{name} {distance[-1]:.2g}" for name, distance in result.distances.items())
    closest = min(result.distances, key=lambda name: result.distances[name][-1])
    return describe(view.fig, f"Distance ‖w − w_LS‖ on a log scale over {RACE_EPOCHS} epochs, "
                              f"from {result.distances[METHODS[0]][0]:.2g} at the start, with "
                              f"η = {eta:.3g}, c = {decay:.3g} and AdaGrad r = "
                              f"{adagrad_rate:.3g}. After {RACE_EPOCHS} epochs: {ends}; "
                              f"{closest} ends closest.")


# --- MMDS §12.3.5: one or a few examples at a time, in which order --------------------------

# (label, batch size b, order): b = 40 is the whole race data, batch gradient descent
SGD_ORDERS = (("one example, fixed order", 1, "cyclic"),
              ("one example, reshuffled every pass", 1, "shuffled"),
              ("one example, drawn with replacement", 1, "random"),
              ("mini-batches of 5, reshuffled", 5, "shuffled"),
              ("all 40 (batch gradient descent)", 40, "cyclic"))


@dataclass(frozen=True)
class Orders:
    """:func:`mllib.linear.minibatch_sgd` on :func:`race_data`, for each of :data:`SGD_ORDERS`.

    Attributes
    ----------
    steps : dict of str to int
        Steps per pass, ⌈40/b⌉.
    used_first_pass : dict of str to int
        Distinct examples the first pass used (seed 0).
    distances : dict of str to ndarray of shape (len(seeds),)
        ‖w - w_LS‖ after ``epochs`` passes, one per seed.
    """

    steps: dict[str, int]
    used_first_pass: dict[str, int]
    distances: dict[str, np.ndarray]


@lru_cache(maxsize=1)
def sgd_orders(eta: float = 0.05, decay: float = 0.01, epochs: int = RACE_EPOCHS,
               seeds: tuple[int, ...] = (0, 1, 2, 3, 4)) -> Orders:
    """The same budget, ``epochs`` × 40 example gradients, spent in the ways of
    :data:`SGD_ORDERS`, all with the rate η₀/(1 + ct) counted in steps."""
    X, y, w_ls = race_data()
    steps, used, distances = {}, {}, {}
    for name, b, order in SGD_ORDERS:
        runs = [linear.minibatch_sgd("squared", X, y, eta=eta, epochs=epochs, batch_size=b,
                                     order=order, decay=decay, seed=seed) for seed in seeds]
        steps[name] = len(runs[0].history) // epochs
        used[name] = len(np.unique(np.concatenate([s.index for s in
                                                   runs[0].history[:steps[name]]])))
        distances[name] = np.array([np.linalg.norm(r.w - w_ls) for r in runs])
    return Orders(steps, used, distances)


def sgd_orders_table() -> str:
    result = sgd_orders()
    rows = [[name, result.steps[name], result.used_first_pass[name],
             f"{np.median(d):.1e}", f"{d.min():.1e} – {d.max():.1e}"]
            for name, d in result.distances.items()]
    return markdown_table(["examples per step, and their order", "steps per pass",
                           "distinct examples in pass 1 (seed 0)",
                           f"‖w − w_LS‖ after {RACE_EPOCHS} passes (median of 5 seeds)",
                           "smallest – largest"], rows)


# --- Expected risk (CS446 "General stochastic gradient algorithms") --------------------------

RACE_W = np.array([2.0, -1.0, 0.5])  # the weights race_data draws its targets from
RACE_NOISE = 0.5  # the standard deviation of race_data's noise


def expected_squared_risk(w) -> float:
    """J(w) = E ½(y - w·x)² for race_data's distribution, exactly: x ~ N(0, I),
    y = x·w_true + ε with ε ~ N(0, σ²), so J(w) = ½(‖w - w_true‖² + σ²)."""
    return 0.5 * (float(np.sum((np.asarray(w) - RACE_W) ** 2)) + RACE_NOISE**2)


def risk_table(fresh: int = 100_000, seed: int = 12) -> str:
    """J(w) three ways, for w = 0 and w = w_LS: exact, the mean loss on ``fresh`` new draws
    ± its standard error (the losses' standard deviation over √fresh: a Monte Carlo estimate),
    and the mean loss on the 40 training examples (the empirical risk the methods minimise)."""
    X, y, w_ls = race_data()
    rng = np.random.default_rng(seed)
    X_new = rng.normal(size=(fresh, len(RACE_W)))
    y_new = X_new @ RACE_W + RACE_NOISE * rng.normal(size=fresh)
    rows = []
    for name, w in (("w = 0", np.zeros(len(RACE_W))), ("w = w_LS", w_ls)):
        losses = 0.5 * (y_new - X_new @ w) ** 2  # Q of each fresh example
        se = losses.std(ddof=1) / np.sqrt(fresh)
        rows.append([name, f"{expected_squared_risk(w):.4f}",
                     f"{linear.objective('squared', w, X_new, y_new):.4f} ± {se:.4f}",
                     f"{linear.objective('squared', w, X, y):.4f}"])
    return markdown_table(["weights", "J(w) exact", f"mean Q on {fresh:,} fresh examples ± s.e.",
                           "mean Q on the 40 training examples"], rows)


# --- The hinge loss gives a perceptron-style update ------------------------------------------

HINGE_X = np.array([[1.0, 0.5], [-0.5, -1.0], [0.25, 1.5], [1.5, -0.25], [-1.0, 0.75]])
HINGE_Y = np.array([1.0, -1.0, 1.0, 1.0, -1.0])


def hinge_steps_table(eta: float = 0.5) -> str:
    """One SGD pass with the hinge loss and no penalty on a few 2-D points: each row shows the
    margin z = y·w·x before the step, whether the step moved w, and w after it."""
    run = linear.sgd("hinge", HINGE_X, HINGE_Y, eta=eta, epochs=1)
    path = run.path()
    rows = []
    for i, (before, after) in enumerate(zip(path[:-1], path[1:], strict=True)):
        z = HINGE_Y[i] * (before @ HINGE_X[i])
        moved = not np.array_equal(before, after)
        rows.append([i + 1, HINGE_X[i].tolist(), f"{HINGE_Y[i]:+.0f}", f"{z:.3g}",
                     f"yes: w += {eta:g}·y·x" if moved else "no (z ≥ 1)",
                     np.round(after, 4).tolist()])
    return markdown_table(["step", "x", "y", "z = y·w·x before", "update?", "w after"], rows)


# --- The L1-loss and the L2-loss SVM ----------------------------------------------------------


@dataclass(frozen=True)
class SVMs:
    """The L1-loss (hinge) and L2-loss (squared hinge) SVMs on :func:`logistic_data`.

    Attributes
    ----------
    C : float
    hinge, squared_hinge : ndarray of shape (3,)
        The weights found by gradient descent on ½‖w‖² + C·Σᵢ loss (the last is the intercept).
    violators : dict of str to int
        Examples with y·w·x < 1 for each (:func:`margin_violators`).
    """

    C: float
    hinge: np.ndarray
    squared_hinge: np.ndarray
    violators: dict[str, int]


MARGIN_TOLERANCE = 1e-3


def margin_violators(w, X, y, tolerance: float = MARGIN_TOLERANCE) -> int:
    """How many examples lie strictly inside the margin, y·w·x < 1 - ``tolerance``.

    The L1-loss SVM's optimum puts its support vectors exactly on the margin, z = 1, and an
    iterative solver leaves them at z = 1 ± its error: on :func:`logistic_data` with C = 0.1,
    scikit-learn's ``LinearSVC`` puts its within 10⁻⁶ of 1 (its last bits vary with the
    machine) and :func:`l1_and_l2_svm`'s gradient descent (its w within 10⁻³ of LinearSVC's)
    two at 1 - 6·10⁻⁵ and 1 - 10⁻⁵, while the
    nearest true violator is at 1 - 9·10⁻³. A plain z < 1 counts those support vectors by
    accident; 10⁻³ sits between the solver's error and the first violator, so both solvers give
    the same count.
    """
    return int(np.sum(y * (X @ w) < 1 - tolerance))


@lru_cache(maxsize=1)
def l1_and_l2_svm(C: float = 0.1, iterations: int = 3000) -> SVMs:
    """Both SVMs by batch gradient descent on J = (1/n)·Σ Q + (λ/2)‖w‖², λ = 1/(C·n), which is
    (1/(Cn))·(½‖w‖² + C·Σ Q). The hinge run uses the decaying rate (its objective has a kink);
    the squared hinge is smooth, so a constant rate converges."""
    X, y = logistic_data()
    lam = 1 / (C * len(y))
    hinge = linear.gradient_descent("hinge", X, y, eta=1.0, decay=0.05, iterations=iterations,
                                    regularizer="l2", lam=lam).w
    squared = linear.gradient_descent("squared_hinge", X, y, eta=0.1, iterations=iterations,
                                      regularizer="l2", lam=lam).w
    violators = {name: margin_violators(w, X, y)
                 for name, w in (("hinge", hinge), ("squared_hinge", squared))}
    return SVMs(C, hinge, squared, violators)


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
    """Ridge and LASSO on data with 8 features of which 3 matter, over α from 10⁻³ to 10³.

    Ridge is called with n·α, and ‖y - Xw‖² + n·α‖w‖² = n·((1/n)‖y - Xw‖² + α‖w‖²) has the same
    minimiser as (1/n)‖y - Xw‖² + α‖w‖²: α against the mean squared error. LASSO's objective
    is (1/2n)‖y - Xw‖² + α‖w‖₁ (scikit-learn's): α against *half* the mean squared error, so
    at one α its penalty weighs twice as much against the fit as ridge's.
    """
    rng = np.random.default_rng(seed)
    true_w = np.array([3.0, -2.0, 1.5, 0, 0, 0, 0, 0])
    X = rng.normal(size=(n, len(true_w)))
    y = X @ true_w + rng.normal(size=n)
    alphas = np.logspace(-3, 3, 49)
    ridge = np.array([linear.ridge(X, y, alpha=n * a) for a in alphas])
    lasso = np.array([linear.lasso(X, y, alpha=a, tol=1e-8).w for a in alphas])
    return Paths(alphas, ridge, lasso, true_w)


def show_paths() -> Figure:
    """Ridge shortens w smoothly (a single coefficient may grow or change sign, none reaches 0);
    LASSO sets coefficients to exactly 0 one by one."""
    paths = coefficient_paths()
    fig, axes = figure(2, width=4.8, height=3.8)
    for ax, name, coefs in ((axes[0], "ridge: (1/n)‖y − Xw‖² + α‖w‖²", paths.ridge),
                            (axes[1], "LASSO: (1/2n)‖y − Xw‖² + α‖w‖₁", paths.lasso)):
        for j in range(coefs.shape[1]):
            ax.semilogx(paths.alphas, coefs[:, j], color=POSITIVE if paths.true_w[j] else
                        "grey", linewidth=1.5 if paths.true_w[j] else 0.8)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set(xlabel="α", ylabel="coefficient", title=name)
    zeros = np.sum(paths.lasso == 0, axis=1)
    # top right: by then every path has shrunk towards 0, so the note covers none of them
    axes[1].text(0.97, 0.97, f"exact zeros: {zeros[0]} at α = 10⁻³,\n{zeros[len(zeros) // 2]} at "
                 f"α = 1", transform=axes[1].transAxes, fontsize=8, ha="right", va="top")
    d, relevant = len(paths.true_w), int(np.count_nonzero(paths.true_w))
    ridge_zeros = int(np.sum(paths.ridge == 0))
    return describe(fig, f"Ridge and LASSO coefficients of {d} features ({relevant} of them "
                         f"used by the data, drawn thicker) against α from "
                         f"{paths.alphas[0]:g} to {paths.alphas[-1]:g}. Ridge shrinks them all "
                         f"towards 0 ({ridge_zeros} values exactly 0 on the whole path); "
                         f"LASSO has {zeros[0]} exact zeros at α = {paths.alphas[0]:g}, "
                         f"{zeros[len(zeros) // 2]} at α = {paths.alphas[len(zeros) // 2]:g} "
                         f"and {zeros[-1]} at α = {paths.alphas[-1]:g}.")


def lasso_zero_table() -> str:
    """How many LASSO and ridge coefficients are exactly 0 at a few α."""
    paths = coefficient_paths()
    rows = []
    for k in range(0, len(paths.alphas), 8):
        rows.append([f"{paths.alphas[k]:.3g}", int(np.sum(paths.lasso[k] == 0)),
                     int(np.sum(paths.ridge[k] == 0))])
    return markdown_table(["α (ridge: against the MSE; LASSO: against half the MSE)",
                           "LASSO coefficients = 0",
                           "ridge coefficients = 0"], rows)


# --- Logistic regression ---------------------------------------------------------------------


LOGISTIC_MEAN = np.array([1.0, 0.7])  # class +1 is centred at +μ, class -1 at -μ


def logistic_sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n/2 points of each class from N(±μ, I) in 2-D, with a constant feature 1 appended:
    X of shape (n, 3), y (n,) with the positives first."""
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + np.outer(y, LOGISTIC_MEAN)
    return np.hstack([X, np.ones((n, 1))]), y


@lru_cache(maxsize=1)
def logistic_data(n: int = 80, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two overlapping Gaussian clouds in 2-D with a constant feature 1 appended (shape (n, 3))."""
    return logistic_sample(n, np.random.default_rng(seed))


# With equal priors and N(±μ, I) the log-odds are 2μ·x: the weights a fit with the constant
# feature 1 would find from unlimited data.
TRUE_LOGISTIC_W = np.r_[2 * LOGISTIC_MEAN, 0.0]


def true_probability(X) -> np.ndarray:
    """P(y = +1 | x) for :func:`logistic_sample`'s distribution, σ(w*·x) with w* =
    :data:`TRUE_LOGISTIC_W` = (2μ, 0). X (n, 3) -> (n,)."""
    return linear.predict_proba(TRUE_LOGISTIC_W, X)


@dataclass(frozen=True)
class BiasVariance:
    """Bias² and variance of logistic regression's P(y = +1 | x) against C.

    Attributes
    ----------
    Cs : ndarray of shape (k,)
    bias2 : ndarray of shape (k,)
        An estimate of the mean over test points of (E_D p̂(x) - P(y = +1 | x))², E_D over
        training sets: the squared error of the average of the ``sets`` fits, less the
        variance estimate divided by ``sets`` (the average of S fits misses E_D p̂(x) by a
        random amount whose square is Var_D p̂(x)/S on average), so that it is unbiased.
    variance : ndarray of shape (k,)
        The mean over test points of the sample variance (ddof = 1) of the ``sets`` fits, an
        unbiased estimate of Var_D p̂(x).
    mean_norm : ndarray of shape (k,)
        The mean length ‖w‖ of the ``sets`` fitted weight vectors (the true one is
        :data:`TRUE_LOGISTIC_W`): how confident the individual fits are.
    sharper : ndarray of shape (k,)
        The share of test points where the average of the fits is farther from ½ than the true
        P(y = +1 | x): how confident the average fit is.
    n_train, sets : int
        The size of each training set and how many were drawn.
    """

    Cs: np.ndarray
    bias2: np.ndarray
    variance: np.ndarray
    mean_norm: np.ndarray
    sharper: np.ndarray
    n_train: int
    sets: int


BIAS_VARIANCE_CS = np.logspace(-3, 2, 11)  # 10⁻³ … 10², two steps a decade


def _decompose(Cs, n_train: int, sets: int, n_test: int, seed: int) -> BiasVariance:
    """Bias² and variance at each C from one draw (``seed``) of ``n_test`` test points and
    ``sets`` training sets of ``n_train``; see :class:`BiasVariance` for the estimators."""
    rng = np.random.default_rng(seed)
    X_test, _ = logistic_sample(n_test, rng)
    truth = true_probability(X_test)
    training = [logistic_sample(n_train, rng) for _ in range(sets)]
    bias2, variance, mean_norm, sharper = [], [], [], []
    for C in Cs:
        w = np.array([linear.logistic_regression(X, y, C=C).w for X, y in training])
        p = np.array([linear.predict_proba(w_set, X_test) for w_set in w])
        spread = p.var(axis=0, ddof=1)
        bias2.append(np.mean((p.mean(axis=0) - truth) ** 2 - spread / sets))
        variance.append(np.mean(spread))
        mean_norm.append(np.mean(np.linalg.norm(w, axis=1)))
        sharper.append(np.mean(np.abs(p.mean(axis=0) - 0.5) > np.abs(truth - 0.5)))
    return BiasVariance(np.asarray(Cs), np.array(bias2), np.array(variance),
                        np.array(mean_norm), np.array(sharper), n_train, sets)


@lru_cache(maxsize=1)
def bias_variance(n_train: int = 20, sets: int = 600, n_test: int = 1000,
                  seed: int = 446) -> BiasVariance:
    """Fit logistic regression with each C in 10⁻³ … 10² on ``sets`` training sets of
    ``n_train`` points from :func:`logistic_sample`, and split its error in P(y = +1 | x) on
    ``n_test`` fresh points into bias² and variance (CS446 "Underfitting and overfitting")."""
    return _decompose(BIAS_VARIANCE_CS, n_train, sets, n_test, seed)


@dataclass(frozen=True)
class BiasSweep:
    """Bias² and variance at the five largest C of :func:`bias_variance`, redrawn with other
    seeds.

    Attributes
    ----------
    Cs : ndarray of shape (5,)
        1, 3.16, 10, 31.6 and 100.
    seeds : tuple of int
        The draws, the first being :func:`bias_variance`'s own.
    bias2, variance : ndarray of shape (len(seeds), 5)
        Each draw's estimates at each C (600 training sets of 20 per draw).
    """

    Cs: np.ndarray
    seeds: tuple[int, ...]
    bias2: np.ndarray
    variance: np.ndarray

    def step(self, a: int, b: int, *, with_variance: bool = False) -> np.ndarray:
        """Each draw's paired difference bias²(Cs[b]) − bias²(Cs[a]), or of bias² + variance,
        shape (len(seeds),)."""
        values = self.bias2 + self.variance if with_variance else self.bias2
        return values[:, b] - values[:, a]


@lru_cache(maxsize=1)
def bias_sweep(draws: int = 10) -> BiasSweep:
    """Bias² and variance at C = 1 … 100 for seeds 446, 447, ...: one draw of 600 training sets
    gives an estimate, and whether bias² "levels off" or "rises", or which C has the smaller
    sum, is a comparison of estimates, so it is judged over ``draws`` draws (about 2 s each)."""
    seeds = tuple(range(446, 446 + draws))
    Cs = BIAS_VARIANCE_CS[-5:]
    fits = [_decompose(Cs, 20, 600, 1000, s) for s in seeds]
    return BiasSweep(Cs, seeds, np.array([d.bias2 for d in fits]),
                     np.array([d.variance for d in fits]))


SWEEP_STEPS = ((2, 3, False), (3, 4, False), (0, 1, True))  # bias² at large C; the sum's minimum


def bias_sweep_table() -> str:
    """Over :func:`bias_sweep`'s draws, the two steps of the bias² at large C and the step of
    bias² + variance from C = 1 to 3.16 (the two smallest sums): each paired difference's
    mean ± standard error and the number of draws in which it is positive."""
    sweep = bias_sweep()
    rows = []
    for a, b, with_variance in SWEEP_STEPS:
        step = sweep.step(a, b, with_variance=with_variance)
        name = "(bias² + variance)" if with_variance else "bias²"
        rows.append([f"{name}(C = {sweep.Cs[b]:.3g}) − {name}(C = {sweep.Cs[a]:.3g})",
                     mean_and_se(step * 1e5, ".1f"), f"{int(np.sum(step > 0))} of {len(step)}"])
    return markdown_table(["step", f"mean ± s.e. over {len(sweep.seeds)} draws (×10⁻⁵)",
                           "draws in which it rises"], rows)


def _room_below(values) -> tuple[float, float]:
    """:func:`decade_limits`, with the floor a decade lower when the lowest value would sit
    within a factor 2 of it (a marker drawn on the axis line is half hidden)."""
    low, high = decade_limits(values)
    return (low / 10 if np.min(values) < 2 * low else low), high


def show_bias_variance() -> Figure:
    """Bias², variance and their sum against C, both axes logarithmic."""
    result = bias_variance()
    fig, (ax,) = figure(1, width=8.0, height=3.8)
    fig.subplots_adjust(right=1 - LEGEND_INCHES / 8.0)  # the legend beside the axes, on no marker
    total = result.bias2 + result.variance
    for values, name, style in ((result.bias2, "bias²", "o-"), (result.variance, "variance", "s-"),
                                (total, "bias² + variance", "k^:")):
        ax.plot(result.Cs, values, style, markersize=4, label=name)
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set(xlabel="C (small: strong penalty, a simple model)",
           ylabel="squared error in P(y = +1 | x)", ylim=_room_below(np.r_[result.bias2,
                                                                           result.variance]),
           title=f"logistic regression, {result.sets} training sets of {result.n_train}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    best = int(np.argmin(total))
    return describe(fig, f"Bias² and variance of logistic regression's P(y = +1 | x), from "
                         f"{result.sets} training sets of {result.n_train}, against C from "
                         f"{result.Cs[0]:g} to {result.Cs[-1]:g} (log scales): bias² falls from "
                         f"{result.bias2[0]:.2g} to {result.bias2[-1]:.2g}, variance rises from "
                         f"{result.variance[0]:.2g} to {result.variance[-1]:.2g}; their sum is "
                         f"smallest, {total[best]:.2g}, at C = {result.Cs[best]:.3g}.")


LOGISTIC_LEVELS = (0.1, 0.5, 0.9)  # the contours of P(y = +1 | x) drawn
LOGISTIC_GRID = np.linspace(-4, 4, 81)  # the map's cell centres on each axis
LOGISTIC_CMAP = "RdBu"  # diverging and colour-blind safe: red for −1, blue (POSITIVE) for +1


def rounded_weights(w: np.ndarray) -> list[float]:
    """w to 2 decimals as the logistic widget prints it; + 0.0 turns a rounded -0.0 into 0.0,
    so a title never reads "-0.0"."""
    return (np.round(w, 2) + 0.0).tolist()


@lru_cache(maxsize=64)  # a slider moved back and forth redraws without refitting
def logistic_fit(C: float) -> np.ndarray:
    """Logistic regression's weights (w₁, w₂, bias) on :func:`logistic_data` for penalty C."""
    return linear.logistic_regression(*logistic_data(), C=C).w


@dataclass(frozen=True)
class _LogisticView:
    """The logistic widget's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    probability: AxesImage
    contours: tuple[Line2D, ...]
    labels: tuple[Text, ...]


@lru_cache(maxsize=1)
def _logistic_view() -> _LogisticView:
    """Build the logistic widget's figure once: the map, its three contour lines with their
    labels and the title change; the points are drawn over the map, so they are animated too.
    σ(w·x) = p is the straight line w·x = log(p/(1 − p)), so each contour is a line."""
    X, y = logistic_data()
    fig, (ax,) = figure(1, width=5.6, height=4.4)
    half = (LOGISTIC_GRID[1] - LOGISTIC_GRID[0]) / 2  # cells centred on the grid, as pcolormesh
    extent = (LOGISTIC_GRID[0] - half, LOGISTIC_GRID[-1] + half) * 2
    norm = Normalize(0, 1)
    probability = ax.imshow(np.zeros((len(LOGISTIC_GRID),) * 2), origin="lower", extent=extent,
                            cmap=LOGISTIC_CMAP, norm=norm, alpha=0.6, interpolation="nearest")
    contours = tuple(ax.plot([], [], color="black", linewidth=0.8)[0] for _ in LOGISTIC_LEVELS)
    labels = tuple(ax.text(0, 0, f"{level:g}", fontsize=7, ha="center", va="center",
                           bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
                           clip_on=True) for level in LOGISTIC_LEVELS)
    scatter_labelled(ax, X[:, :2], y, size=16)
    ax.set_xlim(extent[:2])
    ax.set_ylim(extent[2:])
    fig.colorbar(ScalarMappable(norm, LOGISTIC_CMAP), ax=ax, alpha=0.6, label="P(y = +1 | x)")
    animate(probability, *contours, *labels, *ax.collections, ax.title)
    return _LogisticView(fig, ax, probability, contours, labels)


def show_logistic(C: float) -> Figure:
    """P(y = +1 | x) = σ(w·x) as a shaded map with the 0.1/0.5/0.9 contours, for penalty C as its
    slider shows it (:func:`as_shown`).

    The figure is built once and redrawn in place: each call returns the same Figure."""
    C = as_shown(C)
    X, y = logistic_data()
    w = logistic_fit(C)
    view = _logistic_view()
    gx, gy = np.meshgrid(LOGISTIC_GRID, LOGISTIC_GRID)
    grid = np.column_stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    view.probability.set_data(linear.predict_proba(w, grid).reshape(gx.shape))
    (x_lo, x_hi), (y_lo, y_hi) = view.ax.get_xlim(), view.ax.get_ylim()
    centre = np.array([(x_lo + x_hi) / 2, (y_lo + y_hi) / 2])
    for line, label, level in zip(view.contours, view.labels, LOGISTIC_LEVELS, strict=True):
        logit = np.log(level / (1 - level))
        line.set_data(*hyperplane_points(view.ax, w[:2], w[2], offset=logit))
        # the label sits where the line passes nearest the centre of the view
        foot = (centre - (centre @ w[:2] + w[2] - logit) / (w[:2] @ w[:2]) * w[:2]
                if np.any(w[:2]) else centre)
        label.set_position(foot)
        label.set_visible(bool(np.any(w[:2])) and x_lo <= foot[0] <= x_hi
                          and y_lo <= foot[1] <= y_hi)
    view.ax.title.set_text(f"C = {C:g}: w = {rounded_weights(w)}")
    wrong = int(np.sum(np.where(X @ w > 0, 1.0, -1.0) != y))
    band = 2 * np.log(9) / np.linalg.norm(w[:2])  # from w·x = −log 9 to w·x = log 9
    return describe(view.fig, f"{len(y)} points in two overlapping classes and logistic "
                              f"regression's P(y = +1 | x) for C = {C:g}: w = "
                              f"{rounded_weights(w)}. The band from P = 0.1 to 0.9 is "
                              f"{band:.2f} wide; {wrong} points lie on the wrong side of "
                              f"P = 0.5.")


# --- The five losses -------------------------------------------------------------------------


def show_losses() -> Figure:
    """The 0-1, squared, hinge, log and exponential losses against the margin z = y·w·x, and the
    L2-loss SVM's squared hinge."""
    z = np.linspace(-2, 3, 501)
    values = {**linear.losses(z), "squared hinge": linear.squared_hinge(z)}
    fig, (ax,) = figure(1, width=6, height=3.8)
    styles = {"0-1": ("black", "-"), "squared": (PALETTE[3], "--"), "hinge": (POSITIVE, "-"),
              "log": (PALETTE[2], "-"), "exponential": (NEGATIVE, ":"),
              "squared hinge": (PALETTE[5], "-.")}
    for name, value in values.items():
        colour, style = styles[name]
        # for z < 1 the squared hinge is the squared loss: drawn wide and underneath, it shows
        # as a band around the squared loss's dashes instead of hiding them
        wide = name == "squared hinge"
        # the 0-1 loss drops at z = 0 itself ("steps-pre"), not along a slope to the next z
        ax.plot(z, value, color=colour, linestyle=style, label=name,
                linewidth=5 if wide else 1.6, alpha=0.5 if wide else 1.0, zorder=1 if wide else 2,
                drawstyle="steps-pre" if name == "0-1" else "default")
    ax.set(xlabel="margin z = y·(w·x)", ylabel="loss", ylim=(-0.1, 4),
           title="five losses, and the squared hinge")
    ax.axvline(0, color="grey", linewidth=0.6)
    ax.legend(fontsize=8)
    at = {where: ", ".join(f"{name} {np.interp(where, z, value):.2f}"
                           for name, value in values.items()) for where in (0.0, 1.0)}
    return describe(fig, f"Six losses against the margin z = y·(w·x) from {z[0]:g} to "
                         f"{z[-1]:g}; the 0-1 loss steps from 1 to 0 at z = 0. At z = 0: "
                         f"{at[0.0]}. At z = 1: {at[1.0]}.")
