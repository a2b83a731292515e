"""Hidden checks for the PAC exercises (lecture 03).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

import math

import numpy as np

from mllib import pac as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import labels, power_of_two, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.pac",)
_rng = seeded(20261203)


def occam_size() -> Check:
    """Check ``occam_sample_size(h_size, eps, delta)`` (CS446, Occam's razor)."""
    rng = _rng(1)
    eps, delta = rng.uniform(0.02, 0.2), rng.uniform(0.01, 0.1)
    cases = [
        Case("conjunctions over 20 variables, a typical ε and δ", (3**20, eps, delta)),
        Case("a class of 2^50 hypotheses with a small ε", (2**50, eps / 4, delta)),
        Case("a single hypothesis (ln|H| = 0)", (1, eps, delta)),
        Case("a large δ, so the confidence term is small", (1000, eps, 0.9)),
        Case("a bound a little above a whole number (round up, not to the nearest)",
             (1, 0.5, math.exp(-0.5 * (int(rng.integers(2, 7)) + rng.uniform(0.05, 0.2))))),
    ]
    return Check("occam_sample_size", cases, reference.occam_sample_size,
                 domain=_occam_domain)


def _probability(value) -> bool:
    """Whether ``value`` is a number strictly between 0 and 1."""
    return isinstance(value, int | float) and 0 < value < 1


def _far_from_whole(bound: float) -> bool:
    """Whether ``bound`` is at least 1e-9 (relative) from every whole number, so that the
    rounding of its computation (about 1e-15 relative) cannot change where it rounds up to."""
    return abs(bound - round(bound)) > 1e-9 * max(1.0, abs(bound))


def _occam_domain(h_size, eps, delta) -> str | None:
    return unmet(("|H| is a whole number >= 1", whole(h_size, 1)),
                 ("0 < eps, delta < 1", _probability(eps) and _probability(delta)),
                 ("the right-hand side is at least 1e-9 (relative) from a whole number",
                  lambda: _far_from_whole((math.log(h_size) + math.log(1 / delta)) / eps)))


def occam_inverse() -> Check:
    """Check ``occam_epsilon(h_size, m, delta)``, the ε that m examples guarantee."""
    rng = _rng(2)
    m = int(rng.integers(300, 900))
    cases = [
        Case("conjunctions over 15 variables with a few hundred examples", (3**15, m, 0.05)),
        Case("a class of a million hypotheses, δ = 0.01", (10**6, m, 0.01)),
        Case("a single hypothesis", (1, m, 0.2)),
        Case("too few examples: the formula exceeds 1 and must be capped",
             (3 ** int(rng.integers(12, 18)), int(rng.integers(2, 12)), 0.05)),
    ]
    return Check("occam_epsilon", cases, reference.occam_epsilon, domain=_inverse_domain)


def _inverse_domain(h_size, m, delta) -> str | None:
    return unmet(("|H| and m are whole numbers >= 1", whole(h_size, 1) and whole(m, 1)),
                 ("0 < delta < 1", _probability(delta)))


def vc_size() -> Check:
    """Check ``vc_sample_size(vc, eps, delta)`` (Blumer et al., base-2 logs)."""
    rng = _rng(3)
    eps, delta = rng.uniform(0.02, 0.2), rng.uniform(0.01, 0.1)
    cases = [
        Case("half-planes in the plane (VC = 3)", (3, eps, delta)),
        Case("a class of VC dimension 50", (50, eps, delta)),
        Case("a small ε", (4, eps / 5, delta)),
        # ε = 2^-a, δ = 1/2 (the statement's promise): (4/ε)·log2(2/δ) = 2^(a+3) exactly
        Case("VC dimension 0 with a bound that is exactly a whole number: m ≥ the bound",
             (0, 0.5 ** int(rng.integers(1, 11)), 0.5)),
    ]
    return Check("vc_sample_size", cases, reference.vc_sample_size, domain=_vc_domain)


def _vc_domain(vc, eps, delta) -> str | None:
    """Exercise 3's promises: the bound is exact (VC = 0, δ = 1/2, ε a power of 2: every
    logarithm is a whole number however computed) or far from a whole number."""
    broken = unmet(("the VC dimension is a whole number >= 0", whole(vc)),
                   ("0 < eps, delta < 1", _probability(eps) and _probability(delta)))
    if broken:
        return broken
    exact = vc == 0 and delta == 0.5 and power_of_two(eps)
    bound = (8 * vc * math.log2(13 / eps) + 4 * math.log2(2 / delta)) / eps
    return unmet(("the bound is exact in floating point (VC = 0, delta = 1/2, eps a power of 2) "
                  "or at least 1e-9 (relative) from a whole number",
                  exact or _far_from_whole(bound)))


def _literals(X, y):
    h = reference.eliminate(X, y).hypothesis
    return h.positive, h.negative


def _sample(rng: np.random.Generator, n: int, m: int, target: reference.Conjunction):
    X = (rng.random((m, n)) < 0.5).astype(float)
    return X, reference.predict_conjunction(target, X)


def elimination() -> Check:
    """Check ``eliminate(X, y)`` returns the surviving literals (keep_x, keep_not_x)."""
    rng = _rng(4)
    target = reference.make_conjunction(8, positive=[1, 4], negative=[6])
    cases = [Case("a sample of 60 examples labelled by a conjunction over 8 variables",
                  _sample(rng, 8, 60, target)),
             Case("a sample of only 5 examples, so extra literals survive",
                  _sample(rng, 8, 5, target))]
    X, y = _sample(rng, 8, 20, target)
    cases.append(Case("a sample with no positive example", (X, -np.ones(20))))
    cases.append(Case("positive examples interleaved with many negatives (ignore the negatives)",
                      (np.vstack([X, 1 - X]), np.concatenate([y, -np.ones(20)]))))
    cases.append(Case("a single variable", _sample(rng, 1, 6,
                                                   reference.make_conjunction(1, positive=[0]))))
    return Check("eliminate", cases, _literals, domain=_boolean_sample)


def _boolean_sample(X, y) -> str | None:
    X = np.asarray(X, dtype=float)
    return unmet(("X has shape (m, n) with m, n >= 1, y shape (m,)",
                  X.ndim == 2 and X.size > 0 and np.shape(y) == (len(X),)),
                 ("X holds 0/1 entries, y labels -1 and +1", labels(X, (0, 1)) and labels(y)))


def error_rate() -> Check:
    """Check ``error_rate(keep_x, keep_not_x, X, y)``, the fraction of (X, y) misclassified."""

    def run(keep_x, keep_not_x, X, y):
        h = reference.Conjunction(np.asarray(keep_x, bool), np.asarray(keep_not_x, bool))
        return float(np.mean(reference.predict_conjunction(h, X) != y))

    rng = _rng(5)
    target = reference.make_conjunction(6, positive=[0, 3], negative=[5])
    X, y = _sample(rng, 6, 500, target)
    none = np.zeros(6, dtype=bool)
    learned = reference.eliminate(*_sample(rng, 6, 8, target)).hypothesis
    cases = [
        Case("the target itself (error 0)", (target.positive, target.negative, X, y)),
        Case("a conjunction learned from few examples", (learned.positive, learned.negative,
                                                         X, y)),
        Case("the empty conjunction, which is always true", (none, none, X, y)),
        Case("the always-false conjunction (x and not x)", (~none, ~none, X, y)),
    ]
    return Check("error_rate", cases, run, domain=_error_domain)


def _error_domain(keep_x, keep_not_x, X, y) -> str | None:
    n = np.shape(X)[1] if np.ndim(X) == 2 else -1
    return _boolean_sample(X, y) or unmet(
        ("keep_x and keep_not_x are boolean arrays of length n",
         all(np.asarray(keep).dtype == bool and np.shape(keep) == (n,)
             for keep in (keep_x, keep_not_x))))
