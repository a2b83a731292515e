"""Widgets, figures and tables for the ensembles walk-through (lecture 10).

Sources: CS446 slides (seed 001): "Adaboost", "A Toy Example" (ε₁ = 0.30, α₁ = 0.42, ...),
"Bagging", "Bagged Decision Trees", "Random Forests (Bagged Trees++)".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from mllib import data
from mllib import ensemble as E
from mllib import linear as L
from mllib import neighbors as N
from mllib import trees as T
from mllib.demos.live import animate
from mllib.plotting import (
    MARKERS,
    NEGATIVE,
    PALETTE,
    POSITIVE,
    describe,
    figure,
    log_axis,
    markdown_table,
    mean_and_se,
    scatter_labelled,
)

# The toy example as printed on the CS446 slides: (ε, α) per round.
SLIDE_TOY = ((0.30, 0.42), (0.21, 0.65), (0.14, 0.92))
REGION_COLOURS = (NEGATIVE, POSITIVE)  # H = -1, H = +1, as tints (REGION_ALPHA)
REGION_ALPHA = 0.3
ROUND_LEGEND_INCHES = 1.6  # a column right of the round scrubber's axes for its legend
# The scrubber's marker areas (pt²): the lightest and the heaviest point of each data set, for
# weights m·Dₜ from 10^WEIGHT_DECADES[0] to 10^WEIGHT_DECADES[1] times the uniform 1/m. By round
# 30 the toy weights span five decades: areas ∝ Dₜ would shrink the light points below 1 pt².
MARKER_AREAS = {"toy": (12.0, 320.0), "moons": (12.0, 120.0)}
WEIGHT_DECADES = (-5.0, 1.5)
GRID = 100


def toy_table() -> str:
    """The slides' toy example against AdaBoost run on our ten points (``data.boosting_toy``):
    the exact εₜ, the printed ε and α, and α computed from each."""
    run = E.adaboost(*data.boosting_toy(), rounds=3)
    rows = []
    for r, (eps_printed, alpha_printed) in zip(run.history, SLIDE_TOY, strict=True):
        exact = Fraction(r.error).limit_denominator(100)
        rows.append([r.t, f"{exact} = {r.error:.4f}", f"{eps_printed:.2f}", f"{r.alpha:.4f}",
                     f"{alpha_printed:.2f}", f"{E.alpha_from_error(eps_printed):.4f}"])
    return markdown_table(["round t", "εₜ (exact)", "εₜ printed", "α from exact ε",
                           "α printed", "α from printed ε"], rows)


def reweighting_table() -> str:
    """The slides' note e^{αₜ} = √((1 − εₜ)/εₜ) on the toy run: the factor e^{αₜ}, the root,
    Zₜ = 2√(εₜ(1 − εₜ)), and the weighted error of hₜ under D_{t+1}, which is exactly 1/2."""
    X, y = data.boosting_toy()
    run = E.adaboost(X, y, rounds=4)  # round 4 trains on D₄, the reweighting after round 3
    rows = []
    for r, following in zip(run.history[:3], run.distributions[1:4], strict=True):
        wrong = r.learner.predict(X) != y
        rows.append([r.t, f"{r.error:.4f}", f"{np.exp(r.alpha):.4f}",
                     f"{np.sqrt((1 - r.error) / r.error):.4f}",
                     f"{2 * np.sqrt(r.error * (1 - r.error)):.4f}",
                     f"{following[wrong].sum():.4f}"])
    return markdown_table(["round t", "εₜ", "e^αₜ", "√((1 − εₜ)/εₜ)", "Zₜ = 2√(εₜ(1 − εₜ))",
                           "error of hₜ under D₍ₜ₊₁₎"], rows)


def _grid(X: np.ndarray, pad: float = 0.5, size: int = GRID
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A size × size grid over the picture: the data's range plus ``pad`` on every side."""
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], size), np.linspace(lo[1], hi[1], size))
    return gx, gy, np.column_stack([gx.ravel(), gy.ravel()])


@dataclass(frozen=True)
class BoostingMovie:
    """Everything the round scrubber draws, computed once (nothing depends on the slider)."""

    X: np.ndarray
    y: np.ndarray
    run: E.AdaBoostResult
    x_edges: np.ndarray  # (nx + 1,): the picture's edges and every stump threshold on x1
    y_edges: np.ndarray  # (ny + 1,): the same on x2
    grid_x: np.ndarray  # (ny, nx): the centre of every cell between those edges
    grid_y: np.ndarray
    grid_scores: np.ndarray  # (T, ny, nx): Σ_{s<=t} α_s h_s at the cell centres


def _stump_edges(lo: float, hi: float, thresholds) -> np.ndarray:
    """The picture's limits and every stump threshold between them: H is constant on each cell
    of these edges, so its value at a cell's centre is its value on the whole cell (exact
    regions, where a regular grid misses thresholds between neighbouring points)."""
    inside = [t for t in thresholds if lo < t < hi]
    return np.unique(np.concatenate([[lo, hi], inside]))


