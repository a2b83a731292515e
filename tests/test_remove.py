"""``course remove``: a backup of the whole gradebook first, and no grade lost by mistake.

The gradebooks are filled through nbgrader's own API; the backup is read back with it, the
independent check that nothing was lost in the copy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from nbgrader.api import Gradebook, MissingEntry

from grader.authoring.remove import backup_gradebook, remove_assignment
from grader.cli import main
from grader.core.api import make_api

STUDENTS = {"ann": 2.0, "bo": 0.5}


def gradebook(root: Path, graded: bool) -> Path:
    """A course gradebook with assignments ``keep`` and ``trial``; ``trial`` has a submission
    per student with an autograded score when ``graded``."""
    db = root / "grader" / "gradebook.db"
    with Gradebook(f"sqlite:///{db}", make_api(root).coursedir.course_id) as gb:
        for assignment in ("keep", "trial"):
            gb.add_assignment(assignment)
            gb.add_notebook("ex", assignment)
            gb.add_grade_cell("test_a", "ex", assignment, max_score=2.0, cell_type="code")
        for student, score in STUDENTS.items():
            gb.add_student(student)
            gb.add_submission("keep", student)
            if graded:
                gb.add_submission("trial", student)
                gb.find_grade("test_a", "ex", "trial", student).auto_score = score
        gb.db.commit()
    return db


def dump(db: Path) -> list[str]:
    """Every row of the database as SQL (SQLite's own dump): its content, not its file."""
    with sqlite3.connect(db) as connection:
        return list(connection.iterdump())


def trial_scores(db: Path) -> dict[str, float]:
    with Gradebook(f"sqlite:///{db}") as gb:
        return {s.student.id: s.score for s in gb.find_assignment("trial").submissions}


def test_grades_are_refused_without_force_and_nothing_is_written(
        copy_course: Callable[..., Path]) -> None:
    root = copy_course()
    db = gradebook(root, graded=True)
    before = dump(db)
    with pytest.raises(SystemExit, match=r"trial has grades of 2 students \(ann, bo\).*--force"):
        main(["--course-root", str(root), "remove", "trial"])
    assert dump(db) == before
    assert not (root / "grader" / "backups").exists()


def test_force_removes_the_grades_after_a_backup_that_keeps_them(
        copy_course: Callable[..., Path]) -> None:
    root = copy_course()
    db = gradebook(root, graded=True)
    assert trial_scores(db) == STUDENTS
    backup = remove_assignment(make_api(root), "trial", force=True)
    assert backup.parent == root / "grader" / "backups"
    with Gradebook(f"sqlite:///{db}") as gb:
        assert [a.name for a in gb.assignments] == ["keep"]
        with pytest.raises(MissingEntry):
            gb.find_assignment("trial")
        assert sorted(s.student.id for s in gb.find_assignment("keep").submissions) == \
            sorted(STUDENTS)
    assert trial_scores(backup) == STUDENTS  # nbgrader opens the backup as a gradebook
    with Gradebook(f"sqlite:///{backup}") as gb:
        assert sorted(a.name for a in gb.assignments) == ["keep", "trial"]


def test_an_assignment_without_grades_is_removed_without_force(
        copy_course: Callable[..., Path], capsys: pytest.CaptureFixture) -> None:
    root = copy_course()
    db = gradebook(root, graded=False)
    assert main(["--course-root", str(root), "remove", "trial"]) == 0
    assert "backup: " in capsys.readouterr().out
    with Gradebook(f"sqlite:///{db}") as gb:
        assert [a.name for a in gb.assignments] == ["keep"]


def test_an_unknown_assignment_and_an_existing_backup_are_refused(
        copy_course: Callable[..., Path], tmp_path: Path) -> None:
    root = copy_course()
    db = gradebook(root, graded=False)
    with pytest.raises(SystemExit, match="nope is not in the gradebook"):
        main(["--course-root", str(root), "remove", "nope"])
    taken = tmp_path / "b.db"
    taken.write_text("mine")
    with pytest.raises(ValueError, match="exists already"):
        backup_gradebook(f"sqlite:///{db}", taken)
    assert taken.read_text() == "mine"
