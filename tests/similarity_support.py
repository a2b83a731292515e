"""Short answers written from the statements alone, for tests/test_similarity.py.

Issue 34: answers whose statement dictates a one- or two-line formula (a margin, a
log-likelihood with ``np.logaddexp``, a sigmoid and its slope) were listed as "like the course's
own code" at 0.67-0.93. Here students ``h1``, ``h2``, ... (the answers' order) answer the
exercises of five lectures from the statement alone, each in their own style: some close to the
instructor's solution (a formula leaves little choice), some not. ``COPY`` is another student's
copy of ``h1``'s EM loop, its names renamed and its independent lines reordered.
"""

from __future__ import annotations

HONEST = {
    "01_perceptron": {"margin": [
        '''def geometric_margin(w, X, y):
    """min_i y_i (w·x_i) / ||w||. w: (d,); X: (n, d); y: (n,). Returns a float."""
    length = np.sqrt(np.sum(w ** 2))
    if length == 0:
        raise ValueError("the zero vector has no margin")
    distances = y * np.dot(X, w) / length
    return float(distances.min())
''',
        '''def geometric_margin(w, X, y):
    """min_i y_i (w·x_i) / ||w||. w: (d,); X: (n, d); y: (n,). Returns a float."""
    if not np.any(w):
        raise ValueError("w is all zeros")
    return float(np.min(y * (X @ w)) / np.linalg.norm(w))
''',
        '''def geometric_margin(w, X, y):
    """min_i y_i (w·x_i) / ||w||. w: (d,); X: (n, d); y: (n,). Returns a float."""
    nw = np.linalg.norm(w)
    if nw == 0:
        raise ValueError("zero weights")
    best = None
    for xi, yi in zip(X, y):
        d = yi * (w @ xi) / nw
        if best is None or d < best:
            best = d
    return float(best)
''',
        '''def geometric_margin(w, X, y):
    """min_i y_i (w·x_i) / ||w||. w: (d,); X: (n, d); y: (n,). Returns a float."""
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w must not be the zero vector")
    return float(np.min(y * (X @ w)) / norm)
'''],
    },
    "02_svm": {"objective": [
        '''def svm_objective(w, b, X, y, C):
    """MMDS eq. 12.4. w: (d,); b: float; X: (n, d); y: (n,) in {-1, +1}; C > 0."""
    hinge = np.maximum(0, 1 - y * (X @ w + b))
    return float(0.5 * np.dot(w, w) + C * hinge.sum())
''',
        '''def svm_objective(w, b, X, y, C):
    """MMDS eq. 12.4. w: (d,); b: float; X: (n, d); y: (n,) in {-1, +1}; C > 0."""
    margins = y * (X.dot(w) + b)
    loss = np.sum(np.maximum(0.0, 1.0 - margins))
    return float(0.5 * np.sum(w ** 2) + C * loss)
''',
        '''def svm_objective(w, b, X, y, C):
    """MMDS eq. 12.4. w: (d,); b: float; X: (n, d); y: (n,) in {-1, +1}; C > 0."""
    total = 0.0
    for i in range(len(y)):
        total += max(0.0, 1.0 - y[i] * (w @ X[i] + b))
    return float(w @ w / 2 + C * total)
'''],
        "support": [
        '''def support_vectors(w, b, X, y):
    """Indices i with y_i (w·x_i + b) <= 1 (+ 1e-9 for rounding), increasing."""
    margins = y * (X @ w + b)
    return np.where(margins <= 1 + 1e-9)[0]
''',
        '''def support_vectors(w, b, X, y):
    """Indices i with y_i (w·x_i + b) <= 1 (+ 1e-9 for rounding), increasing."""
    return np.flatnonzero(y * (np.dot(X, w) + b) <= 1 + 1e-9)
''',
        '''def support_vectors(w, b, X, y):
    """Indices i with y_i (w·x_i + b) <= 1 (+ 1e-9 for rounding), increasing."""
    found = [i for i in range(len(y)) if y[i] * (X[i] @ w + b) <= 1 + 1e-9]
    return np.array(found, dtype=int)
'''],
    },
    "05_em": {"e_step": [
        '''def e_step(heads, m, alpha, p, q):
    """P1^i = P(coin 1 | sequence i) for each head count in heads, shape (n,)."""
    h = np.asarray(heads)
    l1 = np.log(alpha) + h * np.log(p) + (m - h) * np.log(1 - p)
    l2 = np.log(1 - alpha) + h * np.log(q) + (m - h) * np.log(1 - q)
    return 1 / (1 + np.exp(l2 - l1))
''',
        '''def e_step(heads, m, alpha, p, q):
    """P1^i = P(coin 1 | sequence i) for each head count in heads, shape (n,)."""
    heads = np.array(heads, dtype=float)
    tails = m - heads
    one = np.log(alpha) + heads * np.log(p) + tails * np.log(1 - p)
    two = np.log(1 - alpha) + heads * np.log(q) + tails * np.log(1 - q)
    return np.exp(one - np.logaddexp(one, two))
''',
        '''def e_step(heads, m, alpha, p, q):
    """P1^i = P(coin 1 | sequence i) for each head count in heads, shape (n,)."""
    result = []
    for h in heads:
        a = math.log(alpha) + h * math.log(p) + (m - h) * math.log(1 - p)
        b = math.log(1 - alpha) + h * math.log(q) + (m - h) * math.log(1 - q)
        result.append(1.0 / (1.0 + math.exp(b - a)) if b - a < 700 else 0.0)
    return np.array(result)
'''],
        "loglik": [
        '''def log_likelihood(heads, m, alpha, p, q):
    """Sum over the sequences of log P(sequence | alpha, p, q)."""
    h = np.asarray(heads)
    l1 = np.log(alpha) + h * np.log(p) + (m - h) * np.log(1 - p)
    l2 = np.log(1 - alpha) + h * np.log(q) + (m - h) * np.log(1 - q)
    return float(np.logaddexp(l1, l2).sum())
''',
        '''def log_likelihood(heads, m, alpha, p, q):
    """Sum over the sequences of log P(sequence | alpha, p, q)."""
    heads = np.array(heads, dtype=float)
    tails = m - heads
    coin1 = np.log(alpha) + heads * np.log(p) + tails * np.log(1 - p)
    coin2 = np.log(1 - alpha) + heads * np.log(q) + tails * np.log(1 - q)
    return float(np.sum(np.logaddexp(coin1, coin2)))
''',
        '''def log_likelihood(heads, m, alpha, p, q):
    """Sum over the sequences of log P(sequence | alpha, p, q)."""
    total = 0.0
    for h in heads:
        a = np.log(alpha) + h * np.log(p) + (m - h) * np.log1p(-p)
        b = np.log1p(-alpha) + h * np.log(q) + (m - h) * np.log1p(-q)
        total += np.logaddexp(a, b)
    return float(total)
'''],
    },
    "11_linear": {"lms_step": [
        '''def lms_step(w, x, y, eta):
    \'\'\'Weights after one LMS step on (x, y). w, x: (d,); y: a number; eta > 0.\'\'\'
    return w + eta * (y - np.dot(w, x)) * x
''',
        '''def lms_step(w, x, y, eta):
    \'\'\'Weights after one LMS step on (x, y). w, x: (d,); y: a number; eta > 0.\'\'\'
    error = y - w @ x
    return w + eta * error * x
''',
        '''def lms_step(w, x, y, eta):
    \'\'\'Weights after one LMS step on (x, y). w, x: (d,); y: a number; eta > 0.\'\'\'
    new = w.copy()
    new += eta * (y - x.dot(w)) * x
    return new
'''],
        "logistic_gradient": [
        '''def logistic_gradient(w, X, y, C):
    \'\'\'Gradient of ½‖w‖² + C Σ log(1 + exp(-y_i w·x_i)). w: (d,); X: (n, d); y: (n,).\'\'\'
    z = y * (X @ w)
    s = np.exp(-np.logaddexp(0, z))
    return w - C * X.T @ (y * s)
''',
        '''def logistic_gradient(w, X, y, C):
    \'\'\'Gradient of ½‖w‖² + C Σ log(1 + exp(-y_i w·x_i)). w: (d,); X: (n, d); y: (n,).\'\'\'
    margins = y * X.dot(w)
    sig = np.where(margins >= 0, np.exp(-margins) / (1 + np.exp(-margins)),
                   1 / (1 + np.exp(margins)))
    return w - C * (X * (y * sig)[:, None]).sum(axis=0)
''',
        '''def logistic_gradient(w, X, y, C):
    \'\'\'Gradient of ½‖w‖² + C Σ log(1 + exp(-y_i w·x_i)). w: (d,); X: (n, d); y: (n,).\'\'\'
    grad = np.array(w, dtype=float)
    for xi, yi in zip(X, y):
        zi = yi * np.dot(w, xi)
        grad -= C * yi * xi * np.exp(-np.logaddexp(0.0, zi))
    return grad
'''],
    },
    "14_neural": {"sigmoid_and_slope": [
        '''def sigmoid_and_slope(z):
    """(σ(z), σ'(z)) elementwise."""
    s = 1.0 / (1.0 + np.exp(-np.asarray(z, dtype=float)))
    return s, s * (1.0 - s)
''',
        '''def sigmoid_and_slope(z):
    """(σ(z), σ'(z)) elementwise."""
    z = np.asarray(z, dtype=float)
    sig = np.exp(-np.logaddexp(0, -z))
    return sig, sig * (1 - sig)
''',
        '''def sigmoid_and_slope(z):
    """(σ(z), σ'(z)) elementwise."""
    sigma = 1 / (1 + np.exp(-z))
    slope = sigma * (1 - sigma)
    return sigma, slope
''',
        '''def sigmoid_and_slope(z):
    """(σ(z), σ'(z)) elementwise."""
    z = np.asarray(z, dtype=float)
    e = np.exp(-np.abs(z))
    s = np.where(z >= 0, 1 / (1 + e), e / (1 + e))
    return s, s * (1 - s)
'''],
    },
}
HONEST["05_em"]["em_loop"] = [  # long enough to be compared
    '''def three_coins_em(heads, m, alpha, p, q, iterations):
    """(alpha, p, q) after `iterations` EM updates from the given start."""
    heads = np.asarray(heads, dtype=float)
    for step in range(iterations):
        like1 = alpha * p ** heads * (1 - p) ** (m - heads)
        like2 = (1 - alpha) * q ** heads * (1 - q) ** (m - heads)
        post = like1 / (like1 + like2)
        alpha = float(np.mean(post))
        p = float(np.sum(post * heads) / (m * np.sum(post)))
        q = float(np.sum((1 - post) * heads) / (m * np.sum(1 - post)))
    return alpha, p, q
''',
    '''def three_coins_em(heads, m, alpha, p, q, iterations):
    """(alpha, p, q) after `iterations` EM updates from the given start."""
    h = np.array(heads, dtype=float)
    for _ in range(iterations):
        log1 = np.log(alpha) + h * np.log(p) + (m - h) * np.log(1 - p)
        log2 = np.log(1 - alpha) + h * np.log(q) + (m - h) * np.log(1 - q)
        weight = 1 / (1 + np.exp(log2 - log1))
        alpha, p, q = m_step(h, m, weight)
    return alpha, p, q
''',
    '''def three_coins_em(heads, m, alpha, p, q, iterations):
    """(alpha, p, q) after `iterations` EM updates from the given start."""
    n = len(heads)
    for it in range(iterations):
        resp = []
        for h in heads:
            a = alpha * p**h * (1-p)**(m-h)
            b = (1-alpha) * q**h * (1-q)**(m-h)
            resp.append(a / (a + b))
        resp = np.array(resp)
        alpha = resp.sum() / n
        p = (resp * heads).sum() / (m * resp.sum())
        q = ((1 - resp) * heads).sum() / (m * (1 - resp).sum())
    return alpha, p, q
''']
COPY = '''def three_coins_em(heads, m, alpha, p, q, iterations):
    """(alpha, p, q) after `iterations` EM updates from the given start."""
    counts = np.asarray(heads, dtype=float)
    for k in range(iterations):
        b = (1 - alpha) * q ** counts * (1 - q) ** (m - counts)
        a = alpha * p ** counts * (1 - p) ** (m - counts)
        r = a / (a + b)
        p = float(np.sum(r * counts) / (m * np.sum(r)))
        alpha = float(np.mean(r))
        q = float(np.sum((1 - r) * counts) / (m * np.sum(1 - r)))
    return alpha, p, q
'''


def students() -> dict[str, dict[str, dict[str, str]]]:
    """Student -> assignment -> grade_id -> answer: ``h1``, ``h2``, ``h3`` and ``copier``."""
    found: dict[str, dict[str, dict[str, str]]] = {}
    for assignment, exercises in HONEST.items():
        for exercise, answers in exercises.items():
            for number, answer in enumerate(answers, start=1):
                found.setdefault(f"h{number}", {}).setdefault(assignment, {})[exercise] = answer
    found["copier"] = {"05_em": {"em_loop": COPY}}
    return found
