"""Hidden checks for the Bayesian-learning and Bayesian-network exercises (lecture 13).

Each checker returns a :class:`~mllib.grading.Check`: fresh inputs from a fixed seed (so a regrade
gives the same score) as plain data, and a reference built on ``mllib.bayes`` and
``mllib.bayesnet``. Networks travel as two dicts, ``parents`` {name: [parent names]} and ``cpts``
{name: array with one axis per parent, in order, then the variable's own axis}, over binary
variables (values 0 and 1), as in the exercise notebook.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from mllib import bayes
from mllib.bayesnet import BayesNet, bayes_net, random_network
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, unmet, whole

REFERENCE = ("mllib.bayes", "mllib.bayesnet")  # hidden from the kernel while grading
_rng = seeded(20261313)


def _coin_map(heads, tosses, a, b):
    return bayes.coin_map([1] * int(heads) + [0] * int(tosses - heads), a, b)


def map_estimate() -> Check:
    """Check ``map_estimate(heads, tosses, a, b)`` = (k + a - 1)/(m + a + b - 2)."""
    rng = _rng(0)
    m = int(rng.integers(8, 21))
    flat = int(rng.integers(5, 16))
    strong = int(rng.integers(15, 26))
    cases = [
        Case("some heads in a dozen or so tosses, prior Beta(a, a) with a > 1",
             (int(rng.integers(1, m)), m, *[float(rng.integers(2, 6))] * 2)),
        Case("a flat prior Beta(1, 1), where MAP equals k/m",
             (int(rng.integers(1, flat)), flat, 1.0, 1.0)),
        Case("no heads at all, prior Beta(a, b) with b > a > 1",
             (0, int(rng.integers(3, 11)), 2.0, float(rng.integers(3, 8)))),
        Case("all heads, prior Beta(a, 1.5)", (*[int(rng.integers(5, 13))] * 2,
                                               float(rng.integers(2, 7)), 1.5)),
        Case("no tosses yet: the prior's own mode",
             (0, 0, float(rng.integers(2, 9)), float(rng.integers(2, 9)))),
        Case("a strong prior Beta(a, a), a about 50, against all heads",
             (strong, strong, *[float(rng.integers(40, 61))] * 2)),
    ]
    return Check("map_estimate", cases, _coin_map, domain=_map_domain)


def _map_domain(heads, tosses, a, b) -> str | None:
    return unmet(("heads and tosses are whole numbers with 0 <= heads <= tosses",
                  whole(heads) and whole(tosses) and heads <= tosses),
                 ("a, b >= 1", finite(a, b) and a >= 1 and b >= 1),
                 ("the denominator m + a + b - 2 is not 0", tosses + a + b - 2 != 0))


def _nb_predict(X, y, x, s):
    model = bayes.naive_bayes(X, y, smoothing=s)
    return float(bayes.naive_bayes_predict(model, np.asarray(x)[None, :])[0])


def _clear_margin(X, y, x, s, margin: float = 1e-3) -> bool:
    """True when the two classes' log posteriors differ by more than ``margin`` (no tie)."""
    model = bayes.naive_bayes(X, y, smoothing=s)
    scores = bayes.naive_bayes_log_posterior(model, np.asarray(x)[None, :])[0]
    return abs(scores[0] - scores[1]) > margin


def _likelihood_scores(X, y, x, s) -> list[float]:
    """The two classes' log scores without their prior log P(v), the slip that leaves it out."""
    return [score - np.log(np.mean(y == v))
            for score, v in zip(_nb_log_scores(X, y, x, s), (-1.0, 1.0), strict=True)]


def _present_only_scores(X, y, x, s) -> list[float]:
    """The two classes' log scores of the classic slip, which multiplies over the words x has
    and leaves out the absent ones."""
    return _nb_log_scores(X[:, x == 1], y, x[x == 1], s)


def _edge_emails(rng: np.random.Generator, spam_word: float, accept) -> tuple:
    """(X, y, x, s = 1): a few training e-mails with both labels over a few words, one word j
    of the student's own being ``spam_word`` in every spam e-mail and the other value in the
    test e-mail x; drawn until ``accept(X, y, x, s)``."""
    while True:
        m, d = int(rng.integers(5, 10)), int(rng.integers(2, 5))
        y = rng.permutation(np.append([1.0, -1.0], np.where(rng.random(m - 2) < 0.6, 1.0, -1.0)))
        X, x = rng.integers(0, 2, (m, d)).astype(float), rng.integers(0, 2, d).astype(float)
        j = int(rng.integers(d))
        X[y > 0, j], x[j] = spam_word, 1 - spam_word
        if accept(X, y, x, 1.0):
            return X, y, x, 1.0


