"""Late work: the course's late policy, as an nbgrader late-submission plugin, and lateness per
student for the exports and the report.

nbgrader computes lateness itself: a submission's ``timestamp`` (from ``timestamp.txt`` in its
folder, written by ``course collect``) against the assignment's due date in the gradebook (plus
any extension), and ``AssignLatePenalties`` asks the plugin named by
``c.AssignLatePenalties.plugin_class`` for each notebook's penalty at autograde time. This
module's :class:`LatePolicy` is that plugin, configured in ``grader/nbgrader_config.py``:

- ``c.LatePolicy.kind = "none"``: no penalty (the default);
- ``"per_day"``: ``c.LatePolicy.per_day`` (a fraction, 0.1 = 10 %) of the notebook's score per
  day or part of a day late;
- ``"cutoff"``: nothing up to ``c.LatePolicy.cutoff_days`` days late, the whole score after.

The stored penalty is computed when the notebook is autograded, before any hand grading, so
:func:`late_work` (the exports and the report) and :class:`grader.handback.pending.StudentGrades`
(the feedback pages, per notebook: :func:`notebook_penalty`) ask the same plugin again with the
current scores: every place a student's score shows applies the configured policy to the
grades as they are now.

Canvas's download says *whether* a submission is late (``LATE`` in its file name), not by how
much, and its file times are when Canvas built the zip. :func:`submission_time` turns what the
download says into the timestamp nbgrader reads; see its rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import AssignLatePenalties
from traitlets import Enum, Float, TraitError, validate
from traitlets.config import Config

DAY = 86400.0
# How late a file Canvas marks LATE counts when its time is unknown: the least that "late"
# means, so a penalty per day charges one day, never the days until the zip was built.
CANVAS_LATE = timedelta(seconds=1)


def days_late(seconds_late: float) -> int:
    """Days late, counting a part of a day as a day (as Canvas's late policies do): 0 for 0."""
    return math.ceil(seconds_late / DAY) if seconds_late > 0 else 0


class LatePolicy(LateSubmissionPlugin):
    """The course's late policy, used by nbgrader's ``AssignLatePenalties`` and the exports.

    Set it in ``grader/nbgrader_config.py`` (``c.LatePolicy.kind``, ``per_day``,
    ``cutoff_days``); see :mod:`grader.pipeline.late`.
    """

    kind = Enum(("none", "per_day", "cutoff"), default_value="none",
                help="'none': no penalty; 'per_day': per_day of the score per day (or part) "
                "late; 'cutoff': the whole score once more than cutoff_days late.").tag(config=True)
    per_day = Float(0.1, help="Fraction of a notebook's score lost per day late (kind "
                    "'per_day'), in [0, 1].").tag(config=True)
    cutoff_days = Float(3.0, help="Days late after which a notebook scores 0 (kind 'cutoff'), "
                        ">= 0.").tag(config=True)

    @validate("per_day")
    def _per_day_is_a_fraction(self, proposal: dict) -> float:
        if not 0 <= proposal["value"] <= 1:
            raise TraitError(f"LatePolicy.per_day must be in [0, 1], not {proposal['value']}")
        return proposal["value"]

    @validate("cutoff_days")
    def _cutoff_is_not_negative(self, proposal: dict) -> float:
        if proposal["value"] < 0:
            raise TraitError(f"LatePolicy.cutoff_days must be >= 0, not {proposal['value']}")
        return proposal["value"]

    def late_submission_penalty(self, student_id: str, score: float,
                                total_seconds_late: float) -> float:
        """Points taken from a notebook's ``score`` for being ``total_seconds_late`` late.

        Returns
        -------
        float
            0 when on time or under ``kind="none"``; at most ``score``.
        """
        if total_seconds_late <= 0 or self.kind == "none":
            return 0.0
        if self.kind == "cutoff":
            return score if total_seconds_late > self.cutoff_days * DAY else 0.0
        return min(score, score * self.per_day * days_late(total_seconds_late))

    def describe(self) -> str:
        """The policy in words, for the report and the exports' messages."""
        if self.kind == "per_day":
            return f"{self.per_day:.0%} of the score per day (or part of a day) late"
        if self.kind == "cutoff":
            return f"no penalty up to {self.cutoff_days:g} days late, 0 after"
        return "no penalty for late work"


def configured_policy(config: Config) -> LateSubmissionPlugin:
    """The plugin ``AssignLatePenalties`` uses under ``config`` (the course's: ``api.config``,
    or an exporter's, whose other sections the preprocessor is not given: traitlets would warn
    about them)."""
    own = Config({"AssignLatePenalties": config.get("AssignLatePenalties", Config())})
    return AssignLatePenalties(config=own).plugin_class(config=config)


def notebook_penalty(policy: LateSubmissionPlugin, student: str, score: float,
                     seconds_late: float) -> float:
    """The points ``policy`` takes from one notebook's ``score``, clipped to ``[0, score]``
    (as ``AssignLatePenalties`` asks it, on the score as it is now): 0 when on time."""
    if seconds_late <= 0:
        return 0.0
    asked = policy.late_submission_penalty(student, score, seconds_late) or 0.0
    return min(max(asked, 0.0), score)


def policy_description(api: NbGraderAPI) -> str:
    """The configured policy in words (another plugin than :class:`LatePolicy`: its name)."""
    policy = configured_policy(api.config)
    if isinstance(policy, LatePolicy):
        return policy.describe()
    return f"the plugin {type(policy).__name__}"


@dataclass(frozen=True)
class LateWork:
    """One student's lateness on one assignment, and what the policy takes for it."""

    student: str
    submitted: datetime | None  # nbgrader's timestamp (UTC), None when unknown
    due: datetime | None  # the due date including any extension (UTC)
    seconds_late: float
    penalty: float  # points, over all notebooks, with the current scores

    @property
    def days_late(self) -> int:
        """Days late, a part of a day counting as a day."""
        return days_late(self.seconds_late)


def late_work(api: NbGraderAPI, gb: Gradebook, assignment: str, student: str) -> LateWork:
    """``student``'s lateness on ``assignment`` and the configured policy's penalty now.

    The penalty is the configured plugin's, notebook by notebook (as ``AssignLatePenalties``
    computes it), on the notebooks' current scores, each clipped to ``[0, score]``. No
    submission, no due date or no timestamp: not late.
    """
    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:
        return LateWork(student, None, None, 0.0, 0.0)
    seconds = submission.total_seconds_late
    policy = configured_policy(api.config)
    penalty = sum(notebook_penalty(policy, student, notebook.score, seconds)
                  for notebook in submission.notebooks)
    return LateWork(student, submission.timestamp, submission.duedate, seconds, penalty)


def class_lateness(api: NbGraderAPI, assignment: str) -> dict[str, LateWork]:
    """Every graded student's :class:`LateWork` on ``assignment``, by student id (for the
    report)."""
    with api.gradebook as gb:
        students = sorted(s.student.id for s in gb.find_assignment(assignment).submissions)
        return {s: late_work(api, gb, assignment, s) for s in students}


def submission_time(late_marker: bool | None, file_time: datetime | None,
                    due: datetime | None) -> tuple[datetime | None, str]:
    """The timestamp to give nbgrader for a collected submission, and where it came from.

    Parameters
    ----------
    late_marker : bool or None
        True: Canvas named the file ``..._LATE_...``; False: a Canvas name without it; None: not
        a Canvas name.
    file_time : datetime or None
        The time of the LMS's file (UTC), never a time from inside a student's own archive.
    due : datetime or None
        The assignment's due date in the gradebook (UTC).

    Returns
    -------
    (datetime or None, str)
        - not a Canvas name: the file time ("file time");
        - Canvas, on time: none, so never late whatever the due date (the file time is when
          Canvas built the zip, after the deadline) ("Canvas: on time");
        - Canvas, LATE, with a due date: one second after it, so a penalty per day charges one
          day ("Canvas: LATE, time unknown");
        - Canvas, LATE, without a due date: none ("Canvas: LATE, no due date").
    """
    if late_marker is None:
        return file_time, "file time"
    if not late_marker:
        return None, "Canvas: on time"
    if due is None:
        return None, "Canvas: LATE, no due date"
    return due + CANVAS_LATE, "Canvas: LATE, time unknown"
