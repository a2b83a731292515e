"""Linear models learned by minimising a loss: least squares, LMS, (stochastic) gradient descent,
AdaGrad, ridge, LASSO and logistic regression.

Sources
-------
- MMDS ch. 12 (Leskovec, Rajaraman, Ullman): Example 12.2 (least squares on four points),
  §12.2.2 (a rate that decays as η₀/(1 + ct)), §12.3.4-12.3.5 (gradient descent and SGD).
- CS446 slides (seed 001), "General stochastic gradient algorithms": wₜ₊₁ = wₜ - rₜ·gₜ with the
  LMS (Widrow-Hoff), hinge and log losses; AdaGrad's per-feature rate r/√Gₜ,ⱼ; regularisation
  (ridge, LASSO, SVM, logistic regression); the exponential loss (boosting).

Conventions
-----------
A linear model scores x with s = w·x. Regression targets y are real; classification labels are
in {-1, +1} and the margin is z = y·(w·x). The iterative methods fit no separate intercept:
append a constant feature (e.g. with ``mllib.perceptron.add_threshold_feature(X, 1.0)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mllib.validation import (
    as_data,
    as_labels,
    as_matrix,
    as_vector,
    finite,
    positive,
    positive_int,
)

LOSSES = ("squared", "hinge", "squared_hinge", "log", "exponential")
REGULARIZERS = (None, "l2", "l1")


# --- validation ---------------------------------------------------------------------------


def _regression_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """X as a finite (n, d) array and y as a finite (n,) vector of real targets."""
    X = as_matrix(X)
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D vector of targets; got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} targets; they must match.")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or inf; every target must be a finite number.")
    return X, y


def _nonnegative(value, name: str) -> float:
    number = finite(value, name)
    if number < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}.")
    return number


def _loss_data(loss: str, X, y) -> tuple[np.ndarray, np.ndarray]:
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}.")
    return _regression_data(X, y) if loss == "squared" else as_data(X, y)


def _regularizer(regularizer, lam) -> tuple[str | None, float]:
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {REGULARIZERS}; got {regularizer!r}.")
    return regularizer, _nonnegative(lam, "lam")


# --- Least squares (MMDS Example 12.2) ------------------------------------------------------


@dataclass(frozen=True)
class LeastSquaresResult:
    """A least-squares line or hyperplane f(x) = w·x + b.

    Attributes
    ----------
    w : ndarray of shape (d,)
    b : float
        The intercept (0 when ``fit_intercept=False``).
    sse : float
        Σᵢ (w·xᵢ + b - yᵢ)², the sum of squared errors. MMDS Example 12.2 calls this number
        "the RMSE"; it is not a root-mean-square error (that would be √(sse/n)).
    """

    w: np.ndarray
    b: float
    sse: float


def least_squares(X, y, *, fit_intercept: bool = True) -> LeastSquaresResult:
    """Minimise Σᵢ (w·xᵢ + b - yᵢ)² in closed form (MMDS Example 12.2).

    Setting the derivatives to zero gives the normal equations AᵀA·v = Aᵀy with A = [X, 1] and
    v = [w, b]; they are solved by ``numpy.linalg.lstsq`` (an orthogonal factorisation of A,
    never an explicit inverse), which also returns the minimum-norm solution when AᵀA is
    singular. On MMDS's four points (1, 2), (2, 1), (3, 4), (4, 3) this gives a = 3/5, b = 1
    with sse 3.2; through the origin (``fit_intercept=False``) it gives a = 14/15.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Real targets.
    fit_intercept : bool, default True

    Returns
    -------
    LeastSquaresResult
    """
    X, y = _regression_data(X, y)
    A = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    v = np.linalg.lstsq(A, y, rcond=None)[0]
    w, b = (v[:-1], float(v[-1])) if fit_intercept else (v, 0.0)
    return LeastSquaresResult(w, b, sum_squared_errors(w, b, X, y))


def sum_squared_errors(w, b: float, X, y) -> float:
    """Σᵢ (w·xᵢ + b - yᵢ)², what MMDS Example 12.2 calls "the RMSE". X (n, d), w (d,), y (n,)."""
    X, y = _regression_data(X, y)
    residual = X @ as_vector(w, "w", X.shape[1]) + finite(b, "b") - y
    return float(residual @ residual)


# --- Losses -------------------------------------------------------------------------------


def losses(z) -> dict[str, np.ndarray]:
    """The five losses of CS446 as functions of the margin z = y·(w·x), for one plot.

    - 0-1: 1 when z <= 0 (MMDS counts a score of 0 as a mistake), else 0;
    - squared: (1 - z)², which equals (y - w·x)² when y is ±1;
    - hinge: max(0, 1 - z) (SVM, CS446 "hinge loss");
    - log: log(1 + e⁻ᶻ) (logistic regression; natural log as on the slide, so it is log 2 at 0);
    - exponential: e⁻ᶻ (boosting, CS446 "exponential loss").

    z has any shape; every returned array has the same shape.
    """
    z = np.asarray(z, dtype=float)
    return {
        "0-1": (z <= 0).astype(float),
        "squared": (1 - z) ** 2,
        "hinge": np.maximum(0.0, 1 - z),
        "log": np.logaddexp(0.0, -z),
        "exponential": np.exp(-z),
    }


def _sigmoid(s):
    """σ(s) = 1/(1 + e⁻ˢ), elementwise; any shape, numbers give numbers.

    Computed from e = e^(-|s|) <= 1, which never overflows: σ(s) = 1/(1 + e) for s >= 0 and
    e/(1 + e) for s < 0, so small values keep their relative accuracy (σ(-40) ≈ 4.25e-18, where
    1 - σ(40) or 0.5·(1 + tanh(s/2)) would round to 0) until e^(-|s|) itself underflows.
    """
    s = np.asarray(s, dtype=float)
    e = np.exp(-np.abs(s))
    return np.where(s >= 0, 1 / (1 + e), e / (1 + e))[()]


def squared_hinge(z):
    """max(0, 1 - z)², the loss of the L2-loss SVM (CS446 "What do we optimize?"): the hinge
    squared, differentiable everywhere (slope -2·max(0, 1 - z)). z of any shape."""
    return np.maximum(0.0, 1 - np.asarray(z, dtype=float)) ** 2


def loss_values(loss: str, scores: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Qᵢ for scores sᵢ = w·xᵢ: ½(sᵢ - yᵢ)² for "squared" (LMS), :func:`squared_hinge` for
    "squared_hinge", else the margin losses of :func:`losses` at zᵢ = yᵢsᵢ. Shapes (n,) -> (n,)."""
    if loss == "squared":
        return 0.5 * (scores - y) ** 2
    if loss == "squared_hinge":
        return squared_hinge(y * scores)
    return losses(y * scores)[loss]


