"""``course collect``: LMS downloads into ``grader/submitted/``, one hostile upload at a time.

Everything in a download is a student's: file names, folders inside an upload, zip entries and
their headers. So the download is read here, entry by entry, in constant memory, and only
notebooks of the release are written, under names this module chooses; nbgrader's
``ZipCollectApp`` then places that clean tree into ``grader/submitted/<student>/<assignment>/``.

Rules, applied to the *download* (a folder SOURCE, an archive SOURCE, or an archive at the top of
a folder SOURCE whose name gives no student id, such as ``submissions.zip``):

- a notebook's student id comes from its LMS name (``<student>_<ids>_<notebook>.ipynb``, or
  ``<student>/<notebook>.ipynb``), and only from the first component of its path: a notebook in a
  folder deeper than that (``carl/bob/<notebook>.ipynb``) is an *impostor folder* and skipped;
- an archive named for a student (``<student>_<ids>_<file>.zip`` or ``<student>/<file>.zip``,
  also ``.tar.gz``/``.tgz``) is that student's *upload*: its notebooks at its top belong to that
  student whatever they are called inside; notebooks in folders inside it are impostors, archives
  inside it are not opened;
- a traversal (``..``), an absolute path, a link (symbolic or hard), a device, FIFO or socket, an
  encrypted entry, an unreadable archive, and anything over the caps is skipped with its reason;
- a student id that is not a safe name (:func:`is_safe_id`) is mapped to one (:func:`safe_id`);
- a file Canvas named (:func:`canvas_name`) belongs to its Canvas *user id*, not to the name
  in front of it: two users of one display name are two students
  (:meth:`_Collector.student_ids`);
- two notebooks of one name for one student (the same Canvas user, else the same id): the newest
  is kept, by the LMS's resubmission suffix (``-N``, higher is newer, none is 0), then the
  modification time recorded in the download, then the order in the download (later wins); the
  others are skipped as older duplicates, which is *routine*: ``course collect`` exits 0 when
  nothing else was skipped, and 2 when an entry was *refused* (every other reason);
- caps (:class:`CollectLimits`): at most ``max_mb`` extracted per student and per upload
  archive, counted while reading (a header's declared size is only used to refuse early), and
  at most ``max_ratio`` times the compressed size once past 1 MB, so a zip bomb is refused after
  reading about 1 MB of it.

Files that are not notebooks of the release (``readme.txt``, ``scratch.ipynb``) are ignored,
not skipped. What was collected, skipped, ignored and mapped is printed and recorded in
``grader/exports/collect-<assignment>.json`` (:func:`record_path`), which the report shows.

What the LMS's file names and times say about each kept submission (a Canvas name's user id,
file id and ``LATE`` marker, :func:`canvas_name`; the file time, never one from inside a
student's own archive) is kept per student in ``grader/exports/lms-<assignment>.json``
(:func:`lms_record_path`), for the Canvas export and the Re-Upload Submissions zip
(:mod:`grader.handback.lms`), and the submission time it implies
(:func:`grader.pipeline.late.submission_time`) goes to nbgrader as ``timestamp.txt``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from nbgrader.api import MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.apps.zipcollectapp import ZipCollectApp
from nbgrader.utils import capture_log, temp_attrs
from traitlets import Float
from traitlets.config import Config, Configurable

from grader.core.files import open_regular
from grader.intake.archives import (
    MB,
    UNREADABLE,
    Entry,
    copy_bounded,
    folder_entries,
    tar_entries,
    zip_entries,
)
from grader.pipeline.late import submission_time

# LMS download names: "<student>_<anything>_<notebook>.ipynb" (Canvas: "<student>_<ids>_<file>",
# a resubmission adds "-1"), or "<student>/<notebook>.ipynb"; {notebooks} is filled with the
# release's notebook names. Matched against "/" + the path inside the download.
LMS_NAMES = (r".*/(?P<student_id>[^/_]+)(?:_[^/]*_|_|/(?:[^/]*_)?)"
             r"(?P<file_id>{notebooks})(?:-\d+)?\.ipynb$")
# A student's upload that is an archive: "<student>_<anything>.zip" or "<student>/<file>.zip".
UPLOAD_NAMES = re.compile(r".*/(?P<student_id>[^/_]+)[_/][^/]*\.(?:zip|tar\.gz|tgz)$")
ARCHIVES = (".zip", ".tar.gz", ".tgz")
# Safe ids: the characters of a portable file name, not starting with a dot (which also rules
# out "." and "..", and a hidden folder that nbgrader's listing of submissions would never see).
SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
RESUBMISSION = re.compile(r"-(\d+)\.ipynb$")
EXIT_REFUSED = 2  # `course collect`'s exit status when an entry was refused (not routine)
# Canvas's name for a file in its "Download Submissions" zip (canvas-lms lib/content_zipper.rb,
# get_filename and add_upload_submission) is "<sortable name>_[LATE_]<user id>_<file id>_<file>":
# the user's sortable name ("Smith, Alice") lowercased, joined to "LATE" and the user id by "_",
# then stripped of every character outside Ruby's [[:word:]] ("smithalice_1001"), so two users
# of one name differ only by user id; "Re-Upload Submissions" reads the first two all-digit
# parts back as the user and the file (app/models/assignment.rb,
# infer_comment_context_from_filename).
CANVAS_ID = re.compile(r"[0-9]+")
# Ruby's [[:word:]] (Onigmo: Letter | Mark | Decimal_Number | Connector_Punctuation), by Unicode
# category. Unlike Python's \w it has the combining marks: Canvas keeps the U+0301 of a name
# written in NFD ("jose" + U+0301).
CANVAS_WORD = ("L", "M", "Nd", "Pc")


class CollectLimits(Configurable):
    """Caps of ``course collect``; set them in ``grader/nbgrader_config.py``, e.g.
    ``c.CollectLimits.max_mb = 100``, or with ``course collect --max-mb``."""

    max_mb = Float(50.0, help="Most megabytes extracted per student, and per upload archive."
                   ).tag(config=True)
    max_ratio = Float(100.0, help="Most bytes extracted per compressed byte of an entry, once "
                      "past 1 MB (a zip bomb is refused after reading about 1 MB)."
                      ).tag(config=True)


def is_safe_id(student: str) -> bool:
    """Whether ``student`` is a safe student id: ``[A-Za-z0-9._-]+``, not starting with a dot.

    That rules out ``""``, ``"."``, ``".."``, path separators and anything a shell, a spreadsheet
    or a browser would interpret.
    """
    return SAFE_ID.fullmatch(student) is not None


def safe_id(student: str) -> str:
    """The safe id of ``student``: itself if :func:`is_safe_id`, else a deterministic mapping.

    Disallowed characters become ``_``, leading dots go, and ``-`` plus 10 hex digits of the
    SHA-256 of the original id are appended, so that two ids that differ only in disallowed
    characters do not collide, e.g. ``"=HYPERLINK(x)"`` -> ``"_HYPERLINK_x_-6c1e...``.
    """
    if is_safe_id(student):
        return student
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", student).lstrip(".")[:40] or "student"
    digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{readable}-{digest}"


def printable(text: str) -> str:
    """``text`` with control characters and undecodable bytes escaped, for terminals and JSON."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def canvas_word(text: str) -> bool:
    """Whether ``text`` is all word characters as Canvas's Ruby counts them (:data:`CANVAS_WORD`),
    and not empty."""
    return bool(text) and all(unicodedata.category(c).startswith(CANVAS_WORD) for c in text)


