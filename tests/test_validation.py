"""Tests for mllib.validation, the shared input checks behind every public mllib function."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.validation import (
    as_binary,
    as_data,
    as_labels,
    as_matrix,
    as_vector,
    positive,
    positive_int,
)


def test_as_matrix_returns_a_float_matrix():
    X = as_matrix([[1, 2], [3, 4]])
    assert X.dtype == np.float64 and X.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize(
    ("X", "message"),
    [
        ([1.0, 2.0], r"X must be a 2-D array of shape \(n, d\); got 1 dimension"),
        (np.zeros((2, 2, 2)), r"got 3 dimension"),
        (np.empty((0, 3)), r"X is empty"),
        ([[1.0, np.nan]], r"X contains NaN or inf"),
        ([[1.0, -np.inf]], r"X contains NaN or inf"),
    ],
)
def test_as_matrix_rejects(X, message):
    with pytest.raises(ValueError, match=message):
        as_matrix(X)


def test_as_matrix_names_the_argument():
    with pytest.raises(ValueError, match=r"^Q is empty"):
        as_matrix(np.empty((0, 1)), "Q")


def test_as_vector_checks_shape_length_and_finiteness():
    assert as_vector([1, 2], "w", 2).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"w must be a 1-D vector; got shape \(2, 1\)"):
        as_vector([[1], [2]], "w")
    with pytest.raises(ValueError, match=r"w has length 2, but the data has 3 features"):
        as_vector([1, 2], "w", 3)
    with pytest.raises(ValueError, match=r"w contains NaN or inf"):
        as_vector([1, np.inf], "w")


def test_as_labels_accepts_plus_minus_one_in_any_numeric_form():
    assert as_labels([1, -1, 1]).tolist() == [1.0, -1.0, 1.0]
    assert as_labels(np.array([1.0, -1.0])).dtype == np.float64
    assert as_labels(np.array([1, -1], dtype=np.int8), 2).tolist() == [1.0, -1.0]


@pytest.mark.parametrize(
    ("y", "message"),
    [
        ([0, 1, 1], r"labels must be -1 or \+1; found \[0\.0\].*y = 2\*y - 1"),
        ([True, False], r"labels must be -1 or \+1; found \[0\.0\]"),
        ([1, 2, 3], r"found \[2\.0, 3\.0\]"),
        ([1, np.nan], r"labels must be -1 or \+1"),
        (["yes", "no"], r"labels must be the numbers -1 and \+1"),
        ([[1, -1]], r"y must be a 1-D vector of labels; got shape \(1, 2\)"),
    ],
)
def test_as_labels_rejects(y, message):
    with pytest.raises(ValueError, match=message):
        as_labels(y)


def test_as_data_checks_that_rows_and_labels_match():
    X, y = as_data([[1, 2], [3, 4]], [1, -1])
    assert X.shape == (2, 2) and y.tolist() == [1, -1]
    with pytest.raises(ValueError, match=r"X has 2 rows but y has 3 labels; they must match"):
        as_data([[1, 2], [3, 4]], [1, -1, 1])


def test_as_binary():
    assert as_binary([[0, 1], [1, 1]]).tolist() == [[0, 1], [1, 1]]
    for bad in ([[0, 2]], [[0.5, 1]], [[-1, 1]]):
        with pytest.raises(ValueError, match=r"X must be binary \(every feature 0 or 1\)"):
            as_binary(bad)


@pytest.mark.parametrize("value", [0, -1, -np.inf, np.inf, np.nan])
def test_positive_rejects(value):
    with pytest.raises(ValueError, match=r"eta must be a positive number"):
        positive(value, "eta")


def test_positive_returns_a_float():
    assert positive(3, "eta") == 3.0 and isinstance(positive(3, "eta"), float)


@pytest.mark.parametrize("value", [0, -2, 2.5, True, False])
def test_positive_int_rejects(value):
    with pytest.raises(ValueError, match=r"k must be a whole number >= 1"):
        positive_int(value, "k")


def test_positive_int_accepts_whole_numbers_in_any_type():
    assert positive_int(3, "k") == 3
    assert positive_int(3.0, "k") == 3 and isinstance(positive_int(3.0, "k"), int)
    assert positive_int(np.int64(4), "k") == 4


@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_positive_int_rejects_non_finite_numbers_with_its_own_message(value):
    with pytest.raises(ValueError, match=r"k must be a whole number >= 1"):
        positive_int(value, "k")


def test_as_matrix_rejects_data_without_features():
    # With no features w·x is always 0: a perceptron errs on every row, forever.
    with pytest.raises(ValueError, match="X"):
        as_matrix(np.empty((3, 0)))
