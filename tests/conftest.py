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

# The test files that take longest, longest first (each a minute or more of one worker in a
# fresh-clone CI run). `make test` hands whole files to the workers (--dist loadfile) in
# collection order (--no-loadscope-reorder; xdist's own order puts files with many tests first),
# so these start at once and the short files fill in around them: a long file handed out last
# would be the run's tail while the other worker idles.
LONGEST_FIRST = (
    "test_site.py", "test_hub.py", "test_grading_class.py", "test_notebooks.py", "test_browser.py",
    "test_collect.py", "test_grading_hostile.py", "test_hand_grades.py", "test_authoring.py",
    "test_lms.py", "test_grading.py", "test_variants.py", "test_links.py", "test_grading_xss.py",
    "test_lint.py", "test_fairness.py", "test_bundle.py", "test_similarity.py",
    "test_sandbox.py", "test_grading_cluster.py", "test_remove.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the files of :data:`LONGEST_FIRST` first, in its order; the rest keep theirs."""
    rank = {name: position for position, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable within a file


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the browser test's slider-to-image times (issue 24), one widget per lecture: the
    time from one arrow press on a slider in JupyterLab to its new figure being shown (kernel
    redraw, PNG over the websocket, decoding). Measured, never asserted."""
    rows = [value for report in terminalreporter.stats.get("passed", [])
            for name, value in getattr(report, "user_properties", ())
            if name == "slider_to_image"]
    if not rows:
        return
    terminalreporter.section("slider to new image in JupyterLab (one arrow press)")
    for notebook, label, seconds in sorted(rows):
        shown = f"{1e3 * seconds:7.0f} ms" if seconds is not None else "  no new image"
        terminalreporter.write_line(f"{shown}  {notebook}: {label}")

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
