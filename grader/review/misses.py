"""What the class got wrong: every case of every test of an assignment, counted over the class.

Grading keeps, in each autograded test cell, what every one of its cases did
(:mod:`grader.pipeline.outcomes`); the verdict a student sees names only the first failure. This
module reads those records for every graded student and counts, per exercise:

* each **hidden case** by the situation it tests (the hint a student sees when it fails) and
  its position in the check, never by its values: each student has hidden inputs of their own
  (:func:`grader.pipeline.secret.variant`), but the same situations;
* each **visible check** (an ``assert_close`` of the visible test, or the test's own assertion
  message, or the type of error that stopped it);
* the **slips** the hidden checkers name (a wrong answer, an exception, a missing ``return``,
  a checker's own reason such as "a heavier spanning tree exists");
* the students whose answer could not be judged case by case, and why.

"Most missed" counts students, not cases: a student's *mistake* in an exercise is the set of
its checks they failed, and the students who failed exactly the same checks made the same
mistake (one bug that fails three hidden cases is one mistake, listed once). The three mistakes
the most students made come with two example answers each, without the student's id: the
answers the most of those students wrote (the shortest first on a tie). The same data goes to
the report's HTML section (:func:`section`, everything escaped) and to its JSON
(:meth:`Misses.as_json`). Nothing here changes a score.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
from matplotlib.figure import Figure
from nbformat import NotebookNode

from grader.core.page import LABEL_POINTS, embedded_png, picture
from grader.pipeline import outcomes
from grader.pipeline.hostile import grade_id
from grader.pipeline.outside import HIDDEN_MARK
from grader.pipeline.preprocessors import NOT_RUN
from grader.review.tables import table
from mllib.plotting import figure

TOP = 3  # mistakes shown with example answers
EXAMPLES = 2  # example answers per mistake
MAX_EXAMPLE_CHARS = 3000  # of an example answer: a pasted megabyte cannot swamp the report
NOT_RECORDED = "no per-case record (graded before the report kept them: regrade to count it)"
TESTS = (outcomes.HIDDEN, outcomes.VISIBLE)
CELL_WIDTH, CELL_HEIGHT = 0.75, 0.5  # inches of the heat map's cells: "H12" over "100%" fits


@dataclass
class Row:
    """One case of one exercise's test, and who among the judged students failed it."""

    test: str  # outcomes.HIDDEN or outcomes.VISIBLE
    situation: str
    position: int  # where it first appeared in its test's record (orders the numbers)
    number: int = 0  # 1, 2, ... within its test, set once every record is read
    failed: set[str] = field(default_factory=set)

    @property
    def code(self) -> str:
        """A short name for the plot and the tables: "H3" (hidden case 3), "V1" (visible)."""
        return f"{self.test[0].upper()}{self.number}"

    @property
    def place(self) -> tuple[bool, int]:
        """Where it goes in the plot: the visible checks first, then by number."""
        return self.test != outcomes.VISIBLE, self.number


@dataclass
class ExerciseMisses:
    """The counts of one exercise."""

    exercise: str
    name: str  # the answer cell's grade_id
    rows: dict[tuple[str, str], Row] = field(default_factory=dict)  # (test, situation) -> row
    judged: dict[str, set[str]] = field(default_factory=dict)  # test -> students judged on it
    slips: dict[str, set[str]] = field(default_factory=dict)  # a checker's slip -> students
    unjudged: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (test, why)

    def sorted_rows(self, test: str) -> list[Row]:
        """The rows of one test, the most failed first (then by number)."""
        return sorted((r for r in self.rows.values() if r.test == test),
                      key=lambda r: (-len(r.failed), r.number))

    def checks(self) -> list[Row]:
        """Every row in the order of the plot: visible checks, then hidden cases, by number."""
        return sorted(self.rows.values(), key=lambda r: r.place)

    def judged_on(self, row: Row) -> int:
        """How many students were judged on ``row``'s test."""
        return len(self.judged.get(row.test, ()))

    def judged_students(self) -> set[str]:
        """The students judged on at least one of the exercise's tests."""
        return set().union(*self.judged.values())

    def mistakes(self) -> list[tuple[tuple[Row, ...], set[str]]]:
        """(the checks some students failed, in the plot's order; the students who failed
        exactly those), for every such set of checks."""
        failed: dict[str, list[Row]] = {}
        for row in self.checks():
            for student in row.failed:
                failed.setdefault(student, []).append(row)
        found: dict[tuple[str, ...], tuple[tuple[Row, ...], set[str]]] = {}
        for student, rows in failed.items():
            found.setdefault(tuple(r.code for r in rows), (tuple(rows), set()))[1].add(student)
        return list(found.values())


