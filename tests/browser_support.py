"""Helpers for tests/test_browser.py: a throwaway JupyterLab server and a headless Chromium.

Everything runs against a temporary copy of the course, so the repository never sees a
checkpoint, a workspace file, a gradebook or a kernel's output. Only loopback addresses are used.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "tests" / "artifacts"

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Timeouts, in seconds. Measured on 2 cores with the perceptron walk-through: server ~3 s, page
# to a connected idle kernel 5-6 s, Run All ~2.5 s, slider to settled plot ~2.5 s; the module
# takes about 20 s. A failure costs at most one of these. The margins are wide because under
# `make test` this module shares the CPUs with the other xdist worker (and, on a shared machine,
# with other jobs): at a load average of 10 on 2 cores the server took over 20 s to answer.
# Run All waits longest: the heaviest walk-through (11, about 20 s of CPU, most of it its
# bias-variance sweep) did not finish within 60 s at a load average of 12 on 2 cores.
SERVER_START_TIMEOUT = 60
PAGE_LOAD_TIMEOUT = 40
RUN_ALL_TIMEOUT = 180
REDRAW_TIMEOUT = 20
SETTLE_SECONDS = 0.6

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def require_chromium() -> str:
    """The Chromium binary, or a failure (never a skip) saying how to install it."""
    path = CHROMIUM if os.path.isabs(CHROMIUM) else shutil.which(CHROMIUM)
    if not path or not os.access(path, os.X_OK):
        pytest.fail(
            f"Chromium not found at {CHROMIUM!r}; the browser tests need it. Install it with "
            "`apt-get update && apt-get install -y chromium` (CI does this in .ci/run). "
            "Do not run `playwright install`.",
            pytrace=False,
        )
    return path


def walkthrough_source(walkthrough: Path) -> Path:
    """The walk-through to open, relative to the course root.

    ``walkthrough`` is relative to the release folder, e.g. ``01_perceptron/x.ipynb``. The
    student copy if it has been released, else the instructor copy. For trying a draft,
    ``BROWSER_TEST_NOTEBOOK=/path/to/draft.ipynb`` opens that file instead (copied in as
    ``draft/<name>``).
    """
    if os.environ.get("BROWSER_TEST_NOTEBOOK"):
        return Path("draft") / Path(os.environ["BROWSER_TEST_NOTEBOOK"]).name
    for folder in ("notebooks", "solutions"):
        if (REPO / folder / walkthrough).is_file():
            return Path(folder) / walkthrough
    pytest.fail(
        f"the walk-through is missing: neither notebooks/{walkthrough} nor "
        f"solutions/{walkthrough} exists",
        pytrace=False,
    )


def mirror_course(dest: Path) -> None:
    """Mirror the course under ``dest``: notebooks/, solutions/, nbgrader's and JupyterLab's
    config, grader/jupyter and the server extensions of grader/jupyter_server_config.d.

    The config computes the course root from its own location, so the copy makes nbgrader's
    lab extension point at ``dest`` (gradebook included) instead of the repository.
    """
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for folder in ("notebooks", "solutions"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, dest / folder, ignore=ignore)
    if os.environ.get("BROWSER_TEST_NOTEBOOK"):
        draft = Path(os.environ["BROWSER_TEST_NOTEBOOK"])
        (dest / "draft").mkdir(parents=True, exist_ok=True)
        shutil.copy2(draft, dest / "draft" / draft.name)
    (dest / "grader").mkdir(parents=True, exist_ok=True)
    # nbgrader's config, and JupyterLab's (its custom.css, which rewrites the Validate dialog).
    for name in ("nbgrader_config.py", "jupyter_lab_config.json"):
        if (REPO / "grader" / name).is_file():
            shutil.copy2(REPO / "grader" / name, dest / "grader" / name)
    if (REPO / "grader" / "jupyter").is_dir():  # the formgrader's template (JUPYTER_PATH)
        shutil.copytree(REPO / "grader" / "jupyter", dest / "grader" / "jupyter")
    # The server extensions `make lab` enables (the formgrader's policy, which also serves the
    # grading page's MathJax settings, and its feedback buttons): the lab under test is the lab
    # the course runs.
    servers = REPO / "grader" / "jupyter_server_config.d"
    if servers.is_dir():
        shutil.copytree(servers, dest / "grader" / servers.name)


def clear_outputs(path: Path) -> None:
    """Drop stored outputs, execution counts and widget state, so only this run's output counts."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LAB_SETTINGS = {
    # Never ask about, or fetch, the Jupyter news (no toast, no request to the internet).
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    # Attach every cell to the DOM, so that prompts and widgets can be read wherever they are.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # Never save a notebook the test ran: the course copy's files must stay as released (the
    # grading run in the same course checks them), however long a slow machine keeps a tab open.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}


