"""Helpers for tests/test_site.py: build the course website once, and read what it holds."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import nbformat
from coursesite.pages import ClassHub

REPO = Path(__file__).resolve().parents[1]

# The tests build with small grids (the mechanism is the same; `make site` draws up to
# coursesite.frames.MAX_FRAMES per widget) into a folder of their own, whose cache keeps the
# executed walk-throughs between runs until the notebooks, mllib or the build change.
TEST_FRAMES = 4
TEST_BUILD = REPO / "site" / "_build" / "test"
BUILD_TIMEOUT = 1800  # seconds; a fresh build executes all fifteen walk-throughs (2-5 min)
# The tests' site links its lecture pages to a class hub (make site SITE_ARGS="--hub ..."), so
# the link is in every page the tests audit; the hub's side of it is tests/test_hub_term.py.
TEST_HUB = ClassHub("https://hub.example.edu", "https://git.example.edu/ml-course/student.git")


def build_site(out: Path = TEST_BUILD, max_frames: int = TEST_FRAMES) -> Path:
    """Run ``site/build.py`` and return the site's folder (``out / "html"``)."""
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    run = subprocess.run([sys.executable, str(REPO / "site" / "build.py"), "--out", str(out),
                          "--max-frames", str(max_frames), "--hub", TEST_HUB.url,
                          "--hub-release", TEST_HUB.release], capture_output=True, text=True,
                         env=env, timeout=BUILD_TIMEOUT, cwd=REPO)
    if run.returncode:
        raise AssertionError(f"site/build.py failed ({run.returncode}):\n{run.stdout[-4000:]}\n"
                             f"{run.stderr[-8000:]}")
    return out / "html"


class Page(HTMLParser):
    """An HTML page's links (tag, attribute, URL), element ids and visible text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if attrs.get("name") and tag == "a":
            self.ids.add(attrs["name"])
        for attribute in ("href", "src"):
            if attrs.get(attribute) is not None:
                self.links.append((tag, attribute, attrs[attribute]))

    def handle_data(self, data) -> None:
        self.text.append(data)


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def page_text(path: Path) -> str:
    """What a page says, tags removed and entities decoded (code as it reads on screen), plus
    its raw source (attributes and scripts can carry text too)."""
    raw = path.read_text(errors="replace")
    return "".join(Page(raw).text) + "\n" + html.unescape(raw)


def squeeze(text: str) -> str:
    """Lines stripped, blank and comment-only lines dropped: layout does not hide a copy."""
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("#"))


MARKERS = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")


def stripped_by_the_release() -> Iterator[tuple[str, str]]:
    """(where, line) of every line of ``solutions/`` that the release drops: solution code,
    written answers' model text and hidden tests, as lines of 25 characters or more (shorter
    ones, such as ``return w``, also occur in honest prose and code)."""
    for source in sorted((REPO / "solutions").glob("*/*.ipynb")):
        release = REPO / "notebooks" / source.relative_to(REPO / "solutions")
        kept = {line.strip() for cell in nbformat.read(release, as_version=4).cells
                for line in cell.source.splitlines()}
        for cell in nbformat.read(source, as_version=4).cells:
            for line in cell.source.splitlines():
                line = line.strip()
                if len(line) >= 25 and line not in kept and not MARKERS.search(line):
                    yield f"{source.relative_to(REPO)}", line


def hidden_blocks() -> Iterator[tuple[str, str]]:
    """(where, text) of every solution region and hidden-test region of ``solutions/``, and
    every written answer's model text, squeezed."""
    pattern = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1", re.S)
    for source in sorted((REPO / "solutions").glob("*/*.ipynb")):
        for cell in nbformat.read(source, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            found = [body for _, body in pattern.findall(cell.source)]
            if meta.get("solution") and cell.cell_type == "markdown":
                found.append(cell.source)
            for block in found:
                block = squeeze(block)
                if len(block) >= 40:
                    yield f"{source.relative_to(REPO)}:{meta.get('grade_id', '?')}", block
