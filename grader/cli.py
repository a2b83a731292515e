"""``course``: the instructor's single entry point to nbgrader for this course.

Every subcommand runs nbgrader's own Python API (``NbGraderAPI``, ``Gradebook``,
``Validator``) in-process with the configuration in ``<course-root>/grader/nbgrader_config.py``,
so it behaves the same from any working directory and ignores stray nbgrader configs elsewhere.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbconvert.filters import strip_ansi
from nbgrader.api import MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.validator import Validator
from sqlalchemy.exc import SAWarning
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG_FILE = "nbgrader_config.py"


def load_config(course_root: Path) -> Config:
    """Load the course's nbgrader configuration.

    Parameters
    ----------
    course_root : Path
        Folder holding ``solutions/``, ``notebooks/`` and ``grader/nbgrader_config.py``.

    Returns
    -------
    Config
        The configuration; the file itself sets ``CourseDirectory.root`` to ``course_root``.
    """
    config_dir = course_root / "grader"
    if not (config_dir / CONFIG_FILE).is_file():
        raise SystemExit(f"course: no {config_dir / CONFIG_FILE}")
    return PyFileConfigLoader(CONFIG_FILE, path=str(config_dir)).load_config()


def make_api(course_root: Path) -> NbGraderAPI:
    """Return nbgrader's API object configured for the course at ``course_root``."""
    # nbgrader runs the `alembic` executable when it creates a gradebook; it lives next to the
    # interpreter, which is not on PATH when the venv is not activated (e.g. `.venv/bin/course`).
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    # SQLAlchemy 2.1 warns "... not in session" on every autograde; nbgrader's own code triggers
    # it and it is harmless, so keep it out of the instructor's terminal.
    warnings.filterwarnings("ignore", message=".*not in session", category=SAWarning)
    return NbGraderAPI(config=load_config(course_root))


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


def autograde(api: NbGraderAPI, assignment: str, students: Sequence[str] = ()) -> list[str]:
    """Autograde the submissions in ``grader/submitted/<student>/<assignment>/``.

    Runs ``nbgrader autograde --force --create`` once per student, so a submission that crashes
    the kernel or nbgrader costs only that student's run.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`make_api`.
    assignment : str
        Assignment id.
    students : sequence of str
        Student ids; empty means every student with a submission.

    Returns
    -------
    list of str
        The students whose autograding failed.
    """
    with api.gradebook as gb:
        try:
            gb.find_assignment(assignment)
            known = True
        except MissingEntry:
            known = False
    if not known:
        # Autograde restores test cells from the gradebook, which only a release fills in
        # (the gradebook is not committed). The release is deterministic, so this is harmless.
        print(f"{assignment} is not in the gradebook yet: releasing it first")
        if release(api, [assignment]):
            raise SystemExit(f"course: cannot autograde {assignment}: its release failed")
    students = sorted(students or api.get_submitted_students(assignment))
    if not students:
        print(f"no submissions for {assignment} in {api.coursedir.submitted_directory}/")
    failed = []
    for student in students:
        result = api.autograde(assignment, student, force=True, create=True)
        if not result["success"]:
            _report_failure(f"autograde {assignment} for {student}", result)
            failed.append(student)
            continue
        with api.gradebook as gb:
            sub = gb.find_submission(assignment, student)
            print(f"autograded {student}: {sub.score:g} / {sub.max_score:g}")
    return failed


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


def export_grades(api: NbGraderAPI, out: Path) -> int:
    """Write one CSV row per student with every assignment's score and maximum, and totals.

    A missing submission counts as score 0, as in ``nbgrader export``. Scores include manual
    grades once they are entered in the formgrader.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`make_api`.
    out : Path
        CSV file to write (parent folders are created).

    Returns
    -------
    int
        Number of student rows written.
    """
    with api.gradebook as gb:
        assignments = sorted(gb.assignments, key=lambda a: a.name)
        header = ["student_id", "last_name", "first_name"]
        for a in assignments:
            header += [f"{a.name}_score", f"{a.name}_max"]
        header += ["total_score", "total_max"]
        rows = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row: list[object] = [student.id, student.last_name or "", student.first_name or ""]
            total = total_max = 0.0
            for a in assignments:
                try:
                    score = gb.find_submission(a.name, student.id).score
                except MissingEntry:
                    score = 0.0
                row += [f"{score:g}", f"{a.max_score:g}"]
                total += score
                total_max += a.max_score
            rows.append([*row, f"{total:g}", f"{total_max:g}"])
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    print(f"wrote {len(rows)} students to {out}")
    return len(rows)


def validate(notebook: Path, config: Config) -> bool:
    """Run a notebook as nbgrader's Validate button does and print every failing test cell.

    Uses ``nbgrader.validator.Validator`` directly, because ``nbgrader validate`` exits 0 even
    when tests fail (nbgrader #1908).

    Parameters
    ----------
    notebook : Path
        Notebook to validate (executed with its folder as working directory).
    config : Config
        From :func:`load_config` (per-cell timeout).

    Returns
    -------
    bool
        True when every test cell passes and no locked cell was changed.
    """
    if not notebook.is_file():
        raise SystemExit(f"course: no notebook {notebook}")
    results = Validator(config=config).validate(str(notebook))
    names = {
        cell.source.strip(): cell.metadata["nbgrader"].get("grade_id", "?")
        for cell in nbformat.read(notebook, as_version=4).cells
        if "nbgrader" in cell.metadata
    }
    for cell in results.get("type_changed", []):
        print(f"FAIL {names.get(cell['source'], '?')}: cell type changed to {cell['new_type']}")
    for cell in results.get("changed", []):
        print(f"FAIL {names.get(cell['source'], '?')}: locked cell was modified")
    for cell in results.get("failed", []):
        lines = [ln for ln in strip_ansi(cell["raw_error"]).splitlines() if ln.strip()]
        print(f"FAIL {names.get(cell['source'], '?')}: {lines[-1] if lines else 'failed'}")
    print(f"{'FAILED' if results else 'PASSED'} {notebook}")
    return not results


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``course`` command."""
    parser = argparse.ArgumentParser(
        prog="course",
        description="Release, autograde, give feedback and export grades with nbgrader.",
    )
    parser.add_argument(
        "--course-root",
        type=Path,
        default=REPO_ROOT,
        help="course folder with solutions/, notebooks/, grader/ (default: %(default)s)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("release", help="generate notebooks/ from solutions/")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: all")
    p = sub.add_parser("autograde", help="autograde grader/submitted/*/ASSIGNMENT")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p.add_argument("--student", action="append", default=[], help="repeatable; default: all")
    p = sub.add_parser("feedback", help="write feedback HTML for autograded submissions")
    p.add_argument("assignment", metavar="ASSIGNMENT")
    p = sub.add_parser("export", help="write a grades CSV, one row per student")
    p.add_argument("--out", type=Path, help="default: grader/exports/grades.csv")
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
        Exit status: 0 on success, 1 if any step failed.
    """
    args = build_parser().parse_args(argv)
    root: Path = args.course_root.resolve()
    if args.command == "validate":
        return 0 if validate(args.notebook, load_config(root)) else 1
    api = make_api(root)
    if args.command == "release":
        return 1 if release(api, args.assignments) else 0
    if args.command == "autograde":
        return 1 if autograde(api, args.assignment, args.student) else 0
    if args.command == "feedback":
        return 0 if feedback(api, args.assignment) else 1
    export_grades(api, args.out or root / "grader" / "exports" / "grades.csv")
    return 0
