"""Widgets, figures and tables for the kernels walk-through (lecture 07).

Sources: CS446 (the circle and the map (x₁², x₂²), the dual representation, the kernel
perceptron, the quadratic kernel, the Gram matrix, building kernels, the nonlinear SVM) and MMDS
§12.2.6 (Example 12.7, the polar transform).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import contourpy
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.ticker import NullLocator

from mllib import data, kernels, perceptron, svm
from mllib.demos.live import animate, set_view
from mllib.plotting import (
    NEGATIVE,
    PALETTE,
    POSITIVE,
    counted,
    describe,
    figure,
    markdown_table,
    scatter_labelled,
    share_and_se,
)

DATASETS = ("rings", "xor", "moons")
KERNEL_NAMES = ("linear", "polynomial", "rbf")
_REGIONS = ListedColormap(["#fde3c8", "#d3e5f5"])  # light orange (-1), light blue (+1)
_GRID = 90  # grid points per axis for decision regions


# --- Making data linearly separable ----------------------------------------------------------


def show_circle(n: int = 200, seed: int = 0) -> Figure:
    """CS446's circle: x₁² + x₂² <= 1 in the plane, and the half-plane x'₁ + x'₂ <= 1 after
    the map x' = (x₁², x₂²)."""
    X, y = data.rings(n, gap=0.3, seed=seed)
    fig, (left, right) = figure(2, width=4.2, height=4.0)
    scatter_labelled(left, X, y)
    angle = np.linspace(0, 2 * np.pi, 200)
    left.plot(np.cos(angle), np.sin(angle), color="black", label="x₁² + x₂² = 1")
    left.set_title("no line separates the disc")
    scatter_labelled(right, kernels.squares(X), y)
    right.plot([0, 1], [1, 0], color="black", label="x'₁ + x'₂ = 1")
    right.set_xlabel("$x'_1 = x_1^2$")
    right.set_ylabel("$x'_2 = x_2^2$")
    right.set_title("after (x₁², x₂²): a line does")
    for ax in (left, right):
        _legend_above_data(ax)
    inside = int(np.sum(y > 0))
    mapped = kernels.squares(X).sum(axis=1)
    split = "separates them" if _separated(mapped, y, 1.0) else "does not separate them"
    return describe(fig, (
        f"Left: {len(y)} points in the plane, {inside} inside the unit circle x₁² + x₂² = 1 "
        f"(+1, circles) and {len(y) - inside} in a ring outside it (−1, squares); no straight "
        f"line separates the disc from the ring. Right: the same points after the map "
        f"(x₁², x₂²); the line x'₁ + x'₂ = 1 {split}."))


def _separated(values: np.ndarray, y: np.ndarray, threshold: float) -> bool:
    """Whether every +1 point has ``values`` below ``threshold`` and every −1 point above."""
    return bool(np.all(values[y > 0] < threshold) and np.all(values[y < 0] > threshold))


def _legend_above_data(ax: Axes, room: float = 0.3) -> None:
    """Raise the top of the y axis by ``room`` of its range and put the legend there, above
    every point."""
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + room * (high - low))
    ax.legend(loc="upper right", fontsize=7)


