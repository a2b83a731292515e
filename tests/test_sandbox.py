"""The grading sandbox and the verdicts decided outside the kernel, part by part.

The whole pipeline (nbgrader, the sandboxed kernel, verdicts, feedback) is tested end to end in
``test_grading.py``, ``test_grading_class.py`` and ``test_grading_hostile.py``; these tests pin
down the pieces: what a sandboxed process can read, write and reach, how values cross the
boundary, and how test cells are read.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mllib
from grader.kernel.sandbox import sandbox_command, unavailable_reason
from grader.pipeline import outside
from mllib.grading import Case, Check, ExerciseFailed, judge, run_check, wire

REPO = Path(__file__).resolve().parents[1]
needs_sandbox = pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())


# --- the sandbox ----------------------------------------------------------------------------

def sandboxed(code: str, tmp_path: Path, **limits) -> subprocess.CompletedProcess:
    """Run ``python -c code`` in the sandbox, as the grader runs a kernel."""
    for part in ("conn", "work", "mpl"):
        (tmp_path / part).mkdir(exist_ok=True)
    uid = 200_000 + os.getpid() % 100_000 if os.geteuid() == 0 else None
    if uid is not None:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            os.lchown(path, uid, uid)
    command = sandbox_command(
        [sys.executable, "-c", code], scratch=tmp_path,
        hidden_modules=limits.pop("hidden", ["mllib.perceptron"]),
        memory_limit=limits.pop("memory", 2 * 2**30), process_limit=limits.pop("processes", 64),
        uid=uid)
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False,
                          env={"PATH": os.environ["PATH"]})


@needs_sandbox
def test_the_course_checkout_and_home_are_out_of_reach(tmp_path: Path) -> None:
    code = f"""
import os
for path in [{str(REPO / 'solutions')!r}, {str(REPO / 'grader' / 'cli.py')!r},
             {str(REPO / 'tests')!r}, {str(REPO / '.git')!r}, {os.path.expanduser('~')!r} + "/x"]:
    print(path, os.path.exists(path))
"""
    result = sandboxed(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(" False") == 5, result.stdout


@needs_sandbox
def test_only_the_scratch_copy_and_tmp_are_writable(tmp_path: Path) -> None:
    library = Path(mllib.__file__).parent / "data.py"
    code = f"""
open("answer.txt", "w").write("mine")
open("/tmp/x", "w").write("scratch")
for path in [{str(library)!r}, "/usr/lib/x", "/etc/x"]:
    try:
        open(path, "a")
        print("WROTE", path)
    except OSError:
        pass
"""
    result = sandboxed(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "WROTE" not in result.stdout
    assert (tmp_path / "work" / "answer.txt").read_text() == "mine"


@needs_sandbox
def test_the_reference_module_is_hidden_but_data_helpers_import(tmp_path: Path) -> None:
    code = """
import mllib.data, mllib.grading
print(mllib.data.mmds_spam()[1].tolist())
for name in ["mllib.perceptron", "mllib.grading.perceptron", "mllib.grading.svm"]:
    try:
        __import__(name)
        print("IMPORTED", name)
    except ImportError as error:
        print(error)
"""
    result = sandboxed(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "IMPORTED" not in result.stdout
    assert "mllib.perceptron is not available while your work is graded" in result.stdout
    assert "[1.0, -1.0, 1.0, -1.0, 1.0, -1.0]" in result.stdout


@needs_sandbox
def test_no_network_even_to_a_loopback_server(tmp_path: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    code = f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("CONNECTED")
except OSError as error:
    print("refused", error)
"""
    try:
        result = sandboxed(code, tmp_path)
    finally:
        server.close()
    assert result.returncode == 0, result.stderr
    assert "refused" in result.stdout


@needs_sandbox
def test_memory_and_processes_are_limited(tmp_path: Path) -> None:
    code = """
import os, time
try:
    hoard = bytearray(3 * 2**30)
    print("ALLOCATED")
except MemoryError:
    print("memory limited")
children = 0
try:
    for _ in range(500):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        children += 1
except OSError:
    print("processes limited at", children)
"""
    result = sandboxed(code, tmp_path, memory=2 * 2**30, processes=32)
    assert result.returncode == 0, result.stderr
    assert "memory limited" in result.stdout
    assert "processes limited at" in result.stdout


# --- values across the boundary -------------------------------------------------------------

arrays = hnp.arrays(st.sampled_from([np.float64, np.int64, np.bool_]),
                    hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
plain = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=5) | arrays,
                     lambda inner: st.lists(inner, max_size=3)
                     | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
                     max_leaves=10)


