"""Hand grades stay graded when the class is autograded again (issue 27, part 2).

A class of four is graded with the real ``course autograde``; JupyterLab serves the course and
Chromium grades by hand in nbgrader's formgrader, as an instructor does: it types scores and
comments into the grading page of three submissions (the written answer of ``ada``, ``bea`` and
``dov``, and an override of ``dov``'s visible update-rule test); ``cal``'s written answer is
left ungraded. Then:

1. the whole class is regraded unchanged: the formgrader's "Needs Manual Grade?" column, read
   from its gradebook page in Chromium, is exactly as the hand grading left it, and nbgrader's
   gradebook still holds every manual score and comment;
2. ``bea`` resubmits a changed written answer and is regraded: only her row is flagged again,
   her manual score is kept, and the comment box of her grading page shows the previous score
   and comment;
3. the autograded copy that was graded is deleted, and ``dov`` is regraded: his hand grades are
   flagged (nothing to compare with) and kept, with a note that says so;
4. the oracle can fail: with nbgrader's own ``SaveAutoGrades`` back in the pipeline, a regrade
   of the unchanged ``ada`` flags her again (the behaviour the issue reports).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from browser_support import (
    CHROMIUM_ARGS,
    LabServer,
    require_chromium,
    start_lab,
    wait_until_true,
)
from hypothesis import given
from hypothesis import strategies as st
from nbgrader.api import Gradebook
from nbgrader.preprocessors import SaveAutoGrades
from nbgrader.utils import compute_checksum
from playwright.sync_api import BrowserContext, Page, sync_playwright
from test_grading_class import ASSIGNMENT, NOTEBOOK, UPDATE_ALWAYS, WRITTEN, cell, solved
from test_grading_xss import build_course

from grader.cli import main
from grader.core.api import make_api
from grader.handback.pending import NOTE_END, NOTE_START, student_comment
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline.hand_grades import (
    CHANGED,
    UNCOMPARED,
    KeepHandGrades,
    previous_answers,
    regrade_note,
)

pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())

VISIBLE = "test_update_rule_visible"  # dov's wrong update rule fails it; overridden by hand
SUBMISSIONS = {
    "ada": solved(**{WRITTEN: "A larger learning rate scales w, not its direction."}),
    "bea": solved(**{WRITTEN: "It changes how fast the perceptron converges."}),
    "cal": solved(**{WRITTEN: "Only the scale of w changes."}),
    "dov": solved(update_rule=UPDATE_ALWAYS, **{WRITTEN: "eta rescales every update."}),
}
RESUBMITTED = "On reflection: eta > 0 multiplies w by a constant, so the mistakes are the same."
# What the instructor types in the formgrader: student -> grade id -> (score, comment or None).
HAND_GRADES = {
    "ada": {WRITTEN: ("2", "Right: only the scale changes.")},
    "bea": {WRITTEN: ("0.5", "Convergence speed is not the point; see MMDS 12.2.")},
    "dov": {WRITTEN: ("1.5", None), VISIBLE: ("1", None)},
}


@dataclass
class Course:
    root: Path
    lab: LabServer
    browser: BrowserContext
    log: list[str]

    def course(self, *args: str) -> int:
        """Run ``course`` on the course copy, keeping its output for failure messages."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["--course-root", str(self.root), *args])
        self.log.append(out.getvalue())
        return code

    def gradebook(self) -> Gradebook:
        return Gradebook("sqlite:///" + str(self.root / "grader" / "gradebook.db"))

    def submission_id(self, student: str) -> str:
        with self.gradebook() as gb:
            return gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student).id


def submit(root: Path, student: str, nb: nbformat.NotebookNode) -> None:
    folder = root / "grader" / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Course]:
    chromium = require_chromium()
    tmp = tmp_path_factory.mktemp("hand")
    root = tmp / "course"
    build_course(root)
    for student, nb in SUBMISSIONS.items():
        submit(root, student, nb)
    # nbgrader runs `alembic` by name whenever the formgrader opens the gradebook.
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"
    lab = start_lab(tmp)
    os.environ["PATH"] = path
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp / "chromium-profile"), executable_path=chromium, headless=True,
            args=CHROMIUM_ARGS)
        browser.set_default_timeout(30_000)
        try:
            yield Course(root, lab, browser, [])
        finally:
            browser.close()
            lab.stop()


def grading_page(course: Course, student: str) -> Page:
    """The formgrader's grading page of ``student``, once its grades and comments are loaded."""
    page = course.browser.new_page()
    page.goto(f"{course.lab.url}/formgrader/submissions/{course.submission_id(student)}/")
    wait_until_true(page, "window.formgrader && formgrader.grades.loaded && "
                          "formgrader.comments.loaded")
    return page


