"""Submissions that try to learn or skip the hidden tests, built for any exercise notebook.

* :func:`lookup_table` answers every exercise from a table of the published examples: the
  visible tests' calls and what the instructor's solution returned (or raised) on them, which
  is what a student can copy from the tests' literals. It implements nothing: on any other
  input it returns None.
* :func:`stash` makes any submission's functions also record their arguments every way a
  later cell, or the end of the kernel, could show them to the student: a global list, a class
  attribute, a file in the working folder, stderr (Python's and the raw file descriptor), a
  display updated in place, a widget's state and an ``atexit`` handler. A cell added at the end
  prints what was recorded.

:func:`shown` is how the stash writes an array; :func:`hidden_arrays` writes a student's hidden
inputs the same way, so a test can count how many of them reached a page.
"""

from __future__ import annotations

import copy
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from grader.pipeline import outside, secret
from mllib.grading import load_check, variant, wire

REPO = Path(__file__).resolve().parents[1]
TAGS = ("GLOBAL", "CLASS", "FILE", "STDERR", "FD", "DISPLAY", "WIDGET", "ATEXIT")

# Runs both here and in the kernel (a submission's first answer cell): the table's key of a
# call, and how an array of the arguments is written.
KEY_SOURCE = '''
import numpy as _np


def _key(value):
    """A hashable stand-in for a call's arguments: numbers rounded, arrays as nested tuples."""
    if isinstance(value, dict):
        return ("d", tuple(sorted((repr(k), _key(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple, _np.ndarray)):
        try:
            numbers = _np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return ("s", tuple(_key(v) for v in value))
        return ("a", numbers.shape, tuple(_np.round(numbers, 9).ravel().tolist()))
    if isinstance(value, (bool, int, float, _np.number)):
        return round(float(value), 9)
    return repr(value) if isinstance(value, str) or value is None else type(value).__name__


def _leaves(value):
    """The arrays of numbers among a call's arguments (at least two numbers each)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, _np.ndarray)):
        try:
            numbers = _np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return [leaf for v in value for leaf in _leaves(v)]
        return [numbers] if numbers.size > 1 else []
    entries = getattr(value, "entries", None)  # a lookup table given as an argument
    return _leaves(list(entries)) if isinstance(entries, list) else []


def _shown(array):
    """How the stash writes an array: its first eight numbers to six decimals."""
    return "[[" + " ".join(f"{v:.6f}" for v in array.ravel()[:8]) + "]]"
'''
_HERE: dict = {}
exec(KEY_SOURCE, _HERE)  # noqa: S102 -- this module's own code, shared with the kernel
key, leaves, shown = _HERE["_key"], _HERE["_leaves"], _HERE["_shown"]

LOOKUP_SOURCE = '''
import builtins as _builtins

from mllib.grading import wire as _wire


def _lookup(name, table):
    """A function that knows only the published examples of ``name``."""
    def answer(*args, **kwargs):
        kind, data = table.get(_key((args, kwargs)), ("value", "null"))
        if kind == "raise":
            raise getattr(_builtins, data, ValueError)("one of the published examples")
        return _wire.loads(data)
    answer.__name__ = name
    return answer
'''
STASH_SOURCE = KEY_SOURCE + '''
import functools
import atexit
import os
import sys

from IPython.display import display, update_display

_STASH = []


class _Stash:
    seen = []


_WIDGET = []
display("DISPLAY-LEAK nothing yet", display_id="mlcourse-stash")


def _record(args, kwargs):
    text = " ".join(_shown(leaf) for leaf in _leaves((args, kwargs)))
    _STASH.append(text)
    _Stash.seen.append(text)
    with open("stash.txt", "a") as stash:
        stash.write(text + "\\n")
    print("STDERR-LEAK", text, file=sys.stderr)
    os.write(2, ("FD-LEAK " + text + "\\n").encode())
    update_display("DISPLAY-LEAK " + " ".join(_STASH), display_id="mlcourse-stash")
    try:
        import ipywidgets
        if not _WIDGET:
            _WIDGET.append(ipywidgets.Textarea())
        _WIDGET[0].value = "WIDGET-LEAK " + " ".join(_STASH)
    except ImportError:
        pass


def _stashing(function):
    """``function``, recording its arguments before it answers."""
    @functools.wraps(function)
    def recorded(*args, **kwargs):
        _record(args, kwargs)
        return function(*args, **kwargs)
    return recorded


atexit.register(lambda: print("ATEXIT-LEAK", " ".join(_STASH)))
'''
READ_STASH = '''
print("GLOBAL-LEAK", " ".join(_STASH))
print("CLASS-LEAK", " ".join(_Stash.seen))
if os.path.exists("stash.txt"):
    print("FILE-LEAK", open("stash.txt").read())
'''


def exercise_notebook(assignment: str, folder: str = "solutions") -> Path:
    return next((REPO / folder / assignment).glob("*_exercises.ipynb"))


