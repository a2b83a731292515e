"""LMS formats: Canvas's and Moodle's grade import CSVs, and Canvas's Re-Upload Submissions zip.

Each format follows the LMS's own code, cited where it is used:

- **Canvas gradebook import.** Canvas reads back the CSV its gradebook exports
  (canvas-lms ``lib/gradebook_exporter.rb`` writes it, ``lib/gradebook_importer.rb`` reads it):
  a header ``Student, ID, SIS User ID, SIS Login ID, Section`` then one column per assignment
  titled ``<title> (<assignment id>)``; a row ``"    Points Possible"``; one row per student.
  The importer finds a student by ``ID`` (Canvas's user id), then ``SIS User ID``, then
  ``SIS Login ID``, then the name, and an assignment by the id in its title. A blank cell (or
  ``-``) changes nothing; any other cell becomes the score. A column it does not know becomes
  a new assignment.
- **The roster** is that export, downloaded from Canvas (Grades -> Export). Students are
  matched to it by :func:`match_roster`. Moodle's roster is its grade export
  (``grade/export/txt``: ``First name, Last name, ID number, ..., Email address``), read by
  :func:`read_moodle_roster`. ``course collect --roster`` writes what either says into the
  gradebook (:func:`name_students`).
- **Moodle grade import** (docs.moodle.org, "Grade import"; ``grade/import/csv``): any
  columns; on the import page the instructor maps one column to the user (``ID number`` to
  ``useridnumber`` or ``Email address`` to ``useremail``) and each grade column to a grade
  item. A row whose user is unknown aborts the whole import, and a blank grade clears the
  grade, so only known students are written.
- **Canvas Re-Upload Submissions** (``app/models/assignment.rb``,
  ``generate_comments_from_files``): each file of the zip is attached as a comment to the
  submission whose user id and file id are the first two all-digit parts of its name, which is
  the name Canvas gave the student's file (:func:`grader.intake.collect.canvas_name`).
"""

from __future__ import annotations

import csv
import re
import unicodedata
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from nbgrader.apps import NbGraderAPI

from grader.core.files import read_regular
from grader.intake.collect import canvas_name, canvas_word, read_lms_record, safe_id

CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# The first cell of the points row, as Canvas's exporter writes it (four spaces included).
POINTS_POSSIBLE = "    Points Possible"
# Canvas's Assignment.title_and_id: "<title> (<id>)".
CANVAS_TITLE = re.compile(r"(?P<title>.*\S)\s+\((?P<id>\d+)\)")
# Columns of Canvas's export that are not assignments (totals, grades, overrides), as its
# importer's NON_ASSIGNMENT_COLUMN_HEADERS, "Unposted ..." variants included.
CANVAS_TOTALS = re.compile(r"Current (Score|Points|Grade)|Final (Score|Points|Grade)|"
                           r"Override (Score|Grade|Status)")
MOODLE_KEYS = {"idnumber": "ID number", "email": "Email address"}


@dataclass(frozen=True)
class RosterStudent:
    """One student row of Canvas's gradebook export."""

    name: str  # "Student": Canvas's sortable name, "Last, First"
    canvas_id: str  # "ID": Canvas's user id
    sis_user_id: str
    sis_login_id: str
    section: str


@dataclass(frozen=True)
class CanvasRoster:
    """Canvas's gradebook export: its students and assignment columns."""

    students: list[RosterStudent]
    points: dict[str, str]  # assignment column title -> its "Points Possible" cell


def _rows(path: Path) -> list[list[str]]:
    """The rows of a CSV Canvas wrote: UTF-8, perhaps with a byte-order mark, separated by
    commas or semicolons (a user's setting)."""
    text = path.read_text(encoding="utf-8-sig")
    first = text.partition("\n")[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    return [row for row in csv.reader(text.splitlines(), delimiter=delimiter) if any(row)]


def read_canvas_roster(path: Path) -> CanvasRoster:
    """Read Canvas's gradebook export (Grades -> Export -> Export Entire Gradebook).

    Raises
    ------
    ValueError
        When the file does not start like Canvas's export: a header whose first cells are
        ``Student`` (or ``LastName, FirstName``) and ``ID``, with a ``Section`` column.
    """
    rows = _rows(path)
    header = rows[0] if rows else []
    split_name = header[:2] == ["LastName", "FirstName"]
    if not (split_name or header[:2] == ["Student", "ID"]) or "Section" not in header:
        raise ValueError(f"{path} is not Canvas's gradebook export: its header should start "
                         f"with Student, ID (or LastName, FirstName, ID) and have a Section "
                         f"column, not {header[:5]}")
    at = {name: i for i, name in enumerate(header)}
    assignments = [title for title in header[at["Section"] + 1:]
                   if CANVAS_TITLE.fullmatch(title) and not CANVAS_TOTALS.search(title)]
    points: dict[str, str] = dict.fromkeys(assignments, "")
    students = []
    for row in rows[1:]:
        cell = dict(zip(header, row, strict=False))
        if POINTS_POSSIBLE.strip() in row[0]:
            points = {title: cell.get(title, "").strip() for title in assignments}
        elif all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row):
            continue  # Canvas's row marking assignments posted by hand
        else:
            name = (f"{cell.get('LastName', '')}, {cell.get('FirstName', '')}" if split_name
                    else cell.get("Student", ""))
            students.append(RosterStudent(name, cell.get("ID", ""), cell.get("SIS User ID", ""),
                                          cell.get("SIS Login ID", ""), cell.get("Section", "")))
    return CanvasRoster(students, points)


