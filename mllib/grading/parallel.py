"""Hidden checks for the exercises of lecture 15 (learning at scale: the MapReduce perceptron
and iterative parameter mixing).

Each checker returns a :class:`~mllib.grading.Check`: fresh inputs drawn from a fixed seed (so a
regrade gives the same score) and the mllib function that computes the expected answers. The
exercises need Python and numpy only; the executors (and Dask) stay out of them.
"""

from __future__ import annotations

import numpy as np

from mllib import parallel as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, multiples, power_of_two, unmet, whole

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.parallel",)
_rng = seeded(20261115)


def _sample(rng, n, d):
    """A small sample with integer features, so that some scores are exactly 0."""
    X = rng.integers(-2, 3, (n, d)).astype(float)
    return X, rng.choice([-1.0, 1.0], n)


def _chunks(X, y, sizes):
    edges = np.cumsum(sizes)[:-1]
    return list(zip(np.split(X, edges), np.split(y, edges), strict=True))


def _chunks_broken(w, chunks) -> str | None:
    """The notebook's promises on a round's inputs: at least one chunk of at least one example,
    labels ±1, whole numbers in X and halves in w (so, with η a power of 2, every score is
    exact)."""
    w = np.asarray(w, dtype=float)
    return unmet(("w has shape (d,) with d >= 1", w.ndim == 1 and len(w) >= 1),
                 ("there is at least one chunk (X, y), X of shape (n, d) with n >= 1, y (n,)",
                  isinstance(chunks, list | tuple) and len(chunks) >= 1 and all(
                      np.ndim(X) == 2 and np.shape(X)[0] >= 1 and np.shape(X)[1:] == w.shape
                      and np.shape(y) == np.shape(X)[:1] for X, y in chunks)),
                 ("y holds labels -1 and +1", lambda: all(labels(y) for _, y in chunks)),
                 ("the examples hold whole numbers, w whole numbers or halves",
                  lambda: multiples(w, 0.5)
                  and all(multiples(X, 1) for X, _ in chunks)))


def _round_domain(w, chunks, eta) -> str | None:
    return _chunks_broken(w, chunks) or unmet(("eta is a power of 2", power_of_two(eta)))


def _map_domain(w, X, y, eta) -> str | None:
    return _round_domain(w, [(X, y)], eta)


def map_mistakes() -> Check:
    """Check ``map_mistakes(w, X, y, eta)`` returns (Σ η·y·x over the mistakes, mistakes);
    y·(w·x) <= 0 is a mistake (MMDS §12.2.1, §12.2.8)."""
    rng = _rng(1)
    w = rng.choice([-2.0, -1.0, 1.0, 2.0], 4)
    X, y = _sample(rng, 40, 4)
    X = X[X @ w != 0][:9]  # no score of 0 but the one made below
    y = y[: len(X)]
    X[0] = [w[1], -w[0], 0.0, 0.0]  # w·x = 0 exactly: a mistake whatever the label
    right = np.where(X @ w > 0, 1.0, -1.0)
    cases = [
        Case("a chunk with some mistakes", (w, X[1:], y[1:], 1.0)),
        Case("the same chunk with η = 0.25", (w, X[1:], y[1:], 0.25)),
        Case("a chunk that w classifies correctly except for one score of exactly 0",
             (w, X, right, 1.0)),
        Case("w = 0: every example is a mistake", (np.zeros(4), X, y, 0.5)),
        Case("a chunk of one example", (w, X[3:4], y[3:4], 2.0)),
    ]
    return Check("map_mistakes", cases, reference.map_mistakes, domain=_map_domain)


def reduce_sums() -> Check:
    """Check ``reduce_sums(outputs)`` adds the Map outputs (increment, mistakes) key by key."""
    rng = _rng(2)
    parts = [(rng.integers(-3, 4, 5) * 0.5, int(rng.integers(0, 6))) for _ in range(4)]
    cases = [
        Case("four Map outputs", (parts,)),
        Case("a single Map output", (parts[:1],)),
        Case("outputs of chunks without mistakes",
             ([(np.zeros(int(rng.integers(2, 10))), 0)] * int(rng.integers(2, 6)),)),
    ]
    return Check("reduce_sums", cases, reference.reduce_sums, domain=_reduce_domain)


def _reduce_domain(outputs) -> str | None:
    return unmet(("outputs holds at least one (increment, mistakes) pair",
                  isinstance(outputs, list | tuple) and len(outputs) >= 1
                  and all(len(pair) == 2 for pair in outputs)),
                 ("the increments are vectors of one length, the mistakes whole numbers >= 0",
                  lambda: len({np.shape(increment) for increment, _ in outputs}) == 1
                  and np.ndim(outputs[0][0]) == 1 and all(whole(n) for _, n in outputs)))


def _round(w, chunks, eta):
    new_w, mistakes = reference.mapreduce_round(w, chunks, eta)
    return new_w, np.array(mistakes, dtype=float)


def mapreduce_round() -> Check:
    """Check ``mapreduce_round(w, chunks, eta)`` returns (new w, mistakes of each chunk), every
    chunk judged with the round's starting w (MMDS §12.2.8)."""
    rng = _rng(3)
    X, y = _sample(rng, 12, 3)
    w = rng.integers(-2, 3, 3).astype(float)
    cases = [
        Case("three chunks of different sizes", (w, _chunks(X, y, [5, 4, 3]), 1.0)),
        Case("a single chunk", (w, _chunks(X, y, [12]), 0.5)),
        Case("w = 0 (every score is 0)", (np.zeros(3), _chunks(X, y, [6, 6]), 1.0)),
        Case("many chunks of one example (one w for all of them, not updated in between)",
             (w, _chunks(X, y, [1] * 12), 1.0)),
    ]
    return Check("mapreduce_round", cases, _round, builds_on=("map_mistakes", "reduce_sums"),
                 domain=_round_domain)


