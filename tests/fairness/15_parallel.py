"""Second correct answers for 15_parallel: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "map_mistakes": """\
def map_mistakes(w, X, y, eta):
    increment = [0.0] * len(w)
    mistakes = 0
    for x, label in zip(X.tolist(), y.tolist()):
        score = sum(w_j * x_j for w_j, x_j in zip(w, x))
        if label * score <= 0:  # a score of 0 is a mistake (MMDS)
            mistakes += 1
            increment = [s + eta * label * x_j for s, x_j in zip(increment, x)]
    return increment, mistakes
""",
    "reduce_sums": """\
def reduce_sums(outputs):
    total, mistakes = None, 0
    for increment, count in outputs:
        if total is None:
            total = list(increment)
        else:
            total = [a + b for a, b in zip(total, increment)]
        mistakes += count
    return total, mistakes
""",
    "mapreduce_round": """\
def mapreduce_round(w, chunks, eta):
    outputs = [map_mistakes(w, X_p, y_p, eta) for X_p, y_p in chunks]
    total, _ = reduce_sums(outputs)
    return np.asarray(w, dtype=float) + np.asarray(total), [m for _, m in outputs]
""",
    "mixing_round": """\
def mixing_round(w, chunks, eta):
    total, mistakes = np.zeros(len(w)), []
    for X_p, y_p in chunks:
        current, count = np.array(w, dtype=float), 0
        for i in range(len(y_p)):
            if y_p[i] * np.dot(current, X_p[i]) <= 0:  # 0 is a mistake (MMDS)
                current += eta * y_p[i] * np.asarray(X_p[i], dtype=float)
                count += 1
        total += current
        mistakes.append(count)
    return total / len(chunks), mistakes
""",
    "hinge_share": """\
def hinge_share(w, b, X, y, C):
    share = [0.0] * (len(w) + 1)
    for x, label in zip(X.tolist(), y.tolist()):
        score = sum(w_j * x_j for w_j, x_j in zip(w, x)) + b
        if label * score < 1:  # exactly 1 is on the margin: no contribution
            for j, value in enumerate([*x, 1.0]):
                share[j] -= C * label * value
    return share
""",
}
