"""Hidden inputs of each student's own (grader/pipeline/secret.py, mllib.grading.variant).

The seed of every hidden case mixes in an HMAC of the course secret, the assignment, the
exercise and the student id. These tests hold the parts to what the design promises: the
secret is created once, private and rotatable; students get different inputs and a regrade the
same; every checker keeps its structure and its verdicts under every student's variant (the
checker tests and the second solutions, replayed for 50 students); and nbgrader, locally and
on a Dask worker, grades each student on their own inputs without the secret entering a kernel
or a worker.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import inspect
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from grader.pipeline import outside, secret
from mllib.grading import load_check, seeded, variant, wire

TESTS = Path(__file__).parent
STUDENTS = [f"student{n:02d}" for n in range(50)]  # the fairness figure: 50 ids per exercise
COURSE_SECRET = bytes.fromhex(os.environ["COURSE_SECRET"])  # tests/conftest.py sets it


@pytest.fixture
def no_environment_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secret.ENVIRONMENT)


def test_the_secret_is_created_once_private_and_kept(tmp_path: Path, no_environment_secret):
    path = tmp_path / "grader" / "course_secret"
    first = secret.load(path)
    assert len(first) == secret.SECRET_BYTES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret.load(path) == first
    assert list(path.parent.iterdir()) == [path]  # no partial file left behind


def test_graders_starting_at_once_share_one_secret(tmp_path: Path, no_environment_secret):
    path, found = tmp_path / "course_secret", []
    threads = [threading.Thread(target=lambda: found.append(secret.load(path)))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and found[0] == secret.load(path)


def test_an_id_with_a_lone_surrogate_gets_its_own_variant():
    # os.fsdecode turns an undecodable byte of a file name into a lone surrogate.
    odd = b"caf\xe9".decode("utf-8", "surrogateescape")
    assert secret.variant(COURSE_SECRET, "a", "e", odd) != secret.variant(COURSE_SECRET, "a", "e",
                                                                          "caf")
    assert secret.variant(COURSE_SECRET, "a", "e", "café") == hmac.new(
        COURSE_SECRET, "a\0e\0café".encode(), hashlib.sha256).digest()  # plain ids unchanged


def test_rotation_replaces_the_secret(tmp_path: Path, no_environment_secret):
    path = tmp_path / "course_secret"
    old = secret.load(path)
    secret.rotate(path)
    assert secret.load(path) != old
    assert secret.fingerprint(old) != secret.fingerprint(secret.load(path))


def test_the_environment_wins_and_bad_secrets_are_refused(tmp_path: Path, monkeypatch):
    path = tmp_path / "course_secret"
    assert secret.load(path) == COURSE_SECRET
    assert not path.exists()
    with pytest.raises(ValueError, match="COURSE_SECRET"):
        secret.rotate(path)
    monkeypatch.setenv(secret.ENVIRONMENT, "not hex")
    with pytest.raises(ValueError, match="not hexadecimal"):
        secret.load(path)
    monkeypatch.setenv(secret.ENVIRONMENT, "abcd")
    with pytest.raises(ValueError, match="shorter than 16 bytes"):
        secret.load(path)
    monkeypatch.delenv(secret.ENVIRONMENT)
    with pytest.raises(ValueError, match="no course secret"):
        secret.load(path, create=False)


def test_each_field_of_a_variant_matters():
    base = secret.variant(COURSE_SECRET, "01_perceptron", "perceptron.update_rule", "ada")
    assert base == secret.variant(COURSE_SECRET, "01_perceptron", "perceptron.update_rule", "ada")
    others = {secret.variant(COURSE_SECRET, "01_perceptron", "perceptron.update_rule", "bob"),
              secret.variant(COURSE_SECRET, "01_perceptron", "perceptron.margin", "ada"),
              secret.variant(COURSE_SECRET, "02_svm", "perceptron.update_rule", "ada"),
              secret.variant(b"another secret!!", "01_perceptron", "perceptron.update_rule",
                             "ada")}
    assert base not in others and len(others) == 4
    with pytest.raises(ValueError, match="NUL"):
        secret.variant(COURSE_SECRET, "01_perceptron", "x", "a\0b")


def test_seeds_are_the_course_default_outside_a_variant_and_the_students_inside():
    rng = seeded(20261122)
    default = rng(1).random(4)
    assert (default == __import__("numpy").random.default_rng(20261123).random(4)).all()
    with variant(b"a" * 32):
        ada = rng(1).random(4)
        assert (rng(1).random(4) == ada).all()  # a regrade draws the same inputs
        with variant(b"b" * 32):
            assert (rng(1).random(4) != ada).all()
        assert (rng(1).random(4) == ada).all()
    assert (rng(1).random(4) == default).all()


# --- Every checker under every student's variant --------------------------------------------


def _checker_tests(module_name: str):
    """(name, function, argument tuples) of the module's tests that need no fixture."""
    module = importlib.import_module(module_name)
    for name, function in sorted(vars(module).items()):
        if not name.startswith("test_") or not callable(function):
            continue
        marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
        argnames = {a.strip() for m in marks for a in str(m.args[0]).split(",")}
        if set(inspect.signature(function).parameters) - argnames or len(marks) > 1:
            continue  # a fixture (tmp_path, monkeypatch, ...): not a test of inputs alone
        if not marks:
            yield name, function, [()]
            continue
        rows = [getattr(row, "values", row) for row in marks[0].args[1]]
        yield name, function, [row if isinstance(row, tuple) else (row,) for row in rows]


