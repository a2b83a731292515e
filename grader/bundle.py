"""What students receive: the course without its solutions, hidden checks and grading state.

``course bundle`` writes a folder (and a zip of it) that can be handed out, or pushed as the
term's public repository:

* ``notebooks/``: the released exercise notebooks and the walk-throughs;
* ``mllib/``: the course library the walk-throughs use, without the hidden checks
  (``mllib/grading/<topic>.py``); ``mllib/grading/__init__.py`` and ``wire.py`` stay, since
  the visible tests import ``assert_close`` from them;
* ``grader/``: the Python modules and Jupyter templates that ``course validate`` and the
  Validate button need (its nbgrader configuration included), and nothing else of that folder:
  no gradebook, submissions, feedback, exports, logs or course secret;
* ``pyproject.toml``, ``requirements.lock`` and ``environment.yml``, as the course pins them;
* a student README and Makefile (``grader/student/``): set-up in two commands, how to
  validate, the rule on libraries, ``make lab``.

Everything is taken from an allow-list, never by copying a folder and removing what should not
be there, so a file added to the course later stays out until it is named here.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

COURSE_FILES = ("pyproject.toml", "requirements.lock", "environment.yml")
STUDENT_FILES = {"README.md": "README.md", "Makefile": "Makefile", "gitignore": ".gitignore"}
GRADING_KEPT = ("__init__.py", "wire.py")  # what the visible tests import; no checker
GRADER_FOLDERS = ("jupyter", "jupyter_server_config.d")  # templates and the server's config
SKIPPED = (".ipynb_checkpoints", "__pycache__")


def _files(root: Path, folder: str, suffixes: tuple[str, ...]) -> Iterator[Path]:
    """Regular files under ``root/folder`` with one of ``suffixes``, no links, no caches."""
    for path in sorted((root / folder).rglob("*")):
        parts = path.relative_to(root).parts
        if (path.is_file() and not path.is_symlink() and path.suffix in suffixes
                and not any(part in SKIPPED for part in parts)):
            yield path


def student_files(course_root: Path) -> dict[str, Path]:
    """Path in the bundle -> the course file it is copied from.

    Raises
    ------
    ValueError
        When the course root lacks the release (``notebooks/``) or the library.
    """
    root = Path(course_root)
    for needed in ("notebooks", "mllib", "grader/nbgrader_config.py", *COURSE_FILES):
        if not (root / needed).exists():
            raise ValueError(f"{root} has no {needed}: not a course folder")
    chosen = {str(p.relative_to(root)): p for p in _files(root, "notebooks", (".ipynb",))}
    for path in _files(root, "mllib", (".py",)):
        relative = path.relative_to(root)
        if relative.parts[1] != "grading" or relative.name in GRADING_KEPT:
            chosen[str(relative)] = path
    chosen.update({f"grader/{p.name}": p for p in sorted((root / "grader").glob("*.py"))
                   if p.is_file() and not p.is_symlink()})
    for folder in GRADER_FOLDERS:
        chosen.update({str(p.relative_to(root)): p
                       for p in _files(root, f"grader/{folder}", (".j2", ".json"))})
    chosen.update({name: root / name for name in COURSE_FILES})
    templates = root / "grader" / "student"
    chosen.update({target: templates / name for name, target in STUDENT_FILES.items()})
    return chosen


def bundle(course_root: Path, out: Path) -> Path:
    """Write the student distribution to the folder ``out`` and ``out`` + ``.zip``.

    Parameters
    ----------
    course_root : Path
        The course folder (``notebooks/`` released, see ``course release``).
    out : Path
        The folder to write; replaced if it exists.

    Returns
    -------
    Path
        The zip file.
    """
    files = student_files(course_root)
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    for target, source in files.items():
        (out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, out / target)
    return Path(shutil.make_archive(str(out), "zip", out.parent, out.name))
