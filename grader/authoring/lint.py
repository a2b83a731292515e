"""``course lint ASSIGNMENT``: refuse an assignment that would not grade as its author meant.

``course release`` runs it first and writes nothing when it finds a problem. Each problem names
the notebook, the cell (its number and ``grade_id``) and the fix. It reads
``solutions/<assignment>/`` and refuses:

* **metadata** nbgrader would reject or that breaks this course's conventions: a graded or
  answer cell without a unique ``grade_id``, a test without points, a locked answer, an
  unlocked test, a question (the markdown cell above an answer) that is not locked;
* a ``hidden_test`` call **outside** the ``### BEGIN/END HIDDEN TESTS`` markers (the release
  would show it), or hidden markers in a cell that is not graded;
* a **checker name that does not resolve** (``"checks.<checker>"`` in the assignment's
  ``checks.py``, or ``"<topic>.<checker>"`` in ``mllib.grading``), or whose function is not the
  one the cell passes or no answer cell defines;
* a **plain-assert hidden test**: it would run in the student's kernel, which the student
  controls, with every student's inputs the same; the message shows the equivalent ``Check``;
  and statements beside a ``hidden_test`` call, which grading never runs;
* a **visible test** that is not top-level ``assert_close(actual, LITERAL, "what")`` calls, or
  whose expected value is not a literal (the grader compares it outside the kernel);
* a scaffold ``TODO`` left in a cell or in ``checks.py``, or a ``checks.py`` in the release;
* a test that **fails on the instructor's own solution** or **passes on the blank release**
  (every answer replaced by nbgrader's stub). Both run as grading runs them:
  :class:`grader.pipeline.preprocessors.GradingExecute`, its kernel in the sandbox when bubblewrap
  is there, on the assignment's files as nbgrader copies them (no ``checks.py``), with the
  course's fixed hidden inputs.
"""

from __future__ import annotations

import ast
import copy
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.apps import NbGraderAPI
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import ClearSolutions

from grader.core.files import copy_tree
from grader.pipeline import outside
from grader.pipeline.preprocessors import GradingExecute
from mllib.grading import CHECKS, load_check

TODO_MARK = "TODO(course new-exercise)"  # what the scaffold leaves for the author to fill in
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # nbgrader's delimiters
HIDDEN_FORM = 'from mllib.grading import hidden_test\nhidden_test("checks.<checker>", <function>)'


@dataclass(frozen=True)
class Problem:
    """One reason not to release: where (notebook and cell, or file and line) and the fix."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def meta(cell: NotebookNode) -> dict:
    """The cell's nbgrader metadata (empty when it has none)."""
    return cell.metadata.get("nbgrader", {})


def cell_label(notebook: str, index: int, cell: NotebookNode) -> str:
    """``"ex.ipynb, cell 7 (test_add_hidden)"``: the cell's 1-based number and grade id."""
    grade_id = meta(cell).get("grade_id")
    return f"{notebook}, cell {index + 1}" + (f" ({grade_id})" if grade_id else "")


def is_test(cell: NotebookNode) -> bool:
    """An autograded test cell: graded code that is not an answer."""
    return cell.cell_type == "code" and bool(meta(cell).get("grade")) \
        and not meta(cell).get("solution")


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    """Calls of ``name(...)`` or ``something.name(...)`` anywhere in ``tree``."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and (
        getattr(node.func, "id", None) == name or getattr(node.func, "attr", None) == name)]


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


# --- metadata ---------------------------------------------------------------------------------

def _metadata_issue(cell: NotebookNode, seen: Counter) -> str | None:
    """What is wrong with one cell's nbgrader metadata, with the fix (None: nothing)."""
    m = meta(cell)
    graded, answer, locked = m.get("grade"), m.get("solution"), m.get("locked")
    if not m or not (graded or answer or locked):
        return None
    if not m.get("grade_id"):
        return ("has nbgrader metadata but no grade_id: give it a unique one (the answer's "
                "function name, test_<name>_visible, q_<name>, ...)")
    if seen[m["grade_id"]] > 1:
        return f"its grade_id {m['grade_id']!r} is used by another cell too: make it unique"
    if graded and not (isinstance(m.get("points"), int | float) and m["points"] > 0):
        return "is graded but has no points: set \"points\" (a number > 0) in its metadata"
    if answer and locked:
        return "is an answer cell but locked: students could not write in it; set locked: false"
    if graded and not answer and not locked:
        return "is a test cell but not locked: set locked: true, so students cannot edit it"
    try:
        MetadataValidator().validate_cell(copy.deepcopy(cell))
    except Exception as error:  # noqa: BLE001 -- jsonschema's and nbgrader's own errors
        return f"nbgrader rejects its metadata ({str(error).splitlines()[0]}): fix it there"
    return None


