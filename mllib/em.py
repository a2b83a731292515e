"""EM for the three coins (CS446 Lecture 10).

Sources
-------
CS446 slides (seed 001), "Lecture 10: EM": the three-coin example (coin 0 with P(H) = α picks
coin 1, P(H) = p, or coin 2, P(H) = q, which is then tossed m times), scenarios I-III, the
E-step P₁ⁱ ("EM Algorithm (Coins) - I"), Jensen's lower bound ("EM Algorithm"), the expected
log-likelihood ("- III", "- IV") and the M-step α̃, p̃, q̃ ("EM Algorithm (Cont.)").

Conventions
-----------
The data are n sequences of the same number m of tosses, given either as head counts hᵢ or as
strings such as "HHHT". The likelihood of a sequence is that of the observed string,
α p^h (1-p)^(m-h) + (1-α) q^h (1-q)^(m-h), without a binomial coefficient, as on the slides.
Logarithms are natural. Every iteration works on the m + 1 head-count frequencies, the
sufficient statistics, so its cost does not grow with n.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mllib.bayes import probability
from mllib.validation import positive_int

DEFAULT_ITERATIONS = 100
DEFAULT_TOL = 1e-10


def head_counts(sequences: Sequence[str]) -> tuple[np.ndarray, int]:
    """Head counts hᵢ, shape (n,), and the common length m of toss strings like "HHHT"."""
    if isinstance(sequences, str) or len(sequences) == 0:
        raise ValueError("give the sequences as a non-empty list of strings such as 'HHHT'.")
    if any(not isinstance(s, str) or set(s) - {"H", "T"} for s in sequences):
        raise ValueError("each sequence must be a string of 'H' and 'T' only.")
    lengths = {len(s) for s in sequences}
    if len(lengths) != 1:
        raise ValueError(f"every sequence needs the same number of tosses; got lengths "
                         f"{sorted(lengths)}.")
    return np.array([s.count("H") for s in sequences]), lengths.pop()


def as_heads(heads, tosses) -> tuple[np.ndarray, int]:
    """Validate the data: (hᵢ as ints of shape (n,), m). Strings are counted; their length must
    equal ``tosses``."""
    m = positive_int(tosses, "tosses")
    items = heads.tolist() if isinstance(heads, np.ndarray) and heads.dtype.kind in "OUS" else heads
    if isinstance(items, list | tuple) and items and all(isinstance(s, str) for s in items):
        counts, length = head_counts(items)
        if length != m:
            raise ValueError(f"the sequences have {length} tosses but tosses = {m}.")
        return counts, m
    h = np.asarray(heads)
    if h.ndim != 1 or h.size == 0:
        raise ValueError("heads must be a non-empty 1-D array of head counts (or H/T strings).")
    if not np.issubdtype(h.dtype, np.integer):  # floats must be whole numbers
        h = np.asarray(h, dtype=float)
        if not np.all(h == np.round(h)):
            raise ValueError(f"every head count must be a whole number between 0 and tosses "
                             f"= {m}.")
    if h.min() < 0 or h.max() > m:
        raise ValueError(f"every head count must be a whole number between 0 and tosses = {m}.")
    return h.astype(int, copy=False), m


def _xlogy(x, y):
    """x·log(y) with 0·log(0) = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y))


