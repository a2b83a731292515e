"""``course``: the instructor's single entry point to nbgrader for this course.

Every subcommand runs nbgrader's own Python API (``NbGraderAPI``, ``Gradebook``,
``Validator``, ``ZipCollectApp`` in :mod:`grader.collect`) with the configuration in
``<course-root>/grader/nbgrader_config.py``, so it behaves the same from any working directory
and ignores stray nbgrader configs elsewhere. ``autograde`` runs nbgrader in parallel worker
processes (:mod:`grader.parallel`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import nbformat
from nbconvert.filters import strip_ansi
from nbgrader.api import MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput
from nbgrader.utils import determine_grade, is_grade, is_solution, parse_utc
from nbgrader.validator import Validator
from traitlets import List
from traitlets.config import Config

from grader import integrity, secret
from grader.api import load_config, make_api
from grader.bundle import bundle
from grader.cluster import grade_class_on_cluster
from grader.collect import EXIT_SKIPPED, collect, is_safe_id, printable
from grader.export import EXIT_LEFT_OUT, export_canvas, export_grades, export_moodle
from grader.lint import TODO_MARK, lint
from grader.lms import MOODLE_KEYS, canvas_feedback_zip
from grader.parallel import Outcome, grade_class
from grader.preprocessors import GradingExecute
from grader.remove import remove_assignment
from grader.report import (
    exercise_cells,
    run_record_path,
    write_report,
)
from grader.sandbox import unavailable_reason
from grader.scaffold import new_exercise
from grader.similarity import THRESHOLD, compare, write_page

REPO_ROOT = Path(__file__).resolve().parent.parent


def _report_failure(what: str, result: dict[str, object]) -> None:
    """Print nbgrader's captured log (or, without one, the traceback) to stderr."""
    print(f"FAILED {what}", file=sys.stderr)
    print(str(result.get("log") or result.get("error", "")).rstrip(), file=sys.stderr)


def release(api: NbGraderAPI, assignments: Sequence[str] = ()) -> list[str]:
    """Generate the student versions in ``notebooks/`` from ``solutions/``.

    Runs ``nbgrader generate_assignment --force`` per assignment: the old release folder is
    removed, outputs are cleared and the result is deterministic, so a fresh release can be
    compared with the committed one.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`make_api`.
    assignments : sequence of str
        Assignment ids (folder names in ``solutions/``); empty means all of them.

    Returns
    -------
    list of str
        The assignments that failed.
    """
    known = api.get_source_assignments()
    unknown = sorted(set(assignments) - known)
    if unknown:
        raise SystemExit(f"course: not in solutions/: {', '.join(unknown)}")
    failed = []
    for assignment in sorted(assignments or known):
        result = api.generate_assignment(assignment, force=True, create=True)
        if result["success"]:
            print(f"released {assignment}")
        else:
            _report_failure(f"release {assignment}", result)
            failed.append(assignment)
    return failed


def lint_assignments(api: NbGraderAPI, assignments: Sequence[str] = (), run: bool = True) -> bool:
    """Lint ``assignments`` (all of ``solutions/`` when empty) with :func:`grader.lint.lint`;
    print every problem. True when there is none."""
    known = api.get_source_assignments()
    unknown = sorted(set(assignments) - known)
    if unknown:
        raise SystemExit(f"course: not in solutions/: {', '.join(unknown)}")
    clean = True
    for assignment in sorted(assignments or known):
        problems = lint(api, assignment, run=run)
        for problem in problems:
            print(f"LINT {problem}")
        print(f"linted {assignment}: " + (f"{len(problems)} problems" if problems else "ok"))
        clean = clean and not problems
    return clean


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
    processes (:func:`grader.parallel.grade_class`), or as one task per student on a Dask
    cluster (:func:`grader.cluster.grade_class_on_cluster`), with a progress line per student,
    each kernel in the sandbox (:mod:`grader.sandbox`). A submission that crashes costs only that
    student's run; a regrade gives the same scores. Checksums of the course checkout and the
    library source are taken before and after (:mod:`grader.integrity`); the run's record
    (sandbox, integrity, versions) is written next to the report, which shows it.

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
        (:func:`grader.collect.is_safe_id`).
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
    print(f"autograded {len(outcomes) - len(failed)} of {len(outcomes)} submissions of "
          f"{assignment} in {time.monotonic() - start:.0f} s "
          + (f"on the Dask cluster {cluster}" if cluster else f"with {jobs} workers"))
    return [o.student for o in failed] + unsafe + (["<integrity>"] if changed else [])


