"""Second correct answers for 04_vc: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "interval": """\
def interval_realizable(x, y):
    positives = [x_i for x_i, y_i in zip(x, y) if y_i == 1]
    if not positives:
        return True
    low, high = min(positives), max(positives)
    return all(not low <= x_i <= high for x_i, y_i in zip(x, y) if y_i == -1)
""",
    "shatters": """\
def shatters(is_realizable, points):
    def labellings(n):
        if n == 0:
            yield []
            return
        for rest in labellings(n - 1):
            yield rest + [1]
            yield rest + [-1]

    for labels in labellings(len(points)):
        if not is_realizable(points, labels):
            return False
    return True
""",
    "rectangle": """\
def rectangle_realizable(points, y):
    positives = [p for p, label in zip(points, y) if label == 1]
    if not positives:
        return True
    x_low, x_high = min(p[0] for p in positives), max(p[0] for p in positives)
    y_low, y_high = min(p[1] for p in positives), max(p[1] for p in positives)
    for p, label in zip(points, y):
        if label == -1 and x_low <= p[0] <= x_high and y_low <= p[1] <= y_high:
            return False
    return True
""",
    "unions": """\
def union_realizable(x, y, k):
    seen = {}
    for x_i, y_i in zip(x, y):
        seen.setdefault(float(x_i), set()).add(int(y_i))
    if any(len(labels) > 1 for labels in seen.values()):
        return False
    word = "".join("+" if seen[v].pop() == 1 else "-" for v in sorted(seen))
    return len([run for run in word.split("-") if run]) <= k
""",
    "sauer": """\
def sauer_bound(m, d):
    total, term = 0, 1
    for i in range(d + 1):
        total += term
        term = term * (m - i) // (i + 1)
    return total
""",
}
