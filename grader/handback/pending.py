"""What still waits for a hand grade, and the grader's note that no student reads.

**Waiting.** A graded cell that nbgrader marks "needs manual grade" is not graded yet: a written
answer nobody graded, or one that changed after its hand grade (:mod:`grader.pipeline.hand_grades`
flags it for a regrade and keeps its old score until then). Feedback and every export say,
student by student, which exercise and cell waits (:func:`waiting_for_hand_grades`), and leave
those students out unless the instructor asks for them (``--include-ungraded``,
:func:`held_back`): an old score or a half-graded page is never sent by accident. nbgrader's
feedback steps, from ``course feedback`` and from the formgrader's buttons alike, run through
:func:`hand_back`, which leaves them out with nbgrader's own ``student_id_exclude``.

**The grader's note.** A regrade note (why the answer must be graded again, the previous
score) goes where the grader works, the comment box of the formgrader's grading page, which is
nbgrader's ``Comment.manual_comment``, the same field nbgrader shows the student. So the note
is written *above* a fixed line (:data:`NOTE_END`) and the comment meant for the student, the
previous one, stays below it: :func:`student_comment` is what every student-facing page reads,
and it returns only what follows the line. A grader who regrades can leave the box as it is
(the student gets the comment below the line), or rewrite it. A comment that still opens with
the note but lost its line is the grader's in full: nothing of it reaches the student, and the
student waits (:data:`NOTE_WITHOUT_END`) until the box is fixed.

:class:`StudentGrades` is nbgrader's ``GetGrades`` for the feedback pages with these rules, the
late penalty of :mod:`grader.pipeline.late` on the current scores (what the exports and the report
show), each test named by its exercise, and a mark on an answer that still waits.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import GetGrades
from nbgrader.utils import is_grade, is_solution, is_task

from grader.pipeline.late import configured_policy, notebook_penalty
from mllib.plotting import counted

NOTE_START = "**Regrade (grader's note"  # how regrade_note opens: never shown to the student
NOTE_END = "---- end of the grader's note: the student sees only what follows ----"
NOTE_WITHOUT_END = "its comment opens with the grader's note but lost the line that ends it"
CHANGED_AFTER_HAND_GRADE = "answer changed after its hand grade: regrade"
NOT_HAND_GRADED = "not graded by hand yet"
BEGIN_HIDDEN = "BEGIN HIDDEN TESTS"  # nbgrader's delimiter, as grader.authoring.lint spells it


def note_lost_its_end(comment: str | None) -> bool:
    """Whether ``comment`` opens with the grader's note but no longer has :data:`NOTE_END`."""
    return bool(comment) and comment.lstrip().startswith(NOTE_START) and NOTE_END not in comment


def student_comment(comment: str | None) -> str | None:
    """The part of a grade's comment meant for the student (None when there is none).

    Text after :data:`NOTE_END` when the comment has the grader's note; none of it when the
    note lost that line (:func:`note_lost_its_end`); otherwise the whole comment.
    """
    if not comment or note_lost_its_end(comment):
        return None
    return comment.split(NOTE_END, 1)[-1].strip() or None


@dataclass(frozen=True)
class Waiting:
    """One graded cell of a student's submission that waits for a hand grade."""

    notebook: str
    cell: str  # the cell's grade_id
    exercise: str  # the exercise's label, see grader.review.report.assignment_exercises
    why: str

    def __str__(self) -> str:
        where = self.exercise if self.exercise.endswith(self.cell) else \
            f"{self.exercise}, cell {self.cell}"
        return f"{where} ({self.why})"


def waiting_for_hand_grades(gb: Gradebook, assignment: str, exercise_of: Mapping[str, str]
                            ) -> dict[str, list[Waiting]]:
    """Student -> the cells of their submission of ``assignment`` that wait for a hand grade.

    Parameters
    ----------
    gb : Gradebook
        Open gradebook.
    assignment : str
        Assignment name.
    exercise_of : mapping of str to str
        ``"<notebook>/<grade_id>"`` -> the exercise's label (cells it lacks are named alone).

    Returns
    -------
    dict of str to list of Waiting
        Only students with something waiting, in notebook and cell order.
    """
    found: dict[str, list[Waiting]] = {}
    for submission in gb.find_assignment(assignment).submissions:
        for notebook in sorted(submission.notebooks, key=lambda n: n.name):
            comments = {c.name: c.comment for c in notebook.comments}
            for grade in notebook.grades:
                why = (CHANGED_AFTER_HAND_GRADE if grade.manual_score is not None
                       else NOT_HAND_GRADED) if grade.needs_manual_grade else None
                if why is None and note_lost_its_end(comments.get(grade.name)):
                    why = NOTE_WITHOUT_END
                if why:
                    exercise = exercise_of.get(f"{notebook.name}/{grade.name}", grade.name)
                    found.setdefault(submission.student.id, []).append(
                        Waiting(notebook.name, grade.name, exercise, why))
    return {s: sorted(w, key=lambda w: (w.notebook, w.exercise, w.cell))
            for s, w in sorted(found.items())}


