"""A class hub of the tests' own: real Unix accounts, the course's hub config, loopback only.

The hub runs as root (it starts each person's server as that person), so these tests need
root, as CI has. Everything lives in one temporary folder that every account can enter: the
course copy (owned by the grader account, as ``make hub`` arranges), the exchange, the homes
and the hub's state; the accounts are removed afterwards.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
import requests
import websocket  # websocket-client, jupyter_server's own dependency
from playwright.sync_api import Locator, Page

from grader.hub.roster import GRADER_ACCOUNT, MARK
from grader.hub.shares import account_groups, cgroup_version, remove_groups

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "tests" / "artifacts"  # git-ignored
HUB_ENV = Path(os.environ.get("COURSE_HUB_ENV", "/opt/ml-course/venv"))
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"  # util-linux: run as an account
HUB_START_TIMEOUT = 120  # the hub, its proxy and the formgrader service, on 2 busy cores
SPAWN_TIMEOUT = 180  # a person's first JupyterLab, while the other xdist worker runs
STOP_TIMEOUT = 90  # make hub to end after SIGTERM, its services stopped first (ClassHub.stop)


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("the class hub makes Unix accounts and runs as root (CI runs as root)")


def build_hub_env() -> Path:
    """The slow parts of ``make hub-env``, once per machine: the servers' environment from the
    lock and the proxy from npm (``make hub`` then installs the course into it). Done before
    the hub's start is timed."""
    subprocess.run(["make", "--no-print-directory", "-C", str(REPO), f"HUB_ENV={HUB_ENV}",
                    str(HUB_ENV / ".installed"), "hub/node_modules/.bin/configurable-http-proxy"],
                   check=True, capture_output=True)
    return HUB_ENV


def canvas_roster(path: Path, students: list[tuple[str, str, str]]) -> Path:
    """Canvas's gradebook export with these (sortable name, Canvas id, SIS login id) rows."""
    rows = ["Student,ID,SIS User ID,SIS Login ID,Section"]
    rows += [f'"{name}",{canvas_id},,{login},Section A' for name, canvas_id, login in students]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def remove_accounts(names: list[str]) -> None:
    """Remove these accounts, if grader.hub.roster made them (never another account of the machine).

    The grader account stays, as after ``make hub``: a second hub on the machine (another
    test run) may be using it."""
    for name in names:
        try:
            ours = pwd.getpwnam(name).pw_gecos == MARK
        except KeyError:
            continue
        if ours:
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "--remove", name], capture_output=True)


