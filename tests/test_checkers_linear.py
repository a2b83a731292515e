"""Hidden checkers of lecture 11: right answers (written several ways) pass, typical slips fail
with a hint that reveals neither the hidden inputs nor the answers."""

import itertools
import math
import re
from decimal import Decimal, getcontext

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import linear as check

# --- answers as a student might write them ---------------------------------------------------


def normal_equations_solve(X, y):  # the notebook's solution: AᵀA v = Aᵀy
    A = np.hstack([X, np.ones((len(X), 1))])
    v = np.linalg.solve(A.T @ A, A.T @ y)
    return v[:-1], v[-1]


def normal_equations_centred(X, y):  # another algorithm: centre, then solve for w alone
    X, y = np.asarray(X), np.asarray(y)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    w = np.linalg.lstsq(Xc, yc, rcond=None)[0]
    return list(w), float(y.mean() - X.mean(axis=0) @ w)


def normal_equations_no_intercept(X, y):
    return np.linalg.lstsq(X, y, rcond=None)[0], 0.0


def lms_vectorised(w, x, y, eta):
    return w + eta * (y - w @ x) * x


def lms_loop(w, x, y, eta):
    error = y - sum(wi * xi for wi, xi in zip(w, x, strict=True))
    return [wi + eta * error * xi for wi, xi in zip(w, x, strict=True)]


def lms_sign_slip(w, x, y, eta):
    return w - eta * (y - w @ x) * x


def adagrad_vectorised(w, g, G, eta):
    G = G + g**2
    rate = np.zeros_like(G)
    rate[G > 0] = eta / np.sqrt(G[G > 0])
    return w - rate * g, G


def adagrad_loop(w, g, G, eta):
    new_w, new_G = [], []
    for wj, gj, Gj in zip(w, g, G, strict=True):
        Gj = Gj + gj * gj
        new_w.append(wj - gj * eta / math.sqrt(Gj) if Gj > 0 else wj)
        new_G.append(Gj)
    return new_w, new_G


def adagrad_ratio_first(w, g, G, eta):  # the notebook's solution: (g/√G)·η
    G = G + g * g
    step = np.zeros_like(G)
    step[G > 0] = g[G > 0] / np.sqrt(G[G > 0]) * eta
    return w - step, G


def adagrad_old_G(w, g, G, eta):  # slip: divides by the sum before adding this gradient
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(G > 0, eta / np.sqrt(G), 0.0) * g
    return w - step, G + g**2


def adagrad_nan_on_zero(w, g, G, eta):  # slip: 0/0 where a feature never had a gradient
    G = G + g**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return w - eta * g / np.sqrt(G), G


def adagrad_skips_only_zero_gradients(w, g, G, eta):  # slip: tests g = 0, not the updated G
    G = G + g**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(g != 0, w - eta * g / np.sqrt(G), w), G


def logistic_stable(w, X, y, C):
    z = y * (X @ w)
    return w - C * X.T @ (y * np.exp(-np.logaddexp(0, z)))  # σ(-z) = 1/(1 + e^z)


def logistic_loop(w, X, y, C):
    grad = np.array(w, dtype=float)
    for x_i, y_i in zip(X, y, strict=True):
        z = y_i * float(np.dot(w, x_i))
        sigma = 1 / (1 + math.exp(z)) if z < 0 else math.exp(-z) / (1 + math.exp(-z))
        grad -= C * y_i * sigma * x_i
    return grad


def logistic_forgets_regulariser(w, X, y, C):
    return logistic_stable(w, X, y, C) - w


def logistic_refuses_no_rows(w, X, y, C):  # slip: raises where the statement defines w
    if len(X) == 0:
        raise ValueError("X has no rows")
    return logistic_stable(w, X, y, C)


def logistic_wrong_sign(w, X, y, C):
    z = y * (X @ w)
    return w + C * X.T @ (y * np.exp(-np.logaddexp(0, z)))


# --- tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("checker, answer", [
    (check.normal_equations, normal_equations_solve),
    (check.normal_equations, normal_equations_centred),
    (check.lms_step, lms_vectorised),
    (check.lms_step, lms_loop),
    (check.adagrad_step, adagrad_vectorised),
    (check.adagrad_step, adagrad_loop),
    (check.adagrad_step, adagrad_ratio_first),
    (check.logistic_gradient, logistic_stable),
    (check.logistic_gradient, logistic_loop),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.normal_equations, normal_equations_no_intercept, "one feature"),
    (check.lms_step, lms_sign_slip, "above the score"),
    (check.adagrad_step, adagrad_old_G, "first step"),
    (check.adagrad_step, adagrad_nan_on_zero, "NaN"),
    (check.adagrad_step, adagrad_skips_only_zero_gradients, "underflows"),
    (check.logistic_gradient, logistic_forgets_regulariser, "random w"),
    (check.logistic_gradient, logistic_wrong_sign, "w = 0"),
    (check.logistic_gradient, logistic_refuses_no_rows, "no examples"),
])
def test_typical_slips_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


