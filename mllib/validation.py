"""Shared input checks. Every public function in mllib validates through these, so a student
sees the same clear ``ValueError`` wherever bad data goes in."""

from __future__ import annotations

import numpy as np


def as_matrix(X, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
    """Return ``X`` as a finite float array of shape (n, d) with n >= 1 (n >= 0 when
    ``allow_empty``: a row-by-row map of no rows is no rows)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, d); got {X.ndim} dimension(s).")
    if X.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty: it needs at least one example (row).")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no features (columns): shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf; every feature must be a finite number.")
    return X


def as_vector(v, name: str, length: int | None = None) -> np.ndarray:
    """Return ``v`` as a finite float array of shape (length,)."""
    v = np.asarray(v, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector; got shape {v.shape}.")
    if length is not None and v.shape[0] != length:
        raise ValueError(f"{name} has length {v.shape[0]}, but the data has {length} features.")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or inf.")
    return v


def label_vector(y, n: int | None, allowed: str) -> np.ndarray:
    """Labels as a float vector of shape (n,): one label per row of X, numbers only.

    ``allowed`` names the valid labels in the message, e.g. "the numbers -1 and +1".
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D vector of labels; got shape {y.shape}.")
    if n is not None and y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels; they must match.")
    try:
        return y.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"labels must be {allowed}.") from None


def as_labels(y, n: int | None = None) -> np.ndarray:
    """Return labels as a float array of shape (n,) with every entry in {-1, +1}."""
    y = label_vector(y, n, "the numbers -1 and +1")
    bad = ~np.isin(y, (-1.0, 1.0))
    if np.any(bad):
        raise ValueError(
            f"labels must be -1 or +1; found {sorted(set(np.unique(y[bad]).tolist()))}. "
            "(Labels in {0, 1}? Map them with y = 2*y - 1.)"
        )
    return y


def as_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a labelled sample: X of shape (n, d), y of shape (n,) in {-1, +1}."""
    X = as_matrix(X)
    return X, as_labels(y, X.shape[0])


def as_binary(X, name: str = "X", *, why: str = "") -> np.ndarray:
    """Return ``X`` as a float array of shape (n, d) whose entries are all 0 or 1.

    ``why`` ends the error message, e.g. ": Winnow works on 0/1 features".
    """
    X = as_matrix(X, name)
    if not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{name} must be binary (every feature 0 or 1){why}.")
    return X


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def finite(value, name: str) -> float:
    """Return ``value`` as a float, requiring it to be a finite number."""
    number = _number(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    return number


def positive(value, name: str) -> float:
    """Return ``value`` as a float, requiring it to be finite and > 0."""
    number = _number(value)
    if not (np.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    return number


def positive_int(value, name: str) -> int:
    """Return ``value`` as an int >= 1."""
    return _whole_number(value, name, 1)


def count(value, name: str) -> int:
    """Return ``value`` as an int >= 0 (a number of steps, say, where none is allowed)."""
    return _whole_number(value, name, 0)


def _whole_number(value, name: str, least: int) -> int:
    number = _number(value)
    whole = not isinstance(value, bool) and np.isfinite(number) and number == int(number)
    if not whole or number < least:
        raise ValueError(f"{name} must be a whole number >= {least}; got {value!r}.")
    return int(number)
