"""Hidden checks for the multiclass exercises (lecture 08, CS446 "Binary to Multiclass").

Each checker builds fresh inputs from a fixed seed (so a regrade gives the same score) and
describes the check; the grader computes the answers with mllib and compares.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from mllib import data
from mllib import multiclass as reference
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import decided, finite, multiples, unmet, whole
from mllib.perceptron import perceptron

# Hidden from the kernel while these exercises are graded (grader/kernel/sandbox.py).
REFERENCE = ("mllib.multiclass",)
_rng = seeded(20261208)


def _rows(X, y) -> np.ndarray:
    """The (row, label) pairs of an expansion, sorted: an order-free fingerprint (N, kd + 1)."""
    table = np.column_stack([np.asarray(X, dtype=float), np.asarray(y, dtype=float)])
    return table[np.lexsort(table.T[::-1])]


def _same_expansion(answer, expected, case: Case) -> str | None:
    """The Kesler rows may come in any order: compare them as a set of (row, label) pairs."""
    try:
        X_answer, y_answer = answer
        X_answer, y_answer = np.asarray(X_answer, dtype=float), np.asarray(y_answer, dtype=float)
    except (TypeError, ValueError):
        return "return the pair (X_kesler, y_kesler) of arrays"
    X_expected, y_expected = expected
    if X_answer.shape != X_expected.shape or y_answer.shape != y_expected.shape:
        return "for m examples and k classes expect 2m(k-1) rows of k·d numbers, and as many labels"
    if not np.allclose(_rows(X_answer, y_answer), _rows(X_expected, y_expected)):
        return "the set of (row, label) pairs is not the Kesler expansion"
    return None


def kesler() -> Check:
    """Check ``kesler_expand(X, y, k)`` returns the 2m(k-1) rows and labels, in any order."""
    rng = _rng(1)
    absent = next(y for y in (rng.integers(0, 4, 5) for _ in range(100)) if len(set(y)) < 4)
    cases = [
        Case("3 examples, k = 3, in 2-D", (rng.integers(-3, 4, (3, 2)).astype(float),
                                           rng.permutation(3), 3)),
        Case("5 examples, k = 4, in 3-D, some classes absent",
             (rng.normal(size=(5, 3)), absent, 4)),
        Case("one example, k = 2 (the binary case)", (rng.normal(size=(1, 4)), np.array([1]), 2)),
    ]

    def run(X, y, k):
        return reference.kesler(X, y, k)

    return Check("kesler_expand", cases, run, judge=_same_expansion, domain=_kesler_domain)


def _class_labels(y, k) -> bool:
    """Whether y holds whole-number labels 0 to k - 1 (the notebook's convention)."""
    y = np.asarray(y, dtype=float)
    return bool(multiples(y, 1) and np.all((y >= 0) & (y < k)))


def _kesler_domain(X, y, k) -> str | None:
    X = np.asarray(X)
    return unmet(("k is a whole number >= 2", whole(k, 2)),
                 ("X has shape (m, d) with m >= 1, and y shape (m,)",
                  X.ndim == 2 and len(X) >= 1 and np.shape(y) == (len(X),)),
                 ("the labels are 0 to k - 1", lambda: _class_labels(y, k)),
                 ("X is finite", finite(X)))


def _update(W, x, y):
    return reference.multiclass_perceptron(x[None, :], [y], k=len(W), max_epochs=1, W0=W).W


def conservative_update() -> Check:
    """Check ``conservative_update(W, x, y)`` (CS446 "Conservative update", ties to the lowest
    rival, a tie with the true label a mistake)."""
    rng = _rng(10)
    k, d = 4, 3
    while True:  # a unique best and worst score, so the first two cases say what they say
        W = rng.integers(-3, 4, (k, d)).astype(float)
        x = rng.integers(1, 3, d).astype(float)
        scores = np.sort(W @ x)
        if scores[1] > scores[0] and scores[-1] > scores[-2]:
            break
    scores = W @ x
    best, worst = int(np.argmax(scores)), int(np.argmin(scores))
    tied = np.array([[0.0, 0, 0], [1, 1, 1], [1, 1, 1], [-1, 0, 0]])  # 1 and 2 tie on top
    cases = [
        Case("an example already classified right (W unchanged)", (W, x, best)),
        Case("a mistake: the true class scores lowest", (W, x, worst)),
        Case("W = 0: every class ties with the true one", (np.zeros((k, d)), x, 2)),
        Case("two rivals tie for the highest score (demote the lower index)", (tied, x, 3)),
        Case("the true class ties with the best rival (a mistake)",
             (np.vstack([W[best], W]), x, 0)),
    ]
    return Check("conservative_update", cases, _update, domain=_conservative_domain)


def _conservative_domain(W, x, y) -> str | None:
    W, x = np.asarray(W), np.asarray(x)
    return unmet(("W has shape (k, d) with k >= 2, and x shape (d,)",
                  W.ndim == 2 and len(W) >= 2 and x.shape == (W.shape[1],)),
                 ("W and x are float arrays, never integer arrays",
                  W.dtype.kind == "f" and x.dtype.kind == "f"),
                 ("y is a label 0 to k - 1", lambda: whole(y) and _class_labels([y], len(W))),
                 ("W and x hold whole numbers, so every score and tie is exact",
                  lambda: multiples(W, 1) and multiples(x, 1)))


_DECIDED = "a tie is exact, and scores that differ differ by far more than rounding"


def _scores_decided(W, X) -> bool:
    """Whether every comparison of two rows' scores wᵢ·x, wⱼ·x comes out the same however
    they are computed (the tie rule then decides as written)."""
    return all(decided(np.append(W[i], -W[j]), np.append(x, x))
               for x in X for i in range(len(W)) for j in range(i + 1, len(W)))


def ova_predict() -> Check:
    """Check ``ova_predict(W, X)`` = argmaxᵢ wᵢ·x, ties to the lowest label."""
    rng = _rng(20)
    X, y = data.blobs(30, ((0, 3), (-3, 0), (3, 0), (0, -3)), seed=rng)
    Xb = np.hstack([X, np.ones((30, 1))])
    W = np.array([perceptron(Xb, np.where(y == c, 1.0, -1.0)).w for c in range(4)])
    ties = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    random_W, random_X = rng.normal(size=(5, 4)), rng.normal(size=(8, 4))
    # Quarters, so that the two tied scores x₀ are exact however they are computed.
    tied_X = np.round(rng.normal(size=(6, 2)) * 4) / 4
    tied_X[0] = np.sort(tied_X[0])[::-1] + [0.25, 0.0]
    cases = [  # the tie decides row 0 of tied_X (x₀ > x₁) for every student's draw
        Case("the weights of four one-vs-all perceptrons on 2-D points with a bias feature",
             (W, Xb)),
        Case("random weights for 5 classes", (random_W, random_X)),
        Case("classes 0 and 1 always tie (the lower label wins)", (ties, tied_X)),
        Case("all weights zero", (np.zeros((3, 2)), rng.normal(size=(4, 2)))),
    ]
    return Check("ova_predict", cases, reference.predict_linear, domain=_ova_domain)


def _ova_domain(W, X) -> str | None:
    W, X = np.asarray(W, dtype=float), np.asarray(X, dtype=float)
    return unmet(("W has shape (k, d) with k >= 1, and X shape (n, d)",
                  W.ndim == X.ndim == 2 and len(W) >= 1 and W.shape[1] == X.shape[1]),
                 ("W and X are finite", finite(W, X)),
                 (_DECIDED, lambda: _scores_decided(W, X)))


def _ava(V, X, k):
    pairs = tuple(combinations(range(k), 2))
    scorers = tuple((lambda Z, v=v: Z @ v) for v in np.asarray(V, dtype=float))
    return reference.predict_all_vs_all(reference.Reduction(k, pairs, scorers), X)


def ava_predict() -> Check:
    """Check ``ava_predict(V, X, k)``: majority vote of the pair classifiers (i, j), i < j, in
    lexicographic order; (i, j) votes i when v·x > 0, else j; ties to the lowest label."""
    rng = _rng(30)
    X, y = data.blobs(40, ((-3, 0), (0, 0), (3, 0)), seed=rng)
    Xb = np.hstack([X, np.ones((40, 1))])
    V = np.array([perceptron(Xb[(y == i) | (y == j)], np.where(y[(y == i) | (y == j)] == i, 1.0,
                                                                -1.0)).w
                  for i, j in combinations(range(3), 2)])
    # 0 beats 1, 2 beats 0, 1 beats 2 (the signs of v·x; sizes of the student's own): a 3-way tie
    cyclic = np.array([[1.0], [-1.0], [1.0]]) * rng.uniform(0.5, 2, (3, 1))
    cases = [
        Case("three pairwise perceptrons on classes in a row", (V, Xb, 3)),
        Case("random pair classifiers for k = 4", (rng.normal(size=(6, 3)),
                                                   rng.normal(size=(10, 3)), 4)),
        Case("every class gets one vote (a three-way tie goes to label 0)",
             (cyclic, rng.uniform(0.5, 2, (2, 1)), 3)),
        Case("a score of exactly 0 votes for j", (np.zeros((3, 2)), rng.normal(size=(3, 2)), 3)),
    ]
    return Check("ava_predict", cases, _ava, domain=_ava_domain)


def _ava_domain(V, X, k) -> str | None:
    V, X = np.asarray(V, dtype=float), np.asarray(X, dtype=float)
    return unmet(("k is a whole number >= 2", whole(k, 2)),
                 ("V has shape (k(k-1)/2, d) and X shape (n, d)",
                  lambda: V.ndim == X.ndim == 2 and V.shape == (k * (k - 1) // 2, X.shape[1])),
                 ("V and X are finite", finite(V, X)),
                 ("a score of exactly 0 is exact, other scores clearly away from 0",
                  lambda: all(decided(v, x) for v in V for x in X)))
