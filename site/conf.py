"""Sphinx configuration of the course website (`make site`; see site/coursesite/build.py).

Sphinx reads the staging folder that the build writes (site/_build/src) with this folder as its
configuration directory. Notebooks arrive executed (the build runs them, with the widgets'
frames precomputed), so MyST-NB only renders them.
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # mllib, for the API reference
sys.path.insert(0, str(HERE))  # coursesite

project = "ML course companion"
author = "the course's authors"
copyright = "the course's authors, MIT licence"
language = "en"  # <html lang="en">
smartquotes = False  # text as the notebooks write it (the leak test compares it verbatim)

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax",
              "sphinx.ext.githubpages",  # githubpages: the .nojekyll file
              "coursesite.policy"]  # a Content-Security-Policy on every page

# -- notebooks and Markdown ------------------------------------------------------------------
nb_execution_mode = "off"  # the build executed the walk-throughs; exercises are shown as released
nb_ipywidgets_js = {}  # no widget manager from a CDN: the widgets are the site's own
nb_merge_streams = True
nb_output_stderr = "show"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3  # the errata page links to the walk-throughs' sections
suppress_warnings = ["mystnb.unknown_mime_type"]

# -- the API reference -----------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_param = False  # parameters as text: "shape (m, d)" is no cross-reference to an m
napoleon_use_rtype = False
napoleon_use_ivar = True  # attributes as a field list: their types stay text, too
napoleon_custom_sections = ["Sources", "Conventions"]  # the modules' own docstring sections


def escape_bars(app, what, name, obj, options, lines) -> None:
    """Docstrings write |H| and |x - q| for sizes and norms; reStructuredText would read a
    substitution. Escape each | outside ``literal`` text (tables are not used in docstrings)."""
    for i, line in enumerate(lines):
        parts = line.split("``")
        lines[i] = "``".join(part if k % 2 else part.replace("|", "\\|")
                             for k, part in enumerate(parts))


def setup(app) -> None:
    app.connect("autodoc-process-docstring", escape_bars)

# -- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = project
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
# Light unless the reader switches: the theme's script logs an error on a first visit without
# a stored mode, and the light palette is the one checked for contrast.
html_context = {"default_mode": "light"}
# The site's script and styles, then what the build stages: frames and MathJax.
html_static_path = [str(HERE / "static"), os.environ.get("COURSE_SITE_STATIC", "static")]
html_css_files = ["course.css"]
html_js_files = [("course-widgets.js", {"defer": "defer"})]
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False

# MathJax 2 from the site itself (copied from jupyter-server-mathjax by the build): no CDN.
# HTML-CSS output with its STIX web fonts; assistive MathML for screen readers.
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
# Given as ``window.MathJax`` (Sphinx's mathjax3_config), which MathJax 2 reads as its author
# configuration: mathjax2_config would be a text/x-mathjax-config block, which MathJax 2 runs
# with eval, and the site's policy (coursesite/policy.py) allows no eval.
mathjax3_config = {
    "tex2jax": {
        "inlineMath": [["\\(", "\\)"]],
        "displayMath": [["\\[", "\\]"]],
        "processEscapes": True,
        "ignoreClass": "document",
        "processClass": "math|output_area",
    },
    "menuSettings": {"assistiveMML": True},
    "HTML-CSS": {
        "availableFonts": [],
        "webFont": "STIX-Web",
        "imageFont": None,
        # MathJax's placeholder font points at about:blank, which Chromium refuses to fetch
        # as a font (a console error on every page with math); a local() source fetches nothing.
        "styles": {"@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"}},
    },
    # The MathML that MathJax keeps for screen readers (and its MathML output) would draw
    # script, fraktur, double-struck and calligraphic letters with MathJax's TeX fonts, which
    # the site does not ship (only STIX-Web): plain serif, and no request for a missing file.
    "NativeMML": {"styles": {selector: {"font-family": "serif"} for selector in (
        '[mathvariant="double-struck"]', '[mathvariant="script"]', '[mathvariant="fraktur"]',
        '[mathvariant="bold-script"]', '[mathvariant="bold-fraktur"]',
        '[class="MJX-tex-caligraphic"]', '[class="MJX-tex-caligraphic-bold"]',
        '[class="MJX-tex-oldstyle"]', '[class="MJX-tex-oldstyle-bold"]')}},
    "showMathMenu": True,
    "messageStyle": "none",
}
