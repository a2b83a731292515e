"""Widgets, tables and figures for the Chow-Liu walk-through (lecture 06).

Source: CS446 slides (seed 001), "Tree Dependent Distributions", "Example: Learning
Distributions" (three candidates for the data 1011, 1001, 0100) and "Learning Tree Dependent
Distributions" (mutual information, maximum spanning tree, orientation, KL divergence).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Annotation, Text

from mllib import bayes, chowliu
from mllib.demos.live import animate
from mllib.plotting import PALETTE, describe, figure, markdown_table

# A learned edge that is also an edge of the true tree is drawn solid in bluish green, one that
# is not dashed in vermillion: told apart by line style as well as colour.
RIGHT_EDGE = {"color": PALETTE[2], "linestyle": "-"}
WRONG_EDGE = {"color": PALETTE[1], "linestyle": "--"}

SLIDES_DATA = ("1011", "1001", "0100")  # x1 x2 x3 x4
# The sample-size slider's stops: 10 to 10,000 in tenths of a decade, rounded to whole samples,
# so that the slider shows the m the figure uses.
SAMPLE_SIZES = tuple(sorted({round(10 ** (k / 10)) for k in range(10, 41)}))


@dataclass(frozen=True)
class Candidates:
    """The slides' three candidate distributions over x1..x4 and their data.

    Attributes
    ----------
    data : ndarray of shape (3, 4)
        1011, 1001, 0100 as rows.
    table : dict of str to float
        Distribution 1, a full table: P("x1x2x3x4").
    star : TreeDistribution
        Distribution 2: x4 is the parent of x1, x2 and x3.
    chain : TreeDistribution
        Distribution 3: x4 is the parent of x1 and x2, and x2 the parent of x3.
    printed : dict of str to tuple of str
        What the slides print for each candidate: the three probabilities and their product.
    """

    data: np.ndarray
    table: dict[str, float]
    star: bayes.TreeDistribution
    chain: bayes.TreeDistribution
    printed: dict[str, tuple[str, str, str, str]]


def slides_candidates() -> Candidates:
    """CS446 "Example: Learning Distributions", typed from the slides."""
    data = np.array([[int(c) for c in s] for s in SLIDES_DATA], dtype=float)
    table = {"".join(bits): 0.1 for bits in itertools.product("01", repeat=4)}
    table.update({f"10{a}{b}": 0.0 for a in "01" for b in "01"})
    table.update({f"11{a}{b}": 0.05 for a in "01" for b in "01"})
    star = bayes.tree_distribution([3, 3, 3, -1], [[1 / 2, 1 / 2], [1 / 3, 1 / 3],
                                                   [1 / 6, 5 / 6], [1 / 2, 1 / 2]])
    chain = bayes.tree_distribution([3, 3, 1, -1], [[1 / 3, 1], [1, 1 / 2], [2 / 3, 1 / 6],
                                                    [2 / 3, 2 / 3]])
    printed = {"Distribution 1 (table)": ("0", "0.1", "0.1", "0"),
               "Distribution 2 (x4 → x1, x2, x3)": ("10/72", "10/72", "10/72", "125/4·3⁶"),
               "Distribution 3 (x4 → x1, x2; x2 → x3)": ("2/9", "1/9", "10/54", "10/3⁷")}
    return Candidates(data, table, star, chain, printed)


def _fraction(value: float) -> str:
    """A probability as the fraction it almost surely is (denominator up to 10⁶), or 0."""
    return str(Fraction(value).limit_denominator(1_000_000)) if value else "0"


def candidates_likelihoods(candidates: Candidates) -> dict[str, np.ndarray]:
    """P(point | candidate) for each of the three data points, per candidate, shape (3,)."""
    return {
        "Distribution 1 (table)": np.array([candidates.table[s] for s in SLIDES_DATA]),
        "Distribution 2 (x4 → x1, x2, x3)": bayes.joint(candidates.star, candidates.data),
        "Distribution 3 (x4 → x1, x2; x2 → x3)": bayes.joint(candidates.chain, candidates.data),
    }


def candidates_table(candidates: Candidates) -> str:
    """The likelihoods as a Markdown table: computed (exact fractions) next to the slides."""
    header = ["candidate", *(f"P({s})" for s in SLIDES_DATA), "P(data)", "slides print"]
    rows = []
    for name, probs in candidates_likelihoods(candidates).items():
        rows.append([name, *(_fraction(p) for p in probs), _fraction(float(np.prod(probs))),
                     ", ".join(candidates.printed[name])])
    return markdown_table(header, rows)


# --- Drawing trees ------------------------------------------------------------------------------


def tree_layout(tree: bayes.TreeDistribution) -> np.ndarray:
    """Positions, shape (n, 2), that draw ``tree`` top-down: the root on top, each level of
    depth one row lower, leaves spread evenly and every parent above the middle of its
    children."""
    n = len(tree.parents)
    children: list[list[int]] = [[] for _ in range(n)]
    for parent, child in tree.edges:
        children[parent].append(child)
    positions = np.zeros((n, 2))
    depth = np.zeros(n)
    for node in tree.order[1:]:
        depth[node] = depth[tree.parents[node]] + 1
    next_leaf = 0

    def place(node: int) -> float:
        nonlocal next_leaf
        if children[node]:
            x = float(np.mean([place(child) for child in children[node]]))
        else:
            x, next_leaf = float(next_leaf), next_leaf + 1
        positions[node] = x, -depth[node]
        return x

    place(tree.root)
    span = np.maximum(np.ptp(positions, axis=0), 1.0)
    return 2 * (positions - positions.min(axis=0)) / span - 1


def draw_tree(ax: Axes, edges, positions: np.ndarray, *, root: int | None = None,
              truth=None, title: str = "") -> None:
    """Draw (parent, child) edges as arrows between the nodes at ``positions`` (n, 2).

    With ``truth`` (a set of undirected edges as frozensets), correct edges are solid green and
    wrong ones dashed vermillion (:data:`RIGHT_EDGE`, :data:`WRONG_EDGE`); without, all are
    black. The root is drawn as a square.
    """
    for parent, child in edges:
        arrow = _arrow(ax)
        _point(arrow, positions[parent], positions[child],
               {"color": "black", "linestyle": "-"} if truth is None else _edge_style(
                   (parent, child), truth))
    for i, (x, y) in enumerate(positions):
        ax.plot(x, y, "s" if i == root else "o", ms=16, color="white", mec="black")
        ax.text(x, y, str(i), ha="center", va="center", fontsize=8)
    _tree_axes(ax)
    ax.set_title(title)


def _tree_axes(ax: Axes) -> None:
    """The limits that hold a :func:`tree_layout` with room below for two lines of text."""
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.3, 1.15)
    ax.axis("off")


def _arrow(ax: Axes) -> Annotation:
    """An arrow between two nodes, drawn short of both node markers; placed by :func:`_point`."""
    return ax.annotate("", xy=(0, 0), xytext=(0, 0),
                       arrowprops={"arrowstyle": "-|>", "lw": 1.8, "shrinkA": 9, "shrinkB": 9})


def _point(arrow: Annotation, start, end, style: dict) -> None:
    """Make ``arrow`` run from ``start`` to ``end`` in ``style`` (colour and line style)."""
    arrow.xy = tuple(end)
    arrow.xyann = tuple(start)
    arrow.arrow_patch.set_color(style["color"])
    arrow.arrow_patch.set_linestyle(style["linestyle"])


def _edge_style(edge, truth) -> dict:
    return RIGHT_EDGE if frozenset(edge) in truth else WRONG_EDGE


def show_mi_heatmap(mi: np.ndarray, edges=()) -> Figure:
    """The mutual-information matrix (nats) with the diagonal blanked; ``edges`` are ringed."""
    fig, (ax,) = figure(1, width=5.5, height=4.6)
    shown = np.array(mi, dtype=float)
    np.fill_diagonal(shown, np.nan)
    image = ax.imshow(shown, cmap="viridis")
    fig.colorbar(image, ax=ax, label="I(xᵢ, xⱼ) in nats")
    for i, j in edges:
        for a, b in ((i, j), (j, i)):
            ax.plot(b, a, "s", ms=9, mfc="none", mec="white", mew=1.5)
    ax.set_xlabel("variable j")
    ax.set_ylabel("variable i")
    ax.set_title("mutual information; squares: the Chow-Liu edges")
    n = len(shown)
    i, j = np.unravel_index(np.nanargmax(shown), shown.shape)
    ringed = (f"; the {len(edges)} Chow-Liu edges are ringed with squares: "
              + ", ".join(f"{a}–{b}" for a, b in edges)) if len(edges) else ""
    return describe(fig, (
        f"The mutual information between each pair of {n} variables as a {n}×{n} grid of "
        f"colours (viridis, brighter is larger), from {np.nanmin(shown):.4f} to "
        f"{np.nanmax(shown):.4f} nats; the largest is between variables {min(i, j)} and "
        f"{max(i, j)}{ringed}."))


# --- The maximum spanning tree, one edge at a time ----------------------------------------------


@dataclass(frozen=True)
class KruskalStep:
    """One candidate edge of Kruskal's algorithm: heaviest first.

    Attributes
    ----------
    edge : (int, int)
        (i, j) with i < j.
    weight : float
    kept : bool
        True when the edge joins two different components (it enters the tree); False when its
        ends are already connected, so it would close a cycle.
    components : int
        The number of components after this step.
    """

    edge: tuple[int, int]
    weight: float
    kept: bool
    components: int


def _components(n: int) -> tuple[Callable[[int], int], list[int]]:
    """Union-find over n vertices: ``find(v)`` is v's component's root; merging a component
    into another is ``component[root] = other_root``."""
    component = list(range(n))

    def find(v: int) -> int:
        while component[v] != v:
            v = component[v]
        return v

    return find, component


def _heaviest_first(W: np.ndarray) -> list[tuple[int, int]]:
    """Every pair i < j of the complete graph, heaviest weight first (Kruskal's order)."""
    return sorted(itertools.combinations(range(W.shape[0]), 2), key=lambda e: -W[e])


def kruskal_steps(weights) -> list[KruskalStep]:
    """Kruskal's maximum spanning tree on symmetric ``weights`` (n, n), step by step.

    Sort the edges by weight, heaviest first (ties: lower (i, j) first), and keep each edge
    whose ends lie in different components. Stops when one component is left. The library's
    :func:`mllib.chowliu.maximum_spanning_tree` uses Prim's algorithm instead; with distinct
    weights both find the same tree.
    """
    W = np.asarray(weights, dtype=float)
    n = W.shape[0]
    find, component = _components(n)
    pairs = _heaviest_first(W)
    steps, count = [], n
    for i, j in pairs:
        a, b = find(i), find(j)
        if a != b:
            component[a] = b
            count -= 1
        steps.append(KruskalStep((i, j), float(W[i, j]), a != b, count))
        if count == 1:
            break
    return steps


def count_maximum_trees(weights, *, rtol: float = 1e-9) -> int:
    """How many spanning trees of the complete graph reach the maximum total ``weights`` (n, n).

    More than one exactly when some weights tie where it matters; then which tree a program
    returns depends on its tie rule. Weights closer than ``rtol`` times the largest are taken
    as equal (mutual informations that are equal on paper can differ in the last bits).
    Kruskal's view: the heavier weight classes are merged first; within each class, the class's
    edges between the components built so far form a multigraph, and every spanning forest of
    it (counted by Kirchhoff's matrix-tree theorem, per connected part) completes a maximum tree.
    """
    W = np.asarray(weights, dtype=float)
    n = W.shape[0]
    find, component = _components(n)
    pairs = _heaviest_first(W)
    scale = rtol * max(float(np.abs(W).max()), np.finfo(float).tiny)
    total, start = 1, 0
    while start < len(pairs):
        stop = start
        while stop < len(pairs) and W[pairs[start]] - W[pairs[stop]] <= scale:
            stop += 1
        links = [(find(i), find(j)) for i, j in pairs[start:stop] if find(i) != find(j)]
        total *= _spanning_forests(links)
        for a, b in links:
            if find(a) != find(b):
                component[find(a)] = find(b)
        start = stop
    return total


def _spanning_forests(links: list[tuple[int, int]]) -> int:
    """The number of spanning forests (one tree per connected part) of a multigraph given by
    its edges: the product over parts of a reduced Laplacian's determinant."""
    vertices = sorted({v for link in links for v in link})
    index = {v: k for k, v in enumerate(vertices)}
    laplacian = np.zeros((len(vertices), len(vertices)))
    for a, b in links:
        i, j = index[a], index[b]
        laplacian[i, i] += 1
        laplacian[j, j] += 1
        laplacian[i, j] -= 1
        laplacian[j, i] -= 1
    count, unseen = 1, set(range(len(vertices)))
    while unseen:  # each connected part in turn, found breadth-first
        part = [unseen.pop()]
        for v in part:
            for u in np.flatnonzero(laplacian[v] < 0):
                if u in unseen:
                    unseen.remove(u)
                    part.append(int(u))
        reduced = laplacian[np.ix_(part[1:], part[1:])]
        count *= round(np.linalg.det(reduced)) if len(part) > 1 else 1
    return count


def tree_path(edges, start: int, end: int) -> list[int]:
    """The vertices on the path from ``start`` to ``end`` in the tree with ``edges`` (pairs,
    either direction), both ends included."""
    neighbours: dict[int, list[int]] = {}
    for i, j in edges:
        neighbours.setdefault(i, []).append(j)
        neighbours.setdefault(j, []).append(i)
    came_from = {start: start}
    frontier = [start]
    for node in frontier:  # breadth-first until end is reached
        for other in neighbours.get(node, []):
            if other not in came_from:
                came_from[other] = node
                frontier.append(other)
    if end not in came_from:
        raise ValueError(f"{start} and {end} are not connected by the edges.")
    path = [end]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    return path[::-1]


def kruskal_table(steps: list[KruskalStep], names=None) -> str:
    """The steps as a Markdown table: edge, weight, kept or, for a skipped edge, the path of
    edges kept earlier that already joins its ends, and the components left."""
    def label(v: int) -> str:
        return str(v) if names is None else names[v]

    rows, kept = [], []
    for k, s in enumerate(steps, start=1):
        if s.kept:
            decision = "kept"
            kept.append(s.edge)
        else:
            path = "–".join(label(v) for v in tree_path(kept, *s.edge))
            decision = f"skipped: {path} already joins them"
        rows.append([k, f"{label(s.edge[0])}–{label(s.edge[1])}", f"{s.weight:.4f}", decision,
                     s.components])
    return markdown_table(["step", "edge", "I (nats)", "decision", "components"], rows)


# --- Learning as the sample grows ---------------------------------------------------------------


@dataclass(frozen=True)
class Experiment:
    """A true tree, a sample from it, and what Chow-Liu learns from the first m rows.

    Attributes
    ----------
    truth : TreeDistribution
    X : ndarray of shape (max_m, n)
        The whole sample; the first m rows were used.
    m : int
    root : int
    learned : list of (parent, child)
    correct : int
        How many learned edges are edges of the true tree (ignoring direction).
    model : TreeDistribution
        The learned tree with Laplace-smoothed CPTs.
    kl : float
        D(truth, model) in nats.
    loglik : float
        log P(first m rows | model). With plain frequencies as CPTs it would not depend on the
        root; smoothing makes it (and ``kl``) differ a little between roots when m is small.
    maximum_trees : int
        How many spanning trees share the maximum total mutual information. Above 1, ties in
        the weights (frequent at small m) let the tie rule pick ``learned`` among them, and
        ``correct`` is that pick's count, not a property of the data alone.
    """

    truth: bayes.TreeDistribution
    X: np.ndarray
    m: int
    root: int
    learned: list[tuple[int, int]]
    correct: int
    model: bayes.TreeDistribution
    kl: float
    loglik: float
    maximum_trees: int


def true_tree(n: int = 10, *, seed: int = 4, max_m: int = 10_000):
    """The walk-through's true tree over n variables and a sample of ``max_m`` rows from it."""
    truth = bayes.random_tree(n, seed=seed, strength=0.25)
    return truth, bayes.sample(truth, max_m, seed=seed + 100)


def experiment(m: int, root: int = 0, *, n: int = 10, seed: int = 4) -> Experiment:
    """Learn a Chow-Liu tree from the first m rows of the true tree's sample."""
    truth, X = true_tree(n, seed=seed)
    m = int(round(m))
    if not 1 <= m <= len(X):
        raise ValueError(f"m must be between 1 and {len(X)}; got {m}.")
    learned = chowliu.chow_liu_tree(X[:m], root=root)
    truth_edges = {frozenset(e) for e in truth.edges}
    correct = sum(frozenset(e) in truth_edges for e in learned)
    model = chowliu.fit_tree(X[:m], learned)
    return Experiment(truth, X, m, root, learned, correct, model,
                      chowliu.kl_divergence(truth, model), chowliu.log_likelihood(model, X[:m]),
                      count_maximum_trees(chowliu.mutual_information(X[:m])))


def tie_note(maximum_trees: int) -> str:
    """The frame's line on ties: the learned tree is the only maximum, or one of several."""
    if maximum_trees == 1:
        return "no ties in I that matter: the only maximum tree"
    return f"ties in I: the tie rule picked 1 of {maximum_trees} maximum trees"


@dataclass(frozen=True)
class _ExperimentView:
    """The sample-size widget's figure and the artists each frame updates in place."""

    fig: Figure
    right: Axes
    positions: np.ndarray
    arrows: tuple[Annotation, ...]
    root: Line2D
    scores: Text
    ties: Text


@lru_cache(maxsize=1)
def _experiment_view() -> _ExperimentView:
    """Build the widget's figure once: the true tree (left) stays; on the right the nodes stay,
    and the learned arrows, the root's square, the node numbers over them, the title and the
    two lines of numbers move with the controls. The legend sits below the tree."""
    truth, _ = true_tree()
    positions = tree_layout(truth)
    fig, (left, right) = figure(2, width=4.6, height=4.6)
    draw_tree(left, truth.edges, positions, root=truth.root, title="true tree")
    arrows = tuple(_arrow(right) for _ in truth.edges)
    right.plot(*positions.T, "o", ms=16, color="white", mec="black", linestyle="none")
    root, = right.plot([], [], "s", ms=16, color="white", mec="black")
    numbers = [right.text(x, y, str(i), ha="center", va="center", fontsize=8)
               for i, (x, y) in enumerate(positions)]
    scores = right.text(0, -1.28, "", ha="center", fontsize=9)
    ties = right.text(0, -1.45, "", ha="center", fontsize=9)
    _tree_axes(right)
    for style, label in ((RIGHT_EDGE, "also an edge of the true tree"),
                         (WRONG_EDGE, "not an edge of the true tree")):
        right.plot([], [], label=label, **style)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2, fontsize=7,
                 frameon=False)  # below the tree, clear of the nodes
    animate(*arrows, root, *numbers, scores, ties, right.title)
    return _ExperimentView(fig, right, positions, arrows, root, scores, ties)


