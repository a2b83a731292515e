"""Every page, link and button of nbgrader's formgrader works under the course's policy, in
Chromium (issue 34, item 3 and the MathJax fonts of item 8).

The formgrader is served with a Content-Security-Policy (grader/review/formgrader_csp.py) that lets
an inline event handler run only if its hash is listed. nbgrader writes some as ``onclick=``
and some as ``onClick=``; when only the first spelling was hashed, "Add new student..." and
"Add new assignment..." did nothing. So this module walks the whole formgrader as an
instructor would, instead of trusting a list of pages:

* one submission (``ada``, with math in her written answer) is graded with the real
  ``course autograde``, in a course copy holding only 01_perceptron (every page of a second
  assignment is the same template again);
* one JupyterLab serves it and one Chromium walks it from ``/formgrader``: it opens every
  formgrader page a link leads to (assignments, submissions, the gradebook per assignment,
  notebook and submission, students, a student's assignments and notebooks, the grading page),
  clicks every control of each (links to ``#``, buttons, inline handlers; a dialog it opens
  is closed with its own button), and requests every other link of the server (the Jupyter
  file browser, the terminal);
* on every page: no policy violation (Chromium's "Refused to ..." / "violates the following
  Content Security Policy" console errors and ``securitypolicyviolation`` events), no
  uncaught error, and no request answered 404 or 5xx;
* the add-student and add-assignment dialogs open and save: the new rows show, and the
  gradebook holds them;
* the feedback buttons hold back a submission that waits for a hand grade, as ``course
  feedback`` does (grader/handback/formgrader_feedback.py): with ``bob``'s written answer ungraded
  and ``ada``'s graded on her grading page, "Generate feedback" (the class's and bob's own) writes
  ada's page and none of bob's, and "Release feedback" releases ada's and not bob's (his "Not
  final" page, written with ``course feedback --include-ungraded``); each dialog names bob and
  what waits.

Links to other hosts (nbgrader's documentation) are not followed: CI has no network.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from browser_support import (
    LabServer,
    chromium_context,
    report_policy_violations,
    require_chromium,
    start_formgrader_lab,
    wait_until_true,
)
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import notebook_hash
from playwright.sync_api import BrowserContext, Page
from test_grading_class import ASSIGNMENT, NOTEBOOK, WRITTEN, solved
from test_grading_xss import MATH, build_course
from test_hand_grades import submit, type_and_save

from grader.cli import main
from grader.handback.pending import NOT_HAND_GRADED, excluding
from grader.kernel.sandbox import unavailable_reason
from grader.review.formgrader_csp import handler_hashes

pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())

NEW_STUDENT = {"id": "new_student", "first-name": "Grace", "last-name": "Hopper",
               "email": "grace@example.org"}
NEW_ASSIGNMENT = "16_added"
WAITING = "bob"  # submits after the walk; his written answer is never graded by hand
QUIET_MS = 300  # no request in flight for this long: the page has settled after a click
SETTLE_TIMEOUT = 90  # s: a click can start a real nbgrader command (generate, autograde)
CONTROLS = "a[href='#'], a[href^='#'], a:not([href]), button, [onclick], [role=button], .help"

# A key per control, stable across nbgrader's re-rendering of a row: the row's first cell, the
# control's column, its tag, icon and text. Only controls with a box, outside any dialog.
CONTROLS_JS = """const controls = selector => [...document.querySelectorAll(selector)]
    .filter(e => e.getClientRects().length > 0 && !e.closest('.modal'));
