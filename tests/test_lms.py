"""Grades and feedback back into the LMS, and late work, through nbgrader's real commands.

A class arrives as Canvas delivers it, "Download Submissions": on-time and ``LATE`` files, a
resubmission, a student's zip upload, a student Canvas has but the roster export does not, and
one more student from a plain folder whose file time is the only clue. It is collected with a
due date, autograded in the sandbox (nbgrader's ``AssignLatePenalties`` calls the course's
``LatePolicy``), regraded under each policy, exported for Canvas and Moodle, and its feedback
zipped for Canvas's "Re-Upload Submissions".

Where each oracle and fixture comes from (the LMS's own code, which defines its formats):

- Canvas's download names: canvas-lms ``lib/content_zipper.rb`` (``get_filename``: the
  lowercased sortable name stripped to word characters, ``LATE`` when late, the user id; then
  ``add_upload_submission``: the file's id and its name), e.g. ``leeamy_LATE_1001_5001_x.ipynb``.
- Canvas's re-upload: ``app/models/assignment.rb``, ``infer_comment_context_from_filename``:
  the first two all-digit ``_`` parts of a file's name are the user id and the id of the
  student's file; ``lms_support.canvas_reads_back`` is that rule.
- Canvas's gradebook CSV: ``lib/gradebook_exporter.rb`` writes it (the roster fixture
  :data:`ROSTER` is what it writes for this class, SIS ids included, with the "Manual Posting"
  and "Points Possible" rows and the read-only totals), ``lib/gradebook_importer.rb`` reads it
  back; :func:`canvas_import` follows the importer's rules.
- Moodle's grade import: docs.moodle.org "Grade import" (the import format is the export's;
  map ``ID number`` to ``useridnumber`` or ``Email address`` to ``useremail``) and
  ``grade/import/csv/classes/load_data.php`` (an unknown user aborts the import, ``''`` and
  ``-`` are no grade); the Moodle fixture :data:`MOODLE_EXPORT` has the columns of
  ``grade/export/txt/grade_export_txt.php``; :func:`moodle_import` follows load_data.php.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import math
import os
import re
import shutil
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from axe_support import chromium_page, problems
from browser_support import CHROMIUM_ARGS, require_chromium
from hypothesis import given
from hypothesis import strategies as st
from lms_support import canvas_reads_back
from nbgrader.api import Gradebook
from playwright.sync_api import sync_playwright

from grader.cli import main
from grader.core.api import make_api
from grader.handback.lms import canvas_columns, download_name, match_roster, read_canvas_roster
from grader.intake.collect import canvas_name, read_lms_record
from grader.kernel.sandbox import unavailable_reason
from grader.pipeline.late import DAY, LatePolicy, days_late, submission_time

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises"
WRITTEN = "eta_answer"  # the written answer, graded by hand
NB = f"{NOTEBOOK}.ipynb"
DUE = datetime(2025, 3, 1, 23, 59)  # UTC, as nbgrader keeps it
CANVAS_POINTS = 20.0  # the roster's points possible for "01 Perceptron (12345)"
PER_DAY = 0.25
# Written by Canvas's exporter for this course (Grades -> Export -> Export Entire Gradebook,
# with SIS ids): header, the "Manual Posting" row, "    Points Possible", one row per student
# in sortable-name order with the test student last, then read-only totals.
ROSTER = """\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,01 Perceptron (12345),\
02 Linear (12346),Current Points,Final Points,Current Score,Unposted Current Score,\
Final Score,Unposted Final Score
,,,,,Manual Posting,,,,,,,
    Points Possible,,,,,20.00,10.00,(read only),(read only),(read only),(read only),\
(read only),(read only)
"Kim, Bo",1002,S1002,bo.kim,Section A,,,0.00,0.00,,,0.00,0.00
"Lee, Amy",1001,S1001,amy.lee,Section A,,7.00,7.00,7.00,70.00,70.00,23.33,23.33
"Ng, Cai",1003,S1003,cai.ng,Section B,,,0.00,0.00,,,0.00,0.00
"Oz, Dan",1004,S1004,dan.oz,Section B,,,0.00,0.00,,,0.00,0.00
"Park, Eve",1005,S1005,eve.park,Section A,,,0.00,0.00,,,0.00,0.00
"Ray, Zara",1006,S1006,zara,Section A,,,0.00,0.00,,,0.00,0.00
"Student, Test",1999,,,Section A,,,0.00,0.00,,,0.00,0.00
"""
# What Moodle's grade export writes (grade_export_txt.php): profile fields, one
# "<module>: <item> (Real)" column per grade item, the export time.
MOODLE_EXPORT = """First name,Last name,ID number,Institution,Department,Email address,\
Assignment: 01 Perceptron (Real),Last downloaded from this course
Amy,Lee,leeamy,,,amy@uni.example,-,1740873600
Bo,Kim,kimbo,,,bo@uni.example,-,1740873600
Cai,Ng,ngcai,,,cai@uni.example,-,1740873600
Dan,Oz,ozdan,,,dan@uni.example,-,1740873600
Zara,Ray,zara,,,zara@uni.example,-,1740873600
Zoe,Zed,zedzoe,,,zoe@uni.example,-,1740873600
"""
pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())


def solved(written: str = "") -> bytes:
    """The instructor's notebook as a submission (full marks), with ``written`` as the
    written answer."""
    nb = nbformat.read(REPO / "solutions" / ASSIGNMENT / NB, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if written and cell.cell_type == "markdown" and meta.get("solution"):
            cell.source = written
    return nbformat.writes(nb).encode()


def zipped(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# A written answer with every kind of formula the feedback must draw offline.
MATH_ANSWER = (r"The update is $w \leftarrow w + \eta\, y_i x_i$, and"
               "\n\n$$\\sum_{i=1}^{n} \\max(0, -y_i\\, w \\cdot x_i)$$\n\n"
               r"\begin{aligned} a &= b \\ c &= d \end{aligned}")
# Canvas's download: name -> content. Canvas marks kimbo and ngcai late.
DOWNLOAD = {
    f"leeamy_1001_5001_{NB}": solved(MATH_ANSWER),
    f"kimbo_LATE_1002_5002_{NB}": solved(),
    f"ngcai_1003_5003_{NB}": solved(),  # the first try, on time
    f"ngcai_LATE_1003_5004_{NOTEBOOK}-1.ipynb": solved(),  # the resubmission, late: graded
    "ozdan_1004_5005_upload.zip": zipped({NB: solved()}),
    f"zedzoe_1099_5099_{NB}": solved(),  # in Canvas's download, not in the roster export
}
CANVAS_STUDENTS = {"leeamy": ("1001", "5001", False), "kimbo": ("1002", "5002", True),
                   "ngcai": ("1003", "5004", True), "ozdan": ("1004", "5005", False),
                   "zedzoe": ("1099", "5099", False)}
ZARA_LATE = timedelta(days=2, hours=12)  # by her file's time: 3 days, a part counting as one


@dataclass
class CanvasImport:
    """What Canvas's gradebook importer makes of a CSV (lib/gradebook_importer.rb)."""

    grades: dict[str, dict[str, str]]  # Canvas user id -> assignment id -> grade ("" = none)
    new_assignments: list[str]
    unknown_students: list[str]


