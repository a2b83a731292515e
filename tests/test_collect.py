"""``course collect`` against hostile downloads, ``course export``'s formula cells, and
``course autograde``'s refusal of unsafe folder names; no kernel runs.

The Canvas-style download holds good uploads next to every bad kind of entry (a traversal id, a
nested zip with ``../``, an absolute path, a symbolic link, an impostor folder, duplicates, a
200 MB zip bomb, unsafe ids). ``collect`` runs in a subprocess so that its peak memory can be
compared with a collect of one small upload.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from lms_support import canvas_reads_back
from nbgrader.api import Gradebook

from grader.cli import main
from grader.core.api import make_api
from grader.handback.export import csv_cell
from grader.handback.lms import canvas_feedback_zip
from grader.intake.collect import is_safe_id, read_lms_record, safe_id

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises"
NB = f"{NOTEBOOK}.ipynb"
MB = 1 << 20
BOMB_MB = 200
IMG, FORMULA = "<img src=x onerror=alert(1)>", '=HYPERLINK("https:evil.example")'
# Run `course` and report its peak resident memory (kB on Linux) on stderr.
MEASURED = ("import resource, sys\nfrom grader.cli import main\ncode = main(sys.argv[1:])\n"
            "print('peak_rss_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
            "file=sys.stderr)\nsys.exit(code)")


def notebook(who: str) -> bytes:
    """The released notebook, marked with whose it is."""
    nb = nbformat.read(REPO / "notebooks" / ASSIGNMENT / NB, as_version=4)
    nb.metadata["who"] = who
    return nbformat.writes(nb).encode()


def owner(path: Path) -> str:
    return nbformat.read(path, as_version=4).metadata["who"]


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def lying_bomb() -> bytes:
    """A zip of one 200 MB entry of zeros (about 200 kB) whose headers declare 1000 bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(NB, "w") as entry:
            for _ in range(BOMB_MB):
                entry.write(bytes(MB))
    data = bytearray(buffer.getvalue())
    central = data.rindex(b"PK\x01\x02")
    for size_at in (22, central + 24):  # uncompressed size: local header, central directory
        data[size_at:size_at + 4] = (1000).to_bytes(4, "little")
    return bytes(data)


