"""Bayesian learning on binary variables: naive Bayes and tree-dependent distributions.

Sources
-------
- CS446 slides (seed 001), "Bayesian Classifier" and "Naive Bayes (1)-(3)": v_MAP =
  argmax_v P(v)·Πₖ P(xₖ | v), learned by counting.
- CS446 "Lecture 11: Representing Probability Distributions", "Tree Dependent Distributions":
  P(x₁, ..., xₙ) = Πᵢ P(xᵢ | parent(xᵢ)), two numbers per link; P(x = 1) and pairwise queries
  such as P(x, u) by recursing up the tree.

Conventions
-----------
Variables are binary (0 or 1). A tree over n variables is given by ``parents``, shape (n,), with
``parents[i]`` the parent of variable i and -1 for the single root, and by a CPT of shape (n, 2)
with ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``. The root has no parent, so both of its
entries hold P(x_root = 1). Logarithms are natural (nats).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mllib.validation import positive, positive_int

# --- Shared checks for probabilistic inputs -------------------------------------------------


def probability(value, name: str) -> float:
    """Return ``value`` as a float, requiring a probability in [0, 1]."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not 0 <= number <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}.")
    return number


def as_probabilities(values, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return ``values`` as a float array of the given shape with every entry in [0, 1]."""
    array = np.asarray(values, dtype=float)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}; got {array.shape}.")
    if not np.all((array >= 0) & (array <= 1)):
        raise ValueError(f"{name} must hold probabilities in [0, 1]; some entries are outside "
                         "(or NaN).")
    return array


def binary_sample(X, name: str = "X", *, min_columns: int = 1, dtype=float) -> np.ndarray:
    """Return ``X``, shape (m, n) with m >= 1, as an array of 0s and 1s of type ``dtype``.

    The data are checked before any conversion, so 0.9999 is rejected rather than rounded.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (m, n); got {X.ndim} "
                         "dimension(s).")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: it needs at least one sample (row).")
    if X.shape[1] < min_columns:
        raise ValueError(f"{name} has {X.shape[1]} variable(s) (columns); at least "
                         f"{min_columns} are needed.")
    if X.dtype != bool and not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{name} must be binary: every value 0 or 1 (no NaN).")
    return X.astype(dtype, copy=False)


# --- Naive Bayes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NaiveBayes:
    """A Bernoulli naive Bayes model.

    Attributes
    ----------
    classes : ndarray of shape (k,)
        The labels, sorted.
    prior : ndarray of shape (k,)
        P(v) for each label: its frequency in the training sample.
    theta : ndarray of shape (k, d)
        P(xⱼ = 1 | v), Laplace-smoothed.
    smoothing : float
        The pseudo-count s added to each of the two outcomes of every feature.
    """

    classes: np.ndarray
    prior: np.ndarray
    theta: np.ndarray
    smoothing: float


def naive_bayes(X, y, *, smoothing: float = 1.0) -> NaiveBayes:
    """Fit Bernoulli naive Bayes by counting (CS446 "Naive Bayes (3)": estimate n|V| + |V|
    numbers, learning without search).

    P(v) = #(y = v)/N and, with Laplace smoothing s,

        P(xⱼ = 1 | v) = (#(xⱼ = 1, y = v) + s) / (#(y = v) + 2s).

    s = 1 is Laplace's rule (add one to both outcomes); it keeps every estimate away from 0 and
    1, so one unseen word cannot veto a class. The CS446 slides leave the estimator open ("How
    to estimate?"); this follows the usual add-s rule, as scikit-learn's BernoulliNB does.

    Parameters
    ----------
    X : array_like of shape (N, d)
        Binary features.
    y : array_like of shape (N,)
        Labels, any values that sort (e.g. 0/1 or -1/+1).
    smoothing : float, default 1.0
        s > 0.

    Returns
    -------
    NaiveBayes
    """
    X = binary_sample(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"X has {X.shape[0]} rows but y has shape {y.shape}; they must match.")
    s = positive(smoothing, "smoothing")
    classes, index, counts = np.unique(y, return_inverse=True, return_counts=True)
    ones = np.zeros((len(classes), X.shape[1]))
    np.add.at(ones, index, X)
    theta = (ones + s) / (counts[:, None] + 2 * s)
    return NaiveBayes(classes, counts / X.shape[0], theta, s)


def naive_bayes_log_posterior(model: NaiveBayes, X) -> np.ndarray:
    """log P(v | x) for each row of X, shape (N, d) -> (N, k), columns in ``model.classes``.

    log P(v | x) = log P(v) + Σⱼ [xⱼ log θ_vj + (1 - xⱼ) log(1 - θ_vj)] - log P(x).
    """
    X = binary_sample(X)
    if X.shape[1] != model.theta.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features; the model was fit on "
                         f"{model.theta.shape[1]}.")
    scores = np.log(model.prior) + X @ np.log(model.theta).T + (1 - X) @ np.log1p(-model.theta).T
    return scores - np.logaddexp.reduce(scores, axis=1, keepdims=True)


