"""Per-exercise scores (for the CSV export) and the HTML report of a graded assignment.

An *exercise* is an answer cell and the graded cells that follow it up to the next answer cell
(its visible and hidden tests); a graded written answer is an exercise of its own. The grouping
is read from the released notebook, the scores from nbgrader's gradebook.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI

from grader.core.files import find_skipped, link_kind
from grader.core.page import document
from grader.handback.pending import Waiting, class_waiting
from grader.intake.collect import read_lms_record
from grader.intake.collect import record_path as collect_record_path
from grader.pipeline.hostile import Flag, grade_id, scan
from grader.pipeline.late import class_lateness, late_work, policy_description
from grader.pipeline.preprocessors import examples_only, run_problems
from grader.pipeline.validate import exercise_cells
from grader.review import flagged as flagged_section
from grader.review.misses import count_misses
from grader.review.misses import section as misses_section
from grader.review.similarity import report_section
from grader.review.tables import table
from mllib.plotting import counted, figure

TRUNCATION_MARK = "output truncated"  # in the notices of kernel_guard, GradingExecute, LimitOutput


@dataclass(frozen=True)
class Exercise:
    """The graded cells of one exercise of one notebook."""

    notebook: str
    name: str  # grade_id of its answer cell (or of its only graded cell)
    grade_ids: tuple[str, ...]
    max_score: float
    label: str  # column name: "<assignment>/<name>", with the notebook when names clash


def _release(api: NbGraderAPI, assignment: str, notebook: str) -> Path:
    return Path(api.coursedir.format_path(api.coursedir.release_directory, ".", assignment),
                f"{notebook}.ipynb")


def assignment_exercises(api: NbGraderAPI, gb: Gradebook, assignment: str) -> list[Exercise]:
    """The exercises of ``assignment``, notebook by notebook, in release order.

    Points come from the gradebook; a notebook without a release file falls back to one
    exercise per graded cell.
    """
    found = []
    for notebook in sorted(gb.find_assignment(assignment).notebooks, key=lambda n: n.name):
        points = {cell.name: cell.max_score for cell in notebook.grade_cells}
        path = _release(api, assignment, notebook.name)
        groups = exercise_cells(nbformat.read(path, as_version=4)) if path.is_file() else \
            {name: [name] for name in sorted(points)}
        found += [(notebook.name, name, tuple(cells), sum(points.get(c, 0) for c in cells))
                  for name, cells in groups.items()]
    clash = {name for name, count in Counter(f[1] for f in found).items() if count > 1}
    return [Exercise(nb, name, cells, total,
                     f"{assignment}/{nb}/{name}" if name in clash else f"{assignment}/{name}")
            for nb, name, cells, total in found]


def exercise_scores(gb: Gradebook, assignment: str, exercises: list[Exercise],
                    student: str) -> dict[str, float]:
    """Score of each exercise (by label) for one student; 0 where nothing was submitted."""
    grades: dict[tuple[str, str], float] = {}
    for notebook in {ex.notebook for ex in exercises}:
        try:
            submitted = gb.find_submission_notebook(notebook, assignment, student)
        except MissingEntry:
            continue
        grades.update({(notebook, g.name): g.score for g in submitted.grades})
    return {ex.label: sum(grades.get((ex.notebook, c), 0.0) for c in ex.grade_ids)
            for ex in exercises}


def _histogram(exercise: Exercise, scores: list[float]) -> tuple[str, str]:
    """A bar chart of how many students got each score: (base64 PNG, its alt text, which
    states every bar)."""
    fig, (ax,) = figure(width=3.6, height=2.4)
    counts = Counter(scores)
    values = sorted(set(counts) | {0.0, exercise.max_score})
    ax.bar([f"{v:g}" for v in values], [counts[v] for v in values])
    ax.set_title(exercise.label, fontsize=9)
    ax.set_xlabel(f"score (out of {exercise.max_score:g})")
    ax.set_ylabel("students")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    alt = (f"Bar chart of the scores of {counted(len(scores), 'student')} on {exercise.label}, "
           f"out of "
           f"{exercise.max_score:g}: " + ", ".join(f"{counts[v]} scored {v:g}" for v in values)
           + ".")
    return base64.b64encode(buffer.getvalue()).decode("ascii"), alt


def _truncations(nb: NotebookNode) -> list[Flag]:
    return [Flag(grade_id(cell) or f"cell {number}", "printed too much (output truncated)")
            for number, cell in enumerate(nb.cells, start=1)
            if any(TRUNCATION_MARK in str(o.get("text", "")).lower()
                   for o in cell.get("outputs", []))]


@dataclass(frozen=True)
class Findings:
    """What the report found for one assignment, student by student."""

    not_run: dict[str, list[str]]  # student -> "notebook: what stopped it"
    flagged: dict[str, list[tuple[str, Flag]]]  # student -> (notebook, flag)


def find_problems(api: NbGraderAPI, assignment: str, students: list[str]) -> Findings:
    """Submissions that did not run to completion, and flags from
    :func:`grader.pipeline.hostile.scan`.

    Reads ``submitted/``, ``autograded/``, the release and the instructor version of every
    notebook of the assignment.
    """
    cd = api.coursedir
    not_run: dict[str, list[str]] = {}
    flagged: dict[str, list[tuple[str, Flag]]] = {}
    releases = sorted(Path(cd.format_path(cd.release_directory, ".", assignment)).glob("*.ipynb"))
    for student in students:
        folder = Path(cd.format_path(cd.submitted_directory, student, assignment))
        if os.path.lexists(folder):  # nothing in it was copied or read: say what and why
            flagged.setdefault(student, []).extend(
                ("", Flag(path, f"contained a link: skipped ({kind})"))
                for path, kind in find_skipped(folder))
        for release_path in releases:
            name = release_path.name
            submitted = folder / name
            graded = Path(cd.format_path(cd.autograded_directory, student, assignment), name)
            if not submitted.is_file() or link_kind(submitted):
                continue
            if not graded.is_file():
                not_run.setdefault(student, []).append(
                    f"{release_path.stem}: not autograded (nbgrader failed; "
                    f"`course autograde {assignment} --student {student}` shows why)")
                continue
            ran = nbformat.read(graded, as_version=4)
            not_run.setdefault(student, []).extend(
                f"{release_path.stem}: {problem}" for problem, _ in run_problems(ran))
            source = Path(cd.format_path(cd.source_directory, ".", assignment), name)
            flags = scan(nbformat.read(submitted, as_version=4),
                         nbformat.read(release_path, as_version=4),
                         nbformat.read(source, as_version=4)) + _truncations(ran)
            flagged.setdefault(student, []).extend((release_path.stem, f) for f in flags)
    return Findings({s: p for s, p in not_run.items() if p},
                    {s: f for s, f in flagged.items() if f})


STYLE = ".plots img{margin:4px}.warning{color:#b00}"  # after grader.core.page's (#b00: 6.1:1)


def run_record_path(course_root: Path, assignment: str) -> Path:
    """Where ``course autograde`` records its last run of ``assignment`` (JSON)."""
    return Path(course_root) / "grader" / "exports" / f"autograde-{assignment}.json"


NO_RECORD = "<p>No record of a <code>course {}</code> run.</p>"


def _last_run(path: Path) -> dict | None:
    """A command's JSON record of its last run (None when it has not run)."""
    return json.loads(path.read_text()) if path.is_file() else None


