"""Every lecture notebook runs headless, and the committed student versions are up to date.

Discovered generically: instructor versions are ``solutions/*/*.ipynb``, student versions
(nbgrader's release) ``notebooks/*/*.ipynb``. A notebook without solution or graded cells is a
walk-through. All executions run concurrently in one session fixture, one kernel each.

Walk-throughs run twice: as nbgrader runs them (``NBGRADER_EXECUTION`` set, static frames) and as
a user's ``jupyter nbconvert --execute`` or a site build does (unset, live widgets, with nbclient
as their headless front end). Every cell has a timeout, so a stall fails instead of hanging.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
import os
import pkgutil
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert.filters import strip_ansi
from nbformat import NotebookNode

from grader.authoring.release import without_stamp
from grader.cli import main

REPO = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted(REPO.glob("solutions/*/*.ipynb"))
RELEASED = sorted(REPO.glob("notebooks/*/*.ipynb"))
CELL_TIMEOUT = 60  # seconds per cell; a hanging widget fails instead of blocking the suite
PARALLEL_KERNELS = 3
# The code stub `course release` leaves for a blank solution region (grader/nbgrader_config.py)
STUB = 'raise NotImplementedError("not answered yet")'
IGNORED = {".ipynb_checkpoints", "__pycache__"}


def read(path: Path) -> NotebookNode:
    return nbformat.read(path, as_version=4)


def nbgrader_meta(cell: NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


def is_walkthrough(path: Path) -> bool:
    """True when the notebook has no solution or graded cells."""
    return not any(
        nbgrader_meta(c).get("solution") or nbgrader_meta(c).get("grade") for c in read(path).cells
    )


def label(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def source_of(released: Path) -> Path:
    """The instructor version in solutions/ of a notebook in notebooks/."""
    return REPO / "solutions" / released.relative_to(REPO / "notebooks")


def code(path: Path) -> list[str]:
    return [c.source for c in read(path).cells if c.cell_type == "code"]


WALKTHROUGHS = [p for p in SOLUTIONS if is_walkthrough(p)]
# A walk-through runs here twice. With NBGRADER_EXECUTION set, every cell runs and each widget
# draws its first frame as a static figure (mllib.demos.explore) instead of waiting for a
# browser. Without it, the widgets are live and nbclient plays their front end, as in a user's
# `jupyter nbconvert --execute`; tests/test_browser.py runs them in JupyterLab and moves a
# slider. A released walk-through whose code is its source's is not run again
# (test_student_notebook_fails_only_where_unanswered checks the code is the same).
SAME_AS_SOURCE = {p for p in RELEASED
                  if source_of(p) in WALKTHROUGHS and code(p) == code(source_of(p))}
EXERCISE_NOTEBOOKS = [p for p in SOLUTIONS + RELEASED
                      if p not in WALKTHROUGHS and p not in SAME_AS_SOURCE]
# Lecture 13's coin widget stalled headless execution in about 8 of 25 runs before explore()
# stopped asking the front end to capture output (see test_live_widgets_never_ask_for_capture).
# Its cell alone, in a fresh kernel each time: a stall fails the run at CELL_TIMEOUT.
COIN_CELL = REPO / "solutions" / "13_bayesnet" / "bayesnet_walkthrough.ipynb", "coin_explorer()"
COIN_REPEATS = 6
# (notebook, value of NBGRADER_EXECUTION or None for unset)
RUNS = ([(p, None) for p in EXERCISE_NOTEBOOKS] + [(p, "autograde") for p in WALKTHROUGHS]
        + [(p, None) for p in WALKTHROUGHS])
# (the cell, repeat): the first code cell (the imports) and that cell, live widgets
CELL_RUNS = [(COIN_CELL, i) for i in range(COIN_REPEATS)]
# A kernel that fails to start never ran the notebook: kernels started at the same moment can
# pick the same ports (CI: "Kernel died before replying to kernel_info" for one of ~45
# concurrent runs; under load also nbclient's "assert self.km is not None"). A run in which no
# cell began is started again, once; any failure after a cell began is the notebook's.
KERNEL_STARTS = 2
CAPTURES = "output_captures"  # metadata key: msg_ids a live widget asked nbclient to capture


class HeadlessFrontEnd(NotebookClient):
    """nbclient, recording every output capture a widget asks of it in ``nb.metadata``.

    An ``ipywidgets.Output`` displayed into (``with out:``) asks the front end to capture the
    cell's display messages and to send them back to the kernel as the widget's state.
    nbclient sends that state through a plain shadow of its asyncio shell socket
    (jupyter_client's ``Session.send``); when the execute reply has just arrived, the send
    consumes the socket's wake-up and the wait for the reply never ends. A live widget that
    never asks for a capture cannot stall headless execution that way.
    """

    def register_output_hook(self, msg_id, hook) -> None:
        self.nb.metadata.setdefault(CAPTURES, []).append(msg_id)
        super().register_output_hook(msg_id, hook)


async def run_cells(
    nb: NotebookNode, folder: Path, nbgrader_execution: str | None, slots: asyncio.Semaphore
) -> NotebookNode:
    """Run every cell of ``nb`` (errors recorded, not raised) in ``folder``."""
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    if nbgrader_execution:
        env["NBGRADER_EXECUTION"] = nbgrader_execution
    async with slots:
        for start in range(1, KERNEL_STARTS + 1):
            client = HeadlessFrontEnd(
                nb,
                timeout=CELL_TIMEOUT,
                kernel_name="python3",
                allow_errors=True,
                resources={"metadata": {"path": str(folder)}},
            )
            try:
                await client.async_execute(env=env)
            except Exception:
                if not any_cell_began(nb) and start < KERNEL_STARTS:
                    continue
                raise
            return nb


def any_cell_began(nb: NotebookNode) -> bool:
    """Whether the kernel announced any cell's execution (nbclient sets the count on the
    kernel's ``execute_input``, before the cell's code runs)."""
    return any(cell.get("execution_count") for cell in nb.cells if cell.cell_type == "code")


async def execute(
    path: Path, nbgrader_execution: str | None, slots: asyncio.Semaphore
) -> NotebookNode:
    """Run every cell of ``path`` in its own folder."""
    return await run_cells(read(path), path.parent, nbgrader_execution, slots)


def cut_down(path: Path, text: str) -> NotebookNode:
    """``path`` with only its first code cell (the imports) and the code cell containing
    ``text``."""
    nb = read(path)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    nb.cells = [cells[0], next(c for c in cells if text in c.source)]
    return nb


@pytest.fixture(scope="session")
def executed() -> dict[tuple, NotebookNode | BaseException]:
    """Every run of ``RUNS`` and ``CELL_RUNS``, executed concurrently: the notebook with
    outputs, or the exception (a cell past its timeout raises)."""

    async def run_all() -> list[NotebookNode | BaseException]:
        slots = asyncio.Semaphore(PARALLEL_KERNELS)
        jobs = [execute(path, mode, slots) for path, mode in RUNS]
        jobs += [run_cells(cut_down(*cell), cell[0].parent, None, slots) for cell, _ in CELL_RUNS]
        return await asyncio.gather(*jobs, return_exceptions=True)

    return dict(zip(RUNS + CELL_RUNS, asyncio.run(run_all()), strict=True))


def errors(nb: NotebookNode) -> list[tuple[int, NotebookNode, NotebookNode]]:
    """(cell index, cell, error output) for every error output in the notebook."""
    return [
        (i, cell, out)
        for i, cell in enumerate(nb.cells)
        for out in cell.get("outputs", [])
        if out.output_type == "error"
    ]


def describe(i: int, cell: NotebookNode, out: NotebookNode) -> str:
    return (
        f"cell {i} ({nbgrader_meta(cell).get('grade_id', 'ungraded')}): {out.ename}: {out.evalue}"
    )


def result_of(executed: dict, path: Path, mode: str | None) -> NotebookNode:
    result = executed[(path, mode)]
    if isinstance(result, BaseException):
        pytest.fail(f"{label(path)} did not run: {type(result).__name__}: {result}")
    return result


@pytest.mark.parametrize("path", [p for p in SOLUTIONS if p not in WALKTHROUGHS], ids=label)
def test_solution_notebook_runs_without_error(executed: dict, path: Path) -> None:
    failures = [describe(*e) for e in errors(result_of(executed, path, None))]
    assert not failures, f"{label(path)} raised:\n" + "\n".join(failures)


@pytest.mark.parametrize("mode", ["autograde", None], ids=["autograde", "live-widgets"])
@pytest.mark.parametrize("path", WALKTHROUGHS, ids=label)
def test_walkthrough_runs(executed: dict, path: Path, mode: str | None) -> None:
    """Every cell completes within CELL_TIMEOUT, without error: as nbgrader runs it
    (NBGRADER_EXECUTION set; widgets must not hang or fail then) and as `jupyter nbconvert
    --execute` runs it (unset: live widgets)."""
    failures = [describe(*e) for e in errors(result_of(executed, path, mode))]
    assert not failures, f"{label(path)} with NBGRADER_EXECUTION={mode} raised:\n" + "\n".join(
        failures
    )


@pytest.mark.parametrize("mode", ["autograde", None], ids=["autograde", "live-widgets"])
@pytest.mark.parametrize("path", WALKTHROUGHS, ids=label)
def test_every_figure_says_what_its_data_show(executed: dict, path: Path, mode: str | None):
    """Every image a walk-through shows (figures, widgets' first frames) carries an alt text in
    its output metadata, written from its data by mllib.plotting.describe: not missing, and not
    the fallback built from titles alone ("Figure: ...")."""
    missing = []
    for i, cell in enumerate(result_of(executed, path, mode).cells):
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                alt = out.get("metadata", {}).get("image/png", {}).get("alt", "")
                if not alt or alt.startswith("Figure: "):
                    missing.append(f"cell {i}: {alt or 'no alt text'}")
    assert not missing, f"{label(path)}: figures not described:\n" + "\n".join(missing)


def figure_makers() -> set[str]:
    """Names of the ``mllib.demos`` functions annotated to return a matplotlib ``Figure``."""
    import mllib.demos

    names = set()
    for info in pkgutil.iter_modules(mllib.demos.__path__):
        module = importlib.import_module(f"mllib.demos.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            returned = inspect.signature(function).return_annotation
            if (returned if isinstance(returned, str) else getattr(returned, "__name__", "")) \
                    == "Figure":
                names.add(name)
    return names


def called_name(node: ast.AST) -> str | None:
    """``f`` for a call ``f(...)`` or ``module.f(...)``, else None."""
    if not isinstance(node, ast.Call):
        return None
    function = node.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)


def figure_calls(source: str, makers: set[str]) -> tuple[list[str], list[str]]:
    """The figure-making calls of a code cell: (shown, dropped). A call is shown when it is the
    cell's last statement or the argument of ``display``; any other bare call is dropped."""
    tree = ast.parse("\n".join(line for line in source.splitlines()
                               if not line.lstrip().startswith(("%", "!"))))
    last = tree.body[-1] if tree.body else None
    shown, dropped = [], []
    for node in ast.walk(tree):
        if called_name(node) == "display":
            shown += [ast.unparse(a) for a in node.args if called_name(a) in makers]
        elif isinstance(node, ast.Expr) and called_name(node.value) in makers:
            (shown if node is last else dropped).append(ast.unparse(node.value))
    return shown, dropped


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.parent.name)
def test_no_figure_is_built_and_dropped(path: Path) -> None:
    """mllib's figures are bare matplotlib Figures, which the inline backend shows only when
    they are displayed: a figure-making call in the middle of a cell draws nothing (review r11
    of lecture 02: the race figure its prose described never appeared)."""
    makers = figure_makers()
    dropped = [f"cell {i}: {call}" for i, cell in enumerate(read(path).cells)
               if cell.cell_type == "code" for call in figure_calls(cell.source, makers)[1]]
    assert not dropped, f"{label(path)}: figures built and never displayed:\n" + "\n".join(dropped)


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=label)
def test_every_figure_a_walkthrough_displays_is_in_its_output(executed: dict, path: Path):
    """A cell that displays a figure-making call has an image among its outputs (as nbgrader
    runs it)."""
    makers = figure_makers()
    blank = [f"cell {i}: {shown[0]}"
             for i, cell in enumerate(result_of(executed, path, "autograde").cells)
             if cell.cell_type == "code" and (shown := figure_calls(cell.source, makers)[0])
             and not any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))]
    assert not blank, f"{label(path)}: no image from:\n" + "\n".join(blank)


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=label)
def test_live_widgets_never_ask_for_capture(executed: dict, path: Path) -> None:
    """No widget makes the headless front end send output back to the kernel (the send that
    races the execute reply, see HeadlessFrontEnd): explore() sets its output widget's state
    from the kernel instead of displaying into it."""
    captures = result_of(executed, path, None).metadata.get(CAPTURES, [])
    assert not captures, f"{label(path)}: {len(captures)} output capture(s) asked of nbclient"


