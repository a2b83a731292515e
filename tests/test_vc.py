"""Tests for mllib.vc: exact realizability, shattering, the VC search, growth and Sauer.

Oracles: the VC dimensions the CS446 slides (seed 001) state (half intervals 1, intervals 2,
half-spaces in the plane 3, rectangles 4), the classic configurations they draw, enumeration of
every hypothesis that matters on a point set, scipy's linear programming for separability,
Cover's count m² - m + 2 of half-plane labellings in general position, and Sauer's lemma.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from property_support import examples
from scipy.optimize import linprog

from mllib import pac, vc
from mllib.grading import ExerciseFailed, run_check
from mllib.grading import vc as check_vc

FAST = examples(60)

# --- The VC dimensions by brute force ------------------------------------------------------

# (class, pool, its VC dimension). The pools are the ones each class's ``pool`` note justifies:
# points 0..n-1 on the line, the n × n grid for rectangles (n = the size to rule out), a small
# grid for half-planes (Radon's theorem covers the rest), the whole cube for conjunctions.
CASES = [
    (vc.HALF_LINES, np.arange(4.0), 1),
    (vc.INTERVALS, np.arange(5.0), 2),
    (vc.HALF_PLANES, vc.grid(4), 3),
    (vc.RECTANGLES, vc.grid(5), 4),
    (vc.unions_of_intervals(2), np.arange(6.0), 4),
    (vc.unions_of_intervals(3), np.arange(8.0), 6),
    (vc.conjunctions(2), vc.cube(2), 2),
    (vc.conjunctions(3), vc.cube(3), 3),
    (vc.conjunctions(4), vc.cube(4), 4),
]


@pytest.mark.parametrize(("hclass", "pool", "dimension"), CASES, ids=lambda c: str(c)[:20])
def test_brute_force_finds_the_vc_dimension_with_a_witness(hclass, pool, dimension):
    search = vc.vc_dimension(hclass, pool)
    assert search.dimension == dimension
    assert search.complete  # a size with no shattered subset of the pool was reached
    assert search.shattered[-1] == 0 and len(search.shattered) == dimension + 1
    assert search.witness.shape == (dimension, hclass.dim)
    assert vc.shatters(hclass, search.witness)
    for labels in vc.all_labelings(dimension):  # every labelling of the witness, with its proof
        hypothesis = vc.realize(hclass, search.witness, labels)
        assert hypothesis.classify(search.witness).tolist() == labels.tolist()


@pytest.mark.parametrize(("hclass", "pool", "dimension"), CASES[:3], ids=lambda c: str(c)[:20])
def test_no_subset_of_the_next_size_is_shattered_checked_without_pruning(hclass, pool, dimension):
    # The search skips sets with a non-shattered subset; here every subset of size d + 1 of
    # the pool is checked directly.
    sets = itertools.combinations(range(len(pool)), dimension + 1)
    pool = pool.reshape(len(pool), -1)
    assert not any(vc.shatters(hclass, pool[list(s)]) for s in sets)


def test_no_five_points_are_shattered_by_rectangles_checked_independently():
    # Every 5-point set looks, to rectangles, like a 5-subset of the 5 × 5 rank grid. All
    # 53130 of them, each with all 32 labellings, checked at once with the bounding-box rule
    # written out here: a labelling is realizable iff the positives' box holds no negative.
    pool = vc.grid(5)
    sets = pool.astype(np.int8)[np.array(list(itertools.combinations(range(25), 5)))]
    positive = vc.all_labelings(5) > 0  # (32, 5); sets is (53130, 5, 2), small ints
    mask = positive[None, :, :, None]
    low = np.where(mask, sets[:, None], np.int8(99)).min(axis=2, keepdims=True)
    high = np.where(mask, sets[:, None], np.int8(-1)).max(axis=2, keepdims=True)
    inside = np.all((low <= sets[:, None]) & (sets[:, None] <= high), axis=3)  # (53130, 32, 5)
    realizable = ~np.any(inside & ~positive[None], axis=2)
    assert realizable.shape == (53130, 32)
    assert not np.any(np.all(realizable, axis=1))
    # ...while the same rule finds the shattered 4-sets the search reports.
    assert vc.vc_dimension(vc.RECTANGLES, pool).shattered[3] > 0


def test_search_stops_early_when_asked():
    search = vc.vc_dimension(vc.RECTANGLES, vc.grid(5), max_size=3)
    assert (search.dimension, search.complete) == (3, False)
    whole = vc.vc_dimension(vc.INTERVALS, [0.0, 1.0])  # the pool itself is shattered
    assert (whole.dimension, whole.complete) == (2, True)


def test_conjunction_vc_respects_the_finite_class_bound():
    # CS446: VC(H) <= log2|H|; for conjunctions plus the always-false one, |H| = 3^n + 1.
    for n in (2, 3, 4):
        assert vc.vc_dimension(vc.conjunctions(n), vc.cube(n)).dimension <= pac.finite_vc_bound(
            pac.conjunction_count(n) + 1)


# --- The slides' configurations ----------------------------------------------------------


def test_half_lines_cannot_shatter_two_points():
    # CS446: label the left point - and the right one +; no ray (-∞, a) does that.
    assert not vc.realizable(vc.HALF_LINES, [1.0, 2.0], [-1, 1])
    assert vc.realizable(vc.HALF_LINES, [1.0, 2.0], [1, -1])


def test_intervals_cannot_shatter_three_points():
    assert vc.count_labelings(vc.INTERVALS, [1.0, 2.0, 3.0]) == 7
    assert not vc.realizable(vc.INTERVALS, [1.0, 2.0, 3.0], [1, -1, 1])


def test_three_collinear_points_are_not_shattered_by_half_planes():
    collinear = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert not vc.shatters(vc.HALF_PLANES, collinear)
    assert not vc.realizable(vc.HALF_PLANES, collinear, [1, -1, 1])
    assert not vc.realizable(vc.HALF_PLANES, collinear, [-1, 1, -1])
    assert vc.count_labelings(vc.HALF_PLANES, collinear) == 6
    assert vc.shatters(vc.HALF_PLANES, [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])


def test_xor_fails_exactly_on_its_two_labellings():
    square = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    failing = [labels.tolist() for labels in vc.all_labelings(4)
               if not vc.realizable(vc.HALF_PLANES, square, labels)]
    assert failing == [[-1, -1, 1, 1], [1, 1, -1, -1]]


def test_rectangles_shatter_the_diamond_but_not_five_points():
    diamond = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 2.0]])
    assert vc.shatters(vc.RECTANGLES, diamond)
    # Add a centre point: the four extremes positive, the centre negative, is impossible
    # (CS446: the box around the extreme points holds the fifth).
    five = np.vstack([diamond, [[1.0, 1.0]]])
    assert not vc.realizable(vc.RECTANGLES, five, [1, 1, 1, 1, -1])
    # The square's corners are not shattered: the diagonal pair's box holds the others.
    corners = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    assert not vc.realizable(vc.RECTANGLES, corners, [1, 1, -1, -1])


def test_half_plane_check_is_exact_for_nearly_collinear_points():
    # The middle point 2^-60 above the line through the others: separable, and no tolerance
    # hides it; exactly on the line: not separable.
    for offset, expected in ((2.0**-60, True), (0.0, False), (-1e-300, True)):
        points = np.array([[0.0, 0.0], [1.0, offset], [2.0, 0.0]])
        witness = vc.realize(vc.HALF_PLANES, points, [1, -1, 1])
        assert (witness is not None) == expected
        if expected:
            assert witness.classify(points).tolist() == [1, -1, 1]


def test_half_plane_witness_reproduces_a_thin_labelling_far_from_the_origin():
    # Review (issue 36): the exact orientation of these three points is 1.8e-13, so [1, -1, 1]
    # is realizable, but the line rounded to floats labelled them [-1, 1, 1].
    points = np.array([[-931.8721400920535, 1645.1994201379368],
                       [-933.2644821675308, 1644.463371590747],
                       [-933.7686158407741, 1644.196866064328]])
    witness = vc.realize(vc.HALF_PLANES, points, [1, -1, 1])
    assert witness.classify(points).tolist() == [1, -1, 1]


@examples(200)
@given(corner=arrays(np.float64, 2, elements=st.floats(-2000, 2000)),
       angle=st.floats(0, 2 * math.pi),
       steps=arrays(np.float64, 3, elements=st.floats(-3, 3)),
       wobble=arrays(np.float64, 3, elements=st.floats(-1e-12, 1e-12)),
       labels=arrays(np.float64, 3, elements=st.sampled_from([-1.0, 1.0])))
def test_every_realizable_labelling_of_nearly_collinear_points_has_a_working_witness(
        corner, angle, steps, wobble, labels):
    # Three points within about 1e-12 of a line (a few ulps at coordinates up to 2000): the
    # thin-margin case, where a line rounded to floats cannot be trusted. realize promises a
    # witness that reproduces the labels whenever the labelling is realizable.
    direction = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    points = corner + steps[:, None] * direction + wobble[:, None] * normal
    witness = vc.realize(vc.HALF_PLANES, points, labels)
    if witness is not None:
        assert witness.classify(points).tolist() == labels.tolist()


def test_half_plane_check_handles_huge_and_tiny_coordinates():
    points = np.array([[0.0, 0.0], [1e200, 1e200], [0.1, 0.3]])
    for labels in vc.all_labelings(3):
        witness = vc.realize(vc.HALF_PLANES, points, labels)
        assert witness is not None
        assert witness.classify(points).tolist() == labels.tolist()


def test_repeated_points_can_never_be_split():
    for hclass, point in ((vc.INTERVALS, [2.0]), (vc.HALF_PLANES, [1.0, 1.0]),
                          (vc.RECTANGLES, [1.0, 1.0]), (vc.HALF_LINES, [0.5])):
        twice = np.array([point, point])
        assert not vc.realizable(hclass, twice, [1, -1])
        assert vc.realizable(hclass, twice, [1, 1])


# --- Independent oracles on random point sets ---------------------------------------------


def lp_separable(points: np.ndarray, labels: np.ndarray) -> bool:
    """scipy's LP: is there (w, b) with yᵢ(w·xᵢ + b) >= 1 for all i?"""
    A = -labels[:, None] * np.hstack([points, np.ones((len(points), 1))])
    result = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(len(points)), bounds=[(None, None)] * 3,
                     method="highs")
    return result.status == 0