def download_name(sortable_name: str) -> str:
    """The student id ``course collect`` takes from Canvas's download for a student of this
    sortable name: Canvas lowercases it and keeps word characters (content_zipper.rb,
    ``sanitize_user_name`` and ``sanitize_file_name``, :func:`grader.intake.collect.canvas_word`);
    collect takes what precedes the first ``_``, in NFC, and maps it to a safe id."""
    name = "".join(filter(canvas_word, re.sub(r"_(\d+)_", r"\1", sortable_name).lower()))
    return safe_id(unicodedata.normalize("NFC", name).split("_")[0])


def _unique(keys: Iterable[str]) -> dict[str, int]:
    """Row index by key, for keys that are non-empty and name exactly one row."""
    found: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key:
            found.setdefault(key, []).append(index)
    return {key: rows[0] for key, rows in found.items() if len(rows) == 1}


def _first_free(tries: Mapping[str, list[tuple[dict[str, int], str | None]]]) -> dict[str, int]:
    """Each student's row: the first of their ``tries`` (an index of :func:`_unique`, a key)
    that finds a row no student before them (in sorted order) took."""
    matched: dict[str, int] = {}
    for student in sorted(tries):
        rows = [index[key] for index, key in tries[student] if key in index]
        free = [row for row in rows if row not in matched.values()]
        if free:
            matched[student] = free[0]
    return matched


def match_roster(roster: CanvasRoster, graded: Mapping[str, str | None]
                 ) -> tuple[dict[str, int], list[str]]:
    """Match graded students to roster rows.

    Parameters
    ----------
    roster : CanvasRoster
        From :func:`read_canvas_roster`.
    graded : mapping of str to (str or None)
        Each graded student id and the Canvas user id ``course collect`` found in their files
        (None when they did not come from a Canvas download).

    Returns
    -------
    (dict of str to int, list of str)
        Each matched student's roster row, and the students matched to no row. A student is
        matched, first found first, by Canvas user id (collected, or equal to the student id),
        SIS Login ID, SIS User ID, then the name Canvas's download gives them; a key that
        names two rows matches neither, and a row goes to one student only.
    """
    students = roster.students
    by_id = _unique(s.canvas_id for s in students)
    by_login = _unique(s.sis_login_id for s in students)
    by_sis = _unique(s.sis_user_id for s in students)
    by_name = _unique(download_name(s.name) for s in students)
    matched = _first_free({s: [(by_id, graded[s]), (by_id, s), (by_login, s), (by_sis, s),
                                (by_name, s)] for s in graded})
    return matched, sorted(set(graded) - set(matched))


@dataclass(frozen=True)
class MoodleUser:
    """One row of Moodle's grade export: the profile fields a roster needs."""

    first_name: str
    last_name: str
    idnumber: str  # "ID number": the institution's id, which the Moodle export keys on
    email: str


def read_moodle_roster(path: Path) -> list[MoodleUser]:
    """Read Moodle's grade export (Grades -> Export -> Plain text file), as a roster.

    Raises
    ------
    ValueError
        When the header lacks ``First name`` and ``Last name``, or has neither ``ID number``
        nor ``Email address``.
    """
    rows = _rows(path)
    header = rows[0] if rows else []
    if not {"First name", "Last name"} <= set(header) or not set(MOODLE_KEYS.values()) & set(
            header):
        raise ValueError(f"{path} is not Moodle's grade export: its header should have First "
                         f"name, Last name and ID number or Email address, not {header[:5]}")
    cells = [dict(zip(header, row, strict=False)) for row in rows[1:]]
    return [MoodleUser(c["First name"].strip(), c["Last name"].strip(),
                       c.get("ID number", "").strip(), c.get("Email address", "").strip())
            for c in cells]


