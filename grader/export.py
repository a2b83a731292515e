"""``course export``: the grades CSV, one row per student, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.apps import NbGraderAPI

from grader.report import assignment_exercises, exercise_scores

# OWASP's CSV injection rule: a spreadsheet reads a cell starting with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


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


def export_grades(api: NbGraderAPI, out: Path) -> int:
    """Write one CSV row per student: every exercise's score, each assignment's, and totals.

    Columns: ``student_id, last_name, first_name``; for each assignment, one column per
    exercise (``<assignment>/<exercise>``, see :mod:`grader.report`) followed by
    ``<assignment>_score`` and ``<assignment>_max``; then ``total_score, total_max``. A missing
    submission counts as score 0, as in ``nbgrader export``. Scores include manual grades once
    they are entered in the formgrader. Every cell goes through :func:`csv_cell`.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.api.make_api`.
    out : Path
        CSV file to write (parent folders are created).

    Returns
    -------
    int
        Number of student rows written.
    """
    with api.gradebook as gb:
        assignments = sorted(gb.assignments, key=lambda a: a.name)
        exercises = {a.name: assignment_exercises(api, gb, a.name) for a in assignments}
        header = ["student_id", "last_name", "first_name"]
        for a in assignments:
            header += [ex.label for ex in exercises[a.name]] + [f"{a.name}_score", f"{a.name}_max"]
        header += ["total_score", "total_max"]
        rows = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = [student.id, student.last_name or "", student.first_name or ""]
            total = total_max = 0.0
            for a in assignments:
                by_exercise = exercise_scores(gb, a.name, exercises[a.name], student.id)
                try:
                    score = gb.find_submission(a.name, student.id).score
                except MissingEntry:
                    score = 0.0
                row += [f"{by_exercise[ex.label]:g}" for ex in exercises[a.name]]
                row += [f"{score:g}", f"{a.max_score:g}"]
                total += score
                total_max += a.max_score
            rows.append([*row, f"{total:g}", f"{total_max:g}"])
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        writer = csv.writer(fh)
        for row in [header, *rows]:
            writer.writerow([csv_cell(cell) for cell in row])
    print(f"wrote {len(rows)} students to {out}")
    return len(rows)