@dataclass(frozen=True)
class Example:
    """An answer shown without its author: its text (its first :data:`MAX_EXAMPLE_CHARS`),
    how many characters were cut, and how many students wrote it."""

    source: str
    cut: int
    students: int


@dataclass(frozen=True)
class Mistake:
    """The checks of one exercise that some students failed, all of them and nothing else of
    it, and two of their answers."""

    exercise: ExerciseMisses
    rows: tuple[Row, ...]  # in the plot's order
    students: int  # who failed exactly these checks
    examples: tuple[Example, ...]


@dataclass
class Misses:
    """What the class got wrong in one assignment."""

    assignment: str
    students: int  # with an autograded notebook
    exercises: list[ExerciseMisses]
    top: list[Mistake]  # the mistakes the most students made

    def as_json(self) -> dict:
        """The same data as :func:`section`, for scripts."""
        return {
            "assignment": self.assignment,
            "students": self.students,
            "exercises": [{
                "exercise": ex.exercise,
                **{test: [_row_json(ex, r) for r in ex.sorted_rows(test)] for test in TESTS},
                "slips": [{"slip": slip, "students": n} for slip, n in _counted(ex.slips)],
                "unjudged": [{"test": test, "reason": why, "students": len(who)}
                             for (test, why), who in sorted(ex.unjudged.items())],
            } for ex in self.exercises],
            "most_missed": [{
                "exercise": m.exercise.exercise,
                "cases": [{"case": r.code, "test": r.test, "situation": r.situation}
                          for r in m.rows],
                "students": m.students, "judged": len(m.exercise.judged_students()),
                "examples": [{"answer": e.source, "cut": e.cut, "students": e.students}
                             for e in m.examples]} for m in self.top],
        }


def _row_json(ex: ExerciseMisses, row: Row) -> dict:
    return {"case": row.code, "situation": row.situation, "failed": len(row.failed),
            "judged": ex.judged_on(row)}


def _counted(groups: dict[str, set[str]]) -> list[tuple[str, int]]:
    """(key, number of students), the most first, then by key."""
    return sorted(((key, len(who)) for key, who in groups.items()), key=lambda i: (-i[1], i[0]))


def _test_of(cell: NotebookNode) -> str:
    return outcomes.HIDDEN if HIDDEN_MARK in cell.source else outcomes.VISIBLE


def _unrecorded_reason(cell: NotebookNode) -> str:
    """Why a test cell of an autograded notebook has no record."""
    if any(o.get("ename") == NOT_RUN for o in cell.get("outputs", [])):
        return outcomes.NOT_RUN
    return NOT_RECORDED


def _count(ex: ExerciseMisses, student: str, test: str, record: outcomes.Record) -> None:
    """Add one student's record of one test to ``ex``."""
    if not record.cases:
        ex.unjudged.setdefault((test, record.unjudged), set()).add(student)
        return
    ex.judged.setdefault(test, set()).add(student)
    for position, case in enumerate(record.cases):
        row = ex.rows.setdefault((test, case.situation),
                                 Row(test, case.situation, position))
        row.position = min(row.position, position)
        if case.failed:
            row.failed.add(student)
        if case.slip:
            ex.slips.setdefault(case.slip, set()).add(student)


def _number(ex: ExerciseMisses) -> None:
    """Number each test's rows by where they appear in its records."""
    for test in TESTS:
        rows = sorted((r for r in ex.rows.values() if r.test == test),
                      key=lambda r: (r.position, r.situation))
        for number, row in enumerate(rows, start=1):
            row.number = number


def _examples(students: set[str], answers: dict[str, str]) -> tuple[Example, ...]:
    """The answers most of ``students`` wrote (the shortest on a tie)."""
    written = Counter(answers[s].strip() for s in students if answers.get(s, "").strip())
    ranked = sorted(written.items(), key=lambda item: (-item[1], len(item[0]), item[0]))
    return tuple(Example(source[:MAX_EXAMPLE_CHARS], max(0, len(source) - MAX_EXAMPLE_CHARS), n)
                 for source, n in ranked[:EXAMPLES])


