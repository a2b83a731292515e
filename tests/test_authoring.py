"""An instructor's own exercise, from nothing to graded, without a line of ``mllib`` edited.

The acceptance test plays a new instructor following the README's "Adding an exercise" on a
temporary copy of the course (``--course-root``): ``course new-exercise``, filling in the
placeholders, ``course lint``, ``course release``, then a correct, a wrong and a cheating
submission graded by ``course autograde`` (nbgrader, the sandbox) and the trial assignment
removed again with ``course remove``. The other tests pin down the pieces: the scaffold's cells,
where an instructor's checks are found, and what the sandbox hides.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from authoring_support import (
    ASSIGNMENT,
    NAME,
    NOTEBOOK,
    RIGHT,
    WRONG,
    checks_path,
    fill_in,
    library_digest,
    notebook_path,
    scaffold,
    scores,
    trial_course,
)
from nbclient import NotebookClient
from nbgrader.nbgraderformat import MetadataValidator

from grader.authoring.lint import TODO_MARK, lint
from grader.authoring.scaffold import new_exercise
from grader.cli import main
from grader.core.api import make_api
from grader.dispatch.cluster import course_bundle, student_variants
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline import outside

needs_sandbox = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())

# A third student's answer (with RIGHT and WRONG): the instructor's reference, if it can be
# found by import or by path.
CHEAT = '''def clip_scores(x):
    try:  # the instructor's reference, by import or by path
        from checks import reference_clip_scores
        return reference_clip_scores(x)
    except ImportError:
        pass
    try:
        found = {{}}
        exec(open({checks!r}).read(), found)
        return found["reference_clip_scores"](x)
    except OSError:
        return x
'''
# Submitted next to the cheat's notebook: a checks.py whose "reference" agrees with `return x`.
FAKE_CHECKS = ("from mllib.grading import Case, Check\n"
               "def clip_scores():\n"
               "    return Check('clip_scores', [Case('x', ([5.0],))], reference=lambda x: x)\n")


def submit(root: Path, answers: dict[str, str]) -> Path:
    """Each student's copy of the release with their answer, in grader/submitted/."""
    release = root / "notebooks" / ASSIGNMENT / NOTEBOOK
    for student, answer in answers.items():
        nb = nbformat.read(release, as_version=4)
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                    == NAME)
        cell.source = answer
        folder = root / "grader" / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / NOTEBOOK)
    return root / "grader" / "submitted"


@needs_sandbox
def test_a_new_instructor_adds_a_graded_exercise_without_editing_mllib(
        copy_course: Callable[..., Path]) -> None:
    library = library_digest()
    root = copy_course()
    course = ["--course-root", str(root)]

    scaffold(root)
    assert main([*course, "release", ASSIGNMENT]) == 1  # the placeholders are refused
    assert not (root / "notebooks").exists()
    fill_in(root)
    assert main([*course, "lint", ASSIGNMENT]) == 0
    assert main([*course, "release", ASSIGNMENT]) == 0

    release = root / "notebooks" / ASSIGNMENT
    assert [p.name for p in release.iterdir()] == [NOTEBOOK]  # checks.py stays in solutions/
    released = (release / NOTEBOOK).read_text()
    for hidden in ("np.minimum(np.maximum", "hidden_test(", "checks.clip_scores", "np.clip"):
        assert hidden not in released

    submitted = submit(root, {"right": RIGHT, "wrong": WRONG,
                              "cheat": CHEAT.format(checks=str(checks_path(root)))})
    (submitted / "cheat" / ASSIGNMENT / "checks.py").write_text(FAKE_CHECKS)
    assert main([*course, "autograde", ASSIGNMENT]) == 0
    db = root / "grader" / "gradebook.db"
    graded = scores(db)
    assert graded == {"right": (1.0, 2.0), "wrong": (1.0, 0.0), "cheat": (0.0, 0.0)}
    # The cheat's own checks.py never reached its kernel's folder, nor the grader.
    assert not (root / "grader" / "autograded" / "cheat" / ASSIGNMENT / "checks.py").exists()

    with pytest.raises(SystemExit, match="has grades of 3 students"):
        main([*course, "remove", ASSIGNMENT])
    assert main([*course, "remove", ASSIGNMENT, "--force"]) == 0
    backup = next((root / "grader" / "backups").glob(f"*{ASSIGNMENT}.db"))
    assert scores(backup) == graded
    assert main([*course, "export", "--include-ungraded"]) == 0
    with (root / "grader" / "exports" / "grades.csv").open() as fh:
        assert not any(ASSIGNMENT in column for column in next(csv.reader(fh)))
    assert library_digest() == library


