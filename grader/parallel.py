"""Autograde a class in parallel (nbgrader #174: ``nbgrader autograde`` grades one at a time).

Design: N long-lived worker processes (``python -m grader.parallel COURSE_ROOT``), each running
nbgrader's own ``autograde`` for one student at a time, all writing to the one SQLite gradebook.
A thread per worker feeds it student ids and reads back one JSON line per student.

* Each worker imports nbgrader once, so a student costs one kernel, not one CLI start-up.
* SQLite serialises the writers: workers open the gradebook with a 60 s busy timeout and
  retry a student whose run still failed on "database is locked". Autograde with ``--force``
  is idempotent, so a retry (and a regrade) gives the same scores.
* A worker that dies (which the grading kernel's protections should make impossible) costs
  only the student it was grading: that student is retried once in a fresh worker, then
  reported as failed; the class goes on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from queue import Empty, SimpleQueue

import nbformat

from grader.preprocessors import run_problems

DB_BUSY_TIMEOUT = 60  # seconds a worker waits for another one's gradebook write
LOCK_RETRIES = 5


@dataclass(frozen=True)
class Outcome:
    """The result of autograding one student's submission of one assignment."""

    student: str
    success: bool  # nbgrader graded it and saved the grades
    score: float = 0.0
    max_score: float = 0.0
    problems: tuple[str, ...] = ()  # cells that killed or stuck the kernel, or timed out
    error: str = ""  # nbgrader's log or traceback when it failed

    @property
    def kernel_stopped(self) -> bool:
        """Whether the kernel died or hung, so later tests were not run."""
        return any("kernel" in problem for problem in self.problems)


def _grade_one(api, assignment: str, student: str) -> Outcome:
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
    problems = tuple(f"{path.stem}: {problem}" for path in sorted(folder.glob("*.ipynb"))
                     for problem in run_problems(nbformat.read(path, as_version=4)))
    return Outcome(student, True, score, max_score, problems)


def serve(course_root: Path) -> None:
    """Worker loop: read ``[assignment, student]`` JSON lines on stdin, answer on stdout."""
    from grader.cli import make_api  # the CLI imports this module

    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever else prints (nbgrader, kernels) goes to the log, not the replies
    api = make_api(course_root)
    api.coursedir.db_url += f"?timeout={DB_BUSY_TIMEOUT}"
    for line in sys.stdin:
        assignment, student = json.loads(line)
        replies.write(json.dumps(asdict(_grade_one(api, assignment, student))) + "\n")
        replies.flush()


class _Worker:
    """One worker process, started on demand and restarted once after it dies."""

    def __init__(self, course_root: Path, log: Path) -> None:
        self.course_root, self.log = course_root, log
        self.proc: subprocess.Popen | None = None
        self.closed = False

    def grade(self, assignment: str, student: str) -> Outcome:
        """Have the worker grade one student."""
        for _attempt in range(2):
            if self.closed:
                break
            if self.proc is None:
                with self.log.open("a") as log:
                    self.proc = subprocess.Popen(
                        [sys.executable, "-m", "grader.parallel", str(self.course_root)],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                    )
            try:
                self.proc.stdin.write(json.dumps([assignment, student]) + "\n")
                self.proc.stdin.flush()
                reply = json.loads(self.proc.stdout.readline() or "null")
            except OSError:
                reply = None
            if reply:
                return Outcome(**{**reply, "problems": tuple(reply["problems"])})
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        return Outcome(student, False, error=f"the grading process died; see {self.log}")

    def close(self) -> None:
        """Let the worker finish (it exits at the end of its input), or kill it when stuck."""
        self.closed = True
        if self.proc is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def grade_class(
    course_root: Path,
    assignment: str,
    students: Sequence[str],
    jobs: int,
    on_done: Callable[[int, Outcome], None],
    log: Path,
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
    workers = [_Worker(course_root, log) for _ in range(max(1, min(jobs, len(students))))]

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
            if worker.proc is not None:
                worker.closed = True
                worker.proc.kill()
    return [done[s] for s in students]


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