def _mixing(w, chunks, eta):
    step = reference.parameter_mixing(chunks, eta=eta, max_rounds=1, w0=w).history[0]
    return step.w, np.array(step.mistakes, dtype=float)


def _no_zero_score(w, chunks, eta) -> bool:
    """True when no example scores exactly 0 in the chunks' sequential epochs from w."""
    for X, y in chunks:
        w_p = np.array(w, dtype=float)
        for x, label in zip(np.asarray(X, float), y, strict=True):
            score = label * (w_p @ x)
            if score == 0:
                return False
            if score < 0:
                w_p = w_p + eta * label * x
    return True


def mixing_round() -> Check:
    """Check ``mixing_round(w, chunks, eta)`` returns (the uniform average of the chunks' w_p,
    mistakes of each chunk), each w_p one sequential epoch over its chunk from the same w
    (McDonald, Hall and Mann 2010, Fig. 3; y·(w·x) <= 0 is a mistake, MMDS)."""
    rng = _rng(4)
    while True:  # only the w = 0 case meets a score of exactly 0, for every student's draw
        X, y = _sample(rng, 14, 3)
        w = rng.integers(-2, 3, 3).astype(float)
        if all(_no_zero_score(w, chunk, eta) for chunk, eta in
               ((_chunks(X, y, [7, 4, 3]), 1.0), (_chunks(X, y, [14]), 0.5),
                (_chunks(X[:4], y[:4], [1, 1, 1, 1]), 2.0))):
            break
    cases = [
        Case("three chunks of different sizes (each chunk counts equally in the average)",
             (w, _chunks(X, y, [7, 4, 3]), 1.0)),
        Case("a single chunk: one epoch of the sequential perceptron", (w, _chunks(X, y, [14]),
                                                                       0.5)),
        Case("w = 0: the first example of every chunk scores exactly 0",
             (np.zeros(3), _chunks(X, y, [5, 5, 4]), 1.0)),
        Case("chunks of one example each", (w, _chunks(X[:4], y[:4], [1, 1, 1, 1]), 2.0)),
    ]
    return Check("mixing_round", cases, _mixing, domain=_round_domain)


def _hinge_share(w, b, X, y, C):
    share, _, _ = reference.map_hinge(w, X, y, b=b, C=C)
    return share


def _hinge_domain(w, b, X, y, C) -> str | None:
    """The statement's promises: one chunk of at least one example, labels ±1, C > 0, and X, w
    and b multiples of 1/4, so every y·(w·x + b) is exact and a margin of 1 is exactly 1."""
    w = np.asarray(w, dtype=float)
    return unmet(("w has shape (d,) with d >= 1, X shape (n, d) with n >= 1 and y shape (n,)",
                  w.ndim == 1 and len(w) >= 1 and np.ndim(X) == 2 and np.shape(X)[0] >= 1
                  and np.shape(X)[1:] == w.shape and np.shape(y) == np.shape(X)[:1]),
                 ("y holds labels -1 and +1", lambda: labels(y)),
                 ("X, w and b hold multiples of 1/4",
                  lambda: multiples(X, 0.25) and multiples(w, 0.25) and multiples(b, 0.25)),
                 ("C > 0", lambda: finite(C) and C > 0))


def hinge_share() -> Check:
    """Check ``hinge_share(w, b, X, y, C)``: C·Σ over the points with y(w·x + b) < 1 of
    -y·[x, 1], a chunk's share of eq. 12.6's hinge term (MMDS §12.3.6); a point with
    y(w·x + b) = 1 exactly contributes 0 (eq. 12.5)."""
    rng = _rng(5)
    X, y = _sample(rng, 10, 3)
    w, b = rng.integers(-2, 3, 3) * 0.5, 0.5
    on_margin = 1.0 - float(X[0] @ w)  # the b that puts (X[0], +1) at y(w·x + b) = 1 exactly
    right = np.where(X @ w + b > 0, 1.0, -1.0)
    inside = int(np.argmax(y * (X @ w + b) < 1))  # a point that contributes
    cases = [
        Case("a chunk with some points inside the margin", (w, b, X, y, 0.5)),
        Case("the same chunk with C = 3", (w, b, X, y, 3.0)),
        Case("a single point exactly on the margin (y·(w·x + b) = 1 contributes 0)",
             (w, on_margin, X[:1], np.array([1.0]), 1.0)),
        Case("the same point a quarter inside the margin", (w, on_margin - 0.25, X[:1],
                                                            np.array([1.0]), 1.0)),
        Case("w = 0 and b = 0: every point is inside the margin", (np.zeros(3), 0.0, X, y, 1.0)),
        Case("labels that w gets right, some still inside the margin", (w, b, X, right, 2.0)),
        Case("a chunk of one example inside the margin",
             (w, b, X[inside:inside + 1], y[inside:inside + 1], 0.25)),
    ]
    return Check("hinge_share", cases, _hinge_share, domain=_hinge_domain)