def canvas_download(path: Path) -> None:
    """Good uploads and every bad kind of entry, as Canvas names them."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"amy_1001_5001_{NB}", notebook("amy"))
        archive.writestr(f"bob_1002_5002_{NB}", notebook("bob"))
        # a resubmission: -1 is newer, even earlier in the zip and with an older date
        resubmitted = zipfile.ZipInfo(f"ada_1000_5000_{NOTEBOOK}-1.ipynb", (2024, 1, 1, 0, 0, 0))
        archive.writestr(resubmitted, notebook("ada, resubmitted"))
        archive.writestr(zipfile.ZipInfo(f"ada_1000_5000_{NB}", (2024, 6, 1, 0, 0, 0)),
                         notebook("ada, first"))
        # two files for one student, no suffix: the newer date wins
        archive.writestr(zipfile.ZipInfo(f"eve_1005_5006_{NB}", (2024, 6, 2, 0, 0, 0)),
                         notebook("eve, newer"))
        archive.writestr(zipfile.ZipInfo(f"eve_1005_5005_{NB}", (2024, 6, 1, 0, 0, 0)),
                         notebook("eve, older"))
        archive.writestr(f".._6_{NB}", notebook("dots"))
        archive.writestr(f"{IMG}_1007_5007_{NB}", notebook("img"))
        archive.writestr(f"{FORMULA}_1008_5008_{NB}", notebook("formula"))
        archive.writestr(f"/tmp/abs_1009_5009_{NB}", notebook("absolute"))
        link = zipfile.ZipInfo(f"sym_1010_5010_{NB}")
        link.create_system, link.external_attr = 3, (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "../../../solutions/01_perceptron/" + NB)
        archive.writestr("carl_1011_5011_upload.zip", zip_bytes({
            NB: notebook("carl"), f"../../{NB}": notebook("carl, escaping")}))
        archive.writestr("dave_1012_5012_upload.zip", zip_bytes({
            NB: notebook("dave"), f"bob/{NB}": notebook("dave as bob")}))
        with archive.open(f"zoe_1013_5013_{NB}", "w", force_zip64=True) as bomb:
            for _ in range(BOMB_MB):
                bomb.write(bytes(MB))
        archive.writestr("zak_1014_5014_upload.zip", lying_bomb())
        archive.writestr("ada_1000_5000_scratch.ipynb", notebook("ada's scratch"))
        archive.writestr("readme.txt", "not a submission")


@dataclass
class Collected:
    root: Path
    code: int
    out: str
    err: str
    peak_kb: int
    record: dict
    before: set[Path]
    after: set[Path]

    @property
    def submitted(self) -> Path:
        return self.root / "grader" / "submitted"

    def reason(self, entry_end: str) -> str:
        found = [s["reason"] for s in self.record["skipped"] if s["entry"].endswith(entry_end)]
        assert len(found) == 1, (entry_end, self.record["skipped"])
        return found[0]


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if not p.is_dir()}


def run_collect(root: Path, source: Path) -> Collected:
    before = files_under(root.parent)
    run = subprocess.run([sys.executable, "-c", MEASURED, "--course-root", str(root), "collect",
                          ASSIGNMENT, str(source)], capture_output=True, text=True, cwd=REPO)
    peak = int(run.stderr.rsplit("peak_rss_kb ", 1)[1].split()[0])
    record = root / "grader" / "exports" / f"collect-{ASSIGNMENT}.json"
    return Collected(root, run.returncode, run.stdout, run.stderr, peak,
                     json.loads(record.read_text()), before, files_under(root.parent))


@pytest.fixture(scope="module")
def canvas(copy_course: Callable[..., Path], tmp_path_factory) -> Collected:
    download = tmp_path_factory.mktemp("lms") / "submissions.zip"
    canvas_download(download)
    return run_collect(copy_course("notebooks"), download)


@pytest.fixture(scope="module")
def small(copy_course: Callable[..., Path], tmp_path_factory) -> Collected:
    """One good upload: the baseline of collect's memory."""
    download = tmp_path_factory.mktemp("lms") / "submissions.zip"
    download.write_bytes(zip_bytes({f"amy_1_2_{NB}": notebook("amy")}))
    return run_collect(copy_course("notebooks"), download)


GOOD = {"amy": "amy", "bob": "bob", "ada": "ada, resubmitted", "eve": "eve, newer",
        "carl": "carl", "dave": "dave", safe_id(".."): "dots", safe_id(IMG): "img",
        safe_id(FORMULA): "formula"}


def test_everyone_good_is_collected_under_their_id(canvas: Collected) -> None:
    assert sorted(p.name for p in canvas.submitted.iterdir()) == sorted(GOOD)
    for student, who in GOOD.items():
        # timestamp.txt: nbgrader's record of when, here the file time of names not Canvas's
        files = [f for f in (canvas.submitted / student / ASSIGNMENT).iterdir()
                 if f.name != "timestamp.txt"]
        assert [f.name for f in files] == [NB], student
        assert owner(files[0]) == who, student
    assert canvas.record["collected"] == {s: [NOTEBOOK] for s in GOOD}


SKIPPED = {  # end of the entry's name -> (student, words of the reason)
    f"/tmp/abs_1009_5009_{NB}": (None, "absolute path"),
    f"sym_1010_5010_{NB}": (None, "symbolic link"),
    f"carl_1011_5011_upload.zip: ../../{NB}": ("carl", "path goes up a folder (..)"),
    f"dave_1012_5012_upload.zip: bob/{NB}": ("dave", "in a folder inside an upload"),
    f"ada_1000_5000_{NB}": ("ada", f"older duplicate: kept submissions.zip: "
                                   f"ada_1000_5000_{NOTEBOOK}-1.ipynb"),
    f"eve_1005_5005_{NB}": ("eve", f"older duplicate: kept submissions.zip: eve_1005_5006_{NB}"),
    f"zoe_1013_5013_{NB}": ("zoe", "declares 200 MB, over the 50 MB left in the cap"),
    f"zak_1014_5014_upload.zip: {NB}": ("zak", "Bad CRC-32"),  # read up to what it declares
}


