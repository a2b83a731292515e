"""``course new-exercise ASSIGNMENT NAME``: the cells of a new exercise, and its checker stub.

Appends to the assignment's exercise notebook in ``solutions/<assignment>/`` (created, with a
setup cell, for a new assignment) the four cells every exercise of the course has, with the
nbgrader metadata ``course lint`` expects:

1. the question: locked markdown, ``q_<name>``;
2. the answer: ``def <name>(x)`` with the solution between ``### BEGIN/END SOLUTION``;
3. the visible test: locked, ``test_<name>_visible``, ``assert_close(actual, LITERAL, "what")``;
4. the hidden test: locked, ``test_<name>_hidden``, ``hidden_test("checks.<name>", <name>)``
   between ``### BEGIN/END HIDDEN TESTS``;

and to ``solutions/<assignment>/checks.py`` a reference function and a checker returning a
:class:`mllib.grading.Check`. What the author must write is marked
:data:`grader.authoring.lint.TODO_MARK`, which ``course lint`` (and so ``course release``) refuses.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from grader.authoring.lint import TODO_MARK, meta
from mllib.grading import CHECKS

SAFE_ASSIGNMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
SETUP = "import numpy as np\n\nfrom mllib.grading import assert_close\n"

CHECKS_HEADER = '''"""Hidden checks of {assignment}: one function per exercise, returning a Check.