def _log_terms(m: int, alpha: float, p: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    """log of α p^h (1-p)^(m-h) and of (1-α) q^h (1-q)^(m-h) for h = 0..m, each (m+1,)."""
    h = np.arange(m + 1)
    coin1 = _xlogy(1, alpha) + _xlogy(h, p) + _xlogy(m - h, 1 - p)
    coin2 = _xlogy(1, 1 - alpha) + _xlogy(h, q) + _xlogy(m - h, 1 - q)
    return coin1, coin2


def _posterior_and_loglik(
    counts: np.ndarray, alpha: float, p: float, q: float
) -> tuple[np.ndarray, float]:
    """P₁ for each head count 0..m and LL, from the frequencies ``counts`` (shape (m+1,))."""
    coin1, coin2 = _log_terms(len(counts) - 1, alpha, p, q)
    evidence = np.logaddexp(coin1, coin2)
    impossible = (counts > 0) & np.isneginf(evidence)
    if np.any(impossible):
        h = int(np.flatnonzero(impossible)[0])
        raise ValueError(f"α = {alpha}, p = {p}, q = {q} give probability 0 to a sequence "
                         f"with {h} heads, so P₁ is 0/0; start with p and q inside (0, 1).")
    if p == q:  # one coin in two names: the data say nothing about which, P₁ = α exactly
        posterior = np.full(len(counts), alpha)
    else:
        with np.errstate(invalid="ignore"):
            posterior = np.where(np.isneginf(evidence), 0.5, np.exp(coin1 - evidence))
    return posterior, float(counts @ np.where(counts > 0, evidence, 0.0))


def _parameters(alpha, p, q) -> tuple[float, float, float]:
    return probability(alpha, "alpha"), probability(p, "p"), probability(q, "q")


def e_step(heads, tosses, alpha: float, p: float, q: float) -> np.ndarray:
    """The E-step: P₁ⁱ = P(Coin 1 | Dⁱ) for each sequence (CS446 "EM Algorithm (Coins) - I").

        P₁ⁱ = α p^h (1-p)^(m-h) / (α p^h (1-p)^(m-h) + (1-α) q^h (1-q)^(m-h)),  h = hᵢ.

    Computed in log space, so long sequences do not underflow.

    Parameters
    ----------
    heads : array_like of shape (n,), or list of str
        Head counts hᵢ, or the sequences themselves ("HHHT", ...).
    tosses : int
        m, the tosses per sequence.
    alpha, p, q : float
        The current α̃, p̃, q̃, each in [0, 1].

    Returns
    -------
    ndarray of shape (n,)
    """
    h, m = as_heads(heads, tosses)
    posterior, _ = _posterior_and_loglik(np.bincount(h, minlength=m + 1),
                                         *_parameters(alpha, p, q))
    return posterior[h]


def _m_step_counts(counts: np.ndarray, posterior: np.ndarray, old: tuple[float, float, float]):
    """The M-step on frequencies: ``counts[h]`` sequences with h heads, each with P₁ = posterior[h].

    A coin that gets total weight 0 keeps its old bias (its value does not change LL). When P₁
    is the same for every sequence (and inside (0, 1)) it cancels: α̃ = P₁ and p̃ = q̃ = Σhᵢ/(nm).
    That case is computed as such so that rounding cannot split p and q: the symmetric fixed
    point is unstable, and an error of 1e-16 would grow until EM left it, which exact EM never
    does.
    """
    m = len(counts) - 1
    fraction = np.arange(m + 1) / m
    observed = posterior[counts > 0]
    if 0 < observed[0] < 1 and np.all(observed == observed[0]):
        mean = float(counts @ fraction / counts.sum())
        return float(observed[0]), mean, mean
    weight1, weight2 = counts * posterior, counts * (1 - posterior)
    total1, total2 = weight1.sum(), weight2.sum()
    alpha = total1 / counts.sum()
    p = weight1 @ fraction / total1 if total1 > 0 else old[1]
    q = weight2 @ fraction / total2 if total2 > 0 else old[2]
    return float(alpha), float(p), float(q)


def m_step(heads, tosses, posterior) -> tuple[float, float, float]:
    """The M-step (CS446 "EM Algorithm (Cont.)"): maximize E[LL] with P₁ⁱ held fixed.

        α̃ = Σᵢ P₁ⁱ / n,
        p̃ = Σᵢ P₁ⁱ hᵢ/m / Σᵢ P₁ⁱ,
        q̃ = Σᵢ (1 - P₁ⁱ) hᵢ/m / Σᵢ (1 - P₁ⁱ).

    With P₁ⁱ in {0, 1} (the coin known, scenario II) these are the plain ML counts. If every
    P₁ⁱ is 0 (or 1), p̃ (or q̃) is 0/0; it is returned as NaN, since that coin is never used.

    Parameters
    ----------
    heads : array_like of shape (n,), or list of str
    tosses : int
    posterior : array_like of shape (n,)
        P₁ⁱ for each sequence, in [0, 1].

    Returns
    -------
    (alpha, p, q) : tuple of float
    """
    h, m = as_heads(heads, tosses)
    P1 = _as_posterior(posterior, h.size)
    with np.errstate(invalid="ignore"):
        alpha = P1.sum() / h.size
        p = P1 @ (h / m) / P1.sum()
        q = (1 - P1) @ (h / m) / (1 - P1).sum()
    return float(alpha), float(p), float(q)


def _as_posterior(posterior, n: int) -> np.ndarray:
    weights = np.asarray(posterior, dtype=float)
    if weights.shape != (n,) or not np.all((weights >= 0) & (weights <= 1)):
        raise ValueError(f"posterior must hold {n} probabilities in [0, 1], one per sequence.")
    return weights


def log_likelihood(heads, tosses, alpha: float, p: float, q: float) -> float:
    """LL = Σᵢ log(α p^hᵢ (1-p)^(m-hᵢ) + (1-α) q^hᵢ (1-q)^(m-hᵢ)) (CS446 "EM Algorithm").

    -inf when some sequence has probability 0 under (α, p, q).
    """
    h, m = as_heads(heads, tosses)
    coin1, coin2 = _log_terms(m, *_parameters(alpha, p, q))
    return float(np.sum(np.logaddexp(coin1, coin2)[h]))


def lower_bound(heads, tosses, alpha: float, p: float, q: float, *, posterior) -> float:
    """Jensen's lower bound on LL built from the weights P₁ⁱ (CS446 "EM Algorithm").

        B(α, p, q) = Σᵢ P₁ⁱ log(α p^h (1-p)^(m-h) / P₁ⁱ)
                     + (1 - P₁ⁱ) log((1-α) q^h (1-q)^(m-h) / (1 - P₁ⁱ))  <=  LL(α, p, q).

    The slides' E[LL] ("EM Algorithm (Coins) - IV") is B minus the entropy of the P₁ⁱ, which
    does not depend on (α, p, q): the M-step maximizes both. When P₁ⁱ is the E-step at
    (α₀, p₀, q₀), the bound touches LL there, which is why EM never lowers LL.
    """
    h, m = as_heads(heads, tosses)
    P1 = _as_posterior(posterior, h.size)
    coin1, coin2 = _log_terms(m, *_parameters(alpha, p, q))
    return float(np.sum(_weighted(P1, coin1[h]) - _xlogy(P1, P1)
                        + _weighted(1 - P1, coin2[h]) - _xlogy(1 - P1, 1 - P1)))


def expected_loglik(heads, tosses, alpha: float, p: float, q: float, *, posterior) -> float:
    """The expected complete-data log-likelihood, the Q(θ, θ_old) of the general EM procedure
    (CS446 "EM Algorithm (Coins) - IV" and "The General EM Procedure"):

        Q = Σᵢ P₁ⁱ log(α p^h (1-p)^(m-h)) + (1 - P₁ⁱ) log((1-α) q^h (1-q)^(m-h)),  h = hᵢ,

    with the weights P₁ⁱ (shape (n,)) the E-step at θ_old. The M-step is its argmax over
    θ = (α, p, q). It equals :func:`lower_bound` minus the entropy of the weights.
    """
    h, m = as_heads(heads, tosses)
    P1 = _as_posterior(posterior, h.size)
    coin1, coin2 = _log_terms(m, *_parameters(alpha, p, q))
    return float(np.sum(_weighted(P1, coin1[h]) + _weighted(1 - P1, coin2[h])))


def _weighted(weights: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """weights·logs with 0·(-inf) = 0: a term that has no weight contributes nothing."""
    with np.errstate(invalid="ignore"):
        return np.where(weights == 0, 0.0, weights * logs)


@dataclass(frozen=True)
class EMStep:
    """The parameters after one EM update (or the start), and what they score.

    Attributes
    ----------
    iteration : int
        0 for the starting point, k after k updates.
    alpha, p, q : float
    loglik : float
        LL at these parameters.
    posterior : ndarray of shape (m + 1,)
        P₁ for a sequence with h = 0..m heads at these parameters: the E-step that the next
        M-step uses. ``posterior[heads]`` gives the P₁ⁱ of each sequence.
    """

    iteration: int
    alpha: float
    p: float
    q: float
    loglik: float
    posterior: np.ndarray


@dataclass(frozen=True)
class ThreeCoinsResult:
    """What :func:`three_coins` returns.

    Attributes
    ----------
    alpha, p, q : float
        The final parameters.
    loglik : float
        LL at them.
    iterations : int
        The number of EM updates made.
    converged : bool
        True when the run stopped because an update moved no parameter by ``tol`` or more.
    history : tuple of EMStep
        ``history[0]`` is the start, ``history[k]`` the state after k updates.
    """

    alpha: float
    p: float
    q: float
    loglik: float
    iterations: int
    converged: bool
    history: tuple[EMStep, ...]


def three_coins(
    heads,
    tosses,
    *,
    alpha: float,
    p: float,
    q: float,
    iterations: int = DEFAULT_ITERATIONS,
    tol: float = DEFAULT_TOL,
) -> ThreeCoinsResult:
    """Run EM for the three coins from (α, p, q) (CS446 Lecture 10).

    Each update is one E-step (:func:`e_step`) and one M-step (:func:`m_step`), evaluated on
    the m + 1 head-count frequencies, so an update costs O(m) whatever n is. LL never
    decreases (see :func:`lower_bound`). The run stops after ``iterations`` updates, or earlier
    when an update changes none of α, p, q by ``tol`` or more; ``tol = 0`` runs them all.

    A symmetric start p = q is a trap: every P₁ⁱ equals α, so α stays put and p and q both jump
    to the overall frequency of heads and stay there, a stationary point that is not a maximum
    when the data are a real mixture.

    Parameters
    ----------
    heads : array_like of shape (n,), or list of str
        Head counts hᵢ, or sequences like "HHHT".
    tosses : int
        m, the tosses per sequence.
    alpha, p, q : float
        The start, each in [0, 1] (p or q at 0 or 1 only if every sequence stays possible).
    iterations : int, default 100
        The most EM updates to make (>= 0; with 0 the start is returned unchanged).
    tol : float, default 1e-10
        Stop when the largest parameter change of an update is below ``tol`` (>= 0).

    Returns
    -------
    ThreeCoinsResult

    Examples
    --------
    Scenario III of the slides, HHHT, HTHT, HHHT, HTTH, one update from (0.5, 0.6, 0.4):

    >>> run = three_coins(["HHHT", "HTHT", "HHHT", "HTTH"], 4, alpha=0.5, p=0.6, q=0.4,
    ...                   iterations=1)
    >>> [round(v, 6) for v in (run.alpha, run.p, run.q)]  # 31/52, 20/31, 25/42
    [0.596154, 0.645161, 0.595238]
    """
    h, m = as_heads(heads, tosses)
    params = _parameters(alpha, p, q)
    iterations = _updates(iterations)
    tol = float(tol)
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a number >= 0; got {tol!r}.")
    counts = np.bincount(h, minlength=m + 1).astype(float)
    posterior, loglik = _posterior_and_loglik(counts, *params)
    history = [EMStep(0, *params, loglik, posterior)]
    converged = False
    for k in range(1, iterations + 1):
        new = _m_step_counts(counts, posterior, params)
        change = max(abs(a - b) for a, b in zip(new, params, strict=True))
        params = new
        posterior, loglik = _posterior_and_loglik(counts, *params)
        history.append(EMStep(k, *params, loglik, posterior))
        if change < tol:
            converged = True
            break
    return ThreeCoinsResult(*params, loglik, len(history) - 1, converged, tuple(history))


def _updates(iterations) -> int:
    """``iterations`` as an int >= 0 (0 updates: the start itself)."""
    if isinstance(iterations, int | np.integer) and not isinstance(iterations, bool) \
            and iterations == 0:
        return 0
    return positive_int(iterations, "iterations")


def restarts(
    heads,
    tosses,
    *,
    count: int = 20,
    seed=0,
    iterations: int = DEFAULT_ITERATIONS,
    tol: float = DEFAULT_TOL,
) -> tuple[ThreeCoinsResult, ...]:
    """Run :func:`three_coins` from ``count`` random starts, α, p, q uniform in (0.02, 0.98).

    EM only finds a local maximum, so the slides advise restarts. The runs are returned in the
    order of their starts; pick the one with the largest ``loglik``. The starts keep away from 0
    and 1, where a coin would give some sequence probability 0. Remember that (α, p, q) and
    (1-α, q, p) describe the same model (the coins' names can be swapped).
    """
    count = positive_int(count, "count")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    starts = rng.uniform(0.02, 0.98, size=(count, 3))
    return tuple(three_coins(heads, tosses, alpha=a, p=p, q=q, iterations=iterations, tol=tol)
                 for a, p, q in starts)


def sample_coins(n: int, tosses: int, *, alpha: float, p: float, q: float, seed=0) -> np.ndarray:
    """Head counts of n sequences of m tosses from the three-coin model, shape (n,).

    Coin 0 (heads with probability α) picks coin 1 (bias p) or coin 2 (bias q), which is
    tossed m times; the hidden coin is not returned.
    """
    n, m = positive_int(n, "n"), positive_int(tosses, "tosses")
    alpha, p, q = _parameters(alpha, p, q)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    coin1 = rng.random(n) < alpha
    return rng.binomial(m, np.where(coin1, p, q))