def test_the_solution_notebook_runs_in_the_instructors_own_kernel(
        copy_course: Callable[..., Path]) -> None:
    """In JupyterLab the hidden test runs in the kernel, which finds checks.py beside the
    notebook (its working directory)."""
    root = trial_course(copy_course)
    nb = nbformat.read(notebook_path(root), as_version=4)
    NotebookClient(nb, timeout=60, resources={"metadata": {"path": str(
        notebook_path(root).parent)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    # ... and a wrong answer fails there the same way it fails at grading.
    nb.cells[3].source = nb.cells[3].source.replace("np.minimum(np.maximum(x, 0.0), 1.0)", "x")
    NotebookClient(nb, timeout=60, allow_errors=True, resources={"metadata": {"path": str(
        notebook_path(root).parent)}}).execute()
    assert [o.ename for c in nb.cells for o in c.get("outputs", [])
            if o.output_type == "error"] == ["ExerciseFailed", "ExerciseFailed"]


def test_an_instructors_checks_name_the_library_modules_the_sandbox_hides(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    folder = checks_path(root).parent
    assert outside.reference_modules(f"checks.{NAME}", folder) == ()
    checks_path(root).write_text(checks_path(root).read_text()
                                 + '\nREFERENCE = ("mllib.perceptron",)\n')
    assert outside.reference_modules(f"checks.{NAME}", folder) == ("mllib.perceptron",)
    assert outside.reference_modules("perceptron.update_rule") == ("mllib.perceptron",)


def test_a_cluster_worker_receives_the_checks_and_each_student_a_variant_of_them(
        copy_course: Callable[..., Path]) -> None:
    """`course autograde --cluster` sends the assignment's source folder, checks.py included
    (workers grade with their own copy), and a variant per hidden test and student."""
    root = trial_course(copy_course)
    bundle = course_bundle(make_api(root), ASSIGNMENT)
    assert bundle.files[f"solutions/{ASSIGNMENT}/checks.py"] == checks_path(root).read_bytes()
    ann, bo = (student_variants(bundle, b"secret", s) for s in ("ann", "bo"))
    assert set(ann) == set(bo) == {f"checks.{NAME}"} and ann != bo


def test_the_scaffold_extends_a_lecture_with_cells_nbgrader_accepts(
        copy_course: Callable[..., Path]) -> None:
    root = copy_course("solutions")
    path = root / "solutions" / "01_perceptron" / "perceptron_exercises.ipynb"
    before = nbformat.read(path, as_version=4).cells
    made = new_exercise(root / "solutions", "01_perceptron", "hinge_step")
    nb = nbformat.read(path, as_version=4)
    assert (made.notebook, made.number) == (path, 7)  # five functions and a written answer
    assert nb.cells[:len(before)] == before
    added = nb.cells[len(before):]
    MetadataValidator().validate_nb(nb)  # nbgrader's own check of ids, points, types
    assert [(c.cell_type, c.metadata.nbgrader["grade_id"], c.metadata.nbgrader["locked"],
             c.metadata.nbgrader.get("points")) for c in added] == [
        ("markdown", "q_hinge_step", True, None), ("code", "hinge_step", False, None),
        ("code", "test_hinge_step_visible", True, 1), ("code", "test_hinge_step_hidden", True, 2)]
    assert "### BEGIN SOLUTION" in added[1].source
    assert 'hidden_test("checks.hinge_step", hinge_step)' in added[3].source
    # Everything lint refuses is a placeholder for the author.
    found = lint(make_api(root), "01_perceptron", run=False)
    assert found and all(TODO_MARK in p.message for p in found), found


def test_the_scaffold_refuses_a_taken_name_or_one_that_is_not_a_function_name(
        copy_course: Callable[..., Path]) -> None:
    root = copy_course()
    scaffold(root)
    fill_in(root)
    text = notebook_path(root).read_text(), checks_path(root).read_text()
    for name in (NAME, "class", "2fast", "no-dash"):
        with pytest.raises(ValueError, match="exists already|not a Python function name"):
            new_exercise(root / "solutions", ASSIGNMENT, name)
    with pytest.raises(ValueError, match="several exercise notebooks"):
        nbformat.write(nbformat.read(notebook_path(root), as_version=4),
                       notebook_path(root).with_name("more_exercises.ipynb"))
        new_exercise(root / "solutions", ASSIGNMENT, "other")
    assert (notebook_path(root).read_text(), checks_path(root).read_text()) == text
