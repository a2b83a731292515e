"""The lectures' walk-throughs in a real JupyterLab, driven by headless Chromium.

One JupyterLab server (from this venv, on a free loopback port, serving a temporary copy of the
course with the repository's nbgrader config) and one browser are shared by the module. The
tests check, for each walk-through in WIDGETS, that the nbgrader lab extension is loaded, that
Run All Cells finishes without an error, that figures returned by cells are drawn, and that
moving one of its sliders redraws that widget's plot, and that every explore() widget can be
driven by keyboard alone (Tab, arrow keys, Home/End, Enter, Space) and then says, in the status
line under its figure and the figure's alt text, the alt text the kernel computes for the new
values. For the instructor, they check that the formgrader's Manage Assignments page has no
warning (the course-local exchange) and that its grading page renders LaTeX with the MathJax
this server serves (no CDN). Screenshots go to
tests/artifacts/browser_<walk-through>_*.png and browser_formgrader_*.png.

Run with ``.venv/bin/pytest tests/test_browser.py`` (about 20 s); ``-m "not browser"`` skips it.
Chromium comes from Debian (``apt-get install -y chromium``), never from ``playwright install``.
``BROWSER_TEST_NOTEBOOK=/path/draft.ipynb`` runs the same checks on a draft notebook.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_support import (
    CHROMIUM_ARGS,
    PAGE_LOAD_TIMEOUT,
    REDRAW_TIMEOUT,
    REPO,
    RUN_ALL_TIMEOUT,
    SETTLE_SECONDS,
    KernelMonitor,
    LabServer,
    clear_outputs,
    clear_screenshots,
    fail_with_screenshot,
    mirror_course,
    require_chromium,
    screenshot,
    start_lab,
    wait_until_true,
    walkthrough_source,
)
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, sync_playwright

pytestmark = pytest.mark.browser

# One widget per walk-through: the notebook (relative to notebooks/) and text in the
# description of a slider whose widget draws a plot.
WIDGETS = [
    ("01_perceptron/perceptron_walkthrough.ipynb", "margin γ"),
    ("02_svm/svm_walkthrough.ipynb", "penalty C"),
    ("03_pac/pac_walkthrough.ipynb", "ε"),
    ("04_vc/vc_walkthrough.ipynb", "move x"),
    ("05_em/em_walkthrough.ipynb", "initial p"),
    ("06_chowliu/chowliu_walkthrough.ipynb", "sample size m"),
    ("07_kernels/kernels_walkthrough.ipynb", "degree"),
    ("08_multiclass/multiclass_walkthrough.ipynb", "update"),
    ("09_neighbors/neighbors_walkthrough.ipynb", "σ"),
    ("10_ensemble/ensemble_walkthrough.ipynb", "round t"),
    ("11_linear/linear_walkthrough.ipynb", "decay c"),
    ("12_online/online_walkthrough.ipynb", "best error p"),
    ("13_bayesnet/bayesnet_walkthrough.ipynb", "prior a"),
    ("14_neural/neural_walkthrough.ipynb", "epoch"),
    ("15_parallel/parallel_walkthrough.ipynb", "partitions P"),
]
ARROW_PRESSES = 5
SLIDER_TO_IMAGE = "slider_to_image"  # the recorded property tests/conftest.py prints

# The kernel's state and the text of every code cell's input prompt ("[3]:", "[*]:", "[ ]:").
# Idle needs both the toolbar's execution indicator and the status bar ("Python 3 (ipykernel) |
# Idle"): the indicator alone says idle before any kernel is attached ("No Kernel |
# Initializing").
NOTEBOOK_STATE_JS = """() => {
    const indicator = document.querySelector(".jp-Notebook-ExecutionIndicator")
        ?.getAttribute("data-status");
    const kernel = [...document.querySelectorAll(".jp-StatusBar-TextItem")]
        .map(e => e.textContent.trim()).find(t => / \\| \\w+$/.test(t)) ?? "";
    return {
        idle: indicator === "idle" && kernel.endsWith("| Idle") && !kernel.startsWith("No Kernel"),
        kernel,
        prompts: [...document.querySelectorAll(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt")]
            .map(p => p.textContent.trim()),
    };
}"""

# Tag the first slider whose description contains the text, and the box its plot lives in: the
# interact box (slider + output widget) or, for interactive_output laid out by hand, the cell.
FIND_SLIDER_JS = """(text) => {
    const sliders = [...document.querySelectorAll(".widget-slider")].filter(
        s => (s.querySelector(".widget-label")?.textContent ?? "").includes(text));
    if (!sliders.length) {
        return {count: 0, labels: [...document.querySelectorAll(".widget-label")]
            .map(l => l.textContent)};
    }
    const slider = sliders[0];
    let scope = slider.closest(".widget-interact");
    if (!scope || !scope.querySelector(".widget-output")) scope = slider.closest(".jp-CodeCell");
    slider.setAttribute("data-browser-test", "margin-slider");
    scope.setAttribute("data-browser-test", "margin-plot-scope");
    return {count: sliders.length, label: slider.querySelector(".widget-label").textContent};
}"""
SLIDER = "[data-browser-test='margin-slider']"
PLOT_IMAGES = "[data-browser-test='margin-plot-scope'] .widget-output img"


@dataclass
class Notebook:
    page: Page
    server: LabServer
    path: Path
    slider_text: str
    kernel: KernelMonitor
    console_errors: list[str]

    def state(self) -> dict:
        return self.page.evaluate(NOTEBOOK_STATE_JS)

    def shot(self, name: str) -> Path:
        return screenshot(self.page, f"{self.path.stem}_{name}")

    def fail(self, name: str, message: str) -> None:
        details = [message]
        if self.console_errors:
            details.append("browser console errors:\n  " + "\n  ".join(self.console_errors[-5:]))
        details.append(f"server log tail ({self.server.log}):\n{self.server.log_tail(15)}")
        fail_with_screenshot(self.page, f"{self.path.stem}_{name}", "\n".join(details))


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = require_chromium()
    clear_screenshots()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000},
        )
        context.set_default_timeout(10_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab")
    mirror_course(tmp / "course")
    for walkthrough, _ in WIDGETS:
        clear_outputs(tmp / "course" / walkthrough_source(Path(walkthrough)))
    server = start_lab(tmp, expose_app=True)
    try:
        yield server
    finally:
        server.stop()


# Opens a notebook in the JupyterLab already on the page (the lab runs with
# expose_app_in_browser), as double-clicking it in the file browser does.
OPEN_NOTEBOOK_JS = """async path => {
    await window.jupyterapp.commands.execute('docmanager:open', {path});
}"""
# Shuts down the current notebook's kernel and closes it, without a dialog.
CLOSE_NOTEBOOK_JS = """async () => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (widget && widget.sessionContext) await widget.sessionContext.shutdown();
    if (widget) widget.dispose();
}"""


@pytest.fixture(scope="module")
def lab_page(browser, lab):
    """One page with JupyterLab loaded, shared by the walk-throughs: each is opened and closed
    inside it (loading the front end again for each of 15 notebooks cost ~6 s apiece)."""
    page = browser.pages[0] if browser.pages else browser.new_page()
    page.goto(f"{lab.url}/lab?reset")
    page.wait_for_function("() => window.jupyterapp?.commands.hasCommand('docmanager:open')",
                           timeout=PAGE_LOAD_TIMEOUT * 1000)
    page.evaluate("() => window.jupyterapp.restored")  # the layout restored, plugins active
    yield page
    page.close()


@pytest.fixture(scope="module", params=WIDGETS, ids=lambda widget: Path(widget[0]).stem)
def notebook(request, lab_page, lab):
    """A walk-through open in JupyterLab with an idle kernel; nothing run yet."""
    server, page = lab, lab_page
    walkthrough, slider_text = request.param
    source = walkthrough_source(Path(walkthrough))
    kernel = KernelMonitor()
    kernel.attach(page)
    console_errors: list[str] = []

    def on_console(message) -> None:
        if message.type == "error":
            console_errors.append(message.text)

    def on_page_error(error) -> None:
        console_errors.append(str(error))

    page.on("console", on_console)
    page.on("pageerror", on_page_error)
    nb = Notebook(page, server, source, slider_text, kernel, console_errors)

    page.evaluate(OPEN_NOTEBOOK_JS, source.as_posix())
    deadline = time.monotonic() + PAGE_LOAD_TIMEOUT
    while not (kernel.connected and nb.state()["idle"]):
        if time.monotonic() > deadline:
            state = nb.state()
            dialog = page.locator(".jp-Dialog")
            nb.fail(
                "notebook-load",
                f"{source} did not open with a connected, idle kernel within "
                f"{PAGE_LOAD_TIMEOUT} s (kernel reply seen: {kernel.connected}, status bar: "
                f"{state['kernel']!r}"
                + (f", dialog open: {dialog.first.inner_text()!r})" if dialog.count() else ")"),
            )
        page.wait_for_timeout(100)
    # The news toast ("Would you like to receive official Jupyter news?"). The lab settings
    # already answer it, so it should not appear; dismiss it if it does.
    toast_no = page.locator(".jp-toast-button:has-text('No')")
    if toast_no.count():
        toast_no.first.click()
    yield nb
    page.evaluate(CLOSE_NOTEBOOK_JS)
    kernel.detach(page)
    page.remove_listener("console", on_console)
    page.remove_listener("pageerror", on_page_error)


@pytest.fixture(scope="module")
def executed(notebook):
    """The walk-through after Run > Run All Cells, once the kernel has finished."""
    page = notebook.page
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    deadline = time.monotonic() + RUN_ALL_TIMEOUT
    while True:
        state = notebook.state()
        # Run All stops at the first error and leaves the later cells unnumbered ("[ ]:").
        numbered = all(re.fullmatch(r"\[\d+\]:", p) for p in state["prompts"])
        running = any("*" in p for p in state["prompts"])
        if state["idle"] and not running and (numbered or notebook.kernel.errors):
            return notebook
        if time.monotonic() > deadline:
            notebook.fail(
                "run-all",
                f"Run All Cells did not finish within {RUN_ALL_TIMEOUT} s; kernel idle: "
                f"{state['idle']}, prompts: {state['prompts']}",
            )
        page.wait_for_timeout(100)


def test_nbgrader_menu_is_in_the_menu_bar(notebook):
    page = notebook.page
    menu = page.locator(".lm-MenuBar-itemLabel:text-is('Nbgrader')")
    try:
        menu.wait_for(timeout=10_000)
    except PlaywrightError:
        labels = page.locator(".lm-MenuBar-itemLabel").all_text_contents()
        notebook.fail(
            "nbgrader-menu",
            f"no 'Nbgrader' menu in the menu bar (menus: {labels}); is the @jupyter/nbgrader "
            "lab extension enabled? Check `.venv/bin/jupyter labextension list`.",
        )
    menu.click()
    items = page.locator(".lm-Menu-content .lm-Menu-itemLabel")
    try:
        items.first.wait_for()
        labels = [t.strip() for t in items.all_text_contents() if t.strip()]
        shot = notebook.shot("nbgrader_menu")
    finally:
        page.keyboard.press("Escape")
    assert labels, f"the Nbgrader menu opened empty; screenshot: {shot}"


def test_run_all_cells_without_errors(executed):
    shot = executed.shot("run_all_cells")
    if executed.kernel.errors:
        pytest.fail(
            f"{executed.path}: Run All Cells raised {len(executed.kernel.errors)} error(s):\n"
            + "\n".join(executed.kernel.errors)
            + f"\nscreenshot: {shot}",
            pytrace=False,
        )
    assert executed.kernel.iopub_messages, (
        "no kernel messages were seen on the websocket, so errors could not be checked; "
        f"screenshot: {shot}"
    )
    prompts = executed.state()["prompts"]
    assert all(re.fullmatch(r"\[\d+\]:", p) for p in prompts), (
        f"some code cells did not run: prompts {prompts}; screenshot: {shot}"
    )


# Tag and describe the outputs that are a Figure's text repr ("<Figure size 1260x360 with 3 Axes>")
# instead of a plot.
FIGURE_REPRS_JS = """() => [...document.querySelectorAll(".jp-CodeCell")].flatMap(cell =>
    [...cell.querySelectorAll(".jp-OutputArea-output[data-mime-type='text/plain']")]
        .filter(o => /^<Figure size [\\d.]+x[\\d.]+ with \\d+ Axes>$/.test(o.textContent.trim()))
        .map(o => {
            o.setAttribute("data-browser-test", "figure-repr");
            const prompt = cell.querySelector(".jp-InputPrompt").textContent.trim();
            return `cell ${prompt} ${o.textContent.trim()}`;
        }))"""


def test_returned_figures_are_drawn(executed):
    """A cell that returns a matplotlib Figure must show the plot, not its text repr.

    IPython renders a Figure as PNG only once the inline backend is active, which happens when
    pyplot (or matplotlib_inline) is imported. Figures built with ``matplotlib.figure.Figure``
    before that come out as "<Figure size ... with N Axes>".
    """
    page = executed.page
    reprs = page.evaluate(FIGURE_REPRS_JS)
    if reprs:
        page.locator("[data-browser-test='figure-repr']").first.scroll_into_view_if_needed()
    shot = executed.shot("returned_figures")
    if reprs:
        pytest.fail(
            f"{executed.path}: {len(reprs)} figure(s) shown as text instead of a plot:\n  "
            + "\n  ".join(reprs)
            + "\nActivate the inline backend before the first figure, e.g. `%matplotlib inline` "
            f"in the first code cell.\nscreenshot: {shot}",
            pytrace=False,
        )


def wait_for_settled_plot(
    nb: Notebook, name: str, errors_before: int, differ_from: list[str] | None = None
) -> list[str]:
    """The plot's image sources once the kernel is idle and they are unchanged for a while.

    ``interact`` can draw an intermediate plot for every value the slider passes through, so
    a single observation of a new image is not enough. Fails at once if the kernel has raised
    since ``errors_before`` errors.
    """
    deadline = time.monotonic() + REDRAW_TIMEOUT
    last, since = None, time.monotonic()
    while True:
        if len(nb.kernel.errors) > errors_before:
            nb.fail(
                name,
                "the kernel raised while drawing the plot:\n"
                + "\n".join(nb.kernel.errors[errors_before:]),
            )
        srcs = nb.page.locator(PLOT_IMAGES).evaluate_all("imgs => imgs.map(i => i.src)")
        now = time.monotonic()
        if srcs != last:
            last, since = srcs, now
        ready = srcs and (differ_from is None or srcs != differ_from)
        if ready and now - since >= SETTLE_SECONDS and nb.state()["idle"]:
            return srcs
        if now > deadline:
            if not srcs:
                what = "no plot image (.widget-output img) appeared next to the slider"
            elif differ_from is not None and srcs == differ_from:
                what = "the plot did not change after the slider moved"
            else:
                what = "the plot did not settle"
            nb.fail(name, f"{what} within {REDRAW_TIMEOUT} s")
        nb.page.wait_for_timeout(100)


# Waits for the plot's images to differ from ``old`` and to be loaded: the new frame is shown.
NEW_IMAGE_SHOWN_JS = """([selector, old]) => {
    const imgs = [...document.querySelectorAll(selector)];
    const srcs = imgs.map(i => i.src);
    return srcs.length > 0 && JSON.stringify(srcs) !== JSON.stringify(old)
        && imgs.every(i => i.complete && i.naturalWidth > 0);
}"""


def seconds_to_the_new_image(nb: Notebook, before: list[str], moved_at: float) -> float | None:
    """Seconds from ``moved_at`` (a slider step) until the plot shows a new image, checked on
    every animation frame; None if none came within REDRAW_TIMEOUT (the lecture may draw the
    same picture for the next value; the test's own checks below decide)."""
    try:
        nb.page.wait_for_function(NEW_IMAGE_SHOWN_JS, arg=[PLOT_IMAGES, before], polling="raf",
                                  timeout=REDRAW_TIMEOUT * 1000)
    except PlaywrightError:
        return None
    return time.perf_counter() - moved_at


def test_slider_redraws_the_plot(executed, record_property):
    """Five arrow presses on the slider change its readout and redraw its plot. The time
    from the first press to the new image being shown is recorded (issue 24) and printed at the
    end of the run by tests/conftest.py; nothing asserts on it."""
    nb, page = executed, executed.page
    found = page.evaluate(FIND_SLIDER_JS, nb.slider_text)
    if not found["count"]:
        nb.fail(
            "slider",
            f"no slider whose description contains {nb.slider_text!r} in {nb.path}; widget "
            f"labels on the page: {found['labels']}",
        )
    slider = page.locator(SLIDER)
    handle = slider.locator(".noUi-handle")
    readout = slider.locator(".widget-readout")
    slider.scroll_into_view_if_needed()
    errors_before = len(nb.kernel.errors)

    before = wait_for_settled_plot(nb, "slider-before", errors_before)
    value_before = readout.inner_text().strip()
    nb.shot("slider-before")

    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    key = "ArrowLeft" if at_max else "ArrowRight"
    handle.focus()
    moved_at = time.perf_counter()
    handle.press(key)
    shown = seconds_to_the_new_image(nb, before, moved_at)
    record_property(SLIDER_TO_IMAGE, (nb.path.stem, found["label"], shown))
    for _ in range(ARROW_PRESSES - 1):
        handle.press(key)
    try:
        page.wait_for_function(
            "([el, old]) => el.textContent.trim() !== old",
            arg=[readout.element_handle(), value_before],
            timeout=REDRAW_TIMEOUT * 1000,
        )
    except PlaywrightError:
        nb.fail(
            "slider-readout",
            f"the {found['label']!r} readout stayed at {value_before} after pressing "
            f"{key} {ARROW_PRESSES} times on the slider handle",
        )
    after = wait_for_settled_plot(nb, "slider-after", errors_before, differ_from=before)
    value_after = readout.inner_text().strip()
    shot = nb.shot("slider-after")

    new_errors = nb.kernel.errors[errors_before:]
    assert not new_errors, (
        f"moving {found['label']!r} from {value_before} to {value_after} raised:\n"
        + "\n".join(new_errors)
        + f"\nscreenshot: {shot}"
    )
    assert value_after != value_before, f"readout unchanged ({value_after}); screenshot: {shot}"
    assert after != before, f"plot unchanged; screenshot: {shot}"


# --- Every widget by keyboard alone (issue 26 §4) ----------------------------------------------

EXPLORER = ".mllib-explorer"  # an explore() widget (mllib/demos/__init__.py)
SUMMARY = ".mllib-frame-summary"  # its status line under the figure
MAX_TABS = 40  # Tab presses from just before a cell's widgets to the control wanted
KERNEL_TIMEOUT = 120  # s: the kernel draws one frame to answer, after any redraws queued

# In the notebook's kernel: how many explore() widgets there are, and for the one at {index} in
# the order they were built (Run All builds them top to bottom: the page's order), the alt text
# of its frame drawn afresh for the controls' current values, and those values. Evaluated as a
# user expression of a silent request: nothing is printed in the notebook, no history is kept.
KERNEL_ALT = """(lambda boxes: __import__("json").dumps(dict(count=len(boxes), **(lambda box: {{
    "alt": __import__("mllib.plotting").plotting.alt_text(
        box.f(**{{c._kwarg: c.get_interact_value() for c in box.kwargs_widgets}})),
    "values": repr({{c._kwarg: c.value for c in box.kwargs_widgets
                    if isinstance(c, __import__("ipywidgets").DOMWidget)}}),
    }})(boxes[{index}]) if {index} < len(boxes) else {{}})))(
    [box for box in list(__import__("ipywidgets").widgets.widget._instances.values())
     if "mllib-explorer" in getattr(box, "_dom_classes", ())])"""


def kernel_alt(nb: Notebook, index: int) -> dict:
    """The count of widgets and widget ``index``'s alt text and control values, computed in
    Python by the notebook's kernel (KERNEL_ALT).

    A second client of the same kernel (as ``jupyter console --existing`` is), through the
    connection file the server wrote into its runtime folder (browser_support.start_lab).
    """
    import ast
    import json
    import urllib.request

    from jupyter_client import BlockingKernelClient

    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with no_proxy.open(f"{nb.server.url}/api/sessions", timeout=10) as answer:
        sessions = json.load(answer)
    kernel = next(s["kernel"]["id"] for s in sessions if s["path"] == nb.path.as_posix())
    client = BlockingKernelClient(
        connection_file=str(nb.server.root.parent / "home" / "runtime" / f"kernel-{kernel}.json"))
    client.load_connection_file()
    # The shell channel alone: each heartbeat thread opens an event loop of its own, and a
    # run of the widget tests asks once per frame.
    client.start_channels(iopub=False, stdin=False, hb=False, control=False)
    try:
        request = client.execute("", silent=True, store_history=False,
                                 user_expressions={"alt": KERNEL_ALT.format(index=index)})
        deadline = time.monotonic() + KERNEL_TIMEOUT
        while True:
            reply = client.get_shell_msg(timeout=max(1.0, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == request:
                break
    finally:
        client.stop_channels()
    answer = reply["content"]["user_expressions"]["alt"]
    if answer["status"] != "ok":
        nb.fail("kernel-alt", f"the kernel could not compute widget {index + 1}'s alt text: "
                               f"{answer.get('ename')}: {answer.get('evalue')}")
    return json.loads(ast.literal_eval(answer["data"]["text/plain"]))


def tab_to(nb: Notebook, cell, target, name: str) -> int:
    """Put the focus just before the cell's outputs, then press Tab until ``target`` has it.

    Returns the number of Tab presses. Fails if the focus leaves the cell's outputs first (the
    control cannot be reached by Tab) or never arrives.
    """
    nb.page.evaluate("""cell => {
        const start = document.createElement("span");
        start.tabIndex = 0;
        start.dataset.browserTest = "tab-start";
        cell.querySelector(".jp-Cell-outputArea").prepend(start);
        start.focus();
    }""", cell.element_handle())
    try:
        for presses in range(1, MAX_TABS + 1):
            nb.page.keyboard.press("Tab")
            where = target.evaluate("""el => el === document.activeElement ? "target"
                : el.closest(".jp-Cell-outputArea").contains(document.activeElement)
                    ? "cell" : document.activeElement?.outerHTML.slice(0, 120)""")
            if where == "target":
                return presses
            if where != "cell":
                nb.fail(name, f"Tab left the widget's cell before reaching the control; the "
                              f"focus went to {where}")
        nb.fail(name, f"{MAX_TABS} Tab presses did not reach the control")
    finally:
        nb.page.evaluate("() => document.querySelector('[data-browser-test=tab-start]')?.remove()")


# The Run toggle while it plays (a ToggleButton; ToggleButtons' options are choices, not Run).
PLAYING = ".widget-toggle-button.mod-active:not(.widget-toggle-buttons *)"
# Enough of a frame's data: URI to tell frames apart without copying it out of the page.
FRAME_JS = """box => ((src) => src && src.length + ":" + src.slice(-200))(
    box.querySelector(".widget-output img")?.src) || null"""


def settled_summary(nb: Notebook, explorer, frame_before: str, name: str,
                    errors_before: int) -> str:
    """The widget's status line once its figure differs from ``frame_before``, the kernel is
    idle, no Run is playing, and the status line has not changed for SETTLE_SECONDS."""
    summary = explorer.locator(SUMMARY)
    cell = explorer.locator("xpath=ancestor::div[contains(@class, 'jp-CodeCell')][1]")
    deadline = time.monotonic() + REDRAW_TIMEOUT
    last, since = None, time.monotonic()
    while True:
        if len(nb.kernel.errors) > errors_before:
            nb.fail(name, "the kernel raised while redrawing:\n"
                    + "\n".join(nb.kernel.errors[errors_before:]))
        state = (explorer.evaluate(FRAME_JS), summary.text_content() if summary.count() else None)
        now = time.monotonic()
        if state != last:
            last, since = state, now
        if (state[0] not in (None, frame_before) and state[1] is not None
                and now - since >= SETTLE_SECONDS and not cell.locator(PLAYING).count()
                and nb.state()["idle"]):
            return state[1]
        if now > deadline:
            nb.fail(name, f"the figure was not redrawn, or did not settle, within "
                          f"{REDRAW_TIMEOUT} s (the status line says {state[1]!r})")
        nb.page.wait_for_timeout(100)


def visible_label_problems(explorer) -> list[str]:
    """Controls of the widget without a visible label or (for native elements) a name."""
    return explorer.evaluate("""box => [
        ...[...box.querySelectorAll(".widget-slider")]
            .filter(s => !(s.querySelector(".widget-label")?.textContent.trim()))
            .map(s => "a slider without a visible description"),
        ...[...box.querySelectorAll("select")]
            .filter(s => !([...s.labels].map(l => l.textContent).join("").trim()))
            .map(s => "a drop-down without a <label>"),
    ]""")


def keyboard_actions(cell, explorer) -> list[tuple[str, object, str]]:
    """What to press on this widget: (what, element, key). Its first movable slider (an arrow
    key) or, with no slider, its first drop-down, then every button of its cell (Enter for
    Step; Space for Run, pressed again to pause).

    A drop-down takes End or Home (its last or first option): JupyterLab's command mode takes
    the arrow keys (and letters) from a closed <select> in a widget, to move between cells
    (jupyter-widgets/ipywidgets#3912).
    """
    handles = explorer.locator(".widget-slider:not(.mod-disabled) .noUi-handle")
    movable = [i for i in range(handles.count()) if handles.nth(i).get_attribute("aria-valuemin")
               != handles.nth(i).get_attribute("aria-valuemax")]
    actions = []
    if movable:
        handle = handles.nth(movable[0])
        at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        actions.append(("slider", handle, "ArrowLeft" if at_max else "ArrowRight"))
    elif explorer.locator("select:not([disabled])").count():
        select = explorer.locator("select:not([disabled])").first
        at_end = select.evaluate("s => s.selectedIndex === s.options.length - 1")
        actions.append(("drop-down", select, "Home" if at_end else "End"))
    buttons = cell.locator(".jp-OutputArea-output button.jupyter-button:visible"
                           ":not(.widget-toggle-buttons *)")
    for i in range(buttons.count()):
        button = buttons.nth(i)
        toggle = "widget-toggle-button" in (button.get_attribute("class") or "")
        actions.append(("button " + button.inner_text().strip(), button,
                        "Space" if toggle else "Enter"))
    return actions


def test_every_widget_is_driven_by_keyboard_and_says_its_new_frame(executed):
    """Each explore() widget of the walk-through: Tab reaches its controls, an arrow key moves a
    slider (or a drop-down), Enter or Space presses its buttons, and after each redraw the status
    line under the figure (role=status) and the figure's alt text are the alt text that Python
    computes for the controls' new values."""
    nb, page = executed, executed.page
    explorers = page.locator(EXPLORER)
    count = explorers.count()
    if not count:
        pytest.skip(f"{nb.path} has no explore() widget")
    in_kernel = kernel_alt(nb, count)["count"]
    assert in_kernel == count, f"{count} widgets on the page, {in_kernel} in the kernel"
    driven, silent = [], []
    for index in range(count):
        explorer = explorers.nth(index)
        explorer.scroll_into_view_if_needed()
        cell = explorer.locator("xpath=ancestor::div[contains(@class, 'jp-CodeCell')][1]")
        problems = visible_label_problems(explorer)
        assert not problems, f"widget {index + 1}: {problems}"
        before = explorer.locator(SUMMARY).text_content()
        assert before == kernel_alt(nb, index)["alt"], f"widget {index + 1}'s first frame"
        for what, element, key in keyboard_actions(cell, explorer):
            name = f"keyboard-{index + 1}-{what.replace(' ', '-')}"
            errors_before, frame_before = len(nb.kernel.errors), explorer.evaluate(FRAME_JS)
            tab_to(nb, cell, element, name)
            page.keyboard.press(key)
            if key == "Space":  # Run: let it play until the figure changes, then pause it
                page.wait_for_function(f"([box, old]) => ({FRAME_JS})(box) !== old",
                                       arg=[explorer.element_handle(), frame_before],
                                       timeout=REDRAW_TIMEOUT * 1000)
                page.keyboard.press(key)
            after = settled_summary(nb, explorer, frame_before, name, errors_before)
            now = kernel_alt(nb, index)
            image_alts = explorer.locator(".widget-output img").evaluate_all(
                "imgs => imgs.map(i => i.alt)")
            where = f"widget {index + 1}, {what} ({key}), now at {now['values']}"
            assert after == now["alt"], (
                f"{where}: the status line says {after!r}, Python's alt text is {now['alt']!r}")
            assert image_alts == [now["alt"]], f"{where}: the figure's alt text is {image_alts}"
            if after == before:  # the next widgets are still driven: report them all
                silent.append(f"{where}: {after!r}")
            driven.append(f"{index + 1}: {what} {key} -> {now['values']}")
            before = after
    nb.shot("keyboard")
    print("\n".join(driven))
    assert not silent, ("the figure changed but its alt text did not, so a screen reader hears "
                        "nothing new; describe each frame with what the control changes "
                        "(mllib.plotting.describe):\n  " + "\n  ".join(silent))


# --- The formgrader ---------------------------------------------------------------------------

# An exercises notebook with LaTeX in its prompts, graded once so that the formgrader has a
# submission to show on its grading page.
FORMGRADER_ASSIGNMENT, FORMGRADER_NOTEBOOK = "04_vc", "vc_exercises"
GRADE_TIMEOUT = 300  # one submission, one worker; about 10 s on an idle 2-core machine
MATHJAX_TIMEOUT = 20


def open_formgrader_page(browser, url: str) -> tuple[Page, list[str]]:
    """A new tab at ``url`` and the list its console errors and uncaught exceptions go to."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    return page, errors


@pytest.fixture(scope="module")
def graded_submission(lab) -> str:
    """The gradebook id of the solution notebook, submitted by "alice" and autograded."""
    from nbgrader.api import Gradebook

    folder = lab.root / "grader" / "submitted" / "alice" / FORMGRADER_ASSIGNMENT
    folder.mkdir(parents=True)
    solution = REPO / "solutions" / FORMGRADER_ASSIGNMENT / f"{FORMGRADER_NOTEBOOK}.ipynb"
    shutil.copy2(solution, folder)
    env = dict(os.environ)  # nbgrader runs alembic from this venv by name
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    command = [sys.executable, "-m", "grader", "--course-root", str(lab.root),
               "autograde", FORMGRADER_ASSIGNMENT, "--jobs", "1"]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=GRADE_TIMEOUT)
    assert run.returncode == 0, f"autograde failed:\n{run.stdout}\n{run.stderr}"
    with Gradebook(f"sqlite:///{lab.root / 'grader' / 'gradebook.db'}") as gradebook:
        return gradebook.find_submission_notebook(
            FORMGRADER_NOTEBOOK, FORMGRADER_ASSIGNMENT, "alice"
        ).id


def test_formgrader_manage_assignments_shows_no_warning(browser, lab):
    """No "exchange directory does not exist" warning (grader/exchange), no MathJax error."""
    page, errors = open_formgrader_page(browser, f"{lab.url}/formgrader/manage_assignments")
    try:
        try:  # the table is filled from /formgrader/api/assignments
            row = page.locator("#main-table tr", has_text="01_perceptron").first
            row.wait_for(timeout=PAGE_LOAD_TIMEOUT * 1000)
        except PlaywrightError:
            message = f"no 01_perceptron row in Manage Assignments; console errors: {errors}"
            fail_with_screenshot(page, "formgrader_manage_assignments", message)
        warnings = [text.strip() for text in page.locator(".alert-warning").all_inner_texts()]
        shot = screenshot(page, "formgrader_manage_assignments")
    finally:
        page.close()
    assert not warnings, f"Manage Assignments shows warnings: {warnings}; screenshot: {shot}"
    mathjax = [e for e in errors if "MathJax" in e]
    assert not mathjax, f"MathJax errors on Manage Assignments: {mathjax}; screenshot: {shot}"


def test_formgrader_grading_page_renders_math(browser, lab, graded_submission):
    """The grading page loads MathJax from this server and typesets the prompts' LaTeX."""
    url = f"{lab.url}/formgrader/submissions/{graded_submission}/"
    page, errors = open_formgrader_page(browser, url)
    try:
        try:  # formgrade.js sets MathJax.loaded when MathJax has typeset the page
            wait_until_true(page, "window.MathJax && MathJax.loaded === true", MATHJAX_TIMEOUT)
        except TimeoutError:
            fail_with_screenshot(page, "formgrader_grading_page",
                                 f"MathJax did not finish typesetting {url} within "
                                 f"{MATHJAX_TIMEOUT} s; console errors: {errors}")  # fmt: skip
        source = page.evaluate("document.querySelector('script[src*=\"MathJax.js\"]')?.src")
        typeset = page.locator(".MathJax").count()
        shot = screenshot(page, "formgrader_grading_page")
    finally:
        page.close()
    assert source and source.startswith(lab.url), f"MathJax not loaded from this server: {source}"
    assert typeset > 0, f"no typeset formula on the grading page; screenshot: {shot}"
    mathjax = [e for e in errors if "MathJax" in e]
    assert not mathjax, f"MathJax errors on the grading page: {mathjax}; screenshot: {shot}"
