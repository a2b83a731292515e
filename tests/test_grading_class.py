"""Grading day for a class of 30 synthetic students over the perceptron exercises.

One session-scoped run of the ``course`` CLI on a temporary copy of the course: ``collect``
(a Canvas-style zip of downloads), ``autograde`` with three parallel workers, ``feedback``,
``export``, ``report``, then a second ``autograde`` of everyone (the regrade) on a Dask
``LocalCluster`` of two workers (``--cluster local:2``), which must give the same score to every
cell. A third run grades the class into a PostgreSQL gradebook on a real server that the test
starts; its exported CSV must equal the SQLite run's byte for byte. The students are
built from the instructor's and the released notebooks: correct, partly right, wrong, empty,
and one per row of the issue's table of hostile submissions (edited, deleted and forged cells,
stripped metadata, an infinite loop, a dead and a stuck kernel, builtins and numpy patched, an
object equal to everything, stderr warnings, answers calling mllib, gigabytes of output).

Every student's expected score is written down per exercise; the tests compare it with
nbgrader's gradebook, the CSV (cell by cell), the report, and the two other runs. This copy of the
course stops a cell after ``TIMEOUT`` seconds instead of the configured 30, to keep the two
runs short; the mechanism is the same.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import copy
import csv
import html as html_module
import io
import json
import re
import runpy
import shutil
import subprocess
import sys
import traceback
import types
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
import pytest
from axe_support import chromium_page, problems  # tests/ is on sys.path
from browser_support import CHROMIUM_ARGS, require_chromium
from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler
from nbgrader.validator import Validator
from playwright.sync_api import sync_playwright
from postgres_support import new_database, postgres_server
from test_grading import html_text
from traitlets.config import Config

from grader.cli import main
from grader.core.api import gradebook_url
from grader.handback.pending import NOT_HAND_GRADED
from grader.pipeline import outcomes, secret
from grader.pipeline.hostile import scan
from mllib.grading import load_check, variant

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises"
SOLUTION = nbformat.read(REPO / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
RELEASE = nbformat.read(REPO / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
EXERCISES = ("update_rule", "training_loop", "margin", "bound", "winnow")  # answer grade ids
WRITTEN = "eta_answer"  # graded by hand: 0 until the instructor grades it
TIMEOUT = 5
COURSE = Path(sys.executable).parent / "course"


def meta(cell: NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


def points(test: str) -> float:
    return float(next(meta(c)["points"] for c in SOLUTION.cells if meta(c).get("grade_id") == test))


def checks_of(exercise: str) -> dict[str, str]:
    """The exercise's visible and hidden test cells (the notebook names them that way)."""
    return {kind: f"test_{exercise}_{kind}" for kind in ("visible", "hidden")}


# --- building submissions ---------------------------------------------------------------

def cell(nb: NotebookNode, gid: str) -> NotebookNode:
    return next(c for c in nb.cells if meta(c).get("grade_id") == gid)


