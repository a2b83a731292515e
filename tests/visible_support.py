"""Run an exercise notebook's visible test cell against any answer, statement by statement.

:func:`failed_visible_checks` shows which of a visible test's checks a slip fails (for
instance an answer that changes its arguments in place, which a hidden check cannot see: each
hidden case gets freshly decoded inputs) and that a correct answer fails none.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import nbformat
from hidden_support import exercise_notebook

from mllib.grading import ExerciseFailed


def exercise_cell(assignment: str, grade_id: str) -> str:
    """The source of the cell ``grade_id`` of ``assignment``'s exercise notebook (solutions)."""
    notebook = nbformat.read(exercise_notebook(assignment), as_version=4)
    (cell,) = [c for c in notebook.cells
               if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell.source


def failed_visible_checks(assignment: str, answers: dict[str, Callable], grade_id: str,
                          ) -> list[str]:
    """Run the setup cell, then each statement of the visible test cell ``grade_id`` on its
    own, with each name of ``answers`` bound to its function; the messages of the checks that
    fail, in order."""
    namespace: dict = {}
    exec(exercise_cell(assignment, "setup"), namespace)
    namespace.update(answers)
    failed = []
    for statement in ast.parse(exercise_cell(assignment, grade_id)).body:
        try:
            exec(compile(ast.Module([statement], []), grade_id, "exec"), namespace)
        except ExerciseFailed as failure:
            failed.append(str(failure))
    return failed
