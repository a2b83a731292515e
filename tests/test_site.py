"""The course as a static website (``make site``): what it holds, that nothing leaks, and that
every page works from ``file://`` in headless Chromium with no network.

The site is built once for this module (tests/site_support.py: small widget grids, a cache of
executed walk-throughs under site/_build/test). Oracles: the README's own lecture table and
its sources column (which names every lecture's errata), the difference between
``solutions/`` and the release in ``notebooks/`` (what must never appear), the file system (every
link), and a real browser (console errors, MathJax's output, a slider moved by keyboard).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from axe_support import loaded_page_problems
from browser_support import CHROMIUM_ARGS, report_policy_violations, require_chromium
from coursesite import frames
from playwright.sync_api import sync_playwright
from site_support import (
    REPO,
    TEST_FRAMES,
    TEST_HUB,
    Page,
    build_site,
    hidden_blocks,
    page_text,
    pages,
    squeeze,
    stripped_by_the_release,
)
from test_notebooks import STUB

SIZE_LIMIT = 50e6  # bytes: issue 23's bound on the site
LECTURES = sorted(p.name for p in (REPO / "notebooks").iterdir() if p.is_dir())
# README rows whose sources column names an erratum or a slip of the texts: the errata page
# must have a section for each of them.
ERRATA_WORDS = re.compile(r"errat|slip", re.I)
LOAD_TIMEOUT = 30_000  # ms: a page, its scripts and MathJax, on a busy 2-core machine


@pytest.fixture(scope="module")
def site() -> Path:
    return build_site()


@pytest.fixture(scope="module")
def texts(site: Path) -> dict[str, str]:
    """Every text file of the site (pages, scripts, styles, JSON), decoded, by path."""
    found = {}
    for path in sorted(site.rglob("*")):
        if path.is_file() and path.suffix in (".html", ".js", ".css", ".json", ".txt", ".ipynb"):
            if "mathjax" in path.parts:  # MathJax's own files, copied from its package
                continue
            found[str(path.relative_to(site))] = (page_text(path) if path.suffix == ".html"
                                                  else path.read_text(errors="replace"))
    return found


def readme_rows() -> list[list[str]]:
    """The README's lecture table, cell by cell (split on unescaped |)."""
    section = (REPO / "README.md").read_text().split("\n## Lectures", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| 0") or
             line.startswith("| 1")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            for line in lines]


def walkthrough_page(site: Path, lecture: str) -> Path:
    found = list((site / "notebooks" / lecture).glob("*_walkthrough.html"))
    assert len(found) == 1, f"no walk-through page for {lecture}"
    return found[0]


# -- what the site holds ---------------------------------------------------------------------


def test_home_page_has_the_readme_lecture_table(site: Path) -> None:
    home = (site / "index.html").read_text()
    rows = readme_rows()
    assert len(rows) == len(LECTURES) == 15
    for number, lecture, _modules, _sources in rows:
        title, folder = re.fullmatch(r"\[(.+)\]\(notebooks/([^/]+)/\)", lecture).groups()
        walkthrough = walkthrough_page(site, folder).relative_to(site).as_posix()
        exercises = walkthrough.replace("_walkthrough", "_exercises")
        row = re.search(rf"<tr[^>]*>\s*<td[^>]*><p>{number}</p></td>(.*?)</tr>", home, re.S)
        assert row, f"lecture {number} is missing from the home page's table"
        assert f'href="{walkthrough}"' in row.group(1) and f'href="{exercises}"' in row.group(1)
        assert Page(row.group(1)).text and title.split(":")[0] in "".join(Page(row.group(1)).text)


def test_every_walkthrough_is_executed_with_figures_and_widgets(site: Path) -> None:
    for lecture in LECTURES:
        page = walkthrough_page(site, lecture).read_text()
        assert 'class="course-widget"' in page, f"{lecture}: no precomputed widget"
        figures = re.findall(r'<img[^>]+src="[^"]*(?:_images|_static/frames)/', page)
        assert len(figures) >= 2, f"{lecture}: no figure besides the widget"
        assert "cell_output" in page and "traceback" not in page.lower(), lecture


