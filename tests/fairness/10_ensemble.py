"""Second correct answers for 10_ensemble: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "alpha": """\
import math


def adaboost_alpha(error):
    return math.log(math.sqrt((1 - error) / error))
""",
    "reweight": """\
import math


def reweight(D, y, h, alpha):
    factors = [d * math.exp(alpha if y_i != h_i else -alpha) for d, y_i, h_i in zip(D, y, h)]
    Z = sum(factors)
    return [f / Z for f in factors], Z
""",
    "best_stump": """\
import math


def best_stump(X, y, D):
    best_error, best = None, None
    for j in reversed(range(X.shape[1])):  # another tie: the last feature first
        column = X[:, j]
        for threshold in [-math.inf, *sorted(set(column.tolist()))]:  # data values as cuts
            for polarity in (-1, 1):
                error = sum(d for x_ij, y_i, d in zip(column, y, D)
                            if (polarity if x_ij > threshold else -polarity) != y_i)
                if best_error is None or error <= best_error:
                    best_error, best = error, (j, threshold, polarity)
    return best
""",
    "bagging_vote": """\
def bagging_vote(predictions):
    result = []
    for column in zip(*[list(row) for row in predictions]):
        counts = {}
        for label in column:
            counts[label] = counts.get(label, 0) + 1
        result.append(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0])
    return result
""",
    "oob_error": """\
def oob_error(predictions, samples, y):
    wrong = heard = 0
    for i, label in enumerate(y):
        votes = {}
        for row, sample in zip(predictions, samples):
            if i not in set(int(j) for j in sample):  # out of bag for this classifier
                votes[row[i]] = votes.get(row[i], 0) + 1
        if votes:
            most = max(votes.values())
            heard += 1
            wrong += min(v for v, count in votes.items() if count == most) != label
    return wrong / heard
""",
}