def _run_section(course_root: Path, assignment: str) -> str:
    """The report's account of the last grading run: sandbox, where, integrity, versions."""
    e = html.escape
    run = _last_run(run_record_path(course_root, assignment))
    if run is None:
        return NO_RECORD.format("autograde")
    sandbox = ("in the sandbox" if run["sandbox"] else
               '<strong class="warning">WITHOUT the sandbox (--no-sandbox)</strong>')
    where = (f' on the Dask cluster <code>{e(run["cluster"])}</code>' if run.get("cluster")
             else " in a local process pool")
    changed = run["integrity"]["changed"]
    integrity = (f'{run["integrity"]["checked"]} files of the course and the library unchanged'
                 if not changed else
                 '<strong class="warning">files changed during grading:</strong> '
                 + e(", ".join(changed)))
    versions = ", ".join(f"{e(k)} {e(v)}" for k, v in run["versions"].items())
    inputs = (f'<p id="variants">Hidden inputs: each student\'s own, drawn from the course '
              f'secret with fingerprint <code>{e(run["secret"])}</code> (a regrade under another '
              "secret draws other inputs).</p>" if run.get("secret") else "")
    return (f'<p id="sandbox">Submissions ran {sandbox}{where}.</p><p id="integrity">Integrity: '
            f"{integrity}.</p>{inputs}<p>Environment: {versions}.</p>")


