"""Kernels: explicit feature maps, Gram matrices, and the dual (kernel) perceptron.

Sources
-------
- CS446 slides (seed 001): "Making data linearly separable" (the circle x₁² + x₂² <= 1 and the
  map (x₁², x₂²)), "Dual Representation" (w = Σᵢ αᵢyᵢxᵢ with αᵢ the number of mistakes on xᵢ),
  "Kernel Based Methods", the quadratic kernel (x·z)² and its map (x₁², √2·x₁x₂, x₂²), "The
  Kernel Matrix" (the Gram matrix must be positive semi-definite), "Constructing New Kernels".
- MMDS ch. 12 (seed 003): §12.2.6 transforming the training set (Example 12.7, Fig. 12.10: the
  polar transform); Exercise 12.2.3 (a quadratic transformation).

Conventions
-----------
A kernel function takes X of shape (n, d) and Z of shape (m, d) and returns the Gram matrix
K of shape (n, m) with Kᵢⱼ = k(xᵢ, zⱼ); Z defaults to X. Kernels are named by strings
("linear", "polynomial", "rbf") wherever an algorithm takes one, so that results stay plain
data. The kernel perceptron follows the primal :func:`mllib.perceptron.perceptron`: labels in
{-1, +1}, examples visited in order, and a score of exactly 0 is a mistake (MMDS §12.2.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mllib.perceptron import DEFAULT_MAX_EPOCHS
from mllib.validation import as_data, as_labels, as_matrix, count, finite, positive, positive_int

# --- Kernel functions ----------------------------------------------------------------------


def _pair(X, Z, *, allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    X = as_matrix(X, allow_empty=allow_empty)
    Z = X if Z is None else as_matrix(Z, "Z", allow_empty=allow_empty)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Z has {Z.shape[1]}; they must match.")
    return X, Z


def linear(X, Z=None) -> np.ndarray:
    """The linear kernel k(x, z) = x·z: no map at all (CS446 "Linear Kernels").

    X has shape (n, d), Z shape (m, d) (X itself when omitted); returns K of shape (n, m).
    """
    X, Z = _pair(X, Z)
    return X @ Z.T


def polynomial(X, Z=None, *, degree: int = 2, c: float = 0.0) -> np.ndarray:
    """The polynomial kernel k(x, z) = (x·z + c)^degree, shape (n, m).

    With degree 2 and c = 0 it is CS446's quadratic kernel (x·z)², the dot product of
    :func:`quadratic_features`. It is a kernel for c >= 0 (CS446 "Constructing New Kernels": a
    polynomial with non-negative coefficients of a kernel is a kernel); any finite c is computed,
    though a negative c need not give a valid kernel. With n = 0 or m = 0 rows the result is
    empty, of shape (n, m). scikit-learn's "poly" kernel is (γ·x·z + c)^degree with γ = 1/d by
    default; this one is γ = 1.
    """
    X, Z = _pair(X, Z, allow_empty=True)
    degree = positive_int(degree, "degree")
    return (X @ Z.T + finite(c, "c")) ** degree


def squared_distances(X, Z=None) -> np.ndarray:
    """‖xᵢ - zⱼ‖² for every pair, shape (n, m), clipped at 0 against rounding."""
    X, Z = _pair(X, Z)
    sq = np.sum(X * X, axis=1)[:, None] + np.sum(Z * Z, axis=1)[None, :] - 2 * X @ Z.T
    return np.maximum(sq, 0.0)


def rbf(X, Z=None, *, gamma: float) -> np.ndarray:
    """The Gaussian (RBF) kernel k(x, z) = exp(-γ‖x - z‖²), shape (n, m).

    MMDS §12.4.4 weights training points with a bell curve e^(-(x-q)²/σ²) in kernel regression;
    this is that weight with γ = 1/σ², used as a kernel. Its feature space is infinite
    dimensional, so it has no explicit map here.
    """
    return np.exp(-positive(gamma, "gamma") * squared_distances(X, Z))


KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "linear": linear,
    "polynomial": polynomial,
    "rbf": rbf,
}


def gram(X, Z=None, *, kernel: str = "linear", **params) -> np.ndarray:
    """The Gram matrix of the named kernel, Kᵢⱼ = k(xᵢ, zⱼ), shape (n, m).

    ``kernel`` is one of "linear", "polynomial" (params ``degree``, ``c``) or "rbf" (param
    ``gamma``). CS446 "The Kernel Matrix": its size depends on the number of examples, not on
    the dimension of the feature space.
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {sorted(KERNELS)}.")
    try:
        return KERNELS[kernel](X, Z, **params)
    except TypeError as error:
        raise ValueError(f"bad parameters for the {kernel} kernel: {error}.") from None


