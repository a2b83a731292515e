"""The lecture 08 checkers: right answers (written several ways) pass, typical slips fail."""

import re
from itertools import combinations

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import multiclass as check

# --- Right answers, as a student might write them -------------------------------------------


def kesler_ok(X, y, k):
    m, d = X.shape
    rows, labels = [], []
    for x, i in zip(X, y, strict=True):
        for j in range(k):
            if j != i:
                row = np.zeros(k * d)
                row[i * d:(i + 1) * d] = x
                row[j * d:(j + 1) * d] = -x
                rows += [row, -row]
                labels += [1, -1]
    return np.array(rows), np.array(labels)


def kesler_positives_first(X, y, k):
    # All positive rows, then all negative ones: another order, the same set.
    Xk, yk = kesler_ok(X, y, k)
    order = np.argsort(-yk, kind="stable")
    return Xk[order], yk[order]


def conservative_ok(W, x, y):
    scores = W @ x
    rivals = [j for j in range(len(W)) if j != y]
    best = max(rivals, key=lambda j: (scores[j], -j))  # highest score, then lowest index
    if scores[best] < scores[y]:
        return W
    W = W.copy()
    W[y] += x
    W[best] -= x
    return W


def conservative_masked(W, x, y):
    scores = (W @ x).astype(float)
    scores[y] = -np.inf
    best = int(np.argmax(scores))
    if scores[best] >= W[y] @ x:
        W = W + 0.0
        W[y], W[best] = W[y] + x, W[best] - x
    return W


def ova_ok(W, X):
    return np.argmax(X @ W.T, axis=1)


def ova_loops(W, X):
    labels = []
    for x in X:
        scores = [float(np.dot(w, x)) for w in W]
        labels.append(scores.index(max(scores)))  # the first maximum: the lowest label
    return labels


def ava_ok(V, X, k):
    votes = np.zeros((len(X), k), dtype=int)
    for v, (i, j) in zip(V, combinations(range(k), 2), strict=True):
        winner = np.where(X @ v > 0, i, j)
        votes[np.arange(len(X)), winner] += 1
    return votes.argmax(axis=1)


def ava_dicts(V, X, k):
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    out = []
    for x in X:
        count = dict.fromkeys(range(k), 0)
        for v, (i, j) in zip(V, pairs, strict=True):
            count[i if v @ x > 0 else j] += 1
        top = max(count.values())
        out.append(min(c for c in count if count[c] == top))
    return out


# --- Typical slips ----------------------------------------------------------------------------


def kesler_positives_only(X, y, k):
    Xk, yk = kesler_ok(X, y, k)
    return Xk[yk > 0], yk[yk > 0]


def kesler_slide_sign_slip(X, y, k):  # (w_{y'} − w_y) instead of (w_y − w_{y'})
    Xk, yk = kesler_ok(X, y, k)
    return -Xk, yk


def conservative_strict(W, x, y):  # a tie with the true label is not counted as a mistake
    scores = W @ x
    rivals = [j for j in range(len(W)) if j != y]
    best = max(rivals, key=lambda j: (scores[j], -j))
    if scores[best] <= scores[y]:
        return W
    return conservative_ok(W, x, y)


def conservative_demotes_all(W, x, y):
    scores = W @ x
    W = W.copy()
    wrong = [j for j in range(len(W)) if j != y and scores[j] >= scores[y]]
    for j in wrong:
        W[j] -= x
        W[y] += x
    return W


def ova_highest_label_on_ties(W, X):
    scores = X @ W.T
    return scores.shape[1] - 1 - np.argmax(scores[:, ::-1], axis=1)


def ava_zero_votes_i(V, X, k):
    votes = np.zeros((len(X), k), dtype=int)
    for v, (i, j) in zip(V, combinations(range(k), 2), strict=True):
        votes[np.arange(len(X)), np.where(X @ v >= 0, i, j)] += 1
    return votes.argmax(axis=1)


@pytest.mark.parametrize("checker, answer", [
    (check.kesler, kesler_ok),
    (check.kesler, kesler_positives_first),
    (check.conservative_update, conservative_ok),
    (check.conservative_update, conservative_masked),
    (check.ova_predict, ova_ok),
    (check.ova_predict, ova_loops),
    (check.ava_predict, ava_ok),
    (check.ava_predict, ava_dicts),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.kesler, kesler_positives_only, "2m\\(k-1\\) rows"),
    (check.kesler, kesler_slide_sign_slip, "not the Kesler expansion"),
    (check.conservative_update, conservative_strict, "every class ties"),
    (check.conservative_update, conservative_demotes_all, "true class scores lowest"),
    (check.ova_predict, ova_highest_label_on_ties, "lower label wins"),
    (check.ava_predict, ava_zero_votes_i, "exactly 0"),
])
def test_wrong_answers_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


def test_hidden_inputs_are_fixed():
    for checker in (check.kesler, check.conservative_update, check.ova_predict,
                    check.ava_predict):
        assert checker().payload() == checker().payload()

