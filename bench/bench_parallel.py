"""Time mllib.parallel's in-process executor against its Dask executor for 1, 2 and 4
partitions, on a large synthetic set.

* The MapReduce SVM (MMDS §12.3.6): 20 iterations of batch gradient descent on 400,000 × 50,
  each a Map (one matrix-vector product per chunk) and a Reduce. Little work per task, so the
  cluster's per-round messages show.
* Parameter mixing (McDonald et al. 2010): 2 rounds on 60,000 × 10 noisy examples (the size of
  lecture 15's Dask cell) and on 1,000,000 × 10. Each chunk's epoch is the sequential perceptron,
  which scores its examples in vectorised blocks between mistakes: tens of milliseconds per task
  at the notebook's size, with 17 times as many rows per task at the larger one.

The Dask runs use one LocalCluster of as many single-threaded worker processes as partitions
(capped at the machine's cores), started before timing; the chunks are scattered once per run,
inside the timing. Both executors return the same weights up to rounding, printed as a check:
parameter mixing exactly; the SVM's matrix-vector products may sum in another order, because
Dask's workers run their BLAS single-threaded and this process may not. Times are the best of a
few runs; ratios are Dask / in-process. Nothing here asserts on timing.

    .venv/bin/python bench/bench_parallel.py            # or: make bench
"""

from __future__ import annotations

import logging
import os

import numpy as np
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)
from distributed import Client, LocalCluster

from mllib import parallel
from mllib.data import noisy

REPEATS = 3


def svm_work(chunks, executor=None):
    return parallel.mapreduce_svm(chunks, C=0.01, eta=1e-4, iterations=20,
                                  executor=executor).w


def mixing_work(chunks, executor=None):
    return parallel.parameter_mixing(chunks, max_rounds=2, executor=executor).w


def main() -> None:
    logging.getLogger("distributed").setLevel(logging.WARNING)
    data = {"MapReduce SVM, 400,000 × 50, 20 iterations": (svm_work, noisy(400_000, 50, seed=1)),
            "parameter mixing, 60,000 × 10, 2 rounds (lecture 15)":
                (mixing_work, noisy(60_000, 10, flip=0.1, seed=0)),
            "parameter mixing, 1,000,000 × 10, 2 rounds":
                (mixing_work, noisy(1_000_000, 10, flip=0.1, seed=0))}
    cores = os.cpu_count() or 1
    print(f"{cores} cores; Dask workers = min(partitions, cores), one thread each")
    for parts in (1, 2, 4):
        workers = min(parts, cores)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            dask = parallel.DaskExecutor(client)
            for name, (work, (X, y, _)) in data.items():
                chunks = parallel.split(X, y, parts)
                here, w_here = best_of(REPEATS, lambda: work(chunks))  # noqa: B023 -- run now
                there, w_there = best_of(REPEATS, lambda: work(chunks, dask))  # noqa: B023
                gap = np.max(np.abs(w_here - w_there)) / max(1.0, np.max(np.abs(w_here)))
                print(f"{parts} partition(s), {workers} worker(s), {name}: in process "
                      f"{here:6.2f} s, Dask {there:6.2f} s, ratio {there / here:4.2f}, "
                      f"weights differ by {gap:.1e} (relative)")


if __name__ == "__main__":
    main()
