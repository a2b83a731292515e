"""Time mllib's perceptron against scikit-learn's on 100,000 × 100 separable data.

Both run the same algorithm (MMDS §12.2.1: zero threshold, rows in order, w += η·y·x whenever
y·(w·x) <= 0, η = 1, w0 = 0) for the same number of epochs E, so both must end at the same
weights; the script checks that. Two regimes:

- converged: E is the number of epochs mllib needs to converge; mistakes are sparse, most rows
  pass, and mllib scores thousands of rows per matrix-vector product;
- dense mistakes: the first 5 epochs on data with γ/R = 0.005 (margin 0.05, radius 10), about
  one mistake per 110 rows. Here mllib's cost is the Python work per mistake, sklearn's the
  same per-row loop as ever.

Beyond the final weights, the script checks that mllib's mistakes, (epoch, row) one by one, are
those of a plain row-by-row loop (where E·n is at most PLAIN_ROWS, as the loop is slow). It also
prints a floor: the time of reading X E times with one matrix-vector product per 4,096 rows,
which any exact pass over the rows pays in memory traffic (X is 80 MB, more than the cache).

Times are the best of three runs, as wall-clock time and as this process's CPU time (on a
machine shared with other jobs the CPU time is the steadier of the two), with one BLAS thread
(sklearn's perceptron runs on one core too). The first line names the CPU, the load average and
the thread pools. Nothing here asserts on timing.

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
from threadpoolctl import threadpool_info, threadpool_limits

from mllib.data import separable
from mllib.perceptron import perceptron

N, D = 100_000, 100
PLAIN_ROWS = 1_200_000  # the plain loop checks runs of at most this many row visits
SEED = 1
REPEATS = 3
MAX_EPOCHS = 10_000
# (name, margin γ, radius R, epochs: None = until mllib converges); (R/γ)² bounds the mistakes.
SCENARIOS = [
    ("converged, several epochs", 0.02, 1.0, None),
    ("converged, harder margin", 0.005, 1.0, None),
    ("dense mistakes, first 5 epochs", 0.05, 10.0, 5),
]


def best_of(repeats, run, clock=time.perf_counter):
    """The shortest time of ``repeats`` calls on ``clock``, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = clock()
        result = run()
        best = min(best, clock() - start)
    return best, result


def machine() -> str:
    """The CPU model, its core count, the 1/5/15-minute load average and the BLAS/OpenMP
    thread pools as this process has them: ratios depend on all four (shared/notes)."""
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), "unknown CPU")
    pools = ", ".join(f"{pool['internal_api']} {pool['num_threads']}"
                      for pool in threadpool_info())
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} CPUs, load average {load}; thread pools: {pools}"


def timed(run):
    """(best wall-clock time, best CPU time, result) over REPEATS calls of each kind."""
    wall, result = best_of(REPEATS, run)
    cpu, _ = best_of(REPEATS, run, time.process_time)
    return wall, cpu, result


def run_sklearn(X, y, epochs):
    clf = Perceptron(fit_intercept=False, shuffle=False, tol=None, eta0=1, max_iter=epochs)
    with warnings.catch_warnings():
        # It stops after max_iter epochs by design; it cannot know the last one was clean.
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf


def plain_mistakes(X, y, epochs):
    """(epoch, row) of every update of MMDS §12.2.1 as a plain loop, one dot product a row."""
    w = np.zeros(X.shape[1])
    mistakes = []
    for epoch in range(1, epochs + 1):
        for i, (x, label) in enumerate(zip(X, y, strict=True)):
            if label * float(np.dot(w, x)) <= 0:
                w = w + label * x
                mistakes.append((epoch, i))
    return mistakes


def reading_floor(X, epochs):
    """CPU time of reading X ``epochs`` times, 4,096 rows per matrix-vector product."""
    w = np.ones(X.shape[1])

    def read():
        for _ in range(epochs):
            for start in range(0, len(X), 4096):
                X[start : start + 4096].dot(w)

    return best_of(REPEATS, read, time.process_time)[0]


def scenario(name, margin, radius, epochs):
    X, y, _ = separable(N, D, margin=margin, radius=radius, seed=SEED)
    if epochs is None:
        result = perceptron(X, y, max_epochs=MAX_EPOCHS)
        if not result.converged:
            sys.exit(f"{name}: mllib did not converge in {MAX_EPOCHS} epochs")
        epochs = result.epochs
    wall_mllib, cpu_mllib, result = timed(lambda: perceptron(X, y, max_epochs=epochs))
    wall_sklearn, cpu_sklearn, clf = timed(lambda: run_sklearn(X, y, epochs))
    same = np.allclose(clf.coef_.ravel(), result.w, rtol=1e-9, atol=1e-9)
    print(f"{name}: {N:,} x {D}, margin {margin}, radius {radius}, "
          f"bound (R/γ)² = {(radius / margin) ** 2:,.0f}")
    state = "the last one clean" if result.converged else "not converged yet"
    print(f"  mistakes {result.mistakes:,}, epochs {epochs} ({state}), "
          f"one mistake per {epochs * N / max(result.mistakes, 1):,.0f} rows")
    for label, wall, cpu in (("mllib", wall_mllib, cpu_mllib),
                             ("sklearn", wall_sklearn, cpu_sklearn)):
        print(f"  {label:7s} {wall:8.3f} s wall ({1e3 * wall / epochs:6.2f} ms/epoch), "
              f"{cpu:8.3f} s CPU")
    print(f"  ratio mllib/sklearn {wall_mllib / wall_sklearn:.2f} wall, "
          f"{cpu_mllib / cpu_sklearn:.2f} CPU")
    floor = reading_floor(X, epochs)
    print(f"  floor: reading X {epochs} times costs {floor:.3f} s CPU, "
          f"{floor / cpu_sklearn:.2f} of sklearn's CPU time")
    print(f"  same final weights: {same}")
    if not same:
        gap = np.max(np.abs(clf.coef_.ravel() - result.w))
        sys.exit(f"{name}: mllib and sklearn end at different weights (max gap {gap:.3g})")
    if epochs * N <= PLAIN_ROWS:
        ours = [(u.epoch, u.index) for u in result.history]
        agree = ours == plain_mistakes(X, y, epochs)
        print(f"  same mistakes as a plain row-by-row loop: {agree}")
        if not agree:
            sys.exit(f"{name}: mllib's mistakes differ from the plain loop's")
    return X, y, epochs


def profile(X, y, epochs):
    profiler = cProfile.Profile()
    profiler.enable()
    perceptron(X, y, max_epochs=epochs)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="profile mllib on the last case")
    args = parser.parse_args(argv)
    with threadpool_limits(limits=1):
        print(f"numpy {np.__version__}, best of {REPEATS} runs each; {machine()}\n")
        for name, margin, radius, epochs in SCENARIOS:
            X, y, epochs = scenario(name, margin, radius, epochs)
            print()
    if args.profile:
        profile(X, y, epochs)


if __name__ == "__main__":
    main()
