"""End to end with real nbgrader: autograde, feedback, export and validate via ``course``.

One session-scoped graded run on a temporary copy of the course, with four students who
submit every exercise notebook of every assignment:

* alice: the instructor's solution, expecting every autograded point;
* bob: the untouched student version, expecting 0;
* carol: the solution with the first exercise of each notebook replaced by a wrong
  implementation (it returns its first argument);
* dave: the solution with that exercise's function renamed, so its tests die with a
  ``NameError`` whose traceback would quote the hidden test lines.

carol and dave must lose exactly the points of the test cells that follow that exercise.
A fifth, abe, kills the kernel (``os._exit``) in his first answer cell; he is graded first and
must fail alone, without stopping the others. A sixth, eve, submits the solution with the setup
cell of an older release (before a library change, without nbgrader metadata): the setup cell is
read-only, so grading restores it and she gets every point.

The expected scores come from the nbgrader metadata of ``solutions/`` and are compared with
nbgrader's gradebook, its feedback HTML and the CSV export.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import io
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from axe_support import chromium_page, problems  # tests/ is on sys.path
from nbformat import NotebookNode
from nbgrader.api import Gradebook

from grader.cli import main

REPO = Path(__file__).resolve().parents[1]
STUDENTS = ("alice", "bob", "carol", "dave")  # graded normally
CRASHER = "abe"  # sorts first, so the others are graded after his crash
STALE = "eve"  # the solution with an older release's setup cell
# Lecture 02's SVM data moved to mllib.data after its first release: the case that broke a
# class. Restoring read-only cells is nbgrader's own mechanism, the same for every lecture.
STALE_ASSIGNMENTS = ("01_perceptron", "02_svm", "15_parallel")
STALE_SETUP = "import numpy as np\nfrom mllib.svm import EXAMPLE_12_9  # an older release\n"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
COURSE = Path(sys.executable).parent / "course"


def meta(cell: NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


def is_autograder_test(cell: NotebookNode) -> bool:
    """A graded code cell that is not also an answer: nbgrader scores it automatically."""
    return cell.cell_type == "code" and bool(
        meta(cell).get("grade") and not meta(cell).get("solution")
    )


def is_code_answer(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and bool(meta(cell).get("solution"))


@dataclass
class Exercises:
    """What the metadata of one instructor notebook says about its autograded points."""

    assignment: str
    notebook: str  # file name without .ipynb
    source: NotebookNode
    points: dict[str, float]  # autograder test cell grade_id -> points
    broken: str  # grade_id of the answer cell carol and dave get wrong
    broken_tests: set[str]  # the test cells that check it

    @classmethod
    def read(cls, path: Path) -> Exercises | None:
        """The notebook's exercises, or None for a notebook with no autograded test."""
        nb = nbformat.read(path, as_version=4)
        points = {
            meta(c)["grade_id"]: float(meta(c)["points"]) for c in nb.cells if is_autograder_test(c)
        }
        # Each answer cell is checked by the test cells that follow it, up to the next answer.
        tests_of: dict[str, set[str]] = {}
        current = None
        for cell in nb.cells:
            if is_code_answer(cell):
                current = meta(cell)["grade_id"]
                tests_of[current] = set()
            elif is_autograder_test(cell) and current is not None:
                tests_of[current].add(meta(cell)["grade_id"])
        broken = next((answer for answer, tests in tests_of.items() if tests), None)
        if broken is None:
            return None
        return cls(path.parent.name, path.stem, nb, points, broken, tests_of[broken])


EXERCISES = [
    ex for ex in map(Exercises.read, sorted(REPO.glob("solutions/*/*.ipynb"))) if ex is not None
]
ASSIGNMENTS = sorted({ex.assignment for ex in EXERCISES})


def enclosing_function(source: str, line: int) -> ast.FunctionDef:
    """The innermost function around 0-based ``line`` (ast line numbers start at 1)."""
    return max(
        (
            node
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef) and node.lineno <= line < node.end_lineno
        ),
        key=lambda node: node.lineno,
    )