def naive_bayes_predict(model: NaiveBayes, X) -> np.ndarray:
    """v_MAP = argmax_v P(v)·Πⱼ P(xⱼ | v) for each row of X, shape (N, d) -> (N,)."""
    return model.classes[np.argmax(naive_bayes_log_posterior(model, X), axis=1)]


# --- Tree-dependent distributions -----------------------------------------------------------


@dataclass(frozen=True)
class TreeDistribution:
    """A tree-dependent distribution over n binary variables (CS446 Lecture 11).

    Attributes
    ----------
    parents : ndarray of int, shape (n,)
        ``parents[i]`` is the parent of variable i; -1 marks the root.
    cpt : ndarray of shape (n, 2)
        ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``; both entries of the root's row are
        P(x_root = 1).
    order : tuple of int
        The variables with every parent before its children (breadth-first from the root).
    """

    parents: np.ndarray
    cpt: np.ndarray
    order: tuple[int, ...]

    @property
    def root(self) -> int:
        return self.order[0]

    @property
    def edges(self) -> list[tuple[int, int]]:
        """The (parent, child) links in breadth-first order from the root."""
        return [(int(self.parents[i]), i) for i in self.order[1:]]


def _breadth_first(parents: np.ndarray) -> tuple[int, ...]:
    """The variables from the root down; ValueError unless ``parents`` describes one tree."""
    n = len(parents)
    roots = np.flatnonzero(parents == -1)
    if len(roots) != 1:
        raise ValueError(f"a tree has exactly one root (parent -1); got {len(roots)}.")
    if np.any((parents < -1) | (parents >= n)) or np.any(parents == np.arange(n)):
        raise ValueError(f"parents must be -1 or the index of another of the {n} variables.")
    children: list[list[int]] = [[] for _ in range(n)]
    for child, parent in enumerate(parents):
        if parent >= 0:
            children[parent].append(child)
    order = [int(roots[0])]
    for node in order:  # the list grows while it is read: a breadth-first walk
        order.extend(children[node])
    if len(order) != n:
        raise ValueError("parents contain a cycle: not every variable is reached from the root.")
    return tuple(order)


def tree_distribution(parents, cpt) -> TreeDistribution:
    """Build and check a tree-dependent distribution.

    Parameters
    ----------
    parents : array_like of int, shape (n,)
        The parent of each variable, -1 for the root; n >= 2.
    cpt : array_like of shape (n, 2)
        ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``, every entry in [0, 1]; the root's two
        entries must be equal (it has no parent).

    Returns
    -------
    TreeDistribution
    """
    parents = np.asarray(parents)
    if parents.ndim != 1 or parents.size < 2 or not np.issubdtype(parents.dtype, np.integer):
        raise ValueError("parents must be a 1-D array of integers with at least 2 variables.")
    order = _breadth_first(parents)
    cpt = as_probabilities(cpt, "cpt", (len(parents), 2))
    if cpt[order[0], 0] != cpt[order[0], 1]:
        raise ValueError(f"variable {order[0]} is the root: both cpt entries must be "
                         "P(root = 1).")
    return TreeDistribution(parents.astype(int), cpt, order)


def parents_from_edges(edges: Sequence[tuple[int, int]], n: int) -> np.ndarray:
    """The ``parents`` array, shape (n,), of a tree given as (parent, child) edges."""
    n = positive_int(n, "n")
    parents = np.full(n, -1)
    for parent, child in edges:
        if not (0 <= parent < n and 0 <= child < n):
            raise ValueError(f"edge ({parent}, {child}) names a variable outside 0..{n - 1}.")
        if parents[child] != -1:
            raise ValueError(f"variable {child} has two parents; a tree allows one.")
        parents[child] = parent
    _breadth_first(parents)
    return parents


def _check_variables(tree: TreeDistribution, X) -> np.ndarray:
    X = binary_sample(np.atleast_2d(X))
    if X.shape[1] != len(tree.parents):
        raise ValueError(f"X has {X.shape[1]} variables; the tree has {len(tree.parents)}.")
    return X


def log_joint(tree: TreeDistribution, X) -> np.ndarray:
    """log P(x) = Σᵢ log P(xᵢ | x_parent(i)) for each row of X, shape (k, n) -> (k,).

    CS446: P(x₁, ..., xₙ) = Πᵢ P(xᵢ | Parents(xᵢ)). A row the tree cannot produce gets -inf.
    """
    X = _check_variables(tree, X)
    parent_values = np.where(tree.parents >= 0, X[:, np.maximum(tree.parents, 0)], 0)
    p_one = tree.cpt[np.arange(X.shape[1]), parent_values.astype(int)]
    with np.errstate(divide="ignore"):
        return np.sum(np.log(np.where(X == 1, p_one, 1 - p_one)), axis=1)


def joint(tree: TreeDistribution, X) -> np.ndarray:
    """P(x) for each row of X, shape (k, n) -> (k,): the product of the CPT entries."""
    return np.exp(log_joint(tree, X))


