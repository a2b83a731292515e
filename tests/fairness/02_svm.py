"""Second correct answers for 02_svm: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "objective": """\
def svm_objective(w, b, X, y, C):
    f = 0.5 * sum(w_j * w_j for w_j in w)
    for x_i, y_i in zip(X, y):
        f += C * max(0.0, 1.0 - y_i * (np.dot(w, x_i) + b))
    return f
""",
    "gradient": """\
def svm_gradient(w, b, X, y, C):
    grad = list(w) + [b]
    for x_i, y_i in zip(X, y):
        if y_i * (np.dot(w, x_i) + b) < 1:
            for j, x_ij in enumerate(x_i):
                grad[j] -= C * y_i * x_ij
            grad[-1] -= C * y_i
    return grad
""",
    "step": """\
def gradient_step(w, b, X, y, C, eta):
    new = np.concatenate([w, [b]]) - eta * np.asarray(svm_gradient(w, b, X, y, C))
    return new[:-1], new[-1]
""",
    "descent": """\
def svm_gradient_descent(X, y, C, eta, w0, b0, iterations):
    w, b = list(w0), b0
    for _ in range(iterations):
        grad = svm_gradient(np.array(w, dtype=float), b, X, y, C)
        w = [w_j - eta * g_j for w_j, g_j in zip(w, grad[:-1])]
        b = b - eta * grad[-1]
    return w, b
""",
    "support": """\
def support_vectors(w, b, X, y):
    return [i for i, (x_i, y_i) in enumerate(zip(X, y)) if y_i * (np.dot(w, x_i) + b) <= 1 + 1e-9]
""",
}
