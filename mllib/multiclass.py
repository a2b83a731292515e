"""Multiclass classification: reductions to binary learners, the Kesler construction, the
multiclass perceptron and the multiclass SVM.

Sources
-------
- CS446 slides (seed 001), "Binary to Multiclass": one-vs-all with winner-take-all, all-vs-all
  with a majority vote, error-correcting output codes, the example counts m/k against
  (k-1)m/k, the multiclass margin, the multiclass SVM (hard and soft), constraint
  classification, the Kesler construction, the perceptron in the Kesler space and the
  conservative update.
- Crammer and Singer's dual (as for the binary SVM, one variable per constraint) for
  :func:`multiclass_svm_dual`.
- MMDS ch. 12 §12.2.5 (seed 003): multiclass perceptrons, one per class, prediction by the
  largest w_i·x.

Conventions
-----------
Labels are the integers 0, ..., k-1 (CS446 numbers them 1..k). Scores are ties-to-the-lowest-
label everywhere: argmax picks the lowest index among equal scores, a vote between equal counts
goes to the lowest label, and Hamming decoding picks the lowest row among equally near ones. A
binary learner is a function ``learner(X, y)`` of a sample with labels in {-1, +1} that returns
a scoring function ``score(X) -> (n,)``, positive for +1; :func:`perceptron_learner` (the
default) and :func:`svm_learner` wrap mllib's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from mllib import perceptron as _perceptron
from mllib import svm as _svm
from mllib.validation import (
    as_matrix,
    as_vector,
    finite,
    label_vector,
    positive,
    positive_int,
)

Scorer = Callable[[np.ndarray], np.ndarray]
Learner = Callable[[np.ndarray, np.ndarray], Scorer]


def as_classes(y, k: int, n: int | None = None) -> np.ndarray:
    """Return class labels as an int array of shape (n,), every entry in 0..k-1 (k >= 2)."""
    k = _classes(k)
    as_float = label_vector(y, n, f"the integers 0..{k - 1}")
    bad = ~np.isin(as_float, np.arange(k))
    if np.any(bad):
        raise ValueError(f"class labels must be the integers 0..{k - 1} (k = {k}); found "
                         f"{sorted(set(as_float[bad].tolist()))}.")
    return as_float.astype(int)


def _classes(k) -> int:
    k = positive_int(k, "k")
    if k < 2:
        raise ValueError(f"k (the number of classes) must be at least 2; got {k}.")
    return k


def _data(X, y, k) -> tuple[np.ndarray, np.ndarray, int]:
    X = as_matrix(X)
    return X, as_classes(y, k, X.shape[0]), _classes(k)


def _argmax(scores: np.ndarray) -> np.ndarray:
    """The column of the largest score in each row, the lowest one on ties; (n, k) -> (n,)."""
    return np.argmax(scores, axis=1)


# --- Binary learners ------------------------------------------------------------------------


def perceptron_learner(X: np.ndarray, y: np.ndarray) -> Scorer:
    """The default binary learner: :func:`mllib.perceptron.perceptron` with its defaults, x -> w·x.

    The separator passes through the origin: append a constant feature to learn a threshold.
    """
    w = _perceptron.perceptron(X, y).w
    return lambda Z: Z @ w


def svm_learner(*, C: float | None = None) -> Learner:
    """A binary learner fitting :func:`mllib.svm.solve` (hard margin when C is None), x -> w·x + b.

    A class that does not occur in one of the binary problems makes it one-sided; the scorer is
    then the constant +1 or -1.
    """

    def learn(X: np.ndarray, y: np.ndarray) -> Scorer:
        if np.all(y == y[0]):
            return lambda Z: np.full(len(Z), y[0])
        fit = _svm.solve(X, y, C=C)
        return lambda Z: Z @ fit.w + fit.b

    return learn


# --- One-vs-all and all-vs-all --------------------------------------------------------------


@dataclass(frozen=True)
class Reduction:
    """Binary classifiers that together classify k classes.

    Attributes
    ----------
    k : int
        The number of classes.
    problems : tuple of tuple
        What each binary classifier separates: ``(i,)`` for class i against the rest (OvA),
        ``(i, j)`` for class i (+1) against class j (-1) (AvA), or a column of the code matrix
        (ECOC).
    scorers : tuple of callables
        One scoring function per problem, ``score(X) -> (n,)``.
    code : ndarray of shape (k, L) or None
        The code matrix, for ECOC.
    """

    k: int
    problems: tuple
    scorers: tuple
    code: np.ndarray | None = None

    def scores(self, X) -> np.ndarray:
        """Every binary classifier's score on the rows of X, shape (n, d) -> (n, L)."""
        X = as_matrix(X)
        return np.column_stack([score(X) for score in self.scorers])