def wrong_answer(source: str) -> str:
    """carol: the solution region of a function replaced by ``return <first argument>``."""
    lines = source.splitlines()
    begin = next(i for i, ln in enumerate(lines) if ln.strip() == BEGIN_SOLUTION)
    end = next(i for i, ln in enumerate(lines) if ln.strip() == END_SOLUTION)
    func = enclosing_function(source, begin)
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    first_arg = func.args.args[0].arg if func.args.args else "None"
    return "\n".join([*lines[:begin], f"{indent}return {first_arg}", *lines[end + 1 :]])


def renamed_function(source: str) -> str:
    """dave: the right answer under another name."""
    begin = next(i for i, ln in enumerate(source.splitlines()) if ln.strip() == BEGIN_SOLUTION)
    func = enclosing_function(source, begin)
    return source.replace(f"def {func.name}(", f"def {func.name}_v2(", 1)


def kernel_killer(_source: str) -> str:
    """abe: the answer cell kills the kernel, which fails nbgrader's run for this student."""
    return "import os\nos._exit(1)"


BREAK = {"carol": wrong_answer, "dave": renamed_function, CRASHER: kernel_killer}


def stale_setup(ex: Exercises) -> NotebookNode:
    """The solution whose setup cell is an older release's: other code, no nbgrader metadata."""
    nb = nbformat.from_dict(ex.source)
    setup = next(c for c in nb.cells if meta(c).get("grade_id") == "setup")
    setup.source = STALE_SETUP
    del setup.metadata["nbgrader"]
    return nb


def broken_version(ex: Exercises, student: str) -> NotebookNode:
    nb = nbformat.from_dict(ex.source)
    cell = next(c for c in nb.cells if meta(c).get("grade_id") == ex.broken)
    cell.source = BREAK[student](cell.source)
    return nb


@dataclass
class GradedRun:
    root: Path
    exit_codes: dict[str, int]  # "autograde A", "feedback A", "export" -> exit status
    stderr: str  # what the CLI reported

    def scores(self, ex: Exercises, student: str) -> dict[str, float]:
        """Autograded score of every autograder test cell, from nbgrader's gradebook."""
        db = "sqlite:///" + str(self.root / "grader" / "gradebook.db")
        with Gradebook(db) as gb:
            nb = gb.find_submission_notebook(ex.notebook, ex.assignment, student)
            return {g.name: g.score for g in nb.grades if g.name in ex.points}

    def feedback_text(self, ex: Exercises, student: str) -> str:
        path = self.root / "grader" / "feedback" / student / ex.assignment / f"{ex.notebook}.html"
        assert path.is_file(), f"no feedback {path.relative_to(self.root)}"
        return html_text(path.read_text())


@pytest.fixture(scope="session")
def graded(copy_course: Callable[..., Path]) -> GradedRun:
    """Submit, autograde, give feedback and export once, through the ``course`` CLI."""
    if not EXERCISES:
        pytest.skip("no exercise notebooks in solutions/")
    root = copy_course("solutions", "notebooks")
    for ex in EXERCISES:
        versions = {
            "alice": REPO / "solutions" / ex.assignment / f"{ex.notebook}.ipynb",
            "bob": REPO / "notebooks" / ex.assignment / f"{ex.notebook}.ipynb",
        }
        # The crash is handled by the grader, not the lecture: one assignment is enough.
        crasher = (CRASHER,) if ex.assignment == ASSIGNMENTS[0] else ()
        stale = (STALE,) if ex.assignment in STALE_ASSIGNMENTS else ()
        for student in (*STUDENTS, *crasher, *stale):
            folder = root / "grader" / "submitted" / student / ex.assignment
            folder.mkdir(parents=True, exist_ok=True)
            if student == STALE:
                nbformat.write(stale_setup(ex), folder / f"{ex.notebook}.ipynb")
            elif student in BREAK:
                nbformat.write(broken_version(ex, student), folder / f"{ex.notebook}.ipynb")
            else:
                shutil.copy2(versions[student], folder)
    course = ["--course-root", str(root)]
    codes, stderr = {}, io.StringIO()
    with contextlib.redirect_stderr(stderr):
        # No explicit release: as in a fresh clone, autograde first fills the empty gradebook.
        for assignment in ASSIGNMENTS:
            codes[f"autograde {assignment}"] = main([*course, "autograde", assignment])
            # the written answers are not graded by hand here: feedback and export include them
            codes[f"feedback {assignment}"] = main([*course, "feedback", assignment,
                                                    "--include-ungraded"])
        codes["export"] = main([*course, "export", "--include-ungraded"])
    return GradedRun(root, codes, stderr.getvalue())


