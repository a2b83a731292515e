"""What a student reads after pressing JupyterLab's Validate button, in Chromium (issue 34,
item 8).

A released notebook holds only the visible tests, so a pass there says nothing about the hidden
ones. nbgrader's lab extension writes the Validate dialog itself, and on a pass it shows a
fixed sentence, "Success! Your notebook passes all the tests." (nbgrader 0.9.6,
``src/common/validate.ts``, the last branch of ``validate()``; installed minified in
``share/jupyter/labextensions/@jupyter/nbgrader/static/161.290a640318af4049.js``, line 1,
column 2323). The sentence is not passed through JupyterLab's translator (``trans.__``) and the
server's reply to a pass is ``{}``, so the course rewrites it where JupyterLab allows: the
site's stylesheet (``LabApp.custom_css``), served by grader/pipeline/validate_dialog.py, hides
the paragraph and shows its own sentence as generated content. This module checks what the
student reads and hears:

* after a pass, the dialog shows the sentence the README and the student README quote, nbgrader's
  is hidden (also from assistive technology, which gets the new one as the paragraph's text),
  and the new one reads at WCAG AA contrast; a different ``custom.css`` planted where JupyterLab
  itself would serve it from is not the one applied;
* ``course validate`` (``make validate``, the README's other way) on the same saved notebook
  ends with the same sentence.

Should nbgrader change its markup, the first check fails and the stylesheet must follow.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest
from browser_support import (
    REPO,
    LabServer,
    chromium_context,
    mirror_course,
    report_policy_violations,
    start_lab,
)
from playwright.sync_api import Page
from test_grading_class import ASSIGNMENT, NOTEBOOK, solved
from test_plotting import relative_luminance

from grader.cli import main

VALIDATE_TIMEOUT_MS = 240_000  # the save, then nbgrader runs the notebook in a fresh kernel
READMES = (REPO / "README.md", REPO / "grader" / "student" / "README.md")
# How the READMEs quote the button's dialog.
QUOTED_DIALOG = re.compile(r"Validate button's dialog says \"([^\"]+)\"")
# A stylesheet where JupyterLab's own /custom/ route looks (JUPYTER_CONFIG_DIR/custom): the
# course's must be the one served in its place.
DECOY = ('.validation-success p { visibility: hidden; }\n'
         '.validation-success p::after { visibility: visible; content: "decoy"; }\n')
AA_CONTRAST = 4.5  # WCAG 2.1 SC 1.4.3, text under 18 pt
# The paragraph of the dialog as shown: nbgrader's text, whether it is visible, and the
# generated sentence after it (CSS `content`, quoted; "none" when there is none) with its colour
# and the dialog's background.
SHOWN_JS = """() => {
  const p = document.querySelector('#validation-message p');
  const after = getComputedStyle(p, '::after');
  const box = getComputedStyle(document.querySelector('.jp-Dialog-content'));
  return {text: p.textContent, visibility: getComputedStyle(p).visibility,
          content: after.content, afterVisibility: after.visibility,
          colour: after.color, background: box.backgroundColor};
}"""


@dataclass
class Student:
    root: Path
    lab: LabServer
    page: Page
    problems: list[str]

    @property
    def notebook(self) -> Path:
        return self.root / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Student]:
    """JupyterLab on a course copy whose 01_perceptron exercises are answered correctly, open
    in Chromium as the student opens it."""
    tmp = tmp_path_factory.mktemp("validate")
    root = tmp / "course"
    mirror_course(root)
    nbformat.write(solved(), root / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    (tmp / "home" / "config" / "custom").mkdir(parents=True)  # start_lab's JUPYTER_CONFIG_DIR
    (tmp / "home" / "config" / "custom" / "custom.css").write_text(DECOY)
    lab = start_lab(tmp)
    try:
        with chromium_context(tmp / "chromium-profile") as browser:
            page = browser.new_page()
            problems: list[str] = []
            report_policy_violations(page, problems)
            page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
            page.goto(f"{lab.url}/lab/tree/notebooks/{ASSIGNMENT}/{NOTEBOOK}.ipynb")
            yield Student(root, lab, page, problems)
    finally:
        lab.stop()


def validate_dialog(page: Page) -> tuple[str, str]:
    """Press the notebook's Validate button; return the dialog's title and the sentence its
    message shows (the generated one when it hides nbgrader's paragraph)."""
    page.locator(".validate-button button").click()
    page.locator("#validation-message").wait_for(timeout=VALIDATE_TIMEOUT_MS)
    title = page.locator(".jp-Dialog .jp-Dialog-header").inner_text().strip()
    shown = page.evaluate(SHOWN_JS)
    if shown["visibility"] == "hidden" and shown["afterVisibility"] == "visible":
        return title, json.loads(shown["content"]) if shown["content"] != "none" else ""
    return title, " ".join(shown["text"].split())


def accessible_texts(page: Page, selector: str) -> list[str]:
    """The names of the nodes of Chromium's own accessibility tree (what assistive technology
    reads) under the element ``selector`` names, those the tree does not ignore."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        nodes = cdp.send("Accessibility.queryAXTree", {"nodeId": node})["nodes"]
    finally:
        cdp.detach()
    return [n["name"]["value"] for n in nodes
            if not n.get("ignored") and n.get("name", {}).get("value")]


def rgba(css: str) -> tuple[np.ndarray, float]:
    """A computed CSS colour (``rgb(r, g, b)`` or ``rgba(r, g, b, a)``) as sRGB in [0, 1] and
    its alpha."""
    values = [float(v) for v in re.findall(r"[\d.]+", css)]
    return np.array(values[:3]) / 255, values[3] if len(values) == 4 else 1.0


def contrast(text: str, background: str) -> float:
    """WCAG 2.1's contrast ratio of ``text`` drawn (alpha-blended) on the opaque
    ``background``."""
    back, back_alpha = rgba(background)
    assert back_alpha >= 1, f"the dialog's background {background} is not opaque"
    front, alpha = rgba(text)
    blended = alpha * front + (1 - alpha) * back
    lighter, darker = sorted(relative_luminance(tuple(c)) for c in (blended, back))[::-1]
    return (lighter + 0.05) / (darker + 0.05)


def test_the_dialog_says_what_the_readmes_quote(student: Student) -> None:
    title, said = validate_dialog(student.page)
    assert title == "Validation Results"
    for readme in READMES:
        quoted = QUOTED_DIALOG.search(" ".join(readme.read_text().split()))
        assert quoted, f"{readme} no longer quotes the Validate dialog"
        assert said.rstrip(".") == quoted[1], (readme, said, quoted[1])
    # What a screen reader gets: the generated sentence, not nbgrader's (hidden) one.
    spoken = accessible_texts(student.page, "#validation-message")
    assert said in spoken and not any("all the tests" in text for text in spoken), spoken
    shown = student.page.evaluate(SHOWN_JS)
    assert contrast(shown["colour"], shown["background"]) >= AA_CONTRAST, shown
    assert student.problems == []


def test_course_validate_says_only_the_visible_tests_ran(student: Student) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--course-root", str(student.root), "validate", str(student.notebook)])
    assert code == 0, out.getvalue()
    last = out.getvalue().strip().splitlines()[-1]
    assert "passes the visible tests; hidden tests run at grading" in last, out.getvalue()
    assert "all the tests" not in out.getvalue()