def loss_slopes(loss: str, scores, y):
    """dQᵢ/dsᵢ, so that the gradient of Qᵢ with respect to w is (dQᵢ/dsᵢ)·xᵢ. Shapes (n,) -> (n,),
    or numbers -> a number (the stochastic methods call it one example at a time).

    The hinge's kink at z = 1 gets slope 0, as in MMDS eq. 12.5 (z >= 1: no update). CS446's
    slide ("Stochastic gradient algorithms") differs there: it skips the update only for z > 1,
    so a point exactly on the margin is still updated. This code follows MMDS.
    """
    z = y * scores
    if loss == "squared":
        return scores - y
    if loss == "hinge":
        return -y * (z < 1)
    if loss == "squared_hinge":
        return -2 * y * np.maximum(0.0, 1 - z)
    if loss == "log":
        return -y * _sigmoid(-z)
    return -y * np.exp(-z)


def _penalty(regularizer: str | None, w: np.ndarray) -> float:
    if regularizer == "l2":
        return 0.5 * float(w @ w)
    if regularizer == "l1":
        return float(np.sum(np.abs(w)))
    return 0.0


def _penalty_gradient(regularizer: str | None, w: np.ndarray) -> np.ndarray | float:
    if regularizer == "l2":
        return w
    if regularizer == "l1":
        return np.sign(w)  # a subgradient; 0 at wⱼ = 0
    return 0.0