def enumerated(hclass, points: np.ndarray, k: int = 1) -> set[tuple[float, ...]]:
    """Every labelling some hypothesis gives, trying all whose boundaries sit at the points' own
    coordinates (moving a boundary between two points changes no label)."""
    xs = np.unique(points[:, 0])
    if hclass is vc.HALF_LINES:
        candidates = [vc.HalfLine(a) for a in [*xs, math.inf]]
    elif hclass is vc.RECTANGLES:
        ys = np.unique(points[:, 1])
        candidates = [vc.Rectangle(a, b, c, d) for a, b in itertools.combinations_with_replacement(
            xs, 2) for c, d in itertools.combinations_with_replacement(ys, 2)]
        candidates.append(vc.Rectangle(math.inf, -math.inf, math.inf, -math.inf))
    else:  # unions of at most k intervals, none for the all-negative labelling
        intervals = list(itertools.combinations_with_replacement(xs, 2))
        candidates = [vc.Intervals(tuple(chosen)) for size in range(k + 1)
                      for chosen in itertools.combinations(intervals, size)]
    return {tuple(c.classify(points).tolist()) for c in candidates}


small_ints = st.integers(-4, 4).map(float)


def point_sets(dim: int, max_n: int = 6):
    return st.integers(1, max_n).flatmap(
        lambda n: arrays(np.float64, (n, dim), elements=small_ints))


