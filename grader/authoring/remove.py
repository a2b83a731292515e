"""``course remove ASSIGNMENT``: take an assignment out of the gradebook, after a backup.

A trial assignment stays in the gradebook, and so in every export and in the formgrader, until
it is removed. Removal is nbgrader's own (``Gradebook.remove_assignment``, what
``nbgrader db assignment remove`` runs): the assignment, its notebooks and cells, and every
submission and grade of it. So :func:`remove_assignment` first writes a copy of the whole
gradebook (:func:`backup_gradebook`), and refuses when the assignment has submissions unless
forced, as ``nbgrader db assignment remove`` does without ``--force``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from nbgrader.api import Base, MissingEntry
from nbgrader.apps import NbGraderAPI
from sqlalchemy import create_engine, inspect, text

from mllib.plotting import counted

VERSION_TABLE = "alembic_version"  # nbgrader's schema version, read when it opens a gradebook


def backup_gradebook(db_url: str, dest: Path) -> Path:
    """Copy every table of the gradebook at ``db_url`` into a new SQLite file ``dest``.

    Works for any database nbgrader supports (SQLite, PostgreSQL): the copy is made row by
    row through nbgrader's own table definitions, with its schema version, so nbgrader (and
    ``course --db-url sqlite:///<dest>``) opens it as a gradebook.
    """
    if dest.exists():
        raise ValueError(f"{dest} exists already: not overwriting a backup")
    dest.parent.mkdir(parents=True, exist_ok=True)
    source, target = create_engine(db_url), create_engine(f"sqlite:///{dest}")
    try:
        Base.metadata.create_all(target)
        with source.connect() as read, target.begin() as write:
            for table in Base.metadata.sorted_tables:
                rows = [dict(row._mapping) for row in read.execute(table.select())]
                if rows:
                    write.execute(table.insert(), rows)
            if inspect(source).has_table(VERSION_TABLE):
                version = read.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
                write.execute(text(f"CREATE TABLE {VERSION_TABLE} "
                                   "(version_num VARCHAR(32) NOT NULL)"))
                write.execute(text(f"INSERT INTO {VERSION_TABLE} VALUES (:v)"), {"v": version})
    finally:
        source.dispose()
        target.dispose()
    return dest


def backup_path(course_root: Path, assignment: str) -> Path:
    """``grader/backups/gradebook-<UTC time>-before-removing-<assignment>.db``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return course_root / "grader" / "backups" / f"gradebook-{stamp}-before-removing-{assignment}.db"


def remove_assignment(api: NbGraderAPI, assignment: str, force: bool = False) -> Path:
    """Back the gradebook up, then remove ``assignment`` and all its grades from it.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.core.api.make_api`.
    assignment : str
        Assignment id in the gradebook.
    force : bool
        Remove even when students' submissions (and their grades) are recorded.

    Returns
    -------
    Path
        The backup.

    Raises
    ------
    ValueError
        When the gradebook has no such assignment, or has grades for it and ``force`` is
        False; nothing is written then.
    """
    with api.gradebook as gb:
        try:
            students = sorted(s.student.id for s in gb.find_assignment(assignment).submissions)
        except MissingEntry:
            raise ValueError(f"{assignment} is not in the gradebook") from None
    if students and not force:
        shown = ", ".join(students[:5]) + (", ..." if len(students) > 5 else "")
        raise ValueError(f"{assignment} has grades of {counted(len(students), 'student')} "
                         f"({shown}); "
                         f"`course remove {assignment} --force` removes them too (after a "
                         "backup of the gradebook)")
    backup = backup_gradebook(api.coursedir.db_url, backup_path(Path(api.coursedir.root),
                                                                assignment))
    with api.gradebook as gb:
        gb.remove_assignment(assignment)
    return backup