def answer_text(gid: str) -> str:
    """The instructor's answer as a student would type it: without nbgrader's markers."""
    return "\n".join(ln for ln in cell(SOLUTION, gid).source.splitlines()
                     if ln.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def solved(**answers: str) -> NotebookNode:
    """The released notebook with every answer written in (the instructor's unless
    ``answers[grade_id]`` says otherwise), as a student submits it."""
    nb = copy.deepcopy(RELEASE)
    for gid in (*EXERCISES, WRITTEN):
        cell(nb, gid).source = answers.get(gid, answer_text(gid))
    return nb


def added(gid: str, code: str) -> NotebookNode:
    """The instructor's answers, with ``code`` added at the end of one answer cell."""
    return solved(**{gid: f"{answer_text(gid)}\n{code}"})


def strip_metadata(nb: NotebookNode, *, new_ids: bool = False) -> NotebookNode:
    for number, c in enumerate(nb.cells):
        c.metadata = {}
        if new_ids:
            c.id = f"pasted-{number}"
    return nb


def without(*gids: str) -> NotebookNode:
    nb = solved()
    nb.cells = [c for c in nb.cells if meta(c).get("grade_id") not in gids]
    return nb


def edited_tests() -> NotebookNode:
    """A wrong update rule (with markup in a comment: the report shows it as an example), its
    tests replaced by ``pass`` and the hidden test worth 100."""
    nb = solved(update_rule=RETURN_W_TAGGED)
    for test in checks_of("update_rule").values():
        cell(nb, test).source = "pass"
    meta(cell(nb, "test_update_rule_hidden"))["points"] = 100
    return nb


def forged_records(nb: NotebookNode) -> NotebookNode:
    """Every test cell claims a per-case record of passed cases (grader.pipeline.outcomes.KEY)."""
    for c in nb.cells:
        if meta(c).get("grade") and c.cell_type == "code":
            c.metadata[outcomes.KEY] = {"test": "hidden", "check": "", "unjudged": "",
                                        "cases": [["forged", False, ""]]}
    return nb


def forged_cell() -> NotebookNode:
    nb = solved()
    bonus = nbformat.v4.new_code_cell("pass")
    bonus.metadata["nbgrader"] = {"grade": True, "grade_id": "bonus", "points": 50,
                                  "locked": True, "solution": False, "schema_version": 3,
                                  "task": False}
    nb.cells.append(bonus)
    return nb


ANSWER_OF = {re.search(r"def (\w+)\(", cell(SOLUTION, gid).source).group(1): gid
             for gid in EXERCISES}  # function name -> its answer cell


def all_answers(make: Callable[[str], str]) -> NotebookNode:
    """Every answer cell replaced by ``make(function name)``."""
    return solved(**{gid: make(name) for name, gid in ANSWER_OF.items()})


RETURN_W = "def perceptron_update(w, x, y, eta):\n    return w\n"
# Short enough to be among the report's example answers of the cases it fails (the shortest
# are shown on a tie), so the report must show this markup as text.
TAG = "</code><script>"
RETURN_W_TAGGED = f"def perceptron_update(w, x, y, eta):\n    return w  # {TAG}\n"
UPDATE_ZERO_ONLY_AT_START = """\
def perceptron_update(w, x, y, eta):
    print("debug", w, x)
    if y * (w @ x) < 0 or not np.any(w):  # w.x = 0 is a mistake only while w = 0
        return w + eta * y * x
    return np.array(w, dtype=float)  # a new array, as the statement asks
"""
UPDATE_ALWAYS = "def perceptron_update(w, x, y, eta):\n    return w + eta * y * x\n"
TRAIN_ONE_EPOCH = """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    w, mistakes = np.zeros(X.shape[1]), 0
    for x_i, y_i in zip(X, y):
        if y_i * (w @ x_i) <= 0:
            w, mistakes = w + eta * y_i * x_i, mistakes + 1
    return w, mistakes
"""
TRAIN_UNTIL_SEPARATED = """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    w, mistakes = np.zeros(X.shape[1]), 0
    while True:  # ignores max_epochs: never ends on data that is not separable
        before = mistakes
        for x_i, y_i in zip(X, y):
            if y_i * (w @ x_i) <= 0:
                w, mistakes = w + eta * y_i * x_i, mistakes + 1
        if mistakes == before:
            return w, mistakes
"""
MARGIN_ABS = """\
def geometric_margin(w, X, y):
    if not np.any(w):
        raise ValueError("w = 0 has no margin")
    return float(np.min(np.abs(X @ w)) / np.linalg.norm(w))
"""
MARGIN_ZERO = "def geometric_margin(w, X, y):\n    return 0.0\n"
BOUND_ROUNDED = """\
def mistake_bound(X, y, w_star):
    R, gamma = np.max(np.linalg.norm(X, axis=1)), geometric_margin(w_star, X, y)
    if gamma <= 0:
        raise ValueError("w_star does not separate the data")
    return float(round((R / gamma) ** 2))
"""
WINNOW_NEGATIVE_TIE = """\
def winnow_update(w, x, y, theta):
    score = w @ x
    if (score > theta) if y > 0 else (score <= theta):
        return w.copy()
    return w * np.where(x == 1, 2.0 if y > 0 else 0.5, 1.0)
"""
# correct, written differently from the solution: the fairness test's second answers
ALTERNATIVE = runpy.run_path(str(REPO / "tests" / "fairness" / f"{ASSIGNMENT}.py"))["ANSWERS"]
EQUALS_EVERYTHING = """\
class Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


def {name}(*args, **kwargs):
    return Anything() if "{name}" != "train_perceptron" else (Anything(), Anything())
"""
WITH_MLLIB = {
    "update_rule": """\
from mllib import perceptron as P


def perceptron_update(w, x, y, eta):
    return P.perceptron(x[None, :], [y], eta=eta, w0=w, max_epochs=1).w
""",
    "training_loop": """\
from mllib.perceptron import perceptron


def train_perceptron(X, y, eta=1.0, max_epochs=100):
    run = perceptron(X, y, eta=eta, max_epochs=max_epochs)
    return run.w, run.mistakes
""",
}
WARNINGS = """\
import logging
import sys
import warnings


def perceptron_update(w, x, y, eta):
    warnings.warn("this update is slow on big data")
    print("progress: 100%", file=sys.stderr)
    logging.getLogger("student").warning("a logged warning")
    if y * (w @ x) <= 0:
        return w + eta * y * x
    return w.copy()
"""
STUCK = """\
import time
while True:  # swallows the interrupt the time limit sends
    try:
        time.sleep(0.1)
    except BaseException:
        pass
"""


@dataclass(frozen=True)
class Student:
    """One synthetic student: the notebook they submit and what grading must make of it."""

    name: str
    build: Callable[[], NotebookNode]
    earns: dict[str, str] = field(default_factory=dict)  # exercise -> "visible"/"hidden"/"none"
    flags: tuple[str, ...] = ()  # substrings of the report's reasons for this student
    not_run: str = ""  # substring of the report's "did not run to completion" line


CLASS = [
    # correct
    Student("ada", lambda: solved()),
    Student("cho", lambda: solved(**ALTERNATIVE)),
    Student("dan", lambda: solved(**{WRITTEN: cell(RELEASE, WRITTEN).source})),  # unanswered
    Student("eve", lambda: solved(update_rule=WARNINGS)),  # stderr in the tests: nbgrader #1904
    Student("fay", lambda: added("winnow", "for _ in range(1000):\n    print('x' * 1_000_000)"),
            flags=("printed too much",)),
    # partly right: the visible test passes, the hidden one fails on some of its cases
    Student("gus", lambda: solved(update_rule=UPDATE_ZERO_ONLY_AT_START),
            earns={"update_rule": "visible"}),
    # right on the published example only (it needs one epoch), wrong on every hidden case:
    # the visible points are withheld (published examples alone earn nothing)
    Student("hal", lambda: solved(training_loop=TRAIN_ONE_EPOCH),
            earns={"training_loop": "none"}),
    # |w·x| also makes a non-separating w_star look separating: bound's visible ValueError check
    # fails on ivy's margin, while bound's hidden cases (separating w_star) still pass.
    Student("ivy", lambda: solved(margin=MARGIN_ABS),
            earns={"margin": "visible", "bound": "hidden"}),
    Student("jon", lambda: solved(bound=BOUND_ROUNDED), earns={"bound": "none"}),  # as hal
    Student("kim", lambda: solved(winnow=WINNOW_NEGATIVE_TIE), earns={"winnow": "visible"}),
    # wrong
    Student("max", lambda: all_answers(lambda name: f"def {name}(a, *rest, **kw):\n    return a\n"),
            earns=dict.fromkeys(EXERCISES, "none")),
    Student("ned", lambda: all_answers(lambda name: answer_text(ANSWER_OF[name]).replace(
        f"def {name}(", f"def {name}_v2(")), earns=dict.fromkeys(EXERCISES, "none")),
    Student("olo", lambda: solved(training_loop="def train_perceptron(X, y)\n    pass\n"),
            earns={"training_loop": "none"}),
    Student("pam", lambda: solved(update_rule=UPDATE_ALWAYS), earns={"update_rule": "none"}),
    # empty
    Student("rae", lambda: copy.deepcopy(RELEASE), earns=dict.fromkeys(EXERCISES, "none")),
    Student("sam", lambda: nbformat.v4.new_notebook(metadata=SOLUTION.metadata),
            earns=dict.fromkeys(EXERCISES, "none"), flags=("re-inserted from the release",)),
    # hostile, in the order of the issue's table
    Student("uma", edited_tests, earns={"update_rule": "none"},
            flags=("edited a locked cell", "points 100 -> 2")),
    Student("vic", lambda: without("test_update_rule_visible", "test_update_rule_hidden",
                                   "test_training_loop_hidden"),
            flags=("re-inserted from the release",)),
    Student("wes", lambda: strip_metadata(solved()), flags=("metadata missing, restored",)),
    Student("xia", lambda: strip_metadata(solved(), new_ids=True),
            flags=("metadata missing, restored",)),
    # the hidden test hits the time limit, so no hidden case passes: visible points withheld
    Student("yan", lambda: solved(training_loop=TRAIN_UNTIL_SEPARATED),
            earns={"training_loop": "none"}, not_run="time limit"),
    # its tests that never run carry forged per-case records: the report must not count them
    Student("zed", lambda: forged_records(solved(bound=answer_text("bound").replace(
        '"""\n', '"""\n    import os\n    os._exit(0)\n', 1))),
            earns={"bound": "none", "winnow": "none"}, flags=("can stop the kernel (os._exit)",),
            not_run="kernel died"),
    Student("ali", lambda: added("margin", "import sys\nsys.exit()"),
            flags=("can stop the kernel (sys.exit)",)),
    Student("bo", lambda: solved(update_rule="import builtins\nbuiltins.AssertionError = "
                                 "Exception\nbuiltins.print = lambda *a, **k: None\n" + RETURN_W),
            earns={"update_rule": "none"},
            flags=("monkeypatches builtins.AssertionError", "monkeypatches builtins.print")),
    Student("cy", lambda: solved(margin="np.allclose = lambda *a, **k: True\n" + MARGIN_ZERO),
            earns={"margin": "none", "bound": "none"}, flags=("monkeypatches np.allclose",)),
    # Patching what the comparison itself uses fooled in-kernel checks; verdicts are now decided
    # outside the kernel, so the wrong update rule earns nothing; the patch only breaks the
    # student's own mistake_bound, which uses np.max. The report still flags the patch.
    Student("dee", lambda: solved(update_rule="np.max = lambda *a, **k: -1.0\n" + RETURN_W),
            earns={"update_rule": "none", "bound": "none"}, flags=("monkeypatches np.max",)),
    Student("eli", lambda: all_answers(lambda name: EQUALS_EVERYTHING.format(name=name)),
            earns=dict.fromkeys(EXERCISES, "none")),
    # The sandbox hides mllib.perceptron while 01 is graded: the import fails, no credit.
    Student("flo", lambda: solved(**WITH_MLLIB), flags=("uses mllib",),
            earns={"update_rule": "none", "training_loop": "none"}),
    Student("gil", forged_cell, flags=("not in the release",)),
    Student("hugo", lambda: added("winnow", STUCK), earns={"winnow": "none"},
            not_run="did not stop"),
]
STUDENTS = {s.name: s for s in CLASS}


def expected_scores(student: Student) -> dict[str, float]:
    """Autograded score of every graded cell."""
    scores = {WRITTEN: 0.0}
    for exercise in EXERCISES:
        earned = student.earns.get(exercise, "all")
        for kind, test in checks_of(exercise).items():
            scores[test] = points(test) if earned in ("all", kind) else 0.0
    return scores


# --- the graded run ---------------------------------------------------------------------

@dataclass
class GradedClass:
    root: Path
    codes: dict[str, int]  # step -> exit status
    out: dict[str, str]  # step -> stdout
    err: dict[str, str]  # step -> stderr
    scores: dict[str, dict[str, dict[str, float]]]  # run -> student -> grade id -> score
    submitted: dict[str, NotebookNode]
    records: dict[str, dict[str, dict[str, dict]]] = field(default_factory=dict)  # run ->
    # student -> grade id -> per-case record (grader.pipeline.outcomes) in the autograded notebook

    def report(self) -> str:
        return (self.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()

    def text(self, path: Path) -> str:
        return html_text(path.read_text())


def snapshot(root: Path) -> dict[str, dict[str, float]]:
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        return {s.student.id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
                for s in gb.find_assignment(ASSIGNMENT).submissions}


def case_records(root: Path) -> dict[str, dict[str, dict]]:
    """Student -> grade id -> the per-case record of each test cell of the autograded notebook."""
    found = {}
    for folder in sorted((root / "grader" / "autograded").iterdir()):
        nb = nbformat.read(folder / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
        found[folder.name] = {meta(c)["grade_id"]: c.metadata[outcomes.KEY] for c in nb.cells
                              if outcomes.KEY in c.metadata}
    return found


def lms_zip(path: Path, notebooks: dict[str, NotebookNode]) -> None:
    """A Canvas download: <student>_<user id>_<submission id>_<file>, plus files to skip."""
    with zipfile.ZipFile(path, "w") as archive:
        for number, (name, nb) in enumerate(sorted(notebooks.items())):
            suffix = "-1" if name == "ada" else ""  # a resubmission
            archive.writestr(f"{name}_{1000 + number}_{5000 + number}_{NOTEBOOK}{suffix}.ipynb",
                             nbformat.writes(nb))
        archive.writestr("ada_1000_5000_scratch.ipynb", nbformat.writes(RELEASE))
        archive.writestr("readme.txt", "not a submission")


@pytest.fixture(scope="session")
def graded(copy_course: Callable[..., Path], tmp_path_factory) -> GradedClass:
    root = copy_course("solutions", "notebooks")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.ExecutePreprocessor.timeout = {TIMEOUT}\n")
    submitted = {s.name: s.build() for s in CLASS}
    download = tmp_path_factory.mktemp("lms") / "submissions.zip"
    lms_zip(download, submitted)
    run = GradedClass(root, {}, {}, {}, {}, submitted)
    steps = [
        ("collect", ["collect", ASSIGNMENT, str(download)]),
        ("autograde", ["autograde", ASSIGNMENT, "--jobs", "3"]),
        # the written answers are not graded by hand here: feedback and export include them
        ("feedback", ["feedback", ASSIGNMENT, "--include-ungraded"]),
        ("export", ["export", "--include-ungraded"]),
        ("report", ["report", ASSIGNMENT, "--json"]),
        ("regrade", ["autograde", ASSIGNMENT, "--cluster", "local:2"]),
    ]
    for step, args in steps:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            run.codes[step] = main(["--course-root", str(root), *args])
        run.out[step], run.err[step] = out.getvalue(), err.getvalue()
        if step in ("autograde", "regrade"):
            run.scores[step] = snapshot(root)
            run.records[step] = case_records(root)
    return run


# --- the tests --------------------------------------------------------------------------

def test_collect_files_every_student_from_the_lms_zip(graded: GradedClass) -> None:
    folder = graded.root / "grader" / "submitted"
    assert graded.codes["collect"] == 0, graded.err["collect"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(STUDENTS)
    for name, nb in graded.submitted.items():
        files = list((folder / name / ASSIGNMENT).iterdir())
        assert [f.name for f in files] == [f"{NOTEBOOK}.ipynb"], name  # scratch.ipynb skipped
        assert nbformat.read(files[0], as_version=4) == nbformat.from_dict(
            nbformat.reads(nbformat.writes(nb), as_version=4)), name


def test_only_dead_and_stuck_kernels_fail_the_run(graded: GradedClass) -> None:
    for step in ("autograde", "regrade"):
        assert graded.codes[step] == 1, graded.err[step]
        failed = re.findall(r"^FAILED autograde \S+ for (\w+)$", graded.err[step], re.M)
        assert sorted(failed) == ["hugo", "zed"]
        progress = re.findall(r"^\[#*\s*\]\s+(\d+)/30 autograded (\w+): ", graded.out[step], re.M)
        assert sorted(int(n) for n, _ in progress) == list(range(1, 31))
        assert sorted(name for _, name in progress) == sorted(STUDENTS)


@pytest.mark.parametrize("student", CLASS, ids=lambda s: s.name)
def test_scores_per_student_and_exercise(graded: GradedClass, student: Student) -> None:
    assert graded.scores["autograde"][student.name] == expected_scores(student)


def test_regrade_on_a_dask_cluster_gives_identical_scores(graded: GradedClass) -> None:
    # Cell scores are sums of points (integers and halves), exact in floating point: == is safe.
    assert graded.scores["regrade"] == graded.scores["autograde"]
    assert sorted(graded.scores["regrade"]) == sorted(STUDENTS)
    assert "on the Dask cluster local:2" in graded.out["regrade"]
    # and the same per-case records for the report, carried over from the workers
    assert graded.records["regrade"] == graded.records["autograde"]
    assert len(graded.records["regrade"]["ada"]) == 2 * len(EXERCISES)


def test_a_postgresql_gradebook_exports_the_same_csv(
    graded: GradedClass, copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("solutions", "notebooks")
    shutil.copy2(graded.root / "grader" / "nbgrader_config.py", root / "grader")  # TIMEOUT
    shutil.copytree(graded.root / "grader" / "submitted", root / "grader" / "submitted")
    with postgres_server() as server:
        url = new_database(server, "gradebook")
        codes = {}
        for step, args in [("autograde", ["autograde", ASSIGNMENT, "--jobs", "3"]),
                           ("report", ["report", ASSIGNMENT]),
                           ("export", ["export", "--out", str(tmp_path / "grades.csv"),
                                       "--include-ungraded"])]:
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                codes[step] = main(["--db-url", url, "--course-root", str(root), *args])
        with Gradebook(gradebook_url(url)) as gb:
            in_postgres = {s.student.id: {g.name: g.score for nb in s.notebooks
                                          for g in nb.grades}
                           for s in gb.find_assignment(ASSIGNMENT).submissions}
    # autograde exits 1 because hugo's and zed's kernels stopped, as in the SQLite run
    assert codes == {"autograde": 1, "report": 0, "export": 0}
    assert not (root / "grader" / "gradebook.db").exists(), "SQLite was used after all"
    assert in_postgres == graded.scores["autograde"]
    sqlite_csv = (graded.root / "grader" / "exports" / "grades.csv").read_bytes()
    assert (tmp_path / "grades.csv").read_bytes() == sqlite_csv


def test_export_has_a_column_per_exercise_checked_cell_by_cell(graded: GradedClass) -> None:
    assert graded.codes["export"] == 0
    with (graded.root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    columns = [f"{ASSIGNMENT}/{e}" for e in (*EXERCISES, WRITTEN)]
    maximum = sum(points(t) for e in EXERCISES for t in checks_of(e).values()) + points(WRITTEN)
    assert rows[0] == ["student_id", "last_name", "first_name", *columns,
                       f"{ASSIGNMENT}_score", f"{ASSIGNMENT}_max", f"{ASSIGNMENT}_waiting",
                       "total_score", "total_max"]
    expected = []
    for student in sorted(CLASS, key=lambda s: s.name):
        scores = expected_scores(student)
        per_exercise = [sum(scores[t] for t in checks_of(e).values()) for e in EXERCISES]
        total = f"{sum(per_exercise):g}"
        waiting = "" if student.name in WRITTEN_UNANSWERED else \
            f"{ASSIGNMENT}/{WRITTEN} ({NOT_HAND_GRADED})"
        expected.append([student.name, "", "", *(f"{s:g}" for s in per_exercise), "0",
                         total, f"{maximum:g}", waiting, total, f"{maximum:g}"])
    assert rows[1:] == expected


def report_rows(html: str, section: str) -> list[list[str]]:
    """The table rows (cell texts) of one section of the report."""
    part = html.split(f'<section id="{section}">', 1)[1].split("</section>", 1)[0]
    return [[html_text(td) for td in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", part, re.S)[1:]]


def flagged_entries(html: str) -> list[tuple[str, str, str]]:
    """(student, summary, findings as text) of each entry of the report's flagged section."""
    part = html.split('<section id="flagged">', 1)[1].split("</section>", 1)[0]
    return [(html_text(student), html_text(summary), html_text(findings)) for student, summary,
            findings in re.findall(r'<details data-student="([^"]*)"><summary>(.*?)</summary>'
                                   r"(.*?)</details>", part, re.S)]


MACHINERY = ("edited a locked cell", "monkeypatches", "not in the release")  # among the flags


def test_report_lists_the_flagged_and_the_unfinished(graded: GradedClass) -> None:
    assert graded.codes["report"] == 0, graded.err["report"]
    html = graded.report()
    entries = flagged_entries(html)
    flagged = {student: findings for student, _summary, findings in entries}
    assert len(entries) == len(flagged)  # one entry per student
    assert sorted(flagged) == sorted(s.name for s in CLASS if s.flags)
    for student in CLASS:
        for reason in student.flags:
            assert reason in flagged[student.name], (student.name, flagged[student.name])
    # the most serious first: whoever touched the grading machinery before flo, who only
    # imports mllib, and before fay, whose code printed too much
    order = [student for student, *_ in entries]
    tampered = [s.name for s in CLASS if any(m in f for f in s.flags for m in MACHINERY)]
    assert len(tampered) == 5
    assert max(map(order.index, tampered)) < order.index("flo") < order.index("fay")
    not_run = {student: line for student, line in report_rows(html, "not-run")}
    assert sorted(not_run) == sorted(s.name for s in CLASS if s.not_run)
    for student in CLASS:
        assert student.not_run in not_run.get(student.name, ""), student.name
    plots = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    # one per exercise, the written answer included, what the class got wrong, and the
    # similarity section's heat map
    assert len(plots) == len(EXERCISES) + 3
    assert all(p.startswith("iVBORw0KGgo") for p in plots)  # PNG signature


def hidden_cases() -> list[tuple[tuple, object]]:
    """(arguments, expected answer) of every hidden case, from the checks the notebook names."""
    keys = re.findall(r'hidden_test\("([\w.]+)"', "".join(c.source for c in SOLUTION.cells))
    checks = [load_check(key) for key in keys]
    return [(case.args, want) for check in checks
            for case, want in zip(check.cases, check.expected(), strict=True)]


def distinctive(value: object) -> list[str]:
    """How a hidden number could be printed (repr, 6 decimals), for numbers with more than
    three decimals: round ones (0.5, 2.0) are everywhere in a notebook."""
    numbers = np.asarray(value if not isinstance(value, tuple) else value[0], dtype=float)
    forms = []
    for x in numbers.ravel():
        if abs(1000 * x - round(1000 * x)) > 1e-6:
            forms += [repr(float(x)), repr(float(np.round(x, 6))), f"{x:.6f}"]
    return forms


def test_feedback_shows_no_hidden_test_code_or_values(graded: GradedClass) -> None:
    assert graded.codes["feedback"] == 0, graded.err["feedback"]
    hidden_code = [ln.strip() for c in SOLUTION.cells for ln in c.source.split(
        "### BEGIN HIDDEN TESTS")[-1].split("### END HIDDEN TESTS")[0].splitlines()
        if "### BEGIN HIDDEN TESTS" in c.source and len(ln.strip()) >= 8]
    cases = hidden_cases()
    values = {form for _args, answer in cases for form in distinctive(answer)}
    inputs = {str(arg) for args, _answer in cases for arg in args
              if isinstance(arg, np.ndarray) and arg.size >= 3}
    # Exercise 2's hidden cases are exact (integers, η a power of 2), so fewer distinct values
    assert hidden_code and len(values) > 5 and inputs
    for name in STUDENTS:
        path = graded.root / "grader" / "feedback" / name / ASSIGNMENT / f"{NOTEBOOK}.html"
        text = graded.text(path)
        assert "0.408248290463863" in text, "the search must find the visible tests' numbers"
        assert not [ln for ln in hidden_code if ln in text], name
        assert not [v for v in values if v in text], name
        assert not [i for i in inputs if i in text], name
    # the per-case records stay the report's: no feedback names a case its student passed
    release_text = html_text(nbformat.writes(RELEASE))
    hints = {case.hint for key in re.findall(r'hidden_test\("([\w.]+)"', "".join(
        c.source for c in SOLUTION.cells)) for case in load_check(key).cases}
    hints = {hint for hint in hints if hint not in release_text}
    assert len(hints) > 15
    for name in STUDENTS:
        path = graded.root / "grader" / "feedback" / name / ASSIGNMENT / f"{NOTEBOOK}.html"
        assert outcomes.KEY not in path.read_text()
    assert not [hint for hint in hints if hint in graded.text(
        graded.root / "grader" / "feedback" / "ada" / ASSIGNMENT / f"{NOTEBOOK}.html")]
    # gus prints his function's inputs: shown for the visible test, not for the hidden one
    assert "debug" in graded.text(graded.root / "grader" / "feedback" / "gus" / ASSIGNMENT /
                                  f"{NOTEBOOK}.html")


# --- what the class got wrong, counted independently -----------------------------------------
#
# The oracle runs each student's own answer cells in this process, in notebook order, and calls
# their functions on their own hidden inputs (the checker's cases under the student's variant of
# the course secret) and on the visible tests, then compares with the reference by np.allclose:
# nothing of grader.pipeline.outside, grader.pipeline.outcomes or mllib.grading.judge decides here.
# What cannot run in this process is written down from the class's definition above.

FUNCTIONS = {gid: name for name, gid in ANSWER_OF.items()}  # answer grade id -> its function
KERNEL_STOPPED_AT = {"zed": "bound", "hugo": "winnow"}  # from this exercise on, nothing ran
HIDDEN_TIMED_OUT = {"yan": "training_loop"}  # loops forever on the non-separable case
RUN_INSTEAD = {"bo": {"update_rule": RETURN_W}}  # his builtins patches would reach this process
HIDDEN_MODULE = "mllib.perceptron"  # hidden from the kernel while 01 is graded (README)
VISIBLE_FILE = "<visible test>"
MOST_MISSED = 3


@dataclass
class Truth:
    """What the oracle found for one exercise."""

    hints: dict[int, str] = field(default_factory=dict)  # hidden case number -> hint
    hidden: dict[int, set[str]] = field(default_factory=dict)  # case number -> who failed it
    visible: dict[str, set[str]] = field(default_factory=dict)  # situation -> who failed it
    judged: dict[str, set[str]] = field(default_factory=dict)  # test -> who was judged
    unjudged: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (test, why)
    slips: dict[str, set[str]] = field(default_factory=dict)  # kind of slip -> who
    answers: dict[str, str] = field(default_factory=dict)  # student -> answer cell


class Discard(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def guarded_builtins() -> dict:
    """Builtins whose import refuses the module the sandbox hides."""
    real = builtins.__import__

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        wanted = [name, *(f"{name}.{item}" for item in fromlist or ())]
        if any(w == HIDDEN_MODULE or w.startswith(f"{HIDDEN_MODULE}.") for w in wanted):
            raise ImportError(f"{HIDDEN_MODULE} is hidden while the exercises are graded")
        return real(name, globals, locals, fromlist, level)

    return {**vars(builtins), "__import__": guarded}


def run_cell(source: str, namespace: dict, filename: str = "<answer>") -> BaseException | None:
    """Run one cell as a kernel would: an error stops only that cell."""
    try:
        with contextlib.redirect_stdout(Discard()), contextlib.redirect_stderr(Discard()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 -- the class's code
    except BaseException as error:  # noqa: BLE001 -- SyntaxError and SystemExit too
        return error
    return None


def agrees(actual: object, expected: object, tolerance: float) -> bool:
    """Whether ``actual`` is ``expected``: a tuple value by value, else the same shape and
    |actual - expected| <= tolerance * (1 + |expected|) everywhere (np.allclose)."""
    if isinstance(expected, tuple):
        return (isinstance(actual, tuple | list) and len(actual) == len(expected)
                and all(agrees(a, e, tolerance) for a, e in zip(actual, expected, strict=True)))
    try:
        got = np.asarray(actual, dtype=float)
    except (TypeError, ValueError):
        return False
    want = np.asarray(expected, dtype=float)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=tolerance,
                                                        atol=tolerance))


def slip_of(answer: object, expected: object) -> str:
    """The kind of a wrong answer, in words the checker's slip contains."""
    if isinstance(answer, BaseException):
        return f"raised {type(answer).__name__}"
    if isinstance(expected, tuple):
        if not isinstance(answer, tuple | list) or len(answer) != len(expected):
            return f"should return {len(expected)} values"
        return next(slip_of(a, e) for a, e in zip(answer, expected, strict=True)
                    if not agrees(a, e, 1e-8))
    if answer is None:
        return "is None"
    try:
        np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return "should be a number"
    return "gives a wrong answer"


def visible_outcome(source: str, namespace: dict) -> tuple[list[tuple[str, bool]], str]:
    """((situation, failed) per check, or why nothing was judged) of a visible test: each
    assert_close records whether its value agrees; the cell's first error stops it."""
    checks: list[tuple[str, bool]] = []

    def assert_close(actual, expected, what, *, tolerance=1e-9):
        checks.append((what, not agrees(actual, expected, tolerance)))

    namespace["assert_close"] = assert_close
    error = run_cell(source, namespace, VISIBLE_FILE)
    if error is None:
        return checks, ""
    if isinstance(error, NotImplementedError):
        return [], outcomes.NOT_ANSWERED
    if isinstance(error, NameError):
        return [], outcomes.NOT_DEFINED
    raised_here = traceback.extract_tb(error.__traceback__)[-1].filename == VISIBLE_FILE
    if isinstance(error, AssertionError) and raised_here:  # the test's own message
        return [(str(error), True)], ""
    return [(f"the test raised {type(error).__name__}", True)], ""


def hidden_outcome(key: str, student: str, namespace: dict, root: Path) -> tuple[list, str]:
    """(hint, slip or "") per case of a hidden test on the student's own inputs, or why
    nothing was judged."""
    with variant(secret.variant(secret.load(root / "grader" / "course_secret"), ASSIGNMENT,
                                key, student)):
        check = load_check(key)
    assert check.judge is None  # 01's answers are unique: compared by value
    function = namespace.get(check.function)
    if not callable(function):
        return [], outcomes.NOT_DEFINED
    found = []
    for case in check.cases:
        want = check.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
        try:
            with contextlib.redirect_stdout(Discard()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                answer = function(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
        except Exception as error:  # noqa: BLE001 -- the student's error is their answer
            answer = error
        found.append((case.hint, answer, want, check.tolerance))
    if all(isinstance(answer, NotImplementedError) for _, answer, _, _ in found):
        return [], outcomes.NOT_ANSWERED
    return [(hint, "" if not isinstance(answer, BaseException) and agrees(answer, want, tol)
             else slip_of(answer, want)) for hint, answer, want, tol in found], ""


def answer_cell(nb: NotebookNode, function: str) -> str | None:
    """The student's cell that defines ``function`` (metadata or not), if any."""
    return next((c.source for c in nb.cells if c.cell_type == "code"
                 and f"def {function}(" in c.source), None)


def note(truth: Truth, test: str, student: str, outcome: tuple[list, str]) -> None:
    cases, why = outcome
    if why:
        truth.unjudged.setdefault((test, why), set()).add(student)
        return
    truth.judged.setdefault(test, set()).add(student)
    for number, (situation, failed) in enumerate(cases, start=1):
        if test == "hidden":
            truth.hints[number] = situation
            truth.hidden.setdefault(number, set())
            if failed:
                truth.hidden[number].add(student)
                truth.slips.setdefault(failed, set()).add(student)
        else:
            truth.visible.setdefault(situation, set())
            if failed:
                truth.visible[situation].add(student)


@pytest.fixture(scope="module")
def truth(graded: GradedClass) -> dict[str, Truth]:
    found = {ex: Truth() for ex in EXERCISES}
    setup = cell(RELEASE, "setup").source
    for student in CLASS:
        name, nb = student.name, graded.submitted[student.name]
        namespace = {"__builtins__": guarded_builtins()}
        assert run_cell(setup, namespace) is None
        namespace["np"] = types.SimpleNamespace(**vars(np))  # a patch stays in this namespace
        stopped = False
        for ex in EXERCISES:
            stopped = stopped or KERNEL_STOPPED_AT.get(name) == ex
            tests = {kind: cell(SOLUTION, gid).source for kind, gid in checks_of(ex).items()}
            if stopped:
                for test in tests:
                    found[ex].unjudged.setdefault((test, outcomes.NOT_RUN), set()).add(name)
                continue
            source = answer_cell(nb, FUNCTIONS[ex])
            if source is not None:
                found[ex].answers[name] = source
                run_cell(RUN_INSTEAD.get(name, {}).get(ex, source), namespace)
            note(found[ex], "visible", name, visible_outcome(tests["visible"], namespace))
            key = re.search(r'hidden_test\("([\w.]+)"', tests["hidden"]).group(1)
            note(found[ex], "hidden", name,
                 ([], outcomes.NOT_RUN) if HIDDEN_TIMED_OUT.get(name) == ex
                 else hidden_outcome(key, name, namespace, graded.root))
    return found


def report_json(graded: GradedClass) -> dict:
    return json.loads((graded.root / "grader" / "exports" /
                       f"report-{ASSIGNMENT}.json").read_text())


def test_what_the_class_got_wrong_matches_an_independent_count(
        graded: GradedClass, truth: dict[str, Truth]) -> None:
    data = report_json(graded)["misses"]
    assert data["students"] == len(CLASS)
    assert [ex["exercise"] for ex in data["exercises"]] == [f"{ASSIGNMENT}/{e}" for e in EXERCISES]
    for ex, counted in zip(EXERCISES, data["exercises"], strict=True):
        want = truth[ex]
        judged = {test: len(who) for test, who in want.judged.items()}
        assert {(r["case"], r["situation"], r["failed"], r["judged"]) for r in counted["hidden"]} \
            == {(f"H{n}", want.hints[n], len(who), judged["hidden"])
                for n, who in want.hidden.items()}, ex
        assert {(r["situation"], r["failed"], r["judged"]) for r in counted["visible"]} == {
            (situation, len(who), judged["visible"]) for situation, who in want.visible.items()}, ex
        for test in ("hidden", "visible"):  # the most failed first
            failed = [r["failed"] for r in counted[test]]
            assert failed == sorted(failed, reverse=True)
        assert {(u["test"], u["reason"], u["students"]) for u in counted["unjudged"]} == {
            (test, why, len(who)) for (test, why), who in want.unjudged.items()}, ex
        slips = {}
        for slip in counted["slips"]:
            (kind,) = [kind for kind in want.slips if kind in slip["slip"]]  # exactly one
            slips[kind] = slip["students"]
        assert slips == {kind: len(who) for kind, who in want.slips.items()}, ex
    # the visible checks this class is known to fail, from its definition above
    update = truth["update_rule"].visible
    assert update["return a new array, not w itself"] == {"uma", "bo", "dee", "max"}
    assert update["w after e (no mistake)"] == {"pam", "eli"}
    assert "ivy" in truth["bound"].visible[
        "mistake_bound should raise a ValueError when w_star does not separate"]


def mistakes_of(truth: dict[str, Truth]) -> dict[tuple[str, frozenset], set[str]]:
    """(exercise, the checks a student failed) -> the students who failed exactly those: a
    hidden case by its code ("H3"), a visible check by its situation."""
    found: dict[tuple[str, frozenset], set[str]] = {}
    for ex in EXERCISES:
        failed: dict[str, set[tuple[str, str]]] = collections.defaultdict(set)
        for number, who in truth[ex].hidden.items():
            for student in who:
                failed[student].add(("hidden", f"H{number}"))
        for situation, who in truth[ex].visible.items():
            for student in who:
                failed[student].add(("visible", situation))
        for student, checks in failed.items():
            found.setdefault((f"{ASSIGNMENT}/{ex}", frozenset(checks)), set()).add(student)
    return found


def test_the_most_missed_mistakes_show_the_answers_most_of_their_students_wrote(
        graded: GradedClass, truth: dict[str, Truth]) -> None:
    """A mistake is the set of an exercise's checks a student failed (issue 34: one student's
    bug was listed once per case it failed)."""
    mistakes = mistakes_of(truth)
    most = sorted((len(who) for who in mistakes.values()), reverse=True)[:MOST_MISSED]
    top = report_json(graded)["misses"]["most_missed"]
    assert [t["students"] for t in top] == most
    for mistake in top:
        checks = frozenset((c["test"], c["case"] if c["test"] == "hidden" else c["situation"])
                           for c in mistake["cases"])
        who = mistakes[(mistake["exercise"], checks)]
        assert mistake["students"] == len(who)
        answers = truth[mistake["exercise"].split("/")[1]].answers
        written = collections.Counter(answers[s].strip() for s in who)
        ranked = sorted(written.items(), key=lambda item: (-item[1], len(item[0])))
        assert [(e["answer"], e["cut"], e["students"]) for e in mistake["examples"]] == [
            (answer, 0, n) for answer, n in ranked[:2]]


def misses_html(html: str) -> str:
    return html.split('<section id="misses">', 1)[1].split("</section>", 1)[0]


def test_the_report_page_shows_what_its_json_says(graded: GradedClass) -> None:
    data, page = report_json(graded), misses_html(graded.report())
    for ex in data["misses"]["exercises"]:
        # up to the next exercise's (its tables sit in scroll boxes, <div>s of their own)
        part = page.split(f'data-exercise="{ex["exercise"]}">', 1)[1].split("data-exercise=")[0]
        tables = dict(re.findall(r"<caption>(.*?)</caption>(.*?)</table>", part, re.S))
        rows = {caption: [[html_text(td) for td in re.findall(r"<td>(.*?)</td>", row, re.S)]
                          for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)[1:]]
                for caption, body in tables.items()}
        for caption, test in (("Hidden cases", "hidden"), ("Visible checks", "visible")):
            assert rows[caption] == [[r["case"], r["situation"], str(r["failed"]),
                                      str(r["judged"])] for r in ex[test]]
        assert rows["Slips"] == [[s["slip"], str(s["students"])] for s in ex["slips"]]
    shown = re.findall(r'<li data-case="([^"]*)">(.*?)</li>', page, re.S)
    assert [case for case, _ in shown] == [
        f"{t['exercise']} {', '.join(c['case'] for c in t['cases'])}"
        for t in data["misses"]["most_missed"]]
    for (_, item), mistake in zip(shown, data["misses"]["most_missed"], strict=True):
        assert f"{mistake['students']} of {mistake['judged']} students" in html_text(item)
        codes = [html_text(c) for c in re.findall(r"<code>(.*?)</code>", item, re.S)]
        assert codes == [e["answer"] for e in mistake["examples"]]
    # what a student wrote is text: the markup in uma's comment is escaped, nothing else
    assert TAG not in page and html_module.escape(TAG) in page
    flags = [(g["student"], len(g["findings"])) for g in data["flagged"]]
    assert flags == [(student, int(re.search(r"(\d+) findings?", summary)[1]))
                     for student, summary, _ in flagged_entries(graded.report())]
    alt = html_module.unescape(re.search(r'<img alt="([^"]*)"', page)[1])
    rows = [r for ex in data["misses"]["exercises"] for test in ("hidden", "visible")
            for r in ex[test]]
    worst = max(r["failed"] / max(r["judged"], 1) for r in rows)
    assert any(f"({r['situation']}) {r['failed']} of {r['judged']}" in alt for r in rows
               if r["failed"] / max(r["judged"], 1) == worst)  # the alt names the worst check


WRITTEN_UNANSWERED = ("dan", "rae", "sam")  # the release's text or no notebook: scored 0 by
# nbgrader itself, so no hand grade is waiting


def waiting(html: str) -> int:
    return int(re.search(r'<span id="waiting">(\d+) answers? still\s+waits?', html)[1])


def test_the_report_counts_hand_grades_and_says_so(graded: GradedClass, tmp_path: Path) -> None:
    html = graded.report()
    assert "Autograded scores only" not in html
    assert waiting(html) == len(CLASS) - len(WRITTEN_UNANSWERED)
    root = tmp_path / "course"
    shutil.copytree(graded.root, root, symlinks=True)
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        grade = gb.find_grade(WRITTEN, NOTEBOOK, ASSIGNMENT, "ada")
        grade.manual_score, grade.needs_manual_grade = 1.5, False  # as the formgrader saves it
        gb.db.commit()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--course-root", str(root), "report", ASSIGNMENT]) == 0
    html = (root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    assert waiting(html) == len(CLASS) - len(WRITTEN_UNANSWERED) - 1
    part = html.split('<section id="students">', 1)[1]
    header = [html_text(th) for th in re.findall(r"<th[^>]*>(.*?)</th>", part.split("</tr>")[0])]
    ada = next(row for row in report_rows(html, "students") if row[0] == "ada")
    assert ada[header.index(f"{ASSIGNMENT}/{WRITTEN}")] == "1.5"
    assert ada[-1] == f"{sum(expected_scores(STUDENTS['ada']).values()) + 1.5:g}"


def test_the_report_renders_in_chromium_with_its_plot(
        graded: GradedClass, tmp_path: Path) -> None:
    page_file = graded.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html"
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=require_chromium(), headless=True,
            args=CHROMIUM_ARGS)
        try:
            page = context.new_page()
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(page_file.as_uri())
            page.wait_for_load_state("load")
            plot = page.locator("#misses img")
            assert plot.count() == 1
            assert page.evaluate("img => img.complete && img.naturalWidth", plot.element_handle()) \
                > 300
            assert page.evaluate("() => [...document.images].every(i => i.complete && "
                                 "i.naturalWidth > 0)")
            assert "Most failed" in plot.get_attribute("alt")
            # uma's markup is shown as she wrote it, and made no element
            assert TAG in page.inner_text("#misses ol")
            assert page.locator("#misses script, #misses ol code *").count() == 0
            # flags: one collapsed entry per student, opened from the keyboard
            entry = page.locator("#flagged details").first
            assert not entry.locator("table").is_visible()
            entry.locator("summary").focus()
            page.keyboard.press("Enter")
            assert entry.locator("table").is_visible()
            assert [url for url in requests if not url.startswith("data:")] == \
                [page_file.as_uri()]
        finally:
            context.close()


def hint_feedback(root: Path) -> Path:
    """The first feedback page (by student) with the verdict the issue found cut off: a hidden
    test that fails because the answer it calls fails its own."""
    pages = sorted((root / "grader" / "feedback").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.html"))
    found = [p for p in pages if "which fails its own hidden test: fix that first" in
             html_text(p.read_text())]
    assert found, "no feedback carries the 'fix that first' verdict"
    return found[0]


def test_report_similarity_and_feedback_meet_wcag_aa_and_reflow(
        graded: GradedClass, tmp_path: Path) -> None:
    """Issue 26: the report, the similarity report and the feedback with the long verdict pass
    axe-core's WCAG 2.0/2.1 A and AA rules at 1280 and 320 px, every picture says what it shows,
    and nothing is cut off or wider than the screen (tests/axe_support.py)."""
    similarity = tmp_path / "similarity.html"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--course-root", str(graded.root), "similarity", ASSIGNMENT,
                     "--out", str(similarity)]) == 0
    pages = [graded.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html", similarity,
             hint_feedback(graded.root)]
    with chromium_page(tmp_path / "profile") as page:
        found = {path.name: problems(page, path.as_uri()) for path in pages}
    assert found == dict.fromkeys(found, []), "\n".join(
        f"{name}:\n" + "\n".join(lines) for name, lines in found.items() if lines)


def validate(root: Path, notebooks: dict[str, Path]) -> dict[str, tuple[int, str]]:
    """Run ``course validate`` on each notebook concurrently: name -> (exit status, stdout)."""
    procs = {
        name: subprocess.Popen([str(COURSE), "--course-root", str(root), "validate", str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for name, path in notebooks.items()
    }
    return {name: (proc.communicate(timeout=300)[0], proc.returncode)[::-1]
            for name, proc in procs.items()}


def verdicts(out: str) -> dict[str, str]:
    """Exercise -> PASS, FAIL, or ANSWERED/UNANSWERED (a written answer), from
    ``course validate``."""
    return {name: verdict for verdict, name in
            re.findall(r"^(PASS|FAIL|ANSWERED|UNANSWERED) (\w+)", out, re.M)}


def test_validate_passes_or_fails_each_exercise(graded: GradedClass) -> None:
    submitted = graded.root / "grader" / "submitted"
    notebooks = {"solution": graded.root / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
                 "release": graded.root / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"}
    notebooks |= {name: submitted / name / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
                  for name in ("pam", "eve", "zed", "dan")}
    results = validate(graded.root, notebooks)
    everything = dict.fromkeys(EXERCISES, "PASS") | {WRITTEN: "ANSWERED"}
    expected = {
        "solution": (0, everything),
        # nothing answered yet: the written answer is neither a pass nor a failed test
        "release": (1, dict.fromkeys(EXERCISES, "FAIL") | {WRITTEN: "UNANSWERED"}),
        "pam": (1, everything | {"update_rule": "FAIL"}),
        "eve": (0, everything),  # warnings on stderr cost nothing
        "zed": (1, everything | {"bound": "FAIL", "winnow": "FAIL"}),  # the kernel died
        "dan": (1, everything | {WRITTEN: "UNANSWERED"}),  # every test passes; still blank
    }
    for name, (code, per_exercise) in expected.items():
        out = results[name][1]
        assert results[name][0] == code, out
        assert verdicts(out) == per_exercise, out
    # The written answer is counted apart from the autograded exercises, and a blank answer's
    # visible test says why it fails (nbgrader's own stub raised with an empty message).
    assert "5 of 5 autograded exercises pass; 1 of 1 written answers answered" in \
        results["solution"][1]
    assert "0 of 5 autograded exercises pass; 0 of 1 written answers answered" in \
        results["release"][1]
    assert re.search(r"^FAIL update_rule: .*NotImplementedError: not answered yet$",
                     results["release"][1], re.M), results["release"][1]
    assert re.search(r"^INCOMPLETE .*: 5 of 5 autograded exercises pass; 0 of 1 written",
                     results["dan"][1], re.M), results["dan"][1]


def test_the_validate_button_config_ignores_stderr(
    graded: GradedClass, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JupyterLab's Validate button runs nbgrader's Validator with the config its server
    extension finds on JUPYTER_CONFIG_PATH (``make lab`` points it at grader/). With the course
    config eve's warnings are harmless; with nbgrader's defaults (#1904) they fail her."""
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(graded.root / "grader"))
    config = ValidateAssignmentHandler.load_config(None)  # the handler's own code; no self used
    assert config.CourseDirectory.root == str(graded.root)
    eve = str(graded.root / "grader" / "submitted" / "eve" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    assert Validator(config=config).validate(eve) == {}
    assert "failed" in Validator(config=Config()).validate(eve)


# --- the static scan and collect, without grading -------------------------------------------

SCAN_CASES = {  # code added to an answer -> the reason the scan must give
    "get_ipython().input_transformers_post.append(lambda lines: [])":
        "reaches into the interpreter (get_ipython)",
    "import sys\nsys.modules['mllib.grading'].assert_close = print":
        "reaches into the interpreter (sys.modules)",
    "import mllib.grading as g\ng.check_cases = lambda *a, **k: None":
        "monkeypatches g.check_cases",
    "setattr(np, 'max', min)": "monkeypatches np with setattr",
    "exec('np.max = min')": "runs code built at run time (exec)",
    "!kill -9 $PPID": "runs a shell command",
    "def assert_close(*args, **kwargs):\n    pass": "redefines assert_close, which the tests use",
    "X_spam[0] = 0": "modifies X_spam, which the tests use",
    "raise SystemExit": "can stop the kernel",
}


@pytest.mark.parametrize("code", SCAN_CASES)
def test_scan_flags_what_the_kernel_cannot_prevent(code: str) -> None:
    nb = solved(update_rule=f"{answer_text('update_rule')}\n{code}")
    reasons = [f.reason for f in scan(nb, RELEASE, SOLUTION) if f.cell == "update_rule"]
    assert any(SCAN_CASES[code] in reason for reason in reasons), reasons


@pytest.mark.parametrize("student", [s for s in CLASS if not s.flags or s.name == "fay"],
                         ids=lambda s: s.name)
def test_scan_leaves_ordinary_answers_alone(student: Student) -> None:
    """Right, wrong, looping or printing: nothing to flag in the code (fay's flood of output
    is flagged from the graded notebook, not from her code)."""
    assert scan(student.build(), RELEASE, SOLUTION) == []


def test_collect_from_a_folder_of_student_folders(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    for name in ("amy", "bob"):
        (tmp_path / name).mkdir()
        nbformat.write(solved(), tmp_path / name / f"{NOTEBOOK}.ipynb")
    (tmp_path / "bob" / "notes.txt").write_text("not a notebook")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--course-root", str(root), "collect", ASSIGNMENT, str(tmp_path)]) == 0
    submitted = root / "grader" / "submitted"
    # timestamp.txt: a folder's file time is its submission time (see grader/pipeline/late.py).
    assert sorted(p.relative_to(submitted).as_posix() for p in submitted.rglob("*.*")) == [
        f"{name}/{ASSIGNMENT}/{file}" for name in ("amy", "bob")
        for file in (f"{NOTEBOOK}.ipynb", "timestamp.txt")]