def label(ex: Exercises) -> str:
    return f"{ex.assignment}/{ex.notebook}"


def test_only_the_crashing_submission_fails(graded: GradedRun) -> None:
    expected = dict.fromkeys(graded.exit_codes, 0) | {f"autograde {ASSIGNMENTS[0]}": 1}
    assert graded.exit_codes == expected, graded.stderr
    failed = [ln for ln in graded.stderr.splitlines() if ln.startswith("FAILED")]
    assert failed == [f"FAILED autograde {ASSIGNMENTS[0]} for {CRASHER}"]


@pytest.mark.parametrize("ex", EXERCISES, ids=label)
def test_solution_gets_every_autograded_point(graded: GradedRun, ex: Exercises) -> None:
    assert graded.scores(ex, "alice") == ex.points


@pytest.mark.parametrize("ex", [ex for ex in EXERCISES if ex.assignment in STALE_ASSIGNMENTS],
                         ids=label)
def test_an_older_setup_cell_is_restored_at_grading(graded: GradedRun, ex: Exercises) -> None:
    assert graded.scores(ex, STALE) == ex.points


@pytest.mark.parametrize("path", sorted(REPO.glob("*/*/*_exercises.ipynb")),
                         ids=lambda p: f"{p.parts[-3]}/{p.parts[-2]}")
def test_every_code_cell_but_the_answers_is_read_only(path: Path) -> None:
    """Setup and test cells come back from the gradebook at grading time (nbgrader restores
    locked cells), so a student's stale or edited copy cannot decide their grade."""
    nb = nbformat.read(path, as_version=4)
    open_cells = [c.get("id") for c in nb.cells if c.cell_type == "code"
                  and not meta(c).get("solution") and not meta(c).get("locked")]
    assert not open_cells, open_cells


@pytest.mark.parametrize("ex", EXERCISES, ids=label)
def test_untouched_student_version_gets_zero(graded: GradedRun, ex: Exercises) -> None:
    assert graded.scores(ex, "bob") == dict.fromkeys(ex.points, 0.0)


@pytest.mark.parametrize("ex", EXERCISES, ids=label)
@pytest.mark.parametrize("student", ["carol", "dave"])
def test_one_broken_answer_loses_exactly_its_tests(
    graded: GradedRun, ex: Exercises, student: str
) -> None:
    assert sum(ex.points[t] for t in ex.broken_tests) > 0
    expected = {t: 0.0 if t in ex.broken_tests else p for t, p in ex.points.items()}
    assert graded.scores(ex, student) == expected, f"{student}'s {ex.broken} is broken"


def html_text(html: str) -> str:
    """The text a reader sees: tags dropped (syntax highlighting splits code), entities decoded."""
    parts: list[str] = []
    parser = HTMLParser()
    parser.handle_data = parts.append
    parser.feed(html)
    return "".join(parts)


def region_lines(source: str, begin: str, end: str) -> list[str]:
    """Stripped lines strictly between ``begin`` and ``end`` marker lines."""
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip() in (begin, end):
            inside = line.strip() == begin
        elif inside:
            lines.append(line.strip())
    return lines