@dataclass(frozen=True)
class CanvasName:
    """What Canvas wrote into a download's file name."""

    prefix: str  # "<name>_[LATE_]<user id>_<file id>": what Re-Upload Submissions reads back
    user_id: str
    file_id: str  # the id of the student's file (Canvas's attachment)
    late: bool  # Canvas marked the submission late


def canvas_name(file_name: str) -> CanvasName | None:
    """Canvas's ids and late marker in a download's ``file_name``, or None if it is not a name
    Canvas writes (two adjacent all-digit parts after a name, word characters only up to them,
    :func:`canvas_word`).
    """
    parts = file_name.split("_")
    ids = [i for i, part in enumerate(parts) if CANVAS_ID.fullmatch(part)]
    if len(ids) < 2 or ids[0] == 0 or ids[1] != ids[0] + 1 or ids[1] == len(parts) - 1:
        return None
    user = ids[0]
    prefix = "_".join(parts[:user + 2])
    if not canvas_word(prefix):
        return None
    return CanvasName(prefix, parts[user], parts[user + 1], "LATE" in parts[:user])


def record_path(course_root: Path, assignment: str) -> Path:
    """Where ``course collect`` records its last run for ``assignment`` (JSON)."""
    return Path(course_root) / "grader" / "exports" / f"collect-{assignment}.json"


