"""``course export``: grades as CSV, safe to open in a spreadsheet: the course's own table
(``grades.csv``), Canvas's gradebook import (``grades-canvas.csv``) or Moodle's
(``grades-moodle.csv``); the LMS formats are in :mod:`grader.lms`.

Only assignments with grades are written (or the ones named). A score is nbgrader's (hand
grades included once entered in the formgrader) less the late penalty of the course's policy
(:mod:`grader.late`) on the current scores.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI

from grader.collect import read_lms_record
from grader.late import LateWork, late_work
from grader.lms import (
    MOODLE_KEYS,
    GradebookStudent,
    canvas_columns,
    canvas_rows,
    match_roster,
    moodle_rows,
    read_canvas_roster,
)
from grader.report import assignment_exercises, exercise_scores

# OWASP's CSV injection rule: a spreadsheet reads a cell starting with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
EXIT_LEFT_OUT = 2  # an LMS export was written without some graded students (they are listed)


def csv_cell(value: str) -> str:
    """``value`` as a CSV cell no spreadsheet runs: a text cell that starts like a formula gets
    a leading ``'`` (OWASP); numbers (``-1``, ``+2.5``) are left as they are."""
    if not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def write_csv(rows: list[list[str]], out: Path) -> None:
    """Write ``rows`` to ``out`` (creating its folder), every cell through :func:`csv_cell`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        writer = csv.writer(fh)
        for row in rows:
            writer.writerow([csv_cell(cell) for cell in row])


def chosen_assignments(gb: Gradebook, requested: Sequence[str] = ()) -> list[str]:
    """The assignments to export: ``requested``, else every assignment with a submission.

    Raises
    ------
    SystemExit
        When a requested assignment is not in the gradebook.
    """
    known = {a.name: a for a in gb.assignments}
    unknown = sorted(set(requested) - set(known))
    if unknown:
        raise SystemExit(f"course: not in the gradebook: {', '.join(unknown)} (known: "
                         f"{', '.join(sorted(known)) or 'none'})")
    return sorted(requested) if requested else sorted(
        name for name, a in known.items() if a.submissions)


@dataclass(frozen=True)
class Graded:
    """One student's result on one assignment."""

    score: float  # nbgrader's, before the late penalty
    late: LateWork

    @property
    def final(self) -> float:
        """The score less the late penalty."""
        return self.score - self.late.penalty


def graded(api: NbGraderAPI, gb: Gradebook, assignment: str) -> dict[str, Graded]:
    """Every submission of ``assignment``: student id -> :class:`Graded`."""
    return {s.student.id: Graded(s.score, late_work(api, gb, assignment, s.student.id))
            for s in gb.find_assignment(assignment).submissions}


def export_grades(api: NbGraderAPI, out: Path, assignments: Sequence[str] = ()) -> int:
    """Write one CSV row per student: every exercise's score, each assignment's, and totals.

    Columns: ``student_id, last_name, first_name``; for each assignment, one column per
    exercise (``<assignment>/<exercise>``, see :mod:`grader.report`) followed by
    ``<assignment>_score`` (after the late penalty) and ``<assignment>_max``, and, for an
    assignment with a due date, ``<assignment>_days_late`` and ``<assignment>_late_penalty``;
    then ``total_score, total_max``. A missing submission counts as score 0, as in
    ``nbgrader export``. Every cell goes through :func:`csv_cell`.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.api.make_api`.
    out : Path
        CSV file to write (parent folders are created).
    assignments : sequence of str
        The assignments to write; default: those with grades.

    Returns
    -------
    int
        Number of student rows written.
    """
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        chosen = [gb.find_assignment(name) for name in names]
        exercises = {a.name: assignment_exercises(api, gb, a.name) for a in chosen}
        results = {a.name: graded(api, gb, a.name) for a in chosen}
        dated = {a.name for a in chosen if a.duedate is not None}
        header = ["student_id", "last_name", "first_name"]
        for a in chosen:
            header += [ex.label for ex in exercises[a.name]] + [f"{a.name}_score", f"{a.name}_max"]
            header += [f"{a.name}_days_late", f"{a.name}_late_penalty"] if a.name in dated else []
        header += ["total_score", "total_max"]
        rows = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = [student.id, student.last_name or "", student.first_name or ""]
            total = total_max = 0.0
            for a in chosen:
                by_exercise = exercise_scores(gb, a.name, exercises[a.name], student.id)
                result = results[a.name].get(student.id)
                score = result.final if result else 0.0
                row += [f"{by_exercise[ex.label]:g}" for ex in exercises[a.name]]
                row += [f"{score:g}", f"{a.max_score:g}"]
                if a.name in dated:
                    late = result.late if result else None
                    row += [f"{late.days_late if late else 0}", f"{late.penalty if late else 0:g}"]
                total += score
                total_max += a.max_score
            rows.append([*row, f"{total:g}", f"{total_max:g}"])
    write_csv([header, *rows], out)
    print(f"wrote {len(rows)} students and {len(chosen)} assignments "
          f"({', '.join(names) or 'none graded'}) to {out}")
    return len(rows)