def canvas_import(path: Path, roster: list[dict[str, str]], assignment_ids: set[str]
                  ) -> CanvasImport:
    """The importer's rules: the header (``Student``, ``ID``; ``SIS User ID`` then
    ``SIS Login ID`` make five student columns, the fifth ``Section``), assignments by the id in
    "<title> (<id>)", the "Points Possible" and "Manual Posting" rows skipped, students by ID,
    then SIS User ID, then SIS Login ID, then name; a blank cell or "-" is no change."""
    rows = list(csv.reader(path.read_text().splitlines()))
    header = rows[0]
    assert "Student" in header[0] and "ID" in header[1], header
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4], header
    columns = {}
    new = []
    for index, title in enumerate(header[5:], start=5):
        found = re.fullmatch(r"(.*)\s\((\d+)\)", title)
        if found and found[2] in assignment_ids:
            columns[index] = found[2]
        else:
            new.append(title)
    by = {key: {r[key]: r["ID"] for r in roster if r[key]}
          for key in ("ID", "SIS User ID", "SIS Login ID", "Student")}
    grades, unknown = {}, []
    for row in rows[1:]:
        if "Points Possible" in row[0] or all(
                re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row):
            continue
        user = (by["ID"].get(row[1]) or by["SIS User ID"].get(row[2])
                or by["SIS Login ID"].get(row[3]) or by["Student"].get(row[0]))
        if user is None:
            unknown.append(row[0])
            continue
        grades[user] = {a: "" if row[i].strip() in ("", "-") else row[i].strip()
                        for i, a in columns.items()}
    return CanvasImport(grades, new, unknown)


def moodle_import(path: Path, users: list[dict[str, str]], map_from: str, field: str
                  ) -> dict[str, str | None]:
    """Moodle's load_data.php for one grade column: the row's user by ``field`` ("idnumber"
    or "email") from column ``map_from``, an unknown user aborting the import; "" and "-" are
    no grade; anything else must be a number. Returns Moodle user (email) -> grade."""
    rows = list(csv.reader(path.read_text().splitlines()))
    header, key = rows[0], {"idnumber": "ID number", "email": "Email address"}[field]
    grade_columns = [i for i, h in enumerate(header) if h.endswith("(Real)")]
    assert len(grade_columns) == 1, header
    found: dict[str, str | None] = {}
    for row in rows[1:]:
        if len(row) <= 1:
            continue
        matches = [u for u in users if u[key] == row[header.index(map_from)]]
        assert len(matches) == 1, f"Moodle aborts the import: user {row} not found"
        value = row[grade_columns[0]].strip()
        found[matches[0]["Email address"]] = None if value in ("", "-") else str(float(value))
    return found


@dataclass
class GradedClass:
    root: Path
    codes: dict[str, int]
    out: dict[str, str]
    err: dict[str, str]


def run(root: Path, name: str, *args: str, codes: dict, out: dict, err: dict) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        codes[name] = main(["--course-root", str(root), *args])
    out[name], err[name] = stdout.getvalue(), stderr.getvalue()


def grade_by_hand(root: Path, grades: dict[str, tuple[float, str | None]]) -> None:
    """Grade each student's written answer as the formgrader saves a grade and a comment
    (nbgrader's GradeHandler.put and CommentHandler.put): student -> (score, comment)."""
    with gradebook(root) as gb:
        for student, (score, comment) in grades.items():
            grade = gb.find_grade(WRITTEN, NOTEBOOK, ASSIGNMENT, student)
            grade.manual_score, grade.needs_manual_grade = score, False
            gb.find_comment(WRITTEN, NOTEBOOK, ASSIGNMENT, student).manual_comment = comment
        gb.db.commit()


def set_policy(root: Path, **settings: object) -> None:
    """Append the late policy to the course copy's config, as an instructor edits it."""
    with (root / "grader" / "nbgrader_config.py").open("a") as fh:
        for name, value in settings.items():
            fh.write(f"c.LatePolicy.{name} = {value!r}\n")


