"""VC dimension by brute force: hypothesis classes with exact realizability checks, shattering,
the VC search with a witness, and the growth function against Sauer's lemma.

Sources
-------
- CS446 slides (seed 001), "Infinite Hypothesis Space", "Shattering", "VC Dimension": half
  intervals (VC 1), intervals (2), half-spaces in the plane (3), axis-parallel rectangles (4, the
  "no five instances" argument), and VC(H) <= log₂|H| for a finite class.
- Sauer's lemma (Sauer 1972): a class of VC dimension d realizes at most Σ_{i<=d} C(m, i)
  labelings of any m points.

Conventions
-----------
A class labels points with ±1. A labelling is *realizable* when some hypothesis of the class
gives exactly those labels; :func:`realize` returns such a hypothesis (a *witness*) or None.
The witness is the one of widest margin: the cut midway between the classes on the line, the box
midway between the positives' bounding box and the nearest negative, the hard-margin SVM line in
the plane. The checks are exact: they compare coordinates, and the half-plane check does exact
integer arithmetic on the floats' binary values, so no tolerance is ever guessed. Points are
arrays of shape (n, dim); on the line, shape (n,) is accepted too.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mllib.pac import Conjunction
from mllib.validation import as_labels, as_matrix, positive_int

# --- Hypotheses (the witnesses) -------------------------------------------------------------


@dataclass(frozen=True)
class HalfLine:
    """The ray (-∞, a): +1 where x < a. ``a`` may be ±inf (everything negative or positive).

    CS446's "half intervals" are [0, a) with a > 0, on points x >= 0; there they label exactly
    as the ray (-∞, a) does, and the ray needs no sign condition on the points.
    """

    a: float

    def classify(self, points: np.ndarray) -> np.ndarray:
        """Labels of points of shape (n, 1), shape (n,)."""
        return np.where(points[:, 0] < self.a, 1.0, -1.0)


@dataclass(frozen=True)
class Intervals:
    """A union of closed intervals [lo, hi] on the line: +1 inside one of them.

    ``bounds`` is a tuple of (lo, hi) pairs; the empty tuple labels everything -1.
    """

    bounds: tuple[tuple[float, float], ...]

    def classify(self, points: np.ndarray) -> np.ndarray:
        """Labels of points of shape (n, 1), shape (n,)."""
        x = points[:, 0]
        inside = np.zeros(len(x), dtype=bool)
        for lo, hi in self.bounds:
            inside |= (lo <= x) & (x <= hi)
        return np.where(inside, 1.0, -1.0)


@dataclass(frozen=True)
class HalfPlane:
    """The open half-plane w·x + b > 0 (+1 there, -1 elsewhere). w has shape (2,).

    ``exact``, when given, is the same half-plane in exact arithmetic, ((a, c), offset) for
    a·x + c·y + offset > 0 with whole a, c and a Fraction offset; ``classify`` then uses it and
    w, b (rounded to floats) only serve to draw the line. A witness needs it when its margin is
    so thin that the rounded w, b would put a point on the wrong side.
    """

    w: np.ndarray
    b: float
    exact: tuple[tuple[int, int], Fraction] | None = None

    def classify(self, points: np.ndarray) -> np.ndarray:
        """Labels of points of shape (n, 2), shape (n,)."""
        if self.exact is None or len(points) == 0:
            return np.where(points @ self.w + self.b > 0, 1.0, -1.0)
        (a, c), offset = self.exact
        whole, scale = _integer_coordinates(np.asarray(points, dtype=float))
        # (a·x + c·y + offset) · scale · offset.denominator, all in Python integers
        value = ((whole[:, 0].astype(object) * a + whole[:, 1].astype(object) * c)
                 * offset.denominator + offset.numerator * scale)
        return np.where(value > 0, 1.0, -1.0)


@dataclass(frozen=True)
class Rectangle:
    """The closed axis-parallel rectangle [x_lo, x_hi] × [y_lo, y_hi]: +1 inside.

    An empty rectangle (x_lo = +inf, x_hi = -inf) labels everything -1.
    """

    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float

    def classify(self, points: np.ndarray) -> np.ndarray:
        """Labels of points of shape (n, 2), shape (n,)."""
        x, y = points[:, 0], points[:, 1]
        inside = (self.x_lo <= x) & (x <= self.x_hi) & (self.y_lo <= y) & (y <= self.y_hi)
        return np.where(inside, 1.0, -1.0)


# --- Hypothesis classes -----------------------------------------------------------------------


@dataclass(frozen=True)
class HypothesisClass:
    """A hypothesis class with an exact realizability check.

    Attributes
    ----------
    name : str
    dim : int
        The dimension of the points it labels.
    check : callable
        ``check(points, labelings)``, points (n, dim) and labelings (L, n) in {-1, +1}, already
        validated: a bool array (L,) saying which labellings the class realizes. Exact.
    witness : callable
        ``witness(points, labels)`` for a labelling that ``check`` accepts: a hypothesis, with a
        ``classify(points)`` method, that gives exactly those labels.
    pool : str
        Which candidate points a brute-force search needs, and why they suffice.
    """

    name: str
    dim: int
    check: Callable[[np.ndarray, np.ndarray], np.ndarray]
    witness: Callable[[np.ndarray, np.ndarray], object]
    pool: str

    def __str__(self) -> str:
        return self.name


def _masked_extremes(values: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For values (n, k) and labellings ``positive`` (L, n) of bool: the largest value over the
    positives and the smallest over the negatives, each (L, k) (-inf / +inf when there are none).
    """
    inside = positive[:, :, None]
    highest = np.where(inside, values[None], -np.inf).max(axis=1)
    lowest = np.where(~inside, values[None], np.inf).min(axis=1)
    return highest, lowest


