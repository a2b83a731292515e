"""The hidden tests on every assignment: correct answers get full marks, published examples alone
earn nothing, and no hidden input reaches the student.

One ``course autograde``, ``feedback`` and ``report`` per assignment grades three students:

* ``alt``: the second correct solutions of ``tests/fairness/<assignment>.py``, recording their
  arguments every way a later cell or the kernel's end could show them
  (:func:`hidden_support.stash`): full marks, and none of the hidden inputs in the feedback;
* ``look``: a lookup table of the published examples (:func:`hidden_support.lookup_table`):
  nothing earned, and listed in the report.
"""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from hidden_support import (
    exercise_notebook,
    hidden_arrays,
    leak_ways,
    leaked,
    lookup_table,
    stash,
)
from nbgrader.api import Gradebook
from test_fairness import ANSWERS, ASSIGNMENTS, meta
from test_grading import html_text  # tests/ is on sys.path under pytest

from grader.cli import main
from grader.kernel.sandbox import unavailable_reason

ALT, LOOK = "alt", "look"
pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())


def second_solutions(assignment: str) -> nbformat.NotebookNode:
    release = exercise_notebook(assignment, "notebooks")
    nb = copy.deepcopy(nbformat.read(release, as_version=4))
    for cell in nb.cells:
        if meta(cell).get("grade_id") in ANSWERS[assignment]:
            cell.source = ANSWERS[assignment][meta(cell)["grade_id"]]
    return nb


BUILD = {ALT: lambda assignment: stash(second_solutions(assignment)), LOOK: lookup_table}


@dataclass(frozen=True)
class Graded:
    root: Path
    scores: dict[str, dict[str, dict[str, tuple[float, float]]]]  # assignment -> student ->
    # grade id -> (score, max score), autograded code cells only

    def feedback(self, assignment: str, student: str) -> str:
        folder = self.root / "grader" / "feedback" / student / assignment
        return "".join(path.read_text() for path in sorted(folder.glob("*.html")))

    def report(self, assignment: str) -> str:
        return (self.root / "grader" / "exports" / f"report-{assignment}.html").read_text()


def autograded_tests(assignment: str) -> set[str]:
    """Grade ids of the notebook's code test cells (the written answers are graded by hand)."""
    nb = nbformat.read(exercise_notebook(assignment), as_version=4)
    return {meta(c)["grade_id"] for c in nb.cells if c.cell_type == "code" and meta(c).get("grade")}


def grade(root: Path, assignments: list[str]) -> Graded:
    """Grade alt and look on ``assignments`` in the course at ``root``."""
    for assignment in assignments:
        for student, build in BUILD.items():
            folder = root / "grader" / "submitted" / student / assignment
            folder.mkdir(parents=True)
            nbformat.write(build(assignment), folder / exercise_notebook(assignment).name)
    scores = {}
    for assignment in assignments:
        for step in ("autograde", "feedback", "report"):
            with (contextlib.redirect_stdout(io.StringIO()),
                  contextlib.redirect_stderr(io.StringIO())):
                main(["--course-root", str(root), step, assignment,
                      *(["--jobs", "2"] if step == "autograde" else [])])
        tests = autograded_tests(assignment)
        with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
            scores[assignment] = {
                student: {g.name: (g.score, g.max_score) for nb in gb.find_submission(
                    assignment, student).notebooks for g in nb.grades if g.name in tests}
                for student in BUILD}
    return Graded(root, scores)


@pytest.fixture(scope="module")
def graded(copy_course: Callable[..., Path]) -> Graded:
    return grade(copy_course("solutions", "notebooks"), ASSIGNMENTS)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_second_solutions_get_full_marks_through_nbgrader(graded: Graded, assignment: str):
    cells = graded.scores[assignment][ALT]
    assert cells
    lost = {name: score for name, score in cells.items() if score[0] != score[1]}
    assert not lost, lost


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_published_examples_alone_earn_nothing(graded: Graded, assignment: str):
    earned = {name: score for name, (score, _) in graded.scores[assignment][LOOK].items() if score}
    assert not earned, earned


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_report_lists_answers_that_pass_only_the_published_examples(graded: Graded,
                                                                         assignment: str):
    text = html_text(graded.report(assignment))
    section = text.partition("Published examples only")[2].partition("Submissions that")[0]
    assert LOOK in section and ALT not in section, section[:500]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_hidden_input_reaches_the_feedback(graded: Graded, assignment: str):
    """Recorded during the hidden tests and shown by a later cell, a file, a class, stderr, a
    display, a widget or atexit: none of the student's hidden arrays is in their feedback (the
    stash costs no points: see the second solutions' full marks)."""
    text = html_text(graded.feedback(assignment, ALT))
    # The last cell printed what the stash held, the visible tests' inputs at least: its output
    # follows its source on the page (so the last label), and may wrap over lines.
    printed = text.rpartition("GLOBAL-LEAK")[2].partition("CLASS-LEAK")[0]
    assert any(ch.isdigit() for ch in printed), printed[:300]
    assert hidden_arrays(assignment, ALT)
    assert not leaked(text, assignment, ALT), leak_ways(text, assignment, ALT)