def check_every_labelling(hclass, points, expected: set[tuple[float, ...]]):
    """mllib's realizable labellings are exactly ``expected``, each with a working witness."""
    found = set()
    for labels in vc.all_labelings(len(points)):
        witness = vc.realize(hclass, points, labels)
        if witness is not None:
            assert witness.classify(points).tolist() == labels.tolist()
            found.add(tuple(labels.tolist()))
    assert found == expected
    assert vc.count_labelings(hclass, points) == len(expected)


@examples(30)
@given(points=point_sets(2, max_n=5))
def test_half_plane_check_agrees_with_scipy_linprog(points):
    expected = {tuple(labels.tolist()) for labels in vc.all_labelings(len(points))
                if lp_separable(points, labels)}
    check_every_labelling(vc.HALF_PLANES, points, expected)


@FAST
@given(points=point_sets(2))
def test_rectangle_check_agrees_with_enumeration(points):
    check_every_labelling(vc.RECTANGLES, points, enumerated(vc.RECTANGLES, points))


@pytest.mark.parametrize("k", [1, 2])
@FAST
@given(points=point_sets(1))
def test_interval_checks_agree_with_enumeration(k, points):
    hclass = vc.INTERVALS if k == 1 else vc.unions_of_intervals(2)
    check_every_labelling(hclass, points, enumerated(hclass, points, k))