@pytest.mark.parametrize("ex", EXERCISES, ids=label)
@pytest.mark.parametrize("student", STUDENTS)
def test_feedback_hides_hidden_tests(graded: GradedRun, ex: Exercises, student: str) -> None:
    text = graded.feedback_text(ex, student)
    tests = [c.source for c in ex.source.cells if is_autograder_test(c)]
    visible = [ln.strip() for src in tests if BEGIN_HIDDEN not in src for ln in src.splitlines()]
    hidden = [ln for src in tests for ln in region_lines(src, BEGIN_HIDDEN, END_HIDDEN)]
    # The search works: visible test code is in the feedback.
    assert any(len(ln) >= 8 and ln in text for ln in visible), "visible tests not found in HTML"
    leaked = [ln for ln in hidden if len(ln) >= 8 and ln in text]
    assert not leaked, f"hidden test lines in {student}'s feedback: {leaked}"


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    with chromium_page(tmp_path_factory.mktemp("feedback-chromium")) as page:
        yield page


@pytest.mark.parametrize("ex", EXERCISES, ids=label)
def test_feedback_meets_wcag_aa_and_reflows(graded: GradedRun, ex: Exercises,
                                            browser_page) -> None:
    """Issue 26: one feedback page per assignment, dave's (the solution's outputs, and a test
    that failed with its verdict), passes axe-core's WCAG 2.0/2.1 A and AA rules, with no
    placeholder alt text, and at 320 px nothing is wider than the screen or cut off
    (tests/axe_support.py). axe-core runs at 1280 px here (each run takes seconds on these
    pages); tests/test_grading_class.py runs it at 320 px too, on a feedback page."""
    path = graded.root / "grader" / "feedback" / "dave" / ex.assignment / f"{ex.notebook}.html"
    assert path.is_file(), f"no feedback {path.relative_to(graded.root)}"
    found = problems(browser_page, path.as_uri(), axe_widths=(1280,))
    assert found == [], "\n".join(found)


def test_export_has_one_row_per_student_with_totals(graded: GradedRun) -> None:
    with (graded.root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert sorted(rows) == sorted([*STUDENTS, CRASHER, STALE])
    full = sum(sum(ex.points.values()) for ex in EXERCISES)
    lost = sum(ex.points[t] for ex in EXERCISES for t in ex.broken_tests)
    stale = sum(sum(ex.points.values()) for ex in EXERCISES if ex.assignment in STALE_ASSIGNMENTS)
    # Written answers are graded by hand later and count 0 until then.
    expected = {"alice": full, "bob": 0.0, "carol": full - lost, "dave": full - lost, CRASHER: 0,
                STALE: stale}
    assert {s: float(r["total_score"]) for s, r in rows.items()} == expected
    max_points = sum(
        float(meta(c)["points"])
        for ex in EXERCISES
        for c in ex.source.cells
        if meta(c).get("grade")
    )
    assert {float(r["total_max"]) for r in rows.values()} == {max_points}


# `course validate` is the same code for every lecture, and every lecture's solution and release
# are already run by tests/test_notebooks.py and graded above: the template lecture checks the
# command's exit status without running 28 more notebooks (tests/test_grading_class.py
# validates five more versions of it).
VALIDATED = [ex for ex in EXERCISES if ex.assignment == "01_perceptron"]


@pytest.mark.parametrize("ex", VALIDATED, ids=label)
def test_validate_exit_status(graded: GradedRun, ex: Exercises) -> None:
    """`course validate` passes the solution and fails the untouched student version."""
    procs = {
        folder: subprocess.Popen(
            [
                str(COURSE),
                "--course-root",
                str(graded.root),
                "validate",
                str(graded.root / folder / ex.assignment / f"{ex.notebook}.ipynb"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for folder in ("solutions", "notebooks")
    }
    out = {folder: proc.communicate(timeout=300)[0] for folder, proc in procs.items()}
    assert procs["solutions"].returncode == 0, out["solutions"]
    assert procs["notebooks"].returncode != 0, out["notebooks"]
    assert "FAIL " in out["notebooks"]
