"""Support-vector machines: the hinge loss, gradient descent as in MMDS, SGD, and the exact optimum.

Sources
-------
- MMDS ch. 12 §12.3 (seed 003): maximising the margin γ and normalising it to γ = 1/‖w‖
  (§12.3.2, eq. 12.3, Example 12.8); the soft-margin objective (eq. 12.4); the hinge loss and its
  derivative (Fig. 12.17, eq. 12.5); gradient descent (eq. 12.6, Example 12.9, Figs. 12.18-12.20).
- CS578 L2 (seed 002): the maximum-margin classifier as a QP, support vectors, LOOCV <= #SV/n,
  slack variables and the effect of C.
- CS446 slides (seed 001): "SGD for SVM" and Pegasos (:func:`sgd`); the theorem that
  w* = Σᵢ αᵢyᵢxᵢ over the support vectors (``SVMSolution.alpha``); dual coordinate descent and
  "Nonlinear SVM": :func:`solve_dual` solves the kernel SVM in the dual by SMO, coordinate
  descent on two αs at a time (the pair keeps Σ αᵢyᵢ = 0). :func:`solve` finds the linear
  optimum exactly by other means (Wolfe's nearest-point algorithm, then the KKT conditions).

Conventions
-----------
Labels are in {-1, +1} and the separator is w·x + b = 0 (MMDS: b = -θ). The functional margin of
example i is zᵢ = yᵢ(w·xᵢ + b). Following MMDS Fig. 12.19, a point is *bad* when zᵢ < 1: a point
exactly on its margin line (zᵢ = 1) is not bad, so its hinge term contributes no derivative.

The bias. MMDS's objective f(w, b) (eq. 12.4) leaves b out of the norm, but its gradient descent
treats b as a weight w_{d+1} with a constant feature +1 (eq. 12.6), so ∂f/∂b contains the term b:
Fig. 12.20 computes ∂f/∂b = -2 + 0.1·(-1) = -2.1 at b = -2. That descent therefore minimises
eq. 12.4 + b²/2. Every function here takes ``regularize_bias``: True adds b²/2 (MMDS's descent),
False is eq. 12.4 as printed (CS578, scikit-learn's SVC). :func:`gradient_descent` and :func:`sgd`
default to True, as in MMDS's example; :func:`objective` and :func:`solve` default to False.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np

from mllib.data import mmds_example_12_8, mmds_fig_12_18  # noqa: F401 -- the book's data
from mllib.kernels import gram
from mllib.validation import as_data, as_matrix, as_vector, count, finite, positive, positive_int

# A point counts as a support vector when its functional margin is at most 1 + SUPPORT_TOL.
SUPPORT_TOL = 1e-8

# --- The texts' examples ------------------------------------------------------------------


# --- The objective ------------------------------------------------------------------------


def hinge_loss(z) -> np.ndarray:
    """The hinge function L(z) = max(0, 1 - z) of MMDS §12.3.3 (Fig. 12.17), elementwise.

    z is a functional margin y(w·x + b): no loss from z = 1 on, then a loss rising linearly as z
    falls. Any shape in, the same shape out.
    """
    return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))


def _checked(w, b, X, y) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    X, y = as_data(X, y)
    return as_vector(w, "w", X.shape[1]), finite(b, "b"), X, y


def margins(w, b, X, y) -> np.ndarray:
    """The functional margins zᵢ = yᵢ(w·xᵢ + b), shape (n,), for w (d,), X (n, d), y (n,)."""
    w, b, X, y = _checked(w, b, X, y)
    return y * (X @ w + b)


def objective(w, b, X, y, C: float, *, regularize_bias: bool = False) -> float:
    """The soft-margin objective of MMDS eq. 12.4 (CS578's slack form, with ξᵢ = L(zᵢ)).

    f(w, b) = ½‖w‖² + C·Σᵢ max(0, 1 - yᵢ(w·xᵢ + b)), plus b²/2 when ``regularize_bias``: the
    function MMDS's gradient descent actually minimises (see the module notes).

    Parameters
    ----------
    w : array_like of shape (d,)
    b : float
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        The regularisation parameter C > 0.
    regularize_bias : bool, default False
    """
    w, b, X, y = _checked(w, b, X, y)
    C = positive(C, "C")
    bias_term = 0.5 * b * b if regularize_bias else 0.0
    return float(0.5 * w @ w + bias_term + C * hinge_loss(y * (X @ w + b)).sum())


def bad_pattern(z) -> str:
    """MMDS's string of bad points (Fig. 12.20): 'x' where zᵢ < 1, 'o' where zᵢ >= 1."""
    return "".join("x" if zi < 1 else "o" for zi in np.asarray(z, dtype=float))


def _hinge_gradient(w, b, X, y, C) -> np.ndarray:
    """The second term of eq. 12.6 on validated arrays: C·Σᵢ (0 if zᵢ >= 1 else -yᵢ[xᵢ, 1]),
    shape (d + 1,). A sum over examples, so a sum over any partition of them (MMDS §12.3.6)."""
    bad = y * (X @ w + b) < 1
    return -C * np.append(y[bad] @ X[bad], y[bad].sum())  # Σ over bad points of yᵢ[xᵢ, 1]


def _gradient(w, b, X, y, C, regularize_bias) -> np.ndarray:
    """Eq. 12.6 on validated arrays: [∂f/∂w₁, ..., ∂f/∂w_d, ∂f/∂b], shape (d + 1,)."""
    return np.append(w, b if regularize_bias else 0.0) + _hinge_gradient(w, b, X, y, C)


def gradient(w, b, X, y, C: float, *, regularize_bias: bool = True) -> np.ndarray:
    """The partial derivatives of MMDS eq. 12.6 at (w, b).

    ∂f/∂wⱼ = wⱼ + C·Σᵢ (0 if yᵢ(w·xᵢ + b) >= 1 else -yᵢxᵢⱼ), and ∂f/∂b the same with xᵢ,d+1 = 1
    and, when ``regularize_bias`` (MMDS's convention, the default), the leading term b. A point
    with zᵢ = 1 exactly contributes 0, as in MMDS Fig. 12.20 row (1).

    Parameters are as for :func:`objective`.

    Returns
    -------
    ndarray of shape (d + 1,)
        [∂f/∂w₁, ..., ∂f/∂w_d, ∂f/∂b].
    """
    w, b, X, y = _checked(w, b, X, y)
    return _gradient(w, b, X, y, positive(C, "C"), regularize_bias)


# --- Batch gradient descent (MMDS §12.3.4) -------------------------------------------------


@dataclass(frozen=True)
class DescentStep:
    """One row of MMDS Fig. 12.20: the point reached and what eq. 12.6 says there.

    Attributes
    ----------
    iteration : int
        The number of updates made before this point (row (k) of the book is iteration k - 1).
    w : ndarray of shape (d,)
    b : float
    pattern : str
        The bad points as MMDS prints them, e.g. "oxoooo".
    gradient : ndarray of shape (d + 1,)
        [∂f/∂w₁, ..., ∂f/∂w_d, ∂f/∂b] at (w, b), before the update.
    objective : float
        The function being minimised, at (w, b).
    """

    iteration: int
    w: np.ndarray
    b: float
    pattern: str
    gradient: np.ndarray
    objective: float


@dataclass(frozen=True)
class DescentResult:
    """What :func:`gradient_descent` returns.

    Attributes
    ----------
    w : ndarray of shape (d,)
    b : float
        The parameters after the last update.
    history : tuple of DescentStep
        iterations + 1 entries: ``history[0]`` is the start (MMDS's row (1)) and ``history[-1]``
        the returned (w, b), each with the pattern and derivatives evaluated there.
    """

    w: np.ndarray
    b: float
    history: tuple[DescentStep, ...]


def gradient_descent(
    X,
    y,
    *,
    C: float,
    eta: float,
    w0=None,
    b0: float = 0.0,
    iterations: int = 100,
    regularize_bias: bool = True,
    decay: bool = False,
) -> DescentResult:
    """Batch gradient descent on the SVM objective, as in MMDS §12.3.4 (Example 12.9).

    Repeat: (a) compute the derivatives of eq. 12.6 at (w, b), summing over the bad points
    (yᵢ(w·xᵢ + b) < 1); (b) subtract η times them: wⱼ ← wⱼ - η·∂f/∂wⱼ, b ← b - η·∂f/∂b. With
    ``regularize_bias`` (the default, MMDS's treatment of b as w_{d+1}) ∂f/∂b includes b.

    With ``decay`` the step shrinks as ηₜ = η / (1 + η·t) at update t = 0, 1, ...: it starts at η
    and falls like 1/t, the step that makes subgradient descent converge on an objective whose
    ½‖w‖² term is 1-strongly convex. A constant η converges only by luck: on MMDS's Example 12.9
    η <= 0.35 settles on one pattern and then approaches the optimum geometrically, because the
    one point on its margin line there has dual weight 0; from η = 0.4 the run alternates
    between two points. Where points on their margin lines carry weights strictly between 0
    and C, no pattern's gradient vanishes at the optimum and a constant η never converges.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        The regularisation parameter C > 0 of eq. 12.4.
    eta : float
        The step η > 0 (MMDS's "fraction of the gradient").
    w0 : array_like of shape (d,), optional
        The starting weights; zeros by default.
    b0 : float, default 0.0
    iterations : int, default 100
        The number of updates, >= 0 (0: the start itself, with its gradient and objective).
    regularize_bias : bool, default True
    decay : bool, default False

    Returns
    -------
    DescentResult
        ``.w``, ``.b`` and ``.history`` (iterations + 1 steps; ``history[0]`` is the start).

    Examples
    --------
    MMDS Example 12.9: row (2) of Fig. 12.20.

    >>> X, y = mmds_fig_12_18()
    >>> run = gradient_descent(X, y, C=0.1, eta=0.2, w0=[0, 1], b0=-2, iterations=1)
    >>> run.history[0].pattern, run.w.round(3).tolist(), round(run.b, 3)
    ('oxoooo', [0.04, 0.84], -1.58)
    """
    X, y = as_data(X, y)
    C, eta = positive(C, "C"), positive(eta, "eta")
    iterations = count(iterations, "iterations")
    w = np.zeros(X.shape[1]) if w0 is None else as_vector(w0, "w0", X.shape[1])

    def hinge_terms(w, b):
        z = y * (X @ w + b)
        return _hinge_gradient(w, b, X, y, C), C * hinge_loss(z).sum(), bad_pattern(z)

    def record(t, w, b, grad, value, pattern):
        return DescentStep(t, w, b, pattern, grad, value)

    w, b, steps = descend(w, finite(b0, "b0"), hinge_terms, record, eta=eta,
                          iterations=iterations, regularize_bias=regularize_bias, decay=decay)
    return DescentResult(w, b, steps)


def descend(w: np.ndarray, b: float, hinge_terms: Callable, record: Callable, *, eta: float,
            iterations: int, regularize_bias: bool, decay: bool) -> tuple[np.ndarray, float, tuple]:
    """The loop of MMDS §12.3.4 on validated inputs, whatever computes the hinge terms.

    ``hinge_terms(w, b)`` returns (the second term of eq. 12.6, shape (d + 1,); C·Σ hinge;
    a note for the record), from all examples at once (:func:`gradient_descent`) or summed over
    chunks (``mllib.parallel.mapreduce_svm``). ``record(t, w, b, gradient, objective, note)``
    makes the history's step. Returns the final (w, b) and the iterations + 1 records.
    """
    steps = []
    for t in range(iterations + 1):
        hinge_gradient, hinge_sum, note = hinge_terms(w, b)
        grad = np.append(w, b if regularize_bias else 0.0) + hinge_gradient
        value = 0.5 * (w @ w + (b * b if regularize_bias else 0.0)) + hinge_sum
        steps.append(record(t, w, b, grad, float(value), note))
        if t == iterations:
            break
        step = eta / (1 + eta * t) if decay else eta
        w, b = w - step * grad[:-1], float(b - step * grad[-1])
    return w, b, tuple(steps)


# --- Stochastic gradient descent (CS446 "SGD for SVM") -------------------------------------


@dataclass(frozen=True)
class Epoch:
    """The state of :func:`sgd` after one pass over the data.

    Attributes
    ----------
    epoch : int
        Passes made, from 1.
    w : ndarray of shape (d,)
    b : float
    objective : float
        The function being minimised (eq. 12.4, plus b²/2 with ``regularize_bias``).
    """

    epoch: int
    w: np.ndarray
    b: float
    objective: float


@dataclass(frozen=True)
class SGDResult:
    """What :func:`sgd` returns: the final ``w`` (d,) and ``b``, and one :class:`Epoch` per pass."""

    w: np.ndarray
    b: float
    history: tuple[Epoch, ...]


def sgd(
    X,
    y,
    *,
    C: float,
    eta: float | None = None,
    epochs: int = 10,
    w0=None,
    b0: float = 0.0,
    regularize_bias: bool = True,
    seed=None,
) -> SGDResult:
    """Stochastic gradient descent for the SVM, as on the CS446 slide "SGD for SVM".

    For each example in turn: if yᵢ(w·xᵢ + b) <= 1, w ← (1 - γ)w + γ·C'·yᵢxᵢ; otherwise
    w ← (1 - γ)w. The bias is the weight of a constant feature +1, so it moves the same way, except
    that without ``regularize_bias`` it is not shrunk by (1 - γ).

    Scaling of C. The slide minimises ½‖w‖² + (C'/m)·Σᵢ hinge over m examples, so the slide's C'
    is n times the C of MMDS eq. 12.4, which every function here uses: this function applies the
    slide's rule with C' = n·C. Each step is then a gradient step on one example's share
    ½‖w‖² + n·C·hinge of eq. 12.4, whose average over the examples is eq. 12.4 itself.

    Ties. The slide updates when y(w·x) <= 1, so a point exactly on its margin line still pulls;
    MMDS's batch rule (eq. 12.6) does not. At the kink both are valid subgradients.

    The step. A given ``eta`` is the slide's constant γ, 0 < γ <= 1. Without it, the step is
    Pegasos's γₜ = 1/t at the t-th example seen (t = 1, 2, ...): Pegasos takes ηₜ = 1/(λt) on
    (λ/2)‖w‖² + (1/n)·Σ hinge, which is eq. 12.4 divided by n·C, with λ = 1/(n·C), and its
    update is this one with γ = ηₜλ = 1/t.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        C > 0 of eq. 12.4.
    eta : float, optional
        A constant step γ in (0, 1]; Pegasos's 1/t when omitted.
    epochs : int, default 10
        Passes over the data.
    w0 : array_like of shape (d,), optional
        Zeros by default.
    b0 : float, default 0.0
    regularize_bias : bool, default True
    seed : int or numpy.random.Generator, optional
        Visit the examples in a fresh random order each pass; in the given order when omitted.

    Returns
    -------
    SGDResult
    """
    X, y = as_data(X, y)
    n, d = X.shape
    C, epochs = positive(C, "C"), positive_int(epochs, "epochs")
    if eta is not None and not 0 < positive(eta, "eta") <= 1:
        raise ValueError(f"eta (the slide's γ) must be in (0, 1], as (1 - γ) shrinks w; got {eta}.")
    w = np.zeros(d) if w0 is None else as_vector(w0, "w0", d)
    b = finite(b0, "b0")
    rng = None if seed is None else np.random.default_rng(seed)
    t = 0
    history: list[Epoch] = []
    for epoch in range(1, epochs + 1):
        order = range(n) if rng is None else rng.permutation(n)
        w, b, t, _ = _sgd_steps(w, b, X[order], y[order], t, n * C, eta, regularize_bias)
        value = objective(w, b, X, y, C, regularize_bias=regularize_bias)
        history.append(Epoch(epoch, w, b, value))
    return SGDResult(w, b, tuple(history))


def _sgd_steps(w, b, X, y, t, pull, eta, regularize_bias) -> tuple[np.ndarray, float, int, int]:
    """The slide's step on each row of X (n, d) in order, counting on from step t; ``pull`` is
    the slide's C'. Returns (w, b, the new t, how many rows violated their margin)."""
    violations = 0
    for x, label in zip(X, y, strict=True):
        t += 1
        gamma = 1.0 / t if eta is None else eta
        violated = label * (x @ w + b) <= 1
        violations += bool(violated)
        w = (1 - gamma) * w + (gamma * pull * label * x if violated else 0.0)
        b = (1 - gamma) * b if regularize_bias else b
        b = float(b + gamma * pull * label if violated else b)
    return w, b, t, violations


# --- The exact optimum ---------------------------------------------------------------------


@dataclass(frozen=True)
class SVMSolution:
    """The optimal separator found by :func:`solve`.

    Attributes
    ----------
    w : ndarray of shape (d,)
    b : float
    support : ndarray of int
        The support vectors, in increasing order: the examples on or inside their margin line,
        yᵢ(w·xᵢ + b) <= 1 (CS578's active constraints; with slack, its three kinds: on the
        margin, inside it, and misclassified). Every other example could be removed without
        changing the solution.
    alpha : ndarray of shape (n,)
        The dual weights: w = Σᵢ αᵢyᵢxᵢ (CS446's theorem), 0 <= αᵢ (<= C with a soft margin),
        and αᵢ = 0 off the support vectors.
    margin : float
        γ = 1/‖w‖ (MMDS eq. 12.3); infinite when w = 0.
    C : float or None
        None for the hard margin.
    exact : bool
        True when the optimality (KKT) conditions were solved and checked; see :func:`solve`.
    """

    w: np.ndarray
    b: float
    support: np.ndarray
    alpha: np.ndarray
    margin: float
    C: float | None
    exact: bool


def _augmented(X, y, regularize_bias):
    """Rows zᵢ = yᵢ[xᵢ, 1], shape (n, d + 1), and the diagonal of the regulariser on [w, b]."""
    Z = y[:, None] * np.hstack([X, np.ones((X.shape[0], 1))])
    R = np.ones(Z.shape[1])
    R[-1] = 1.0 if regularize_bias else 0.0
    return Z, R


def solve(X, y, *, C: float | None = None, regularize_bias: bool = False) -> SVMSolution:
    """The exact SVM optimum: hard margin (``C=None``) or soft margin (eq. 12.4), numpy only.

    Hard margin (MMDS §12.3.2, CS578): minimise ½‖w‖² subject to yᵢ(w·xᵢ + b) >= 1. The
    answer is w = 2u/‖u‖², where u is the point of the smallest norm in the set of differences
    p - q of a point p of the positive examples' convex hull and q of the negatives': the two
    hulls' closest points are 2γ apart. Wolfe's algorithm (1976) finds u exactly in finitely
    many steps; it only asks which example lies furthest along a direction. The data is
    separable exactly when u ≠ 0, so inseparable data is detected, not looped on: a ValueError
    when ‖u‖ is below 1e-9 of the data's spread. With ``regularize_bias``, u is the nearest point
    to 0 of the hull of the rows yᵢ[xᵢ, 1] and [w, b] = u/‖u‖².

    Soft margin: minimise eq. 12.4 (plus b²/2 with ``regularize_bias``). The hinge is replaced by
    its Huber smoothing (quadratic on 0 < 1 - z < h), whose minimum Newton's method finds in a few
    steps; that splits the examples into those beyond their margin (α = 0), on it (0 <= α <= C)
    and inside it (α = C). For that split the optimality (KKT) conditions are linear; they are
    solved and checked: the answer is exact, to rounding, once the split is right. Otherwise h
    shrinks tenfold and Newton continues. Should the check never pass, the smoothed minimiser at
    h = 1e-10 is returned with ``exact=False``; it exceeds the optimum by at most C·n·h/2. That
    happens on degenerate data with many examples exactly on their margin lines: when more than
    2(d + 1) of them get weights strictly between 0 and C (the check is then not attempted), as
    for the eight points (i, ±1), i = 0, ..., 3, labelled by the sign of the second coordinate,
    at C = 1, or when the split those weights suggest fails the check. MMDS Example 12.8 at
    C = 1, four points on their margin lines, is solved exactly. When C is so large for the
    features' scale that Newton's Hessian is singular to working precision (features ~1e6 at
    C = 1e4), the hard-margin optimum is returned if its dual weights are at most C, for it is
    then the soft one; otherwise a ValueError says to rescale the features or lower C.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}, both present.
    C : float, optional
        C > 0 for a soft margin; None (the default) for the hard margin.
    regularize_bias : bool, default False
        Minimise eq. 12.4 as printed (False) or with b²/2 added, as MMDS's descent does (True).

    Returns
    -------
    SVMSolution

    Examples
    --------
    MMDS Example 12.8: w = [-1, 1], b = 0, and all four points are support vectors.

    >>> X, y = mmds_example_12_8()
    >>> sol = solve(X, y)
    >>> sol.w.round(12).tolist(), round(sol.b, 12) + 0.0, sol.support.tolist()
    ([-1.0, 1.0], 0.0, [0, 1, 2, 3])
    """
    X, y = as_data(X, y)
    if np.all(y == y[0]):
        raise ValueError("every label is the same; an SVM needs examples of both classes.")
    if C is None:
        w, b, alpha = _hard_margin(X, y, regularize_bias)
        exact = True
    else:
        Z, R = _augmented(X, y, regularize_bias)
        C = positive(C, "C")
        try:
            v, alpha, exact = _soft_margin(Z, R, C)
        except np.linalg.LinAlgError:  # Newton's Hessian singular: C·|x|² far above 1/h
            (w, b, alpha), exact = _hard_margin_as_soft(X, y, C, regularize_bias), True
        else:
            w, b = v[:-1], float(v[-1])
    norm = float(np.linalg.norm(w))
    support = support_vectors(w, b, X, y)
    return SVMSolution(w, b, support, alpha, 1 / norm if norm > 0 else np.inf, C, exact)


def _hard_margin(X, y, regularize_bias):
    """Wolfe's nearest point, turned into (w, b, alpha); see :func:`solve`."""
    if regularize_bias:
        Z, _ = _augmented(X, y, True)
        keys, weights, u = _nearest_point(lambda x: (int(np.argmin(Z @ x)),), lambda k: Z[k[0]],
                                          (0,))
        scale = float(u @ u)
        _require_separable(scale, float(np.max(np.linalg.norm(Z, axis=1))))
        alpha = np.zeros(len(y))
        np.add.at(alpha, [k[0] for k in keys], weights / scale)
        v = u / scale
        return v[:-1], float(v[-1]), alpha
    positives, negatives = np.flatnonzero(y > 0), np.flatnonzero(y < 0)

    def furthest(x):  # the difference x_i - x_j with the smallest component along x
        scores = X @ x
        return (int(positives[np.argmin(scores[positives])]),
                int(negatives[np.argmax(scores[negatives])]))

    keys, weights, u = _nearest_point(furthest, lambda k: X[k[0]] - X[k[1]], furthest(
        X[positives].mean(axis=0) - X[negatives].mean(axis=0)))
    scale = float(u @ u)
    _require_separable(scale, 2 * float(np.max(np.linalg.norm(X - X.mean(axis=0), axis=1))))
    w = 2 * u / scale
    alpha = np.zeros(len(y))
    for (i, j), weight in zip(keys, weights, strict=True):
        alpha[i] += 2 * weight / scale
        alpha[j] += 2 * weight / scale
    p = sum(weight * X[i] for (i, _), weight in zip(keys, weights, strict=True))
    q = p - u  # the nearest points of the two hulls: the separator lies halfway
    return w, float(-(w @ p + w @ q) / 2), alpha


def _hard_margin_as_soft(X, y, C, regularize_bias):
    """The soft-margin optimum when C is so large for the features' scale (features ~1e6 at
    C = 1e4, say) that Newton's Hessian is singular to working precision: the hard-margin
    optimum, if its dual weights are at most C, for then they meet the soft margin's optimality
    conditions (every zᵢ >= 1, no hinge loss, w = Σαᵢyᵢxᵢ with 0 <= αᵢ <= C). Else a ValueError."""
    problem = ValueError(
        f"C = {C:g} is too large for features as large as {np.abs(X).max():.3g}: the problem is "
        "singular to working precision; rescale the features or lower C.")
    try:
        w, b, alpha = _hard_margin(X, y, regularize_bias)
    except ValueError:  # not separable
        raise problem from None
    if alpha.max() > C or np.any(margins(w, b, X, y) < 1 - 1e-9):  # the latter: rounding
        raise problem
    return w, b, alpha


def _require_separable(norm_sq: float, spread: float) -> None:
    """Raise unless the nearest point's norm² is clearly above 0 at the data's scale."""
    if norm_sq <= (1e-9 * spread) ** 2:
        raise ValueError(
            "the data is not linearly separable, so no hard-margin SVM exists "
            "(the two classes' convex hulls meet); give a soft-margin C instead."
        )


def _nearest_point(
    oracle: Callable[[np.ndarray], Hashable],
    atom: Callable[[Hashable], np.ndarray],
    start: Hashable,
    tol: float = 1e-12,
) -> tuple[list, np.ndarray, np.ndarray]:
    """Wolfe's algorithm: the point of smallest norm in the convex hull of a finite set of atoms.

    ``oracle(x)`` names the atom p minimising x·p and ``atom(key)`` gives its vector. Returns the
    keys of the final corral, their convex weights and the nearest point u = Σ weight·atom.
    (P. Wolfe, "Finding the nearest point in a polytope", Math. Programming 11, 1976.)
    """
    keys, weights = [start], np.array([1.0])
    points = atom(start)[None, :]
    x = points[0]
    for _ in range(100 * (len(x) + 10) ** 2):
        new = oracle(x)
        p = atom(new)
        # x is the nearest point when no atom lies below the plane through x normal to x.
        if new in keys or x @ x - x @ p <= tol * max(p @ p, x @ x):
            return keys, weights, x
        keys, points, weights = [*keys, new], np.vstack([points, p]), np.append(weights, 0.0)
        while True:
            # The nearest point to 0 of the corral's affine hull, p₀ + Σₖ βₖ(pₖ - p₀): a least-
            # squares problem in β, then μ = (1 - Σβ, β) are its affine weights.
            beta = np.linalg.lstsq((points[1:] - points[0]).T, -points[0], rcond=None)[0]
            mu = np.append(1 - beta.sum(), beta)
            if np.all(mu > tol):
                weights = mu
                break
            # Walk from the current weights towards mu until a weight reaches 0; drop it.
            falling = (mu <= tol) & (weights > mu)
            theta = np.min(weights[falling] / (weights[falling] - mu[falling]), initial=1.0)
            weights = weights + theta * (mu - weights)
            keep = weights > tol
            keys = [key for key, kept in zip(keys, keep, strict=True) if kept]
            points, weights = points[keep], weights[keep] / weights[keep].sum()
        previous, x = x, weights @ points
        if x @ x >= previous @ previous:  # rounding stalled the descent: x is as near as it gets
            return keys, weights, x
    raise RuntimeError("Wolfe's algorithm did not finish; the data may be degenerate.")


_H_START, _H_SHRINK, _H_MIN = 1.0, 0.1, 1e-10


def _soft_margin(Z, R, C):
    """Minimise ½vᵀRv + C·Σ max(0, 1 - zᵢ·v) over v = [w, b]; returns (v, alpha, exact)."""
    v, h = np.zeros(Z.shape[1]), _H_START
    while True:
        v = _smoothed_newton(Z, R, C, h, v)
        alpha = C * np.clip((1 - Z @ v) / h, 0, 1)  # the smoothed problem's dual weights
        solution = _kkt_solution(Z, R, C, v, alpha)
        if solution is not None:
            return (*solution, True)
        if h <= _H_MIN:
            return v, alpha, False
        h *= _H_SHRINK


def _huber(gap, h):
    """The hinge max(0, g) smoothed on 0 < g < h: g²/2h there, g - h/2 beyond."""
    return np.where(gap <= 0, 0.0, np.where(gap < h, gap * gap / (2 * h), gap - h / 2))


def _smoothed_newton(Z, R, C, h, v, max_steps=500):
    """Newton's method with an exact line search on ½vᵀRv + C·Σ huber_h(1 - zᵢ·v), from v."""
    gap = 1 - Z @ v
    for _ in range(max_steps):
        value = 0.5 * v @ (R * v) + C * _huber(gap, h).sum()
        grad = R * v - C * (Z.T @ np.clip(gap / h, 0, 1))
        curved = Z[(gap > 0) & (gap < h)]
        hessian = np.diag(R) + (C / h) * (curved.T @ curved)
        if hessian[-1, -1] == 0:  # b free and no example curving it: take a plain step in b
            hessian[-1, -1] = 1.0
        step = -np.linalg.solve(hessian, grad)
        if -(grad @ step) <= 1e-15 * (1 + abs(value)):
            break
        shift = Z @ step
        t = _step_length(v, step, gap, shift, R, C, h)
        v, gap = v + t * step, gap - t * shift
    return v


def _step_length(v, step, gap, shift, R, C, h):
    """The t in (0, 1] that minimises the smoothed objective along v + t·step, or 1 when its
    minimum lies further. Along the line the derivative is increasing and piecewise linear in t,
    so Newton's method on it, kept inside a shrinking bracket, finds its root in a few steps.
    Only examples whose gap enters or leaves (0, h) on the way need to be followed."""
    end = gap - shift  # the gaps at t = 1
    varying = (np.maximum(gap, end) > 0) & (np.minimum(gap, end) < h)
    linear = ~varying & (np.minimum(gap, end) >= h)
    base = step @ (R * v) - C * shift[linear].sum()
    curve = step @ (R * step)
    s, g = shift[varying], gap[varying]
    low, high, t = 0.0, 1.0, 1.0
    for _ in range(100):
        moved = g - t * s
        slope = base + t * curve - C * (s @ np.clip(moved / h, 0, 1))
        if slope < 0:
            low = t
        else:
            high = t
        if (t == 1.0 and slope <= 0) or slope == 0 or high - low <= 1e-15:
            break
        bend = curve + (C / h) * (s[(moved > 0) & (moved < h)] ** 2).sum()
        newton = t - slope / bend if bend > 0 else -1.0
        t = newton if low < newton < high else (low + high) / 2
    return t


def _kkt_solution(Z, R, C, v, alpha, tol=1e-9):
    """Solve eq. 12.4's optimality conditions for the split that ``alpha`` suggests; check them.

    Examples with 0 < αᵢ < C are taken to lie on their margin line, those with αᵢ = C inside it
    and those with αᵢ = 0 beyond it. Then Rv = Σᵢ αᵢzᵢ and zᵢ·v = 1 on the margin are linear in v
    and the margin examples' α; of their solutions the one nearest (v, alpha) is taken (b need not
    be unique without ``regularize_bias``). Returns (v, alpha) when they hold with 0 <= α <= C and
    every example on its side, else None.
    """
    on_margin, inside = (alpha > 0) & (alpha < C), alpha == C
    k, d = int(on_margin.sum()), Z.shape[1]
    if k > 2 * d:
        return None
    Zm = Z[on_margin]
    system = np.block([[np.diag(R), -Zm.T], [Zm, np.zeros((k, k))]])
    rhs = np.append(C * Z[inside].sum(axis=0), np.ones(k))
    guess = np.append(v, alpha[on_margin])
    solution = guess + np.linalg.lstsq(system, rhs - system @ guess, rcond=None)[0]
    if np.max(np.abs(system @ solution - rhs)) > tol * (1 + np.max(np.abs(rhs))):
        return None
    v, alpha_margin = solution[:d], solution[d:]
    z = Z @ v
    beyond = ~on_margin & ~inside
    if (np.any(alpha_margin < -tol * C) or np.any(alpha_margin > C * (1 + tol))
            or np.any(z[inside] > 1 + tol) or np.any(z[beyond] < 1 - tol)):
        return None
    alpha = np.where(inside, C, 0.0)
    alpha[on_margin] = np.clip(alpha_margin, 0, C)
    return v, alpha


# --- Using the solution --------------------------------------------------------------------


def support_vectors(w, b, X, y) -> np.ndarray:
    """The examples on or inside their margin line, yᵢ(w·xᵢ + b) <= 1, as increasing indices.

    These are CS578's active constraints (MMDS §12.3.1: the points at distance γ, plus, with a
    soft margin, those inside the margin or misclassified). Margins within SUPPORT_TOL above 1
    count as on the line, so that rounding in w and b does not hide a point. Shapes: w (d,),
    X (n, d), y (n,).
    """
    return np.flatnonzero(margins(w, b, X, y) <= 1 + SUPPORT_TOL)



def predict(w, b, X) -> np.ndarray:
    """Labels sign(w·x + b) for the rows of X (n, d) -> (n,), in {-1, 0, +1}.

    A score of 0 predicts 0, neither class: a point on the separator is a mistake whatever its
    label, MMDS's convention (lecture 01), which :func:`leave_one_out_error` inherits.
    """
    X = as_matrix(X)
    w = as_vector(w, "w", X.shape[1])
    return np.sign(X @ w + finite(b, "b"))


def leave_one_out_error(X, y, *, C: float | None = None, regularize_bias: bool = False) -> float:
    """The leave-one-out cross-validation error of :func:`solve` (CS578 L2).

    Train on all examples but one, predict the one left out, and average the mistakes over the n
    choices; a left-out example on the separator (score 0) counts as a mistake. CS578's bound
    LOOCV <= #SV/n: the full-data optimum stays optimal without an example that is not a support
    vector, so when the optimum is unique only support vectors can be mistaken. When b is not
    unique, :func:`solve`'s choice of b decides (lecture 02, "Going further").

    Parameters are as for :func:`solve`; every example's removal must leave both classes.
    """
    X, y = as_data(X, y)
    mistakes = 0
    for i in range(len(y)):
        rest = np.arange(len(y)) != i
        fit = solve(X[rest], y[rest], C=C, regularize_bias=regularize_bias)
        mistakes += predict(fit.w, fit.b, X[i : i + 1])[0] != y[i]
    return mistakes / len(y)


# --- The kernel SVM in the dual (CS446 "Nonlinear SVM") ------------------------------------

# Dual weights below DUAL_ZERO·C are set to exactly 0, so that ``support`` is the set of α > 0.
DUAL_ZERO = 1e-10


@dataclass(frozen=True)
class DualStep:
    """One step of :func:`solve_dual`: the pair of dual weights it moved, and where it got.

    Attributes
    ----------
    iteration : int
        From 1.
    i, j : int
        The examples whose αᵢ, αⱼ changed.
    violation : float
        How far the optimality conditions were from holding before the step (the stopping
        quantity m(α) - M(α), below ``tol`` at the optimum).
    objective : float
        The dual objective ½αᵀQα - Σα after the step (it falls at every step).
    """

    iteration: int
    i: int
    j: int
    violation: float
    objective: float


@dataclass(frozen=True)
class DualSVMSolution:
    """A kernel SVM found by :func:`solve_dual`.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The dual weights, 0 <= αᵢ <= C and Σᵢ αᵢyᵢ = 0.
    b : float
        The bias: the decision is f(x) = Σᵢ αᵢyᵢK(xᵢ, x) + b.
    support : ndarray of int
        The support vectors: exactly the examples with αᵢ > 0, in increasing order.
    C : float
    kernel : str
    params : dict
        The kernel and its parameters.
    X_support : ndarray of shape (s, d)
        The support vectors' features, which are all :func:`predict_dual` needs.
    coef : ndarray of shape (s,)
        αᵢyᵢ for the support vectors (scikit-learn's ``dual_coef_``).
    converged : bool
        True when the optimality conditions hold to ``tol``.
    history : tuple of DualStep
    """

    alpha: np.ndarray
    b: float
    support: np.ndarray
    C: float
    kernel: str
    params: dict
    X_support: np.ndarray
    coef: np.ndarray
    converged: bool
    history: tuple[DualStep, ...]


def solve_dual(
    X, y, *, C: float, kernel: str = "linear", tol: float = 1e-3, max_iterations: int | None = None,
    **params,
) -> DualSVMSolution:
    """The soft-margin SVM with a kernel, solved in the dual (CS446 "Nonlinear SVM").

    Minimise ½αᵀQα - Σᵢ αᵢ with Qᵢⱼ = yᵢyⱼK(xᵢ, xⱼ), subject to 0 <= αᵢ <= C **and
    Σᵢ αᵢyᵢ = 0**. The slide's primal has no bias (yᵢwᵀφ(xᵢ) >= 1 - ξᵢ), and for it the box
    0 <= α <= C is the complete dual. This function fits the SVM with a bias b, whose
    Lagrangian's derivative in b adds the equality. The primal optimum is w = Σᵢ αᵢyᵢφ(xᵢ)
    (the slide's theorem writes xᵢ where φ(xᵢ) is meant), so the decision
    f(x) = Σᵢ αᵢyᵢK(xᵢ, x) + b needs only kernel values.

    The solver is sequential minimal optimisation with second-order working-set selection, the
    method of LIBSVM (Fan, Chen and Lin, JMLR 6, 2005): each step moves the two weights that
    most violate the optimality conditions, along the line that keeps Σαᵢyᵢ = 0, to the exact
    minimum on that line within the box. It stops when the violation m(α) - M(α) (the gap
    between the largest and smallest -yᵢ∂ᵢ over the examples free to move up and down) is below
    ``tol``, LIBSVM's criterion and default. b is the average of -yᵢ∂ᵢ over the examples with
    0 < αᵢ < C (on their margin line), or the middle of the feasible interval when there are none.
    The Gram matrix is computed once. An αᵢ below DUAL_ZERO·C is set to 0.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}, both present.
    C : float
        C > 0, the weight of the slack (eq. 12.4's C).
    kernel : str, default "linear"
        "linear", "polynomial" or "rbf" (:func:`mllib.kernels.gram`).
    tol : float, default 1e-3
        The stopping tolerance on the violation.
    max_iterations : int, optional
        The most steps; 100·n + 10⁴ by default.
    **params
        The kernel's parameters (``degree``, ``c``; ``gamma``).

    Returns
    -------
    DualSVMSolution
        ``.alpha``, ``.b``, ``.support``; predict with :func:`predict_dual`.

    Examples
    --------
    With the linear kernel and a large C, MMDS Example 12.8's separator w = [-1, 1], b = 0.
    All four points lie on their margin lines, but two of them already give w = x₁ - x₂, and
    that is the dual optimum SMO reaches (the α of this degenerate problem are not unique):

    >>> X, y = mmds_example_12_8()
    >>> sol = solve_dual(X, y, C=100.0, tol=1e-9)
    >>> (sol.coef @ sol.X_support).round(9).tolist(), round(sol.b, 9) + 0.0, sol.support.tolist()
    ([-1.0, 1.0], 0.0, [0, 1])
    """
    X, y = as_data(X, y)
    if np.all(y == y[0]):
        raise ValueError("every label is the same; an SVM needs examples of both classes.")
    C, tol = positive(C, "C"), positive(tol, "tol")
    n = len(y)
    max_iterations = 100 * n + 10_000 if max_iterations is None else positive_int(
        max_iterations, "max_iterations")
    K = gram(X, kernel=kernel, **params)
    alpha, converged, history = _smo(K, y, C, tol, max_iterations)
    alpha[alpha < DUAL_ZERO * C] = 0.0
    b = _dual_bias(K, y, alpha, C)
    support = np.flatnonzero(alpha > 0)
    return DualSVMSolution(alpha, b, support, C, kernel, dict(params), X[support],
                           alpha[support] * y[support], converged, tuple(history))


def _smo(K, y, C, tol, max_iterations):
    """SMO on ½αᵀQα - Σα; returns (alpha, converged, history). See :func:`solve_dual`.

    It keeps score = -y∘∇ with ∇ = Qα - 1, and the two sets of examples free to move up
    (yᵢαᵢ may grow) and down, updating only what a step changes.
    """
    n = len(y)
    diag = np.diag(K).copy()
    alpha, score = np.zeros(n), y.copy()  # at α = 0, ∇ = -1 and score = y
    up, low = y > 0, y < 0  # with α = 0: positives can grow, negatives can fall
    history: list[DualStep] = []
    for iteration in range(1, max_iterations + 1):
        i = int(np.argmax(np.where(up, score, -np.inf)))
        m, M = score[i], np.min(np.where(low, score, np.inf))
        if m - M < tol:
            return alpha, True, history
        # Second-order choice of j (Fan et al., WSS 2): the largest guaranteed decrease b²/a.
        gain = m - score
        curvature = np.maximum(diag[i] + diag - 2 * K[i], 1e-12)
        j = int(np.argmax(np.where(low & (gain > 0), gain * gain / curvature, -np.inf)))
        # Move αᵢ by yᵢt and αⱼ by -yⱼt (Σαy is unchanged); the objective is a parabola in t.
        t_i = C - alpha[i] if y[i] > 0 else alpha[i]
        t_j = alpha[j] if y[j] > 0 else C - alpha[j]
        t = min(gain[j] / curvature[j], t_i, t_j)
        alpha[i] = (C if y[i] > 0 else 0.0) if t == t_i else alpha[i] + y[i] * t
        alpha[j] = (0.0 if y[j] > 0 else C) if t == t_j else alpha[j] - y[j] * t
        score -= t * (K[i] - K[j])  # ∇ += t·(yᵢQ[i] - yⱼQ[j]), Qᵢⱼ = yᵢyⱼKᵢⱼ, times -y
        for k in (i, j):
            up[k] = alpha[k] < C if y[k] > 0 else alpha[k] > 0
            low[k] = alpha[k] > 0 if y[k] > 0 else alpha[k] < C
        # ½αᵀQα - Σα = ½α·(∇ - 1) with ∇ = -y∘score
        objective = -0.5 * ((alpha * y) @ score + alpha.sum())
        history.append(DualStep(iteration, i, j, float(m - M), float(objective)))
    return alpha, False, history


def _dual_bias(K, y, alpha, C) -> float:
    """b from the optimality conditions: yᵢf(xᵢ) = 1 on the margin (0 < αᵢ < C)."""
    score = y - K @ (alpha * y)  # b would put example i exactly on its margin line
    free = (alpha > 0) & (alpha < C)
    if np.any(free):
        return float(np.mean(score[free]))
    # No example on its margin: b lies between the bounds that the others set (LIBSVM's
    # midpoint). yᵢf(xᵢ) >= 1 where αᵢ = 0 and <= 1 where αᵢ = C; for yᵢ = +1 with αᵢ = C, or
    # yᵢ = -1 with αᵢ = 0, that caps b at score, and otherwise it bounds b from below.
    caps = np.where(y > 0, alpha == C, alpha == 0)
    bounds = [np.max(score[~caps], initial=-np.inf), np.min(score[caps], initial=np.inf)]
    finite_bounds = [value for value in bounds if np.isfinite(value)]
    return float(np.mean(finite_bounds))


def dual_decision(solution: DualSVMSolution, X) -> np.ndarray:
    """f(x) = Σᵢ αᵢyᵢK(xᵢ, x) + b for the rows of X, shape (m, d) -> (m,)."""
    X = as_matrix(X)
    K = gram(solution.X_support, X, kernel=solution.kernel, **solution.params) if len(
        solution.support) else np.zeros((0, X.shape[0]))
    return solution.coef @ K + solution.b


def predict_dual(solution: DualSVMSolution, X) -> np.ndarray:
    """Labels sign(f(x)) for the rows of X (m, d) -> (m,), in {-1, 0, +1}: a score of 0 predicts
    0, a mistake whatever the label, as :func:`predict` does."""
    return np.sign(dual_decision(solution, X))
