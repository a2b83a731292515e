"""Hidden checks for the VC exercises (lecture 04).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

import itertools

import numpy as np

from mllib import vc as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, unmet, whole
from mllib.grading.wire import Lookup

# mllib.vc stays importable: the visible tests use its exact checks as oracles for
# `shatters`. Calling it from an answer is flagged by the scan (grader/pipeline/hostile.py).
REFERENCE = ()
_rng = seeded(20261204)
# Exercise 5's statement gives sauer_bound(0, d) for every d.
STATED_EMPTY = r"At $m = 0$ the sum is $\binom{0}{0} = 1$"


def _labelled_points(points, y, dimensions: int) -> str | None:
    """At least one point, on the line (``dimensions`` 1, shape (n,)) or in the plane (2,
    shape (n, 2)), each with a label ±1 (Exercises 1, 3 and 4 say "at least one point")."""
    shape = np.shape(points)
    return unmet(("one label per point, on the line (n,) or in the plane (n, 2)",
                  len(shape) == dimensions and shape[1:] == (2,) * (dimensions - 1)
                  and np.shape(y) == shape[:1]),
                 ("there is at least one point", len(points) >= 1),
                 ("the points are finite numbers", finite(points)),
                 ("the labels are -1 and +1", labels(y)))


def _moved(rng: np.random.Generator, points) -> np.ndarray:
    """``points`` scaled and shifted, per coordinate, by numbers of the student's own: each
    coordinate's order and ties stay, so intervals and axis-aligned rectangles realize the same
    labellings."""
    points = np.asarray(points, dtype=float)
    shape = points.shape[1:]
    return rng.uniform(-5, 5, shape).round(2) + rng.uniform(0.5, 3, shape).round(2) * points


def interval_realizable() -> Check:
    """Check ``interval_realizable(x, y)`` against the exact check for intervals."""
    rng = _rng(1)
    x = rng.permutation(np.arange(8.0)) * 1.5 - 3
    order = np.argsort(x)
    one_run = np.full(8, -1.0)
    one_run[order[2:5]] = 1
    two_runs = np.full(8, -1.0)
    two_runs[order[[1, 2, 5]]] = 1
    lone = np.full(8, -1.0)
    lone[order[6]] = 1
    cases = [
        Case("unsorted points whose positives form one run", (x, one_run)),
        Case("unsorted points whose positives form two runs", (x, two_runs)),
        Case("a single positive point", (x, lone)),
        Case("no positive point at all", (x, np.full(8, -1.0))),
        Case("every point positive", (x, np.ones(8))),
        Case("a point listed twice with different labels", (_moved(rng, [0.0, 1.0, 1.0]),
                                                            np.array([1.0, 1.0, -1.0]))),
    ]
    return Check("interval_realizable", cases,
                 lambda x, y: reference.realizable(reference.INTERVALS, x, y),
                 domain=lambda x, y: _labelled_points(x, y, 1))


def _oracle(hclass: reference.HypothesisClass, points: np.ndarray) -> Lookup:
    """``is_realizable(points, labels)`` for every labelling of ``points``, as a table: the
    student's code gets the answers of mllib's exact check without the check itself."""
    labelings = itertools.product([-1.0, 1.0], repeat=len(points))
    return Lookup([((points, np.array(labels)), reference.realizable(hclass, points, labels))
                   for labels in labelings], what="is_realizable")


def _all_realizable(is_realizable: Lookup, points: np.ndarray) -> bool:
    """Shattered: the table (which lists every labelling of ``points``) says yes to each."""
    return all(realizable for _, realizable in is_realizable.entries)


def shattering() -> Check:
    """Check ``shatters(is_realizable, points)``, with mllib's exact checks as tables."""
    rng = _rng(2)
    planes, boxes = reference.HALF_PLANES, reference.RECTANGLES
    cases = [(planes, rng.normal(size=(3, 2)), "half-planes and three points in general position"),
             (planes, np.outer(rng.normal(size=3), [1.0, 2.0]),
              "half-planes and three collinear points"),
             (planes, rng.normal(size=(4, 2)), "half-planes and four random points"),
             (boxes, _moved(rng, [[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 2.0]]),
              "rectangles and a diamond of four points"),
             (boxes, rng.normal(size=(5, 2)), "rectangles and five points"),
             (reference.INTERVALS, rng.normal(size=2), "intervals and two points"),
             (planes, rng.normal(size=(1, 2)), "a single point")]
    return Check("shatters", [Case(hint, (_oracle(hclass, points), points))
                              for hclass, points, hint in cases], _all_realizable,
                 domain=_shattering_domain)