def same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        # NaN stands for itself across the boundary, so it must compare equal here (drawn
        # float arrays may hold it).
        return isinstance(b, np.ndarray) and a.dtype.kind == b.dtype.kind and \
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(plain)
def test_plain_values_cross_the_boundary_unchanged(value) -> None:
    assert same(wire.loads(wire.dumps(value)), value)


def test_objects_cross_as_their_type_name_only() -> None:
    class Sneaky:
        def __eq__(self, other):
            return True

    back = wire.loads(wire.dumps([Sneaky(), range(1, 3)]))
    # A class of the student's is not named: its name is theirs to choose (hidden inputs, say).
    assert isinstance(back[0], wire.Opaque) and back[0].type_name == "an object of another type"
    assert isinstance(back[1], np.ndarray) and back[1].tolist() == [1.0, 2.0]



def test_arrays_cross_as_bytes_that_a_reply_cannot_bend() -> None:
    back = wire.loads(wire.dumps(np.arange(6, dtype=np.float32).reshape(2, 3) / 3))
    assert back.dtype == np.float64 and back.shape == (2, 3) and back.flags.writeable
    assert back.tolist() == (np.arange(6, dtype=np.float32).reshape(2, 3) / 3).tolist()
    good = wire.encode(np.ones(4))
    for bent in ({**good, "__array__": "not base64!"},  # not base64
                 {**good, "shape": [5]},  # more numbers claimed than sent
                 {**good, "__array__": good["__array__"][:-4]},  # bytes cut short
                 {**good, "dtype": "O"}):  # objects: never
        with pytest.raises((ValueError, KeyError)):
            wire.decode(bent)

def test_self_referencing_answers_are_refused() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises((ValueError, RecursionError)):
        wire.encode(loop)


def test_a_lookup_answers_only_the_calls_it_lists() -> None:
    table = wire.loads(wire.dumps(wire.Lookup([((np.array([1.0, 2.0]), [1, -1]), True)], "f")))
    assert table([1, 2], np.array([1, -1])) is True
    with pytest.raises(ValueError, match="arguments it does not know"):
        table([2, 1], [1, -1])


def test_the_judge_reports_without_revealing_answers() -> None:
    check = Check("double", [Case("a small list", ([1.0, 2.0],))], lambda v: 2 * np.asarray(v))
    run_check(check, lambda v: [2 * x for x in v])  # lists instead of arrays: fine
    with pytest.raises(ExerciseFailed, match="wrong answer on hidden case 1 of 1: a small list"):
        run_check(check, lambda v: v)
    with pytest.raises(ExerciseFailed, match="forget to `return`"):
        run_check(check, lambda v: None)
    reply = {"results": [{"error": "ValueError", "message": "bad"}]}
    failure = judge(check, reply, check.expected(), failing=["helper"])
    assert failure.startswith("double raised ValueError on hidden case 1")  # not the message
    assert "bad" not in failure
    builds = Check("double", check.cases, check.reference, builds_on=("helper",))
    assert "calls your helper, which fails its own hidden test" in judge(
        builds, reply, check.expected(), failing=["helper"])
    assert "4.0" not in judge(check, {"results": [{"value": wire.encode([0, 0])}]},
                              check.expected())


# --- reading test cells -----------------------------------------------------------------------

def test_literals_allow_arithmetic_but_not_names() -> None:
    import ast

    assert outside.literal(ast.parse("[1 / 3, -2 ** 2, (True, 0.5)]").body[0].value) == [
        1 / 3, -4, [True, 0.5]]
    with pytest.raises(ValueError):
        outside.literal(ast.parse("[x, 1]").body[0].value)


EXERCISE_NOTEBOOKS = sorted((REPO / "solutions").glob("*/*_exercises.ipynb"))


