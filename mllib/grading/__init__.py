"""Checks that the exercise notebooks' test cells call.

Visible test cells compare a student's answer with the texts' worked numbers, typed as literals
(:func:`assert_close`). Hidden test cells make one call to a lecture checker (e.g.
``mllib.grading.perceptron``), which draws fresh inputs, computes the answer with mllib and
compares. A failure raises :class:`ExerciseFailed`: one short, helpful line that names the
situation that went wrong but neither the hidden inputs nor the expected answer, and no
traceback, so nothing of the checker leaks into nbgrader's feedback.

Answers are compared as plain float arrays built from the student's value, so an object that
claims to equal everything earns nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


def seeded(seed: int) -> Callable[[int], np.random.Generator]:
    """A lecture's source of hidden inputs: ``rng(k)`` is a fresh Generator seeded ``seed + k``.

    Fixed seeds make a regrade draw the same inputs and give the same score; a different ``k``
    per checker keeps the checkers' inputs independent.
    """
    return lambda offset: np.random.default_rng(seed + offset)


class ExerciseFailed(AssertionError):
    """A failed exercise check, shown as a single line without a traceback."""

    def _render_traceback_(self) -> list[str]:
        # IPython (and so nbgrader's feedback) prints what this returns instead of the stack.
        return [f"ExerciseFailed: {self}"]


def as_numbers(value, what: str) -> np.ndarray:
    """The student's value as a float array; a clear failure when it is not numbers."""
    try:
        numbers = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ExerciseFailed(
            f"{what} should be a number or a list/array of numbers; got {type(value).__name__}."
        ) from None
    if not np.all(np.isfinite(numbers)):
        raise ExerciseFailed(f"{what} contains NaN or inf.")
    return numbers


def _close(actual: np.ndarray, expected: np.ndarray, tolerance: float) -> bool:
    if actual.shape != expected.shape:
        return False
    error = np.abs(actual - expected) - tolerance * (1 + np.abs(expected))
    return bool(np.max(error, initial=-1.0) <= 0)


def assert_close(actual, expected, what: str, *, tolerance: float = 1e-9) -> None:
    """Fail unless ``actual`` equals the literal ``expected`` to ``tolerance`` (relative + abs).

    Used by visible tests, where showing both values helps the student.
    """
    got = as_numbers(actual, what)
    want = np.asarray(expected, dtype=float)
    if got.shape != want.shape:
        raise ExerciseFailed(f"{what} has shape {got.shape}; expected shape {want.shape}.")
    if not _close(got, want, tolerance):
        raise ExerciseFailed(f"{what} is {np.round(got, 6).tolist()}; "
                             f"expected {np.round(want, 6).tolist()}.")


@dataclass(frozen=True)
class Case:
    """One hidden test case: the arguments, and a description of the situation for hints."""

    hint: str
    args: tuple
    kwargs: dict = field(default_factory=dict)


def _copies(values):
    return tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


def _matches(got, expected, tolerance: float, what: str) -> bool:
    if isinstance(expected, tuple):
        if not isinstance(got, tuple | list) or len(got) != len(expected):
            raise ExerciseFailed(f"{what} should return {len(expected)} values, as a tuple.")
        return all(_matches(g, e, tolerance, what) for g, e in zip(got, expected, strict=True))
    return _close(as_numbers(got, f"The value {what} returns"), np.asarray(expected, float),
                  tolerance)


def check_cases(
    student: Callable,
    reference: Callable,
    cases: list[Case],
    *,
    name: str,
    tolerance: float = 1e-8,
) -> None:
    """Run ``student`` and ``reference`` on every case; raise :class:`ExerciseFailed` on the
    first case where they disagree or the student's function raises.

    Each function gets its own copies of array arguments, so a student function that modifies
    its inputs in place cannot change the reference answer.
    """
    if not callable(student):
        raise ExerciseFailed(f"{name} is not a function; did you run the cell that defines it?")
    for number, case in enumerate(cases, start=1):
        expected = reference(*_copies(case.args), **case.kwargs)
        try:
            got = student(*_copies(case.args), **case.kwargs)
        except NotImplementedError:
            raise ExerciseFailed(f"{name} is not implemented yet.") from None
        except Exception as error:  # the student's bug, reported without their stack
            raise ExerciseFailed(
                f"{name} raised {type(error).__name__} ({error}) on hidden case {number} of "
                f"{len(cases)}: {case.hint}."
            ) from None
        if not _matches(got, expected, tolerance, name):
            raise ExerciseFailed(
                f"{name} gives a wrong answer on hidden case {number} of {len(cases)}: "
                f"{case.hint}. Work that situation through by hand."
            )