# --- Explicit feature maps -----------------------------------------------------------------


def quadratic_features(X, *, c: float = 0.0) -> np.ndarray:
    """The explicit map of the quadratic kernel: φ(x)·φ(z) = (x·z + c)² (CS446 "Kernels").

    φ(x) lists xᵢ² and √2·xᵢxⱼ for i < j, in the order (0,0), (0,1), ..., (0,d-1), (1,1), ...:
    for 2-D points and c = 0, (x₁², √2·x₁x₂, x₂²), as on the slide. X has shape (n, d); for
    c = 0 the result has shape (n, d(d+1)/2), the slide's n(n+1)/2 coordinates for n features.
    For c > 0, (x·z + c)² = (x·z)² + 2c·x·z + c² adds the d coordinates √(2c)·xᵢ and the
    constant c: shape (n, d(d+1)/2 + d + 1). The constant lets a separator in φ-space leave
    the origin, which a disc x₁² + x₂² <= r² needs. With n = 0 rows the result is an empty
    array of that width, as lecture 07's Exercise 2 asks of a student's map.
    """
    X = as_matrix(X, allow_empty=True)
    if finite(c, "c") < 0:
        raise ValueError(f"c must be >= 0 (a negative c need not give a valid kernel); got {c}.")
    rows, cols = np.triu_indices(X.shape[1])
    weights = np.where(rows == cols, 1.0, np.sqrt(2.0))
    phi = weights * X[:, rows] * X[:, cols]
    if c == 0:
        return phi
    return np.hstack([phi, np.sqrt(2 * c) * X, np.full((len(X), 1), float(c))])


def squares(X) -> np.ndarray:
    """The map (x₁², ..., x_d²) that turns the disc x₁² + x₂² <= 1 into the half-plane
    x'₁ + x'₂ <= 1 (CS446 "Transformed feature space"). Shapes (n, d) -> (n, d)."""
    return as_matrix(X) ** 2


def polar(X) -> np.ndarray:
    """MMDS Example 12.7 (Fig. 12.10): [x₁, x₂] -> [√(x₁² + x₂²), angle], shape (n, 2) -> (n, 2).

    MMDS writes the angle as arctan(x₂/x₁), which is undefined at x₁ = 0 and confuses opposite
    quadrants; this uses the quadrant-aware atan2(x₂, x₁) in (-π, π]. A circle around the origin
    becomes the line r = radius, so "inside the circle" is linearly separable.
    """
    X = as_matrix(X)
    if X.shape[1] != 2:
        raise ValueError(f"polar coordinates need 2-D points; X has {X.shape[1]} features.")
    return np.column_stack([np.hypot(X[:, 0], X[:, 1]), np.arctan2(X[:, 1], X[:, 0])])


# --- Gram matrices and the rules for building kernels --------------------------------------


def as_gram(K, name: str = "K") -> np.ndarray:
    """Return K as a finite, square, symmetric float matrix, or raise a ValueError saying why."""
    K = as_matrix(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be square (n, n) to be a Gram matrix; got {K.shape}.")
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * (1 + np.abs(K).max())):
        raise ValueError(f"{name} is not symmetric, so it is no Gram matrix: k(x, z) = k(z, x).")
    return K


def is_psd(K, *, tol: float = 1e-10) -> bool:
    """True when the Gram matrix K (n, n) is positive semi-definite (CS446 "General condition").

    The smallest eigenvalue must be >= -tol·max(1, largest |eigenvalue|): the relative slack
    absorbs rounding in K. Every Gram matrix of a valid kernel passes; a matrix with a clearly
    negative eigenvalue is no kernel's Gram matrix (no feature map can produce it).
    """
    eigenvalues = np.linalg.eigvalsh(as_gram(K))
    return bool(eigenvalues[0] >= -positive(tol, "tol") * max(1.0, np.abs(eigenvalues).max()))


