"""Weak and not-so-weak learners for the ensembles: decision stumps and a small CART.

Sources
-------
- CS446 slides (seed 001), boosting: a weak hypothesis hₜ with small error εₜ on the
  distribution Dₜ; the toy example's weak learners are axis-parallel stumps.
- CS446, bagging and random forests: bagged (unpruned) decision trees, and a random sample of
  the attributes at each split.
- Breiman et al., *Classification and Regression Trees* (1984), for the CART split search:
  thresholds midway between consecutive distinct values, Gini or entropy impurity.

Thresholds
----------
Between two consecutive distinct values a < b of a feature the threshold is their midpoint,
except when the midpoint rounds up to b (a and b adjacent doubles, such as 0.3 and 0.1 + 0.2):
then it is a, so that the rule x <= t always separates the two (:func:`threshold_between`).

Conventions
-----------
A stump predicts ``polarity`` where x[feature] > threshold and ``-polarity`` elsewhere, so its
labels are in {-1, +1}. A tree predicts any numeric class labels. Weights are non-negative and
need not sum to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mllib.validation import as_data, as_matrix, as_vector, positive_int

CRITERIA = ("gini", "entropy")


def _sample_weights(weights, m: int) -> np.ndarray:
    """Non-negative weights of shape (m,) that do not all vanish; uniform when None."""
    if weights is None:
        return np.full(m, 1.0 / m)
    weights = as_vector(weights, "weights")
    if len(weights) != m:
        raise ValueError(f"weights has length {len(weights)}, but there are {m} examples.")
    if np.any(weights < 0):
        raise ValueError("weights must be non-negative.")
    if not np.any(weights > 0):
        raise ValueError("weights are all zero; at least one example must count.")
    return weights


def threshold_between(low, high):
    """A threshold t with low <= t < high for values low < high, so that x <= t separates them.

    The midpoint, computed as low/2 + high/2 (which cannot overflow); when it rounds up to
    ``high`` (adjacent doubles) or below ``low`` (halves of subnormals), ``low`` instead.
    Works elementwise on arrays of the same shape.
    """
    middle = np.asarray(low) / 2 + np.asarray(high) / 2
    return np.where((low <= middle) & (middle < high), middle, low)


@dataclass(frozen=True)
class Stump:
    """A one-split classifier h(x) = polarity if x[feature] > threshold else -polarity.

    Attributes
    ----------
    feature : int
    threshold : float
        Between two consecutive distinct values of the feature (:func:`threshold_between`:
        their midpoint unless that rounds up to the larger), or -inf for the constant stump
        that predicts ``polarity`` everywhere.
    polarity : int
        +1 or -1.
    error : float
        Its weighted error Σᵢ wᵢ [h(xᵢ) ≠ yᵢ] / Σᵢ wᵢ on the sample it was fitted to.
    """

    feature: int
    threshold: float
    polarity: int
    error: float

    def predict(self, X) -> np.ndarray:
        """Labels in {-1, +1} for X of shape (n, d); returns shape (n,)."""
        X = as_matrix(X)
        return np.where(X[:, self.feature] > self.threshold, self.polarity, -self.polarity) * 1.0


def decision_stump(X, y, weights=None, *, order: np.ndarray | None = None) -> Stump:
    """The decision stump of minimum weighted error (the weak learner of CS446's boosting).

    Candidates, for every feature j: the constant stump (threshold -inf) and a threshold
    between every two consecutive distinct values of column j (:func:`threshold_between`);
    each with polarity +1 and -1.
    The error of a candidate is Σᵢ wᵢ [h(xᵢ) ≠ yᵢ] / Σᵢ wᵢ. Ties go to the lowest feature, then
    the lowest threshold, then polarity +1.

    One pass per feature over the examples sorted by that feature: with cumulative sums of the
    weights of the positives and negatives to the left of a threshold, polarity +1 errs on the
    positives to the left and the negatives to the right; polarity -1 on the complement.

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
        Labels in {-1, +1}.
    weights : array of shape (m,), non-negative; uniform if None
    order : int array of shape (m, d), optional
        ``np.argsort(X, axis=0, kind="stable")``. Boosting passes it so that every round reuses
        one sort.

    Returns
    -------
    Stump
    """
    X, y = as_data(X, y)
    m, d = X.shape
    w = _sample_weights(weights, m)
    w = w / w.sum()
    if order is None:
        order = np.argsort(X, axis=0, kind="stable")
    values = np.take_along_axis(X, order, axis=0)  # (m, d), each column sorted
    pos = np.where(y > 0, w, 0.0)[order]
    neg = np.where(y < 0, w, 0.0)[order]
    left_pos = np.vstack([np.zeros(d), np.cumsum(pos, axis=0)[:-1]])  # before position i
    left_neg = np.vstack([np.zeros(d), np.cumsum(neg, axis=0)[:-1]])
    error_plus = left_pos + (neg.sum(axis=0) - left_neg)  # (m, d): row 0 is the constant stump
    error_minus = left_neg + (pos.sum(axis=0) - left_pos)
    valid = np.vstack([np.ones((1, d), bool), values[1:] > values[:-1]])
    errors = np.stack([error_plus, error_minus], axis=2)  # (m, d, 2)
    errors[~valid] = np.inf
    # Order the candidates (feature, position, polarity) and take the first minimum. Errors
    # within 1e-12 of the minimum count as tied: cumulative sums differ in the last bits.
    errors = errors.transpose(1, 0, 2).reshape(-1)
    best = int(np.flatnonzero(errors <= errors.min() + 1e-12)[0])
    feature, position, side = np.unravel_index(best, (d, m, 2))
    threshold = (-np.inf if position == 0
                 else threshold_between(values[position - 1, feature], values[position, feature]))
    polarity = 1 if side == 0 else -1
    wrong = np.where(X[:, feature] > threshold, polarity, -polarity) != y
    return Stump(int(feature), float(threshold), polarity, float(w[wrong].sum()))


@dataclass(frozen=True)
class Tree:
    """A binary classification tree stored as arrays, one entry per node (node 0 the root).

    Attributes
    ----------
    feature : int ndarray of shape (nodes,)
        The split feature, or -1 at a leaf.
    threshold : ndarray of shape (nodes,)
        Go left when x[feature] <= threshold.
    left, right : int ndarray of shape (nodes,)
        Children, -1 at a leaf.
    label : ndarray of shape (nodes,)
        The majority label of the node's (weighted) examples, ties to the smallest label.
    depth : int
        The depth of the deepest leaf (a single leaf has depth 0).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    label: np.ndarray
    depth: int

    def predict(self, X) -> np.ndarray:
        """Labels for X of shape (n, d); returns shape (n,)."""
        X = as_matrix(X)
        node = np.zeros(len(X), dtype=np.intp)
        for _ in range(self.depth):
            f = self.feature[node]
            inner = f >= 0
            go_left = X[np.arange(len(X)), np.where(inner, f, 0)] <= self.threshold[node]
            node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
        return self.label[node]


def impurity(counts: np.ndarray, criterion: str = "gini") -> np.ndarray:
    """Impurity of class-weight vectors along the last axis (CART).

    gini: 1 − Σ_c p_c²; entropy: −Σ_c p_c log₂ p_c, with p_c the class proportions. An empty
    node has impurity 0.
    """
    total = counts.sum(axis=-1, keepdims=True)
    p = counts / np.where(total > 0, total, 1.0)
    if criterion == "gini":
        return 1.0 - (p * p).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=-1)