def objective(loss: str, w, X, y, *, regularizer: str | None = None, lam: float = 0.0) -> float:
    """J(w) = (1/n)·Σᵢ Q(xᵢ, yᵢ; w) + λ·R(w), the function the iterative methods minimise.

    CS446 "General stochastic gradient algorithms" writes the empirical risk as the mean of the
    losses (an estimate of E[Q]); R is ½‖w‖² for "l2" and ‖w‖₁ for "l1" (CS446
    "Regularization"). X (n, d), y (n,), w (d,).
    """
    X, y = _loss_data(loss, X, y)
    regularizer, lam = _regularizer(regularizer, lam)
    w = as_vector(w, "w", X.shape[1])
    return float(np.mean(loss_values(loss, X @ w, y))) + lam * _penalty(regularizer, w)


# --- Gradient descent, SGD, LMS, AdaGrad --------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One step of an iterative method.

    Attributes
    ----------
    t : int
        The step, counting from 1.
    index : int, ndarray of int, or None
        The example used (stochastic methods), the examples of a mini-batch
        (:func:`minibatch_sgd`), or None for a full-batch step.
    eta : float or ndarray of shape (d,)
        The rate used: a number, or one rate per coordinate (AdaGrad).
    w : ndarray of shape (d,)
        The weights after the step.
    """

    t: int
    index: int | np.ndarray | None
    eta: float | np.ndarray
    w: np.ndarray


@dataclass(frozen=True)
class DescentResult:
    """What the iterative methods return.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The final weights.
    history : tuple of Step
        Every step in order; ``history[t-1].w`` is the weight vector after t steps.
    """

    w: np.ndarray
    history: tuple[Step, ...]

    def path(self, w0: np.ndarray | None = None) -> np.ndarray:
        """The weights after 0, 1, …, T steps as one array of shape (T + 1, d)."""
        start = np.zeros_like(self.w) if w0 is None else np.asarray(w0, dtype=float)
        return np.vstack([start] + [step.w for step in self.history])


def decayed_rate(eta0: float, decay: float, t: int) -> float:
    """ηₜ = η₀/(1 + c·t), the rate after t rounds (MMDS §12.2.2); c = 0 keeps η₀."""
    return eta0 / (1 + decay * t)


def _start(w0, d: int) -> np.ndarray:
    return np.zeros(d) if w0 is None else as_vector(w0, "w0", d).copy()


def gradient_descent(
    loss: str,
    X,
    y,
    *,
    eta: float,
    iterations: int,
    decay: float = 0.0,
    regularizer: str | None = None,
    lam: float = 0.0,
    w0=None,
) -> DescentResult:
    """Batch gradient descent on J(w) = (1/n)·Σᵢ Q + λR(w) (:func:`objective`).

    Step t (from 0) sets w ← w - ηₜ·∇J(w) with ∇J = (1/n)·Σᵢ (dQᵢ/dsᵢ)·xᵢ + λ∇R and the rate
    ηₜ = η₀/(1 + c·t) of MMDS §12.2.2 (constant when ``decay`` c = 0). MMDS §12.3.4 runs this on
    the SVM objective; CS446 writes the same rule wₜ₊₁ = wₜ - rₜgₜ.

    Parameters
    ----------
    loss : {"squared", "hinge", "squared_hinge", "log", "exponential"}
        "squared" is LMS's ½(y - w·x)² with real targets; the others take labels in {-1, +1}.
        With ``regularizer="l2"``, "hinge" is the (L1-loss) SVM and "squared_hinge" the L2-loss
        SVM ½‖w‖² + C·Σᵢ max(0, 1 - yᵢw·xᵢ)² with C = 1/(λn) (CS446).
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    eta : float
        η₀ > 0.
    iterations : int
        The number of steps T >= 1.
    decay : float, default 0
        c >= 0 in η₀/(1 + c·t).
    regularizer : {None, "l2", "l1"}
        R(w) = ½‖w‖² or ‖w‖₁ (the l1 step uses the subgradient sign(w)).
    lam : float, default 0
        λ >= 0.
    w0 : array_like of shape (d,), optional
        The start; zeros by default.

    Returns
    -------
    DescentResult
        One :class:`Step` per iteration (``index`` None).
    """
    X, y = _loss_data(loss, X, y)
    eta, iterations = positive(eta, "eta"), positive_int(iterations, "iterations")
    decay = _nonnegative(decay, "decay")
    regularizer, lam = _regularizer(regularizer, lam)
    w = _start(w0, X.shape[1])
    steps = []
    for t in range(iterations):
        rate = decayed_rate(eta, decay, t)
        w = w - rate * _mean_gradient(loss, X, y, w, regularizer, lam)
        steps.append(Step(t + 1, None, rate, w))
    return DescentResult(w, tuple(steps))


def _mean_gradient(loss: str, X: np.ndarray, y: np.ndarray, w: np.ndarray,
                   regularizer: str | None, lam: float) -> np.ndarray:
    """∇J on the rows given: (1/|B|)·Σ_{i∈B} (dQᵢ/dsᵢ)·xᵢ + λ∇R(w)."""
    return X.T @ loss_slopes(loss, X @ w, y) / len(y) + lam * _penalty_gradient(regularizer, w)


ORDERS = ("cyclic", "shuffled", "random")


def _batches(n: int, batch_size: int, order: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One pass's mini-batches of row indices: ⌈n/batch_size⌉ of them, the last possibly smaller
    for "cyclic" and "shuffled"; "random" draws every index uniformly with replacement."""
    if order == "cyclic":
        rows = np.arange(n)
    elif order == "shuffled":
        rows = rng.permutation(n)
    else:
        rows = rng.integers(0, n, n)
    return [rows[k:k + batch_size] for k in range(0, n, batch_size)]