def sample(tree: TreeDistribution, size: int, *, seed=0) -> np.ndarray:
    """Draw ``size`` samples, shape (size, n), of 0.0/1.0: each variable after its parent.

    ``seed`` is an int or a ``numpy.random.Generator``.
    """
    size = positive_int(size, "size")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    X = np.zeros((size, len(tree.parents)))
    uniforms = rng.random((size, len(tree.parents)))
    for i in tree.order:
        parent_values = X[:, tree.parents[i]].astype(int) if tree.parents[i] >= 0 else 0
        X[:, i] = uniforms[:, i] < tree.cpt[i, parent_values]
    return X


def _link(tree: TreeDistribution, i: int) -> np.ndarray:
    """The 2 x 2 matrix M[a, b] = P(xᵢ = b | x_parent(i) = a)."""
    p_one = tree.cpt[i]
    return np.column_stack([1 - p_one, p_one])


def _path_up(tree: TreeDistribution, i: int) -> list[int]:
    """i, its parent, its grandparent, ..., the root."""
    path = [i]
    while tree.parents[path[-1]] >= 0:
        path.append(int(tree.parents[path[-1]]))
    return path


def _variable(tree: TreeDistribution, i) -> int:
    n = len(tree.parents)
    if not (isinstance(i, int | np.integer) and 0 <= i < n):
        raise ValueError(f"variable index must be an integer in 0..{n - 1}; got {i!r}.")
    return int(i)


def marginal(tree: TreeDistribution, i: int) -> float:
    """P(xᵢ = 1), by recursing up the tree (CS446, "Tree Dependent Distributions"):

        P(x = 1) = P(x = 1 | z = 1) P(z = 1) + P(x = 1 | z = 0) P(z = 0),   z = parent(x),

    and likewise for P(z), up to the root. The recursion is unrolled: the path to the root is
    found first and the formula applied on the way back down. Linear in the depth of xᵢ.
    """
    path = _path_up(tree, _variable(tree, i))
    p = tree.cpt[path[-1], 0]  # the root
    for node in reversed(path[:-1]):
        p = tree.cpt[node, 1] * p + tree.cpt[node, 0] * (1 - p)
    return float(p)


def marginals(tree: TreeDistribution) -> np.ndarray:
    """P(xᵢ = 1) for every variable, shape (n,): :func:`marginal` for all, parents first."""
    p = np.empty(len(tree.parents))
    for i in tree.order:
        parent = tree.parents[i]
        p[i] = tree.cpt[i, 0] if parent < 0 else tree.cpt[i, 1] * p[parent] + tree.cpt[i, 0] * (
            1 - p[parent])
    return p


def pairwise(tree: TreeDistribution, i: int, j: int) -> np.ndarray:
    """The 2 x 2 table P(xᵢ = a, xⱼ = b), indexed [a, b], by recursing along the tree.

    CS446 works three cases. When y is an ancestor of x, go up the path from x to y:
    P(x | y) = Σ_z P(x | z) P(z | y) with z the parent of x, and P(x, y) = P(x | y) P(y).
    When neither is an ancestor of the other, take y, their lowest common ancestor: x and u are
    independent given y, so P(x, u) = Σ_y P(y) P(x | y) P(u | y), reducing to the first case.
    Each P(· | y) down a path is a product of the 2 x 2 link matrices P(child | parent).
    """
    i, j = _variable(tree, i), _variable(tree, j)
    up_i, up_j = _path_up(tree, i), _path_up(tree, j)
    above_j = set(up_j)
    ancestor = next(node for node in up_i if node in above_j)

    def down(path: list[int]) -> np.ndarray:
        """P(end of path | ancestor) as a matrix [ancestor value, end value]."""
        matrix = np.eye(2)
        for node in reversed(path[: path.index(ancestor)]):
            matrix = matrix @ _link(tree, node)
        return matrix

    p_ancestor = marginal(tree, ancestor)
    return down(up_i).T @ np.diag([1 - p_ancestor, p_ancestor]) @ down(up_j)


def random_tree(n: int, *, seed=0, strength: float = 0.35) -> TreeDistribution:
    """A random tree over n binary variables whose links are clearly dependent.

    Variable k (in a random order) gets a parent drawn uniformly among the earlier ones, so the
    shapes range from chains to stars. P(root = 1) is uniform in [0.2, 0.8]; for a child,
    P(x = 1 | parent = v) is 0.5 ± ``strength`` ± 0.1 in opposite directions for v = 0 and 1,
    with the sign drawn at random, so every link carries mutual information.
    """
    n = positive_int(n, "n")
    if n < 2:
        raise ValueError(f"a tree needs at least 2 variables; got n = {n}.")
    if not 0 < strength <= 0.4:
        raise ValueError(f"strength must be in (0, 0.4]; got {strength!r}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    names = rng.permutation(n)
    parents = np.full(n, -1)
    for k in range(1, n):
        parents[names[k]] = names[rng.integers(k)]
    shift = (strength + rng.uniform(-0.1, 0.1, n)) * rng.choice([-1.0, 1.0], n)
    cpt = np.clip(np.column_stack([0.5 - shift, 0.5 + shift]), 0.02, 0.98)
    cpt[names[0]] = rng.uniform(0.2, 0.8)
    return tree_distribution(parents, cpt)
