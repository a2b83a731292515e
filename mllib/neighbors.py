"""Learning from nearest neighbours: k-NN classification and regression, kernel regression.

Sources
-------
- MMDS ch. 12, §12.4: the nearest-neighbour framework (§12.4.1: distance, number of neighbours,
  weighting, labelling function), one nearest neighbour and the Voronoi diagram (§12.4.2,
  Example 12.11), one-dimensional interpolation with four rules (§12.4.3, Example 12.12),
  kernel regression (§12.4.4, Example 12.13, Fig. 12.24), high dimensions (§12.4.5) and
  non-Euclidean distances and locality-sensitive hashing (§12.4.6, with MMDS §3.4 for
  minhashing and banding); §12.5 on the curse of dimensionality and categorical features.

Conventions
-----------
- The estimate of a query's label is the weighted average Σ wᵢ yᵢ / Σ wᵢ over its k nearest
  neighbours (MMDS §12.4.3); for classification it is the label with the largest total weight.
- Ties in distance are broken by training order (the earlier row is nearer); ties in the vote
  go to the smallest label.
- Inverse-distance weights wᵢ = 1/d(xᵢ, q): a neighbour at distance 0 has infinite weight, so
  when some neighbours coincide with the query only they count, equally (MMDS's limit argument
  in "Problems in the Limit for Example 12.13"; scikit-learn does the same).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mllib.validation import as_binary, as_matrix, as_vector, positive, positive_int

METRICS = ("euclidean", "manhattan", "cosine", "jaccard")
WEIGHTS = ("uniform", "distance")
TASKS = ("classify", "regress")
KERNELS = ("inverse_square", "gaussian")
# MMDS Example 12.12's four rules: (number of neighbours, weighting).
EX_12_12_RULES = {
    "nearest neighbour": (1, "uniform"),
    "average of 2 nearest": (2, "uniform"),
    "weighted average of 2 nearest": (2, "distance"),
    "average of 3 nearest": (3, "uniform"),
}
# The distance matrix is computed a tile at a time: a block of queries against TILE_COLUMNS
# training points, BLOCK_ENTRIES entries (4 MB of float64) at most, so that a tile is still in
# the cache when it is searched. Measured on 50k × 20 training points and 5,000 queries: the
# products of 256 × 2048 tiles took half the time of blocks of 20 queries of the whole width.
BLOCK_ENTRIES = 2**19
TILE_COLUMNS = 2048
# The minimum of each of the first tile's groups of GROUP columns is a distinct entry, so the
# k-th smallest of these minima bounds the k-th smallest entry of the row; the first tile is
# searched only at or below it (later tiles below the k-th entry kept).
GROUP = 16


def _choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}.")
    return value


def _augment(X: np.ndarray) -> np.ndarray:
    """[−2X, ‖x‖²]ᵀ, shape (d + 1, n), C-ordered: with a query written [q, 1] (:func:`_lift`),
    one dot product with a column gives ‖x‖² − 2 q·x (see :func:`_shifted_squares`). Stored
    transposed because BLAS multiplies [Q, 1] by it without a transposition, faster here."""
    X_aug = np.empty((X.shape[1] + 1, len(X)))
    np.multiply(X.T, -2.0, out=X_aug[:-1])
    X_aug[-1] = (X * X).sum(axis=1)
    return X_aug


def _lift(Q: np.ndarray) -> np.ndarray:
    """[Q, 1], shape (q, d + 1): the queries as :func:`_shifted_squares` takes them."""
    return np.hstack([Q, np.ones((len(Q), 1))])


def _shifted_squares(Q_lift: np.ndarray, X_aug: np.ndarray, out=None) -> np.ndarray:
    """‖q − x‖² − ‖q‖² = ‖x‖² − 2 q·x for every query q and training point x, shape (q, n).

    A single matrix product of ``Q_lift`` = :func:`_lift` (Q) with the augmented training
    matrix ``X_aug`` = :func:`_augment` (X), as in scikit-learn's brute force, into ``out`` if
    given. Per query it differs from the squared distance by the constant ‖q‖², so it ranks the
    training points the same way; callers add ‖q‖² back to the few entries they keep.
    """
    return np.matmul(Q_lift, X_aug, out=out)


# ‖q‖² + ‖x‖² − 2q·x loses about log10((‖q‖² + ‖x‖²)/‖q − x‖²) digits to cancellation; below
# this ratio the squared distance is recomputed from the differences, so every Euclidean
# distance keeps a relative error of about d·1e-12 or better.
CANCELLATION = 1e-4


def _euclidean(squares: np.ndarray, Q: np.ndarray, X: np.ndarray, rows: np.ndarray,
               cols: np.ndarray) -> np.ndarray:
    """Euclidean distances ‖Q[rows] − X[cols]‖ from squared distances ``squares`` computed by
    the expansion ‖q‖² + ‖x‖² − 2q·x (all arrays of one shape): entries that lost their digits
    to cancellation (below ``CANCELLATION`` times ‖q‖² + ‖x‖²) are recomputed directly as
    Σⱼ (qⱼ − xⱼ)², and rounding below 0 is clamped."""
    scale = (Q * Q).sum(axis=1)[rows] + (X * X).sum(axis=1)[cols]
    redo = np.nonzero(squares <= CANCELLATION * scale)
    squares = squares.copy()
    squares[redo] = ((Q[rows[redo]] - X[cols[redo]]) ** 2).sum(axis=-1)
    return np.sqrt(np.maximum(squares, 0.0))


def pairwise_distances(Q, X, metric: str = "euclidean") -> np.ndarray:
    """Distances between every query and every training point (MMDS §12.4.6).

    Parameters
    ----------
    Q : array of shape (q, d)
        Query points.
    X : array of shape (n, d)
        Training points.
    metric : {"euclidean", "manhattan", "cosine", "jaccard"}
        - euclidean: ‖q − x‖₂, by one matrix product (‖q‖² + ‖x‖² − 2q·x), with the entries
          that this loses to cancellation (nearby points) recomputed from the differences;
        - manhattan: Σⱼ |qⱼ − xⱼ|;
        - cosine: 1 − q·x / (‖q‖ ‖x‖), undefined for a zero vector;
        - jaccard: rows are sets given as 0/1 indicator vectors, distance 1 − |q ∩ x| / |q ∪ x|,
          and two empty sets are at distance 0.

    Returns
    -------
    ndarray of shape (q, n)
    """
    Q, X = as_matrix(Q, "the queries"), as_matrix(X, "X")
    _choice(metric, METRICS, "metric")
    if Q.shape[1] != X.shape[1]:
        raise ValueError(
            f"the queries have {Q.shape[1]} features but X has {X.shape[1]}; they must match."
        )
    if metric == "euclidean":
        squares = _shifted_squares(_lift(Q), _augment(X)) + (Q * Q).sum(axis=1)[:, None]
        rows, cols = np.indices(squares.shape)
        return _euclidean(squares, Q, X, rows, cols)
    if metric == "manhattan":
        return np.abs(Q[:, None, :] - X[None, :, :]).sum(axis=2)
    if metric == "cosine":
        q_norm, x_norm = np.linalg.norm(Q, axis=1), np.linalg.norm(X, axis=1)
        if np.any(q_norm == 0) or np.any(x_norm == 0):
            raise ValueError("the cosine distance is undefined for a zero vector.")
        return 1.0 - (Q @ X.T) / np.outer(q_norm, x_norm)
    for A, name in ((Q, "the queries"), (X, "X")):
        if not np.all((A == 0) | (A == 1)):
            raise ValueError(f"{name} must be 0/1 set indicators for the Jaccard distance.")
    common = Q @ X.T
    union = Q.sum(axis=1)[:, None] + X.sum(axis=1)[None, :] - common
    return np.where(union > 0, 1.0 - common / np.where(union > 0, union, 1.0), 0.0)


def _k_smallest(tiles, rows: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest entries of each row of a (rows, n) matrix given as its column tiles, ties
    broken by column: values and columns, shape (rows, k), in that order.

    ``tiles`` yields (first column, tile of shape (rows, width)) from left to right. The k best
    so far are kept per row, and a tile is searched only at or below a bound that is at least
    the row's k-th smallest entry so far, and so at least its final one: every entry the answer
    needs (ties included) is looked at. The bound is the k-th value kept, or for the first tile
    :func:`_first_bound`. A later column never wins a tie against an earlier one, so keeping
    only the k best of the entries seen loses nothing.
    """
    values = np.full((rows, k), np.inf)
    columns = np.full((rows, k), n)  # placeholders: any entry (finite) beats them
    for start, tile in tiles:
        bound = values[:, k - 1] if start else _first_bound(tile, k)
        hits = np.flatnonzero(tile <= bound[:, None])
        if len(hits):
            row, column = np.divmod(hits, tile.shape[1])
            values, columns = _merge(values, columns, row, tile.ravel()[hits], column + start)
    return values, columns


