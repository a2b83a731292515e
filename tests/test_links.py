"""Links in a submission are never followed: graded with the real ``course`` and the sandbox on.

Every linking student submits ``bas``'s notebook (every exercise right but the update rule:
12 of 15 points) with links added to its submission folder and code that reads them:

* ``sol`` links the instructor's notebook (absolute) and ``solutions/01_perceptron/``
  (relative, a folder), reads the notebook and executes its answer to the update rule;
* ``hrd`` does the same through a hard link to the instructor's notebook;
* ``spy`` links ``/etc/shadow`` (``/etc/passwd`` when not root), the gradebook and a
  classmate's notebook, holds a FIFO, and prints all of them;
* ``nbl`` submits its notebook as a link to the instructor's notebook;
* ``tsp`` submits ``bas``'s notebook with ``timestamp.txt`` (read by nbgrader) a link.

None may score more than ``bas``; nothing linked may reach a feedback file or an autograded
folder; the report lists every link with its kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from test_grading_class import (  # tests/ is on sys.path under pytest
    ASSIGNMENT,
    NOTEBOOK,
    RETURN_W,
    WRITTEN,
    snapshot,
    solved,
)

from grader.cli import main
from grader.core.api import make_api
from grader.dispatch.cluster import submission_files
from grader.kernel.sandbox import SandboxedKernelManager, unavailable_reason

SECRET = Path("/etc/shadow" if os.geteuid() == 0 else "/etc/passwd")
READ_SOLUTION = """
import json
for path in {paths!r}:
    try:
        cells = json.load(open(path))["cells"]
    except (OSError, ValueError) as error:
        print(path, "not readable:", type(error).__name__)
        continue
    for source in cells:
        code = "".join(source["source"])
        if source["cell_type"] == "code" and "def perceptron_update" in code:
            exec(code, globals())
"""
PRINT_FILES = """
for path in ["secret.txt", "gradebook.txt", "classmate.txt", "pipe"]:
    try:
        with open(path, "rb") as linked:
            print(path, linked.read(100_000))
    except OSError as error:
        print(path, "not readable:", type(error).__name__)
"""
ADA_MARK = "written-by-ada-5c1e"


@dataclass
class Run:
    root: Path
    codes: dict[str, int]
    out: dict[str, str]
    scores: dict[str, dict[str, float]]

    def folder(self, kind: str, student: str) -> Path:
        return self.root / "grader" / kind / student / ASSIGNMENT

    def texts(self, student: str) -> str:
        """Everything in the student's autograded and feedback folders, as text."""
        return "\n".join(path.read_bytes().decode("utf-8", "replace")
                         for kind in ("autograded", "feedback")
                         for path in sorted(self.folder(kind, student).rglob("*"))
                         if path.is_file())


def wrong(extra: str = "") -> nbformat.NotebookNode:
    return solved(update_rule=RETURN_W + extra, **{WRITTEN: "My own answer."})


