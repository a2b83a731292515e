"""Tests for mllib.svm (its exercises' hidden checkers: tests/test_checkers_svm.py).

Every expected value comes from an oracle that does not use mllib: a number printed in MMDS
ch. 12 (seed 003: Example 12.8, Figs. 12.19-12.20, typed in as literals), scikit-learn's SVC,
scipy's optimisers on the primal or dual QP, a plain loop written here from the CS446 slide
"SGD for SVM" (seed 001), or an inequality from CS578 L2 (seed 002: LOOCV <= #SV/n).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from scipy.optimize import minimize
from sklearn.svm import SVC

from mllib import svm
from mllib.data import noisy, separable

# MMDS Fig. 12.18, typed from the book in the order of Fig. 12.19's six conditions.
FIG_12_18_X = [[1, 4], [2, 2], [3, 4], [1, 1], [2, 1], [3, 1]]
FIG_12_18_Y = [+1, +1, +1, -1, -1, -1]

# MMDS Fig. 12.20 as printed: (u, v), b, bad points, ∂/∂u, ∂/∂v, ∂/∂b. Row (6) prints no
# derivatives. Rows (4) and (6) print "xxxxxxx", seven x's for six points: a misprint for
# "xxxxxx" (every condition fails, as the text under the table says).
FIG_12_20 = [
    ((0.000, 1.000), -2.000, "oxoooo", (-0.200, 0.800, -2.100)),
    ((0.040, 0.840), -1.580, "oxoxxx", (0.440, 0.940, -1.380)),
    ((-0.048, 0.652), -1.304, "oxoxxx", (0.352, 0.752, -1.104)),
    ((-0.118, 0.502), -1.083, "xxxxxx", (-0.118, -0.198, -1.083)),
    ((-0.094, 0.542), -0.866, "oxoxxx", (0.306, 0.642, -0.666)),
    ((-0.155, 0.414), -0.733, "xxxxxx", None),
]
PRINTED = 0.0005 + 1e-9  # a value printed to 3 decimals is within half a unit of the last digit

FAST = examples(25)


def book_run(iterations=5):
    return svm.gradient_descent(FIG_12_18_X, FIG_12_18_Y, C=0.1, eta=0.2, w0=[0, 1], b0=-2,
                                iterations=iterations)


def row_values(step):
    return [*step.w, step.b]


# --- MMDS Example 12.9 -----------------------------------------------------------------------


@pytest.mark.parametrize("row", range(1, 7))
def test_reproduces_mmds_fig_12_20_row(row):
    """Rows (1)-(4) agree to the printed 3 decimals. Rows (5)-(6) agree within 0.002, not 0.0005:
    the book rounds w and b to 3 decimals on every row and continues from the rounded values
    (test_rounding_every_row_reproduces_the_book_to_the_last_digit shows this), while mllib
    carries full precision, so the two drift apart by up to 0.001 by row (5)."""
    w, b, pattern, derivatives = FIG_12_20[row - 1]
    step = book_run().history[row - 1]
    tolerance = PRINTED if row <= 4 else 0.002
    np.testing.assert_allclose(row_values(step), [*w, b], rtol=0, atol=tolerance)
    assert step.pattern == pattern
    if derivatives is not None:
        np.testing.assert_allclose(step.gradient, derivatives, rtol=0, atol=tolerance)


def test_rounding_every_row_reproduces_the_book_to_the_last_digit():
    w, b = [0.0, 1.0], -2.0
    for printed_w, printed_b, pattern, derivatives in FIG_12_20:
        np.testing.assert_allclose([*w, b], [*printed_w, printed_b], rtol=0, atol=PRINTED)
        if derivatives is None:
            break
        run = svm.gradient_descent(FIG_12_18_X, FIG_12_18_Y, C=0.1, eta=0.2, w0=w, b0=b,
                                   iterations=1)
        assert run.history[0].pattern == pattern
        np.testing.assert_allclose(run.history[0].gradient, derivatives, rtol=0, atol=PRINTED)
        w, b = list(np.round(run.w, 3)), round(run.b, 3)


def test_row_1_worked_in_the_text():
    """MMDS: the negatives lie exactly on their margin (u + v + b = -1), which is not bad, and
    ∂f/∂b = -2 + (1/10)(-1) = -2.1 includes b itself: eq. 12.6 regularises the bias."""
    X, y = np.array(FIG_12_18_X, float), np.array(FIG_12_18_Y, float)
    np.testing.assert_array_equal(svm.margins([0, 1], -2, X, y), [2, 0, 2, 1, 1, 1])
    np.testing.assert_allclose(svm.gradient([0, 1], -2, X, y, 0.1), [-0.2, 0.8, -2.1])
    np.testing.assert_allclose(svm.gradient([0, 1], -2, X, y, 0.1, regularize_bias=False),
                               [-0.2, 0.8, -0.1])
    assert svm.objective([0, 1], -2, X, y, 0.1) == pytest.approx(0.5 + 0.1 * 1)
    assert book_run().history[0].objective == pytest.approx(0.5 + 0.1 + 0.5 * 4)


def test_data_helpers_match_the_book():
    X, y = svm.mmds_fig_12_18()
    np.testing.assert_array_equal(X, FIG_12_18_X)
    np.testing.assert_array_equal(y, FIG_12_18_Y)
    X, y = svm.mmds_example_12_8()
    np.testing.assert_array_equal(X, [[1, 2], [2, 1], [3, 4], [4, 3]])
    np.testing.assert_array_equal(y, [1, -1, 1, -1])


def test_mmds_run_continued_settles_at_the_exact_optimum():
    """Continued past Fig. 12.20 (Exercise 12.3.1), the run keeps the pattern oxxxxx from row (7)
    on and converges to the optimum of eq. 12.4 + b²/2 with C = 0.1: w = [-0.1, 0.3], b = -0.1,
    where (1, 4) is exactly on its margin line and the other five points are inside the margin
    (MMDS's remark on C = 0.1); (2, 1) even lies on the separator and (1, 1) on the wrong side."""
    run = book_run(300)
    assert {step.pattern for step in run.history[6:]} == {"oxxxxx"}
    best = svm.solve(FIG_12_18_X, FIG_12_18_Y, C=0.1, regularize_bias=True)
    np.testing.assert_allclose([*best.w, best.b], [-0.1, 0.3, -0.1], atol=1e-12)
    np.testing.assert_allclose([*run.w, run.b], [-0.1, 0.3, -0.1], atol=1e-12)
    np.testing.assert_allclose(svm.margins(best.w, best.b, FIG_12_18_X, FIG_12_18_Y),
                               [1.0, 0.3, 0.8, -0.1, 0.0, 0.1], atol=1e-12)


# --- MMDS Example 12.8 and the exact solver -------------------------------------------------


@pytest.mark.parametrize("regularize_bias", [False, True])
def test_solves_mmds_example_12_8_exactly(regularize_bias):
    X = [[1, 2], [2, 1], [3, 4], [4, 3]]
    y = [+1, -1, +1, -1]
    sol = svm.solve(X, y, regularize_bias=regularize_bias)
    np.testing.assert_allclose(sol.w, [-1, 1], rtol=0, atol=1e-12)
    assert sol.b == pytest.approx(0, abs=1e-12)
    np.testing.assert_array_equal(sol.support, [0, 1, 2, 3])  # all four are support vectors
    assert sol.margin == pytest.approx(1 / np.sqrt(2), rel=1e-12)
    assert sol.exact


def test_exact_is_false_only_as_solves_docstring_says():
    # Review r9 of lecture 02: the docstring said "more points on the margin than dimensions
    # plus one", but Example 12.8 at C = 1 has four (> 2 + 1) and is solved exactly, while the
    # eight points (i, ±1), i = 0..3, exceed 2(d + 1) = 6 and get exact=False, with a right
    # answer w = [0, 1], b = 0 (each point's weight is 1/8 < C, checked against the KKT below).
    X8, y8 = svm.mmds_example_12_8()
    sol = svm.solve(X8, y8, C=1.0)
    assert sol.exact and np.sum(np.isclose(svm.margins(sol.w, sol.b, X8, y8), 1)) == 4
    X = np.array([[i, s] for s in (1.0, -1.0) for i in range(4)])
    y = np.sign(X[:, 1])
    sol = svm.solve(X, y, C=1.0)
    assert not sol.exact
    np.testing.assert_allclose(sol.w, [0, 1], atol=1e-6)  # within C·n·h/2 of the optimum
    assert sol.b == pytest.approx(0, abs=1e-6)
    # KKT of the answer: α = 1/8 for all eight gives Σαᵢyᵢxᵢ = [0, 1] and Σαᵢyᵢ = 0
    np.testing.assert_allclose((np.full(8, 1 / 8) * y) @ X, [0, 1], atol=1e-15)
    assert "more than\n    2(d + 1) of them" in svm.solve.__doc__


@pytest.mark.parametrize(("scale", "C"), [(1e6, 1e4), (1e6, 1e6), (1e7, 1e2), (1e7, 1e4),
                                          (1e7, 1e6)])
def test_large_features_at_large_c_give_the_hard_margin_instead_of_a_linalg_error(scale, C):
    # Review r11 of lecture 02: these raised numpy's LinAlgError ("Singular matrix"). The data
    # are separable and C·scale² is huge, so the soft optimum is the hard one; with b free the
    # problem is scale-equivariant: the answer is the unit-scale hard margin's w / scale, b.
    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), np.array([-1.0, 1.0, 1.0])
    hard = svm.solve(X, y)
    sol = svm.solve(scale * X, y, C=C)
    assert sol.exact
    np.testing.assert_allclose(sol.w * scale, hard.w, atol=1e-9)  # w is of order 1/scale
    assert sol.b == pytest.approx(hard.b, abs=1e-9)
    assert np.all(sol.alpha <= C)