def _first_bound(tile: np.ndarray, k: int) -> np.ndarray:
    """The k-th smallest of the minima of ``width // GROUP`` disjoint groups of ``GROUP``
    columns of the tile, per row, shape (rows,): these are distinct entries, so at least k
    entries are at or below it (inf when there are fewer than k groups). Group j is the columns
    j, j + groups, j + 2·groups, ...: the minimum then runs over contiguous rows of the tile,
    several times faster than over short runs of adjacent columns."""
    rows, width = tile.shape
    groups = width // GROUP
    if groups < k:
        return np.full(rows, np.inf)
    minima = tile[:, : groups * GROUP].reshape(rows, GROUP, groups).min(axis=1)
    return np.partition(minima, k - 1, axis=1)[:, k - 1]


def _merge(values: np.ndarray, columns: np.ndarray, row: np.ndarray, new_values: np.ndarray,
           new_columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The k best of each row's kept entries (``values``, ``columns``, shape (rows, k), sorted
    by value then column) and its new ones (flat, by row then column, their rows in ``row``),
    by value and then column.

    The new columns all come after the kept ones, so a stable sort by (row, value) of the kept
    entries followed by the new ones is already in column order among equal values.
    """
    rows, k = values.shape
    all_rows = np.concatenate([np.repeat(np.arange(rows), k), row])
    all_values = np.concatenate([values.ravel(), new_values])
    all_columns = np.concatenate([columns.ravel(), new_columns])
    order = np.lexsort((all_values, all_rows))  # stable
    counts = k + np.bincount(row, minlength=rows)
    best = order[(np.cumsum(counts) - counts)[:, None] + np.arange(k)]
    return all_values[best], all_columns[best]


def _euclidean_tiles(Q_lift: np.ndarray, X_aug: np.ndarray, width: int):
    """The tiles of :func:`_shifted_squares` (Q_lift, X_aug), ``width`` columns each (the last
    may be narrower), as :func:`_k_smallest` takes them. Each tile reuses one buffer."""
    rows, n = len(Q_lift), X_aug.shape[1]
    buffer = np.empty(rows * min(width, n))
    for start in range(0, n, width):
        columns = X_aug[:, start : start + width]
        out = buffer[: rows * columns.shape[1]].reshape(rows, columns.shape[1])
        yield start, _shifted_squares(Q_lift, columns, out=out)


def kneighbors(X_train, X_query, *, k: int, metric: str = "euclidean"
               ) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest training points of every query, by brute force in blocks.

    The distance matrix is computed a tile at a time (a block of queries against at most
    ``TILE_COLUMNS`` training points, at most ``BLOCK_ENTRIES`` entries), so memory stays
    bounded for any number of queries and training points. Ties in distance are broken by
    training order. Euclidean neighbours are selected by ‖x‖² − 2 q·x (one matrix product per
    tile) with the points centred on the training mean, which changes no distance but keeps an
    offset (coordinates such as 1e6 + N(0, 1)) from cancelling the digits away. The k + 1 best
    are kept; a query whose k-th and (k + 1)-th values are closer than the rounding bound of
    the product (:func:`_rounding_bound`) is searched again by squared differences Σⱼ (qⱼ − xⱼ)²,
    so the k neighbours are the true ones unless distances differ in their last bits only
    (ties included: exact ties go to training order). The k distances returned are
    computed from the differences and sorted again, so two distances equal in exact arithmetic
    can differ in the last bits (not on a grid of binary fractions such as the book's examples,
    where they are exact).

    Parameters
    ----------
    X_train : array of shape (n, d)
    X_query : array of shape (q, d)
    k : int
        1 <= k <= n.
    metric : str
        See :func:`pairwise_distances`.

    Returns
    -------
    distances : ndarray of shape (q, k)
        Nearest first.
    indices : ndarray of shape (q, k)
        Rows of ``X_train``.
    """
    X_train, X_query = as_matrix(X_train, "X_train"), as_matrix(X_query, "X_query")
    n = X_train.shape[0]
    k = positive_int(k, "k")
    if k > n:
        raise ValueError(f"k = {k} is larger than the number of training points ({n}).")
    if X_query.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_query has {X_query.shape[1]} features but X_train has "
                         f"{X_train.shape[1]}; they must match.")
    _choice(metric, METRICS, "metric")
    if metric != "euclidean":
        return _search(X_train, X_query, k, lambda Q, X: pairwise_distances(Q, X, metric),
                       X_train.shape[1] if metric == "manhattan" else 1)
    centre = X_train.mean(axis=0)  # distances unchanged; the product keeps its digits
    X_c, Q_c = X_train - centre, X_query - centre
    kept = min(k + 1, n)  # one more than asked: its gap to the k-th says if the set is sure
    values, indices = _search(X_c, Q_c, kept, None, 1)
    if kept > k:
        unsure = np.flatnonzero(values[:, k] - values[:, k - 1]
                                <= 2 * _rounding_bound(X_c, Q_c))
        if len(unsure):
            indices[unsure] = _search(X_train, X_query[unsure], kept, _squared_differences,
                                      X_train.shape[1])[1]
        indices = indices[:, :k]
    distances = np.sqrt(_squared_differences_of_pairs(X_query, X_train, indices))
    order = np.lexsort((indices, distances), axis=-1)  # recomputed: sort again, ties by index
    return np.take_along_axis(distances, order, axis=1), np.take_along_axis(indices, order, axis=1)