def show_polar(n: int = 200, radius: float = 1.25, seed: int = 1) -> Figure:
    """MMDS Example 12.7 (Fig. 12.10): day trips within a circle, excursions outside; in polar
    coordinates the circle r = ``radius`` becomes a straight line."""
    X, y = data.rings(n, gap=0.5, seed=seed)
    R = kernels.polar(X)
    fig, (left, right) = figure(2, width=4.2, height=4.0)
    scatter_labelled(left, X, y)
    angle = np.linspace(-np.pi, np.pi, 200)
    left.plot(radius * np.cos(angle), radius * np.sin(angle), "k--", label=f"r = {radius}")
    left.set_title("Cartesian: a circle")
    right.scatter(R[y > 0, 0], R[y > 0, 1], s=18, c=POSITIVE, label="day trip (+1)")
    right.scatter(R[y < 0, 0], R[y < 0, 1], s=18, c=NEGATIVE, marker="s", label="excursion (-1)")
    right.axvline(radius, color="black", linestyle="--", label=f"r = {radius}")
    right.set_xlabel("r = √(x₁² + x₂²)")
    right.set_ylabel("angle atan2(x₂, x₁)")
    right.set_title("polar: a line (MMDS Fig. 12.10)")
    right.set_yticks([-np.pi, -np.pi / 2, 0, np.pi / 2, np.pi], ["−π", "−π/2", "0", "π/2", "π"])
    right.set_ylim(-np.pi - 0.2, np.pi + 0.2)
    for ax in (left, right):
        _legend_above_data(ax)
    split = "separates them" if _separated(R[:, 0], y, radius) else "does not separate them"
    return describe(fig, (
        f"Left: {len(y)} trips in the plane, {int(np.sum(y > 0))} day trips (+1, circles) within "
        f"the circle r = {radius} and {int(np.sum(y < 0))} excursions (−1, squares) outside "
        f"it. Right: the same trips in polar coordinates (radius r across, angle up), where the "
        f"circle becomes the vertical line r = {radius}, which {split}; day trips span r = "
        f"{R[y > 0, 0].min():.2f} to {R[y > 0, 0].max():.2f}, excursions r = "
        f"{R[y < 0, 0].min():.2f} to {R[y < 0, 0].max():.2f}."))


# --- The dual representation -------------------------------------------------------------------

# Four examples on which a perceptron from w = 0 errs on x¹, x², x⁴ (CS446 "Dual Representation").
SLIDE_X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [1.0, 0.0, 1.0]])
SLIDE_Y = np.array([1.0, 1.0, -1.0, -1.0])


def dual_representation_table() -> str:
    """The slide's example as a table: each visit's score, whether it was a mistake, α after it,
    and w = Σ αᵢyᵢxᵢ, ending at w = x¹ + x² - x⁴."""
    run = kernels.kernel_perceptron(SLIDE_X, SLIDE_Y, max_epochs=1)
    mistakes = {u.index: u for u in run.history}
    rows, alpha = [], np.zeros(4)
    for i in range(4):
        score = float((alpha * SLIDE_Y) @ (SLIDE_X @ SLIDE_X[i]))
        alpha[i] += i in mistakes
        w = (alpha * SLIDE_Y) @ SLIDE_X
        rows.append([f"x{'¹²³⁴'[i]} = {SLIDE_X[i].astype(int).tolist()}", f"{SLIDE_Y[i]:+.0f}",
                     f"{score:g}", "mistake" if i in mistakes else "correct",
                     str(alpha.astype(int).tolist()), str(w.astype(int).tolist())])
    return markdown_table(["example", "y", "score Σαⱼyⱼ(xⱼ·x)", "", "α", "w = Σαᵢyᵢxᵢ"], rows)


@lru_cache(maxsize=1)
def side_by_side_runs(n: int = 40, seed: int = 2, c: float = 1.0):
    """The kernel perceptron with (x·z + c)² and the primal perceptron on φ(x) =
    :func:`mllib.kernels.quadratic_features` with the same c, on a disc-and-ring sample:
    returns (primal, dual)."""
    X, y = data.rings(n, gap=0.3, seed=seed)
    dual = kernels.kernel_perceptron(X, y, kernel="polynomial", degree=2, c=c)
    primal = perceptron.perceptron(kernels.quadratic_features(X, c=c), y)
    return primal, dual