@pytest.mark.parametrize("entry", SKIPPED)
def test_every_bad_entry_is_skipped_with_its_reason(canvas: Collected, entry: str) -> None:
    student, reason = SKIPPED[entry]
    assert reason in canvas.reason(entry)
    assert next(s["student"] for s in canvas.record["skipped"]
                if s["entry"].endswith(entry)) == student
    assert f"skipped submissions.zip: {entry}" in canvas.err
    assert reason in canvas.err


def test_the_skips_are_all_listed_and_the_exit_status_says_so(canvas: Collected) -> None:
    assert canvas.code == 2, canvas.err
    assert len(canvas.record["skipped"]) == len(SKIPPED)
    refused = [e for e, (_, reason) in SKIPPED.items() if "older duplicate" not in reason]
    assert f"REFUSED entries: {len(refused)}" in canvas.err  # the older duplicates are routine
    assert sorted(s["entry"].split("submissions.zip: ", 1)[1] for s in canvas.record["skipped"]
                  if not s["routine"]) == sorted(refused)
    assert sorted(canvas.record["ignored"]) == [
        "submissions.zip: ada_1000_5000_scratch.ipynb", "submissions.zip: readme.txt"]


def test_nothing_is_written_outside_submitted(canvas: Collected) -> None:
    new = canvas.after - canvas.before
    exports = canvas.root / "grader" / "exports"
    assert {p for p in new if not p.is_relative_to(canvas.submitted)} == {
        exports / f"collect-{ASSIGNMENT}.json", exports / f"lms-{ASSIGNMENT}.json",
        canvas.root / "grader" / "gradebook.db"}  # the Canvas user ids
    assert not (canvas.root / "grader" / ASSIGNMENT).exists()  # where ".." would have gone


def test_unsafe_ids_are_mapped_and_listed(canvas: Collected) -> None:
    assert canvas.record["mapped"] == {"..": safe_id(".."), IMG: safe_id(IMG),
                                       FORMULA: safe_id(FORMULA)}
    for raw, safe in canvas.record["mapped"].items():
        assert is_safe_id(safe)
        assert f"student id {raw!r} is not a safe name: collected as {safe}" in canvas.out


def test_the_zip_bomb_is_refused_in_constant_memory(canvas: Collected, small: Collected) -> None:
    assert small.code == 0, small.err
    # Expanding the bomb would take 200 MB; reading it entry by entry costs next to nothing.
    assert canvas.peak_kb < small.peak_kb + 64 * 1024, (canvas.peak_kb, small.peak_kb)
    print(f"peak RSS: {canvas.peak_kb / 1024:.0f} MB with the {BOMB_MB} MB bomb, "
          f"{small.peak_kb / 1024:.0f} MB for one small upload")


@pytest.mark.parametrize("student", ["..", ".", "", ".hidden", "a/b", IMG, FORMULA, "ünï",
                                     "x\ny", "amy", "A.b_c-1"])
def test_safe_ids(student: str) -> None:
    mapped = safe_id(student)
    assert is_safe_id(mapped)
    assert (mapped == student) == is_safe_id(student)
    assert is_safe_id(student) == (student in ("amy", "A.b_c-1"))
    assert safe_id(student) == mapped  # deterministic


def test_mapped_ids_do_not_collide() -> None:
    ids = ["a b", "a_b", "a?b", "a*b", "..", ".", "", "=x", "+x"]
    assert len({safe_id(i) for i in ids}) == len(ids)


# "Smith, Alice" twice (users 1001 and 1002) and "Pérez, José" as Canvas wrote it in NFD
# (an "e" then U+0301): Canvas's own names for them (see lms_support), one a resubmission.
JOSE = "pérezjosé"  # NFC, as a roster has it
SAME_NAMES = {
    f"smithalice_1001_501_{NB}": "alice 1001",
    f"smithalice_1002_502_{NB}": "alice 1002, first",
    f"smithalice_LATE_1002_503_{NOTEBOOK}-1.ipynb": "alice 1002, resubmitted",
    f"{unicodedata.normalize('NFD', JOSE)}_LATE_1003_504_{NB}": "josé",
    f"kimbo_1004_505_{NB}": "bo",
}
# each Canvas user's student id, the file of theirs that is graded, and Canvas's late marker
SAME_NAME_IDS = {"1001": ("smithalice-1001", "501", False),
                 "1002": ("smithalice-1002", "503", True),
                 "1003": (safe_id(JOSE), "504", True), "1004": ("kimbo", "505", False)}


