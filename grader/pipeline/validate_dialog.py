"""What JupyterLab's Validate dialog says on a pass (a Jupyter server extension).

A released notebook holds only the visible tests, but nbgrader's lab extension (0.9.6,
``src/common/validate.ts``) answers a pass with a fixed sentence, "Success! Your notebook passes
all the tests.", written into ``<div id="validation-message" class="validation-success">``. The
sentence goes through no translator and the server's reply to a pass is empty, so nothing
nbgrader reads can change it. What JupyterLab does offer is a stylesheet of the site's own:
with ``LabApp.custom_css`` on, its page links ``<base_url>custom/custom.css``. This extension
serves :data:`STYLESHEET` there. It hides nbgrader's sentence (``visibility: hidden`` also takes
it out of the accessibility tree) and shows :data:`SUCCESS` in its place as generated content,
which browsers expose to assistive technology as the paragraph's text.

The sentence takes the old one's place in the flow (the old text is set at font size 0 rather
than covered), so the dialog sizes itself to what it shows. Only this one URL is served: any
other ``/custom/`` file is still JupyterLab's. A student's own ``~/.jupyter/custom/custom.css``
is not loaded while this extension is on: the course's sentence wins over it.

The handler is registered before JupyterLab's ``/custom/`` route because jupyter_server loads
extensions in the order of their names (``grader...`` before ``jupyterlab``) and tornado tries
routes in the order they were added; tests/test_validate_button.py plants a different
``custom.css`` where JupyterLab would find it and checks that the course's is the one applied.

Enabled where students press Validate: the course's lab
(grader/jupyter_server_config.d/grader_validate_dialog.json, with ``LabApp.custom_css`` in
grader/jupyter_lab_config.json: jupyter_server reads only the extension switches of a
``.d`` folder), the student bundle (the same two files; this module imports only jupyter_server
and tornado) and the hub's student servers (hub/student/jupyter_server_config.json).
"""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.utils import url_path_join
from tornado.web import RequestHandler

# What the dialog says instead; `course validate` ends with the same words.
SUCCESS = "Your notebook passes the visible tests; hidden tests run at grading."
# The dialog's text size (JupyterLab's UI font size), set again on the generated sentence since
# its paragraph's is 0.
STYLESHEET = f"""/* The course's JupyterLab stylesheet (grader/pipeline/validate_dialog.py). */
.validation-success p {{
  visibility: hidden;
  font-size: 0;
}}
.validation-success p::after {{
  visibility: visible;
  font-size: var(--jp-ui-font-size1);
  content: "{SUCCESS}";
}}
"""
ROUTE = "custom/custom.css"


class CourseStylesheet(RequestHandler):
    """``GET <base_url>custom/custom.css``: :data:`STYLESHEET`, never cached (a new term's
    sentence reaches a browser at its next load). Public, as JupyterLab's own static files
    are: the same for everyone, nothing private."""

    @allow_unauthenticated
    def get(self) -> None:
        self.set_header("Content-Type", "text/css; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(STYLESHEET)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """This module is its own extension (jupyter_server's discovery hook)."""
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Route :data:`ROUTE` under the server's base URL to :class:`CourseStylesheet`."""
    route = url_path_join(serverapp.base_url, ROUTE)
    serverapp.web_app.add_handlers(".*$", [(route, CourseStylesheet)])
