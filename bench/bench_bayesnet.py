"""Time BayesNet.query (variable elimination) against pgmpy's VariableElimination.

A random 30-node network (binary variables, up to 3 parents each; mllib.bayesnet.random_network)
and 20 queries P(X_target | three observed variables). Both engines answer every query; the
script prints the best-of-5 total time of each, the ratio, and the largest difference between
the answers. pgmpy's engine is built once, outside the clock (as a user would keep it). Nothing
here asserts on timing; the target in issue 14 is mllib at least 10× faster with equal answers.

    .venv/bin/python bench/bench_bayesnet.py            # or: make bench
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from bench_perceptron import best_of  # the same timing helper (bench/ is on sys.path)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pgmpy_support import VariableElimination, pgmpy_query, to_pgmpy  # noqa: E402

from mllib.bayesnet import random_network  # noqa: E402


def main() -> None:
    net = random_network(30, max_parents=3, seed=2026)
    rng = np.random.default_rng(0)
    queries = []
    for _ in range(20):
        names = rng.permutation(net.names).tolist()
        queries.append((names[0], {v: int(rng.integers(2)) for v in names[1:4]}))
    engine = VariableElimination(to_pgmpy(net))
    ours_time, ours = best_of(5, lambda: [net.query(t, e) for t, e in queries])
    theirs_time, theirs = best_of(5, lambda: [pgmpy_query(engine, net, t, e) for t, e in queries])
    gap = max(float(np.max(np.abs(a - b))) for a, b in zip(ours, theirs, strict=True))
    print(f"30-node network, {len(queries)} queries with 3 observed variables each")
    print(f"mllib BayesNet.query (elimination): {ours_time * 1e3:8.1f} ms")
    print(f"pgmpy VariableElimination.query:    {theirs_time * 1e3:8.1f} ms")
    print(f"speed-up: {theirs_time / ours_time:.1f}x   largest answer difference: {gap:.2e}")


if __name__ == "__main__":
    main()
