"""A term on the class hub (issue 38): lecture material by link.

One hub of the tests' own (tests/hub_support.py's start_hub), with students whose account names
no other hub test uses, so it may run beside them. The student release is a git repository of
the test's own, served on loopback by ``git daemon`` as a remote host would serve it; each
student reaches it through the link the course site puts on the lecture page
(coursesite.pages.ClassHub), which nbgitpuller follows in the student's own server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
from coursesite.pages import ClassHub as SiteHub
from hub_support import (
    SPAWN_TIMEOUT,
    ClassHub,
    Execution,
    HubSession,
    Kernel,
    api_token,
    build_hub_env,
    canvas_roster,
    close_hub,
    free_ports,
    remove_accounts,
    require_root,
    start_hub,
)
from test_notebooks import STUB

from grader.hub.shares import Share, account_groups, cgroup_version, joining, make_groups

REPO = Path(__file__).resolve().parents[1]
STUDENTS = [("Term, Ada", "4001", "trm-ada"), ("Term, Bo", "4002", "trm-bo")]
ADA, BO = "trm-ada", "trm-bo"
ACCOUNTS = [ADA, BO]  # names no other hub test uses: its hub may run beside this one
LECTURE = "notebooks/01_perceptron/perceptron_exercises"
# Each server's share on the tests' hub: room for JupyterLab and a kernel, and a tenth of a
# core, so that a spinning kernel is visibly held back even on a machine so busy that it would
# get little more unlimited (8 engineers on 2 cores gave an unlimited spinner 0.2 of a core).
HUB_SHARE = Share(memory=600 * 2**20, cpus=0.1)
GIT = ["git", "-c", "user.name=instructor", "-c", "user.email=instructor@example.edu"]


def commit(release: Path, message: str) -> None:
    subprocess.run([*GIT, "-C", str(release), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(release), "commit", "-qm", message], check=True)


@pytest.fixture(scope="module")
def release() -> Iterator[tuple[Path, str]]:
    """The student release in a git repository (as ``course bundle`` writes it: the release
    notebooks under ``notebooks/``), and its ``git://`` URL on loopback."""
    root = Path(tempfile.mkdtemp(prefix="term-release-"))
    repository = root / "student"
    notebook = repository / f"{LECTURE}.ipynb"
    notebook.parent.mkdir(parents=True)
    shutil.copy2(REPO / f"{LECTURE}.ipynb", notebook)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repository)], check=True)
    commit(repository, "the release of lecture 01")
    port = free_ports(1)
    daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--listen=127.0.0.1",
                               f"--port={port}", f"--base-path={root}", "--export-all",
                               str(root)], stderr=subprocess.DEVNULL)
    try:
        yield repository, f"git://127.0.0.1:{port}/student"
    finally:
        daemon.terminate()
        daemon.wait(10)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def term_hub() -> Iterator[ClassHub]:
    require_root()
    build_hub_env()
    remove_accounts(ACCOUNTS)  # left by an interrupted run; no one else's
    root = Path(tempfile.mkdtemp(prefix="term-hub-"))  # every account may enter it
    with pytest.MonkeyPatch.context() as env:  # the hub's, also when a test restarts it
        env.setenv("COURSE_HUB_MEMORY", f"{HUB_SHARE.memory // 2**20}M")  # JupyterHub's units
        env.setenv("COURSE_HUB_CPUS", str(HUB_SHARE.cpus))
        hub = start_hub(root, canvas_roster(root / "roster.csv", STUDENTS), [], [])
        try:
            yield hub
        finally:
            close_hub(hub, ACCOUNTS, "term-hub.log")


@pytest.fixture(scope="module")
def students(term_hub: ClassHub) -> dict[str, HubSession]:
    people = {name: HubSession(term_hub, name) for name in ACCOUNTS}
    for session in people.values():
        assert session.log_in().status_code == 200
    return people