const keyOf = e => {
    const row = e.closest('tr'), cell = e.closest('td');
    const icon = e.matches('.glyphicon') ? e : e.querySelector('.glyphicon');
    return [row && row.cells[0] ? row.cells[0].innerText.trim() : '', cell ? cell.className : '',
            e.tagName, icon ? icon.className : '', e.innerText.trim().slice(0, 40)].join(' | ');
};"""
CONTROL_KEYS_JS = f"selector => {{ {CONTROLS_JS} return controls(selector).map(keyOf); }}"
CLICK_KEY_JS = f"""([selector, key]) => {{ {CONTROLS_JS}
    const found = controls(selector).find(e => keyOf(e) === key);
    if (found) found.click();
    return Boolean(found);
}}"""
@dataclass
class Formgrader:
    root: Path
    lab: LabServer
    browser: BrowserContext
    problems: dict[str, list[str]] = field(default_factory=dict)

    def gradebook(self) -> Gradebook:
        return Gradebook("sqlite:///" + str(self.root / "grader" / "gradebook.db"))


def run_course(root: Path, *args: str) -> None:
    """Run ``course`` on the course copy; fail with its output unless it exits 0."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--course-root", str(root), *args])
    assert code == 0, out.getvalue()


@pytest.fixture(scope="module")
def formgrader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Formgrader]:
    require_chromium()  # before the course is graded: fail early without it
    tmp = tmp_path_factory.mktemp("formgrader")
    root = tmp / "course"
    build_course(root)
    for folder in ("solutions", "notebooks"):
        for other in (root / folder).iterdir():
            if other.is_dir() and other.name != ASSIGNMENT:
                shutil.rmtree(other)
    submit(root, "ada", solved(**{WRITTEN: MATH}))
    run_course(root, "autograde", ASSIGNMENT)
    lab = start_formgrader_lab(tmp)
    try:
        with chromium_context(tmp / "chromium-profile") as browser:
            yield Formgrader(root, lab, browser)
    finally:
        lab.stop()