def lms_record_path(course_root: Path, assignment: str) -> Path:
    """Where ``course collect`` keeps, per student, what the LMS said about each submission
    (JSON): Canvas's user id, the Canvas name of each notebook's file, Canvas's late marker, the
    file time, and the timestamp given to nbgrader. Each collect updates the students it
    collected and keeps the others."""
    return Path(course_root) / "grader" / "exports" / f"lms-{assignment}.json"


def read_lms_record(course_root: Path, assignment: str) -> dict[str, dict[str, Any]]:
    """The students' entries of :func:`lms_record_path` (empty before any collect)."""
    path = lms_record_path(course_root, assignment)
    return json.loads(path.read_text())["students"] if path.is_file() else {}


@dataclass
class _Candidate:
    """A notebook read into the staging folder, for one student."""

    student: str
    notebook: str
    staged: Path
    name: str
    newness: tuple[int, float, int]  # (resubmission -N, mtime, order in the download)
    lms: Entry  # the LMS's file it came in: the notebook itself, or the upload it is in
    canvas: CanvasName | None  # what Canvas wrote in that file's name, if Canvas named it

    @property
    def sender(self) -> tuple[str, str]:
        """Who sent it: ``("Canvas user", <user id>)`` for a file Canvas named, else
        ``("student", <id in its LMS name>)``."""
        return ("Canvas user", self.canvas.user_id) if self.canvas else ("student", self.student)


