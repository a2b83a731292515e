"""Hidden checks for the Chow-Liu exercises (lecture 06, CS446 "Learning Tree Dependent
Distributions").

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

import numpy as np

from mllib import bayes, chowliu
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.chowliu", "mllib.bayes")
_rng = seeded(20260606)


def _sample(offset: int, n: int, m: int) -> tuple[bayes.TreeDistribution, np.ndarray]:
    rng = _rng(offset)
    truth = bayes.random_tree(n, seed=rng)
    return truth, bayes.sample(truth, m, seed=rng)


def _chain(rng: np.random.Generator, n: int) -> np.ndarray:
    """The parents (-1 at the root) of a chain through all n variables in an order of the
    student's own: a tree other than the data's, listed in no topological order."""
    order = rng.permutation(n)
    parents = np.empty(n, dtype=int)
    parents[order] = np.append(-1, order[:-1])
    return parents


def _binary_data(X) -> str | None:
    """The conventions' data: shape (m, n) with m, n >= 1, values 0 or 1."""
    return unmet(("X has shape (m, n) with m, n >= 1", np.ndim(X) == 2 and np.size(X) > 0),
                 ("X holds 0/1 values", labels(X, (0, 1))))


def _is_tree(parents) -> bool:
    """Whether ``parents`` (-1 at the root) is one tree over all its variables."""
    parents = [int(p) for p in np.asarray(parents).ravel()]
    if parents.count(-1) != 1 or not all(-1 <= p < len(parents) for p in parents):
        return False
    for child in range(len(parents)):  # every walk up reaches the root within n steps
        node = child
        for _ in range(len(parents)):
            node = parents[node] if node >= 0 else node
        if node != -1:
            return False
    return True


def _tree_domain(X, parents) -> str | None:
    return _binary_data(X) or unmet(
        ("parents holds one parent per column of X, forming one tree (-1 at its root)",
         np.shape(parents) == np.shape(X)[1:] and _is_tree(parents)))


def _mi_domain(x, y) -> str | None:
    return unmet(("x and y are 0/1 vectors of the same length >= 1",
                  np.ndim(x) == 1 and np.shape(x) == np.shape(y) and len(x) >= 1
                  and labels(x, (0, 1)) and labels(y, (0, 1))))


def mutual_information() -> Check:
    """Check ``mutual_information(x, y)`` for two binary vectors, in nats."""

    def pair(x, y):
        return chowliu.mutual_information(np.column_stack([x, y]))[0, 1]

    truth, X = _sample(1, 6, 400)
    parent, child = truth.edges[0]
    far = [i for i in range(6) if i not in (parent, child)]
    cases = [
        Case("a variable and its parent in a tree", (X[:, parent], X[:, child])),
        Case("two variables that are only weakly related", (X[:, far[0]], X[:, far[-1]])),
        Case("a variable with itself (the answer is its entropy)", (X[:, 0], X[:, 0])),
        Case("a variable and its negation", (X[:, 1], 1 - X[:, 1])),
        Case("a column that is always 1 (use 0·log 0 = 0)", (np.ones(400), X[:, 2])),
    ]
    return Check("mutual_information", cases, pair, domain=_mi_domain)


def _tree_edges(answer, n: int) -> list[tuple[int, int]] | str:
    """The answer's edges as pairs of vertex indices, or why it is not a spanning tree of n."""
    try:
        edges = [tuple(int(v) for v in edge) for edge in answer]
    except (TypeError, ValueError):
        return "return a list of (i, j) pairs of vertex indices"
    if len(edges) != n - 1 or any(len(e) != 2 for e in edges):
        return f"a spanning tree of {n} vertices has {n - 1} edges"
    component = list(range(n))  # union-find: the edges must join all n vertices, no cycle

    def find(v: int) -> int:
        while component[v] != v:
            v = component[v]
        return v

    for i, j in edges:
        if not (0 <= i < n and 0 <= j < n) or find(i) == find(j):
            return "the edges do not form a tree over all the vertices"
        component[find(i)] = find(j)
    return edges


def _heaviest(weights: np.ndarray, edges: list[tuple[int, int]], best: float) -> str | None:
    """None if the tree's total weight is the maximum ``best`` (to rounding), else why not."""
    total = chowliu.total_information(weights, edges)
    return None if total >= best - 1e-9 * (1 + abs(best)) else "a heavier spanning tree exists"


def _spanning_tree_judge(answer, expected, case: Case) -> str | None:
    """Any maximum-weight spanning tree is right (ties allow several), in any edge order."""
    (W,) = case.args
    edges = _tree_edges(answer, len(W))
    if isinstance(edges, str):
        return edges
    return _heaviest(W, edges, chowliu.total_information(W, expected))


def spanning_tree() -> Check:
    """Check ``maximum_spanning_tree(W)`` returns the n - 1 edges of a heaviest tree.

    Judged by the property that defines the answer (a spanning tree of maximum total weight),
    so Kruskal, Prim and any tie-breaking get full marks.
    """
    rng = _rng(10)

    def weights(n: int) -> np.ndarray:
        W = rng.permutation(n * n).reshape(n, n) / (n * n)
        return W + W.T  # W[i, j] + W[j, i]: ties are possible, which the judge allows

    # The trap's vertices renumbered and its weights scaled, the student's own way.
    order = rng.permutation(4)
    trap = rng.uniform(0.5, 3) * np.array([[0, 9, 8, 1], [9, 0, 7, 2], [8, 7, 0, 3],
                                           [1, 2, 3, 0]], dtype=float)[np.ix_(order, order)]
    tied = np.full((5, 5), rng.uniform(0.5, 3))  # every spanning tree is a maximum one
    cases = [
        Case("5 vertices", (weights(5),)),
        Case("9 vertices", (weights(9),)),
        Case("4 vertices whose three heaviest edges form a cycle", (trap,)),
        Case("2 vertices", (weights(2),)),
        Case("5 vertices whose edges all weigh the same", (tied,)),
    ]
    return Check("maximum_spanning_tree", cases, chowliu.maximum_spanning_tree,
                 judge=_spanning_tree_judge, domain=_weights_domain)


