"""Second correct answers for 07_kernels: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "polynomial_kernel": """\
def polynomial_kernel(X, Z, degree, c):
    return [[(sum(a * b for a, b in zip(x, z)) + c) ** degree for z in Z] for x in X]
""",
    "quadratic_map": """\
import math


def quadratic_map(X):
    # Cross terms first, with a minus sign, then the squares: another valid map.
    d = X.shape[1]
    cross = [-math.sqrt(2) * X[:, i] * X[:, j] for i in range(d) for j in range(i + 1, d)]
    return np.column_stack(cross + [X[:, i] ** 2 for i in range(d)])
""",
    "dual_perceptron": """\
def dual_perceptron(K, y, max_epochs=100):
    # Keeps every score up to date instead of recomputing it at each visit.
    n = len(y)
    alpha, scores = [0] * n, [0.0] * n
    for _ in range(max_epochs):
        clean = True
        for i in range(n):
            if y[i] * scores[i] <= 0:
                alpha[i] += 1
                scores = [s + y[i] * K[i][j] for j, s in enumerate(scores)]
                clean = False
        if clean:
            break
    return alpha
""",
    "kernel_prediction": """\
def kernel_prediction(alpha, y, K_new):
    out = []
    for column in np.asarray(K_new).T:
        score = sum(a * b * k for a, b, k in zip(alpha, y, column))
        out.append(1 if score > 0 else -1)
    return out
""",
}