def naive_bayes_prediction() -> Check:
    """Check ``nb_predict(X, y, x, s)``: the Bernoulli naive-Bayes label (+1/-1) of x."""
    cases = []
    for offset, (m, d, s, spam_rate) in enumerate([(12, 5, 1.0, 0.5), (20, 8, 1.0, 0.3),
                                                  (15, 6, 0.5, 0.6), (30, 10, 2.0, 0.5)]):
        rng = _rng(10 + offset)
        # Spam and ham use words at different rates, so the prediction depends on x.
        y = np.where(rng.random(m) < spam_rate, 1.0, -1.0)
        y[:2] = 1.0, -1.0
        rates = np.where(y[:, None] > 0, rng.uniform(0.2, 0.8, d), rng.uniform(0.1, 0.9, d))
        X = (rng.random((m, d)) < rates).astype(float)
        candidates = (rng.integers(0, 2, d).astype(float) for _ in range(50))
        x = next(x for x in candidates if _clear_margin(X, y, x, s))  # no near-tie
        cases.append(Case(f"{m} training e-mails over {d} words, smoothing s = {s}",
                          (X, y, x, s)))
    # A word never seen in spam, which the test e-mail has: spam wins all the same, which only
    # smoothing allows (without it P(x_j = 1 | spam) = 0), and only by its prior (as in the
    # case this one replaced, which caught answers that leave P(v) out).
    cases.append(Case("a test e-mail with a word never seen in spam (smoothing keeps it "
                      "possible)", _edge_emails(_rng(14), 0.0, lambda *e: (
                          _nb_predict(*e) == 1.0 and _clear_margin(*e)
                          and np.subtract(*_likelihood_scores(*e)) > 1e-3))))
    # A word every spam e-mail has, which the test e-mail lacks: ham wins, and would lose if
    # only the words present counted.
    cases.append(Case("a test e-mail that lacks a word every spam e-mail has (absent words "
                      "count too)", _edge_emails(_rng(15), 1.0, lambda *e: (
                          _nb_predict(*e) == -1.0 and _clear_margin(*e)
                          and np.subtract(*_present_only_scores(*e)) < -1e-3))))
    return Check("nb_predict", cases, _nb_predict, domain=_nb_domain)


def _nb_log_scores(X, y, x, s) -> list[float]:
    """log P(v) + Σⱼ log P(xⱼ | v) for v = -1, +1, by the statement's formulas."""
    scores = []
    for v in (-1.0, 1.0):
        rows = X[y == v]
        theta = (rows.sum(axis=0) + s) / (len(rows) + 2 * s)
        scores.append(np.log(len(rows) / len(X))
                      + np.sum(np.where(x == 1, np.log(theta), np.log1p(-theta))))
    return scores


def _nb_domain(X, y, x, s) -> str | None:
    X, y, x = (np.asarray(a, dtype=float) for a in (X, y, x))
    return unmet(("X has shape (m, d), y shape (m,) and x shape (d,)",
                  X.ndim == 2 and y.shape == (len(X),) and x.shape == X.shape[1:]),
                 ("d >= 1", X.ndim == 2 and X.shape[1] >= 1),
                 ("the features are 0/1 and the labels -1/+1", labels(X, (0, 1))
                  and labels(x, (0, 1)) and labels(y)),
                 ("both labels occur in y", lambda: set(y.tolist()) == {-1.0, 1.0}),
                 ("s > 0", finite(s) and s > 0),
                 ("no tie: the two classes' log scores differ by more than 1e-6",
                  lambda: abs(np.subtract(*_nb_log_scores(X, y, x, s))) > 1e-6))


def _network(parents, cpts) -> BayesNet:
    return bayes_net({v: (0, 1) for v in cpts}, parents, cpts)


def _plain(net: BayesNet) -> tuple[dict, dict]:
    """A network as the exercise's plain dicts."""
    return ({v: list(net.parents[v]) for v in net.names},
            {v: np.asarray(net.cpts[v]) for v in net.names})


def _joint(parents, cpts, assignment):
    return _network(parents, cpts).joint(assignment)


def _acyclic(parents: dict) -> bool:
    """Whether following parents from any variable never comes back to it."""
    done: set = set()

    def reaches_root(v, path) -> bool:
        if v in done:
            return True
        if v in path:
            return False
        ok = all(reaches_root(u, path | {v}) for u in parents[v])
        done.add(v)
        return ok

    return all(reaches_root(v, frozenset()) for v in parents)


def _network_broken(parents, cpts) -> str | None:
    """The notebook's conventions for a Bayesian network over binary variables."""
    return unmet(("parents and cpts name the same variables",
                  isinstance(parents, dict) and isinstance(cpts, dict)
                  and set(parents) == set(cpts) and len(cpts) >= 1),
                 ("every parent is a variable, and the graph has no cycle",
                  lambda: all(u in cpts for us in parents.values() for u in us)
                  and _acyclic(parents)),
                 ("cpts[v] is a numpy array, never a nested list",
                  lambda: all(isinstance(table, np.ndarray) for table in cpts.values())),
                 ("cpts[v] has one axis of length 2 per parent and one for v, and each row is "
                  "a distribution", lambda: all(
                      np.shape(cpts[v]) == (2,) * (len(parents[v]) + 1)
                      and np.all(np.asarray(cpts[v]) >= 0)
                      and np.allclose(np.sum(cpts[v], axis=-1), 1) for v in cpts)))


