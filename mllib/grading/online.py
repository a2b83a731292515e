"""Hidden checks for the exercises of lecture 12 (online learning II).

Each checker returns a :class:`~mllib.grading.Check`: fresh inputs drawn from a fixed seed (so a
regrade gives the same score) and the mllib function that computes the expected answers.
"""

from __future__ import annotations

import numpy as np

from mllib import online as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import decided, finite, labels, unmet
from mllib.grading.perceptron import SCORE_AT_THETA, winnow_cases, winnow_domain

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.online", "mllib.perceptron")  # online reuses perceptron's Winnow
_rng = seeded(20261112)


def elimination_step() -> Check:
    """Check ``elimination_step(w, x, y, theta)``: Winnow's promotion, elimination on a false
    positive, MMDS's convention that w·x = θ is a mistake (CS446; MMDS §12.2.3)."""
    return Check("elimination_step", winnow_cases(_rng(1), "elimination"),
                 reference.elimination_update, domain=winnow_domain)


def balanced_step() -> Check:
    """Check ``balanced_step(w_plus, w_minus, x, y, theta)`` returns (w_plus, w_minus) (CS446)."""
    rng = _rng(2)
    d = 6
    x = rng.integers(0, 2, d).astype(float)
    x[0] = 1.0
    w_plus, w_minus = 2.0 ** rng.integers(-1, 3, d), 2.0 ** rng.integers(-1, 3, d)
    score = float((w_plus - w_minus) @ x)
    cases = [
        Case("a positive example above the threshold (no change)",
             (w_plus, w_minus, x, 1.0, score - 1)),
        Case("a positive example below the threshold (promotion)",
             (w_plus, w_minus, x, 1.0, score + 1)),
        Case("a negative example above the threshold (demotion)",
             (w_plus, w_minus, x, -1.0, score - 1)),
        Case("a negative example exactly at the threshold", (w_plus, w_minus, x, -1.0, score)),
        Case("a positive example exactly at the threshold", (w_plus, w_minus, x, 1.0, score)),
    ]
    return Check("balanced_step", cases, reference.balanced_winnow_update,
                 domain=_balanced_domain)


def _balanced_domain(w_plus, w_minus, x, y, theta) -> str | None:
    w_plus, w_minus, x = (np.asarray(v, dtype=float) for v in (w_plus, w_minus, x))
    return unmet(("w_plus, w_minus and x have one shape (d,)",
                  w_plus.ndim == 1 and w_plus.shape == w_minus.shape == x.shape),
                 ("the weights are positive", finite(w_plus, w_minus)
                  and bool(np.all(w_plus > 0) and np.all(w_minus > 0))),
                 ("x is a 0/1 vector and y is -1 or +1", labels(x, (0, 1)) and labels(y)),
                 (SCORE_AT_THETA, lambda: finite(theta) and decided(
                     np.concatenate([w_plus, -w_minus, [-theta]]), np.concatenate([x, x, [1]]))))


def _round(weights, advice, outcome, beta):
    return (reference.weighted_majority_vote(weights, advice),
            reference.weighted_majority_update(weights, advice, outcome, beta))


def weighted_majority_round() -> Check:
    """Check ``weighted_majority_round(weights, advice, outcome, beta)`` returns
    (prediction, new weights); ties predict +1 (Littlestone and Warmuth 1994)."""
    rng = _rng(3)
    N = 9
    weights = 0.5 ** rng.integers(0, 5, N)
    advice = rng.choice([-1.0, 1.0], N)
    # Two powers of 2, a and b, each held by one expert on each side: a + b = a + b exactly.
    order, pair = rng.permutation(4), 0.5 ** rng.integers(0, 5, 2)
    tie_weights, tie_advice = np.tile(pair, 2)[order], np.array([1.0, 1, -1, -1])[order]
    cases = [
        Case("a round where the majority is right", (weights, advice, 1.0, 0.5)),
        Case("the same advice, the other outcome", (weights, advice, -1.0, 0.5)),
        Case("β = 0.8", (weights, advice, 1.0, 0.8)),
        Case("β = 0 (halving: wrong experts drop out)", (weights, advice, -1.0, 0.0)),
        Case("a tie in weight (predict +1)", (tie_weights, tie_advice, -1.0, 0.5)),
    ]
    return Check("weighted_majority_round", cases, _round, domain=_majority_domain)


def _majority_domain(weights, advice, outcome, beta) -> str | None:
    weights = np.asarray(weights, dtype=float)
    return unmet(("weights and advice have one shape (N,)",
                  weights.ndim == 1 and np.shape(advice) == weights.shape),
                 ("the weights are finite and >= 0",
                  finite(weights) and bool(np.all(weights >= 0))),
                 ("the advice and the outcome are -1 or +1", labels(advice) and labels(outcome)),
                 ("0 <= beta < 1", finite(beta) and 0 <= beta < 1),
                 ("the two totals tie exactly (dyadic weights) or differ by far more than rounding",
                  lambda: decided(weights, advice)))


def _halving(predictions, outcomes):
    result = reference.halving(predictions, outcomes)
    return float(result.mistakes), (result.weights > 0).astype(float)


def _experts(rng, T, N, perfect):
    outcomes = rng.choice([-1.0, 1.0], T)
    wrong = rng.random((T, N)) < rng.uniform(0.05, 0.5, N)
    if perfect is None:  # "none perfect" must hold for every student's draw
        wrong[rng.integers(0, T, N), np.arange(N)] = True
    else:
        wrong[:, perfect] = False
    return np.where(wrong, -outcomes[:, None], outcomes[:, None]), outcomes


def halving() -> Check:
    """Check ``halving(predictions, outcomes)`` returns (mistakes, alive): the halving
    algorithm's mistakes and a 0/1 mask of the experts never wrong; ties (and an empty
    committee) predict +1."""
    rng = _rng(4)
    cases = [
        Case("8 experts, one perfect, 30 rounds", _experts(rng, 30, 8, 3)),
        Case("32 experts, one perfect, 60 rounds", _experts(rng, 60, 32, 17)),
        Case("5 experts, one perfect, 1 round", _experts(rng, 1, 5, 0)),
        Case("6 experts, none perfect (once all are wrong, predict +1)",
             _experts(rng, 40, 6, None)),
    ]
    return Check("halving", cases, _halving, domain=_halving_domain)


def _halving_domain(predictions, outcomes) -> str | None:
    return unmet(("predictions has shape (T, N) and outcomes shape (T,)",
                  np.ndim(predictions) == 2 and np.shape(outcomes) == (len(predictions),)),
                 ("T >= 1 and N >= 1", np.size(predictions) >= 1),
                 ("every advice and outcome is -1 or +1", labels(predictions) and labels(outcomes)))