def minibatch_sgd(
    loss: str,
    X,
    y,
    *,
    eta: float,
    epochs: int,
    batch_size: int = 1,
    order: str = "cyclic",
    decay: float = 0.0,
    regularizer: str | None = None,
    lam: float = 0.0,
    w0=None,
    seed=None,
) -> DescentResult:
    """Stochastic gradient descent on one or a few examples at a time (MMDS §12.3.5).

    Each pass over the data takes ⌈n/b⌉ steps w ← w - ηₜ·g with g the mean gradient
    (1/|B|)·Σ_{i∈B} (dQᵢ/dsᵢ)·xᵢ + λ∇R(w) over a mini-batch B of b = ``batch_size`` rows, and
    ηₜ = η₀/(1 + c·t) with t counting steps (MMDS §12.2.2). MMDS lets the examples be chosen
    "randomly or according to some fixed strategy", and notes that some may never be used:

    - ``order="cyclic"``: the rows in their order, every pass (with b = 1, :func:`sgd`);
    - ``order="shuffled"``: a fresh random permutation every pass, so every row once per pass;
    - ``order="random"``: every index drawn uniformly with replacement, so a pass misses about
      e⁻¹ ≈ 37% of the rows.

    b = n with ``order="cyclic"`` is batch gradient descent (:func:`gradient_descent`).

    Parameters
    ----------
    loss, X, y, eta, epochs, decay, regularizer, lam, w0
        As for :func:`sgd`.
    batch_size : int, default 1
        b, 1 <= b <= n.
    order : {"cyclic", "shuffled", "random"}
    seed : int, numpy.random.Generator or None
        For the shuffles or draws; the same seed gives the same run.

    Returns
    -------
    DescentResult
        One :class:`Step` per mini-batch, its ``index`` the batch's rows.
    """
    X, y = _loss_data(loss, X, y)
    eta, epochs = positive(eta, "eta"), positive_int(epochs, "epochs")
    batch_size = positive_int(batch_size, "batch_size")
    if batch_size > len(y):
        raise ValueError(f"batch_size must be at most n = {len(y)}; got {batch_size}.")
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}; got {order!r}.")
    decay = _nonnegative(decay, "decay")
    regularizer, lam = _regularizer(regularizer, lam)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    w = _start(w0, X.shape[1])
    steps = []
    for _ in range(epochs):
        for batch in _batches(len(y), batch_size, order, rng):
            rate = decayed_rate(eta, decay, len(steps))
            w = w - rate * _mean_gradient(loss, X[batch], y[batch], w, regularizer, lam)
            steps.append(Step(len(steps) + 1, batch, rate, w))
    return DescentResult(w, tuple(steps))