def test_a_problem_singular_to_working_precision_is_a_clear_value_error():
    # Inseparable data (MMDS Exercise 12.3.3's six points, odd coordinate sum positive) at a
    # scale and C where Newton's Hessian is singular: no hard margin to fall back on, so a
    # ValueError naming the problem rather than numpy's LinAlgError.
    X = 1e6 * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 2.0], [2.0, 4.0], [3.0, 1.0], [7.0, 3.0]])
    y = [1, 1, 1, -1, -1, -1]
    with pytest.raises(ValueError, match="too large for features as large as 7e\\+06"):
        svm.solve(X, y, C=1e4)


def test_hard_margin_of_fig_12_18_is_the_horizontal_line_at_1_5():
    """MMDS Example 12.9's closing remark: the line at height 1.5 separates with margin 1/2."""
    sol = svm.solve(FIG_12_18_X, FIG_12_18_Y)
    np.testing.assert_allclose([*sol.w, sol.b], [0, 2, -3], rtol=0, atol=1e-12)
    assert sol.margin == pytest.approx(0.5)
    np.testing.assert_array_equal(sol.support, [1, 3, 4, 5])


def random_sample(kind, seed, n=60, d=3):
    if kind == "separable":
        X, y, _ = separable(n, d, margin=0.1, seed=seed)
    else:
        X, y, _ = noisy(n, d, margin=0.05, flip=0.15, seed=seed)
    return X, y