def _meta(cell: NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


def _defined(source: str) -> list[str]:
    return re.findall(r"^def (\w+)\(", source, re.MULTILINE)


@dataclass(frozen=True)
class Published:
    """What the visible tests of a notebook publish.

    ``tables``: function -> {key of a call a visible test makes: ``("value", wire JSON)`` or
    ``("raise", exception type name)``}; ``arrays``: the arrays of those calls' arguments,
    written as the stash writes them.
    """

    tables: dict[str, dict]
    arrays: frozenset[str]


@functools.cache
def published_examples(assignment: str) -> Published:
    """The calls the visible tests make and what the instructor's solution answers, from
    running the instructor's notebook here."""
    nb = nbformat.read(exercise_notebook(assignment), as_version=4)
    namespace: dict = {"__name__": "__main__"}
    tables: dict[str, dict] = {}
    calls: list[tuple] = []
    answers: list[str] = []
    for cell in nb.cells:
        meta = _meta(cell)
        if cell.cell_type != "code" or outside.HIDDEN_MARK in cell.source:
            continue
        if not meta.get("grade"):
            exec(_python(cell.source), namespace)  # noqa: S102 -- the instructor's notebook
            answers += _defined(cell.source) if meta.get("solution") else []
            continue
        originals = {name: namespace[name] for name in answers}
        for name, function in originals.items():
            namespace[name] = _recording(function, tables.setdefault(name, {}), calls)
        exec(cell.source, namespace)  # noqa: S102
        namespace.update(originals)
    return Published(tables, frozenset(shown(leaf) for call in calls for leaf in leaves(call)))


def _python(source: str) -> str:
    """A cell's source without IPython's magics (``%matplotlib inline``)."""
    return "\n".join(line for line in source.splitlines() if not line.startswith("%"))


def _recording(function, table: dict, calls: list):
    """``function``, noting each call and its answer in ``table`` and its arguments in
    ``calls``."""
    def call(*args, **kwargs):
        arguments = copy.deepcopy((args, kwargs))
        calls.append(arguments)
        try:
            value = function(*args, **kwargs)
        except Exception as error:
            table[key(arguments)] = ("raise", type(error).__name__)
            raise
        table[key(arguments)] = ("value", wire.dumps(value))
        return value
    return call


def _answer_cells(nb: NotebookNode) -> list[NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code" and _meta(c).get("solution")]


def lookup_table(assignment: str) -> NotebookNode:
    """The release notebook with every answer replaced by a lookup of the published examples:
    their answers there, None elsewhere."""
    tables = published_examples(assignment).tables
    nb = nbformat.read(exercise_notebook(assignment, "notebooks"), as_version=4)
    for number, cell in enumerate(_answer_cells(nb)):
        lines = [KEY_SOURCE + LOOKUP_SOURCE] if number == 0 else []
        lines += [f"{name} = _lookup({name!r}, {tables.get(name, {})!r})"
                  for name in _defined(cell.source)]
        cell.source = "\n".join(lines) + "\n"
    return nb


def stash(nb: NotebookNode) -> NotebookNode:
    """``nb`` (a submission) whose answers record their arguments, and a last cell that prints
    what they recorded."""
    nb = copy.deepcopy(nb)
    answers = _answer_cells(nb)
    for cell in answers:
        names = re.findall(r"^(?:def )?([a-z]\w*)(?:\(| = _lookup\()", cell.source,
                           re.MULTILINE)
        cell.source += "".join(f"\n{name} = _stashing({name})" for name in names) + "\n"
    nb.cells.insert(nb.cells.index(answers[0]), nbformat.v4.new_code_cell(STASH_SOURCE))
    nb.cells.append(nbformat.v4.new_code_cell(READ_STASH))
    return nb


def hidden_arrays(assignment: str, student: str) -> set[str]:
    """The student's hidden input arrays, written as the stash writes them."""
    sources = [c.source for c in nbformat.read(exercise_notebook(assignment), as_version=4).cells]
    course_secret = bytes.fromhex(os.environ["COURSE_SECRET"])
    found = set()
    for hidden in outside.hidden_keys(sources):
        with variant(secret.variant(course_secret, assignment, hidden, student)):
            check = load_check(hidden)
        found |= {shown(leaf) for case in check.cases
                  for leaf in leaves((case.args, case.kwargs))}
    return found


def leaked(text: str, assignment: str, student: str) -> set[str]:
    """The student's hidden arrays that ``text`` (a feedback page) holds, less those a visible
    test also passes (such as a zero vector): those show nothing hidden."""
    secret_arrays = hidden_arrays(assignment, student) - published_examples(assignment).arrays
    return {array for array in secret_arrays if array in text}


def leak_ways(text: str, assignment: str, student: str) -> dict[str, int]:
    """Way of the stash -> how many hidden arrays the lines it printed in ``text`` hold."""
    ways: dict[str, int] = {}
    for line in text.splitlines():
        for tag in TAGS:
            if f"{tag}-LEAK [[" in line:
                ways[tag] = ways.get(tag, 0) + len(leaked(line, assignment, student))
    return {tag: n for tag, n in ways.items() if n}

