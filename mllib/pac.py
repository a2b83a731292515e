"""PAC learning: sample-complexity bounds, the elimination algorithm and a simulation harness.

Sources
-------
- CS446 slides (seed 001), "Computational Learning Theory": PAC learnability; Occam's razor
  (|H|(1-ε)^m < δ, hence m > (1/ε)(ln|H| + ln(1/δ))); consistent learners and the elimination
  algorithm for conjunctions; agnostic learning through Hoeffding's bound; the VC sample-size
  bound and the lower bound; "Data dependent VC dimension", VC(H_γ) <= min(R²/γ², n) + 1.
- Blumer, Ehrenfeucht, Haussler and Warmuth (1989), the origin of the VC upper bound the slides
  quote.
- Balcan, CMU 10-601 (seed 004), §1.2: turning a mistake bound into a PAC guarantee.

Conventions
-----------
ε and δ lie strictly between 0 and 1. Logarithms are natural (ln) everywhere except in the VC
upper bound, whose logarithms are base 2 as in Blumer et al.; each docstring says which.
Each ``*_sample_size`` function returns the smallest whole m that satisfies its inequality as the
source writes it (strict ">" or "≥"); each ``*_epsilon`` function inverts one for a given m.
|H| may be a Python int of any size (3**200 is fine: only ln|H| is ever used). Labels are ±1;
CS446 writes concepts as f(x) ∈ {0, 1}, and its 1 is our +1.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from mllib.perceptron import perceptron
from mllib.validation import (
    as_binary,
    as_data,
    as_vector,
    finite,
    positive,
    positive_int,
)

# --- Input checks -----------------------------------------------------------------------------


def _unit_fraction(value, name: str) -> float:
    """``value`` as a float strictly between 0 and 1 (ε, δ, a probability of failure)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not 0 < number < 1:
        raise ValueError(f"{name} must be strictly between 0 and 1; got {value!r}.")
    return number


def _log_size(h_size) -> float:
    """ln|H|, requiring |H| >= 1 (an int of any size, or a float)."""
    if isinstance(h_size, bool) or not isinstance(h_size, numbers.Real):
        raise ValueError(f"|H| (h_size) must be a number >= 1; got {h_size!r}.")
    if isinstance(h_size, numbers.Integral):
        if h_size < 1:
            raise ValueError(f"|H| (h_size) must be at least 1; got {h_size!r}.")
        return math.log(int(h_size))
    if not (math.isfinite(h_size) and h_size >= 1):
        raise ValueError(f"|H| (h_size) must be a finite number >= 1; got {h_size!r}.")
    return math.log(h_size)


def _vc(vc) -> int:
    """A VC dimension: a whole number >= 0."""
    try:
        number = float(vc)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(vc, bool) or not math.isfinite(number) or number != int(number) or number < 0:
        raise ValueError(f"the VC dimension must be a whole number >= 0; got {vc!r}.")
    return int(number)


def _confidence_term(delta) -> float:
    """ln(1/δ), natural log."""
    return -math.log(_unit_fraction(delta, "δ (delta)"))


# --- Sample sizes: the four contract functions -------------------------------------------------


def occam_sample_size(h_size, eps, delta) -> int:
    """The smallest m with m > (1/ε)(ln|H| + ln(1/δ)): Occam's razor for consistent learners.

    CS446 "Occam's Razor (1)": a hypothesis from a finite class H that is consistent with m
    examples has error below ε with probability at least 1 - δ once |H|(1-ε)^m < δ; using
    ln(1-ε) < -ε this holds for every m > (1/ε)(ln|H| + ln(1/δ)). Logs are natural. The
    inequality is strict, as on the slide, so the answer is ⌊bound⌋ + 1.

    Parameters
    ----------
    h_size : int or float
        |H| >= 1.
    eps, delta : float
        ε and δ in (0, 1).

    Returns
    -------
    int

    Examples
    --------
    Conjunctions over 10 variables (|H| = 3¹⁰), ε = 0.1, δ = 0.05:
    10·(ln 59049 + ln 20) = 139.82, so m = 140.

    >>> occam_sample_size(3**10, 0.1, 0.05)
    140
    """
    eps = _unit_fraction(eps, "ε (eps)")
    bound = (_log_size(h_size) + _confidence_term(delta)) / eps
    return math.floor(bound) + 1