def show_experiment(m: float, root: int = 0) -> Figure:
    """The slider's frame: the true tree (left) and the tree learned from m samples (right),
    solid green where an edge is right and dashed vermillion where it is wrong, directed away
    from ``root``.

    The figure is built once and redrawn in place: each call returns the same Figure."""
    exp = _cached_experiment(int(round(m)), int(root))
    view = _experiment_view()
    truth = {frozenset(e) for e in exp.truth.edges}
    for arrow, (parent, child) in zip(view.arrows, exp.learned, strict=True):
        _point(arrow, view.positions[parent], view.positions[child],
               _edge_style((parent, child), truth))
    view.root.set_data([view.positions[int(root), 0]], [view.positions[int(root), 1]])
    view.right.title.set_text(f"learned from m = {exp.m}: {exp.correct} of {len(exp.learned)} "
                              "edges right")
    view.scores.set_text(f"KL = {exp.kl:.4f} nats, log-likelihood = {exp.loglik:.1f}")
    view.ties.set_text(tie_note(exp.maximum_trees))
    wrong = [f"{a}–{b}" for a, b in exp.learned if frozenset((a, b)) not in truth]
    return describe(view.fig, (
        f"Left: the true tree over {len(view.positions)} variables, rooted at "
        f"{exp.truth.root}. Right: the tree Chow-Liu learns from m = {exp.m} samples, directed "
        f"away from the root {root}: {exp.correct} of its {len(exp.learned)} edges are edges "
        f"of the true tree" + (f"; the wrong ones, dashed: {', '.join(wrong)}" if wrong else "")
        + f". KL = {exp.kl:.4f} nats, log-likelihood = {exp.loglik:.1f}; "
        f"{tie_note(exp.maximum_trees)}."))


