"""Autograde a class in parallel (nbgrader #174: ``nbgrader autograde`` grades one at a time).

Design: N worker processes, each running nbgrader's own ``autograde`` for one student at a
time, all writing to the one SQLite gradebook. A thread per worker hands it student ids over a
pipe and collects the results.

* Workers are forked from a server process that has imported nbgrader once (multiprocessing's
  ``forkserver``), so starting one costs no imports and a student costs one kernel, not a CLI
  start-up.
* SQLite serialises the writers: workers open the gradebook with a 60 s busy timeout and
  retry a student whose run still failed on "database is locked". Autograde with ``--force``
  is idempotent, so a retry (and a regrade) gives the same scores.
* A worker that dies (which the grading kernel's protections should make impossible) costs
  only the student it was grading: that student is retried once in a fresh worker, then
  reported as failed; the class goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from queue import Empty, SimpleQueue

import nbformat

from grader.core.api import make_api
from grader.pipeline.preprocessors import run_problems

DB_BUSY_TIMEOUT = 60  # seconds a worker waits for another one's gradebook write
LOCK_RETRIES = 5
FORKS = multiprocessing.get_context("forkserver")
FORKS.set_forkserver_preload(["grader.dispatch.parallel"])


@dataclass(frozen=True)
class Outcome:
    """The result of autograding one student's submission of one assignment."""

    student: str
    success: bool  # nbgrader graded it and saved the grades
    score: float = 0.0
    max_score: float = 0.0
    problems: tuple[str, ...] = ()  # cells that killed or stuck the kernel, or timed out
    kernel_stopped: bool = False  # the kernel died or hung, so later tests were not run
    error: str = ""  # nbgrader's log or traceback when it failed


def grade_one(api, assignment: str, student: str) -> Outcome:
    """Run nbgrader's autograde for one student, retrying while the gradebook is locked."""
    for attempt in range(LOCK_RETRIES):
        result = api.autograde(assignment, student, force=True, create=True)
        if result["success"] or "database is locked" not in str(result):
            break
        time.sleep(1 + attempt)
    if not result["success"]:
        return Outcome(student, False, error=str(result.get("log") or result.get("error")))
    with api.gradebook as gb:
        submission = gb.find_submission(assignment, student)
        score, max_score = submission.score, submission.max_score
    folder = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student,
                                            assignment))
    found = [(f"{path.stem}: {problem}", stopped) for path in sorted(folder.glob("*.ipynb"))
             for problem, stopped in run_problems(nbformat.read(path, as_version=4))]
    return Outcome(student, True, score, max_score, tuple(text for text, _ in found),
                   any(stopped for _, stopped in found))


def serve(tasks: Connection, course_root: Path, log: Path, sandbox: str, db_url: str) -> None:
    """Worker loop: receive ``(assignment, student)``, send back an :class:`Outcome`.

    ``sandbox`` is the kernels' :attr:`grader.kernel.sandbox.SandboxedKernelManager.sandbox` mode,
    ``db_url`` the gradebook's URL.
    """
    output = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.dup2(output, 1)  # nbgrader's and the kernels' messages go to the log
    os.dup2(output, 2)
    api = make_api(course_root, db_url)
    if api.coursedir.db_url.startswith("sqlite:"):  # a database server handles its own locks
        api.coursedir.db_url += f"?timeout={DB_BUSY_TIMEOUT}"
    api.config.SandboxedKernelManager.sandbox = sandbox
    while True:
        try:
            assignment, student = tasks.recv()
        except EOFError:  # the parent closed the pipe: no more students
            return
        tasks.send(grade_one(api, assignment, student))


class _Worker:
    """One worker process, started on demand and restarted once after it dies."""

    def __init__(self, course_root: Path, log: Path, sandbox: str, db_url: str) -> None:
        self.log = log
        self.settings = (course_root, log, sandbox, db_url)  # serve's arguments after the pipe
        self.proc: multiprocessing.Process | None = None
        self.tasks: Connection | None = None
        self.closed = False

    def grade(self, assignment: str, student: str) -> Outcome:
        """Have the worker grade one student."""
        for _attempt in range(2):
            if self.closed:
                break
            if self.proc is None:
                self.tasks, theirs = FORKS.Pipe()
                self.proc = FORKS.Process(target=serve, daemon=True,
                                          args=(theirs, *self.settings))
                self.proc.start()
                theirs.close()
            try:
                self.tasks.send((assignment, student))
                return self.tasks.recv()
            except (EOFError, OSError):
                self.proc.kill()
                self.proc.join()
                self.proc = None
        return Outcome(student, False, error=f"the grading process died; see {self.log}")

    def close(self, wait: float = 30) -> None:
        """Let the worker finish (it exits when its pipe closes), or kill it when stuck."""
        self.closed = True
        if self.proc is not None:
            self.tasks.close()
            self.proc.join(wait)
            self.proc.kill()


def grade_class(
    course_root: Path,
    assignment: str,
    students: Sequence[str],
    jobs: int,
    on_done: Callable[[int, Outcome], None],
    log: Path,
    sandbox: str = "required",
    db_url: str = "",
) -> list[Outcome]:
    """Autograde ``students`` with ``jobs`` parallel workers.

    Parameters
    ----------
    course_root : Path
        Course folder (``grader/nbgrader_config.py`` is read from there by each worker).
    assignment : str
        Assignment id; it must already be in the gradebook.
    students : sequence of str
        Student ids with a submission.
    jobs : int
        Number of worker processes.
    on_done : callable
        Called as ``on_done(number_done, outcome)`` after each student, from worker threads
        (calls are serialised).
    log : Path
        File the workers' own output (nbgrader and kernel messages) is appended to.
    sandbox : str
        ``"required"`` (every kernel in the sandbox) or ``"off"`` (``--no-sandbox``).
    db_url : str
        The gradebook's URL; empty means the course configuration's.

    Returns
    -------
    list of Outcome
        One per student, in the order of ``students``.
    """
    todo: SimpleQueue[str] = SimpleQueue()
    for student in students:
        todo.put(student)
    done: dict[str, Outcome] = {}
    lock = threading.Lock()
    count = max(1, min(jobs, len(students)))
    workers = [_Worker(course_root, log, sandbox, db_url) for _ in range(count)]

    def run(worker: _Worker) -> None:
        try:
            while True:
                try:
                    student = todo.get_nowait()
                except Empty:
                    return
                outcome = worker.grade(assignment, student)
                with lock:
                    done[student] = outcome
                    on_done(len(done), outcome)
        finally:
            worker.close()

    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:  # after Ctrl-C too: do not leave workers (and their kernels) behind
        for worker in workers:
            worker.close(wait=0)
    return [done[s] for s in students]
