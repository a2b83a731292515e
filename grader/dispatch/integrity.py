"""Checksums of what grading must never change: the course checkout and the library source.

``course autograde`` takes a :func:`snapshot` before the class is graded and another after;
:func:`changes` lists the files that differ. The sandbox should make any change impossible, so
a non-empty list means something escaped it (or someone edited the course during the run): the
report says so and the command exits non-zero.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import mllib

# Folders under the course root that grading writes or that are not the course itself.
RUN_TIME = {"grader/submitted", "grader/autograded", "grader/feedback", "grader/exports",
            "grader/exchange", "tests/artifacts"}
SKIPPED_NAMES = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                 ".ipynb_checkpoints"}
SKIPPED_FILES = {"grader/gradebook.db", "grader/gradebook.db-journal", "grader/.nbgrader.log"}


def protected_roots(course_root: Path) -> list[Path]:
    """The course checkout and the folders of the installed ``mllib`` and ``grader`` source."""
    roots = [course_root.resolve()]
    for folder in (Path(mllib.__file__).resolve().parent, Path(__file__).resolve().parents[1]):
        if not any(folder.is_relative_to(root) for root in roots):
            roots.append(folder)
    return roots


def _files(root: Path) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        relative = here.relative_to(root).as_posix()
        dirs[:] = [d for d in dirs if d not in SKIPPED_NAMES
                   and f"{relative}/{d}".removeprefix("./") not in RUN_TIME]
        for name in files:
            path = here / name
            if path.relative_to(root).as_posix() not in SKIPPED_FILES:
                yield path


def snapshot(roots: Iterable[Path]) -> dict[str, str]:
    """``{path: sha256}`` of every protected file under ``roots`` (symlinks by target text)."""
    digests = {}
    for root in roots:
        for path in _files(root):
            if path.is_symlink():
                content = os.readlink(path).encode()
            else:
                try:
                    content = path.read_bytes()
                except OSError:
                    content = b"<unreadable>"
            digests[str(path)] = hashlib.sha256(content).hexdigest()
    return digests


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Files added, removed or modified between two snapshots, as ``"modified: path"``."""
    found = [f"modified: {p}" for p in sorted(before.keys() & after.keys())
             if before[p] != after[p]]
    found += [f"removed: {p}" for p in sorted(before.keys() - after.keys())]
    found += [f"added: {p}" for p in sorted(after.keys() - before.keys())]
    return found
