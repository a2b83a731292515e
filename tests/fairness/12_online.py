"""Second correct answers for 12_online: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "elimination_step": """\
def elimination_step(w, x, y, theta):
    score = sum(w_i * x_i for w_i, x_i in zip(w, x))
    if (score > theta) if y == 1 else (score < theta):
        return list(w)
    if y == 1:
        return [2 * w_i if x_i == 1 else w_i for w_i, x_i in zip(w, x)]
    return [0.0 if x_i == 1 else w_i for w_i, x_i in zip(w, x)]
""",
    "balanced_step": """\
def balanced_step(w_plus, w_minus, x, y, theta):
    score = sum((p - m) * x_i for p, m, x_i in zip(w_plus, w_minus, x))
    wrong = score <= theta if y == 1 else score >= theta
    new_plus, new_minus = list(w_plus), list(w_minus)
    if wrong:
        up = 2.0 ** y  # 2 on a promotion, 1/2 on a demotion
        for i, x_i in enumerate(x):
            if x_i == 1:
                new_plus[i] *= up
                new_minus[i] /= up
    return new_plus, new_minus
""",
    "weighted_majority_round": """\
def weighted_majority_round(weights, advice, outcome, beta):
    total = float(np.dot(weights, advice))  # weight for +1 minus weight for -1
    prediction = 1 if total >= 0 else -1
    return prediction, [w * (beta if a != outcome else 1) for w, a in zip(weights, advice)]
""",
    "halving": """\
def halving(predictions, outcomes):
    n_experts = len(predictions[0])
    alive = set(range(n_experts))
    mistakes = 0
    for advice, outcome in zip(predictions.tolist(), outcomes.tolist()):
        votes = sum(advice[j] for j in alive)
        mistakes += (1 if votes >= 0 else -1) != outcome
        alive = {j for j in alive if advice[j] == outcome}
    return mistakes, [1 if j in alive else 0 for j in range(n_experts)]
""",
}