@lru_cache(maxsize=2)
def boosting_movie(dataset: str = "toy", rounds: int = 30) -> BoostingMovie:
    """AdaBoost with stumps on the toy points or on 80 moons points, and its staged scores."""
    X, y = data.boosting_toy() if dataset == "toy" else data.moons(80, noise=0.25, seed=3)
    run = E.adaboost(X, y, rounds=rounds)
    pad = 1.0 if dataset == "toy" else 0.5
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    edges = [_stump_edges(lo[f], hi[f], [r.learner.threshold for r in run.history
                                         if r.learner.feature == f]) for f in (0, 1)]
    gx, gy = np.meshgrid(*((e[:-1] + e[1:]) / 2 for e in edges))
    scores = run.staged_scores(np.column_stack([gx.ravel(), gy.ravel()])).reshape(-1, *gx.shape)
    return BoostingMovie(X, y, run, edges[0], edges[1], gx, gy, scores)


def round_controls() -> dict:
    """The round scrubber's controls, as the walk-through wires them."""
    from ipywidgets import Dropdown, IntSlider

    return {"t": IntSlider(value=1, min=1, max=30, description="round t"),
            "dataset": Dropdown(options=["toy", "moons"], description="data")}


@dataclass(frozen=True)
class _RoundView:
    """The round scrubber's figure for one data set and the artists each frame updates."""

    fig: Figure
    ax: Axes
    regions: QuadMesh
    points: tuple[PathCollection, PathCollection]  # y = +1, y = -1
    stump: Line2D