@pytest.fixture(scope="module")
def graded(copy_course: Callable[..., Path], tmp_path_factory) -> Iterator[GradedClass]:
    root = copy_course("solutions", "notebooks")
    lms = tmp_path_factory.mktemp("lms")
    (lms / "submissions.zip").write_bytes(zipped(DOWNLOAD))
    folder = lms / "folder" / "zara"
    folder.mkdir(parents=True)
    (folder / NB).write_bytes(solved())
    stamp = (DUE + ZARA_LATE - datetime(1970, 1, 1)).total_seconds()
    os.utime(folder / NB, (stamp, stamp))
    (lms / "roster.csv").write_text(ROSTER, encoding="utf-8")
    set_policy(root, kind="per_day", per_day=PER_DAY)
    codes: dict[str, int] = {}
    out: dict[str, str] = {}
    err: dict[str, str] = {}
    roster = ["--roster", str(lms / "roster.csv")]
    steps = [("collect canvas", ["collect", ASSIGNMENT, str(lms / "submissions.zip"), "--due",
                                 "2025-03-01 23:59 UTC", *roster]),
             ("collect folder", ["collect", ASSIGNMENT, str(lms / "folder"), *roster]),
             ("autograde", ["autograde", ASSIGNMENT, "--jobs", "3"])]
    for name, args in steps:
        run(root, name, *args, codes=codes, out=out, err=err)
    # The written answers graded by hand, 0 each: the scores stay the autograder's.
    grade_by_hand(root, dict.fromkeys([*CANVAS_STUDENTS, "zara"], (0.0, None)))
    steps = [("export", ["export"]),
             ("export canvas", ["export", ASSIGNMENT, "--canvas", str(lms / "roster.csv")]),
             ("export canvas zero", ["export", "--canvas", str(lms / "roster.csv"),
                                     "--zero-missing", "--out",
                                     str(root / "grader" / "exports" / "zero.csv")]),
             ("feedback", ["feedback", ASSIGNMENT, "--canvas-zip"])]
    for name, args in steps:
        run(root, name, *args, codes=codes, out=out, err=err)
    yield GradedClass(root, codes, out, err)


def gradebook(root: Path) -> Gradebook:
    return Gradebook(f"sqlite:///{root / 'grader' / 'gradebook.db'}")


def raw_scores(root: Path) -> dict[str, float]:
    with gradebook(root) as gb:
        return {s.student.id: s.score for s in gb.find_assignment(ASSIGNMENT).submissions}


def stored_penalties(root: Path) -> dict[str, float]:
    """What nbgrader's AssignLatePenalties stored, per student, over the notebooks."""
    with gradebook(root) as gb:
        return {s.student.id: sum(nb.late_submission_penalty or 0.0 for nb in s.notebooks)
                for s in gb.find_assignment(ASSIGNMENT).submissions}


# ---- no kernel: names, formats and the policy -------------------------------------------


@pytest.mark.parametrize(("name", "expected"), [
    (f"leeamy_1001_5001_{NB}", ("leeamy_1001_5001", "1001", "5001", False)),
    (f"kimbo_LATE_1002_5002_{NOTEBOOK}-1.ipynb", ("kimbo_LATE_1002_5002", "1002", "5002", True)),
    ("müllerjörg_LATE_7_8_a_b_c.ipynb", ("müllerjörg_LATE_7_8", "7", "8", True)),
    # Canvas keeps Ruby's [[:word:]], combining marks included: "pérezjosé" written in NFD
    (unicodedata.normalize("NFD", f"pérezjosé_LATE_7_8_{NB}"),
     (unicodedata.normalize("NFD", "pérezjosé_LATE_7_8"), "7", "8", True)),
    (f"ada_1000_{NB}", None),  # one id only
    (f"1001_5001_{NB}", None),  # no name
    (f"amy_1001_x_5001_{NB}", None),  # ids not adjacent
    (f"<img src=x>_1007_5007_{NB}", None),  # not word characters: not Canvas's
    ("amy_1001_5001", None),  # no file after the ids
])
def test_canvas_names_are_read_as_canvas_writes_and_reads_them(name, expected) -> None:
    found = canvas_name(name)
    assert (found and (found.prefix, found.user_id, found.file_id, found.late)) == expected
    if found:  # what Canvas's re-upload reads from the name agrees
        assert canvas_reads_back(name) == (found.user_id, found.file_id)


def test_a_student_cannot_mark_their_own_file_late_or_change_its_ids() -> None:
    # Canvas puts the student's own file name last: "LATE" or digits in it change nothing.
    found = canvas_name(f"amy_1001_5001_x_LATE_999_888_{NB}")
    assert (found.user_id, found.file_id, found.late) == ("1001", "5001", False)


@given(st.floats(0, 30 * DAY), st.floats(0, 100), st.floats(0, 1))
def test_per_day_takes_the_fraction_per_started_day_up_to_the_score(seconds, score, rate):
    policy = LatePolicy(kind="per_day", per_day=rate)
    penalty = policy.late_submission_penalty("s", score, seconds)
    started = math.ceil(seconds / DAY)  # a part of a day is a day; on time is 0 days
    assert penalty == pytest.approx(min(score, score * rate * started), rel=1e-12, abs=1e-12)
    assert 0 <= penalty <= score


@given(st.floats(0, 30 * DAY), st.floats(0, 100), st.floats(0, 10))
def test_cutoff_takes_nothing_then_everything(seconds, score, cutoff):
    penalty = LatePolicy(kind="cutoff", cutoff_days=cutoff).late_submission_penalty(
        "s", score, seconds)
    assert penalty == (score if seconds > cutoff * DAY else 0.0)
    assert LatePolicy().late_submission_penalty("s", score, seconds) == 0.0  # kind "none"


