"""nbgrader's exchange on the class hub, with forged submissions refused at collect.

A student submits into the exchange's ``inbound`` folder under a name that starts with a
student id, which nbgrader takes from the command line when one is given (``nbgrader submit
--student=someone-else``). nbgrader's collect then notices that the folder belongs to another
account, warns, and collects it all the same, as that other student's newest submission
(nbgrader/exchange/default/collect.py, ``check_owner``). Here a submission counts only as
its owner's: one whose name claims another student is moved to the course's ``refused``
folder, which only the grader account reads, before nbgrader looks at ``inbound``, and is
named in the log. Trusted: the operating system's record of who made a folder.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect


def forged(inbound: Path) -> list[Path]:
    """The submissions in ``inbound`` whose name claims a student other than their owner."""
    found = []
    for entry in inbound.iterdir():
        claimed = entry.name.rsplit("+", 3)[0]
        try:
            owner = pwd.getpwuid(entry.lstat().st_uid).pw_name
        except KeyError:
            owner = ""
        if claimed != owner:
            found.append(entry)
    return found


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, after moving forged submissions out of its way."""

    def init_src(self) -> None:  # noqa: D102 -- ExchangeCollect's
        inbound = Path(self.root) / self.coursedir.course_id / "inbound"
        if inbound.is_dir():
            refused = inbound.parent / "refused"
            refused.mkdir(mode=0o700, exist_ok=True)
            for entry in forged(inbound):
                os.rename(entry, refused / entry.name)
                self.log.error("Refused %s: it names a student other than its owner (kept in "
                               "%s)", entry.name, refused)
        super().init_src()
