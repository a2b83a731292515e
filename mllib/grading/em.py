"""Hidden checks for the EM exercises (lecture 05, the three coins of CS446 Lecture 10).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib.em, and compares them with the student's function.
"""

from __future__ import annotations

import numpy as np

from mllib import em as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, multiples, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.em",)
_rng = seeded(20260505)


def _data(offset: int, n: int, m: int) -> np.ndarray:
    """Head counts of n sequences of m tosses from a random three-coin model."""
    rng = _rng(offset)
    alpha, p, q = rng.uniform(0.2, 0.8), rng.uniform(0.6, 0.9), rng.uniform(0.1, 0.4)
    return reference.sample_coins(n, m, alpha=alpha, p=p, q=q, seed=rng)


# Head counts near m/2 of sequences of 1000 tosses: at (α, p, q) = (0.4, 0.7, 0.25) both terms
# α p^h (1-p)^(m-h) and (1-α) q^h (1-q)^(m-h) underflow to 0 (about e^-780 and e^-837 at h = 500),
# so the formula as written gives 0/0; the statements ask for log space.
_UNDERFLOW = (0.4, 0.7, 0.25)


def _long_sequences(offset: int) -> np.ndarray:
    """Ten head counts of 1000 tosses of a fair coin, where the terms underflow."""
    return _rng(offset).binomial(1000, 0.5, 10)


def _head_counts(heads, m, least_m: int = 0) -> str | None:
    """At least one sequence, each with a whole number of heads out of m tosses."""
    heads = np.asarray(heads, dtype=float)
    return unmet((f"m is a whole number >= {least_m}", whole(m, least_m)),
                 ("heads has shape (n,) with n >= 1", heads.ndim == 1 and len(heads) >= 1),
                 ("every head count is a whole number from 0 to m",
                  lambda: multiples(heads, 1) and bool(np.all((heads >= 0) & (heads <= m)))))


def _inside(*values) -> bool:
    return finite(*values) and all(0 < value < 1 for value in values)


def _model_domain(heads, m, alpha, p, q) -> str | None:
    """Exercises 1 and 3: head counts, and 0 < α, p, q < 1."""
    return _head_counts(heads, m) or unmet(("0 < alpha, p, q < 1", _inside(alpha, p, q)))


def e_step() -> Check:
    """Check ``e_step(heads, m, alpha, p, q)`` returns P₁ⁱ for every sequence."""
    heads = _data(1, 25, 10)
    long_runs = _data(2, 15, 50)
    cases = [
        Case("25 sequences of 10 tosses", (heads, 10, 0.5, 0.7, 0.3)),
        Case("a start where coin 1 is rarely chosen (α = 0.1)", (heads, 10, 0.1, 0.8, 0.4)),
        Case("p smaller than q", (heads, 10, 0.6, 0.2, 0.9)),
        Case("the symmetric start p = q, where P₁ⁱ must equal α", (heads, 10, 0.35, 0.5, 0.5)),
        Case("p and q close to the ends 0 and 1 (still strictly inside)",
             (heads, 10, 0.5, 0.001, 0.999)),
        Case("15 sequences of 50 tosses", (long_runs, 50, 0.5, 0.6, 0.45)),
        Case("10 sequences of 1000 tosses, where p^h (1-p)^(m-h) underflows for both coins",
             (_long_sequences(3), 1000, *_UNDERFLOW)),
    ]
    return Check("e_step", cases, reference.e_step, domain=_model_domain)


def m_step() -> Check:
    """Check ``m_step(heads, m, posterior)`` returns (alpha, p, q)."""
    heads = _data(10, 30, 8)
    rng = _rng(11)
    cases = [
        Case("30 sequences with posteriors spread over (0, 1)", (heads, 8, rng.random(30))),
        Case("posteriors of exactly 0 or 1 (the coins known, as in scenario II)",
             (heads, 8, (rng.random(30) < 0.4).astype(float))),
        Case("every posterior equal to 0.25", (heads, 8, np.full(30, 0.25))),
        Case("a single sequence of 8 tosses", (heads[:1], 8, np.array([0.7]))),
    ]
    return Check("m_step", cases, reference.m_step, domain=_m_step_domain)


def _m_step_domain(heads, m, posterior) -> str | None:
    posterior = np.asarray(posterior, dtype=float)
    return _head_counts(heads, m, 1) or unmet(
        ("one posterior per sequence, each in [0, 1]",
         posterior.shape == np.shape(heads) and finite(posterior)
         and bool(np.all((posterior >= 0) & (posterior <= 1)))),
        ("not every posterior is 0, nor every one 1 (p or q would be nan)",
         bool(np.any(posterior > 0) and np.any(posterior < 1))))


def log_likelihood() -> Check:
    """Check ``log_likelihood(heads, m, alpha, p, q)``."""
    heads = _data(20, 40, 12)
    cases = [
        Case("40 sequences of 12 tosses", (heads, 12, 0.5, 0.7, 0.2)),
        Case("α close to 1", (heads, 12, 0.95, 0.6, 0.3)),
        Case("the symmetric start p = q", (heads, 12, 0.4, 0.55, 0.55)),
        Case("one sequence", (heads[:1], 12, 0.3, 0.8, 0.1)),
        Case("10 sequences of 1000 tosses, where both terms underflow (add them in log space)",
             (_long_sequences(21), 1000, *_UNDERFLOW)),
    ]
    return Check("log_likelihood", cases, reference.log_likelihood, domain=_model_domain)


def em_loop() -> Check:
    """Check ``three_coins_em(heads, m, alpha, p, q, iterations)`` returns (alpha, p, q) after
    exactly ``iterations`` EM updates (0 allowed: the start itself).

    The symmetric case is short (3 updates): exact EM stays on p = q, and a plain floating-point
    loop drifts off it only by rounding that grows about tenfold per update, far below the
    tolerance after 3 updates (tests/test_checkers_em.py measures it).
    """

    def run(heads, m, alpha, p, q, iterations):
        result = reference.three_coins(heads, m, alpha=alpha, p=p, q=q, iterations=iterations,
                                       tol=0)
        return result.alpha, result.p, result.q

    heads = _data(30, 60, 10)
    cases = [
        Case("one update", (heads, 10, 0.5, 0.6, 0.4, 1)),
        Case("ten updates", (heads, 10, 0.3, 0.9, 0.2, 10)),
        Case("forty updates from p < q", (heads, 10, 0.7, 0.3, 0.8, 40)),
        Case("three updates from the symmetric start p = q", (heads, 10, 0.4, 0.5, 0.5, 3)),
        Case("no update at all (iterations = 0)", (heads, 10, 0.5, 0.6, 0.4, 0)),
    ]
    return Check("three_coins_em", cases, run, tolerance=1e-7, builds_on=("m_step",),
                 domain=_loop_domain)


def _loop_domain(heads, m, alpha, p, q, iterations) -> str | None:
    return _model_domain(heads, m, alpha, p, q) or unmet(
        ("m <= 10 (short sequences)", m <= 10),
        ("iterations is a whole number >= 0", whole(iterations)),
        ("a start with p = q runs at most 3 updates", p != q or iterations <= 3))