def _prompt_issue(nb: NotebookNode, index: int) -> tuple[int, str] | None:
    """Whether the question above the answer cell ``index`` is a locked markdown cell: the
    faulty cell's index and the fix, or None."""
    above = index - 1
    if above < 0 or nb.cells[above].cell_type != "markdown":
        return index, ("has no question above it: put the statement in a markdown cell just "
                       "above, locked, with a grade_id such as q_<name>")
    if not (meta(nb.cells[above]).get("locked") and meta(nb.cells[above]).get("grade_id")):
        return above, ("is the question of an answer but not locked: give it nbgrader metadata "
                       "locked: true and a grade_id (q_<name>), so students cannot change it")
    return None


def metadata_problems(nb: NotebookNode, notebook: str) -> list[Problem]:
    """Missing or inconsistent nbgrader metadata: ids, points, locks, locked questions."""
    seen = Counter(meta(c).get("grade_id") for c in nb.cells
                   if meta(c).get("grade") or meta(c).get("solution") or meta(c).get("locked"))
    found = {}
    for index, cell in enumerate(nb.cells):
        issue = _metadata_issue(cell, seen)
        if issue:
            found[index] = issue
        elif meta(cell).get("solution") and (prompt := _prompt_issue(nb, index)):
            found.setdefault(*prompt)
    return [Problem(cell_label(notebook, index, nb.cells[index]), found[index])
            for index in sorted(found)]


# --- hidden tests ------------------------------------------------------------------------------

def _hidden_regions(source: str) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each BEGIN/END HIDDEN TESTS region; an unclosed region
    runs to the end."""
    regions, start = [], None
    lines = source.splitlines()
    for number, line in enumerate(lines, start=1):
        if BEGIN_HIDDEN in line and start is None:
            start = number
        elif END_HIDDEN in line and start is not None:
            regions.append((start, number))
            start = None
    if start is not None:
        regions.append((start, len(lines)))
    return regions


def _exposed_calls(source: str, tree: ast.Module | None) -> list[int]:
    """Lines of ``hidden_test`` calls outside every hidden region."""
    if tree is None:
        lines = [n for n, line in enumerate(source.splitlines(), 1) if "hidden_test(" in line]
    else:
        lines = [call.lineno for call in _calls(tree, "hidden_test")]
    regions = _hidden_regions(source)
    return [n for n in lines if not any(first < n < last for first, last in regions)]


def placement_problems(nb: NotebookNode, notebook: str) -> list[Problem]:
    """``hidden_test`` calls the release would show, markers that do not pair, hidden regions
    in cells that are not graded."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = cell_label(notebook, index, cell)
        for line in _exposed_calls(cell.source, _parse(cell.source)):
            problems.append(Problem(where, f"hidden_test on line {line} is outside the "
                                    f"### {BEGIN_HIDDEN} / ### {END_HIDDEN} markers, so the "
                                    "release would show it to students: put it between them"))
        begins, ends = cell.source.count(BEGIN_HIDDEN), cell.source.count(END_HIDDEN)
        if begins != ends:
            problems.append(Problem(where, f"has {begins} ### {BEGIN_HIDDEN} and {ends} "
                                    f"### {END_HIDDEN}: close every hidden region"))
        if begins and not is_test(cell):
            problems.append(Problem(where, "has hidden tests but is not a graded test cell: "
                                    "set grade: true, locked: true and points"))
    return problems


def answer_functions(nb: NotebookNode) -> set[str]:
    """Names of the functions the answer cells define (what students write)."""
    found = set()
    for cell in nb.cells:
        tree = _parse(cell.source) if meta(cell).get("solution") else None
        found |= {n.name for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef)}
    return found


