"""Chow-Liu trees: the maximum-likelihood tree-dependent distribution for binary data.

Sources
-------
CS446 slides (seed 001), "Learning Tree Dependent Distributions": estimate P(x) and P(x, y)
from the sample, weight each pair by the mutual information I(x, y) = Σ P(x, y) log(P(x, y) /
(P(x) P(y))), build a maximum-weight spanning tree, and direct its edges away from a chosen
root; the KL divergence D(P, T) = Σₓ P(x) log(P(x)/T(x)) measures how well T approximates P.

Conventions
-----------
Data X has shape (m, n): m samples (rows) of n binary variables (columns). Logarithms are
natural, so information is in nats. Trees are :class:`mllib.bayes.TreeDistribution` objects or
lists of (parent, child) edges.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mllib.bayes import (
    TreeDistribution,
    binary_sample,
    log_joint,
    pairwise,
    parents_from_edges,
    tree_distribution,
)
from mllib.validation import positive

# Counts up to 2**24 are exact in float32, whose matrix product is about twice as fast.
_FLOAT32_EXACT = 2**24


def pair_counts(X) -> tuple[np.ndarray, np.ndarray, int]:
    """N₁₁ = XᵀX, shape (n, n), the number of samples with xᵢ = xⱼ = 1, and N₁, shape (n,), the
    number with xᵢ = 1, and m. One matrix product gives every pair at once."""
    m = np.shape(X)[0] if np.ndim(X) == 2 else 0
    X = binary_sample(X, min_columns=2, dtype=np.float32 if m < _FLOAT32_EXACT else float)
    both = (X.T @ X).astype(float)
    return both, both.diagonal().copy(), m


def mutual_information(X) -> np.ndarray:
    """The empirical mutual information of every pair of columns, shape (n, n), in nats.

        I(xᵢ, xⱼ) = Σ_{a,b ∈ {0,1}} P(a, b) log(P(a, b) / (P(a) P(b))),  0 log 0 = 0,

    with P the sample frequencies (CS446 "Ranking Dependencies"). From N₁₁ = XᵀX and the column
    counts N₁ follow the other three cells of every 2 x 2 table: N₁₀ = N₁ - N₁₁ (column i),
    N₀₁ likewise and N₀₀ = m - N₁ᵢ - N₁ⱼ + N₁₁. The diagonal holds I(xᵢ, xᵢ) = H(xᵢ).

    Parameters
    ----------
    X : array_like of shape (m, n)
        Binary data, m >= 1 samples of n >= 2 variables.

    Returns
    -------
    ndarray of shape (n, n), symmetric, entries >= 0.
    """
    both, ones, m = pair_counts(X)
    row, col = ones[:, None], ones[None, :]
    cells = (both, row - both, col - both, m - row - col + both)  # (1,1), (1,0), (0,1), (0,0)
    margins = ((row, col), (row, m - col), (m - row, col), (m - row, m - col))
    info = np.zeros_like(both)
    with np.errstate(divide="ignore", invalid="ignore"):
        for count, (a, b) in zip(cells, margins, strict=True):
            info += np.where(count > 0, count * np.log(count * m / (a * b)), 0.0)
    info = (info + info.T) / (2 * m)  # exactly symmetric, whatever the rounding of each cell
    return np.maximum(info, 0.0)


def maximum_spanning_tree(weights) -> list[tuple[int, int]]:
    """The edges (i, j) of a maximum-weight spanning tree of a complete graph (Prim).

    Start from vertex 0; repeatedly add the heaviest edge from the tree to a vertex outside it.
    Each step is a vectorized update of the best link of every outside vertex, so the whole
    tree takes O(n²). Ties go to the lower index. Edges are returned in the order added, each
    as (vertex in the tree, new vertex).

    Parameters
    ----------
    weights : array_like of shape (n, n)
        Symmetric edge weights (only the off-diagonal entries are used), n >= 2.

    Returns
    -------
    list of n - 1 (int, int) pairs
    """
    W = np.asarray(weights, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise ValueError(f"weights must be a square matrix over at least 2 vertices; got shape "
                         f"{W.shape}.")
    if not np.all(np.isfinite(W)) or not np.allclose(W, W.T, rtol=1e-12, atol=1e-15):
        raise ValueError("weights must be finite and symmetric.")
    n = W.shape[0]
    outside = np.ones(n, dtype=bool)
    outside[0] = False
    best, link = W[0].copy(), np.zeros(n, dtype=int)
    edges = []
    for _ in range(n - 1):
        new = int(np.argmax(np.where(outside, best, -np.inf)))
        edges.append((int(link[new]), new))
        outside[new] = False
        better = outside & (W[new] > best)
        best[better], link[better] = W[new, better], new
    return edges


def orient(edges: Sequence[tuple[int, int]], root: int = 0) -> list[tuple[int, int]]:
    """Direct the edges of an undirected tree away from ``root`` (CS446 "choose a root variable
    and set the direction of all the edges away from it"), breadth-first.

    Returns (parent, child) pairs, parents before their children.
    """
    n = len(edges) + 1
    if not (isinstance(root, int | np.integer) and 0 <= root < n):
        raise ValueError(f"root must be a variable index in 0..{n - 1}; got {root!r}.")
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"edge ({i}, {j}) is not between two of the {n} variables.")
        neighbours[i].append(j)
        neighbours[j].append(i)
    directed, seen, order = [], {int(root)}, [int(root)]
    for node in order:
        for other in sorted(neighbours[node]):
            if other not in seen:
                seen.add(other)
                order.append(other)
                directed.append((node, other))
    if len(order) != n:
        raise ValueError("the edges do not connect all variables into one tree.")
    return directed


def chow_liu_tree(X, root: int = 0) -> list[tuple[int, int]]:
    """The Chow-Liu tree of binary data: MI weights, maximum spanning tree, oriented from root.

    The tree that maximizes the likelihood of X among all tree-dependent distributions (with
    CPTs set to the sample frequencies) is the one with the largest total mutual information
    (CS446 "Learning Tree Dependent Distributions").

    Parameters
    ----------
    X : array_like of shape (m, n)
        Binary data, n >= 2.
    root : int, default 0
        The variable whose edges point away from it.

    Returns
    -------
    list of n - 1 (parent, child) pairs, breadth-first from ``root``.
    """
    return orient(maximum_spanning_tree(mutual_information(X)), root)


def total_information(mi, edges: Sequence[tuple[int, int]]) -> float:
    """Σ I(xᵢ, xⱼ) over the edges of a tree, from an (n, n) matrix of mutual information."""
    mi = np.asarray(mi, dtype=float)
    return float(sum(mi[i, j] for i, j in edges))


def fit_tree(X, edges: Sequence[tuple[int, int]], *, smoothing: float = 1.0) -> TreeDistribution:
    """Fit the CPTs of a tree with given (parent, child) ``edges`` to binary data X (m, n).

        P(xᵢ = 1 | x_parent = v) = (#(xᵢ = 1, x_parent = v) + s) / (#(x_parent = v) + 2s),
        P(x_root = 1) = (#(x_root = 1) + s) / (m + 2s).

    With s -> 0 these are the sample frequencies (the ML estimate the slides use); s > 0 keeps
    every CPT entry inside (0, 1), so unseen combinations do not get probability 0.

    Parameters
    ----------
    X : array_like of shape (m, n)
        Binary data.
    edges : list of (parent, child)
        A tree over the n variables, e.g. from :func:`chow_liu_tree`.
    smoothing : float, default 1.0
        The pseudo-count s > 0.

    Returns
    -------
    TreeDistribution
    """
    X = binary_sample(X, min_columns=2)
    s = positive(smoothing, "smoothing")
    m, n = X.shape
    parents = parents_from_edges(edges, n)
    has_parent = parents >= 0
    parent_values = np.where(has_parent, X[:, np.maximum(parents, 0)], 0.0)
    ones_given_one = np.sum(X * parent_values, axis=0)
    parent_ones = parent_values.sum(axis=0)
    ones = X.sum(axis=0)
    cpt = np.column_stack([
        (ones - ones_given_one + s) / (m - parent_ones + 2 * s),
        (ones_given_one + s) / (parent_ones + 2 * s),
    ])
    root_p = (ones + s) / (m + 2 * s)
    cpt[~has_parent] = root_p[~has_parent, None]
    return tree_distribution(parents, cpt)


def log_likelihood(tree: TreeDistribution, X) -> float:
    """log P(D | T) = Σ over samples of Σᵢ log P_T(xᵢ | x_parent(i)) (CS446 "Learning Tree
    Dependent Distributions"), for X of shape (m, n). -inf if T gives some sample probability 0.
    """
    return float(np.sum(log_joint(tree, X)))


def _expected_log_cpt(truth: TreeDistribution, model: TreeDistribution) -> float:
    """E_P[log T(x)] = Σᵢ Σ_{a,b} P(x_pa = a, xᵢ = b) log T(xᵢ = b | x_pa = a), P = truth."""
    total = 0.0
    for child in model.order:
        parent = model.parents[child]
        if parent < 0:
            p = pairwise(truth, child, child).diagonal()[None, :]
            links = np.array([[1 - model.cpt[child, 0], model.cpt[child, 0]]])
        else:
            p = pairwise(truth, parent, child)
            links = np.column_stack([1 - model.cpt[child], model.cpt[child]])
        with np.errstate(divide="ignore", invalid="ignore"):
            total += float(np.sum(np.where(p > 0, p * np.log(links), 0.0)))
    return total


def kl_divergence(truth: TreeDistribution, model: TreeDistribution) -> float:
    """D(P, T) = Σₓ P(x) log(P(x)/T(x)) in nats (CS446 "Distance Measure"), P = ``truth``.

    Both are trees, so the 2ⁿ-term sum is not needed: D = E_P[log P(x)] - E_P[log T(x)], and
    each expectation splits over the links into 2 x 2 tables P(x_parent, xᵢ), which the tree
    inference of :func:`mllib.bayes.pairwise` computes. inf when T gives probability 0 to an
    x that P can produce.
    """
    if len(truth.parents) != len(model.parents):
        raise ValueError(f"the trees have {len(truth.parents)} and {len(model.parents)} "
                         "variables; they must match.")
    return max(_expected_log_cpt(truth, truth) - _expected_log_cpt(truth, model), 0.0)
