"""Hostile submissions: repair what would break grading, flag what grading cannot prevent.

Tests run in the student's own kernel, so a submission can change anything the tests rely on
before they run (``np.max = ...``, ``sys.modules[...]``, IPython's input transformers, ...).
Nothing inside the kernel can rule that out; instead :func:`scan` reads the submitted code
statically and lists every such place for the instructor. :func:`repair` fixes the notebook
structure before nbgrader grades it (see :class:`grader.pipeline.preprocessors.RepairSubmission`).

Policy for answers that call ``mllib`` (the course library, which solves every exercise): they
are **flagged, and keep the credit the tests give**. A scan cannot tell a solution copied from
``mllib`` from, say, test data built with ``mllib.data``; the instructor reads the flagged line
and, to withdraw credit, overrides the cell's score in the formgrader.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

from nbformat import NotebookNode

# Qualified names (after resolving import aliases) a submission has no business using.
KILLS = ("os._exit", "os.kill", "os.killpg", "os.abort", "sys.exit", "exit", "quit", "signal")
HOOKS = ("sys.modules", "sys.excepthook", "sys.settrace", "sys.setprofile", "sys._getframe",
         "sys.meta_path", "get_ipython", "__builtins__", "builtins", "ctypes", "gc", "inspect")
DYNAMIC = ("exec", "eval", "compile", "__import__", "globals", "vars", "importlib")
SHELL_PREFIXES = ("!", "%%bash", "%%sh", "%%script", "%system", "%sx")
# nbgrader metadata that decides grading (checksum and cell_type are bookkeeping)
GRADING_KEYS = ("grade", "solution", "locked", "points", "task")


@dataclass(frozen=True)
class Flag:
    """One reason to look at a submission: where, why, and the line of code (if any)."""

    cell: str
    reason: str
    code: str = ""


def nbgrader_meta(cell: NotebookNode) -> dict:
    """The cell's nbgrader metadata (empty when it has none)."""
    return cell.metadata.get("nbgrader", {})


def grade_id(cell: NotebookNode) -> str | None:
    """The cell's nbgrader ``grade_id``, or None."""
    return nbgrader_meta(cell).get("grade_id")