def _stochastic(
    X: np.ndarray,
    y: np.ndarray,
    epochs: int,
    w0,
    gradient: Callable[[np.ndarray, np.ndarray, float], np.ndarray],
    step: Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, float | np.ndarray]],
) -> DescentResult:
    """The stochastic engine: visit the rows in order, ``epochs`` times; at step t (from 0)
    take g = gradient(w, x, y) and ``w, rate = step(w, g, t)``."""
    w = _start(w0, X.shape[1])
    steps = []
    for epoch in range(epochs):
        for i, (x, label) in enumerate(zip(X, y, strict=True)):
            t = epoch * len(y) + i
            w, rate = step(w, gradient(w, x, label), t)
            steps.append(Step(t + 1, i, rate, w))
    return DescentResult(w, tuple(steps))


def _example_gradient(loss: str, regularizer: str | None, lam: float):
    """g = (dQ/ds)·x + λ∇R(w) for one example: the stochastic estimate of ∇J."""

    def gradient(w, x, label):
        slope = loss_slopes(loss, float(w @ x), float(label))
        return slope * x + lam * _penalty_gradient(regularizer, w) if lam else slope * x

    return gradient


def sgd(
    loss: str,
    X,
    y,
    *,
    eta: float,
    epochs: int,
    decay: float = 0.0,
    regularizer: str | None = None,
    lam: float = 0.0,
    w0=None,
) -> DescentResult:
    """Stochastic gradient descent (CS446 "General stochastic gradient algorithms").

    Visit the examples in order, ``epochs`` times; at step t (from 0, counting examples) set
    w ← w - ηₜ·gₜ with gₜ = (dQ/ds)·xₜ + λ∇R(w), the gradient of one example's term of J, and
    ηₜ = η₀/(1 + c·t) (MMDS §12.2.2). With the hinge loss and λ = 0 a step is the perceptron-like
    update w ← w + ηyx whenever y·w·x < 1 (CS446); with the squared loss it is LMS.

    Parameters are as for :func:`gradient_descent`, with ``epochs`` passes instead of
    ``iterations``. Returns a :class:`DescentResult` with one :class:`Step` per example visited.
    """
    X, y = _loss_data(loss, X, y)
    eta, epochs = positive(eta, "eta"), positive_int(epochs, "epochs")
    decay = _nonnegative(decay, "decay")
    regularizer, lam = _regularizer(regularizer, lam)

    def step(w, g, t):
        rate = decayed_rate(eta, decay, t)
        return w - rate * g, rate

    return _stochastic(X, y, epochs, w0, _example_gradient(loss, regularizer, lam), step)


def lms(X, y, *, eta: float, epochs: int, w0=None) -> DescentResult:
    """LMS, the Widrow-Hoff rule (CS446 "Stochastic gradient algorithms"; Widrow's Adaline).

    For each example in order: w ← w + η·(y - w·x)·x, the SGD step on Q = ½(y - w·x)² with a
    constant rate. X (n, d), real y (n,), η > 0; returns one :class:`Step` per example.
    """
    return sgd("squared", X, y, eta=eta, epochs=epochs, w0=w0)


def adagrad_step(w, g, G, eta: float) -> tuple[np.ndarray, np.ndarray]:
    """One AdaGrad step (CS446 "New stochastic gradient algorithms").

    With Gⱼ ← Gⱼ + gⱼ² (the squared gradients of feature j so far, this one included), set
    wⱼ ← wⱼ - gⱼ·η/√Gⱼ. A feature whose gradients have all been 0 (Gⱼ = 0) is left alone.
    Shapes: w, g, G (d,). Returns the new (w, G).

    The step is computed as (gⱼ/√Gⱼ)·η: since Gⱼ ≥ gⱼ², the ratio is at most about 1.22 in size
    (±1 up to rounding on a first step, unless gⱼ² is subnormal), so nothing overflows while the
    step itself is finite, whereas η/√Gⱼ overflows for a tiny gⱼ and a huge η (Exercise 3 bounds
    η so that every order of evaluation is accurate).
    """
    G = G + g * g
    return w - g / _adagrad_roots(G) * eta, G


