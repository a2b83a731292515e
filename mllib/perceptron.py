"""The perceptron family: online linear classifiers and their mistake bounds.

Sources
-------
- MMDS ch. 12 (Leskovec, Rajaraman, Ullman), §12.2.1 training with zero threshold, Example 12.4,
  §12.2.3 Winnow (Fig. 12.7), §12.2.4 the threshold as an extra feature (Figs. 12.8-12.9).
- CS446 slides (seed 001): the perceptron rule, Novikoff's R²/γ² theorem, robustness to noise
  ((R+D₂)/γ)², the averaged and voted perceptron.
- Gupta, "Algorithms for Machine Learning" (seed 000): the margin-1 perceptron and its 3/γ² bound.
- CS578 L2 (seed 002): the geometric margin γ_g and the two-inequality proof.
- Balcan, CMU 10-601 (seed 004): the margin perceptron and its 8(R/γ)² + 4R/γ bound.

Conventions
-----------
Labels are in {-1, +1}. The separator passes through the origin; append a constant feature with
:func:`add_threshold_feature` to learn a threshold. Following MMDS §12.2.1, a score w·x = 0 is a
mistake whatever the label, so the classic rule updates whenever y·(w·x) <= 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mllib.validation import (
    as_binary,
    as_data,
    as_matrix,
    as_vector,
    finite,
    positive,
    positive_int,
)

DEFAULT_MAX_EPOCHS = 100


@dataclass(frozen=True)
class Update:
    """One update of a perceptron-style algorithm.

    Attributes
    ----------
    epoch : int
        The pass over the data, counting from 1.
    index : int
        The row of ``X`` that caused the update.
    score : float
        w·x for that row, before the update (MMDS's y').
    w : ndarray of shape (d,)
        The weights after the update.
    norm_sq : float
        ‖w‖² after the update: the proof's second quantity, at most k·R² after k updates.
    alignment : float or None
        w·w* after the update, when a reference separator w* was given: the proof's first
        quantity, at least k·γ·‖w*‖ after k updates.
    """

    epoch: int
    index: int
    score: float
    w: np.ndarray
    norm_sq: float
    alignment: float | None


@dataclass(frozen=True)
class PerceptronResult:
    """What a perceptron run returns.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The final weights.
    mistakes : int
        The number of updates made (for the classic rule, the number of mistakes).
    epochs : int
        The number of passes made over the data.
    converged : bool
        True when the last pass made no update, so ``w`` is consistent with every example.
    history : tuple of Update
        Every update in order; ``history[k-1].w`` is the weight vector after k updates.
    """

    w: np.ndarray
    mistakes: int
    epochs: int
    converged: bool
    history: tuple[Update, ...]


# Rows are scored a block at a time with one matrix-vector product. The weights only change at
# an update, so scoring a block with the current w and resuming just after the first row that
# needs an update is exactly the sequential algorithm. The block grows while rows pass and
# shrinks after an update, so it tracks the gap between updates. Where updates are dense (every
# ~100 rows) the Python work per block and per update is what costs, so it is kept to a few numpy
# calls: every rule here updates when y·(w·x) falls below a threshold that depends on w alone
# (MMDS: <= 0, Gupta: < 1, Balcan: < γ/2·‖w‖), so the threshold is recomputed only at an update;
# argmax finds the first hit (it stops at the first True); ndarray.dot skips the dispatch that
# ``@`` goes through; a slice may run past the last row (numpy truncates it).
_MIN_BLOCK = 8
_MAX_BLOCK = 4096


def _cycle(
    X: np.ndarray,
    y: np.ndarray,
    threshold: Callable[[np.ndarray], float],
    below: Callable[[np.ndarray, float], np.ndarray],
    *,
    eta: float,
    max_epochs: int,
    w0: np.ndarray | None,
    w_star: np.ndarray | None,
) -> PerceptronResult:
    """The shared engine: visit rows in order, w += eta·y·x where ``below(y·(w·x), threshold(w))``.

    ``below`` is ``np.less`` or ``np.less_equal``.
    """
    n, d = X.shape
    w = np.zeros(d) if w0 is None else w0
    steps = eta * y  # η·yᵢ: the factor of xᵢ in the update, the same number the loop would use
    limit = threshold(w)
    updates: list[Update] = []
    for epoch in range(1, max_epochs + 1):
        updates_before = len(updates)
        start, block = 0, _MIN_BLOCK
        while start < n:
            scores = X[start : start + block].dot(w)
            hits = below(y[start : start + block] * scores, limit)
            k = hits.argmax()
            if not hits[k]:
                start, block = start + block, min(2 * block, _MAX_BLOCK)
                continue
            i = start + int(k)
            w = w + steps[i] * X[i]
            limit = threshold(w)
            alignment = None if w_star is None else float(w.dot(w_star))
            updates.append(Update(epoch, i, float(scores[k]), w, float(w.dot(w)), alignment))
            start, block = i + 1, max(block // 2, _MIN_BLOCK)
        if len(updates) == updates_before:
            return PerceptronResult(w, len(updates), epoch, True, tuple(updates))
    return PerceptronResult(w, len(updates), max_epochs, False, tuple(updates))


def _prepare(X, y, eta, max_epochs, w0, w_star):
    X, y = as_data(X, y)
    d = X.shape[1]
    return (
        X,
        y,
        positive(eta, "eta"),
        positive_int(max_epochs, "max_epochs"),
        None if w0 is None else as_vector(w0, "w0", d),
        None if w_star is None else as_vector(w_star, "w_star", d),
    )


def perceptron(
    X,
    y,
    *,
    eta: float = 1.0,
    max_epochs: int = DEFAULT_MAX_EPOCHS,
    w0=None,
    w_star=None,
) -> PerceptronResult:
    """Train the classic perceptron (MMDS §12.2.1; CS446 "Perceptron learning rule").

    Visit the examples in order; on a mistake, y·(w·x) <= 0, set w ← w + η·y·x. A score of
    exactly 0 counts as a mistake (MMDS). Stop after a full pass with no mistake, or after
    ``max_epochs`` passes (non-separable data never converges: CS446's cycling theorem).

    Parameters
    ----------
    X : array_like of shape (n, d)
        The examples, one per row.
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    eta : float, default 1.0
        The learning rate η > 0. From w0 = 0 it only rescales w, so it changes no prediction.
    max_epochs : int, default 100
        The most passes to make over the data.
    w0 : array_like of shape (d,), optional
        The starting weights; zeros by default.
    w_star : array_like of shape (d,), optional
        A reference separator. When given, each update records w·w* (``Update.alignment``).

    Returns
    -------
    PerceptronResult
        ``.w``, ``.mistakes``, ``.epochs``, ``.converged`` and ``.history``.

    Examples
    --------
    MMDS Example 12.4 converges after four updates:

    >>> from mllib.data import mmds_spam
    >>> X, y, words = mmds_spam()
    >>> perceptron(X, y, eta=0.5).w.tolist()
    [0.0, 1.0, 0.0, -0.5, 0.5]
    """
    X, y, eta, max_epochs, w0, w_star = _prepare(X, y, eta, max_epochs, w0, w_star)
    return _cycle(X, y, lambda w: 0.0, np.less_equal, eta=eta, max_epochs=max_epochs, w0=w0,
                  w_star=w_star)


def gupta_perceptron(X, y, *, max_epochs: int = DEFAULT_MAX_EPOCHS, w_star=None):
    """Train Gupta's perceptron, which updates while the functional margin is below 1.

    Gupta §2.2.2: starting from w = 0, while some example has y·(w·x) < 1, set w ← w + y·x.
    Here the examples are visited in order, as in :func:`perceptron`. With every ‖x‖ <= 1 it
    makes at most 3/γ² updates (:func:`gupta_bound`), where γ = 1/‖w*‖ and w* is the shortest
    vector with y·(w*·x) >= 1 for all examples.

    Parameters and return value are as for :func:`perceptron` (η is fixed at 1, as in the text).
    """
    X, y, eta, max_epochs, _, w_star = _prepare(X, y, 1.0, max_epochs, None, w_star)
    return _cycle(X, y, lambda w: 1.0, np.less, eta=eta, max_epochs=max_epochs, w0=None,
                  w_star=w_star)


def margin_perceptron(X, y, *, margin: float, max_epochs: int = DEFAULT_MAX_EPOCHS, w_star=None):
    """Train Balcan's margin perceptron, which also updates on margin mistakes.

    Balcan (10-601, "the margin perceptron algorithm(γ)"): update w ← w + y·x whenever
    y·(w·x)/‖w‖ < γ/2, i.e. on a wrong prediction or a correct one inside the band of half-width
    γ/2. Balcan initialises w with the first example, y₁x₁; starting from w = 0 and treating
    ‖w‖ = 0 as a margin mistake gives the same first step, and it is counted as an update. On
    data separable with margin γ by a unit vector it makes at most 8(R/γ)² + 4R/γ updates
    (:func:`margin_perceptron_bound`).

    Parameters
    ----------
    margin : float
        γ > 0, the margin the data is assumed to have.

    The other parameters and the return value are as for :func:`perceptron`.
    """
    X, y, eta, max_epochs, _, w_star = _prepare(X, y, 1.0, max_epochs, None, w_star)
    half = positive(margin, "margin") / 2

    def band(w):  # with w = 0 every example is a margin mistake
        norm = np.linalg.norm(w)
        return half * norm if norm > 0 else np.inf

    return _cycle(X, y, band, np.less, eta=eta, max_epochs=max_epochs, w0=None, w_star=w_star)


def add_threshold_feature(X, value: float = -1.0) -> np.ndarray:
    """Append a constant feature so that a separator through the origin can learn a threshold.

    MMDS §12.2.4: with x' = [x, -1] and w' = [w, θ], w'·x' >= 0 exactly when w·x >= θ, so the
    last learned weight is the threshold θ. (MMDS §12.3.4 appends +1 instead, making the last
    weight the bias b = -θ.)

    Parameters
    ----------
    X : array_like of shape (n, d)
    value : float, default -1.0

    Returns
    -------
    ndarray of shape (n, d + 1)
    """
    X = as_matrix(X)
    return np.hstack([X, np.full((X.shape[0], 1), finite(value, "value"))])


@dataclass(frozen=True)
class VotedResult:
    """The hypotheses of a voted perceptron and how long each survived.

    Attributes
    ----------
    weights : ndarray of shape (k, d)
        v₁ = 0, then the weights after each of the k - 1 mistakes.
    counts : ndarray of shape (k,)
        cᵢ, the number of examples vᵢ was in charge of (CS446's consistency count).
    """

    weights: np.ndarray
    counts: np.ndarray

    @property
    def averaged(self) -> np.ndarray:
        """The averaged perceptron's weights Σᵢ cᵢ·vᵢ, shape (d,)."""
        return self.counts @ self.weights


def voted_perceptron(X, y, *, epochs: int = 10) -> VotedResult:
    """Train the voted (and averaged) perceptron of CS446 for ``epochs`` passes.

    CS446 "Regularization via averaged perceptron": run the perceptron; the current hypothesis
    vₖ earns one vote for every example it classifies correctly, and a mistake starts a new
    hypothesis vₖ₊₁ = vₖ + y·x with one vote. The hypotheses are exactly those of
    :func:`perceptron` with η = 1, so they are read off its history: an update at global step
    pₖ (epoch and row) ends one hypothesis and starts the next.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    epochs : int, default 10
        T, the number of passes.

    Returns
    -------
    VotedResult
        Predict with :func:`predict_voted` or :func:`predict_averaged`.
    """
    X, y = as_data(X, y)
    epochs = positive_int(epochs, "epochs")
    run = perceptron(X, y, max_epochs=epochs)
    n, d = X.shape
    steps = np.array([(u.epoch - 1) * n + u.index for u in run.history], dtype=int)
    weights = np.vstack([np.zeros(d)] + [u.w for u in run.history])
    counts = np.diff(np.concatenate([[0], steps, [epochs * n]]))
    return VotedResult(weights, counts.astype(float))


def _sign(scores: np.ndarray) -> np.ndarray:
    """Predicted labels: +1 where the score is positive, else -1 (a score of 0 is never right)."""
    return np.where(scores > 0, 1.0, -1.0)


def predict(w, X) -> np.ndarray:
    """Predict labels sign(w·x) for the rows of X, shape (n, d) -> (n,); 0 predicts -1."""
    X = as_matrix(X)
    return _sign(X @ as_vector(w, "w", X.shape[1]))


def predict_voted(result: VotedResult, X) -> np.ndarray:
    """CS446's voted prediction sign(Σᵢ cᵢ·sign(vᵢ·x)), shape (n, d) -> (n,)."""
    X = as_matrix(X)
    as_vector(result.weights[0], "each voted weight vector", X.shape[1])
    votes = np.sign(X @ result.weights.T)
    return _sign(votes @ result.counts)


def predict_averaged(result: VotedResult, X) -> np.ndarray:
    """The averaged perceptron's prediction sign((Σᵢ cᵢ·vᵢ)·x), shape (n, d) -> (n,)."""
    return predict(result.averaged, X)


# --- Winnow -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WinnowVisit:
    """One example seen by Winnow: a row of MMDS Fig. 12.7.

    Attributes
    ----------
    epoch, index : int
        The pass (from 1) and the row of ``X``.
    y : float
        The label.
    score : float
        w·x before any update.
    correct : bool
        MMDS's "OK?" column.
    w : ndarray of shape (d,)
        The weights after this visit (unchanged when ``correct``).
    """

    epoch: int
    index: int
    y: float
    score: float
    correct: bool
    w: np.ndarray


@dataclass(frozen=True)
class WinnowResult:
    """What :func:`winnow` returns.

    Attributes
    ----------
    w : ndarray of shape (d,) or (d + 1,)
        The final weights; with ``learn_threshold`` the last one is θ.
    theta : float
        The threshold compared with w·x (0 when the threshold is learned as a weight).
    mistakes, epochs, converged
        As for :class:`PerceptronResult`.
    history : tuple of WinnowVisit
        Every visit, updated or not, as MMDS tabulates them.
    """

    w: np.ndarray
    theta: float
    mistakes: int
    epochs: int
    converged: bool
    history: tuple[WinnowVisit, ...]


def winnow_update(w: np.ndarray, x: np.ndarray, y: float, theta: float) -> np.ndarray:
    """One step of Winnow (MMDS §12.2.3): return w itself when x is classified correctly,
    else the new weights wᵢ·2^(y·xᵢ).

    Correct means w·x > θ for y = +1 and w·x < θ for y = -1; w·x = θ is always a mistake.
    Shapes: w and x (d,).
    """
    score = w @ x
    correct = score > theta if y > 0 else score < theta
    return w if correct else w * 2.0 ** (y * x)


def winnow(
    X, y, *, theta: float | None = None, learn_threshold: bool = False,
    max_epochs: int = DEFAULT_MAX_EPOCHS,
) -> WinnowResult:
    """Train Winnow with factors 2 and 1/2 (MMDS §12.2.3; CS446 "Winnow algorithm").

    Start with w = 1 and θ = d. An example is correct when w·x > θ and y = +1, or w·x < θ and
    y = -1; w·x = θ is a mistake either way (MMDS; CS446 predicts positive on w·x >= θ). On a
    mistake every weight whose feature is 1 is doubled (y = +1) or halved (y = -1):
    wᵢ ← wᵢ·2^(y·xᵢ).

    With ``learn_threshold`` (MMDS §12.2.4, Fig. 12.9) a feature of -1 is appended, θ is set to
    0, and the last weight plays the threshold; the same rule 2^(y·xᵢ) halves it on a
    promotion and doubles it on a demotion, as MMDS prescribes.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Binary features (0 or 1).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    theta : float, optional
        The threshold; d by default. Not allowed with ``learn_threshold``.
    learn_threshold : bool, default False
    max_epochs : int, default 100

    Returns
    -------
    WinnowResult
    """
    X = as_binary(X, why=": Winnow multiplies the weights of the features that are 1")
    X, y = as_data(X, y)
    max_epochs = positive_int(max_epochs, "max_epochs")
    if learn_threshold:
        if theta is not None:
            raise ValueError("theta cannot be given when learn_threshold=True: it is learned.")
        X, theta = add_threshold_feature(X), 0.0
    else:
        theta = float(X.shape[1]) if theta is None else finite(theta, "theta")
    return winnow_passes(X, y, winnow_update, w0=np.ones(X.shape[1]), theta=theta,
                         max_epochs=max_epochs)


def winnow_passes(
    X: np.ndarray,
    y: np.ndarray,
    update: Callable[[np.ndarray, np.ndarray, float, float], np.ndarray],
    *,
    w0: np.ndarray,
    theta: float,
    max_epochs: int,
) -> WinnowResult:
    """The Winnow engine: visit the rows in order, ``w = update(w, x, y, theta)``, in passes.

    ``update`` follows :func:`winnow_update`'s contract: it returns ``w`` itself (the same
    object) when x is classified correctly, and new weights otherwise. The variants of
    ``mllib.online`` (elimination, Winnow-R, thick separator, Balanced Winnow) are this engine
    with another ``update``. Stops after a pass without mistakes or after ``max_epochs`` passes.
    Inputs are assumed validated: X (n, d), y (n,) in {-1, +1}, w0 (d,).
    """
    w = w0
    visits: list[WinnowVisit] = []
    mistakes = 0
    for epoch in range(1, max_epochs + 1):
        mistakes_before = mistakes
        for i, (x, label) in enumerate(zip(X, y, strict=True)):
            updated = update(w, x, label, theta)
            correct = updated is w
            mistakes += not correct
            visits.append(WinnowVisit(epoch, i, float(label), float(w @ x), correct, updated))
            w = updated
        if mistakes == mistakes_before:
            return WinnowResult(w, float(theta), mistakes, epoch, True, tuple(visits))
    return WinnowResult(w, float(theta), mistakes, max_epochs, False, tuple(visits))


# --- Geometry and mistake bounds ----------------------------------------------------------


def radius(X) -> float:
    """R = maxᵢ ‖xᵢ‖, the radius of the smallest origin-centred ball holding the data.

    X has shape (n, d). (Novikoff's theorem, CS446; CS578 L2.)
    """
    return float(np.max(np.linalg.norm(as_matrix(X), axis=1)))


def geometric_margin(w, X, y) -> float:
    """γ_g = minᵢ yᵢ·(w·xᵢ)/‖w‖, the smallest signed distance to the hyperplane w·x = 0.

    CS578 L2 "the target classifier". Positive exactly when w separates the sample.

    Parameters
    ----------
    w : array_like of shape (d,)
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    """
    X, y = as_data(X, y)
    w = as_vector(w, "w", X.shape[1])
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w is the zero vector, which defines no hyperplane.")
    return float(np.min(y * (X @ w)) / norm)


def mistake_bound(radius: float, margin: float) -> float:
    """Novikoff's bound (R/γ)² on the perceptron's mistakes (CS446; CS578 L2; Balcan Thm 1).

    Holds for any order of examples with ‖x‖ <= R that a unit vector separates with margin γ,
    starting from w = 0 with any constant η > 0 (from another start it can fail).
    """
    return (positive(radius, "radius") / positive(margin, "margin")) ** 2


def gupta_bound(margin: float) -> float:
    """Gupta's bound 3/γ² on the updates of :func:`gupta_perceptron` (Gupta, Theorem 2).

    Gupta normalises the data into the unit ball (‖x‖ <= 1; divide X by :func:`radius` first)
    and defines γ(S) = 1/‖w*‖ for the shortest w* with y·(w*·x) >= 1. Each update then adds at
    most 2 + 1 = 3 to ‖w‖² and at least 1 to w·w*.
    """
    return 3 / positive(margin, "margin") ** 2


def margin_perceptron_bound(radius: float, margin: float) -> float:
    """Balcan's bound 8(R/γ)² + 4R/γ on the updates of :func:`margin_perceptron` (Thm 2)."""
    ratio = positive(radius, "radius") / positive(margin, "margin")
    return 8 * ratio**2 + 4 * ratio


def margin_deficit(w, X, y, margin: float) -> float:
    """D₂ = (Σᵢ ξᵢ²)^½ with ξᵢ = max(0, γ - yᵢ·(u·xᵢ)), u = w/‖w‖ (CS446 "robustness to noise").

    ξᵢ is how far example i falls short of margin γ; D₂ = 0 when u separates with margin γ.
    X has shape (n, d), w and the result of ``X @ w`` shapes (d,) and (n,).
    """
    return float(np.sqrt(np.sum(margin_shortfalls(w, X, y, margin) ** 2)))


def margin_shortfalls(w, X, y, margin: float) -> np.ndarray:
    """ξᵢ = max(0, γ - yᵢ·(u·xᵢ)) with u = w/‖w‖, shape (n,): how far each example falls short
    of margin γ (CS446 "robustness to noise"; Balcan's "distance to move" a point).

    X has shape (n, d), w shape (d,).
    """
    X, y = as_data(X, y)
    w = as_vector(w, "w", X.shape[1])
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w is the zero vector, which defines no hyperplane.")
    return np.maximum(0.0, positive(margin, "margin") - y * (X @ w) / norm)


def noise_bound(radius: float, margin: float, deficit: float) -> float:
    """The non-separable bound ((R + D₂)/γ)² on the perceptron's mistakes (CS446).

    ``deficit`` is D₂ from :func:`margin_deficit`; with D₂ = 0 this is :func:`mistake_bound`.
    The bound is for one sequence of examples: T passes over a sample are one sequence T times
    as long, whose D₂ is √T times the one-pass D₂.
    """
    deficit = float(deficit)
    if not np.isfinite(deficit) or deficit < 0:
        raise ValueError(f"deficit (D₂) must be a number >= 0; got {deficit}.")
    return ((positive(radius, "radius") + deficit) / positive(margin, "margin")) ** 2