CASES = [(kind, seed, C) for kind in ("separable", "noisy") for seed in (0, 1, 2)
         for C in (0.1, 1.0, 10.0)]


@pytest.mark.parametrize("kind, seed, C", CASES)
def test_soft_margin_matches_sklearn_svc(kind, seed, C):
    """SVC(kernel="linear") minimises eq. 12.4 with b not regularised, as solve() does by
    default. Ours may be lower (SVC stops at a tolerance) but never higher than 1e-6 relative."""
    X, y = random_sample(kind, seed)
    ours = svm.solve(X, y, C=C)
    oracle = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    f_ours = svm.objective(ours.w, ours.b, X, y, C)
    f_oracle = svm.objective(oracle.coef_.ravel(), oracle.intercept_[0], X, y, C)
    assert abs(f_ours - f_oracle) <= 1e-6 * f_oracle
    assert f_ours <= f_oracle * (1 + 1e-12)
    assert ours.exact


def scipy_dual_bound(X, y, C):
    """A lower bound on the regularised-bias optimum: the dual value of the box QP
    max Σα - ½‖Σαᵢyᵢ[xᵢ, 1]‖², 0 <= α <= C, maximised by scipy's L-BFGS-B (weak duality)."""
    Z = np.asarray(y, float)[:, None] * np.hstack([X, np.ones((len(X), 1))])

    def negative_dual(alpha):
        v = Z.T @ alpha
        return 0.5 * v @ v - alpha.sum(), Z @ v - 1

    result = minimize(negative_dual, np.zeros(len(Z)), jac=True, method="L-BFGS-B",
                      bounds=[(0, C)] * len(Z),
                      options={"ftol": 1e-16, "gtol": 1e-12, "maxiter": 100_000})
    return -result.fun