class Watch:
    """What went wrong on one page: policy violations, uncaught errors, failed requests.

    It also counts the requests in flight, so that :meth:`settle` can wait for a click's
    consequences (an API call, a dialog) to finish."""

    def __init__(self, page: Page) -> None:
        self.page, self.problems, self.in_flight, self.last_change = page, [], 0, time.monotonic()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("request", lambda _: self._count(1))
        page.on("requestfinished", lambda _: self._count(-1))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        report_policy_violations(page, self.problems)

    def _count(self, step: int) -> None:
        self.in_flight += step
        self.last_change = time.monotonic()

    def _console(self, message) -> None:
        text = message.text
        if "Refused to" in text or "Content Security Policy" in text or message.type == "error":
            self.problems.append(f"console {message.type}: {text}")

    def _failed(self, request) -> None:
        self._count(-1)
        self.problems.append(f"failed request: {request.url} ({request.failure})")

    def _response(self, response) -> None:
        if response.status == 404 or response.status >= 500:
            self.problems.append(f"{response.status}: {response.request.method} {response.url}")

    def settle(self) -> None:
        """Wait until no request has been in flight for ``QUIET_MS``."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            quiet = (time.monotonic() - self.last_change) * 1000
            if self.in_flight <= 0 and quiet >= QUIET_MS:
                return
        self.problems.append(f"still loading after {SETTLE_TIMEOUT} s: {self.page.url}")


def open_page(formgrader: Formgrader, url: str) -> Watch:
    page = formgrader.browser.new_page()
    watch = Watch(page)
    page.goto(url)
    watch.settle()
    return watch


def close_dialogs(watch: Watch) -> None:
    """Close every open dialog with its own dismiss button (a click like any other)."""
    for _ in range(5):
        dialogs = watch.page.locator(".modal.in")
        if dialogs.count() == 0:
            return
        top = dialogs.last.element_handle()
        # A DOM click: Playwright's pointer click can land on the dialog while it fades in.
        top.query_selector("[data-dismiss=modal]").evaluate("button => button.click()")
        top.wait_for_element_state("hidden")
        watch.settle()


def click_every_control(watch: Watch, url: str) -> list[str]:
    """Click each control of the page once (rounds until no new one shows); return the
    formgrader URLs that the clicks navigated to."""
    clicked: set[str] = set()
    reached = []
    for _ in range(3):  # a click can reveal a control (Release shows Unrelease and Collect)
        keys = [k for k in watch.page.evaluate(CONTROL_KEYS_JS, CONTROLS) if k not in clicked]
        if not keys:
            break
        for key in dict.fromkeys(keys):
            clicked.add(key)
            if not watch.page.evaluate(CLICK_KEY_JS, [CONTROLS, key]):
                continue  # gone with a re-render: its row shows it again in the next round
            watch.settle()
            close_dialogs(watch)
            if urldefrag(watch.page.url).url != urldefrag(url).url:
                reached.append(watch.page.url)
                watch.page.goto(url)
                watch.settle()
    return reached


def links(page: Page) -> list[str]:
    return page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")


def walk(formgrader: Formgrader) -> tuple[set[str], list[str]]:
    """Open every formgrader page reachable from /formgrader and click its controls; request
    every other link of the server. A page is its path: ``?index=2`` (the grading page scrolled
    to a cell) and a redirect to a page already walked are requested, not walked again.

    Returns the paths walked and the links requested; problems go to ``formgrader.problems``.
    """
    server = urlsplit(formgrader.lab.url).netloc
    queue, seen, walked, requested = [f"{formgrader.lab.url}/formgrader"], set(), set(), []
    while queue:
        url = queue.pop(0)
        if urlsplit(url).path in walked:
            requested.append(url)
            continue
        watch = open_page(formgrader, url)
        path = urlsplit(watch.page.url).path
        found = []
        if path not in walked:
            walked.add(path)
            found = links(watch.page) + click_every_control(watch, watch.page.url)
        watch.page.close()
        if watch.problems:
            formgrader.problems[url] = watch.problems
        for link in (urldefrag(link).url for link in found):
            parts = urlsplit(link)
            if parts.netloc == server and link not in seen:
                seen.add(link)
                (queue if parts.path.startswith("/formgrader") else requested).append(link)
    for link in requested:
        status = formgrader.browser.request.get(link).status
        if status == 404 or status >= 500:
            formgrader.problems[link] = [f"answered {status}"]
    return walked, requested


def add_with_dialog(formgrader: Formgrader, where: str, link: str,
                    fields: dict[str, str]) -> Watch:
    """On the formgrader page ``where``, click ``link``, fill the dialog's inputs (class ->
    value) and save; return the page once the dialog has closed and the save is done."""
    watch = open_page(formgrader, f"{formgrader.lab.url}/formgrader/{where}")
    watch.page.get_by_role("link", name=link).click()
    dialog = watch.page.locator(".modal.in")
    dialog.wait_for()
    for name, value in fields.items():
        dialog.locator(f"input.{name}").fill(value)
    dialog.locator("button.save").click()
    dialog.wait_for(state="detached")
    watch.settle()
    return watch


def test_the_add_student_dialog_opens_and_saves(formgrader: Formgrader) -> None:
    watch = add_with_dialog(formgrader, "manage_students", "Add new student...", NEW_STUDENT)
    row = watch.page.locator("#main-table tr", has_text=NEW_STUDENT["id"])
    assert row.count() == 1 and "Hopper, Grace" in row.inner_text()
    watch.page.close()
    assert watch.problems == []
    with formgrader.gradebook() as gb:
        student = gb.find_student(NEW_STUDENT["id"])
        assert (student.first_name, student.last_name, student.email) == (
            NEW_STUDENT["first-name"], NEW_STUDENT["last-name"], NEW_STUDENT["email"])


def test_the_add_assignment_dialog_opens_and_saves(formgrader: Formgrader) -> None:
    watch = add_with_dialog(formgrader, "manage_assignments", "Add new assignment...",
                            {"name": NEW_ASSIGNMENT})
    assert watch.page.locator("#main-table td.name", has_text=NEW_ASSIGNMENT).count() == 1
    watch.page.close()
    assert watch.problems == []
    with formgrader.gradebook() as gb:
        assert NEW_ASSIGNMENT in [a.name for a in gb.assignments]


def test_every_page_link_and_button_works_under_the_policy(formgrader: Formgrader) -> None:
    walked, requested = walk(formgrader)
    for expected in [
            "/formgrader/manage_assignments", f"/formgrader/manage_submissions/{ASSIGNMENT}",
            "/formgrader/gradebook", f"/formgrader/gradebook/{ASSIGNMENT}",
            f"/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}", "/formgrader/manage_students",
            "/formgrader/manage_students/ada", f"/formgrader/manage_students/ada/{ASSIGNMENT}"]:
        assert expected in walked, sorted(walked)
    assert any(p.startswith("/formgrader/submissions/") for p in walked), sorted(walked)
    assert any("/tree/" in link for link in requested), requested  # the file browser's links
    assert formgrader.problems == {}, "\n".join(
        f"{url}:\n  " + "\n  ".join(found) for url, found in formgrader.problems.items())


def test_the_grading_page_typesets_math_with_the_served_font(formgrader: Formgrader) -> None:
    with formgrader.gradebook() as gb:
        submission = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "ada").id
    watch = open_page(formgrader, f"{formgrader.lab.url}/formgrader/submissions/{submission}/")
    page = watch.page
    wait_until_true(page, "window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0")
    font = page.evaluate("MathJax.OutputJax['HTML-CSS'].fontInUse")
    typeset = page.locator(".MathJax").count()
    errors = page.locator(".MathJax_Error, .merror").count()
    page.close()
    assert font == "STIX-Web"  # the one web font jupyter-server-mathjax ships
    assert typeset >= 3 and errors == 0  # MATH has three formulas
    assert watch.problems == []


def test_every_inline_handler_is_hashed_however_it_is_spelled(tmp_path: Path) -> None:
    """The handler texts of any case and quoting are hashed as the browser decodes them; a
    handler no hash can allow is refused, naming its template."""
    (tmp_path / "a.tpl").write_text(
        """<a onClick="go();">x</a><b ONMOUSEOVER='hover()'>y</b><i onclick=plain()>z</i>"""
        """<span onclick="say(&quot;hi&quot;)">w</span>""")
    hashed = handler_hashes(str(tmp_path))
    expected = {"'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
                + "'" for text in ("go();", "hover()", "plain()", 'say("hi")')}
    assert set(hashed) == expected
    (tmp_path / "b.tpl").write_text('<a href="JavaScript:go()">x</a>')
    with pytest.raises(ValueError, match=r"b\.tpl.*javascript: URL"):
        handler_hashes(str(tmp_path))
    (tmp_path / "b.tpl").write_text('<a onclick="go({{ id }})">x</a>')
    with pytest.raises(ValueError, match=r"b\.tpl.*filled in by Jinja"):
        handler_hashes(str(tmp_path))



def click_in_row(formgrader: Formgrader, where: str, key: str, key_value: str,
                 button: str) -> tuple[str, list[str]]:
    """On the formgrader page ``where``, click the link in column ``button`` of the row whose
    ``key`` column reads ``key_value``; return the dialog's text once nbgrader answered, and
    the page's problems (see :class:`Watch`)."""
    watch = open_page(formgrader, f"{formgrader.lab.url}/formgrader/{where}")
    row = watch.page.locator("#main-table tr").filter(
        has=watch.page.locator(f"td.{key}", has_text=re.compile(f"^{re.escape(key_value)}$")))
    row.locator(f"td.{button} a").click()
    dialog = watch.page.locator(".modal.in")
    dialog.wait_for(timeout=SETTLE_TIMEOUT * 1000)
    text = dialog.inner_text()
    watch.page.close()
    return text, watch.problems


