"""No script from a submission runs in the formgrader or in feedback, in a real Chromium.

A small class is graded with the real ``course autograde`` and ``course feedback``: ``ada``
submits an honest notebook (math in the written answer, a plot in an answer cell), ``mal`` the
same with every payload below, and a third student's id is itself markup. Then one JupyterLab
serves the course and Chromium opens the formgrader's submission views and lists, and the
feedback files. Every payload, if it ran, would request ``/marker-N`` (or set the title or
localStorage); the tests check that none did, that the formgrader's pages carry a
Content-Security-Policy, and that the honest submission's math and plot still show.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from browser_support import (
    CHROMIUM_ARGS,
    LabServer,
    require_chromium,
    start_lab,
    wait_until_true,
)
from nbgrader.api import Gradebook
from playwright.sync_api import BrowserContext, Page, sync_playwright
from test_grading_class import ASSIGNMENT, NOTEBOOK, WRITTEN, added, answer_text, cell

from grader.cli import main
from grader.core.api import make_api
from grader.handback.sanitize import clean
from grader.kernel.sandbox import unavailable_reason

REPO = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"/marker-\d+$")  # a payload's request (a page's own URL may quote it)
pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())


def act(n: int) -> str:
    """What payload ``n`` does if it runs: a request, a title and a storage write.

    The URL is relative (no slash), so that the same text can be a folder name: a student id.
    """
    return f"fetch('marker-{n}');document.title='pwned-{n}';localStorage.setItem('pwned','{n}')"


# Blank lines between the payloads, so that each is its own markdown block (an HTML block
# runs to the next blank line and would swallow the link).
WRITTEN_PAYLOAD = f"""The learning rate scales each update.

<script>{act(1)}</script>

<svg onload="{act(2)}"><circle r="1"/></svg>

<img src=x onerror="{act(3)}">

<iframe srcdoc="<script>parent.{act(4)}</script>"></iframe>

[a link](javascript:{act(5)})
"""
HTML_OUTPUT = f"""<b>bold</b><script>{act(6)}</script><img src=x onerror="{act(7)}">"""
SVG_OUTPUT = f"""<svg xmlns="http://www.w3.org/2000/svg" onload="{act(8)}"><rect/></svg>"""
OUTPUT_PAYLOAD = f"""
from IPython.display import HTML, SVG, Javascript, display
display(HTML({HTML_OUTPUT!r}))
display(SVG({SVG_OUTPUT!r}))
display(Javascript({act(9)!r}))
"""
PLOT = """
import matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")
import matplotlib.pyplot as plt
plt.plot([0, 1], [1, 0])
plt.show()
"""
MATH = r"The update is $w \leftarrow w + \eta\, y\, x$, so $\eta > 0$ only scales $w$."
HOSTILE_ID = f'<img src=x onerror="{act(10)}">'


def submissions() -> dict[str, nbformat.NotebookNode]:
    honest = added("update_rule", PLOT)
    cell(honest, WRITTEN).source = MATH
    hostile = added("update_rule", OUTPUT_PAYLOAD)
    cell(hostile, WRITTEN).source = WRITTEN_PAYLOAD
    named = added("update_rule", "")
    cell(named, WRITTEN).source = answer_text(WRITTEN) or "An answer."
    return {"ada": honest, "mal": hostile, HOSTILE_ID: named}


@dataclass
class Run:
    root: Path
    codes: dict[str, int]
    out: str
    lab: LabServer


def build_course(root: Path) -> None:
    """The course as ``make lab`` serves it: folders, nbgrader's config, the Jupyter configs."""
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for folder in ("solutions", "notebooks"):
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    shutil.copytree(REPO / "grader" / "jupyter", root / "grader" / "jupyter")
    shutil.copytree(REPO / "grader" / "jupyter_server_config.d",
                    root / "grader" / "jupyter_server_config.d")
    shutil.copy2(REPO / "grader" / "nbgrader_config.py", root / "grader")
    with (root / "grader" / "nbgrader_config.py").open("a") as config:
        config.write("\nc.ExecutePreprocessor.timeout = 10\n")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("xss")
    root = tmp / "course"
    build_course(root)
    for student, nb in submissions().items():
        folder = root / "grader" / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    codes, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        codes["autograde"] = main(["--course-root", str(root), "autograde", ASSIGNMENT])
        # `course autograde` refuses the hostile id; a gradebook filled by plain nbgrader (or
        # an older course) can still hold one, and the formgrader must be safe with it.
        codes["nbgrader autograde"] = make_api(root).autograde(
            ASSIGNMENT, HOSTILE_ID, force=True, create=True)["success"]
        codes["feedback"] = main(["--course-root", str(root), "feedback", ASSIGNMENT,
                                  "--include-ungraded"])  # nothing graded by hand here
    # nbgrader runs `alembic` by name whenever the formgrader opens the gradebook.
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"
    lab = start_lab(tmp)
    os.environ["PATH"] = path
    try:
        yield Run(root, codes, out.getvalue(), lab)
    finally:
        lab.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    chromium = require_chromium()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=chromium,
            headless=True, args=CHROMIUM_ARGS)
        context.set_default_timeout(20_000)
        try:
            yield context
        finally:
            context.close()


@dataclass
class Visit:
    page: Page
    markers: list[str]
    title: str
    stored: str | None
    policy: str | None