@lru_cache(maxsize=2)
def _round_view(dataset: str) -> _RoundView:
    """Build the scrubber's figure once per data set: H's regions, the points' sizes, the stump
    and the title change. The points are drawn over the regions, so they are animated too; the
    legend stands beside the axes, where nothing animated covers it."""
    movie = boosting_movie(dataset)
    width = 5.2 + ROUND_LEGEND_INCHES
    fig, (ax,) = figure(1, width=width, height=4.4)
    fig.subplots_adjust(right=1 - ROUND_LEGEND_INCHES / width)
    regions = ax.pcolormesh(movie.x_edges, movie.y_edges, movie.grid_scores[0] > 0,
                            cmap=ListedColormap(REGION_COLOURS), vmin=0, vmax=1,
                            alpha=REGION_ALPHA)
    points = tuple(ax.scatter(*movie.X[movie.y == label].T, c=colour, marker=marker,
                              edgecolors="black", linewidths=0.5, label=f"y = {label:+d}")
                   for label, colour, marker in ((1, POSITIVE, MARKERS[0]),
                                                 (-1, NEGATIVE, MARKERS[1])))
    stump, = ax.plot([], [], color="black", ls="--", lw=1.5, label="stump hₜ")
    ax.set_xlim(movie.x_edges[0], movie.x_edges[-1])
    ax.set_ylim(movie.y_edges[0], movie.y_edges[-1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.title.set_fontsize(9)
    key = [Patch(facecolor=colour, alpha=REGION_ALPHA, edgecolor="grey", label=f"H says {sign}")
           for colour, sign in zip(REGION_COLOURS, ("−1", "+1"), strict=True)]
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, *key], fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    animate(regions, *points, stump, ax.title)
    return _RoundView(fig, ax, regions, points, stump)


def marker_areas(D: np.ndarray, dataset: str) -> np.ndarray:
    """The scrubber's marker areas in pt² for the weights D of shape (m,): linear in
    log₁₀(m·D), so each tenfold weight adds the same area, on one scale for every round (the
    same weight, the same size), and never below the data set's smallest area (clipped outside
    WEIGHT_DECADES, which the two runs' 30 rounds stay inside)."""
    smallest, largest = MARKER_AREAS[dataset]
    low, high = WEIGHT_DECADES
    position = (np.log10(len(D) * D) - low) / (high - low)
    return smallest + (largest - smallest) * np.clip(position, 0.0, 1.0)


def show_round(t: int = 1, dataset: str = "toy") -> Figure:
    """The widget frame for round t: points sized by Dₜ (:func:`marker_areas`), the stump hₜ
    (a dashed line; the title names its +1 side) and the regions of H after t rounds.

    The figure of each data set is built once and redrawn in place: each call with the same
    ``dataset`` returns the same Figure."""
    movie = boosting_movie(dataset)
    t = min(t, len(movie.run.history))
    r = movie.run.history[t - 1]
    view = _round_view(dataset)
    view.regions.set_array(movie.grid_scores[t - 1] > 0)
    size = marker_areas(r.distribution, dataset)
    for points, label in zip(view.points, (1, -1), strict=True):
        points.set_sizes(size[movie.y == label])
    stump = r.learner
    (x_lo, x_hi), (y_lo, y_hi) = view.ax.get_xlim(), view.ax.get_ylim()
    if not np.isfinite(stump.threshold):
        view.stump.set_data([], [])
    elif stump.feature == 0:
        view.stump.set_data([stump.threshold] * 2, [y_lo, y_hi])
    else:
        view.stump.set_data([x_lo, x_hi], [stump.threshold] * 2)
    side = ">" if stump.polarity > 0 else "<="
    rule = f"x{stump.feature + 1} {side} {stump.threshold:.2f}"
    view.ax.title.set_text(f"round {t}: h says +1 where {rule}\n"
                           f"ε = {r.error:.3f}, α = {r.alpha:.3f}, training error of H = "
                           f"{r.training_error:.2f}")
    heaviest = int(np.argmax(r.distribution))
    return describe(view.fig, f"AdaBoost with stumps on {len(movie.y)} {dataset} points, round "
                              f"{t}: the stump says +1 where {rule} (ε = {r.error:.3f}, "
                              f"α = {r.alpha:.3f}); the heaviest point carries "
                              f"D = {r.distribution[heaviest]:.3f}. H after {t} "
                              f"round{'' if t == 1 else 's'} says +1 "
                              f"on {_area_share(movie, t):.0%} of the picture, training error "
                              f"{r.training_error:.2f}.")


def _area_share(movie: BoostingMovie, t: int) -> float:
    """The share of the picture's area where H after t rounds says +1 (cells differ in size)."""
    area = np.outer(np.diff(movie.y_edges), np.diff(movie.x_edges))
    return float(area[movie.grid_scores[t - 1] > 0].sum() / area.sum())


# --- margins after zero training error --------------------------------------------------------


@dataclass(frozen=True)
class ToyMargins:
    """The toy run over 30 rounds: H's training error and its smallest normalised margin
    minᵢ yᵢ Σ_{s<=t} α_s h_s(xᵢ) / Σ_{s<=t} α_s, after each round t."""

    rounds: np.ndarray  # (T,)
    training_error: np.ndarray  # (T,)
    min_margin: np.ndarray  # (T,)
    equal_votes: float  # the smallest margin when rounds 1-3's stumps vote with equal weights

    @property
    def first_perfect(self) -> int:
        """The first round after which H is right on every training point."""
        return int(self.rounds[np.argmax(self.training_error == 0)])

    def after(self, t: int) -> tuple[float, float]:
        """The lowest and the highest smallest margin from round t to the last."""
        later = self.min_margin[self.rounds >= t]
        return float(later.min()), float(later.max())


# The round by which the toy run's smallest margin has risen; after it, it hovers (§4).
MARGIN_RISEN = 13


def toy_margins(rounds: int = 30) -> ToyMargins:
    """AdaBoost on the toy points (the scrubber's run) and its margins, round by round, beside
    a benchmark: the first three stumps with equal votes (each point is wrong under at most one
    of them, so every margin is at least 1/3)."""
    X, y = data.boosting_toy()
    run = E.adaboost(X, y, rounds=rounds)
    first_three = np.array([h.predict(X) for h in run.learners[:3]])
    return ToyMargins(np.array([r.t for r in run.history]),
                      np.array([r.training_error for r in run.history]),
                      run.staged_margins(X, y).min(axis=1),
                      float((y * first_three).mean(axis=0).min()))


def show_toy_margins() -> Figure:
    """Training error and smallest margin of H against the round, on the toy points."""
    c = toy_margins()
    fig, (ax,) = figure(1, width=6.0, height=3.4)
    ax.plot(c.rounds, c.training_error, "s-", color=PALETTE[0], markersize=4,
            label="training error of H")
    ax.plot(c.rounds, c.min_margin, "o-", color=PALETTE[1], markersize=4,
            label="smallest margin of H")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.axvline(c.first_perfect, color="grey", linestyle=":",
               label=f"training error 0 from round {c.first_perfect}")
    ax.set(xlabel="round t", ylabel="error / margin", ylim=(-1.05, 0.6),
           title="toy points: after training error 0 the smallest margin rises, then hovers")
    ax.legend(fontsize=8, loc="lower right")
    t0, risen = c.first_perfect, MARGIN_RISEN
    low, high = c.after(risen)
    return describe(fig, f"AdaBoost on the toy points over {c.rounds[-1]} rounds: the training "
                         f"error of H falls from {c.training_error[0]:.2f} to 0 at round {t0}; "
                         f"the smallest margin, {c.min_margin[0]:.2f} after round 1, is "
                         f"{c.min_margin[t0 - 1]:.3f} at round {t0}, rises to "
                         f"{c.min_margin[risen - 1]:.3f} by round {risen} and then stays between "
                         f"{low:.2f} and {high:.2f} up to round {c.rounds[-1]}.")


# --- error curves ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _moons_split(n_train: int = 200, n_test: int = 1000):
    X, y = data.moons(n_train + n_test, noise=0.35, seed=11)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def paired_se(loss_a: np.ndarray, loss_b: np.ndarray) -> float:
    """The standard error of the difference of two test errors measured on the same test
    points, from the per-point differences of the losses (shape (n,): mistakes as booleans, or
    squared errors): the test errors are estimates too, and pairing removes what the two
    share, such as the points both get right or wrong."""
    differences = loss_a.astype(float) - loss_b
    return float(differences.std(ddof=1) / np.sqrt(len(differences)))


@dataclass(frozen=True)
class BoostingCurves:
    """Training error, the bound Πₜ Zₜ and test error of AdaBoost with stumps, per round.

    Attributes
    ----------
    rounds, training_error, bound, test_error : ndarray of shape (T,)
    """

    rounds: np.ndarray
    training_error: np.ndarray
    bound: np.ndarray
    test_error: np.ndarray


@lru_cache(maxsize=1)
def _boosting_run(rounds: int = 300) -> E.AdaBoostResult:
    """AdaBoost with stumps on the 200 training moons of :func:`_moons_split` (cached)."""
    X, y, *_ = _moons_split()
    return E.adaboost(X, y, rounds=rounds)


@lru_cache(maxsize=1)
def boosting_curves() -> BoostingCurves:
    """The per-round errors of :func:`_boosting_run`, tested on the 1000 test moons."""
    *_, X_test, y_test = _moons_split()
    run = _boosting_run()
    wrong = np.where(run.staged_scores(X_test) > 0, 1.0, -1.0) != y_test  # (T, n_test)
    return BoostingCurves(np.array([r.t for r in run.history]),
                          np.array([r.training_error for r in run.history]),
                          np.array([r.bound for r in run.history]), wrong.mean(axis=1))


@dataclass(frozen=True)
class FreshCreep:
    """The test error's rise from one round to the last, measured on fresh points.

    The round is the one whose error is lowest on the 1000 test points; measured on those same
    points the rise from it is flattered (the lowest of 300 noisy values, picked after seeing
    them), so it is measured again on ``n`` fresh points of the same generator, independent of
    that choice.

    Attributes
    ----------
    chosen, last : int
        The round picked on the 1000 test points, and the last round.
    chosen_error, last_error : float
        H's error rate on the fresh points after those rounds.
    se : float
        :func:`paired_se` of the rise, paired on the fresh points.
    n : int
        How many fresh points.
    """

    chosen: int
    last: int
    chosen_error: float
    last_error: float
    se: float
    n: int

    @property
    def rise(self) -> float:
        """last_error − chosen_error."""
        return self.last_error - self.chosen_error


@lru_cache(maxsize=1)
def fresh_creep(n: int = 100_000, seed: int = 12) -> FreshCreep:
    """Measure the creep of :func:`boosting_curves` on ``n`` fresh moons (``seed`` ≠ the
    training and test points' 11): only the two rounds compared are scored, so the cost is
    300 stump predictions on n points."""
    c = boosting_curves()
    chosen = int(c.rounds[int(np.argmin(c.test_error))])
    X, y = data.moons(n, noise=0.35, seed=seed)
    history = _boosting_run().history
    score = np.zeros(n)
    wrong = {}
    for r in history:
        score += r.alpha * r.learner.predict(X)
        if r.t in (chosen, len(history)):
            wrong[r.t] = np.where(score > 0, 1.0, -1.0) != y
    last = len(history)
    return FreshCreep(chosen, last, float(wrong[chosen].mean()), float(wrong[last].mean()),
                      paired_se(wrong[last], wrong[chosen]), n)


def show_boosting_curves() -> Figure:
    c = boosting_curves()
    fig, (ax,) = figure(1, width=6.0, height=3.8)
    ax.plot(c.rounds, c.bound, color=PALETTE[4], linestyle="--",
            label="bound Πₜ 2√(εₜ(1 − εₜ))")
    ax.plot(c.rounds, c.training_error, color=PALETTE[0], label="training error of H")
    ax.plot(c.rounds, c.test_error, color=PALETTE[1], linestyle="-.", label="test error of H")
    log_axis(ax, "x")
    ax.set_xlabel("rounds T")
    ax.set_ylabel("error")
    ax.set_ylim(0, 1.0)  # the bound starts at 2√(ε₁(1 − ε₁)) ≤ 1
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title("AdaBoost with stumps: 200 noisy moons points, 1000 test points")
    best = int(np.argmin(c.test_error))
    return describe(fig, f"AdaBoost with stumps on 200 noisy moons points over {c.rounds[-1]} "
                         f"rounds: the training error falls from {c.training_error[0]:.3f} to "
                         f"{c.training_error[-1]:.3f}, under the bound ∏Zₜ, which ends at "
                         f"{c.bound[-1]:.3f}; the test error is {c.test_error[0]:.3f} after 1 "
                         f"round, lowest ({c.test_error[best]:.3f}) after {c.rounds[best]} and "
                         f"{c.test_error[-1]:.3f} after {c.rounds[-1]}.")


# --- bagging and variance --------------------------------------------------------------------


@dataclass(frozen=True)
class Variance:
    """How much refitting on a new bootstrap sample changes a classifier.

    ``maps`` holds each refit's labels on a grid. ``dispute`` is the share of grid points on
    which the refits are not unanimous (at least one says otherwise than another);
    ``disagreement`` is the fraction of grid points on which a refit disagrees with the
    majority of the refits, averaged over refits (always the smaller of the two).
    """

    grid_x: np.ndarray
    grid_y: np.ndarray
    tree_maps: np.ndarray  # (refits, GRID, GRID)
    bag_maps: np.ndarray
    tree_disagreement: float
    bag_disagreement: float
    tree_dispute: float
    bag_dispute: float


def _disagreement(maps: np.ndarray) -> float:
    majority = np.where(maps.mean(axis=0) > 0, 1.0, -1.0)
    return float(np.mean(maps != majority))


def _dispute(maps: np.ndarray) -> float:
    return float(np.mean(np.any(maps != maps[0], axis=0)))


@lru_cache(maxsize=1)
def bagging_variance(refits: int = 5, n_estimators: int = 15, seed: int = 0,
                     grid_size: int = GRID) -> Variance:
    """Fit a deep tree and a bag of ``n_estimators`` deep trees on ``refits`` different bootstrap
    samples of the training set; compare how much their decision regions move, on a grid of
    ``grid_size`` × ``grid_size`` points."""
    X, y, *_ = _moons_split()
    gx, gy, grid = _grid(X, size=grid_size)
    rng = np.random.default_rng(seed)
    trees, bags = [], []
    for _ in range(refits):
        sample = rng.integers(0, len(X), len(X))
        trees.append(T.decision_tree(X[sample], y[sample]).predict(grid).reshape(gx.shape))
        bag = E.bagging(X[sample], y[sample], n_estimators=n_estimators, seed=rng)
        bags.append(bag.predict(grid).reshape(gx.shape))
    trees, bags = np.array(trees), np.array(bags)
    return Variance(gx, gy, trees, bags, _disagreement(trees), _disagreement(bags),
                    _dispute(trees), _dispute(bags))


def show_bagging_variance() -> Figure:
    """Left one deep tree, right a bag of 15, each refitted on 5 bootstrap samples: the shading
    is the share of refits that say +1 (unshaded: all say −1, darkest: all say +1), each black
    contour is one refit's boundary."""
    v = bagging_variance()
    X, y, *_ = _moons_split()
    fig, axes = figure(2, width=4.8, height=4.2)
    for ax, maps, name, dispute, disagreement in (
            (axes[0], v.tree_maps, "one deep tree", v.tree_dispute, v.tree_disagreement),
            (axes[1], v.bag_maps, "bag of 15 trees", v.bag_dispute, v.bag_disagreement)):
        shade = ax.contourf(v.grid_x, v.grid_y, (maps > 0).mean(axis=0),
                            levels=np.linspace(0, 1, len(maps) + 2), cmap="Greys", alpha=0.45)
        for m in maps:
            ax.contour(v.grid_x, v.grid_y, m, levels=[0], colors="black", linewidths=0.7)
        scatter_labelled(ax, X, y, size=10)
        ax.set_title(f"{name}: {len(maps)} refits, each contour one boundary\n"
                     f"picture where refits disagree {dispute:.3f}; a refit against the "
                     f"majority {disagreement:.3f}", fontsize=8)
        ax.set_xlabel("$x_1$")
    axes[0].set_ylabel("$x_2$")
    axes[0].legend(fontsize=7, loc="lower left", framealpha=0.9)
    # The key's colours are those of the lowest and the highest band (contourf colours a band
    # by its layer, the middle of its two levels), not the colour map's ends.
    key = [Patch(facecolor=shade.cmap(shade.norm(layer)), alpha=0.45, edgecolor="grey",
                 label=text) for layer, text in ((shade.layers[0], "all refits say −1"),
                                                 (shade.layers[-1], "all refits say +1"))]
    axes[1].legend(handles=key, fontsize=7, loc="lower left", framealpha=0.9)
    return describe(fig, f"{len(y)} moons points; one deep tree and a bag of 15 trees, each "
                         f"refitted on {len(v.tree_maps)} bootstrap samples, with each refit's "
                         f"boundary drawn. The refits disagree on {v.tree_dispute:.3f} of the "
                         f"picture for the tree and {v.bag_dispute:.3f} for the bag; a refit "
                         f"differs from the majority on {v.tree_disagreement:.3f} against "
                         f"{v.bag_disagreement:.3f}.")



@dataclass(frozen=True)
class VarianceSweep:
    """:func:`bagging_variance` repeated with seeds 0, 1, ...: each measure per seed, (seeds,)."""

    tree_dispute: np.ndarray
    bag_dispute: np.ndarray
    tree_disagreement: np.ndarray
    bag_disagreement: np.ndarray


@lru_cache(maxsize=1)
def bagging_variance_sweep(seeds: int = 10, grid_size: int = GRID // 2) -> VarianceSweep:
    """One refit set is one draw of the bootstrap samples, and a bag of 15 adds its own
    resampling noise; ``seeds`` draws show what holds on average. The shares of the picture are
    measured on a coarser grid than the figure's (50 × 50 points, not 100 × 100): a share moves
    by about 0.01, far less than the seeds' spread, and the sweep runs a third faster."""
    runs = [bagging_variance.__wrapped__(seed=s, grid_size=grid_size) for s in range(seeds)]
    return VarianceSweep(*(np.array([getattr(v, name) for v in runs]) for name in (
        "tree_dispute", "bag_dispute", "tree_disagreement", "bag_disagreement")))


def bagging_variance_sweep_table() -> str:
    """Each variance measure over the sweep's seeds: mean ± standard error for one tree and for
    the bag, the paired difference, and the number of seeds on which the bag is lower."""
    w = bagging_variance_sweep()
    rows = [[name, mean_and_se(tree), mean_and_se(bag), mean_and_se(tree - bag),
             f"{int(np.sum(bag < tree))} of {len(tree)}"]
            for name, tree, bag in (
                ("picture where the refits disagree", w.tree_dispute, w.bag_dispute),
                ("a refit against the majority", w.tree_disagreement, w.bag_disagreement))]
    return markdown_table(["measure", "one tree", "bag of 15", "tree − bag", "bag lower"], rows)

# --- bagging for regression -----------------------------------------------------------------


@dataclass(frozen=True)
class NearestNeighbourRegressor:
    """k-NN regression (MMDS §12.4.3, :func:`mllib.neighbors.knn_predict`) as a fitted learner
    for :func:`mllib.ensemble.bagging`: it stores its training rows."""

    X: np.ndarray
    y: np.ndarray
    k: int = 1

    def predict(self, X) -> np.ndarray:
        return N.knn_predict(self.X, self.y, X, k=self.k, task="regress")


@dataclass(frozen=True)
class LeastSquaresLine:
    """A least-squares fit (:func:`mllib.linear.least_squares`) as a learner with ``predict``."""

    fit: L.LeastSquaresResult

    def predict(self, X) -> np.ndarray:
        return np.asarray(X, dtype=float) @ self.fit.w + self.fit.b


REGRESSION_LEARNERS = {
    "1-NN": NearestNeighbourRegressor,
    "least-squares line": lambda X, y: LeastSquaresLine(L.least_squares(X, y)),
}
REGRESSION_NOISE = 0.4  # the standard deviation of the noise on sin x


@lru_cache(maxsize=1)
def regression_data(n_train: int = 40, n_test: int = 2000, seed: int = 0):
    """y = sin x + N(0, 0.4²) with x uniform on [0, 2π]: training X (n, 1), y, then test."""
    rng = np.random.default_rng(seed)
    x, x_test = rng.uniform(0, 2 * np.pi, (n_train, 1)), rng.uniform(0, 2 * np.pi, (n_test, 1))
    noise = REGRESSION_NOISE * rng.normal(size=n_train + n_test)
    return x, np.sin(x[:, 0]) + noise[:n_train], x_test, np.sin(x_test[:, 0]) + noise[n_train:]


@dataclass(frozen=True)
class BaggedRegression:
    """Per learner: the test mean squared error of one fit and of the bag, the bag's OOB error,
    the fitted ensembles (``bags``) and the :func:`paired_se` of one fit's test MSE against the
    bag's (``paired``)."""

    single: dict[str, float]
    bagged: dict[str, float]
    oob: dict[str, float]
    bags: dict[str, E.BaggingResult]
    paired: dict[str, float]


@lru_cache(maxsize=1)
def bagged_regression(n_estimators: int = 50, seed: int = 0) -> BaggedRegression:
    """Bagging for regression (CS446 "Bagging": average the B predictions) of an unstable
    learner, 1-NN, and a stable one, a least-squares line, on :func:`regression_data`."""
    return _bag_regressors(*regression_data(), n_estimators, seed)


def _bag_regressors(X, y, X_test, y_test, n_estimators: int, seed) -> BaggedRegression:
    single, bagged, oob, bags, paired = {}, {}, {}, {}, {}
    for name, learner in REGRESSION_LEARNERS.items():
        bag = E.bagging(X, y, n_estimators=n_estimators, learner=learner, seed=seed,
                        task="regress")
        one_fit = (learner(X, y).predict(X_test) - y_test) ** 2  # per test point
        averaged = (bag.predict(X_test) - y_test) ** 2
        single[name], bagged[name] = float(np.mean(one_fit)), float(np.mean(averaged))
        oob[name], bags[name] = bag.oob_error, bag
        paired[name] = paired_se(one_fit, averaged)
    return BaggedRegression(single, bagged, oob, bags, paired)


@dataclass(frozen=True)
class RegressionSweep:
    """:func:`_bag_regressors` repeated: per learner, arrays of shape (runs,) of the test MSE
    of one fit, of the bag, and the :func:`paired_se` of their difference in each run."""

    single: dict[str, np.ndarray]
    bagged: dict[str, np.ndarray]
    paired: dict[str, np.ndarray]

    def gain(self, name: str) -> np.ndarray:
        """One fit's test MSE minus the bag's, per run."""
        return self.single[name] - self.bagged[name]

    def gain_in_se(self, name: str) -> np.ndarray:
        """Each run's gain in units of that run's own paired standard error."""
        return self.gain(name) / self.paired[name]


def _regression_sweep(runs: list[BaggedRegression]) -> RegressionSweep:
    return RegressionSweep(*({name: np.array([getattr(r, field)[name] for r in runs])
                              for name in REGRESSION_LEARNERS}
                             for field in ("single", "bagged", "paired")))


@lru_cache(maxsize=1)
def bagged_regression_sweep(draws: int = 20) -> RegressionSweep:
    """One fit and a bag of 50 on ``draws`` fresh data sets (:func:`regression_data` with
    seeds 1, 2, ..., each bag seeded alike): what holds beyond the one draw."""
    return _regression_sweep([_bag_regressors(*regression_data.__wrapped__(seed=s), 50, s)
                              for s in range(1, draws + 1)])


def bagged_regression_sweep_table() -> str:
    """Mean ± standard error over the sweep's draws of each test MSE and of the gain, the
    smallest gain in units of its draw's paired standard error, and how often the bag wins."""
    w = bagged_regression_sweep()
    rows = [[name, mean_and_se(w.single[name]), mean_and_se(w.bagged[name]),
             mean_and_se(w.gain(name)), f"{w.gain_in_se(name).min():.2f}",
             f"{int(np.sum(w.gain(name) > 0))} of {len(w.gain(name))}"]
            for name in REGRESSION_LEARNERS]
    return markdown_table(["learner", "test MSE, one fit", "test MSE, bag of 50",
                           "one fit − bag", "weakest draw: gain / its paired s.e.",
                           "bag lower"], rows)


@lru_cache(maxsize=1)
def bag_seed_sweep(seeds: int = 20) -> RegressionSweep:
    """The one draw of :func:`regression_data` (the same 40 training and 2000 test points)
    with the bag's own seed 0, 1, ..., ``seeds`` − 1: the bag's resampling noise, which the
    paired standard errors, computed on the test points for one bag, leave out. Seed 0 is
    :func:`bagged_regression`'s bag."""
    return _regression_sweep([bagged_regression(), *(_bag_regressors(*regression_data(), 50, s)
                                                     for s in range(1, seeds))])


def bag_seed_table() -> str:
    """The gain of the bag over one fit across bag seeds: mean ± standard error, the standard
    deviation beside the one bag's paired standard error, the range, and the wins."""
    w, one_bag = bag_seed_sweep(), bagged_regression()
    rows = [[name, mean_and_se(w.gain(name), ".4f"), f"{w.gain(name).std(ddof=1):.4f}",
             f"{one_bag.paired[name]:.4f}",
             f"{w.gain(name).min():+.4f} to {w.gain(name).max():+.4f}",
             f"{int(np.sum(w.gain(name) > 0))} of {len(w.gain(name))}"]
            for name in REGRESSION_LEARNERS]
    return markdown_table(["learner", "one fit − bag, mean ± s.e. over bag seeds",
                           "its standard deviation", "paired s.e. of seed 0",
                           "lowest to highest", "bag lower"], rows)


def bagged_regression_table() -> str:
    r = bagged_regression()
    rows = [[name, f"{r.single[name]:.3f}", f"{r.bagged[name]:.3f}",
             f"{r.single[name] - r.bagged[name]:.4f} ± {r.paired[name]:.4f}", f"{r.oob[name]:.3f}"]
            for name in REGRESSION_LEARNERS]
    return markdown_table(["learner", "test MSE, one fit", "test MSE, bag of 50",
                           "one fit − bag ± paired s.e.", "OOB MSE of the bag"], rows)


def show_bagged_regression() -> Figure:
    """The training points, sin x, and one fit against the bag of 50, for each learner."""
    X, y, *_ = regression_data()
    r = bagged_regression()
    grid = np.linspace(0, 2 * np.pi, 400)[:, None]
    fig, axes = figure(2, width=4.6, height=3.4)
    for ax, (name, learner) in zip(axes, REGRESSION_LEARNERS.items(), strict=True):
        ax.plot(grid[:, 0], np.sin(grid[:, 0]), color="grey", linestyle=":", label="sin x")
        ax.plot(grid[:, 0], learner(X, y).predict(grid), color=PALETTE[1], linewidth=1,
                label="one fit")
        ax.plot(grid[:, 0], r.bags[name].predict(grid), color=PALETTE[0], linewidth=2,
                label="bag of 50 (average)")
        ax.scatter(X[:, 0], y, s=12, color="black", zorder=3, label="training points")
        ax.set(xlabel="x", ylim=(-2.2, 2.2))
        ax.set_title(f"{name}: test MSE {r.single[name]:.3f} → {r.bagged[name]:.3f}", fontsize=9)
    axes[0].set_ylabel("y")
    axes[0].legend(fontsize=7, loc="lower left")
    changes = "; ".join(f"{name} {r.single[name]:.3f} for one fit, {r.bagged[name]:.3f} for the bag"
                        for name in REGRESSION_LEARNERS)
    return describe(fig, f"{len(y)} noisy points of sin x, fitted once and by a bag of 50, "
                         f"for each learner. Test mean squared error: {changes}.")


# --- out-of-bag error and forests ------------------------------------------------------------


@dataclass(frozen=True)
class ForestCurves:
    """Per number of trees b: OOB and test error of bagged trees and of a random forest.

    Attributes
    ----------
    trees : ndarray of shape (B,)
    bag_oob, bag_test, forest_oob, forest_test : ndarray of shape (B,)
    paired_se : float
        :func:`paired_se` of the two final test errors (the ensembles' mistakes on the same
        test points).
    bag_heard, forest_heard : ndarray of shape (B,)
        The share of the training examples that the first b replicates leave out at least once:
        those the OOB error of b trees is measured on.
    """

    trees: np.ndarray
    bag_oob: np.ndarray
    bag_test: np.ndarray
    forest_oob: np.ndarray
    forest_test: np.ndarray
    paired_se: float
    bag_heard: np.ndarray
    forest_heard: np.ndarray


def _heard(result: E.BaggingResult, m: int) -> np.ndarray:
    """Per number of learners b, the share of the m examples out of bag for one of the first b
    (shape (B,))."""
    out = np.ones((len(result.history), m), dtype=bool)
    for row, r in zip(out, result.history, strict=True):
        row[r.sample] = False
    return np.logical_or.accumulate(out, axis=0).mean(axis=1)


# §6's data and forest: the moons' 2 coordinates plus pure-noise features, and the number of
# features a forest's split may choose among.
FOREST_NOISE_FEATURES = 3
FOREST_MAX_FEATURES = 2


@lru_cache(maxsize=1)
def forest_curves(n_estimators: int = 60, seed: int = 0) -> ForestCurves:
    """Bagged trees and a random forest (max_features = 2 of the 5 features: the 2 moons
    coordinates plus 3 noise features, so that the feature sampling matters) on the moons
    split."""
    X, y, X_test, y_test = _moons_split()
    rng = np.random.default_rng(seed)
    noise = (rng.normal(size=(len(X), FOREST_NOISE_FEATURES)),
             rng.normal(size=(len(X_test), FOREST_NOISE_FEATURES)))
    X, X_test = np.hstack([X, noise[0]]), np.hstack([X_test, noise[1]])
    bag = E.bagging(X, y, n_estimators=n_estimators, seed=rng)
    forest = E.random_forest(X, y, n_estimators=n_estimators, max_features=FOREST_MAX_FEATURES,
                             seed=rng)

    bag_wrong = bag.staged_predict(X_test) != y_test  # (B, n_test)
    forest_wrong = forest.staged_predict(X_test) != y_test
    return ForestCurves(np.arange(1, n_estimators + 1),
                        np.array([r.oob_error for r in bag.history]), bag_wrong.mean(axis=1),
                        np.array([r.oob_error for r in forest.history]), forest_wrong.mean(axis=1),
                        paired_se(bag_wrong[-1], forest_wrong[-1]),
                        _heard(bag, len(y)), _heard(forest, len(y)))


def show_forest_curves() -> Figure:
    c = forest_curves()
    fig, (ax,) = figure(1, width=6.0, height=3.8)
    ax.plot(c.trees, c.bag_oob, color=PALETTE[0], ls="--", label="bagged trees: OOB")
    ax.plot(c.trees, c.bag_test, color=PALETTE[0], label="bagged trees: test")
    ax.plot(c.trees, c.forest_oob, color=PALETTE[2], ls="--", label="random forest: OOB")
    ax.plot(c.trees, c.forest_test, color=PALETTE[2], label="random forest: test")
    ax.set_xlabel("number of trees")
    ax.set_ylabel("error")
    ax.legend(fontsize=8)
    ax.set_title("moons + 3 noise features: 200 training, 1000 test points")
    return describe(fig, f"OOB and test error against the number of trees, 1 to {c.trees[-1]}, "
                         f"on the moons with 3 noise features. With {c.trees[-1]} trees: bagged "
                         f"trees OOB {c.bag_oob[-1]:.3f}, test {c.bag_test[-1]:.3f}; random "
                         f"forest OOB {c.forest_oob[-1]:.3f}, test {c.forest_test[-1]:.3f}.")