def test_every_figure_has_an_alt_text(site: Path) -> None:
    """No image of a walk-through falls back to its file name (Sphinx's default alt text) or
    goes without one."""
    for lecture in LECTURES:
        page = walkthrough_page(site, lecture).read_text()
        images = re.findall(r"<img [^>]*>", page)
        assert images, lecture
        for image in images:
            alt = re.search(r'alt="([^"]*)"', image)
            assert alt and len(alt.group(1)) > 20 and ".png" not in alt.group(1), (
                lecture, image[:200])


def test_exercises_are_the_release_not_executed(site: Path) -> None:
    for lecture in LECTURES:
        release = next((REPO / "notebooks" / lecture).glob("*_exercises.ipynb"))
        text = page_text(site / "notebooks" / lecture / f"{release.stem}.html")
        nb = nbformat.read(release, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.source.strip():
                first = cell.source.strip().splitlines()[0].strip()
                assert first in text, f"{release.name}: the cell starting {first!r} is missing"
        assert STUB in text  # the stubs, as students receive them
        raw = (site / "notebooks" / lecture / f"{release.stem}.html").read_text()
        assert "cell_output" not in raw, f"{release.name} shows outputs: it was executed"


def test_every_lecture_page_links_to_the_class_hub_once(site: Path) -> None:
    """Built with a hub (site_support.TEST_HUB), each walk-through and exercises page has one
    link to it, nbgitpuller's for that notebook (tests/test_hub_term.py follows such a link);
    no other page has one."""
    documents = [f"notebooks/{lecture}/{nb.stem}" for lecture in LECTURES
                 for nb in sorted((REPO / "notebooks" / lecture).glob("*.ipynb"))]
    found = {}
    for path in pages(site):
        hub_links = [url for tag, _, url in Page(path.read_text()).links
                     if tag == "a" and url.startswith(TEST_HUB.url)]
        if hub_links:
            found[path.relative_to(site).with_suffix("").as_posix()] = hub_links
    assert found == {document: [TEST_HUB.link(document)] for document in documents}


def test_api_reference_comes_from_the_docstrings_without_the_hidden_checks(site: Path) -> None:
    api = site / "api"
    names = {p.stem for p in api.glob("mllib.*.html")}
    assert {"mllib.perceptron", "mllib.svm", "mllib.demos.perceptron"} <= names
    assert not [n for n in names if n.startswith("mllib.grading")]
    page = page_text(api / "mllib.perceptron.html")
    import mllib.perceptron

    docstring = mllib.perceptron.perceptron.__doc__
    first = docstring.strip().splitlines()[0].replace("`", "")
    assert first.split("(")[0].strip() in page
    assert "Parameters" in page and 'id="mllib.perceptron.perceptron"' in page


def test_errata_page_has_every_lecture_whose_sources_name_an_erratum(site: Path) -> None:
    text = page_text(site / "errata.html")
    flagged = [(number, lecture) for number, lecture, _, sources in readme_rows()
               if ERRATA_WORDS.search(sources)]
    assert len(flagged) >= 8
    for number, lecture in flagged:
        title = re.fullmatch(r"\[(.+)\]\(.*\)", lecture).group(1)
        assert f"{number} · {title}" in text, f"lecture {number}'s errata are missing"
    # each entry links to the section it comes from (the links test checks they resolve)
    assert len(re.findall(r'href="notebooks/[^"]+_walkthrough\.html#', (
        site / "errata.html").read_text())) >= len(flagged)


# -- nothing leaks ---------------------------------------------------------------------------


def test_nothing_of_the_solutions_or_hidden_tests_is_anywhere_in_the_site(texts) -> None:
    squeezed = {name: squeeze(text) for name, text in texts.items()}
    blocks = list(hidden_blocks())
    assert len(blocks) > 50  # every lecture's answers and hidden tests were read
    assert [(where, name) for where, block in blocks for name, text in squeezed.items()
            if block in text] == []
    lines = list(stripped_by_the_release())
    assert len(lines) > 100
    assert [(where, line, name) for where, line in lines for name, text in texts.items()
            if line in text] == []


def test_the_hidden_checkers_are_not_in_the_site(texts) -> None:
    checkers = [p.stem for p in (REPO / "mllib" / "grading").glob("*.py")
                if p.stem not in ("__init__", "wire")]
    assert len(checkers) >= 15
    assert not [name for name in texts if "grading" in name]
    assert [(m, name) for m in checkers for name, text in texts.items()
            if f"mllib.grading.{m}" in text] == []


# -- self-contained --------------------------------------------------------------------------


def links(site: Path):
    for path in pages(site):
        for tag, attribute, url in Page(path.read_text(errors="replace")).links:
            yield path, tag, attribute, url


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    outside = [(str(path.relative_to(site)), tag, url) for path, tag, attribute, url in links(site)
               if tag in ("script", "link", "img", "iframe", "source")
               and urlsplit(url).scheme not in ("", "data")]
    assert outside == []


POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
INLINE_SCRIPT = re.compile(r"<script((?:\s+[\w-]+(?:=\"[^\"]*\")?)*)\s*>(.*?)</script>", re.S)


def runs_as_script(attributes: str) -> bool:
    """Whether a browser runs an inline ``<script ...>`` with these attributes (no src; no type,
    or a JavaScript one). JSON data blocks and MathJax's text/x-mathjax-config do not run."""
    kind = re.search(r'\btype="([^"]*)"', attributes)
    return "src=" not in attributes and (not kind or kind[1].lower() in (
        "text/javascript", "application/javascript", "module"))


def test_every_page_has_a_policy_that_runs_only_the_sites_scripts(site: Path) -> None:
    """Issue 34: each page carries a Content-Security-Policy in its <head>, before any script,
    whose scripts are the site's files and exactly the page's own inline scripts, by hash (the
    CSP hash: base64 of the SHA-256 of the script's text); nothing eval'd (MathJax 2 would eval
    a text/x-mathjax-config block), no other inline script, no plugin."""
    wrong = {}
    for path in pages(site):
        text = path.read_text()
        metas = POLICY_META.findall(text)
        if len(metas) != 1 or text.find("<meta http-equiv") > text.find("<script"):
            wrong[str(path.relative_to(site))] = f"{len(metas)} policies, or one after a script"
            continue
        policy = dict(d.strip().split(" ", 1) for d in metas[0].split(";"))
        scripts = policy["script-src"].split()
        inline = {"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
                  + "'" for attributes, body in INLINE_SCRIPT.findall(text)
                  if runs_as_script(attributes)}
        if (scripts[0] != "'self'" or set(scripts[1:]) != inline
                or policy["default-src"] != "'self'" or policy["object-src"] != "'none'"
                or "x-mathjax-config" in text):
            wrong[str(path.relative_to(site))] = metas[0]
    assert wrong == {}


def test_every_internal_link_resolves(site: Path) -> None:
    ids = {}

    def ids_of(target: Path) -> set[str]:
        if target not in ids:
            ids[target] = Page(target.read_text(errors="replace")).ids
        return ids[target]

    broken = []
    checked = 0
    for path, _tag, _attribute, url in links(site):
        parts = urlsplit(url)
        if parts.scheme or url.startswith("//") or url.startswith("mailto:"):
            continue
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        checked += 1
        if not target.exists():
            broken.append((str(path.relative_to(site)), url))
        elif parts.fragment and target.suffix == ".html" and unquote(
                parts.fragment) not in ids_of(target):
            broken.append((str(path.relative_to(site)), url))
    assert checked > 1000
    assert broken == []


def test_every_frame_a_widget_names_is_in_the_site(site: Path) -> None:
    widgets = 0
    for lecture in LECTURES:
        page = walkthrough_page(site, lecture)
        for payload in re.findall(r'<script type="application/json" class="course-widget-data">'
                                  r"(.*?)</script>", page.read_text(), re.S):
            data = json.loads(payload)
            widgets += 1
            for name in data["frames"].values():
                assert (page.parent / data["prefix"] / name).is_file(), (lecture, name)
    assert widgets >= len(LECTURES)


def test_the_site_stays_under_50_mb_even_with_full_grids(site: Path) -> None:
    """The test build draws at most TEST_FRAMES frames a widget; `make site` up to MAX_FRAMES.
    Bound the full site by the rest of this one plus, for each widget, MAX_FRAMES frames as
    large as its largest one here and a quarter more (a widget's frames share their layout,
    axes and legend; what moves is a line, points or a shaded region)."""
    files = [p for p in site.rglob("*") if p.is_file()]
    frames_dir = site / "_static" / "frames"
    rest = sum(p.stat().st_size for p in files if p.parent != frames_dir)
    largest = []
    for lecture in LECTURES:
        page = walkthrough_page(site, lecture).read_text()
        for payload in re.findall(r'class="course-widget-data">(.*?)</script>', page, re.S):
            names = set(json.loads(payload)["frames"].values())
            assert len(names) <= TEST_FRAMES
            largest.append(max((frames_dir / name).stat().st_size for name in names))
    bound = rest + sum(frames.MAX_FRAMES * 1.25 * size for size in largest)
    assert sum(p.stat().st_size for p in files) < SIZE_LIMIT
    assert bound < SIZE_LIMIT, f"a full build could weigh up to {bound / 1e6:.0f} MB"


# -- in a real browser, from file:// ---------------------------------------------------------


@pytest.fixture(scope="module")
def browser(site: Path, tmp_path_factory):
    chromium = require_chromium()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("site-chromium")), executable_path=chromium,
            headless=True, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900},
            offline=True)
        context.set_default_timeout(LOAD_TIMEOUT)
        try:
            yield context
        finally:
            context.close()


