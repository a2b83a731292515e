"""The exercise notebooks' checks: visible tests with the texts' numbers, hidden tests on fresh
inputs.

**Visible tests** call :func:`assert_close` on a student's value and a literal typed from the
texts' worked numbers, so the student sees both values when they differ.

**Hidden tests** are decided where the submission cannot reach them. A lecture's checker
module (``mllib.grading.<topic>``) has one function per exercise that returns a :class:`Check`:
the name of the student's function, fresh inputs drawn from fixed seeds (:func:`seeded`, so a
regrade gives the same score; while grading, mixed with each student's :func:`variant`, so each
student has inputs of their own), and the reference that computes each answer. At grading time
the grader (``grader/pipeline/outside.py``) sends the inputs to the sandboxed kernel, gets back what
the student's function returned as plain data (:mod:`mllib.grading.wire`), and judges it in its own
process with :func:`judge`; the expected answers never enter the kernel. In a notebook run
outside grading, the hidden cell's :func:`hidden_test` call does the same in one process
(:func:`run_check`), through the same encoding and the same judgement.

A failure is an :class:`ExerciseFailed`: one short line that names the situation that went
wrong (the case's hint) but neither the hidden inputs nor the expected answer.

**An instructor's own checks** live beside their assignment, in ``solutions/<assignment>/
checks.py`` (:data:`CHECKS`), and are named ``"checks.<checker>"`` in a hidden test cell. They
use the same public names as the lecture modules (:data:`__all__`): :class:`Check`,
:class:`Case`, :func:`seeded`, a ``judge`` function where the answer is not unique
(:func:`close_failure` helps write one), and a reference function of the instructor's own.
The grader loads that file in its own process; nbgrader never copies it into a release or a
submission (``grader/nbgrader_config.py`` ignores it), so no kernel can import it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np

from mllib.grading import wire

# The authoring API: what a checks module (a lecture's, or an instructor's own checks.py) uses.
__all__ = ["CHECKS", "Case", "Check", "ExerciseFailed", "assert_close", "checks_module",
           "close_failure", "hidden_test", "load_check", "run_check", "seeded", "variant", "wire"]

CHECKS = "checks"  # hidden_test("checks.<checker>", f) names the assignment's own checks.py

_variant: ContextVar[bytes | None] = ContextVar("hidden_input_variant", default=None)


@contextmanager
def variant(key: bytes | None) -> Iterator[None]:
    """Draw hidden inputs for one student: inside, every :func:`seeded` source mixes ``key``
    into its seeds.

    The grader passes the HMAC of the course secret, the assignment, the exercise and the
    student id (``grader/pipeline/secret.py``); ``None`` (the default, e.g. on a student's machine)
    draws the course's fixed inputs. A checker keeps its structure under every variant (a tie case
    is still a tie): only the numbers its generator draws change.
    """
    token = _variant.set(key)
    try:
        yield
    finally:
        _variant.reset(token)


def seeded(seed: int) -> Callable[[int], np.random.Generator]:
    """A lecture's source of hidden inputs: ``rng(k)`` is a fresh Generator.

    Seeded ``seed + k`` outside a :func:`variant`, and from ``(variant, seed + k)`` inside one.
    Fixed seeds make a regrade draw the same inputs and give the same score; a different ``k``
    per checker keeps the checkers' inputs independent.
    """

    def rng(offset: int) -> np.random.Generator:
        key = _variant.get()
        if key is None:
            return np.random.default_rng(seed + offset)
        return np.random.default_rng([int.from_bytes(key, "big"), seed + offset])

    return rng


class ExerciseFailed(AssertionError):
    """A failed exercise check, shown as a single line without a traceback."""

    def _render_traceback_(self) -> list[str]:
        # IPython (and so nbgrader's feedback) prints what this returns instead of the stack.
        return [f"ExerciseFailed: {self}"]


def as_numbers(value, what: str) -> np.ndarray:
    """The student's value as a float array; a clear failure when it is not numbers."""
    if value is None:
        raise ExerciseFailed(f"{what} is None: did the function forget to `return` its result?")
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


def _shown(value, numbers: np.ndarray):
    """How a value is printed in a message: booleans as True/False, numbers to 6 digits."""
    if np.asarray(value).dtype == bool:
        return np.asarray(value).tolist()
    return np.round(numbers, 6).tolist()


