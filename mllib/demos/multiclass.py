"""Widgets, figures and tables for the multiclass walk-through (lecture 08).

Sources: CS446 "Binary to Multiclass" (OvA, AvA, the example counts, ECOC, the Kesler
construction, the multiclass perceptron and the conservative update) and MMDS §12.2.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import contourpy
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import ListedColormap, to_rgb
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Patch
from matplotlib.text import Text

from mllib import data, multiclass, perceptron
from mllib.demos.live import animate, animate_legend
from mllib.plotting import MARKERS, PALETTE, describe, figure, markdown_table

COLOURS = PALETTE[:5]  # class c is drawn in COLOURS[c] with marker MARKERS[c]
# Each class's colour mixed with four parts of white: its region's shade, light enough for the
# points of every class to stand out on it.
_LIGHT = tuple(tuple(0.8 + 0.2 * np.array(to_rgb(colour))) for colour in COLOURS)
SHAPES = ("circles", "squares", "triangles", "diamonds", "downward triangles")
# Three classes in a row: the middle one cannot be cut off from the other two by one line.
ROW_CENTRES = ((-3.0, 0.0), (0.0, 0.0), (3.0, 0.0))
# Four classes around a square, for the perceptron and ECOC widgets.
SQUARE_CENTRES = ((0.0, 2.5), (-2.5, 0.0), (2.5, 0.0), (0.0, -2.5))
_EXHAUSTIVE = np.array([[1, 1, 1, 1, 1, 1, 1], [-1, -1, -1, -1, 1, 1, 1],
                        [-1, -1, 1, 1, -1, -1, 1], [-1, 1, -1, 1, -1, 1, -1]], dtype=float)
# Code matrices for the ECOC widget (rows: classes 0..3; columns: binary problems). On the
# square of SQUARE_CENTRES, the exhaustive code's column 1 asks for {0, 3} (top, bottom) against
# {1, 2} (left, right), which no line does; the six-bit code is the exhaustive one without it.
CODES = {
    "six learnable bits": np.delete(_EXHAUSTIVE, 1, axis=1),
    "exhaustive (7 bits)": _EXHAUSTIVE,
    "one-vs-all (4 bits)": 2 * np.eye(4) - 1,
    "two bits (minimal)": np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=float),
}


def with_bias(X: np.ndarray) -> np.ndarray:
    """Append the constant feature 1, so that separators need not pass through the origin."""
    return np.hstack([X, np.ones((len(X), 1))])


def scatter_classes(ax: Axes, X: np.ndarray, y: np.ndarray, k: int,
                    size: float = 18) -> list[PathCollection]:
    """2-D points of classes 0..k-1, each class its own colour and marker shape."""
    scatters = []
    for c in range(k):
        rows = y == c
        scatters.append(ax.scatter(X[rows, 0], X[rows, 1], s=size, color=COLOURS[c],
                                   marker=MARKERS[c], edgecolors="white", linewidths=0.5,
                                   label=f"class {c}"))
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return scatters


def classes_words(y: np.ndarray, k: int) -> str:
    """The points of an alt text: "90 points in three classes (30 circles of class 0, ...)"."""
    counts = ", ".join(f"{int(np.sum(y == c))} {SHAPES[c]} of class {c}" for c in range(k))
    return f"{len(y)} points in {k} classes ({counts})"


def _grid(X: np.ndarray, pad: float = 0.8, size: int = 120):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    g1, g2 = np.meshgrid(np.linspace(lo[0], hi[0], size), np.linspace(lo[1], hi[1], size))
    return g1, g2, np.column_stack([g1.ravel(), g2.ravel()])


def _cells(g1: np.ndarray, g2: np.ndarray) -> tuple[float, float, float, float]:
    """The image extent whose pixels are centred on the grid's points (as pcolormesh's)."""
    half = (g1[0, 1] - g1[0, 0]) / 2, (g2[1, 0] - g2[0, 0]) / 2
    return g1[0, 0] - half[0], g1[0, -1] + half[0], g2[0, 0] - half[1], g2[-1, 0] + half[1]


def region_edges(X: np.ndarray, labels: np.ndarray) -> list[np.ndarray]:
    """The borders between the regions of ``labels`` on :func:`_grid`'s grid for X, as (m, 2)
    vertex arrays (contourpy, which matplotlib's contour uses): the pale shades alone are too
    close in contrast to tell the regions apart."""
    g1, g2, _ = _grid(X)
    return [line for c in np.unique(labels)
            for line in contourpy.contour_generator(g1, g2, (labels == c).astype(float))
            .lines(0.5)]


@dataclass(frozen=True)
class Regions:
    """What :func:`draw_regions` drew: the shaded regions image and their borders (which a
    widget updates with ``set_data`` and ``set_segments``), and the scatter of each class."""

    image: AxesImage
    edges: LineCollection
    scatters: list[PathCollection]

    def show(self, labels: np.ndarray, edges: list[np.ndarray]) -> None:
        """Shade the regions of ``labels`` and draw their borders ``edges``
        (:func:`region_edges`)."""
        self.image.set_data(labels)
        self.edges.set_segments(edges)


def draw_regions(ax: Axes, X: np.ndarray, y: np.ndarray, k: int, predict) -> Regions:
    """Shade the plane by ``predict(points) -> labels``, outline the regions, then scatter the
    data."""
    g1, g2, points = _grid(X)
    labels = predict(points).reshape(g1.shape)
    image = ax.imshow(labels, cmap=ListedColormap(_LIGHT[:k]), vmin=-0.5, vmax=k - 0.5,
                      origin="lower", extent=_cells(g1, g2), interpolation="nearest",
                      aspect="auto")
    edges = ax.add_collection(LineCollection(region_edges(X, labels), colors="dimgrey",
                                             linewidths=0.8), autolim=False)
    return Regions(image, edges, scatter_classes(ax, X, y, k))


# --- One-vs-all against all-vs-all -----------------------------------------------------------


@lru_cache(maxsize=1)
def middle_data(n: int = 90, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Three blobs in a row, class 1 in the middle."""
    return data.blobs(n, ROW_CENTRES, spread=0.5, seed=seed)


def show_ova_vs_ava() -> Figure:
    """OvA and AvA (perceptrons with a bias feature) on the three-in-a-row data: "class 1
    against the rest" is not linearly separable, so OvA's winner-take-all misreads the middle;
    every pair is separable, so AvA's vote is right (CS446 "One-vs-All vs. All vs. All")."""
    X, y = middle_data()
    ova = multiclass.one_vs_all(with_bias(X), y, k=3)
    ava = multiclass.all_vs_all(with_bias(X), y, k=3)
    fig, (left, right) = figure(2, width=4.5, height=3.6)
    verdicts = []
    for ax, model, predict, name in (
        (left, ova, multiclass.predict_one_vs_all, "one-vs-all (winner takes all)"),
        (right, ava, multiclass.predict_all_vs_all, "all-vs-all (majority vote)"),
    ):
        draw_regions(ax, X, y, 3, lambda P, m=model, p=predict: p(m, with_bias(P)))
        accuracy = np.mean(predict(model, with_bias(X)) == y)
        ax.set_title(f"{name}: {accuracy:.0%} right", fontsize=9)
        verdicts.append(f"{name}, {accuracy:.0%} of the points right")
    left.legend(fontsize=7, loc="upper left")
    return describe(fig, (
        f"{classes_words(y, 3)}, in a row with class 1 in the middle, and the regions each "
        f"scheme assigns to the classes. Left: {verdicts[0]}. Right: {verdicts[1]}."))


def ova_rescaled(label: int = 1, scales=(0.1, 0.3, 1.0, 3.0, 10.0)) -> list[tuple[float, float,
                                                                                float]]:
    """OvA on the three-in-a-row data with classifier ``label``'s scores multiplied by each
    scale: (scale, that classifier's binary accuracy, winner-take-all accuracy). A positive
    scale changes no binary decision, but winner-take-all compares scores across classifiers
    trained separately, which share no common range (CS446 "One-vs-All")."""
    X, y = middle_data()
    scores = multiclass.one_vs_all(with_bias(X), y, k=3).scores(with_bias(X))
    rows = []
    for scale in scales:
        scaled = scores * np.where(np.arange(3) == label, scale, 1.0)
        rows.append((float(scale), float(np.mean((scaled[:, label] > 0) == (y == label))),
                     float(np.mean(np.argmax(scaled, axis=1) == y))))
    return rows


def ova_rescaled_table(label: int = 1) -> str:
    """:func:`ova_rescaled` as a markdown table."""
    rows = [[f"{s:g}", f"{b:.0%}", f"{w:.0%}"] for s, b, w in ova_rescaled(label)]
    return markdown_table([f"scale of f_{label}", f"f_{label}'s own accuracy",
                           "winner-take-all accuracy"], rows)


def reject_table(thetas=(None, 0.0, 2.0, 5.0, 10.0)) -> list[tuple[float | None, float, float]]:
    """MMDS §12.2.5's reject option on the four-blob data: OvA perceptrons, an example is
    classified only when its best score is at least θ. Returns (θ, fraction rejected, accuracy
    on the rest) for each θ (None: no reject option)."""
    X, y = ecoc_data()
    model = multiclass.one_vs_all(with_bias(X), y, k=4)
    rows = []
    for theta in thetas:
        labels = multiclass.predict_one_vs_all(model, with_bias(X), theta=theta)
        kept = labels >= 0
        rows.append((theta, float(np.mean(~kept)), float(np.mean(labels[kept] == y[kept]))))
    return rows


def example_counts(m: int, k: int) -> str:
    """CS446's counts, m examples and k classes of m/k each: how many classifiers each scheme
    trains and how many positive and negative examples each one sees."""
    pairs = k * (k - 1) // 2
    rows = [["one-vs-all", k, f"m/k = {m // k}", f"(k−1)m/k = {(k - 1) * m // k}", m],
            ["all-vs-all", pairs, f"m/k = {m // k}", f"m/k = {m // k}", 2 * m // k]]
    return markdown_table(["scheme", "classifiers", "positives each", "negatives each",
                           "examples each"], rows)


# --- The Kesler construction ------------------------------------------------------------------


def kesler_table(x=(1.0, 2.0), label: int = 1, k: int = 3) -> str:
    """The Kesler rows of one 2-D example (CS446 "Details: Kesler Construction"), each a k·d
    vector in blocks (w_0 | w_1 | w_2)."""
    Xk, yk = multiclass.kesler([list(x)], [label], k)
    d = len(x)
    rows = []
    for row, sign in zip(Xk, yk, strict=True):
        blocks = [str(row[c * d:(c + 1) * d].astype(int).tolist()) for c in range(k)]
        rows.append([*blocks, f"{sign:+.0f}"])
    return markdown_table([f"block {c}" for c in range(k)] + ["label"], rows)


def show_kesler(n: int = 45, seed: int = 2) -> Figure:
    """Kesler for k = 3 in 2-D. Left: the data, the regions of a binary perceptron's separator
    W = (w_0, w_1, w_2) learned on the 6-D expansion, and the three lines (w_i − w_j)·x = 0 that
    bound them. Right: the expanded examples as a matrix, one row each (2m(k−1) rows, k·d = 9
    columns with the bias feature), positive entries blue, negative red, with a colour bar."""
    X, y = data.blobs(n, SQUARE_CENTRES[:3], spread=0.5, seed=seed)
    Xb = with_bias(X)
    Xk, yk = multiclass.kesler(Xb, y, 3)
    W = perceptron.perceptron(Xk, yk).w.reshape(3, 3)
    fig, (left, right) = figure(2, width=4.5, height=4.0)
    draw_regions(left, X, y, 3, lambda P: multiclass.predict_linear(W, with_bias(P)))
    accuracy = np.mean(multiclass.predict_linear(W, Xb) == y)
    g1, g2, points = _grid(X)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        diff = (with_bias(points) @ (W[i] - W[j])).reshape(g1.shape)
        left.contour(g1, g2, diff, levels=[0.0], colors="grey", linestyles=":", linewidths=1)
    left.set_title("regions of the Kesler separator;\ndotted: (w_i − w_j)·x = 0", fontsize=9)
    left.legend(fontsize=7, loc="upper left")
    shown = Xk[:12]
    image = right.imshow(shown, cmap="RdBu", vmin=-np.abs(shown).max(),
                         vmax=np.abs(shown).max(), aspect="auto")
    fig.colorbar(image, ax=right, label="entry of the Kesler row", shrink=0.8)
    for boundary in (2.5, 5.5):
        right.axvline(boundary, color="black", linewidth=1)
    right.set_xticks(range(9), ["x₁", "x₂", "1"] * 3, fontsize=7)
    right.set_yticks(range(12), [f"{'+' if s > 0 else '−'}" for s in yk[:12]], fontsize=7)
    right.set_ylabel("the row's binary label", fontsize=8)
    right.set_title(f"the first 12 of {len(Xk)} Kesler rows\n(blocks w_0 | w_1 | w_2)",
                    fontsize=9)
    return describe(fig, (
        f"Left: {classes_words(y, 3)} and the regions of the separator a binary perceptron "
        f"learned on the Kesler expansion, {accuracy:.0%} of the points right, with the three "
        f"lines (w_i − w_j)·x = 0 dotted. Right: the first 12 of the {len(Xk)} Kesler rows as a "
        f"matrix of {Xk.shape[1]} columns in three blocks, entries from "
        f"{shown.min():.1f} (red) to {shown.max():.1f} (blue)."))


# --- The multiclass perceptron, update by update ------------------------------------------------


@lru_cache(maxsize=2)
def perceptron_run(conservative: bool = True, n: int = 60, seed: int = 3):
    """The multiclass perceptron (with a bias feature) on four blobs, and the data."""
    X, y = data.blobs(n, SQUARE_CENTRES, spread=0.7, seed=seed)
    run = multiclass.multiclass_perceptron(with_bias(X), y, k=4, conservative=conservative)
    return X, y, run


def update_controls():
    """The scrubber's two controls: the update slider ("update"), whose range follows the chosen
    rule's number of updates, and the update rule ("rule")."""
    import ipywidgets

    rule = ipywidgets.ToggleButtons(options=[("conservative", True), ("full", False)],
                                    value=True, description="rule")
    step = ipywidgets.IntSlider(value=0, min=0, max=perceptron_run(True)[2].mistakes,
                                description="update", continuous_update=False)

    def follow(change) -> None:
        step.max = perceptron_run(change["new"])[2].mistakes  # ipywidgets clips the value

    rule.observe(follow, names="value")
    return step, rule


@dataclass(frozen=True)
class _UpdateView:
    """The update scrubber's figure and the artists each frame updates in place."""

    fig: Figure
    ax: Axes
    regions: Regions
    circle: PathCollection


@lru_cache(maxsize=1)
def _update_view() -> _UpdateView:
    """Build the scrubber's figure once: the regions (of W = 0 until a frame sets them), the
    points and their legend, drawn over the regions, and the ring on the updating example."""
    X, y, _ = perceptron_run(True)  # both rules run on the same data
    fig, (ax,) = figure(1, width=5.0, height=4.3)
    regions = draw_regions(ax, X, y, 4, lambda P: np.zeros(len(P), dtype=int))
    circle = ax.scatter(np.empty(0), np.empty(0), s=220, facecolors="none", edgecolors="black",
                        linewidths=2)
    legend = ax.legend(fontsize=7, loc="lower left")
    ax.title.set_fontsize(9)
    animate(regions.image, regions.edges, *regions.scatters, circle, ax.title)
    animate_legend(legend)  # over the regions, so redrawn with them
    return _UpdateView(fig, ax, regions, circle)


@lru_cache(maxsize=512)
def _update_regions(step: int, conservative: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """The labels argmax_i w_i·x on the regions grid after ``step`` updates, and their
    borders (cached)."""
    X, _, run = perceptron_run(conservative)
    W = run.history[step - 1].W if step else np.zeros((4, 3))
    g1, _, points = _grid(X)
    labels = multiclass.predict_linear(W, with_bias(points)).reshape(g1.shape)
    return labels, region_edges(X, labels)


def show_update(step: int, conservative: bool = True) -> Figure:
    """The regions argmax_i w_i·x after ``step`` updates (0: all weights zero), with the
    example that caused update ``step`` circled, and the classes it promoted (with the number of
    promotions when the full update demotes several rivals) and demoted.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    X, y, run = perceptron_run(bool(conservative))
    step = int(np.clip(step, 0, run.mistakes))
    W = run.history[step - 1].W if step else np.zeros((4, 3))
    view = _update_view()
    view.regions.show(*_update_regions(step, bool(conservative)))
    if step:
        update = run.history[step - 1]
        view.circle.set_offsets(X[update.index].reshape(1, 2))
        times = len(update.demoted)  # w_y is promoted once per demoted rival (section 4)
        promoted = f"{update.label} (×{times})" if times > 1 else f"{update.label}"
        what = f"promoted {promoted}, demoted {list(update.demoted)}"
        cause = (f"the ringed example at ({X[update.index, 0]:.1f}, {X[update.index, 1]:.1f}), "
                 f"of class {update.label}, {what}")
    else:
        view.circle.set_offsets(np.empty((0, 2)))
        what = "W = 0: every score ties, class 0 wins"
        cause = "all weights are 0, every score ties and class 0 wins everywhere"
    wrong = int(np.sum(multiclass.predict_linear(W, with_bias(X)) != y))
    errors = f"{wrong} training error{'' if wrong == 1 else 's'}"
    view.ax.title.set_text(f"after {step} of {run.mistakes} updates ({what});\n{errors}")
    rule = "conservative" if conservative else "full"
    return describe(view.fig, (
        f"{classes_words(y, 4)} and the regions where each class scores highest under the "
        f"multiclass perceptron ({rule} rule) after {step} of its {run.mistakes} updates: "
        f"{cause}; {errors}."))


# --- Error-correcting output codes ------------------------------------------------------------


@lru_cache(maxsize=1)
def ecoc_data(n: int = 120, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Four blobs, the ECOC widget's data."""
    return data.blobs(n, SQUARE_CENTRES, spread=0.8, seed=seed)


@lru_cache(maxsize=32)
def _column_scorer(column: tuple[float, ...]):
    """The perceptron for one code column (cached: columns recur between codes)."""
    X, y = ecoc_data()
    return multiclass.perceptron_learner(with_bias(X), np.asarray(column)[y])


def code_distance(code: np.ndarray) -> int:
    """The smallest Hamming distance between two rows of ``code``: a code whose rows are at
    least 2e + 1 apart corrects e wrong bits."""
    return min(int(np.sum(a != b)) for i, a in enumerate(code) for b in code[i + 1:])


@dataclass(frozen=True)
class EcocFrame:
    """ECOC on the widget's data with one code, perhaps one column negated.

    Attributes
    ----------
    code : ndarray of shape (4, L)
    flipped : int
        The negated column, or -1.
    bits : ndarray of shape (n, L)
        The column classifiers' outputs on the training points (±1).
    column_accuracy : ndarray of shape (L,)
        How often each column's bit is the code's bit for the point's class.
    predictions : ndarray of int, shape (n,)
        Hamming decoding (ties to the lowest label).
    ties : ndarray of bool, shape (n,)
        Whether two or more code words were nearest.
    accuracy : float
    distance : int
        :func:`code_distance` of ``code``.
    """

    code: np.ndarray
    flipped: int
    bits: np.ndarray
    column_accuracy: np.ndarray
    predictions: np.ndarray
    ties: np.ndarray
    accuracy: float
    distance: int


def flip_range(code_name: str) -> tuple[int, int]:
    """The flip slider's range for a code: -1 (none) to its last column."""
    return -1, CODES[code_name].shape[1] - 1


def _ecoc_model(code_name: str, flipped: int) -> multiclass.Reduction:
    code = CODES[code_name]
    low, high = flip_range(code_name)
    if not low <= flipped <= high:
        raise ValueError(f"flipped must be -1 (none) or a column 0..{high} of the "
                         f"{code_name!r} code; got {flipped}.")
    scorers = [_column_scorer(tuple(col)) for col in code.T.tolist()]
    if flipped >= 0:
        original = scorers[flipped]
        scorers[flipped] = lambda Z, f=original: -f(Z)
    return multiclass.Reduction(4, tuple(tuple(c) for c in code.T.tolist()), tuple(scorers),
                                code)


def ecoc_frame(code_name: str = "six learnable bits", flipped: int = -1) -> EcocFrame:
    """Train (cached) and decode the chosen code on :func:`ecoc_data`."""
    model = _ecoc_model(code_name, int(flipped))
    X, y = ecoc_data()
    bits = np.where(model.scores(with_bias(X)) > 0, 1.0, -1.0)
    distances = np.sum(bits[:, None, :] != model.code[None], axis=2)
    ties = np.sum(distances == distances.min(axis=1, keepdims=True), axis=1) > 1
    predictions = multiclass.hamming_decode(bits, model.code)
    return EcocFrame(model.code, int(flipped), bits, np.mean(bits == model.code[y], axis=0),
                     predictions, ties, float(np.mean(predictions == y)),
                     code_distance(model.code))


@dataclass(frozen=True)
class PerClass:
    """One ECOC frame's behaviour on each class, for explaining a flipped column.

    Attributes
    ----------
    points : ndarray of int, shape (4,)
        The training points of each class.
    column_right : ndarray of shape (4,)
        The fraction of each class's points on which ``column``'s bit is the code's bit.
    others_wrong : ndarray of int, shape (4,)
        The points of each class on which at least one *other* column errs.
    ties : ndarray of int, shape (4,)
        The points of each class with two or more nearest code words.
    ties_right : ndarray of int, shape (4,)
        Of those, the points the lowest-label rule decodes as their own class.
    accuracy : ndarray of shape (4,)
        The fraction of each class decoded right.
    """

    points: np.ndarray
    column_right: np.ndarray
    others_wrong: np.ndarray
    ties: np.ndarray
    ties_right: np.ndarray
    accuracy: np.ndarray


def per_class(frame: EcocFrame, column: int) -> PerClass:
    """Split ``frame`` by true class, with ``column`` singled out (see :class:`PerClass`)."""
    _, y = ecoc_data()
    wrong = frame.bits != frame.code[y]
    others = np.delete(wrong, column, axis=1).any(axis=1)
    right = frame.predictions == y
    classes = [y == c for c in range(frame.code.shape[0])]
    return PerClass(np.array([c.sum() for c in classes]),
                    np.array([np.mean(~wrong[c, column]) for c in classes]),
                    np.array([np.sum(others & c) for c in classes]),
                    np.array([np.sum(frame.ties & c) for c in classes]),
                    np.array([np.sum(frame.ties & right & c) for c in classes]),
                    np.array([np.mean(right[c]) for c in classes]))


def flip_table(code_name: str = "exhaustive (7 bits)", column: int = 1) -> str:
    """:func:`per_class` of the code as trained and with ``column`` flipped, side by side
    ("as trained → flipped"), as a markdown table."""
    before = per_class(ecoc_frame(code_name), column)
    after = per_class(ecoc_frame(code_name, column), column)
    rows = [[c, before.points[c], f"{before.column_right[c]:.0%} → {after.column_right[c]:.0%}",
             before.others_wrong[c], f"{before.ties[c]} → {after.ties[c]}",
             f"{before.ties_right[c]} → {after.ties_right[c]}",
             f"{before.accuracy[c]:.0%} → {after.accuracy[c]:.0%}"]
            for c in range(len(before.points))]
    return markdown_table(["class", "points", f"column {column} right",
                           "points where another column errs", "ties", "ties decoded right",
                           "decoded right"], rows)


def ecoc_controls(code_name: str = "six learnable bits"):
    """The widget's two controls: the code and the flip slider, whose range follows the code
    (it runs from -1, none, to the code's last column)."""
    import ipywidgets

    code = ipywidgets.Dropdown(options=list(CODES), value=code_name, description="code")
    low, high = flip_range(code_name)
    flip = ipywidgets.IntSlider(value=-1, min=low, max=high, description="flip column",
                                continuous_update=False)

    def follow(change) -> None:
        flip.max = flip_range(change["new"])[1]  # ipywidgets clips the value to the new max

    code.observe(follow, names="value")
    return code, flip


@dataclass(frozen=True)
class _EcocView:
    """The ECOC widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    right: Axes
    regions: Regions
    matrix: AxesImage
    bits: tuple[PathCollection, PathCollection]
    columns: list[Text]


MAX_BITS = max(code.shape[1] for code in CODES.values())
# The code matrix spans the same width whatever its number of columns, so that changing the
# code changes no axis: rows 0..3 from y = 0 down to 3, then under each column its number and
# its classifier's training accuracy.
_COLUMN_ROW = 4.15


@lru_cache(maxsize=1)
def _ecoc_view() -> _EcocView:
    """Build the ECOC figure once: the regions and points (left); the code matrix with its ±1
    key, a text per bit and a row of column accuracies under it (right)."""
    X, y = ecoc_data()
    fig, (left, right) = figure(2, width=4.4, height=3.8)
    regions = draw_regions(left, X, y, 4, lambda P: np.zeros(len(P), dtype=int))
    legend = left.legend(fontsize=7, loc="lower left")
    matrix = right.imshow(np.zeros((4, 1)), cmap="RdBu", vmin=-1, vmax=1,
                          extent=(-0.5, MAX_BITS - 0.5, 3.5, -0.5), aspect="auto")
    right.set_xlim(-0.5, MAX_BITS - 0.5)
    right.set_ylim(_COLUMN_ROW + 0.5, -1.9)  # a band above the rows for the ±1 key
    right.set_xticks([])
    # Each entry written on its cell as well as coloured; as markers (one path per sign, drawn
    # as one collection), which cost a redraw far less than 28 texts.
    bits = tuple(right.scatter(np.empty(0), np.empty(0), s=120, marker=sign, color="white",
                               linewidths=0) for sign in ("$+1$", "$-1$"))
    columns = [right.text(0, _COLUMN_ROW, "", ha="center", va="center", fontsize=7,
                          linespacing=1.6) for _ in range(MAX_BITS)]
    right.legend(handles=[Patch(color=matrix.cmap(matrix.norm(bit)), label=f"bit {bit:+d}")
                          for bit in (1, -1)], loc="upper center", ncol=2, fontsize=7)
    right.set_yticks(range(4), [f"class {c}" for c in range(4)])
    right.set_xlabel("column, and its classifier's training accuracy", fontsize=8)
    for ax in (left, right):
        ax.title.set_fontsize(9)
    animate(regions.image, regions.edges, *regions.scatters, left.title, matrix, *bits, *columns,
            right.title)
    animate_legend(legend)  # over the regions, so redrawn with them
    return _EcocView(fig, left, right, regions, matrix, bits, columns)


def _show_code(view: _EcocView, code_name: str, column_accuracy: np.ndarray) -> None:
    """Put ``code_name``'s matrix, its ±1 entries, its columns' numbers and accuracies and its
    distance in the right panel; a code of L columns spreads them over the panel's width."""
    code = CODES[code_name]
    count = code.shape[1]
    view.matrix.set_data(code)
    centres = -0.5 + MAX_BITS / count * (np.arange(MAX_BITS) + 0.5)
    rows, cols = np.indices(code.shape)
    for marks, sign in zip(view.bits, (1, -1), strict=True):
        chosen = code == sign
        marks.set_offsets(np.column_stack([centres[cols[chosen]], rows[chosen]]))
    for col, text in enumerate(view.columns):
        text.set_visible(col < count)
        text.set_x(centres[col])
        text.set_text(f"{col}\n{column_accuracy[col]:.0%}" if col < count else "")
    distance = code_distance(code)
    corrects = (distance - 1) // 2
    view.right.title.set_text(f"code matrix: rows at least {distance} apart,\n"
                              f"corrects {corrects} wrong bit{'' if corrects == 1 else 's'}")


@lru_cache(maxsize=64)
def _ecoc_regions(code_name: str, flipped: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Hamming decoding's labels on the regions grid, and their borders (cached by the
    controls)."""
    X, _ = ecoc_data()
    g1, _, points = _grid(X)
    model = _ecoc_model(code_name, flipped)
    labels = multiclass.predict_ecoc(model, with_bias(points)).reshape(g1.shape)
    return labels, region_edges(X, labels)


def show_ecoc(code_name: str = "six learnable bits", flipped: int = -1) -> Figure:
    """ECOC with the chosen code matrix: the regions of Hamming decoding (left) and the code
    matrix with each column's training accuracy (right). ``flipped`` >= 0 negates that column's
    classifier, as if it erred everywhere: a code whose rows are at least 3 apart still decodes
    most points right. A ``flipped`` outside the code's columns is clamped to -1 (none) or the
    last column, so the widget never raises.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    low, high = flip_range(code_name)
    flipped = min(max(int(flipped), low), high)  # a widget never raises: clamp to the code
    frame = ecoc_frame(code_name, flipped)
    _, y = ecoc_data()
    view = _ecoc_view()
    _show_code(view, code_name, frame.column_accuracy)
    view.regions.show(*_ecoc_regions(code_name, flipped))
    broken = f", column {flipped} flipped" if flipped >= 0 else ""
    ties = int(frame.ties.sum())
    tie_words = f"{ties} tie{'' if ties == 1 else 's'}"
    view.left.title.set_text(f"Hamming decoding{broken}: {frame.accuracy:.1%} right\n"
                             f"({tie_words}, sent to the lowest label)")
    distance = frame.distance
    corrects = (distance - 1) // 2
    columns = ", ".join(f"{a:.0%}" for a in frame.column_accuracy)
    return describe(view.fig, (
        f"{classes_words(y, 4)} and the regions Hamming decoding assigns with the {code_name} "
        f"code{broken}: {frame.accuracy:.1%} of the points decoded right, {tie_words} sent to "
        f"the lowest label. The code matrix's rows are at least {distance} apart, so it "
        f"corrects {corrects} wrong bit{'' if corrects == 1 else 's'}; its column classifiers "
        "are right on "        f"{columns} of the training points."))
