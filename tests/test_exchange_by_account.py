"""nbgrader's exchange on Kubernetes, where every student's server is the same account (issue 38,
item 5): each submission is its account folder's, each student sees only their own.

Kubernetes does not run here. The exchange volume is a folder of the test, laid out as the
formgrader's pod sees it (it mounts the whole volume). A student's pod is stood in for by a
process in a mount namespace of its own (``unshare --mount``) in which **bind mounts** stand in
for the pod's subPath mounts: the very mounts of hub/k8s/values.yaml, read from it, with
``{unescaped_username}`` expanded as KubeSpawner expands it (the hub user's name as it is), at
their mountPath under an exchange root of mode 1777 as the image makes it (hub/k8s/Dockerfile),
read-only where the values say so; the process runs as uid 1000, the image's ``jovyan``, in
the environment the image has (the lock's, ``make hub-env``). In a pod nbgrader takes the
student's id from ``JUPYTERHUB_USER`` because the account is named ``jovyan``
(nbgrader.utils.get_username); uid 1000 has another name here, so each student command passes
the same id with ``--student``. The grader's commands run as this test (root), which the
account-folder rule does not depend on: it reads no owner.

Two students: Ada answers right, Bo wrong. Ada also submits a right answer under Bo's id (it
lands in her own folder), and Bo leaves a right answer cut short (no submission secret), newer
than his whole one: either, if collected, would give Bo full marks.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest
import yaml
from authoring_support import ASSIGNMENT, NAME, NOTEBOOK, RIGHT, WRONG, scores, trial_course
from hub_support import build_hub_env, canvas_roster

from grader.cli import main
from grader.hub.exchange import refusal
from grader.kernel.sandbox import unavailable_reason

REPO = Path(__file__).resolve().parents[1]
VALUES = REPO / "hub" / "k8s" / "values.yaml"
VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin"
POD_UID = 1000  # the image's jovyan (hub/k8s/Dockerfile, the chart's singleuser.uid)
COURSE = "ml-course"
ADA, BO = "mlc-ada", "mlc.bo"  # a dot: KubeSpawner's {username} slug would not keep it
ROSTER = [("Lovelace, Ada", "2001", ADA), ("Bo, Bo", "2002", f"{BO}@uni.edu")]  # Canvas's rows

needs_root_and_sandbox = pytest.mark.skipif(
    os.geteuid() != 0 or bool(unavailable_reason()),
    reason="bind mounts in a mount namespace need root; autograde needs the sandbox: "
           f"{unavailable_reason()}")


@dataclass(frozen=True)
class Pod:
    """One student's server: their home, and the exchange as their pod mounts it."""

    student: str
    env: Path  # the students' Python environment: the lock, as in the image (make hub-env)
    home: Path
    exchange: str  # COURSE_EXCHANGE of the pod (values.yaml's singleuser.extraEnv)
    mounts: tuple[tuple[Path, str, bool], ...]  # (volume folder, mountPath, read-only)

    def run(self, command: str) -> subprocess.CompletedProcess:
        """A shell command in this pod's view of the exchange, as uid 1000."""
        binds = [f"mkdir -p {shlex.quote(target)}"
                 f" && mount --bind {shlex.quote(str(source))} {shlex.quote(target)}"
                 + (f" && mount -o remount,bind,ro {shlex.quote(target)}" if read_only else "")
                 for source, target, read_only in self.mounts]
        inside = " && ".join([*binds, f"cd {shlex.quote(str(self.home))}",
                              f"exec setpriv --reuid={POD_UID} --regid={POD_UID} "
                              f"--clear-groups sh -c {shlex.quote(command)}"])
        env = {"PATH": f"{self.env / 'bin'}:/usr/bin:/bin", "HOME": str(self.home),
               "COURSE_EXCHANGE": self.exchange, "JUPYTERHUB_USER": self.student,
               "JUPYTER_CONFIG_PATH": str(REPO / "hub" / "student")}
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                               inside], env=env, capture_output=True, text=True, timeout=300)

    def volume_folder(self, part: str) -> Path:
        """The folder of the volume this pod mounts as its exchange's ``<course>/<part>``."""
        (folder,) = [source for source, target, _ in self.mounts
                     if target == f"{self.exchange}/{COURSE}/{part}"]
        return folder

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        """An nbgrader command of this student, which must succeed."""
        done = self.run(shlex.join(["nbgrader", *args, f"--student={self.student}"]))
        assert done.returncode == 0, done.stdout + done.stderr
        return done