def agnostic_sample_size(h_size, eps, delta) -> int:
    """The smallest m with m > (1/(2ε²))(ln|H| + ln(1/δ)): the agnostic (Hoeffding) bound.

    CS446 "Agnostic Learning": Hoeffding gives Pr[Err_D(h) > Err_TR(h) + ε] < exp(-2mε²) for one
    h; a union bound over H with δ = |H|·exp(-2mε²) shows that for m above this size no h in H
    has a true error more than ε above its training error, with probability at least 1 - δ,
    whether or not the target is in H. This is one-sided: both sides at once (every training
    error within ε of its true error) cost ln(2|H|) in place of ln|H|. Logs are natural; the
    inequality is strict (⌊bound⌋ + 1).

    Parameters and return value as for :func:`occam_sample_size`.

    >>> agnostic_sample_size(3**10, 0.1, 0.05)
    700
    """
    eps = _unit_fraction(eps, "ε (eps)")
    bound = (_log_size(h_size) + _confidence_term(delta)) / (2 * eps**2)
    return math.floor(bound) + 1


def vc_sample_size(vc, eps, delta) -> int:
    """The smallest m with m >= (1/ε)(8·VC·log₂(13/ε) + 4·log₂(2/δ)): the VC upper bound.

    CS446 "Sample Complexity & VC Dimension", after Blumer et al. (1989): a learner that outputs
    any hypothesis of H consistent with this many examples has error below ε with probability
    at least 1 - δ. Both logarithms are **base 2**. The slide writes ">" and adds the two terms;
    Blumer et al. write "≥" and take the larger of the two, so the sum is also sufficient. We
    follow the sum and "≥" (the two inequalities differ only when the bound is a whole number),
    so the answer is ⌈bound⌉.

    Parameters
    ----------
    vc : int
        VC(H) >= 0.
    eps, delta : float
        ε and δ in (0, 1).

    Returns
    -------
    int

    >>> vc_sample_size(3, 0.1, 0.05)
    1899
    """
    return math.ceil(_vc_bound(_vc(vc), _unit_fraction(eps, "ε (eps)"),
                               _unit_fraction(delta, "δ (delta)")))


def _vc_bound(vc: int, eps: float, delta: float) -> float:
    """(1/ε)(8·VC·log₂(13/ε) + 4·log₂(2/δ)) for checked arguments."""
    return (8 * vc * math.log2(13 / eps) + 4 * math.log2(2 / delta)) / eps


def vc_lower_bound(vc, eps, delta) -> int:
    """The smallest m with m >= max[(1/ε)·ln(1/δ), (VC - 1)/(32ε)]: the sample-size lower bound.

    CS446 "Sample Complexity Lower Bound" (Ehrenfeucht et al. 1989): for a class C with
    VC(C) > 2 and small enough ε and δ, every learner that sees fewer than this many examples
    outputs, for some distribution and target in C, a hypothesis with error above ε with
    probability at least δ. The slide writes "log" in the first term; we read it as the natural
    log, as in Ehrenfeucht et al. The value is computed for any VC >= 0 and any ε, δ in (0, 1),
    but it is a theorem only under the slide's conditions.

    Parameters and return value as for :func:`vc_sample_size`.

    >>> vc_lower_bound(3, 0.1, 0.05)
    30
    """
    eps = _unit_fraction(eps, "ε (eps)")
    return math.ceil(max(_confidence_term(delta) / eps, (_vc(vc) - 1) / (32 * eps)))


# --- Inversions: the ε a given m guarantees -------------------------------------------------------


def _at_most_one(eps: float) -> float:
    return min(eps, 1.0)


def occam_epsilon(h_size, m, delta) -> float:
    """ε = (ln|H| + ln(1/δ))/m: the error a consistent learner reaches with m examples.

    The inverse of :func:`occam_sample_size` (CS446, natural logs): with m examples, every
    consistent hypothesis has error below any ε' > ε with probability at least 1 - δ. An error
    rate above 1 promises nothing, so the result is capped at 1.

    Parameters
    ----------
    h_size : int or float
        |H| >= 1.
    m : int
        The number of examples, >= 1.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float in (0, 1]
    """
    m = positive_int(m, "m")
    return _at_most_one((_log_size(h_size) + _confidence_term(delta)) / m)


def generalization_gap(h_size, m, delta) -> float:
    """√((ln|H| + ln(1/δ))/(2m)): how far a true error can exceed the training error.

    CS446 "Agnostic Learning": with probability at least 1 - δ over m training examples, every
    h in H has Err_D(h) < Err_TR(h) + this gap. It is the inverse of
    :func:`agnostic_sample_size` (the ε that m examples guarantee). Natural logs; capped at 1.

    Parameters and return value as for :func:`occam_epsilon`.
    """
    m = positive_int(m, "m")
    return _at_most_one(math.sqrt((_log_size(h_size) + _confidence_term(delta)) / (2 * m)))


