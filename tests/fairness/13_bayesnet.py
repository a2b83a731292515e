"""Second correct answers for 13_bayesnet: written unlike the instructor's solution (see
tests/test_fairness.py)."""

ANSWERS = {
    "map_estimate": """\
def map_estimate(heads, tosses, a, b):
    a_post, b_post = a + heads, b + tosses - heads  # the posterior Beta(a', b'), then its mode
    return (a_post - 1) / (a_post + b_post - 2)
""",
    "nb_predict": """\
def nb_predict(X, y, x, s):
    scores = {}
    for v in (1, -1):  # plain products over lists
        rows = [r for r, label in zip(X, y) if label == v]
        p = len(rows) / len(X)
        for j, bit in enumerate(x):
            on = (sum(r[j] for r in rows) + s) / (len(rows) + 2 * s)
            p *= on if bit == 1 else 1 - on
        scores[v] = p
    return max(scores, key=scores.get)
""",
    "joint_probability": """\
import math


def joint_probability(parents, cpts, assignment):
    total = 0.0  # in log space, walking down the nested lists
    for v in parents:
        row = cpts[v]
        for u in parents[v]:
            row = row[assignment[u]]
        total += math.log(row[assignment[v]])
    return math.exp(total)
""",
    "query": """\
def query(parents, cpts, target, evidence):
    names = list(cpts)
    totals = [0.0, 0.0]  # every complete world, keeping those that agree with the evidence
    for values in itertools.product((0, 1), repeat=len(names)):
        world = dict(zip(names, values))
        if all(world[v] == e for v, e in evidence.items()):
            totals[world[target]] += joint_probability(parents, cpts, world)
    return [t / sum(totals) for t in totals]
""",
}
