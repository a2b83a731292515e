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
    X = np.vstack([np.asarray(X_p, dtype=float) for X_p, _ in chunks])
    y = np.concatenate([np.asarray(y_p, dtype=float) for _, y_p in chunks])
    wrong = y * (X @ np.asarray(w, dtype=float)) <= 0
    sizes = [len(y_p) for _, y_p in chunks]
    per_chunk = [int(part.sum()) for part in np.split(wrong, np.cumsum(sizes)[:-1])]
    return np.asarray(w, dtype=float) + eta * (y[wrong] @ X[wrong]), per_chunk
""",
    "train_mapreduce": """\
def train_mapreduce(chunks, eta, max_rounds):
    w = np.zeros(len(chunks[0][0][0]))
    rounds, mistakes = 0, None
    while mistakes != 0 and rounds < max_rounds:
        w, per_chunk = mapreduce_round(w, chunks, eta)
        mistakes, rounds = sum(per_chunk), rounds + 1
    return w, rounds
""",
}
