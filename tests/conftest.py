"""Fixtures shared by the notebook and grading tests."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def copy_course(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Return a factory that copies parts of the course into a fresh temporary course root.

    ``copy_course("solutions", "notebooks")`` copies those folders and always
    ``grader/nbgrader_config.py``, which places the course root at the copy, so nbgrader
    run there never touches the repository.
    """

    def factory(*folders: str) -> Path:
        root = tmp_path_factory.mktemp("course")
        ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
        for folder in folders:
            shutil.copytree(REPO / folder, root / folder, ignore=ignore)
        (root / "grader").mkdir()
        shutil.copy2(REPO / "grader" / "nbgrader_config.py", root / "grader")
        return root

    return factory