@pytest.mark.parametrize("settings", [{"per_day": 1.5}, {"per_day": -0.1},
                                      {"cutoff_days": -1.0}, {"kind": "weekly"}])
def test_a_policy_out_of_range_is_refused_with_its_name(settings) -> None:
    name = next(iter(settings))
    with pytest.raises(Exception, match=name if name != "kind" else "weekly"):
        LatePolicy(**settings)


def test_days_late_count_a_started_day() -> None:
    assert [days_late(s) for s in (0, 1, DAY, DAY + 1, 2.5 * DAY)] == [0, 1, 1, 2, 3]


def test_submission_times_follow_what_the_download_can_say() -> None:
    file_time = DUE + timedelta(days=9)  # Canvas's zip is built after the deadline
    assert submission_time(None, file_time, DUE) == (file_time, "file time")
    assert submission_time(False, file_time, DUE) == (None, "Canvas: on time")
    assert submission_time(True, file_time, DUE) == (DUE + timedelta(seconds=1),
                                                     "Canvas: LATE, time unknown")
    assert submission_time(True, file_time, None) == (None, "Canvas: LATE, no due date")


def roster(tmp_path: Path, text: str = ROSTER) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_roster_is_read_as_canvas_exports_it(tmp_path: Path) -> None:
    found = read_canvas_roster(roster(tmp_path))
    assert [s.canvas_id for s in found.students] == ["1002", "1001", "1003", "1004", "1005",
                                                     "1006", "1999"]
    assert found.points == {"01 Perceptron (12345)": "20.00", "02 Linear (12346)": "10.00"}
    amy = found.students[1]
    assert (amy.name, amy.sis_user_id, amy.sis_login_id, amy.section) == (
        "Lee, Amy", "S1001", "amy.lee", "Section A")
    semicolons = roster(tmp_path, ROSTER.replace(",", ";").replace('"Kim; Bo"', '"Kim, Bo"'))
    assert [s.canvas_id for s in read_canvas_roster(semicolons).students][:2] == ["1002", "1001"]


@pytest.mark.parametrize("text", ["", "Name,Email\nAmy,a@x\n", "Student,ID\nAmy,1\n"])
def test_a_file_that_is_not_canvas_export_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ValueError, match="not Canvas's gradebook export"):
        read_canvas_roster(roster(tmp_path, text))


def test_students_are_matched_by_id_then_sis_then_the_download_name(tmp_path: Path) -> None:
    found = read_canvas_roster(roster(tmp_path))
    row = {s.canvas_id: i for i, s in enumerate(found.students)}
    assert download_name("Lee, Amy") == "leeamy"  # Canvas: lowercase, word characters only
    matched, unmatched = match_roster(found, {
        "someone": "1003",  # the Canvas user id collect kept wins over the name
        "leeamy": None,  # Canvas's download name
        "dan.oz": None,  # SIS Login ID
        "S1002": None,  # SIS User ID
        "nobody": None, "ghost": "4242"})
    assert matched == {"someone": row["1003"], "leeamy": row["1001"], "dan.oz": row["1004"],
                       "S1002": row["1002"]}
    assert unmatched == ["ghost", "nobody"]
    twins = roster(tmp_path, ROSTER.replace('"Ng, Cai"', '"Lee, Amy"'))
    assert match_roster(read_canvas_roster(twins), {"leeamy": None})[1] == ["leeamy"]