def _final_scores(api: NbGraderAPI, gb: Gradebook, names: list[str]
                  ) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Scores after the late penalty (assignment -> student -> score) and each maximum."""
    scores = {a: {s: g.final for s, g in graded(api, gb, a).items()} for a in names}
    return scores, {a: gb.find_assignment(a).max_score for a in names}


def _say_left_out(what: str, students: list[str]) -> int:
    """Print the graded students an LMS file leaves out; return the exit status."""
    if not students:
        return 0
    print(f"LEFT OUT of {what} ({len(students)} graded students): {', '.join(students)}",
          file=sys.stderr)
    return EXIT_LEFT_OUT


def export_canvas(api: NbGraderAPI, roster: Path, out: Path, assignments: Sequence[str] = (),
                  zero_missing: bool = False) -> int:
    """Write Canvas's gradebook import CSV for the students of Canvas's export ``roster``.

    Students are matched with :func:`grader.lms.match_roster` (Canvas user ids from
    ``course collect``, SIS ids, download names); columns and points with
    :func:`grader.lms.canvas_columns`; rows with :func:`grader.lms.canvas_rows`.

    Returns
    -------
    int
        0, or :data:`EXIT_LEFT_OUT` when graded students are not on the roster (listed).
    """
    try:
        canvas = read_canvas_roster(roster)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SystemExit(f"course: cannot read the Canvas roster: {error}") from None
    root = Path(api.coursedir.root)
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        scores, maxima = _final_scores(api, gb, names)
    collected = {student: arrival.get("canvas_user_id") for a in names
                 for student, arrival in read_lms_record(root, a).items()}
    students = {s for by_student in scores.values() for s in by_student}
    matched, unmatched = match_roster(canvas, {s: collected.get(s) for s in students})
    try:
        columns = canvas_columns(canvas, maxima)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    write_csv(canvas_rows(canvas, columns, scores, maxima, matched, zero_missing), out)
    for c in columns:
        note = "" if c.known else " (not in the roster: Canvas will create this assignment)"
        print(f"{c.assignment} -> Canvas column {c.title!r}, out of {c.points:g}{note}")
    print(f"wrote {len(canvas.students)} roster students, {len(matched)} of them graded, "
          f"to {out}")
    return _say_left_out(f"{out} (not on the Canvas roster)", unmatched)


def export_moodle(api: NbGraderAPI, out: Path, assignments: Sequence[str] = (),
                  key: str = "idnumber", zero_missing: bool = False) -> int:
    """Write Moodle's grade import CSV (:func:`grader.lms.moodle_rows`), keyed by ``key``.

    Returns
    -------
    int
        0, or :data:`EXIT_LEFT_OUT` when graded students have no ``key`` (listed).
    """
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        scores, _ = _final_scores(api, gb, names)
        students = [GradebookStudent(s.id, s.first_name or "", s.last_name or "", s.email or "")
                    for s in sorted(gb.students, key=lambda s: s.id)]
    try:
        rows, missing = moodle_rows(students, names, scores, key, zero_missing)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    write_csv(rows, out)
    print(f"wrote {len(rows) - 1} students to {out}: on Moodle's import page, map "
          f"{MOODLE_KEYS[key]!r} to the user's {MOODLE_KEYS[key].lower()}")
    return _say_left_out(f"{out} (no {key} in the gradebook)", missing)