def vc_epsilon(vc, m, delta) -> float:
    """The smallest ε in (0, 1] with m >= (1/ε)(8·VC·log₂(13/ε) + 4·log₂(2/δ)).

    The inverse of :func:`vc_sample_size` (base-2 logs). The right-hand side falls strictly as
    ε grows on (0, 1], since both 1/ε and log₂(13/ε) fall and both terms are positive, so the
    ε's that m satisfies form an interval [ε*, 1]; bisection finds ε* to the last bit of a
    float (the returned value always satisfies the bound). When even ε = 1 needs more than m
    examples the bound promises nothing and the result is 1.

    Parameters
    ----------
    vc : int
        VC(H) >= 0.
    m : int
        The number of examples, >= 1.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float in (0, 1]
    """
    vc, m = _vc(vc), positive_int(m, "m")
    delta = _unit_fraction(delta, "δ (delta)")
    low, high = 0.0, 1.0
    if _vc_bound(vc, high, delta) > m:
        return 1.0
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return high
        if _vc_bound(vc, middle, delta) <= m:
            high = middle
        else:
            low = middle


def lower_bound_epsilon(vc, m, delta) -> float:
    """ε = max[ln(1/δ), (VC - 1)/32]/m: below this error, m examples cannot be enough.

    The inverse of :func:`vc_lower_bound` (natural log): for ε below this value, m is smaller
    than the lower bound, so no learner can promise error ε with confidence 1 - δ on every
    distribution (under the conditions of :func:`vc_lower_bound`). Capped at 1.

    Parameters and return value as for :func:`vc_epsilon`.
    """
    m = positive_int(m, "m")
    return _at_most_one(max(_confidence_term(delta), (_vc(vc) - 1) / 32) / m)


def occam_failure_bound(h_size, eps, m) -> float:
    """|H|·(1 - ε)^m, capped at 1: the chance that some bad h in H is consistent with m examples.

    The first line of CS446's Occam argument: a fixed h with error above ε agrees with one random
    example with probability below 1 - ε, so with m independent ones with probability below
    (1 - ε)^m, and a union bound over H gives |H|(1 - ε)^m. Computed in logs (natural), so a
    huge |H| does not overflow.
    """
    eps = _unit_fraction(eps, "ε (eps)")
    m = positive_int(m, "m")
    exponent = _log_size(h_size) + m * math.log1p(-eps)
    return 1.0 if exponent >= 0 else math.exp(exponent)


def margin_vc_bound(radius, margin, n) -> float:
    """min(R²/γ², n) + 1: the VC dimension of separators with margin γ (CS446, data-dependent VC).

    CS446 "VC and Linear Classification": the class H_γ of linear separators in Rⁿ that separate
    data inside a ball of radius R with margin at least γ has VC(H_γ) <= min(R²/γ², n) + 1. A
    large margin gives a small VC dimension whatever the dimension n. (The VC dimension is a
    whole number, so it is at most the floor of this value.)

    Parameters
    ----------
    radius, margin : float
        R > 0 and γ > 0.
    n : int
        The dimension, >= 1.
    """
    ratio = positive(radius, "radius") / positive(margin, "margin")
    return min(ratio**2, positive_int(n, "n")) + 1.0


# --- |H| for the usual finite classes -------------------------------------------------------------


def conjunction_count(n) -> int:
    """3ⁿ: conjunctions of literals over n boolean variables.

    Each variable appears as xᵢ, as ¬xᵢ, or not at all (CS446 and the issue's count). The
    always-false conjunction that the elimination algorithm starts from (xᵢ ∧ ¬xᵢ) would make
    it 3ⁿ + 1, which changes ln|H| by less than 3⁻ⁿ.
    """
    return 3 ** positive_int(n, "n")


def k_cnf_count(n, k) -> int:
    """2^c with c = Σ_{i=1..k} C(2n, i): k-CNF formulas over n variables.

    A k-CNF is a conjunction of clauses, each a disjunction of at most k of the 2n literals, so
    it is a subset of the c possible clauses (counting clauses as sets of literals). ln|H| is
    c·ln 2 = O((2n)^k): polynomial in n for a fixed k, which is why k-CNF is PAC learnable
    (CS446 "Computational Complexity").
    """
    n, k = positive_int(n, "n"), positive_int(k, "k")
    return 2 ** sum(math.comb(2 * n, i) for i in range(1, k + 1))


