"""nbgrader's exchange on the class hub: collect takes only whole submissions, each its owner's.

nbgrader's collect takes, per student, the newest folder in ``inbound/`` whose name starts with
that student's id. Two kinds of folder must not count, and here they are renamed to
``.refused-<name>`` in ``inbound/`` (which only the grader account may list; a name starting
with a dot is one nbgrader's patterns never match) and named in the log before nbgrader looks,
so that the student's previous submission is collected instead. Renaming in place needs only
the grader account's write access to ``inbound/``; moving a student's folder elsewhere would
need write access to the folder itself, which a cut-short one does not give:

* **forged**: the id comes from the command line when one is given (``nbgrader submit
  --student=someone-else``), and nbgrader's own collect only warns when the folder belongs to
  another account (nbgrader/exchange/default/collect.py, ``check_owner``), then collects it as
  that student's newest submission;
* **incomplete**: a submit copies the files, then writes ``timestamp.txt``, then
  ``submission_secret.txt`` (128 hex digits; nbgrader/exchange/default/submit.py). A folder
  without a whole secret was cut short: the student's server was stopped mid-copy, or the
  exchange's disk was full.

Trusted: the operating system's record of who made a folder, and nbgrader's order of writes.
"""

from __future__ import annotations

import pwd
import re
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

SECRET = re.compile(r"[0-9a-f]{128}")  # secrets.token_hex(64), nbgrader's submission secret


def refusal(entry: Path) -> str:
    """Why a folder of ``inbound/`` is not a submission to collect ("" when it is one)."""
    claimed = entry.name.rsplit("+", 3)[0]
    try:
        owner = pwd.getpwuid(entry.lstat().st_uid).pw_name
    except KeyError:
        owner = f"uid {entry.lstat().st_uid}"
    if claimed != owner:
        return f"it names {claimed!r} but was written by {owner!r}"
    secret = entry / "submission_secret.txt"
    try:
        whole = SECRET.fullmatch(secret.read_text(encoding="ascii").strip()) is not None
    except (OSError, UnicodeDecodeError):
        whole = False
    return "" if whole else "it is incomplete (the submit was cut short)"


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, after moving forged and incomplete submissions out of its way."""

    def init_src(self) -> None:  # noqa: D102 -- ExchangeCollect's
        inbound = Path(self.root) / self.coursedir.course_id / "inbound"
        if inbound.is_dir():
            for entry in sorted(inbound.glob("[!.]*")):
                reason = refusal(entry)
                if reason:
                    entry.rename(inbound / f".refused-{entry.name}")
                    self.log.error("Refused %s: %s (kept as .refused-%s)", entry.name, reason,
                                   entry.name)
        super().init_src()
