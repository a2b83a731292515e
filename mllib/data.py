"""Seeded data sets for the lectures: the texts' worked examples and synthetic samples.

Every generator takes a ``numpy.random.Generator`` (or a seed for one), never global state, so a
notebook that passes the same seed draws the same sample every time.
"""

from __future__ import annotations

import numpy as np

from mllib.validation import positive, positive_int

SPAM_WORDS = ("and", "viagra", "the", "of", "nigeria")


def mmds_spam() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The spam training set of MMDS Fig. 12.6 (Example 12.4).

    Returns
    -------
    X : ndarray of shape (6, 5)
        Rows a-f; column j is 1 when the email contains ``words[j]``.
    y : ndarray of shape (6,)
        +1 for spam, -1 for not spam.
    words : tuple of str
        ("and", "viagra", "the", "of", "nigeria").
    """
    X = np.array(
        [
            [1, 1, 0, 1, 1],  # a
            [0, 0, 1, 1, 0],  # b
            [0, 1, 1, 0, 0],  # c
            [1, 0, 0, 1, 0],  # d
            [1, 0, 1, 0, 1],  # e
            [1, 0, 1, 1, 0],  # f
        ],
        dtype=float,
    )
    y = np.array([+1, -1, +1, -1, +1, -1], dtype=float)
    return X, y, SPAM_WORDS


def mmds_example_12_8() -> tuple[np.ndarray, np.ndarray]:
    """The four points of MMDS Example 12.8: [1, 2] and [3, 4] positive, [2, 1] and [4, 3] negative.

    Returns X of shape (4, 2) and y of shape (4,), in the book's order.
    """
    X = np.array([[1, 2], [2, 1], [3, 4], [4, 3]], dtype=float)
    return X, np.array([+1, -1, +1, -1], dtype=float)


def mmds_fig_12_18() -> tuple[np.ndarray, np.ndarray]:
    """The six points of MMDS Example 12.9 (Fig. 12.18), in the order of Fig. 12.19's conditions.

    Returns X of shape (6, 2): (1, 4), (2, 2), (3, 4) positive, then (1, 1), (2, 1), (3, 1)
    negative, and y of shape (6,).
    """
    X = np.array([[1, 4], [2, 2], [3, 4], [1, 1], [2, 1], [3, 1]], dtype=float)
    return X, np.array([+1, +1, +1, -1, -1, -1], dtype=float)


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _unit_vector(d: int, rng: np.random.Generator) -> np.ndarray:
    u = rng.standard_normal(d)
    return u / np.linalg.norm(u)


def _in_ball(n: int, d: int, radius: float, rng: np.random.Generator) -> np.ndarray:
    """n points uniform in the d-dimensional ball of the given radius, shape (n, d)."""
    directions = rng.standard_normal((n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * radius * rng.random((n, 1)) ** (1 / d)


def separable(
    n: int, d: int = 2, *, margin: float = 0.1, radius: float = 1.0, seed=0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A linearly separable sample with margin at least γ and radius at most R.

    Points are uniform in the ball ‖x‖ <= R, minus the slab |w*·x| < γ around a random unit
    vector w*; each is labelled sign(w*·x). So every example has yᵢ·(w*·xᵢ) >= γ, and the
    perceptron makes at most (R/γ)² mistakes on it (Novikoff; CS446).

    Parameters
    ----------
    n : int
        The number of examples.
    d : int, default 2
        The dimension.
    margin : float, default 0.1
        γ, with 0 < γ < R.
    radius : float, default 1.0
        R.
    seed : int or numpy.random.Generator, default 0

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    w_star : ndarray of shape (d,)
        The unit separator.
    """
    n, d = positive_int(n, "n"), positive_int(d, "d")
    margin, radius = positive(margin, "margin"), positive(radius, "radius")
    if margin >= radius:
        raise ValueError(f"margin ({margin}) must be smaller than radius ({radius}).")
    rng = _rng(seed)
    w_star = _unit_vector(d, rng)
    kept: list[np.ndarray] = []
    count = 0
    while count < n:
        points = _in_ball(2 * n, d, radius, rng)
        points = points[np.abs(points @ w_star) >= margin]
        kept.append(points)
        count += len(points)
    X = np.vstack(kept)[:n]
    return X, np.where(X @ w_star > 0, 1.0, -1.0), w_star