def direction_changes(X: np.ndarray, y: np.ndarray) -> int:
    """How often the labels change, going once round the half-turn, when the points are sorted
    by direction θ modulo π (cyclically: the last point is followed by the first).

    With c = 0 a quadratic separator's score is ρ²(a + b cos 2θ + e sin 2θ), of period π in θ,
    whose sign changes at most twice per half-turn: more than 2 changes prove that no such
    separator exists.

    Parameters
    ----------
    X : ndarray of shape (n, 2)
        Points of the plane, none at the origin.
    y : ndarray of shape (n,)
        Their labels.

    Returns
    -------
    int
        The number of neighbours (in direction, cyclically) with different labels.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (len(X),):
        raise ValueError("X must have shape (n, 2) and y shape (n,)")
    labels = y[np.argsort(np.arctan2(X[:, 1], X[:, 0]) % np.pi)]
    return int(np.sum(labels != np.roll(labels, 1)))


def side_by_side(rows: int | None = None) -> str:
    """The first ``rows`` mistakes (default: all) of each run of :func:`side_by_side_runs`,
    with their scores (the primal's w·φ(x), the dual's Σ αⱼyⱼK(xⱼ, x))."""
    primal, dual = side_by_side_runs()
    table = [[k + 1, f"({p.epoch}, {p.index})", f"{p.score:.6f}", f"({d.epoch}, {d.index})",
              f"{d.score:.6f}"]
             for k, (p, d) in enumerate(zip(primal.history[:rows], dual.history[:rows],
                                            strict=True))]
    header = ["mistake", "primal (epoch, row)", "w·φ(x)", "dual (epoch, row)",
              "Σαⱼyⱼ(xⱼ·x + 1)²"]
    return markdown_table(header, table)


# --- What the dual costs ---------------------------------------------------------------------


@dataclass(frozen=True)
class CostStudy:
    """Multiply-adds of the primal perceptron on explicit quadratic features and of the dual
    one with (x·z)², for each number of examples m and input dimension d.

    Attributes
    ----------
    sizes : tuple of int
        The m values.
    dims : tuple of int
        The d values; the primal works in D = d(d+1)/2 dimensions.
    epochs : ndarray of int, shape (len(dims), len(sizes))
        The passes each run made (at most ``max_epochs``).
    mistakes : ndarray of int, shape (len(dims), len(sizes))
        The updates each run made (the same in both forms, section 3).
    primal, dual : ndarray of shape (len(dims), len(sizes))
        The multiply-adds of :func:`primal_cost` and :func:`dual_cost`.
    """

    sizes: tuple[int, ...]
    dims: tuple[int, ...]
    epochs: np.ndarray
    mistakes: np.ndarray
    primal: np.ndarray
    dual: np.ndarray

    def crossover(self, a: int) -> int:
        """The largest m of ``sizes`` at which the dual costs less than the primal for
        ``dims[a]`` (0 if it never does)."""
        cheaper = [m for m, p, q in zip(self.sizes, self.primal[a], self.dual[a], strict=True)
                   if q < p]
        return max(cheaper, default=0)


def primal_cost(m: int, d: int, epochs: int, mistakes: int) -> int:
    """Multiply-adds of the primal perceptron on φ(x) with D = d(d+1)/2 coordinates: m·D to
    build φ, one dot product w·φ(x) of length D per visit (``epochs``·m visits) and one
    update w += yφ(x) of length D per mistake. About t₂·m per pass, with t₂ = D."""
    D = d * (d + 1) // 2
    return m * D + epochs * m * D + mistakes * D


def dual_cost(m: int, d: int, mistakes: int) -> int:
    """Multiply-adds of :func:`mllib.kernels.kernel_perceptron` with (x·z)²: m² kernel values
    of d multiply-adds each for the Gram matrix, then one row update of m scores per mistake
    (a visit only compares a kept score with 0). About t₁·m², with t₁ = d."""
    return m * m * d + mistakes * m


def cost_study(sizes=(25, 50, 100, 200, 400, 800, 1600, 3200), dims=(4, 16, 64),
               max_epochs: int = 3, seed: int = 3) -> CostStudy:
    """Count the slide's trade-off (CS446 "Explicit & Implicit Kernels: Complexity"): the dual
    costs about t₁m², the primal about t₂m per pass, t₁ and t₂ the sizes of the dual (d) and
    primal (d(d+1)/2) feature spaces. Counting, unlike timing, is the same on every machine.

    Labels are sign(x₁x₂) on Gaussian points. The mistakes come from one run of the kernel
    perceptron, which makes exactly the primal's mistakes on φ(x) (section 3 of the
    walk-through), so both counts describe the same run."""
    rng = np.random.default_rng(seed)
    shape = (len(dims), len(sizes))
    epochs, mistakes = np.zeros(shape, dtype=int), np.zeros(shape, dtype=int)
    primal, dual = np.zeros(shape), np.zeros(shape)
    for a, d in enumerate(dims):
        for b, m in enumerate(sizes):
            X = rng.standard_normal((m, d))
            y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
            run = kernels.kernel_perceptron(X, y, kernel="polynomial", degree=2,
                                            max_epochs=max_epochs)
            epochs[a, b], mistakes[a, b] = run.epochs, run.mistakes
            primal[a, b] = primal_cost(m, d, run.epochs, run.mistakes)
            dual[a, b] = dual_cost(m, d, run.mistakes)
    return CostStudy(tuple(sizes), tuple(dims), epochs, mistakes, primal, dual)


def show_cost(study: CostStudy) -> Figure:
    """The counted multiply-adds against m, log-log, one line per d for each form; the x ticks
    are the measured m."""
    fig, (ax,) = figure(1, width=6.4, height=4.2)
    for a, d in enumerate(study.dims):
        colour = PALETTE[a]
        ax.loglog(study.sizes, study.primal[a], "o-", color=colour,
                  label=f"primal, d = {d} (D = {d * (d + 1) // 2})")
        ax.loglog(study.sizes, study.dual[a], "s--", color=colour, label=f"dual, d = {d}")
        # Each line named at its end, in words: the dual's label above it, the primal's below,
        # which keeps apart the ends that nearly meet (dual d = 4, primal d = 64).
        for counts, lift, side in ((study.primal[a], -3, "top"), (study.dual[a], 3, "bottom")):
            ax.annotate(f"d = {d}", (study.sizes[-1], counts[-1]), xytext=(5, lift),
                        textcoords="offset points", fontsize=7, va=side)
    ax.set_xlim(study.sizes[0] / 1.4, study.sizes[-1] * 2.2)  # room for the line names
    ax.set_xticks(study.sizes, [str(m) for m in study.sizes])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("m, the number of examples")
    ax.set_ylabel("multiply-adds")
    ax.set_title("dual ≈ t₁m² (t₁ = d), primal ≈ t₂m per pass (t₂ = d(d+1)/2)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    crossings = "; ".join(
        f"d = {d}: " + (f"the dual is cheaper up to m = {study.crossover(a)}"
                        if study.crossover(a) else "the dual is never cheaper")
        for a, d in enumerate(study.dims))
    return describe(fig, (
        f"Counted multiply-adds against the number of examples m from {study.sizes[0]} to "
        f"{study.sizes[-1]}, log-log, for d = {', '.join(map(str, study.dims))}: the primal "
        f"(solid, circles) grows like m, the dual (dashed, squares) like m². At m = "
        f"{study.sizes[-1]} the dual costs {study.dual[0, -1] / study.primal[0, -1]:.0f} to "
        f"{study.dual[-1, -1] / study.primal[-1, -1]:.0f} times the primal; {crossings}."))


# --- Generalization: irrelevant features --------------------------------------------------


@dataclass(frozen=True)
class IrrelevantFeatures:
    """The perceptron on the same separable data with more and more irrelevant features.

    Attributes
    ----------
    noise_dims : tuple of int
        How many zero-mean noise coordinates were appended.
    ratio : ndarray of shape (len(noise_dims),)
        γ(S, w')/max‖x'‖ for the original separator w' = (w, 0): CS446's γ/‖x‖.
    bound : ndarray
        Novikoff's mistake bound (max‖x'‖/γ)², the inverse square of ``ratio``.
    mistakes : ndarray of int
        The perceptron's updates until a clean pass (at most 1000 passes).
    converged : ndarray of bool
    test_error : ndarray
        The learned w's error rate on fresh examples with the same noise.
    test_size : int
        How many fresh examples each test error is estimated on.
    """

    noise_dims: tuple[int, ...]
    ratio: np.ndarray
    bound: np.ndarray
    mistakes: np.ndarray
    converged: np.ndarray
    test_error: np.ndarray
    test_size: int


def _margin_sample(rng: np.random.Generator, m: int, margin: float) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """m points of [-1, 1]² at distance >= ``margin`` from the line x₁ + x₂ = 0, labelled by
    its side."""
    X = rng.uniform(-1, 1, size=(4 * m, 2))
    X = X[np.abs(X.sum(axis=1)) / np.sqrt(2) >= margin][:m]
    return X, np.where(X.sum(axis=1) > 0, 1.0, -1.0)


def irrelevant_features(noise_dims=(0, 2, 8, 32, 128), m: int = 100, test: int = 2000,
                        margin: float = 0.1, noise: float = 0.5, seed: int = 6
                        ) -> IrrelevantFeatures:
    """CS446 "Kernels: Generalization": append zero-mean noise coordinates (standard
    deviation ``noise``) to separable 2-D data. The separator (w, 0) still separates, with the
    same γ, but every ‖x'‖ > ‖x‖, so γ/‖x'‖ shrinks: the mistake bound grows and the learned
    separator generalises worse. The same 2-D points are used for every row."""
    rng = np.random.default_rng(seed)
    X, y = _margin_sample(rng, m, margin)
    Xt, yt = _margin_sample(rng, test, margin)
    w = np.array([1.0, 1.0]) / np.sqrt(2)
    gamma = float(np.min(y * (X @ w)))
    rows = []
    for k in noise_dims:
        Xk = np.hstack([X, noise * rng.standard_normal((len(X), k))])
        Xtk = np.hstack([Xt, noise * rng.standard_normal((len(Xt), k))])
        ratio = gamma / float(np.linalg.norm(Xk, axis=1).max())
        run = perceptron.perceptron(Xk, y, max_epochs=1000)
        rows.append((ratio, run.mistakes, run.converged,
                     float(np.mean(np.where(Xtk @ run.w > 0, 1.0, -1.0) != yt))))
    ratio, mistakes, converged, error = (np.array(column) for column in zip(*rows, strict=True))
    return IrrelevantFeatures(tuple(noise_dims), ratio, ratio ** -2.0, mistakes.astype(int),
                              converged.astype(bool), error, test)


def irrelevant_features_table(study: IrrelevantFeatures) -> str:
    """The study as a markdown table, one row per number of noise coordinates."""
    rows = [[k, f"{r:.4f}", f"{b:,.0f}", f"{n}" + ("" if c else " (not converged)"),
             share_and_se(e, study.test_size, ".2%")]
            for k, r, b, n, c, e in zip(study.noise_dims, study.ratio, study.bound,
                                        study.mistakes, study.converged, study.test_error,
                                        strict=True)]
    error = f"test error ± s.e. ({study.test_size:,} points; at 0, a 95 % bound)"
    return markdown_table(["noise coordinates", "γ/max‖x'‖", "bound (‖x'‖/γ)²",
                           "perceptron mistakes", error], rows)


# --- Is it a kernel? -------------------------------------------------------------------------


def spectrum_grams(n: int = 40, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Two Gram matrices of shape (n, n) on the same n Gaussian points of the plane: the RBF
    kernel's exp(-0.5‖x - z‖²) (a valid kernel) and that of k(x, z) = ‖x - z‖ (symmetric, zero
    diagonal, no kernel)."""
    X = np.random.default_rng(seed).standard_normal((n, 2))
    # Distances from the differences themselves: x - x is exactly 0, so the diagonal (and the
    # trace the walk-through quotes) is exactly 0, unlike sqrt of the expanded squares.
    return kernels.rbf(X, gamma=0.5), np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)


