"""The texts' errata that the walk-throughs flag, collected for one page of the site.

The lectures carry no special markup for an erratum: they flag one in prose, always with one
of the words *slip*, *erratum* or *errata* ("One slip in the book: ...", "*An erratum.* The
slides ...", "**A sign slip on the slides.**", "Two slips in MMDS's text (errata, ...)").
So an erratum here is a paragraph or list item of a walk-through's Markdown that uses one of
those words other than to deny it ("That is no slip", "not a slip but a rounding note"). A
paragraph that ends with a colon introduces a list ("each has a slip:"), and the list comes
with it. The Summary sections, which only repeat what was flagged above, are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from myst_parser.mdit_to_docutils.base import default_slugify

FLAG = re.compile(r"\b(slips?|errat(?:um|a))\b", re.IGNORECASE)
DENIAL = re.compile(r"\b(?:no|not an?)\s+(?:slip|erratum)\b", re.IGNORECASE)
SKIPPED_SECTIONS = ("summary",)


@dataclass(frozen=True)
class Erratum:
    """One flagged slip: where it is (notebook, the heading above it, its anchor) and the text."""

    notebook: Path
    heading: str
    anchor: str
    text: str


def flags(text: str) -> bool:
    """True when ``text`` names a slip or an erratum, not counting a denial of one."""
    return bool(FLAG.search(DENIAL.sub("", text)))


def blocks(markdown: str) -> Iterator[tuple[str, str]]:
    """(kind, source) of each top-level block of ``markdown``: ``heading``, ``paragraph``,
    ``list`` or ``other``, in order, with the source lines as written."""
    lines = markdown.splitlines()
    for token in MarkdownIt("commonmark").parse(markdown):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        kind = {"heading_open": "heading", "paragraph_open": "paragraph",
                "bullet_list_open": "list", "ordered_list_open": "list"}.get(token.type, "other")
        start, end = token.map
        yield kind, "\n".join(lines[start:end]).rstrip()


def heading_text(source: str) -> str:
    return source.lstrip("#").strip()


def errata(notebook: Path) -> list[Erratum]:
    """Every erratum flagged in ``notebook``'s Markdown, in reading order."""
    found: list[Erratum] = []
    heading, slugs = "", set()
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        pending = None  # a flagged paragraph that announces a list
        for kind, source in blocks(cell.source):
            if kind == "heading":
                heading = heading_text(source)
                slugs.add(default_slugify(heading))
                pending = None
                continue
            if heading.lower().startswith(SKIPPED_SECTIONS):
                continue
            if pending is not None and kind == "list":
                found.append(Erratum(notebook, heading, default_slugify(heading),
                                     pending + "\n\n" + source))
                pending = None
                continue
            if pending is not None:
                found.append(Erratum(notebook, heading, default_slugify(heading), pending))
                pending = None
            if kind in ("paragraph", "list") and flags(source):
                if kind == "paragraph" and source.rstrip().endswith(":"):
                    pending = source
                else:
                    found.append(Erratum(notebook, heading, default_slugify(heading), source))
        if pending is not None:
            found.append(Erratum(notebook, heading, default_slugify(heading), pending))
    return found