def feedback_pages(formgrader: Formgrader) -> list[str]:
    """The students with a feedback page of the assignment."""
    return sorted(p.parent.parent.name for p in
                  (formgrader.root / "grader" / "feedback").glob(f"*/{ASSIGNMENT}/*.html"))


def released(formgrader: Formgrader, student: str) -> bool:
    """Whether the student's feedback page is in the exchange (named as nbgrader's
    release_feedback names it: a hash of the submission's secret and the notebook)."""
    secret = (formgrader.root / "grader" / "feedback" / student / ASSIGNMENT /
              "submission_secret.txt").read_text()
    outbound = formgrader.root / "grader" / "exchange" / "ml-course" / "feedback"
    return (outbound / f"{notebook_hash(secret=secret, notebook_id=NOTEBOOK)}.html").is_file()


def test_feedback_buttons_hold_back_a_submission_waiting_for_a_hand_grade(
        formgrader: Formgrader) -> None:
    submit(formgrader.root, WAITING, solved(**{WRITTEN: "eta only rescales w."}))
    for student in ("ada", WAITING):  # what nbgrader's submit adds, which release reads
        folder = formgrader.root / "grader" / "submitted" / student / ASSIGNMENT
        (folder / "submission_secret.txt").write_text(secrets.token_hex(64))
        (folder / "timestamp.txt").write_text("2026-03-01 12:00:00.000000 UTC")
    run_course(formgrader.root, "autograde", ASSIGNMENT)
    with formgrader.gradebook() as gb:
        written = gb.find_grade(WRITTEN, NOTEBOOK, ASSIGNMENT, "ada")
        page = formgrader.browser.new_page()
        page.goto(f"{formgrader.lab.url}/formgrader/submissions/{written.notebook.id}/")
    wait_until_true(page, "window.formgrader && formgrader.grades.loaded")
    type_and_save(page, f"#{WRITTEN}", "1", "grade")  # ada's written answer, graded by hand
    page.close()
    with formgrader.gradebook() as gb:
        assert not gb.find_grade(WRITTEN, NOTEBOOK, ASSIGNMENT, "ada").needs_manual_grade
        assert gb.find_grade(WRITTEN, NOTEBOOK, ASSIGNMENT, WAITING).needs_manual_grade
    shutil.rmtree(formgrader.root / "grader" / "feedback", ignore_errors=True)  # the walk's

    for where, key, value in [("manage_assignments", "name", ASSIGNMENT),
                              (f"manage_submissions/{ASSIGNMENT}", "student-id", WAITING)]:
        told, problems = click_in_row(formgrader, where, key, value, "generate-feedback")
        assert f"{WAITING}: {ASSIGNMENT}/{WRITTEN} ({NOT_HAND_GRADED})" in told, (where, told)
        assert "LEFT OUT" in told and problems == [], (where, told, problems)
        assert feedback_pages(formgrader) == ["ada"], where

    # bob's page, marked "Not final", as `course feedback --include-ungraded` writes it
    run_course(formgrader.root, "feedback", ASSIGNMENT, "--include-ungraded")
    assert feedback_pages(formgrader) == ["ada", WAITING]
    told, problems = click_in_row(formgrader, "manage_assignments", "name", ASSIGNMENT,
                                  "release-feedback")
    assert f"{WAITING}: {ASSIGNMENT}/{WRITTEN} ({NOT_HAND_GRADED})" in told, told
    assert problems == []
    assert released(formgrader, "ada") and not released(formgrader, WAITING), told


def test_the_held_back_are_excluded_for_one_step_and_an_unlistable_id_is_refused() -> None:
    coursedir = CourseDirectory(student_id_exclude="dropped")  # the instructor's own setting
    with excluding(coursedir, {"bob", "kimbo"}):
        assert coursedir.student_id_exclude.split(",") == ["bob", "dropped", "kimbo"]
    assert coursedir.student_id_exclude == "dropped"
    with pytest.raises(ValueError, match=r"comma.*'smith,alice'"), \
            excluding(coursedir, {"smith,alice"}):
        pass
    assert coursedir.student_id_exclude == "dropped"
