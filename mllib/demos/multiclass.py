"""Widgets, figures and tables for the multiclass walk-through (lecture 08).

Sources: CS446 "Binary to Multiclass" (OvA, AvA, the example counts, ECOC, the Kesler
construction, the multiclass perceptron and the conservative update) and MMDS §12.2.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mllib import data, multiclass, perceptron
from mllib.plotting import figure, markdown_table

COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
_LIGHT = ("#d3e5f5", "#fde3c8", "#d5efd5", "#f6d2d2", "#e6dcef")
MARKERS = ("o", "s", "^", "D", "v")
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


def scatter_classes(ax: Axes, X: np.ndarray, y: np.ndarray, k: int, size: float = 18) -> None:
    """2-D points coloured by class 0..k-1."""
    for c in range(k):
        rows = y == c
        ax.scatter(X[rows, 0], X[rows, 1], s=size, c=COLOURS[c], marker=MARKERS[c],
                   edgecolors="white", linewidths=0.5, label=f"class {c}")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")


def _grid(X: np.ndarray, pad: float = 0.8, size: int = 120):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    g1, g2 = np.meshgrid(np.linspace(lo[0], hi[0], size), np.linspace(lo[1], hi[1], size))
    return g1, g2, np.column_stack([g1.ravel(), g2.ravel()])


def draw_regions(ax: Axes, X: np.ndarray, y: np.ndarray, k: int, predict) -> None:
    """Shade the plane by ``predict(points) -> labels``, then scatter the data."""
    g1, g2, points = _grid(X)
    labels = predict(points).reshape(g1.shape)
    ax.pcolormesh(g1, g2, labels, cmap=ListedColormap(_LIGHT[:k]), vmin=-0.5, vmax=k - 0.5,
                  shading="auto")
    scatter_classes(ax, X, y, k)


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
    for ax, model, predict, name in (
        (left, ova, multiclass.predict_one_vs_all, "one-vs-all (winner takes all)"),
        (right, ava, multiclass.predict_all_vs_all, "all-vs-all (majority vote)"),
    ):
        draw_regions(ax, X, y, 3, lambda P, m=model, p=predict: p(m, with_bias(P)))
        accuracy = np.mean(predict(model, with_bias(X)) == y)
        ax.set_title(f"{name}: {accuracy:.0%} right", fontsize=9)
    left.legend(fontsize=7, loc="upper left")
    return fig


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
    return fig


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


def show_update(step: int, conservative: bool = True) -> Figure:
    """The regions argmax_i w_i·x after ``step`` updates (0: all weights zero), with the
    example that caused update ``step`` circled, and the classes it promoted (with the number of
    promotions when the full update demotes several rivals) and demoted."""
    X, y, run = perceptron_run(bool(conservative))
    step = int(np.clip(step, 0, run.mistakes))
    W = run.history[step - 1].W if step else np.zeros((4, 3))
    fig, (ax,) = figure(1, width=5.0, height=4.3)
    draw_regions(ax, X, y, 4, lambda P: multiclass.predict_linear(W, with_bias(P)))
    if step:
        update = run.history[step - 1]
        ax.scatter(*X[update.index], s=220, facecolors="none", edgecolors="black", linewidths=2)
        times = len(update.demoted)  # w_y is promoted once per demoted rival (section 4)
        promoted = f"{update.label} (×{times})" if times > 1 else f"{update.label}"
        what = f"promoted {promoted}, demoted {list(update.demoted)}"
    else:
        what = "W = 0: every score ties, class 0 wins"
    wrong = int(np.sum(multiclass.predict_linear(W, with_bias(X)) != y))
    ax.set_title(f"after {step} of {run.mistakes} updates ({what});\n"
                 f"{wrong} training error{'' if wrong == 1 else 's'}", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    return fig


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


TIE_RULES = ("lowest", "highest", "random")


def tie_rule_accuracy(frame: EcocFrame, rule: str = "lowest") -> float:
    """The accuracy of ``frame``'s bits decoded to the nearest code word with ties sent to the
    ``"lowest"`` or the ``"highest"`` tied label, or to a ``"random"`` one: then the exact
    expected accuracy, each tied point counting 1/(number of tied labels) when its own class is
    among them."""
    if rule not in TIE_RULES:
        raise ValueError(f"rule must be one of {TIE_RULES}; got {rule!r}.")
    _, y = ecoc_data()
    distances = np.sum(frame.bits[:, None, :] != frame.code[None], axis=2)
    nearest = distances == distances.min(axis=1, keepdims=True)
    if rule == "random":
        return float(np.mean(nearest[np.arange(len(y)), y] / nearest.sum(axis=1)))
    if rule == "highest":
        nearest = nearest[:, ::-1]
    first = np.argmax(nearest, axis=1)
    decoded = first if rule == "lowest" else nearest.shape[1] - 1 - first
    return float(np.mean(decoded == y))


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


def show_ecoc(code_name: str = "six learnable bits", flipped: int = -1) -> Figure:
    """ECOC with the chosen code matrix: the regions of Hamming decoding (left) and the code
    matrix with each column's training accuracy (right). ``flipped`` >= 0 negates that column's
    classifier, as if it erred everywhere: a code whose rows are at least 3 apart still decodes
    most points right. A ``flipped`` outside the code's columns is clamped to -1 (none) or the
    last column, so the widget never raises."""
    low, high = flip_range(code_name)
    flipped = min(max(int(flipped), low), high)  # a widget never raises: clamp to the code
    frame = ecoc_frame(code_name, flipped)
    model = _ecoc_model(code_name, flipped)
    X, y = ecoc_data()
    code = frame.code
    fig, (left, right) = figure(2, width=4.4, height=3.8)
    draw_regions(left, X, y, 4, lambda P: multiclass.predict_ecoc(model, with_bias(P)))
    broken = f", column {flipped} flipped" if flipped >= 0 else ""
    ties = int(frame.ties.sum())
    left.set_title(f"Hamming decoding{broken}: {frame.accuracy:.0%} right\n"
                   f"({ties} tie{'' if ties == 1 else 's'}, sent to the lowest label)",
                   fontsize=9)
    left.legend(fontsize=7, loc="lower left")
    image = right.imshow(code, cmap="RdBu", vmin=-1, vmax=1)
    for (row, col), bit in np.ndenumerate(code):
        right.text(col, row, "+1" if bit > 0 else "−1", ha="center", va="center", fontsize=7,
                   color="white")
    right.set_ylim(code.shape[0] - 0.5, -1.9)  # a band above the rows for the colour key
    right.legend(handles=[Patch(color=image.cmap(image.norm(bit)), label=f"bit {bit:+d}")
                          for bit in (1, -1)], loc="upper center", ncol=2, fontsize=7)
    right.set_xticks(range(code.shape[1]),
                     [f"{c}\n{a:.0%}" for c, a in enumerate(frame.column_accuracy)], fontsize=7)
    right.set_yticks(range(4), [f"class {c}" for c in range(4)])
    right.set_xlabel("column (its classifier's training accuracy)", fontsize=8)
    corrects = (frame.distance - 1) // 2
    right.set_title(f"code matrix: rows at least {frame.distance} apart,\n"
                    f"corrects {corrects} wrong bit{'' if corrects == 1 else 's'}", fontsize=9)
    return fig