@lru_cache(maxsize=512)
def _cached_experiment(m: int, root: int) -> Experiment:
    """:func:`experiment` for the widget, cached by the controls' values."""
    return experiment(m, root)


@dataclass(frozen=True)
class KLCurve:
    """KL divergence from the true tree as the sample grows, averaged over several samples.

    Attributes
    ----------
    sizes : ndarray of shape (k,)
    chow_liu : ndarray of shape (k,)
        Mean over the samples of D(truth, Chow-Liu tree fitted to the first m rows).
    true_structure : ndarray of shape (k,)
        Mean of D(truth, the true tree's structure with CPTs fitted to the same rows).
    correct : ndarray of shape (k,)
        Mean number of edges of the Chow-Liu tree that are right.
    per_sample_correct : ndarray of shape (k, s)
        Edges right for each of the s samples: one sample alone need not improve with m.
    chow_liu_se, true_structure_se : ndarray of shape (k,)
        Standard errors of the two means over the s samples (sample standard deviation over
        sqrt(s)): the means are estimates.
    """

    sizes: np.ndarray
    chow_liu: np.ndarray
    true_structure: np.ndarray
    correct: np.ndarray
    per_sample_correct: np.ndarray
    chow_liu_se: np.ndarray
    true_structure_se: np.ndarray