@pytest.mark.parametrize("repeat", range(COIN_REPEATS))
def test_coin_widget_cell_completes_in_a_fresh_kernel(executed: dict, repeat: int) -> None:
    result = executed[(COIN_CELL, repeat)]
    assert not isinstance(result, BaseException), (
        f"the coin widget's cell did not complete: {type(result).__name__}: {result}")
    assert not errors(result), [describe(*e) for e in errors(result)]


def raised_by_stub(out: NotebookNode) -> bool:
    """True when the innermost frame of the traceback is nbgrader's stub line."""
    marked = [ln for ln in strip_ansi("\n".join(out.traceback)).splitlines() if "---->" in ln]
    return (
        out.ename == "NotImplementedError" and bool(marked) and marked[-1].rstrip().endswith(STUB)
    )


def bound_names(source: str) -> set[str]:
    """Names a cell binds at module level (assignments, defs, classes, imports)."""
    names = set()
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        else:
            names.update(
                n.id
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return names


def unexplained_errors(student: NotebookNode, solution: NotebookNode) -> list[str]:
    """Errors in an executed student notebook that an unanswered exercise does not explain.

    Allowed: a ``NotImplementedError`` raised by nbgrader's stub (in a solution cell or in a
    function a later cell calls), and a ``NameError`` for a name that the solution version of
    a solution cell binds, after that cell itself stopped at its stub. Anything else fails.
    """
    solution_sources = {
        nbgrader_meta(c)["grade_id"]: c.source
        for c in solution.cells
        if nbgrader_meta(c).get("solution")
    }
    unanswered: set[str] = set()
    problems = []
    for i, cell, out in errors(student):
        meta = nbgrader_meta(cell)
        if raised_by_stub(out):
            if meta.get("solution"):
                unanswered |= bound_names(solution_sources[meta["grade_id"]])
            continue
        missing = re.fullmatch(r"name '(\w+)' is not defined", out.evalue)
        if out.ename == "NameError" and missing and missing.group(1) in unanswered:
            continue
        problems.append(describe(i, cell, out))
    return problems


@pytest.mark.parametrize("path", RELEASED, ids=label)
def test_student_notebook_fails_only_where_unanswered(executed: dict, path: Path) -> None:
    source = source_of(path)
    assert source.exists(), f"{label(path)} has no source in solutions/: run `make notebooks`"
    if source in WALKTHROUGHS:
        assert code(path) == code(source), f"{label(path)}: run `make notebooks`"
    run = (source, "autograde") if path in SAME_AS_SOURCE else (path, None)
    problems = unexplained_errors(result_of(executed, *run), read(source))
    assert not problems, (
        f"{label(path)} has errors that an unanswered exercise does not explain:\n"
        + "\n".join(problems)
    )


def release_files(folder: Path) -> dict[str, Path]:
    return {
        p.relative_to(folder).as_posix(): p
        for p in folder.rglob("*")
        if p.is_file() and not IGNORED & set(p.relative_to(folder).parts)
    }


def test_committed_student_notebooks_match_a_fresh_release(
    copy_course: Callable[..., Path],
) -> None:
    root = copy_course("solutions")
    # --no-run: release lints first, and running every notebook on its solution and blank
    # release is what this module's executions and tests/test_grading.py already check.
    assert main(["--course-root", str(root), "release", "--no-run"]) == 0
    fresh, committed = release_files(root / "notebooks"), release_files(REPO / "notebooks")
    hint = "notebooks/ is out of date with solutions/: run `make notebooks` and commit the result"
    assert sorted(committed) == sorted(fresh), hint
    stale = []
    for rel, path in fresh.items():
        if path.suffix == ".ipynb":  # the hidden checks' record is the committed release's own
            same = without_stamp(path) == without_stamp(committed[rel])
        else:
            same = path.read_bytes() == committed[rel].read_bytes()
        if not same:
            stale.append(rel)
    assert not stale, f"{hint} (differs: {', '.join(stale)})"


@pytest.mark.parametrize("path", SOLUTIONS + RELEASED, ids=label)
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    dirty = [
        i
        for i, cell in enumerate(read(path).cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, f"{label(path)}: cells {dirty} have outputs or execution counts; clear them"


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.parent.name)
def test_a_summary_heading_is_followed_by_its_summary(path: Path) -> None:
    """A "## Summary" heading carries the summary (bullets or a table) after it, not before."""
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "markdown")
    if "## Summary" not in text:
        return
    after = text.split("## Summary", 1)[1]
    assert re.search(r"^(\* |\| )", after, flags=re.MULTILINE), f"{path.name}: empty Summary"


# A walk-through is one session: its core, every Markdown cell before an optional part, runs to
# at most about 3,000 words (issue 36). The optional part starts with a heading that says so in
# the notebook and, rendered as a heading by MyST-NB, on the site.
OPTIONAL_HEADING = "## Going further (optional)"
CORE_WORDS = 3000


def core_and_optional(path: Path) -> tuple[list[NotebookNode], list[NotebookNode]]:
    cells = read(path).cells
    starts = [i for i, c in enumerate(cells)
              if c.cell_type == "markdown" and c.source.startswith(OPTIONAL_HEADING)]
    assert len(starts) <= 1, f"{path.name}: more than one optional part"
    return (cells[:starts[0]], cells[starts[0]:]) if starts else (cells, [])


@pytest.mark.parametrize("path", WALKTHROUGHS, ids=lambda p: p.parent.name)
def test_a_walkthroughs_core_fits_one_session(path: Path) -> None:
    core, optional = core_and_optional(path)
    words = sum(len(c.source.split()) for c in core if c.cell_type == "markdown")
    assert words <= CORE_WORDS, f"{path.name}: the core has {words} words of prose"
    if optional:
        assert "Not part of the lecture's core" in optional[0].source
        assert OPTIONAL_HEADING.removeprefix("## ") in core[0].source or \
            "optional part" in core[0].source  # the introduction announces it
