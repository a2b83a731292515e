"""Test cells decided outside the student's kernel.

Whatever runs in the kernel is the submission's to control: it can patch numpy, builtins,
IPython or the checkers, read its callers' frames, swallow exceptions or print a fake
verdict. So at grading time a test cell is not run as written. :func:`plan` reads it (its
source comes from the gradebook, not from the submission) and turns it into code that only
asks the kernel for the student's values, as plain data (:mod:`mllib.grading.wire`); the
grader then compares those values with what it computed itself and writes the verdict:

* a **visible test** (setup statements and top-level ``assert_close(actual, LITERAL, "what",
  tolerance=...)`` calls) runs its statements in the kernel with each ``assert_close``
  replaced by a call that records ``actual``; the literals are compared here;
* a **hidden test** (``hidden_test("topic.checker", function)``) sends the checker's inputs
  to the kernel, which calls the student's function and sends back the results; the reference
  answers are computed here and never enter the kernel. ``"checks.<checker>"`` names a checker
  of the assignment's own ``checks.py`` (:func:`mllib.grading.load_check`), read from the
  folder the caller gives (the assignment's folder in ``solutions/``).

A cell in neither form runs in the kernel as written (no course notebook has one: a test says
so).
"""

from __future__ import annotations

import ast
import importlib
import json
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mllib.grading import CHECKS, Check, checks_module, close_failure, judge, load_check, wire

WIRE_SOURCE = Path(wire.__file__).read_text()
PRELUDE = ('_mlcourse = {"__name__": "mlcourse_wire"}\n'
           f"exec({WIRE_SOURCE!r}, _mlcourse)\n")
HIDDEN_MARK = "### BEGIN HIDDEN TESTS"
KEPT = "_mlcourse_hidden_functions"  # the kernel's dict: hidden test key -> function


@dataclass(frozen=True)
class Expectation:
    """One ``assert_close`` of a visible test: the literal expected value and its message."""

    expected: object
    what: str
    tolerance: float


@dataclass(frozen=True)
class VisibleTest:
    """A visible test cell: the kernel runs ``code``, which records one value per
    expectation, in order."""

    code: str
    expectations: tuple[Expectation, ...]


@dataclass(frozen=True)
class HiddenTest:
    """A hidden test cell: ``check`` is run on the kernel's function ``check.function``."""

    key: str
    check: Check

    @property
    def keep_code(self) -> str:
        """Kernel code run where the test cell stands: keep the student's function as it is
        there (the cases are sent later, by :attr:`code`)."""
        return (f"{KEPT} = globals().get({KEPT!r}) or {{}}\n"
                f"{KEPT}[{self.key!r}] = globals().get({self.check.function!r})\n")

    @property
    def code(self) -> str:
        """Kernel code run after the notebook's last cell: call the function kept by
        :attr:`keep_code` on every case and send the results."""
        function = self.check.function
        return (f"{PRELUDE}_mlcourse['answers']({{{function!r}: {KEPT}.get({self.key!r})}}, "
                f"{function!r}, {self.check.payload()!r})\ndel _mlcourse\n")


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg,
              ast.UAdd: operator.pos}