def visit(context: BrowserContext, url: str, ready: str) -> Visit:
    """Open ``url``, wait for ``ready`` and for MathJax to finish, and record what ran."""
    page = context.new_page()
    markers: list[str] = []
    page.on("request", lambda request: markers.append(request.url)
            if MARKER.search(request.url) else None)
    response = page.goto(url)
    page.wait_for_selector(ready, state="attached")
    page.wait_for_load_state("load")
    wait_until_true(page, "!window.MathJax || !MathJax.Hub || MathJax.Hub.queue.pending === 0")
    page.wait_for_timeout(300)  # let late handlers (an iframe's, an image's error) fire
    stored = page.evaluate("() => { try { return localStorage.getItem('pwned') } "
                           "catch (e) { return null } }")
    policy = response.headers.get("content-security-policy") if response else None
    return Visit(page, markers, page.title(), stored, policy)


def assert_nothing_ran(visit: Visit) -> None:
    assert visit.markers == [], visit.markers
    assert "pwned" not in visit.title
    assert visit.stored is None
    assert visit.page.locator("a[href^='javascript' i]").count() == 0


def submission_id(root: Path, student: str) -> str:
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        return gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student).id


def test_the_class_is_graded(run: Run) -> None:
    assert run.codes == {"autograde": 1, "nbgrader autograde": True, "feedback": 0}, run.out
    assert "not a safe student id" in run.out


@pytest.mark.parametrize("student", ["mal", HOSTILE_ID])
def test_the_formgrader_submission_view_runs_no_student_script(
        run: Run, browser: BrowserContext, student: str) -> None:
    url = f"{run.lab.url}/formgrader/submissions/{submission_id(run.root, student)}/"
    seen = visit(browser, url, "#notebook-container")
    assert_nothing_ran(seen)
    assert seen.policy and "'unsafe-inline'" not in seen.policy.split("script-src")[1].split(";")[0]
    # nbgrader's own page scripts still run under the policy: the grading widgets are live.
    assert seen.page.locator(".name-shown").first.is_visible() or \
        seen.page.locator(".name-hidden").first.is_visible()
    assert seen.page.evaluate("typeof submission_id") == "string"
    seen.page.close()


@pytest.mark.parametrize("path", [
    "formgrader/gradebook/{a}/{n}", "formgrader/manage_students",
    "formgrader/manage_students/{s}", "formgrader/manage_students/{s}/{a}",
    "formgrader/manage_submissions/{a}"])
def test_the_formgrader_lists_run_no_student_script(
        run: Run, browser: BrowserContext, path: str) -> None:
    url = f"{run.lab.url}/" + path.format(a=ASSIGNMENT, n=NOTEBOOK,
                                          s=urllib.parse.quote(HOSTILE_ID, safe=""))
    seen = visit(browser, url, "table")
    seen.page.wait_for_timeout(700)  # the rows arrive from the API after the page
    assert_nothing_ran(seen)
    assert seen.policy and "nonce-" in seen.policy
    seen.page.close()


def test_feedback_runs_no_student_script(run: Run, browser: BrowserContext) -> None:
    for student in ("mal", HOSTILE_ID):
        html = run.root / "grader" / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"
        seen = visit(browser, html.as_uri(), "#notebook-container")
        assert_nothing_ran(seen)
        assert "Content-Security-Policy" in html.read_text()
        # The attempt is shown as text, so the reader sees what the student wrote.
        if student == "mal":
            assert "<script>" in seen.page.inner_text("#notebook-container")
        seen.page.close()


@pytest.mark.parametrize("where", ["formgrader", "feedback"])
def test_an_honest_submission_shows_its_math_and_plot(
        run: Run, browser: BrowserContext, where: str) -> None:
    if where == "formgrader":
        url = f"{run.lab.url}/formgrader/submissions/{submission_id(run.root, 'ada')}/"
    else:
        url = (run.root / "grader" / "feedback" / "ada" / ASSIGNMENT / f"{NOTEBOOK}.html").as_uri()
    seen = visit(browser, url, "#notebook-container")
    page = seen.page
    if where == "formgrader":
        page.wait_for_selector(".MathJax, .MathJax_CHTML, .MathJax_SVG", state="attached")
        assert page.locator(".MathJax_Error").count() == 0
    else:  # the feedback's formulas are MathML already (grader/handback/offline_math.py)
        assert page.locator("math").count() > 0
        assert page.locator("code.tex").count() == 0  # none left as TeX source
    assert "$\\eta" not in page.inner_text("#notebook-container")  # typeset, not raw TeX
    plot = page.locator(".output_png img").first
    plot.wait_for()
    assert page.evaluate("img => img.naturalWidth", plot.element_handle()) > 100
    page.close()


def test_clean_keeps_an_honest_answer_and_escapes_markup() -> None:
    honest = "<p>A <em>short</em> answer: <code>a&lt;b</code> <a href=\"https://x.org\">x</a></p>"
    assert clean(honest) == honest
    hostile = clean('<img src=x onerror="alert(1)"><a href="javascript:alert(1)">x</a><script>')
    assert "onerror" not in hostile and "javascript" not in hostile and "<script" not in hostile
    with pytest.raises(ValueError, match="str"):
        clean(b"<p>")