def collect_in(root: Path, download: Path, *options: str) -> tuple[int, str, str]:
    """``course collect`` of ``download`` into the course at ``root``: exit status, stdout,
    stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--course-root", str(root), "collect", ASSIGNMENT, str(download), *options])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def same_names(copy_course: Callable[..., Path], tmp_path_factory) -> Collected:
    root = copy_course("notebooks")
    download = tmp_path_factory.mktemp("lms") / "submissions.zip"
    download.write_bytes(zip_bytes({name: notebook(who) for name, who in SAME_NAMES.items()}))
    code, out, err = collect_in(root, download, "--due", "2025-03-01 23:59 UTC")
    record = json.loads((root / "grader" / "exports" / f"collect-{ASSIGNMENT}.json").read_text())
    return Collected(root, code, out, err, 0, record, set(), set())


def test_two_canvas_users_of_one_name_are_two_students(same_names: Collected) -> None:
    """Canvas names a file "<sortable name>_[LATE_]<user id>_<file id>_<file>" (canvas-lms
    lib/content_zipper.rb, get_filename and add_upload_submission): two users named "Smith,
    Alice" both write "smithalice_", and only the user id tells them apart."""
    arrivals = read_lms_record(same_names.root, ASSIGNMENT)
    ids = {arrival["canvas_user_id"]: student for student, arrival in arrivals.items()}
    assert ids == {user: student for user, (student, _, _) in SAME_NAME_IDS.items()}
    assert all(is_safe_id(student) for student in ids.values())
    graded = {p.name: owner(p / ASSIGNMENT / NB) for p in same_names.submitted.iterdir()}
    assert graded == {"smithalice-1001": "alice 1001", "smithalice-1002": "alice 1002, resubmitted",
                      safe_id(JOSE): "josé", "kimbo": "bo"}
    assert ("2 Canvas users share the name 'smithalice': collected as smithalice-1001, "
            "smithalice-1002") in same_names.out
    with Gradebook(f"sqlite:///{same_names.root / 'grader' / 'gradebook.db'}") as gb:
        assert {s.lms_user_id: s.id for s in gb.students} == ids  # the next collect's memory


def test_a_name_canvas_wrote_decomposed_keeps_its_late_marker(same_names: Collected) -> None:
    arrivals = read_lms_record(same_names.root, ASSIGNMENT)
    for user, (student, file_id, late) in SAME_NAME_IDS.items():
        assert arrivals[student]["late"] is late, student
        prefix = arrivals[student]["files"][NOTEBOOK]["canvas_prefix"]
        assert canvas_reads_back(f"{prefix}_{NB}") == (user, file_id), student
    # the NFD name is the student of the NFC one (a roster's), not a third spelling
    assert safe_id(JOSE) in same_names.record["mapped"].values()
    # nbgrader counts them late: a timestamp after the due date
    # (grader.pipeline.late.submission_time)
    stamped = {p.parent.parent.name for p in same_names.submitted.glob("*/*/timestamp.txt")}
    assert stamped == {student for student, _, late in SAME_NAME_IDS.values() if late}


def test_the_reupload_zip_gives_each_canvas_user_their_own_feedback(
    same_names: Collected, tmp_path: Path
) -> None:
    root = same_names.root
    for student, _, _ in SAME_NAME_IDS.values():  # feedback as nbgrader writes it, marked
        page = root / "grader" / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<p>feedback of {student}</p>")
    out = tmp_path / "reupload.zip"
    assert canvas_feedback_zip(make_api(root), ASSIGNMENT, out) == []  # nobody left out
    with zipfile.ZipFile(out) as archive:
        pages = {canvas_reads_back(n): (n, archive.read(n).decode()) for n in archive.namelist()}
    assert {ids: page for ids, (_, page) in pages.items()} == {
        (user, file_id): f"<p>feedback of {student}</p>"
        for user, (student, file_id, _) in SAME_NAME_IDS.items()}
    assert {ids for ids, (name, _) in pages.items() if "_LATE_" in name} == {
        (user, file_id) for user, (_, file_id, late) in SAME_NAME_IDS.items() if late}