def read_roster(path: Path) -> CanvasRoster | list[MoodleUser]:
    """Read a roster: Canvas's gradebook export (:func:`read_canvas_roster`) or Moodle's grade
    export (:func:`read_moodle_roster`), told apart by their header.

    Raises
    ------
    ValueError
        When it is neither, naming what each should start with.
    """
    try:
        return read_canvas_roster(path)
    except ValueError as canvas:
        try:
            return read_moodle_roster(path)
        except ValueError as moodle:
            raise ValueError(f"{canvas}; nor is it Moodle's: {moodle}") from None


@dataclass(frozen=True)
class RosterPerson:
    """What a roster says about one student, as nbgrader's ``Student`` keeps it ("": unknown)."""

    first_name: str
    last_name: str
    email: str
    lms_user_id: str  # Canvas's user id ("ID"); Moodle's export has none


def _canvas_person(row: RosterStudent) -> RosterPerson:
    """A Canvas roster row: its sortable name is "Last, First" (a name without ", ": last)."""
    last, _, first = row.name.partition(", ")
    return RosterPerson(first.strip(), last.strip(), "", row.canvas_id)


def roster_people(roster: CanvasRoster | list[MoodleUser],
                  students: Mapping[str, tuple[str | None, str | None]]
                  ) -> dict[str, RosterPerson]:
    """The roster's word on each student it names.

    Parameters
    ----------
    roster : CanvasRoster or list of MoodleUser
        From :func:`read_roster`.
    students : mapping of str to (str or None, str or None)
        Each student id and their Canvas user id and e-mail as the course knows them.

    Returns
    -------
    dict of str to RosterPerson
        The students found: on a Canvas roster by :func:`match_roster`; on a Moodle one by ID
        number (the student id), then e-mail. A key that names two rows matches neither, and
        a row goes to one student only.
    """
    if isinstance(roster, CanvasRoster):
        matched, _ = match_roster(roster, {s: user for s, (user, _) in students.items()})
        return {s: _canvas_person(roster.students[row]) for s, row in matched.items()}
    by_id = _unique(u.idnumber for u in roster)
    by_email = _unique(u.email.casefold() for u in roster)
    found = _first_free({s: [(by_id, s), (by_email, (email or "").casefold())]
                         for s, (_, email) in students.items()})
    return {s: RosterPerson(roster[row].first_name, roster[row].last_name, roster[row].email, "")
            for s, row in found.items()}


def name_students(api: NbGraderAPI, roster: CanvasRoster | list[MoodleUser],
                  collected: Iterable[str]) -> tuple[list[str], list[str]]:
    """Write the roster's names, e-mails and LMS ids into the gradebook (nbgrader's
    ``update_or_create_student``), for its students and those just ``collected``.

    What the roster leaves blank (Canvas's export has no e-mail) keeps the gradebook's value.
    ``grades.csv``, the Moodle export and the formgrader's student list show them.

    Returns
    -------
    (list of str, list of str)
        The students named, and those the roster does not name.
    """
    with api.gradebook as gb:
        known = {s.id: (s.lms_user_id, s.email) for s in gb.students}
        students = {s: known.get(s, (None, None)) for s in {*known, *collected}}
        people = roster_people(roster, students)
        for student, person in sorted(people.items()):
            gb.update_or_create_student(student, **{k: v for k, v in asdict(person).items()
                                                    if v})
    return sorted(people), sorted(set(students) - set(people))


@dataclass(frozen=True)
class CanvasColumn:
    """Where one assignment's scores go in the Canvas CSV."""

    assignment: str
    title: str  # Canvas's column title, "<title> (<id>)"; the assignment id if Canvas has none
    points: float  # Canvas's points possible; scores are scaled from ours to these
    known: bool  # whether the roster has the column (else Canvas creates an assignment)


def _normal(title: str) -> str:
    return re.sub(r"[\W_]+", " ", title).strip().casefold()


def canvas_columns(roster: CanvasRoster, maxima: Mapping[str, float]) -> list[CanvasColumn]:
    """The Canvas column of each assignment (by ``maxima``'s keys: assignment -> our points).

    The column is the roster's assignment whose title, ignoring case, spaces and punctuation,
    is the assignment id ("01 Perceptron (12345)" for ``01_perceptron``). Its points possible
    come from the roster's points row when it is a number, else ours.

    Raises
    ------
    ValueError
        When two roster columns fit one assignment.
    """
    columns = []
    for assignment, ours in maxima.items():
        fits = [t for t in roster.points
                if _normal(CANVAS_TITLE.fullmatch(t)["title"]) == _normal(assignment)]
        if len(fits) > 1:
            raise ValueError(f"Canvas has {len(fits)} columns for {assignment}: "
                             f"{', '.join(fits)}; rename all but one in Canvas")
        if not fits:
            columns.append(CanvasColumn(assignment, assignment, ours, False))
            continue
        try:
            points = float(roster.points[fits[0]])
        except ValueError:
            points = ours
        columns.append(CanvasColumn(assignment, fits[0], points, True))
    return columns