def type_and_save(page: Page, selector: str, value: str, api: str) -> None:
    """Type ``value`` into a grading input and leave it, as a grader does; wait for the save."""
    with page.expect_response(lambda r: f"/api/{api}/" in r.url
                              and r.request.method == "PUT") as saved:
        page.fill(selector, value)
        page.locator(selector).evaluate("element => element.blur()")
    assert saved.value.ok, saved.value.status


def grade_by_hand(course: Course) -> None:
    for student, grades in HAND_GRADES.items():
        page = grading_page(course, student)
        for grade_id, (score, comment) in grades.items():
            type_and_save(page, f"#{grade_id}", score, "grade")
            if comment is not None:
                type_and_save(page, f"#{grade_id}-comment", comment, "comment")
        page.close()


def grading_box(course: Course, student: str) -> tuple[str, bool, str]:
    """The written answer's score, flag and comment as ``student``'s grading page shows them."""
    page = grading_page(course, student)
    shown = (page.input_value(f"#{WRITTEN}"),
             "needs_manual_grade" in page.get_attribute(f"#{WRITTEN}", "class"),
             page.input_value(f"#{WRITTEN}-comment"))
    page.close()
    return shown


def needs_manual_grade_column(course: Course) -> dict[str, bool]:
    """Student -> whether the formgrader's "Needs Manual Grade?" column is ticked, read from
    the notebook's gradebook page in Chromium."""
    page = course.browser.new_page()
    page.goto(f"{course.lab.url}/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}")
    page.wait_for_selector("td.needs-manual-grade", state="attached")
    header = page.locator("th").all_inner_texts()
    assert "Needs Manual Grade?" in header, header
    rows = page.evaluate("""() => Array.from(document.querySelectorAll('tbody tr')).map(row => [
        row.querySelector('.name a.name-shown').textContent,
        row.querySelector('.needs-manual-grade .glyphicon-ok') !== null])""")
    page.close()
    return dict(rows)


@dataclass(frozen=True)
class Hand:
    """A grade as nbgrader's gradebook holds it."""

    needs_manual_grade: bool
    manual_score: float | None
    comment: str | None


def hand_grades(course: Course) -> dict[tuple[str, str], Hand]:
    """(student, grade id) -> the written answer's and the overridden test's grade."""
    found = {}
    with course.gradebook() as gb:
        for student in SUBMISSIONS:
            for grade_id in (WRITTEN, VISIBLE):
                grade = gb.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, student)
                comment = (gb.find_comment(grade_id, NOTEBOOK, ASSIGNMENT, student).manual_comment
                           if grade_id == WRITTEN else None)
                found[student, grade_id] = Hand(grade.needs_manual_grade, grade.manual_score,
                                                comment)
    return found


@pytest.fixture(scope="module")
def runs(course: Course) -> dict[str, dict]:
    """The formgrader's column and the gradebook after each step of the grading day."""
    seen: dict[str, dict] = {}
    assert course.course("autograde", ASSIGNMENT) == 0, course.log
    seen["autograded"] = {"column": needs_manual_grade_column(course)}
    grade_by_hand(course)
    seen["hand graded"] = {"column": needs_manual_grade_column(course),
                           "grades": hand_grades(course)}
    assert course.course("autograde", ASSIGNMENT) == 0, course.log
    seen["regraded"] = {"column": needs_manual_grade_column(course),
                        "grades": hand_grades(course), "bea's page": grading_box(course, "bea")}
    resubmitted = solved(**{WRITTEN: RESUBMITTED})
    submit(course.root, "bea", resubmitted)
    assert course.course("autograde", ASSIGNMENT, "--student", "bea") == 0, course.log
    seen["resubmitted"] = {"column": needs_manual_grade_column(course),
                           "grades": hand_grades(course)}
    # The autograded copy the instructor graded is gone (deleted by hand): nothing to compare.
    shutil.rmtree(course.root / "grader" / "autograded" / "dov")
    assert course.course("autograde", ASSIGNMENT, "--student", "dov") == 0, course.log
    seen["no copy"] = {"grades": hand_grades(course)}
    return seen


def test_hand_grading_empties_the_column_for_the_graded(runs: dict) -> None:
    assert runs["autograded"]["column"] == dict.fromkeys(SUBMISSIONS, True)
    assert runs["hand graded"]["column"] == {"ada": False, "bea": False, "cal": True,
                                             "dov": False}


def test_a_regrade_of_an_unchanged_class_leaves_the_column_as_hand_grading_left_it(
        runs: dict) -> None:
    assert runs["regraded"]["column"] == runs["hand graded"]["column"]


def test_a_regrade_keeps_every_manual_score_comment_and_graded_state(runs: dict) -> None:
    before, after = runs["hand graded"]["grades"], runs["regraded"]["grades"]
    assert after == before
    for student, grades in HAND_GRADES.items():
        for grade_id, (score, comment) in grades.items():
            assert after[student, grade_id] == Hand(False, float(score), comment), \
                (student, grade_id)
    assert after["cal", WRITTEN] == Hand(True, None, None)  # never graded: still waiting