MATHJAX_DONE = """() => new Promise(resolve => {
    if (!window.MathJax || !window.MathJax.Hub) { resolve(false); return; }
    window.MathJax.Hub.Queue(() => resolve(true));
})"""


def open_page(context, path: Path):
    """Open ``path`` from file://; return the page and what went wrong while it loaded."""
    page = context.new_page()
    problems = []
    page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(
        f"failed request: {request.url} ({request.failure})"))
    page.on("request", lambda request: urlsplit(request.url).scheme not in ("file", "data")
            and problems.append(f"request outside the site: {request.url}"))
    report_policy_violations(page, problems)  # also logged as console errors, mostly
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate(MATHJAX_DONE)
    return page, problems


def test_every_page_loads_without_an_error_meets_wcag_aa_and_reflows_at_320_px(
        site: Path, browser) -> None:
    """Every page loads from file:// with no console error, failed request or request to
    another host; and (issue 26) axe-core's WCAG 2.0/2.1 A and AA rules find nothing on it at
    1280 px (where every part of the theme shows) after MathJax typeset it; no image's alt text
    is missing or a placeholder; narrowed to 320 px, no page is wider than the screen and no
    code is cut off (tests/axe_support.py). Each page is opened and typeset once for all of it:
    typesetting is most of the cost."""
    failures = {}
    for path in pages(site):
        page, loading = open_page(browser, path)
        # Copied before the audit: axe-core then fetches the stylesheets itself, which file://
        # refuses (those refusals are the audit's, not the page's).
        problems = list(loading) + loaded_page_problems(page, axe_widths=(1280,))
        page.close()
        if problems:
            failures[str(path.relative_to(site))] = problems
    assert failures == {}, "\n".join(f"{name}:\n" + "\n".join(found)
                                      for name, found in failures.items())