def click(session: HubSession, link: str) -> dict:
    """What a student's browser does with the lecture page's link: the hub starts the
    student's own server if need be and sends the browser to its nbgitpuller page, whose
    script calls nbgitpuller's API with the same query and follows its progress events; the
    last event."""
    page = session.get(link)
    server = f"{session.hub.url}/user/{session.name}"
    if page.url.startswith(f"{session.hub.url}/hub/spawn-pending/"):  # the link started it
        session.server()  # what the pending page waits for, then it goes on to "next"
        page = session.get(session.hub.url + parse_qs(urlsplit(page.url).query)["next"][0])
    assert page.status_code == 200 and page.url.startswith(f"{server}/git-pull?"), page.url
    query = {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items() if k != "urlpath"}
    events = session.get(f"{server}/git-pull/api", params=query, stream=True)
    last = {}
    for line in events.iter_lines(decode_unicode=True):
        if line.startswith("data: "):
            last = json.loads(line.removeprefix("data: "))
    return last


def contents(session: HubSession, path: str) -> str:
    return f"{session.hub.url}/user/{session.name}/api/contents/{path}"


def test_a_lecture_link_brings_the_release_and_a_new_cell_without_losing_an_edit(
        release: tuple[Path, str], students: dict[str, HubSession]) -> None:
    """Ada pulls lecture 01, writes in an exercise cell and saves (JupyterLab's own save, the
    contents API); the instructor adds a cell to the release; Ada's next click brings the new
    cell and keeps her answer (nbgitpuller commits her edits, then merges with -Xours)."""
    repository, url = release
    ada = students[ADA]
    link = SiteHub(ada.hub.url, url).link(LECTURE)
    assert click(ada, link)["phase"] == "finished"
    notebook = f"lectures/{LECTURE}.ipynb"
    saved = ada.get(contents(ada, notebook)).json()
    assert saved["writable"]
    cells = saved["content"]["cells"]
    stub = next(i for i, cell in enumerate(cells) if "YOUR CODE HERE" in cell["source"])
    answer = cells[stub]["source"].replace(STUB, "return w + eta * y * x")
    assert answer != cells[stub]["source"]
    cells[stub]["source"] = answer
    put = ada.put(contents(ada, notebook), json={"type": "notebook", "format": "json",
                                                 "content": saved["content"]})
    assert put.status_code == 200, put.text

    changed = nbformat.read(repository / f"{LECTURE}.ipynb", as_version=4)
    added = nbformat.v4.new_markdown_cell("**Added after the lecture.** A hint for exercise 5.")
    changed.cells.append(added)
    nbformat.write(changed, repository / f"{LECTURE}.ipynb")
    commit(repository, "lecture 01: a hint for exercise 5")

    assert click(ada, link)["phase"] == "finished"
    merged = ada.get(contents(ada, notebook)).json()["content"]
    nbformat.validate(nbformat.from_dict(merged))
    assert merged["cells"][stub]["source"] == answer  # her edit survives
    assert merged["cells"][-1]["source"] == added.source  # the new cell arrives
    assert len(merged["cells"]) == len(cells) + 1


def test_a_students_pull_is_theirs_alone(release: tuple[Path, str],
                                         students: dict[str, HubSession]) -> None:
    """Bo's click pulls into Bo's home, as Bo: the release as it is now, Ada's answer nowhere."""
    _, url = release
    bo = students[BO]
    assert click(bo, SiteHub(bo.hub.url, url).link(LECTURE))["phase"] == "finished"
    pulled = bo.hub.root / "home" / BO / "lectures" / f"{LECTURE}.ipynb"
    assert pulled.owner() == BO
    assert "return w + eta * y * x" not in pulled.read_text()


# -- fair shares -----------------------------------------------------------------------------

SHARE = Share(memory=100 * 2**20, cpus=0.5)
RUNAWAY = "chunks = []\nwhile True:\n    chunks.append(b'x' * 2**25)  # 32 MiB, every page written"