def kl_curve(sizes=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000), *,
             samples: int = 10) -> KLCurve:
    """Chow-Liu's KL against the best the true structure could do with the same data.

    The first sample is the walk-through's (:func:`true_tree`); the others are drawn from the
    same tree with the next seeds, so one lucky or unlucky sample does not set the trend.
    ``samples`` must be at least 2, so that the means carry a standard error.
    """
    if samples < 2:
        raise ValueError(f"samples must be at least 2 for a standard error, got {samples}")
    truth, first = true_tree()
    truth_edges = {frozenset(e) for e in truth.edges}
    kl, kl_true, correct = (np.zeros((len(sizes), samples)) for _ in range(3))
    for s in range(samples):
        X = first if s == 0 else bayes.sample(truth, max(sizes), seed=104 + s)
        for k, m in enumerate(sizes):
            learned = chowliu.chow_liu_tree(X[:m], root=truth.root)
            kl[k, s] = chowliu.kl_divergence(truth, chowliu.fit_tree(X[:m], learned))
            kl_true[k, s] = chowliu.kl_divergence(truth, chowliu.fit_tree(X[:m], truth.edges))
            correct[k, s] = sum(frozenset(e) in truth_edges for e in learned)
    return KLCurve(np.array(sizes), kl.mean(axis=1), kl_true.mean(axis=1), correct.mean(axis=1),
                   correct, _standard_error(kl), _standard_error(kl_true))


