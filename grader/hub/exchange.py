"""nbgrader's exchange on the class hub: collect takes only whole submissions, each its owner's.

nbgrader's collect takes, per student, the newest folder in ``inbound/`` whose name starts with
that student's id. Some folders must not count, and here they are renamed to ``.refused-<name>``
where they lie (a name starting with a dot is one nbgrader's patterns never match) and named in
the log before nbgrader looks, so that the student's previous submission is collected instead.
Renaming in place needs only the grader's write access to the folder holding them; moving a
student's folder elsewhere would need write access to the folder itself, which a cut-short one
does not give:

* **forged**: the id comes from the command line when one is given (``nbgrader submit
  --student=someone-else``), and nbgrader's own collect only warns when the folder belongs to
  another account (nbgrader/exchange/default/collect.py, ``check_owner``), then collects it as
  that student's newest submission;
* **incomplete**: a submit copies the files, then writes ``timestamp.txt``, then
  ``submission_secret.txt`` (128 hex digits; nbgrader/exchange/default/submit.py). A folder
  without a whole secret was cut short: the student's server was stopped mid-copy, or the
  exchange's disk was full;
* **not a plain folder**: a link, a file, or a folder holding a link. nbgrader's collect copies
  with ``shutil.copytree``, which copies what a link points to: a student's link to the
  course's secret or solutions would be read by the grader and copied into the submission;
* **misnamed**: a name whose time does not parse, on which nbgrader's collect would stop for
  every student.

Who wrote a folder is known one of two ways (``ExchangeIdentity.identity``):

* ``owner`` (one machine: a Unix account per student, hub/jupyterhub_config.py): the owner the
  operating system records for the folder, in the one shared ``inbound/``;
* ``account-folder`` (Kubernetes: every student's server runs as the image's one account,
  hub/k8s/values.yaml): the account folder the submission lies in. The exchange volume holds
  ``<course>/inbound-by-account/<hub user>/`` and ``<course>/feedback-by-account/<hub user>/``;
  the hub mounts a student's own two folders, and nothing else of them, at ``<course>/inbound``
  and (read-only) ``<course>/feedback`` of that student's server, so the student's nbgrader
  submits, lists and fetches feedback unchanged and cannot choose the folder a submission lands
  in. The folder's name is the hub's user name, which is the nbgrader student id (nbgrader takes
  it from ``JUPYTERHUB_USER`` for the account ``jovyan``; nbgrader.utils.get_username). Collect
  takes each account's newest whole submission as that account's; release-feedback writes each
  student's feedback into that student's folder only.

Trusted: the operating system's record of who made a folder, or the hub's naming of the folder
a student's server mounts; nbgrader's order of writes.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.utils import parse_utc
from traitlets import Enum
from traitlets.config import LoggingConfigurable

SECRET = re.compile(r"[0-9a-f]{128}")  # secrets.token_hex(64), nbgrader's submission secret
INBOUND_BY_ACCOUNT = "inbound-by-account"
FEEDBACK_BY_ACCOUNT = "feedback-by-account"


def unix_owner(entry: Path) -> str:
    """The account the operating system records as the owner of ``entry`` (not followed)."""
    uid = entry.lstat().st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def link_inside(folder: Path) -> str:
    """The first link under ``folder``, relative to it ("" when there is none)."""
    for parent, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            if os.path.islink(os.path.join(parent, name)):
                return os.path.relpath(os.path.join(parent, name), folder)
    return ""


def refusal(entry: Path, writer: str) -> str:
    """Why a submission folder is not one to collect ("" when it is one).

    Parameters
    ----------
    entry : Path
        A folder named ``<student>+<assignment>+<timestamp>+<random>`` by nbgrader's submit.
    writer : str
        Who wrote it: its Unix owner, or the account whose folder holds it.

    Returns
    -------
    str
        The reason, for the log; empty when the folder is a whole submission of ``writer``.
    """
    if entry.is_symlink() or not entry.is_dir():
        return "it is not a folder (a link or a file)"
    parts = entry.name.rsplit("+", 3)
    try:  # nbgrader's collect parses the time and would stop, for every student, on a bad one
        parse_utc(parts[2])
    except (IndexError, ValueError, OverflowError):
        return "its name is not nbgrader's <student>+<assignment>+<time>+<random>"
    claimed = parts[0]
    if claimed != writer:
        return f"it names {claimed!r} but was written by {writer!r}"
    link = link_inside(entry)
    if link:
        return f"it holds a link, {link!r}"
    secret = entry / "submission_secret.txt"
    try:
        whole = SECRET.fullmatch(secret.read_text(encoding="ascii").strip()) is not None
    except (OSError, UnicodeDecodeError):
        whole = False
    return "" if whole else "it is incomplete (the submit was cut short)"


def account_folders(parent: Path) -> list[Path]:
    """The account folders under ``parent``: real folders, not hidden, by name."""
    return sorted(p for p in parent.glob("[!.]*") if p.is_dir() and not p.is_symlink())


def make_account_folders(course_exchange: Path, students: Iterable[str]) -> list[str]:
    """Each student's inbound and feedback folder of the exchange, made where missing.

    A student's pod mounts both (hub/k8s/values.yaml); made by the formgrader's account, the
    one account every pod writes as, before the student's first server starts (a folder the
    kubelet makes itself is root's).

    Parameters
    ----------
    course_exchange : Path
        The course's folder of the exchange, ``<exchange root>/<course id>``.
    students : Iterable[str]
        The students' hub user names (checked by ``grader.hub.roster.check_names``).

    Returns
    -------
    list[str]
        The students whose folders were made now, in the order given.
    """
    made = []
    for student in students:
        folders = [course_exchange / kind / student
                   for kind in (INBOUND_BY_ACCOUNT, FEEDBACK_BY_ACCOUNT)]
        if not all(folder.is_dir() for folder in folders):
            made.append(student)
        for folder in folders:
            folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    return made


class ExchangeIdentity(LoggingConfigurable):
    """Where the course's exchange classes learn who wrote a submission (module docstring)."""

    identity = Enum(
        ("owner", "account-folder"), "owner",
        help="'owner': the Unix owner of each folder of the shared inbound/ (one machine). "
             "'account-folder': the account folder a submission lies in, "
             "<course>/inbound-by-account/<user>/, with feedback released to "
             "<course>/feedback-by-account/<user>/ (Kubernetes, hub/k8s/values.yaml).",
    ).tag(config=True)


