"""``course validate``: a notebook's tests, run as nbgrader's Validate button runs them, with a
pass or fail per exercise."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbconvert.filters import strip_ansi
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput
from nbgrader.utils import determine_grade, is_grade, is_solution
from nbgrader.validator import Validator
from traitlets import List
from traitlets.config import Config

from grader.preprocessors import GradingExecute
from grader.report import exercise_cells
from grader.sandbox import unavailable_reason


class CourseValidator(Validator):
    """nbgrader's ``Validator``, running the notebook with :class:`GradingExecute`.

    A kernel that dies or hangs then fails the cells it could not run, as at grading time,
    instead of crashing the validation.
    """

    preprocessors = List([CheckCellMetadata, ClearOutput, GradingExecute])


def validate(notebook: Path, config: Config) -> bool:
    """Run a notebook's tests as nbgrader's Validate button does; print pass/fail per exercise.

    Uses nbgrader's ``Validator`` directly, because ``nbgrader validate`` exits 0 even when
    tests fail (nbgrader #1908). An exercise passes when every graded cell of it passes (see
    :func:`grader.report.exercise_cells`); a written answer is no pass or fail: it is reported
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
    reason = unavailable_reason()
    if reason:
        print(f"note: running your notebook unsandboxed ({reason}); grading runs it in the "
              "sandbox")
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
    return not results