def _collect_section(course_root: Path, assignment: str) -> str:
    """The report's account of the last ``course collect``: skipped entries and mapped ids."""
    e = html.escape
    run = _last_run(collect_record_path(course_root, assignment))
    if run is None:
        return NO_RECORD.format("collect")
    skipped = [[e(s["student"] or "(no id)"), e(s["entry"]), e(s["reason"])]
               for s in sorted(run["skipped"], key=lambda s: (s["student"] or "", s["entry"]))]
    mapped = [[e(raw), e(safe)] for raw, safe in sorted(run["mapped"].items())]
    return (f"<p>{counted(len(run['collected']), 'student')} collected from "
            f"<code>{e(run['source'])}</code> "
            f"(caps: {run['max_mb']:g} MB per student, compression ratio "
            f"{run['max_ratio']:g}:1); {len(run['ignored'])} files that are not notebooks of the "
            f"release ignored.</p><h3>Entries skipped ({len(skipped)})</h3>"
            + table(["student", "entry", "reason"], skipped)
            + f"<h3>Student ids mapped to safe names ({len(mapped)})</h3>"
            + table(["id in the download", "collected as"], mapped))


def _scores_section(exercises: list[Exercise], graded: list[str],
                    scores: dict[str, dict[str, float]]) -> str:
    """Per exercise: points, mean, full marks, zeros, and a histogram of the scores."""
    e = html.escape
    rows, plots = [], []
    for ex in exercises:
        got = [scores[s][ex.label] for s in graded]
        mean = sum(got) / len(got) if got else 0.0
        rows.append([e(ex.label), f"{ex.max_score:g}", f"{mean:.2f}",
                     str(sum(g == ex.max_score for g in got)), str(sum(g == 0 for g in got))])
        png, alt = _histogram(ex, got)
        plots.append(f'<img alt="{e(alt)}" src="data:image/png;base64,{png}">')
    return (table(["exercise", "points", "mean", "full marks", "zero"], rows)
            + f'<div class="plots">{"".join(plots)}</div>')


def _waiting_section(waiting: dict[str, list[Waiting]]) -> str:
    """Per student, what waits for a hand grade (what feedback and the exports hold back)."""
    rows = [[html.escape(s), html.escape(str(w))] for s, cells in waiting.items() for w in cells]
    return ("<p>Feedback and exports leave these students out until every answer is graded "
            "(<code>--include-ungraded</code> puts them in, marked).</p>"
            + table(["student", "waits for a hand grade"], rows))


def _autograded_notebooks(api: NbGraderAPI, assignment: str, exercises: list[Exercise],
                          students: list[str]) -> dict[str, list[Path]]:
    cd = api.coursedir
    names = sorted({ex.notebook for ex in exercises})
    return {s: [Path(cd.format_path(cd.autograded_directory, s, assignment), f"{n}.ipynb")
                for n in names] for s in students}


def late_reason(arrival: dict | None) -> tuple[str, str]:
    """(what to show as the submission time, why the submission counts as late), from what
    ``course collect`` recorded of the student's arrival (None: not collected by it)."""
    source = (arrival or {}).get("timestamp_from")
    if source == "Canvas: LATE, time unknown":
        return ("unknown", "Canvas's download gives no submission time; it marked the file "
                "LATE, so it counts as late by 1 second after the due date (1 day)")
    if source == "file time":
        return "", "the time of the file in the download (no LMS submission time)"
    return "", "the submission's timestamp (timestamp.txt)"


def _examples_only(notebooks: dict[str, list[Path]]) -> list[tuple[str, str]]:
    """(student, visible tests withheld) of the submissions that pass the published examples
    of an exercise and fail every hidden case of it."""
    rows = []
    for student, paths in notebooks.items():
        withheld = [f"{path.stem}: {test}" for path in paths if path.is_file()
                    for test in examples_only(nbformat.read(path, as_version=4))]
        if withheld:
            rows.append((student, ", ".join(withheld)))
    return rows


def _late_section(api: NbGraderAPI, assignment: str) -> str:
    """The late submissions of ``assignment``, why each counts as late, and the configured
    policy's penalty for each."""
    e = html.escape
    late = [w for w in class_lateness(api, assignment).values() if w.seconds_late > 0]
    arrivals = read_lms_record(Path(api.coursedir.root), assignment)
    rows = []
    for w in late:
        shown, why = late_reason(arrivals.get(w.student))
        rows.append([e(w.student), shown or f"{w.submitted:%Y-%m-%d %H:%M}",
                     f"{w.due:%Y-%m-%d %H:%M}", str(w.days_late), f"{w.penalty:g}", e(why)])
    return (f"<p>Policy: {e(policy_description(api))} (UTC times).</p>"
            + table(["student", "submitted", "due", "days late", "penalty (points)",
                     "late by"], rows))