def class_waiting(api: NbGraderAPI, gb: Gradebook, assignment: str) -> dict[str, list[Waiting]]:
    """:func:`waiting_for_hand_grades` with the exercises of the assignment's release."""
    from grader.review.report import assignment_exercises  # the report imports this module

    exercise_of = {f"{ex.notebook}/{cell}": ex.label
                   for ex in assignment_exercises(api, gb, assignment) for cell in ex.grade_ids}
    return waiting_for_hand_grades(gb, assignment, exercise_of)


def waiting_lines(waiting: Mapping[str, Iterable[Waiting]]) -> list[str]:
    """One indented line per student: ``  kimbo: 01_perceptron/eta_answer (why)``."""
    return [f"  {student}: {'; '.join(map(str, cells))}" for student, cells in waiting.items()]


def say_waiting(what: str, waiting: Mapping[str, Iterable[Waiting]], included: bool) -> None:
    """Print, on stderr, each student whose work waits for a hand grade and what waits:
    left out of ``what``, or put in it anyway when ``included`` (``--include-ungraded``)."""
    if not waiting:
        return
    how = ("INCLUDED though they wait for a hand grade (--include-ungraded)" if included else
           "LEFT OUT: waiting for a hand grade (grade them in the formgrader, or "
           "--include-ungraded)")
    print(f"{how}, {counted(len(waiting), 'student')}, in {what}:", file=sys.stderr)
    print("\n".join(waiting_lines(waiting)), file=sys.stderr)


def held_back(waiting: Mapping[str, object], include_ungraded: bool) -> set[str]:
    """The students to leave out: those with something waiting, unless ``include_ungraded``."""
    return set() if include_ungraded else set(waiting)


def drop_feedback(api: NbGraderAPI, assignment: str, students: Iterable[str]) -> None:
    """Remove the feedback folders of ``students`` for ``assignment`` (held back: a page
    written now or earlier would show a score that is not final)."""
    for student in students:
        folder = Path(api.coursedir.format_path(api.coursedir.feedback_directory, student,
                                                assignment))
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder)


@dataclass(frozen=True)
class Handback:
    """One of nbgrader's feedback steps, and who it left out for what waits."""

    result: dict  # nbgrader's: success, log, and error when it failed
    waiting: dict[str, list[Waiting]]  # the students the step was for with something waiting
    held: frozenset[str]  # those it left out


@contextmanager
def excluding(coursedir: CourseDirectory, students: Iterable[str]) -> Iterator[None]:
    """Add ``students`` to nbgrader's ``CourseDirectory.student_id_exclude`` for one step.

    nbgrader's converters (``init_destination``) and its exchange's release_feedback skip
    the students it lists. It is a comma-separated string, so an id with a comma cannot be
    listed.

    Raises
    ------
    ValueError
        Naming an id that holds a comma.
    """
    students = set(students)
    commas = sorted(s for s in students if "," in s)
    if commas:
        raise ValueError(f"student ids with a comma cannot be left out by nbgrader: {commas}")
    before = coursedir.student_id_exclude
    coursedir.student_id_exclude = ",".join(sorted(students | set(filter(None,
                                                                       before.split(",")))))
    try:
        yield
    finally:
        coursedir.student_id_exclude = before


