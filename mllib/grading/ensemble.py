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


# The large-values case: 10^17 + 128·k, k = 0..9, far above 2^54, where v - 1 rounds to v (so
# "the smallest value minus 1" is no threshold below it); 128 is a multiple of the doubles'
# spacing there (16), so the values and their midpoints are exact.
BIG, BIG_STEP = 1e17, 128.0


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
        Case("values near 10^17, where v - 1 == v, and every label +1",
             (BIG + BIG_STEP * X, one_label, D)),
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


def _replicates(rng: np.random.Generator, B: int, m: int) -> np.ndarray:
    """B bootstrap replicates of m examples: (B, m) indices drawn with replacement, drawn again
    in the rare draw (m!/m^m per replicate: 1 in 2,755 for one replicate of 10) where every
    replicate holds every example, so that no example has an out-of-bag vote."""
    while True:
        samples = rng.integers(0, m, (B, m))
        if any(len(np.unique(row)) < m for row in samples):
            return samples


def _guesses(rng: np.random.Generator, y: np.ndarray, B: int, labels_: np.ndarray,
             wrong: float) -> np.ndarray:
    """B learners' labels for the examples: each is y, replaced by a random label with
    probability ``wrong``."""
    noise = rng.choice(labels_, (B, len(y)))
    return np.where(rng.random((B, len(y))) < wrong, noise, y)


def _unheard_and_heard(rng: np.random.Generator, y: np.ndarray, B: int):
    """Few replicates, drawn until some example is in all of them and others are not, with
    some wrong out-of-bag votes (so counting the examples in every replicate shows)."""
    while True:
        samples = _replicates(rng, B, len(y))
        guesses = _guesses(rng, y, B, np.array([-1, 1]), 0.4)
        out = np.ones(samples.shape, dtype=bool)
        out[np.arange(B)[:, None], samples] = False
        if 0 < out.any(axis=0).sum() < len(y) and reference.oob_error(guesses, samples, y) > 0:
            return guesses, samples


def _out_of_bag_matters(rng: np.random.Generator, y: np.ndarray, B: int):
    """Replicates and guesses on which the out-of-bag vote and the vote of every learner give
    different errors, for every student's draw."""
    while True:
        samples = _replicates(rng, B, len(y))
        guesses = _guesses(rng, y, B, np.array([-1, 1]), 0.9)
        everyone = np.mean(reference.plurality_vote(guesses) != y)
        if reference.oob_error(guesses, samples, y) != everyone:
            return guesses, samples


def _tied_out_of_bag(rng: np.random.Generator, y: np.ndarray, B: int):
    """Replicates and guesses on which ties to the smallest label and ties to the largest give
    different OOB errors, for every student's draw."""
    classes = np.unique(y)
    while True:
        samples = _replicates(rng, B, len(y))
        guesses = _guesses(rng, y, B, classes, 0.6)
        flipped = classes.max() + classes.min() - guesses  # reverses the order of the labels
        if reference.oob_error(guesses, samples, y) != reference.oob_error(
                flipped, samples, classes.max() + classes.min() - y):
            return guesses, samples


def oob_error() -> Check:
    """Check ``oob_error(predictions, samples, y)``: the plurality vote of each example's
    out-of-bag learners (ties to the smallest label), wrong votes over the examples that got
    one."""
    rng = _rng(4)
    y_pm = rng.choice([-1, 1], 20)
    y_three = rng.integers(0, 3, 15)
    y_other = _labels(rng)[rng.integers(0, 3, 12)]
    cases = [
        Case("25 learners, labels -1 and +1",
             (*_out_of_bag_matters(rng, y_pm, 25), y_pm)),
        Case("3 learners: some examples are in every replicate",
             (*_unheard_and_heard(rng, y_pm[:12], 3), y_pm[:12])),
        Case("4 learners and three classes, with tied out-of-bag votes",
             (*_tied_out_of_bag(rng, y_three, 4), y_three)),
        Case("a single learner", (_guesses(rng, y_pm[:10], 1, np.array([-1, 1]), 0.8),
                                  _replicates(rng, 1, 10), y_pm[:10])),
        Case("three labels other than 0, 1, 2",
             (*_tied_out_of_bag(rng, y_other, 5), y_other)),
    ]
    return Check("oob_error", cases, reference.oob_error, builds_on=("bagging_vote",),
                 domain=_oob_domain)


def _oob_domain(predictions, samples, y) -> str | None:
    shape = np.shape(predictions)
    return unmet(("predictions and samples have shape (B, m) and y (m,), with B, m >= 1",
                  len(shape) == 2 and np.size(predictions) >= 1
                  and np.shape(samples) == shape and np.shape(y) == shape[1:]),
                 ("the labels are integers", multiples(predictions, 1) and multiples(y, 1)),
                 ("samples holds indices 0 to m - 1", lambda: multiples(samples, 1) and bool(
                     np.all((np.asarray(samples) >= 0) & (np.asarray(samples) < shape[1])))),
                 ("some example is out of bag for some learner (a replicate leaves it out)",
                  lambda: any(len(np.unique(row)) < shape[1] for row in np.asarray(samples))))