def write_report(api: NbGraderAPI, assignment: str, out: Path,
                 json_out: Path | None = None) -> Findings:
    """Write the HTML report of ``assignment`` to ``out`` (and its data to ``json_out``).

    Sections: scores per exercise (mean, full marks, zeros, and a histogram each, embedded as
    PNG), what the class got wrong case by case (:mod:`grader.review.misses`), the submissions that
    did not run to completion, the answers that pass only the published examples
    (:func:`grader.pipeline.preprocessors.examples_only`), the flagged submissions grouped per
    student (:mod:`grader.review.flagged`), the similarity of the answers, and every student's score
    per exercise. Before them, the grading run's record and what ``course collect`` skipped and
    mapped (its record, see :mod:`grader.intake.collect`). The JSON holds what the class got wrong
    and the flags, as the page shows them.

    Returns
    -------
    Findings
        What the report lists in its two problem sections.
    """
    e = html.escape
    with api.gradebook as gb:
        exercises = assignment_exercises(api, gb, assignment)
        graded = sorted(s.student.id for s in gb.find_assignment(assignment).submissions)
        scores = {s: exercise_scores(gb, assignment, exercises, s) for s in graded}
        waiting = class_waiting(api, gb, assignment)
        # nbgrader's score less the policy's penalty now: what grader.handback.export writes
        late = {sub.student.id: (sub.score, late_work(api, gb, assignment, sub.student.id))
                for sub in gb.find_assignment(assignment).submissions}
    students = sorted(set(graded) | api.get_submitted_students(assignment))
    findings = find_problems(api, assignment, students)
    notebooks = _autograded_notebooks(api, assignment, exercises, graded)
    misses = count_misses(assignment, exercises, notebooks)
    examples = _examples_only(notebooks)
    flags = flagged_section.group(findings.flagged)
    not_run = [[e(s), e(line)] for s, lines in findings.not_run.items() for line in lines]
    per_student = [[e(s), *(f"{scores[s][ex.label]:g}" for ex in exercises),
                    f"{-late[s][1].penalty:g}" if late[s][1].penalty else "",
                    f"{late[s][0] - late[s][1].penalty:g}"
                    + (" (waits for a hand grade)" if s in waiting else "")] for s in graded]
    answers = sum(map(len, waiting.values()))
    still_waiting = (f"{counted(answers, 'answer')} still wait{'s' if answers == 1 else ''} "
                     "for a hand grade")
    body = f"""<h1>{e(assignment)}: grading report</h1>
<p>{counted(len(graded), 'student')} graded, {len(students)} with a submission; written
{datetime.now():%Y-%m-%d %H:%M}. Scores are the gradebook's: the autograded tests, and the
written answers graded by hand in the formgrader; <span id="waiting">{still_waiting}</span>
(an answer never graded counts 0, a changed one keeps its previous hand grade until then).
A student's score is the exercises' sum less the late penalty, the
number feedback and every export show.</p>
<section id="run"><h2>Grading run</h2>
{_run_section(Path(api.coursedir.root), assignment)}</section>
<section id="collect"><h2>Collect</h2>
{_collect_section(Path(api.coursedir.root), assignment)}</section>
<section id="late"><h2>Late submissions</h2>
{_late_section(api, assignment)}</section>
<section id="waiting-list"><h2>Waiting for a hand grade ({counted(len(waiting), 'student')})</h2>
{_waiting_section(waiting)}</section>
<section id="exercises"><h2>Scores per exercise</h2>
{_scores_section(exercises, graded, scores)}</section>
<section id="misses"><h2>What the class got wrong</h2>
{misses_section(misses)}</section>
<section id="examples-only"><h2>Published examples only ({len(examples)})</h2>
<p>Answers that pass an exercise's visible tests (the published examples) and fail every one of
its hidden cases, such as a table of the examples' answers. Those visible tests score 0: their
points count only with at least one hidden case passed.</p>
{table(["student", "visible tests withheld"], [[e(s), e(w)] for s, w in examples])}</section>
<section id="not-run"><h2>Submissions that did not run to completion ({len(not_run)})</h2>
<p>Tests after a dead or stuck kernel, and cells stopped at the time limit, score 0.</p>
{table(["student", "what happened"], not_run)}</section>
<section id="flagged"><h2>Flagged submissions ({len(flags)})</h2>
<p>Found by reading the submitted code: what grading cannot rule out inside the student's kernel
(monkeypatching, ending the kernel, using mllib, ...) and what grading repaired. Scores are not
changed: to withdraw credit, override the cell's score in the formgrader.</p>
{flagged_section.section(flags)}</section>
<section id="similarity"><h2>Similarity of the answers</h2>
{report_section(api, assignment)}</section>
<section id="students"><h2>Scores per student</h2>
{table(["student", *(ex.label for ex in exercises), "late penalty", "score"], per_student)}
</section>
"""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document(f"{assignment}: grading report", body, STYLE))
    if json_out is not None:
        data = {"assignment": assignment, "graded": len(graded), "misses": misses.as_json(),
                "flagged": flagged_section.as_json(flags),
                "examples_only": [list(row) for row in examples]}
        json_out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return findings
