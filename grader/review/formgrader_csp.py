"""A Content-Security-Policy for every page of nbgrader's formgrader (a Jupyter server extension).

The formgrader shows student content (rendered answers, outputs, student ids) inside the
instructor's Jupyter session: a script that runs there can call ``/api/contents`` or start a
kernel as the instructor. grader/handback/sanitize.py cleans that content; this policy is the second
wall: no inline script or event handler runs unless nbgrader itself wrote it.

nbgrader's own pages do use inline scripts (``var assignment_id = "..."`` blocks, the grading
page's ``toggle_name``) and three ``onclick`` attributes, so a bare "no inline script" policy
would break them. Instead:

* nbgrader's templates are loaded through :class:`NonceLoader`, which writes a placeholder
  nonce into each ``<script`` of nbgrader's own template files (never into nbconvert's output
  blocks, and never into the submission, which is data passed to the template). The placeholder
  is a per-process secret that never leaves the server: :class:`FormgraderPolicy`, a tornado
  output transform, swaps it for a fresh nonce per response and sends the policy naming that
  nonce. Content that copies the placeholder cannot guess it, and any nonce a page shows is
  useless for the next one;
* the ``onclick`` attributes are allowed by their hashes (``'unsafe-hashes'``): only those
  exact handler texts can run, whoever writes them. They are read with an HTML parser, as the
  browser reads them: any case (nbgrader writes both ``onclick=`` and ``onClick=``), any
  quoting, entities decoded. A handler the policy cannot allow (one that Jinja fills in, or a
  ``javascript:`` URL) is refused by name when the server starts;
* list pages render with autoescaping, so a student id in a URL (``/manage_students/<id>``)
  is text, not markup.

No string is evaluated as code ('unsafe-eval' is not allowed). MathJax 2 would evaluate a
``text/x-mathjax-config`` block, so the grading page's MathJax configuration is a script file
this extension serves (``formgrader_static/``, see STATIC).

Enabled by grader/jupyter_server_config.d/grader_formgrader_csp.json (``make lab`` puts
grader/ on ``JUPYTER_CONFIG_PATH``).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
from html.parser import HTMLParser
from typing import Any

import jinja2
from jupyter_server.utils import url_path_join
from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers as nbgrader_handlers
from tornado.web import OutputTransform, StaticFileHandler

# Same length as a nonce, so that swapping one for the other keeps Content-Length right.
PLACEHOLDER = secrets.token_hex(16)
SCRIPT_TAG = re.compile(r"<script\b", re.IGNORECASE)
# Attributes whose value a browser may navigate to (a ``javascript:`` URL runs as a script).
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "data", "xlink:href"})
JINJA = re.compile(r"\{\{|\{%")
# The course's scripts for the formgrader's pages (MathJax's configuration), served from 'self'
# at <base_url>/formgrader_course/static/.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATIC = os.path.join(PACKAGE, "formgrader_static")
STATIC_ROUTE = "formgrader_course/static/(.*)"
# No 'unsafe-eval': MathJax 2 evals text/x-mathjax-config blocks, so its configuration comes
# from a file (STATIC) instead, and nothing else of the formgrader's evals (nbgrader's own
# scripts, Backbone and jQuery as it uses them: tests/test_formgrader_pages.py walks every page
# and fails on any violation). Styles may be inline (MathJax, Bootstrap tooltips).
POLICY = ("default-src 'self'; script-src 'self' 'nonce-{nonce}' 'unsafe-hashes' "
          "{hashes}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self' data:; object-src 'none'; frame-src 'none'; base-uri 'self'; "
          "form-action 'self'; frame-ancestors 'self'")


def trusted_folders() -> tuple[str, ...]:
    """The template folders whose scripts get the nonce: nbgrader's and this course's."""
    course = os.path.join(PACKAGE, "jupyter")
    return (os.path.abspath(nbgrader_handlers.template_path), course)


class InlineHandlers(HTMLParser):
    """The inline event handlers of one template, as a browser parses its tags.

    ``texts`` holds each handler's text (entities decoded, as the browser hashes it);
    ``problems`` each handler the policy cannot allow by hash.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: set[str] = set()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:  # names arrive lower-cased, values unquoted and unescaped
            value = value or ""
            if name.startswith("on") and JINJA.search(value):
                self.problems.append(f"<{tag} {name}> is filled in by Jinja: {value!r}")
            elif name.startswith("on"):
                self.texts.add(value)
            elif name in URL_ATTRIBUTES and value.strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}> is a javascript: URL: {value!r}")