class OwnerCheckedCollect(ExchangeIdentity, ExchangeCollect):
    """nbgrader's collect, after moving forged, incomplete and linked submissions aside."""

    def set_aside(self, folder: Path, writer: Callable[[Path], str]) -> None:
        """Rename each submission of ``folder`` that :func:`refusal` refuses, and log why."""
        for entry in sorted(folder.glob("[!.]*")):
            reason = refusal(entry, writer(entry))
            if not reason:
                continue
            kept = folder / f".refused-{entry.name}"
            if os.path.lexists(kept):  # a student may have made that name in their own folder
                kept = folder / f".refused-{secrets.token_hex(4)}-{entry.name}"
            entry.rename(kept)
            self.log.error("Refused %s: %s (kept as %s)", entry.name, reason, kept.name)

    def init_src(self) -> None:  # noqa: D102 -- ExchangeCollect's
        course = Path(self.root) / self.coursedir.course_id
        if self.identity == "account-folder":
            self.init_src_by_account(course / INBOUND_BY_ACCOUNT)
            return
        if (course / "inbound").is_dir():
            self.set_aside(course / "inbound", unix_owner)
        super().init_src()

    def init_src_by_account(self, by_account: Path) -> None:
        """nbgrader's ``init_src`` over the account folders: each account's newest whole
        submission (the newest before the due date with ``--before-duedate``), as its own."""
        if not by_account.is_dir():
            self.fail(f"Course not found: {by_account}")
        self.inbound_path = str(by_account)
        self.check_owner = False  # every folder has the pods' one owner: the folder is the check
        pattern = f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*"
        duedate = self.due_date()
        self.src_records = []
        for account in account_folders(by_account):
            self.set_aside(account, lambda entry, name=account.name: name)
            # glob.glob, not Path.glob: its * skips the .refused- folders, as nbgrader's does
            records = sorted((self._path_to_record(path) for path in
                              glob.glob(os.path.join(glob.escape(str(account)), pattern))),
                             key=lambda record: record["timestamp"], reverse=True)
            for record in records:
                record["filename"] = f"{account.name}/{record['filename']}"
                record["username"] = account.name
            on_time = [r for r in records if duedate is not None and self.before_duedate
                       and r["timestamp"] <= duedate]
            if records:
                self.src_records.append((on_time or records)[0])

    def due_date(self) -> datetime | None:
        """The assignment's due date in the gradebook (None when it has none)."""
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                return gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None


class ReleaseFeedbackByAccount(ExchangeIdentity, ExchangeReleaseFeedback):
    """nbgrader's release-feedback; with account folders, each student's into their own."""

    def init_dest(self) -> None:  # noqa: D102 -- ExchangeReleaseFeedback's
        if self.identity == "owner":
            super().init_dest()
            return
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.by_account = Path(self.root) / self.coursedir.course_id / FEEDBACK_BY_ACCOUNT
        self.by_account.mkdir(parents=True, exist_ok=True)

    def copy_files(self) -> None:  # noqa: D102 -- ExchangeReleaseFeedback's
        if self.identity == "owner":
            super().copy_files()
            return
        # src_path is nbgrader's feedback folder of one student, or of every student ("*")
        students = sorted(Path(path).parent.name for path in glob.glob(self.src_path))
        for student in students:
            destination = self.by_account / student
            if destination.is_symlink():
                self.fail(f"{destination} is a link, not {student}'s feedback folder")
            destination.mkdir(exist_ok=True)
            self.dest_path = str(destination)
            self.src_path = self.coursedir.format_path(
                self.coursedir.feedback_directory, student, self.coursedir.assignment_id)
            super().copy_files()
