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
import math


def three_coins_em(heads, m, alpha, p, q, iterations):
    params = (alpha, p, q)
    for _ in range(iterations):
        a, b, c = params
        weights = []
        for h in heads:  # the E-step inline, one sequence at a time, from the log-odds
            odds = (math.log(a / (1 - a)) + h * math.log(b / c)
                    + (m - h) * math.log((1 - b) / (1 - c)))
            weights.append(1 / (1 + math.exp(-odds)) if odds > -700 else 0.0)
        params = m_step(heads, m, weights)
    return tuple(float(v) for v in params)
""",
}