def _most_missed(tested: list[ExerciseMisses], answers: dict[str, dict[str, str]]
                 ) -> list[Mistake]:
    """The :data:`TOP` mistakes the most students made (then in the order of the exercises
    and of their first check)."""
    ranked = sorted(((order, ex, rows, who) for order, ex in enumerate(tested)
                     for rows, who in ex.mistakes()),
                    key=lambda item: (-len(item[3]), item[0], [r.place for r in item[2]]))
    return [Mistake(ex, rows, len(who), _examples(who, answers.get(ex.exercise, {})))
            for _, ex, rows, who in ranked[:TOP]]


def count_misses(assignment: str, exercises: list, graded: dict[str, list[Path]]) -> Misses:
    """Count what the class got wrong.

    Parameters
    ----------
    assignment : str
        The assignment's name.
    exercises : list of grader.review.report.Exercise
        Its exercises; those with no test cell (a written answer) are left out.
    graded : dict
        Student -> their autograded notebooks of ``assignment`` (missing files are skipped).
    """
    by_label = {ex.label: ExerciseMisses(ex.label, ex.name) for ex in exercises}
    cells = {(ex.notebook, gid): by_label[ex.label] for ex in exercises
             for gid in (ex.name, *ex.grade_ids)}  # the answer cell, then the tests
    answers: dict[str, dict[str, str]] = {}  # exercise label -> student -> answer source
    students = 0
    for student, paths in sorted(graded.items()):
        notebooks = [(p.stem, nbformat.read(p, as_version=4)) for p in paths if p.is_file()]
        students += bool(notebooks)
        for notebook, nb in notebooks:
            for cell in nb.cells:
                ex = cells.get((notebook, grade_id(cell)))
                if ex is None or cell.cell_type != "code":
                    continue
                if grade_id(cell) == ex.name:
                    answers.setdefault(ex.exercise, {})[student] = cell.source
                    continue
                record = outcomes.read(cell) or outcomes.Record(
                    _test_of(cell), unjudged=_unrecorded_reason(cell))
                _count(ex, student, record.test, record)
    tested = [ex for ex in by_label.values() if ex.rows or ex.unjudged]
    for ex in tested:
        _number(ex)
    return Misses(assignment, students, tested, _most_missed(tested, answers))


def heat_map_figure(misses: Misses) -> Figure:
    """Exercises x their checks, coloured by the share of judged students who failed each, every
    text at :data:`grader.core.page.LABEL_POINTS` or larger."""
    rows = [ex.checks() for ex in misses.exercises]
    width = max((len(r) for r in rows), default=1)
    share = np.full((len(rows), width), np.nan)
    label = max((len(ex.name) for ex in misses.exercises), default=1) * LABEL_POINTS * 0.6 / 72
    total = label + 1.9 + CELL_WIDTH * width  # inches: the names, the colour bar, the cells
    fig, (ax,) = figure(width=total, height=1.3 + CELL_HEIGHT * len(rows))
    fig.subplots_adjust(left=(label + 0.2) / total)
    for i, (ex, ex_rows) in enumerate(zip(misses.exercises, rows, strict=True)):
        for j, row in enumerate(ex_rows):
            share[i, j] = len(row.failed) / max(ex.judged_on(row), 1)
            ax.text(j, i, f"{row.code}\n{share[i, j]:.0%}", ha="center", va="center",
                    fontsize=LABEL_POINTS, color="white" if share[i, j] > 0.6 else "black")
    cmap = matplotlib.colormaps["Reds"].with_extremes(bad="#eeeeee")
    shown = ax.imshow(np.ma.masked_invalid(share), vmin=0, vmax=1, cmap=cmap, aspect="auto")
    bar = fig.colorbar(shown, ax=ax)
    bar.set_label("share failed", fontsize=LABEL_POINTS)
    bar.ax.tick_params(labelsize=LABEL_POINTS)
    ax.set_yticks(range(len(rows)), [ex.name for ex in misses.exercises], fontsize=LABEL_POINTS)
    ax.set_xticks([])
    ax.set_xlabel("its checks: V visible, H hidden (see the tables)", fontsize=LABEL_POINTS)
    ax.set_title(f"{misses.assignment}: share of students failing each check",
                 fontsize=LABEL_POINTS + 1)
    return fig