@pytest.mark.parametrize(("layout", "version"), [
    ({"cgroup.controllers": "cpuset cpu io memory pids"}, 2),
    ({"cgroup.controllers": "cpuset io pids"}, None),  # v2 without the memory controller
    ({"memory/cgroup.procs": "", "cpu/cgroup.procs": ""}, 1),
    ({"memory/cgroup.procs": ""}, None), ({}, None)])
def test_the_share_uses_the_cgroups_the_machine_offers(tmp_path: Path, layout: dict,
                                                       version: int | None) -> None:
    for name, text in layout.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cgroup_version(tmp_path) == version


@pytest.mark.parametrize(("version", "limits"), [
    (2, {"ml-course-hub/trm-x/memory.max": "104857600",
         "ml-course-hub/trm-x/cpu.max": "50000 100000"}),
    (1, {"memory/ml-course-hub/trm-x/memory.limit_in_bytes": "104857600",
         "cpu/ml-course-hub/trm-x/cpu.cfs_quota_us": "50000",
         "cpu/ml-course-hub/trm-x/cpu.cfs_period_us": "100000"})])
def test_a_servers_groups_hold_its_share(tmp_path: Path, version: int, limits: dict) -> None:
    groups = make_groups("trm-x", SHARE, version, tmp_path)
    assert {name: (tmp_path / name).read_text() for name in limits} == limits
    assert all(procs.parent.is_dir() for procs in groups.procs)