def _adagrad_roots(G: np.ndarray) -> np.ndarray:
    """√Gⱼ per coordinate, and ∞ where Gⱼ = 0 (so that x/√Gⱼ = 0 there, without a warning)."""
    return np.sqrt(np.where(G > 0, G, np.inf))


def _adagrad_rates(G: np.ndarray, eta: float) -> np.ndarray:
    """η/√Gⱼ per coordinate, and 0 where Gⱼ = 0."""
    return eta / _adagrad_roots(G)


def adagrad(
    loss: str,
    X,
    y,
    *,
    eta: float,
    epochs: int,
    regularizer: str | None = None,
    lam: float = 0.0,
    w0=None,
) -> DescentResult:
    """AdaGrad (CS446): SGD with the per-feature rate rₜ,ⱼ = η/√Gₜ,ⱼ, Gₜ,ⱼ = Σₖ≤ₜ gₖ,ⱼ².

    Features that often carry a gradient get small steps, rare ones keep large steps. Each step is
    :func:`adagrad_step`; each :class:`Step` records the vector of rates used. Parameters are as
    for :func:`sgd` (no decay: the rates already shrink).
    """
    X, y = _loss_data(loss, X, y)
    eta, epochs = positive(eta, "eta"), positive_int(epochs, "epochs")
    regularizer, lam = _regularizer(regularizer, lam)
    G = np.zeros(X.shape[1])

    def step(w, g, t):
        nonlocal G
        w, G = adagrad_step(w, g, G, eta)
        return w, _adagrad_rates(G, eta)

    return _stochastic(X, y, epochs, w0, _example_gradient(loss, regularizer, lam), step)


# --- Ridge and LASSO ----------------------------------------------------------------------


def ridge(X, y, *, alpha: float) -> np.ndarray:
    """Ridge regression (CS446 "Regularization"): minimise ‖y - Xw‖² + α‖w‖².

    This is scikit-learn's ``Ridge(alpha, fit_intercept=False)`` objective. The minimiser solves
    (XᵀX + αI)w = Xᵀy; it is computed as the least-squares solution of the stacked system
    [X; √α·I]w ≈ [y; 0], which has the same normal equations and needs no inverse. α = 0 gives
    the (minimum-norm) least-squares fit.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    alpha : float
        α >= 0.

    Returns
    -------
    ndarray of shape (d,)
    """
    X, y = _regression_data(X, y)
    alpha = _nonnegative(alpha, "alpha")
    d = X.shape[1]
    A = np.vstack([X, np.sqrt(alpha) * np.eye(d)])
    return np.linalg.lstsq(A, np.concatenate([y, np.zeros(d)]), rcond=None)[0]


def soft_threshold(value: float, threshold: float) -> float:
    """S(v, τ) = sign(v)·max(|v| - τ, 0), the minimiser of ½(u - v)² + τ|u|."""
    return float(np.sign(value) * max(abs(value) - threshold, 0.0))


@dataclass(frozen=True)
class LassoResult:
    """What :func:`lasso` returns.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The coefficients; many are exactly 0.
    sweeps : int
        Passes of coordinate descent made.
    gap : float
        The duality gap at ``w``, an upper bound on how far the objective is above its minimum.
    history : tuple of ndarray
        The coefficients after each sweep.
    """

    w: np.ndarray
    sweeps: int
    gap: float
    history: tuple[np.ndarray, ...]


def lasso_objective(w, X, y, alpha: float) -> float:
    """(1/2n)‖y - Xw‖² + α‖w‖₁, scikit-learn's ``Lasso`` objective. X (n, d), y (n,), w (d,)."""
    X, y = _regression_data(X, y)
    residual = y - X @ as_vector(w, "w", X.shape[1])
    return float(residual @ residual / (2 * len(y)) + alpha * np.sum(np.abs(w)))