@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=lambda p: p.parent.name)
def test_every_test_cell_of_the_course_is_decided_outside_the_kernel(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    tests = [c for c in nb.cells if c.cell_type == "code"
             and c.metadata.get("nbgrader", {}).get("grade")]
    assert tests
    for cell in tests:
        test = outside.plan(cell.source)
        assert test is not None, cell.source
        if isinstance(test, outside.HiddenTest):
            assert test.check.function in "".join(c.source for c in nb.cells
                                                  if c.metadata.get("nbgrader", {}).get(
                                                      "solution"))
            payload = json.loads(test.check.payload())
            assert len(payload) == len(test.check.cases)
        else:
            assert test.code.count("_mlcourse['record'](") == len(test.expectations)


# --- course autograde with and without the sandbox -------------------------------------------

def one_submission(copy_course, code: str) -> Path:
    """A course copy where student ``kit`` submitted the solution plus ``code`` in a new cell."""
    root = copy_course("solutions", "notebooks")
    release = REPO / "notebooks" / "01_perceptron" / "perceptron_exercises.ipynb"
    solution = nbformat.read(REPO / "solutions" / "01_perceptron" / release.name, as_version=4)
    nb = nbformat.read(release, as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solution.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in answers:
            cell.source = answers[cell.metadata["nbgrader"]["grade_id"]]
    nb.cells.insert(1, nbformat.v4.new_code_cell(code))
    folder = root / "grader" / "submitted" / "kit" / "01_perceptron"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / release.name)
    return root


def test_grading_refuses_to_start_without_the_sandbox(copy_course, monkeypatch, capsys) -> None:
    from grader import cli
    from grader.dispatch import autograde

    root = one_submission(copy_course, "pass")
    for module in (autograde, cli):
        monkeypatch.setattr(module, "unavailable_reason",
                            lambda: "bubblewrap is not installed: install bubblewrap "
                                    "(Debian/Ubuntu: `apt-get install bubblewrap`)")
    with pytest.raises(SystemExit, match="refusing to autograde without the sandbox.*apt-get "
                                         "install bubblewrap.*--no-sandbox"):
        cli.main(["--course-root", str(root), "autograde", "01_perceptron"])
    assert not (root / "grader" / "autograded").exists()
    assert cli.main(["validate", str(REPO / "notebooks" / "01_perceptron"
                                     / "perceptron_exercises.ipynb")]) == 1
    assert "running your notebook unsandboxed (bubblewrap is not installed" in \
        capsys.readouterr().out


@needs_sandbox
def test_no_sandbox_grades_with_a_warning_that_the_report_keeps(copy_course, capsys) -> None:
    from grader import cli

    root = one_submission(copy_course, "pass")
    course = str(root)
    probe = f"import os\nprint('sees the course:', os.path.exists({course + '/solutions'!r}))"
    path = root / "grader" / "submitted" / "kit" / "01_perceptron" / "perceptron_exercises.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[1].source = probe
    nbformat.write(nb, path)
    seen = {}
    for flag in ([], ["--no-sandbox"]):
        assert cli.main(["--course-root", course, "autograde", "01_perceptron", *flag]) == 0
        graded = nbformat.read(root / "grader" / "autograded" / "kit" / "01_perceptron"
                               / path.name, as_version=4)
        seen[bool(flag)] = "".join(o.get("text", "") for o in graded.cells[1].outputs)
        assert cli.main(["--course-root", course, "report", "01_perceptron"]) == 0
    assert "sees the course: False" in seen[False]
    assert "sees the course: True" in seen[True]
    assert "WARNING: grading WITHOUT the sandbox" in capsys.readouterr().err
    report = (root / "grader" / "exports" / "report-01_perceptron.html").read_text()
    assert "WITHOUT the sandbox (--no-sandbox)" in report


@needs_sandbox
def test_plain_nbgrader_autograde_from_the_course_root_uses_the_sandbox(copy_course) -> None:
    """Run from the course root, ``grader`` can resolve to the course's own config folder;
    the sandbox must still find its files (a regression: it looked for grader.__file__)."""
    from nbgrader.api import Gradebook

    root = one_submission(copy_course, "pass")
    binary = Path(sys.executable).parent
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(root / "grader"),
           "PATH": f"{binary}{os.pathsep}{os.environ['PATH']}"}
    for step in (["generate_assignment", "01_perceptron", "--force"],
                 ["autograde", "01_perceptron", "--force"]):
        done = subprocess.run([str(binary / "nbgrader"), *step], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        assert gb.find_submission("01_perceptron", "kit").score == 15.0


def test_a_course_cloned_under_tmp_is_still_bound_into_the_sandbox(tmp_path: Path) -> None:
    """Inside, /tmp is a fresh tmpfs; a checkout or venv under the host's /tmp (CI clones
    there) must be bound over it, not taken for part of it (a regression)."""
    from grader.kernel.sandbox import _Mounts

    mounts = _Mounts()
    mounts.read_only(str(tmp_path))
    assert mounts.args[-3:] == ["--ro-bind", str(tmp_path.resolve()), str(tmp_path.resolve())]
    assert ["--perms", "0755", "--dir", "/tmp"] not in [mounts.args[i:i + 4]
                                                        for i in range(len(mounts.args))]
