"""Second correct answers for 08_multiclass: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "kesler": """\
def kesler_expand(X, y, k):
    # All positive rows first, then their negations: another order, the same set.
    m, d = X.shape
    positives = []
    for x, i in zip(X, y):
        for j in range(k):
            if j != i:
                row = [0.0] * (k * d)
                row[i * d:(i + 1) * d] = list(x)
                row[j * d:(j + 1) * d] = [-v for v in x]
                positives.append(row)
    negatives = [[-v for v in row] for row in positives]
    return positives + negatives, [1] * len(positives) + [-1] * len(negatives)
""",
    "conservative_update": """\
def conservative_update(W, x, y):
    scores = (W @ x).astype(float)
    own = scores[y]
    scores[y] = -np.inf
    best = int(np.argmax(scores))
    if scores[best] < own:
        return W.tolist()
    W = W + 0.0
    W[y], W[best] = W[y] + x, W[best] - x
    return W.tolist()
""",
    "ova_predict": """\
def ova_predict(W, X):
    labels = []
    for x in X:
        scores = [float(np.dot(w, x)) for w in W]
        labels.append(scores.index(max(scores)))
    return labels
""",
    "ava_predict": """\
import itertools


def ava_predict(V, X, k):
    pairs = list(itertools.combinations(range(k), 2))
    out = []
    for x in X:
        count = dict.fromkeys(range(k), 0)
        for v, (i, j) in zip(V, pairs):
            count[i if v @ x > 0 else j] += 1
        top = max(count.values())
        out.append(min(c for c in count if count[c] == top))
    return out
""",
}