def one_vs_all(X, y, *, k: int, learner: Learner = perceptron_learner) -> Reduction:
    """One-vs-all (CS446; MMDS §12.2.5): for each class i, learn i (+1) against the rest (-1).

    Each classifier sees all m examples, about m/k positive and (k-1)m/k negative (CS446's
    count). Predict with :func:`predict_one_vs_all`.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels 0..k-1.
    k : int
    learner : callable, default :func:`perceptron_learner`

    Returns
    -------
    Reduction
        ``problems[i] == (i,)``.
    """
    X, y, k = _data(X, y, k)
    scorers = tuple(learner(X, np.where(y == i, 1.0, -1.0)) for i in range(k))
    return Reduction(k, tuple((i,) for i in range(k)), scorers)


def predict_one_vs_all(model: Reduction, X, *, theta: float | None = None) -> np.ndarray:
    """Winner takes all: argmaxᵢ fᵢ(x), the lowest label on ties; (n, d) -> (n,) int.

    With ``theta``, MMDS §12.2.5's reject option: an example whose best score is below θ
    belongs to none of the k classes and gets the label -1. Without it every example gets a
    class, as on the CS446 slide.
    """
    scores = model.scores(X)
    labels = _argmax(scores)
    if theta is None:
        return labels
    return np.where(scores.max(axis=1) >= finite(theta, "theta"), labels, -1)


def all_vs_all(X, y, *, k: int, learner: Learner = perceptron_learner) -> Reduction:
    """All-vs-all (CS446): for each pair i < j, learn class i (+1) against class j (-1).

    Each of the k(k-1)/2 classifiers sees only the two classes' examples, about 2m/k of them
    (CS446: m/k positive and m/k negative). Predict with :func:`predict_all_vs_all`.

    Parameters are as for :func:`one_vs_all`.

    Returns
    -------
    Reduction
        ``problems`` are the pairs (i, j), i < j, in lexicographic order.
    """
    X, y, k = _data(X, y, k)
    pairs = tuple(combinations(range(k), 2))
    scorers = []
    for i, j in pairs:
        rows = (y == i) | (y == j)
        scorers.append(learner(X[rows], np.where(y[rows] == i, 1.0, -1.0)))
    return Reduction(k, pairs, tuple(scorers))


def votes(model: Reduction, X) -> np.ndarray:
    """The all-vs-all votes, shape (n, k): classifier (i, j) votes i when its score is > 0, else
    j (a score of 0 is never a positive prediction, as in :func:`mllib.perceptron.predict`)."""
    scores = model.scores(X)
    counts = np.zeros((scores.shape[0], model.k), dtype=int)
    rows = np.arange(scores.shape[0])
    for column, (i, j) in enumerate(model.problems):
        np.add.at(counts, (rows, np.where(scores[:, column] > 0, i, j)), 1)
    return counts


def predict_all_vs_all(model: Reduction, X) -> np.ndarray:
    """The majority vote of CS446 "Classifying with AvA": the label with the most votes, the
    lowest label on ties (the slide leaves ties open); (n, d) -> (n,) int."""
    return _argmax(votes(model, X))


# --- Error-correcting output codes ----------------------------------------------------------


