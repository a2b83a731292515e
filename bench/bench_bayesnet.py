"""Time BayesNet.query (variable elimination) against pgmpy's VariableElimination.

A random 30-node network (binary variables, up to 3 parents each; mllib.bayesnet.random_network)
and 20 queries P(X_target | three observed variables). Both engines answer every query; the
script prints the total time of each, the ratio, and the largest difference between the
answers. pgmpy's engine is built once, outside the clock (as a user would keep it).

mllib compiles each query's elimination schedule from the graph once per (target, observed
names) and keeps it with the network, so two figures are printed: the first pass over the 20
queries on a fresh network (every schedule compiled) and the best of 5 passes after it, which
ask the same targets given the same observed variables with every observed value flipped (so
they reuse the schedules but no answer, and pgmpy answers the flipped queries too). Both
are wall-clock time and this process's CPU time (the steadier figure on a shared machine), one
BLAS thread each side. Nothing here asserts on timing; the target in issue 24 is mllib at least
10× faster with equal answers.

    .venv/bin/python bench/bench_bayesnet.py            # or: make bench
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from bench_perceptron import best_of, machine  # the same helpers (bench/ is on sys.path)
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pgmpy_support import VariableElimination, pgmpy_query, to_pgmpy  # noqa: E402

from mllib import bayesnet  # noqa: E402
from mllib.bayesnet import random_network  # noqa: E402

REPEATS = 5


def network():
    """The bench's network, a fresh object each call (so with no compiled schedule yet)."""
    return random_network(30, max_parents=3, seed=2026)


def first_pass(queries, clock):
    """The time of one pass over ``queries`` on a fresh network, on ``clock``: every schedule
    compiled, and the einsum subscripts too (their cache is shared by networks alike)."""
    net = network()
    bayesnet._subscripts.cache_clear()
    start = clock()
    for target, evidence in queries:
        net.query(target, evidence)
    return clock() - start


def main() -> None:
    net = network()
    rng = np.random.default_rng(0)
    queries = []
    for _ in range(20):
        names = rng.permutation(net.names).tolist()
        queries.append((names[0], {v: int(rng.integers(2)) for v in names[1:4]}))
    flipped = [(target, {v: 1 - value for v, value in evidence.items()})
               for target, evidence in queries]
    engine = VariableElimination(to_pgmpy(net))
    print(f"30-node network, {len(queries)} queries with 3 observed variables each")
    with threadpool_limits(limits=1):
        print(machine())
        cold = {clock: min(first_pass(queries, clock) for _ in range(REPEATS))
                for clock in (time.perf_counter, time.process_time)}
        for target, evidence in queries:  # the schedules, compiled on this network
            net.query(target, evidence)
        runs = {}
        for name, run in (("mllib", lambda: [net.query(t, e) for t, e in flipped]),
                          ("pgmpy", lambda: [pgmpy_query(engine, net, t, e)
                                             for t, e in flipped])):
            wall, answers = best_of(REPEATS, run)
            cpu, _ = best_of(REPEATS, run, time.process_time)
            runs[name] = wall, cpu, answers
    ours, theirs = runs["mllib"], runs["pgmpy"]
    gap = max(float(np.max(np.abs(a - b))) for a, b in zip(ours[2], theirs[2], strict=True))
    print(f"best of {REPEATS}, ms           wall      CPU")
    print(f"mllib, first pass     {1e3 * cold[time.perf_counter]:8.2f} "
          f"{1e3 * cold[time.process_time]:8.2f}   (every schedule compiled)")
    print(f"mllib, later passes   {1e3 * ours[0]:8.2f} {1e3 * ours[1]:8.2f}   (values flipped)")
    print(f"pgmpy                 {1e3 * theirs[0]:8.2f} {1e3 * theirs[1]:8.2f}")
    print(f"speed-up, first pass  {theirs[0] / cold[time.perf_counter]:8.1f}x "
          f"{theirs[1] / cold[time.process_time]:7.1f}x")
    print(f"speed-up, later       {theirs[0] / ours[0]:8.1f}x {theirs[1] / ours[1]:7.1f}x")
    print(f"largest answer difference: {gap:.2e}")


if __name__ == "__main__":
    main()