@FAST
@given(points=point_sets(1))
def test_half_line_check_agrees_with_enumeration(points):
    check_every_labelling(vc.HALF_LINES, points, enumerated(vc.HALF_LINES, points))


@FAST
@given(points=st.integers(1, 6).flatmap(lambda n: arrays(np.float64, (n, 3),
                                                          elements=st.sampled_from([0.0, 1.0]))))
def test_conjunction_check_agrees_with_enumeration(points):
    expected = {(-1.0,) * len(points)}  # the always-false conjunction
    for choice in itertools.product([0, 1, 2], repeat=3):  # xᵢ, ¬xᵢ or absent
        c = pac.make_conjunction(3, [i for i in range(3) if choice[i] == 0],
                                 [i for i in range(3) if choice[i] == 1])
        expected.add(tuple(pac.predict_conjunction(c, points).tolist()))
    check_every_labelling(vc.conjunctions(3), points, expected)


# --- Growth function and Sauer's lemma -------------------------------------------------------


@pytest.mark.parametrize("m", range(1, 9))
def test_growth_functions_on_the_line_meet_sauers_bound(m):
    line = np.arange(float(m))
    assert vc.growth_function(vc.HALF_LINES, m, line) == m + 1 == vc.sauer_bound(m, 1)
    assert vc.growth_function(vc.INTERVALS, m, line) == m * (m + 1) // 2 + 1 == vc.sauer_bound(
        m, 2)
    assert vc.growth_function(vc.unions_of_intervals(2), m, line) == vc.sauer_bound(m, 4)


@pytest.mark.parametrize("m", range(1, 9))
def test_half_planes_in_general_position_give_covers_count(m):
    parabola = np.array([[i, i * i] for i in range(m)], dtype=float)  # no three collinear
    count = vc.growth_function(vc.HALF_PLANES, m, parabola)
    assert count == m * m - m + 2 <= vc.sauer_bound(m, 3)
    assert count < 2**m or m <= 3


def test_rectangles_growth_is_two_to_the_m_up_to_four():
    for m in range(1, 5):
        assert vc.growth_function(vc.RECTANGLES, m, vc.grid(m)) == 2**m


def test_sauer_bound_by_hand():
    assert vc.sauer_bound(5, 2) == 1 + 5 + 10
    assert vc.sauer_bound(3, 3) == 8
    assert vc.sauer_bound(3, 5) == 8
    assert vc.sauer_bound(4, 0) == 1
    assert vc.sauer_bound(0, 2) == vc.sauer_bound(0, 0) == 1  # no points: one (empty) labelling


@FAST
@given(points=point_sets(2, max_n=7))
def test_no_point_set_beats_sauers_lemma(points):
    assert vc.count_labelings(vc.HALF_PLANES, points) <= vc.sauer_bound(len(points), 3)
    assert vc.count_labelings(vc.RECTANGLES, points) <= vc.sauer_bound(len(points), 4)


# --- Bad input --------------------------------------------------------------------------------


def test_points_of_the_wrong_dimension_are_refused():
    with pytest.raises(ValueError, match=r"half-planes label points in 2 dimension\(s\)"):
        vc.shatters(vc.HALF_PLANES, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"intervals label points in 1 dimension\(s\)"):
        vc.realizable(vc.INTERVALS, np.zeros((3, 2)), [1, 1, 1])
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        vc.shatters(vc.conjunctions(4), vc.cube(3))