def as_code(code, k: int) -> np.ndarray:
    """Validate a code matrix: shape (k, L) with L >= 1, entries ±1, no two rows alike."""
    code = as_matrix(code, "code")
    if code.shape[0] != k:
        raise ValueError(f"the code matrix needs one row per class: {k} rows, not {code.shape[0]}.")
    if not np.all(np.isin(code, (-1.0, 1.0))):
        raise ValueError("the code matrix's entries must be -1 or +1.")
    if len(np.unique(code, axis=0)) < k:
        raise ValueError("the code matrix has duplicate rows: two classes share a code word, "
                         "so no decoding can tell them apart.")
    return code


def ecoc(X, y, *, code, learner: Learner = perceptron_learner) -> Reduction:
    """Error-correcting output codes (CS446 "Binary to Multiclass").

    Class i gets the code word ``code[i]`` (a row of ±1). Column l defines one binary problem:
    every example of class i gets the label ``code[i, l]``. Predict with :func:`predict_ecoc`.
    One-vs-all is the code with +1 on the diagonal and -1 elsewhere.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels 0..k-1, where k is the number of rows of ``code``.
    code : array_like of shape (k, L)
        Entries ±1, rows distinct.
    learner : callable, default :func:`perceptron_learner`

    Returns
    -------
    Reduction
        ``problems[l]`` is column l of the code as a tuple.
    """
    code = np.asarray(code, dtype=float)
    k = code.shape[0] if code.ndim == 2 else 0
    code = as_code(code, _classes(k))
    X, y, k = _data(X, y, k)
    scorers = tuple(learner(X, code[y, column]) for column in range(code.shape[1]))
    return Reduction(k, tuple(tuple(column) for column in code.T.tolist()), scorers, code)


def hamming_decode(bits, code) -> np.ndarray:
    """The class whose code word is nearest in Hamming distance, lowest on ties.

    ``bits`` are the predicted ±1 bits, shape (n, L); ``code`` has shape (k, L). Returns (n,) int.
    """
    code = np.asarray(code, dtype=float)
    code = as_code(code, code.shape[0] if code.ndim == 2 else 0)
    bits = as_matrix(bits, "bits")
    if bits.shape[1] != code.shape[1]:
        raise ValueError(f"bits have {bits.shape[1]} columns but the code words {code.shape[1]}.")
    distances = (bits[:, None, :] != code[None, :, :]).sum(axis=2)
    return np.argmin(distances, axis=1)


def predict_ecoc(model: Reduction, X) -> np.ndarray:
    """Predict each column's bit (+1 when its score is > 0, else -1), then decode them with
    :func:`hamming_decode`; (n, d) -> (n,) int."""
    return hamming_decode(np.where(model.scores(X) > 0, 1.0, -1.0), model.code)


# --- The Kesler construction ----------------------------------------------------------------