def secret_path(api: NbGraderAPI) -> Path:
    """Where the course secret lives (``c.GradingExecute.secret_file``)."""
    configured = api.config.GradingExecute.get("secret_file")
    if not configured:
        raise SystemExit("course: c.GradingExecute.secret_file is not set in the course config")
    return Path(configured)


def show_secret(api: NbGraderAPI, rotate: bool) -> None:
    """Say where the course secret is and its fingerprint; ``rotate`` replaces it first."""
    path = secret_path(api)
    if rotate:
        print("WARNING: a new secret gives every student new hidden inputs: regrading a "
              "submission graded under the old one can change its score. Rotate between "
              "terms, not during one.", file=sys.stderr)
        try:
            secret.rotate(path)
        except ValueError as error:
            raise SystemExit(f"course: {error}") from None
    where = f"${secret.ENVIRONMENT}" if os.environ.get(secret.ENVIRONMENT) else str(path)
    print(f"course secret: {where}, fingerprint {secret.fingerprint(secret.load(path))}")


def feedback(api: NbGraderAPI, assignment: str) -> bool:
    """Write feedback HTML for every autograded submission of ``assignment``.

    Runs ``nbgrader generate_feedback --force``; output goes to
    ``grader/feedback/<student>/<assignment>/``.

    Returns
    -------
    bool
        Whether nbgrader succeeded.
    """
    result = api.generate_feedback(assignment, force=True)
    if not result["success"]:
        _report_failure(f"feedback {assignment}", result)
        return False
    print(f"feedback written under {api.coursedir.feedback_directory}/")
    return True


def canvas_zip(api: NbGraderAPI, assignment: str) -> int:
    """Write the Re-Upload Submissions zip of ``assignment`` (:mod:`grader.lms`); return 0, or
    2 when feedback of notebooks not collected from Canvas was left out (listed)."""
    out = Path(api.coursedir.root) / "grader" / "exports" / f"feedback-{assignment}-canvas.zip"
    left_out = canvas_feedback_zip(api, assignment, out)
    print(f"wrote {out}: upload it in Canvas's assignment page -> Re-Upload Submissions")
    if left_out:
        print(f"LEFT OUT of {out} (not collected from a Canvas download): "
              f"{', '.join(left_out)}", file=sys.stderr)
    return EXIT_LEFT_OUT if left_out else 0



def report(api: NbGraderAPI, assignment: str, out: Path, json_out: Path | None) -> None:
    """Write the HTML grading report of ``assignment``, and its data as JSON to ``json_out``
    when given (see :func:`grader.report.write_report`)."""
    findings = write_report(api, assignment, out, json_out)
    print(f"wrote {out}: {len(findings.not_run)} submissions did not run to completion, "
          f"{len(findings.flagged)} flagged")
    if json_out is not None:
        print(f"wrote {json_out}")


def similarity(api: NbGraderAPI, assignment: str, out: Path, threshold: float) -> None:
    """Write the similarity report of ``assignment`` (:mod:`grader.similarity`); print the
    pairs at or above ``threshold``. Changes no score."""
    try:
        result = compare(api, assignment, threshold)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    write_page(result, out)
    for match in result.flagged():
        print(f"{match.exercise}: {match.first.owner} and {match.second.owner} "
              f"{match.score:.2f}")
    print(f"wrote {out}: {len(result.students)} submissions compared, "
          f"{len(result.flagged())} matches at or above {threshold:g} (no score changed)")


class CourseValidator(Validator):
    """nbgrader's ``Validator``, running the notebook with :class:`GradingExecute`.

    A kernel that dies or hangs then fails the cells it could not run, as at grading time,
    instead of crashing the validation.
    """

    preprocessors = List([CheckCellMetadata, ClearOutput, GradingExecute])