def k_term_dnf_count(n, k) -> int:
    """3^(nk): an upper bound on k-term DNF formulas over n variables.

    A k-term DNF is a disjunction of k conjunctions, each one of 3ⁿ; the count ignores the order
    of the terms, so it over-counts, which is safe in an upper bound (CS446 learns this class
    through k-CNF).
    """
    return 3 ** (positive_int(n, "n") * positive_int(k, "k"))


def boolean_function_count(n) -> int:
    """2^(2ⁿ): every boolean function of n variables. ln|H| = 2ⁿ·ln 2 grows exponentially in n,
    so no polynomial sample size learns this class."""
    return 2 ** (2 ** positive_int(n, "n"))


def finite_vc_bound(h_size) -> int:
    """⌊log₂|H|⌋: the largest VC dimension a finite class can have (CS446: shattering d points
    needs all 2^d labelings, so |H| >= 2^d and VC(H) <= log₂|H|)."""
    _log_size(h_size)
    if isinstance(h_size, numbers.Integral):
        return int(h_size).bit_length() - 1  # exact for ints of any size
    return math.floor(math.log2(h_size))


# --- Conjunctions and the elimination algorithm ---------------------------------------------------


@dataclass(frozen=True)
class Conjunction:
    """A conjunction of literals over n boolean variables.

    Attributes
    ----------
    positive : ndarray of bool, shape (n,)
        positive[i] says the literal xᵢ is in the conjunction.
    negative : ndarray of bool, shape (n,)
        negative[i] says the literal ¬xᵢ is in the conjunction. With both xᵢ and ¬xᵢ the
        conjunction is never true (the elimination algorithm's starting point).

    Variables are columns counted from 0 and printed from 1, as CS446 writes x₁ … xₙ.
    """

    positive: np.ndarray
    negative: np.ndarray

    def classify(self, X) -> np.ndarray:
        """Labels of boolean points X of shape (m, n): :func:`predict_conjunction`."""
        return predict_conjunction(self, X)

    def __str__(self) -> str:
        names = [_literal_name(i, True) for i in np.flatnonzero(self.positive)]
        names += [_literal_name(i, False) for i in np.flatnonzero(self.negative)]
        order = sorted(range(len(names)), key=lambda j: (int(names[j].lstrip("¬x")), names[j]))
        return " ∧ ".join(names[j] for j in order) if names else "true"


def _literal_name(i: int, positive: bool) -> str:
    return f"{'' if positive else '¬'}x{i + 1}"


def make_conjunction(n, positive=(), negative=()) -> Conjunction:
    """The conjunction of xᵢ for i in ``positive`` and ¬xᵢ for i in ``negative`` (columns from 0).

    >>> str(make_conjunction(5, positive=[0], negative=[2]))
    'x1 ∧ ¬x3'
    """
    n = positive_int(n, "n")
    masks = []
    for indices, name in ((positive, "positive"), (negative, "negative")):
        indices = np.asarray(indices, dtype=int).reshape(-1)
        if np.any((indices < 0) | (indices >= n)):
            raise ValueError(f"{name} literals must be variable indices 0..{n - 1}.")
        mask = np.zeros(n, dtype=bool)
        mask[indices] = True
        masks.append(mask)
    return Conjunction(*masks)




def _n_vars(c: Conjunction, X: np.ndarray) -> None:
    if c.positive.shape[0] != X.shape[1]:
        raise ValueError(f"the conjunction is over {c.positive.shape[0]} variables, but X has "
                         f"{X.shape[1]} columns.")


def predict_conjunction(c: Conjunction, X) -> np.ndarray:
    """+1 where every literal of ``c`` is true, else -1. X: (m, n) of 0/1 -> (m,)."""
    X = as_binary(X, why=": a conjunction reads boolean bits")
    _n_vars(c, X)
    return np.where(_satisfied(c.positive[None], c.negative[None], X)[:, 0], 1.0, -1.0)


