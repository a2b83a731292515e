"""``course autograde --cluster`` on a real Dask cluster, and gradebook URLs.

The lost-worker test starts a Dask scheduler and two workers with Dask's own command-line
tools (``dask scheduler``, ``dask worker``, each worker under a nanny that restarts it), grades
four students of lecture 01 with ``course autograde --cluster tcp://...``, and kills workers by
pid while they grade: one student's worker once (the task is given to another worker and no
grade is lost), another student's every time (the scheduler gives up after
``allowed-failures`` and the student is reported, not retried forever). The class test
(``tests/test_grading_class.py``) checks that a ``LocalCluster`` gives every cell of the
30-student class the score of the local pool, and that a PostgreSQL gradebook exports the same
CSV as SQLite.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import nbformat
import psutil
import pytest
from nbgrader.api import Gradebook
from test_grading_class import ASSIGNMENT, NOTEBOOK, RELEASE, SOLUTION, answer_text, solved

from grader.cli import main
from grader.core.api import gradebook_url, load_config
from grader.dispatch.cluster import Graded, ReplayExecution, _record, connect, library_fingerprint
from grader.dispatch.parallel import Outcome

BIN = Path(sys.executable).parent
SLOW = "import time\ntime.sleep(5)  # keeps the kernel busy while the test kills its worker\n"
ALLOWED_FAILURES = 1  # the scheduler gives a task to another worker once after its worker died


def submission(student: str) -> nbformat.NotebookNode:
    if student == "bob":
        return RELEASE
    if student in ("kim", "rex"):
        return solved(update_rule=SLOW + answer_text("update_rule"))
    return solved()


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def is_grading(pid: int) -> bool:
    """Whether the worker process ``pid`` runs a sandboxed kernel right now."""
    try:
        return any(child.name() == "bwrap" for child in psutil.Process(pid).children(True))
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def course(copy_course: Callable[..., Path]) -> Path:
    root = copy_course("solutions", "notebooks")
    for student in ("ada", "bob", "kim", "rex"):
        folder = root / "grader" / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(submission(student), folder / f"{NOTEBOOK}.ipynb")
    return root


def test_a_worker_killed_while_grading_loses_no_grade(course: Path, tmp_path: Path) -> None:
    from distributed import Client

    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(ALLOWED_FAILURES),
           # a worker holds only the task it runs, so the test knows whom it kills
           "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}
    address_file = tmp_path / "scheduler.json"
    scheduler = start([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--no-dashboard", "--scheduler-file", str(address_file)], env,
                      tmp_path / "scheduler.log")
    workers, grading = [], None
    try:
        with Client(scheduler_file=str(address_file), timeout=60) as watcher:
            workers = [start([str(BIN / "dask"), "worker", "--scheduler-file",
                              str(address_file), "--nthreads", "1", "--no-dashboard"], env,
                             tmp_path / f"worker{n}.log") for n in range(2)]
            watcher.wait_for_workers(2, timeout=120)
            grading = subprocess.Popen(
                [str(BIN / "course"), "--course-root", str(course), "autograde", ASSIGNMENT,
                 "--cluster", watcher.scheduler.address],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            kills: Counter[str] = Counter()
            pids: dict[str, int] = {}  # worker address -> pid (a restarted worker has a new one)
            while grading.poll() is None:
                for worker, keys in watcher.processing().items():
                    for student in ("kim", "rex"):
                        wanted = 1 if student == "kim" else ALLOWED_FAILURES + 1
                        if kills[student] >= wanted or not any(f"-{student}-" in str(key)
                                                               for key in keys):
                            continue
                        if worker not in pids:
                            pids |= watcher.run(os.getpid, workers=[worker], on_error="ignore")
                        if worker in pids and is_grading(pids[worker]):
                            os.kill(pids[worker], signal.SIGKILL)
                            kills[student] += 1
                time.sleep(0.2)
            out, err = grading.communicate()
    finally:
        if grading is not None and grading.poll() is None:
            grading.kill()
        for proc in [*workers, scheduler]:
            stop(proc)
    assert kills == {"kim": 1, "rex": ALLOWED_FAILURES + 1}, (out, err)
    assert grading.returncode == 1, err
    assert "FAILED autograde 01_perceptron for rex" in err
    assert "killed a worker each time it was tried" in err
    url = load_config(course).CourseDirectory.db_url
    with Gradebook(url) as gb:
        scores = {s.student.id: s.score for s in gb.find_assignment(ASSIGNMENT).submissions}
        full = gb.find_assignment(ASSIGNMENT).max_score
    written = sum(c.metadata["nbgrader"]["points"] for c in SOLUTION.cells
                  if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade"))
    # Scores are sums of points (integers): exact in floating point.
    assert scores == {"ada": full - written, "bob": 0.0, "kim": full - written}, out


def test_the_recorder_refuses_a_worker_with_other_library_code(tmp_path: Path) -> None:
    graded = Graded(Outcome("ada", True, 15, 17), {}, "0" * 64, "node7")
    outcome = _record(None, ASSIGNMENT, graded, tmp_path / "ada", library_fingerprint())
    assert not outcome.success
    assert "node7" in outcome.error and "another version" in outcome.error


def test_replay_refuses_outputs_of_other_cells(tmp_path: Path) -> None:
    executed = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    executed.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nbformat.write(executed, tmp_path / f"{NOTEBOOK}.ipynb")
    replay = ReplayExecution(executed_directory=str(tmp_path))
    resources = {"nbgrader": {"notebook": NOTEBOOK}}
    same = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    assert replay.preprocess(same, resources)[0].cells[0].outputs[0].text == "1\n"
    other = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(2)")])
    with pytest.raises(ValueError, match="other cells than this gradebook holds"):
        replay.preprocess(other, resources)


@pytest.mark.parametrize("address", ["local:0", "local:two", "local:"])
def test_a_local_cluster_needs_a_positive_number_of_workers(address: str) -> None:
    with pytest.raises(ValueError, match="expected local:N with N >= 1"), connect(address):
        pass


def test_the_command_names_a_bad_cluster_address(copy_course: Callable[..., Path]) -> None:
    root = copy_course("solutions", "notebooks")
    (root / "grader" / "submitted" / "ada" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(solved(), root / "grader" / "submitted" / "ada" / ASSIGNMENT /
                   f"{NOTEBOOK}.ipynb")
    with pytest.raises(SystemExit, match="--cluster local:0: expected local:N with N >= 1"), \
            contextlib.redirect_stdout(io.StringIO()):
        main(["--course-root", str(root), "autograde", ASSIGNMENT, "--cluster", "local:0"])


def test_an_unreachable_scheduler_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grader.dispatch.cluster.CONNECT_TIMEOUT", 2)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(SystemExit, match=f"cannot reach the Dask scheduler at {address}"), \
            connect(address):
        pass


def test_a_scheduler_without_workers_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import LocalCluster

    monkeypatch.setattr("grader.dispatch.cluster.CONNECT_TIMEOUT", 2)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty, \
            pytest.raises(SystemExit, match="no Dask worker has joined the scheduler at"), \
            connect(empty.scheduler_address):
        pass


def test_postgresql_urls_use_psycopg_3() -> None:
    assert gradebook_url("postgresql://grader@db/ml") == "postgresql+psycopg://grader@db/ml"
    assert gradebook_url("postgres://grader@db/ml") == "postgresql+psycopg://grader@db/ml"
    assert gradebook_url("sqlite:///gradebook.db") == "sqlite:///gradebook.db"
    assert gradebook_url("postgresql+psycopg2://x/y") == "postgresql+psycopg2://x/y"


def test_course_db_url_reaches_every_nbgrader_entry_point(
    copy_course: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The formgrader, the lab extension and plain ``nbgrader`` read the course config, so
    COURSE_DB_URL in their environment gives them the same gradebook as ``course --db-url``."""
    root = copy_course()
    default = load_config(root).CourseDirectory.db_url
    assert default == "sqlite:///" + str(root / "grader" / "gradebook.db")
    monkeypatch.setenv("COURSE_DB_URL", "postgresql://grader@db.example/ml_course")
    assert (load_config(root).CourseDirectory.db_url
            == "postgresql+psycopg://grader@db.example/ml_course")