def _shattering_domain(is_realizable: Lookup, points) -> str | None:
    """At least one point, and a function that answers every labelling of these points."""
    n = len(points)
    asked = {tuple(np.asarray(labels_, dtype=float)) for (known, labels_), _ in
             is_realizable.entries if np.array_equal(known, points)}
    return unmet(("points holds at least one point", n >= 1),
                 ("is_realizable answers every labelling of the points",
                  asked == set(itertools.product([-1.0, 1.0], repeat=n))))


def rectangle_realizable() -> Check:
    """Check ``rectangle_realizable(points, y)``."""
    rng = _rng(3)
    points = rng.integers(0, 6, size=(9, 2)).astype(float)
    labelings = np.where(rng.random((6, 9)) < 0.3, 1.0, -1.0)
    cases = [Case(f"nine grid points with a random labelling ({i + 1} of 6)", (points, labels))
             for i, labels in enumerate(labelings)]
    box = _moved(rng, [[0.0, 0.0], [3.0, 2.0], [1.0, 1.0], [3.0, 0.0]])
    cases += [
        Case("a negative point on the edge of the positives' bounding box",
             (box, np.array([1.0, 1.0, 1.0, -1.0]))),
        Case("a negative point strictly inside the positives' bounding box",
             (box, np.array([1.0, 1.0, -1.0, 1.0]))),
        Case("no positive point", (box, -np.ones(4))),
        Case("a point listed twice with different labels",
             (np.vstack([box, box[:1]]), np.array([1.0, 1.0, -1.0, -1.0, -1.0]))),
        Case("a point listed twice with the same label",
             (np.vstack([box, box[1:2]]), np.array([-1.0, 1.0, -1.0, 1.0, 1.0]))),
    ]
    return Check("rectangle_realizable", cases,
                 lambda p, y: reference.realizable(reference.RECTANGLES, p, y),
                 domain=lambda points, y: _labelled_points(points, y, 2))


def sauer() -> Check:
    """Check ``sauer_bound(m, d)``."""
    rng = _rng(4)
    m, small = int(rng.integers(12, 30)), int(rng.integers(1, 8))
    cases = [
        Case("m larger than d", (m, 3)),
        Case("m equal to d", (int(rng.integers(2, 12)),) * 2),
        Case("d larger than m", (small, small + int(rng.integers(1, 6)))),
        Case("d = 0", (m, 0)),
        Case("large m and d", (int(rng.integers(50, 80)), int(rng.integers(15, 26)))),
        Case("m = 0: the empty set has one labelling", (0, int(rng.integers(1, 10))),
             stated=STATED_EMPTY),
        Case("m = 0 and d = 0", (0, 0), stated=STATED_EMPTY),
    ]
    return Check("sauer_bound", cases, reference.sauer_bound,
                 domain=lambda m, d: unmet(("m and d are whole numbers >= 0",
                                            whole(m) and whole(d))))


def unions() -> Check:
    """Check ``union_realizable(x, y, k)`` against the exact check for unions of k intervals."""
    rng = _rng(5)
    x = rng.permutation(np.arange(10.0)) - 4.5
    order = np.argsort(x)

    def runs(*blocks):
        labels = np.full(10, -1.0)
        for block in blocks:
            labels[order[list(block)]] = 1
        return labels

    cases = [
        Case("unsorted points whose positives form two runs, k = 2", (x, runs([1, 2], [6]), 2)),
        Case("unsorted points whose positives form three runs, k = 2",
             (x, runs([0], [3, 4], [8, 9]), 2)),
        Case("three runs and k = 3", (x, runs([0], [3, 4], [8, 9]), 3)),
        Case("one run and k = 1", (x, runs([4, 5, 6]), 1)),
        Case("no positive point", (x, -np.ones(10), 1)),
        Case("alternating labels and a large k", (x, runs(*[[i] for i in range(0, 10, 2)]), 4)),
        Case("a point listed twice with different labels",
             (_moved(rng, [0.0, 1.0, 1.0, 2.0]), np.array([1.0, -1.0, 1.0, 1.0]), 3)),
        Case("repeated points with the same label", (_moved(rng, [1.0, 0.0, 1.0, 2.0, 0.0]),
                                                     np.array([1.0, -1.0, 1.0, -1.0, -1.0]), 1)),
    ]
    return Check("union_realizable", cases,
                 lambda x, y, k: reference.realizable(reference.unions_of_intervals(k), x, y),
                 domain=lambda x, y, k: _labelled_points(x, y, 1) or unmet(
                     ("k is a whole number >= 1", whole(k, 1))))