def show_spectrum(n: int = 40, seed: int = 4) -> Figure:
    """The eigenvalues of the two Gram matrices of :func:`spectrum_grams`: the RBF kernel's
    (all >= 0, positive semi-definite) and those of k(x, z) = ‖x - z‖, which is symmetric but
    no kernel: its trace is 0, so some eigenvalue is negative (CS446 "General condition")."""
    valid, invalid = spectrum_grams(n, seed)
    fig, axes = figure(2, width=4.2, height=3.6)
    words = []
    for ax, K, name in ((axes[0], valid, "exp(-0.5‖x − z‖²)"), (axes[1], invalid, "‖x − z‖")):
        eigenvalues = np.linalg.eigvalsh(K)[::-1]
        negative = eigenvalues < -1e-10
        # Negative bars point down, and are vermillion against green: not told by colour alone.
        ax.bar(np.arange(1, n + 1), eigenvalues, color=np.where(negative, PALETTE[1], PALETTE[2]))
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xlabel("eigenvalue, largest first")
        ax.set_title(f"k = {name}: PSD {kernels.is_psd(K)}", fontsize=9)
        words.append(f"k = {name}: largest {eigenvalues[0]:.1f}, smallest {eigenvalues[-1]:.3g}, "
                     f"{int(negative.sum())} negative")
    axes[0].set_ylabel("eigenvalue")
    return describe(fig, (
        f"The eigenvalues of two {n}×{n} Gram matrices on the same points, largest first. "
        f"{words[0]} (positive semi-definite: a kernel). {words[1]} (not a kernel)."))


