"""Helpers for a :class:`~mllib.grading.Check`'s ``domain``: what an exercise's statement
promises about its inputs.

A domain function takes a case's arguments and returns None when the statement defines the
answer for them, else the promise they break, in the statement's words. Most promises are plain
conditions (:func:`unmet`). A promise about a decision on computed numbers (a score of exactly
0 is a mistake; the smallest label wins a tied vote) also needs the decision to come out the
same however a student orders the floating-point operations: :func:`decided`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# A sum "clearly" has a sign when it is farther from 0 than this fraction of the sum of its
# terms' sizes: a sum of n rounded products errs by at most about n·2⁻⁵³ of that (n·1.1e-16),
# so no order of summation of up to a million terms can flip it.
CLEAR = 1e-9
_EXACT_BOUND = 2.0**52  # integers below this, and their sums, are exact in a float's 53 bits
_MAX_BITS = 60  # fractional bits tried when looking for a common power-of-2 denominator


def unmet(*promises: tuple[str, bool | Callable[[], bool]]) -> str | None:
    """The first promise (text, whether it holds) that does not hold, or None.

    A promise that can only be checked once the earlier ones hold (say, a shape before an
    index) gives a function of no arguments, called only then.
    """
    for text, holds in promises:
        if not (holds() if callable(holds) else holds):
            return text
    return None


def _binary_places(values: np.ndarray) -> int | None:
    """The fewest binary places p with every value a whole multiple of 2⁻ᵖ (every float is
    one, with up to 1074 places), or None when more than :data:`_MAX_BITS` are needed."""
    mantissa, exponent = np.frexp(values[values != 0])  # value = mantissa·2^exponent
    if mantissa.size == 0:
        return 0
    significand = np.abs(mantissa * 2.0**53).astype(np.int64)  # value = significand·2^(e-53)
    trailing_zeros = np.frexp((significand & -significand).astype(float))[1] - 1
    places = int(np.max(53 - exponent - trailing_zeros))
    return max(places, 0) if places <= _MAX_BITS else None


def _exact(factors: list[np.ndarray]) -> bool:
    """Whether every product and every partial sum, in any order, is exact in floating point:
    the factors are multiples of powers of 2 and the sum of the products' sizes, counted in
    units of their common denominator, stays below 2⁵². A product with a factor 0 is exactly
    0 whatever its other factors, so it is left out."""
    nonzero = np.all([f != 0 for f in factors], axis=0)
    scaled = []
    for factor in (f[nonzero] for f in factors):
        places = _binary_places(factor)
        if places is None:
            return False
        scaled.append(factor * 2.0**places)
    products = np.prod(scaled, axis=0)
    return bool(np.sum(np.abs(products)) < _EXACT_BOUND)


def decided(*factors) -> bool:
    """Whether the sign of Σₖ Πᶠ factors[f][k] comes out the same however it is computed.

    The factors are equal-length vectors (or numbers): ``decided(w, x)`` is about the sign of
    the dot product w·x; ``decided(np.append(w, -theta), np.append(x, 1))`` about w·x − θ;
    ``decided(np.append(w_a, -w_b), np.append(x, x))`` about whether w_a·x ties w_b·x. The sign
    is decided when every product and partial sum is exact in floating point (small integers,
    halves, quarters, ...; a sum of 0 is then exactly 0 in every order), or when the sum is
    farther from 0 than :data:`CLEAR` times the sum of the products' sizes.
    """
    vectors = [np.ravel(np.asarray(f, dtype=float)) for f in factors]
    vectors = [np.broadcast_to(v, np.broadcast_shapes(*(u.shape for u in vectors)))
               for v in vectors]
    if not all(np.all(np.isfinite(v)) for v in vectors):
        return False
    products = np.prod(vectors, axis=0)
    return (abs(math.fsum(products)) > CLEAR * float(np.sum(np.abs(products)))
            or _exact(vectors))


def multiples(values, step: float) -> bool:
    """Whether every value is a whole multiple of ``step`` (e.g. 1/8)."""
    scaled = np.asarray(values, dtype=float) / step
    return bool(np.all(np.isfinite(scaled)) and np.all(scaled == np.round(scaled)))


def labels(values, allowed=(-1, 1)) -> bool:
    """Whether every value is one of ``allowed`` (by default the labels -1 and +1)."""
    return bool(np.all(np.isin(np.asarray(values, dtype=float), allowed)))


def finite(*values) -> bool:
    """Whether every number in ``values`` (numbers or arrays) is finite."""
    return all(bool(np.all(np.isfinite(np.asarray(v, dtype=float)))) for v in values)


def whole(value, least: int = 0) -> bool:
    """Whether ``value`` is a whole number ≥ ``least`` (an int or an integral float)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer | float | np.floating):
        return False
    return math.isfinite(value) and float(value) == int(value) and int(value) >= least


def power_of_two(value) -> bool:
    """Whether ``value`` is 2ᵏ for a whole k (1, 2, ½, ¼, ...): a rate that keeps whole-number
    arithmetic exact."""
    return bool(finite(value) and value > 0 and math.frexp(value)[0] == 0.5)