def test_a_changed_answer_is_flagged_with_its_previous_score_and_comment(runs: dict) -> None:
    column = runs["resubmitted"]["column"]
    assert column == runs["regraded"]["column"] | {"bea": True}
    bea = runs["resubmitted"]["grades"]["bea", WRITTEN]
    assert bea.needs_manual_grade
    assert bea.manual_score == 0.5  # kept until the instructor changes it
    score, comment = HAND_GRADES["bea"][WRITTEN]
    assert CHANGED in bea.comment
    assert f"Previous score: {float(score):g} of 2" in bea.comment
    # below the grader's note, the comment she had, which is all a page for her shows
    assert student_comment(bea.comment) == comment
    others = {key: hand for key, hand in runs["resubmitted"]["grades"].items() if key[0] != "bea"}
    assert others == {key: hand for key, hand in runs["regraded"]["grades"].items()
                      if key[0] != "bea"}


def test_the_grading_page_shows_the_hand_grade_after_a_regrade(runs: dict) -> None:
    score, comment = HAND_GRADES["bea"][WRITTEN]
    assert runs["regraded"]["bea's page"] == (score, False, comment)


def test_the_grading_page_shows_the_note_beside_the_kept_score(
        runs: dict, course: Course) -> None:
    score, flagged, note = grading_box(course, "bea")
    assert score == HAND_GRADES["bea"][WRITTEN][0] and flagged
    assert CHANGED in note and HAND_GRADES["bea"][WRITTEN][1] in note
    page = grading_page(course, "bea")
    assert RESUBMITTED in page.inner_text("#notebook-container")
    page.close()


def test_without_the_graded_copy_a_hand_grade_is_flagged_not_lost(runs: dict) -> None:
    dov = runs["no copy"]["grades"]
    assert dov["dov", WRITTEN].needs_manual_grade and dov["dov", VISIBLE].needs_manual_grade
    assert dov["dov", WRITTEN].manual_score == float(HAND_GRADES["dov"][WRITTEN][0])
    assert dov["dov", VISIBLE].manual_score == float(HAND_GRADES["dov"][VISIBLE][0])
    assert UNCOMPARED in dov["dov", WRITTEN].comment
    assert "no comment for the student yet" in dov["dov", WRITTEN].comment
    assert student_comment(dov["dov", WRITTEN].comment) is None


def test_previous_answers_reads_only_plain_readable_notebooks(tmp_path: Path) -> None:
    nbformat.write(SUBMISSIONS["ada"], tmp_path / "good.ipynb")
    (tmp_path / "link.ipynb").symlink_to(tmp_path / "good.ipynb")
    (tmp_path / "broken.ipynb").write_text("{not json")
    found = previous_answers(tmp_path)
    assert set(found) == {"good"}
    assert found["good"].cells[WRITTEN] == compute_checksum(cell(SUBMISSIONS["ada"], WRITTEN))
    assert previous_answers(tmp_path / "missing") == {}


def test_nbgrader_alone_flags_an_unchanged_hand_grade_again(runs: dict, course: Course) -> None:
    """The column reader and the gradebook do see the flag that nbgrader's own SaveAutoGrades
    sets on every hand grade, so the tests above would fail without KeepHandGrades."""
    api = make_api(course.root)
    steps = list(api.config.Autograde.autograde_preprocessors)
    assert KeepHandGrades in steps
    api.config.Autograde.autograde_preprocessors = [
        SaveAutoGrades if step is KeepHandGrades else step for step in steps]
    assert api.autograde(ASSIGNMENT, "ada", force=True, create=True)["success"]
    assert needs_manual_grade_column(course)["ada"] is True
    ada = hand_grades(course)["ada", WRITTEN]
    assert ada == Hand(True, 2.0, HAND_GRADES["ada"][WRITTEN][1])



@dataclass(frozen=True)
class GradeLike:
    """The fields of nbgrader's Grade that a regrade note reads."""

    manual_score: float
    max_score: float
    extra_credit: float | None = None


@given(st.text(), st.booleans())
def test_the_student_reads_their_comment_and_never_the_note(comment: str, twice: bool) -> None:
    kept = student_comment(comment)
    box = regrade_note(CHANGED, GradeLike(1.5, 2.0), comment)
    if twice:  # flagged again after a regrade that left the box as it was
        box = regrade_note(CHANGED, GradeLike(1.5, 2.0), box)
    assert student_comment(box) == kept
    assert box.count(NOTE_START) == 1
    # the box with its end line deleted: nothing of it is the student's
    assert student_comment(box.replace(NOTE_END, "")) is None