def _best_split(X, onehot, features, criterion):
    """(feature, threshold) of the split with the lowest weighted child impurity, or None.

    X: (m, d) the node's examples; onehot: (m, K) weight of each example in each class. All the
    candidate features are scanned at once: sort each column, accumulate the class weights to
    the left of every cut. Ties go to the earlier feature in ``features`` (ascending), then the
    lower threshold.
    """
    order = np.argsort(X[:, features], axis=0, kind="stable")  # (m, f)
    v = np.take_along_axis(X[:, features], order, axis=0)
    left = np.cumsum(onehot[order], axis=0)[:-1]  # (m - 1, f, K): first i + 1 examples
    right = left[-1] + onehot[order[-1]] - left
    score = (left.sum(axis=2) * impurity(left, criterion)
             + right.sum(axis=2) * impurity(right, criterion))
    score[v[1:] <= v[:-1]] = np.inf  # no threshold between equal values
    if not np.isfinite(score).any():
        return None
    by_feature = score.T.reshape(-1)  # feature-major, then position (threshold) ascending
    best = int(np.flatnonzero(by_feature <= by_feature.min() + 1e-12)[0])
    column, position = divmod(best, len(v) - 1)
    threshold = threshold_between(v[position, column], v[position + 1, column])
    return int(features[column]), float(threshold)