def _search(X_train: np.ndarray, X_query: np.ndarray, k: int, distance, per_entry: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest values of ``distance`` (Q, X) per query, and their training rows, shape
    (q, k) each, computed a tile at a time (see :func:`kneighbors`); ``distance`` None means
    the ranking values ‖x‖² − 2q·x of :func:`_shifted_squares`. ``per_entry`` is the memory a
    distance takes while computed, in floats (d for differences of d features)."""
    n = len(X_train)
    width = min(n, TILE_COLUMNS)
    block = max(1, BLOCK_ENTRIES // (width * per_entry))
    if distance is None:
        X_aug, Q_lift = _augment(X_train), _lift(X_query)
    values = np.empty((len(X_query), k))
    indices = np.empty((len(X_query), k), dtype=np.intp)
    for start in range(0, len(X_query), block):
        Q = X_query[start : start + block]
        if distance is None:
            tiles = _euclidean_tiles(Q_lift[start : start + block], X_aug, width)
        else:
            tiles = ((column, distance(Q, X_train[column : column + width]))
                     for column in range(0, n, width))
        values[start : start + block], indices[start : start + block] = _k_smallest(
            tiles, len(Q), n, k)
    return values, indices


def _rounding_bound(X: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """A bound on the rounding error of ‖x‖² − 2q·x as :func:`_shifted_squares` computes it,
    for every query and any training point, shape (q,): a sum of 2d + 1 products of sizes
    ‖x‖² and 2|qⱼxⱼ| is within about (2d + 1)·u·(‖x‖² + 2‖q‖‖x‖) of the exact one in any order
    of summation (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), u = eps/2;
    taken as (2d + 4)·eps·(...), with room for the rounding of the centred coordinates, of the
    norms and of the comparison itself."""
    d = X.shape[1]
    largest = np.sqrt((X * X).sum(axis=1).max())
    q_norm = np.sqrt((Q * Q).sum(axis=1))
    return (2 * d + 4) * np.finfo(float).eps * (largest**2 + 2 * q_norm * largest)


def _squared_differences(Q: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Σⱼ (qⱼ − xⱼ)² for every query and training point, shape (q, n): no cancellation."""
    return ((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)


def _squared_differences_of_pairs(Q: np.ndarray, X: np.ndarray, indices: np.ndarray
                                  ) -> np.ndarray:
    """Σⱼ (qⱼ − xⱼ)² of each query and the training rows ``indices`` (q, k) it kept, shape
    (q, k), a block of queries at a time so that the (block, k, d) differences stay small."""
    out = np.empty(indices.shape)
    block = max(1, BLOCK_ENTRIES // (indices.shape[1] * X.shape[1]))
    for start in range(0, len(Q), block):
        rows = slice(start, start + block)
        out[rows] = ((Q[rows, None, :] - X[indices[rows]]) ** 2).sum(axis=2)
    return out


def neighbour_weights(distances: np.ndarray, weights: str = "uniform") -> np.ndarray:
    """The weight of each of a query's neighbours (MMDS §12.4.1, item 3).

    Parameters
    ----------
    distances : array of shape (q, k)
    weights : {"uniform", "distance"}
        uniform: every neighbour weighs 1. distance: wᵢ = 1/dᵢ, except that when a query has
        neighbours at distance 0, those weigh 1 and the others 0 (the limit of 1/dᵢ).

    Returns
    -------
    ndarray of shape (q, k)
    """
    _choice(weights, WEIGHTS, "weights")
    distances = np.asarray(distances, dtype=float)
    if weights == "uniform":
        return np.ones_like(distances)
    zero = distances == 0
    with np.errstate(divide="ignore"):
        inverse = 1.0 / distances
    return np.where(zero.any(axis=1, keepdims=True), zero.astype(float), inverse)


def _training_set(X_train, y_train) -> tuple[np.ndarray, np.ndarray]:
    """X_train (n, d) and y_train (n,) as arrays, checked to have one label per row."""
    X_train = as_matrix(X_train, "X_train")
    y_train = as_vector(y_train, "y_train")
    if len(y_train) != len(X_train):
        raise ValueError(f"X_train has {len(X_train)} rows but y_train has {len(y_train)} "
                         "labels; they must match.")
    return X_train, y_train


def knn_predict(X_train, y_train, X_query, *, k: int, weights: str = "uniform",
                task: str = "classify", metric: str = "euclidean") -> np.ndarray:
    """k-nearest-neighbour prediction (MMDS §12.4.1-12.4.3).

    For each query q with neighbours x₁, ..., x_k (nearest first) and weights wᵢ
    (:func:`neighbour_weights`):

    - ``task="regress"``: ŷ(q) = Σᵢ wᵢ yᵢ / Σᵢ wᵢ (MMDS §12.4.3);
    - ``task="classify"``: ŷ(q) = argmax_c Σᵢ wᵢ [yᵢ = c], ties going to the smallest label.

    Ties in distance are broken by training order (see :func:`kneighbors`).

    Parameters
    ----------
    X_train : array of shape (n, d)
    y_train : array of shape (n,)
        Any numeric labels for classification; real values for regression.
    X_query : array of shape (q, d)
    k : int
        1 <= k <= n.
    weights : {"uniform", "distance"}
    task : {"classify", "regress"}
    metric : {"euclidean", "manhattan", "cosine", "jaccard"}

    Returns
    -------
    ndarray of shape (q,)
    """
    X_train, y_train = _training_set(X_train, y_train)
    _choice(task, TASKS, "task")
    _choice(weights, WEIGHTS, "weights")
    distances, indices = kneighbors(X_train, X_query, k=k, metric=metric)
    w = neighbour_weights(distances, weights)
    labels = y_train[indices]
    if task == "regress":
        return (w * labels).sum(axis=1) / w.sum(axis=1)
    return vote(labels, w, np.unique(y_train))


def vote(labels: np.ndarray, w: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The weighted vote argmax_c Σᵢ wᵢ [labelsᵢ = c] of each row, ties going to the smallest
    label.

    Parameters
    ----------
    labels, w : arrays of shape (q, k)
        The neighbours' labels and weights, one row per query.
    classes : array of shape (c,)
        The possible labels, sorted (``np.unique``), so argmax's first maximum is the smallest.

    Returns
    -------
    ndarray of shape (q,)
    """
    votes = np.stack([(w * (labels == c)).sum(axis=1) for c in classes], axis=1)
    return classes[np.argmax(votes, axis=1)]


def two_nn_unanimous(X_train, y_train, X_query, *, unclassified: int = -1) -> np.ndarray:
    """Label a query only when its two nearest neighbours agree (MMDS Exercise 12.4.1).

    The common label of the two nearest training points (Euclidean distance, ties in distance
    broken by training order as in :func:`kneighbors`), or ``unclassified`` when their labels
    differ.

    Parameters
    ----------
    X_train : array of shape (n, d), n >= 2
    y_train : array of shape (n,)
        Integer labels.
    X_query : array of shape (q, d)
    unclassified : int
        The answer for a query whose two neighbours disagree; not one of the labels.

    Returns
    -------
    ndarray of shape (q,)

    Raises
    ------
    ValueError
        If ``unclassified`` is one of the labels (with ±1 labels, pass say 0).
    """
    X_train, y_train = _training_set(X_train, y_train)
    if np.any(y_train == unclassified):
        raise ValueError(f"unclassified = {unclassified} is also a label; pick a value that "
                         "is not one, so that the two answers can be told apart.")
    _, indices = kneighbors(X_train, X_query, k=2)
    first, second = y_train[indices[:, 0]], y_train[indices[:, 1]]
    return np.where(first == second, first, unclassified).astype(int)


def one_d_rule(x, y, queries, rule: str) -> np.ndarray:
    """One of MMDS Example 12.12's four interpolation rules on 1-D data (§12.4.3).

    Parameters
    ----------
    x, y : arrays of shape (n,)
        Training points and labels.
    queries : array of shape (q,)
    rule : a key of ``EX_12_12_RULES``
        "nearest neighbour", "average of 2 nearest", "weighted average of 2 nearest" (weights
        1/distance) or "average of 3 nearest".

    Returns
    -------
    ndarray of shape (q,)

    Notes
    -----
    For a query between its two nearest neighbours the inverse-distance rule is the linear
    interpolation y₁(x₂ − q)/(x₂ − x₁) + y₂(q − x₁)/(x₂ − x₁), as the book derives. When both
    neighbours lie on one side it is still a weighted *average*, so it stays between y₁ and y₂;
    it is not the straight-line extrapolation the book describes for 0 < q < 1 (at q = 0 the
    rule gives 4/3, the line through (1, 1) and (2, 2) gives 0). The book's line is what the
    interpolation formula gives with the *signed* weight 1/(q − x₁), negative when q < x₁
    (:func:`signed_two_point_rule`).
    """
    if rule not in EX_12_12_RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {', '.join(EX_12_12_RULES)}.")
    k, weights = EX_12_12_RULES[rule]
    x = as_vector(x, "x")
    queries = as_vector(queries, "queries")
    return knn_predict(x[:, None], y, queries[:, None], k=k, weights=weights, task="regress")


def kernel_weights(x, q: float, *, kernel: str = "inverse_square", sigma: float | None = None
                   ) -> np.ndarray:
    """The weight of every training point for the query q (MMDS §12.4.4).

    - ``"inverse_square"``: w(x, q) = 1/(x − q)² (Example 12.13); infinite at x = q.
    - ``"gaussian"``: w(x, q) = exp(−(x − q)²/σ²). This σ is not a standard deviation (MMDS
      calls it one, but a normal density has 2σ² in the exponent): it is √2 standard deviations.

    Parameters
    ----------
    x : array of shape (n,)
    q : float
    kernel : {"inverse_square", "gaussian"}
    sigma : float > 0, required for the Gaussian kernel

    Returns
    -------
    ndarray of shape (n,)
    """
    x = as_vector(x, "x")
    _choice(kernel, KERNELS, "kernel")
    if kernel == "gaussian":
        sigma = positive(sigma, "sigma")
        return np.exp(-(((x - q) / sigma) ** 2))  # σ² itself could under- or overflow
    with np.errstate(divide="ignore"):
        return 1.0 / (x - q) ** 2


def kernel_regression(x, y, queries, *, kernel: str = "inverse_square",
                      sigma: float | None = None) -> np.ndarray:
    """Kernel regression: ŷ(q) = Σᵢ w(xᵢ, q) yᵢ / Σᵢ w(xᵢ, q) over all training points
    (MMDS §12.4.4, Example 12.13, Fig. 12.24).

    A query that coincides with training points: with ``"inverse_square"`` their weight is
    infinite, and the estimate is their label (the mean of their labels if several points sit
    there), which is the limit as q approaches them (MMDS, "Problems in the Limit").

    Every weight is divided by the largest one before the ratio is taken (the ratio is
    unchanged), and computed from distances dᵢ = |xᵢ − q| rather than their squares, so that
    nothing overflows, underflows to 0/0 or loses its digits to a subnormal square:
    1/dᵢ² becomes (d_min/dᵢ)², and the Gaussian weight exp(−(dᵢ² − d_min²)/σ²), with the
    exponent taken as ((dᵢ − d_min)/σ)·((dᵢ + d_min)/σ) (σ² itself may under- or overflow).
    The nearest weight is then 1: far from the data (from about 26.6σ the plain Gaussian
    weights are subnormal and lose digits, from 27.3σ they underflow to 0) the estimate tends
    to the nearest point's label, and within 1e-154 of a
    point (where 1/(x − q)² overflows) to that point's label, as the formula's limits do.

    Within the range Exercise 1 promises (x, y, q in [−1000, 1000], σ in [0.001, 1000], a
    point equal to q or at least 1e-6 from it, q at most 32σ from the nearest point for the
    Gaussian) the result agrees with the formula's exact value to about 1e-12 relative to the
    labels' size (tests/test_neighbors.py checks it against 50-digit decimal arithmetic).

    Parameters
    ----------
    x, y : arrays of shape (n,), n >= 1
    queries : array of shape (q,)
    kernel : {"inverse_square", "gaussian"}
    sigma : float > 0, for the Gaussian kernel (see :func:`kernel_weights`)

    Returns
    -------
    ndarray of shape (q,)
    """
    x, queries = as_vector(x, "x"), as_vector(queries, "queries")
    y = as_vector(y, "y")
    if len(y) != len(x):
        raise ValueError(f"x has {len(x)} points but y has {len(y)} labels; they must match.")
    if len(x) == 0:
        raise ValueError("x is empty: kernel regression needs at least one training point.")
    _choice(kernel, KERNELS, "kernel")
    if kernel == "gaussian":
        sigma = positive(sigma, "sigma")
    d = np.abs(x[None, :] - queries[:, None])  # (q, n)
    nearest = d.min(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        if kernel == "gaussian":
            exponent = ((d - nearest) / sigma) * ((d + nearest) / sigma)
            w = np.exp(-np.where(d == nearest, 0.0, exponent))  # 0 · ∞ would be nan
        else:
            w = np.where(nearest == 0, (d == 0).astype(float), (nearest / d) ** 2)
    return (w @ y) / w.sum(axis=1)


@dataclass(frozen=True)
class Concentration:
    """Distances from random queries to random points, summarised per dimension (§12.4.5).

    Attributes
    ----------
    dims : ndarray of shape (m,)
    nearest, farthest : ndarray of shape (m,)
        The mean over queries of the nearest and farthest distance.
    contrast : ndarray of shape (m,)
        The median over queries of each query's own (farthest − nearest)/nearest: how much
        farther its farthest point is. A median, not a mean: in one dimension the nearest
        distance has a positive density at 0, so the ratio's expectation is infinite, and in
        two its variance is; a sample mean and its standard error would measure nothing.
    contrast_quartiles : ndarray of shape (m, 2)
        The lower and upper quartile of the same per-query ratios, the spread of the median's
        row (each row is one Monte Carlo draw).
    nearest_se, farthest_se : ndarray of shape (m,)
        The standard errors s/√queries of ``nearest`` and ``farthest`` (s with ddof = 1): both
        distances are bounded by √d, so their means have finite variance in every dimension.
    """

    dims: np.ndarray
    nearest: np.ndarray
    farthest: np.ndarray
    contrast: np.ndarray
    contrast_quartiles: np.ndarray
    nearest_se: np.ndarray
    farthest_se: np.ndarray


def distance_concentration(dims, *, n: int = 500, queries: int = 20, seed=0) -> Concentration:
    """The curse of dimensionality measured: n points and some queries uniform in [0, 1]^d.

    As d grows, the nearest and the farthest training point end up at nearly the same distance
    from a query, so "nearest" carries less and less information (MMDS §12.4.5, §12.5).

    Parameters
    ----------
    dims : sequence of int
    n : int
    queries : int
        At least 2 (a quartile or a standard error of one query is no spread).
    seed : int or numpy.random.Generator
    """
    if queries < 2:
        raise ValueError(f"queries must be at least 2 for quartiles, got {queries}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    dims = np.array([positive_int(d, "a dimension") for d in dims])
    rows = []
    for d in dims:
        D = pairwise_distances(rng.random((queries, d)), rng.random((n, d)))
        near, far = D.min(axis=1), D.max(axis=1)
        ratios = (far - near) / near
        rows.append((near.mean(), far.mean(), np.median(ratios),
                     np.percentile(ratios, [25, 75]),
                     near.std(ddof=1) / np.sqrt(queries), far.std(ddof=1) / np.sqrt(queries)))
    return Concentration(dims, *map(np.array, zip(*rows, strict=True)))


def signed_two_point_rule(x1: float, y1: float, x2: float, y2: float, queries) -> np.ndarray:
    """MMDS Example 12.12's rule-3 formula with signed weights 1/(q − x₁) and 1/(x₂ − q).

    (y₁/(q − x₁) + y₂/(x₂ − q)) / (1/(q − x₁) + 1/(x₂ − q)) simplifies to the straight line
    through (x₁, y₁) and (x₂, y₂) for every q ≠ x₁, x₂ (at x₁ and x₂ the limits y₁ and y₂ are
    returned). For x₁ < q < x₂ both weights are
    inverse distances; for q < x₁ the first is negative, which is how the book's formula
    *extrapolates*. A true inverse-distance weight is never negative (:func:`one_d_rule`).

    Parameters
    ----------
    x1, y1, x2, y2 : float
        The two neighbours, x₁ ≠ x₂.
    queries : array of shape (q,)

    Returns
    -------
    ndarray of shape (q,)
    """
    if x1 == x2:
        raise ValueError("x1 and x2 must differ: two points at one place define no line.")
    q = as_vector(queries, "queries")
    on_point = (q == x1) | (q == x2)
    with np.errstate(divide="ignore", invalid="ignore"):
        w1, w2 = 1.0 / (q - x1), 1.0 / (x2 - q)
        estimate = (w1 * y1 + w2 * y2) / (w1 + w2)
    return np.where(on_point, np.where(q == x1, y1, y2), estimate)


def bisector_side(a, b, queries) -> np.ndarray:
    """Which side of the perpendicular bisector of a and b each query lies on (MMDS §12.4.2).

    With w = b − a and θ = (‖b‖² − ‖a‖²)/2, the value w·q − θ = (‖q − a‖² − ‖q − b‖²)/2 is
    positive when q is nearer b and negative when it is nearer a: locating a query in a Voronoi
    diagram is a sequence of such comparisons with hyperplanes, as in §§12.2-12.3.

    Parameters
    ----------
    a, b : arrays of shape (d,)
    queries : array of shape (q, d)

    Returns
    -------
    ndarray of shape (q,)
    """
    a, b = as_vector(a, "a"), as_vector(b, "b", len(a))
    Q = as_matrix(queries, "queries")
    if Q.shape[1] != len(a):
        raise ValueError(f"queries have {Q.shape[1]} columns but a and b have {len(a)}.")
    return Q @ (b - a) - (b @ b - a @ a) / 2


def voronoi_neighbours(X) -> list[tuple[int, int]]:
    """The pairs of points whose Voronoi cells share a wall of positive length (MMDS §12.4.2).

    The cells of a and b meet along their perpendicular bisector m + t·u (m the midpoint, u ⟂
    b − a) where no third point c is nearer: each c keeps the t with
    2t·u·(c − a) < ‖c‖² − ‖a‖² − 2m·(c − a), a half-line, so the shared wall is an interval of
    t, and a and b are neighbours when it is not empty. Walls that reach infinity count; a
    single shared corner (four points on a circle) does not. In the plane there are at most
    3n − 6 such pairs for n >= 3 (the diagram is a planar graph), against n(n − 1)/2 bisectors.

    Parameters
    ----------
    X : array of shape (n, 2)
        Distinct points in the plane.

    Returns
    -------
    list of (i, j)
        With i < j, in increasing order.
    """
    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"Voronoi walls are computed in the plane: X needs 2 columns, not "
                         f"{X.shape[1]}.")
    if len(np.unique(X, axis=0)) < len(X):
        raise ValueError("X has repeated points; their cells coincide.")
    squares = (X * X).sum(axis=1)
    pairs = []
    for a in range(len(X)):
        for b in range(a + 1, len(X)):
            m = (X[a] + X[b]) / 2
            u = np.array([X[a, 1] - X[b, 1], X[b, 0] - X[a, 0]])
            others = np.delete(np.arange(len(X)), [a, b])
            slope = 2 * (X[others] - X[a]) @ u
            bound = squares[others] - squares[a] - 2 * (X[others] - X[a]) @ m
            if np.any((slope == 0) & (bound <= 0)):
                continue  # a third point is at least as near along the whole bisector
            with np.errstate(divide="ignore"):
                limits = bound / slope
            low = np.max(limits[slope < 0], initial=-np.inf)
            high = np.min(limits[slope > 0], initial=np.inf)
            if low < high:
                pairs.append((a, b))
    return pairs


def minhash_signatures(S, n_hashes: int, *, seed=0) -> np.ndarray:
    """Minhash signatures of sets given as 0/1 rows (MMDS §3.3, used for §12.4.6).

    For each of ``n_hashes`` random permutations of the columns, a row's signature entry is the
    position, in that permutation, of the first column where the row has a 1. Two sets agree in
    one entry with probability equal to their Jaccard similarity.

    Parameters
    ----------
    S : 0/1 array of shape (n, m)
        Every row must contain at least one 1 (an empty set has no minhash).
    n_hashes : int
    seed : int or numpy.random.Generator
        Two calls with the same seed use the same permutations, so signatures of training sets
        and of queries are comparable.

    Returns
    -------
    int ndarray of shape (n, n_hashes)
    """
    S = as_binary(S, "S")
    if not S.any(axis=1).all():
        raise ValueError("every row of S needs at least one 1: an empty set has no minhash.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    ranks = np.stack([rng.permutation(S.shape[1]) for _ in range(positive_int(n_hashes,
                                                                              "n_hashes"))])
    return np.where(S[:, None, :] > 0, ranks[None], S.shape[1]).min(axis=2)


def lsh_candidates(train_signatures, query_signatures, bands: int) -> list[np.ndarray]:
    """Locality-sensitive hashing by banding (MMDS §3.4.1, applied to neighbours in §12.4.6).

    The signature columns are cut into ``bands`` bands of r = n_hashes/bands rows. A training
    set is a candidate for a query when they agree on every row of at least one band (they fall
    into the same bucket). Sets of Jaccard similarity s become candidates with probability
    1 − (1 − sʳ)ᵇ (:func:`lsh_probability`); a near neighbour that never shares a bucket is a
    false negative.

    Parameters
    ----------
    train_signatures : int array of shape (n, h)
    query_signatures : int array of shape (q, h)
    bands : int
        Must divide h.

    Returns
    -------
    list of q int arrays: the indices of each query's candidates, increasing.

    Notes
    -----
    Each band of each training signature goes into a dictionary (one per band), so a query
    looks up b buckets instead of scanning all n training sets.
    """
    A = np.asarray(train_signatures)
    B = np.asarray(query_signatures)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("signatures must be 2-D arrays with the same number of columns.")
    bands = positive_int(bands, "bands")
    if A.shape[1] % bands:
        raise ValueError(f"bands = {bands} must divide the signature length {A.shape[1]}.")
    r = A.shape[1] // bands
    buckets: list[dict[bytes, list[int]]] = [{} for _ in range(bands)]
    for i, row in enumerate(A):
        for band, key in zip(buckets, row.reshape(bands, r), strict=True):
            band.setdefault(key.tobytes(), []).append(i)
    found = []
    for row in B.astype(A.dtype):
        hits = [band.get(key.tobytes(), []) for band, key in zip(buckets, row.reshape(bands, r),
                                                                  strict=True)]
        found.append(np.unique(np.concatenate([np.array(h, dtype=int) for h in hits])))
    return found


def lsh_probability(s, bands: int, rows: int) -> np.ndarray:
    """1 − (1 − sʳ)ᵇ: the chance that sets of Jaccard similarity s share a bucket (MMDS §3.4.2)."""
    return 1 - (1 - np.asarray(s, dtype=float) ** rows) ** bands
