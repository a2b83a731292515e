"""The class on JupyterHub: who may log in, as which Unix account, in which nbgrader group.

The hub (``hub/jupyterhub_config.py``, started by ``make hub``) reads one file, the hub roster
(``roster.json`` in the hub's state folder), written by ``course hub users ROSTER.csv``:

* every student of the LMS roster (Canvas's gradebook export, as ``course export`` reads it)
  becomes the Unix account named by their SIS login id, in the group ``nbgrader-<course>``,
  whose members see the course in nbgrader's Assignments tab;
* each grader and instructor named on the command line is in ``formgrade-<course>``, whose
  members reach the course's formgrader, a hub service running as the account
  ``grader-<course>`` (nbgrader's "one class, multiple graders" set-up); instructors are the
  hub's admins too.

Every person is a separate Unix account, so the operating system, not the course's code,
keeps one student's files from another (The Littlest JupyterHub does the same). What runs as
whom is in the README's "A class on JupyterHub".

Trusted: the instructor's roster file and command line. Not trusted: the names in the roster,
which become Unix account names, so each is checked before any account is made.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import subprocess
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from jupyterhub.auth import PAMAuthenticator
from traitlets import Unicode

from grader.handback.lms import read_canvas_roster

COURSE_ID = "ml-course"
STUDENTS_GROUP = f"nbgrader-{COURSE_ID}"  # nbgrader lists the course for these users
GRADERS_GROUP = f"formgrade-{COURSE_ID}"  # ...and lets these into the course's formgrader
FORMGRADER_SERVICE = f"formgrader-{COURSE_ID}"
GRADER_ACCOUNT = f"grader-{COURSE_ID}"  # the Unix account the shared formgrader runs as
ROLES = ("student", "grader", "instructor")
# A portable Unix account name (POSIX's portable filename characters, lower case, starting
# with a letter, at most 32 characters: useradd's limit on Debian).
ACCOUNT_NAME = re.compile(r"[a-z][a-z0-9._-]{0,31}")
# Marks the accounts this module made (the passwd comment field), so it never locks, or
# hands a password to, an account it did not make (root, a service user, a staff member's).
MARK = f"{COURSE_ID} hub"


@dataclass(frozen=True)
class HubUser:
    """One person of the class as the hub knows them."""

    name: str  # the hub user and Unix account name
    role: str  # "student", "grader" or "instructor"
    full_name: str = ""
    lms_id: str = ""

    @property
    def groups(self) -> list[str]:
        """The nbgrader groups of this person: students', or graders' (instructors too)."""
        return [STUDENTS_GROUP] if self.role == "student" else [GRADERS_GROUP]


def roster_users(roster: Path, graders: Iterable[str] = (),
                 instructors: Iterable[str] = ()) -> list[HubUser]:
    """The class from Canvas's gradebook export, plus its staff.

    Each student's account name is their SIS login id, lower-cased (Canvas's ``SIS Login ID``
    column; the part before ``@`` when it is an e-mail address).

    Raises
    ------
    ValueError
        Naming every row whose name is missing, unsafe as a Unix account name, reserved, or
        the same as another row's (two people must never share an account).
    """
    people = [HubUser(_login_name(s.sis_login_id), "student", s.name, s.canvas_id)
              for s in read_canvas_roster(roster).students]
    people += [HubUser(name, "grader") for name in graders]
    people += [HubUser(name, "instructor") for name in instructors]
    check_names(people)
    return people


def _login_name(login: str) -> str:
    return login.strip().split("@", 1)[0].lower()


def check_names(people: list[HubUser]) -> None:
    """Refuse names that are not safe, distinct Unix account names (ValueError)."""
    problems = []
    seen: dict[str, int] = {}
    for row, person in enumerate(people, start=1):
        label = f"row {row} ({person.role} {person.full_name or person.name!r})"
        if not ACCOUNT_NAME.fullmatch(person.name):
            problems.append(f"{label}: {person.name!r} is not a safe account name (a lower-case "
                            "letter, then up to 31 of a-z, 0-9, ., _ and -)")
        elif person.name == GRADER_ACCOUNT or _is_foreign_account(person.name):
            problems.append(f"{label}: {person.name!r} is already a system account")
        elif person.name in seen:
            problems.append(f"{label}: {person.name!r} is also row {seen[person.name]}'s name")
        seen.setdefault(person.name, row)
    if problems:
        raise ValueError("the roster cannot become hub accounts:\n  " + "\n  ".join(problems))


def _mark(name: str) -> str | None:
    """The comment field of the Unix account ``name`` (None: there is no such account)."""
    try:
        return pwd.getpwnam(name).pw_gecos
    except KeyError:
        return None


def _is_foreign_account(name: str) -> bool:
    """Whether a Unix account of that name exists that this module did not make."""
    return _mark(name) not in (None, MARK)


def write_roster(state: Path, people: list[HubUser]) -> Path:
    """Write the hub roster the hub reads at every login; return its path."""
    state.mkdir(parents=True, exist_ok=True)
    path = state / "roster.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps([asdict(p) for p in people], indent=1) + "\n")
    temporary.replace(path)  # the hub never reads half a roster
    return path


def read_roster(path: Path) -> dict[str, HubUser]:
    """The hub roster by account name (empty when there is none yet)."""
    try:
        rows = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}
    return {row["name"]: HubUser(**row) for row in rows}


def sync_accounts(people: list[HubUser], before: dict[str, HubUser], home: Path,
                  ) -> tuple[dict[str, str], list[str]]:
    """Make a Unix account for each new person; lock the accounts of people who left.

    A locked account keeps its home folder and everything it submitted (nothing is deleted
    mid-term); it can no longer log in. A person who comes back is unlocked.

    Returns
    -------
    (passwords, locked)
        The first password of each account made now (hand them out once; they are not
        stored), and the names of the accounts locked now.
    """
    passwords = {}
    for person in people:
        if _account_exists(person.name):
            subprocess.run(["usermod", "--unlock", "--expiredate", "", person.name],
                           check=True, capture_output=True)
            continue
        subprocess.run(["useradd", "--create-home", "--home-dir", str(home / person.name),
                        "--shell", "/bin/bash", "--comment", MARK, person.name],
                       check=True, capture_output=True)
        (home / person.name).chmod(0o700)  # no one else reads a person's files
        password = secrets.token_urlsafe(12)
        subprocess.run(["chpasswd"], input=f"{person.name}:{password}\n", text=True,
                       check=True, capture_output=True)
        passwords[person.name] = password
    staying = {p.name for p in people}
    locked = sorted(name for name in before if name not in staying and _account_exists(name))
    for name in locked:  # --expiredate 1 also refuses logins that do not use the password
        subprocess.run(["usermod", "--lock", "--expiredate", "1", name], check=True,
                       capture_output=True)
    return passwords, locked


def _account_exists(name: str) -> bool:
    """Whether this module made a Unix account of that name."""
    return _mark(name) == MARK


def ensure_grader_account(home: Path) -> str:
    """The Unix account the shared formgrader runs as (made once, never logs in)."""
    if not _account_exists(GRADER_ACCOUNT):
        subprocess.run(["useradd", "--create-home", "--home-dir", str(home / GRADER_ACCOUNT),
                        "--shell", "/usr/sbin/nologin", "--comment", MARK, GRADER_ACCOUNT],
                       check=True, capture_output=True)
    return GRADER_ACCOUNT


class RosterAuthenticator(PAMAuthenticator):
    """PAM passwords, for the people of the hub roster only, in the roster's groups.

    The roster is read again at every login and every refresh, so a person removed by
    ``course hub users`` is refused at once and logged out within ``auth_refresh_age``.
    """

    roster_file = Unicode(help="the hub roster that `course hub users` writes").tag(config=True)

    def _person(self, name: str) -> HubUser | None:
        return read_roster(Path(self.roster_file)).get(name)

    def check_allowed(self, username: str, authentication: dict | None = None) -> bool:
        return self._person(username) is not None

    async def authenticate(self, handler, data):  # noqa: D102 -- PAMAuthenticator's
        name = await super().authenticate(handler, data)
        person = self._person(name) if name else None
        if person is None:
            return None
        return {"name": person.name, "groups": person.groups,
                "admin": person.role == "instructor"}

    async def refresh_user(self, user, handler=None):  # noqa: D102 -- Authenticator's
        person = self._person(user.name)
        if person is None:
            return False
        return {"name": person.name, "groups": person.groups,
                "admin": person.role == "instructor"}


def hub_state_dir() -> Path:
    """Where the hub keeps its state: ``$COURSE_HUB_STATE``, else ``hub/var`` of the course."""
    default = Path(__file__).resolve().parents[2] / "hub" / "var"
    return Path(os.environ.get("COURSE_HUB_STATE") or default)


def update_class(roster: Path, graders: Iterable[str], instructors: Iterable[str],
                 state: Path, home: Path) -> str:
    """``course hub users``: the hub roster and the Unix accounts from the LMS roster.

    Writes the new accounts' first passwords to ``state/new-passwords.csv`` (root only) and
    returns what changed, for the terminal.
    """
    if os.geteuid() != 0:
        raise ValueError("course hub users makes Unix accounts: run it as root")
    people = roster_users(roster, graders, instructors)
    before = read_roster(state / "roster.json")
    home.mkdir(parents=True, exist_ok=True)
    ensure_grader_account(home)
    passwords, locked = sync_accounts(people, before, home)
    write_roster(state, people)
    lines = [f"{len(people)} people on the hub: "
             + ", ".join(f"{sum(p.role == r for p in people)} {r}(s)" for r in ROLES)]
    if passwords:
        out = state / "new-passwords.csv"
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a") as sheet:
            sheet.writelines(f"{name},{password}\n" for name, password in passwords.items())
        lines.append(f"{len(passwords)} new account(s); first passwords appended to {out} "
                     "(root only): hand each out once")
    if locked:
        lines.append(f"locked (left the roster; files kept): {', '.join(locked)}")
    return "\n".join(lines)
