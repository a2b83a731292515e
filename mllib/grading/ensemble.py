"""Hidden checks for the ensemble exercises (lecture 10).

Each checker describes fresh inputs drawn from a fixed seed (so a regrade gives the same score)
and the mllib reference that computes the answers, outside the student's kernel.
"""

from __future__ import annotations

import numpy as np

from mllib import ensemble as reference
from mllib import trees
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, multiples, unmet

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.ensemble", "mllib.trees")
_rng = seeded(20261210)


def _fraction(rng: np.random.Generator) -> float:
    """k / n for a sample size n from 10 to 40 and a count of errors k below n / 2."""
    n = int(rng.integers(10, 41))
    return int(rng.integers(1, (n + 1) // 2)) / n


def alpha() -> Check:
    """Check ``adaboost_alpha(error)`` = ½ ln((1 − ε)/ε) (CS446, "Adaboost")."""
    rng = _rng(0)
    cases = [
        Case("a weak learner with error 0.1 or so", (rng.uniform(0.08, 0.12),)),
        Case("an error just below 1/2", (0.5 - rng.uniform(1e-4, 1e-2),)),
        Case("a tiny error", (10 ** -rng.uniform(3.5, 4.5),)),
        Case("an error that is a ratio of whole numbers, as the toy example's 3/22",
             (_fraction(rng),)),
    ]
    return Check("adaboost_alpha", cases, reference.alpha_from_error, domain=_alpha_domain)


def _alpha_domain(error) -> str | None:
    return unmet(("0 < error < 1/2", finite(error) and 0 < error < 0.5))


def _distribution(D) -> bool:
    """Whether D holds non-negative weights that sum to 1 (up to rounding)."""
    D = np.asarray(D, dtype=float)
    return finite(D) and bool(np.all(D >= 0)) and abs(D.sum() - 1) <= 1e-9


def reweight() -> Check:
    """Check ``reweight(D, y, h, alpha)`` returns (D_next, Z)."""
    rng = _rng(1)
    m = 12
    D = rng.random(m)
    D /= D.sum()
    y = rng.choice([-1.0, 1.0], m)
    h = y.copy()
    h[rng.choice(m, 4, replace=False)] *= -1
    error = float(D[h != y].sum())
    cases = [
        Case("a non-uniform D and the α of h's own error",
             (D, y, h, reference.alpha_from_error(error))),
        Case("a uniform D", (np.full(m, 1 / m), y, h, 0.35)),
        Case("h right on every example", (D, y, y.copy(), 0.8)),
        Case("α = 0, which must leave D unchanged", (D, y, h, 0.0)),
    ]
    return Check("reweight", cases, reference.reweight, domain=_reweight_domain)


def _reweight_domain(D, y, h, alpha) -> str | None:
    return unmet(("D, y and h have the same shape (m,)",
                  np.ndim(D) == 1 and np.shape(D) == np.shape(y) == np.shape(h)),
                 ("D is a distribution: non-negative weights that sum to 1", _distribution(D)),
                 ("y and h hold labels -1 and +1", labels(y) and labels(h)),
                 ("alpha is a number with |alpha| <= 10", finite(alpha) and abs(alpha) <= 10))


def _every_stump_error(X, y, D) -> np.ndarray:
    """The weighted error of every stump (feature, threshold at a value or below all, ±1)."""
    errors = []
    for column in X.T:
        for threshold in (-np.inf, *np.unique(column)):
            plus = np.where(column > threshold, 1.0, -1.0)
            errors += [D[plus != y].sum(), D[plus == y].sum()]
    return np.array(errors) / D.sum()


def _weights_that_matter(X, y, rng: np.random.Generator, tries: int = 50) -> np.ndarray | None:
    """A random D under which no stump of least unweighted error is a best weighted stump:
    a solution that ignores D fails, whatever its tie rule. None when ``tries`` draws found
    none (a stump with no error at all is best under every D)."""
    counted = _every_stump_error(X, y, np.ones(len(y)))
    for _ in range(tries):
        D = rng.random(len(y))
        weighted = _every_stump_error(X, y, D)
        if weighted[counted == counted.min()].min() > weighted.min() + 1e-6:
            return D / D.sum()
    return None


def _stump_error(X, y, D):
    """The reference answer: the smallest weighted error any stump achieves."""
    return trees.decision_stump(X, y, D).error


def _stump_judge(answer, expected, case: Case) -> str | None:
    """Accept any stump (feature, threshold, polarity) whose weighted error is the minimum."""
    X, y, D = (np.asarray(a, dtype=float) for a in case.args)
    if not isinstance(answer, tuple | list) or len(answer) != 3:
        return "return the three values (feature, threshold, polarity) as a tuple"
    try:
        feature, threshold, polarity = (float(v) for v in answer)
    except (TypeError, ValueError):
        return "feature, threshold and polarity should be numbers"
    if feature != int(feature) or not 0 <= feature < X.shape[1]:
        return "feature should be a column index, 0 to d - 1"
    if polarity not in (1, -1) or np.isnan(threshold):
        return "polarity should be +1 or -1, and the threshold a number"
    h = np.where(X[:, int(feature)] > threshold, polarity, -polarity)
    error = D[h != y].sum() / D.sum()
    if error > expected + 1e-9:
        return "another stump has a smaller weighted error"
    return None


def best_stump() -> Check:
    """Check ``best_stump(X, y, D)``: any stump of minimum weighted error is accepted."""
    rng = _rng(2)
    D = None
    while D is None:  # the same situation for every student's draw
        X = rng.integers(0, 10, (25, 3)).astype(float)  # repeated values within columns
        y = np.where(X[:, 1] + rng.normal(0, 2, 25) > 4.5, 1.0, -1.0)
        D = _weights_that_matter(X, y, rng)
    heavy = D.copy()
    heavy[np.argmax(y < 0)] = 5.0  # one negative example outweighs the rest
    heavy /= heavy.sum()
    one_label = np.ones(25)
    cases = [
        Case("three features and a non-uniform D", (X, y, D)),
        Case("uniform weights", (X, y, np.full(25, 1 / 25))),
        Case("one example carrying most of the weight", (X, y, heavy)),
        Case("every label +1 (the best stump errs nowhere)", (X, one_label, D)),
    ]
    return Check("best_stump", cases, _stump_error, judge=_stump_judge, domain=_stump_domain)


def _stump_domain(X, y, D) -> str | None:
    X = np.asarray(X)
    return unmet(("X has shape (m, d) with m, d >= 1, y and D shape (m,)",
                  X.ndim == 2 and X.size > 0 and np.shape(y) == np.shape(D) == (len(X),)),
                 ("X is finite", finite(X)),
                 ("y holds labels -1 and +1", labels(y)),
                 ("D is a distribution: non-negative weights that sum to 1", _distribution(D)))


def _labels(rng: np.random.Generator) -> np.ndarray:
    """Three labels from 3 to 29, in increasing order."""
    return np.sort(rng.choice(np.arange(3, 30), 3, replace=False))


def _tied_votes(rng: np.random.Generator) -> np.ndarray:
    """4 learners' labels 0-2 for 30 examples, with a tie whose first-listed label is not the
    smallest (so a tie rule other than "smallest" shows), for every student's draw."""
    while True:
        votes = rng.integers(0, 3, (4, 30))
        for column in votes.T:
            counts = np.bincount(column, minlength=3)
            tied = np.flatnonzero(counts == counts.max())
            if len(tied) > 1 and column[np.isin(column, tied)][0] != tied[0]:
                return votes


def bagging_vote() -> Check:
    """Check ``bagging_vote(predictions)``: each column's most frequent label, ties to the
    smallest."""
    rng = _rng(3)
    cases = [
        Case("15 learners, labels -1 and +1", (rng.choice([-1, 1], (15, 20)),)),
        Case("4 learners and three classes, with tied columns", (_tied_votes(rng),)),
        Case("a single learner", (rng.integers(0, 5, (1, 8)),)),
        Case("three labels other than 0, 1, 2, ties to the smallest",
             (_labels(rng)[np.array([[1, 2, 0], [2, 1, 0], [0, 0, 2], [2, 1, 1]])],)),
    ]
    return Check("bagging_vote", cases, reference.plurality_vote, domain=_vote_domain)


def _vote_domain(predictions) -> str | None:
    return unmet(("predictions has shape (B, n) with B >= 1 and n >= 1",
                  np.ndim(predictions) == 2 and np.size(predictions) >= 1),
                 ("the labels are integers", multiples(predictions, 1)))