def heat_map(misses: Misses) -> tuple[str, str]:
    """:func:`heat_map_figure` as (base64 PNG, alt text drawn from the same numbers)."""
    return embedded_png(heat_map_figure(misses)), _alt(misses)


def _alt(misses: Misses) -> str:
    checks = [(ex, row) for ex in misses.exercises for row in ex.rows.values()]
    ranked = sorted((item for item in checks if item[1].failed),
                    key=lambda item: -len(item[1].failed) / max(item[0].judged_on(item[1]), 1))
    named = [f"{ex.name} {row.code} ({row.situation}) {len(row.failed)} of {ex.judged_on(row)}"
             for ex, row in ranked[:5]]
    return (f"Heat map of {misses.assignment}: {len(misses.exercises)} exercises by their "
            f"checks, coloured by the share of judged students who failed each, from 0 to 1. "
            + (f"Most failed: {'; '.join(named)}. " if named else "")
            + f"{len(checks) - len(ranked)} of {len(checks)} checks failed by nobody.")


def _example_html(example: Example, letter: str) -> str:
    more = f"\n… ({example.cut} more characters)" if example.cut else ""
    who = "1 student" if example.students == 1 else f"{example.students} students"
    return (f"<figure><figcaption>Answer {letter} (written by {who})</figcaption>"
            f"<pre><code>{html.escape(example.source + more)}</code></pre></figure>")


def _top_html(misses: Misses) -> str:
    e = html.escape
    items = []
    for m in misses.top:
        answers = "".join(_example_html(x, "AB"[i]) for i, x in enumerate(m.examples))
        checks = "; ".join(f"{r.code} ({r.test}): {e(r.situation)}" for r in m.rows)
        codes = ", ".join(r.code for r in m.rows)
        failing = "this check" if len(m.rows) == 1 else f"these {len(m.rows)} checks"
        items.append(f'<li data-case="{e(m.exercise.exercise)} {codes}"><strong>'
                     f"{e(m.exercise.exercise)} {codes}</strong>: {m.students} of "
                     f"{len(m.exercise.judged_students())} students failed {failing} and "
                     f"no other of the exercise: {checks}. {answers}</li>")
    return f"<ol>{''.join(items)}</ol>" if items else "<p>No check failed.</p>"


def _rows_html(ex: ExerciseMisses, test: str) -> list[list[str]]:
    return [[row.code, html.escape(row.situation), str(len(row.failed)),
             str(ex.judged_on(row))] for row in ex.sorted_rows(test)]


def _exercise_html(ex: ExerciseMisses) -> str:
    e = html.escape
    columns = ["case", "situation (the hint a student sees)", "failed", "judged"]
    unjudged = "; ".join(f"{test} test: {e(why)} ({len(who)})"
                         for (test, why), who in sorted(ex.unjudged.items()))
    return (f'<div class="misses" data-exercise="{e(ex.exercise)}"><h4>{e(ex.exercise)}</h4>'
            + table(columns, _rows_html(ex, outcomes.HIDDEN), caption="Hidden cases")
            + table(["check", "situation", "failed", "judged"],
                    _rows_html(ex, outcomes.VISIBLE), caption="Visible checks")
            + table(["slip the checker names", "students"],
                    [[e(slip), str(n)] for slip, n in _counted(ex.slips)],
                    caption="Slips")
            + (f"<p>Not judged case by case: {unjudged}.</p>" if unjudged else "") + "</div>")


def section(misses: Misses) -> str:
    """The report's "What the class got wrong" section as an HTML fragment (all escaped)."""
    if not misses.exercises:
        return "<p>No test was graded.</p>"
    png, alt = heat_map(misses)
    return (f"<p>Every case of every test, counted over the {misses.students} graded "
            "submissions. Each student had hidden inputs of their own, so a hidden case is "
            "counted by the situation it tests (the hint a student sees when it fails), not by "
            "its values. <em>Judged</em>: the students whose answer could be run on that test; "
            "a student counts once per case and once per slip. Example answers are shown "
            "without their author.</p>"
            "<h3>Most missed</h3><p>The mistakes the most students made. A student's mistake "
            "in an exercise is the set of its checks they failed: students who failed exactly "
            "the same checks count as one mistake, each student once per exercise.</p>"
            f"{_top_html(misses)}{picture(png, alt, 'heat map of the checks failed')}"
            "<h3>Per exercise</h3>" + "".join(_exercise_html(ex) for ex in misses.exercises))
