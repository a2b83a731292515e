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

import contextlib
import copy
import csv
import io
import re
import runpy
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler
from nbgrader.validator import Validator
from postgres_support import new_database, postgres_server  # tests/ is on sys.path
from test_grading import html_text
from traitlets.config import Config

from grader.api import gradebook_url
from grader.cli import main
from grader.hostile import scan
from mllib.grading import load_check

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
    """A wrong update rule, its tests replaced by ``pass`` and the hidden test worth 100."""
    nb = solved(update_rule=RETURN_W)
    for test in checks_of("update_rule").values():
        cell(nb, test).source = "pass"
    meta(cell(nb, "test_update_rule_hidden"))["points"] = 100
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
        return w
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
    # partly right: the visible test passes, the hidden one fails
    Student("gus", lambda: solved(update_rule=UPDATE_ZERO_ONLY_AT_START),
            earns={"update_rule": "visible"}),
    Student("hal", lambda: solved(training_loop=TRAIN_ONE_EPOCH),
            earns={"training_loop": "visible"}),
    # |w·x| also makes a non-separating w_star look separating: bound's visible ValueError check
    # fails on ivy's margin, while bound's hidden cases (separating w_star) still pass.
    Student("ivy", lambda: solved(margin=MARGIN_ABS),
            earns={"margin": "visible", "bound": "hidden"}),
    Student("jon", lambda: solved(bound=BOUND_ROUNDED), earns={"bound": "visible"}),
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
    # hostile, in the order of the table
    Student("uma", edited_tests, earns={"update_rule": "none"},
            flags=("edited a locked cell", "points 100 -> 2")),
    Student("vic", lambda: without("test_update_rule_visible", "test_update_rule_hidden",
                                   "test_training_loop_hidden"),
            flags=("re-inserted from the release",)),
    Student("wes", lambda: strip_metadata(solved()), flags=("metadata missing, restored",)),
    Student("xia", lambda: strip_metadata(solved(), new_ids=True),
            flags=("metadata missing, restored",)),
    Student("yan", lambda: solved(training_loop=TRAIN_UNTIL_SEPARATED),
            earns={"training_loop": "visible"}, not_run="time limit"),
    Student("zed", lambda: solved(bound=answer_text("bound").replace(
        '"""\n', '"""\n    import os\n    os._exit(0)\n', 1)),
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

    def text(self, path: Path) -> str:
        return html_text(path.read_text())


def snapshot(root: Path) -> dict[str, dict[str, float]]:
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        return {s.student.id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
                for s in gb.find_assignment(ASSIGNMENT).submissions}


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
        ("feedback", ["feedback", ASSIGNMENT]),
        ("export", ["export"]),
        ("report", ["report", ASSIGNMENT]),
        ("regrade", ["autograde", ASSIGNMENT, "--cluster", "local:2"]),
    ]
    for step, args in steps:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            run.codes[step] = main(["--course-root", str(root), *args])
        run.out[step], run.err[step] = out.getvalue(), err.getvalue()
        if step in ("autograde", "regrade"):
            run.scores[step] = snapshot(root)
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
                           ("export", ["export", "--out", str(tmp_path / "grades.csv")])]:
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
                       f"{ASSIGNMENT}_score", f"{ASSIGNMENT}_max", "total_score", "total_max"]
    expected = []
    for student in sorted(CLASS, key=lambda s: s.name):
        scores = expected_scores(student)
        per_exercise = [sum(scores[t] for t in checks_of(e).values()) for e in EXERCISES]
        total = f"{sum(per_exercise):g}"
        expected.append([student.name, "", "", *(f"{s:g}" for s in per_exercise), "0",
                         total, f"{maximum:g}", total, f"{maximum:g}"])
    assert rows[1:] == expected


def report_rows(html: str, section: str) -> list[list[str]]:
    """The table rows (cell texts) of one section of the report."""
    part = html.split(f'<section id="{section}">', 1)[1].split("</section>", 1)[0]
    return [[html_text(td) for td in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", part, re.S)[1:]]


def test_report_lists_the_flagged_and_the_unfinished(graded: GradedClass) -> None:
    assert graded.codes["report"] == 0, graded.err["report"]
    html = (graded.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    flagged: dict[str, str] = {}
    for student, _notebook, where, reason, code in report_rows(html, "flagged"):
        flagged[student] = flagged.get(student, "") + f"{where}: {reason}: {code}\n"
    assert sorted(flagged) == sorted(s.name for s in CLASS if s.flags)
    for student in CLASS:
        for reason in student.flags:
            assert reason in flagged[student.name], (student.name, flagged[student.name])
    not_run = {student: line for student, line in report_rows(html, "not-run")}
    assert sorted(not_run) == sorted(s.name for s in CLASS if s.not_run)
    for student in CLASS:
        assert student.not_run in not_run.get(student.name, ""), student.name
    plots = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    # one per exercise, the written answer included, and the similarity section's heat map
    assert len(plots) == len(EXERCISES) + 2
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
    # gus prints his function's inputs: shown for the visible test, not for the hidden one
    assert "debug" in graded.text(graded.root / "grader" / "feedback" / "gus" / ASSIGNMENT /
                                  f"{NOTEBOOK}.html")


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
    assert sorted(p.relative_to(submitted).as_posix() for p in submitted.rglob("*.*")) == [
        f"{name}/{ASSIGNMENT}/{NOTEBOOK}.ipynb" for name in ("amy", "bob")]
