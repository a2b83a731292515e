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


# `make test` runs the suite on every CPU with pytest-xdist (`-n auto --dist loadgroup`). Each
# module below shares one expensive session- or module-scoped fixture across its tests; on one
# worker it is built once, spread over several it would be built once per worker (a second
# JupyterLab and Chromium, a second graded class). Their tests also write to shared places (the
# browser test's tests/artifacts/ screenshots). So each of these modules runs on one worker, in
# order, while the other modules' tests are spread over the rest. Without xdist the mark is inert.
ONE_WORKER_MODULES = {
    "test_browser": "one JupyterLab server and one Chromium for all walk-throughs",
    "test_grading": "one autograde of every assignment (the `graded` fixture)",
    "test_grading_class": "one graded class of 30 (the `graded` fixture)",
    "test_grading_hostile": "one graded class of attackers (the `hostile` fixture)",
    "test_fairness": "one autograde of every lecture's second solutions (the `graded` fixture)",
    "test_notebooks": "every notebook executed once, concurrently (the `executed` fixture)",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module else ""
        if module in ONE_WORKER_MODULES:
            item.add_marker(pytest.mark.xdist_group(module))
