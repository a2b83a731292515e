"""Time mllib.svm.solve against scikit-learn on 20,000 × 50 noisy data.

Two pairings, each solving the same problem (MMDS eq. 12.4):

* b not regularised: ``solve(X, y, C=C)`` against ``SVC(kernel="linear", C=C)`` (libsvm);
* b regularised (MMDS's descent, eq. 12.4 + b²/2): ``solve(..., regularize_bias=True)`` against
  ``LinearSVC(loss="hinge", C=C)`` (liblinear's dual coordinate descent; its intercept is the
  weight of a constant feature 1, so it is regularised exactly like MMDS's b).

The clock stops when each call returns; the script then checks that the answer is within 1e-3
(relative) of the optimum f*, taken as the lower of the two objectives (solve's answer passes an
exact optimality check, so in practice f* is solve's). scikit-learn runs with its defaults.
BLAS is limited to one thread, as libsvm and liblinear use one. Times are the best of a few runs.
Nothing here asserts on timing.

    .venv/bin/python bench/bench_svm.py            # or: make bench
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from mllib.data import noisy
from mllib.svm import objective, solve

N, D = 20_000, 50
SEED = 1
TARGET = 1e-3
REPEATS = {"mllib": 3, "SVC": 2, "LinearSVC": 3}
C_VALUES = (0.1, 1.0)


def run_sklearn(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported below through the gap
        model.fit(X, y)
    return model.coef_.ravel(), float(model.intercept_[0])


def pairing(X, y, C, regularize_bias):
    name = "LinearSVC" if regularize_bias else "SVC"
    model = (LinearSVC(loss="hinge", C=C) if regularize_bias
             else SVC(kernel="linear", C=C))
    t_mllib, ours = best_of(REPEATS["mllib"],
                            lambda: solve(X, y, C=C, regularize_bias=regularize_bias))
    t_sklearn, (w, b) = best_of(REPEATS[name], lambda: run_sklearn(model, X, y))
    f_mllib = objective(ours.w, ours.b, X, y, C, regularize_bias=regularize_bias)
    f_sklearn = objective(w, b, X, y, C, regularize_bias=regularize_bias)
    optimum = min(f_mllib, f_sklearn)
    gaps = {"mllib": (f_mllib - optimum) / optimum, name: (f_sklearn - optimum) / optimum}
    bias = "b regularised" if regularize_bias else "b free"
    print(f"C = {C:g}, {bias}: f* = {optimum:.6f}, {len(ours.support):,} support vectors, "
          f"exact optimum certified: {ours.exact}")
    print(f"  mllib.solve {t_mllib:8.3f} s   gap {gaps['mllib']:.1e}")
    print(f"  {name:11s} {t_sklearn:8.3f} s   gap {gaps[name]:.1e}")
    print(f"  ratio mllib/{name} {t_mllib / t_sklearn:.2f}")
    late = [who for who, gap in gaps.items() if gap > TARGET]
    if late:
        sys.exit(f"C = {C:g}, {bias}: {', '.join(late)} did not reach {TARGET:g} of the optimum")


def main():
    X, y, _ = noisy(N, D, margin=0.05, flip=0.05, seed=SEED)
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, BLAS limited to 1 thread")
    print(f"{N:,} x {D} points in the unit ball, 5% of labels flipped; "
          f"target: within {TARGET:g} of the optimum\n")
    with threadpool_limits(limits=1):
        for C in C_VALUES:
            for regularize_bias in (False, True):
                pairing(X, y, C, regularize_bias)
            print()


if __name__ == "__main__":
    main()
