"""Mathematics in the feedback pages, rendered when they are written: MathML, no script.

A feedback file travels: it is opened from a disk, from a zip, or from Canvas after a
Re-Upload Submissions, offline or behind a firewall. MathJax, loaded from a CDN or from a
Jupyter server, is not there, and would be a script in a page that shows a student's work. So
nbgrader's ``generate_feedback`` writes the pages with :class:`FeedbackExporter`, which turns
every formula of a markdown cell (``$...$``, ``$$...$$``, ``\\begin{env}...\\end{env}``) into
MathML with ``latex2mathml`` (pure Python); browsers draw MathML themselves (MathML Core:
Chromium 109+, Firefox, Safari). The MathML is cleaned with an allow-list of presentation
elements and attributes (no links, no events), like the rest of the page
(:mod:`grader.handback.sanitize`). A formula latex2mathml cannot read is shown as its TeX source.

The page loads nothing else either: the template's CSS is inlined, and its one web font
(Bootstrap's glyphs, unused) is dropped. Configured in ``grader/nbgrader_config.py``
(``GenerateFeedback.exporter_class`` and the ``markdown2html`` filter :class:`MathMLMarkdown`);
the feedback template's policy then allows no script at all.
"""

from __future__ import annotations

import html
import re
import secrets
from typing import Any

import bleach
from latex2mathml.converter import convert
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from grader.core.page import feedback_page, scroll_box
from grader.handback.sanitize import SafeMarkdown

# MathML Core's presentation elements and the attributes that change only how they look.
MATHML_TAGS = frozenset({
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot",
    "mstyle", "merror", "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover",
    "munderover", "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "menclose",
    "semantics", "annotation",
})
MATHML_ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathsize", "stretchy", "fence",
    "separator", "symmetric", "largeop", "movablelimits", "accent", "accentunder", "form",
    "lspace", "rspace", "minsize", "maxsize", "width", "height", "depth", "linethickness",
    "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines",
    "frame", "notation", "columnspan", "rowspan", "encoding",
})


FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}")


def _mathml_attribute(tag: str, name: str, value: str) -> bool:
    return name in MATHML_ATTRIBUTES


# An inline formula whose TeX is longer than this may be wider than a phone's text column
# (290 px at 320): it gets a box of its own that scrolls, reachable by Tab, inside its sentence.
# Shorter ones stay plain text of the line, so a page's Tab order is not a list of formulas.
LONG_INLINE = 20


def mathml(tex: str, display: bool) -> str:
    """``tex`` as clean MathML (a block when ``display``, in a box of its own that scrolls when
    the formula is wider than the screen: :func:`grader.core.page.scroll_box`; an inline formula
    longer than :data:`LONG_INLINE` in an inline box of the same kind), or its escaped
    source in ``<code class="tex">`` when latex2mathml cannot read it."""
    try:
        markup = convert(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds on malformed TeX
        delimiter = "$$" if display else "$"
        return f'<code class="tex">{html.escape(delimiter + tex + delimiter)}</code>'
    clean = bleach.clean(markup, tags=MATHML_TAGS, attributes=_mathml_attribute, strip=True,
                         strip_comments=True)
    if display or len(tex) > LONG_INLINE:
        return scroll_box(clean, "formula", inline=not display)
    return clean


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with each formula held back as a placeholder.

    The placeholder (an unguessable word) passes through the HTML cleaning untouched, and
    :meth:`FeedbackExporter.put_back` then replaces it with the formula's MathML.
    """

    def __init__(self, held: dict[str, str], token: str, **options: Any) -> None:
        super().__init__(**options)
        self.held, self.token = held, token

    def _hold(self, tex: str, display: bool) -> str:
        key = f"{self.token}{len(self.held)}z"
        self.held[key] = mathml(tex, display)
        return key

    def inline_math(self, body: str) -> str:
        return self._hold(body, display=False)

    def block_math(self, body: str) -> str:
        return self._hold(body, display=True)

    def latex_environment(self, name: str, body: str) -> str:
        return self._hold(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)


class FeedbackExporter(HTMLExporter):
    """The HTML exporter of ``generate_feedback``, rendering formulas as MathML."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.held: dict[str, str] = {}
        self.token = "mathml" + secrets.token_hex(12)

    def markdown2html(self, context: Any, source: str) -> str:
        """nbconvert's ``HTMLExporter.markdown2html`` (same renderer options) with
        :class:`MathMLRenderer`; the formulas come back with :meth:`put_back`."""
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            self.held, self.token, escape=False, attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)

    def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any) -> Any:
        """The page, made accessible (:func:`grader.core.page.feedback_page`) and without the web
        fonts of the template's CSS: nbgrader's feedback inlines Bootstrap's, whose glyph font is
        a file beside the CSS that the page does not have (and does not use); the page draws
        with the reader's own fonts."""
        output, resources = super().from_notebook_node(nb, resources, **kw)
        return feedback_page(FONT_FACE.sub("", output)), resources

    def put_back(self, markup: str) -> str:
        """``markup`` with each formula placeholder replaced by its MathML."""
        for key in [k for k in self.held if k in markup]:
            markup = markup.replace(key, self.held.pop(key))
        return markup


class MathMLMarkdown(SafeMarkdown):
    """The feedback's ``markdown2html`` filter: :class:`grader.handback.sanitize.SafeMarkdown`, then
    the formulas put back as MathML (its parent is a :class:`FeedbackExporter`)."""

    def __call__(self, context: Any, source: str) -> str:
        return self.parent.put_back(super().__call__(context, source))