def points(value: float) -> str:
    """A score as Canvas writes one: at most two decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def canvas_rows(roster: CanvasRoster, columns: list[CanvasColumn],
                scores: Mapping[str, Mapping[str, float]], maxima: Mapping[str, float],
                matched: Mapping[str, int], zero_missing: bool) -> list[list[str]]:
    """The rows of the Canvas import CSV: header, points row, one row per roster student.

    ``scores[assignment][student]`` is a score out of ``maxima[assignment]`` (after any late
    penalty), scaled to the column's points. A roster student without a submission gets ``0``
    when ``zero_missing``, else a blank cell, which leaves Canvas's grade as it is.
    """
    by_row = {row: student for student, row in matched.items()}
    rows = [CANVAS_STUDENT_COLUMNS + [c.title for c in columns],
            [POINTS_POSSIBLE, "", "", "", ""] + [points(c.points) for c in columns]]
    for index, s in enumerate(roster.students):
        student = by_row.get(index)
        cells = []
        for c in columns:
            got = scores[c.assignment].get(student) if student else None
            scale = c.points / maxima[c.assignment] if maxima[c.assignment] else 1.0
            cells.append(points(got * scale) if got is not None else
                         "0" if zero_missing else "")
        rows.append([s.name, s.canvas_id, s.sis_user_id, s.sis_login_id, s.section, *cells])
    return rows


@dataclass(frozen=True)
class GradebookStudent:
    """A student as the gradebook knows them."""

    id: str
    first_name: str
    last_name: str
    email: str


def moodle_rows(students: list[GradebookStudent], assignments: list[str],
                scores: Mapping[str, Mapping[str, float]], key: str, zero_missing: bool
                ) -> tuple[list[list[str]], list[str]]:
    """The rows of the Moodle import CSV, and the students left out for want of a key.

    Columns: ``First name, Last name, ID number, Email address`` (Moodle's export names them
    so) and ``<assignment> (Real)`` per assignment. ``key`` (``idnumber``: the student id;
    ``email``: the gradebook's email) is the column mapped to the user on import; a student
    without one is left out, since an unknown user aborts Moodle's whole import. A student with
    no submission in any exported assignment is left out too (a blank would clear a grade),
    unless ``zero_missing``, which writes 0 for every missing submission.
    """
    if key not in MOODLE_KEYS:
        raise ValueError(f"the Moodle key is one of {', '.join(MOODLE_KEYS)}, not {key!r}")
    rows = [["First name", "Last name", *MOODLE_KEYS.values(),
             *(f"{a} (Real)" for a in assignments)]]
    missing = []
    for s in students:
        got = [scores[a].get(s.id) for a in assignments]
        if all(g is None for g in got) and not zero_missing:
            continue
        if not (s.id if key == "idnumber" else s.email):
            missing.append(s.id)
            continue
        rows.append([s.first_name, s.last_name, s.id, s.email,
                     *(points(g) if g is not None else "0" if zero_missing else "" for g in got)])
    return rows, missing


def reupload_name(prefix: str, notebook: str) -> str:
    """The name of a notebook's feedback in a Re-Upload Submissions zip: Canvas's name of the
    student's file up to its ids (what Canvas reads back), then the notebook, as HTML."""
    return f"{prefix}_{notebook}.html"


def canvas_feedback_zip(api: NbGraderAPI, assignment: str, out: Path) -> list[str]:
    """Write the feedback of ``assignment`` as a zip for Canvas's Re-Upload Submissions.

    Each ``grader/feedback/<student>/<assignment>/<notebook>.html`` goes in under
    :func:`reupload_name` of the Canvas name ``course collect`` recorded for that student's
    notebook (:func:`grader.intake.collect.lms_record_path`).

    Returns
    -------
    list of str
        ``"<student>/<notebook>"`` for each feedback file left out: its notebook did not come
        from a Canvas download.
    """
    root = Path(api.coursedir.root)
    arrivals = read_lms_record(root, assignment)
    left_out = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for student in sorted(api.get_submitted_students(assignment)):
            folder = Path(api.coursedir.format_path(api.coursedir.feedback_directory, student,
                                                    assignment))
            for page in sorted(folder.glob("*.html")):
                files = arrivals.get(student, {}).get("files", {})
                prefix = files.get(page.stem, {}).get("canvas_prefix")
                if prefix and canvas_name(reupload_name(prefix, page.stem)):
                    archive.writestr(reupload_name(prefix, page.stem), read_regular(page))
                else:
                    left_out.append(f"{student}/{page.stem}")
    return left_out