def handler_hashes(folder: str) -> list[str]:
    """CSP hash sources of every inline event handler in the templates under ``folder``.

    Raises
    ------
    ValueError
        Naming each template whose handler no hash can allow (a templated handler, a
        ``javascript:`` URL): that control would do nothing under the policy.
    """
    texts, problems = set(), []
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(directory, name)
            parser = InlineHandlers()
            with open(path, encoding="utf-8") as template:
                parser.feed(template.read())
            parser.close()
            texts |= parser.texts
            problems += [f"{path}: {problem}" for problem in parser.problems]
    if problems:
        raise ValueError("inline scripts the formgrader's policy cannot allow by hash:\n"
                         + "\n".join(problems))
    digests = (hashlib.sha256(text.encode()).digest() for text in sorted(texts))
    return [f"'sha256-{base64.b64encode(d).decode()}'" for d in digests]


class NonceLoader(jinja2.BaseLoader):
    """Load templates through ``inner``, tagging the scripts of trusted template files."""

    def __init__(self, inner: jinja2.BaseLoader, folders: tuple[str, ...]) -> None:
        self.inner, self.folders = inner, folders

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[Any, ...]:
        source, filename, uptodate = self.inner.get_source(environment, template)
        if filename and os.path.abspath(filename).startswith(self.folders):
            source = SCRIPT_TAG.sub(f'<script nonce="{PLACEHOLDER}"', source)
        return source, filename, uptodate


class NoncedHTMLExporter(HTMLExporter):
    """The formgrader's exporter, with the nonce on the grading page's own scripts."""

    def _create_environment(self) -> jinja2.Environment:
        environment = super()._create_environment()
        environment.loader = NonceLoader(environment.loader, trusted_folders())
        return environment


class FormgraderPolicy(OutputTransform):
    """Send the policy with every HTML page under ``<base_url>formgrader/``."""

    prefix = "/formgrader/"
    hashes = ""

    def __init__(self, request: Any) -> None:
        super().__init__(request)
        self.applies = request.path.startswith(self.prefix)
        self.nonce = secrets.token_hex(16)

    def _swap(self, chunk: bytes) -> bytes:
        return chunk.replace(PLACEHOLDER.encode(), self.nonce.encode())

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        if self.applies and headers.get("Content-Type", "").startswith("text/html"):
            chunk = self._swap(chunk)
            headers["Content-Security-Policy"] = POLICY.format(nonce=self.nonce,
                                                               hashes=self.hashes)
        else:
            self.applies = False
        return status_code, headers, chunk

    def transform_chunk(self, chunk: bytes, finishing: bool) -> bytes:
        return self._swap(chunk) if self.applies else chunk


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "grader.review.formgrader_csp"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    FormgraderPolicy.prefix = web_app.settings.get("base_url", "/") + "formgrader/"
    try:
        FormgraderPolicy.hashes = " ".join(
            h for folder in trusted_folders() for h in handler_hashes(folder))
    except ValueError as error:  # fail closed: the policy stays, those controls do nothing
        serverapp.log.error("grader.review.formgrader_csp: %s", error)
    # First, so that it sees the page before any compressing transform does.
    web_app.transforms.insert(0, FormgraderPolicy)
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings.get("base_url", "/"),
                                                STATIC_ROUTE), StaticFileHandler,
                                  {"path": STATIC})])


async def _start_jupyter_server_extension(serverapp: Any) -> None:
    """Swap nbgrader's template environment and exporter, once every extension has loaded."""
    settings = serverapp.web_app.settings
    if "nbgrader_jinja2_env" not in settings:
        serverapp.log.warning("grader.review.formgrader_csp: nbgrader's formgrader is not loaded")
        return
    settings["nbgrader_jinja2_env"] = jinja2.Environment(
        loader=NonceLoader(jinja2.FileSystemLoader([nbgrader_handlers.template_path]),
                           trusted_folders()),
        autoescape=True)
    formgrader = settings["nbgrader_formgrader"]
    settings["nbgrader_exporter"] = NoncedHTMLExporter(config=formgrader.config)
    serverapp.log.info("grader.review.formgrader_csp: the formgrader's pages carry a CSP")
