"""What students receive: ``course bundle`` holds no answer and no secret, and works on its own.

The bundle is built from a copy of the course into which a course secret, a gradebook, a
submission and exports were planted. It must hold none of them, no solution code (the answer
cells of ``solutions/``), no model text of a written answer, no hidden check and of ``grader/``
only what validation imports. Then its zip is extracted and installed the way a student does
(``make`` in the bundle: a fresh venv, the locked requirements, the bundle's own package), and
``course validate`` and ``make lab``'s Validate button run there on a notebook answered with
the second solutions of ``tests/fairness/``. A release older than ``solutions/`` is refused.

Validation runs there as on a laptop without bubblewrap (see the fixture). Cost: the
fresh venv reuses this environment's installed packages through a ``.pth`` line
(only the path is added: the ``.pth`` files of that folder, such as this checkout's own
editable install, are not run), so ``pip install -r requirements.lock`` finds every pin
satisfied and nothing is downloaded (``PIP_NO_INDEX``). A real student's first ``make lab``
downloads the lock instead (a few minutes).
"""

from __future__ import annotations

import ast
import json
import os
import re
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import Execute

from grader.cli import main
from grader.core.api import load_config
from grader.pipeline import validate_dialog
from grader.pipeline.preprocessors import GradingExecute
from grader.pipeline.validate import CourseValidator

