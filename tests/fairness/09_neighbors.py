"""Second correct answers for 09_neighbors: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "kernel_regression": """\
import math


def kernel_regression(x, y, q, kernel="inverse_square", sigma=1.0):
    on_point = [y_i for x_i, y_i in zip(x, y) if (x_i - q) ** 2 == 0]
    if kernel == "inverse_square" and on_point:
        return sum(on_point) / len(on_point)
    # log-weights, shifted so the largest is 0: exp cannot overflow, and one weight is 1
    if kernel == "gaussian":
        logs = [-((x_i - q) ** 2) / sigma ** 2 for x_i in x]
    else:
        logs = [-2 * math.log(abs(x_i - q)) for x_i in x]
    top_log = max(logs)
    weights = [math.exp(v - top_log) for v in logs]
    return sum(w * y_i for w, y_i in zip(weights, y)) / sum(weights)
""",
    "knn_classify": """\
import math


def knn_classify(X_train, y_train, query, k):
    ranked = sorted(range(len(X_train)),
                    key=lambda i: (math.dist(list(X_train[i]), list(query)), i))
    votes = {}
    for i in ranked[:k]:
        votes[y_train[i]] = votes.get(y_train[i], 0) + 1
    most = max(votes.values())
    return min(label for label, count in votes.items() if count == most)
""",
    "weighted_two_nn": """\
def weighted_two_nn(x, y, q):
    (d1, i1), (d2, i2) = sorted((abs(x_i - q), i) for i, x_i in enumerate(x))[:2]
    if d2 == 0:
        return (y[i1] + y[i2]) / 2
    if d1 == 0:
        return y[i1]
    return (y[i1] * d2 + y[i2] * d1) / (d1 + d2)  # the weights 1/d, multiplied by d1*d2
""",
    "relative_contrast": """\
import math


def relative_contrast(X, q):
    distances = [math.dist(list(row), list(q)) for row in X]
    return max(distances) / min(distances) - 1
""",
}
