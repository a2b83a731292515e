"""What a student reads after pressing JupyterLab's Validate button, in Chromium (issue 34,
item 8).

A released notebook holds only the visible tests, so a pass there says nothing about the hidden
ones. nbgrader's lab extension writes the Validate dialog itself, and on a pass it shows a
fixed sentence, "Success! Your notebook passes all the tests." (nbgrader 0.9.6,
``src/common/validate.ts``, the last branch of ``validate()``; installed minified in
``share/jupyter/labextensions/@jupyter/nbgrader/static/161.290a640318af4049.js``, line 1,
column 2323). No supported way changes it: the sentence is not passed through JupyterLab's
translator (``trans.__``), so no language pack reaches it; the server's reply to a pass is
``{}`` and the extension shows nothing of it; its only settings are the formgrader's. So this
module checks what the course can make true about what the student reads:

* the dialog of a notebook whose visible tests pass says exactly the sentence the student
  README quotes and explains ("it too has run only the visible tests");
* ``course validate`` (``make validate``, the README's other way) on the same saved notebook
  ends with "passes the visible tests; hidden tests run at grading".

Should nbgrader change its sentence, the first check fails and the README must follow.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
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

from grader.cli import main

VALIDATE_TIMEOUT_MS = 240_000  # the save, then nbgrader runs the notebook in a fresh kernel
STUDENT_README = REPO / "grader" / "student" / "README.md"
# How the student README quotes the button's dialog.
QUOTED_DIALOG = re.compile(r"Validate button's own dialog says \"([^\"]+)\"")


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
    """Press the notebook's Validate button; return the dialog's title and message."""
    page.locator(".validate-button button").click()
    message = page.locator("#validation-message")
    message.wait_for(timeout=VALIDATE_TIMEOUT_MS)
    dialog = page.locator(".jp-Dialog")
    title = dialog.locator(".jp-Dialog-header").inner_text().strip()
    return title, " ".join(message.inner_text().split())


def test_the_dialog_says_what_the_student_readme_explains(student: Student) -> None:
    title, said = validate_dialog(student.page)
    quoted = QUOTED_DIALOG.search(" ".join(STUDENT_README.read_text().split()))
    assert quoted, f"{STUDENT_README} no longer quotes the Validate dialog"
    assert title == "Validation Results"
    assert said.rstrip(".") == quoted[1], (said, quoted[1])
    explained = STUDENT_README.read_text()[quoted.end():].split(")", 1)[0]
    assert "only the visible tests" in explained, explained
    assert student.problems == []


def test_course_validate_says_only_the_visible_tests_ran(student: Student) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--course-root", str(student.root), "validate", str(student.notebook)])
    assert code == 0, out.getvalue()
    last = out.getvalue().strip().splitlines()[-1]
    assert "passes the visible tests; hidden tests run at grading" in last, out.getvalue()
    assert "all the tests" not in out.getvalue()