def test_other_bad_input_is_refused():
    with pytest.raises(ValueError, match="labels must be -1 or \\+1"):
        vc.realize(vc.INTERVALS, [1.0, 2.0], [0, 1])
    with pytest.raises(ValueError, match="2 labels"):
        vc.realize(vc.INTERVALS, [1.0, 2.0, 3.0], [1, 1])
    with pytest.raises(ValueError, match="NaN"):
        vc.shatters(vc.RECTANGLES, [[0.0, np.nan]])
    with pytest.raises(ValueError, match="boolean"):
        vc.shatters(vc.conjunctions(2), [[0.0, 0.5]])
    with pytest.raises(ValueError, match="repeated points"):
        vc.vc_dimension(vc.INTERVALS, [1.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="cannot hold a set of 4"):
        vc.growth_function(vc.INTERVALS, 4, [1.0, 2.0])
    with pytest.raises(ValueError, match="VC dimension d"):
        vc.sauer_bound(5, -1)
    with pytest.raises(ValueError, match="k must be"):
        vc.unions_of_intervals(0)


# --- The hidden-test checkers (mllib.grading.vc) ---------------------------------------------
# Right answers written as a student would (plain numpy) pass; typical slips fail with a hint
# that names the situation but shows no computed value.


def interval_ok(x, y):
    x, y = np.asarray(x, float), np.asarray(y)
    positives = x[y == 1]
    if positives.size == 0:
        return True
    inside = (x >= positives.min()) & (x <= positives.max())
    return not np.any(inside & (y == -1))


def interval_assumes_sorted(x, y):  # looks for "+ ... - ... +" in the given order
    labels = list(np.asarray(y))
    first = labels.index(1) if 1 in labels else 0
    last = len(labels) - labels[::-1].index(1) if 1 in labels else 0
    return -1 not in labels[first:last]


def shatters_ok(is_realizable, points):
    return all(is_realizable(points, np.array(labels))
               for labels in itertools.product([-1, 1], repeat=len(points)))


def shatters_by_size(is_realizable, points):  # "VC = 3, so any 3 points are shattered"
    return len(points) <= 3


def rectangle_ok(points, y):
    positives = points[y == 1]
    if len(positives) == 0:
        return True
    inside = np.all((points >= positives.min(axis=0)) & (points <= positives.max(axis=0)), axis=1)
    return not np.any(inside & (y == -1))


def rectangle_open(points, y):  # boundary not included
    positives = points[y == 1]
    if len(positives) == 0:
        return True
    inside = np.all((points > positives.min(axis=0)) & (points < positives.max(axis=0)), axis=1)
    return not np.any(inside & (y == -1))


def unions_ok(x, y, k):
    x, y = np.asarray(x, float), np.asarray(y)
    labels = []
    for value in np.unique(x):
        here = set(y[x == value].tolist())
        if len(here) > 1:
            return False
        labels.append(here.pop())
    return sum(1 for i, v in enumerate(labels) if v == 1 and (i == 0 or labels[i - 1] == -1)) <= k


def unions_ignore_repeats(x, y, k):  # sorts, but lets a repeated point have both labels
    labels = np.asarray(y)[np.argsort(x, kind="stable")]
    return sum(1 for i, v in enumerate(labels) if v == 1 and (i == 0 or labels[i - 1] == -1)) <= k


def sauer_ok(m, d):
    return sum(math.comb(m, i) for i in range(d + 1))


def sauer_off_by_one(m, d):
    return sum(math.comb(m, i) for i in range(d))


def sauer_no_points_no_labelling(m, d):  # "no points, nothing to label": 0 at m = 0
    return sum(math.comb(m, i) for i in range(d + 1)) if m > 0 else 0


def rectangle_first_copy_only(points, y):  # keeps the first label of a repeated point
    seen = {}
    for point, label in zip(map(tuple, points), y, strict=True):
        seen.setdefault(point, label)
    unique = np.array(list(seen))
    return rectangle_ok(unique, np.array(list(seen.values())))


@pytest.mark.parametrize(("checker", "answer"), [
    (check_vc.interval_realizable, interval_ok), (check_vc.shattering, shatters_ok),
    (check_vc.rectangle_realizable, rectangle_ok), (check_vc.unions, unions_ok),
    (check_vc.sauer, sauer_ok)])
def test_checkers_pass_right_answers(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize(("checker", "answer", "hint"), [
    (check_vc.interval_realizable, interval_assumes_sorted, "unsorted"),
    (check_vc.shattering, shatters_by_size, "three collinear points"),
    (check_vc.rectangle_realizable, rectangle_open, "random labelling"),
    (check_vc.unions, unions_ignore_repeats, "listed twice"),
    (check_vc.sauer, sauer_off_by_one, "m larger than d"),
    (check_vc.sauer, sauer_no_points_no_labelling, "m = 0"),
    (check_vc.rectangle_realizable, rectangle_first_copy_only, "nine grid points"),  # repeats
    (check_vc.interval_realizable, lambda x, y: x, "unsorted"),
])
def test_checkers_fail_slips_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


# --- Witnesses are the widest-margin hypotheses -------------------------------------------------


def test_half_plane_witness_is_the_hard_margin_svm():
    # Independent oracle: scikit-learn's linear SVM with a huge C is the hard-margin SVM; its
    # geometric margin 1/‖w‖ must equal the witness's smallest y·(w·x + b) with ‖w‖ = 1.
    svm = pytest.importorskip("sklearn.svm")
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 20:
        points = rng.integers(-5, 6, size=(5, 2)).astype(float)
        labels = rng.choice([-1.0, 1.0], size=5)
        witness = vc.realize(vc.HALF_PLANES, points, labels)
        if witness is None or np.all(labels == labels[0]):
            continue
        fit = svm.SVC(kernel="linear", C=1e8, tol=1e-10).fit(points, labels)
        margin = 1 / np.linalg.norm(fit.coef_[0])
        assert np.linalg.norm(witness.w) == pytest.approx(1.0)
        # tolerance: libsvm stops at tol, far below the 1e-6 asked here on margins >= 0.07
        assert np.min(labels * (points @ witness.w + witness.b)) == pytest.approx(margin,
                                                                                 rel=1e-6)
        checked += 1


def test_line_and_rectangle_witnesses_sit_midway_between_the_classes():
    points = np.array([[1.0], [2.0], [4.0], [7.0]])
    assert vc.realize(vc.HALF_LINES, points, [1, 1, -1, -1]) == vc.HalfLine(3.0)
    assert vc.realize(vc.HALF_LINES, points, [-1, -1, -1, -1]) == vc.HalfLine(-math.inf)
    assert vc.realize(vc.HALF_LINES, points, [1, 1, 1, 1]) == vc.HalfLine(math.inf)
    assert vc.realize(vc.INTERVALS, points, [-1, 1, 1, -1]) == vc.Intervals(((1.5, 5.5),))
    assert vc.realize(vc.INTERVALS, points, [1, 1, -1, -1]) == vc.Intervals(((-math.inf, 3.0),))
    assert vc.realize(vc.unions_of_intervals(2), points, [1, -1, -1, 1]) == vc.Intervals(
        ((-math.inf, 1.5), (5.5, math.inf)))
    diamond = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [1.0, 2.0], [1.0, 1.0]])
    # The positives' box [0, 2] × [1, 1] is 1 (max norm) from each negative: widened by 1/2.
    box = vc.realize(vc.RECTANGLES, diamond, [-1, 1, 1, -1, 1])
    assert box == vc.Rectangle(-0.5, 2.5, 0.5, 1.5)


def test_widest_margin_witnesses_fall_back_when_the_midpoint_rounds_onto_a_point():
    # Adjacent floats have no float between them: the cut falls back to the point it must keep.
    low, high = 1.0, np.nextafter(1.0, 2.0)
    points = np.array([[low], [high]])
    assert vc.realize(vc.HALF_LINES, points, [1, -1]).classify(points).tolist() == [1, -1]
    assert vc.realize(vc.INTERVALS, points, [1, -1]).classify(points).tolist() == [1, -1]
    assert vc.realize(vc.INTERVALS, points, [-1, 1]).classify(points).tolist() == [-1, 1]
    # The box widened by half an ulp would round onto the negative: the bare bounding box.
    odd = np.nextafter(1.0, 2.0)  # 1 + ulp: the tie rounds up to the even 1 + 2 ulp
    box_points = np.array([[odd, 0.0], [np.nextafter(odd, 2.0), 0.0]])
    box = vc.realize(vc.RECTANGLES, box_points, [1, -1])
    assert box == vc.Rectangle(odd, odd, 0.0, 0.0)
