"""Hand grades that stay graded when a class is autograded again.

nbgrader's ``SaveAutoGrades`` marks every grade that has a manual score as needing a manual
grade again on each autograde, so regrading an unchanged class re-flags every written answer
the instructor already graded in the formgrader (the scores are kept, the work looks lost).
:class:`KeepHandGrades` replaces it in the autograde pipeline (``grader/nbgrader_config.py``)
and decides per grade, by comparing the answer with the one the instructor graded:

* **unchanged**: the grade stays as the hand grading left it: manual score, comment, and not
  flagged;
* **changed** (a resubmission, or no earlier autograded copy to compare with): flagged for
  regrading, the manual score kept (nothing is lost), and the grade's comment box opens with
  the grader's note giving why and the previous score, above a line below which the comment
  meant for the student stays (:mod:`grader.handback.pending`: no student ever reads the note).

"The answer the instructor graded" is the previous autograded notebook, which is what the
formgrader showed. :class:`grader.pipeline.safe_autograde.LinkSafeAutograde` reads its answers'
checksums (:func:`previous_answers`) before nbgrader replaces it, and hands them to this
preprocessor under ``resources["nbgrader"][PREVIOUS]``. A written answer (an answer cell that
is graded) is compared by nbgrader's own cell checksum; a test cell whose score was overridden
by hand stays graded only when none of the notebook's answers changed and the autograder still
gives it the same score.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.api import Grade
from nbgrader.preprocessors import SaveAutoGrades
from nbgrader.utils import compute_checksum, is_solution

from grader.core.files import read_regular
from grader.handback.pending import NOTE_END, NOTE_START, student_comment

PREVIOUS = "previous_answers"  # key in resources["nbgrader"]
CHANGED = "this answer changed after it was graded by hand"
UNCOMPARED = ("this answer could not be compared with the one graded by hand (no earlier "
              "autograded copy)")


@dataclass(frozen=True)
class Answers:
    """Checksums of a notebook's answer cells.

    Attributes
    ----------
    cells : dict of str to str
        ``grade_id`` of each answer cell -> nbgrader's checksum of it.
    together : str
        One SHA-256 over all of them, in notebook order (what a test cell can depend on).
    """

    cells: dict[str, str]
    together: str


def answers_of(nb: NotebookNode) -> Answers:
    """The checksums of ``nb``'s answer cells (cells marked ``solution`` with a ``grade_id``)."""
    cells = {cell.metadata.nbgrader["grade_id"]: compute_checksum(cell) for cell in nb.cells
             if is_solution(cell) and cell.metadata.nbgrader.get("grade_id")}
    together = hashlib.sha256(json.dumps(list(cells.items())).encode()).hexdigest()
    return Answers(cells, together)


def previous_answers(folder: Path) -> dict[str, Answers]:
    """Notebook name -> :class:`Answers` of each autograded notebook in ``folder``.

    A notebook that is missing, not a plain file (read without following links) or not a
    readable notebook is left out: its hand grades then count as changed.
    """
    found = {}
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        try:
            nb = nbformat.reads(read_regular(path).decode("utf-8"), as_version=4)
            found[path.stem] = answers_of(nb)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # NotRegularFile and nbformat's errors are ValueErrors
    return found


def regrade_note(why: str, grade: Grade, comment: str | None) -> str:
    """The comment box of a hand-graded answer that must be graded again (Markdown, as the
    formgrader's takes it): the grader's note (why, the previous score), the line
    :data:`grader.handback.pending.NOTE_END`, then the comment the student had, which is still the
    student's (:func:`grader.handback.pending.student_comment` reads only what follows the line)."""
    score = f"{grade.manual_score:g} of {grade.max_score:g}"
    if grade.extra_credit:
        score += f" + {grade.extra_credit:g} extra credit"
    kept = student_comment(comment)
    below = ("the student's comment, kept: edit it if the new answer needs another."
             if kept else "no comment for the student yet: write one below it.")
    return (f"{NOTE_START}, never shown to the student): {why}.** Previous score: {score} "
            f"(kept until you change it). Below the line: {below}\n\n{NOTE_END}\n\n"
            + (kept or ""))


class KeepHandGrades(SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, keeping a hand grade whose answer did not change.

    Reads the previous answers from ``resources["nbgrader"][PREVIOUS]`` (an :class:`Answers`,
    or None when there is no earlier autograded copy); see the module for the rules.
    """

    def preprocess(self, nb, resources):
        """Note the answers before and now, then save the grades as nbgrader does."""
        self._before: Answers | None = resources["nbgrader"].get(PREVIOUS)
        self._now = answers_of(nb)
        return super().preprocess(nb, resources)

    def _add_score(self, cell, resources) -> None:
        """nbgrader's score, then the hand grade's state: kept, or flagged with a note."""
        grade = self.gradebook.find_grade(cell.metadata.nbgrader["grade_id"], self.notebook_id,
                                          self.assignment_id, self.student_id)
        settled = grade.manual_score is not None and not grade.needs_manual_grade
        auto_before = grade.auto_score
        super()._add_score(cell, resources)
        if not settled:
            return  # nbgrader's rule: ungraded, or already waiting for a regrade
        if self._unchanged(cell, auto_before, grade.auto_score):
            grade.needs_manual_grade = False
        elif is_solution(cell):
            comment = self.gradebook.find_comment(grade.name, self.notebook_id,
                                                  self.assignment_id, self.student_id)
            why = CHANGED if self._before is not None else UNCOMPARED
            comment.manual_comment = regrade_note(why, grade, comment.manual_comment)
        self.gradebook.db.commit()

    def _unchanged(self, cell: NotebookNode, auto_before: float | None,
                   auto_now: float | None) -> bool:
        """Whether the answer behind ``cell``'s grade is the one that was graded by hand."""
        if self._before is None:
            return False
        if is_solution(cell):
            return self._before.cells.get(cell.metadata.nbgrader["grade_id"]) == \
                compute_checksum(cell)
        # A test cell: any answer can feed it (an exercise may call an earlier one). Its score
        # is recomputed by the same code on the same inputs, so equal means equal.
        return self._before.together == self._now.together and auto_before == auto_now
