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
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
import websocket  # websocket-client, jupyter_server's own dependency

from grader.hub import GRADER_ACCOUNT, MARK
from grader.hub_shares import account_groups, cgroup_version, remove_groups

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "tests" / "artifacts"  # git-ignored
HUB_ENV = Path(os.environ.get("COURSE_HUB_ENV", "/opt/ml-course/venv"))
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"  # util-linux: run as an account
HUB_START_TIMEOUT = 120  # the hub, its proxy and the formgrader service, on 2 busy cores
SPAWN_TIMEOUT = 180  # a person's first JupyterLab, while the other xdist worker runs


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("the class hub makes Unix accounts and runs as root (CI runs as root)")


def build_hub_env() -> Path:
    """``make hub-env``: the servers' environment (once per machine) and the proxy."""
    subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "hub-env",
                    f"HUB_ENV={HUB_ENV}", "EXCHANGE=/tmp"], check=True, capture_output=True)
    return HUB_ENV


def canvas_roster(path: Path, students: list[tuple[str, str, str]]) -> Path:
    """Canvas's gradebook export with these (sortable name, Canvas id, SIS login id) rows."""
    rows = ["Student,ID,SIS User ID,SIS Login ID,Section"]
    rows += [f'"{name}",{canvas_id},,{login},Section A' for name, canvas_id, login in students]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def remove_accounts(names: list[str]) -> None:
    """Remove these accounts, if grader.hub made them (never another account of the machine).

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
    process: subprocess.Popen
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
                "COURSE_HUB_ENV": str(HUB_ENV), "COURSE_HUB_PORT": str(self.port)}

    def course_command(self, *args: str) -> subprocess.CompletedProcess:
        """``course ARGS`` as root, with this hub's state (e.g. ``hub users``)."""
        return subprocess.run([str(HUB_ENV / "bin" / "course"), *args], env=self.environment(),
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

    def stop(self) -> None:
        """Stop the hub (its servers and proxy outlive it, as a restart needs)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def stop_all(self) -> None:
        """Stop the hub, then its proxy (the servers go with their accounts)."""
        self.stop()
        pid = self.state / "proxy.pid"
        if pid.exists():
            subprocess.run(["kill", pid.read_text().strip()], capture_output=True)

    def restart(self) -> None:
        self.stop()
        self.process = launch(self)
        wait_until_up(self)


def start_hub(root: Path, roster: Path, graders: list[str], instructors: list[str]) -> ClassHub:
    """Copy the course, make the class's accounts and start the hub; return it running."""
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
    exchange = root / "exchange"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)  # nbgrader's rule: everyone writes the exchange's root
    hub = ClassHub(root, course, exchange, root / "state", free_ports(4), None)  # type: ignore[arg-type]
    made = hub.course_command("hub", "users", str(roster), "--home", str(root / "home"),
                              *[f"--grader={g}" for g in graders],
                              *[f"--instructor={i}" for i in instructors])
    assert made.returncode == 0, made.stderr
    for line in (hub.state / "new-passwords.csv").read_text().splitlines():
        name, password = line.split(",")
        hub.passwords[name] = password
    subprocess.run(["chown", "-R", GRADER_ACCOUNT, str(course)], check=True)
    course.chmod(0o700)  # solutions, the gradebook and the secret: the grader account's only
    hub.process = launch(hub)
    wait_until_up(hub)
    return hub


def launch(hub: ClassHub) -> subprocess.Popen:
    with (hub.root / "hub.log").open("a") as log:
        return subprocess.Popen(
            [str(HUB_ENV / "bin" / "jupyterhub"), "-f", str(REPO / "hub" / "jupyterhub_config.py")],
            env=hub.environment(), cwd=hub.root, stdout=log, stderr=subprocess.STDOUT)


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
    raise AssertionError("the hub did not start:\n" + (hub.root / "hub.log").read_text()[-3000:])


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

    def server(self) -> str:
        """This person's server's URL, started and ready."""
        url = f"{self.hub.url}/user/{self.name}"
        deadline = time.monotonic() + SPAWN_TIMEOUT
        while time.monotonic() < deadline:
            response = self.get(f"{url}/lab")
            if response.status_code == 200 and response.url.startswith(f"{url}/lab"):
                return url
            time.sleep(2)
        raise AssertionError(f"{self.name}'s server did not start: {response.url}")


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
        output, deadline = [], time.monotonic() + timeout
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
                return Execution(content["status"], "".join(output))
        raise AssertionError(f"no reply to {code[:60]!r} within {timeout} s")

    def close(self) -> None:
        """Close the channels and shut the kernel down."""
        self.socket.close()
        requests.delete(f"{self.server}/api/kernels/{self.id}", headers=self.headers,
                        timeout=SPAWN_TIMEOUT)