def _weights_domain(W) -> str | None:
    W = np.asarray(W, dtype=float)
    return unmet(("W is a symmetric (n, n) array of finite weights, n >= 1",
                  W.ndim == 2 and W.shape[0] == W.shape[1] >= 1 and finite(W)
                  and np.array_equal(W, W.T)))


def fit_cpts() -> Check:
    """Check ``fit_cpts(X, parents, s)`` returns the (n, 2) table of Laplace-smoothed CPTs."""

    def fit(X, parents, s):
        edges = [(int(p), child) for child, p in enumerate(parents) if p >= 0]
        return chowliu.fit_tree(X, edges, smoothing=s).cpt

    truth, X = _sample(15, 6, 200)
    # Three rows that agree on one parent's value, so its other value surely never occurs
    # (the first three rows do so only by chance, and not for every student's seed).
    parent = int(truth.parents[truth.parents >= 0][0])
    sparse = X[np.flatnonzero(X[:, parent] == X[0, parent])[:3]]
    cases = [
        Case("200 rows of a random tree, s = 1", (X, truth.parents, 1.0)),
        Case("the same data with s = 0.5", (X, truth.parents, 0.5)),
        Case("a chain through all 6 variables, s = 2", (X, _chain(_rng(16), 6), 2.0)),
        Case("only 3 rows, so some parent value never occurs", (sparse, truth.parents, 1.0)),
    ]
    return Check("fit_cpts", cases, fit, domain=_fit_domain)


def _fit_domain(X, parents, s) -> str | None:
    return _tree_domain(X, parents) or unmet(("s > 0", finite(s) and s > 0))


def tree_log_likelihood() -> Check:
    """Check ``tree_log_likelihood(X, parents, cpt)`` = Σ over rows of log P_T(x)."""

    def score(X, parents, cpt):
        return chowliu.log_likelihood(bayes.tree_distribution(parents, cpt), X)

    truth, X = _sample(20, 7, 300)
    rng = _rng(21)
    chain = _chain(rng, 7)
    chain_cpt = rng.uniform(0.1, 0.9, (7, 2))
    chain_cpt[chain == -1, 1] = chain_cpt[chain == -1, 0]  # the root's two entries are equal
    cases = [
        Case("a sample of 300 rows from a random tree", (X, truth.parents, truth.cpt)),
        Case("a chain through all 7 variables", (X, chain, chain_cpt)),
        Case("a single row", (X[:1], truth.parents, truth.cpt)),
    ]
    return Check("tree_log_likelihood", cases, score, domain=_loglik_domain)


def _loglik_domain(X, parents, cpt) -> str | None:
    cpt = np.asarray(cpt, dtype=float)
    return _tree_domain(X, parents) or unmet(
        ("cpt has shape (n, 2), the root's two entries equal",
         cpt.shape == (len(parents), 2) and cpt[list(parents).index(-1), 0]
         == cpt[list(parents).index(-1), 1]),
        ("every CPT entry lies strictly between 0 and 1",
         finite(cpt) and bool(np.all((cpt > 0) & (cpt < 1)))))


def _chow_liu_judge(answer, expected, case: Case) -> str | None:
    """Right: a tree rooted at ``root`` (-1 there, one parent elsewhere) whose edges carry the
    maximum total mutual information; with tied informations several trees qualify."""
    X, root = case.args
    n = X.shape[1]
    try:
        parents = [int(p) for p in np.asarray(answer).ravel()]
    except (TypeError, ValueError):
        return "return one parent index per variable"
    if len(parents) != n or parents[root] != -1:
        return f"return {n} parents, with -1 at the root"
    edges = _tree_edges([(p, child) for child, p in enumerate(parents) if child != root], n)
    if isinstance(edges, str):
        return "the parents do not form a tree"
    try:
        bayes.parents_from_edges(edges, n)  # every edge directed away from the root
    except ValueError:
        return "the edges must point away from the root"
    if sum(p == -1 for p in parents) != 1:
        return "only the root has no parent"
    mi = chowliu.mutual_information(X)
    best = [(int(p), child) for child, p in enumerate(expected) if p >= 0]
    return _heaviest(mi, edges, chowliu.total_information(mi, best))


def chow_liu() -> Check:
    """Check ``chow_liu_parents(X, root)`` returns each variable's parent (-1 at the root)."""

    def parents(X, root):
        return bayes.parents_from_edges(chowliu.chow_liu_tree(X, root), X.shape[1])

    _, small = _sample(30, 5, 3000)
    _, large = _sample(31, 8, 5000)
    twins = np.column_stack([small, small[:, 1]])  # a copy of x1: tied informations
    cases = [
        Case("5 variables, rooted at variable 0", (small, 0)),
        Case("5 variables, rooted at variable 3", (small, 3)),
        Case("8 variables, rooted at variable 6", (large, 6)),
        Case("6 variables, two of them identical, rooted at variable 2", (twins, 2)),
    ]
    return Check("chow_liu_parents", cases, parents, judge=_chow_liu_judge,
                 builds_on=("mutual_information", "maximum_spanning_tree"),
                 domain=_chow_liu_domain)


def _chow_liu_domain(X, root) -> str | None:
    return _binary_data(X) or unmet(("root is a variable: 0 to n - 1",
                                     whole(root) and root < np.shape(X)[1]))
