"""Fixtures shared by the notebook and grading tests."""

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests replay the same examples on every run, for everyone (a user's `make test` as
# well as CI, where hypothesis would otherwise pick its own `ci` profile only when CI is set):
# a suite that passes once passes every time. `make test-explore` (HYPOTHESIS_PROFILE=explore)
# draws new, ten times as many examples, to find cases the fixed ones miss; run it before a
# change lands, and turn what it finds into a fix of the claim, not of the seed.
settings.register_profile("replay", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None,
                          max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "replay"))

REPO = Path(__file__).resolve().parents[1]

# Every course a test grades (and every `course` it starts) draws students' hidden inputs from
# this one secret, so the suite's scores are the same on every run and machine; a course's own
# secret file would be new random bytes in each temporary course. tests/test_variants.py
# removes it where it tests the file.
TEST_SECRET = "5eed" * 16
os.environ["COURSE_SECRET"] = TEST_SECRET


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
