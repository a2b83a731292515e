"""Time mllib's perceptron against scikit-learn's on 100,000 × 100 separable data.

Both run the same algorithm (MMDS §12.2.1: zero threshold, rows in order, w += η·y·x whenever
y·(w·x) <= 0, η = 1, w0 = 0) for the same number of epochs E, the number mllib needs to
converge, so both must end at the same weights; the script checks that. Times are the best of
three runs. Nothing here asserts on timing.

    .venv/bin/python bench/bench_perceptron.py            # or: make bench
    .venv/bin/python bench/bench_perceptron.py --profile  # where mllib's time goes
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron

from mllib.data import separable
from mllib.perceptron import perceptron

N, D = 100_000, 100
SEED = 1
REPEATS = 3
MAX_EPOCHS = 10_000
# (name, margin γ); the radius is 1, so (R/γ)² bounds the mistakes.
SCENARIOS = [("several epochs", 0.02), ("harder margin", 0.005)]


def best_of(repeats, run):
    """The shortest wall-clock time of ``repeats`` calls, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def run_sklearn(X, y, epochs):
    clf = Perceptron(fit_intercept=False, shuffle=False, tol=None, eta0=1, max_iter=epochs)
    with warnings.catch_warnings():
        # It stops after max_iter epochs by design; it cannot know the last one was clean.
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf


def scenario(name, margin):
    X, y, _ = separable(N, D, margin=margin, radius=1.0, seed=SEED)
    t_mllib, result = best_of(REPEATS, lambda: perceptron(X, y, max_epochs=MAX_EPOCHS))
    if not result.converged:
        sys.exit(f"{name}: mllib did not converge in {MAX_EPOCHS} epochs")
    epochs = result.epochs
    t_sklearn, clf = best_of(REPEATS, lambda: run_sklearn(X, y, epochs))
    same = np.allclose(clf.coef_.ravel(), result.w, rtol=1e-9, atol=1e-9)
    print(f"{name}: {N:,} x {D}, margin {margin}, bound (R/γ)² = {(1 / margin) ** 2:,.0f}")
    print(f"  mistakes {result.mistakes:,}, epochs {epochs} (the last one clean)")
    print(f"  mllib   {t_mllib:8.3f} s   ({1e3 * t_mllib / epochs:6.2f} ms/epoch)")
    print(f"  sklearn {t_sklearn:8.3f} s   ({1e3 * t_sklearn / epochs:6.2f} ms/epoch)")
    print(f"  ratio mllib/sklearn {t_mllib / t_sklearn:.2f}")
    print(f"  same final weights: {same}")
    if not same:
        gap = np.max(np.abs(clf.coef_.ravel() - result.w))
        sys.exit(f"{name}: mllib and sklearn end at different weights (max gap {gap:.3g})")
    return X, y


def profile(X, y):
    profiler = cProfile.Profile()
    profiler.enable()
    perceptron(X, y, max_epochs=MAX_EPOCHS)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="profile mllib on the last case")
    args = parser.parse_args(argv)
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, best of {REPEATS} runs each\n")
    for name, margin in SCENARIOS:
        X, y = scenario(name, margin)
        print()
    if args.profile:
        profile(X, y)


if __name__ == "__main__":
    main()