def validate(notebook: Path, config: Config) -> bool:
    """Run a notebook's tests as nbgrader's Validate button does; print pass/fail per exercise.

    Uses nbgrader's ``Validator`` directly, because ``nbgrader validate`` exits 0 even when
    tests fail (nbgrader #1908). An exercise passes when every graded cell of it passes (see
    :func:`grader.report.exercise_cells`); a written answer is no pass or fail: it is reported
    as answered (graded by hand) or not answered yet.

    Parameters
    ----------
    notebook : Path
        Notebook to validate (executed with its folder as working directory).
    config : Config
        From :func:`load_config` (per-cell timeout, the grading kernel's set-up).

    Returns
    -------
    bool
        True when every test cell passes, every written answer is answered and no locked cell
        was changed.
    """
    if not notebook.is_file():
        raise SystemExit(f"course: no notebook {notebook}")
    reason = unavailable_reason()
    if reason:
        print(f"note: running your notebook unsandboxed ({reason}); grading runs it in the "
              "sandbox")
    nb = nbformat.read(notebook, as_version=4)
    results = CourseValidator(config=config).validate(str(notebook))
    names = {
        cell.source.strip(): cell.metadata["nbgrader"].get("grade_id", "?")
        for cell in nb.cells
        if "nbgrader" in cell.metadata
    }
    # Written answer -> answered? (nbgrader's test: its checksum differs from the release's.)
    written = {cell.metadata.nbgrader["grade_id"]: determine_grade(cell)[0] is None
               for cell in nb.cells if cell.cell_type == "markdown" and is_grade(cell)
               and is_solution(cell)}
    problems: dict[str, list[str]] = {}
    for cell in results.get("type_changed", []):
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            f"cell type changed to {cell['new_type']}")
    for cell in results.get("changed", []):
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            "locked cell was modified")
    for cell in results.get("failed", []):
        if names.get(cell["source"]) in written:
            continue  # an unanswered written answer: reported below, not as a failed test
        lines = [ln for ln in strip_ansi(cell["raw_error"]).splitlines() if ln.strip()]
        problems.setdefault(names.get(cell["source"], "?"), []).append(
            lines[-1] if lines else "failed")
    exercises = exercise_cells(nb)
    passing = failing = 0
    for name, cells in exercises.items():
        issues = [f"{gid}: {issue}" for gid in cells for issue in problems.pop(gid, [])]
        failing += bool(issues)
        if issues:
            print(f"FAIL {name}: {'; '.join(issues)}")
        elif name in written:
            print(f"ANSWERED {name}: answered, graded by hand" if written[name] else
                  f"UNANSWERED {name}: not answered yet (graded by hand)")
        else:
            passing += 1
            print(f"PASS {name}")
    for gid, issues in problems.items():
        failing += 1
        print(f"FAIL {gid}: {'; '.join(issues)}")
    if "failed" not in results and results:
        print("(the other exercises were not checked: undo the changes to the cells above)")
    status = "PASSED" if not results else "FAILED" if failing else "INCOMPLETE"
    summary = f"{passing} of {len(exercises) - len(written)} autograded exercises pass"
    if written:
        summary += (f"; {sum(written.values())} of {len(written)} written answers answered "
                    "(graded by hand)")
    print(f"{status} {notebook}: {summary}")
    return not results


def due_date(text: str) -> datetime:
    """``--due``: a date as nbgrader reads one (``parse_utc``), as naive UTC."""
    try:
        return parse_utc(text)
    except (ValueError, OverflowError) as error:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} ({error})") from None