def _satisfied(positive: np.ndarray, negative: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Truth table of k conjunctions (literal masks of shape (k, n)) on X (m, n): (m, k) bool.

    A conjunction is false on x exactly when one of its literals is: xᵢ with xᵢ = 0, or ¬xᵢ with
    xᵢ = 1. The count of false literals is one matrix product.
    """
    return ((1 - X) @ positive.T + X @ negative.T) == 0


def conjunction_probability(c: Conjunction, p) -> float:
    """P[c(x) is true] when each xᵢ is 1 independently with probability pᵢ.

    Π over literals xᵢ of pᵢ times Π over literals ¬xᵢ of (1 - pᵢ); 0 when some xᵢ and ¬xᵢ both
    appear. ``p`` has shape (n,) with entries in [0, 1].
    """
    p = _probabilities(p, c.positive.shape[0])
    return float(_probability_true(c.positive[None], c.negative[None], p)[0])


def _probability_true(positive: np.ndarray, negative: np.ndarray, p: np.ndarray) -> np.ndarray:
    """P[true] for k conjunctions given as masks of shape (k, n); shape (k,)."""
    factors = np.where(positive, p, 1.0) * np.where(negative, 1 - p, 1.0)
    return np.where(np.any(positive & negative, axis=1), 0.0, np.prod(factors, axis=1))


def conjunction_error(h: Conjunction, f: Conjunction, p) -> float:
    """The exact true error P[h(x) ≠ f(x)] under the product distribution with P[xᵢ = 1] = pᵢ.

    P[h ≠ f] = P[h] + P[f] - 2·P[h ∧ f], and h ∧ f is the conjunction of both sets of literals.
    (CS446's Error_D = Pr_D[f(x) ≠ h(x)].)
    """
    p = _probabilities(p, f.positive.shape[0])
    return float(_errors(h.positive[None], h.negative[None], f, p)[0])


def _errors(positive: np.ndarray, negative: np.ndarray, f: Conjunction, p: np.ndarray):
    """Exact P[h ≠ f] for k conjunctions h given as masks of shape (k, n); shape (k,)."""
    both = _probability_true(positive | f.positive, negative | f.negative, p)
    target = _probability_true(f.positive[None], f.negative[None], p)
    return _probability_true(positive, negative, p) + target - 2 * both


def _probabilities(p, n: int) -> np.ndarray:
    p = np.full(n, finite(p, "p")) if np.ndim(p) == 0 else as_vector(p, "p", n)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must hold probabilities in [0, 1], one per variable.")
    return p


@dataclass(frozen=True)
class EliminationStep:
    """One positive example seen by the elimination algorithm.

    Attributes
    ----------
    index : int
        The row of ``X``.
    removed : tuple of str
        The literals it eliminated, e.g. ("¬x1", "x4").
    hypothesis : Conjunction
        The conjunction after this example.
    """

    index: int
    removed: tuple[str, ...]
    hypothesis: Conjunction


@dataclass(frozen=True)
class EliminationResult:
    """What :func:`eliminate` returns: the final conjunction and one step per positive example."""

    hypothesis: Conjunction
    history: tuple[EliminationStep, ...]


def eliminate(X, y) -> EliminationResult:
    """Learn a conjunction with the elimination algorithm (CS446, "Consistent Learners").

    Start from the conjunction of all 2n literals x₁ ∧ ¬x₁ ∧ … ∧ xₙ ∧ ¬xₙ. For each positive
    example in turn, delete every literal it makes false: xᵢ when its xᵢ = 0, ¬xᵢ when xᵢ = 1.
    Negative examples are not used. When the labels come from a conjunction f, every literal of f
    survives, so the result implies f and is consistent with the whole sample: it is the most
    specific conjunction consistent with the positives. Without a positive example it stays the
    always-false conjunction.

    Parameters
    ----------
    X : array_like of shape (m, n)
        Boolean examples (0 or 1).
    y : array_like of shape (m,)
        Labels in {-1, +1} (CS446's f(x) = 1 is +1).

    Returns
    -------
    EliminationResult
        ``.hypothesis`` and ``.history`` (one :class:`EliminationStep` per positive example).
    """
    X, y = as_data(as_binary(X, why=": a conjunction reads boolean bits"), y)
    keep_positive = np.ones(X.shape[1], dtype=bool)
    keep_negative = np.ones(X.shape[1], dtype=bool)
    steps = []
    for i in np.flatnonzero(y > 0):
        true_bits = X[i] == 1
        removed = ([_literal_name(j, True) for j in np.flatnonzero(keep_positive & ~true_bits)]
                   + [_literal_name(j, False) for j in np.flatnonzero(keep_negative & true_bits)])
        keep_positive = keep_positive & true_bits
        keep_negative = keep_negative & ~true_bits
        steps.append(EliminationStep(int(i), tuple(removed),
                                     Conjunction(keep_positive, keep_negative)))
    return EliminationResult(Conjunction(keep_positive, keep_negative), tuple(steps))


# --- The simulation harness -----------------------------------------------------------------------


@dataclass(frozen=True)
class Simulation:
    """Repeated runs of the elimination algorithm on fresh samples (see :func:`simulate`).

    Attributes
    ----------
    sample_sizes : ndarray of int, shape (k,)
        The m's simulated. The sample of size m is the first m examples of one longer draw, so
        the k rows are a learning curve for each trial.
    errors : ndarray of shape (k, T)
        The true error of each learned hypothesis, estimated on one shared fresh test sample: a
        check on ``exact_errors``, not what the failure rate counts.
    exact_errors : ndarray of shape (k, T)
        The true errors themselves, computed exactly (:func:`conjunction_error`).
    eps, delta : float
    test_size : int
        The size of the test sample behind ``errors``.
    h_size : int
        |H| used by the bounds: 3ⁿ + 1, the conjunctions plus the always-false one that the
        algorithm can also return.
    """

    sample_sizes: np.ndarray
    errors: np.ndarray
    exact_errors: np.ndarray
    eps: float
    delta: float
    test_size: int
    h_size: int

    @property
    def trials(self) -> int:
        """T, the number of independent runs per sample size."""
        return self.errors.shape[1]

    @property
    def failure_rate(self) -> np.ndarray:
        """The fraction of the T trials whose exact true error exceeds ε, for each sample size,
        shape (k,): the empirical P[error > ε], to compare with δ."""
        return np.mean(self.exact_errors > self.eps, axis=1)

    @property
    def estimated_failure_rate(self) -> np.ndarray:
        """The same fraction with each error estimated on the test sample, shape (k,): a check.
        An error within a test-sample standard deviation of ε can land on either side."""
        return np.mean(self.errors > self.eps, axis=1)

    @property
    def failure_bound(self) -> np.ndarray:
        """|H|(1 - ε)^m for each sample size, shape (k,): the bound the Occam argument proves."""
        return np.array([occam_failure_bound(self.h_size, self.eps, m) for m in self.sample_sizes])

    @property
    def occam_m(self) -> int:
        """The Occam sample size for this |H|, ε and δ."""
        return occam_sample_size(self.h_size, self.eps, self.delta)

    def margin(self, alpha: float = 1e-6) -> float:
        """√(ln(1/α)/(2T)): by Hoeffding, the true P[error > ε] exceeds ``failure_rate`` by more
        than this with probability at most α (one sample size at a time)."""
        return math.sqrt(-math.log(_unit_fraction(alpha, "α (alpha)")) / (2 * self.trials))


def draw_boolean(n_samples: int, p, rng: np.random.Generator) -> np.ndarray:
    """n_samples independent 0/1 vectors with P[xᵢ = 1] = pᵢ, shape (n_samples, len(p))."""
    return (rng.random((n_samples, len(p))) < p).astype(float)


def _prefix_literals(bits: np.ndarray, positive: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The elimination algorithm on the first m examples of each trial, for every m at once.

    bits (T, M, n) and positive (T, M) are T samples of M examples. The literal xᵢ survives the
    first m examples when every positive one among them has xᵢ = 1, a running "and" along the
    sample (¬xᵢ likewise with xᵢ = 0). Returns the surviving literals, xᵢ then ¬xᵢ, for each
    trial and each m in ``sizes``, flattened to shape (T·k, 2n), trial by trial.
    """
    ignore = ~positive[..., None]
    keep_x = np.logical_and.accumulate(bits | ignore, axis=1)[:, sizes - 1]  # (T, k, n)
    keep_not_x = np.logical_and.accumulate(~bits | ignore, axis=1)[:, sizes - 1]
    return np.concatenate([keep_x, keep_not_x], axis=2).reshape(-1, 2 * bits.shape[2])


def _distinct_rows(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a bool matrix (k, n): the index of one copy of each distinct row, the distinct row of
    each row, and how often each occurs (``np.unique(B, axis=0)``, but on packed bytes)."""
    packed = np.packbits(B, axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, which, counts = np.unique(keys, return_index=True, return_inverse=True,
                                        return_counts=True)
    return first, which, counts


def simulate(
    target: Conjunction,
    p,
    sample_sizes,
    *,
    eps: float,
    delta: float,
    trials: int = 500,
    test_size: int = 20_000,
    seed=0,
) -> Simulation:
    """Run the elimination algorithm T times for each m and record the true errors.

    For each of T trials: draw examples x with independent bits P[xᵢ = 1] = pᵢ, label them with
    the target conjunction, and learn with :func:`eliminate` from the first m of them, for each
    m in ``sample_sizes``. Each hypothesis's true error is computed exactly, and also estimated on
    one shared test sample of ``test_size`` fresh examples as a check. The result reports the
    fraction of trials whose exact error exceeds ε, the empirical P[error > ε], next to δ.

    All T trials run at once (:func:`_prefix_literals`): the hypothesis after the first m
    examples is the conjunction :func:`eliminate` returns on those m rows.

    Parameters
    ----------
    target : Conjunction
        f, over n variables.
    p : float or array_like of shape (n,)
        P[xᵢ = 1] for each variable.
    sample_sizes : int or array_like of int
        The m's, each >= 1.
    eps, delta : float
        ε and δ in (0, 1).
    trials : int, default 500
        T.
    test_size : int, default 20000
        The size of the test sample.
    seed : int or numpy.random.Generator, default 0

    Returns
    -------
    Simulation
    """
    n = target.positive.shape[0]
    p = _probabilities(p, n)
    sizes = np.array([positive_int(m, "each sample size")
                      for m in np.ravel(np.asarray(sample_sizes))], dtype=int)
    if sizes.size == 0:
        raise ValueError("sample_sizes is empty: give at least one m.")
    eps, delta = _unit_fraction(eps, "ε (eps)"), _unit_fraction(delta, "δ (delta)")
    trials, test_size = positive_int(trials, "trials"), positive_int(test_size, "test_size")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    X = draw_boolean(trials * sizes.max(), p, rng)
    positive_rows = predict_conjunction(target, X) > 0
    shape = (trials, sizes.max())
    literals = _prefix_literals(X.reshape(*shape, n) == 1, positive_rows.reshape(shape), sizes)

    # Many trials learn the same conjunction: score each distinct one once. The test sample is
    # scored through its distinct rows and their counts, which gives the same mean.
    first, which, _ = _distinct_rows(literals)
    positive, negative = literals[first, :n], literals[first, n:]
    X_test = draw_boolean(test_size, p, rng)
    first, _, counts = _distinct_rows(X_test == 1)
    rows = X_test[first]
    wrong = _satisfied(positive, negative, rows) != _satisfied(target.positive[None],
                                                               target.negative[None], rows)
    estimated = counts @ wrong / test_size
    exact = _errors(positive, negative, target, p)
    shape = (trials, len(sizes))
    return Simulation(sizes, estimated[which].reshape(shape).T, exact[which].reshape(shape).T,
                      eps, delta, test_size, conjunction_count(n) + 1)


def failure_probability(target: Conjunction, p, sample_sizes, eps) -> np.ndarray:
    """The exact P[err_D(h) > ε] of the elimination algorithm after m examples, for each m.

    D makes the bits independent with P[xᵢ = 1] = pᵢ. Let π = P[f(x) = 1]. Among m examples the
    number k of positives is Binomial(m, π), and only they act. With k = 0 the algorithm returns
    the always-false conjunction, whose error is π. With k >= 1 it keeps f's literals and, for
    each variable j outside f, the literal xⱼ when all k positives have xⱼ = 1 (probability pⱼᵏ),
    ¬xⱼ when all have xⱼ = 0 (probability (1 - pⱼ)ᵏ), and neither otherwise, independently over
    j. The result implies f, so its error is P[f ∧ ¬h] = π(1 - Π qⱼ), with qⱼ the probability
    that the kept literal of variable j is true (1 when none is kept). Summing over the 3ʳ ways
    to keep literals of the r free variables and over k gives the failure probability exactly,
    up to rounding (no sampling).

    Parameters
    ----------
    target : Conjunction
        f, over n variables, with at most 10 variables outside it (3¹⁰ cases).
    p : float or array_like of shape (n,)
        P[xᵢ = 1] for each variable, in [0, 1].
    sample_sizes : int or array_like of int
        The m's, each >= 1.
    eps : float
        ε in (0, 1).

    Returns
    -------
    ndarray of shape (k,)
        P[error > ε] for each m, in the order given.
    """
    n = target.positive.shape[0]
    p = _probabilities(p, n)
    eps = _unit_fraction(eps, "ε (eps)")
    sizes = np.array([positive_int(m, "each sample size")
                      for m in np.ravel(np.asarray(sample_sizes))], dtype=int)
    if sizes.size == 0:
        raise ValueError("sample_sizes is empty: give at least one m.")
    free = p[~(target.positive | target.negative)]
    if free.size > 10:
        raise ValueError(f"{free.size} variables outside the target: at most 10 are enumerated.")
    pi = conjunction_probability(target, p)
    # Each free variable keeps nothing (0), xⱼ (1) or ¬xⱼ (2): every combination, (3ʳ, r).
    states = (np.arange(3 ** free.size)[:, None] // 3 ** np.arange(free.size)) % 3
    true_given_kept = np.choose(states, [np.ones_like(free), free, 1 - free])
    fails = pi * (1 - np.prod(true_given_kept, axis=1)) > eps  # (3ʳ,)
    columns = np.arange(free.size)
    given_k = [float(pi > eps)]  # P[error > ε | k positives], k = 0, 1, ...
    for k in range(1, sizes.max() + 1):
        keep_x, keep_not_x = free**k, (1 - free) ** k
        keep = np.stack([1 - keep_x - keep_not_x, keep_x, keep_not_x])  # (3, r)
        given_k.append(float(fails @ np.prod(keep[states, columns], axis=1)))
    given_k = np.array(given_k)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, sizes.max() + 1)))])
    return np.array([_binomial(m, pi, log_factorial) @ given_k[: m + 1] for m in sizes])


def _binomial(m: int, pi: float, log_factorial: np.ndarray) -> np.ndarray:
    """P[k positives among m] for k = 0..m, Binomial(m, π), shape (m + 1,); ``log_factorial``
    holds ln(i!) for i = 0..m at least."""
    k = np.arange(m + 1)
    if pi in (0.0, 1.0):
        return (k == (m if pi == 1.0 else 0)).astype(float)
    log_choose = log_factorial[m] - log_factorial[k] - log_factorial[m - k]
    return np.exp(log_choose + k * math.log(pi) + (m - k) * math.log1p(-pi))


# --- From a mistake bound to a PAC guarantee (Balcan §1.2) ----------------------------------------


@dataclass(frozen=True)
class OnlineToPac:
    """The perceptron hypothesis picked by the online-to-PAC conversion.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The chosen weights.
    start : int
        The row at which this hypothesis took over (0 for w = 0).
    stretch : int
        How many examples in a row it then classified correctly (at least ``needed``).
    needed : int
        L = ⌈(1/ε)·ln((M + 1)/δ)⌉, the stretch that proves it good.
    sample_size : int
        (M + 1)·L, the number of examples that guarantees such a stretch.
    """

    w: np.ndarray
    start: int
    stretch: int
    needed: int
    sample_size: int


def online_to_pac_sizes(mistake_bound, eps, delta) -> tuple[int, int]:
    """(L, (M + 1)·L) with L = ⌈(1/ε)·ln((M + 1)/δ)⌉: the stretch and sample size of the
    online-to-PAC conversion (Balcan §1.2, natural log).

    A learner making at most M mistakes visits at most M + 1 hypotheses. One whose error is above
    ε survives L fresh examples with probability below (1 - ε)^L <= δ/(M + 1); a union bound
    over the M + 1 hypotheses bounds the chance of outputting a bad one by δ. (Balcan writes M
    for M + 1 and draws (M/ε)·log(M/δ); we count the last hypothesis too.) Among (M + 1)·L
    examples some hypothesis must go L examples without a mistake.
    """
    bound = positive(mistake_bound, "mistake_bound")
    eps = _unit_fraction(eps, "ε (eps)")
    count = math.floor(bound) + 1
    stretch = math.ceil(math.log(count / _unit_fraction(delta, "δ (delta)")) / eps)
    return stretch, count * stretch


def online_to_pac(X, y, *, mistake_bound, eps, delta) -> OnlineToPac:
    """Turn one pass of the perceptron into a PAC hypothesis (Balcan §1.2).

    Run the perceptron (:func:`mllib.perceptron.perceptron`, one pass) over the examples; each
    update starts a new hypothesis. Output the first hypothesis that then classifies the next L
    examples correctly (:func:`online_to_pac_sizes`). With M = (R/γ)² for data separable with
    margin γ, it has error at most ε with probability at least 1 - δ.

    Parameters
    ----------
    X : array_like of shape (m, d)
        At least (M + 1)·L examples, drawn independently.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    mistake_bound : float
        M, e.g. :func:`mllib.perceptron.mistake_bound`.
    eps, delta : float
        ε and δ in (0, 1).

    Returns
    -------
    OnlineToPac
    """
    X, y = as_data(X, y)
    needed, sample_size = online_to_pac_sizes(mistake_bound, eps, delta)
    if len(y) < sample_size:
        raise ValueError(f"the conversion needs at least (M + 1)·L = {sample_size} examples; "
                         f"got {len(y)}.")
    run = perceptron(X[:sample_size], y[:sample_size], max_epochs=1)
    starts = [0] + [u.index + 1 for u in run.history]
    ends = [u.index for u in run.history] + [sample_size]
    weights = [np.zeros(X.shape[1])] + [u.w for u in run.history]
    for start, end, w in zip(starts, ends, weights, strict=True):
        if end - start >= needed:
            return OnlineToPac(w, start, end - start, needed, sample_size)
    raise ValueError(f"no hypothesis went {needed} examples without a mistake: the perceptron "
                     f"made {run.mistakes} mistakes, so the mistake bound {mistake_bound} is wrong "
                     "for this data.")
