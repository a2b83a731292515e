"""Time mllib.linear's logistic regression and LASSO against scikit-learn.

* ``logistic_regression`` (Newton) on 100,000 × 50 against ``LogisticRegression(solver="lbfgs",
  fit_intercept=False)``: the same objective ½‖w‖² + C·Σ log(1 + e^(-y w·x)).
* ``lasso`` (coordinate descent on the Gram matrix) on 10,000 × 200 against ``Lasso``
  (``fit_intercept=False``): the same objective (1/2n)‖y - Xw‖² + α‖w‖₁.

"The same objective tolerance": every solver runs with tol = 1e-8 in its own stopping rule
(lbfgs: the projected gradient; mllib's Newton: the Newton decrement relative to f; both LASSO
solvers: the duality gap relative to ‖y‖²/n), and the script prints each answer's objective
gap relative to the better of the two, so a fast but sloppy answer is visible. BLAS is limited
to one thread (scikit-learn's lbfgs and coordinate descent use one core). Times are the best
of a few runs; the target is mllib within 2× of scikit-learn. Nothing here asserts on timing.

    .venv/bin/python bench/bench_linear.py            # or: make bench
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression
from threadpoolctl import threadpool_limits

from mllib.linear import lasso, lasso_objective, logistic_objective, logistic_regression

SEED = 3
REPEATS = 3


def report(name, t_mllib, t_sklearn, f_mllib, f_sklearn, reference):
    optimum = min(f_mllib, f_sklearn)
    print(f"{name}: f* = {optimum:.8g}")
    print(f"  mllib  {t_mllib * 1000:8.1f} ms   relative gap {(f_mllib - optimum) / optimum:.1e}")
    print(f"  {reference:<6} {t_sklearn * 1000:8.1f} ms   relative gap "
          f"{(f_sklearn - optimum) / optimum:.1e}")
    print(f"  ratio mllib / {reference} = {t_mllib / t_sklearn:.2f} (target <= 2)")


def fit_quietly(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # visible through the gap instead
        return model.fit(X, y)


def bench_logistic(rng):
    n, d, C = 100_000, 50, 1.0
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + rng.normal(scale=2.0, size=n) > 0, 1.0, -1.0)
    model = LogisticRegression(C=C, fit_intercept=False, solver="lbfgs", tol=1e-8, max_iter=1000)
    t_sklearn, fitted = best_of(REPEATS, lambda: fit_quietly(model, X, y))
    t_mllib, ours = best_of(REPEATS, lambda: logistic_regression(X, y, C=C, tol=1e-8))
    report(f"logistic regression, {n:,} x {d}, C = {C:g}", t_mllib, t_sklearn,
           logistic_objective(ours.w, X, y, C), logistic_objective(fitted.coef_[0], X, y, C),
           "lbfgs")


def bench_lasso(rng):
    n, d, alpha = 10_000, 200, 0.05
    X = rng.normal(size=(n, d))
    w_true = np.where(rng.random(d) < 0.1, rng.normal(scale=3.0, size=d), 0.0)
    y = X @ w_true + rng.normal(size=n)
    model = Lasso(alpha=alpha, fit_intercept=False, tol=1e-8, max_iter=10_000)
    t_sklearn, fitted = best_of(REPEATS, lambda: fit_quietly(model, X, y))
    t_mllib, ours = best_of(REPEATS, lambda: lasso(X, y, alpha=alpha, tol=1e-8))
    print(f"  (mllib: {ours.sweeps} sweeps, {np.count_nonzero(ours.w)} non-zero; "
          f"sklearn: {fitted.n_iter_} epochs, {np.count_nonzero(fitted.coef_)} non-zero)")
    report(f"LASSO, {n:,} x {d}, alpha = {alpha:g}", t_mllib, t_sklearn,
           lasso_objective(ours.w, X, y, alpha), lasso_objective(fitted.coef_, X, y, alpha),
           "Lasso")


def main() -> None:
    rng = np.random.default_rng(SEED)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          "BLAS limited to 1 thread")
    with threadpool_limits(limits=1):
        bench_logistic(rng)
        bench_lasso(rng)


if __name__ == "__main__":
    main()