def _new_exercise(api: NbGraderAPI, args: argparse.Namespace) -> int:
    """``course new-exercise``: scaffold, then say what to fill in."""
    root = Path(api.coursedir.root)
    try:
        made = new_exercise(root / api.coursedir.source_directory, args.assignment, args.name,
                            notebook=args.notebook, visible_points=args.visible_points,
                            hidden_points=args.hidden_points)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    print(f"exercise {made.number} ({args.name}): 4 cells added to "
          f"{made.notebook.relative_to(root)}, a checker to {made.checks.relative_to(root)}\n"
          f"next: replace every {TODO_MARK}, then `course lint {args.assignment}`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``course`` command."""
    parser = argparse.ArgumentParser(
        prog="course",
        description="Release, collect, autograde, give feedback, export grades and report "
        "with nbgrader.",
    )
    parser.add_argument(
        "--db-url",
        help="the gradebook's database, e.g. postgresql://user@host/dbname (default: the "
        "COURSE_DB_URL environment variable, else grader/gradebook.db, SQLite)",
    )
    parser.add_argument(
        "--course-root",
        type=Path,
        default=REPO_ROOT,
        help="course folder with solutions/, notebooks/, grader/ (default: %(default)s)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("release", help="lint, then generate notebooks/ from solutions/ "
                       "(nothing is written when lint finds a problem)")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: all")
    p.add_argument("--no-run", action="store_true", help="lint without running the tests on "
                   "the solution and the blank release (when you just ran `course lint`)")
    p = sub.add_parser("lint", help="check an assignment's cells, metadata and checks; run its "
                       "tests on the solution (must pass) and the blank release (must fail)")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: all")
    p.add_argument("--no-run", action="store_true", help="only the checks that need no kernel")
    p = sub.add_parser("new-exercise", help="add an exercise's four cells to an assignment's "
                       "notebook in solutions/, and a checker stub to its checks.py")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="folder in solutions/ (new or not)")
    p.add_argument("name", metavar="NAME", help="the function students write")
    p.add_argument("--notebook", help="notebook file to extend (default: the assignment's only "
                   "exercise notebook, or a new <topic>_exercises.ipynb)")
    p.add_argument("--visible-points", type=int, default=1, help="default: %(default)s")
    p.add_argument("--hidden-points", type=int, default=2, help="default: %(default)s")
    p = sub.add_parser("remove", help="back the gradebook up, then remove an assignment and "
                       "its grades from it")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--force", action="store_true",
                   help="remove even when students' grades are recorded")
    p = sub.add_parser("collect", help="copy LMS downloads (folder or zip) to grader/submitted/")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("source", type=Path, metavar="SOURCE", help="folder of downloads or archive")
    p.add_argument("--regexp", help="file-name pattern with (?P<student_id>...) and "
                   "(?P<file_id>...) groups, matched against '/' + the path in the download "
                   "(default: <student>_..._<notebook>.ipynb or <student>/<notebook>.ipynb)")
    p.add_argument("--max-mb", type=float, help="most megabytes extracted per student and per "
                   "upload archive (default: c.CollectLimits.max_mb in the course config, 50)")
    p.add_argument("--due", type=due_date, metavar="DATE",
                   help="the assignment's due date, stored in the gradebook for nbgrader's late "
                   "penalties, e.g. '2025-03-01 23:59 Europe/Berlin' (UTC without a zone; "
                   "default: the gradebook's)")
    p = sub.add_parser("autograde", help="autograde grader/submitted/*/ASSIGNMENT in parallel")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--student", action="append", default=[], help="repeatable; default: all")
    p.add_argument("--jobs", "-j", type=int, help="worker processes (default: CPUs + 1)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="grade on a Dask cluster: a scheduler address (tcp://host:8786) or "
                   "local:N for N local workers (default: a local process pool)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="grade without the bubblewrap sandbox (not recommended; the report "
                   "records it)")
    p = sub.add_parser("feedback", help="write feedback HTML for autograded submissions")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--canvas-zip", action="store_true",
                   help="also write grader/exports/feedback-ASSIGNMENT-canvas.zip for Canvas's "
                   "Re-Upload Submissions (needs a Canvas download collected)")
    p = sub.add_parser("export", help="write a grades CSV, one row per student (Canvas's or "
                       "Moodle's import format with --canvas or --moodle)")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="default: every assignment with grades")
    lms = p.add_mutually_exclusive_group()
    lms.add_argument("--canvas", type=Path, metavar="ROSTER",
                     help="write grades-canvas.csv for Canvas's Grades -> Import, for the "
                     "students of ROSTER, Canvas's own gradebook export (Grades -> Export)")
    lms.add_argument("--moodle", action="store_true",
                     help="write grades-moodle.csv for Moodle's Grade import (CSV)")
    p.add_argument("--moodle-key", choices=sorted(MOODLE_KEYS), default="idnumber",
                   help="the column Moodle finds students by: idnumber (the student id) or "
                   "email (the gradebook's) (default: %(default)s)")
    p.add_argument("--zero-missing", action="store_true",
                   help="LMS formats: 0 for a student without a submission (default: blank, "
                   "which leaves Canvas's grade as it is)")
    p.add_argument("--out", type=Path, help="default: grader/exports/grades.csv, "
                   "grades-canvas.csv or grades-moodle.csv")
    p = sub.add_parser("report", help="write an HTML report: score plots, failures, flags")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--out", type=Path, help="default: grader/exports/report-ASSIGNMENT.html")
    p.add_argument("--json", action="store_true",
                   help="also write the report's data (what the class got wrong, the flags) "
                   "as JSON beside the page: report-ASSIGNMENT.json")
    p = sub.add_parser("secret", help="show the course secret's fingerprint (each student's "
                       "hidden inputs derive from it); create it if missing")
    p.add_argument("--rotate", action="store_true",
                   help="replace it (a new term): regrades of earlier submissions then change")
    p = sub.add_parser("similarity", help="write an HTML report of similar answers, pair by "
                       "pair and against mllib and solutions/ (changes no score)")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--out", type=Path, help="default: grader/exports/similarity-ASSIGNMENT.html")
    p.add_argument("--threshold", type=float, default=THRESHOLD,
                   help="score from which a pair is flagged, in (0, 1] (default: %(default)s)")
    p = sub.add_parser("bundle", help="write what students receive: release notebooks, "
                       "walk-throughs, mllib without the hidden checks, a README and Makefile")
    p.add_argument("--out", type=Path, help="folder to write, and its .zip next to it "
                   "(default: grader/exports/student)")
    p = sub.add_parser("validate", help="run a notebook's tests; exit 1 if any fails")
    p.add_argument("notebook", type=Path, metavar="NOTEBOOK")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``course`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: 0 on success, 1 if any step failed; ``collect``: 2 when it skipped an
        entry (everyone else is collected; the reasons are printed and recorded); ``export
        --canvas``/``--moodle`` and ``feedback --canvas-zip``: 2 when graded students were left
        out of the LMS's file (they are listed).
    """
    args = build_parser().parse_args(argv)
    root: Path = args.course_root.resolve()
    exports = root / "grader" / "exports"
    if args.command == "validate":
        return 0 if validate(args.notebook, load_config(root)) else 1
    if args.command == "bundle":
        try:
            archive = bundle(root, args.out or exports / "student")
        except ValueError as error:
            raise SystemExit(f"course: {error}") from None
        print(f"wrote {archive.with_suffix('')}/ and {archive}")
        return 0
    api = make_api(root, args.db_url)
    if args.command == "new-exercise":
        return _new_exercise(api, args)
    if args.command in ("lint", "release"):
        if not lint_assignments(api, args.assignments, run=not args.no_run):
            print(f"course {args.command}: fix the problems above"
                  + (" (nothing was released)" if args.command == "release" else ""),
                  file=sys.stderr)
            return 1
        if args.command == "release":
            return 1 if release(api, args.assignments) else 0
        return 0
    if args.command == "remove":
        try:
            backup = remove_assignment(api, args.assignment, args.force)
        except ValueError as error:
            raise SystemExit(f"course: {error}") from None
        print(f"removed {args.assignment} from the gradebook; backup: {backup}\n"
              f"solutions/{args.assignment}/ and notebooks/{args.assignment}/ are untouched: "
              "delete them too, or the next `course release` adds it back")
        return 0
    if args.command == "collect":
        record = collect(api, args.assignment, args.source, args.regexp, args.max_mb,
                         args.due)
        return EXIT_SKIPPED if record.skipped else 0
    if args.command == "autograde":
        try:
            failed = autograde(api, args.assignment, args.student, args.jobs,
                               sandbox=not args.no_sandbox, cluster=args.cluster)
        except ValueError as error:  # e.g. --cluster local:0
            raise SystemExit(f"course: {error}") from None
        return 1 if failed else 0
    if args.command == "secret":
        show_secret(api, args.rotate)
        return 0
    if args.command == "feedback":
        if not feedback(api, args.assignment):
            return 1
        return canvas_zip(api, args.assignment) if args.canvas_zip else 0
    if args.command == "similarity":
        similarity(api, args.assignment,
                   args.out or exports / f"similarity-{args.assignment}.html", args.threshold)
        return 0
    if args.command == "report":
        out = args.out or exports / f"report-{args.assignment}.html"
        report(api, args.assignment, out, out.with_suffix(".json") if args.json else None)
        return 0
    if args.canvas:
        return export_canvas(api, args.canvas, args.out or exports / "grades-canvas.csv",
                             args.assignments, args.zero_missing)
    if args.moodle:
        return export_moodle(api, args.out or exports / "grades-moodle.csv", args.assignments,
                             args.moodle_key, args.zero_missing)
    export_grades(api, args.out or exports / "grades.csv", args.assignments)
    return 0