def _case(call: ast.Call, source: str, number: int) -> str:
    """``Case("<situation n>", (args,), {kwargs})`` with the call's own argument source."""
    args = "".join(f"{ast.get_source_segment(source, a)}, " for a in call.args)
    kwargs = ", ".join(f"{k.arg!r}: {ast.get_source_segment(source, k.value)}"
                       for k in call.keywords)
    return f'Case("<situation {number}>", ({args.rstrip()})' + (f", {{{kwargs}}})" if kwargs
                                                                   else ")")


def _equivalent_check(tree: ast.Module, source: str, answers: set[str]) -> str:
    """The Check that replaces a cell of plain asserts: one Case per call of an answer
    function in them, with that call's arguments."""
    cases: dict[str, list[str]] = {}
    asserts = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    for call in (c for a in asserts for c in ast.walk(a.test) if isinstance(c, ast.Call)
                 and getattr(c.func, "id", None) in answers):
        found = cases.setdefault(call.func.id, [])
        found.append(_case(call, source, len(found) + 1))
    blocks = []
    for function, listed in (cases or {"<function>": ['Case("<situation>", (<arguments>,))']}
                             ).items():
        rows = "".join(f"\n            {case}," for case in listed)
        blocks.append(f"    # {CHECKS}.py, beside the notebook\n"
                      f"    def {function}() -> Check:\n"
                      f"        return Check(\"{function}\", [{rows}\n        ], "
                      f"reference=reference_{function})\n"
                      f"    # and the cell, between the markers:\n"
                      f"    hidden_test(\"{CHECKS}.{function}\", {function})")
    return "\n".join(blocks)


def _hidden_issue(cell: NotebookNode, answers: set[str], folder: Path) -> str | None:
    """Why a hidden test cell cannot be decided outside the kernel as written."""
    tree = _parse(cell.source)
    if tree is None:
        return "does not parse as Python: fix its syntax"
    key = outside.hidden_key(cell.source)
    if key is None and any(isinstance(n, ast.Assert) for n in ast.walk(tree)):
        return ("is a plain-assert hidden test: it would run in the student's kernel, where "
                "their code can make any assert pass, and give every student the same inputs. "
                "Write it as a Check instead:\n" + _equivalent_check(tree, cell.source, answers))
    if key is None:
        return ("must hold exactly one hidden_test(\"<module>.<checker>\", <function>) call "
                f"between the markers:\n    {HIDDEN_FORM}")
    ignored = [s.lineno for s in tree.body if not isinstance(s, ast.Import | ast.ImportFrom)
               and not (isinstance(s, ast.Expr) and _calls(s, "hidden_test"))]
    if ignored:
        return (f"line {ignored[0]}: grading runs only this cell's hidden_test call, so its "
                "other statements never run: move what they check into the Check")
    try:
        check = load_check(key, folder)
    except Exception as error:  # noqa: BLE001 -- any failure to build the check is the fault
        return _unresolved(key, folder, error)
    passed = _calls(tree, "hidden_test")[0].args[1:2]
    name = getattr(passed[0], "id", None) if passed else None
    if name != check.function:
        return (f"passes {name or 'no function'} to hidden_test, but the check {key} calls "
                f"{check.function!r} in the student's kernel: pass {check.function}")
    if check.function not in answers:
        return (f"checks {check.function!r}, which no answer cell defines: define it in the "
                "answer cell, or give the Check that function's name")
    return None


def _unresolved(key: str, folder: Path, error: Exception) -> str:
    """The message for a checker name that does not resolve, with where to define it."""
    topic, _, checker = key.partition(".")
    home = folder / f"{CHECKS}.py" if topic == CHECKS else f"mllib/grading/{topic}.py"
    return (f"the checker {key!r} does not resolve ({type(error).__name__}: {error}): define "
            f"`def {checker or '<checker>'}() -> Check` in {home}, or name an existing one "
            f"(your own checks are \"{CHECKS}.<checker>\")")


# --- visible tests -----------------------------------------------------------------------------

