"""The formgrader's feedback buttons hold back what waits for a hand grade, as ``course feedback``
does (a Jupyter server extension).

nbgrader's "Generate feedback" and "Release feedback" (Manage Assignments, for the class;
Manage Submissions, for one student) post to four API routes that call nbgrader's
``generate_feedback`` and ``release_feedback`` for everyone. nbgrader offers no setting that
leaves a student out of one call: the converter class is fixed in nbgrader's API, and its
``pre_convert_hook`` neither learns the student nor can stop the conversion. So this extension
serves those four routes with nbgrader's own handler base and decorators, and runs the step
through :func:`grader.handback.pending.hand_back`, the one ``course feedback`` runs: nbgrader still
writes and releases the feedback, without the students whose work waits (nbgrader's
``student_id_exclude``), and a page written earlier for them is removed.

The instructor reads why in the dialog the button opens: the reply is nbgrader's with
``success`` false and, above nbgrader's log, each student left out and what waits
(``kimbo: 01_perceptron/eta_answer (not graded by hand yet)``).

The routes are added before nbgrader's, so they answer first (tornado tries host rules in the
order they were added, and jupyter_server loads extensions in the order of their names:
``grader.`` comes before ``nbgrader.``; ``tests/test_formgrader_pages.py`` clicks the buttons).
Enabled by grader/jupyter_server_config.d/grader_formgrader_feedback.json.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.utils import url_path_join
from nbgrader.server_extensions.formgrader.base import (
    BaseApiHandler,
    check_notebook_dir,
    check_xsrf,
)
from tornado import web

from grader.handback.pending import Handback, hand_back, waiting_lines
from mllib.plotting import counted

ROUTES = {  # nbgrader's routes (server_extensions/formgrader/apihandlers.py) -> step
    r"/formgrader/api/assignment/([^/]+)/generate_feedback": "generate",
    r"/formgrader/api/assignment/([^/]+)/release_feedback": "release",
    r"/formgrader/api/assignment/([^/]+)/([^/]+)/generate_feedback": "generate",
    r"/formgrader/api/assignment/([^/]+)/([^/]+)/release_feedback": "release",
}
WHAT_THEN = {
    "generate": ("no feedback is written for them (a page written earlier is removed)",
                 "generate feedback again"),
    "release": ("nothing of theirs is released", "generate and release feedback again"),
}


def formgrader_reply(step: str, assignment: str, handback: Handback) -> dict:
    """nbgrader's reply to a feedback button, failed and explained when someone was held back.

    The formgrader shows a failed reply in its error dialog with the log below it, so the
    students left out and what waits come first in the log.
    """
    reply = dict(handback.result)
    if not handback.held:
        return reply
    left_out, then = WHAT_THEN[step]
    held = {s: cells for s, cells in handback.waiting.items() if s in handback.held}
    told = [f"LEFT OUT of the feedback of {assignment}: "
            f"{counted(len(held), 'student')} whose work waits for a hand grade; {left_out}. "
            f"Grade it in the formgrader, then {then}:", *waiting_lines(held)]
    reply["success"] = False
    reply["log"] = "\n".join(told) + "\n\n" + reply.get("log", "")
    return reply


class HeldBackFeedbackHandler(BaseApiHandler):
    """One of nbgrader's four feedback routes, run through
    :func:`grader.handback.pending.hand_back`."""

    def initialize(self, step: str) -> None:
        self.step = step

    @web.authenticated
    @check_xsrf
    @check_notebook_dir
    def post(self, assignment_id: str, student_id: str | None = None) -> None:
        handback = hand_back(self.api, self.step, assignment_id, student_id)
        self.write(json.dumps(formgrader_reply(self.step, assignment_id, handback)))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "grader.handback.formgrader_feedback"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    base_url = web_app.settings.get("base_url", "/")
    web_app.add_handlers(".*$", [(url_path_join(base_url, route), HeldBackFeedbackHandler,
                                  {"step": step}) for route, step in ROUTES.items()])
    serverapp.log.info("grader.handback.formgrader_feedback: feedback buttons hold back what waits "
                       "for a hand grade")