@pytest.mark.parametrize("kind, seed, C", CASES)
def test_regularized_bias_optimum_meets_scipy_dual_bound(kind, seed, C):
    X, y = random_sample(kind, seed)
    ours = svm.solve(X, y, C=C, regularize_bias=True)
    primal = svm.objective(ours.w, ours.b, X, y, C, regularize_bias=True)
    dual = scipy_dual_bound(X, y, C)
    assert dual <= primal * (1 + 1e-12)  # weak duality: a wrong primal could not be lower
    assert primal - dual <= 1e-6 * primal


@pytest.mark.parametrize("regularize_bias", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hard_margin_matches_scipy_qp(seed, regularize_bias):
    """scipy's SLSQP on the primal QP: minimise ½‖w‖² (+ ½b²) with yᵢ(w·xᵢ + b) >= 1."""
    X, y = random_sample("separable", seed, n=40)
    ours = svm.solve(X, y, regularize_bias=regularize_bias)
    keep_b = 1.0 if regularize_bias else 0.0
    result = minimize(
        lambda v: 0.5 * (v[:-1] @ v[:-1] + keep_b * v[-1] ** 2),
        np.zeros(X.shape[1] + 1),
        jac=lambda v: np.append(v[:-1], keep_b * v[-1]),
        constraints=[{"type": "ineq", "fun": lambda v: y * (X @ v[:-1] + v[-1]) - 1,
                      "jac": lambda v: y[:, None] * np.hstack([X, np.ones((len(X), 1))])}],
        method="SLSQP", options={"ftol": 1e-12, "maxiter": 1000},
    )
    assert result.success
    ours_value = 0.5 * (ours.w @ ours.w + keep_b * ours.b**2)
    assert ours_value == pytest.approx(result.fun, rel=1e-6)
    np.testing.assert_allclose([*ours.w, ours.b], result.x, rtol=0, atol=1e-5)
    assert np.min(y * (X @ ours.w + ours.b)) == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("regularize_bias", [False, True])
def test_hard_margin_refuses_inseparable_data(regularize_bias):
    xor_X, xor_y = [[0, 0], [1, 1], [0, 1], [1, 0]], [1, 1, -1, -1]
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.solve(xor_X, xor_y, regularize_bias=regularize_bias)
    X, y = random_sample("noisy", 0)
    with pytest.raises(ValueError, match="not linearly separable.*soft-margin C"):
        svm.solve(X, y, regularize_bias=regularize_bias)


@FAST
@given(seed=st.integers(0, 2**32 - 1), C=st.sampled_from([None, 0.05, 0.5, 5.0]),
       regularize_bias=st.booleans(), clean=st.booleans())
def test_solution_satisfies_the_optimality_conditions(seed, C, regularize_bias, clean):
    """CS446: w = Σαᵢyᵢxᵢ with 0 <= α (<= C), α = 0 beyond the margin (and α = C inside it), and
    Σαᵢyᵢ = 0 when b is free; then the primal and dual objectives are equal. The hard margin
    (C=None) is tried on separable samples only, where every margin is at least 1."""
    X, y, _ = (separable(30, 3, margin=0.2, seed=seed) if clean or C is None
               else noisy(30, 3, flip=0.2, seed=seed))
    if len(set(y)) < 2:
        return
    sol = svm.solve(X, y, C=C, regularize_bias=regularize_bias)
    z = y * (X @ sol.w + sol.b)
    a = sol.alpha
    np.testing.assert_allclose(sol.w, (a * y) @ X, atol=1e-9)
    assert np.all((a >= 0) & (a <= (np.inf if C is None else C)))
    assert np.all(a[z > 1 + 1e-7] == 0)
    if C is None:
        assert np.min(z) == pytest.approx(1, abs=1e-9)
    else:
        assert np.all(a[z < 1 - 1e-7] == C)
    if regularize_bias:
        assert sol.b == pytest.approx(np.sum(a * y), abs=1e-9)
    else:
        assert np.sum(a * y) == pytest.approx(0, abs=1e-9)
    norm_sq = sol.w @ sol.w + (sol.b**2 if regularize_bias else 0)
    primal = 0.5 * norm_sq if C is None else svm.objective(sol.w, sol.b, X, y, C,
                                                            regularize_bias=regularize_bias)
    dual = a.sum() - 0.5 * norm_sq
    assert primal == pytest.approx(dual, rel=1e-9, abs=1e-12)
    np.testing.assert_array_equal(sol.support, np.flatnonzero(z <= 1 + svm.SUPPORT_TOL))


@FAST
@given(seed=st.integers(0, 2**32 - 1), C=st.sampled_from([None, 0.3, 3.0]))
def test_leave_one_out_error_is_at_most_support_vectors_over_n(seed, C):
    """CS578 L2: LOOCV <= #SV/n."""
    X, y, _ = noisy(16, 2, margin=0.2, flip=0.0 if C is None else 0.15, seed=seed)
    if min(np.sum(y > 0), np.sum(y < 0)) < 2:
        return
    sol = svm.solve(X, y, C=C)
    assert svm.leave_one_out_error(X, y, C=C) <= len(sol.support) / len(y)


def test_hard_margin_is_the_distance_to_the_nearest_points():
    X, y = random_sample("separable", 5)
    sol = svm.solve(X, y)
    distances = y * (X @ sol.w + sol.b) / np.linalg.norm(sol.w)
    assert distances.min() == pytest.approx(sol.margin, rel=1e-9)
    np.testing.assert_allclose(distances[sol.support], sol.margin, rtol=1e-7)


# --- Gradient descent and SGD against the optimum ---------------------------------------------


@pytest.mark.parametrize("regularize_bias", [True, False])
@pytest.mark.parametrize("kind, seed, C", [("noisy", 3, 1.0), ("separable", 4, 1.0),
                                           ("noisy", 5, 0.1)])
def test_decaying_step_descent_reaches_the_optimum(kind, seed, C, regularize_bias):
    X, y = random_sample(kind, seed, n=40, d=2)
    best = svm.solve(X, y, C=C, regularize_bias=regularize_bias)
    optimum = svm.objective(best.w, best.b, X, y, C, regularize_bias=regularize_bias)
    run = svm.gradient_descent(X, y, C=C, eta=1.0, iterations=3000, decay=True,
                               regularize_bias=regularize_bias)
    final = svm.objective(run.w, run.b, X, y, C, regularize_bias=regularize_bias)
    assert run.history[-1].objective == pytest.approx(final)
    assert optimum <= final <= optimum * (1 + 1e-3)


def cs446_sgd(X, y, C_slide, gamma, epochs):
    """The CS446 slide, written as a loop over examples in order: w has the bias as its last
    weight (constant feature 1), updates on y·w·x <= 1."""
    Xb = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(Xb.shape[1])
    for _ in range(epochs):
        for x, label in zip(Xb, y, strict=True):
            if label * (w @ x) <= 1:
                w = (1 - gamma) * w + gamma * C_slide * label * x
            else:
                w = (1 - gamma) * w
    return w


def test_sgd_follows_the_cs446_slide_with_its_c_equal_to_n_times_mmds_c():
    X, y = random_sample("noisy", 6, n=30, d=2)
    run = svm.sgd(X, y, C=0.2, eta=0.01, epochs=5)
    np.testing.assert_allclose([*run.w, run.b], cs446_sgd(X, y, 30 * 0.2, 0.01, 5), atol=1e-12)
    assert [e.epoch for e in run.history] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("regularize_bias", [True, False])
def test_pegasos_step_approaches_the_optimum(regularize_bias):
    X, y = random_sample("noisy", 7, n=40, d=2)
    best = svm.solve(X, y, C=1.0, regularize_bias=regularize_bias)
    optimum = svm.objective(best.w, best.b, X, y, 1.0, regularize_bias=regularize_bias)
    run = svm.sgd(X, y, C=1.0, epochs=200, seed=0, regularize_bias=regularize_bias)
    assert optimum <= run.history[-1].objective <= optimum * (1 + 3e-3)
    assert run.history[-1].objective < run.history[0].objective


def test_hinge_loss_is_the_hinge_of_fig_12_17():
    z = np.array([-2.0, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(svm.hinge_loss(z), [3.0, 1.0, 0.5, 0.0, 0.0])
    assert svm.bad_pattern([2, 0, 2, 1, 1, 1]) == "oxoooo"


def test_a_point_on_the_separator_is_predicted_neither_class():
    # MMDS's convention (lectures 01 and 02): a score of 0 is a mistake whatever the label.
    predicted = svm.predict([1, 0], 0, [[1, 5], [0, 5], [-1, 5]])
    np.testing.assert_array_equal(predicted, [1, 0, -1])
    assert predicted[1] != 1 and predicted[1] != -1


def test_the_dual_predicts_neither_class_on_its_separator_as_predict_does():
    # Two points at ±1: f(x) = Σ αᵢyᵢ xᵢx + b. With b set to 0, f(0) is exactly 0 whatever
    # the α (every term is a product with x = 0), the point on the separator.
    solution = dataclasses.replace(svm.solve_dual([[1.0], [-1.0]], [1, -1], C=10.0), b=0.0)
    assert svm.dual_decision(solution, [[0.0]])[0] == 0.0  # exact: each term is α·y·0
    np.testing.assert_array_equal(svm.predict_dual(solution, [[2.0], [0.0], [-2.0]]), [1, 0, -1])


def test_leave_one_out_counts_a_left_out_point_on_the_separator_as_a_mistake():
    # On the line, +2 +1 | -0 -1 -2 (whole numbers: every score below is exact). Without +1 the
    # hard margin's separator is x = 1, without 0 it is x = 0: each left-out point lands on it,
    # score 0, a mistake by hand for either label. The other three are not support vectors and
    # stay right: 2 mistakes of 5. (Sending a score of 0 to -1 gave 1/5: the 0 was "right".)
    X, y = [[2.0], [1.0], [0.0], [-1.0], [-2.0]], [1, 1, -1, -1, -1]
    without_zero = svm.solve(np.delete(X, 2, axis=0), np.delete(y, 2))
    assert without_zero.w[0] == pytest.approx(1) and without_zero.b == pytest.approx(0, abs=1e-12)
    assert svm.leave_one_out_error(X, y) == pytest.approx(2 / 5, abs=1e-12)


# --- Bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X, y: svm.solve(X, [0, 1, 0, 1, 0, 1]), "labels must be -1 or \\+1"),
        (lambda X, y: svm.solve(X, y[:5], C=1), "6 rows but y has 5"),
        (lambda X, y: svm.solve(np.where(X == 4, np.nan, X), y, C=1), "NaN"),
        (lambda X, y: svm.solve(X, y, C=0), "C must be a positive number"),
        (lambda X, y: svm.solve(X, y, C=-1.0), "C must be a positive number"),
        (lambda X, y: svm.solve(X, y, C=float("nan")), "C must be a positive number"),
        (lambda X, y: svm.solve(X, np.ones(6)), "both classes"),
        (lambda X, y: svm.objective([0, 1], -2, X, y, 0), "C must be"),
        (lambda X, y: svm.objective([0, 1, 2], -2, X, y, 1), "w has length 3"),
        (lambda X, y: svm.gradient([0, 1], float("inf"), X, y, 1), "b must be a finite"),
        (lambda X, y: svm.gradient_descent(X, y, C=0.1, eta=0, iterations=3),
         "eta must be a positive"),
        (lambda X, y: svm.gradient_descent(X, y, C=0.1, eta=-0.2), "eta must be a positive"),
        (lambda X, y: svm.gradient_descent(X, y, C=-0.1, eta=0.2), "C must be a positive"),
        (lambda X, y: svm.gradient_descent(X, y, C=0.1, eta=0.2, iterations=-1), "iterations"),
        (lambda X, y: svm.gradient_descent(X, y, C=0.1, eta=0.2, iterations=1.5), "iterations"),
        (lambda X, y: svm.gradient_descent(X, y, C=0.1, eta=0.2, w0=[1, 2, 3]), "w0 has length"),
        (lambda X, y: svm.sgd(X, y, C=0.1, eta=1.5), "in \\(0, 1\\]"),
        (lambda X, y: svm.sgd(X, y, C=0.1, eta=0), "eta must be a positive"),
        (lambda X, y: svm.sgd(X, y, C=0.1, epochs=0), "epochs"),
    ],
)
def test_bad_input_is_a_clear_value_error(call, message):
    X = np.array(FIG_12_18_X, float)
    y = np.array(FIG_12_18_Y, float)
    with pytest.raises(ValueError, match=message):
        call(X, y)


def test_zero_iterations_return_the_start_as_exercise_4_defines():
    # Review r5 of lecture 02: the exercise defines iterations = 0 (no step: the start); the
    # library raised. The one history row is the start with its own gradient and objective.
    X, y = svm.mmds_fig_12_18()
    run = svm.gradient_descent(X, y, C=0.1, eta=0.2, w0=[0, 1], b0=-2, iterations=0)
    np.testing.assert_array_equal(run.w, [0, 1])
    assert run.b == pytest.approx(-2) and len(run.history) == 1
    assert run.history[0].objective == pytest.approx(2.6)  # MMDS Fig. 12.20, row (1)
