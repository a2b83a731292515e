"""What students receive: ``course bundle`` holds no answer and no secret, and works on its own.

The bundle is built from a copy of the course into which a course secret, a gradebook, a
submission and exports were planted. It must hold none of them, no solution code (the answer
cells of ``solutions/``), no model text of a written answer and no hidden check. Then it is
installed the way a student does (``make`` in the bundle: a fresh venv, the locked
requirements, the bundle's own package) and ``course validate`` runs there on a notebook
answered with the second solutions of ``tests/fairness/``.

``course validate`` runs there as on a laptop without bubblewrap (see the test). Cost: the
fresh venv reuses this environment's installed packages through a ``.pth`` line
(only the path is added: the ``.pth`` files of that folder, such as this checkout's own
editable install, are not run), so ``pip install -r requirements.lock`` finds every pin
satisfied and nothing is downloaded (``PIP_NO_INDEX``). A real student's first ``make lab``
downloads the lock instead (a few minutes).
"""

from __future__ import annotations

import ast
import os
import re
import runpy
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from grader.cli import main

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
                     "mllib/grading/wire.py", "grader/cli.py", "grader/nbgrader_config.py",
                     f"notebooks/{ASSIGNMENT}/{NOTEBOOK}",
                     f"notebooks/{ASSIGNMENT}/perceptron_walkthrough.ipynb"):
        assert expected in names
    assert not [n for n in names if n.startswith(("solutions/", "tests/", "grader/submitted"))]
    assert set(zipfile.ZipFile(f"{bundled}.zip").namelist()) >= {f"student/{n}" for n in names}


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


def test_the_bundle_sets_up_and_validates_on_its_own(bundled: Path, tmp_path: Path) -> None:
    """``make``'s set-up in a fresh venv, then ``course validate`` on an answered notebook."""
    # Without its own pip and setuptools, which would shadow the locked ones.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bundled / ".venv")],
                   check=True)
    site = next((bundled / ".venv" / "lib").glob("python*/site-packages"))
    (site / "course_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # As on a laptop without bubblewrap (macOS, say): a bwrap that cannot make a sandbox. (The
    # sandbox would show the kernel the fresh venv but not the shared packages behind the .pth;
    # a student's own install has them inside the venv.)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PATH": f"{fake}:{os.environ['PATH']}"}
    env.pop("JUPYTER_CONFIG_PATH", None)
    env.pop("JUPYTER_PATH", None)
    subprocess.run(["make", "-C", str(bundled), ".venv/.installed"], check=True, env=env)
    python = bundled / ".venv" / "bin" / "python"
    probe = ("import importlib.util, mllib, grader; print(mllib.__file__, grader.__file__, "
             "importlib.util.find_spec('mllib.grading.perceptron'))")
    where = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True,
                           cwd=tmp_path, env=env).stdout.split()
    assert where[0].startswith(str(bundled)) and where[1].startswith(str(bundled))
    assert where[2] == "None"  # the hidden checks are not there to import

    answers = runpy.run_path(str(REPO / "tests" / "fairness" / f"{ASSIGNMENT}.py"))["ANSWERS"]
    notebook = bundled / "notebooks" / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = answers.get(meta["grade_id"], "The runs differ by a factor eta.")
    nbformat.write(nb, notebook)
    run = subprocess.run(["make", "-C", str(bundled), "validate",
                          f"NB=notebooks/{ASSIGNMENT}/{NOTEBOOK}"],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS update_rule" in run.stdout and "ANSWERED eta_answer" in run.stdout
    assert f"PASSED notebooks/{ASSIGNMENT}/{NOTEBOOK}" in run.stdout
    assert "unsandboxed" in run.stdout


def test_a_folder_that_is_no_course_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not a course folder"):
        main(["--course-root", str(tmp_path), "bundle"])