def test_a_moodle_roster_names_the_students_in_the_gradebook(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    users = list(csv.DictReader(MOODLE_EXPORT.splitlines()))
    download = tmp_path / "download"
    for u in users[:3]:  # a folder per student, named by their ID number
        (download / u["ID number"]).mkdir(parents=True)
        (download / u["ID number"] / NB).write_bytes(solved())
    moodle = roster(tmp_path, MOODLE_EXPORT)
    codes: dict[str, int] = {}
    run(root, "collect", "collect", ASSIGNMENT, str(download), "--roster", str(moodle),
        codes=codes, out={}, err={})
    run(root, "export", "export", codes=codes, out={}, err={})
    assert codes == {"collect": 0, "export": 0}
    listed = {s["id"]: (s["first_name"], s["last_name"], s["email"])
              for s in make_api(root).get_students()}
    with (root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = {r["student_id"]: (r["first_name"], r["last_name"]) for r in csv.DictReader(fh)}
    for u in users[:3]:
        assert listed[u["ID number"]] == (u["First name"], u["Last name"], u["Email address"])
        assert rows[u["ID number"]] == (u["First name"], u["Last name"])
    assert len(listed) == 3  # the roster's other users are not added


def test_a_roster_neither_lms_writes_is_refused_before_collecting(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    with pytest.raises(SystemExit, match="not Canvas's gradebook export.*nor is it Moodle's"):
        main(["--course-root", str(root), "collect", ASSIGNMENT, str(tmp_path),
              "--roster", str(roster(tmp_path, "Name,Email\nAmy,a@x\n"))])
    assert not (root / "grader" / "submitted").exists()


def test_columns_are_canvas_titles_and_points(tmp_path: Path) -> None:
    found = read_canvas_roster(roster(tmp_path))
    columns = canvas_columns(found, {"01_perceptron": 12.0, "03_kernels": 9.0})
    assert [(c.title, c.points, c.known) for c in columns] == [
        ("01 Perceptron (12345)", 20.0, True), ("03_kernels", 9.0, False)]
    clash = roster(tmp_path, ROSTER.replace("02 Linear (12346)", "01 perceptron (999)"))
    with pytest.raises(ValueError, match="2 columns for 01_perceptron"):
        canvas_columns(read_canvas_roster(clash), {"01_perceptron": 12.0})


# ---- a class through nbgrader ----------------------------------------------------------


def test_the_class_is_collected_graded_and_exported(graded: GradedClass) -> None:
    # collect exits 0: ngcai's first try, older than the resubmission, is a routine skip
    assert "older duplicate" in graded.err["collect canvas"]
    assert "routine, nothing refused: exit status 0" in graded.out["collect canvas"]
    assert graded.codes == {"collect canvas": 0, "collect folder": 0, "autograde": 0,
                            "export": 0, "export canvas": 2, "export canvas zero": 2,
                            "feedback": 2}, graded.err
    assert "submissions Canvas marked LATE: 2 (kimbo, ngcai)" in graded.out["collect canvas"]


def test_collect_keeps_canvas_ids_and_the_late_marker_with_each_student(graded) -> None:
    record = read_lms_record(graded.root, ASSIGNMENT)
    assert sorted(record) == sorted([*CANVAS_STUDENTS, "zara"])
    for student, (user, file_id, late) in CANVAS_STUDENTS.items():
        arrival = record[student]
        assert (arrival["canvas_user_id"], arrival["late"]) == (user, late), student
        prefix = arrival["files"][NOTEBOOK]["canvas_prefix"]
        assert canvas_reads_back(prefix + "_x") == (user, file_id), student
    assert record["zara"]["late"] is None and record["zara"]["timestamp_from"] == "file time"


def test_the_roster_names_reach_the_gradebook_and_grades_csv(graded: GradedClass) -> None:
    by_user = {r["ID"]: r for r in roster_rows()}
    users = {student: user for student, (user, _, _) in CANVAS_STUDENTS.items()} | {
        "zara": next(r["ID"] for r in roster_rows() if r["SIS Login ID"] == "zara")}
    expected = {student: (*by_user[user]["Student"].split(", ")[::-1], user)
                for student, user in users.items() if user in by_user}
    assert sorted(set(users) - set(expected)) == ["zedzoe"]  # Canvas has her; the roster not
    with (graded.root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = {r["student_id"]: (r["first_name"], r["last_name"]) for r in csv.DictReader(fh)}
    # the formgrader's "Manage Students" lists nbgrader's API's students
    listed = {s["id"]: (s["first_name"], s["last_name"], s["lms_user_id"])
              for s in make_api(graded.root).get_students()}
    for student, (first, last, user) in expected.items():
        assert rows[student] == (first, last), student
        assert listed[student] == (first, last, user), student
    assert rows["zedzoe"] == ("", "") and listed["zedzoe"][2] == "1099"  # her Canvas id only
    assert "not on the roster (no name in the gradebook): zedzoe" in graded.err["collect canvas"]


def test_nbgrader_sees_the_submission_times(graded: GradedClass) -> None:
    with gradebook(graded.root) as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate == DUE
        seconds = {s.student.id: s.total_seconds_late
                   for s in gb.find_assignment(ASSIGNMENT).submissions}
    assert seconds == {"leeamy": 0, "kimbo": 1, "ngcai": 1, "ozdan": 0, "zedzoe": 0,
                       "zara": ZARA_LATE.total_seconds()}


def expected_penalty(kind: str, score: float, seconds: float) -> float:
    """The policies as the README states them, computed here by hand."""
    if seconds <= 0 or kind == "none":
        return 0.0
    if kind == "cutoff":  # cutoff_days = 1 below: zara (2.5 days) loses all, a LATE file nothing
        return score if seconds > DAY else 0.0
    return min(score, score * PER_DAY * math.ceil(seconds / DAY))


def late_seconds(student: str) -> float:
    return {"kimbo": 1.0, "ngcai": 1.0, "zara": ZARA_LATE.total_seconds()}.get(student, 0.0)


def test_per_day_penalties_are_applied_by_nbgrader(graded: GradedClass) -> None:
    raw = raw_scores(graded.root)
    assert min(raw.values()) > 0, raw  # full marks but the written answer: penalties show
    assert stored_penalties(graded.root) == pytest.approx(
        {s: expected_penalty("per_day", raw[s], late_seconds(s)) for s in raw}, abs=1e-9)


@pytest.mark.parametrize("kind", ["none", "cutoff"])
def test_each_policy_is_applied_by_nbgrader_on_a_regrade(graded, kind, tmp_path) -> None:
    root = tmp_path / "course"
    shutil.copytree(graded.root, root, ignore=shutil.ignore_patterns("exports"))
    set_policy(root, kind=kind, cutoff_days=1.0)
    codes: dict[str, int] = {}
    run(root, "regrade", "autograde", ASSIGNMENT, "--student", "kimbo", "--student", "zara",
        codes=codes, out={}, err={})
    assert codes == {"regrade": 0}
    raw, stored = raw_scores(root), stored_penalties(root)
    for student in ("kimbo", "zara"):
        assert stored[student] == pytest.approx(
            expected_penalty(kind, raw[student], late_seconds(student)), abs=1e-9), student


def test_the_course_csv_shows_lateness_per_student(graded: GradedClass) -> None:
    with (graded.root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    raw = raw_scores(graded.root)
    for student, score in raw.items():
        penalty = expected_penalty("per_day", score, late_seconds(student))
        row = rows[student]
        assert float(row[f"{ASSIGNMENT}_late_penalty"]) == pytest.approx(penalty, abs=1e-9)
        assert float(row[f"{ASSIGNMENT}_score"]) == pytest.approx(score - penalty, abs=1e-9)
        assert int(row[f"{ASSIGNMENT}_days_late"]) == math.ceil(late_seconds(student) / DAY)
    # one assignment graded: one assignment written, not all 15 (issue 27)
    assert [c for c in rows["zara"] if c.endswith("_max") and c != "total_max"] == [
        f"{ASSIGNMENT}_max"]


def roster_rows() -> list[dict[str, str]]:
    rows = list(csv.DictReader(ROSTER.lstrip("\ufeff").splitlines()))
    return [r for r in rows if r["ID"]]


def test_the_canvas_csv_imports_as_canvas_reads_it(graded: GradedClass) -> None:
    path = graded.root / "grader" / "exports" / "grades-canvas.csv"
    header = next(csv.reader(path.read_text().splitlines()))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                      "01 Perceptron (12345)"]
    imported = canvas_import(path, roster_rows(), {"12345", "12346"})
    assert imported.new_assignments == [] and imported.unknown_students == []
    with gradebook(graded.root) as gb:
        maximum = gb.find_assignment(ASSIGNMENT).max_score
    raw = raw_scores(graded.root)
    canvas_ids = {"leeamy": "1001", "kimbo": "1002", "ngcai": "1003", "ozdan": "1004",
                  "zara": "1006"}
    for student, user in canvas_ids.items():
        final = raw[student] - expected_penalty("per_day", raw[student], late_seconds(student))
        got = float(imported.grades[user]["12345"])
        # Canvas keeps two decimals; scaled from our points to Canvas's 20
        assert got == pytest.approx(final * CANVAS_POINTS / maximum, abs=0.005), student
    assert imported.grades["1005"]["12345"] == ""  # Eve submitted nothing: Canvas unchanged
    assert imported.grades["1999"]["12345"] == ""
    assert "LEFT OUT" in graded.err["export canvas"] and "zedzoe" in graded.err["export canvas"]
    zero = canvas_import(graded.root / "grader" / "exports" / "zero.csv", roster_rows(),
                         {"12345"})
    assert zero.grades["1005"]["12345"] == "0"


def test_the_moodle_csv_imports_as_moodle_reads_it(graded, tmp_path) -> None:
    users = list(csv.DictReader(MOODLE_EXPORT.splitlines()))
    raw = raw_scores(graded.root)
    for key, map_from in (("idnumber", "ID number"), ("email", "Email address")):
        if key == "email":  # the gradebook learns the emails as nbgrader's db commands set them
            with gradebook(graded.root) as gb:
                for u in users:
                    gb.update_or_create_student(u["ID number"], email=u["Email address"])
                gb.update_or_create_student("zara", email="")
        out = tmp_path / f"moodle-{key}.csv"
        codes: dict[str, int] = {}
        err: dict[str, str] = {}
        run(graded.root, "moodle", "export", "--moodle", "--moodle-key", key, "--out", str(out),
            codes=codes, out={}, err=err)
        grades = moodle_import(out, users, map_from, key)
        expected = {u["Email address"]: raw[u["ID number"]] - expected_penalty(
            "per_day", raw[u["ID number"]], late_seconds(u["ID number"]))
            for u in users if key == "idnumber" or u["ID number"] != "zara"}
        assert {u: float(g) for u, g in grades.items()} == pytest.approx(expected, abs=0.005)
        assert codes["moodle"] == (2 if key == "email" else 0), err
        assert ("zara" in err["moodle"]) == (key == "email")


def test_the_reupload_zip_names_match_the_download(graded: GradedClass) -> None:
    path = graded.root / "grader" / "exports" / f"feedback-{ASSIGNMENT}-canvas.zip"
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        pages = {n: archive.read(n) for n in names}
    assert len(names) == len(CANVAS_STUDENTS)
    by_user = {canvas_reads_back(n): n for n in names}
    for student, (user, file_id, late) in CANVAS_STUDENTS.items():
        name = by_user[user, file_id]  # Canvas attaches it to that student's file
        kept = next(n for n in DOWNLOAD if f"_{user}_{file_id}_" in n)
        assert name.split(f"_{file_id}_")[0] == kept.split(f"_{file_id}_")[0], (name, kept)
        assert ("_LATE_" in name) == late
        feedback = graded.root / "grader" / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"
        assert pages[name] == feedback.read_bytes()
    assert "zara/perceptron_exercises" in graded.err["feedback"]  # not from Canvas: listed


def test_feedback_is_self_contained_and_draws_its_math_offline(graded, tmp_path) -> None:
    page_path = graded.root / "grader" / "feedback" / "leeamy" / ASSIGNMENT / f"{NOTEBOOK}.html"
    assert "<script" not in page_path.read_text().lower()  # MathML needs none
    copy = tmp_path / "offline.html"  # alone in a folder: nothing beside it to load
    shutil.copy(page_path, copy)
    requests: list[str] = []
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=require_chromium(), headless=True,
            args=CHROMIUM_ARGS, offline=True)
        try:
            page = context.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.goto(copy.as_uri())
            page.wait_for_load_state("load")
            boxes = page.eval_on_selector_all(
                "math", "ms => ms.map(m => [m.getAttribute('display'), "
                "m.getBoundingClientRect().width, m.getBoundingClientRect().height])")
            text = page.inner_text("body")
        finally:
            context.close()
    assert requests == [copy.as_uri()]
    # the statement's formula, the answer's inline, display and aligned ones: all drawn
    assert len(boxes) >= 4, boxes
    assert all(w > 5 and h > 5 for _, w, h in boxes), boxes
    assert sorted(d for d, _, _ in boxes).count("block") >= 2
    assert "$" not in text and "\\begin" not in text and "\\frac" not in text


def test_the_report_lists_the_late_submissions_with_their_penalty(graded, tmp_path) -> None:
    out = tmp_path / "report.html"
    codes: dict[str, int] = {}
    run(graded.root, "report", "report", ASSIGNMENT, "--out", str(out), codes=codes, out={},
        err={})
    assert codes == {"report": 0}
    section = out.read_text().split('<section id="late">')[1].split("</section>")[0]
    assert "25% of the score per day (or part of a day) late" in section
    rows = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td><td>[^<]*</td><td>(\d+)</td>"
                      r"<td>([^<]*)</td><td>[^<]*</td></tr>", section)
    raw = raw_scores(graded.root)
    late = ("kimbo", "ngcai", "zara")
    assert {s: int(d) for s, d, _ in rows} == {s: math.ceil(late_seconds(s) / DAY) for s in late}
    assert {s: float(p) for s, _, p in rows} == pytest.approx(
        {s: expected_penalty("per_day", raw[s], late_seconds(s)) for s in late}, abs=1e-9)


# ---- a regrade waits for a hand grade; one score per student everywhere (issue 34) --------

# The written answers as the instructor grades them in the formgrader: (score, comment).
HAND = {"leeamy": (2.0, "Right: induction on the number of updates (MMDS 12.2)."),
        "kimbo": (1.5, "Say why the mistakes stay the same."),
        "ngcai": (2.0, None), "ozdan": (1.0, "Half: the scale argument is missing."),
        "zedzoe": (2.0, None), "zara": (2.0, None)}
RESUBMITTED = "eta only rescales w, so every sign, and so every mistake, stays the same."
WAITING_LINE = f"kimbo: {ASSIGNMENT}/{WRITTEN} (answer changed after its hand grade: regrade)"
# What the grader's note says, none of which a student may read.
NOTE_WORDS = ("Regrade", "Previous score", "grader's note", "kept until you change it")


@dataclass
class Regraded(GradedClass):
    zips: dict[str, dict[str, str]]  # feedback step -> zip entry -> page
    folders: dict[str, list[str]]  # feedback step -> students with a feedback folder after it


def zip_pages(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


@pytest.fixture(scope="module")
def regraded(graded: GradedClass, tmp_path_factory) -> Regraded:
    """The class graded by hand; then kimbo's written answer changes (a resubmission) and is
    regraded, so it waits for a hand grade again, with the grader's note in its comment box;
    then feedback and the exports, by default and with --include-ungraded."""
    tmp = tmp_path_factory.mktemp("regraded")
    root = tmp / "course"
    shutil.copytree(graded.root, root, symlinks=True)
    grade_by_hand(root, HAND)
    (root / "grader" / "submitted" / "kimbo" / ASSIGNMENT / NB).write_bytes(solved(RESUBMITTED))
    canvas = str(roster(tmp))
    exports = root / "grader" / "exports"
    codes: dict[str, int] = {}
    out: dict[str, str] = {}
    err: dict[str, str] = {}
    zips: dict[str, dict[str, str]] = {}
    folders: dict[str, list[str]] = {}
    steps = [("regrade", ["autograde", ASSIGNMENT, "--student", "kimbo"])]
    for extra in ([], ["--include-ungraded"]):
        name = " ".join(["", *extra])
        steps += [(f"feedback{name}", ["feedback", ASSIGNMENT, "--canvas-zip", *extra]),
                  (f"export canvas{name}", ["export", "--canvas", canvas, "--out",
                                            str(exports / f"canvas{name}.csv"), *extra]),
                  (f"export{name}", ["export", "--out", str(exports / f"grades{name}.csv"),
                                     *extra]),
                  (f"moodle{name}", ["export", "--moodle", "--out",
                                     str(exports / f"moodle{name}.csv"), *extra])]
    for name, args in steps:
        run(root, name, *args, codes=codes, out=out, err=err)
        if name.startswith("feedback"):
            zips[name] = zip_pages(exports / f"feedback-{ASSIGNMENT}-canvas.zip")
            folders[name] = sorted(p.parent.name for p in
                                   (root / "grader" / "feedback").glob(f"*/{ASSIGNMENT}"))
    return Regraded(root, codes, out, err, zips, folders)


def csv_rows(path: Path, key: str) -> dict[str, dict[str, str]]:
    with path.open(newline="") as fh:
        return {row[key]: row for row in csv.DictReader(fh)}


def waiting_students(err: str) -> list[str]:
    """The students a command listed as waiting for a hand grade (indented lines)."""
    return re.findall(r"^  (\w+): ", err, re.M)


def test_a_student_waiting_for_a_regrade_is_held_back_and_named(regraded: Regraded) -> None:
    assert regraded.codes["regrade"] == 0, regraded.err["regrade"]
    exports = regraded.root / "grader" / "exports"
    for step in ("feedback", "export canvas", "export", "moodle"):
        assert regraded.codes[step] == 2, (step, regraded.err[step])
        assert WAITING_LINE in regraded.err[step], (step, regraded.err[step])
        assert "LEFT OUT: waiting for a hand grade" in regraded.err[step], step
        assert waiting_students(regraded.err[step]) == ["kimbo"], step
    user_files = {canvas_reads_back(name) for name in regraded.zips["feedback"]}
    assert {user for user, _ in user_files} == {"1001", "1003", "1004", "1099"}  # not 1002
    assert regraded.folders["feedback"] == sorted(set(HAND) - {"kimbo"})
    assert regraded.folders["feedback --include-ungraded"] == sorted(HAND)
    canvas = csv_rows(exports / "canvas.csv", "ID")
    assert canvas["1002"]["01 Perceptron (12345)"] == ""  # Canvas's grade left as it is
    assert canvas["1001"]["01 Perceptron (12345)"] != ""
    course = csv_rows(exports / "grades.csv", "student_id")
    assert course["kimbo"][f"{ASSIGNMENT}_score"] == course["kimbo"]["total_score"] == ""
    assert WRITTEN in course["kimbo"][f"{ASSIGNMENT}_waiting"]
    assert course["leeamy"][f"{ASSIGNMENT}_waiting"] == ""
    assert "kimbo" not in csv_rows(exports / "moodle.csv", "ID number")


def test_included_they_are_marked_and_no_student_reads_the_graders_note(
        regraded: Regraded) -> None:
    with gradebook(regraded.root) as gb:  # the note is in the grader's comment box
        box = gb.find_comment(WRITTEN, NOTEBOOK, ASSIGNMENT, "kimbo").manual_comment
    assert all(word in box for word in NOTE_WORDS[:3]) and HAND["kimbo"][1] in box
    included = regraded.zips["feedback --include-ungraded"]
    kimbo = next(page for name, page in included.items() if canvas_reads_back(name)[0] == "1002")
    assert "Not final" in kimbo and "waits for a grader" in kimbo
    assert HAND["kimbo"][1] in kimbo  # the comment meant for him still reaches him
    for step, pages in regraded.zips.items():
        for name, page in pages.items():
            assert not [w for w in NOTE_WORDS if w in page], (step, name)
    leeamy = next(page for name, page in included.items() if canvas_reads_back(name)[0] == "1001")
    assert HAND["leeamy"][1] in leeamy and "Not final" not in leeamy
    exports = regraded.root / "grader" / "exports"
    included_err = regraded.err["export canvas --include-ungraded"]
    assert "INCLUDED though they wait" in included_err and "LEFT OUT: waiting" not in included_err
    assert waiting_students(included_err) == ["kimbo"]
    assert csv_rows(exports / "canvas --include-ungraded.csv", "ID")["1002"][
        "01 Perceptron (12345)"] != ""
    for path in exports.glob("*.csv"):
        assert not [w for w in NOTE_WORDS if w in path.read_text()], path


def report_table(page: str, section: str) -> list[list[str]]:
    part = page.split(f'<section id="{section}">', 1)[1].split("</section>", 1)[0]
    """The rows (cell texts) of one table section of the report."""
    return [[html.unescape(re.sub(r"<[^>]+>", "", td))
             for td in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", part, re.S)[1:]]


def test_one_score_per_student_in_the_report_the_csvs_and_feedback(regraded: Regraded,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    codes: dict[str, int] = {}
    run(regraded.root, "report", "report", ASSIGNMENT, "--out", str(out), codes=codes, out={},
        err={})
    page = out.read_text()
    course = csv_rows(regraded.root / "grader" / "exports" / "grades --include-ungraded.csv",
                      "student_id")
    rows = {row[0]: row for row in report_table(page, "students")}
    assert sorted(rows) == sorted(HAND)
    for student, row in rows.items():
        # both print the same float with %g (6 significant digits): equal to that precision
        assert float(row[-1].split()[0]) == pytest.approx(
            float(course[student][f"{ASSIGNMENT}_score"]), abs=5e-4), student
        penalty = float(course[student][f"{ASSIGNMENT}_late_penalty"])
        assert (float(row[-2]) if row[-2] else 0.0) == pytest.approx(-penalty, abs=5e-4)
    assert "waits for a hand grade" in rows["kimbo"][-1]
    # ngcai is late and graded by hand after autograde: his page's score is the CSV's, with
    # the policy's penalty on the current score (not the one nbgrader stored before)
    feedback = (regraded.root / "grader" / "feedback" / "ngcai" / ASSIGNMENT
                / f"{NOTEBOOK}.html").read_text()
    shown = re.search(rf"{NOTEBOOK} \(Score: ([\d.]+) / ", feedback)[1]
    # the page rounds to 2 decimals
    assert float(shown) == pytest.approx(float(course["ngcai"][f"{ASSIGNMENT}_score"]),
                                         abs=0.005)
    late = {row[0]: row for row in report_table(page, "late")}
    assert late["kimbo"][1] == "unknown"
    assert "Canvas's download gives no submission time" in late["kimbo"][-1]
    assert "marked the file LATE" in late["kimbo"][-1]
    assert "time of the file in the download" in late["zara"][-1]
    assert [row[0] for row in report_table(page, "waiting-list")] == ["kimbo"]


def test_feedback_names_each_test_by_its_exercise_and_keeps_scores_in_their_heading(
        regraded: Regraded, tmp_path: Path) -> None:
    path = regraded.root / "grader" / "feedback" / "leeamy" / ASSIGNMENT / f"{NOTEBOOK}.html"
    page_text = path.read_text()
    links = re.findall(r'<li><a href="#[^"]+">([^<]*)</a>', page_text)
    assert "Test cell" not in links
    assert "Exercise 1 · The update rule: tests" in links
    assert "Exercise 1 · The update rule: hidden tests" in links
    assert "Comment on Exercise 6 · Written answer: written answer" \
        in links
    copy = tmp_path / "feedback.html"
    shutil.copy(path, copy)
    with chromium_page(tmp_path / "profile") as page:
        assert problems(page, copy.as_uri()) == []
        for width in (360, 320):
            page.set_viewport_size({"width": width, "height": 800})
            escaped = page.eval_on_selector_all(
                ".panel-heading .pull-right",
                """spans => spans.filter(s => {
                       const box = s.closest('.panel-heading').getBoundingClientRect();
                       const r = s.getBoundingClientRect();
                       return r.bottom > box.bottom + 0.5 || r.top < box.top - 0.5;
                   }).map(s => s.textContent.trim())""")
            assert escaped == [], (width, escaped)
