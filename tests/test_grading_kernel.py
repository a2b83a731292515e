"""What a kernel sends the grader, and what a notebook may cost, bounded (issue #19, 5-8).

Unit tests feed :class:`grader.preprocessors.GradingExecute` and the grader's kernel client
fake messages. Then one real ``course autograde`` (sandbox on) grades a small class whose
attackers submit ``bas``'s notebook (every exercise right but the update rule, which returns
``w``) plus one attack each: 100 MB sent raw through the kernel's own session, a 100k-deep
JSON message, malformed messages, 100 added cells printing 0.95 MB each, 20 added cells
sleeping 2 s, start-up files that would shadow the kernel guard, and an answer whose
exception carries the hidden inputs.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from test_grading import html_text  # tests/ is on sys.path under pytest
from test_grading_class import (
    ASSIGNMENT,
    NOTEBOOK,
    RETURN_W,
    WRITTEN,
    answer_text,
    cell,
    points,
    report_rows,
    snapshot,
    solved,
)

from grader.cli import main
from grader.kernel_client import well_formed
from grader.preprocessors import OVER_BUDGET, GradingExecute, run_problems
from grader.sandbox import unavailable_reason
from mllib.grading import load_check

# --- unit: messages and budgets ---------------------------------------------------------

GOOD = {"header": {"msg_id": "1", "msg_type": "stream"}, "parent_header": {"msg_id": "0"},
        "metadata": {}, "msg_type": "stream", "content": {"name": "stdout", "text": "hi"}}


@pytest.mark.parametrize("change", [
    {"content": "not a dict"},
    {"content": {"name": "stdout"}},
    {"content": {"name": "stdout", "text": 5}},
    {"msg_type": "display_data", "content": {"data": 5, "metadata": {}}},
    {"msg_type": "display_data", "content": {"data": {"text/plain": [1]}, "metadata": {}}},
    {"msg_type": "error", "content": {"ename": "E", "evalue": "v", "traceback": [1]}},
    {"header": None},
    {"header": {"msg_id": "1"}},
    {"parent_header": {"msg_id": 3}},
])
def test_malformed_messages_are_refused(change: dict) -> None:
    assert well_formed(GOOD)
    assert well_formed({**GOOD, "msg_type": "display_data",
                        "header": {"msg_id": "1", "msg_type": "display_data"},
                        "content": {"data": {"application/json": {"a": 1}}}})
    assert not well_formed({**GOOD, **change})


def stream(text: str) -> dict:
    return {**GOOD, "content": {"name": "stdout", "text": text}}


def test_the_notebook_output_budget_stops_keeping_output() -> None:
    execute = GradingExecute(max_output_bytes=100, notebook_output_bytes=250)
    execute.reset_execution_trackers()
    execute.clear_before_next_output = False  # nbclient sets it when a cell starts
    outs: list = []
    for index in range(3):
        execute.output(outs, stream("x" * 90), None, index)
    assert sum(len(o.text) for o in outs) == 180  # the third would pass 250 in all
    execute.output(outs, {**GOOD, "msg_type": "error", "content": {
        "ename": "ValueError", "evalue": "y" * 5000, "traceback": []}}, None, 3)
    assert outs[-1].ename == "ValueError" and len(outs[-1].evalue) == 1000
    assert execute._over_budget and "250 characters" in execute._over_budget


def test_the_time_budget_shortens_a_cells_timeout() -> None:
    execute = GradingExecute(timeout=30, notebook_timeout=100)
    execute.reset_execution_trackers()
    assert execute._get_timeout(None) == 30
    execute._seconds = 88.5
    assert execute._get_timeout(None) == 12
    execute._seconds = 100
    assert execute._get_timeout(None) == 1


def test_run_problems_reports_a_budget_stop() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename=OVER_BUDGET,
                                                  evalue="ran too long", traceback=[])]
    assert run_problems(nb) == [("cell 1: ran too long", True)]


# --- a real class ----------------------------------------------------------------------

SEND = "_k = get_ipython().kernel\n"
ATTACKS = {
    "big": SEND + "_k.session.send(_k.iopub_socket, 'stream', {'name': 'stdout', "
    "'text': 'x' * 100_000_000}, parent=_k.get_parent())\n",
    "deep": SEND + "_k.session.send(_k.iopub_socket, 'display_data', "
    "content=b'[' * 100_000 + b']' * 100_000, parent=_k.get_parent())\n",
    "malformed": SEND + "for _c in [{'data': 5, 'metadata': {}}, {'data': {'text/plain': [1]}}]:\n"
    "    _k.session.send(_k.iopub_socket, 'display_data', _c, parent=_k.get_parent())\n"
    "_k.session.send(_k.iopub_socket, 'stream', content=b'{bad', parent=_k.get_parent())\n",
}
RAISES = """
def perceptron_update(w, x, y, eta):
    raise ValueError(f"my inputs: {np.asarray(x).tolist()}")
"""
SHADOW = "SHADOWED-7f3a"
SHADOW_FILES = {
    "grader/__init__.py": f"print({SHADOW!r})\n",
    "grader/kernel_guard.py": f"def install(limit):\n    print({SHADOW!r})\n",
    "ipykernel_launcher.py": f"print({SHADOW!r})\nraise SystemExit(1)\n",
    "ipython_kernel_config.py": f"c.IPKernelApp.exec_lines = ['print({SHADOW!r})']\n",
    "ipython_config.py": f"c.InteractiveShellApp.exec_lines = ['print({SHADOW!r})']\n",
    "helper.py": answer_text("update_rule"),  # a student's own module still imports
}
PRINTS = "print('a' * 950_000)"
SLEEPS = "import time\ntime.sleep(2)"
NOTEBOOK_TIMEOUT = 30


def with_cells(nb: nbformat.NotebookNode, source: str, count: int) -> nbformat.NotebookNode:
    """``count`` code cells of ``source`` added after the update rule's answer."""
    at = nb.cells.index(cell(nb, "update_rule")) + 1
    nb.cells[at:at] = [nbformat.v4.new_code_cell(source) for _ in range(count)]
    return nb