def _standard_error(values: np.ndarray) -> np.ndarray:
    """Standard error of each row's mean, shape (k,), for values of shape (k, s) with s >= 2."""
    return values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])


def show_kl(curve: KLCurve) -> Figure:
    """KL against m on log-log axes, for Chow-Liu and for the true structure."""
    fig, (ax,) = figure(1, width=6.0, height=4.0)
    samples = curve.per_sample_correct.shape[1]
    # Each point is a mean over samples: its bar is ± one standard error (capless, so each
    # curve stays one line of the axes).
    ax.errorbar(curve.sizes, curve.chow_liu, yerr=curve.chow_liu_se, fmt="o-", capsize=0,
                label=f"Chow-Liu tree (learned structure), mean ± s.e. of {samples} samples")
    ax.errorbar(curve.sizes, curve.true_structure, yerr=curve.true_structure_se, fmt="s--",
                capsize=0, label=f"true structure, fitted CPTs, mean ± s.e. of {samples} samples")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sample size m")
    ax.set_ylabel("KL divergence D(P, T) in nats")
    ax.set_title("the gap between the curves: the cost of wrong edges")
    ax.legend(fontsize=8)
    return describe(fig, (
        f"KL divergence from the true tree against the sample size m from {curve.sizes[0]} to "
        f"{curve.sizes[-1]}, log-log, each the mean of {samples} samples with a bar of ± one "
        f"standard error. The Chow-Liu tree "
        f"(circles) falls from {curve.chow_liu[0]:.3g} to {curve.chow_liu[-1]:.3g} nats; the "
        f"true structure with fitted CPTs (squares, dashed) from {curve.true_structure[0]:.3g} "
        f"to {curve.true_structure[-1]:.3g}. The Chow-Liu tree gets {curve.correct[0]:.1f} of "
        f"9 edges right on average at m = {curve.sizes[0]} and {curve.correct[-1]:.1f} at "
        f"m = {curve.sizes[-1]}."))