def test_the_policy_is_in_force_from_file(site: Path, browser) -> None:
    """The policy the pages carry is enforced where they are opened (file://): a script that
    the page did not ship (here one added to it after loading) is refused and reported."""
    page, problems = open_page(browser, site / "index.html")
    ran = page.evaluate("""() => new Promise(resolve => {
        const probe = document.createElement("script");
        probe.textContent = "window.probeRan = true";
        document.head.append(probe);
        setTimeout(() => resolve(window.probeRan === true), 200);
    })""")
    page.close()
    assert not ran
    assert any(p.startswith("policy violation: script-src") for p in problems), problems


def test_math_renders_with_mathjax_from_the_site(site: Path, browser) -> None:
    exercises = site / "notebooks" / "02_svm" / "svm_exercises.html"
    for path in [walkthrough_page(site, "01_perceptron"), walkthrough_page(site, "05_em"),
                 exercises, site / "errata.html"]:
        page, problems = open_page(browser, path)
        assert page.evaluate(MATHJAX_DONE), f"{path.name}: MathJax did not load"
        typeset = page.locator('script[type^="math/tex"]').count()  # MathJax keeps the TeX here
        raw = page.evaluate("""() => [...document.querySelectorAll('span.math, div.math')]
            .filter(e => /\\\\\\(|\\\\\\[/.test(e.textContent)).length""")
        assistive = page.locator(".MJX_Assistive_MathML").count()
        errors = page.locator(".MathJax_Error, .merror").count()
        page.close()
        assert typeset > 5, f"{path.name}: {typeset} formulas typeset"
        assert raw == 0, f"{path.name}: {raw} formulas left as TeX"
        assert errors == 0, f"{path.name}: {errors} formulas MathJax could not typeset"
        assert assistive == typeset, f"{path.name}: assistive MathML missing"
        assert problems == []