def notebooks() -> dict[str, nbformat.NotebookNode]:
    base = {"update_rule": RETURN_W, WRITTEN: "My answer."}
    found = {"ada": solved(**{WRITTEN: "My answer."}), "bas": solved(**base)}
    found |= {name: solved(**{**base, "update_rule": RETURN_W + code})
              for name, code in ATTACKS.items()}
    found["prints"] = with_cells(solved(**base), PRINTS, 100)
    found["sleeps"] = with_cells(solved(**base), SLEEPS, 20)
    found["shadow"] = solved(**{WRITTEN: "My answer.", "update_rule": (
        "from helper import perceptron_update\nimport sys\nprint('warn', file=sys.stderr)\n"
        "print('s' * 3_000_000)\n")})
    found["raises"] = solved(**{**base, "update_rule": RAISES})
    return found


@dataclass
class Run:
    root: Path
    codes: dict[str, int]
    err: dict[str, str]
    scores: dict[str, dict[str, float]]

    def autograded(self, student: str) -> Path:
        return self.root / "grader" / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"

    def feedback(self, student: str) -> Path:
        return self.root / "grader" / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"


@pytest.fixture(scope="module")
def graded(copy_course: Callable[..., Path]) -> Run:
    if unavailable_reason():
        pytest.skip(unavailable_reason())
    root = copy_course("solutions", "notebooks")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write("\nc.ExecutePreprocessor.timeout = 5\n"
                     f"c.GradingExecute.notebook_timeout = {NOTEBOOK_TIMEOUT}\n")
    for name, nb in notebooks().items():
        folder = root / "grader" / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    for relative, text in SHADOW_FILES.items():
        path = root / "grader" / "submitted" / "shadow" / ASSIGNMENT / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    run = Run(root, {}, {}, {})
    for step, args in [("autograde", ["autograde", ASSIGNMENT, "--jobs", "2"]),
                       ("feedback", ["feedback", ASSIGNMENT]),
                       ("report", ["report", ASSIGNMENT])]:
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            run.codes[step] = main(["--course-root", str(root), *args])
        run.err[step] = err.getvalue()
    run.scores = snapshot(root)
    return run


def full_marks(test: str) -> float:
    return 0.0 if test == WRITTEN else points(test)


def test_every_student_is_graded_and_honest_students_exactly(graded: Run) -> None:
    assert sorted(graded.scores) == sorted(notebooks())
    assert graded.scores["ada"] == {test: full_marks(test) for test in graded.scores["ada"]}
    assert graded.codes["feedback"] == 0, graded.err["feedback"]


@pytest.mark.parametrize("attacker", [*ATTACKS, "prints", "sleeps", "raises"])
def test_no_attack_gains_credit(graded: Run, attacker: str) -> None:
    base, got = graded.scores["bas"], graded.scores[attacker]
    assert set(got) == set(base)
    assert all(got[test] <= base[test] for test in base), attacker


@pytest.mark.parametrize("attacker", ATTACKS)
def test_raw_messages_cost_nothing_after_their_cell(graded: Run, attacker: str) -> None:
    """Oversized and malformed messages are dropped; the later cells run and score as bas."""
    assert graded.scores[attacker] == graded.scores["bas"]
    assert not run_problems(nbformat.read(graded.autograded(attacker), as_version=4))


def test_budgets_stop_a_notebook_and_the_report_lists_it(graded: Run) -> None:
    assert graded.codes["autograde"] == 1  # did not run to completion
    assert graded.autograded("prints").stat().st_size < 7_000_000
    assert graded.feedback("prints").stat().st_size < 7_000_000
    html = (graded.root / "grader" / "exports" / f"report-{ASSIGNMENT}.html").read_text()
    not_run = dict(report_rows(html, "not-run"))
    assert sorted(not_run) == ["prints", "sleeps"]
    assert "characters in all" in not_run["prints"]
    assert f"more than {NOTEBOOK_TIMEOUT} s in all" in not_run["sleeps"]
    sleeps = nbformat.read(graded.autograded("sleeps"), as_version=4)
    ran = [c for c in sleeps.cells if c.source == SLEEPS
           and not any(o.get("ename") == "NotRun" for o in c.outputs)]
    assert len(ran) <= NOTEBOOK_TIMEOUT // 2 + 1


def test_start_up_files_next_to_the_notebook_are_not_run(graded: Run) -> None:
    """Graded as ada: its helper module imports; the guard held (stderr as stdout, output cap)."""
    assert graded.scores["shadow"] == graded.scores["ada"]
    nb = nbformat.read(graded.autograded("shadow"), as_version=4)
    text = nbformat.writes(nb)
    assert SHADOW not in text
    outputs = cell(nb, "update_rule").outputs
    assert {o.get("name") for o in outputs} == {"stdout"}
    assert "output truncated while grading" in "".join(o.text for o in outputs)


def test_an_exception_does_not_carry_hidden_inputs_into_feedback(graded: Run) -> None:
    """The visible tests show the message (their inputs are public); no hidden x appears."""
    text = html_text(graded.feedback("raises").read_text())
    assert "my inputs: [" in text
    assert "perceptron_update raised ValueError on hidden case 1" in text
    hidden = {str(case.args[1].tolist()) for case in load_check("perceptron.update_rule").cases}
    assert hidden and not [x for x in hidden if x in text]