def test_an_older_resubmission_is_routine_and_exits_0(same_names: Collected) -> None:
    assert same_names.code == 0, same_names.err
    [skipped] = same_names.record["skipped"]
    assert skipped["routine"] and skipped["entry"].endswith(f"smithalice_1002_502_{NB}")
    assert ("older submissions skipped: 1 (each student's newest is collected); routine, "
            "nothing refused: exit status 0") in same_names.out
    assert "REFUSED" not in same_names.err


def test_a_canvas_user_keeps_their_id_from_one_collect_to_the_next(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    both, alone = tmp_path / "both.zip", tmp_path / "alone.zip"
    both.write_bytes(zip_bytes({f"smithalice_1001_501_{NB}": notebook("1001"),
                                f"smithalice_1002_502_{NB}": notebook("1002")}))
    alone.write_bytes(zip_bytes({f"smithalice_1002_601_{NB}": notebook("1002, again"),
                                 f"smithalice_1007_602_{NB}": notebook("1007")}))
    assert collect_in(root, both)[0] == 0
    (root / "grader" / "exports" / f"lms-{ASSIGNMENT}.json").unlink()  # the gradebook alone
    assert collect_in(root, alone)[0] == 0
    record = json.loads((root / "grader" / "exports" / f"collect-{ASSIGNMENT}.json").read_text())
    # 1002 is the same student; 1007, a third Alice Smith, is new and told apart at once
    assert sorted(record["collected"]) == ["smithalice-1002", "smithalice-1007"]
    assert owner(root / "grader" / "submitted" / "smithalice-1002" / ASSIGNMENT / NB) == (
        "1002, again")


def tar_gz(path: Path, members: dict[str, bytes], link: str | None = None) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/shadow"
            archive.addfile(info)


def test_folder_source_skips_links_and_special_files(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / NB).write_bytes(notebook("outside"))
    source = tmp_path / "downloads"
    for name in ("amy", "bob", "eve"):
        (source / name).mkdir(parents=True)
    (source / "amy" / NB).write_bytes(notebook("amy"))
    (source / "bob" / NB).symlink_to(outside / NB)
    (source / "dan").symlink_to(outside, target_is_directory=True)
    os.link(outside / NB, source / f"hal_1_2_{NB}")
    os.mkfifo(source / f"fay_1_2_{NB}")
    tar_gz(source / "carl_1_2_upload.tar.gz", {NB: notebook("carl")}, link="notes.txt")
    with tarfile.open(source / "zed_1_2_upload.tar.gz", "w:gz") as bomb:
        info = tarfile.TarInfo(NB)
        info.size = 20 * MB
        bomb.addfile(info, io.BytesIO(bytes(info.size)))
    (source / "eve" / NB).write_bytes(notebook("eve"))
    (source / "eve" / "bob").mkdir()
    (source / "eve" / "bob" / NB).write_bytes(notebook("eve as bob"))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--course-root", str(root), "collect", ASSIGNMENT, str(source)])
    assert code == 2
    submitted = root / "grader" / "submitted"
    assert {p.name: owner(p / ASSIGNMENT / NB) for p in submitted.iterdir()} == {
        "amy": "amy", "carl": "carl", "eve": "eve"}
    record = json.loads((root / "grader" / "exports" / f"collect-{ASSIGNMENT}.json").read_text())
    reasons = {s["entry"]: s["reason"] for s in record["skipped"]}
    assert reasons.pop(f"bob/{NB}") == "symbolic link"
    assert reasons.pop(f"eve/bob/{NB}").startswith("in a folder inside an upload")
    assert reasons.pop("dan") == "symbolic link"
    assert reasons.pop(f"hal_1_2_{NB}") == "hard link (2 names for one file)"
    assert reasons.pop(f"fay_1_2_{NB}") == "not a regular file (device, FIFO or socket)"
    assert reasons.pop("carl_1_2_upload.tar.gz: notes.txt") == "symbolic link"
    # the bomb's entry stops at the archive's bound, and so does the rest of the archive
    assert reasons.pop(f"zed_1_2_upload.tar.gz: {NB}").startswith("expands to more than 1 MB")
    assert reasons.pop("zed_1_2_upload.tar.gz").startswith("archive not read further: expands")
    assert reasons == {}
    assert owner(outside / NB) == "outside"


def test_a_clean_download_exits_0_and_the_report_lists_skips(
    copy_course: Callable[..., Path], tmp_path: Path, canvas: Collected
) -> None:
    root = copy_course("notebooks")
    download = tmp_path / "submissions.zip"
    download.write_bytes(zip_bytes({f"amy_1_2_{NB}": notebook("amy"), "readme.txt": b"x"}))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--course-root", str(root), "collect", ASSIGNMENT, str(download)]) == 0
    # the report's section, from the hostile download's record
    from grader.review.report import _collect_section

    section = _collect_section(canvas.root, ASSIGNMENT)
    assert "<img" not in section and "&lt;img src=x onerror=alert(1)&gt;" in section
    assert section.count("<tr>") == len(SKIPPED) + len(canvas.record["mapped"]) + 2
    assert "declares 200 MB" in section


def test_a_tar_gz_download_is_read_like_a_zip(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    tar_gz(tmp_path / "class_download.tar.gz", {f"./amy_1_2_{NB}": notebook("amy"),
                                                f"./bob/{NB}": notebook("bob")})
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--course-root", str(root), "collect", ASSIGNMENT,
                     str(tmp_path / "class_download.tar.gz")]) == 0
    submitted = root / "grader" / "submitted"
    assert {p.name: owner(p / ASSIGNMENT / NB) for p in submitted.iterdir()} == {
        "amy": "amy", "bob": "bob"}