def write_lab_settings(settings_dir: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        target = settings_dir / f"{plugin}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))


@dataclass
class LabServer:
    root: Path
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def stop(self) -> None:
        """SIGTERM the server's process group (the server then shuts its kernels down)."""
        if self.proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue


def start_lab(tmp: Path, expose_app: bool = False) -> LabServer:
    """Start ``jupyter lab`` from this venv on a free loopback port, serving ``tmp / 'course'``.

    ``expose_app``: the page gets JupyterLab's application as ``window.jupyterapp`` (its
    ``expose_app_in_browser`` setting), so a test can open documents with the app's own commands
    instead of loading the whole front end again for each."""
    root = tmp / "course"
    home = tmp / "home"
    for d in ("config", "data", "runtime", "settings", "workspaces", "ipython"):
        (home / d).mkdir(parents=True, exist_ok=True)
    write_lab_settings(home / "settings")
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # let ipykernel pick the inline backend: the plot is an <img>
    env.update(
        # nbgrader's config, from the course copy (see mirror_course).
        JUPYTER_CONFIG_PATH=str(root / "grader"),
        JUPYTER_PATH=str(root / "grader" / "jupyter"),  # as the Makefile sets it
        # Keep the developer's own ~/.jupyter, kernelspecs and IPython startup files out of it.
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        IPYTHONDIR=str(home / "ipython"),
    )
    last_error = ""
    for attempt in range(3):  # a port can be taken between free_port() and the server's bind
        port = free_port()
        log = tmp / f"jupyter-lab-{attempt}.log"
        cmd = [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", f"--port={port}", "--ip=127.0.0.1", "--allow-root",
            "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
            f"--ServerApp.root_dir={root}", f"--LabApp.expose_app_in_browser={expose_app}",
        ]  # fmt: skip
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        server = LabServer(root, port, proc, log)
        no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with no_proxy.open(server.url + "/api/status", timeout=2) as r:
                    if r.status == 200:
                        return server
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        server.stop()
        last_error = (
            f"jupyter lab did not answer /api/status within {SERVER_START_TIMEOUT} s "
            f"(exit code {proc.poll()}); log {log}:\n{server.log_tail()}"
        )
    pytest.fail(last_error, pytrace=False)


def start_formgrader_lab(tmp: Path) -> LabServer:
    """:func:`start_lab` for a course whose formgrader opens the gradebook: nbgrader runs
    ``alembic`` by name then, so this venv's scripts come first on the server's PATH."""
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"
    try:
        return start_lab(tmp)
    finally:
        os.environ["PATH"] = path


@contextlib.contextmanager
def chromium_context(profile: Path, timeout_ms: int = 30_000):
    """A headless Chromium (the system's, with :data:`CHROMIUM_ARGS`) with its profile in
    ``profile``, closed on exit."""
    chromium = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        context.set_default_timeout(timeout_ms)
        try:
            yield context
        finally:
            context.close()


def decode_kernel_frame(payload: bytes | str) -> tuple[str, dict, dict] | None:
    """(channel, header, content) of a kernel websocket frame, or None if it is not one.

    JupyterLab 4 speaks the binary ``v1.kernel.websocket.jupyter.org`` protocol: a uint64 count
    n, n uint64 offsets, then the parts channel, header, parent header, metadata, content and
    buffers. The older protocol sends one JSON text frame per message.
    """
    try:
        if isinstance(payload, str):
            msg = json.loads(payload)
            return msg.get("channel", ""), msg["header"], msg.get("content") or {}
        n = struct.unpack_from("<Q", payload, 0)[0]
        offsets = struct.unpack_from(f"<{n}Q", payload, 8)
        bounds = [*offsets, len(payload)]
        parts = [payload[bounds[i] : bounds[i + 1]] for i in range(n)]
        return parts[0].decode(), json.loads(parts[1]), json.loads(parts[4])
    except (ValueError, KeyError, IndexError, struct.error, UnicodeDecodeError):
        return None


@dataclass
class KernelMonitor:
    """What the kernel told the browser, read off the kernel websocket.

    - ``connected``: a ``kernel_info_reply`` arrived, so the notebook really has a kernel.
      JupyterLab 4.6 shows ``data-status="idle"`` on the execution indicator while the status
      bar still says "No Kernel | Initializing", and a Run All issued then does nothing.
    - ``errors``: every ``error`` message the kernel published. This is the reliable error
      signal: an error output is rendered with ``data-mime-type="application/vnd.jupyter.stderr"``,
      exactly like a warning on stderr, so the DOM cannot tell them apart. It also catches errors
      raised inside an ``interact`` callback, which land in the widget's output area.
    """

    connected: bool = False
    iopub_messages: int = 0  # proves the listener works: a silent channel is not a clean run
    errors: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        """Read every kernel websocket ``page`` opens from now on, until :meth:`detach`."""
        page.on("websocket", self._on_websocket)

    def detach(self, page) -> None:
        page.remove_listener("websocket", self._on_websocket)

    def _on_websocket(self, ws) -> None:
        if "/api/kernels/" in ws.url:
            ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload) -> None:
        msg = decode_kernel_frame(payload)
        if not msg:
            return
        channel, header, content = msg
        if header.get("msg_type") == "kernel_info_reply":
            self.connected = True
        if channel != "iopub":
            return
        self.iopub_messages += 1
        if header.get("msg_type") == "error":
            tb = ANSI.sub("", "\n".join(content.get("traceback") or []))
            lines = [line for line in tb.splitlines() if line.strip()][-6:]
            summary = f"{content.get('ename')}: {content.get('evalue')}"
            self.errors.append(summary + ("\n    " + "\n    ".join(lines) if lines else ""))


