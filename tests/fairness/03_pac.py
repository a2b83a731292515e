"""Second correct answers for 03_pac: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "occam": """\
def occam_sample_size(h_size, eps, delta):
    bound = (math.log(h_size) - math.log(delta)) / eps
    m = math.ceil(bound)
    return m + 1 if m == bound else m
""",
    "inverse": """\
def occam_epsilon(h_size, m, delta):
    eps = (math.log(h_size) - math.log(delta)) / m
    return 1.0 if eps > 1 else eps
""",
    "vc": """\
def vc_sample_size(vc, eps, delta):
    bound = (8 * vc * math.log(13 / eps, 2) + 4 * math.log(2 / delta, 2)) / eps
    m = int(bound)
    return m if m >= bound else m + 1
""",
    "eliminate": """\
def eliminate(X, y):
    n = len(X[0])
    keep_x, keep_not_x = [True] * n, [True] * n
    for row, label in zip(X, y):
        if label != 1:
            continue
        for j in range(n):
            if row[j] == 1:
                keep_not_x[j] = False
            else:
                keep_x[j] = False
    return keep_x, keep_not_x
""",
    "error": """\
def error_rate(keep_x, keep_not_x, X, y):
    wrong = 0
    for row, label in zip(X, y):
        ok = all(v == 1 for v, k in zip(row, keep_x) if k) and all(
            v == 0 for v, k in zip(row, keep_not_x) if k)
        wrong += (1 if ok else -1) != label
    return wrong / len(y)
""",
}
