"""Autograde a class on a Dask cluster (``course autograde ASSIGNMENT --cluster ADDRESS``).

What runs where:

* **The client** (the instructor's ``course`` process) reads each submission from
  ``grader/submitted/`` and sends it with the assignment's source, release and nbgrader
  configuration as one task per student. It is the only process that opens the gradebook: when a
  task returns, it runs nbgrader's own ``autograde`` on the same submission with the execution
  step replaced by :class:`ReplayExecution`, which takes the outputs the worker computed, so
  nbgrader's ``SaveAutoGrades`` scores them and writes ``grader/autograded/`` as usual.
* **A worker** (any ``dask worker`` with this course installed at the same version) unpacks
  the assignment into a private course folder once, with a private SQLite gradebook filled by
  nbgrader's ``generate_assignment``, then grades each submission it receives with nbgrader's
  own ``autograde``, its kernel in the sandbox (:mod:`grader.kernel.sandbox`). It returns the
  autograded notebooks, never touching the shared gradebook; nothing is read from a shared
  disk.

A worker that dies while grading loses nothing: the scheduler gives the task to another
worker. A submission whose task has killed more workers than the scheduler's
``distributed.scheduler.allowed-failures`` allows (default 3) ends as Dask's ``KilledWorker``
and is reported as failed, not retried forever. A worker whose ``mllib`` or ``grader`` source
differs from the client's is refused: its hidden checks could differ.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

import grader
import mllib
from grader.core.api import make_api
from grader.core.files import read_tree
from grader.dispatch.parallel import Outcome, grade_one
from grader.pipeline import outcomes, outside, secret

LOCAL = "local:"  # --cluster local:N starts a LocalCluster of N workers in this process
CONNECT_TIMEOUT = 30  # seconds to reach the scheduler, and then for a first worker to join

# One private course per (worker process, assignment bundle), and one task at a time in it.
_courses: dict[str, Path] = {}
_worker_lock = threading.Lock()


@dataclass(frozen=True)
class Bundle:
    """What a worker needs to grade an assignment: files by course-relative path."""

    assignment: str
    files: dict[str, bytes]

    @property
    def digest(self) -> str:
        """SHA-256 over the paths and contents: a worker's cache key."""
        sha = hashlib.sha256(self.assignment.encode())
        for path in sorted(self.files):
            sha.update(path.encode() + b"\0" + self.files[path] + b"\0")
        return sha.hexdigest()


@dataclass(frozen=True)
class Graded:
    """A worker's answer: its outcome, the autograded notebooks and its library fingerprint."""

    outcome: Outcome
    notebooks: dict[str, str]  # notebook file name -> autograded notebook (JSON text)
    fingerprint: str
    host: str