def _defined_functions(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def _same_cell(ref: NotebookNode, cell: NotebookNode) -> bool:
    """Whether a cell without metadata is the release cell ``ref``, judged by its content."""
    if nbgrader_meta(ref).get("locked"):
        return cell.source.strip() == ref.source.strip()
    names = _defined_functions(ref.source) if ref.cell_type == "code" else set()
    return bool(names) and names <= _defined_functions(cell.source)


def _by_id_or_content(nb, reference, gid, unlabeled):
    """The unlabeled cell with the release cell's id, else the first with its content."""
    ref = reference[gid]
    return next((c for c in unlabeled if c.get("id") and c.get("id") == ref.get("id")),
                None) or next((c for c in unlabeled if _same_cell(ref, c)), None)


def _by_position(nb, reference, gid, unlabeled):
    """The only unlabeled cell of the right type between the release cell's neighbours."""
    order = list(reference)
    here = {grade_id(c): i for i, c in enumerate(nb.cells) if grade_id(c)}
    before = [here[g] for g in order[: order.index(gid)] if g in here]
    after = [here[g] for g in order[order.index(gid) + 1:] if g in here]
    low, high = max(before, default=-1), min(after, default=len(nb.cells))
    position = {id(c): i for i, c in enumerate(nb.cells)}
    candidates = [c for c in unlabeled if c.cell_type == reference[gid].cell_type
                  and low < position[id(c)] < high]
    return candidates[0] if len(candidates) == 1 else None


def repair(nb: NotebookNode, release: NotebookNode) -> list[tuple[str, str]]:
    """Give ``nb`` the nbgrader cell structure of ``release``, in place.

    1. nbgrader metadata the release does not have (an invented graded cell, a duplicate) is
       dropped; metadata of a known cell is reset to the release's (points, locked, grade).
    2. A cell without metadata gets that of the release cell it is: the cell with the same id;
       else the first with the same source (locked cells) or defining the same functions
       (code answers); else the only cell of its type between the release cell's neighbours.
    3. A graded cell still missing (deleted test cell or written answer) is re-inserted from the
       release just before the next release cell present, or at the end, so it runs after the
       student's code. ``OverwriteCells`` then restores hidden tests from the gradebook.

    Parameters
    ----------
    nb : NotebookNode
        The submitted notebook; modified in place.
    release : NotebookNode
        The released student version of the same notebook.

    Returns
    -------
    list of (str, str)
        ``(grade_id or "cell N", what was changed)`` for every repair.
    """
    reference = {grade_id(c): c for c in release.cells if grade_id(c)}
    changes: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, cell in reversed(list(enumerate(nb.cells, start=1))):  # nbgrader keeps the last
        meta, gid = nbgrader_meta(cell), grade_id(cell)
        if not meta:
            continue
        if gid not in reference or gid in seen:
            del cell.metadata["nbgrader"]
            changes.append((gid or f"cell {number}", "nbgrader metadata not in the release, "
                                                     "ignored (graded as a plain cell)"))
            continue
        seen.add(gid)
        want = nbgrader_meta(reference[gid])
        diff = [f"{key} {meta.get(key)!r} -> {want.get(key)!r}" for key in GRADING_KEYS
                if meta.get(key) != want.get(key)]
        cell.metadata["nbgrader"] = copy.deepcopy(want)
        if diff:
            changes.append((gid, "nbgrader metadata restored: " + ", ".join(diff)))

    unlabeled = [c for c in nb.cells if not nbgrader_meta(c)]
    for find in (_by_id_or_content, _by_position):
        for gid, ref in reference.items():
            match = None if gid in seen else find(nb, reference, gid, unlabeled)
            if match is not None:
                unlabeled = [c for c in unlabeled if c is not match]
                match.metadata["nbgrader"] = copy.deepcopy(nbgrader_meta(ref))
                seen.add(gid)
                changes.append((gid, "nbgrader metadata missing, restored from the release"))

    order = list(reference)
    ids = {c.get("id") for c in nb.cells}
    for position, gid in enumerate(order):
        if gid in seen or not nbgrader_meta(reference[gid]).get("grade"):
            continue
        later = [i for i, c in enumerate(nb.cells) if grade_id(c) in order[position + 1:]]
        cell = copy.deepcopy(reference[gid])
        if cell.get("id") in ids:
            cell.id = f"{cell.id}-restored"
        nb.cells.insert(later[0] if later else len(nb.cells), cell)
        seen.add(gid)
        changes.append((gid, "graded cell missing, re-inserted from the release"))
    return changes


def _walk_top_level(tree: ast.AST) -> Iterator[ast.stmt]:
    """Statements that run at cell level (not inside a function or class body)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.stmt):
            yield node
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield from _walk_top_level(node)


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a cell-level statement binds in the notebook's namespace."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets = {
        ast.Assign: lambda s: s.targets, ast.AugAssign: lambda s: [s.target],
        ast.AnnAssign: lambda s: [s.target], ast.For: lambda s: [s.target],
        ast.With: lambda s: [i.optional_vars for i in s.items if i.optional_vars],
    }.get(type(stmt), lambda s: [])(stmt)
    return {n.id for t in targets for n in ast.walk(t)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _parse(source: str) -> ast.Module | None:
    """Parse a cell, blanking IPython magics and shell escapes (line numbers kept)."""
    lines = ["" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _aliases(cells: list[NotebookNode]) -> dict[str, str]:
    """Every import alias in the notebook -> the qualified name it stands for."""
    aliases = {}
    for cell in cells:
        tree = _parse(cell.source) if cell.cell_type == "code" else None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                        a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _tested_names(source: NotebookNode, release: NotebookNode) -> set[str]:
    """Names the test cells read but neither bind themselves nor ask the student to define."""
    answers = set().union(*(_defined_functions(c.source) for c in release.cells
                            if c.cell_type == "code" and nbgrader_meta(c).get("solution")))
    names: set[str] = set()
    for cell in source.cells:
        meta = nbgrader_meta(cell)
        tree = _parse(cell.source) if cell.cell_type == "code" and meta.get("grade") and \
            not meta.get("solution") else None
        if tree:
            bound = set().union(*map(_bound_names, _walk_top_level(tree)))
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - bound
    return names - answers


def _matches(qualified: str | None, patterns: tuple[str, ...]) -> str | None:
    if qualified is None:
        return None
    return next((p for p in patterns if qualified == p or qualified.startswith(p + ".")), None)


class _Scanner:
    """Collects :class:`Flag` s for the code of one submission."""

    def __init__(self, aliases: dict[str, str], tested: set[str], given: dict[str, str],
                 release_lines: set[str]):
        self.aliases, self.tested, self.given = aliases, tested, given
        self.release_lines = release_lines
        self.flags: list[Flag] = []
        self.inner: set[int] = set()

    def qualified(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def root(self, node: ast.AST) -> str | None:
        while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
            node = node.func if isinstance(node, ast.Call) else node.value
        return node.id if isinstance(node, ast.Name) else None

    def changed(self, target: ast.AST) -> str | None:
        """Why assigning to (or deleting) ``target`` is suspicious, if it is."""
        if isinstance(target, ast.Tuple | ast.List):
            return next(filter(None, map(self.changed, target.elts)), None)
        if not isinstance(target, ast.Attribute | ast.Subscript):
            return None
        root = self.root(target)
        if root in self.aliases or root == "__builtins__":
            return f"monkeypatches {ast.unparse(target)}"
        if root in self.tested:
            return f"modifies {root}, which the tests use"
        return None

    def reasons(self, node: ast.AST) -> Iterator[str]:
        """Every suspicious thing one syntax node does."""
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""]
            if any(_matches(m, ("mllib",)) for m in modules):
                yield "uses mllib, the course library"
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            yield from filter(None, map(self.changed, targets))
        elif isinstance(node, ast.Call):
            name = self.qualified(node.func)
            if name in ("setattr", "delattr") and node.args and (
                    self.root(node.args[0]) in self.aliases):
                yield f"monkeypatches {ast.unparse(node.args[0])} with {name}"
            if _matches(name, ("mllib",)) and self.root(node.func) not in self.given:
                yield "uses mllib, the course library"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            if self.qualified(node.exc.func if isinstance(node.exc, ast.Call) else node.exc) in (
                    "SystemExit", "KeyboardInterrupt"):
                yield "can stop the kernel (raises SystemExit or KeyboardInterrupt)"
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in self.inner:
            name = self.qualified(node)
            for patterns, reason in ((KILLS, "can stop the kernel"),
                                     (HOOKS, "reaches into the interpreter"),
                                     (DYNAMIC, "runs code built at run time")):
                if _matches(name, patterns):
                    yield f"{reason} ({name})"

    def scan_cell(self, label: str, source: str) -> None:
        """Flag every suspicious line of one student code cell."""
        lines = source.splitlines()
        found: list[tuple[int, str]] = [
            (number, "runs a shell command") for number, line in enumerate(lines, start=1)
            if line.lstrip().startswith(SHELL_PREFIXES)
        ]
        tree = _parse(source)
        if tree is not None:
            # only whole attribute chains: `np.random.seed`, not also `np.random` and `np`
            self.inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            found += [(node.lineno, reason) for node in ast.walk(tree)
                      for reason in self.reasons(node)]
            found += [(stmt.lineno, f"redefines {name}, which the tests use")
                      for stmt in _walk_top_level(tree)
                      for name in sorted(_bound_names(stmt) & self.tested)]
        for number, reason in sorted(set(found)):
            code = lines[number - 1].strip()
            if code not in self.release_lines:
                self.flags.append(Flag(label, reason, code))


def scan(submitted: NotebookNode, release: NotebookNode, source: NotebookNode) -> list[Flag]:
    """Everything in a submission the instructor should look at.

    Parameters
    ----------
    submitted : NotebookNode
        The notebook as the student submitted it (not modified).
    release : NotebookNode
        The student version it was released as.
    source : NotebookNode
        The instructor version (with the hidden tests), to know which names the tests use.

    Returns
    -------
    list of Flag
        The repairs :func:`repair` makes, locked cells the student edited (graded with the
        original anyway), and, in the code the student wrote, every line that ends the kernel,
        monkeypatches a module or builtins, reaches into the interpreter (``sys.modules``,
        ``get_ipython``, ...), builds code at run time, rebinds or modifies a name the tests
        use, runs a shell command, or uses ``mllib``. Lines that are in the release are not
        the student's and are not flagged.
    """
    nb = copy.deepcopy(submitted)
    flags = [Flag(where, what) for where, what in repair(nb, release)]
    reference = {grade_id(c): c for c in release.cells if grade_id(c)}
    code_cells = [c for c in [*release.cells, *nb.cells] if c.cell_type == "code"]
    scanner = _Scanner(
        _aliases(code_cells),
        _tested_names(source, release),
        _aliases([c for c in release.cells if c.cell_type == "code"]),
        {ln.strip() for c in release.cells if c.cell_type == "code"
         for ln in c.source.splitlines()},
    )
    for number, cell in enumerate(nb.cells, start=1):
        gid = grade_id(cell)
        if gid and nbgrader_meta(cell).get("locked"):
            if cell.source.strip() != reference[gid].source.strip():
                flags.append(Flag(gid, "edited a locked cell (graded with the original)"))
        elif cell.cell_type == "code":
            scanner.scan_cell(gid or f"cell {number}", cell.source)
    return flags + scanner.flags
