"""``course``: the instructor's single entry point to nbgrader for this course.

Every subcommand runs nbgrader's own Python API (``NbGraderAPI``, ``Gradebook``,
``Validator``, ``ZipCollectApp`` in :mod:`grader.intake.collect`) with the configuration in
``<course-root>/grader/nbgrader_config.py``, so it behaves the same from any working directory
and ignores stray nbgrader configs elsewhere. This module parses the command line and
dispatches: each capability lives in a module of its own (:mod:`grader.authoring.release`,
:mod:`grader.dispatch.autograde`, :mod:`grader.pipeline.validate`, :mod:`grader.intake.collect`,
:mod:`grader.handback.export`, ...).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.utils import parse_utc

from grader.authoring.bundle import bundle
from grader.authoring.lint import TODO_MARK
from grader.authoring.release import EXIT_REFUSED as RELEASE_REFUSED
from grader.authoring.release import (
    ReleaseRefused,
    check_exchange_release,
    lint_assignments,
    release,
    release_to_exchange,
)
from grader.authoring.remove import remove_assignment
from grader.authoring.scaffold import new_exercise
from grader.core.api import load_config, make_api, report_failure, secret_path
from grader.dispatch.autograde import autograde
from grader.handback.export import EXIT_LEFT_OUT, export_canvas, export_grades, export_moodle
from grader.handback.lms import MOODLE_KEYS, canvas_feedback_zip, name_students, read_roster
from grader.handback.pending import hand_back, say_waiting
from grader.hub.exchange import make_account_folders
from grader.intake.collect import EXIT_REFUSED, collect, say_outcome
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline import secret
from grader.pipeline.validate import validate
from grader.review.report import write_report
from grader.review.similarity import THRESHOLD, compare, write_page
from mllib.plotting import counted

REPO_ROOT = Path(__file__).resolve().parent.parent
INCLUDE_UNGRADED = ("also students whose work still waits for a hand grade (a written answer "
                    "not graded, or changed since its hand grade), marked as such (default: "
                    "left out and listed, exit status 2)")


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


def feedback(api: NbGraderAPI, assignment: str, include_ungraded: bool) -> int | None:
    """Write feedback HTML for every autograded submission of ``assignment``, but those that
    wait for a hand grade unless ``include_ungraded`` (:func:`grader.handback.pending.hand_back`;
    listed).

    Runs ``nbgrader generate_feedback --force``; output goes to
    ``grader/feedback/<student>/<assignment>/``, and the folder of a student held back is
    removed (a page from an earlier run would show a score that is not final).

    Returns
    -------
    int or None
        None when nbgrader failed, else 0, or :data:`EXIT_LEFT_OUT` when students were held
        back.
    """
    handback = hand_back(api, "generate", assignment, include_ungraded=include_ungraded)
    if not handback.result["success"]:
        report_failure(f"feedback {assignment}", handback.result)
        return None
    written = len(api.get_submitted_students(assignment) - handback.held)
    print(f"feedback of {counted(written, 'student')} written under "
          f"{api.coursedir.feedback_directory}/")
    say_waiting(f"feedback of {assignment}", handback.waiting, include_ungraded)
    return EXIT_LEFT_OUT if handback.held else 0


def canvas_zip(api: NbGraderAPI, assignment: str) -> int:
    """Write the Re-Upload Submissions zip of ``assignment`` (:mod:`grader.handback.lms`); return 0,
    or 2 when feedback of notebooks not collected from Canvas was left out (listed)."""
    out = Path(api.coursedir.root) / "grader" / "exports" / f"feedback-{assignment}-canvas.zip"
    left_out = canvas_feedback_zip(api, assignment, out)
    print(f"wrote {out}: upload it in Canvas's assignment page -> Re-Upload Submissions")
    if left_out:
        print(f"LEFT OUT of {out} (not collected from a Canvas download): "
              f"{', '.join(left_out)}", file=sys.stderr)
    return EXIT_LEFT_OUT if left_out else 0



def report(api: NbGraderAPI, assignment: str, out: Path, json_out: Path | None) -> None:
    """Write the HTML grading report of ``assignment``, and its data as JSON to ``json_out``
    when given (see :func:`grader.review.report.write_report`)."""
    findings = write_report(api, assignment, out, json_out)
    not_run = len(findings.not_run)
    print(f"wrote {out}: {counted(not_run, 'submission')} did not run to completion, "
          f"{len(findings.flagged)} flagged")
    if json_out is not None:
        print(f"wrote {json_out}")


def similarity(api: NbGraderAPI, assignment: str, out: Path, threshold: float) -> None:
    """Write the similarity report of ``assignment`` (:mod:`grader.review.similarity`); print the
    pairs at or above ``threshold``. Changes no score."""
    try:
        result = compare(api, assignment, threshold)
    except ValueError as error:
        raise SystemExit(f"course: {error}") from None
    write_page(result, out)
    for match in result.flagged():  # the kept ones: at most SHOWN + NAMED per exercise
        print(f"{match.exercise}: {match.first.owner} and {match.second.owner} "
              f"{match.score:.2f}")
    print(f"wrote {out}: {counted(len(result.students), 'submission')} compared, "
          f"{counted(result.marked(), 'match', 'matches')} at or above {threshold:g} "
          "(no score changed)")


def due_date(text: str) -> datetime:
    """``--due``: a date as nbgrader reads one (``parse_utc``), as naive UTC."""
    try:
        return parse_utc(text)
    except (ValueError, OverflowError) as error:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} ({error})") from None


def _collect(api: NbGraderAPI, args: argparse.Namespace) -> int:
    """``course collect``: read the roster first (a bad one collects nothing), collect, then
    write the roster's names into the gradebook; exit 2 only when an entry was refused."""
    try:
        roster = read_roster(args.roster) if args.roster else None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SystemExit(f"course: cannot read the roster: {error}") from None
    record = collect(api, args.assignment, args.source, args.regexp, args.max_mb, args.due)
    if roster is not None:
        named, unnamed = name_students(api, roster, record.collected)
        print(f"roster {args.roster}: names, e-mails and LMS ids of {len(named)} students "
              "written to the gradebook")
        if unnamed:
            print(f"not on the roster (no name in the gradebook): {', '.join(unnamed)}",
                  file=sys.stderr)
    say_outcome(record)
    return EXIT_REFUSED if record.refused else 0


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
    p.add_argument("--force", action="store_true", help="release even when it changes the "
                   "tests of an assignment that already has submissions (exit 2 without); "
                   "with --exchange, also replace the exchange's copy")
    p.add_argument("--exchange", action="store_true", help="then release the named "
                   "assignments to nbgrader's exchange, where students fetch them in the "
                   "Assignments tab (the class hub; run it as the account that collects)")
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
    p.add_argument("--roster", type=Path, metavar="CSV",
                   help="Canvas's gradebook export (Grades -> Export) or Moodle's grade export: "
                   "first and last names, e-mails and LMS ids go into the gradebook")
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
    p.add_argument("--include-ungraded", action="store_true", help=INCLUDE_UNGRADED)
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
    p.add_argument("--include-ungraded", action="store_true", help=INCLUDE_UNGRADED)
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
    p = sub.add_parser("hub", help="the class on JupyterHub (README, 'A class on JupyterHub')")
    hub_commands = p.add_subparsers(dest="hub_command", required=True)
    p = hub_commands.add_parser("users", help="make the LMS roster's students, and the graders "
                                "and instructors named, hub users with Unix accounts (as root)")
    p.add_argument("roster", type=Path, metavar="ROSTER",
                   help="Canvas's gradebook export (the roster `course export` reads)")
    p.add_argument("--grader", action="append", default=[], metavar="NAME",
                   help="a grader's account name (repeat for each)")
    p.add_argument("--instructor", action="append", default=[], metavar="NAME",
                   help="an instructor's account name: a grader and the hub's admin")
    p.add_argument("--home", type=Path, default=Path("/home"),
                   help="where the accounts' home folders go (default: %(default)s)")
    p = hub_commands.add_parser("folders", help="make each roster student's own inbound and "
                                "feedback folders of the exchange (Kubernetes: README, 'The NFS "
                                "export's permissions'; run it in the formgrader's pod)")
    p.add_argument("roster", type=Path, metavar="ROSTER",
                   help="Canvas's gradebook export (the roster `course hub users` reads)")
    p = sub.add_parser("validate", help="run a notebook's tests; exit 1 if any fails")
    p.add_argument("notebook", type=Path, metavar="NOTEBOOK")
    return parser