@pytest.fixture(scope="module")
def run(copy_course: Callable[..., Path]) -> Run:
    if unavailable_reason():
        pytest.skip(unavailable_reason())
    root = copy_course("solutions", "notebooks")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write("\nc.ExecutePreprocessor.timeout = 10\n")
    solution = root / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    notebooks = {
        "ada": solved(**{WRITTEN: f"My own answer. {ADA_MARK}"}),
        "bas": wrong(),
        "sol": wrong(READ_SOLUTION.format(paths=["notes.txt", f"answers/{NOTEBOOK}.ipynb"])),
        "hrd": wrong(READ_SOLUTION.format(paths=["notes.txt"])),
        "spy": wrong(PRINT_FILES),
    }
    submitted = root / "grader" / "submitted"
    for name, nb in notebooks.items():
        (submitted / name / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(nb, submitted / name / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    (submitted / "sol" / ASSIGNMENT / "notes.txt").symlink_to(solution)
    (submitted / "sol" / ASSIGNMENT / "answers").symlink_to(
        f"../../../../solutions/{ASSIGNMENT}", target_is_directory=True)
    os.link(solution, submitted / "hrd" / ASSIGNMENT / "notes.txt")
    spy = submitted / "spy" / ASSIGNMENT
    (spy / "secret.txt").symlink_to(SECRET)
    (spy / "gradebook.txt").symlink_to(root / "grader" / "gradebook.db")
    (spy / "classmate.txt").symlink_to(submitted / "ada" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    os.mkfifo(spy / "pipe")
    (submitted / "nbl" / ASSIGNMENT).mkdir(parents=True)
    (submitted / "tsp" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(notebooks["bas"], submitted / "tsp" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    (submitted / "tsp" / ASSIGNMENT / "timestamp.txt").symlink_to(SECRET)
    (submitted / "nbl" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").symlink_to(solution)
    result = Run(root, {}, {}, {})
    for step, args in [("autograde", ["autograde", ASSIGNMENT, "--jobs", "2"]),
                       # the written answers wait for a hand grade: every page is written
                       ("feedback", ["feedback", ASSIGNMENT, "--include-ungraded"]),
                       ("report", ["report", ASSIGNMENT])]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result.codes[step] = main(["--course-root", str(root), *args])
        result.out[step] = out.getvalue()
    result.scores = snapshot(root)
    return result


def total(run: Run, student: str) -> float:
    return sum(run.scores.get(student, {}).values())


def test_a_link_gains_nothing_over_the_same_wrong_submission(run: Run) -> None:
    assert total(run, "ada") == pytest.approx(15)
    assert total(run, "bas") == pytest.approx(12)
    for student in ("sol", "hrd", "spy"):
        assert run.scores[student] == pytest.approx(run.scores["bas"]), student


def test_a_notebook_or_timestamp_that_is_a_link_is_refused_and_the_class_goes_on(
        run: Run) -> None:
    for student in ("nbl", "tsp"):
        assert total(run, student) == 0
        assert not (run.folder("autograded", student) / f"{NOTEBOOK}.ipynb").exists()
    assert (f"{NOTEBOOK}.ipynb: symbolic link to {run.root}/solutions/" in run.out["autograde"]
            and "No submitted notebook is a plain file" in run.out["autograde"])
    assert f"tsp: timestamp.txt is a symbolic link to {SECRET}; not graded" in run.out[
        "autograde"]
    assert run.codes["autograde"] == 1  # the run lists them as not graded
    assert run.codes["feedback"] == run.codes["report"] == 0


def test_nothing_linked_reaches_feedback_or_the_autograded_folder(run: Run) -> None:
    texts = run.texts("spy")
    assert "secret.txt not readable: FileNotFoundError" in texts  # the cell did run
    assert "pipe not readable: FileNotFoundError" in texts  # and did not hang on the FIFO
    secret_line = SECRET.read_text().splitlines()[0]
    for leak in (secret_line, "SQLite format 3", ADA_MARK):
        assert leak not in texts
    for student in ("sol", "hrd", "spy"):
        kept = sorted(p.name for p in run.folder("autograded", student).iterdir())
        assert kept == [f"{NOTEBOOK}.ipynb"], student
        assert "BEGIN SOLUTION" not in run.texts(student)


def test_the_report_lists_every_link_with_its_kind(run: Run) -> None:
    report = (run.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    # One collapsed entry per student; each row: notebook, cells (the links' paths), reason, code.
    rows = {(student, tuple(html.unescape(cells).split(", ")), html.unescape(reason))
            for student, entry in re.findall(r'<details data-student="(\w+)">(.*?)</details>',
                                             report, re.S)
            for cells, reason in re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>",
                                            entry)}
    solution = f"{run.root}/solutions/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
    expected = [("sol", "notes.txt", f"symbolic link to {solution}"),
                ("sol", "answers", f"symbolic link to ../../../../solutions/{ASSIGNMENT}"),
                ("hrd", "notes.txt", "hard link (the file has 2 names)"),
                ("spy", "secret.txt", f"symbolic link to {SECRET}"),
                ("spy", "gradebook.txt", "symbolic link to "),
                ("spy", "classmate.txt", "symbolic link to "),
                ("spy", "pipe", "FIFO (named pipe)"),
                ("nbl", f"{NOTEBOOK}.ipynb", f"symbolic link to {solution}"),
                ("tsp", "timestamp.txt", f"symbolic link to {SECRET}")]
    for student, path, kind in expected:
        assert any(who == student and path in cells
                   and reason.startswith(f"contained a link: skipped ({kind}")
                   for who, cells, reason in rows), (student, path)
    assert not any(who in ("ada", "bas") and "contained a link" in reason
                   for who, _, reason in rows)


def test_plain_nbgrader_autograde_with_the_course_config_follows_no_link(run: Run) -> None:
    """As JupyterLab's menu runs it: ``nbgrader autograde`` from the course root."""
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(run.root / "grader"))
    done = subprocess.run([Path(sys.executable).parent / "nbgrader", "autograde", ASSIGNMENT,
                           "--student", "sol", "--force"], cwd=run.root, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Not copied from sol's submission: notes.txt (symbolic link to" in done.stderr
    assert snapshot(run.root)["sol"] == pytest.approx(run.scores["bas"])
    assert sorted(p.name for p in run.folder("autograded", "sol").iterdir()) == [
        f"{NOTEBOOK}.ipynb"]


def test_the_cluster_payload_holds_only_plain_files(copy_course, tmp_path: Path) -> None:
    root = copy_course()
    folder = root / "grader" / "submitted" / "eve" / ASSIGNMENT
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "data.csv").write_text("1,2\n")
    (folder / f"{NOTEBOOK}.ipynb").symlink_to(root / "grader" / "nbgrader_config.py")
    (folder / "secret.txt").symlink_to(SECRET)
    (folder / "up").symlink_to("..", target_is_directory=True)
    os.link(root / "grader" / "nbgrader_config.py", folder / "config.txt")
    os.mkfifo(folder / "pipe")
    assert submission_files(make_api(root), ASSIGNMENT, "eve") == {"sub/data.csv": b"1,2\n"}


def test_the_sandbox_scratch_copy_holds_only_plain_files(tmp_path: Path) -> None:
    """The kernel's working directory, copied from a folder holding every kind of link."""
    if unavailable_reason():
        pytest.skip(unavailable_reason())
    folder = tmp_path / "submission"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "data.csv").write_text("1,2\n")
    (folder / "secret.txt").symlink_to(SECRET)
    (folder / "etc").symlink_to("/etc", target_is_directory=True)
    (folder / "hard.txt").write_text("two names")
    os.link(folder / "hard.txt", tmp_path / "other-name.txt")
    os.mkfifo(folder / "pipe")
    manager = SandboxedKernelManager(kernel_name="python3", submission_dir=str(folder))

    async def listing() -> list[str]:
        await manager.start_kernel()
        try:
            work = manager._scratch / "work"
            return sorted(p.relative_to(work).as_posix() for p in work.rglob("*"))
        finally:
            await manager.shutdown_kernel(now=True)

    assert asyncio.run(listing()) == ["sub", "sub/data.csv"]
