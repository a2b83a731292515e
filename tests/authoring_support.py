"""An instructor's own exercise, as the README's "Adding an exercise" has them write it.

``course new-exercise 99_trial clip_scores`` scaffolds it; :func:`fill_in` then replaces every
placeholder the way an instructor edits the notebook and ``checks.py``: a statement, a solution,
a visible test with a worked example, and the README's own ``checks.py`` (so the README's example
is what the tests lint and grade).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.api import Gradebook

from grader.cli import main

ASSIGNMENT, NAME = "99_trial", "clip_scores"
NOTEBOOK = "trial_exercises.ipynb"  # the scaffold's name for a new assignment's notebook
MLLIB = Path(__file__).resolve().parents[1] / "mllib"

QUESTION = """## Exercise 1 · Clipping scores (3 points)

Write `clip_scores(x)` that returns a new array holding `x` with every entry below 0 replaced
by 0 and every entry above 1 replaced by 1. `x` is a 1-d float array of finite numbers.
"""
ANSWER = '''def clip_scores(x):
    """x clipped to [0, 1]; x: array of shape (n,). Returns an array of shape (n,)."""
    ### BEGIN SOLUTION
    return np.minimum(np.maximum(x, 0.0), 1.0)
    ### END SOLUTION
'''
VISIBLE = ('assert_close(clip_scores(np.array([-0.5, 0.25, 2.0])), [0, 0.25, 1], '
           '"clip_scores([-0.5, 0.25, 2])")\n')
# Two students' answers to the trial exercise (clip x to [0, 1]).
RIGHT = "def clip_scores(x):\n    return np.clip(x, 0, 1)\n"
# Right on the visible example (two decimals), wrong on the hidden cases' normal draws.
WRONG = "def clip_scores(x):\n    return np.round(np.clip(x, 0, 1), 2)\n"
README = Path(__file__).resolve().parents[1] / "README.md"


def readme_checks() -> str:
    """The ``checks.py`` the README's "Adding an exercise" shows (its first Python block)."""
    section = README.read_text().split("## Adding an exercise", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]

def notebook_path(root: Path) -> Path:
    return root / "solutions" / ASSIGNMENT / NOTEBOOK


def checks_path(root: Path) -> Path:
    return root / "solutions" / ASSIGNMENT / "checks.py"


def edit_cell(root: Path, grade_id: str, change: Callable[[NotebookNode], None]) -> None:
    """Change the solution notebook's cell ``grade_id`` in place with ``change``."""
    nb = nbformat.read(notebook_path(root), as_version=4)
    change(next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                == grade_id))
    nbformat.write(nb, notebook_path(root))


def set_source(root: Path, grade_id: str, source: str) -> None:
    edit_cell(root, grade_id, lambda cell: setattr(cell, "source", source))


def edit_checks(root: Path, old: str, new: str) -> None:
    text = checks_path(root).read_text()
    assert old in text, old
    checks_path(root).write_text(text.replace(old, new))


def scaffold(root: Path) -> None:
    assert main(["--course-root", str(root), "new-exercise", ASSIGNMENT, NAME]) == 0


def fill_in(root: Path) -> None:
    """Replace every placeholder of the scaffold, as the instructor does; ``checks.py`` is the
    README's example."""
    set_source(root, f"q_{NAME}", QUESTION)
    set_source(root, NAME, ANSWER)
    set_source(root, f"test_{NAME}_visible", VISIBLE)
    checks_path(root).write_text(readme_checks())


def trial_course(copy_course: Callable[..., Path]) -> Path:
    """A course (its config only) with the trial exercise scaffolded and filled in."""
    root = copy_course()
    scaffold(root)
    fill_in(root)
    return root


def library_digest() -> str:
    """SHA-256 over every file of ``mllib`` (names and contents): "no line of mllib edited"."""
    sha = hashlib.sha256()
    for path in sorted(MLLIB.rglob("*.py")):
        sha.update(path.relative_to(MLLIB).as_posix().encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()


def scores(db: Path) -> dict[str, tuple[float, float]]:
    """Student -> (visible test, hidden test) points in nbgrader's gradebook."""
    with Gradebook(f"sqlite:///{db}") as gb:
        return {s.student.id: tuple(
            gb.find_grade(f"test_{NAME}_{kind}", Path(NOTEBOOK).stem, ASSIGNMENT,
                          s.student.id).score for kind in ("visible", "hidden"))
                for s in gb.find_assignment(ASSIGNMENT).submissions}