def _assert_close_issue(call: ast.Call, source: str) -> str | None:
    """What keeps one top-level ``assert_close`` from being read by the grader."""
    if len(call.args) != 3:
        return f"line {call.lineno}: assert_close needs (actual, expected, \"what\")"
    for argument, role in ((call.args[1], "expected value"), (call.args[2], "message")):
        try:
            outside.literal(argument)
        except ValueError:
            return (f"line {call.lineno}: the {role} {ast.get_source_segment(source, argument)}"
                    " is not a literal; the grader compares it outside the student's kernel, "
                    "so type it (numbers, lists, arithmetic such as 1 / 3; a quoted message)")
    if {k.arg for k in call.keywords} - {"tolerance"}:
        return f"line {call.lineno}: assert_close takes only tolerance= as a keyword"
    return None


def _visible_issue(cell: NotebookNode) -> str | None:
    """Why a visible test cell cannot be decided outside the kernel as written."""
    tree = _parse(cell.source)
    if tree is None:
        return "does not parse as Python: fix its syntax"
    top = [s.value for s in tree.body if isinstance(s, ast.Expr)
           and getattr(getattr(s.value, "func", None), "id", None) == "assert_close"]
    for call in top:
        issue = _assert_close_issue(call, cell.source)
        if issue:
            return issue
    dotted = [c.lineno for c in _calls(tree, "assert_close") if isinstance(c.func, ast.Attribute)]
    if dotted:
        return (f"line {dotted[0]}: call assert_close by its name (from mllib.grading import "
                "assert_close): the grader reads only that form")
    nested = [c.lineno for c in _calls(tree, "assert_close") if c not in top]
    if nested:
        return (f"line {nested[0]}: assert_close inside a loop, function or block is not read "
                "by the grader: write one top-level assert_close per value")
    if not top:
        return ("is not a test the grader can decide: write top-level "
                "assert_close(actual, LITERAL, \"what\") calls (a visible test), or one "
                f"hidden_test call between ### {BEGIN_HIDDEN} / ### {END_HIDDEN} markers; a "
                "plain assert would run in the student's kernel, which decides nothing safely"
                + _assert_close_example(tree, cell.source))
    return None


def _assert_close_example(tree: ast.Module, source: str) -> str:
    """``assert actual == expected`` rewritten as the assert_close the grader reads ("" when
    the cell has no assert of that form)."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)
                and [type(op) for op in node.test.ops] == [ast.Eq]):
            actual = ast.get_source_segment(source, node.test.left)
            expected = ast.get_source_segment(source, node.test.comparators[0])
            return f". For example: assert_close({actual}, {expected}, {actual!r})"
    return ""


def test_problems(nb: NotebookNode, notebook: str, folder: Path) -> list[Problem]:
    """Hidden tests that do not resolve or are plain asserts; visible tests not in the form
    the grader reads."""
    answers = answer_functions(nb)
    problems = []
    for index, cell in enumerate(nb.cells):
        if not is_test(cell):
            continue
        hidden = BEGIN_HIDDEN in cell.source
        issue = _hidden_issue(cell, answers, folder) if hidden else _visible_issue(cell)
        if issue:
            problems.append(Problem(cell_label(notebook, index, cell), issue))
    return problems


def todo_problems(nb: NotebookNode, notebook: str) -> list[Problem]:
    """Cells that still hold a TODO the scaffold left."""
    return [Problem(cell_label(notebook, index, cell),
                    f"replace the scaffold's placeholder: {_todo_line(cell.source)}")
            for index, cell in enumerate(nb.cells) if TODO_MARK in cell.source]


def _todo_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if TODO_MARK in line)


def file_problems(folder: Path, release: Path, root: Path) -> list[Problem]:
    """Scaffold TODOs in the assignment's ``checks.py``; a ``checks.py`` in its release."""
    problems = []
    checks, leaked = folder / f"{CHECKS}.py", release / f"{CHECKS}.py"
    if checks.is_file():
        for number, line in enumerate(checks.read_text().splitlines(), start=1):
            if TODO_MARK in line:
                problems.append(Problem(f"{checks.relative_to(root)}, line {number}",
                                        f"replace the scaffold's placeholder: {line.strip()}"))
    if leaked.exists():
        problems.append(Problem(str(leaked.relative_to(root)), "the release holds the hidden "
                                "checks, which students would receive: delete it"))
    return problems


