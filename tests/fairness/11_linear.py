"""Second correct answers for 11_linear: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "normal_equations": """\
def normal_equations(X, y):
    # centre the data, solve for w alone, then recover b from the means
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    x_mean, y_mean = X.mean(axis=0), y.mean()
    w = np.linalg.lstsq(X - x_mean, y - y_mean, rcond=None)[0]
    return list(w), float(y_mean - x_mean @ w)
""",
    "lms_step": """\
def lms_step(w, x, y, eta):
    error = y - sum(w_i * x_i for w_i, x_i in zip(w, x))
    return [w_i + eta * error * x_i for w_i, x_i in zip(w, x)]
""",
    "adagrad_step": """\
import math


def adagrad_step(w, g, G, eta):
    new_w, new_G = [], []
    for w_j, g_j, G_j in zip(w, g, G):
        G_j = G_j + g_j * g_j
        new_w.append(w_j - g_j * eta / math.sqrt(G_j) if G_j > 0 else w_j)
        new_G.append(G_j)
    return new_w, new_G
""",
    "logistic_gradient": """\
import math


def logistic_gradient(w, X, y, C):
    grad = np.array(w, dtype=float)
    for x_i, y_i in zip(X, y):
        z = y_i * float(np.dot(w, x_i))
        # sigma(-z) = 1 / (1 + e^z), by cases so that exp never overflows
        s = 1 / (1 + math.exp(z)) if z < 0 else math.exp(-z) / (1 + math.exp(-z))
        grad = grad - C * y_i * s * np.asarray(x_i)
    return grad
""",
}
