"""``course validate``: a notebook's tests, run as nbgrader's Validate button runs them, with a
pass or fail per exercise.

Students receive this module (``course bundle``), so it imports nothing of the instructor's
grading: which preprocessor runs the notebook is configuration (``CourseValidator.execute``),
nbgrader's ``Execute`` unless the course's ``grader/nbgrader_config.py`` names its sandboxed
``GradingExecute``. A released notebook has only its visible tests; then it says so.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbconvert.filters import strip_ansi
from nbformat import NotebookNode
from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests, ClearOutput, Execute
from nbgrader.utils import determine_grade, is_grade, is_solution
from nbgrader.validator import Validator
from traitlets import List, Type, default
from traitlets.config import Config

from grader.core.api import load_config

COURSE_ROOT = Path(__file__).resolve().parents[2]
# The marker the release removes hidden tests by: a notebook with none left has only visible tests.
HIDDEN_MARK = ClearHiddenTests.class_traits()["begin_test_delimeter"].default_value
HIDDEN_NOTE = ("Only the visible tests ran: hidden tests run at grading, on other inputs, so a "
               "notebook that passes here can still lose points there.")
PASSED_NOTE = "Your notebook passes the visible tests; hidden tests run at grading."


class CourseValidator(Validator):
    """nbgrader's ``Validator``, running the notebook with the configured ``execute``.

    With :class:`grader.pipeline.preprocessors.GradingExecute` (the course's configuration) a kernel
    that dies or hangs fails the cells it could not run, as at grading time, instead of
    crashing the validation.
    """

    execute = Type(Execute, klass=Execute,
                   help="The preprocessor that runs the notebook").tag(config=True)
    preprocessors = List()

    @default("preprocessors")
    def _preprocessors(self) -> list[type]:
        return [CheckCellMetadata, ClearOutput, self.execute]


def exercise_cells(nb: NotebookNode) -> dict[str, list[str]]:
    """Exercise name -> grade ids of its graded cells, in notebook order.

    An answer cell (``solution``) opens an exercise named by its ``grade_id``; graded cells
    belong to the last answer above them; a graded cell above every answer is its own exercise.
    Answers with no graded cell (nothing to score) are left out.
    """
    groups: dict[str, list[str]] = {}
    current = None
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id")
        if meta.get("solution"):
            current = gid
            groups[current] = []
        if meta.get("grade"):
            groups.setdefault(current or gid, []).append(gid)
    return {name: cells for name, cells in groups.items() if cells}


def validate(notebook: Path, config: Config) -> bool:
    """Run a notebook's tests as nbgrader's Validate button does; print pass/fail per exercise.

    Uses nbgrader's ``Validator`` directly, because ``nbgrader validate`` exits 0 even when
    tests fail (nbgrader #1908). An exercise passes when every graded cell of it passes (see
    :func:`exercise_cells`); a written answer is no pass or fail: it is reported
    as answered (graded by hand) or not answered yet.

    Parameters
    ----------
    notebook : Path
        Notebook to validate (executed with its folder as working directory).
    config : Config
        From :func:`load_config` (per-cell timeout, the grading kernel's set-up).

    Returns
    -------
    bool
        True when every test cell passes, every written answer is answered and no locked cell
        was changed.
    """
    if not notebook.is_file():
        raise SystemExit(f"course: no notebook {notebook}")
    nb = nbformat.read(notebook, as_version=4)
    results = CourseValidator(config=config).validate(str(notebook))
    names = {
        cell.source.strip(): cell.metadata["nbgrader"].get("grade_id", "?")
        for cell in nb.cells
        if "nbgrader" in cell.metadata
    }
    # Written answer -> answered? (nbgrader's test: its checksum differs from the release's.)
    written = {cell.metadata.nbgrader["grade_id"]: determine_grade(cell)[0] is None
               for cell in nb.cells if cell.cell_type == "markdown" and is_grade(cell)
               and is_solution(cell)}
    problems: dict[str, list[str]] = {}
    for cell in results.get("type_changed", []):
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            f"cell type changed to {cell['new_type']}")
    for cell in results.get("changed", []):
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            "locked cell was modified")
    for cell in results.get("failed", []):
        if names.get(cell["source"]) in written:
            continue  # an unanswered written answer: reported below, not as a failed test
        lines = [ln for ln in strip_ansi(cell["raw_error"]).splitlines() if ln.strip()]
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            lines[-1] if lines else "failed")
    exercises = exercise_cells(nb)
    passing = failing = 0
    for name, cells in exercises.items():
        issues = [f"{gid}: {issue}" for gid in cells for issue in problems.pop(gid, [])]
        failing += bool(issues)
        if issues:
            print(f"FAIL {name}: {'; '.join(issues)}")
        elif name in written:
            print(f"ANSWERED {name}: answered, graded by hand" if written[name] else
                  f"UNANSWERED {name}: not answered yet (graded by hand)")
        else:
            passing += 1
            print(f"PASS {name}")
    for gid, issues in problems.items():
        failing += 1
        print(f"FAIL {gid}: {'; '.join(issues)}")
    if "failed" not in results and results:
        print("(the other exercises were not checked: undo the changes to the cells above)")
    status = "PASSED" if not results else "FAILED" if failing else "INCOMPLETE"
    summary = f"{passing} of {len(exercises) - len(written)} autograded exercises pass"
    if written:
        summary += (f"; {sum(written.values())} of {len(written)} written answers answered "
                    "(graded by hand)")
    print(f"{status} {notebook}: {summary}")
    if not any(HIDDEN_MARK in cell.source for cell in nb.cells):
        print(PASSED_NOTE if status == "PASSED" else HIDDEN_NOTE)
    return not results


def main(argv: Sequence[str] | None = None) -> int:
    """``course validate NOTEBOOK`` where only validation is installed (the student bundle,
    whose ``course`` command this is); exit 1 when a test fails or an answer is blank."""
    parser = argparse.ArgumentParser(prog="course", description="Check a notebook: run its "
                                     "visible tests (hidden tests run at grading).")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("validate", help="run a notebook's visible tests; exit 1 if any fails"
                   ).add_argument("notebook", type=Path, metavar="NOTEBOOK")
    args = parser.parse_args(argv)
    return 0 if validate(args.notebook, load_config(COURSE_ROOT)) else 1