def _draw_features(X_node: np.ndarray, n_features: int, rng: np.random.Generator) -> np.ndarray:
    """The features a node's split may use, ascending (the tie order): all d of them, or
    ``n_features`` drawn without replacement. If every drawn feature is constant on the node's
    rows X_node (shape (rows, d)), one more is drawn uniformly from those that are not, which
    is what scikit-learn's splitter ends with when it keeps drawing until a feature varies."""
    d = X_node.shape[1]
    if n_features == d:
        return np.arange(d)
    drawn = rng.choice(d, n_features, replace=False)
    varies = X_node.max(axis=0) > X_node.min(axis=0)
    if not varies[drawn].any() and varies.any():  # the varying features are all undrawn
        drawn = np.append(drawn, rng.choice(np.flatnonzero(varies)))
    return np.sort(drawn)


def decision_tree(X, y, weights=None, *, max_depth: int | None = None,
                  criterion: str = "gini", max_features: int | str | None = None,
                  seed=None) -> Tree:
    """A small CART classification tree, grown greedily (Breiman et al. 1984; CS446 bagging).

    At each node, among the features considered (all of them, or ``max_features`` drawn at
    random without replacement at every split, as in a random forest), choose the threshold
    between consecutive distinct values (:func:`threshold_between`) that minimises the weighted
    impurity of the two children, w_L·I(L) + w_R·I(R) (:func:`impurity`). Ties go to the
    lowest feature, then the lowest threshold. When every drawn feature is constant in the
    node, one more is drawn from the features that are not (:func:`_draw_features`), so a
    node becomes a leaf only when it is pure, when it is at ``max_depth``, or when no feature
    has two distinct values in it: without a depth limit the trees are fully grown. Leaves
    predict the majority label (by weight), ties to the smallest label.

    With every feature considered and no ties, the tree is the one scikit-learn's
    ``DecisionTreeClassifier`` grows with the same criterion and depth.

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
        Numeric class labels.
    weights : array of shape (m,), optional
        Non-negative example weights (uniform if None).
    max_depth : int >= 1, or None for no limit
    criterion : {"gini", "entropy"}
    max_features : int, "sqrt" or None
        Features drawn at each split; None for all, "sqrt" for ⌊√d⌋ (at least 1); one more
        when every drawn feature is constant in the node.
    seed : int, numpy.random.Generator or None
        For the feature draws.

    Returns
    -------
    Tree
    """
    X = as_matrix(X)
    y = as_vector(y, "y")
    m, d = X.shape
    if len(y) != m:
        raise ValueError(f"X has {m} rows but y has {len(y)} labels; they must match.")
    w = _sample_weights(weights, m)
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; choose gini or entropy.")
    depth_limit = np.inf if max_depth is None else positive_int(max_depth, "max_depth")
    if max_features is None:
        n_features = d
    elif max_features == "sqrt":
        n_features = max(1, int(np.sqrt(d)))
    else:
        n_features = positive_int(max_features, "max_features")
        if n_features > d:
            raise ValueError(f"max_features = {n_features} exceeds the {d} features.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    classes, codes = np.unique(y, return_inverse=True)
    onehot = np.zeros((m, len(classes)))
    onehot[np.arange(m), codes] = w

    nodes: list[list] = []  # [feature, threshold, left, right, label]

    def grow(rows: np.ndarray, depth: int) -> tuple[int, int]:
        """Add the subtree for ``rows``; return its node id and the depth of its deepest leaf."""
        counts = onehot[rows].sum(axis=0)
        node = len(nodes)
        nodes.append([-1, 0.0, -1, -1, classes[int(np.argmax(counts))]])
        if depth >= depth_limit or np.count_nonzero(counts) <= 1:
            return node, depth
        features = _draw_features(X[rows], n_features, rng)
        split = _best_split(X[rows], onehot[rows], features, criterion)
        if split is None:
            return node, depth
        j, t = split
        goes_left = X[rows, j] <= t
        left, deep_left = grow(rows[goes_left], depth + 1)
        right, deep_right = grow(rows[~goes_left], depth + 1)
        nodes[node][:4] = [j, t, left, right]
        return node, max(deep_left, deep_right)

    _, deepest = grow(np.arange(m), 0)
    feature, threshold, left, right, label = zip(*nodes, strict=True)
    return Tree(np.array(feature), np.array(threshold), np.array(left), np.array(right),
                np.array(label), deepest)