def close_failure(actual, expected, what: str, tolerance: float = 1e-9) -> str | None:
    """Why ``actual`` is not ``expected`` to ``tolerance`` (relative + absolute); None if it is.

    The judgement of :func:`assert_close`, which the grader also applies outside the kernel.
    """
    try:
        got = as_numbers(actual, what)
    except ExerciseFailed as failure:
        return str(failure)
    want = np.asarray(expected, dtype=float)
    if got.shape != want.shape:
        return f"{what} has shape {got.shape}; expected shape {want.shape}."
    if not _close(got, want, tolerance):
        return f"{what} is {_shown(actual, got)}; expected {_shown(expected, want)}."
    return None


def assert_close(actual, expected, what: str, *, tolerance: float = 1e-9) -> None:
    """Fail unless ``actual`` equals the literal ``expected`` to ``tolerance`` (relative + abs).

    Used by visible tests, where showing both values helps the student. The expected value is
    a literal, so the grader can read it from the test cell's source and decide outside the
    kernel.
    """
    failure = close_failure(actual, expected, what, tolerance)
    if failure:
        raise ExerciseFailed(failure)


@dataclass(frozen=True)
class Case:
    """One hidden test case: the arguments (plain data), and the situation, for hints.

    A case's inputs derive from the student's variant (:func:`seeded`), so no two students
    share one, unless the exercise's statement itself gives the answer for them: ``stated`` is
    then the statement's words that do (``tests/test_variants.py`` finds them in the notebook).
    """

    hint: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    stated: str = ""


Judge = Callable[[object, object, Case], "str | None"]
Domain = Callable[..., "str | None"]


@dataclass(frozen=True)
class Check:
    """What one hidden test asks of the student's function.

    Parameters
    ----------
    function : str
        The name the notebook asks the student to define, e.g. ``"perceptron_update"``.
    cases : sequence of Case
        Inputs as plain data (arrays, numbers, strings, lists/tuples/dicts of them,
        :class:`wire.Lookup` tables for function arguments).
    reference : callable
        ``reference(*case.args, **case.kwargs)`` is the expected answer.
    tolerance : float
        Relative + absolute tolerance of the default comparison (float arrays; a tuple
        reference means "return a tuple of that many values", compared element-wise).
    judge : callable, optional
        ``judge(answer, expected, case)`` returns None to accept or a short reason; for
        answers that are not unique (check the property that defines them). The reason must
        not reveal hidden inputs or answers.
    builds_on : tuple of str
        Earlier exercise functions this one calls: a failure then says which of them fail.
    domain : callable, optional
        The inputs the exercise's statement answers, written from the statement (not from the
        reference): ``domain(*case.args, **case.kwargs)`` returns None when the statement
        defines the answer for these inputs, else the promise of the statement they break
        (e.g. ``"q is never a row of X"``). Every hidden case must lie inside it
        (:meth:`outside_domain`; ``mllib.grading.domain`` has helpers).
    """

    function: str
    cases: Sequence[Case]
    reference: Callable
    tolerance: float = 1e-8
    judge: Judge | None = None
    builds_on: tuple[str, ...] = ()
    domain: Domain | None = None

    def payload(self) -> str:
        """The cases as JSON text for the kernel (inputs only, never answers)."""
        return json.dumps([[wire.encode(c.args), wire.encode(c.kwargs)] for c in self.cases])

    def outside_domain(self) -> list[str]:
        """``"hint: broken promise"`` for every case whose inputs the statement leaves open
        (none without a ``domain``)."""
        if self.domain is None:
            return []
        reasons = ((case.hint, self.domain(*case.args, **case.kwargs)) for case in self.cases)
        return [f"{hint}: {reason}" for hint, reason in reasons if reason is not None]

    def expected(self) -> list:
        """The reference answer of every case, computed on private copies of the inputs."""
        return [self.reference(*wire.loads(wire.dumps(c.args)), **wire.loads(wire.dumps(c.kwargs)))
                for c in self.cases]


WRONG = "wrong"  # _matches: the numbers differ (as opposed to a message on the answer's form)


def _matches(answer, expected, tolerance: float, name: str) -> str | None:
    """Why ``answer`` does not match ``expected``: None when it does, :data:`WRONG` when the
    numbers differ, or a message about the answer's form."""
    if isinstance(expected, tuple):
        if not isinstance(answer, tuple | list) or len(answer) != len(expected):
            return f"{name} should return {len(expected)} values, as a tuple."
        for got, want in zip(answer, expected, strict=True):
            failure = _matches(got, want, tolerance, name)
            if failure:
                return failure
        return None
    if isinstance(answer, wire.Opaque):
        return (f"The value {name} returns should be a number or a list/array of numbers; got "
                f"{answer.type_name}.")
    try:
        got = as_numbers(answer, f"The value {name} returns")
    except ExerciseFailed as failure:
        return str(failure)
    return None if _close(got, np.asarray(expected, float), tolerance) else WRONG


