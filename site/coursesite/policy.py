"""A Content-Security-Policy on every page of the course site (a Sphinx extension).

The site shows notebooks' outputs; a policy makes sure that the only scripts a page runs are
the site's own files (``'self'``: the theme's, Sphinx's, MathJax's, ``course-widgets.js``) and
the few inline scripts the theme writes, each allowed by its hash. The pages are static and
served from anywhere (GitHub Pages, a zip, ``file://``), so the policy travels in the page, as
a ``<meta http-equiv>`` at the top of ``<head>``, like the feedback's and the report's.

Sphinx writes the inline scripts while rendering (the PyData theme's colour-mode switch, each
page's name for the search, the MathJax configuration), so the hashes are taken from the
written pages when the build has finished. MathJax 2 would ``eval`` a ``text/x-mathjax-config``
block, which the policy forbids; ``site/conf.py`` configures it through ``window.MathJax``
instead. An inline event handler or a ``javascript:`` URL cannot be allowed by a hash without
``'unsafe-hashes'``: the build refuses a page that has one.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# Types a browser runs as script (an absent type, JavaScript, a module); JSON data blocks and
# other types are never run, so the policy need not allow them.
SCRIPT_TYPES = frozenset({"", "text/javascript", "application/javascript", "module"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction"})
POLICY = ("default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; "
          "form-action 'self'")
META = re.compile(r'\s*<meta http-equiv="Content-Security-Policy"[^>]*>')
# After the character set (which must stay in the first 1024 bytes), else first in <head>.
TOP_OF_HEAD = re.compile(r"<head[^>]*>(\s*<meta charset=[^>]*>)?")


class InlineScripts(HTMLParser):
    """The inline scripts of a page (their text exactly as written, which the browser hashes),
    and what no hash can allow (inline event handlers, ``javascript:`` URLs)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.refused: list[str] = []
        self._inline: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.refused.append(f"<{tag} {name}>")
            elif name in URL_ATTRIBUTES and (value or "").strip().lower().startswith(
                    "javascript:"):
                self.refused.append(f"<{tag} {name}> is a javascript: URL")
        runs = (found.get("type") or "").strip().lower() in SCRIPT_TYPES
        if tag == "script" and "src" not in found and runs:
            self._inline = []

    def handle_data(self, data: str) -> None:
        if self._inline is not None:
            self._inline.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._inline is not None:
            self.scripts.append("".join(self._inline))
            self._inline = None


def script_hash(text: str) -> str:
    """The CSP hash source of an inline script: base64 of its UTF-8 text's SHA-256."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def page_policy(html: str) -> str:
    """The policy of one page: its own inline scripts allowed by hash, nothing else inline.

    Raises
    ------
    ValueError
        If the page has an inline event handler or a ``javascript:`` URL.
    """
    parser = InlineScripts()
    parser.feed(html)
    parser.close()
    if parser.refused:
        raise ValueError("inline script that no hash can allow: " + ", ".join(parser.refused))
    sources = ["'self'", *dict.fromkeys(script_hash(text) for text in parser.scripts)]
    return POLICY.format(scripts=" ".join(sources))


def protect(path: Path) -> None:
    """Write ``path``'s policy into its ``<head>``, replacing one an earlier build wrote."""
    html = META.sub("", path.read_text(encoding="utf-8"), count=1)
    try:
        policy = page_policy(html)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    head = TOP_OF_HEAD.search(html)
    if not head:
        raise ValueError(f"{path}: no <head> to hold the Content-Security-Policy")
    meta = f'\n  <meta http-equiv="Content-Security-Policy" content="{policy}">'
    path.write_text(html[:head.end()] + meta + html[head.end():], encoding="utf-8")


def protect_pages(app: Any, exception: Exception | None) -> None:
    """``build-finished``: give every page of the HTML output its policy (not the theme's
    static files: ``_static`` holds a Jinja macro file named .html, which the build removes)."""
    if exception is None and app.builder.format == "html":
        out = Path(app.outdir)
        for path in sorted(out.rglob("*.html")):
            if path.relative_to(out).parts[0] != "_static":
                protect(path)


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", protect_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