def literal(node: ast.AST):
    """The value of a literal with arithmetic (``[1 / 3, 2 ** -1]``); ValueError otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool | str):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return [literal(element) for element in node.elts]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](literal(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](literal(node.left), literal(node.right))
    raise ValueError(f"not a literal: {ast.dump(node)[:60]}")


def _is_call(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == name)


def _expectation(call: ast.Call) -> Expectation:
    """The expected literal, message and tolerance of ``assert_close(actual, ...)``."""
    if len(call.args) != 3:
        raise ValueError("assert_close needs (actual, expected, what)")
    keywords = {k.arg: literal(k.value) for k in call.keywords}
    if set(keywords) - {"tolerance"}:
        raise ValueError("assert_close takes only tolerance= as a keyword")
    return Expectation(literal(call.args[1]), str(literal(call.args[2])),
                       float(keywords.get("tolerance", 1e-9)))


def _visible(source: str, tree: ast.Module) -> VisibleTest | None:
    lines = source.splitlines()
    expectations, code = [], []
    done = 0  # lines of ``source`` already copied into ``code``
    for statement in tree.body:
        if isinstance(statement, ast.Expr) and _is_call(statement.value, "assert_close"):
            call = statement.value
            expectations.append(_expectation(call))
            code += lines[done:statement.lineno - 1]
            actual = ast.get_source_segment(source, call.args[0])
            code.append(f"_mlcourse['record']({actual})")
            done = statement.end_lineno
        elif any(_is_call(node, "assert_close") for node in ast.walk(statement)):
            return None  # an assert_close inside a loop or a function: not this form
    if not expectations:
        return None
    code += lines[done:]
    return VisibleTest(PRELUDE + "\n".join(code) + "\n_mlcourse['emit_recorded']()\n"
                       "del _mlcourse\n", tuple(expectations))


def _hidden_key(tree: ast.Module) -> str | None:
    calls = [node for node in ast.walk(tree) if _is_call(node, "hidden_test")]
    if (len(calls) != 1 or not calls[0].args or not isinstance(calls[0].args[0], ast.Constant)
            or not isinstance(calls[0].args[0].value, str)):
        return None
    return calls[0].args[0].value


def hidden_key(source: str) -> str | None:
    """The checker key of a hidden test cell (``"perceptron.update_rule"``); None for any
    other cell."""
    if HIDDEN_MARK not in source:
        return None
    try:
        return _hidden_key(ast.parse(source))
    except SyntaxError:
        return None


def hidden_keys(sources: Iterable[str]) -> list[str]:
    """The checker keys of the hidden test cells among ``sources``, sorted."""
    return sorted({key for source in sources if (key := hidden_key(source))})


def _hidden(tree: ast.Module, folder: Path | None) -> HiddenTest | None:
    key = _hidden_key(tree)
    return None if key is None else HiddenTest(key, load_check(key, folder))


def reference_modules(key: str, folder: Path | None = None) -> tuple[str, ...]:
    """The mllib modules hidden from the kernel while ``key``'s exercise is graded: those
    that implement what the exercises ask for (``REFERENCE`` in the checker module, or in the
    assignment's own ``checks.py`` in ``folder``, which itself never reaches a kernel)."""
    topic = key.partition(".")[0]
    if topic == CHECKS:
        module = checks_module(folder)
    else:
        module = importlib.import_module(f"mllib.grading.{topic}")
    return tuple(getattr(module, "REFERENCE", ()))


def plan(source: str, folder: Path | None = None) -> VisibleTest | HiddenTest | None:
    """How to decide a test cell outside the kernel; None to run it in the kernel as written.

    ``folder`` holds the assignment's own ``checks.py``, for hidden tests that name it.
    Raises ValueError for a cell in the visible form whose ``assert_close`` is malformed (a
    non-literal expected value): the instructor's notebook must be fixed.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if HIDDEN_MARK in source:
        return _hidden(tree, folder)
    return _visible(source, tree)


def reply(outputs: list) -> dict | None:
    """The one message the kernel-side code sent, from a cell's outputs (None if not one)."""
    found = [output for output in outputs if output.get("output_type") == "display_data"
             and wire.MIME in output.get("data", {})]
    if len(found) != 1:
        return None
    try:
        message = json.loads(found[0]["data"][wire.MIME])
    except (TypeError, ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def visible_failures(test: VisibleTest, message: dict | None) -> list[str | None] | None:
    """Why each expectation of a visible test fails (None where it passes), in order, from the
    recorded values; None when the values did not all arrive."""
    values = (message or {}).get("values")
    if not isinstance(values, list) or len(values) != len(test.expectations):
        return None
    return [_expectation_failure(tree, expectation)
            for tree, expectation in zip(values, test.expectations, strict=True)]


def _expectation_failure(tree: object, expectation: Expectation) -> str | None:
    try:
        actual = wire.decode(tree)
    except Exception:  # noqa: BLE001 -- an unreadable value fails the test
        return f"{expectation.what} could not be read"
    if isinstance(actual, wire.Opaque):
        return (f"{expectation.what} should be a number or a list/array of numbers; got "
                f"{actual.type_name}.")
    return close_failure(actual, expectation.expected, expectation.what, expectation.tolerance)


def verdict_visible(test: VisibleTest, message: dict | None) -> str | None:
    """Why a visible test fails (None when it passes): its first failing expectation."""
    failures = visible_failures(test, message)
    if failures is None:
        return "the test did not run to the end"
    return next((failure for failure in failures if failure), None)


def verdict_hidden(test: HiddenTest, message: dict | None, failing: set[str],
                   expected: list) -> str | None:
    """Why a hidden test fails (None when it passes), judged against the reference answers
    ``expected`` (``test.check.expected()``, unused when ``message`` is None)."""
    if message is None:
        return f"{test.check.function} could not be run on the hidden cases."
    return judge(test.check, message, expected, sorted(failing))