def close_hub(hub: ClassHub, accounts: list[str], log_name: str) -> None:
    """Stop a test's hub, remove its accounts, their control groups and its folder; its log
    is kept in tests/artifacts/ (git-ignored) to read after a failure."""
    hub.stop_all()
    remove_accounts(accounts)
    version = cgroup_version()  # the accounts' control groups, emptied by remove_accounts
    for name in accounts if version else []:
        remove_groups(account_groups(name, version))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(hub.root / "hub.log", ARTIFACTS / log_name)
    shutil.rmtree(hub.root, ignore_errors=True)


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports."""
    import socket

    for base in range(20000, 60000, 97):
        try:
            sockets = []
            for port in range(base, base + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free ports")


@dataclass
class ClassHub:
    """A running hub and where its parts are."""

    root: Path
    course: Path
    exchange: Path
    state: Path
    port: int
    process: subprocess.Popen  # `make hub`
    db_url: str = ""  # the gradebook's PostgreSQL database (COURSE_DB_URL), or SQLite's default
    passwords: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def formgrader(self) -> str:
        return f"{self.url}/services/formgrader-ml-course/formgrader"

    def environment(self) -> dict[str, str]:
        return {**os.environ, "COURSE_HUB_STATE": str(self.state),
                "COURSE_HUB_COURSE": str(self.course), "COURSE_EXCHANGE": str(self.exchange),
                "COURSE_HUB_ENV": str(HUB_ENV), "COURSE_HUB_PORT": str(self.port),
                **({"COURSE_DB_URL": self.db_url} if self.db_url else {})}

    def course_command(self, *args: str) -> subprocess.CompletedProcess:
        """``course ARGS`` as root from the checkout's environment, with this hub's state (the
        README's ``sudo .venv/bin/course hub users``)."""
        return subprocess.run([sys.executable, "-m", "grader", *args], env=self.environment(),
                              capture_output=True, text=True)

    def as_grader(self, *command: str) -> subprocess.CompletedProcess:
        """A command run by the grader account in the course folder (what a grader's
        terminal in the formgrader runs)."""
        env = {k: v for k, v in self.environment().items() if k != "COURSE_HUB_STATE"}
        env.update(JUPYTER_CONFIG_PATH=str(self.course / "grader"),
                   PATH=f"{HUB_ENV / 'bin'}:/usr/bin:/bin", HOME=str(self.root / "home" /
                                                                   GRADER_ACCOUNT))
        return subprocess.run([RUNUSER, "-u", GRADER_ACCOUNT, "--", *command],
                              cwd=self.course, env=env, capture_output=True, text=True)

    def stop(self) -> int | None:
        """Stop the hub as its instructor would, by SIGTERM to the hub's process (its servers
        and proxy outlive it, as a restart needs); return ``make hub``'s exit status (None:
        it had to be killed)."""
        if self.process.poll() is not None:  # already ended (a failed restart killed it)
            return self.process.returncode
        try:
            os.kill(int((self.state / "jupyterhub.pid").read_text()), signal.SIGTERM)
        except (OSError, ValueError):  # the hub never wrote its pid: stop make and its children
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            # The hub stops its services before it exits (SIGINT, then SIGTERM after their
            # timeouts): at a load average of 12 on 2 cores that took over 30 s.
            return self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            return None

    def stop_all(self) -> int | None:
        """Stop the hub, then its proxy (the servers go with their accounts)."""
        status = self.stop()
        pid = self.state / "proxy.pid"
        if pid.exists():
            subprocess.run(["kill", pid.read_text().strip()], capture_output=True)
        return status

    def log_tail(self) -> str:
        return (self.root / "hub.log").read_text()[-3000:]

    def restart(self) -> None:
        """Stop ``make hub`` (it must end cleanly, status 0) and run it again."""
        status = self.stop()
        assert status == 0, f"make hub ended with status {status}:\n{self.log_tail()}"
        self.process = launch(self)
        wait_until_up(self)


def start_hub(root: Path, roster: Path, graders: list[str], instructors: list[str],
              db_url: str = "") -> ClassHub:
    """Copy the course, make the class's accounts and start the hub with ``make hub`` (which
    gives the course's grading state to the grader account); return it running. ``db_url``:
    the gradebook's PostgreSQL database, as ``COURSE_DB_URL=... make hub``."""
    root.chmod(0o755)
    course = root / "course"
    for folder in ("solutions", "notebooks"):
        shutil.copytree(REPO / folder, course / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copytree(REPO / "grader", course / "grader",
                    ignore=shutil.ignore_patterns("*.py", "__pycache__", "student", "submitted",
                                                  "autograded", "feedback", "exports",
                                                  "exchange", "gradebook.db", "course_secret"))
    shutil.copy2(REPO / "grader" / "nbgrader_config.py", course / "grader")
    hub = ClassHub(root, course, root / "exchange", root / "state", free_ports(4),
                   None, db_url)  # type: ignore[arg-type]
    made = hub.course_command("hub", "users", str(roster), "--home", str(root / "home"),
                              *[f"--grader={g}" for g in graders],
                              *[f"--instructor={i}" for i in instructors])
    assert made.returncode == 0, made.stderr
    for line in (hub.state / "new-passwords.csv").read_text().splitlines():
        name, password = line.split(",")
        hub.passwords[name] = password
    hub.process = launch(hub)
    wait_until_up(hub)
    return hub


def launch(hub: ClassHub) -> subprocess.Popen:
    """``make hub`` (README, "A class on JupyterHub") on this hub's course, exchange, state and
    ports, in a session of its own."""
    with (hub.root / "hub.log").open("a") as log:
        return subprocess.Popen(
            ["make", "--no-print-directory", "-C", str(REPO), "hub", f"HUB_ENV={HUB_ENV}",
             f"HUB_COURSE={hub.course}", f"EXCHANGE={hub.exchange}"],
            env=hub.environment(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_until_up(hub: ClassHub) -> None:
    """Until the hub answers through its proxy and the formgrader service through the hub."""
    deadline = time.monotonic() + HUB_START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if (requests.get(f"{hub.url}/hub/login", timeout=5).status_code == 200
                    and requests.get(hub.formgrader, timeout=5, allow_redirects=False
                                     ).status_code == 302):
                return
        except requests.ConnectionError:
            pass
        if hub.process.poll() is not None:
            break
        time.sleep(1)
    hub.stop_all()
    raise AssertionError(f"the hub did not start:\n{hub.log_tail()}")


class HubSession:
    """One person's browser-less session on the hub (requests, with the hub's cookies)."""

    def __init__(self, hub: ClassHub, name: str) -> None:
        self.hub, self.name = hub, name
        self.http = requests.Session()

    def log_in(self, password: str | None = None) -> requests.Response:
        self.http.get(f"{self.hub.url}/hub/login", timeout=30)
        return self.http.post(f"{self.hub.url}/hub/login", timeout=SPAWN_TIMEOUT, data={
            "username": self.name, "password": password or self.hub.passwords[self.name],
            "_xsrf": self._xsrf("/hub/")})

    def _xsrf(self, path: str) -> str:
        """The _xsrf cookie the page at ``path`` set (the hub and each server set their own)."""
        fitting = [c for c in self.http.cookies if c.name == "_xsrf"
                   and path.startswith(c.path.rstrip("/") + "/")]
        return max(fitting, key=lambda c: len(c.path)).value if fitting else ""

    def get(self, url: str, **kwargs) -> requests.Response:
        return self.http.get(url, timeout=SPAWN_TIMEOUT, **kwargs)

    def post(self, url: str, **kwargs) -> requests.Response:
        path = url.removeprefix(self.hub.url)
        return self.http.post(url, timeout=SPAWN_TIMEOUT,
                              headers={"X-XSRFToken": self._xsrf(path)}, **kwargs)

    def put(self, url: str, **kwargs) -> requests.Response:
        path = url.removeprefix(self.hub.url)
        return self.http.put(url, timeout=SPAWN_TIMEOUT,
                             headers={"X-XSRFToken": self._xsrf(path)}, **kwargs)

    def server(self, timeout: float = SPAWN_TIMEOUT) -> str:
        """This person's server's URL, started and ready. As a person in a browser: a server
        not running (424: a start the hub refused, 429, or one that failed) is launched again
        with the page's button, after as long as a refusal asked to wait."""
        url = f"{self.hub.url}/user/{self.name}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            response = self.get(f"{url}/lab")
            if response.status_code == 200 and response.url.startswith(f"{url}/lab"):
                return url
            if response.status_code == 424:
                response = self.get(f"{self.hub.url}/hub/spawn/{self.name}")
            time.sleep(int(response.headers.get("Retry-After", 2)))
        raise AssertionError(f"{self.name}'s server did not start: {response.url}")


# A student in Chromium: the clicks of the hub's login page, nbgrader's Assignments tab
# (nbgrader 0.9.6's lab extension: its lists #released_assignments_list,
# #fetched_assignments_list and #submitted_assignments_list, one row per assignment with its
# button) and the notebook's Validate button.
ANSWER_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def typed_answers(solution: Path) -> dict[int, str]:
    """What a student who knows the answers types into each answer cell (by cell index): the
    instructor's solution cell without nbgrader's solution markers."""
    notebook = nbformat.read(solution, as_version=4)
    return {index: "\n".join(line for line in cell.source.splitlines()
                             if line.strip() not in ANSWER_MARKERS)
            for index, cell in enumerate(notebook.cells)
            if cell.metadata.get("nbgrader", {}).get("solution")}


def log_in_through_the_page(page: Page, hub: ClassHub, name: str) -> None:
    """Sign in on the hub's login page; return once JupyterLab has loaded."""
    page.fill("#username_input", name)
    page.fill("#password_input", hub.passwords[name])
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{name}/lab**", timeout=1000 * SPAWN_TIMEOUT)
    page.locator(".jp-LauncherCard, .jp-NotebookPanel").first.wait_for()


def nbgrader_menu(page: Page) -> list[str]:
    """The items of JupyterLab's Nbgrader menu (left open)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    return [t for t in page.locator(".lm-Menu-itemLabel").all_inner_texts() if t]


def open_assignments_tab(page: Page) -> None:
    """The Assignments tab, opened from the Nbgrader menu or brought to the front."""
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Assignments")
    if tab.count():
        tab.click()
    else:
        nbgrader_menu(page)
        page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.locator("#nbgrader-assignment-list #course_list_default",
                 has_text="ml-course").wait_for()


def assignment_row(page: Page, listing: str, assignment: str) -> Locator:
    """The row of ``assignment`` in one of the tab's lists ("released", "fetched",
    "submitted"), waited for."""
    row = page.locator(f"#{listing}_assignments_list > .list_item").filter(
        has=page.locator(".item_name", has_text=assignment))
    row.wait_for(timeout=1000 * SPAWN_TIMEOUT)
    return row


def press_in_row(page: Page, listing: str, assignment: str, button: str) -> None:
    """Press the row's button (Fetch, Submit, Fetch Feedback)."""
    assignment_row(page, listing, assignment).get_by_role("button", name=button).click()


def open_fetched_notebook(page: Page, assignment: str, notebook: str) -> None:
    """Unfold the fetched assignment in the tab and open its notebook."""
    row = assignment_row(page, "fetched", assignment)
    row.locator(".assignment-notebooks-link").click()
    row.locator(".nested_list_item a", has_text=notebook.removesuffix(".ipynb")).click()
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()


def type_answers(page: Page, answers: dict[int, str]) -> None:
    """Replace each answer cell's text by typing into it (a markdown cell is opened for
    editing by a double click, as a student does)."""
    cells = page.locator(".jp-NotebookPanel:visible .jp-Cell")
    for index, text in answers.items():
        cell = cells.nth(index)
        cell.scroll_into_view_if_needed()
        if "jp-MarkdownCell" in (cell.get_attribute("class") or ""):
            cell.locator(".jp-MarkdownOutput").dblclick()
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(text)
        page.keyboard.press("Escape")  # leave the editor, as before the next cell


def press_validate(page: Page) -> tuple[str, str]:
    """Press the notebook's Validate button; return the result dialog's verdict class
    (nbgrader's ``validation-success``, ``validation-failed``...) and its text, closing it."""
    page.locator(".jp-NotebookPanel:visible .validate-button").click()
    message = page.locator("#validation-message")
    message.wait_for(timeout=1000 * SPAWN_TIMEOUT)
    verdict = next((c for c in (message.get_attribute("class") or "").split()
                    if c.startswith("validation-")), "")
    text = message.inner_text()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    return verdict, text


def feedback_page_text(page: Page, assignment: str, notebook: str) -> str:
    """Fetch feedback in the tab, follow its "view feedback" link and open the page; return
    the text the student reads there."""
    open_assignments_tab(page)
    page.locator("#refresh_assignments_list").click()
    press_in_row(page, "submitted", assignment, "Fetch Feedback")
    assignment_row(page, "submitted", assignment).get_by_text("(view feedback)").click()
    html = notebook.replace(".ipynb", ".html")
    page.locator(".jp-DirListing-item", has_text=html).dblclick()
    body = page.frame_locator(".jp-HTMLViewer:visible iframe").locator("body")
    body.get_by_text("Score:").first.wait_for()
    return body.inner_text()


def api_token(session: HubSession) -> str:
    """A hub API token of the session's person (their own scopes: their server, their user),
    as a script of theirs would use instead of the browser's cookies."""
    reply = session.post(f"{session.hub.url}/hub/api/users/{session.name}/tokens",
                         json={"note": "tests", "expires_in": 3600})
    assert reply.status_code == 201, reply.text
    return reply.json()["token"]


@dataclass(frozen=True)
class Execution:
    """What one cell did in a kernel of a person's server."""

    status: str  # "ok", "error", or "died": the kernel stopped before it replied
    output: str  # its printed text and results, and an error's name and message


class Kernel:
    """A new kernel of a person's server, driven over the server's websocket as JupyterLab
    drives it (the Jupyter messaging protocol, JSON over the kernel's channels)."""

    def __init__(self, server: str, token: str, timeout: float = SPAWN_TIMEOUT) -> None:
        self.server, self.headers = server, {"Authorization": f"token {token}"}
        reply = requests.post(f"{server}/api/kernels", headers=self.headers, json={},
                              timeout=timeout)
        assert reply.status_code == 201, reply.text
        self.id = reply.json()["id"]
        self.socket = websocket.create_connection(
            f"ws{server.removeprefix('http')}/api/kernels/{self.id}/channels",
            header=[f"Authorization: token {token}"], timeout=timeout)

    def run(self, code: str, timeout: float = SPAWN_TIMEOUT) -> Execution:
        """Execute ``code`` and wait for its reply (or for the kernel's death)."""
        msg_id = uuid.uuid4().hex
        self.socket.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "tests",
                       "session": uuid.uuid4().hex, "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False}}))
        # The reply comes on the shell channel and the output on iopub; the server forwards
        # the two channels independently, so the reply can overtake the output. iopub's
        # "idle" for this request follows all of its output, so the run ends on both.
        output, reply, idle, deadline = [], None, False, time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = json.loads(self.socket.recv())
            except (websocket.WebSocketConnectionClosedException, ConnectionError):
                return Execution("died", "".join(output))
            kind, content = message["msg_type"], message["content"]
            if kind == "status" and content["execution_state"] in ("restarting", "dead"):
                return Execution("died", "".join(output))
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            if kind == "stream":
                output.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                output.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                output.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "execute_reply":
                reply = content["status"]
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
            if reply is not None and idle:
                return Execution(reply, "".join(output))
        raise AssertionError(f"no reply to {code[:60]!r} within {timeout} s")

    def close(self) -> None:
        """Close the channels and shut the kernel down."""
        self.socket.close()
        requests.delete(f"{self.server}/api/kernels/{self.id}", headers=self.headers,
                        timeout=SPAWN_TIMEOUT)