def scaled(K, c: float) -> np.ndarray:
    """CS446's first rule: c·k is a kernel for c > 0. Elementwise on a Gram matrix (n, n)."""
    return positive(c, "c") * as_gram(K)


def conformal(K, f) -> np.ndarray:
    """CS446's second rule: f(x)·k(x, x')·f(x') is a kernel for any function f.

    ``f`` holds the values f(xᵢ), shape (n,); the result is diag(f)·K·diag(f), shape (n, n).
    """
    K = as_gram(K)
    f = np.asarray(f, dtype=float)
    if f.shape != (K.shape[0],) or not np.all(np.isfinite(f)):
        raise ValueError(f"f must hold one finite value per example, shape ({K.shape[0]},).")
    return f[:, None] * K * f[None, :]


def polynomial_of(K, coefficients) -> np.ndarray:
    """CS446's third rule: P(k) = Σᵢ aᵢ·kⁱ with every aᵢ >= 0 is a kernel.

    ``coefficients`` are a₀, a₁, ...; P is applied elementwise to the Gram matrix (n, n).
    """
    K = as_gram(K)
    a = np.asarray(coefficients, dtype=float)
    if a.ndim != 1 or a.size == 0 or np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ValueError("the coefficients a₀, a₁, ... must be a non-empty list of numbers >= 0.")
    return sum(ai * K**i for i, ai in enumerate(a))


def exponential(K) -> np.ndarray:
    """CS446's fourth rule: exp(k) is a kernel (the limit of polynomials with a_i = 1/i!).

    Elementwise on a Gram matrix (n, n).
    """
    return np.exp(as_gram(K))


# --- The dual (kernel) perceptron ----------------------------------------------------------


@dataclass(frozen=True)
class DualUpdate:
    """One mistake of the kernel perceptron.

    Attributes
    ----------
    epoch : int
        The pass over the data, from 1.
    index : int
        The row that was misclassified; its αᵢ grows by 1.
    score : float
        Σⱼ αⱼyⱼK(xⱼ, xᵢ) before the update: the primal perceptron's w·φ(xᵢ).
    """

    epoch: int
    index: int
    score: float


@dataclass(frozen=True)
class KernelPerceptronResult:
    """What :func:`kernel_perceptron` returns.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        αᵢ, the number of mistakes made on example i: w = Σᵢ αᵢyᵢφ(xᵢ) (CS446 "Dual
        Representation").
    mistakes : int
        Σᵢ αᵢ.
    epochs : int
    converged : bool
        True when the last pass made no mistake.
    history : tuple of DualUpdate
        Every mistake in order. α after k mistakes counts the indices of ``history[:k]``.
    kernel : str
    params : dict
        The kernel and its parameters, for :func:`kernel_predict`.
    """

    alpha: np.ndarray
    mistakes: int
    epochs: int
    converged: bool
    history: tuple[DualUpdate, ...]
    kernel: str
    params: dict = field(default_factory=dict)

    def alpha_after(self, k: int) -> np.ndarray:
        """α after the first k mistakes, shape (n,)."""
        return np.bincount([u.index for u in self.history[:k]],
                           minlength=len(self.alpha)).astype(float)


