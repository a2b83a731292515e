"""What students receive: the course without its solutions, hidden checks and grading tools.

``course bundle`` writes a folder (and a zip of it) that can be handed out, or pushed as the
term's public repository:

* ``notebooks/``: the released exercise notebooks and the walk-throughs, refused when they are
  not what ``solutions/`` generates now (:func:`stale_notebooks`: a solution changed without
  ``course release``);
* ``mllib/``: the course library the walk-throughs use, without the hidden checks
  (``mllib/grading/<topic>.py``); ``mllib/grading/__init__.py`` and ``wire.py`` stay, since
  the visible tests import ``assert_close`` from them;
* ``grader/``: only what ``course validate`` and the Validate button import
  (:data:`GRADER_MODULES`), the students' nbgrader configuration and package docstring
  (``grader/student/nbgrader_config.py``, ``grader_init.py``); none of the instructor's tools
  (collect, grading, the sandbox, the submission scan and its flags, similarity, reports,
  exports, the LMS formats, the course secret's code) and no grading state; and what
  ``make lab``'s Validate dialog needs to say that only the visible tests ran (:data:`LAB_FILES`);
* ``pyproject.toml`` (its ``course`` command is :func:`grader.pipeline.validate.main`),
  ``requirements.lock`` and ``environment.yml``, as the course pins them;
* a student README and Makefile (``grader/student/``): set-up in two commands, how to
  validate, the rule on libraries, ``make lab``.

Everything is taken from an allow-list, never by copying a folder and removing what should not
be there, so a file added to the course later stays out until it is named here.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from grader.authoring.release import fresh_release, release_folder, without_stamp
from grader.core.api import make_api

COURSE_FILES = ("requirements.lock", "environment.yml")
STUDENT_FILES = {"README.md": "README.md", "Makefile": "Makefile", "gitignore": ".gitignore",
                 "nbgrader_config.py": "grader/nbgrader_config.py",
                 "grader_init.py": "grader/__init__.py"}
GRADING_KEPT = ("__init__.py", "wire.py")  # what the visible tests import; no checker
# What the students' nbgrader_config.py and `course validate` import (tests/test_bundle.py runs
# `make lab`'s Validate and `course validate` from a bundle with these alone).
GRADER_MODULES = ("core/__init__.py", "core/api.py", "kernel/__init__.py",
                  "kernel/kernel_guard.py", "pipeline/__init__.py", "pipeline/validate.py")
# The course's sentence in the Validate dialog (grader/pipeline/validate_dialog.py) and the
# switches that enable it in the bundle's lab (its Makefile puts grader/ on JUPYTER_CONFIG_PATH).
LAB_FILES = ("pipeline/validate_dialog.py", "jupyter_server_config.d/grader_validate_dialog.json",
             "jupyter_lab_config.json")
COMMAND = 'course = "grader.cli:main"'  # pyproject.toml's entry point; students get validate's
STUDENT_COMMAND = 'course = "grader.pipeline.validate:main"'
SKIPPED = (".ipynb_checkpoints", "__pycache__")


def _files(root: Path, folder: str, suffixes: tuple[str, ...]) -> Iterator[Path]:
    """Regular files under ``root/folder`` with one of ``suffixes``, no links, no caches."""
    for path in sorted((root / folder).rglob("*")):
        parts = path.relative_to(root).parts
        if (path.is_file() and not path.is_symlink() and path.suffix in suffixes
                and not any(part in SKIPPED for part in parts)):
            yield path


def student_files(course_root: Path) -> dict[str, Path]:
    """Path in the bundle -> the course file it is copied from (``pyproject.toml`` aside, see
    :func:`student_pyproject`).

    Raises
    ------
    ValueError
        When the course root lacks the release (``notebooks/``) or the library.
    """
    root = Path(course_root)
    for needed in ("notebooks", "mllib", "grader/nbgrader_config.py", "pyproject.toml",
                   *COURSE_FILES):
        if not (root / needed).exists():
            raise ValueError(f"{root} has no {needed}: not a course folder")
    chosen = {str(p.relative_to(root)): p for p in _files(root, "notebooks", (".ipynb",))}
    for path in _files(root, "mllib", (".py",)):
        relative = path.relative_to(root)
        if relative.parts[1] != "grading" or relative.name in GRADING_KEPT:
            chosen[str(relative)] = path
    chosen.update({f"grader/{name}": root / "grader" / name
                   for name in (*GRADER_MODULES, *LAB_FILES)})
    chosen.update({name: root / name for name in COURSE_FILES})
    templates = root / "grader" / "student"
    chosen.update({target: templates / name for name, target in STUDENT_FILES.items()})
    return chosen


def student_pyproject(course_root: Path) -> str:
    """The course's ``pyproject.toml`` with ``course`` bound to
    :func:`grader.pipeline.validate.main` (the bundle has no ``grader.cli``)."""
    text = (Path(course_root) / "pyproject.toml").read_text()
    if text.count(COMMAND) != 1:
        raise ValueError(f"pyproject.toml does not declare {COMMAND} once: the bundle cannot "
                         "give students their `course validate`")
    return text.replace(COMMAND, STUDENT_COMMAND)


def stale_notebooks(course_root: Path) -> list[str]:
    """The released notebooks (``notebooks/<assignment>/<name>.ipynb``) that differ from what
    ``course release`` would write now, or that it would add or no longer write.

    Each assignment of ``solutions/`` is released into a temporary folder
    (:func:`grader.authoring.release.fresh_release`) and compared notebook by notebook as JSON,
    without the record of the hidden checks (:func:`grader.authoring.release.without_stamp`).
    """
    api = make_api(Path(course_root))
    assignments = sorted(api.get_source_assignments())
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = fresh_release(api, assignments, Path(tmp))
        for assignment in assignments:
            new, old = release_folder(fresh, assignment), release_folder(api, assignment)
            for name in sorted({p.name for p in [*new.glob("*.ipynb"), *old.glob("*.ipynb")]}):
                if (not (old / name).is_file() or not (new / name).is_file()
                        or without_stamp(old / name) != without_stamp(new / name)):
                    stale.append(f"notebooks/{assignment}/{name}")
    return stale


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

    Raises
    ------
    ValueError
        When ``course_root`` is no course, or its release is stale (nothing is written then).
    """
    files = student_files(course_root)
    pyproject = student_pyproject(course_root)
    stale = stale_notebooks(course_root)
    if stale:
        assignments = sorted({path.split("/")[1] for path in stale})
        raise ValueError(
            "the release in notebooks/ is not what solutions/ generates now (a solution changed "
            f"without a release): {', '.join(stale)}. Run `course release {' '.join(assignments)}`"
            " (or `make notebooks`), commit notebooks/, then bundle again; nothing was written")
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    for target, source in files.items():
        (out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, out / target)
    (out / "pyproject.toml").write_text(pyproject)
    return Path(shutil.make_archive(str(out), "zip", out.parent, out.name))
