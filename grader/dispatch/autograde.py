"""``course autograde``: nbgrader's autograde for a whole class, in parallel and sandboxed, with
the run's record (sandbox, integrity of the course, versions) that the report shows."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.apps import NbGraderAPI

from grader.authoring.release import release
from grader.core.api import secret_path
from grader.dispatch import integrity
from grader.dispatch.cluster import grade_class_on_cluster
from grader.dispatch.parallel import Outcome, grade_class
from grader.intake.collect import is_safe_id, printable
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline import secret
from grader.review.report import run_record_path
from mllib.plotting import counted


def _progress(total: int) -> Callable[[int, Outcome], None]:
    """Print a text progress bar line for each graded student (``on_done`` of grade_class)."""

    def on_done(done: int, outcome: Outcome) -> None:
        bar = "#" * round(20 * done / total)
        status = f"{outcome.score:g} / {outcome.max_score:g}" if outcome.success else "FAILED"
        status += "".join(f"; {problem}" for problem in outcome.problems)
        print(f"[{bar:<20}] {done:>{len(str(total))}}/{total} "
              f"autograded {outcome.student}: {status}", flush=True)

    return on_done


def _versions() -> dict[str, str]:
    """The grading environment: Python and the packages that decide a score."""
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for package in ("nbgrader", "nbclient", "ipykernel", "jupyter_client", "numpy",
                    "ml-course-companion"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    return found


def autograde(
    api: NbGraderAPI,
    assignment: str,
    students: Sequence[str] = (),
    jobs: int | None = None,
    sandbox: bool = True,
    cluster: str | None = None,
) -> list[str]:
    """Autograde the submissions in ``grader/submitted/<student>/<assignment>/`` in parallel.

    Runs nbgrader's ``autograde --force --create`` once per student in ``jobs`` worker
    processes (:func:`grader.dispatch.parallel.grade_class`), or as one task per student on a Dask
    cluster (:func:`grader.dispatch.cluster.grade_class_on_cluster`), with a progress line per
    student, each kernel in the sandbox (:mod:`grader.kernel.sandbox`). A submission that crashes
    costs only that student's run; a regrade gives the same scores. Checksums of the course checkout
    and the library source are taken before and after (:mod:`grader.dispatch.integrity`); the run's
    record (sandbox, integrity, versions) is written next to the report, which shows it.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`make_api`.
    assignment : str
        Assignment id.
    students : sequence of str
        Student ids; empty means every student with a submission.
    jobs : int, optional
        Worker processes; default one per CPU, plus one.
    sandbox : bool
        False grades without the sandbox (``--no-sandbox``): a warning, and the report says so.
    cluster : str, optional
        A Dask scheduler address, or ``local:N`` for a LocalCluster of N workers; ``jobs`` is
        then ignored. Only this process writes the gradebook.

    Returns
    -------
    list of str
        The students whose submission failed to run: nbgrader could not grade it, or the
        kernel died or hung (tests after that point score 0; the others keep their score); and
        ``"<integrity>"`` when a protected file changed during the run; and the submitted
        folders not graded because their name is not a safe id
        (:func:`grader.intake.collect.is_safe_id`).
    """
    reason = unavailable_reason()
    if sandbox and reason:
        raise SystemExit(f"course: refusing to autograde without the sandbox: {reason}. "
                         "`--no-sandbox` grades anyway, with the instructor's rights (not "
                         "recommended).")
    if not sandbox:
        print("WARNING: grading WITHOUT the sandbox (--no-sandbox): submitted code runs with "
              "your rights and can read or change the course; the report records it.",
              file=sys.stderr)
    with api.gradebook as gb:
        try:  # `course collect --due` may have created it without its notebooks
            known = bool(gb.find_assignment(assignment).notebooks)
        except MissingEntry:
            known = False
    if not known:
        # Autograde restores test cells from the gradebook, which only a release fills in
        # (the gradebook is not committed). The release is deterministic, so this is harmless.
        print(f"{assignment} is not in the gradebook yet: releasing it first")
        if release(api, [assignment]):
            raise SystemExit(f"course: cannot autograde {assignment}: its release failed")
    students = sorted(students or api.get_submitted_students(assignment))
    # A folder name is a path, a shell word, a spreadsheet cell and HTML downstream: grade only
    # safe ids (`course collect` maps the others); the rest count as failed.
    unsafe = [s for s in students if not is_safe_id(s)]
    for student in unsafe:
        print(f"FAILED autograde {assignment}: skipped the folder {printable(student)!r} in "
              f"{api.coursedir.submitted_directory}/: not a safe student id (only letters, "
              "digits, '.', '_', '-', not starting with '.'); `course collect` maps such ids",
              file=sys.stderr)
    students = [s for s in students if is_safe_id(s)]
    if not students:
        print(f"no submissions for {assignment} in {api.coursedir.submitted_directory}/")
        return unsafe
    root = Path(api.coursedir.root)
    log = root / "grader" / "exports" / f"autograde-{assignment}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")  # the workers append this run's nbgrader and kernel messages
    # A student's run waits for its kernel about a third of the time: one more worker than
    # CPUs keeps the CPUs busy.
    jobs = jobs or (os.cpu_count() or 1) + 1
    # Created here, once, before any worker needs it; only its fingerprint is ever shown.
    secret_fingerprint = secret.fingerprint(secret.load(secret_path(api)))
    protected = integrity.protected_roots(root)
    before = integrity.snapshot(protected)
    start = time.monotonic()
    mode = "required" if sandbox else "off"
    if cluster:
        outcomes = grade_class_on_cluster(root, assignment, students, cluster,
                                          _progress(len(students)), sandbox=mode,
                                          db_url=api.coursedir.db_url)
    else:
        outcomes = grade_class(root, assignment, students, jobs, _progress(len(students)), log,
                               sandbox=mode, db_url=api.coursedir.db_url)
    changed = integrity.changes(before, integrity.snapshot(protected))
    record = {"sandbox": sandbox, "cluster": cluster,
              "integrity": {"checked": len(before), "changed": changed},
              "versions": _versions(), "students": len(students),
              "secret": secret_fingerprint,
              "seconds": round(time.monotonic() - start, 1)}
    run_record_path(root, assignment).write_text(json.dumps(record, indent=1))
    if changed:
        print("INTEGRITY FAILURE: files of the course or the library changed during grading:",
              file=sys.stderr)
        print("\n".join("  " + line for line in changed), file=sys.stderr)
    else:
        print(f"integrity: {len(before)} files of the course and the library are unchanged")
    failed = [o for o in outcomes if not o.success or o.kernel_stopped]
    for outcome in failed:
        print(f"FAILED autograde {assignment} for {outcome.student}", file=sys.stderr)
        detail = outcome.error or f"graded {outcome.score:g} / {outcome.max_score:g} up to here"
        print("\n".join(["  " + p for p in outcome.problems] + [detail.rstrip()]), file=sys.stderr)
    print(f"autograded {len(outcomes) - len(failed)} of {counted(len(outcomes), 'submission')} of "
          f"{assignment} in {time.monotonic() - start:.0f} s "
          + (f"on the Dask cluster {cluster}" if cluster else f"with {jobs} workers"))
    return [o.student for o in failed] + unsafe + (["<integrity>"] if changed else [])