def _lasso_gap(w, XtX, Xty, yty, n, alpha) -> float:
    """The duality gap of the LASSO at w, from Gram quantities only (as scikit-learn scales it).

    With residual r = y - Xw the dual point is ν = r·min(1, nα/‖Xᵀr‖∞); the gap is
    P(w) - D(ν) with P the primal objective times n and D(ν) = ν·y - ½‖ν‖².
    """
    Xtr = Xty - XtX @ w
    rtr = yty - 2 * (w @ Xty) + w @ XtX @ w
    bound = np.max(np.abs(Xtr), initial=0.0)
    scale = min(1.0, n * alpha / bound) if bound > 0 else 1.0
    primal = 0.5 * rtr + n * alpha * np.sum(np.abs(w))
    dual = scale * (yty - w @ Xty) - 0.5 * scale**2 * rtr
    return float(max(primal - dual, 0.0))


_SETTLED = 1e-12  # active-set sweeps stop when no coefficient moves by more than this (relative)


def lasso(X, y, *, alpha: float, tol: float = 1e-10, max_sweeps: int = 10_000) -> LassoResult:
    """The LASSO (CS446 "Regularization"): minimise (1/2n)‖y - Xw‖² + α‖w‖₁ by coordinate descent.

    This is scikit-learn's ``Lasso(alpha, fit_intercept=False)`` objective. Holding the other
    coordinates fixed, the best wⱼ is a soft threshold (:func:`soft_threshold`):
    wⱼ ← S(xⱼ·rⱼ/n, α)/(‖xⱼ‖²/n), where rⱼ is the residual without feature j. That is why LASSO
    puts coefficients at exactly 0. Sweeps visit the coordinates in order, using the Gram matrix
    XᵀX so a step costs O(d) instead of O(n); after a full sweep, further sweeps visit only the
    non-zero coordinates until they settle, then a full sweep checks the rest. Stops when the
    duality gap is at most ``tol``·‖y‖²/n (scikit-learn's scaling). A column of zeros keeps
    wⱼ = 0.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    alpha : float
        α >= 0 (α = 0 is least squares, reached slowly; use :func:`least_squares`).
    tol : float, default 1e-10
    max_sweeps : int, default 10000

    Returns
    -------
    LassoResult
    """
    X, y = _regression_data(X, y)
    alpha = _nonnegative(alpha, "alpha")
    tol, max_sweeps = positive(tol, "tol"), positive_int(max_sweeps, "max_sweeps")
    n, d = X.shape
    XtX, Xty, yty = X.T @ X, X.T @ y, float(y @ y)
    norms = np.diag(XtX).copy()
    w = np.zeros(d)
    q = Xty.copy()  # Xᵀr, kept up to date: each step changes it by -XtX[:, j]·Δwⱼ
    threshold = n * alpha
    target = tol * yty
    history = []
    full, gap = True, np.inf
    for sweep in range(1, max_sweeps + 1):
        largest_move = 0.0
        for j in range(d) if full else np.flatnonzero(w):
            if norms[j] == 0:
                continue
            old = w[j]
            new = soft_threshold(q[j] + norms[j] * old, threshold) / norms[j]
            if new != old:
                w[j] = new
                q -= XtX[:, j] * (new - old)
                largest_move = max(largest_move, abs(new - old))
        history.append(w.copy())
        if full:
            gap = _lasso_gap(w, XtX, Xty, yty, n, alpha)
            if gap <= target:
                return LassoResult(w, sweep, gap / n, tuple(history))
        full = largest_move <= _SETTLED * max(1.0, np.max(np.abs(w), initial=0.0))
    return LassoResult(w, max_sweeps, gap / n, tuple(history))


# --- Logistic regression ------------------------------------------------------------------


@dataclass(frozen=True)
class LogisticResult:
    """What :func:`logistic_regression` returns.

    Attributes
    ----------
    w : ndarray of shape (d,)
    iterations : int
        Newton steps taken.
    history : tuple of (ndarray, float)
        (w, objective) after each Newton step.
    """

    w: np.ndarray
    iterations: int
    history: tuple[tuple[np.ndarray, float], ...]