def chunk_stream(chunks: int, rows: int, d: int, *, margin: float = 0.3, seed=0):
    """Labelled chunks made one at a time, for learning from a stream (MMDS §12.3.5).

    Each chunk holds up to ``rows`` standard-normal points in d dimensions, those at distance
    more than ``margin`` from the hyperplane w*·x = 0 with w* = (1, …, 1)/√d, labelled
    sign(w*·x). Nothing is kept between chunks, so the stream's total size does not count
    against memory. Yields (X (n_c, d), y (n_c,)) ``chunks`` times.
    """
    rng = np.random.default_rng(seed)
    w_star = np.ones(d) / np.sqrt(d)
    for _ in range(chunks):
        X = rng.standard_normal((rows, d))
        X = X[np.abs(X @ w_star) > margin]
        yield X, np.where(X @ w_star > 0, 1.0, -1.0)


def noisy(
    n: int, d: int = 2, *, margin: float = 0.1, radius: float = 1.0, flip: float = 0.1, seed=0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A non-separable sample: :func:`separable` with a fraction ``flip`` of labels flipped.

    The flipped examples are chosen at random; at least one is flipped when ``flip > 0``, so the
    sample is not separable by w* (and, for n large enough, by nothing else).

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    w_star : ndarray of shape (d,)
        The unit separator of the clean labels.
    """
    if not 0 <= flip <= 1:
        raise ValueError(f"flip must be a fraction in [0, 1]; got {flip}.")
    rng = _rng(seed)
    X, y, w_star = separable(n, d, margin=margin, radius=radius, seed=rng)
    flipped = rng.choice(n, size=max(1, round(flip * n)) if flip > 0 else 0, replace=False)
    y = y.copy()
    y[flipped] *= -1
    return X, y, w_star


# --- Data that no line separates (lectures 07 and 08) -----------------------------------------


def rings(n: int, *, inner: float = 1.0, gap: float = 0.5, width: float = 1.0, seed=0):
    """Points in the disc r <= ``inner`` labelled +1 and in the ring inner + gap <= r <=
    inner + gap + width labelled -1, each class about half. No line separates them; the map
    (x₁², x₂²) or a quadratic kernel does (CS446 "Making data linearly separable").

    Returns X of shape (n, 2) and y of shape (n,) in {-1, +1}.
    """
    n = positive_int(n, "n")
    rng = _rng(seed)
    angle = rng.uniform(0, 2 * np.pi, n)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    outer = inner + gap
    r = np.where(y > 0, inner * np.sqrt(rng.random(n)), rng.uniform(outer, outer + width, n))
    return np.column_stack([r * np.cos(angle), r * np.sin(angle)]), y


def xor(n: int, *, noise: float = 0.25, seed=0):
    """XOR: points around (±1, ±1), labelled +1 where x₁·x₂ > 0 (the clean corner's sign).

    Returns X of shape (n, 2) and y of shape (n,) in {-1, +1}.
    """
    n = positive_int(n, "n")
    rng = _rng(seed)
    corners = rng.choice([-1.0, 1.0], size=(n, 2))
    X = corners + noise * rng.standard_normal((n, 2))
    return X, corners[:, 0] * corners[:, 1]


def blobs(n: int, centres, *, spread: float = 0.5, seed=0):
    """k Gaussian blobs: class c (0..k-1) around ``centres[c]``, standard deviation ``spread``.

    Returns X of shape (n, d) and integer labels y of shape (n,), each class about n/k.
    """
    n = positive_int(n, "n")
    centres = np.asarray(centres, dtype=float)
    rng = _rng(seed)
    y = rng.integers(0, len(centres), n)
    return centres[y] + positive(spread, "spread") * rng.standard_normal((n, centres.shape[1])), y


def mmds_peak() -> tuple[np.ndarray, np.ndarray]:
    """The 1-D training set of MMDS Examples 12.12 and 12.13: (i, 8/2^|i-4|) for i = 1..7.

    Returns
    -------
    x : ndarray of shape (7,)
        1, 2, ..., 7.
    y : ndarray of shape (7,)
        1, 2, 4, 8, 4, 2, 1.
    """
    x = np.arange(1.0, 8.0)
    return x, 8.0 / 2.0 ** np.abs(x - 4)


DOG_BREEDS = ("Chihuahua", "Dachshund", "Beagle")


def dogs() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Seven dogs as (height in inches, weight in pounds), in the spirit of MMDS Fig. 12.21.

    The book draws three Chihuahuas, two Dachshunds and two Beagles without printing their
    coordinates; these are our own plausible values, not the book's. A light Dachshund (9 in,
    16 lb) and a heavy one (10 in, 27 lb) leave a Beagle nearer to their midpoint than either
    of them, so, as in the footnote to MMDS Example 12.11, neither the Dachshunds' region nor
    the Beagles' is convex.

    Returns
    -------
    X : ndarray of shape (7, 2)
    y : int ndarray of shape (7,)
        0 = Chihuahua, 1 = Dachshund, 2 = Beagle (``breeds[y]``).
    breeds : tuple of str
    """
    X = np.array([[6.0, 4.0], [8.0, 6.0], [7.0, 3.0],  # Chihuahuas
                  [9.0, 16.0], [10.0, 27.0],  # Dachshunds
                  [14.0, 21.0], [15.0, 26.0]])  # Beagles
    return X, np.array([0, 0, 0, 1, 1, 2, 2]), DOG_BREEDS


def boosting_toy() -> tuple[np.ndarray, np.ndarray]:
    """Ten points in the plane on which AdaBoost with stumps repeats the CS446 toy example's
    rounds: weighted errors 3/10, 3/14 and 3/22, after which H makes no training mistake.

    The slides show only a picture; these coordinates are ours (a grid of 1..10 per axis).

    Returns
    -------
    X : ndarray of shape (10, 2)
    y : ndarray of shape (10,)
        Five +1 then five -1.
    """
    X = np.array([[6, 1], [3, 4], [5, 10], [4, 9], [8, 2],
                  [2, 8], [7, 6], [9, 7], [1, 3], [10, 5]], dtype=float)
    return X, np.array([1.0] * 5 + [-1.0] * 5)


def moons(n: int = 200, *, noise: float = 0.2, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles (labels +1 and -1) with Gaussian noise: data no line
    separates, for k-NN regions and ensembles.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
        Labels in {-1, +1}, alternating halves.
    """
    n = positive_int(n, "n")
    rng = _rng(seed)
    angle = rng.uniform(0, np.pi, n)
    upper = np.arange(n) % 2 == 0
    X = np.where(upper[:, None],
                 np.column_stack([np.cos(angle), np.sin(angle)]),
                 np.column_stack([1 - np.cos(angle), 0.5 - np.sin(angle)]))
    X = X + noise * rng.standard_normal((n, 2))
    return X, np.where(upper, 1.0, -1.0)


def xor_table() -> tuple[np.ndarray, np.ndarray]:
    """XOR on {0, 1}²: X of shape (4, 2) and labels t = x₁ ⊕ x₂ in {0, 1}, shape (4,).

    No single threshold unit separates it (Mitchell §4.4.2); one hidden layer of two sigmoid
    units can (CS446 "Multi-Layer Neural Network").
    """
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    return X, np.array([0, 1, 1, 0])