CHECKER_MODULES = sorted(p.stem for p in TESTS.glob("test_checkers*.py"))


@pytest.mark.parametrize("module_name", CHECKER_MODULES)
def test_checker_tests_hold_for_every_students_inputs(module_name: str):
    """Right answers pass, typical slips fail with their hint, and every structural promise
    (a tie case is a tie, a perfect expert exists) holds, for 50 students' inputs."""
    ran = 0
    for name, function, rows in _checker_tests(module_name):
        for student in STUDENTS:
            with variant(secret.variant(COURSE_SECRET, "checkers", module_name, student)):
                for row in rows:
                    try:
                        function(*row)
                    except Exception as failure:
                        raise AssertionError(f"{name}{row!r:.80} for {student}") from failure
                    ran += 1
    assert ran >= len(STUDENTS), "the module's checker tests were not found"


def exercise_sources(assignment: str) -> list[str]:
    notebook = next((TESTS.parent / "solutions" / assignment).glob("*_exercises.ipynb"))
    return [cell.source for cell in __import__("nbformat").read(notebook, as_version=4).cells]


ASSIGNMENTS = sorted(p.parent.name for p in TESTS.parent.glob("solutions/*/*_exercises.ipynb"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_students_get_other_inputs_with_the_same_situations(assignment: str):
    for key in outside.hidden_keys(exercise_sources(assignment)):
        default = load_check(key)
        payloads = set()
        for student in STUDENTS:
            with variant(secret.variant(COURSE_SECRET, assignment, key, student)):
                check = load_check(key)
            assert [c.hint for c in check.cases] == [c.hint for c in default.cases], key
            payloads.add(check.payload())
        # Inputs from small integer domains (Sauer's m and d) repeat across 50 students; a
        # leaked list must still help only a few of them.
        assert len(payloads) >= len(STUDENTS) // 5, f"{key}: students share hidden inputs"


def _arrays(value) -> list[np.ndarray]:
    """The arrays of numbers among a case's inputs (lists of numbers count as arrays)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, wire.Lookup):
        value = value.entries
    if isinstance(value, list | tuple | np.ndarray):
        try:
            numbers = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return [array for v in value for array in _arrays(v)]
        return [numbers] if numbers.size > 1 else []
    return []


def _telling(array: np.ndarray) -> bool:
    """Whether an array could tell a student's case apart: not one value repeated (w = 0,
    uniform weights: the edge is the value) and not a pattern of labels -1, 0, +1."""
    return len(np.unique(array)) > 1 and not np.isin(array, [-1, 0, 1]).all()


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_two_students_share_no_hidden_case_or_array(assignment: str):
    """A leaked list of one student's inputs is nobody else's table: no case, and no array that
    could tell a case apart, is the same for two students, unless the exercise's statement
    gives its answer (``Case.stated``, which must be in the notebook)."""
    notebook = "\n".join(exercise_sources(assignment))
    shared = []
    for key in outside.hidden_keys(exercise_sources(assignment)):
        checks = []
        for student in STUDENTS[:2]:
            with variant(secret.variant(COURSE_SECRET, assignment, key, student)):
                checks.append(load_check(key))
        first, second = ([c for c in check.cases if not c.stated] for check in checks)
        seen = {wire.dumps((c.args, c.kwargs)) for c in first}
        shared += [f"{key}: {c.hint}" for c in second if wire.dumps((c.args, c.kwargs)) in seen]
        arrays = {(a.shape, a.tobytes()) for c in first for a in _arrays((c.args, c.kwargs))}
        shared += [f"{key}: an array of {c.hint}" for c in second
                   for a in _arrays((c.args, c.kwargs))
                   if _telling(a) and (a.shape, a.tobytes()) in arrays]
        assert all(c.stated in notebook for c in checks[0].cases), key
    assert not shared, shared


# --- Through nbgrader --------------------------------------------------------------------------

ASSIGNMENT, KEY, FUNCTION = "01_perceptron", "perceptron.update_rule", "perceptron_update"


def _inputs(args) -> str:
    """A case's arguments as text that the kernel side can rebuild from what it receives."""
    return repr([__import__("numpy").asarray(a, float).round(9).tolist() for a in args])


def cheat(answers: dict[str, list]) -> str:
    """An answer cell that knows nothing but a leaked table of inputs -> answers."""
    return (f"import numpy as np\nLEAKED = {answers!r}\n"
            f"def {FUNCTION}(w, x, y, eta):\n"
            "    key = repr([np.asarray(a, float).round(9).tolist() for a in (w, x, y, eta)])\n"
            "    return np.array(LEAKED[key]) if key in LEAKED else np.asarray(w, float)\n")


def leaked_table(student: str | None) -> dict[str, list]:
    """What circulates after ``student`` printed their inputs (None: the fixed inputs)."""
    key = None if student is None else secret.variant(COURSE_SECRET, ASSIGNMENT, KEY, student)
    with variant(key):
        check = load_check(KEY)
    return {_inputs(case.args): [float(v) for v in answer]
            for case, answer in zip(check.cases, check.expected(), strict=True)}


def test_a_leaked_list_of_inputs_scores_only_for_its_owner(copy_course):
    """Ada's inputs, leaked, give Ada full marks on the exercise (every regrade) and Bob none;
    the fixed inputs of a notebook run outside grading help nobody."""
    import nbformat
    from nbgrader.api import Gradebook

    from grader.cli import main

    root = copy_course("solutions", "notebooks")
    source = next((root / "solutions" / ASSIGNMENT).glob("*_exercises.ipynb"))
    hidden = next(cell.metadata["nbgrader"]["grade_id"] for cell in
                  nbformat.read(source, as_version=4).cells if f'"{KEY}"' in cell.source)
    for student, table in (("ada", leaked_table("ada")), ("bob", leaked_table("ada")),
                           ("cy", leaked_table(None))):
        nb = nbformat.read(source, as_version=4)
        answer = next(c for c in nb.cells if f"def {FUNCTION}(" in c.source
                      and c.metadata.get("nbgrader", {}).get("solution"))
        answer.source = cheat(table)
        nb.cells.append(nbformat.v4.new_code_cell(  # the secret, were it in the kernel
            "import os\nprint('secret:', os.environ.get('COURSE_SECRET'))"))
        folder = root / "grader" / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / source.name)

    def scores() -> dict[str, float]:
        assert main(["--course-root", str(root), "autograde", ASSIGNMENT]) == 0
        with Gradebook(f"sqlite:///{root / 'grader' / 'gradebook.db'}") as gb:
            return {s: gb.find_grade(hidden, source.stem, ASSIGNMENT, s).score
                    for s in ("ada", "bob", "cy")}

    first = scores()
    points = float(next(c for c in nbformat.read(source, as_version=4).cells
                        if f'"{KEY}"' in c.source).metadata["nbgrader"]["points"])
    assert first == {"ada": points, "bob": 0.0, "cy": 0.0}
    assert scores() == first  # a regrade draws the same inputs
    assert not (root / "grader" / "course_secret").exists()  # $COURSE_SECRET was used
    # Every page written (their written answers wait for a hand grade): none may hold the secret.
    assert main(["--course-root", str(root), "feedback", ASSIGNMENT, "--include-ungraded"]) == 0
    assert main(["--course-root", str(root), "report", ASSIGNMENT]) == 0
    written = [path for path in (root / "grader").rglob("*") if path.is_file()]
    assert any("secret: None" in p.read_text(errors="replace") for p in written
               if p.suffix == ".ipynb")  # the kernel ran the probe and found nothing
    leaks = [p for p in written if COURSE_SECRET.hex().encode() in p.read_bytes()]
    assert not leaks, "the course secret reached a notebook, log, feedback or report"
    run = (root / "grader" / "exports").glob(f"*{ASSIGNMENT}*.json")
    assert any(secret.fingerprint(COURSE_SECRET) in path.read_text() for path in run)