def test_solving_the_normal_equations_agrees_with_lstsq_at_the_stated_condition_bound():
    # Exercise 1: "the two ways agree to about κ(A)²·1e-16 relative to the size of v (about
    # 1e-12 here), far inside every test's tolerance". A at κ(A) just below the bound, of
    # several shapes and scales; at the old bound of 1e4 they differed by up to ~2e-8.
    worst = 0.0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n, d = int(rng.integers(5, 40)), int(rng.integers(2, 5))
        U, V = np.linalg.qr(rng.normal(size=(n, d)))[0], np.linalg.qr(rng.normal(size=(d, d)))[0]
        kappa = 0.999 * check.NORMAL_EQUATIONS_CONDITION
        A = U @ np.diag(np.geomspace(1, 1 / kappa, d)) @ V.T * rng.uniform(0.1, 10)
        y = rng.normal(size=n) * rng.uniform(0.1, 10)
        assert np.linalg.cond(A) < check.NORMAL_EQUATIONS_CONDITION
        solved, fitted = np.linalg.solve(A.T @ A, A.T @ y), np.linalg.lstsq(A, y, rcond=None)[0]
        worst = max(worst, np.max(np.abs(solved - fitted)) / np.linalg.norm(fitted))
    assert worst < 1e-11  # "about 1e-12"; the visible test allows 1e-9 (relative + absolute)


def test_a_naive_sigmoid_still_passes_the_large_w_case():
    def naive(w, X, y, C):
        return w - C * X.T @ (y / (1 + np.exp(y * (X @ w))))

    # exp overflows to inf for very confident examples, giving 1/inf = 0: still right, so a
    # naive sigmoid passes (numpy only warns); the check does not demand a particular formula
    with np.errstate(over="ignore"):
        run_check(check.logistic_gradient(), naive)


def test_the_underflow_case_has_a_nonzero_gradient_whose_square_is_zero():
    (case,) = [c for c in check.adagrad_step().cases if "underflows" in c.hint]
    _, g, G, _ = case.args
    underflowing = (g != 0) & (G + g * g == 0)
    assert np.any(underflowing)  # the case tests what its hint says


# Exercise 3's range, at its edges: g from a subnormal or an underflowing square through
# subnormal squares to just under 1e150, sums G from 0 through the smallest subnormal to 1e300,
# rates from the smallest float to far beyond the statement's bound.
EDGE_GRADIENTS = [1e-320, 1e-170, 2.5e-162, 3e-162, 1e-161, 1e-160, 1.5e-154, 1e-100, 1.0, 1e100,
                  9.9e149]
EDGE_SUMS = [0.0, 5e-324, 1e-300, 1.0, 1e300]
EDGE_RATES = [5e-324, 1e-300, 1e-3, 1.0, check.ADAGRAD_MAX_ETA, 1e200, 1e300]
ADAGRAD_ORDERS = {"η/√G first": adagrad_vectorised, "g·η first": adagrad_loop,
                  "g/√G first": adagrad_ratio_first, "mllib": check.reference.adagrad_step}


def exact_adagrad_w(g: float, G: float, eta: float) -> Decimal:
    """w after one step from w = 0, to 50 digits, with the updated G as floating point makes it
    (the statement defines G_j ← G_j + g_j² in floating point, underflow included)."""
    G = G + g * g
    return Decimal(0) if G == 0 else -Decimal(g) * Decimal(eta) / Decimal(G).sqrt()


def test_every_order_of_evaluation_is_accurate_wherever_exercise_3_promises_inputs():
    # Exercise 3: "0 < η ≤ 10³, so g_j η/√G_j stays finite in whichever order you compute it".
    # Inside the declared domain every order is accurate to 1e-12 relative, plus an absolute
    # 1e-150: an intermediate that underflows (g·η for g = 1e-320, or 1e-160 and η = 1e-300) can
    # lose a step of about 1e-160 or less, far below the checker's tolerance (1e-8). Outside the
    # domain (η = 1e200 or 1e300) some order overflows, so the bound is what makes every order
    # right.
    domain = check.adagrad_step().domain
    getcontext().prec = 50
    inside = outside_failures = 0
    for g, G, eta in itertools.product(EDGE_GRADIENTS, EDGE_SUMS, EDGE_RATES):
        args = (np.zeros(2), np.array([g, -g]), np.array([G, G]), eta)
        if domain(*args) is not None:
            continue
        exact = exact_adagrad_w(g, G, eta)
        for name, order in ADAGRAD_ORDERS.items():
            with np.errstate(all="ignore"):
                w = np.asarray(order(*args)[0], dtype=float)
            error = max(abs(Decimal(float(w[0])) - exact), abs(Decimal(float(w[1])) + exact))
            accurate = error <= Decimal("1e-12") * abs(exact) + Decimal("1e-150")
            if eta <= check.ADAGRAD_MAX_ETA:
                inside += 1
                assert accurate, (name, g, G, eta, w, exact)
            else:
                outside_failures += not accurate
    assert inside == len(ADAGRAD_ORDERS) * len(EDGE_GRADIENTS) * len(EDGE_SUMS) * 5
    assert outside_failures == 0  # the domain refuses every η above the bound
    # ... and it must: beyond the bound the orders disagree (review r10-11's two cases)
    with np.errstate(over="ignore"):
        overflowed = adagrad_vectorised(np.zeros(1), np.array([1e-160]), np.zeros(1), 1e200)[0]
    assert np.isinf(overflowed[0])
    assert math.isinf(adagrad_loop([0.0], [1e10], [0.0], 1e300)[0][0])
    assert check.reference.adagrad_step(np.zeros(1), np.array([1e-160]), np.zeros(1),
                                        1e200)[0][0] == pytest.approx(-1e200, rel=1e-4)