def _read_tree(root: Path, folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, keyed by its path relative to ``root``."""
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()
            and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts}


def course_bundle(api, assignment: str) -> Bundle:
    """The assignment's source, release and the course's nbgrader configuration."""
    root = Path(api.coursedir.root)
    files = {"grader/nbgrader_config.py": (root / "grader" / "nbgrader_config.py").read_bytes()}
    for kind in (api.coursedir.source_directory, api.coursedir.release_directory):
        files |= _read_tree(root, root / kind / assignment)
    return Bundle(assignment, files)


def submission_files(api, assignment: str, student: str) -> dict[str, bytes]:
    """The student's submitted plain files, keyed by path relative to the submission folder.

    No link is followed (:mod:`grader.core.files`): what a link points to would reach the worker.
    """
    folder = Path(api.coursedir.format_path(api.coursedir.submitted_directory, student,
                                            assignment))
    found, _ = read_tree(folder, ignore=("__pycache__", ".ipynb_checkpoints"))
    return found


def student_variants(bundle: Bundle, course_secret: bytes, student: str) -> dict[str, str]:
    """Hidden test key -> the student's variant in hex, for every hidden test of the bundle's
    source notebooks."""
    sources = [cell.get("source", "") for path, content in bundle.files.items()
               if path.endswith(".ipynb")
               for cell in nbformat.reads(content.decode(), as_version=4).cells]
    return {key: secret.variant(course_secret, bundle.assignment, key, student).hex()
            for key in outside.hidden_keys(sources)}


@functools.cache
def library_fingerprint() -> str:
    """SHA-256 of the installed ``mllib`` and ``grader`` Python source, names and contents."""
    sha = hashlib.sha256()
    for package in (mllib, grader):
        root = Path(package.__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            sha.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            sha.update(path.read_bytes() + b"\0")
    return sha.hexdigest()


def _worker_api(root: Path):
    """nbgrader's API for a worker's private course, with its private SQLite gradebook (never
    the course's configured one, even where COURSE_DB_URL is set)."""
    return make_api(root, "sqlite:///" + str(root / "grader" / "gradebook.db"))


def _write(root: Path, files: dict[str, bytes]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def _released(bundle: Bundle) -> Path:
    """The assignment released once per host, user and bundle, under a file lock.

    Releasing fills a gradebook with nbgrader's ``generate_assignment`` (seconds); the workers
    of one host, and a worker restarted after a crash, copy this folder instead.
    """
    cache = Path(tempfile.gettempdir()) / f"course-worker-{os.getuid()}"
    cache.mkdir(mode=0o700, exist_ok=True)
    owner = cache.stat()
    if owner.st_uid != os.getuid() or owner.st_mode & 0o077:
        raise RuntimeError(f"{cache} must belong to this user alone (mode 700)")
    # Keyed by the library too: a release made by older grader or mllib code is not reused.
    key = hashlib.sha256((bundle.digest + library_fingerprint()).encode()).hexdigest()
    released = cache / key
    with (cache / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not released.is_dir():
            building = Path(tempfile.mkdtemp(dir=cache))
            _write(building, bundle.files)
            result = _worker_api(building).generate_assignment(bundle.assignment, force=True,
                                                               create=True)
            if not result["success"]:
                shutil.rmtree(building, ignore_errors=True)
                raise RuntimeError(f"the worker could not release {bundle.assignment}:\n"
                                   f"{result.get('log') or result.get('error')}")
            building.rename(released)
    return released


def _worker_course(bundle: Bundle) -> Path:
    """This worker process's private copy of the released course for ``bundle``."""
    key = bundle.digest
    if key not in _courses:
        root = Path(tempfile.mkdtemp(prefix="course-worker-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)  # when the worker stops
        shutil.copytree(_released(bundle), root, dirs_exist_ok=True)
        _courses[key] = root
    return _courses[key]


def grade_submission(bundle: Bundle, student: str, files: dict[str, bytes],
                     sandbox: str, variants: dict[str, str]) -> Graded:
    """The task run on a worker: autograde one student's submission in a private course.

    Parameters
    ----------
    bundle : Bundle
        From :func:`course_bundle`.
    student : str
        Student id.
    files : dict of str to bytes
        The submission folder's files, from :func:`submission_files`.
    sandbox : str
        :attr:`grader.kernel.sandbox.SandboxedKernelManager.sandbox` mode (``"required"`` or
        ``"off"``).
    variants : dict of str to str
        The student's variant (hex) of every hidden test (:func:`student_variants`): the
        worker draws the student's inputs from them and never holds the course secret.
    """
    with _worker_lock:
        root = _worker_course(bundle)
        api = _worker_api(root)
        api.config.SandboxedKernelManager.sandbox = sandbox
        api.config.GradingExecute.secret_file = ""
        api.config.GradingExecute.variants = variants
        submitted = Path(api.coursedir.format_path(api.coursedir.submitted_directory, student,
                                                   bundle.assignment))
        autograded = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student,
                                                    bundle.assignment))
        shutil.rmtree(submitted, ignore_errors=True)
        _write(submitted, files)
        try:
            outcome = grade_one(api, bundle.assignment, student)
            notebooks = {path.name: path.read_text() for path in sorted(autograded.glob("*.ipynb"))}
        finally:  # a worker keeps no student's work after its task
            shutil.rmtree(submitted.parent, ignore_errors=True)
            shutil.rmtree(autograded.parent, ignore_errors=True)
    return Graded(outcome, notebooks, library_fingerprint(), os.uname().nodename)


class ReplayExecution(NbGraderPreprocessor):
    """nbgrader's execution step for the client: the outputs a cluster worker computed.

    Takes ``<executed_directory>/<notebook>.ipynb`` (the worker's autograded notebook) and copies
    each cell's outputs (and its per-case record, :mod:`grader.pipeline.outcomes`) into the notebook
    nbgrader has just sanitized from the client's own copy of the submission and gradebook.
    Every cell's type and source must agree: the worker graded exactly the cells this gradebook
    holds, or nothing is scored.
    """

    executed_directory = Unicode(help="Folder of the worker's autograded notebooks.").tag(
        config=True)

    def preprocess(self, nb, resources):
        """Copy outputs, execution counts and per-case records from the executed notebook, cell
        by cell."""
        name = resources["nbgrader"]["notebook"]
        executed = nbformat.read(Path(self.executed_directory, f"{name}.ipynb"), as_version=4)
        if [(c.cell_type, c.source) for c in executed.cells] != [
                (c.cell_type, c.source) for c in nb.cells]:
            raise ValueError(f"{name}: the worker graded other cells than this gradebook holds "
                             "(was the assignment released again since?)")
        for cell, done in zip(nb.cells, executed.cells, strict=True):
            outcomes.carry(done, cell)
            if cell.cell_type == "code":
                cell.outputs = done.outputs
                cell.execution_count = done.execution_count
        return nb, resources


def _recorder(course_root: Path, db_url: str):
    """nbgrader's API for the client, autograding with :class:`ReplayExecution`."""
    api = make_api(course_root, db_url)
    steps = list(api.config.Autograde.autograde_preprocessors)
    api.config.Autograde.autograde_preprocessors = [
        ReplayExecution if getattr(step, "__name__", "") == "GradingExecute" else step
        for step in steps]
    return api


@contextmanager
def connect(address: str) -> Iterator[object]:
    """A ``distributed.Client`` for ``address``, or for a new LocalCluster (``local:N``)."""
    from distributed import Client, LocalCluster

    if not address.startswith(LOCAL):
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT)
        except OSError as error:
            raise SystemExit(f"course: cannot reach the Dask scheduler at {address}: "
                             f"{error}") from None
        with client:
            try:
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except TimeoutError:
                raise SystemExit(f"course: no Dask worker has joined the scheduler at {address} "
                                 f"within {CONNECT_TIMEOUT} s") from None
            yield client
        return
    workers = address.removeprefix(LOCAL)
    if not workers.isdigit() or int(workers) < 1:
        raise ValueError(f"--cluster {address}: expected local:N with N >= 1 workers")
    # One thread per worker: a worker grades one submission at a time, and each worker process
    # gets its own sandbox user id (grader.kernel.sandbox).
    with LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def grade_class_on_cluster(
    course_root: Path,
    assignment: str,
    students: Sequence[str],
    address: str,
    on_done: Callable[[int, Outcome], None],
    sandbox: str = "required",
    db_url: str = "",
) -> list[Outcome]:
    """Autograde ``students`` on the Dask cluster at ``address``; record grades here.

    The parameters and the result are those of :func:`grader.dispatch.parallel.grade_class`, with
    ``address`` (a scheduler address such as ``tcp://host:8786``, or ``local:N``) in place of
    ``jobs`` and ``log``: the workers' messages stay in their own logs. ``on_done`` is called
    after each student is recorded in this course's gradebook, the only one written.
    """
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    recorder = _recorder(course_root, db_url)
    bundle = course_bundle(recorder, assignment)
    course_secret = secret.load(Path(recorder.config.GradingExecute.secret_file))
    mine = library_fingerprint()
    done: dict[str, Outcome] = {}
    with connect(address) as client, tempfile.TemporaryDirectory() as scratch:
        print(f"grading on {address}; Dask dashboard: {client.dashboard_link}", flush=True)
        futures = {client.submit(grade_submission, bundle, student,
                                 submission_files(recorder, assignment, student), sandbox,
                                 student_variants(bundle, course_secret, student),
                                 key=f"autograde-{assignment}-{student}-{os.getpid()}",
                                 pure=False): student
                   for student in students}
        for future in as_completed(futures):
            student = futures[future]
            try:
                graded: Graded = future.result()
            except KilledWorker as error:
                outcome = Outcome(student, False, error=f"its grading killed a worker each "
                                  f"time it was tried, so it was not retried again ({error})")
            except Exception as error:  # noqa: BLE001 -- reported per student, the class goes on
                outcome = Outcome(student, False, error=f"{type(error).__name__}: {error}")
            else:
                outcome = _record(recorder, assignment, graded, Path(scratch, student), mine)
            future.release()
            done[student] = outcome
            on_done(len(done), outcome)
    return [done[s] for s in students]


def _record(api, assignment: str, graded: Graded, folder: Path, fingerprint: str) -> Outcome:
    """Write a worker's result into this course's gradebook with nbgrader's autograde."""
    student = graded.outcome.student
    if graded.fingerprint != fingerprint:
        return Outcome(student, False, error=f"worker {graded.host} runs another version of "
                       "mllib/grader than this course; install the same commit everywhere")
    if not graded.outcome.success:
        return graded.outcome
    folder.mkdir()
    for name, text in graded.notebooks.items():
        (folder / name).write_text(text)
    api.config.ReplayExecution.executed_directory = str(folder)
    return grade_one(api, assignment, student)