# Put the focus on a marker just before a widget (the test's own), so that Tab goes into it.
TAB_START_JS = """widget => {
    const start = document.createElement("span");
    start.tabIndex = 0;
    start.dataset.test = "tab-start";
    widget.before(start);
    start.focus();
}"""
MAX_TABS = 20


def tab_to(page, widget, target) -> None:
    """Press Tab from just before ``widget`` until ``target`` has the focus, every stop on the
    way being one of the widget's controls."""
    widget.evaluate(TAB_START_JS)
    try:
        for _ in range(MAX_TABS):
            page.keyboard.press("Tab")
            where = target.evaluate("""(el) => el === document.activeElement ? "target"
                : el.closest(".course-widget").contains(document.activeElement) ? "widget"
                : (document.activeElement?.outerHTML ?? "nothing").slice(0, 120)""")
            if where == "target":
                return
            assert where == "widget", f"Tab left the widget before the control, for {where}"
        raise AssertionError(f"{MAX_TABS} Tab presses did not reach the control")
    finally:
        page.evaluate("() => document.querySelector('[data-test=tab-start]')?.remove()")


def keyboard_presses(widget) -> list[tuple[object, str]]:
    """(control, key) to press on a precomputed widget: its first slider that can move (an
    arrow key) or else its first drop-down (ArrowDown), then each of its buttons (Enter for a
    Step, Space for Run, which plays its slider to the end)."""
    sliders = widget.locator("input[type=range]:not([disabled])")
    movable = [sliders.nth(i) for i in range(sliders.count())
               if int(sliders.nth(i).get_attribute("max")) > 0]
    selects = widget.locator("select:not([disabled])")
    presses = []
    if movable:
        at_end = movable[0].input_value() == movable[0].get_attribute("max")
        presses.append((movable[0], "ArrowLeft" if at_end else "ArrowRight"))
    elif selects.count():
        presses.append((selects.first, "ArrowDown"))
    buttons = widget.locator("button:not([disabled])")
    for i in range(buttons.count()):
        run = buttons.nth(i).get_attribute("aria-pressed") is not None
        presses.append((buttons.nth(i), "Space" if run else "Enter"))
    return presses