def test_without_cgroups_an_allocation_past_the_share_fails_in_its_own_process() -> None:
    """The fallback (RLIMIT_AS): the runaway loop gets MemoryError, nothing is killed."""
    code = (f"try:\n{textwrap.indent(RUNAWAY, '    ')}\nexcept MemoryError:\n"
            "    print('MemoryError at', len(chunks) * 32, 'MiB')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, preexec_fn=joining(None, SHARE, lambda: None))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("MemoryError at")
    assert int(run.stdout.split()[2]) < SHARE.memory / 2**20  # MiB: stopped inside the share


def oom_kills(account: str) -> int:
    """How many processes the kernel killed in the account's memory group."""
    version = cgroup_version()
    folder = account_groups(account, version).folders[0]
    events = folder / ("memory.events" if version == 2 else "memory.oom_control")
    return int(dict(line.split() for line in events.read_text().splitlines())["oom_kill"])


@pytest.fixture(scope="module")
def kernels(students: dict[str, HubSession]) -> Iterator[dict[str, Kernel]]:
    """A kernel in each student's server (started if need be), driven with their own token."""
    running = {name: Kernel(session.server(), api_token(session))
               for name, session in students.items()}
    try:
        yield running
    finally:
        for kernel in running.values():
            kernel.close()


def test_a_runaway_notebook_is_stopped_and_its_neighbour_keeps_working(
        students: dict[str, HubSession], kernels: dict[str, Kernel]) -> None:
    """Ada's kernel allocates without bound; the kernel that goes is hers (killed in her
    server's group, or MemoryError without cgroups), while her server and Bo's kernel,
    with what it held, carry on."""
    assert kernels[BO].run("kept = 41").status == "ok"
    killed_before = oom_kills(ADA) if cgroup_version() else 0
    runaway = kernels[ADA].run(RUNAWAY, timeout=300)
    if cgroup_version():
        assert runaway.status == "died", runaway
        assert oom_kills(ADA) > killed_before and oom_kills(BO) == 0
    else:
        assert runaway.status == "error" and "MemoryError" in runaway.output, runaway
    assert kernels[BO].run("print(kept + 1)") == Execution("ok", "42\n")
    ada = students[ADA]
    assert ada.get(f"{ada.hub.url}/user/{ADA}/api/status").status_code == 200


SPIN = """import multiprocessing, os, time

def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass

wall, before = time.monotonic(), os.times()
spinners = [multiprocessing.Process(target=spin, args=(3,)) for _ in range(2 * os.cpu_count())]
for process in spinners:
    process.start()
for process in spinners:
    process.join()
after = os.times()
used = after.children_user + after.children_system - before.children_user - before.children_system
print(used / (time.monotonic() - wall))"""


def throttled_periods(account: str) -> int:
    """How many of the scheduler's periods the account's CPU group was held back in."""
    stat = account_groups(account, cgroup_version()).folders[-1] / "cpu.stat"
    return int(dict(line.split() for line in stat.read_text().splitlines())["nr_throttled"])


def test_a_notebook_that_spins_every_core_is_throttled_to_its_share(
        students: dict[str, HubSession]) -> None:
    """Bo's kernel spins two processes per core for 3 s: together they get at most his tenth
    of a core (the CPU they used over the wall-clock time; 0.1 of slack for the scheduler's
    100 ms periods), where unlimited they would take every core the machine spares, and his
    group says it was held back. Without cgroups the hub does not limit CPU (README)."""
    if not cgroup_version():
        pytest.skip("no cgroups to write on this machine: the hub does not limit CPU here")
    before = throttled_periods(BO)
    kernel = Kernel(students[BO].server(), api_token(students[BO]))
    try:
        spin = kernel.run(SPIN)
    finally:
        kernel.close()
    assert spin.status == "ok", spin
    assert float(spin.output) <= HUB_SHARE.cpus + 0.1
    assert throttled_periods(BO) > before


def test_an_idle_server_is_stopped_and_its_files_stay(
        term_hub: ClassHub, students: dict[str, HubSession],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub restarted with a 15 s idle timeout (the culler service's --timeout): Bo's
    server, untouched since the tests above, is stopped within a minute; his files stay."""
    bo = students[BO]
    assert bo.get(f"{term_hub.url}/hub/api/user").json()["servers"]  # running now
    monkeypatch.setenv("COURSE_HUB_IDLE", "15")
    term_hub.restart()
    deadline = time.monotonic() + 90
    while bo.get(f"{term_hub.url}/hub/api/user").json()["servers"]:
        assert time.monotonic() < deadline, "Bo's idle server was not stopped"
        time.sleep(3)
    assert not subprocess.run(["pgrep", "-u", BO, "-f", "jupyterhub-singleuser"],
                              capture_output=True).stdout
    assert (term_hub.root / "home" / BO / "lectures" / f"{LECTURE}.ipynb").exists()


def test_past_the_start_limit_a_student_is_told_to_wait_then_served(
        term_hub: ClassHub, students: dict[str, HubSession],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub restarted to start one server at a time (``COURSE_HUB_STARTS=1``), Ada and Bo
    log in at the same moment: one of them is told to try again later (429, with how long in
    Retry-After: 30-60 s), and both then have a JupyterLab, the second after pressing the
    hub's Launch button once the wait is over (README, "How many students one machine
    holds": without a limit, starts that share the cores all outlive the timeout together)."""
    for session in students.values():  # none running, whichever tests ran before
        session.http.delete(f"{term_hub.url}/hub/api/users/{session.name}/server",
                            headers={"Authorization": f"token {api_token(session)}"},
                            timeout=SPAWN_TIMEOUT)
    deadline = time.monotonic() + SPAWN_TIMEOUT
    while any(s.get(f"{term_hub.url}/hub/api/user").json()["servers"]
              for s in students.values()):
        assert time.monotonic() < deadline, "a server did not stop"
        time.sleep(2)
    monkeypatch.setenv("COURSE_HUB_STARTS", "1")
    term_hub.restart()
    people = [HubSession(term_hub, name) for name in ACCOUNTS]
    with ThreadPoolExecutor(len(people)) as together:
        logins = list(together.map(HubSession.log_in, people))
    refused = [r for r in logins if r.status_code == 429]
    assert len(refused) == 1, [r.status_code for r in logins]
    assert "Too many users trying to log in right now" in refused[0].text
    assert 30 <= int(refused[0].headers["Retry-After"]) <= 60
    with ThreadPoolExecutor(len(people)) as together:
        servers = list(together.map(HubSession.server, people))
    assert servers == [f"{term_hub.url}/user/{p.name}" for p in people]