# Half-lines --------------------------------------------------------------------------------------


def _half_line_check(points: np.ndarray, labelings: np.ndarray) -> np.ndarray:
    """Some ray (-∞, a) fits exactly when every positive lies left of every negative."""
    highest_positive, lowest_negative = _masked_extremes(points, labelings > 0)
    return highest_positive[:, 0] < lowest_negative[:, 0]


def _midway(low: float, high: float) -> float:
    """The float midway between low < high (it may round onto an end when they are adjacent
    floats: each caller then falls back to the end that keeps its labels)."""
    return low / 2 + high / 2


def _half_line_witness(points: np.ndarray, labels: np.ndarray) -> HalfLine:
    """The widest-margin ray: its end a midway between the last positive and the first negative
    (-inf when there is no positive, +inf when there is no negative)."""
    positives, negatives = points[labels > 0, 0], points[labels < 0, 0]
    if not negatives.size:
        return HalfLine(math.inf)
    if not positives.size:
        return HalfLine(-math.inf)
    highest, lowest = float(positives.max()), float(negatives.min())
    a = _midway(highest, lowest)
    return HalfLine(a if a > highest else lowest)


# Unions of intervals -----------------------------------------------------------------------------


def _runs(points: np.ndarray, labelings: np.ndarray):
    """The points in sorted order, and for each labelling (L, n): where runs of positives start
    and end in that order, and whether two copies of one point got different labels."""
    order = np.argsort(points[:, 0], kind="stable")
    x, positive = points[order, 0], labelings[:, order] > 0
    clash = np.any((x[1:] == x[:-1]) & (positive[:, 1:] != positive[:, :-1]), axis=1)
    before = np.concatenate([np.zeros_like(positive[:, :1]), positive[:, :-1]], axis=1)
    after = np.concatenate([positive[:, 1:], np.zeros_like(positive[:, :1])], axis=1)
    return x, positive & ~before, positive & ~after, clash