def _hub(root: Path, args: argparse.Namespace) -> str:
    """``course hub users`` or ``course hub folders``: what changed, for the terminal."""
    from grader.hub.roster import hub_state_dir, roster_users, update_class  # imports JupyterHub

    if args.hub_command == "users":
        return update_class(args.roster, args.grader, args.instructor, hub_state_dir(),
                            args.home)
    config = load_config(root)
    course = Path(config.Exchange.root) / config.CourseDirectory.course_id
    students = [p.name for p in roster_users(args.roster) if p.role == "student"]
    made = make_account_folders(course, students)
    return (f"{len(students)} students' folders are in {course}; made now: "
            + (", ".join(made) or "none"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``course`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: 0 on success, 1 if any step failed; ``collect``: 2 when it refused an
        entry (everyone else is collected; the reasons are printed and recorded), 0 when it
        only skipped older submissions of students it collected; ``export
        --canvas``/``--moodle`` and ``feedback --canvas-zip``: 2 when graded students were left
        out of the LMS's file (they are listed); ``feedback`` and ``export``: 2 when students
        whose work waits for a hand grade were left out (listed with what waits; see
        :mod:`grader.handback.pending`); ``release``: 2 when it would change the tests of an
        assignment with submissions (nothing is released; ``--force`` releases anyway).
    """
    args = build_parser().parse_args(argv)
    root: Path = args.course_root.resolve()
    exports = root / "grader" / "exports"
    if args.command == "validate":
        reason = unavailable_reason()
        if reason:
            print(f"note: running your notebook unsandboxed ({reason}); grading runs it in the "
                  "sandbox")
        return 0 if validate(args.notebook, load_config(root)) else 1
    if args.command == "bundle":
        try:
            archive = bundle(root, args.out or exports / "student")
        except ValueError as error:
            raise SystemExit(f"course: {error}") from None
        print(f"wrote {archive.with_suffix('')}/ and {archive}")
        return 0
    if args.command == "hub":
        try:
            print(_hub(root, args))
        except ValueError as error:
            raise SystemExit(f"course: {error}") from None
        return 0
    api = make_api(root, args.db_url)
    if args.command == "new-exercise":
        return _new_exercise(api, args)
    if args.command == "release" and args.exchange:
        try:
            check_exchange_release(api, args.assignments)
        except ValueError as error:
            raise SystemExit(f"course release: {error}") from None
    if args.command in ("lint", "release"):
        if not lint_assignments(api, args.assignments, run=not args.no_run):
            print(f"course {args.command}: fix the problems above"
                  + (" (nothing was released)" if args.command == "release" else ""),
                  file=sys.stderr)
            return 1
        if args.command == "release":
            try:
                if release(api, args.assignments, args.force):
                    return 1
                return 1 if args.exchange and release_to_exchange(
                    api, args.assignments, args.force) else 0
            except ReleaseRefused as error:
                print(f"course release: {error}", file=sys.stderr)
                return RELEASE_REFUSED
            except ValueError as error:
                raise SystemExit(f"course: {error}") from None
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
        return _collect(api, args)
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
        held = feedback(api, args.assignment, args.include_ungraded)
        if held is None:
            return 1
        return (canvas_zip(api, args.assignment) if args.canvas_zip else 0) or held
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
                             args.assignments, args.zero_missing, args.include_ungraded)
    if args.moodle:
        return export_moodle(api, args.out or exports / "grades-moodle.csv", args.assignments,
                             args.moodle_key, args.zero_missing, args.include_ungraded)
    return export_grades(api, args.out or exports / "grades.csv", args.assignments,
                         args.include_ungraded)
