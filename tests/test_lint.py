"""``course lint`` refuses each fault an instructor's exercise can have, one test per fault,
and names the cell and the fix; ``course release`` then writes nothing.

Every test starts from the same exercise (``tests/authoring_support.py``: scaffolded by
``course new-exercise``, filled in as the README says), which lints clean
(:func:`test_the_filled_in_exercise_lints_clean`, the baseline that makes each fault the cause of
its problem), and breaks one thing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from authoring_support import (
    ASSIGNMENT,
    NAME,
    NOTEBOOK,
    edit_cell,
    edit_checks,
    scaffold,
    set_source,
    trial_course,
)

from grader.authoring.lint import TODO_MARK, Problem, lint
from grader.cli import main
from grader.core.api import make_api
from mllib.grading import Case

REPO = Path(__file__).resolve().parents[1]
SHOWN = f"solutions/{ASSIGNMENT}/{NOTEBOOK}"
HIDDEN_CELL = f"{SHOWN}, cell 6 (test_{NAME}_hidden)"  # title, setup, question, answer, visible
VISIBLE_CELL = f"{SHOWN}, cell 5 (test_{NAME}_visible)"
HIDDEN = 'from mllib.grading import hidden_test\nhidden_test("checks.clip_scores", clip_scores)\n'


def problems(root: Path, run: bool = False) -> list[Problem]:
    return lint(make_api(root), ASSIGNMENT, run=run)


def only(found: list[Problem], where: str) -> str:
    """The message of the one problem found, which must be at ``where``."""
    assert [p.where for p in found] == [where], found
    return found[0].message


def hidden_cell(body: str) -> str:
    return f"# Hidden tests.\n\n### BEGIN HIDDEN TESTS\n{body}### END HIDDEN TESTS\n"


def test_the_filled_in_exercise_lints_clean(copy_course: Callable[..., Path]) -> None:
    assert problems(trial_course(copy_course), run=True) == []


def test_a_fresh_scaffold_is_refused_only_for_its_placeholders(
        copy_course: Callable[..., Path]) -> None:
    root = copy_course()
    scaffold(root)
    found = problems(root)
    assert found and all(TODO_MARK in p.message for p in found), found
    # One per cell the author writes (question, answer, visible test), and per checks.py line.
    assert sorted(p.where for p in found if p.where.startswith(SHOWN)) == [
        f"{SHOWN}, cell 3 (q_{NAME})", f"{SHOWN}, cell 4 ({NAME})", VISIBLE_CELL]
    assert sum(p.where.startswith(f"solutions/{ASSIGNMENT}/checks.py, line ") for p in found) == 2


def test_refuses_a_hidden_test_call_outside_the_markers_and_release_writes_nothing(
        copy_course: Callable[..., Path], capsys: pytest.CaptureFixture) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_hidden", hidden_cell("") + HIDDEN)
    message = only(problems(root), HIDDEN_CELL)
    assert "hidden_test on line 6 is outside the ### BEGIN HIDDEN TESTS / ### END HIDDEN " \
           "TESTS markers" in message and "put it between them" in message
    assert main(["--course-root", str(root), "release", ASSIGNMENT]) == 1
    assert not (root / "notebooks").exists()
    assert "nothing was released" in capsys.readouterr().err


def test_refuses_a_checker_name_that_does_not_resolve(copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_hidden", hidden_cell(HIDDEN.replace('"checks.clip_scores"',
                                                                      '"checks.clip_score"')))
    message = only(problems(root), HIDDEN_CELL)
    assert "the checker 'checks.clip_score' does not resolve" in message
    assert f"define `def clip_score() -> Check` in {root}/solutions/{ASSIGNMENT}/checks.py" \
        in message


def test_refuses_a_hidden_test_that_passes_another_function_than_its_check_calls(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_hidden",
               hidden_cell(HIDDEN.replace(", clip_scores)", ", np.clip)")))
    message = only(problems(root), HIDDEN_CELL)
    assert "the check checks.clip_scores calls 'clip_scores'" in message


def test_refuses_a_visible_test_whose_expected_value_is_not_a_literal(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_visible",
               "expected = np.array([0, 0.25, 1])\nassert_close(clip_scores(np.array([-0.5, "
               '0.25, 2.0])), expected, "clip_scores([-0.5, 0.25, 2])")\n')
    message = only(problems(root), VISIBLE_CELL)
    assert message.startswith("line 2: the expected value expected is not a literal")
    assert "type it" in message


def test_refuses_a_visible_test_of_plain_asserts(copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_visible",
               "assert np.allclose(clip_scores(np.array([-0.5, 2.0])), [0, 1])\n")
    message = only(problems(root), VISIBLE_CELL)
    assert "assert_close(actual, LITERAL, \"what\")" in message and "plain assert" in message


def test_refuses_a_plain_assert_hidden_test_and_shows_the_equivalent_check(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_hidden", hidden_cell(
        "assert np.allclose(clip_scores(np.array([-1.0, 2.0])), [0, 1])\n"
        "assert clip_scores(np.array([0.5]))[0] == 0.5\n"))
    message = only(problems(root), HIDDEN_CELL)
    assert "plain-assert hidden test" in message and "student's kernel" in message
    assert 'def clip_scores() -> Check:' in message
    assert 'hidden_test("checks.clip_scores", clip_scores)' in message
    # The Cases shown are Python that rebuilds the asserts' own inputs, one per call.
    cases = [eval(line.strip().rstrip(","), {"Case": Case, "np": np})
             for line in message.splitlines() if line.strip().startswith("Case(")]
    assert [c.args[0].tolist() for c in cases] == [[-1.0, 2.0], [0.5]]


def test_refuses_a_hidden_test_cell_whose_other_statements_grading_would_skip(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    set_source(root, f"test_{NAME}_hidden", hidden_cell(
        HIDDEN + "assert clip_scores(np.array([0.5]))[0] == 0.5\n"))
    message = only(problems(root), HIDDEN_CELL)
    assert message.startswith("line 6: grading runs only this cell's hidden_test call")


METADATA_FAULTS = {
    # fault: (grade_id of the cell changed, the change, where it is reported, words of the fix)
    "answer without grade_id": (
        NAME, lambda m: m.pop("grade_id"), f"{SHOWN}, cell 4", "no grade_id"),
    "duplicate grade_id": (
        f"test_{NAME}_visible", lambda m: m.update(grade_id=f"test_{NAME}_hidden"),
        f"{SHOWN}, cell 5 (test_{NAME}_hidden)", "used by another cell too"),
    "test without points": (
        f"test_{NAME}_hidden", lambda m: m.pop("points"), HIDDEN_CELL, "has no points"),
    "zero points": (
        f"test_{NAME}_visible", lambda m: m.update(points=0), VISIBLE_CELL, "has no points"),
    "question not locked": (
        f"q_{NAME}", lambda m: m.update(locked=False), f"{SHOWN}, cell 3 (q_{NAME})",
        "the question of an answer but not locked"),
    "answer locked": (
        NAME, lambda m: m.update(locked=True), f"{SHOWN}, cell 4 ({NAME})",
        "students could not write in it"),
    "test not locked": (
        f"test_{NAME}_visible", lambda m: m.update(locked=False), VISIBLE_CELL,
        "set locked: true"),
}


@pytest.mark.parametrize("fault", METADATA_FAULTS)
def test_refuses_missing_or_inconsistent_nbgrader_metadata(
        copy_course: Callable[..., Path], fault: str) -> None:
    grade_id, change, where, fix = METADATA_FAULTS[fault]
    root = trial_course(copy_course)
    edit_cell(root, grade_id, lambda cell: change(cell.metadata["nbgrader"]))
    found = problems(root)
    assert where in [p.where for p in found], found
    assert fix in next(p.message for p in found if p.where == where)


def test_refuses_a_check_that_fails_on_the_instructors_own_solution(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    edit_checks(root, "return np.clip(x, 0.0, 1.0)", "return np.clip(x, 0.0, 2.0)")
    message = only(problems(root, run=True), HIDDEN_CELL)
    assert message.startswith("fails on your own solution (ExerciseFailed: clip_scores gives "
                              "a wrong answer on hidden case")


def test_refuses_a_check_that_passes_on_the_blank_release(
        copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    edit_checks(root, "Check(\"clip_scores\", [", "Check(\"clip_scores\", [] and [")  # cases lost
    found = {p.where: p.message for p in problems(root, run=True)}
    assert found[HIDDEN_CELL].startswith("passes on the blank release")
    # and, since a visible test scores only beside a passing hidden case, the exercise's
    # visible test fails on the solution too (ExamplesOnly)
    assert set(found) == {HIDDEN_CELL, VISIBLE_CELL}
    assert "ExamplesOnly" in found[VISIBLE_CELL] and "a Check needs at least one case" in found[
        HIDDEN_CELL]


def test_refuses_hidden_checks_left_in_the_release(copy_course: Callable[..., Path]) -> None:
    root = trial_course(copy_course)
    leaked = root / "notebooks" / ASSIGNMENT / "checks.py"
    leaked.parent.mkdir(parents=True)
    leaked.write_text("")
    message = only(problems(root), f"notebooks/{ASSIGNMENT}/checks.py")
    assert "students would receive" in message


COURSE = sorted(p.name for p in (REPO / "solutions").iterdir() if p.is_dir())


@pytest.mark.parametrize("assignment", COURSE)
def test_every_lecture_of_the_course_passes_the_static_lint(assignment: str) -> None:
    """`course release` lints first: the course's own assignments must pass (the run part is
    what tests/test_notebooks.py and tests/test_grading.py check on every notebook)."""
    assert lint(make_api(REPO), assignment, run=False) == []
