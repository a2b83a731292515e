"""``course release`` keeps the tests of submitted work as they were (issue 36, item 5).

Students answer the release they have. A release that changes the visible tests (a test cell's
code or points) or the hidden checks (the checker module and the ``mllib`` modules it takes its
reference answers from) of an assignment that already has submissions (in ``grader/submitted/``
or the gradebook) is refused, exit status 2, with what changed and ``--force``; nothing is
written then. A change that leaves the tests alone (a statement's wording, a checker's
docstring) goes through, and so does any change while nobody has submitted.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from authoring_support import ASSIGNMENT as TRIAL
from authoring_support import NOTEBOOK as TRIAL_NOTEBOOK
from authoring_support import edit_checks, trial_course
from nbgrader.api import Gradebook

from grader.authoring.release import changed_tests, code_digest
from grader.cli import main
from grader.core.api import make_api

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises.ipynb"


def submit(root: Path, assignment: str, notebook: str) -> None:
    """alice hands in the committed release of ``notebook`` unchanged."""
    folder = root / "grader" / "submitted" / "alice" / assignment
    folder.mkdir(parents=True)
    shutil.copy2(root / "notebooks" / assignment / notebook, folder / notebook)


@pytest.fixture
def course(copy_course: Callable[..., Path]) -> Path:
    """A course whose committed release is current, with one submission of 01."""
    root = copy_course("solutions", "notebooks")
    submit(root, ASSIGNMENT, NOTEBOOK)
    return root


def release(root: Path, *flags: str) -> int:
    return main(["--course-root", str(root), "release", "--no-run", ASSIGNMENT, *flags])


def edit_solution(root: Path, grade_id: str, change: Callable[[dict], None]) -> None:
    path = root / "solutions" / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(path, as_version=4)
    change(next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                == grade_id))
    nbformat.write(nb, path)


def append_to_source(text: str) -> Callable[[dict], None]:
    return lambda cell: setattr(cell, "source", cell.source + text)


def released_bytes(root: Path) -> bytes:
    return (root / "notebooks" / ASSIGNMENT / NOTEBOOK).read_bytes()


def test_a_changed_visible_test_is_refused_and_nothing_is_written(
        course: Path, capsys: pytest.CaptureFixture) -> None:
    edit_solution(course, "test_update_rule_visible",
                  append_to_source("\nassert_close(1 + 1, 2, 'one more check')"))
    before = released_bytes(course)
    assert release(course) == 2
    err = capsys.readouterr().err
    assert "01_perceptron has 1 submission," in err
    assert f"{NOTEBOOK}: test test_update_rule_visible: its code changed" in err
    assert f"course release --force {ASSIGNMENT}" in err
    assert released_bytes(course) == before


def test_changed_points_are_a_changed_test(course: Path, capsys: pytest.CaptureFixture) -> None:
    edit_solution(course, "test_margin_hidden",
                  lambda cell: cell.metadata.nbgrader.__setitem__("points", 3))
    assert release(course) == 2
    assert "test test_margin_hidden: points 2 -> 3" in capsys.readouterr().err


def test_changed_hidden_checks_are_refused_and_forced(
        copy_course: Callable[..., Path], capsys: pytest.CaptureFixture) -> None:
    """The instructor's own checks.py (README, "Adding an exercise"): its code counts, its
    comments and docstrings do not."""
    root = trial_course(copy_course)
    assert main(["--course-root", str(root), "release", "--no-run", TRIAL]) == 0
    submit(root, TRIAL, TRIAL_NOTEBOOK)
    edit_checks(root, "def reference_clip_scores(x):\n",
                'def reference_clip_scores(x):\n    """Scores clipped to [0, 1]."""  # docs\n')
    assert main(["--course-root", str(root), "release", "--no-run", TRIAL]) == 0
    edit_checks(root, "np.clip(x, 0.0, 1.0)", "np.clip(x, 0.0, 2.0)")
    assert main(["--course-root", str(root), "release", "--no-run", TRIAL]) == 2
    assert f"hidden checks: solutions/{TRIAL}/checks.py changed" in capsys.readouterr().err
    assert main(["--course-root", str(root), "release", "--no-run", TRIAL, "--force"]) == 0
    # The release now records the changed checks: releasing again changes nothing.
    assert main(["--course-root", str(root), "release", "--no-run", TRIAL]) == 0


def test_the_release_records_each_checker_and_its_reference_modules() -> None:
    """01's hidden tests are decided by mllib.grading.perceptron and, through its REFERENCE,
    mllib.perceptron: the committed release records both (a stale record would only make the
    next release with submissions refuse, naming the module)."""
    nb = nbformat.read(REPO / "notebooks" / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert set(nb.metadata["course"]["hidden_checks"]) == {"mllib.grading.perceptron",
                                                           "mllib.perceptron"}


def test_a_changed_reference_module_is_a_changed_test(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder in (old, new):
        folder.mkdir()
        shutil.copy2(REPO / "notebooks" / ASSIGNMENT / NOTEBOOK, folder / NOTEBOOK)
    assert changed_tests(old, new) == []
    nb = nbformat.read(new / NOTEBOOK, as_version=4)
    nb.metadata["course"]["hidden_checks"]["mllib.perceptron"] = "0" * 64
    nbformat.write(nb, new / NOTEBOOK)
    assert changed_tests(old, new) == [f"{NOTEBOOK}: hidden checks: mllib.perceptron changed"]


def test_code_digest_ignores_comments_docstrings_and_layout(tmp_path: Path) -> None:
    def digest(text: str) -> str:
        path = tmp_path / "module.py"
        path.write_text(text)
        return code_digest(path)

    plain = digest("def f(x):\n    return x + 1\n")
    assert digest('"""Module."""\n\n\ndef f(x):  # one more\n    """Doc."""\n'
                  "    return (x +\n            1)\n") == plain
    assert digest("def f(x):\n    return x + 2\n") != plain


def test_a_submission_known_only_to_the_gradebook_counts(
        copy_course: Callable[..., Path], capsys: pytest.CaptureFixture) -> None:
    root = copy_course("solutions", "notebooks")
    assert release(root) == 0  # no submission: fills in the gradebook
    with Gradebook(make_api(root).coursedir.db_url) as gb:
        gb.add_student("bob")
        gb.add_submission(ASSIGNMENT, "bob")
    edit_solution(root, "test_bound_visible", append_to_source("\n"))
    assert release(root) == 2
    assert "01_perceptron has 1 submission," in capsys.readouterr().err


def test_without_submissions_a_changed_test_is_released(copy_course: Callable[..., Path]) -> None:
    root = copy_course("solutions", "notebooks")
    edit_solution(root, "test_update_rule_visible", append_to_source("\n# reworded"))
    assert release(root) == 0
    nb = nbformat.read(root / "notebooks" / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert any(cell.source.endswith("# reworded") for cell in nb.cells)


def test_autograde_does_not_release_changed_tests_either(course: Path) -> None:
    """Autograde releases an assignment the gradebook does not know yet (its test cells come
    from the gradebook): with submissions and changed tests, that release is refused too."""
    edit_solution(course, "test_update_rule_visible", append_to_source("\n# reworded"))
    with pytest.raises(SystemExit, match=r"(?s)its code changed.*course release --force"):
        main(["--course-root", str(course), "autograde", ASSIGNMENT, "--no-sandbox"])
    assert not (course / "grader" / "autograded").exists()


def test_release_to_the_exchange_is_refused_as_root(course: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """As root, nbgrader's inbound/ would be root's, unlistable by the formgrader's account
    (the release as that account, and students seeing it, is tests/test_hub.py's)."""
    monkeypatch.setattr("grader.authoring.release.os.geteuid", lambda: 0)
    before = released_bytes(course)
    with pytest.raises(SystemExit, match="not as root .* sudo -u grader-ml-course"):
        release(course, "--exchange")
    assert released_bytes(course) == before
    assert not (course / "grader" / "exchange" / "ml-course").exists()


def test_release_to_the_exchange_names_its_assignments(course: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grader.authoring.release.os.geteuid", lambda: 1000)
    with pytest.raises(SystemExit, match="name the assignments to release to the exchange"):
        main(["--course-root", str(course), "release", "--no-run", "--exchange"])
    assert not (course / "grader" / "exchange" / "ml-course").exists()