def student_mounts(student: str, volume: Path) -> tuple[tuple[Path, str, bool], ...]:
    """hub/k8s/values.yaml's exchange mounts of one student's pod, expanded as KubeSpawner does
    (``{unescaped_username}``: the hub user's name; kubespawner/spawner.py,
    ``_expand_user_properties``), each as (folder of the volume, mountPath, read-only)."""
    storage = yaml.safe_load(VALUES.read_text())["singleuser"]["storage"]
    return tuple((volume / m["subPath"].format(unescaped_username=student), m["mountPath"],
                  m.get("readOnly", False))
                 for m in storage["extraVolumeMounts"] if m["name"] == "nbgrader-exchange")


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Path]:
    """A folder uid 1000 can reach (pytest's tmp_path is root's alone)."""
    root = Path(tempfile.mkdtemp(prefix="exchange-by-account-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root)


def make_pod(shared: Path, volume: Path, student: str) -> Pod:
    """A student's home and pod view, once ``course hub folders`` has made the student's
    folders of the exchange (as the README says they must be, before a first server)."""
    home = shared / "home" / student
    home.mkdir(parents=True)
    exchange = shared / "pod-root" / "exchange"  # the image's folder, mode 1777
    exchange.mkdir(parents=True, exist_ok=True)
    exchange.chmod(0o1777)
    os.chown(home, POD_UID, POD_UID)
    mounts = student_mounts(student, volume)
    for folder, _, read_only in mounts:
        assert folder.is_dir(), folder
        if not read_only:  # on the cluster, the one uid of pods and formgrader owns them all
            os.chown(folder, POD_UID, POD_UID)
    # the values' mountPaths are the pod's; here they hang under this test's exchange root
    pod_root = str(yaml.safe_load(VALUES.read_text())["singleuser"]["extraEnv"]
                   ["COURSE_EXCHANGE"])
    return Pod(student, build_hub_env(), home, str(exchange),
               tuple((folder, str(exchange) + target.removeprefix(pod_root), read_only)
                     for folder, target, read_only in mounts))


def grader(course: Path, volume: Path, *args: str) -> subprocess.CompletedProcess:
    """A grader's command on the formgrader's side: the whole volume, account folders on."""
    env = {**os.environ, "COURSE_EXCHANGE": str(volume), "JUPYTER_CONFIG_PATH":
           str(course / "grader"), "COURSE_EXCHANGE_IDENTITY": "account-folder"}
    done = subprocess.run([str(VENV_BIN / args[0]), *args[1:]], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def answer(pod: Pod, source: str) -> None:
    """The student types ``source`` as the answer of their fetched notebook."""
    path = pod.home / COURSE / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == NAME)
    cell.source = source
    nbformat.write(nb, path)


def cut_short(pod: Pod, source: str) -> str:
    """A submit of ``source`` stopped after copying the notebook: no timestamp, no secret."""
    answer(pod, source)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    name = f"{pod.student}+{ASSIGNMENT}+{stamp}+cut"
    inbound = f"{pod.exchange}/{COURSE}/inbound/{name}"
    done = pod.run(f"mkdir {shlex.quote(inbound)} && cp {COURSE}/{ASSIGNMENT}/{NOTEBOOK} "
                   f"{shlex.quote(inbound)}")
    assert done.returncode == 0, done.stderr
    return name


def listing(pod: Pod, part: str) -> list[str]:
    """What the student's pod lists in its exchange's ``<course>/<part>``."""
    done = pod.run(f"ls -A {shlex.quote(f'{pod.exchange}/{COURSE}/{part}')}")
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[:-1]


@needs_root_and_sandbox
def test_each_student_submits_is_graded_and_fetches_feedback_alone(
        copy_course: Callable[..., Path], shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    course = trial_course(copy_course)
    assert main(["--course-root", str(course), "release", ASSIGNMENT]) == 0
    volume = shared / "volume"  # the NFS export, as the formgrader mounts it
    volume.mkdir(mode=0o1777)
    volume.chmod(0o1777)
    grader(course, volume, "nbgrader", "release_assignment", ASSIGNMENT)
    monkeypatch.setenv("COURSE_EXCHANGE", str(volume))
    assert main(["--course-root", str(course), "hub", "folders",
                 str(canvas_roster(shared / "roster.csv", ROSTER))]) == 0
    ada, bo = (make_pod(shared, volume, student) for student in (ADA, BO))

    for pod, source in ((ada, RIGHT), (bo, WRONG)):
        pod.nbgrader("fetch_assignment", ASSIGNMENT)
        answer(pod, source)
        pod.nbgrader("submit", ASSIGNMENT)
    answer(ada, RIGHT)  # Ada, as Bo, in her own folder (the only inbound she has)
    forged = ada.run(shlex.join(["nbgrader", "submit", ASSIGNMENT, f"--student={BO}"]))
    assert forged.returncode == 0, forged.stderr
    cut = cut_short(bo, RIGHT)

    collected = grader(course, volume, "nbgrader", "collect", ASSIGNMENT).stderr
    assert f"Refused {BO}+{ASSIGNMENT}+" in collected
    assert f"but was written by {ADA!r}" in collected
    assert f"Refused {cut}: it is incomplete" in collected
    assert main(["--course-root", str(course), "autograde", ASSIGNMENT]) == 0
    # (visible test, hidden test) points: the right answer earns both, the wrong the visible one
    assert scores(course / "grader" / "gradebook.db") == {ADA: (1.0, 2.0), BO: (1.0, 0.0)}

    assert main(["--course-root", str(course), "feedback", ASSIGNMENT]) == 0
    grader(course, volume, "nbgrader", "release_feedback", ASSIGNMENT)
    assert not (volume / COURSE / "feedback").exists()  # no folder shared by everyone
    for pod in (ada, bo):
        released = list(pod.volume_folder("feedback").iterdir())
        own = (course / "grader" / "feedback" / pod.student / ASSIGNMENT
               / NOTEBOOK.replace(".ipynb", ".html")).read_bytes()
        assert [path.read_bytes() for path in released] == [own]
        pod.nbgrader("fetch_feedback", ASSIGNMENT)
        fetched = list((pod.home / COURSE / ASSIGNMENT / "feedback").glob("*/*.html"))
        assert [path.read_bytes() for path in fetched] == [own]

    # Each view holds the student's own folders only, and what is read-only stays so.
    for pod, other in ((ada, bo), (bo, ada)):
        assert all(other.student not in name for name in listing(pod, "inbound")
                   if not name.startswith(".refused-"))
        assert listing(pod, "feedback") == [p.name for p in
                                            pod.volume_folder("feedback").iterdir()]
        listed = pod.run(shlex.join(["nbgrader", "list", "--inbound", "--student=*"]))
        assert pod.student in listed.stderr and other.student not in listed.stderr
        for part in ("feedback", "outbound"):
            tried = pod.run(f"touch {shlex.quote(f'{pod.exchange}/{COURSE}/{part}/x')}")
            assert "Read-only file system" in tried.stderr, part
    assert sorted(listing(ada, "")) == ["feedback", "inbound", "outbound"]


def link_inside(folder: Path) -> Path:
    (folder / "notes.ipynb").symlink_to("/etc/passwd")
    return folder


def link_instead(folder: Path) -> Path:
    link = folder.with_name(folder.name + "0")
    link.symlink_to(folder)
    return link


def misnamed(folder: Path) -> Path:
    return folder.rename(folder.with_name(f"{ADA}+{ASSIGNMENT}+last tuesday+x"))


@pytest.mark.parametrize("make, expected", [
    (link_inside, "it holds a link, 'notes.ipynb'"),
    (link_instead, "it is not a folder"),
    (misnamed, "its name is not nbgrader's"),
])
def test_a_submission_that_is_or_holds_a_link_or_is_misnamed_is_refused(
        tmp_path: Path, make: Callable[[Path], Path], expected: str) -> None:
    """nbgrader's collect copies what a link points to (shutil.copytree): a link to the
    course's secret would be copied into the submission as the grader reads it. A time that
    does not parse stops nbgrader's collect for everyone (nbgrader.utils.parse_utc)."""
    folder = tmp_path / "inbound-by-account" / ADA / f"{ADA}+{ASSIGNMENT}+2026-11-28 10:00:00 UTC+x"
    folder.mkdir(parents=True)
    (folder / "submission_secret.txt").write_text("0" * 128)
    assert refusal(folder, ADA) == ""  # whole, and in its writer's folder
    assert "but was written by 'mlc.bo'" in refusal(folder, BO)
    assert expected in refusal(make(folder), ADA)


def test_hub_folders_makes_each_students_two_folders_once(
        copy_course: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    course = copy_course()
    monkeypatch.setenv("COURSE_EXCHANGE", str(tmp_path / "exchange"))
    command = ["--course-root", str(course), "hub", "folders",
               str(canvas_roster(tmp_path / "roster.csv", ROSTER))]
    assert main(command) == 0
    assert capsys.readouterr().out.endswith(f"made now: {ADA}, {BO}\n")
    made = sorted(p.relative_to(tmp_path / "exchange" / COURSE).as_posix()
                  for p in (tmp_path / "exchange" / COURSE).glob("*/*"))
    assert made == [f"{kind}/{student}" for kind in ("feedback-by-account", "inbound-by-account")
                    for student in (ADA, BO)]
    assert main(command) == 0
    assert capsys.readouterr().out.endswith("made now: none\n")
    bad = canvas_roster(tmp_path / "bad.csv", [*ROSTER, ("Dots, Dan", "2003", "../dan")])
    with pytest.raises(SystemExit, match="'../dan' is not a safe account name"):
        main([*command[:-1], str(bad)])
