"""What every case of a test cell did, recorded at grading time for the report.

A test cell's verdict names only its first failure, which is what the student sees. The
report's "What the class got wrong" (:mod:`grader.review.misses`) counts every case instead, so when
:class:`grader.pipeline.preprocessors.GradingExecute` decides a test cell it also writes a
:class:`Record` into the cell's metadata under :data:`KEY`, in the autograded notebook:

* a **hidden test**: one :class:`CaseOutcome` per case, its situation being the case's hint, and
  its slip what the checker said went wrong, without the case (each case is judged alone by
  :func:`mllib.grading.judge`, the function that decides the verdict);
* a **visible test**: one outcome per ``assert_close`` (its situation is the test's own "what"
  text) when the cell ran to the end; when it stopped on an error, one outcome naming the error:
  the test's own message for an ``assert`` or ``raise AssertionError`` of the test cell, else
  the error's type.

A test whose cases could not be judged one by one (the function is not defined or not written
yet, the kernel stopped) records why instead. Nothing here changes a verdict or a score. The
record is the grader's alone: :func:`clear` drops any the submission carries before grading,
the cluster's replay carries the worker's over (:func:`carry`), and feedback leaves it out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from nbformat import NotebookNode

from grader.pipeline.outside import HiddenTest, VisibleTest, visible_failures
from mllib.grading import judge, wire

KEY = "mlcourse_cases"  # cell metadata of the autograded notebook
HIDDEN, VISIBLE = "hidden", "visible"
NOT_DEFINED = "the function is not defined"
NOT_ANSWERED = "not answered yet"
NOT_RUN = "did not run to the end (the kernel stopped, or the time limit)"
UNREADABLE = "the kernel's reply could not be read"
PLACE = "\0"  # stands for the hint of a case judged alone, then cut out of the verdict


@dataclass(frozen=True)
class CaseOutcome:
    """One case of one test for one student.

    ``situation`` is what the case tests (a hidden case's hint, a visible check's "what");
    ``slip`` is what a hidden checker said went wrong (empty when the case passed, and for
    visible checks), with neither the case's inputs nor its answer.
    """

    situation: str
    failed: bool
    slip: str = ""


@dataclass(frozen=True)
class Record:
    """The outcomes of one test cell; ``unjudged`` says why there are none."""

    test: str  # HIDDEN or VISIBLE
    check: str = ""  # the hidden test's checker key, e.g. "perceptron.update_rule"
    cases: tuple[CaseOutcome, ...] = ()
    unjudged: str = ""

    def as_json(self) -> dict:
        """The record as cell metadata (plain JSON)."""
        return {"test": self.test, "check": self.check, "unjudged": self.unjudged,
                "cases": [[c.situation, c.failed, c.slip] for c in self.cases]}

    @classmethod
    def from_json(cls, data: dict) -> Record:
        """The record :meth:`as_json` wrote; ValueError when it is not one."""
        try:
            cases = tuple(CaseOutcome(str(s), bool(f), str(slip)) for s, f, slip in data["cases"])
            return cls(str(data["test"]), str(data["check"]), cases, str(data["unjudged"]))
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"not a per-case record ({KEY})") from None


def _alone(check, case, result, want) -> str:
    """What went wrong on one case (empty when it passes), without where: the case is judged
    alone, its hint a placeholder that is then cut out of the verdict."""
    single = replace(check, cases=[replace(case, hint=PLACE)])
    try:
        verdict = judge(single, {"results": [result]}, [want]) or ""
    except Exception as error:  # noqa: BLE001 -- a record must never stop grading
        # The verdict stops at the first failing case; here a checker's own judge also sees
        # the answers after it, which it may not expect.
        return f"{check.function}'s answer could not be judged ({type(error).__name__})."
    where = re.escape(f"hidden case 1 of 1: {PLACE}")
    return re.sub(rf" \(On {where}\.\)| on {where}", "", verdict)


def hidden(test: HiddenTest, message: dict | None, expected: list) -> Record:
    """The record of a hidden test from the kernel's reply ``message`` (None: no reply) and
    the reference answers ``expected``."""
    check = test.check
    record = Record(HIDDEN, test.key)
    if message is None:
        return replace(record, unjudged=NOT_RUN)
    if "missing" in message:
        return replace(record, unjudged=NOT_DEFINED)
    results = message.get("results")
    if not isinstance(results, list) or len(results) != len(check.cases):
        return replace(record, unjudged=UNREADABLE)
    if all(isinstance(r, dict) and r.get("error") == "NotImplementedError" for r in results):
        return replace(record, unjudged=NOT_ANSWERED)
    slips = [_alone(check, case, result, want)
             for case, result, want in zip(check.cases, results, expected, strict=True)]
    return replace(record, cases=tuple(CaseOutcome(case.hint, bool(slip), slip)
                                       for case, slip in zip(check.cases, slips, strict=True)))


def _test_messages(source: str) -> set[str]:
    """The messages a test cell's own ``assert ..., "text"`` and ``raise AssertionError("text")``
    statements give."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        message = node.msg if isinstance(node, ast.Assert) else None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            message = node.exc.args[0]
        if isinstance(message, ast.Constant) and isinstance(message.value, str):
            found.add(message.value)
    return found


def visible(test: VisibleTest, message: dict | None, errors: Iterable[tuple[str, str]],
            source: str, stopped: bool) -> Record:
    """The record of a visible test.

    Parameters
    ----------
    test, message
        The test and the kernel's reply (None: no reply).
    errors
        ``(ename, evalue)`` of the errors the cell raised in the kernel.
    source
        The test cell's source (the gradebook's), whose own assertion messages name a failure.
    stopped
        The kernel died, hung or passed a budget in this cell, or the cell hit the time limit.
    """
    record = Record(VISIBLE)
    errors = list(errors)
    if stopped:
        return replace(record, unjudged=NOT_RUN)
    if errors:
        ename, evalue = errors[0]
        if ename == "NotImplementedError":
            return replace(record, unjudged=NOT_ANSWERED)
        if ename == "NameError":
            return replace(record, unjudged=NOT_DEFINED)
        # the message is the kernel's text: quoted only when it is one of the test's own
        situation = (evalue if ename == "AssertionError" and evalue in _test_messages(source)
                     else f"the test raised {wire.known_type(ename, 'an exception')}")
        return replace(record, cases=(CaseOutcome(situation, True),))
    failures = visible_failures(test, message)
    if failures is None:
        return replace(record, unjudged=NOT_RUN)
    return replace(record, cases=tuple(
        CaseOutcome(expectation.what, failure is not None)
        for expectation, failure in zip(test.expectations, failures, strict=True)))


def write(cell: NotebookNode, record: Record) -> None:
    """Keep ``record`` in ``cell``'s metadata."""
    cell.metadata[KEY] = record.as_json()


def read(cell: NotebookNode) -> Record | None:
    """The record of an autograded test cell (None when it has none)."""
    data = cell.get("metadata", {}).get(KEY)
    return None if data is None else Record.from_json(data)


def clear(nb: NotebookNode) -> None:
    """Drop every record from ``nb`` (what a submission brings is not the grader's)."""
    for cell in nb.cells:
        cell.get("metadata", {}).pop(KEY, None)


def carry(source: NotebookNode, target: NotebookNode) -> None:
    """Give ``target`` the record of ``source`` (or none, when it has none)."""
    target.metadata.pop(KEY, None)
    if KEY in source.get("metadata", {}):
        target.metadata[KEY] = source.metadata[KEY]
