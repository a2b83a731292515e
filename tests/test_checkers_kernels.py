"""The lecture 07 checkers: right answers (written several ways) pass, typical slips fail."""

import re

import numpy as np
import pytest

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import kernels as check

# --- Right answers, as a student might write them -------------------------------------------


def kernel_vectorised(X, Z, degree, c):
    return (X @ Z.T + c) ** degree


def kernel_loops(X, Z, degree, c):
    return [[(sum(a * b for a, b in zip(x, z, strict=True)) + c) ** degree for z in Z] for x in X]


def map_slide_order(X):
    d = X.shape[1]
    columns = []
    for i in range(d):
        for j in range(i, d):
            columns.append(X[:, i] * X[:, j] * (1.0 if i == j else np.sqrt(2)))
    return np.column_stack(columns)


def map_other_order_and_signs(X):
    # Squares last, cross terms first with a minus sign: a different but equally valid φ.
    d = X.shape[1]
    cross = [-np.sqrt(2) * X[:, i] * X[:, j] for i in range(d) for j in range(i + 1, d)]
    return np.column_stack(cross + [X[:, i] ** 2 for i in range(d)])


def dual_scores_from_scratch(K, y, max_epochs=100):
    alpha = np.zeros(len(y))
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * np.sum(alpha * y * K[:, i]) <= 0:
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return alpha


def dual_as_list(K, y, max_epochs=100):
    return dual_scores_from_scratch(K, y, max_epochs).astype(int).tolist()


def predict_ok(alpha, y, K_new):
    return np.where((alpha * y) @ K_new > 0, 1, -1)


def predict_loops(alpha, y, K_new):
    out = []
    for column in np.asarray(K_new).T:
        score = sum(a * b * k for a, b, k in zip(alpha, y, column, strict=True))
        out.append(1 if score > 0 else -1)
    return out


# --- Typical slips ----------------------------------------------------------------------------


def kernel_forgets_c(X, Z, degree, c):
    return (X @ Z.T) ** degree


def map_without_sqrt2(X):
    d = X.shape[1]
    return np.column_stack([X[:, i] * X[:, j] for i in range(d) for j in range(i, d)])


def map_squares_only(X):
    return X ** 2


def map_row_by_row(X):
    # Right on every row, but a list of no rows becomes shape (0,), not (0, d(d+1)/2).
    return np.array([map_slide_order(x[None, :])[0] for x in X])


def dual_strict(K, y, max_epochs=100):  # a score of 0 is not counted as a mistake
    alpha = np.zeros(len(y))
    for _ in range(max_epochs):
        before = alpha.sum()
        for i in range(len(y)):
            if y[i] * np.sum(alpha * y * K[:, i]) < 0:
                alpha[i] += 1
        if alpha.sum() == before:
            break
    return alpha


def dual_one_pass(K, y, max_epochs=100):
    return dual_scores_from_scratch(K, y, 1)


def predict_sign(alpha, y, K_new):  # np.sign gives 0 for a score of 0
    return np.sign((alpha * y) @ K_new)


@pytest.mark.parametrize("checker, answer", [
    (check.polynomial_kernel, kernel_vectorised),
    (check.polynomial_kernel, kernel_loops),
    (check.quadratic_map, map_slide_order),
    (check.quadratic_map, map_other_order_and_signs),
    (check.dual_perceptron, dual_scores_from_scratch),
    (check.dual_perceptron, dual_as_list),
    (check.kernel_prediction, predict_ok),
    (check.kernel_prediction, predict_loops),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer, hint", [
    (check.polynomial_kernel, kernel_forgets_c, "c = 1"),
    (check.quadratic_map, map_without_sqrt2, "differs from"),
    (check.quadratic_map, map_squares_only, "d\\(d\\+1\\)/2"),
    (check.quadratic_map, map_row_by_row, "n = 0 rows"),
    (check.dual_perceptron, dual_strict, "score of 0 is a mistake"),
    (check.dual_perceptron, dual_one_pass, "rings"),
    (check.kernel_prediction, predict_sign, "all zero"),
])
def test_wrong_answers_fail_with_a_hint_but_no_answer(checker, answer, hint):
    with pytest.raises(ExerciseFailed, match=hint) as failure:
        run_check(checker(), answer)
    assert not re.search(r"\d\.\d{3,}|\[", str(failure.value)), "the message shows values"


def test_hidden_inputs_are_plain_data_and_fixed():
    for checker in (check.polynomial_kernel, check.quadratic_map, check.dual_perceptron,
                    check.kernel_prediction):
        assert checker().payload() == checker().payload()  # same seed, same inputs
