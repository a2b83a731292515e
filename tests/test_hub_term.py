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
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
from coursesite.pages import ClassHub as SiteHub
from hub_support import (
    ClassHub,
    HubSession,
    build_hub_env,
    canvas_roster,
    close_hub,
    free_ports,
    remove_accounts,
    require_root,
    start_hub,
)
from test_notebooks import STUB

REPO = Path(__file__).resolve().parents[1]
STUDENTS = [("Term, Ada", "4001", "trm-ada"), ("Term, Bo", "4002", "trm-bo")]
ADA, BO = "trm-ada", "trm-bo"
ACCOUNTS = [ADA, BO]  # names no other hub test uses: its hub may run beside this one
LECTURE = "notebooks/01_perceptron/perceptron_exercises"
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

