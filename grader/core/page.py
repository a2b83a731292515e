"""The one HTML base of the pages the grader writes: the report, the similarity report, and what
feedback adds to nbgrader's template (:class:`grader.handback.offline_math.FeedbackExporter`).

Every page is in English (``lang``), fits a phone (``viewport``), allows no script and fetches
nothing (its Content-Security-Policy), and shares :data:`ACCESSIBLE_STYLE`, which meets WCAG 2.1
AA: text at 4.5:1 or more, links underlined (not told apart by colour alone), a visible focus
ring, and reflow at 320 CSS pixels (WCAG 1.4.10): code and long lines wrap inside their box,
pictures shrink, and a table wider than the screen scrolls inside its own box, which a keyboard
can reach and a screen reader names (:func:`scroll_box`). tests/test_accessibility.py and the
audits beside each page's own tests check all of it with axe-core in Chromium.
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LANG = "en"
POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
          "form-action 'none'")
HEAD = (f'<meta charset="utf-8"><meta name="viewport" content="width=device-width, '
        f'initial-scale=1"><meta http-equiv="Content-Security-Policy" content="{POLICY}">')
# The pictures the pages embed (:func:`picture`) are shown at their own size, in a box that
# scrolls when they are wider than the screen: their smallest text, LABEL_POINTS at FIGURE_DPI,
# is 10 * 100 / 72 = 13.9 px, readable at 100 % zoom (a 6-point label at 80 dpi was 6.7 px).
FIGURE_DPI = 100
LABEL_POINTS = 10
LINK = "#0b4f8a"  # 8.3:1 on white, 7.7:1 on Bootstrap's #f5f5f5 panel headings
ACCESSIBLE_STYLE = f"""
body{{color:#1a1a1a;background:#fff;overflow-wrap:break-word}}
a,a:visited{{color:{LINK};text-decoration:underline}}
a:focus-visible,summary:focus-visible,[tabindex]:focus-visible{{outline:2px solid {LINK};
outline-offset:2px}}
pre,code,samp{{white-space:pre-wrap;overflow-wrap:anywhere;word-break:normal}}
img{{max-width:100%;height:auto}}
.scroll-box{{overflow-x:auto;max-width:100%}}
.scroll-box img{{max-width:none}}
.scroll-inline{{display:inline-block;vertical-align:middle}}
"""
STYLE = ACCESSIBLE_STYLE + """
body{font-family:sans-serif;line-height:1.4;max-width:70em;margin:auto;padding:0 0.5em}
table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
"""


# nbgrader's feedback template (Bootstrap 3) with ACCESSIBLE_STYLE on top: the panel headings grow
# with their text instead of cutting it at 37 px and hold their floated "Score: x / y" (a
# flow root: on a phone it wraps below the label, still on the heading's blue, not out of it
# in white on the white page), the summary's "Not final" line is dark on its grey, their links
# are white on Bootstrap's primary blue (4.5:1; nbgrader's #BBB is 1.7:1), and on a phone the
# prompts go above their cells and the nested containers give back their padding (the text
# column grows from 200 to 290 px at 320: the course's widest inline formulas then fit; display
# formulas scroll in their box).
# Tracebacks come in IPython's 256 colours, inline (green keywords at 4.2:1, grey-green comments
# at 4.1:1): in an output they take the text's colour, as the page's has no better.
FEEDBACK_STYLE = ACCESSIBLE_STYLE + """
.output_area pre span[style]{color:inherit!important;background-color:transparent!important}
div.nbgrader_cell .panel-heading{height:auto;display:flow-root}
.waiting{color:#1a1a1a}
div.nbgrader_cell .panel-heading a,div.nbgrader_cell .panel-heading a:visited{color:#fff}
@media (max-width:40em){body{padding-left:0;padding-right:0}
.container{padding-left:4px;padding-right:4px}.panel-body{padding:4px}
div.input,div.output_area{display:block}
div.prompt{min-width:0;width:auto;text-align:left;float:none;display:block}}
"""
# nbconvert's alt text for an output image without one; WCAG 1.1.1 counts it as none.
PLACEHOLDER_ALT = 'alt="No description has been provided for this image"'
# What feedback says instead, where the student's output named nothing better (a figure drawn
# with mllib.plotting.describe, or an Image with alt=..., carries its own).
STUDENT_IMAGE_ALT = 'alt="an image your notebook displayed"'


def feedback_page(markup: str) -> str:
    """nbgrader's feedback page ``markup`` made accessible: its language, the viewport and
    :data:`FEEDBACK_STYLE` in its head (the template's, before any of the submission), and an
    honest alt text for the images whose output gave none."""
    head = f'<meta name="viewport" content="width=device-width, initial-scale=1">' \
           f"<style>{FEEDBACK_STYLE}</style></head>"
    markup = markup.replace("<html>", f'<html lang="{LANG}">', 1).replace("</head>", head, 1)
    return markup.replace(PLACEHOLDER_ALT, STUDENT_IMAGE_ALT)


def scroll_box(content: str, name: str, inline: bool = False) -> str:
    """``content`` (HTML) in a box that scrolls sideways when it is wider than the screen,
    reachable by Tab and announced as ``name`` (escaped here); ``inline``: a box that stays in
    its line of text (a ``span``), for a long formula inside a sentence."""
    tag, kind = ("span", "scroll-box scroll-inline") if inline else ("div", "scroll-box")
    return (f'<{tag} class="{kind}" role="region" tabindex="0" '
            f'aria-label="{html.escape(name)}">{content}</{tag}>')


def picture(png: str, alt: str, name: str) -> str:
    """An embedded PNG (base64, from :func:`embedded_png`) with its ``alt`` text, at its own
    size in a :func:`scroll_box` named ``name``: a picture wider than the screen scrolls instead
    of shrinking its text below :data:`LABEL_POINTS`."""
    return scroll_box(f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{png}">', name)


def document(title: str, body: str, style: str = "") -> str:
    """A whole page: ``title`` (escaped here), ``body`` (HTML its caller escaped) and the page's
    own ``style`` after the shared one."""
    return (f'<!DOCTYPE html>\n<html lang="{LANG}"><head>{HEAD}<title>{html.escape(title)}'
            f"</title><style>{STYLE}{style}</style></head><body>\n{body}\n</body></html>\n")


def embedded_png(fig: Figure) -> str:
    """``fig`` as a base64 PNG at :data:`FIGURE_DPI`, cropped to what is drawn (a long label
    is never cut off), for an ``<img src="data:image/png;base64,...">``."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")
