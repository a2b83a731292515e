"""Widgets, figures and tables for the multiclass walk-through (lecture 08).

Sources: CS446 "Binary to Multiclass" (OvA, AvA, the example counts, ECOC, the Kesler
construction, the multiclass perceptron and the conservative update) and MMDS §12.2.5.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from mllib import data, multiclass, perceptron
from mllib.plotting import figure, markdown_table

COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
_LIGHT = ("#d3e5f5", "#fde3c8", "#d5efd5", "#f6d2d2", "#e6dcef")
MARKERS = ("o", "s", "^", "D", "v")
# Three classes in a row: the middle one cannot be cut off from the other two by one line.
ROW_CENTRES = ((-3.0, 0.0), (0.0, 0.0), (3.0, 0.0))
# Four classes around a square, for the perceptron and ECOC widgets.
SQUARE_CENTRES = ((0.0, 2.5), (-2.5, 0.0), (2.5, 0.0), (0.0, -2.5))
# Code matrices for the ECOC widget (rows: classes 0..3; columns: binary problems).
CODES = {
    "one-vs-all (4 bits)": np.array([[1, -1, -1, -1], [-1, 1, -1, -1], [-1, -1, 1, -1],
                                     [-1, -1, -1, 1]], dtype=float),
    "exhaustive (7 bits)": np.array([[1, 1, 1, 1, 1, 1, 1], [-1, -1, -1, -1, 1, 1, 1],
                                     [-1, -1, 1, 1, -1, -1, 1], [-1, 1, -1, 1, -1, 1, -1]],
                                    dtype=float),
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
    columns with the bias feature), blue +, red −."""
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
    shown = Xk[:12]
    right.imshow(shown, cmap="RdBu", vmin=-np.abs(shown).max(), vmax=np.abs(shown).max(),
                 aspect="auto")
    for boundary in (2.5, 5.5):
        right.axvline(boundary, color="black", linewidth=1)
    right.set_xticks(range(9), ["x₁", "x₂", "1"] * 3, fontsize=7)
    right.set_yticks(range(12), [f"{'+' if s > 0 else '−'}" for s in yk[:12]], fontsize=7)
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


def show_update(step: int, conservative: bool = True) -> Figure:
    """The regions argmax_i w_i·x after ``step`` updates (0: all weights zero), with the
    example that caused update ``step`` circled, and the classes it promoted and demoted."""
    X, y, run = perceptron_run(bool(conservative))
    step = int(np.clip(step, 0, run.mistakes))
    W = run.history[step - 1].W if step else np.zeros((4, 3))
    fig, (ax,) = figure(1, width=5.0, height=4.3)
    draw_regions(ax, X, y, 4, lambda P: multiclass.predict_linear(W, with_bias(P)))
    if step:
        update = run.history[step - 1]
        ax.scatter(*X[update.index], s=220, facecolors="none", edgecolors="black", linewidths=2)
        what = f"promoted {update.label}, demoted {list(update.demoted)}"
    else:
        what = "W = 0: every score ties, class 0 wins"
    wrong = int(np.sum(multiclass.predict_linear(W, with_bias(X)) != y))
    ax.set_title(f"after {step} of {run.mistakes} updates ({what});\n"
                 f"{wrong} training errors", fontsize=9)
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


def show_ecoc(code_name: str = "exhaustive (7 bits)", flipped: int = -1) -> Figure:
    """ECOC with the chosen code matrix: the regions of Hamming decoding (left) and the code
    matrix (right). ``flipped`` >= 0 negates that column's classifier, as if it erred
    everywhere: a code whose rows are 3 or more apart still decodes most points right."""
    code = CODES[code_name]
    X, y = ecoc_data()
    scorers = [_column_scorer(tuple(col)) for col in code.T.tolist()]
    if 0 <= flipped < len(scorers):
        original = scorers[flipped]
        scorers[flipped] = lambda Z, f=original: -f(Z)
    model = multiclass.Reduction(4, tuple(tuple(c) for c in code.T.tolist()), tuple(scorers),
                                 code)
    fig, (left, right) = figure(2, width=4.4, height=3.8)
    draw_regions(left, X, y, 4, lambda P: multiclass.predict_ecoc(model, with_bias(P)))
    accuracy = np.mean(multiclass.predict_ecoc(model, with_bias(X)) == y)
    distance = min(int(np.sum(a != b)) for i, a in enumerate(code) for b in code[i + 1:])
    broken = f", column {flipped} flipped" if 0 <= flipped < len(scorers) else ""
    left.set_title(f"Hamming decoding{broken}: {accuracy:.0%} right", fontsize=9)
    right.imshow(code, cmap="RdBu", vmin=-1, vmax=1)
    right.set_xticks(range(code.shape[1]))
    right.set_yticks(range(4), [f"class {c}" for c in range(4)])
    right.set_xlabel("binary problem (column)")
    right.set_title(f"code matrix: rows at least {distance} apart", fontsize=9)
    return fig
