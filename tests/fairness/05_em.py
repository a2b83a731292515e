"""Second correct answers for 05_em: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "e_step": """\
def e_step(heads, m, alpha, p, q):
    result = []
    for h in heads:  # in log space
        one = np.log(alpha) + h * np.log(p) + (m - h) * np.log(1 - p)
        two = np.log(1 - alpha) + h * np.log(q) + (m - h) * np.log(1 - q)
        result.append(1 / (1 + np.exp(two - one)))
    return result
""",
    "m_step": """\
def m_step(heads, m, posterior):
    total = sum(posterior)
    alpha = total / len(posterior)
    p = sum(w * h for w, h in zip(posterior, heads)) / (m * total)
    q = sum((1 - w) * h for w, h in zip(posterior, heads)) / (m * (len(posterior) - total))
    return (alpha, p, q)
""",
    "loglik": """\
def log_likelihood(heads, m, alpha, p, q):
    heads = np.asarray(heads, dtype=float)
    one = np.log(alpha) + heads * np.log(p) + (m - heads) * np.log(1 - p)
    two = np.log(1 - alpha) + heads * np.log(q) + (m - heads) * np.log(1 - q)
    return np.logaddexp(one, two).sum()
""",
    "em_loop": """\
def three_coins_em(heads, m, alpha, p, q, iterations):
    params = (alpha, p, q)
    for _ in range(iterations):
        params = m_step(heads, m, e_step(heads, m, *params))
    return tuple(float(v) for v in params)
""",
}
