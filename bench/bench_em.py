"""Time one EM iteration of the three-coin model on 10⁶ sequences (CS446 Lecture 10).

An EM update needs only the m + 1 head-count frequencies (the sufficient statistics), so
``mllib.em.three_coins`` counts them once (one pass over the data) and then iterates on m + 1
numbers. The script reports the one-off cost (checking the input and counting), the cost of
each further iteration, and for comparison the same update written per sequence, as the slides
write it (numpy over all n sequences), which must give the same parameters. Times are the
best of several runs; nothing here asserts on timing.

    .venv/bin/python bench/bench_em.py
"""

from __future__ import annotations

import os
import sys

import numpy as np
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)

from mllib.em import e_step, m_step, sample_coins, three_coins

N, M = 1_000_000, 10
TRUE = {"alpha": 0.3, "p": 0.8, "q": 0.35}
START = {"alpha": 0.6, "p": 0.4, "q": 0.5}
REPEATS = 7
EXTRA = 1000  # iterations used to time one more iteration


def main():
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, best of {REPEATS} runs each\n")
    heads = sample_coins(N, M, **TRUE, seed=0)
    print(f"{N:,} sequences of {M} tosses from α = {TRUE['alpha']}, p = {TRUE['p']}, "
          f"q = {TRUE['q']}; EM from α = {START['alpha']}, p = {START['p']}, q = {START['q']}")

    t_one, one = best_of(REPEATS, lambda: three_coins(heads, M, **START, iterations=1, tol=0))
    t_many, _ = best_of(REPEATS, lambda: three_coins(heads, M, **START, iterations=1 + EXTRA,
                                                     tol=0))
    per_iteration = (t_many - t_one) / EXTRA
    t_count, _ = best_of(REPEATS, lambda: np.bincount(heads, minlength=M + 1))

    def per_sequence():
        return m_step(heads, M, e_step(heads, M, **START))

    t_naive, naive = best_of(REPEATS, per_sequence)
    same = np.allclose(naive, (one.alpha, one.p, one.q), rtol=1e-12, atol=0)

    print(f"  three_coins, 1 iteration (check input + count + E + M)   {1e3 * t_one:8.3f} ms")
    print(f"    of which counting the m+1 frequencies (np.bincount)      {1e3 * t_count:8.3f} ms")
    print(f"  each further iteration (from {1 + EXTRA} vs 1 iterations)      "
          f"{1e3 * per_iteration:8.3f} ms   (target < 1 ms)")
    print(f"  the slides' update per sequence (e_step + m_step on n)     {1e3 * t_naive:8.3f} ms")
    print(f"  ratio per-sequence / frequency iteration                  "
          f"{t_naive / per_iteration:8.0f}x")
    print(f"  same parameters after one update: {same}")
    run = three_coins(heads, M, **START, iterations=5000, tol=1e-12)
    print(f"  full run: {run.iterations} iterations to tol 1e-12 -> α = {run.alpha:.4f}, "
          f"p = {run.p:.4f}, q = {run.q:.4f}")
    if not same:
        sys.exit("the per-sequence update and three_coins disagree")


if __name__ == "__main__":
    main()