def rewind(page, widget, data: dict, button) -> None:
    """Bring the slider a Step or Run button moves back to its start (Tab, Home) if it is at its
    end, where the button could not move it."""
    action = data["actions"][int(button.get_attribute("data-action"))]
    field = widget.locator(f'[data-control="{action["control"]}"]')
    if field.input_value() == field.get_attribute("max"):
        tab_to(page, widget, field)
        page.keyboard.press("Home")


@pytest.mark.parametrize("lecture", LECTURES)
def test_every_widget_by_keyboard_says_the_recorded_alt_of_its_new_frame(site: Path, browser,
                                                                         lecture: str):
    """Each precomputed widget: Tab reaches its controls, an arrow key moves a slider (or a
    drop-down), Enter presses Step and Space Run; after each, the figure's alt text and the
    status line are the alt text the build recorded for the grid point the controls show, and
    they changed."""
    page, problems = open_page(browser, walkthrough_page(site, lecture))
    widgets = page.locator(".course-widget")
    driven, silent = 0, []
    for index in range(widgets.count()):
        widget = widgets.nth(index)
        data = json.loads(widget.locator("script.course-widget-data").text_content())
        image, status = widget.locator("img.course-widget-frame"), widget.locator("[role=status]")
        unlabelled = widget.evaluate("""w => [...w.querySelectorAll("[data-control], button")]
            .filter(c => !(c.tagName === "BUTTON" ? c.textContent
                           : [...c.labels].map(l => l.textContent).join("")).trim())
            .map(c => c.outerHTML.slice(0, 80))""")
        assert unlabelled == [], f"{lecture}, widget {index + 1}: controls without a label"
        presses = keyboard_presses(widget)
        for control, key in presses:
            if control.get_attribute("data-action") is not None:
                rewind(page, widget, data, control)
            before = image.get_attribute("alt")
            tab_to(page, widget, control)
            page.keyboard.press(key)
            if key == "Space":  # Run plays the (small) grid to its end, then stops itself
                page.wait_for_function("b => b.getAttribute('aria-pressed') === 'false'",
                                       arg=control.element_handle())
            point = ".".join(widget.locator("[data-control]").evaluate_all(
                "fields => fields.map(f => f.value)"))
            page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                                   arg=image.element_handle())
            recorded, alt = data["alts"][point], image.get_attribute("alt")
            where = f"{lecture}, widget {index + 1}, {key} on {control.evaluate('e => e.id')}"
            assert alt == recorded == status.text_content(), where
            assert image.get_attribute("src").endswith(data["frames"][point]), where
            if alt == before:  # the next widgets are still driven: report them all
                silent.append(f"{where}: {alt!r}")
        driven += bool(presses)
    page.close()
    assert driven, f"{lecture}: no precomputed widget with a control to move"
    assert problems == []
    assert not silent, ("the frame changed but its alt text did not, so a screen reader hears "
                        "nothing new:\n  " + "\n  ".join(silent))


def test_a_step_button_moves_its_slider_and_the_figure(site: Path, browser) -> None:
    """Lecture 05's Step button (one more EM update in JupyterLab) steps the EM slider here."""
    page, problems = open_page(browser, walkthrough_page(site, "05_em"))
    widget = page.locator(".course-widget").filter(has=page.locator("button", has_text="Step"))
    slider = widget.locator("input[type=range]:not([disabled])").last
    readout = widget.locator(f'output[for="{slider.get_attribute("id")}"]')
    image = widget.locator("img.course-widget-frame")
    before = (readout.text_content(), image.get_attribute("src"))
    widget.locator("button", has_text="Step").press("Enter")  # reached and pressed by keyboard
    after = (readout.text_content(), image.get_attribute("src"))
    page.close()
    assert before[0] == "0" and int(after[0]) > 0, "the EM steps slider did not move"
    assert after[1] != before[1], "the figure did not change"
    assert problems == []