def static_problems(nb: NotebookNode, notebook: str, folder: Path) -> list[Problem]:
    """Everything found without running the notebook."""
    return [*metadata_problems(nb, notebook), *placement_problems(nb, notebook),
            *test_problems(nb, notebook, folder), *todo_problems(nb, notebook)]


# --- running the solution and the blank release ------------------------------------------------

def blank_release(nb: NotebookNode, api: NbGraderAPI) -> NotebookNode:
    """The notebook with every answer replaced as nbgrader's release replaces it; the tests,
    hidden ones included, stay (grading restores them)."""
    blank = copy.deepcopy(nb)
    ClearSolutions(config=api.config).preprocess(blank, {})
    return blank


def graded_run(nb: NotebookNode, api: NbGraderAPI, assignment: str, notebook: str,
               stage: Path) -> NotebookNode:
    """``nb`` executed as grading executes it, in ``stage`` (the assignment's files)."""
    executor = GradingExecute(config=api.config)
    resources = {"metadata": {"path": str(stage)},
                 "nbgrader": {"assignment": assignment, "notebook": Path(notebook).stem}}
    with utils.setenv(NBGRADER_EXECUTION="validate"):
        executed, _ = executor.preprocess(copy.deepcopy(nb), resources)
    return executed


def verdict(cell: NotebookNode) -> str | None:
    """The last error a test cell ended with (None: it passed)."""
    errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
    if not errors:
        return None
    return f"{errors[-1].ename}: {errors[-1].evalue}".strip().rstrip(":") or "an error"


def run_problems(nb: NotebookNode, api: NbGraderAPI, assignment: str, notebook: str,
                 stage: Path) -> list[Problem]:
    """Tests that fail on the solution, or pass on the blank release."""
    solved = graded_run(nb, api, assignment, notebook, stage)
    blank = graded_run(blank_release(nb, api), api, assignment, notebook, stage)
    problems = []
    for index, (mine, theirs) in enumerate(zip(solved.cells, blank.cells, strict=True)):
        if not is_test(mine):
            continue
        where = cell_label(notebook, index, mine)
        failure = verdict(mine)
        if failure:
            problems.append(Problem(where, f"fails on your own solution ({failure}): fix the "
                                    "solution or the test until it passes"))
        if verdict(theirs) is None:
            problems.append(Problem(where, "passes on the blank release (every answer "
                                    "replaced by nbgrader's stub): it must call the student's "
                                    "function, and a Check needs at least one case"))
    return problems


def _stage(folder: Path, ignore: list[str], into: Path) -> Path:
    """The assignment's files as nbgrader copies them next to a submission."""
    copy_tree(folder, into, [*ignore, "*.ipynb"])
    return into


def notebooks(folder: Path) -> Iterator[Path]:
    """The assignment's notebooks, in order."""
    yield from sorted(p for p in folder.glob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def lint(api: NbGraderAPI, assignment: str, run: bool = True) -> list[Problem]:
    """Every problem of ``solutions/<assignment>/`` (see the module); empty when it is fine.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.core.api.make_api` (the course's folders and configuration).
    assignment : str
        Folder name in ``solutions/``.
    run : bool
        Also run each notebook that has tests, on the solution and on the blank release
        (only when nothing else was found in it).

    Returns
    -------
    list of Problem
        In notebook and cell order.
    """
    coursedir = api.coursedir
    folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    if not re.fullmatch(r"[\w.-]+", assignment) or not folder.is_dir():
        raise ValueError(f"no assignment {assignment!r} in {coursedir.source_directory}/")
    release = Path(coursedir.format_path(coursedir.release_directory, ".", assignment))
    root = Path(coursedir.root)
    problems = file_problems(folder, release, root)
    with tempfile.TemporaryDirectory(prefix="course-lint-") as scratch:
        for path in notebooks(folder):
            nb, shown = nbformat.read(path, as_version=4), str(path.relative_to(root))
            found = static_problems(nb, shown, folder)
            if run and not found and any(is_test(cell) for cell in nb.cells):
                stage = _stage(folder, list(coursedir.ignore), Path(scratch) / path.stem)
                found = run_problems(nb, api, assignment, shown, stage)
            problems += found
    return problems
