"""The course's nbgrader configuration and API object, for ``course`` and its workers."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from sqlalchemy.exc import SAWarning
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

CONFIG_FILE = "nbgrader_config.py"
# SQLAlchemy's driver for a bare postgresql:// URL is psycopg2; the course installs psycopg 3.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def gradebook_url(url: str) -> str:
    """The SQLAlchemy URL nbgrader should open for a gradebook URL an instructor typed.

    ``postgresql://user@host/db`` (and ``postgres://``) become ``postgresql+psycopg://...``;
    anything else (``sqlite:///...``, an explicit driver) is returned as given.
    """
    for scheme in POSTGRES_SCHEMES:
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url.removeprefix(scheme)
    return url


def load_config(course_root: Path) -> Config:
    """Load the course's nbgrader configuration.

    Parameters
    ----------
    course_root : Path
        Folder holding ``solutions/``, ``notebooks/`` and ``grader/nbgrader_config.py``.

    Returns
    -------
    Config
        The configuration; the file itself sets ``CourseDirectory.root`` to ``course_root``.
    """
    config_dir = course_root / "grader"
    if not (config_dir / CONFIG_FILE).is_file():
        raise SystemExit(f"course: no {config_dir / CONFIG_FILE}")
    return PyFileConfigLoader(CONFIG_FILE, path=str(config_dir)).load_config()


def make_api(course_root: Path, db_url: str | None = None) -> NbGraderAPI:
    """Return nbgrader's API object configured for the course at ``course_root``.

    ``db_url`` replaces the configured gradebook (see :func:`gradebook_url`).
    """
    # nbgrader runs the `alembic` executable when it creates a gradebook; it lives next to the
    # interpreter, which is not on PATH when the venv is not activated (e.g. `.venv/bin/course`).
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    # SQLAlchemy 2.1 warns "... not in session" on every autograde; nbgrader's own code triggers
    # it and it is harmless, so keep it out of the instructor's terminal.
    warnings.filterwarnings("ignore", message=".*not in session", category=SAWarning)
    api = NbGraderAPI(config=load_config(course_root))
    if db_url:
        api.coursedir.db_url = gradebook_url(db_url)
    return api


def report_failure(what: str, result: dict[str, object]) -> None:
    """Print nbgrader's captured log (or, without one, the traceback) to stderr."""
    print(f"FAILED {what}", file=sys.stderr)
    print(str(result.get("log") or result.get("error", "")).rstrip(), file=sys.stderr)


def secret_path(api: NbGraderAPI) -> Path:
    """Where the course secret lives (``c.GradingExecute.secret_file``)."""
    configured = api.config.GradingExecute.get("secret_file")
    if not configured:
        raise SystemExit("course: c.GradingExecute.secret_file is not set in the course config")
    return Path(configured)