@dataclass
class CollectRecord:
    """What ``course collect`` did: written to :func:`record_path` as JSON."""

    assignment: str
    source: str
    max_mb: float
    max_ratio: float
    collected: dict[str, list[str]] = field(default_factory=dict)  # safe id -> notebooks
    mapped: dict[str, str] = field(default_factory=dict)  # raw id -> safe id
    # a name several Canvas users share -> their ids (one student per Canvas user id)
    shared: dict[str, list[str]] = field(default_factory=dict)
    # entry, student, reason, routine (an older duplicate) or not (refused)
    skipped: list[dict[str, str | bool | None]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def skip(self, name: str, student: str | None, reason: str, routine: bool = False) -> None:
        """Record (and print) that ``name``, from ``student`` if known, is skipped: ``routine``
        when it is an older submission of a student collected anyway, else refused."""
        shown = None if student is None else printable(student)
        self.skipped.append({"entry": printable(name), "student": shown, "reason": reason,
                             "routine": routine})
        who = f" ({shown})" if shown is not None else ""
        print(f"skipped {printable(name)}{who}: {reason}", file=sys.stderr)

    @property
    def refused(self) -> list[dict[str, str | bool | None]]:
        """The skipped entries that are not routine: ``course collect`` exits 2 for these."""
        return [s for s in self.skipped if not s["routine"]]


class _Collector:
    """Reads a download into a staging folder, one entry at a time, and records every skip."""

    def __init__(self, record: CollectRecord, notebooks: list[str], names: re.Pattern[str],
                 staging: Path) -> None:
        self.record, self.names, self.staging = record, names, staging
        self.notebook_name = re.compile(
            rf"(?P<file_id>{'|'.join(map(re.escape, notebooks))})(?:-\d+)?\.ipynb")
        self.cap, self.ratio = int(record.max_mb * MB), record.max_ratio
        self.used: dict[str, int] = {}  # raw student id -> bytes extracted
        self.candidates: list[_Candidate] = []

    def download(self, entries: Iterator[Entry], top: bool) -> None:
        """Read a download's entries; ``top``: archives without a student's name are downloads
        too (a folder SOURCE holding ``submissions.zip``)."""
        for entry in entries:
            if entry.problem:
                self.record.skip(entry.name, None, entry.problem)
                continue
            path = "/" + entry.path
            upload = UPLOAD_NAMES.match(path) if path.endswith(ARCHIVES) else None
            found = upload or (self.names.match(path) if path.endswith(".ipynb") else None)
            if path.endswith(ARCHIVES) and not upload:
                if top and path.count("/") == 1:
                    self.archive(entry, None, partial(self.download, top=False))
                else:
                    self.record.skip(entry.name, None, "archive whose name gives no student id")
            elif found is None:
                self.record.ignored.append(printable(entry.name))
            elif path.count("/") > 2 or found.end("student_id") > path.find("/", 1) > 0:
                self.record.skip(entry.name, None, "in a folder inside an upload: ids come "
                                 "only from the LMS's file name")
            elif upload:
                student = upload["student_id"]
                self.archive(entry, student, partial(self.upload, student=student, lms=entry))
            else:
                self.notebook(entry, found["student_id"], found["file_id"], entry)

    def upload(self, entries: Iterator[Entry], student: str, lms: Entry) -> None:
        """Read a student's upload: notebooks at its top are the student's, whatever else."""
        for entry in entries:
            base = entry.path.rsplit("/", 1)[-1]
            found = self.notebook_name.fullmatch(base)
            if entry.problem:
                self.record.skip(entry.name, student, entry.problem)
            elif entry.path.endswith(ARCHIVES):
                self.record.skip(entry.name, student, "archive inside an upload: not opened")
            elif found is None:
                self.record.ignored.append(printable(entry.name))
            elif "/" in entry.path:
                self.record.skip(entry.name, student, "in a folder inside an upload: ids come "
                                 "only from the LMS's file name")
            else:
                self.notebook(entry, student, found["file_id"], lms)

    def archive(self, entry: Entry, student: str | None,
                read: Callable[[Iterator[Entry]], None]) -> None:
        """Read an archive's entries with ``read``: in place if it is a file on disk, else
        from a copy in the staging folder (within the cap)."""
        copy = Path(tempfile.mkstemp(dir=self.staging, suffix=".archive")[1])
        try:
            if entry.file is None:
                copy_bounded(entry, copy, self.cap, self.ratio)
            with open_regular(entry.file or copy) as handle:
                if entry.path.endswith(".zip"):
                    read(zip_entries(handle, entry.name))
                else:
                    read(tar_entries(handle, entry.name, self.ratio))
        except UNREADABLE as error:
            self.record.skip(entry.name, student, f"archive not read further: {error}")
        finally:
            copy.unlink(missing_ok=True)

    def notebook(self, entry: Entry, student: str, notebook: str, lms: Entry) -> None:
        """Copy a student's notebook to the staging folder, within the student's cap; ``lms``
        is the LMS's file it came in (its name and time are the LMS's, not the student's).
        The id is taken in Unicode NFC, so a name written decomposed is the same student."""
        student = unicodedata.normalize("NFC", student)
        used = self.used.get(student, 0)
        staged = self.staging / f"{len(self.candidates)}.ipynb"
        try:
            self.used[student] = used + copy_bounded(entry, staged, self.cap - used, self.ratio)
        except UNREADABLE as error:
            self.record.skip(entry.name, student, str(error))
            return
        resubmission = RESUBMISSION.search(entry.path)
        newness = (int(resubmission[1]) if resubmission else 0, entry.mtime, len(self.candidates))
        canvas = canvas_name(lms.path.rsplit("/", 1)[-1])
        self.candidates.append(_Candidate(student, notebook, staged, entry.name, newness, lms,
                                          canvas))

    def student_ids(self, known: Mapping[str, str]) -> dict[tuple[str, str], str]:
        """Each sender's student id, before :func:`safe_id`.

        A Canvas user (:attr:`_Candidate.sender`) keeps the id ``known`` gives them (Canvas user
        id -> student id: the gradebook's, then the last collect's), so they are one student
        from one assignment to the next. A Canvas user new to the course gets the name in front
        of their ids, or ``<name>-<user id>`` when that name is another Canvas user's in this
        download or in ``known``: a Canvas name has no ``-``, so that id is no one else's.
        Anyone else: the id in their LMS name.
        """
        users: dict[str, set[str]] = {}  # name in a Canvas file name -> Canvas user ids
        for c in self.candidates:
            if c.canvas:
                users.setdefault(c.student, set()).add(c.canvas.user_id)
        taken = set(known.values())
        ids = {}
        for c in self.candidates:
            if c.canvas is None:
                ids[c.sender] = c.student
            elif c.canvas.user_id in known:
                ids[c.sender] = known[c.canvas.user_id]
            elif len(users[c.student]) > 1 or safe_id(c.student) in taken:
                ids[c.sender] = f"{c.student}-{c.canvas.user_id}"
            else:
                ids[c.sender] = c.student
        return ids

    def choose(self, known: Mapping[str, str]) -> dict[str, list[_Candidate]]:
        """The newest notebook of each sender and notebook, by safe id (``known``: see
        :meth:`student_ids`); older ones are skipped as routine, a second sender of one safe id
        is refused. Records the ids mapped to safe ones and the Canvas names shared."""
        wanted = self.student_ids(known)
        owner: dict[str, tuple[str, str]] = {}  # safe id -> sender
        newest: dict[tuple[str, str], _Candidate] = {}
        for c in sorted(self.candidates, key=lambda c: c.newness, reverse=True):
            safe = safe_id(wanted[c.sender])
            if owner.setdefault(safe, c.sender) != c.sender:
                self.record.skip(c.name, c.student, f"its safe id {safe} is already "
                                 f"{printable(' '.join(owner[safe]))}'s")
            elif (safe, c.notebook) in newest:
                self.record.skip(c.name, c.student, "older duplicate: kept "
                                 + printable(newest[safe, c.notebook].name), routine=True)
            else:
                newest[safe, c.notebook] = c
        chosen: dict[str, list[_Candidate]] = {}
        sharing: dict[str, set[str]] = {}  # name in a Canvas file name -> safe ids
        for (safe, _), c in sorted(newest.items()):
            chosen.setdefault(safe, []).append(c)
            if not is_safe_id(wanted[c.sender]):
                self.record.mapped[printable(wanted[c.sender])] = safe
            if c.canvas:
                sharing.setdefault(printable(c.student), set()).add(safe)
        self.record.shared = {name: sorted(ids) for name, ids in sharing.items() if len(ids) > 1}
        return chosen

    def place(self, tree: Path, chosen: dict[str, list[_Candidate]],
              stamps: dict[str, datetime | None]) -> None:
        """Move each chosen notebook to ``tree/<safe id>/[<timestamp>/]<notebook>.ipynb``."""
        for safe, candidates in chosen.items():
            stamp = stamps.get(safe)
            folder = tree / safe / stamp.isoformat() if stamp else tree / safe
            folder.mkdir(parents=True, exist_ok=True)
            for c in candidates:
                c.staged.rename(folder / f"{c.notebook}.ipynb")
                self.record.collected.setdefault(safe, []).append(c.notebook)


def _utc(mtime: float) -> datetime | None:
    """An LMS file's modification time as naive UTC (nbgrader's convention); None if unknown."""
    return datetime.fromtimestamp(mtime, UTC).replace(tzinfo=None) if mtime else None


def _arrival(candidates: list[_Candidate], due: datetime | None) -> dict[str, Any]:
    """What the LMS's files say about one student's submission: Canvas's ids and late marker,
    the file time, and the timestamp nbgrader gets
    (:func:`grader.pipeline.late.submission_time`)."""
    names = {c.notebook: (c.lms.path.rsplit("/", 1)[-1], c.canvas) for c in candidates}
    canvas = [found for _, found in names.values() if found]
    late = any(found.late for found in canvas) if canvas else None
    times = [t for c in candidates if (t := _utc(c.lms.mtime))]
    file_time = max(times, default=None)
    timestamp, source = submission_time(late, file_time, due)
    return {"late": late, "file_time": file_time and file_time.isoformat(),
            "timestamp": timestamp and timestamp.isoformat(), "timestamp_from": source,
            "canvas_user_id": canvas[0].user_id if canvas else None,
            "files": {notebook: {"lms_name": printable(name),
                                 "canvas_prefix": found.prefix if found else None}
                      for notebook, (name, found) in sorted(names.items())}}


def _place_with_nbgrader(api: NbGraderAPI, assignment: str, tmp: Path,
                         notebooks: list[str]) -> dict[str, object]:
    """Run nbgrader's ``ZipCollectApp`` on the clean tree ``tmp/<assignment>/archive/``."""
    config = Config(api.config)
    # nbgrader joins this to the course root, so it must be relative
    config.ZipCollectApp.downloaded_directory = os.path.relpath(tmp, api.coursedir.root)
    config.ZipCollectApp.force = config.ExtractorPlugin.force = True
    config.ZipCollectApp.strict = True
    # "<safe id>/[<timestamp>/]<notebook>.ipynb": a timestamp folder holds a ":", which no safe
    # id does, so the two cannot be confused; nbgrader writes it to timestamp.txt.
    config.FileNameCollectorPlugin.named_regexp = (
        r".*/(?P<student_id>[A-Za-z0-9._-]+)/(?:(?P<timestamp>[^/]*:[^/]*)/)?(?P<file_id>"
        + "|".join(map(re.escape, notebooks)) + r")\.ipynb$")
    with temp_attrs(api.coursedir, assignment_id=assignment):
        app = ZipCollectApp(coursedir=api.coursedir, config=config, log=api.log)
        return capture_log(app)


def _due_date(api: NbGraderAPI, assignment: str, due: datetime | None) -> datetime | None:
    """Store ``due`` as the assignment's due date (creating the assignment if needed) and
    return it; without ``due``, the gradebook's due date, or None."""
    with api.gradebook as gb:
        if due is not None:
            gb.update_or_create_assignment(assignment, duedate=due)
            return due
        try:
            return gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None


def _canvas_users(api: NbGraderAPI, assignment: str) -> dict[str, str]:
    """Canvas user id -> student id, as the course knows them: from the last collect of
    ``assignment`` (:func:`lms_record_path`), then from the gradebook's students'
    ``lms_user_id``, which wins."""
    known = {arrival["canvas_user_id"]: student for student, arrival
             in read_lms_record(Path(api.coursedir.root), assignment).items()
             if arrival.get("canvas_user_id")}
    with api.gradebook as gb:
        return known | {s.lms_user_id: s.id for s in gb.students if s.lms_user_id}


def _remember_canvas_users(api: NbGraderAPI, arrivals: dict[str, dict[str, Any]]) -> None:
    """Give each collected student from Canvas their Canvas user id in the gradebook (nbgrader's
    ``Student.lms_user_id``): the next collect finds them by it (:func:`_canvas_users`)."""
    users = {student: arrival["canvas_user_id"] for student, arrival in arrivals.items()
             if arrival["canvas_user_id"]}
    if users:
        with api.gradebook as gb:
            for student, user in users.items():
                gb.update_or_create_student(student, lms_user_id=user)


def say_outcome(record: CollectRecord) -> None:
    """Say whether anything was refused (exit status 2) or only older submissions were skipped
    (routine, exit status 0): ``course collect``'s last line."""
    routine = len(record.skipped) - len(record.refused)
    if record.refused:
        print(f"REFUSED entries: {len(record.refused)} (the reasons are above; everyone else is "
              f"collected): exit status {EXIT_REFUSED}", file=sys.stderr)
    elif routine:
        print(f"older submissions skipped: {routine} (each student's newest is collected); "
              "routine, nothing refused: exit status 0")


def _keep_arrivals(course_root: Path, assignment: str, due: datetime | None,
                   arrivals: dict[str, dict[str, Any]]) -> None:
    """Update :func:`lms_record_path` with ``arrivals`` (the students just collected) and say
    what Canvas marked late."""
    students = read_lms_record(course_root, assignment) | arrivals
    path = lms_record_path(course_root, assignment)
    path.write_text(json.dumps({"assignment": assignment, "due": due and due.isoformat(),
                                "students": dict(sorted(students.items()))}, indent=1))
    late = sorted(safe for safe, arrival in arrivals.items() if arrival["late"])
    if late:
        print(f"submissions Canvas marked LATE: {len(late)} ({', '.join(late)})")
    if late and due is None:
        print(f"WARNING: {assignment} has no due date in the gradebook, so nbgrader cannot "
              "count these as late: collect again with --due", file=sys.stderr)


def collect(api: NbGraderAPI, assignment: str, source: Path, regexp: str | None = None,
            max_mb: float | None = None, due: datetime | None = None) -> CollectRecord:
    """Copy the notebooks of LMS downloads into ``grader/submitted/<student>/<assignment>/``.

    Reads ``source`` entry by entry by the rules of :mod:`grader.intake.collect` (skipping what is
    unsafe, over the caps, an impostor or an older duplicate, with its reason), then places
    each student's newest notebooks with nbgrader's ``ZipCollectApp``. A student collected again
    replaces the earlier files. Prints what it skipped and mapped, and records it in
    :func:`record_path`.

    Late work: each student's submission time comes from the LMS's files
    (:func:`grader.pipeline.late.submission_time`: Canvas's ``LATE`` marker in a Canvas name, else
    the file's time), is given to nbgrader as ``timestamp.txt``, and is kept with Canvas's user id
    and each notebook's Canvas name in :func:`lms_record_path`.

    Canvas users: each is one student, by Canvas user id (:meth:`_Collector.student_ids`), and
    the gradebook keeps that id as the student's ``lms_user_id``.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.core.api.make_api`.
    assignment : str
        Assignment id; its release in ``notebooks/`` gives the valid notebook names.
    source : Path
        A folder of downloads or an archive (.zip, .tar.gz, .tgz).
    regexp : str, optional
        Pattern of an LMS name, with groups ``student_id`` and ``file_id``, matched against
        ``"/" + path`` inside the download; default :data:`LMS_NAMES`.
    max_mb : float, optional
        Cap per student and per upload archive; default ``CollectLimits.max_mb`` (50).
    due : datetime, optional
        The assignment's due date (naive UTC) to store in the gradebook first; default: the
        one already there (set in the formgrader or with ``nbgrader db assignment``), if any.

    Returns
    -------
    CollectRecord
        What was collected, skipped, ignored and mapped.
    """
    if not source.exists():
        raise SystemExit(f"course: no {source}")
    if source.is_file() and not source.name.endswith(ARCHIVES):
        raise SystemExit(f"course: {source} is neither a folder nor a .zip/.tar.gz/.tgz")
    limits = CollectLimits(config=api.config)
    if max_mb is not None:
        limits.max_mb = max_mb
    if limits.max_mb <= 0 or limits.max_ratio <= 1:
        raise SystemExit(f"course: collect caps must be positive (max_mb {limits.max_mb:g}) "
                         f"and over 1 (max_ratio {limits.max_ratio:g})")
    release = Path(api.coursedir.format_path(api.coursedir.release_directory, ".", assignment))
    notebooks = sorted(p.stem for p in release.glob("*.ipynb"))
    if not notebooks:
        raise SystemExit(f"course: no released notebooks in {release}")
    names = re.compile(regexp or LMS_NAMES.format(notebooks="|".join(map(re.escape, notebooks))))
    if not {"student_id", "file_id"} <= set(names.groupindex):
        raise SystemExit("course: --regexp needs the groups (?P<student_id>...) and "
                         "(?P<file_id>...)")
    record = CollectRecord(assignment, str(source), limits.max_mb, limits.max_ratio)
    with tempfile.TemporaryDirectory() as tmp:
        staging, tree = Path(tmp, "staging"), Path(tmp, assignment, "archive")
        staging.mkdir()
        tree.mkdir(parents=True)
        collector = _Collector(record, notebooks, names, staging)
        if source.is_dir():
            collector.download(folder_entries(source), top=True)
        else:  # the download itself, whatever its name
            collector.archive(Entry(source.name, source.name, None, file=source.resolve()),
                              None, partial(collector.download, top=False))
        # the gradebook is opened only for Canvas's names or a due date
        canvas = any(c.canvas for c in collector.candidates)
        chosen = collector.choose(_canvas_users(api, assignment) if canvas else {})
        if due is not None or any(c.canvas and c.canvas.late for cs in chosen.values()
                                  for c in cs):
            due = _due_date(api, assignment, due)
        arrivals = {safe: _arrival(candidates, due) for safe, candidates in chosen.items()}
        collector.place(tree, chosen, {safe: arrival["timestamp"] and datetime.fromisoformat(
            arrival["timestamp"]) for safe, arrival in arrivals.items()})
        result = _place_with_nbgrader(api, assignment, Path(tmp), notebooks)
    if not result["success"]:
        print("FAILED collect: nbgrader could not place the notebooks", file=sys.stderr)
        print(str(result.get("log") or result.get("error", "")).rstrip(), file=sys.stderr)
        raise SystemExit(1)
    for raw, safe in sorted(record.mapped.items()):
        print(f"student id {raw!r} is not a safe name: collected as {safe}")
    out = record_path(Path(api.coursedir.root), assignment)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record.__dict__, indent=1))
    _keep_arrivals(Path(api.coursedir.root), assignment, due, arrivals)
    _remember_canvas_users(api, arrivals)
    for name, ids in sorted(record.shared.items()):
        print(f"{len(ids)} Canvas users share the name {name!r}: collected as "
              f"{', '.join(ids)} (one student per Canvas user id)")
    count = len(api.get_submitted_students(assignment))
    print(f"students collected: {len(record.collected)} (entries skipped: {len(record.skipped)}, "
          f"files ignored: {len(record.ignored)}, ids mapped: {len(record.mapped)}; see {out}); "
          f"students with a submission in {api.coursedir.submitted_directory}/: {count}")
    return record