# --- The widget: kernel perceptron and kernel SVM on nonlinear data ---------------------------


@lru_cache(maxsize=8)
def dataset(name: str, n: int = 80, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The widget's data: "rings", "xor" or "moons", n points (cached)."""
    makers = {"rings": lambda: data.rings(n, gap=0.3, seed=seed),
              "xor": lambda: data.xor(n, seed=seed),
              "moons": lambda: data.moons(n, noise=0.12, seed=seed)}
    if name not in makers:
        raise ValueError(f"unknown data set {name!r}; choose one of {list(makers)}.")
    X, y = makers[name]()
    X.setflags(write=False)
    return X, y


def kernel_params(kernel: str, degree: int, gamma: float) -> dict:
    """The parameters the sliders set for ``kernel``: (x·z + 1)^degree, or exp(-γ‖x − z‖²)."""
    return {"linear": {}, "polynomial": {"degree": int(degree), "c": 1.0},
            "rbf": {"gamma": float(gamma)}}[kernel]


@dataclass(frozen=True)
class KernelFits:
    """Both kernel classifiers on one data set, and their scores on a grid for drawing.

    Attributes
    ----------
    X, y : ndarray of shapes (n, 2), (n,)
    run : kernels.KernelPerceptronResult
    svm : svm.DualSVMSolution
    grid : tuple of ndarray
        The grid's x₁ and x₂ coordinates, each of shape (G, G).
    perceptron_scores, svm_scores : ndarray of shape (G, G)
    """

    X: np.ndarray
    y: np.ndarray
    run: kernels.KernelPerceptronResult
    svm: svm.DualSVMSolution
    grid: tuple[np.ndarray, np.ndarray]
    perceptron_scores: np.ndarray
    svm_scores: np.ndarray


@lru_cache(maxsize=1)
def common_view() -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper corners of one view that holds every data set with 0.4 to spare:
    the widget's axes keep their limits when the data set changes, so a frame redraws only
    what moved (:mod:`mllib.demos.live`)."""
    points = np.vstack([dataset(name)[0] for name in DATASETS])
    return points.min(axis=0) - 0.4, points.max(axis=0) + 0.4


@lru_cache(maxsize=64)
def fit(name: str, kernel: str, degree: int = 2, gamma: float = 1.0, C: float = 1.0) -> KernelFits:
    """Fit the kernel perceptron (at most 50 epochs) and the kernel SVM (``C``) to a data set
    (cached by slider values)."""
    X, y = dataset(name)
    params = kernel_params(kernel, degree, gamma)
    run = kernels.kernel_perceptron(X, y, kernel=kernel, max_epochs=50, **params)
    solution = svm.solve_dual(X, y, C=C, kernel=kernel, **params)
    lo, hi = common_view()
    g1, g2 = np.meshgrid(np.linspace(lo[0], hi[0], _GRID), np.linspace(lo[1], hi[1], _GRID))
    points = np.column_stack([g1.ravel(), g2.ravel()])
    scores = kernels.kernel_scores(run, X, y, points).reshape(g1.shape)
    return KernelFits(X, y, run, solution, (g1, g2), scores,
                      svm.dual_decision(solution, points).reshape(g1.shape))


READOUT = ".3g"  # the readout format of the walk-through's FloatLogSliders (ipywidgets' default)


def held_out_error(name: str, gamma: float, C: float = 1.0, *, n: int = 2000,
                   seed: int = 446) -> float:
    """The RBF SVM's error rate on ``n`` fresh points of data set ``name`` (drawn with another
    seed, from the same generator as the widget's 80), trained on the widget's data: an
    estimate with standard error √(e(1 - e)/n), at most 0.011 for n = 2000."""
    X, y = dataset(name)
    fresh_X, fresh_y = dataset(name, n=n, seed=seed)
    solution = svm.solve_dual(X, y, C=C, kernel="rbf", gamma=gamma)
    return float(np.mean(svm.predict_dual(solution, fresh_X) != fresh_y))


def shown(value: float) -> float:
    """A slider value as its readout shows it (``READOUT``, 3 significant digits): 10^-1.5 is
    shown as 0.0316, and the frame uses 0.0316, so the displayed value is the value used."""
    return float(format(float(value), READOUT))


def _zero_lines(fits: KernelFits, scores: np.ndarray, level: float) -> list[np.ndarray]:
    """The curves where ``scores`` (on the fits' grid) equal ``level``, as (k, 2) vertex arrays
    (contourpy, the contouring matplotlib's ``contour`` uses), for a LineCollection."""
    g1, g2 = fits.grid
    return list(contourpy.contour_generator(g1, g2, scores).lines(level))


@dataclass(frozen=True)
class _RegionPanel:
    """One panel of the kernels widget: its regions image, decision boundary and points."""

    ax: Axes
    regions: AxesImage
    boundary: LineCollection
    points: tuple[PathCollection, PathCollection]


@dataclass(frozen=True)
class _KernelsView:
    """The kernels widget's figure and the artists each frame updates in place."""

    fig: Figure
    perceptron: _RegionPanel
    svm: _RegionPanel
    margins: LineCollection
    support: PathCollection


def _region_panel(ax: Axes) -> _RegionPanel:
    """Build an empty panel: the two-colour regions image, the boundary f(x) = 0 and the points
    of each class (marker shape and colour), all redrawn in place."""
    regions = ax.imshow(np.zeros((2, 2)), cmap=_REGIONS, vmin=0, vmax=1, origin="lower",
                        interpolation="nearest", aspect="auto")
    boundary = ax.add_collection(LineCollection([], colors="black", linewidths=1.2),
                                 autolim=False)
    points = tuple(ax.scatter([], [], s=16, color=colour, marker=marker, label=name,
                              edgecolors="white", linewidths=0.5)
                   for colour, marker, name in ((POSITIVE, "o", "y = +1"),
                                                (NEGATIVE, "s", "y = -1")))
    ax.set_autoscale_on(False)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal")
    ax.title.set_fontsize(9)
    animate(regions, boundary, *points, ax.title)
    return _RegionPanel(ax, regions, boundary, points)


@lru_cache(maxsize=1)
def _kernels_view() -> _KernelsView:
    """Build the kernels widget's figure once: both panels, the SVM's margin lines and support
    vector rings, and the legend beside the right panel, clear of the points."""
    fig, (left, right) = figure(2, width=4.2, height=4.0)
    fig.subplots_adjust(right=1 - 1.4 / fig.get_figwidth())  # room for the legend, uncropped
    panels = _region_panel(left), _region_panel(right)
    margins = right.add_collection(LineCollection([], colors="grey", linestyles="--",
                                                  linewidths=0.8), autolim=False)
    support = right.scatter([], [], s=90, facecolors="none", edgecolors="black",
                            linewidths=1.0, label="support vectors")
    right.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=7)  # beside the panel
    animate(margins, support)
    return _KernelsView(fig, *panels, margins, support)


def _draw_panel(panel: _RegionPanel, fits: KernelFits, scores: np.ndarray, title: str) -> None:
    """Show ``scores``' regions and zero line, the data, and ``title`` on ``panel``."""
    g1, g2 = fits.grid
    half = (g1[0, 1] - g1[0, 0]) / 2, (g2[1, 0] - g2[0, 0]) / 2
    extent = (g1[0, 0] - half[0], g1[0, -1] + half[0], g2[0, 0] - half[1], g2[-1, 0] + half[1])
    panel.regions.set_data((scores > 0).astype(float))
    panel.regions.set_extent(extent)
    set_view(panel.ax, extent[:2], extent[2:])
    panel.boundary.set_segments(_zero_lines(fits, scores, 0.0))
    for points, label in zip(panel.points, (1, -1), strict=True):
        points.set_offsets(fits.X[fits.y == label])
    panel.ax.title.set_text(title)


def show_kernels(name: str = "rings", kernel: str = "polynomial", degree: int = 2,
                 gamma: float = 1.0, C: float = 1.0) -> Figure:
    """The widget frame: the kernel perceptron's regions (left) and the kernel SVM's, with its
    margin lines f(x) = ±1 and its support vectors ringed (right). γ and C are rounded as the
    sliders show them (:func:`shown`); the legend sits beside the panel, clear of the points.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    gamma, C = shown(gamma), shown(C)
    fits = fit(name, kernel, int(degree), gamma, C)
    view = _kernels_view()
    run = fits.run
    errors = int(np.sum(kernels.kernel_predict(run, fits.X, fits.y, fits.X) != fits.y))
    state = "converged" if run.converged else f"stopped after {run.epochs} epochs"
    made, left_wrong = counted(run.mistakes, "mistake"), counted(errors, "training error")
    _draw_panel(view.perceptron, fits, fits.perceptron_scores,
                f"kernel perceptron: {made}, {state},\n{left_wrong}")
    wrong = int(np.sum(svm.predict_dual(fits.svm, fits.X) != fits.y))
    setting = f"C = {C:{READOUT}}"
    setting = f"γ = {gamma:{READOUT}}, {setting}" if kernel == "rbf" else setting
    support = counted(len(fits.svm.support), "support vector")
    right_wrong = counted(wrong, "training error")
    _draw_panel(view.svm, fits, fits.svm_scores,
                f"kernel SVM ({setting}): {support},\n{right_wrong}")
    view.margins.set_segments([*_zero_lines(fits, fits.svm_scores, -1.0),
                               *_zero_lines(fits, fits.svm_scores, 1.0)])
    view.support.set_offsets(fits.X[fits.svm.support].reshape(-1, 2))
    return describe(view.fig, (
        f"{len(fits.y)} points of the {name} data, {int(np.sum(fits.y > 0))} labelled +1 "
        f"(circles) and {int(np.sum(fits.y < 0))} labelled −1 (squares); "
        f"{_kernel_words(kernel, int(degree), gamma)}. Left: the kernel perceptron made "
        f"{made} and {state}, leaving {left_wrong}. Right: the kernel SVM with {setting} has "
        f"{support} (ringed) and {right_wrong}."))


def _kernel_words(kernel: str, degree: int, gamma: float) -> str:
    """The kernel as the alt text names it."""
    return {"linear": "the linear kernel x·z",
            "polynomial": f"the polynomial kernel (x·z + 1)^{degree}",
            "rbf": f"the RBF kernel exp(−γ‖x − z‖²) with γ = {gamma:{READOUT}}"}[kernel]
