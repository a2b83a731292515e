"""Fair grading: a correct answer gets full marks however it is written.

Every exercise of every lecture has a second correct answer in ``tests/fairness/<assignment>.py``
(``ANSWERS``: answer cell's grade id -> code, in notebook order), written unlike the
instructor's (loops, lists, another algorithm, log space, another tie). Each
is graded twice: here in this process with the hidden checks, on the inputs of 50 students and
the course's fixed ones (fast, names the failing exercise and student), and through nbgrader
with ``course autograde``, sandbox and all, where every autograded cell must get its points
(``tests/test_grading_hidden.py``, whose one run per assignment also grades a lookup table of
the published examples).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import runpy
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hidden_support import exercise_notebook  # tests/ is on sys.path under pytest

from grader.pipeline import secret
from mllib.grading import ExerciseFailed, load_check, run_check, variant

REPO = Path(__file__).resolve().parents[1]
STUDENT = "alt"
ANSWERS = {path.stem: runpy.run_path(str(path))["ANSWERS"]
           for path in sorted((Path(__file__).parent / "fairness").glob("*.py"))}


def meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


ASSIGNMENTS = sorted(p.parent.name for p in REPO.glob("solutions/*/*_exercises.ipynb"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_exercise_has_a_second_solution(assignment: str) -> None:
    nb = nbformat.read(exercise_notebook(assignment), as_version=4)
    answers = {meta(c)["grade_id"] for c in nb.cells
               if c.cell_type == "code" and meta(c).get("solution")}
    assert answers == set(ANSWERS.get(assignment, {})), assignment


def hidden_keys(assignment: str) -> list[tuple[str, str]]:
    """(answer grade id, hidden-check key) in notebook order."""
    nb = nbformat.read(exercise_notebook(assignment), as_version=4)
    found, answer = [], None
    for cell in nb.cells:
        if cell.cell_type == "code" and meta(cell).get("solution"):
            answer = meta(cell)["grade_id"]
        for key in re.findall(r'hidden_test\("([\w.]+)"', cell.source):
            found.append((answer, key))
    return found


# Each student's hidden inputs are their own (grader/pipeline/secret.py): every second solution must
# get full marks on the inputs of each of these 50 students, and on the course's fixed ones (None).
STUDENT_IDS = (None, *(f"s{number:04d}" for number in range(50)))


@pytest.mark.parametrize("assignment", sorted(ANSWERS))
def test_second_solutions_pass_the_hidden_checks_of_every_student(assignment: str) -> None:
    namespace = {"np": np, "math": math, "itertools": itertools}
    for code in ANSWERS[assignment].values():  # in notebook order: later ones call earlier ones
        exec(code, namespace)
    course_secret = bytes.fromhex(os.environ["COURSE_SECRET"])  # tests/conftest.py
    for answer, key in hidden_keys(assignment):
        for student in STUDENT_IDS:
            with variant(student and secret.variant(course_secret, assignment, key, student)):
                check = load_check(key)
                try:
                    run_check(check, namespace[check.function])
                except ExerciseFailed as failure:
                    pytest.fail(f"{answer} ({key}) for student {student}: {failure}")
