"""Second correct answers for 01_perceptron: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "update_rule": """\
def perceptron_update(w, x, y, eta):
    score = sum(w_i * x_i for w_i, x_i in zip(w, x))
    if y * score > 0:
        return list(w)
    return [w_i + eta * y * x_i for w_i, x_i in zip(w, x)]
""",
    "training_loop": """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    rows = [[float(v) for v in row] for row in X]
    w, mistakes, epoch = [0.0] * len(rows[0]), 0, 0
    while epoch < max_epochs:
        epoch += 1
        clean = True
        for row, label in zip(rows, y):
            if label * np.dot(w, row) <= 0:
                w = [a + eta * label * b for a, b in zip(w, row)]
                mistakes += 1
                clean = False
        if clean:
            break
    return w, mistakes
""",
    "margin": """\
def geometric_margin(w, X, y):
    if not np.any(w):
        raise ValueError("the zero vector is no hyperplane")
    return min(y_i * (x_i @ w) for x_i, y_i in zip(X, y)) / np.sqrt(w @ w)
""",
    "bound": """\
import math


def mistake_bound(X, y, w_star):
    R = max(math.sqrt(sum(v * v for v in row)) for row in X)
    gamma = geometric_margin(w_star, X, y)
    if not gamma > 0:
        raise ValueError("no margin, no bound")
    return R * R / (gamma * gamma)
""",
    "winnow": """\
def winnow_update(w, x, y, theta):
    s = float(np.dot(w, x))
    if (y > 0 and s > theta) or (y < 0 and s < theta):
        return w.copy()
    factor = 2.0 if y > 0 else 0.5
    return np.array([w_i * factor if x_i == 1 else w_i for w_i, x_i in zip(w, x)])
""",
}
