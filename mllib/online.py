"""Online learning beyond the perceptron: threshold functions, the Winnow family, the thick
separator, learning from experts, and the perceptron's bound on data that is not separable.

Sources
-------
- CS446 slides (seed 001): linear threshold functions (disjunctions, "at least m of n", XOR);
  Winnow with elimination; duplicated variables; Balanced Winnow; Winnow-R against a shifting
  target; the thick separator ("perceptron with margin"); the O(k log n) bound.
- Gupta (seed 000) §3: the learning-from-experts problem. The algorithms and bounds are those of
  Littlestone and Warmuth, "The weighted majority algorithm", Inf. Comput. 108 (1994).
- Balcan, CMU 10-601 (seed 004): M <= (R/γ)² + (2/γ)·TD_γ when no separator is perfect.

Conventions
-----------
Labels are in {-1, +1}, as in ``mllib.perceptron``. The Winnow variants follow MMDS §12.2.3
(what ``mllib.perceptron.winnow_update`` implements): an example is correct when w·x > θ for
y = +1 and w·x < θ for y = -1, so w·x = θ is a mistake either way; CS446 predicts positive on
w·x >= θ instead. Every variant is the engine ``mllib.perceptron.winnow_passes`` with its own
update rule.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from mllib.perceptron import (
    DEFAULT_MAX_EPOCHS,
    PerceptronResult,
    WinnowResult,
    _cycle,
    _prepare,
    margin_shortfalls,
    winnow_passes,
    winnow_update,
)
from mllib.validation import (
    as_binary,
    as_data,
    as_labels,
    as_matrix,
    finite,
    positive,
    positive_int,
)

# --- Linear threshold functions -----------------------------------------------------------


def boolean_inputs(n: int) -> np.ndarray:
    """All 2ⁿ inputs in {0, 1}ⁿ, in binary counting order: shape (2ⁿ, n)."""
    n = positive_int(n, "n")
    return np.array(list(itertools.product((0.0, 1.0), repeat=n)))


def threshold_function(w, theta: float, X) -> np.ndarray:
    """f(x) = 1 if w·x >= θ else 0 (CS446 "Linear functions"), for the rows of X: (n, d) -> (n,).

    CS446's examples: X1 ∨ X3 ∨ X5 is w = (1, 0, 1, 0, 1), θ = 1; "at least 2 of
    {X1, X3, X5}" is the same w with θ = 2. Here a score equal to θ is positive, as on the slide.
    """
    X = as_matrix(X)
    w = np.asarray(w, dtype=float)
    if w.shape != (X.shape[1],):
        raise ValueError(f"w has shape {w.shape}; the inputs have {X.shape[1]} variables.")
    return (X @ w >= finite(theta, "theta")).astype(int)


def find_threshold_weights(X, labels, *, max_weight: int = 3) -> tuple[np.ndarray, int] | None:
    """Search integer weights and thresholds in [-max_weight, max_weight] for a threshold
    function that computes ``labels`` (0/1) on the rows of X (n, d); None when there is none.

    A brute-force check, (2m + 1)^(d+1) candidates: it shows that XOR has no small integer
    weights. (A real-weight threshold function can always be scaled and rounded to integers, but
    the integers may need to be large, so "none found" is a proof only together with an LP:
    :func:`threshold_lp`.)
    """
    X = as_matrix(X)
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],) or not np.all(np.isin(labels, (0, 1))):
        raise ValueError("labels must be a vector of 0s and 1s, one per row of X.")
    values = range(-max_weight, max_weight + 1)
    for candidate in itertools.product(values, repeat=X.shape[1] + 1):
        w, theta = np.array(candidate[:-1], dtype=float), candidate[-1]
        if np.array_equal((X @ w >= theta).astype(int), labels):
            return w, theta
    return None


def threshold_lp(X, labels) -> tuple[np.ndarray, np.ndarray]:
    """The LP "find (w, θ) with w·x - θ >= 1 on positives and w·x - θ <= -1 on negatives" as
    A·v <= b over v = (w, θ): returns A of shape (n, d + 1) and b = -1 of shape (n,).

    Row i is -sᵢ·(xᵢ, -1) with sᵢ = ±1 the sign of label i. A threshold function exists exactly
    when this system is feasible (scale any strict separator until its gap is 1). Feed it to
    any LP solver with a zero objective, or refute it with :func:`farkas_certificate`.
    """
    X = as_matrix(X)
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],) or not np.all(np.isin(labels, (0, 1))):
        raise ValueError("labels must be a vector of 0s and 1s, one per row of X.")
    signs = 2.0 * labels - 1
    A = -signs[:, None] * np.hstack([X, -np.ones((X.shape[0], 1))])
    return A, -np.ones(X.shape[0])


def farkas_certificate(A, b, multipliers) -> bool:
    """True when λ = ``multipliers`` proves A·v <= b infeasible (Farkas' lemma).

    λ >= 0 with λᵀA = 0 and λᵀb < 0: adding the inequalities with weights λ gives 0 <= λᵀb < 0.
    For XOR on (0,0), (0,1), (1,0), (1,1), λ = (1, 1, 1, 1) works: the two positives need
    w₁ - θ >= 1 and w₂ - θ >= 1, the negatives -θ <= -1 and w₁ + w₂ - θ <= -1, and the four sum
    to 0 <= -4. A (n, m), b (n,), λ (n,).
    """
    A, b, lam = np.asarray(A, float), np.asarray(b, float), np.asarray(multipliers, float)
    return bool(np.all(lam >= 0) and np.allclose(lam @ A, 0.0) and lam @ b < 0)


# --- Representation: a consistent disjunction is hard to minimise -------------------------


def set_cover_sample(sets, n_elements: int) -> tuple[np.ndarray, np.ndarray]:
    """The sample of CS446's "Importance of representation" reduction from set cover.

    Variable j stands for set j. For each element e = 0, …, n_elements - 1 a positive example
    has xⱼ = 1 exactly when set j contains e; one negative example has every variable 0. A
    monotone disjunction is consistent with the sample exactly when its variables' sets cover
    every element, so the smallest consistent disjunction is a minimum set cover (NP-hard,
    Haussler 1988). ``sets``: a sequence of collections of elements in [0, n_elements).
    Returns X of shape (n_elements + 1, len(sets)) and y in {-1, +1}.
    """
    n_elements = positive_int(n_elements, "n_elements")
    sets = [set(members) for members in sets]
    if not sets or any(not 0 <= e < n_elements for members in sets for e in members):
        raise ValueError(f"sets must be a non-empty list of sets of elements in "
                         f"[0, {n_elements}).")
    X = np.array([[float(e in members) for members in sets] for e in range(n_elements)]
                 + [[0.0] * len(sets)])
    return X, np.r_[np.ones(n_elements), -1.0]


def minimum_consistent_disjunction(X, y) -> tuple[tuple[int, ...], int]:
    """The smallest set of variables whose monotone disjunction labels every row of X as y, by
    trying every subset in order of size: exponential in d, as NP-hardness leads one to expect.
    X (n, d) binary, y (n,) in {-1, +1}. Returns (the variables, the subsets tried); raises
    ValueError when no monotone disjunction is consistent."""
    X, y = _binary_data(X, y)
    tried = 0
    for size in range(X.shape[1] + 1):
        for subset in itertools.combinations(range(X.shape[1]), size):
            tried += 1
            if np.array_equal(X[:, list(subset)].any(axis=1), y > 0):
                return subset, tried
    raise ValueError("no monotone disjunction is consistent with this sample.")


# --- The Winnow family --------------------------------------------------------------------


def _binary_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    X = as_binary(X, why=": Winnow multiplies the weights of the features that are 1")
    return as_data(X, y)


def _threshold(theta, d: int) -> float:
    return float(d) if theta is None else positive(theta, "theta")


def elimination_update(w: np.ndarray, x: np.ndarray, y: float, theta: float) -> np.ndarray:
    """One step of Winnow with elimination (CS446 "Winnow algorithm"): promote as Winnow does
    (double the active weights on a missed positive), but on a false positive set the active
    weights to 0 instead of halving them. Shapes w, x (d,); returns w itself when correct.

    Fits monotone disjunctions: a negative example has every relevant variable off, so only
    irrelevant variables are ever eliminated.
    """
    updated = winnow_update(w, x, y, theta)
    if updated is w or y > 0:
        return updated
    return np.where(x == 1, 0.0, w)


def winnow_elimination(X, y, *, theta: float | None = None,
                       max_epochs: int = DEFAULT_MAX_EPOCHS) -> WinnowResult:
    """Winnow with elimination for monotone disjunctions (CS446), w = 1 and θ = d at the start.

    Mistake bound for a k-disjunction over d variables with θ = d: each relevant weight is
    doubled only while it is <= d, so at most k·(⌊log₂ d⌋ + 1) promotions; each elimination
    removes weight >= θ = d from a total that starts at d and grows by <= d per promotion, so
    eliminations <= promotions. Total <= 2k·(⌊log₂ d⌋ + 1) (:func:`winnow_bound`).

    X (n, d) binary, y (n,) in {-1, +1}. Returns a ``mllib.perceptron.WinnowResult``.
    """
    X, y = _binary_data(X, y)
    return winnow_passes(X, y, elimination_update, w0=np.ones(X.shape[1]),
                         theta=_threshold(theta, X.shape[1]),
                         max_epochs=positive_int(max_epochs, "max_epochs"))


def winnow_bound(k: int, d: int, *, elimination: bool = False) -> int:
    """A bound on Winnow's mistakes on a monotone k-disjunction of d variables, θ = d, w₀ = 1.

    Promotions u <= k·(⌊log₂ d⌋ + 1): a relevant weight is never demoted (negative examples
    have it off) and is doubled only when w·x <= θ = d, so only while it is <= d. The total
    weight starts at d, grows by at most θ = d per promotion and drops by at least d/2 per
    demotion and stays > 0, so demotions v <= 2u + 1 and M <= 3u + 1 (the O(k log n) of CS446,
    made explicit). With elimination a demotion removes at least d, so v <= u and M <= 2u.
    """
    k, d = positive_int(k, "k"), positive_int(d, "d")
    promotions = k * (int(np.floor(np.log2(d))) + 1)
    return 2 * promotions if elimination else 3 * promotions + 1


def duplicate_negations(X) -> np.ndarray:
    """[x, 1 - x]: add a variable for each negation, so a monotone learner such as Winnow can
    learn non-monotone disjunctions over 2d variables (CS446 "Winnow - extensions"; the price is
    twice the variables). X (n, d) binary -> (n, 2d)."""
    X = as_binary(X, why=": variables are duplicated as x and 1 - x")
    return np.hstack([X, 1 - X])


def winnow_duplicated(X, y, *, theta: float | None = None,
                      max_epochs: int = DEFAULT_MAX_EPOCHS) -> WinnowResult:
    """Plain Winnow on :func:`duplicate_negations` (X), θ = 2d by default (MMDS's θ = #features).

    Learns a disjunction of literals such as x₁ ∨ ¬x₂. X (n, d) binary, y (n,) in {-1, +1}; the
    result's w has shape (2d,): weights of x, then of ¬x.
    """
    X2 = duplicate_negations(X)
    X2, y = _binary_data(X2, y)
    return winnow_passes(X2, y, winnow_update, w0=np.ones(X2.shape[1]),
                         theta=_threshold(theta, X2.shape[1]),
                         max_epochs=positive_int(max_epochs, "max_epochs"))


def balanced_winnow_update(w_plus: np.ndarray, w_minus: np.ndarray, x: np.ndarray, y: float,
                           theta: float) -> tuple[np.ndarray, np.ndarray]:
    """One step of Balanced Winnow (CS446 "Winnow - extensions").

    The effective weights are w⁺ - w⁻. On a missed positive, (w⁺ - w⁻)·x <= θ, double w⁺ᵢ and
    halve w⁻ᵢ where xᵢ = 1; on a false positive, (w⁺ - w⁻)·x >= θ, halve w⁺ᵢ and double w⁻ᵢ.
    This is :func:`mllib.perceptron.winnow_update` on the stacked weights [w⁺, w⁻] and the
    stacked input [x, -x]: wᵢ·2^(y·x'ᵢ) doubles one half and halves the other.
    Shapes: w_plus, w_minus, x (d,). Returns the new (w_plus, w_minus).
    """
    d = len(x)
    stacked = winnow_update(np.concatenate([w_plus, w_minus]), np.concatenate([x, -x]), y, theta)
    return stacked[:d], stacked[d:]


def balanced_winnow(X, y, *, theta: float | None = None,
                    max_epochs: int = DEFAULT_MAX_EPOCHS) -> WinnowResult:
    """Balanced Winnow (CS446): weights w⁺ = 2, w⁻ = 1 at the start, so the effective weights
    start at 1 and θ = d, where plain Winnow starts; unlike Winnow, an effective weight can turn
    negative, so targets such as x₁ ∧ ¬x₂ (x₁ - x₂ >= 1) are learnable. Runs
    :func:`balanced_winnow_update` in passes.

    The result's w has shape (2d,): [w⁺, w⁻]; the effective weights are w[:d] - w[d:]. Each
    visit's ``score`` is (w⁺ - w⁻)·x. X (n, d) binary, y (n,) in {-1, +1}.
    """
    X, y = _binary_data(X, y)
    d = X.shape[1]
    return winnow_passes(np.hstack([X, -X]), y, winnow_update,
                         w0=np.concatenate([2 * np.ones(d), np.ones(d)]),
                         theta=_threshold(theta, d),
                         max_epochs=positive_int(max_epochs, "max_epochs"))


def winnow_r_update(w: np.ndarray, x: np.ndarray, y: float, theta: float, floor: float = 0.5
                    ) -> np.ndarray:
    """One step of Winnow-R (CS446 "Winnow - a robust variation"): Winnow's step, but no weight
    may fall below ``floor`` (½ on the slide), so a variable that joins the target later can
    be promoted back quickly: with θ = d and floor ½ it is doubled only while its weight is
    <= d (w·x = θ is a mistake), at most ⌊log₂ d⌋ + 2 times from ½. Shapes w, x (d,); returns
    w itself when correct."""
    updated = winnow_update(w, x, y, theta)
    return updated if updated is w else np.maximum(updated, floor)


def winnow_r(X, y, *, floor: float = 0.5, theta: float | None = None) -> WinnowResult:
    """Winnow-R over one pass of a stream whose target may shift (CS446: O(c·log n) mistakes when
    the adversary adds or removes c variables). w = 1, θ = d at the start; one pass, because a
    shifting target has no "training set" to cycle over. X (n, d) binary, y (n,) in {-1, +1}.
    Compare with plain Winnow on the same stream: ``winnow_stream``."""
    X, y = _binary_data(X, y)
    floor = positive(floor, "floor")
    return winnow_passes(X, y, lambda w, x, label, th: winnow_r_update(w, x, label, th, floor),
                         w0=np.ones(X.shape[1]), theta=_threshold(theta, X.shape[1]),
                         max_epochs=1)


def winnow_stream(X, y, *, theta: float | None = None) -> WinnowResult:
    """Plain Winnow over one pass of a stream (the baseline for :func:`winnow_r`)."""
    X, y = _binary_data(X, y)
    return winnow_passes(X, y, winnow_update, w0=np.ones(X.shape[1]),
                         theta=_threshold(theta, X.shape[1]), max_epochs=1)


def thick_winnow_update(w: np.ndarray, x: np.ndarray, y: float, theta: float, margin: float
                        ) -> np.ndarray:
    """Winnow with a thick separator (CS446 "Perceptron with margin", which applies to Winnow
    too): promote a positive when w·x - θ <= γ, demote a negative when w·x - θ >= -γ.

    The slide prints "demote if w·x - θ > γ", a sign slip: a negative example must end up at
    least γ *below* the threshold, so it is demoted whenever w·x - θ > -γ. (As elsewhere in
    MMDS's convention the boundary itself counts as a mistake.) This is
    :func:`mllib.perceptron.winnow_update` with the threshold moved to θ + y·γ.
    """
    return winnow_update(w, x, y, theta + y * margin)


def thick_winnow(X, y, *, margin: float, theta: float | None = None,
                 max_epochs: int = DEFAULT_MAX_EPOCHS) -> WinnowResult:
    """Winnow with a thick separator of half-width γ = ``margin`` (:func:`thick_winnow_update`).
    The result's ``theta`` is the separator's own θ. X (n, d) binary, y (n,) in {-1, +1}."""
    X, y = _binary_data(X, y)
    margin = positive(margin, "margin")
    return winnow_passes(X, y, lambda w, x, label, th: thick_winnow_update(w, x, label, th, margin),
                         w0=np.ones(X.shape[1]), theta=_threshold(theta, X.shape[1]),
                         max_epochs=positive_int(max_epochs, "max_epochs"))


def thick_perceptron(X, y, *, margin: float, eta: float = 1.0,
                     max_epochs: int = DEFAULT_MAX_EPOCHS) -> PerceptronResult:
    """The perceptron with a thick separator (CS446 "Perceptron with margin"): update
    w ← w + η·y·x whenever y·(w·x) <= γ, so examples inside the band of functional margin γ are
    updated too. γ is not normalised by ‖w‖ (the slide: "its effect could disappear as w
    grows"); compare Balcan's normalised ``mllib.perceptron.margin_perceptron``. With γ = 1 and
    η = 1 this is Gupta's perceptron except at y·(w·x) = 1 exactly. The engine is
    ``mllib.perceptron``'s; X (n, d), y (n,) in {-1, +1}.
    """
    X, y, eta, max_epochs, _, _ = _prepare(X, y, eta, max_epochs, None, None)
    margin = positive(margin, "margin")
    return _cycle(X, y, lambda w: margin, np.less_equal, eta=eta, max_epochs=max_epochs,
                  w0=None, w_star=None)


# --- Learning from experts ----------------------------------------------------------------


@dataclass(frozen=True)
class ExpertRound:
    """One round of an experts algorithm.

    Attributes
    ----------
    t : int
        The round, from 1.
    prediction : float
        The learner's prediction (±1); for the randomised algorithm, the drawn one.
    outcome : float
        The true label (±1).
    p_wrong : float
        The probability the learner was wrong: 0 or 1 for deterministic algorithms.
    weights : ndarray of shape (N,)
        The experts' weights after the round.
    """

    t: int
    prediction: float
    outcome: float
    p_wrong: float
    weights: np.ndarray


@dataclass(frozen=True)
class ExpertsResult:
    """What the experts algorithms return.

    Attributes
    ----------
    mistakes : int
        The learner's mistakes.
    expected_mistakes : float
        Σₜ P(wrong at t): equals ``mistakes`` for the deterministic algorithms.
    expert_mistakes : ndarray of shape (N,)
        Each expert's mistakes; the best expert made ``expert_mistakes.min()``.
    weights : ndarray of shape (N,)
    history : tuple of ExpertRound
    """

    mistakes: int
    expected_mistakes: float
    expert_mistakes: np.ndarray
    weights: np.ndarray
    history: tuple[ExpertRound, ...]


def _expert_data(predictions, outcomes) -> tuple[np.ndarray, np.ndarray]:
    """predictions (T, N) and outcomes (T,), all ±1."""
    predictions = as_matrix(predictions, "predictions")
    as_labels(predictions.ravel())
    return predictions, as_labels(outcomes, predictions.shape[0])


def _beta(beta) -> float:
    beta = finite(beta, "beta")
    if not 0 <= beta < 1:
        raise ValueError(f"beta must be in [0, 1): wrong experts' weights are multiplied by it; "
                         f"got {beta}.")
    return beta


def weighted_majority_vote(weights, advice) -> float:
    """Deterministic weighted majority's prediction: +1 when the weight of the experts saying +1
    is at least that of those saying -1 (ties go to +1), else -1. weights, advice (N,)."""
    weights, advice = np.asarray(weights, float), np.asarray(advice, float)
    return 1.0 if weights @ (advice > 0) >= weights @ (advice < 0) else -1.0


def weighted_majority_update(weights, advice, outcome: float, beta: float = 0.5) -> np.ndarray:
    """Multiply the weight of every expert whose advice was wrong by β (Littlestone and Warmuth
    1994). weights, advice (N,); returns the new weights."""
    weights, advice = np.asarray(weights, float), np.asarray(advice, float)
    return np.where(advice != outcome, beta * weights, weights)


def _experts(predictions, outcomes, beta, draw) -> ExpertsResult:
    """The engine: vote, then multiply the wrong experts' weights by β. ``draw(p_plus)`` turns
    the weight share of +1 into a prediction (None: the deterministic vote)."""
    N = predictions.shape[1]
    weights = np.ones(N)
    rounds = []
    for t, (advice, outcome) in enumerate(zip(predictions, outcomes, strict=True), start=1):
        if draw is None:
            prediction = weighted_majority_vote(weights, advice)
            p_wrong = float(prediction != outcome)
        else:  # β > 0 keeps every weight, so the total is positive
            share_plus = weights @ (advice > 0) / np.sum(weights)
            prediction = draw(share_plus)
            p_wrong = float(1 - share_plus if outcome > 0 else share_plus)
        weights = weighted_majority_update(weights, advice, outcome, beta)
        rounds.append(ExpertRound(t, prediction, float(outcome), p_wrong, weights))
    mistakes = sum(r.prediction != r.outcome for r in rounds)
    return ExpertsResult(int(mistakes), float(sum(r.p_wrong for r in rounds)),
                         np.sum(predictions != outcomes[:, None], axis=0), weights, tuple(rounds))


def weighted_majority(predictions, outcomes, *, beta: float = 0.5) -> ExpertsResult:
    """Deterministic weighted majority (Littlestone and Warmuth 1994; Gupta §3's problem).

    Every expert starts with weight 1. Each round, predict the weighted majority of the advice
    (:func:`weighted_majority_vote`, ties to +1), then multiply the weights of the experts that
    were wrong by β. If the best expert makes m mistakes, the learner makes at most
    (log₂ N + m·log₂(1/β)) / log₂(2/(1 + β)) mistakes, 2.41·(m + log₂ N) for β = ½
    (:func:`weighted_majority_bound`).

    Parameters
    ----------
    predictions : array_like of shape (T, N)
        Expert j's advice in round t, ±1.
    outcomes : array_like of shape (T,)
        The true labels, ±1.
    beta : float in [0, 1), default 0.5
        β = 0 is the halving algorithm (:func:`halving`).

    Returns
    -------
    ExpertsResult
    """
    predictions, outcomes = _expert_data(predictions, outcomes)
    return _experts(predictions, outcomes, _beta(beta), None)


def halving(predictions, outcomes) -> ExpertsResult:
    """The halving algorithm: predict with the majority of the experts consistent so far (ties to
    +1), then drop those that were wrong. It is :func:`weighted_majority` with β = 0. When one
    expert is never wrong, each mistake removes at least half of the survivors, so at most
    ⌊log₂ N⌋ mistakes (:func:`halving_bound`). Shapes as for :func:`weighted_majority`.
    """
    return weighted_majority(predictions, outcomes, beta=0.0)


def randomized_weighted_majority(predictions, outcomes, *, beta: float = 0.5,
                                 seed: int | np.random.Generator | None = 0) -> ExpertsResult:
    """Randomised weighted majority (Littlestone and Warmuth 1994): predict +1 with probability
    equal to the weight share of the experts saying +1; update as :func:`weighted_majority`.

    The expected number of mistakes (``expected_mistakes``, exact, not sampled) is at most
    (m·ln(1/β) + ln N)/(1 - β) (:func:`randomized_weighted_majority_bound`): for β = 1 - ε about
    (1 + ε/2)·m + ln N/ε, a trade-off between following the best expert closely (small ε) and
    paying ln N/ε to find it. Shapes as for
    :func:`weighted_majority`; ``seed`` drives the draws recorded in ``mistakes``.
    """
    predictions, outcomes = _expert_data(predictions, outcomes)
    beta = _beta(beta)
    if beta == 0:
        raise ValueError("beta must be > 0 for randomised weighted majority: with β = 0 every "
                         "expert can drop out, leaving no weight to draw from.")
    rng = np.random.default_rng(seed)
    return _experts(predictions, outcomes, beta,
                    lambda p_plus: 1.0 if rng.random() < p_plus else -1.0)


def halving_bound(n_experts: int) -> float:
    """log₂ N, the halving algorithm's mistake bound when some expert is perfect."""
    return float(np.log2(positive_int(n_experts, "n_experts")))


def weighted_majority_bound(best_mistakes: float, n_experts: int, beta: float = 0.5) -> float:
    """(log₂ N + m·log₂(1/β)) / log₂(2/(1 + β)) (Littlestone and Warmuth 1994).

    The total weight starts at N; each mistake of the learner multiplies it by at most (1 + β)/2
    (at least half of it was on the wrong side), and it stays at least β^m (the best expert's
    weight). For β = ½ this is (m + log₂ N)/log₂(4/3) ≈ 2.41·(m + log₂ N).
    """
    beta = _beta(beta)
    if beta == 0:
        raise ValueError("beta = 0 gives no bound unless the best expert is perfect: use "
                         "halving_bound.")
    m = finite(best_mistakes, "best_mistakes")
    N = positive_int(n_experts, "n_experts")
    return (np.log2(N) + m * np.log2(1 / beta)) / np.log2(2 / (1 + beta))


def randomized_weighted_majority_bound(best_mistakes: float, n_experts: int,
                                       beta: float = 0.5) -> float:
    """(m·ln(1/β) + ln N)/(1 - β), a bound on randomised weighted majority's expected mistakes
    (Littlestone and Warmuth 1994)."""
    beta = _beta(beta)
    if beta == 0:
        raise ValueError("beta must be > 0 for this bound.")
    m = finite(best_mistakes, "best_mistakes")
    return (m * np.log(1 / beta) + np.log(positive_int(n_experts, "n_experts"))) / (1 - beta)


# --- Which algorithm to choose: multiplicative against additive --------------------------


def kivinen_warmuth_bounds(u, X, y) -> tuple[float, float]:
    """The mistake bounds CS446 ("Which algorithm to choose?") quotes from Kivinen and Warmuth
    (1995) for a target u that separates the examples, yᵢ·(u·xᵢ) > 0 for all i:

    multiplicative (Winnow-like)  M_w = 2 ln d · ‖u‖₁² · maxᵢ‖xᵢ‖∞² / minᵢ (yᵢ u·xᵢ)²,
    additive (perceptron-like)    M_p = ‖u‖₂² · maxᵢ‖xᵢ‖₂² / minᵢ (yᵢ u·xᵢ)².

    The first depends on the target's ℓ₁ norm (small for a sparse u) and only on the largest
    *entry* of x; the second on the examples' ℓ₂ norm (small when few features are active).
    The slide writes the margin as u·x; the label yᵢ makes it a margin for ±1 labels.
    X (m, d), y (m,) in {-1, +1}, u (d,). Returns (M_w, M_p).
    """
    X, y = as_data(X, y)
    u = as_matrix(np.atleast_2d(u), "u")[0]
    if u.shape != (X.shape[1],):
        raise ValueError(f"u must have one weight per feature ({X.shape[1]}); got {u.shape}.")
    margin = float(np.min(y * (X @ u)))
    if margin <= 0:
        raise ValueError("u must separate the examples: y·(u·x) > 0 for every example.")
    d = X.shape[1]
    winnow = 2 * np.log(d) * np.sum(np.abs(u)) ** 2 * np.max(np.abs(X)) ** 2 / margin**2
    perceptron = np.sum(u**2) * np.max(np.sum(X**2, axis=1)) / margin**2
    return float(winnow), float(perceptron)


# --- Balcan's bound for data that is not separable ----------------------------------------


def total_margin_deficit(w_star, X, y, gamma: float) -> float:
    """TD_γ = Σᵢ max(0, γ - yᵢ·(u·xᵢ)) with u = w*/‖w*‖ (Balcan, 10-601 §1.2).

    The total distance the points would have to move for the unit vector u to separate them
    with margin γ. Balcan calls TD_γ/γ "the total hinge loss of w*": it is
    Σᵢ max(0, 1 - yᵢ·(u/γ)·xᵢ), the hinge loss of the rescaled separator u/γ, whose
    functional margin 1 is geometric margin γ. Compare CS446's D₂, the Euclidean length of the
    same shortfalls (``mllib.perceptron.margin_deficit``). X (n, d), y (n,), w_star (d,).
    """
    return float(np.sum(margin_shortfalls(w_star, X, y, gamma)))


def balcan_nonseparable_bound(R: float, gamma: float, td: float) -> float:
    """M <= (R/γ)² + (2/γ)·TD_γ, Balcan's bound on the perceptron's mistakes on any sequence with
    ‖x‖ <= R, for any unit w* and γ > 0 (TD_γ from :func:`total_margin_deficit`, summed over
    the whole sequence: T passes over a sample have T times the one-pass TD_γ).

    From w·w* >= γM - TD_γ and ‖w‖² <= MR² after M mistakes: γM - TD_γ <= R√M, whose solution
    is at most this. With TD_γ = 0 it is Novikoff's (R/γ)².
    """
    td = finite(td, "td")
    if td < 0:
        raise ValueError(f"td (TD_γ) must be >= 0; got {td}.")
    R, gamma = positive(R, "R"), positive(gamma, "gamma")
    return (R / gamma) ** 2 + 2 * td / gamma