def _unions_check(k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def check(points: np.ndarray, labelings: np.ndarray) -> np.ndarray:
        """k intervals fit exactly when, in sorted order, the positives form at most k runs."""
        _, starts, _, clash = _runs(points, labelings)
        return ~clash & (starts.sum(axis=1) <= k)

    return check


def _unions_witness(points: np.ndarray, labels: np.ndarray) -> Intervals:
    """The widest-margin union: each run of positives (in sorted order) stretched to midway
    towards the negatives next to it, and without end where no negative lies beyond it."""
    x, starts, ends, _ = _runs(points, labels[None])
    bounds = []
    for first, last in zip(np.flatnonzero(starts[0]), np.flatnonzero(ends[0]), strict=True):
        lo, hi = -math.inf, math.inf
        if first > 0:
            lo = _midway(float(x[first - 1]), float(x[first]))
            lo = lo if lo > x[first - 1] else float(x[first])
        if last < len(x) - 1:
            hi = _midway(float(x[last]), float(x[last + 1]))
            hi = hi if hi < x[last + 1] else float(x[last])
        bounds.append((lo, hi))
    return Intervals(tuple(bounds))


# Rectangles --------------------------------------------------------------------------------------


def _rectangle_check(points: np.ndarray, labelings: np.ndarray) -> np.ndarray:
    """The bounding box of the positives is the smallest rectangle holding them: a rectangle
    fits exactly when that box holds no negative."""
    positive = labelings > 0
    lowest = np.where(positive[:, :, None], points[None], np.inf).min(axis=1)  # (L, 2)
    highest = np.where(positive[:, :, None], points[None], -np.inf).max(axis=1)
    inside = np.all((lowest[:, None, :] <= points[None]) & (points[None] <= highest[:, None, :]),
                    axis=2)
    return ~np.any(inside & ~positive, axis=1)


def _rectangle_witness(points: np.ndarray, labels: np.ndarray) -> Rectangle:
    """The positives' bounding box widened on every side by half the distance (in the max norm)
    from the box to the nearest negative: the box sits midway between the two classes. Without
    negatives it is the whole plane; without positives, empty."""
    positives, negatives = points[labels > 0], points[labels < 0]
    if positives.size == 0:
        return Rectangle(math.inf, -math.inf, math.inf, -math.inf)
    if negatives.size == 0:
        return Rectangle(-math.inf, math.inf, -math.inf, math.inf)
    low, high = positives.min(axis=0), positives.max(axis=0)
    outside = np.maximum(low - negatives, negatives - high).max(axis=1)  # > 0: realizable
    pad = float(outside.min()) / 2
    (x_lo, y_lo), (x_hi, y_hi) = (low - pad).tolist(), (high + pad).tolist()
    widened = Rectangle(x_lo, x_hi, y_lo, y_hi)
    if np.array_equal(widened.classify(points), labels):
        return widened
    (x_lo, y_lo), (x_hi, y_hi) = low.tolist(), high.tolist()  # rounding reached a negative
    return Rectangle(x_lo, x_hi, y_lo, y_hi)


# Conjunctions ------------------------------------------------------------------------------------


def _most_specific(bits: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The elimination algorithm (mllib.pac.eliminate) for each labelling at once: bits (n, v)
    bool, positive (L, n) bool -> the surviving literals xᵢ and ¬xᵢ, each (L, v)."""
    ignore = ~positive[:, :, None]
    return np.all(bits[None] | ignore, axis=1), np.all(~bits[None] | ignore, axis=1)


def _boolean_points(points: np.ndarray) -> np.ndarray:
    if not np.all((points == 0) | (points == 1)):
        raise ValueError("conjunctions label boolean points: every coordinate 0 or 1.")
    return points == 1


def _conjunction_check(points: np.ndarray, labelings: np.ndarray) -> np.ndarray:
    """The most specific conjunction true on the positives is true on a subset of what any other
    such conjunction is true on: a conjunction fits exactly when it is false on every negative."""
    bits, positive = _boolean_points(points), labelings > 0
    keep_x, keep_not_x = _most_specific(bits, positive)
    false_literals = keep_x.astype(int) @ (~bits).T + keep_not_x.astype(int) @ bits.T  # (L, n)
    return ~np.any((false_literals == 0) & ~positive, axis=1)


def _conjunction_witness(points: np.ndarray, labels: np.ndarray) -> Conjunction:
    keep_x, keep_not_x = _most_specific(_boolean_points(points), labels[None] > 0)
    return Conjunction(keep_x[0], keep_not_x[0])


# Half-planes: the exact test ---------------------------------------------------------------------


def _integer_coordinates(points: np.ndarray) -> tuple[np.ndarray, int]:
    """The points times a power of two that makes every coordinate a whole number.

    Every float is a fraction with a power-of-two denominator, so scaling by the largest such
    denominator is exact. Small results are int64 (exact: the products taken below stay under
    2⁶²); larger ones are Python ints in an object array, exact at any size.
    """
    ratios = [value.as_integer_ratio() for value in points.ravel().tolist()]
    scale = max(denominator for _, denominator in ratios)
    whole = [numerator * (scale // denominator) for numerator, denominator in ratios]
    dtype = np.int64 if max(abs(v) for v in whole) < 2**29 else object
    return np.array(whole, dtype=dtype).reshape(points.shape), scale


def _projections(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact projections of the points on the candidate directions.

    The directions are ±d and ±d⊥ for the difference d of every pair of points. Returns the
    directions (k, 2) and the projections (n, k), both in exact integers, and the scale.
    """
    exact, scale = _integer_coordinates(points)
    i, j = np.triu_indices(len(points), 1)
    d = exact[j] - exact[i]
    perpendicular = np.stack([-d[:, 1], d[:, 0]], axis=1)
    directions = np.concatenate([d, -d, perpendicular, -perpendicular])
    return directions, exact @ directions.T, scale


def _half_plane_separations(points: np.ndarray, labelings: np.ndarray):
    """(L, k) bool: direction j splits labelling l, max over positives < min over negatives.

    Why this decides separability exactly: if the positives P and negatives N can be split by a
    line, their convex hulls are disjoint polygons (possibly points or segments); take a closest
    pair a ∈ hull(P), c ∈ hull(N). The line through their midpoint perpendicular to c - a splits
    P from N strictly. A closest pair sits at two corners (then c - a is the difference of two of
    the points) or at a corner and an edge or two parallel edges (then c - a is perpendicular to
    an edge, the difference of two of the points). So whenever P and N are separable, one of
    these finitely many directions v has max over P of v·x < min over N of v·x; conversely any
    direction that does splits them. Only the order of the projections matters, and it is
    computed in exact integers, then replaced by ranks (ties kept) for the vectorized test.
    """
    _, projections, _ = _projections(points)
    ranks = (projections[:, None, :] > projections[None, :, :]).sum(axis=1).astype(float)
    highest_positive, lowest_negative = _masked_extremes(ranks, labelings > 0)
    return highest_positive < lowest_negative


def _half_plane_check(points: np.ndarray, labelings: np.ndarray) -> np.ndarray:
    one_sided = np.all(labelings > 0, axis=1) | np.all(labelings < 0, axis=1)
    if len(points) == 1:
        return one_sided
    return one_sided | np.any(_half_plane_separations(points, labelings), axis=1)


def _half_plane_witness(points: np.ndarray, labels: np.ndarray) -> HalfPlane:
    """The widest-margin half-plane (the hard-margin SVM), w of unit length, rounded to floats.

    The widest separating strip is perpendicular to c - a for the closest pair of the two hulls
    (see :func:`_half_plane_separations`), one of the candidate directions v; along v the strip's
    width is (min over negatives - max over positives)/‖v‖. The widest candidate is found in
    exact arithmetic and the line drawn through the middle of its strip. A labelling with one
    class only gets w = 0 and b = ±1. When the strip is so thin that the rounded line puts a
    point on the wrong side (nearly collinear points far from the origin), the witness carries
    the exact line too (:class:`HalfPlane`'s ``exact``), so it still reproduces the labels.
    """
    if np.all(labels == labels[0]):
        return HalfPlane(np.zeros(2), float(labels[0]))
    directions, projections, scale = _projections(points)
    positive = labels > 0
    highest, lowest = projections[positive].max(axis=0), projections[~positive].min(axis=0)
    gap, length2 = lowest - highest, (directions * directions).sum(axis=1)
    j = max(np.flatnonzero(gap > 0).tolist(),
            key=lambda k: Fraction(int(gap[k]) ** 2, int(length2[k])))
    highest, lowest = int(highest[j]), int(lowest[j])
    v = [Fraction(int(c)) for c in directions[j]]
    size = max(abs(c) for c in v)  # rescale before rounding, so huge integers do not overflow
    w = np.array([float(c / size) for c in v])
    b = float(Fraction(highest + lowest, 2 * scale) / size)
    norm = float(np.hypot(*w))
    rounded = HalfPlane(-w / norm, b / norm)
    if np.array_equal(rounded.classify(points), labels):
        return rounded
    normal = (-int(directions[j][0]), -int(directions[j][1]))
    return HalfPlane(rounded.w, rounded.b, (normal, Fraction(highest + lowest, 2 * scale)))


_ON_THE_LINE = (
    "the class depends only on the order of the points on the line, so any n distinct points "
    "are alike: the points 0, 1, …, n-1 stand for every set of n points")

HALF_LINES = HypothesisClass("half-lines", 1, _half_line_check, _half_line_witness, _ON_THE_LINE)
"""Rays (-∞, a), +1 below the threshold; on x >= 0 these are CS446's "half intervals" [0, a),
a > 0. VC dimension 1."""

INTERVALS = HypothesisClass("intervals", 1, _unions_check(1), _unions_witness, _ON_THE_LINE)
"""Closed intervals [lo, hi] on the line (CS446). VC dimension 2."""

HALF_PLANES = HypothesisClass(
    "half-planes", 2, _half_plane_check, _half_plane_witness,
    "no finite grid holds every configuration; Radon's theorem is the proof that no 4 points "
    "are shattered (any 4 points split into two groups whose hulls meet). An exhaustive search "
    "of a small grid, which holds convex quadrilaterals, triangles with an inner point and "
    "collinear triples, checks it")
"""Half-planes with a bias, w·x + b > 0, in the plane (CS446 "half-spaces"). VC dimension 3."""

RECTANGLES = HypothesisClass(
    "rectangles", 2, _rectangle_check, _rectangle_witness,
    "a rectangle's labels depend only on the order of the x's and the order of the y's (ties "
    "included), so replacing each coordinate by its rank changes nothing: every set of n points "
    "is one of the n-subsets of the n × n grid {0, …, n-1}²")
"""Closed axis-parallel rectangles (CS446 "Learning Rectangles"). VC dimension 4."""


def unions_of_intervals(k) -> HypothesisClass:
    """Unions of at most k closed intervals on the line. VC dimension 2k.

    A labelling of points on the line is realizable exactly when, in sorted order, its positives
    form at most k runs (and no point is labelled both ways).
    """
    k = positive_int(k, "k")
    return HypothesisClass(f"unions of {k} intervals", 1, _unions_check(k), _unions_witness,
                           _ON_THE_LINE)


def conjunctions(n) -> HypothesisClass:
    """Conjunctions of literals over n boolean variables, plus the always-false one.

    The points are {0, 1}ⁿ vectors. The check runs the elimination algorithm on the positives
    (CS446): the most specific consistent conjunction realizes the labels if any does. Including
    the always-false conjunction (the algorithm's start) lets every point be labelled negative.
    """
    n = positive_int(n, "n")
    return HypothesisClass(
        f"conjunctions over {n} variables", n, _conjunction_check, _conjunction_witness,
        "the instance space {0, 1}ⁿ is finite: searching all of it is exhaustive")


# --- Checks, shattering, VC dimension, growth function ------------------------------------------


def _points(hclass: HypothesisClass, points) -> np.ndarray:
    """Points as (n, dim) floats for ``hclass``; shape (n,) is accepted when dim = 1."""
    array = np.asarray(points, dtype=float)
    if hclass.dim == 1 and array.ndim == 1:
        array = array[:, None]
    array = as_matrix(array, "points")
    if array.shape[1] != hclass.dim:
        raise ValueError(f"{hclass.name} label points in {hclass.dim} dimension(s), shape "
                         f"(n, {hclass.dim}); got points of shape {array.shape}.")
    return array


def realize(hclass: HypothesisClass, points, labels):
    """A hypothesis of ``hclass`` that gives ``points`` exactly these ``labels``, or None.

    Parameters
    ----------
    hclass : HypothesisClass
        e.g. :data:`HALF_PLANES`.
    points : array_like of shape (n, dim)
        Shape (n,) is accepted for classes on the line.
    labels : array_like of shape (n,)
        In {-1, +1}.

    Returns
    -------
    witness or None
        The witness has a ``classify(points)`` method that reproduces the labels.
    """
    points = _points(hclass, points)
    labels = as_labels(labels, len(points))
    return hclass.witness(points, labels) if hclass.check(points, labels[None])[0] else None


def realize_all(hclass: HypothesisClass, points) -> tuple:
    """:func:`realize` for every labelling of ``points`` at once, in the order of
    :func:`all_labelings`: a witness or None for each of the 2ⁿ labellings (one check for all)."""
    points = _points(hclass, points)
    labelings = _labelings(len(points))
    fits = hclass.check(points, labelings)
    return tuple(hclass.witness(points, labels) if fit else None
                 for labels, fit in zip(labelings, fits, strict=True))


def realizable(hclass: HypothesisClass, points, labels) -> bool:
    """Whether some hypothesis of ``hclass`` gives exactly these labels (see :func:`realize`)."""
    return realize(hclass, points, labels) is not None


def all_labelings(n) -> np.ndarray:
    """Every ±1 labelling of n points, shape (2ⁿ, n), counting in binary (-1 as 0, +1 as 1)
    with the first point as the most significant bit: row 0 is all -1, the last row all +1."""
    return _labelings(positive_int(n, "n")).copy()


@functools.cache
def _labelings(n: int) -> np.ndarray:
    bits = (np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)) & 1
    labelings = np.where(bits == 1, 1.0, -1.0)
    labelings.flags.writeable = False
    return labelings


def count_labelings(hclass: HypothesisClass, points) -> int:
    """How many of the 2ⁿ labellings of ``points`` ``hclass`` realizes (at most 2ⁿ)."""
    points = _points(hclass, points)
    return int(np.sum(hclass.check(points, _labelings(len(points)))))


def shatters(hclass: HypothesisClass, points) -> bool:
    """Whether ``hclass`` realizes all 2ⁿ labellings of ``points`` (CS446 "Shattering")."""
    points = _points(hclass, points)
    return bool(np.all(hclass.check(points, _labelings(len(points)))))


@dataclass(frozen=True)
class VCSearch:
    """The result of :func:`vc_dimension`.

    Attributes
    ----------
    dimension : int
        The largest size of a shattered subset of the pool.
    witness : ndarray of shape (dimension, dim)
        A shattered set of that size.
    complete : bool
        True when the search reached a size at which no subset of the pool is shattered, so
        ``dimension`` is exact over the pool; False when it stopped at ``max_size``.
    shattered : tuple of int
        For sizes 1, 2, …: how many subsets of the pool of that size are shattered. The last
        entry is 0 when ``complete``.
    examined : tuple of int
        For the same sizes: how many subsets were tested. The others contain a smaller subset
        that is not shattered, so they cannot be shattered either.
    """

    dimension: int
    witness: np.ndarray
    complete: bool
    shattered: tuple[int, ...]
    examined: tuple[int, ...]


def vc_dimension(hclass: HypothesisClass, pool, *, max_size: int = 8) -> VCSearch:
    """The VC dimension of ``hclass`` over the point sets drawn from ``pool``, by brute force.

    Sizes are searched from 1 up. A subset of a shattered set is shattered, so a set of size
    k + 1 is tested only if all its subsets of size k were shattered (level by level, as in
    Apriori); the others cannot be shattered. The search stops at the first size with no
    shattered set: then no larger set drawn from the pool is shattered either. Which pools
    suffice for a class is said in ``hclass.pool``: e.g. the n × n grid for rectangles, the
    points 0..n-1 for classes on the line.

    Parameters
    ----------
    hclass : HypothesisClass
    pool : array_like of shape (p, dim)
        The candidate points.
    max_size : int, default 8
        The largest size to try.

    Returns
    -------
    VCSearch
    """
    pool = _points(hclass, pool)
    max_size = positive_int(max_size, "max_size")
    if len(np.unique(pool, axis=0)) != len(pool):
        raise ValueError("the pool has repeated points; give each candidate point once.")
    level = [(i,) for i in range(len(pool))]
    best: tuple[int, ...] = ()
    shattered_counts, examined_counts = [], []
    for size in range(1, min(max_size, len(pool)) + 1):
        shattered = [s for s in level if shatters(hclass, pool[list(s)])]
        shattered_counts.append(len(shattered))
        examined_counts.append(len(level))
        if not shattered:
            return VCSearch(size - 1, pool[list(best)], True, tuple(shattered_counts),
                            tuple(examined_counts))
        best = shattered[0]
        level = _next_level(shattered, len(pool))
    complete = len(best) == len(pool)  # nothing larger can be drawn from the pool
    return VCSearch(len(best), pool[list(best)], complete, tuple(shattered_counts),
                    tuple(examined_counts))


def _next_level(shattered: list[tuple[int, ...]], pool_size: int) -> list[tuple[int, ...]]:
    """The sets one larger all of whose subsets one smaller are in ``shattered`` (sorted)."""
    known = set(shattered)
    grown = []
    for s in shattered:
        for j in range(s[-1] + 1, pool_size):
            candidate = (*s, j)
            if all(candidate[:i] + candidate[i + 1:] in known for i in range(len(s))):
                grown.append(candidate)
    return grown


def growth_function(hclass: HypothesisClass, m, pool) -> int:
    """Π_H(m) over the pool: the most labellings ``hclass`` realizes on m points of ``pool``.

    The maximum of :func:`count_labelings` over every m-subset of ``pool`` (shape (p, dim),
    p >= m). It is the true growth function when the pool holds a set that attains it (see
    ``hclass.pool``; for half-planes, any points in general position, by Cover's count
    m² - m + 2).
    """
    pool = _points(hclass, pool)
    m = positive_int(m, "m")
    if m > len(pool):
        raise ValueError(f"the pool has {len(pool)} points; it cannot hold a set of {m}.")
    return max(count_labelings(hclass, pool[list(s)])
               for s in itertools.combinations(range(len(pool)), m))


def _whole(value, name: str) -> int:
    """A whole number >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0; got {value!r}.")
    return int(value)


def sauer_bound(m, d) -> int:
    """Σ_{i=0}^{d} C(m, i): Sauer's lemma bound on the growth function of a class of VC
    dimension d, for whole numbers m, d >= 0. It equals 2^m for m <= d (1 at m = 0: the empty
    set of points has one labelling) and grows like m^d after."""
    m, d = _whole(m, "the number of points m"), _whole(d, "the VC dimension d")
    return sum(math.comb(m, i) for i in range(d + 1))


def grid(size) -> np.ndarray:
    """The size × size integer grid {0, …, size-1}², shape (size², 2), row by row."""
    size = positive_int(size, "size")
    return np.array([(x, y) for y in range(size) for x in range(size)], dtype=float)


def cube(n) -> np.ndarray:
    """Every point of {0, 1}ⁿ, shape (2ⁿ, n), in binary counting order."""
    return (all_labelings(n) > 0).astype(float)