def kesler(X, y, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The Kesler construction (CS446 "Constraint Classification"): a binary problem in k·d dims.

    Write x_i for the k·d vector with x in block i and zeros elsewhere. For each example (x, i)
    and each j ≠ i, in order, emit x_ij = x_i - x_j with label +1, then -x_ij with label -1:
    2m(k-1) examples. A weight vector W = (w_0, ..., w_{k-1}) separates them exactly when
    (w_i - w_j)·x > 0 for every example and every j ≠ i, i.e. when argmax_j w_j·x is right.

    The slide "Linear Separability for Multiclass" states the rule as (w_{y'} - w_y)·x >= 0;
    the sign is flipped: the rule is (w_y - w_{y'})·x >= 0, as on the earlier "Constraint
    Classification" slide and in the slide's own table (w_i·x - w_j·x > 0).

    Parameters
    ----------
    X : array_like of shape (m, d)
    y : array_like of shape (m,)
        Labels 0..k-1.
    k : int

    Returns
    -------
    X_kesler : ndarray of shape (2m(k-1), k·d)
    y_kesler : ndarray of shape (2m(k-1),)
        Alternating +1, -1.

    Examples
    --------
    >>> Xk, yk = kesler([[1.0, 2.0]], [1], 3)
    >>> Xk[::2].tolist(), yk.tolist()
    ([[-1.0, -2.0, 1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0, -1.0, -2.0]], [1.0, -1.0, 1.0, -1.0])
    """
    X, y, k = _data(X, y, k)
    m, d = X.shape
    rows = []
    for x, i in zip(X, y, strict=True):
        for j in range(k):
            if j != i:
                row = np.zeros(k * d)
                row[i * d:(i + 1) * d], row[j * d:(j + 1) * d] = x, -x
                rows += [row, -row]
    return np.array(rows), np.tile([1.0, -1.0], m * (k - 1))


# --- The multiclass perceptron --------------------------------------------------------------


@dataclass(frozen=True)
class MulticlassUpdate:
    """One update of :func:`multiclass_perceptron`.

    Attributes
    ----------
    epoch, index : int
        The pass (from 1) and the row of X.
    label : int
        The example's class, whose w_y was promoted.
    demoted : tuple of int
        The classes whose weights were demoted.
    W : ndarray of shape (k, d)
        The weights after the update.
    """

    epoch: int
    index: int
    label: int
    demoted: tuple[int, ...]
    W: np.ndarray


@dataclass(frozen=True)
class MulticlassPerceptronResult:
    """What :func:`multiclass_perceptron` returns: the weights ``W`` (k, d), the number of
    ``mistakes``, ``epochs``, ``converged`` (the last pass made no mistake) and ``history``."""

    W: np.ndarray
    mistakes: int
    epochs: int
    converged: bool
    history: tuple[MulticlassUpdate, ...]


def multiclass_perceptron(
    X, y, *, k: int, conservative: bool = True, max_epochs: int = _perceptron.DEFAULT_MAX_EPOCHS,
    W0=None,
) -> MulticlassPerceptronResult:
    """The multiclass perceptron of CS446 ("Perceptron in Kesler Construction", "Conservative
    update"), from W = 0 (or ``W0``), visiting the examples in order.

    An example (x, y) is a mistake when some j ≠ y has w_j·x >= w_y·x: a tie counts as a
    mistake, MMDS's convention for the binary perceptron (the slide writes a strict
    (w_y - w_j)·x < 0). On a mistake:

    - conservative (the default, SNoW's rule): demote only the highest-scoring such j,
      w_j ← w_j - x (the lowest index on ties), and promote w_y ← w_y + x;
    - otherwise: demote every such j and promote w_y once for each of them. That is the binary
      perceptron's update on the Kesler rows x_yj that the current W gets wrong, all made with
      the same W; a binary perceptron run row by row on :func:`kesler`'s expansion instead
      re-scores after each row.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels 0..k-1.
    k : int
        The number of classes, >= 2.
    conservative : bool, default True
    max_epochs : int, default 100
    W0 : array_like of shape (k, d), optional
        The starting weights; zeros by default.

    Returns
    -------
    MulticlassPerceptronResult
        Predict with :func:`predict_linear`.
    """
    X, y, k = _data(X, y, k)
    max_epochs = positive_int(max_epochs, "max_epochs")
    W = np.zeros((k, X.shape[1])) if W0 is None else as_matrix(W0, "W0")
    if W.shape != (k, X.shape[1]):
        raise ValueError(f"W0 must have shape (k, d) = {(k, X.shape[1])}; got {W.shape}.")
    updates: list[MulticlassUpdate] = []
    for epoch in range(1, max_epochs + 1):
        before = len(updates)
        for index, (x, label) in enumerate(zip(X, y, strict=True)):
            scores = W @ x
            rivals = np.flatnonzero((scores >= scores[label]) & (np.arange(k) != label))
            if rivals.size == 0:
                continue
            if conservative:
                rivals = rivals[[np.argmax(scores[rivals])]]
            W = W.copy()
            W[rivals] -= x
            W[label] += len(rivals) * x
            updates.append(MulticlassUpdate(epoch, index, int(label),
                                            tuple(rivals.tolist()), W))
        if len(updates) == before:
            return MulticlassPerceptronResult(W, len(updates), epoch, True, tuple(updates))
    return MulticlassPerceptronResult(W, len(updates), max_epochs, False, tuple(updates))


def predict_linear(W, X) -> np.ndarray:
    """Winner takes all with one weight vector per class: argmax_i w_i·x, lowest on ties.

    W has shape (k, d), X shape (n, d); returns (n,) int.
    """
    X = as_matrix(X)
    W = as_matrix(W, "W")
    as_vector(W[0], "each row of W", X.shape[1])
    return _argmax(X @ W.T)


# --- The multiclass SVM ---------------------------------------------------------------------


def multiclass_margins(W, X, y) -> np.ndarray:
    """The multiclass margin of each example: w_y·x - max_{j≠y} w_j·x, shape (n,) (CS446
    "Multiclass Margin": the true label's score minus the best other score). W (k, d), X (n, d)."""
    X = as_matrix(X)
    W = as_matrix(W, "W")
    y = as_classes(y, W.shape[0], X.shape[0])
    scores = X @ W.T
    rows = np.arange(len(y))
    own = scores[rows, y]
    scores[rows, y] = -np.inf
    return own - scores.max(axis=1)


def multiclass_objective(W, X, y, C: float | None) -> float:
    """The multiclass SVM objective of CS446 ("Multiclass SVM", Crammer and Singer).

    Soft (C > 0): ½Σ_k ‖w_k‖² + C·Σᵢ ξᵢ with the smallest slack ξᵢ = max(0, 1 - margin_i).
    Hard (C None): ½Σ_k ‖w_k‖² when every margin is >= 1, else infinity (a constraint fails).
    W has shape (k, d), X (n, d), y (n,) labels 0..k-1.
    """
    W = as_matrix(W, "W")
    slack = np.maximum(0.0, 1.0 - multiclass_margins(W, X, y))
    norm = 0.5 * float(np.sum(W * W))
    if C is None:
        return norm if not np.any(slack > 0) else float("inf")
    return norm + positive(C, "C") * float(slack.sum())


@dataclass(frozen=True)
class MulticlassSVMResult:
    """What :func:`multiclass_svm` returns: the weights ``W`` (k, d) with the lowest objective
    seen, and ``objectives``, the objective at every iterate (iterations + 1 values)."""

    W: np.ndarray
    objectives: np.ndarray


def multiclass_svm(
    X, y, *, k: int, C: float, eta: float = 1.0, iterations: int = 500,
) -> MulticlassSVMResult:
    """The soft multiclass SVM of CS446 by subgradient descent.

    Minimise :func:`multiclass_objective`. A subgradient at W: W itself, plus, for each example
    with ξᵢ > 0 and j* its best rival (the lowest index on ties), C·x in row j* and -C·x in
    row yᵢ. The step is ηₜ = η/(1 + η·t) at update t = 0, 1, ..., which makes subgradient
    descent converge on this 1-strongly-convex objective (as in :func:`mllib.svm.gradient_descent`
    with ``decay``). The hard-margin problem is the limit of large C.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Append a constant feature to learn per-class biases.
    y : array_like of shape (n,)
        Labels 0..k-1.
    k : int
    C : float
    eta : float, default 1.0
    iterations : int, default 500

    Returns
    -------
    MulticlassSVMResult
    """
    X, y, k = _data(X, y, k)
    C, eta = positive(C, "C"), positive(eta, "eta")
    iterations = positive_int(iterations, "iterations")
    W = np.zeros((k, X.shape[1]))
    rows = np.arange(len(y))
    best, objectives = W, []
    for t in range(iterations + 1):
        scores = X @ W.T
        own = scores[rows, y]
        scores[rows, y] = -np.inf
        rival = np.argmax(scores, axis=1)
        slack = np.maximum(0.0, 1.0 - own + scores[rows, rival])
        objectives.append(0.5 * float(np.sum(W * W)) + C * float(slack.sum()))
        if objectives[-1] <= min(objectives):
            best = W
        if t == iterations:
            break
        active = slack > 0
        pull = np.zeros_like(W)
        np.add.at(pull, rival[active], C * X[active])
        np.add.at(pull, y[active], -C * X[active])
        W = W - eta / (1 + eta * t) * (W + pull)
    return MulticlassSVMResult(best, np.array(objectives))


@dataclass(frozen=True)
class MulticlassSVMDualResult:
    """What :func:`multiclass_svm_dual` returns.

    Attributes
    ----------
    W : ndarray of shape (k, d)
        The weights W(α) of the last dual iterate.
    alpha : ndarray of shape (n, k)
        The dual variables, α[i, yᵢ] = 0.
    objective : float
        The primal (soft) objective of ``W``.
    gap : float
        The primal objective minus the dual objective, >= 0: ``objective`` exceeds the optimum
        by at most ``gap``.
    """

    W: np.ndarray
    alpha: np.ndarray
    objective: float
    gap: float


def _cap_rows(A: np.ndarray, C: float) -> np.ndarray:
    """Project each row of A onto {a >= 0, Σa <= C} (Euclidean): clip at 0, and a row whose sum
    then exceeds C goes onto the simplex Σa = C by the sort-and-threshold rule."""
    P = np.maximum(A, 0.0)
    over = P.sum(axis=1) > C
    if np.any(over):
        V = A[over]
        top = -np.sort(-V, axis=1)
        excess = (np.cumsum(top, axis=1) - C) / np.arange(1, V.shape[1] + 1)
        count = np.sum(top > excess, axis=1)
        P[over] = np.maximum(V - excess[np.arange(len(V)), count - 1][:, None], 0.0)
    return P


def multiclass_svm_dual(
    X, y, *, k: int, C: float, iterations: int = 3000,
) -> MulticlassSVMDualResult:
    """The soft multiclass SVM of CS446 (Crammer and Singer) solved through its dual.

    One dual variable α[i, j] >= 0 per constraint (w_{yᵢ} - w_j)·xᵢ >= 1 - ξᵢ, j ≠ yᵢ, with
    Σ_j α[i, j] <= C per example. The weights are W(α): row yᵢ gains Σ_j α[i, j]·xᵢ and row j
    loses α[i, j]·xᵢ. The dual maximises Σα - ½‖W(α)‖²; its gradient in α[i, j] is
    1 - (w_{yᵢ} - w_j)·xᵢ. Projected gradient ascent with Nesterov's momentum, restarted when
    a step turns against the momentum, with the step 1/L, L = k·‖X‖₂² (a bound on the dual's
    curvature). At the optimum W(α) is the primal solution; ``gap`` certifies how close it is.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Append a constant feature to learn per-class biases.
    y : array_like of shape (n,)
        Labels 0..k-1.
    k : int
    C : float
        A large C approaches the hard-margin problem on separable data.
    iterations : int, default 3000

    Returns
    -------
    MulticlassSVMDualResult
    """
    X, y, k = _data(X, y, k)
    C = positive(C, "C")
    iterations = positive_int(iterations, "iterations")
    rows = np.arange(len(y))
    others = np.ones((len(y), k), dtype=bool)
    others[rows, y] = False

    def weights(A: np.ndarray) -> np.ndarray:
        tau = -A.copy()
        tau[rows, y] = A.sum(axis=1)
        return tau.T @ X

    step = 1.0 / max(k * np.linalg.norm(X, 2) ** 2, np.finfo(float).tiny)
    alpha = np.zeros((len(y), k))
    ahead, momentum = alpha, 1.0
    for _ in range(iterations):
        scores = X @ weights(ahead).T
        gradient = np.where(others, 1.0 - (scores[rows, y][:, None] - scores), 0.0)
        new = np.where(others, _cap_rows(ahead + step * gradient, C), 0.0)
        if np.sum((new - alpha) * (ahead - new)) > 0:  # the momentum overshot: restart
            ahead, momentum = alpha, 1.0
            continue
        following = (1 + np.sqrt(1 + 4 * momentum ** 2)) / 2
        ahead = new + (momentum - 1) / following * (new - alpha)
        alpha, momentum = new, following
    W = weights(alpha)
    objective = multiclass_objective(W, X, y, C)
    dual = float(alpha.sum()) - 0.5 * float(np.sum(W * W))
    return MulticlassSVMDualResult(W, alpha, objective, objective - dual)