The grader runs this file in its own process while it grades; nbgrader never copies it into the
release or a submission, so no student and no student's kernel sees it. Keep each exercise's
reference solution here (this file is not on the kernel's import path). README: "Adding an
exercise".
"""

import numpy as np

from mllib.grading import Case, Check, seeded

# Fixed seeds: a regrade draws the same inputs. While grading, each student's variant is mixed
# in, so every student gets inputs of their own; rng(k) with a different k per checker keeps
# the checkers' inputs independent.
rng = seeded(0)
'''

CHECKER = f'''

def reference_{{name}}(x):
    """The right answer of {{name}}, computed by the grader (never in a student's kernel)."""
    # {TODO_MARK}: compute the answer; return numbers, arrays, or a tuple of them.
    raise NotImplementedError


def {{name}}() -> Check:
    """Exercise {{number}}'s hidden test: fresh inputs, judged against reference_{{name}}."""
    # {TODO_MARK}: draw inputs inside the domain the statement defines, one Case per
    # situation worth testing (typical, edge, ...); the hint names the situation, never the
    # inputs or the answer. Give judge= when several answers are right (see README).
    cases = [
        Case("a typical input", (rng({{offset}}).normal(size=5),)),
        Case("a longer input", (rng({{offset}} + 1).normal(size=20),)),
    ]
    return Check("{{name}}", cases, reference=reference_{{name}})
'''


@dataclass(frozen=True)
class Scaffolded:
    """What :func:`new_exercise` wrote."""

    notebook: Path
    checks: Path
    number: int  # the exercise's number in its notebook


def _cell(kind: str, source: str, grade_id: str, **flags) -> NotebookNode:
    """A cell with nbgrader metadata (schema 3) and a cell id derived from its grade id."""
    nbgrader = {"grade": False, "grade_id": grade_id, "locked": True, "schema_version": 3,
                "solution": False, "task": False, **flags}
    make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    return make(source, metadata={"nbgrader": nbgrader}, id=grade_id.replace("_", "-")[:64])


def exercise_cells(name: str, number: int, visible: int, hidden: int) -> list[NotebookNode]:
    """The question, answer, visible-test and hidden-test cells of exercise ``name``."""
    question = (f"## Exercise {number} · {TODO_MARK}: a title ({visible + hidden} points)\n\n"
                f"Write `{name}(x)` that returns ... {TODO_MARK}: the statement. For every "
                "input the signature allows, say what the answer is, or that the input never "
                "occurs: the hidden cases must stay inside what it defines.\n")
    answer = (f"def {name}(x):\n"
              f'    """{TODO_MARK}: what it returns, with shapes (x: array of shape (n,))."""\n'
              "    ### BEGIN SOLUTION\n"
              f'    raise NotImplementedError("{TODO_MARK}: your solution")\n'
              "    ### END SOLUTION\n")
    visible_test = (f"# {TODO_MARK}: a worked example; type its answer as a literal.\n"
                    f'assert_close({name}(np.array([1.0, 2.0, 3.0])), [0.0, 0.0, 0.0], '
                    f'"{name}([1, 2, 3])")\n')
    hidden_test = ("# Hidden tests: fresh inputs, checked against the reference when your work "
                   "is graded.\n\n### BEGIN HIDDEN TESTS\nfrom mllib.grading import hidden_test\n"
                   f'hidden_test("{CHECKS}.{name}", {name})\n### END HIDDEN TESTS\n')
    return [
        _cell("markdown", question, f"q_{name}"),
        _cell("code", answer, name, locked=False, solution=True),
        _cell("code", visible_test, f"test_{name}_visible", grade=True, points=visible),
        _cell("code", hidden_test, f"test_{name}_hidden", grade=True, points=hidden),
    ]


def _new_notebook(assignment: str) -> NotebookNode:
    """An exercise notebook with a title and the locked setup cell the tests use."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": KERNELSPEC,
                                            "language_info": {"name": "python"}})
    title = (f"# {assignment} · exercises\n\nReplace each `raise NotImplementedError()` with "
             "your code, run the visible tests, then press **Validate**. Hidden tests run at "
             "grading time on fresh inputs.\n")
    nb.cells = [nbformat.v4.new_markdown_cell(title, id="title"),
                _cell("code", SETUP, "setup")]
    return nb


def is_exercise_notebook(nb: NotebookNode) -> bool:
    """Whether a notebook has answer or graded cells (a walk-through has neither)."""
    return any(meta(c).get("solution") or meta(c).get("grade") for c in nb.cells)


def _notebook_path(folder: Path, assignment: str, notebook: str | None) -> Path:
    """The notebook to extend: the one named, the assignment's only exercise notebook, or a
    new ``<topic>_exercises.ipynb`` (``07_kernels`` -> ``kernels_exercises.ipynb``)."""
    if notebook:
        return folder / (notebook if notebook.endswith(".ipynb") else f"{notebook}.ipynb")
    found = [p for p in sorted(folder.glob("*.ipynb"))
             if is_exercise_notebook(nbformat.read(p, as_version=4))]
    if len(found) > 1:
        raise ValueError(f"{folder} has several exercise notebooks "
                         f"({', '.join(p.name for p in found)}): choose one with --notebook")
    topic = re.sub(r"^\d+_", "", assignment)
    return found[0] if found else folder / f"{topic}_exercises.ipynb"


def _checker_names(checks: Path) -> set[str]:
    if not checks.is_file():
        return set()
    return {node.name for node in ast.parse(checks.read_text()).body
            if isinstance(node, ast.FunctionDef)}


def _refuse_clash(nb: NotebookNode, checks: Path, name: str) -> None:
    """ValueError when the notebook or ``checks.py`` already has this exercise's names."""
    taken = {meta(c).get("grade_id") for c in nb.cells}
    ours = {c.metadata["nbgrader"]["grade_id"] for c in exercise_cells(name, 1, 1, 1)}
    clash = sorted(taken & ours) + sorted({name, f"reference_{name}"} & _checker_names(checks))
    if clash:
        raise ValueError(f"{name!r} exists already ({', '.join(clash)}): choose another name")


def new_exercise(source_root: Path, assignment: str, name: str, *, notebook: str | None = None,
                 visible_points: int = 1, hidden_points: int = 2) -> Scaffolded:
    """Add exercise ``name`` to ``assignment``: four notebook cells and a checker stub.

    Parameters
    ----------
    source_root : Path
        The instructor's folder of assignments (``solutions/``).
    assignment : str
        Assignment folder; created when new.
    name : str
        The function students write (a Python identifier); also the exercise's ``grade_id``
        and its checker's name in ``checks.py``.
    notebook : str, optional
        Notebook file in the assignment to extend; default: its only exercise notebook, or a
        new one.
    visible_points, hidden_points : int
        Points of the visible and the hidden test.

    Returns
    -------
    Scaffolded
        The notebook and checks file written, and the exercise's number.

    Raises
    ------
    ValueError
        For a name that is not an identifier, an unsafe assignment name, points below 1, a
        name already used, or an ambiguous notebook.
    """
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a Python function name")
    if not SAFE_ASSIGNMENT.fullmatch(assignment):
        raise ValueError(f"{assignment!r} is not an assignment folder name (letters, digits, "
                         "'_', '.', '-')")
    if min(visible_points, hidden_points) < 1:
        raise ValueError("each test needs at least 1 point")
    folder = Path(source_root) / assignment
    path = _notebook_path(folder, assignment, notebook)
    nb = nbformat.read(path, as_version=4) if path.is_file() else _new_notebook(assignment)
    checks = folder / f"{CHECKS}.py"
    _refuse_clash(nb, checks, name)
    number = 1 + sum(1 for c in nb.cells if meta(c).get("solution"))
    nb.cells += exercise_cells(name, number, visible_points, hidden_points)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    text = checks.read_text() if checks.is_file() else CHECKS_HEADER.format(
        assignment=assignment)
    checks.write_text(text + CHECKER.format(name=name, number=number, offset=10 * number))
    return Scaffolded(path, checks, number)
