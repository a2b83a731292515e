"""Second correct answers for 14_neural: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "sigmoid_and_slope": """\
def sigmoid_and_slope(z):
    s = (1 + np.tanh(np.asarray(z, dtype=float) / 2)) / 2  # σ(z) = (1 + tanh(z/2)) / 2
    return (s, s - s**2)
""",
    "forward": """\
import math


def forward(W1, b1, W2, b2, x):
    d, k = len(W1), len(b1)  # loops over plain numbers
    h = [1 / (1 + math.exp(-(sum(x[i] * W1[i][j] for i in range(d)) + b1[j])))
         for j in range(k)]
    return h, 1 / (1 + math.exp(-(sum(h[j] * W2[j] for j in range(k)) + b2)))
""",
    "backward": """\
def backward(W1, b1, W2, b2, x, t):
    h, o = forward(W1, b1, W2, b2, x)
    d_out = (o - t) * o * (1 - o)  # lists instead of arrays
    d_hidden = [d_out * W2[j] * h[j] * (1 - h[j]) for j in range(len(h))]
    return ([[xi * dj for dj in d_hidden] for xi in x], d_hidden,
            [d_out * hj for hj in h], d_out)
""",
    "sgd_step": """\
def sgd_step(W1, b1, W2, b2, x, t, eta):
    grads = backward(W1, b1, W2, b2, x, t)
    new = [np.asarray(p, dtype=float) - eta * np.asarray(g, dtype=float)
           for p, g in zip((W1, b1, W2, b2), grads)]
    return tuple(new)
""",
}
