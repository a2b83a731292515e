"""Second correct answers for 06_chowliu: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "mutual_information": """\
def mutual_information(x, y):
    def entropy(*columns):
        # one integer code per row of values, then how often each code occurs
        codes = np.zeros(len(columns[0]), dtype=int)
        for column in columns:
            values, index = np.unique(column, return_inverse=True)
            codes = codes * len(values) + index
        counts = np.bincount(codes)
        shares = counts[counts > 0] / len(codes)
        return -np.sum(shares * np.log(shares))

    return entropy(x) + entropy(y) - entropy(x, y)
""",
    "spanning_tree": """\
def maximum_spanning_tree(W):
    n = len(W)
    leader = list(range(n))

    def find(v):
        while leader[v] != v:
            v = leader[v]
        return v

    edges = sorted(((W[i][j], i, j) for i in range(n) for j in range(i + 1, n)), reverse=True)
    tree = []
    for _, i, j in edges:  # Kruskal: heaviest first, skipping edges that close a cycle
        if find(i) != find(j):
            leader[find(i)] = find(j)
            tree.append([j, i])
    return tree
""",
    "fit_cpts": """\
def fit_cpts(X, parents, s):
    X = np.asarray(X, dtype=int)
    table = []
    for i, parent in enumerate(parents):
        if parent == -1:
            share = (np.count_nonzero(X[:, i]) + s) / (len(X) + 2 * s)
            table.append([share, share])
            continue
        ones = np.bincount(X[:, parent], weights=X[:, i], minlength=2)
        rows = np.bincount(X[:, parent], minlength=2)
        table.append(list((ones + s) / (rows + 2 * s)))
    return table
""",
    "tree_loglik": """\
import math


def tree_log_likelihood(X, parents, cpt):
    total = 0.0
    for row in X:
        for i, parent in enumerate(parents):
            p_one = cpt[i][0] if parent < 0 else cpt[i][int(row[parent])]
            total += math.log(p_one if row[i] == 1 else 1 - p_one)
    return total
""",
    "chow_liu": """\
from collections import deque


def chow_liu_parents(X, root):
    X = np.asarray(X)
    n = X.shape[1]
    W = [[mutual_information(X[:, i], X[:, j]) if i != j else 0.0 for j in range(n)]
         for i in range(n)]
    neighbours = {i: set() for i in range(n)}
    for i, j in maximum_spanning_tree(W):
        neighbours[i].add(j)
        neighbours[j].add(i)
    parents = [-1] * n
    queue, seen = deque([root]), {root}
    while queue:  # breadth-first from the root
        node = queue.popleft()
        for other in sorted(neighbours[node]):
            if other not in seen:
                parents[other] = node
                seen.add(other)
                queue.append(other)
    return parents
""",
}