REPO = Path(__file__).resolve().parents[1]
SECRET = "c0ffee5ecret" * 4
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises.ipynb"
# mllib is shipped by design (the walk-throughs use it; the rule on libraries forbids it in
# answers, and the similarity report flags answers lifted from it). Where the instructor's
# answer is the library's own line, word for word, the bundle holds it: listed here, so that
# any other leak fails, and so does rewriting this answer without removing it from the list.
IN_THE_LIBRARY = {("solutions/04_vc/vc_exercises.ipynb:sauer", "mllib/vc.py")}
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "exports", "submitted",
                                "autograded", "feedback", "exchange", "gradebook.db")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course with a grading term's state and a secret planted in it."""
    root = tmp_path_factory.mktemp("course")
    for folder in ("solutions", "notebooks", "mllib", "grader"):
        shutil.copytree(REPO / folder, root / folder, ignore=IGNORE)
    for name in ("pyproject.toml", "requirements.lock", "environment.yml", "README.md"):
        shutil.copy2(REPO / name, root / name)
    grader = root / "grader"
    for name in ("course_secret", ".course_secret", "secret.key"):
        (grader / name).write_text(SECRET)
    (grader / "gradebook.db").write_text(f"gradebook {SECRET}")
    (grader / "submitted" / "zq_student_7" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy2(REPO / "solutions" / ASSIGNMENT / NOTEBOOK,
                 grader / "submitted" / "zq_student_7" / ASSIGNMENT / NOTEBOOK)
    (grader / "exports").mkdir()
    (grader / "exports" / "grades.csv").write_text(f"alice,{SECRET}\n")
    return root


@pytest.fixture(scope="module")
def bundled(course: Path) -> Path:
    out = course.parent / "student"
    assert main(["--course-root", str(course), "bundle", "--out", str(out)]) == 0
    return out


def texts(folder: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of every file; a notebook as the joined sources and outputs of its cells."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            if path.suffix == ".ipynb":
                nb = nbformat.reads(text, as_version=4)
                text = "\n".join([c.source for c in nb.cells]
                                 + [str(o) for c in nb.cells for o in c.get("outputs", [])])
            yield str(path.relative_to(folder)), text


def squeeze(text: str) -> str:
    """Lines stripped, blank and comment-only lines dropped: layout does not hide a copy."""
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("#"))


def solution_blocks() -> Iterator[tuple[str, str]]:
    """(where, text) of every answer of solutions/: code between the solution markers, and the
    model text of the written answers."""
    for path in sorted((REPO / "solutions").glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if not cell.metadata.get("nbgrader", {}).get("solution"):
                continue
            found = re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S)
            for block in found or [cell.source]:
                block = squeeze(block)
                if len(block) >= 40:  # `return w` is everywhere, and proves nothing
                    yield f"{path.relative_to(REPO)}:{cell.metadata['nbgrader']['grade_id']}", block


def hidden_checks() -> Iterator[tuple[str, str]]:
    """(where, text) of every function and class of the hidden checkers."""
    for path in sorted((REPO / "mllib" / "grading").glob("*.py")):
        if path.name in ("__init__.py", "wire.py"):
            continue
        text = path.read_text()
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                yield f"{path.name}:{node.name}", squeeze(ast.get_source_segment(text, node))


def test_the_bundle_holds_the_release_and_the_library(bundled: Path) -> None:
    names = {str(p.relative_to(bundled)) for p in bundled.rglob("*") if p.is_file()}
    for expected in ("README.md", "Makefile", "pyproject.toml", "requirements.lock",
                     "environment.yml", "mllib/perceptron.py", "mllib/grading/__init__.py",
                     "mllib/grading/wire.py", "grader/pipeline/validate.py",
                     "grader/nbgrader_config.py",
                     f"notebooks/{ASSIGNMENT}/{NOTEBOOK}",
                     f"notebooks/{ASSIGNMENT}/perceptron_walkthrough.ipynb"):
        assert expected in names
    assert not [n for n in names if n.startswith(("solutions/", "tests/", "grader/submitted"))]
    assert set(zipfile.ZipFile(f"{bundled}.zip").namelist()) >= {f"student/{n}" for n in names}


def grader_imports(path: Path) -> set[str]:
    """The modules of ``grader`` a Python file imports, dotted (``from grader.kernel import
    kernel_guard`` -> ``grader.kernel.kernel_guard``; ``import grader.core.api``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("grader"):
            stage = node.module.count(".") == 1 or node.module == "grader"  # names are modules
            found |= ({f"{node.module}.{a.name}" for a in node.names} if stage else {node.module})
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("grader.")}
    return found


STUDENT_GRADER = {"grader/__init__.py", "grader/nbgrader_config.py", "grader/core/__init__.py",
                  "grader/core/api.py", "grader/kernel/__init__.py",
                  "grader/kernel/kernel_guard.py", "grader/pipeline/__init__.py",
                  "grader/pipeline/validate.py", "grader/pipeline/validate_dialog.py",
                  "grader/jupyter_server_config.d/grader_validate_dialog.json",
                  "grader/jupyter_lab_config.json"}


def test_of_grader_only_what_validation_imports(bundled: Path) -> None:
    """No instructor tool: not the similarity rules and threshold, the submission scan and its
    flags, the report, collect, exports, LMS formats, the sandbox, the secret's code."""
    shipped = {str(p.relative_to(bundled)) for p in (bundled / "grader").rglob("*")
               if p.is_file()}
    assert shipped == STUDENT_GRADER
    instructor = {str(p.relative_to(REPO)) for p in (REPO / "grader").rglob("*.py")
                  if "student" not in p.parts} - STUDENT_GRADER
    assert {"grader/review/similarity.py", "grader/review/flagged.py",
            "grader/pipeline/hostile.py", "grader/review/report.py", "grader/intake/collect.py",
            "grader/handback/export.py", "grader/handback/lms.py", "grader/pipeline/secret.py",
            "grader/kernel/sandbox.py", "grader/cli.py"} <= instructor
    imported = set().union(*(grader_imports(bundled / name) for name in shipped))
    assert imported == {"grader.core.api", "grader.kernel.kernel_guard"}, imported
    # The students' `course` is validation: the course's command would need grader.cli.
    assert 'course = "grader.pipeline.validate:main"' in (bundled / "pyproject.toml").read_text()


def test_the_students_kernel_is_set_up_as_grading_sets_it_up(bundled: Path) -> None:
    """Same time limit, same kernel guard (stderr costs no points, output capped)."""
    student, course = load_config(bundled), load_config(REPO)
    assert student.ExecutePreprocessor.timeout == course.ExecutePreprocessor.timeout
    assert student.Execute.extra_arguments == course.Execute.extra_arguments
    assert "kernel_guard.py" in student.Execute.extra_arguments[0]
    # `course validate` grades' way in the course (sandbox, verdicts outside the kernel), the
    # Validate button's way in the bundle (nbgrader's Execute: no grading code there).
    assert CourseValidator(config=course).preprocessors[-1] is GradingExecute
    assert CourseValidator(config=student).preprocessors[-1] is Execute


def test_no_answer_no_hidden_check_no_secret_inside(bundled: Path) -> None:
    files = [(name, squeeze(text), text) for name, text in texts(bundled)]
    assert not [n for n, _, raw in files if SECRET in raw or "zq_student_7" in raw]
    blocks = list(solution_blocks())
    assert len(blocks) > 50  # every lecture's answers were read
    leaks = [(where, name) for where, block in blocks for name, text, _ in files
             if block in text]
    assert set(leaks) == IN_THE_LIBRARY
    checks = list(hidden_checks())
    assert len(checks) > 30
    assert [(where, name) for where, check in checks for name, text, _ in files
            if check in text] == []
    assert not list((bundled / "mllib" / "grading").glob("perceptron.py"))


@dataclass(frozen=True)
class Installed:
    """The bundle extracted from its zip and set up as ``make`` does, its notebook answered."""

    folder: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def installed(bundled: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """``make``'s set-up in a fresh venv, in the bundle as extracted from its zip."""
    where = tmp_path_factory.mktemp("extracted")
    shutil.unpack_archive(f"{bundled}.zip", where)
    folder = where / bundled.name
    # Without its own pip and setuptools, which would shadow the locked ones.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / ".venv")],
                   check=True)
    site = next((folder / ".venv" / "lib").glob("python*/site-packages"))
    (site / "course_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # As on a laptop without bubblewrap (macOS, say): a bwrap that cannot make a sandbox.
    # Validation needs none (it runs nbgrader's own Execute, as the Validate button does).
    fake = where / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PATH": f"{fake}:{os.environ['PATH']}"}
    env.pop("JUPYTER_CONFIG_PATH", None)
    env.pop("JUPYTER_PATH", None)
    subprocess.run(["make", "-C", str(folder), ".venv/.installed"], check=True, env=env)
    # pip found every pin satisfied behind the .pth, so it wrote none of their commands into
    # .venv/bin, no server extension's switch into .venv/etc (nbgrader's Validate handler among
    # them) and no templates into .venv/share: `make lab` needs them, as pip writes them.
    for shared in ("etc/jupyter", "share/jupyter/nbconvert"):  # and nbconvert's templates
        shutil.copytree(Path(sys.prefix) / shared, folder / ".venv" / shared)
    for name, (module, function) in {"jupyter": ("jupyter_core.command", "main"),
                                     "jupyter-lab": ("jupyterlab.labapp", "main")}.items():
        script = folder / ".venv" / "bin" / name
        script.write_text(f"#!{folder / '.venv' / 'bin' / 'python'}\nimport sys\n"
                          f"from {module} import {function}\nsys.exit({function}())\n")
        script.chmod(0o755)

    answers = runpy.run_path(str(REPO / "tests" / "fairness" / f"{ASSIGNMENT}.py"))["ANSWERS"]
    notebook = folder / "notebooks" / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = answers.get(meta["grade_id"], "The runs differ by a factor eta.")
    nbformat.write(nb, notebook)
    return Installed(folder, env)


def test_the_bundle_imports_its_own_code_and_no_hidden_check(installed: Installed) -> None:
    probe = ("import importlib.util as u, mllib, grader; print(mllib.__file__, grader.__file__, "
             "u.find_spec('mllib.grading.perceptron'), u.find_spec('grader.review'), "
             "u.find_spec('grader.pipeline.secret'))")
    where = subprocess.run([installed.folder / ".venv" / "bin" / "python", "-c", probe],
                           capture_output=True, text=True, check=True,
                           cwd=installed.folder.parent, env=installed.env).stdout.split()
    assert where[0].startswith(str(installed.folder))
    assert where[1].startswith(str(installed.folder))
    assert where[2:] == ["None"] * 3  # neither the hidden checks nor the instructor's tools


def test_course_validate_runs_the_visible_tests_and_says_so(installed: Installed) -> None:
    run = subprocess.run(["make", "-C", str(installed.folder), "validate",
                          f"NB=notebooks/{ASSIGNMENT}/{NOTEBOOK}"],
                         capture_output=True, text=True, env=installed.env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS update_rule" in run.stdout and "ANSWERED eta_answer" in run.stdout
    assert f"PASSED notebooks/{ASSIGNMENT}/{NOTEBOOK}" in run.stdout
    # Only the visible tests ran: no claim of passing "all the tests".
    assert "passes the visible tests; hidden tests run at grading" in run.stdout
    assert "all the tests" not in run.stdout


def test_make_lab_serves_the_validate_button(installed: Installed) -> None:
    """``make lab`` starts JupyterLab in the bundle, and the Validate button's request (what
    nbgrader's lab extension posts) runs the notebook with the bundle's own configuration; the
    course's stylesheet, which rewrites the dialog's sentence on a pass, is served from the
    bundle's own code."""
    port, token = free_port(), "bundle-test-token"
    env = {**installed.env, "JUPYTER_PORT": str(port), "JUPYTER_TOKEN": token,
           "BROWSER": "true"}  # no browser window: `true URL` opens nothing
    lab = subprocess.Popen(["make", "-C", str(installed.folder), "lab"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(f"{base}/api/status?token={token}", lab)
        path = f"notebooks/{ASSIGNMENT}/{NOTEBOOK}"
        request = urllib.request.Request(
            f"{base}/assignments/validate", data=urllib.parse.urlencode({"path": path}).encode(),
            headers={"Authorization": f"token {token}"}, method="POST")
        with urllib.request.urlopen(request, timeout=240) as response:
            reply = json.loads(response.read())
        # The Validate dialog's sentence (grader/pipeline/validate_dialog.py) is served there.
        with urllib.request.urlopen(f"{base}/custom/custom.css", timeout=30) as response:
            stylesheet = response.read().decode()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        log = lab.communicate(timeout=60)[1]
    assert reply == {"success": True, "value": {}}, (reply, log[-3000:])
    assert f'content: "{validate_dialog.SUCCESS}"' in stylesheet, (stylesheet, log[-3000:])
    assert "Traceback" not in log, log[-3000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, "make lab exited"
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"JupyterLab did not answer at {url} within {seconds} s")


def test_a_stale_release_is_refused(course: Path, tmp_path: Path) -> None:
    """A solution edited without `course release`: the bundle names the notebook and the
    command, and writes nothing."""
    root = tmp_path / "course"
    shutil.copytree(course, root)
    source = root / "solutions" / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(source, as_version=4)
    nb.cells[1].source += "\n\nOne more sentence of the statement."
    nbformat.write(nb, source)
    out = tmp_path / "student"
    with pytest.raises(SystemExit, match=rf"notebooks/{ASSIGNMENT}/{NOTEBOOK}.*"
                                         rf"`course release {ASSIGNMENT}`"):
        main(["--course-root", str(root), "bundle", "--out", str(out)])
    assert not out.exists()


def test_a_folder_that_is_no_course_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not a course folder"):
        main(["--course-root", str(tmp_path), "bundle"])
