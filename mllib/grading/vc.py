"""Hidden checks for the VC exercises (lecture 04).

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score), computes
the answers with mllib, and compares them with the student's function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mllib import vc as reference
from mllib.grading import Case, check_cases, seeded

_rng = seeded(20261204)


def interval_realizable(student: Callable) -> None:
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
        Case("a point listed twice with different labels", (np.array([0.0, 1.0, 1.0]),
                                                            np.array([1.0, 1.0, -1.0]))),
    ]
    check_cases(student, lambda x, y: reference.realizable(reference.INTERVALS, x, y), cases,
                name="interval_realizable")


@dataclass(frozen=True)
class _Realizability:
    """A realizability check handed to the student's ``shatters``: call it as f(points, labels)."""

    hclass: reference.HypothesisClass

    def __call__(self, points, labels) -> bool:
        return reference.realizable(self.hclass, points, labels)


def shattering(student: Callable) -> None:
    """Check ``shatters(is_realizable, points)`` with mllib's exact checks as ``is_realizable``."""
    rng = _rng(2)
    planes, boxes = _Realizability(reference.HALF_PLANES), _Realizability(reference.RECTANGLES)
    cases = [
        Case("half-planes and three points in general position", (planes, rng.normal(size=(3, 2)))),
        Case("half-planes and three collinear points",
             (planes, np.outer(rng.normal(size=3), [1.0, 2.0]))),
        Case("half-planes and four random points", (planes, rng.normal(size=(4, 2)))),
        Case("rectangles and a diamond of four points",
             (boxes, np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 2.0]]))),
        Case("rectangles and five points", (boxes, rng.normal(size=(5, 2)))),
        Case("intervals and two points", (_Realizability(reference.INTERVALS),
                                          rng.normal(size=2))),
        Case("a single point", (planes, rng.normal(size=(1, 2)))),
    ]
    check_cases(student, lambda check, points: reference.shatters(check.hclass, points), cases,
                name="shatters")


def rectangle_realizable(student: Callable) -> None:
    """Check ``rectangle_realizable(points, y)``."""
    rng = _rng(3)
    points = rng.integers(0, 6, size=(9, 2)).astype(float)
    labelings = np.where(rng.random((6, 9)) < 0.3, 1.0, -1.0)
    cases = [Case(f"nine grid points with a random labelling ({i + 1} of 6)", (points, labels))
             for i, labels in enumerate(labelings)]
    box = np.array([[0.0, 0.0], [3.0, 2.0], [1.0, 1.0], [3.0, 0.0]])
    cases += [
        Case("a negative point on the edge of the positives' bounding box",
             (box, np.array([1.0, 1.0, 1.0, -1.0]))),
        Case("a negative point strictly inside the positives' bounding box",
             (box, np.array([1.0, 1.0, -1.0, 1.0]))),
        Case("no positive point", (box, -np.ones(4))),
    ]
    check_cases(student, lambda p, y: reference.realizable(reference.RECTANGLES, p, y), cases,
                name="rectangle_realizable")


def sauer(student: Callable) -> None:
    """Check ``sauer_bound(m, d)``."""
    rng = _rng(4)
    m = int(rng.integers(12, 30))
    cases = [
        Case("m larger than d", (m, 3)),
        Case("m equal to d", (6, 6)),
        Case("d larger than m", (4, 7)),
        Case("d = 0", (m, 0)),
        Case("large m and d", (60, 20)),
    ]
    check_cases(student, reference.sauer_bound, cases, name="sauer_bound")


def unions(student: Callable) -> None:
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
             (np.array([0.0, 1.0, 1.0, 2.0]), np.array([1.0, -1.0, 1.0, 1.0]), 3)),
        Case("repeated points with the same label", (np.array([1.0, 0.0, 1.0, 2.0, 0.0]),
                                                     np.array([1.0, -1.0, 1.0, -1.0, -1.0]), 1)),
    ]
    check_cases(student, lambda x, y, k: reference.realizable(reference.unions_of_intervals(k), x,
                                                               y), cases,
                name="union_realizable")