def kernel_perceptron(
    X, y, *, kernel: str = "linear", max_epochs: int = DEFAULT_MAX_EPOCHS, **kernel_params
) -> KernelPerceptronResult:
    """Train the perceptron in its dual form (CS446 "Dual Representation", "Kernel Based Methods").

    Keep one count αᵢ per example instead of w. Visiting xᵢ in order, the score is
    f(xᵢ) = Σⱼ αⱼyⱼK(xⱼ, xᵢ); on a mistake, yᵢ·f(xᵢ) <= 0 (a score of 0 is a mistake, as in
    MMDS §12.2.1 and :func:`mllib.perceptron.perceptron`), set αᵢ ← αᵢ + 1. This is the primal
    perceptron with η = 1 run on φ(x), update by update, since w = Σⱼ αⱼyⱼφ(xⱼ).

    The Gram matrix K is computed once (n² kernel values), and the scores of all examples are kept
    up to date: a mistake on xᵢ adds yᵢ·K[i] to them, so a visit costs O(1) and a mistake O(n).

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    kernel : str, default "linear"
        "linear", "polynomial" or "rbf" (see :func:`gram`), or "precomputed": X is then the
        Gram matrix K itself, shape (n, n).
    max_epochs : int, default 100
        Passes at most; 0 makes none (α stays 0, not converged), as lecture 07's
        ``dual_perceptron`` exercise states.
    **kernel_params
        ``degree`` and ``c`` for "polynomial", ``gamma`` for "rbf".

    Returns
    -------
    KernelPerceptronResult
        ``.alpha``, ``.mistakes``, ``.epochs``, ``.converged``, ``.history``.

    Examples
    --------
    XOR is not linearly separable, but it is with the quadratic kernel (x·z + 1)²:

    >>> X = [[1, 1], [-1, -1], [1, -1], [-1, 1]]
    >>> run = kernel_perceptron(X, [1, 1, -1, -1], kernel="polynomial", degree=2, c=1)
    >>> run.converged, run.alpha.tolist()
    (True, [1.0, 1.0, 1.0, 1.0])
    """
    X, y = as_data(X, y)
    max_epochs = count(max_epochs, "max_epochs")
    K = as_gram(X, "the precomputed Gram matrix") if kernel == "precomputed" else gram(
        X, kernel=kernel, **kernel_params)
    n = len(y)
    alpha, scores = np.zeros(n), np.zeros(n)
    updates: list[DualUpdate] = []
    for epoch in range(1, max_epochs + 1):
        before, start = len(updates), 0
        while start < n:
            # The scores are current, so the next mistake is the first flagged row from start.
            flagged = np.flatnonzero(y[start:] * scores[start:] <= 0)
            if flagged.size == 0:
                break
            i = start + int(flagged[0])
            updates.append(DualUpdate(epoch, i, float(scores[i])))
            alpha[i] += 1
            scores += y[i] * K[i]
            start = i + 1
        if len(updates) == before:
            return KernelPerceptronResult(alpha, len(updates), epoch, True, tuple(updates),
                                          kernel, dict(kernel_params))
    return KernelPerceptronResult(alpha, len(updates), max_epochs, False, tuple(updates), kernel,
                                  dict(kernel_params))


def kernel_scores(result: KernelPerceptronResult, X_train, y_train, X_new) -> np.ndarray:
    """f(x) = Σᵢ αᵢyᵢK(xᵢ, x) for the rows of X_new (m, d) -> (m,), with the training data
    (X_train (n, d), y_train (n,)) the result was trained on.

    For a "precomputed" kernel, X_train is ignored (pass None) and X_new is the matrix of kernel
    values K(xᵢ, x) between the training examples and the new ones, shape (n, m).
    """
    y_train = as_labels(y_train)
    if len(y_train) != len(result.alpha):
        raise ValueError(f"the result was trained on {len(result.alpha)} examples, "
                         f"but y_train has {len(y_train)} labels.")
    if result.kernel == "precomputed":
        K = as_matrix(X_new, "X_new (the kernel values, shape (n, m))")
        if K.shape[0] != len(y_train):
            raise ValueError(f"X_new must have one row per training example ({len(y_train)}); "
                             f"got {K.shape[0]}.")
        return (result.alpha * y_train) @ K
    X_train = as_matrix(X_train, "X_train")
    if len(X_train) != len(y_train):
        raise ValueError(f"the result was trained on {len(y_train)} examples, "
                         f"but X_train has {len(X_train)}.")
    used = result.alpha > 0  # only the examples with mistakes (CS446: "remember the set M")
    K = gram(X_train[used], X_new, kernel=result.kernel, **result.params)
    return (result.alpha[used] * y_train[used]) @ K


def kernel_predict(result: KernelPerceptronResult, X_train, y_train, X_new) -> np.ndarray:
    """Labels sign(Σᵢ αᵢyᵢK(xᵢ, x)) for the rows of X_new (m, d) -> (m,); a score of 0 predicts
    -1, as :func:`mllib.perceptron.predict` does."""
    return np.where(kernel_scores(result, X_train, y_train, X_new) > 0, 1.0, -1.0)
