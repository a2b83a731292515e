"""``course export``: grades as CSV, safe to open in a spreadsheet: the course's own table
(``grades.csv``), Canvas's gradebook import (``grades-canvas.csv``) or Moodle's
(``grades-moodle.csv``); the LMS formats are in :mod:`grader.handback.lms`.

Only assignments with grades are written (or the ones named). A score is nbgrader's (hand
grades included once entered in the formgrader) less the late penalty of the course's policy
(:mod:`grader.pipeline.late`) on the current scores. A student whose submission still waits for a
hand grade (:mod:`grader.handback.pending`) is listed with what waits and left out (no score for
that assignment; not in Moodle's file at all, where a blank clears a grade) unless
``include_ungraded``.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI

from grader.handback.lms import (
    MOODLE_KEYS,
    GradebookStudent,
    canvas_columns,
    canvas_rows,
    match_roster,
    moodle_rows,
    read_canvas_roster,
)
from grader.handback.pending import Waiting, class_waiting, held_back, say_waiting
from grader.intake.collect import read_lms_record
from grader.pipeline.late import LateWork, late_work
from grader.review.report import assignment_exercises, exercise_scores
from mllib.plotting import counted

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


@dataclass(frozen=True)
class Results:
    """What the exports write for the chosen assignments, and what they hold back."""

    graded: dict[str, dict[str, Graded]]  # assignment -> student -> result, held back removed
    waiting: dict[str, dict[str, list[Waiting]]]  # assignment -> student -> cells waiting
    held: dict[str, set[str]]  # assignment -> students left out for what waits

    def scores(self) -> dict[str, dict[str, float]]:
        """Assignment -> student -> score after the late penalty (held back left out)."""
        return {a: {s: g.final for s, g in by.items()} for a, by in self.graded.items()}

    def say(self, out: Path) -> int:
        """Print what waits per assignment (:func:`grader.handback.pending.say_waiting`); return
        :data:`EXIT_LEFT_OUT` when a student was left out for it, else 0."""
        for assignment, waiting in self.waiting.items():
            say_waiting(f"{out} ({assignment})", waiting, not self.held[assignment])
        return EXIT_LEFT_OUT if any(self.held.values()) else 0


def results(api: NbGraderAPI, gb: Gradebook, names: Sequence[str],
            include_ungraded: bool) -> Results:
    """:class:`Results` of the assignments ``names`` (``include_ungraded``: hold none back)."""
    waiting = {a: class_waiting(api, gb, a) for a in names}
    held = {a: held_back(waiting[a], include_ungraded) for a in names}
    return Results({a: {s: g for s, g in graded(api, gb, a).items() if s not in held[a]}
                    for a in names}, waiting, held)


def export_grades(api: NbGraderAPI, out: Path, assignments: Sequence[str] = (),
                  include_ungraded: bool = False) -> int:
    """Write one CSV row per student: every exercise's score, each assignment's, and totals.

    Columns: ``student_id, last_name, first_name``; for each assignment, one column per
    exercise (``<assignment>/<exercise>``, see :mod:`grader.review.report`) followed by
    ``<assignment>_score`` (after the late penalty) and ``<assignment>_max``, and, for an
    assignment with a due date, ``<assignment>_days_late`` and ``<assignment>_late_penalty``;
    then ``<assignment>_waiting`` (what waits for a hand grade, empty when nothing does);
    then ``total_score, total_max``. A missing submission counts as score 0, as in
    ``nbgrader export``. A submission that waits for a hand grade has blank scores (and a
    blank total) unless ``include_ungraded``. Every cell goes through :func:`csv_cell`.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.core.api.make_api`.
    out : Path
        CSV file to write (parent folders are created).
    assignments : sequence of str
        The assignments to write; default: those with grades.

    Returns
    -------
    int
        0, or :data:`EXIT_LEFT_OUT` when scores waiting for a hand grade were left out.
    """
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        chosen = [gb.find_assignment(name) for name in names]
        exercises = {a.name: assignment_exercises(api, gb, a.name) for a in chosen}
        found = results(api, gb, names, include_ungraded)
        dated = {a.name for a in chosen if a.duedate is not None}
        header = ["student_id", "last_name", "first_name"]
        for a in chosen:
            header += [ex.label for ex in exercises[a.name]] + [f"{a.name}_score", f"{a.name}_max"]
            header += [f"{a.name}_days_late", f"{a.name}_late_penalty"] if a.name in dated else []
            header += [f"{a.name}_waiting"]
        header += ["total_score", "total_max"]
        rows = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = [student.id, student.last_name or "", student.first_name or ""]
            total: float | None = 0.0
            total_max = 0.0
            for a in chosen:
                waiting = "; ".join(map(str, found.waiting[a.name].get(student.id, [])))
                if student.id in found.held[a.name]:
                    row += [""] * (len(exercises[a.name]) + 1) + [f"{a.max_score:g}"]
                    row += ["", ""] if a.name in dated else []
                    row.append(waiting)
                    total = None
                    total_max += a.max_score
                    continue
                by_exercise = exercise_scores(gb, a.name, exercises[a.name], student.id)
                result = found.graded[a.name].get(student.id)
                score = result.final if result else 0.0
                row += [f"{by_exercise[ex.label]:g}" for ex in exercises[a.name]]
                row += [f"{score:g}", f"{a.max_score:g}"]
                if a.name in dated:
                    late = result.late if result else None
                    row += [f"{late.days_late if late else 0}", f"{late.penalty if late else 0:g}"]
                row.append(waiting)
                total = None if total is None else total + score
                total_max += a.max_score
            rows.append([*row, "" if total is None else f"{total:g}", f"{total_max:g}"])
    write_csv([header, *rows], out)
    print(f"wrote {counted(len(rows), 'student')} and {counted(len(chosen), 'assignment')} "
          f"({', '.join(names) or 'none graded'}) to {out}")
    return found.say(out)


def _say_left_out(what: str, students: list[str]) -> int:
    """Print the graded students an LMS file leaves out; return the exit status."""
    if not students:
        return 0
    print(f"LEFT OUT of {what} ({counted(len(students), 'graded student')}): "
          f"{', '.join(students)}", file=sys.stderr)
    return EXIT_LEFT_OUT


def export_canvas(api: NbGraderAPI, roster: Path, out: Path, assignments: Sequence[str] = (),
                  zero_missing: bool = False, include_ungraded: bool = False) -> int:
    """Write Canvas's gradebook import CSV for the students of Canvas's export ``roster``.

    Students are matched with :func:`grader.handback.lms.match_roster` (Canvas user ids from
    ``course collect``, SIS ids, download names); columns and points with
    :func:`grader.handback.lms.canvas_columns`; rows with :func:`grader.handback.lms.canvas_rows`.

    Returns
    -------
    int
        0, or :data:`EXIT_LEFT_OUT` when graded students are not on the roster or wait for a
        hand grade (listed; their cells are blank, which leaves Canvas's grade as it is).
    """
    try:
        canvas = read_canvas_roster(roster)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SystemExit(f"course: cannot read the Canvas roster: {error}") from None
    root = Path(api.coursedir.root)
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        found = results(api, gb, names, include_ungraded)
        maxima = {a: gb.find_assignment(a).max_score for a in names}
    scores = found.scores()
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
    print(f"wrote {counted(len(canvas.students), 'roster student')}, "
          f"{len(matched)} of them graded, to {out}")
    waited = found.say(out)
    return _say_left_out(f"{out} (not on the Canvas roster)", unmatched) or waited


def export_moodle(api: NbGraderAPI, out: Path, assignments: Sequence[str] = (),
                  key: str = "idnumber", zero_missing: bool = False,
                  include_ungraded: bool = False) -> int:
    """Write Moodle's grade import CSV (:func:`grader.handback.lms.moodle_rows`), keyed by ``key``.

    Returns
    -------
    int
        0, or :data:`EXIT_LEFT_OUT` when graded students have no ``key`` or wait for a hand
        grade (listed; the latter are not in the file, as a blank would clear a grade).
    """
    with api.gradebook as gb:
        names = chosen_assignments(gb, assignments)
        found = results(api, gb, names, include_ungraded)
        held = set().union(*found.held.values())
        students = [GradebookStudent(s.id, s.first_name or "", s.last_name or "", s.email or "")
                    for s in sorted(gb.students, key=lambda s: s.id) if s.id not in held]
    scores = found.scores()
    try:
        rows, missing = moodle_rows(students, names, scores, key, zero_missing)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    write_csv(rows, out)
    print(f"wrote {counted(len(rows) - 1, 'student')} to {out}: on Moodle's "
          f"import page, map {MOODLE_KEYS[key]!r} to the user's {MOODLE_KEYS[key].lower()}")
    waited = found.say(out)
    return _say_left_out(f"{out} (no {key} in the gradebook)", missing) or waited