def judge(check: Check, reply: dict, expected: list, failing: Sequence[str] = ()) -> str | None:
    """The verdict on a kernel's reply to ``check``: None if every case passes, else the
    one-line message for the first failing case.

    Parameters
    ----------
    check : Check
        The hidden test.
    reply : dict
        What the kernel sent (:func:`wire.answers`): ``{"missing": name}`` or
        ``{"results": [{"value": tree} | {"error": type name}, ...]}``.
    expected : list
        ``check.expected()``.
    failing : sequence of str
        Functions of ``check.builds_on`` that fail their own hidden test.
    """
    name, total = check.function, len(check.cases)
    if "missing" in reply:
        return f"{name} is not defined: did you run the cell that defines it?"
    results = reply.get("results")
    if not isinstance(results, list) or len(results) != total:
        return f"{name} could not be run on the hidden cases."
    note = "".join(f" It calls your {f}, which fails its own hidden test: fix that first."
                   for f in check.builds_on if f in failing)
    for number, (case, result, want) in enumerate(zip(check.cases, results, expected,
                                                      strict=True), start=1):
        where = f"hidden case {number} of {total}: {case.hint}"
        if not isinstance(result, dict):
            return f"{name} could not be run on {where}."
        if "error" in result:
            if result["error"] == "NotImplementedError":
                return f"{name} is not answered yet."
            # Only the type, and only a known one: the message and a class's name are the
            # student's text, which could spell out the hidden inputs.
            raised = wire.known_type(result["error"], "an exception")
            return f"{name} raised {raised} on {where}.{note}"
        try:
            answer = wire.decode(result["value"])
        except Exception:  # noqa: BLE001 -- a malformed reply is a wrong answer
            return f"{name} returned something that could not be read on {where}."
        if check.judge is not None:
            reason = check.judge(answer, want, case)
            if reason:
                return f"{name} gives a wrong answer on {where} ({reason}).{note}"
            continue
        failure = _matches(answer, want, check.tolerance, name)
        if failure is WRONG:
            return (f"{name} gives a wrong answer on {where}. Work that situation through by "
                    f"hand.{note}")
        if failure:
            return f"{failure} (On {where}.){note}"
    return None


def checks_module(folder: str | Path | None = None) -> ModuleType:
    """The instructor's ``checks.py`` in ``folder`` (default: the working directory), freshly
    executed, so that an edit counts at once.

    Loaded under a name of its own per folder, so two assignments' modules never mix; it is not
    on ``sys.path``, so it should hold its reference functions itself.
    """
    path = (Path(folder) if folder is not None else Path.cwd()).resolve() / f"{CHECKS}.py"
    if not path.is_file():
        raise ModuleNotFoundError(f"no {path}: an assignment's own checks go in a file "
                                  f"{CHECKS}.py beside its notebooks")
    name = f"_course_checks_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_check(key: str, folder: str | Path | None = None) -> Check:
    """The :class:`Check` named ``key``.

    ``"<topic>.<checker>"`` calls ``checker()`` of the lecture module ``mllib.grading.<topic>``
    (e.g. ``"perceptron.update_rule"``); ``"checks.<checker>"`` calls it in the instructor's
    ``checks.py`` in ``folder`` (:func:`checks_module`; in a notebook's kernel, the notebook's
    folder). Raises ValueError when the checker returns something else than a :class:`Check`.
    """
    topic, _, checker = key.partition(".")
    if topic == CHECKS:
        module = checks_module(folder)
    else:
        module = importlib.import_module(f"mllib.grading.{topic}")
    check = getattr(module, checker)()
    if not isinstance(check, Check):
        raise ValueError(f"{key}() returned {type(check).__name__}, not a Check")
    return check


def run_check(check: Check, student: Callable) -> None:
    """Run ``check`` on ``student`` in this process, as the grader would in the sandbox.

    The inputs and answers go through the same encoding as between grader and kernel, and
    the same :func:`judge` decides. Raises :class:`ExerciseFailed` on failure.
    """
    if not callable(student):
        raise ExerciseFailed(f"{check.function} is not a function; did you run the cell that "
                             "defines it?")
    results = wire.call_each(student, json.loads(check.payload()))
    reply = json.loads(json.dumps({"results": results}))
    failure = judge(check, reply, check.expected())
    if failure:
        raise ExerciseFailed(failure)


def hidden_test(key: str, student: Callable) -> None:
    """A hidden test cell's one call: ``hidden_test("perceptron.update_rule", perceptron_update)``.

    When a submission is graded, the grader reads this call from the cell instead of running
    it, and decides outside the kernel; elsewhere it runs the check here (:func:`run_check`).
    """
    run_check(load_check(key), student)