def hand_back(api: NbGraderAPI, step: str, assignment: str, student: str | None = None,
              include_ungraded: bool = False) -> Handback:
    """Run nbgrader's ``generate_feedback`` or ``release_feedback`` without the students whose
    submission of ``assignment`` waits for a hand grade (all of them unless ``include_ungraded``).

    Parameters
    ----------
    api : NbGraderAPI
        The course's API (``course``'s, or the formgrader's).
    step : {"generate", "release"}
        Which of nbgrader's feedback steps.
    assignment : str
        Assignment name.
    student : str, optional
        One student (the formgrader's per-submission buttons); default every student.
    include_ungraded : bool
        Hold no one back (``course feedback --include-ungraded``).

    Returns
    -------
    Handback
        nbgrader's result; a generated page of a student held back, from this run or an
        earlier one, is removed (it would show a score that is not final).

    Raises
    ------
    ValueError
        For an unknown ``step``, or a held-back id :func:`excluding` cannot list.
    """
    steps = {"generate": api.generate_feedback, "release": api.release_feedback}
    if step not in steps:
        raise ValueError(f"unknown feedback step {step!r}: one of {sorted(steps)}")
    with api.gradebook as gb:
        waiting = {s: cells for s, cells in class_waiting(api, gb, assignment).items()
                   if student in (None, s)}
    held = frozenset(held_back(waiting, include_ungraded))
    with excluding(api.coursedir, held):
        result = steps[step](assignment, student)
    if step == "generate":
        drop_feedback(api, assignment, held)
    return Handback(result, waiting, held)


def exercise_headings(nb: NotebookNode) -> dict[str, str]:
    """grade_id of each graded cell -> the name a student reads for it: the heading of its
    exercise (the first heading of the markdown cell above its answer, without a trailing
    parenthesis), then what the cell is ("tests", "hidden tests", "written answer", ...)."""
    names: dict[str, str] = {}
    heading = ""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and not meta.get("solution"):
            # the heading without its trailing "(3 points)": the summary gives the score
            lines = [re.sub(r"\s*\([^()]*\)$", "", line.lstrip("#").strip())
                     for line in cell.source.splitlines() if line.startswith("#")]
            heading = lines[0] if lines else heading
        if not meta.get("grade_id") or not any(meta.get(k) for k in ("grade", "task", "solution")):
            continue
        kind = ("written answer" if cell.cell_type == "markdown" else "answer") \
            if meta.get("solution") else "task" if meta.get("task") else \
            "hidden tests" if BEGIN_HIDDEN in cell.source else "tests"
        names[meta["grade_id"]] = f"{heading}: {kind}" if heading else meta["grade_id"]
    return names


class StudentGrades(GetGrades):
    """nbgrader's ``GetGrades`` for the feedback pages, with what the student may read.

    Per cell: the comment is :func:`student_comment` of nbgrader's; ``exercise`` names a
    graded cell by its exercise (:func:`exercise_headings`, for the page's summary); ``waiting``
    marks an answer that still waits for a hand grade. Per page: the late penalty is the
    configured policy's on the current score (:func:`grader.pipeline.late.notebook_penalty`), as the
    exports and the report compute it, not the one stored before any hand grading.
    """

    def preprocess(self, nb, resources):
        """nbgrader's grades, then the page's late penalty and score on the current grades."""
        names = exercise_headings(nb)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") in names:
                cell.metadata.nbgrader["exercise"] = names[cell.metadata.nbgrader["grade_id"]]
        nb, resources = super().preprocess(nb, resources)
        with Gradebook(self.db_url) as gb:
            notebook = gb.find_submission_notebook(self.notebook_id, self.assignment_id,
                                                   self.student_id)
            seconds = notebook.assignment.total_seconds_late
            penalty = notebook_penalty(configured_policy(self.config), self.student_id,
                                       notebook.score, seconds)
            resources["nbgrader"]["score"] = notebook.score - penalty
            resources["nbgrader"]["late_penalty"] = penalty
        return nb, resources

    def preprocess_cell(self, cell, resources, cell_index):
        """nbgrader's score and comment, the comment cut to the student's part, the cell
        marked when it waits for a hand grade."""
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        if is_solution(cell) or is_task(cell):
            cell.metadata.nbgrader["comment"] = student_comment(cell.metadata.nbgrader["comment"])
        if is_grade(cell) or is_task(cell):
            grade = self.gradebook.find_grade(cell.metadata.nbgrader["grade_id"],
                                              self.notebook_id, self.assignment_id,
                                              self.student_id)
            cell.metadata.nbgrader["waiting"] = bool(grade.needs_manual_grade)
        return cell, resources