def test_the_cap_is_set_in_the_course_config_or_on_the_command_line(
    copy_course: Callable[..., Path], tmp_path: Path
) -> None:
    root = copy_course("notebooks")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write("\nc.CollectLimits.max_mb = 0.001\n")  # 1 kB: less than a notebook
    download = tmp_path / "submissions.zip"
    download.write_bytes(zip_bytes({f"amy_1_2_{NB}": notebook("amy")}))
    args = ["--course-root", str(root), "collect", ASSIGNMENT, str(download)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(args) == 2
        assert not (root / "grader" / "submitted").exists()
        assert main([*args, "--max-mb", "1"]) == 0
    assert owner(root / "grader" / "submitted" / "amy" / ASSIGNMENT / NB) == "amy"


def test_autograde_skips_unsafe_folder_names(
    copy_course: Callable[..., Path]
) -> None:
    root = copy_course("solutions", "notebooks")
    unsafe = ["=cmd|' -C calc'!A0", IMG.replace("/", ""), "a b"]  # no "/": one folder each
    for name in unsafe:
        folder = root / "grader" / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / NB).write_bytes(notebook(name))
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["--course-root", str(root), "autograde", ASSIGNMENT, "--no-sandbox"]) == 1
    for name in unsafe:
        assert f"skipped the folder {name!r}" in err.getvalue()
    with Gradebook(f"sqlite:///{root / 'grader' / 'gradebook.db'}") as gb:
        assert gb.find_assignment(ASSIGNMENT).submissions == []


@pytest.mark.parametrize(("cell", "written"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1+2", "'+1+2"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-1.5", "-1.5"), ("+2", "+2"), ("0", "0"), ("amy", "amy"), ("", "")])
def test_csv_cell(cell: str, written: str) -> None:
    assert csv_cell(cell) == written


def test_export_neutralises_formula_cells(copy_course: Callable[..., Path]) -> None:
    root = copy_course()
    with Gradebook(f"sqlite:///{root / 'grader' / 'gradebook.db'}") as gb:
        gb.add_student("=HYPERLINK(\"http://x\")", last_name="@SUM(1)", first_name="-2+3")
        gb.add_student("amy", last_name="Lee", first_name="+1")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--course-root", str(root), "export"]) == 0
    with (root / "grader" / "exports" / "grades.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows == [["student_id", "last_name", "first_name", "total_score", "total_max"],
                    ["'=HYPERLINK(\"http://x\")", "'@SUM(1)", "'-2+3", "0", "0"],
                    ["amy", "Lee", "+1", "0", "0"]]