def _assignment_broken(cpts, assignment, complete: bool) -> str | None:
    values = list(assignment.values()) if isinstance(assignment, dict) else [None]
    return unmet(("the assignment gives variables of the network values 0 or 1",
                  isinstance(assignment, dict) and set(assignment) <= set(cpts)
                  and all(whole(value) and value <= 1 for value in values)),
                 ("the assignment is complete", not complete or set(assignment) == set(cpts)))


def _joint_domain(parents, cpts, assignment) -> str | None:
    return _network_broken(parents, cpts) or _assignment_broken(cpts, assignment, True)


def _random_cases(first_offset: int, sizes) -> list[tuple[dict, dict, np.random.Generator]]:
    out = []
    for offset, (n, max_parents) in enumerate(sizes):
        rng = _rng(first_offset + offset)
        parents, cpts = _plain(random_network(n, max_parents=max_parents, seed=rng))
        out.append((parents, cpts, rng))
    return out


def joint_probability() -> Check:
    """Check ``joint_probability(parents, cpts, assignment)`` = Πᵢ P(xᵢ | Parents(xᵢ))."""
    cases = []
    for parents, cpts, rng in _random_cases(30, [(4, 1), (6, 2), (8, 3)]):
        # Variables listed in reverse, so a solution cannot rely on parents coming first.
        names = list(cpts)[::-1]
        assignment = {v: int(rng.integers(2)) for v in names}
        cases.append(Case(f"a random network of {len(names)} binary variables",
                          ({v: parents[v] for v in names}, {v: cpts[v] for v in names},
                           assignment)))
    p = rng.uniform(0.1, 0.9)  # the last network's generator: the student's own
    cases.append(Case("a single variable with no parents", ({"X": []}, {"X": np.array(
        [p, 1 - p])}, {"X": int(rng.integers(2))})))
    return Check("joint_probability", cases, _joint, tolerance=1e-12,  # joints can be ~1e-6
                 domain=_joint_domain)


def _query(parents, cpts, target, evidence):
    return _network(parents, cpts).query(target, evidence, method="enumeration")


def query_by_enumeration() -> Check:
    """Check ``query(parents, cpts, target, evidence)`` = [P(target=0 | e), P(target=1 | e)]."""
    cases = []
    sizes = [(5, 2, 1), (6, 2, 2), (7, 3, 2), (5, 1, 0)]
    for (parents, cpts, rng), (_, _, observed) in zip(
            _random_cases(40, [(n, p) for n, p, _ in sizes]), sizes, strict=True):
        names = [str(v) for v in rng.permutation(list(cpts))]
        target, evidence = names[0], {v: int(rng.integers(2)) for v in names[1:1 + observed]}
        what = (f"a random network of {len(names)} variables with {observed} observed"
                if observed else f"a random network of {len(names)} variables, no evidence")
        cases.append(Case(what, (parents, cpts, target, evidence)))
    # Evidence on a child of the target: the answer needs Bayes' rule, not just the target's CPT.
    a, b, c = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9, 2), rng.uniform(0.1, 0.9, 2)
    chain = ({"A": [], "B": ["A"], "C": ["B"]},
             {"A": np.array([a, 1 - a]), "B": np.column_stack([b, 1 - b]),
              "C": np.column_stack([c, 1 - c])})
    cases.append(Case("the chain A → B → C, asking about A after seeing C = 1",
                      (*chain, "A", {"C": 1})))
    return Check("query", cases, _query, builds_on=("joint_probability",),
                 domain=_query_domain)


def _query_domain(parents, cpts, target, evidence) -> str | None:
    return (_network_broken(parents, cpts) or _assignment_broken(cpts, evidence, False)
            or unmet(("the target is a variable, not in the evidence",
                      target in cpts and target not in evidence),
                     ("the evidence has probability P(e) > 0",
                      lambda: _probability(parents, cpts, evidence) > 0)))


def _probability(parents, cpts, evidence) -> float:
    """P(evidence): the statement's joint (a product of CPT entries) summed over every
    completion of the evidence."""
    hidden = [v for v in cpts if v not in evidence]
    total = 0.0
    for values in itertools.product((0, 1), repeat=len(hidden)):
        world = {**evidence, **dict(zip(hidden, values, strict=True))}
        total += math.prod(float(np.asarray(cpts[v])[(*(world[u] for u in parents[v]),
                                                       world[v])]) for v in cpts)
    return total