def wait_until_true(page, expression: str, timeout_s: float = 30) -> None:
    """Wait until the JavaScript ``expression`` is truthy in ``page``.

    Playwright's ``wait_for_function`` runs its predicate through the page's own ``eval``, which
    a Content-Security-Policy without 'unsafe-eval' refuses (the formgrader's); ``evaluate``
    goes through the DevTools protocol, which the page's policy does not govern.

    Raises
    ------
    TimeoutError
        Naming the expression, when it is still false after ``timeout_s`` seconds.
    """
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout_s} s: {expression}")
        page.wait_for_timeout(100)


# A Content-Security-Policy violation, reported through a binding (Chromium also logs most of
# them to the console, but not every kind, and a test may not read the console).
REPORT_VIOLATIONS_JS = """document.addEventListener('securitypolicyviolation', e =>
    window.reportPolicyViolation(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} ` +
                                 `(${e.sourceFile}:${e.lineNumber}) ${e.sample}`));"""


def report_policy_violations(page, problems: list[str]) -> None:
    """Append each policy violation of ``page`` (from its next navigation on) to ``problems``."""
    page.expose_binding("reportPolicyViolation",
                        lambda _, text: problems.append(f"policy violation: {text}"))
    page.add_init_script(REPORT_VIOLATIONS_JS)


SCREENSHOT_PREFIX = "browser_"


def clear_screenshots() -> None:
    """Remove the previous run's screenshots, so that tests/artifacts/ shows this run only."""
    for old in ARTIFACTS.glob(f"{SCREENSHOT_PREFIX}*.png"):
        old.unlink(missing_ok=True)


def screenshot(page, name: str) -> Path:
    """Save tests/artifacts/browser_<name>.png and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{SCREENSHOT_PREFIX}{name}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
    except Exception as exc:  # a failed screenshot must not hide the real failure
        return Path(f"{path} (screenshot failed: {exc})")
    return path


def fail_with_screenshot(page, name: str, message: str) -> None:
    path = screenshot(page, f"{name}-FAILED")
    pytest.fail(f"{message}\nscreenshot: {path}", pytrace=False)