def logistic_objective(w, X, y, C: float) -> float:
    """½‖w‖² + C·Σᵢ log(1 + exp(-yᵢ w·xᵢ)). X (n, d), y (n,) in {-1, +1}, w (d,)."""
    X, y = as_data(X, y)
    w = as_vector(w, "w", X.shape[1])
    return float(0.5 * w @ w + positive(C, "C") * np.sum(np.logaddexp(0.0, -y * (X @ w))))


def logistic_gradient(w, X, y, C: float) -> np.ndarray:
    """∇ of :func:`logistic_objective`: w - C·Σᵢ yᵢσ(-zᵢ)xᵢ with zᵢ = yᵢ w·xᵢ. Shape (d,).

    The log loss's slope in the score is -y·σ(-z), with σ(s) = 1/(1 + e⁻ˢ). An X with no rows,
    shape (0, d), makes the sum empty: the gradient is then a copy of w (Exercise 4's rule).
    """
    X = as_matrix(X, allow_empty=True)
    y = as_labels(y, X.shape[0])
    w = as_vector(w, "w", X.shape[1])
    return w + positive(C, "C") * (X.T @ loss_slopes("log", X @ w, y))


def logistic_regression(X, y, *, C: float = 1.0, tol: float = 1e-10,
                        max_iter: int = 100) -> LogisticResult:
    """L2-regularised logistic regression by Newton's method (CS446 "Regularization", log loss).

    Minimises f(w) = ½‖w‖² + C·Σᵢ log(1 + exp(-yᵢ w·xᵢ)), which is scikit-learn's
    ``LogisticRegression(C=C, fit_intercept=False)`` objective (append a constant feature for
    an intercept, which is then regularised too). f is strictly convex; each step solves
    H·Δ = ∇f with H = I + C·XᵀDX, D = diag(σ(zᵢ)σ(-zᵢ)), and halves the step until f does not
    increase. Stops after the step whose Newton decrement ½∇fᵀH⁻¹∇f (Newton's own estimate of
    f(w) - min f before the step) is at most tol·f(w): the error left is then far smaller,
    as Newton's method converges quadratically.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float, default 1
        The inverse regularisation strength, C > 0.
    tol : float, default 1e-10
    max_iter : int, default 100

    Returns
    -------
    LogisticResult
        Probabilities with :func:`predict_proba`.
    """
    X, y = as_data(X, y)
    C, tol, max_iter = positive(C, "C"), positive(tol, "tol"), positive_int(max_iter, "max_iter")
    n, d = X.shape
    w, scores = np.zeros(d), np.zeros(n)  # scores = Xw, updated along each step's direction
    value = C * n * np.log(2.0)
    history = []
    for iteration in range(1, max_iter + 1):
        z = y * scores
        gradient = w - C * (X.T @ (y * _sigmoid(-z)))
        scaled = X * np.sqrt(_sigmoid(z) * _sigmoid(-z))[:, None]  # XᵀDX = (√D X)ᵀ(√D X)
        direction = np.linalg.solve(np.eye(d) + C * (scaled.T @ scaled), gradient)
        moved = X @ direction
        step = 1.0
        while True:
            candidate, candidate_scores = w - step * direction, scores - step * moved
            candidate_value = 0.5 * candidate @ candidate + C * np.sum(
                np.logaddexp(0.0, -y * candidate_scores))
            if candidate_value <= value or step < 1e-10:
                break
            step /= 2
        w, scores, value = candidate, candidate_scores, float(candidate_value)
        history.append((w, value))
        if gradient @ direction / 2 <= tol * value:  # the Newton decrement, before this step
            return LogisticResult(w, iteration, tuple(history))
    return LogisticResult(w, max_iter, tuple(history))


def predict_proba(w, X) -> np.ndarray:
    """P(y = +1 | x) = σ(w·x) = 1/(1 + e^(-w·x)) for the rows of X: (n, d) -> (n,)."""
    X = as_matrix(X)
    return _sigmoid(X @ as_vector(w, "w", X.shape[1]))
