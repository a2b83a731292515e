"""No active content from a submission in the formgrader or in feedback.

A submission's markdown, its outputs and its student id end up as HTML in two places that
people open: nbgrader's formgrader (the instructor's Jupyter session, so a script there can act
as the instructor) and the feedback files (opened by the student and often by the instructor).
nbgrader puts them into that HTML unfiltered. This module cleans them with bleach, which
nbconvert already depends on (its own ``SanitizeHTML`` preprocessor and ``clean_html`` filter
use it), so no new dependency is needed; nbconvert's defaults are too narrow for a rendered
answer (they escape paragraphs, headings, code blocks and math tables), hence the allow-list
here.

Two hooks, both set in ``grader/nbgrader_config.py`` for ``HTMLExporter``, the exporter behind
both the formgrader's submission view and ``nbgrader generate_feedback``:

* :class:`SafeMarkdown` replaces the ``markdown2html`` template filter: markdown is rendered
  by nbconvert as before, then the resulting HTML is cleaned (cleaning the source instead would
  miss ``[x](javascript:...)`` links, which the markdown renderer emits as they are);
* :class:`SanitizeSubmission`, a preprocessor, cleans HTML outputs, drops outputs that are
  code (JavaScript, SVG with its event handlers, widget views and widget state) and escapes the
  student's id and name, which the formgrader's template prints unescaped.
"""

from __future__ import annotations

import html
import os
from typing import Any

import bleach
import jinja2
from bleach.css_sanitizer import CSSSanitizer
from nbconvert.preprocessors.sanitize import SanitizeHTML
from traitlets.config import LoggingConfigurable

# The course's nbconvert templates (the feedback page's policy and MathJax), found from this
# module: a course copy need not hold grader/jupyter, and `grader` may resolve to the course's
# own folder (a namespace package without __file__) where Jupyter runs.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATES = os.path.join(PACKAGE, "jupyter", "nbconvert", "templates")

# What nbconvert's markdown renderer (mistune with pygments highlighting) emits for an honest
# answer, and what a student's HTML output (a pandas table, say) needs.
TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div",
    "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li",
    "ol", "p", "pre", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
})
COMMON_ATTRIBUTES = frozenset({"class", "id", "title", "align", "colspan", "rowspan", "style"})
# Only pictures may be data: URLs (embedded attachments); a link may not, nor be javascript:.
LINK_PROTOCOLS = ("http", "https", "mailto")
IMAGE_DATA = ("data:image/png;", "data:image/jpeg;", "data:image/gif;")
CSS = CSSSanitizer(allowed_css_properties=["text-align", "vertical-align", "width"])


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    """Whether ``tag`` may keep attribute ``name`` with ``value`` (bleach's callable form).

    bleach then still checks every URL against ``protocols`` (which must admit ``data`` for
    embedded pictures), so here a data: URL is refused everywhere but an image's ``src``.
    """
    if name in COMMON_ATTRIBUTES:
        return True
    if tag == "a" and name == "href":
        return not value.strip().lower().startswith("data:")
    if tag == "img" and name == "src":
        lowered = value.strip().lower()
        return not lowered.startswith("data:") or lowered.startswith(IMAGE_DATA)
    return tag == "img" and name in ("alt", "width", "height")


def clean(markup: str) -> str:
    """``markup`` with every tag, attribute and URL outside the allow-list escaped or removed.

    Parameters
    ----------
    markup : str
        HTML written by, or rendered from, a student.

    Returns
    -------
    str
        HTML that runs no script: disallowed tags are shown as text (the instructor sees what
        was attempted), event handlers, ``javascript:`` URLs and comments are dropped.
    """
    if not isinstance(markup, str):
        raise ValueError(f"clean() takes HTML as a str, not {type(markup).__name__}")
    return bleach.clean(markup, tags=TAGS, attributes=_allowed_attribute,
                        protocols=(*LINK_PROTOCOLS, "data"), css_sanitizer=CSS,
                        strip_comments=True)


class SafeMarkdown(LoggingConfigurable):
    """The ``markdown2html`` template filter, rendering as the exporter does, then cleaned.

    Configured as ``HTMLExporter.filters = {"markdown2html":
    "grader.handback.sanitize.SafeMarkdown"}``; nbconvert builds it with the exporter as its parent,
    whose own filter (attachments, heading anchors, math) it wraps.
    """

    # Jinja passes the template context to a filter that carries this marker; the exporter's
    # markdown2html needs it for the cell's attachments. (pass_context marks functions only.)
    jinja_pass_arg = jinja2.pass_context(lambda: None).jinja_pass_arg

    def __call__(self, context: Any, source: str) -> str:
        return clean(self.parent.markdown2html(context, source))


class SanitizeSubmission(SanitizeHTML):
    """nbconvert's ``SanitizeHTML`` with this module's allow-list, for a whole submission.

    Per code cell output: ``text/html`` and ``text/markdown`` are cleaned, plain text, LaTeX,
    JSON and PNG/JPEG pictures are kept, anything else (``application/javascript``,
    ``image/svg+xml``, widget views) is dropped. Raw cells are cleaned; markdown cells are left
    to :class:`SafeMarkdown`, which cleans their rendered HTML. The notebook's widget state and
    the student's id and name (formgrader only) are made inert too.
    """

    def preprocess(self, nb, resources):
        # The classic template copies the widget state into a <script> block as it is.
        nb.metadata.pop("widgets", None)
        for key in ("student", "first_name", "last_name", "notebook_path"):
            if isinstance(resources.get(key), str):
                resources[key] = html.escape(resources[key])
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code":
            cell.outputs = self.sanitize_code_outputs(cell.outputs)
        elif cell.cell_type == "raw":  # a raw cell marked text/html is copied into the page
            cell.source = clean(cell.source)
        return cell, resources

    def sanitize_html_tags(self, html_str: str) -> str:
        return clean(html_str)
