"""Time mllib's Chow-Liu tree against pgmpy's TreeSearch on 50 binary variables x 100k samples.

The data are sampled from a random tree (``mllib.bayes.random_tree``). Both learn the Chow-Liu
tree (CS446 "Learning Tree Dependent Distributions"); the script checks that they find the same
undirected tree, or trees of equal total mutual information when there are ties. The floor is
one pass of the matrix product XᵀX, which every pair count needs: the script times it for the
data as given (float64) and as mllib multiplies it (float32, exact below 2²⁴ samples), and
reports how close chow_liu_tree comes. mllib's times are the best of several interleaved runs;
pgmpy runs once (it takes seconds). Nothing here asserts on timing.

    .venv/bin/python bench/bench_chowliu.py
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)

from mllib.bayes import random_tree, sample
from mllib.chowliu import chow_liu_tree, mutual_information, total_information

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # pgmpy 1.1 announces a renamed module
    from pgmpy.estimators import TreeSearch

N_VARS, N_SAMPLES = 50, 100_000
SEED = 1
REPEATS = 15


def pgmpy_tree(X):
    data = pd.DataFrame(X.astype(int), columns=[str(i) for i in range(X.shape[1])])
    model = TreeSearch(data, root_node="0").estimate(estimator_type="chow-liu",
                                                     show_progress=False)
    return [(int(u), int(v)) for u, v in model.edges()]


def main():
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs; mllib best of {REPEATS} runs, "
          "pgmpy one run (n_jobs=-1, its default)\n")
    truth = random_tree(N_VARS, seed=SEED)
    X = sample(truth, N_SAMPLES, seed=SEED + 1)
    print(f"{N_SAMPLES:,} samples x {N_VARS} binary variables (float64), from a random tree")

    X32 = X.astype(np.float32)
    runs = {"mllib": lambda: chow_liu_tree(X), "mi": lambda: mutual_information(X),
            "floor64": lambda: X.T @ X, "floor32": lambda: X32.T @ X32}
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):  # interleaved, so a busy spell on the machine hits all alike
        for name, run in runs.items():
            best[name] = min(best[name], best_of(1, run)[0])
    t_mllib, t_mi, t_floor64, t_floor32 = (best[name] for name in runs)
    edges = chow_liu_tree(X)
    start = time.perf_counter()
    theirs = pgmpy_tree(X)
    t_pgmpy = time.perf_counter() - start

    mine_set = {frozenset(e) for e in edges}
    same = mine_set == {frozenset(e) for e in theirs}
    mi = mutual_information(X)
    equal_weight = np.isclose(total_information(mi, edges), total_information(mi, theirs),
                              rtol=1e-12)
    print(f"  mllib chow_liu_tree          {1e3 * t_mllib:9.2f} ms")
    print(f"    of which mutual_information {1e3 * t_mi:8.2f} ms")
    print(f"  pgmpy TreeSearch chow-liu    {1e3 * t_pgmpy:9.2f} ms")
    print(f"  ratio pgmpy / mllib          {t_pgmpy / t_mllib:9.0f}x   (target >= 200x)")
    print(f"  floor XᵀX, float64 as given  {1e3 * t_floor64:9.2f} ms   "
          f"-> mllib at {t_mllib / t_floor64:.2f}x of it (target <= 2x)")
    print(f"  floor XᵀX, float32           {1e3 * t_floor32:9.2f} ms   "
          f"-> mllib at {t_mllib / t_floor32:.2f}x of it")
    print(f"  same undirected tree as pgmpy: {same}; same as the true tree: "
          f"{mine_set == {frozenset(e) for e in truth.edges}}")
    if not (same or equal_weight):
        sys.exit("mllib and pgmpy found trees of different total mutual information")


if __name__ == "__main__":
    main()
