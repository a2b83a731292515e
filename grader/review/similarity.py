"""Which answers look copied: a similarity report across the submissions of one assignment.

Every answer cell is reduced to *fingerprints* in the spirit of MOSS (Schleimer, Wilkerson and
Aiken 2003, "Winnowing"), with the standard library's ``tokenize``:

* comments, blank lines, indentation and line breaks are dropped, strings become ``S`` and a
  bare string statement (a docstring) disappears, so reformatting and new comments change
  nothing;
* every name the answer binds itself becomes ``V`` (``np.dot`` keeps ``dot``), so renaming
  variables changes nothing;
* k-grams of tokens are hashed *within each statement* and winnowed there (the smallest hash
  of each window), so moving independent statements around keeps every fingerprint.

It is calibrated as MOSS and copydetect are, so that an answer the statement dictates is not
taken for a copy:

* **the given code is a base file** (MOSS's ``-b``, copydetect's ``boilerplate`` directories):
  every fingerprint of a code cell the release hands out, the exercises' notebook (signature,
  docstring, setup, visible tests) and the walk-through alike, is removed first, and a ``def``
  or ``class`` line never counts;
* **what counts is statements, not tokens**: two answers score the share of the shorter one's
  statements found in the other (a statement is found when at least half of its fingerprints
  are). A formula the statement dictates is one statement however long it is, so two students
  who both wrote ``l1 = np.log(alpha) + h * np.log(p) + (m - h) * np.log(1 - p)`` from the
  same formula share one statement, not the dozen fingerprints its 25 tokens make;
* **a short answer is not compared** (copydetect's noise threshold, in statements): an answer,
  or a piece of the course's code, of fewer than :data:`SHORT` statements of its own is
  compared with nothing, and an answer counts as at least :data:`FLOOR` statements long, so
  that four statements in common are never enough at the default threshold. MOSS's ``-m``
  (a passage found in more than *m* programs is ignored) is not used: in a class of five it
  never applies, and half a class with one answer is worth a look.

Each answer is also compared with the instructor's solution of the same exercise and with every
function and method of ``mllib`` (outside the hidden checks), which catches answers lifted from
the reference library.

Memory grows with the number of submissions, not with the number of pairs: answers with the
same fingerprints are compared once as a group, an inverted index of fingerprints finds the
pairs worth scoring one answer at a time, and only the pairs the page shows are kept (with the
count of the others) and a heat map of at most :data:`HEAT_CELLS` x :data:`HEAT_CELLS` cells.

The report never changes a score: it is a place to look, not a verdict.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import heapq
import html
import io
import itertools
import keyword
import textwrap
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
from matplotlib.figure import Figure
from nbformat import NotebookNode
from nbgrader.apps import NbGraderAPI

import mllib
from grader.core.files import link_kind, read_regular
from grader.core.page import LABEL_POINTS, document, embedded_png, picture
from grader.intake.collect import is_safe_id
from grader.pipeline.hostile import grade_id, nbgrader_meta, repair
from mllib.plotting import figure

K = 8  # tokens per k-gram: shorter ones match by chance (`for V, V in zip(V, V)`)
WINDOW = 4  # k-grams per winnowing window: every match of K + WINDOW - 1 tokens is kept
# A signature is given by the release, and `def V(V, V):` is in every library: not evidence.
HEADERS = ("def", "class", "async", "@")
MIN_STATEMENT = K  # tokens: a shorter statement (`V = 0`, `return V, V`) matches by chance
SHORT = 5  # statements: an answer (or a piece of mllib) with fewer is compared with nothing
FLOOR = 7  # statements: an answer counts as at least this long, so 4 in common score < 0.6
THRESHOLD = 0.6  # the score from which a pair is worth a look
TOP = 5  # pairs listed per exercise
SHOWN = 20  # marked pairs shown side by side per exercise; the others are named
NAMED = 200  # marked pairs named per exercise beyond those; the others are counted
KEPT = SHOWN + NAMED  # pairs kept per exercise (the best), whatever the class's size
HEAT_CELLS = 300  # the heat map's cells per side: beyond, a cell is a block of students
LABELLED = 30  # students from which the heat map names no one (the tables name the pairs)
MAX_ANSWER_CHARS = 20_000  # of an answer cell: a pasted megabyte cannot stall the report
KEPT_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
LIBRARY = Path(mllib.__file__).resolve().parent  # the library grading uses
LIBRARY_EXCLUDED = ("grading",)  # the hidden checks are not answers
STYLE = "body{max-width:90em}pre{margin:0}mark{background:#fd8}"  # after grader.core.page's


@dataclass(frozen=True)
class Fingerprints:
    """The winnowed fingerprints of a piece of code, statement by statement."""

    statements: tuple[frozenset[int], ...]  # the fingerprints of each statement that has one
    lines: Mapping[int, frozenset[int]]  # fingerprint -> the source lines (1-based) it covers

    def without(self, given: set[int]) -> Fingerprints:
        """These fingerprints but the ``given`` ones; a statement left with none is dropped."""
        kept = (s - given for s in self.statements)
        return Fingerprints(tuple(s for s in kept if s),
                            {h: lines for h, lines in self.lines.items() if h not in given})

    def compared(self) -> bool:
        """Whether the code is long enough to compare: :data:`SHORT` statements or more."""
        return len(self.statements) >= SHORT

    def key(self) -> tuple[tuple[int, ...], ...]:
        """The same for every piece of code with the same fingerprints, statement by
        statement, in any order."""
        return tuple(sorted(tuple(sorted(s)) for s in self.statements))


def bound_names(source: str) -> set[str] | None:
    """Names ``source`` binds itself (parameters, assignments, loop variables, definitions).

    Only these are renamed: what the answer uses without binding (``np``, ``math``, a function
    of an earlier exercise) is spelled the same by everyone and is kept, so that two answers
    with the same shape but different calls do not look alike. None when the code does not
    parse: then every name is renamed.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
    return found


def _statements(source: str, bound: set[str] | None) -> Iterator[list[tuple[str, int]]]:
    """The logical lines of ``source`` as normalised tokens ``(text, line)``.

    Tokenizing stops quietly at the first error (an unfinished string, bad indentation): what
    came before still counts, and a submission that does not parse is no reason to fail.
    """
    source = source[:MAX_ANSWER_CHARS]
    statement: list[tuple[str, int]] = []
    previous = ""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    try:
        for tok in tokens:
            if tok.type == tokenize.NEWLINE:
                yield statement
                statement = []
            elif tok.type == tokenize.NAME:
                renamed = (tok.string not in KEPT_NAMES and previous != "."
                           and (bound is None or tok.string in bound))
                statement.append(("V" if renamed else tok.string, tok.start[0]))
            elif tok.type == tokenize.STRING:
                statement.append(("S", tok.start[0]))
            elif tok.type in (tokenize.OP, tokenize.NUMBER, tokenize.ERRORTOKEN):
                statement.append((tok.string, tok.start[0]))
            previous = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass
    yield statement


def _hash(texts: Iterable[str]) -> int:
    # A stable hash (Python's own is salted per process): the same answer, the same report.
    digest = hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _winnowed(statement: list[tuple[str, int]]) -> dict[int, set[int]]:
    """The fingerprints of one statement (the smallest hash of each window of k-grams) and the
    lines each covers."""
    grams = [statement[i:i + K] for i in range(max(1, len(statement) - K + 1))]
    hashes = [_hash(t for t, _ in gram) for gram in grams]
    chosen = {min(range(i, min(i + WINDOW, len(hashes))), key=lambda j: (hashes[j], -j))
              for i in range(max(1, len(hashes) - WINDOW + 1))}
    found: dict[int, set[int]] = defaultdict(set)
    for j in chosen:
        found[hashes[j]].update(line for _, line in grams[j])
    return found


def fingerprints(source: str, bound: set[str] | None = None) -> Fingerprints:
    """The winnowed fingerprints of ``source``, statement by statement.

    Parameters
    ----------
    source : str
        Python code (an answer cell); need not parse.
    bound : set of str, optional
        The names to rename; default :func:`bound_names` of ``source`` (a part of a module
        passes the module's, so that its constants are renamed as a copy's would be).

    Returns
    -------
    Fingerprints
        Each statement's fingerprints (a ``def`` or ``class`` line, a docstring and a statement
        of fewer than :data:`MIN_STATEMENT` tokens have none), and the source lines each
        fingerprint was made from.
    """
    statements = []
    lines: dict[int, set[int]] = defaultdict(set)
    names = bound_names(source[:MAX_ANSWER_CHARS]) if bound is None else bound
    for statement in _statements(source, names):
        if (len(statement) < MIN_STATEMENT or all(t == "S" for t, _ in statement)
                or statement[0][0] in HEADERS):
            continue
        found = _winnowed(statement)
        statements.append(frozenset(found))
        for h, covered in found.items():
            lines[h] |= covered
    return Fingerprints(tuple(statements), {h: frozenset(ls) for h, ls in lines.items()})


def _found(statements: tuple[frozenset[int], ...], other: Mapping[int, object]) -> int:
    """How many of ``statements`` are found in ``other``: at least half their fingerprints."""
    return sum(2 * sum(h in other for h in s) >= len(s) for s in statements)


def score(first: Fingerprints, second: Fingerprints) -> float:
    """Share of the shorter piece's statements found in the other (0 to 1), the shorter
    counted as at least :data:`FLOOR` statements long."""
    a, b = sorted((first, second), key=lambda p: len(p.statements))
    found = _found(a.statements, b.lines)
    if len(a.statements) == len(b.statements):  # either is the shorter: the same both ways
        found = max(found, _found(b.statements, a.lines))
    return found / max(len(a.statements), FLOOR)


@dataclass(frozen=True)
class Answer:
    """One piece of code compared: a student's answer, the solution or a part of mllib."""

    owner: str  # student id, "solutions" or "mllib/<file>:<name>"
    source: str
    prints: Fingerprints


@dataclass(frozen=True)
class Match:
    """Two answers of one exercise and their score; ``second`` may be the course's own code."""

    exercise: str
    first: Answer
    second: Answer
    score: float

    def lines(self) -> tuple[set[int], set[int]]:
        """The lines of each side that share a fingerprint with the other."""
        shared = self.first.prints.lines.keys() & self.second.prints.lines.keys()
        return ({ln for h in shared for ln in self.first.prints.lines[h]},
                {ln for h in shared for ln in self.second.prints.lines[h]})

    def sort_key(self) -> tuple[float, str, str]:
        """Best first, then by the owners' names."""
        return -self.score, self.first.owner, self.second.owner


@dataclass
class Pairs:
    """The pairs of one exercise: the :data:`KEPT` best, and the counts of all of them."""

    best: list[Match] = field(default_factory=list)  # best first
    marked: int = 0  # pairs at or above the threshold
    sharing: int = 0  # pairs that share a fingerprint (the others score 0)
    short: int = 0  # answers not compared: fewer than SHORT statements of their own
    below: float = 0.0  # the highest score under the threshold

    def add(self, matches: Iterable[Match], count: int, value: float, threshold: float) -> None:
        """Count ``count`` pairs scoring ``value`` and keep the best of ``matches`` (theirs)."""
        self.sharing += count
        if value >= threshold:
            self.marked += count
        else:
            self.below = max(self.below, value)
        self.best = heapq.nsmallest(KEPT, [*self.best, *matches], key=Match.sort_key)


@dataclass
class Similarity:
    """The similarity of one assignment's submissions, exercise by exercise."""

    assignment: str
    students: list[str]
    threshold: float
    pairs: dict[str, Pairs] = field(default_factory=dict)  # exercise -> its pairs
    sources: dict[str, list[Match]] = field(default_factory=dict)  # exercise -> vs course code
    heat: np.ndarray = field(init=False)  # highest score of the pairs in each block of students
    unread: list[str] = field(default_factory=list)  # "student/notebook: why"
    _index: dict[str, int] = field(init=False, repr=False)  # student -> row

    def __post_init__(self) -> None:
        side = min(len(self.students), HEAT_CELLS)
        self.heat = np.zeros((side, side))
        self._index = {s: i for i, s in enumerate(self.students)}

    def cells(self, answers: list[Answer]) -> np.ndarray:
        """The heat map's rows of the answers' owners, each once (at most :data:`HEAT_CELLS`,
        however many answers)."""
        return np.unique([self._index[a.owner] * len(self.heat) // len(self.students)
                          for a in answers])

    def flagged(self) -> list[Match]:
        """Every kept match at or above the threshold, highest first."""
        found = [m for p in self.pairs.values() for m in p.best]
        found += [m for ms in self.sources.values() for m in ms]
        return sorted((m for m in found if m.score >= self.threshold), key=Match.sort_key)

    def marked(self) -> int:
        """How many matches reach the threshold, between students (kept or not) and with the
        course's code."""
        return (sum(p.marked for p in self.pairs.values())
                + sum(len(ms) for ms in self.sources.values()))


def answer_cells(nb: NotebookNode) -> dict[str, str]:
    """grade_id -> source of each code answer cell of ``nb`` (in notebook order)."""
    return {grade_id(cell): cell.source for cell in nb.cells
            if cell.cell_type == "code" and nbgrader_meta(cell).get("solution")}


@functools.cache  # mllib does not change while the course command runs: read it once
def library_answers(package: Path = LIBRARY) -> tuple[Answer, ...]:
    """Every function and method of ``mllib`` (the package at ``package``) outside the hidden
    checks."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        if relative.parts[1] in LIBRARY_EXCLUDED:
            continue
        text = path.read_text()
        bound = bound_names(text)
        lines = text.splitlines(keepends=True)  # once: ast.get_source_segment splits per call
        for node, name in _definitions(ast.parse(text)):
            code = textwrap.dedent("".join(lines[node.lineno - 1:node.end_lineno]))
            found.append(Answer(f"{relative}:{name}", code, fingerprints(code, bound)))
    return tuple(found)


def _definitions(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Top-level functions, and the methods of top-level classes (a class is too long to be
    one piece: any short answer would find some of its lines in it)."""
    functions = ast.FunctionDef | ast.AsyncFunctionDef
    for node in tree.body:
        if isinstance(node, functions):
            yield node, node.name
        elif isinstance(node, ast.ClassDef):
            yield from ((item, f"{node.name}.{item.name}") for item in node.body
                        if isinstance(item, functions))


def _without(answer: Answer, given: set[int]) -> Answer:
    return Answer(answer.owner, answer.source, answer.prints.without(given))


def _read_submission(path: Path, release: NotebookNode) -> dict[str, str]:
    """The answer cells of a submitted notebook, its cell structure repaired from the release.

    The file is read without following a link, and the student's nbgrader metadata (which they
    may have stripped or forged) is set right by :func:`grader.pipeline.hostile.repair` first.
    """
    nb = nbformat.reads(read_regular(path).decode("utf-8", "replace"), as_version=4)
    repair(nb, release)
    return answer_cells(nb)


def _collect(api: NbGraderAPI, assignment: str, result: Similarity
             ) -> tuple[dict[str, dict[str, str]], dict[str, str], set[int]]:
    """(student -> exercise -> answer, exercise -> solution, fingerprints of the release's code:
    every code cell of its notebooks, walk-throughs included)."""
    cd = api.coursedir
    release_dir = Path(cd.format_path(cd.release_directory, ".", assignment))
    source_dir = Path(cd.format_path(cd.source_directory, ".", assignment))
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    solutions: dict[str, str] = {}
    given: set[int] = set()
    for release_path in sorted(release_dir.glob("*.ipynb")):
        release = nbformat.read(release_path, as_version=4)
        for cell in release.cells:
            if cell.cell_type == "code":
                given |= fingerprints(cell.source).lines.keys()
        if not answer_cells(release):
            continue  # a walk-through: given code, no answers
        solution = source_dir / release_path.name
        if solution.is_file():
            solutions.update(answer_cells(nbformat.read(solution, as_version=4)))
        for student in result.students:
            path = Path(cd.format_path(cd.submitted_directory, student, assignment),
                        release_path.name)
            if not path.is_file() or link_kind(path):
                continue
            try:
                answers[student].update(_read_submission(path, release))
            except Exception as error:  # noqa: BLE001 -- one bad file never fails the class
                result.unread.append(f"{student}/{release_path.stem}: not readable "
                                     f"({type(error).__name__})")
    return answers, solutions, given


def _groups(docs: list[Answer]) -> list[list[Answer]]:
    """The answers with the same fingerprints together (each group in the order of ``docs``):
    a pair within a group scores what the group scores with itself."""
    found: dict[tuple, list[Answer]] = defaultdict(list)
    for doc in docs:
        found[doc.prints.key()].append(doc)
    return list(found.values())


def _first_pairs(left: list[Answer], right: list[Answer] | None, exercise: str,
                 value: float) -> list[Match]:
    """The :data:`KEPT` first pairs by name of ``left`` x ``right`` (within ``left`` when
    ``right`` is None), all scoring ``value``. Only the first :data:`KEPT` of each side can be
    among them: every later one has :data:`KEPT` earlier ones that pair before it."""
    if right is None:
        pairs = itertools.islice(itertools.combinations(left[:KEPT + 1], 2), KEPT)
    else:
        pairs = heapq.nsmallest(KEPT, (tuple(sorted((a, b), key=lambda d: d.owner))
                                       for a in left[:KEPT] for b in right[:KEPT]),
                                key=lambda p: (p[0].owner, p[1].owner))
    return [Match(exercise, a, b, value) for a, b in pairs]


def compare_exercise(exercise: str, docs: list[Answer], result: Similarity) -> Pairs:
    """Score every pair of ``docs`` that shares a fingerprint.

    One group of identical answers at a time, the pairs worth scoring come from an inverted
    index of fingerprints; answers of fewer than :data:`SHORT` statements are left out.
    Memory: the index, one group's candidates, the kept pairs and the heat map, never a
    structure per pair.

    Parameters
    ----------
    exercise : str
        The exercise's grade_id (named in each match).
    docs : list of Answer
        The students' answers to it, their fingerprints without the release's, in the order
        of ``result.students``.
    result : Similarity
        Whose heat map (:attr:`Similarity.heat`) is raised to each pair's score.

    Returns
    -------
    Pairs
        The :data:`KEPT` best pairs, best first, and the counts of all of them.
    """
    found = Pairs(short=sum(not d.prints.compared() for d in docs))
    groups = _groups([d for d in docs if d.prints.compared()])
    holders: dict[int, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        for h in group[0].prints.lines:
            holders[h].append(index)
    for i, group in enumerate(groups):
        prints, cells = group[0].prints, result.cells(group)
        if len(group) > 1:
            _add(found, result, exercise, group, None, score(prints, prints), (cells, cells))
        for j in sorted({j for h in prints.lines for j in holders[h] if j > i}):
            value = score(prints, groups[j][0].prints)
            _add(found, result, exercise, group, groups[j], value,
                 (cells, result.cells(groups[j])))
    return found


def _add(found: Pairs, result: Similarity, exercise: str, left: list[Answer],
         right: list[Answer] | None, value: float, cells: tuple[np.ndarray, np.ndarray]) -> None:
    """Count the pairs of two groups (or within one), keep their first, and mark the heat map."""
    count = len(left) * (len(left) - 1) // 2 if right is None else len(left) * len(right)
    found.add(_first_pairs(left, right, exercise, value), count, value, result.threshold)
    for block in (np.ix_(*cells), np.ix_(*cells[::-1])):  # both halves of the symmetric map
        result.heat[block] = np.maximum(result.heat[block], value)


def compare(api: NbGraderAPI, assignment: str, threshold: float = THRESHOLD) -> Similarity:
    """Compare the answers of every pair of submissions of ``assignment``, exercise by exercise.

    Reads ``submitted/<student>/<assignment>/`` (folders with a safe id only), the release, the
    solutions and the installed ``mllib``. Changes nothing.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.core.api.make_api`.
    assignment : str
        Assignment id.
    threshold : float
        Score from which a pair is flagged, between 0 and 1.

    Returns
    -------
    Similarity
        The best pairs per exercise and their counts, the matches with the course's own code,
        and the heat map of each pair's highest score over the exercises.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    students = sorted(s for s in api.get_submitted_students(assignment) if is_safe_id(s))
    result = Similarity(assignment, students, threshold)
    answers, solutions, given = _collect(api, assignment, result)
    library = [_without(a, given) for a in library_answers()]
    for exercise in dict.fromkeys(e for s in students for e in answers.get(s, {})):
        docs = [_without(Answer(s, answers[s][exercise], fingerprints(answers[s][exercise])),
                         given) for s in students if exercise in answers[s]]
        result.pairs[exercise] = compare_exercise(exercise, docs, result)
        course = library + ([_without(Answer("solutions", solutions[exercise],
                                             fingerprints(solutions[exercise])), given)]
                            if exercise in solutions else [])
        result.sources[exercise] = _source_matches(exercise, docs, course, threshold)
    return result


def _source_matches(exercise: str, docs: list[Answer], course: list[Answer],
                    threshold: float) -> list[Match]:
    """Each student's best match in the course's own code, when it reaches the threshold
    (neither side shorter than :data:`SHORT` statements)."""
    course = [c for c in course if c.prints.compared()]
    holders: dict[int, list[int]] = defaultdict(list)
    for index, code in enumerate(course):
        for h in code.prints.lines:
            holders[h].append(index)
    found = []
    for doc in (d for d in docs if d.prints.compared()):
        hits = {i for h in doc.prints.lines for i in holders.get(h, ())}
        best = max(((score(doc.prints, course[i].prints), i) for i in hits), default=(0.0, -1))
        if best[0] >= threshold:
            found.append(Match(exercise, doc, course[best[1]], best[0]))
    return sorted(found, key=Match.sort_key)


def heat_map_figure(result: Similarity) -> Figure:
    """The students x students heat map of each pair's highest score over the exercises (each
    cell a block of students when there are more than :data:`HEAT_CELLS`), its names and
    labels at :data:`grader.core.page.LABEL_POINTS` or larger."""
    n, side = len(result.students), len(result.heat)
    matrix = result.heat.copy()
    if side == n:
        np.fill_diagonal(matrix, 0.0)  # a student with themselves, not a pair
    size = min(8.0, 3.0 + 0.2 * n)
    fig, (ax,) = figure(width=size + 1.5, height=size)
    shown = ax.imshow(matrix, vmin=0, vmax=1, cmap="Reds", interpolation="nearest")
    bar = fig.colorbar(shown, ax=ax)
    bar.set_label("highest similarity over the exercises", fontsize=LABEL_POINTS)
    bar.ax.tick_params(labelsize=LABEL_POINTS)
    ax.tick_params(labelsize=LABEL_POINTS)
    if n <= LABELLED:  # beyond, one name per row is too small to read; the tables name pairs
        ax.set_xticks(range(n), result.students, rotation=90)
        ax.set_yticks(range(n), result.students)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"{n} students in alphabetical order", fontsize=LABEL_POINTS)
    ax.set_title(f"{result.assignment}: similarity of each pair of students",
                 fontsize=LABEL_POINTS + 1)
    return fig


def _alt(result: Similarity) -> str:
    """The heat map's alt text: its size, how many matches reach the threshold and the highest
    pairs, from the same numbers."""
    n, side = len(result.students), len(result.heat)
    highest: dict[tuple[str, str], float] = {}
    for pairs in result.pairs.values():
        for m in pairs.best:
            if m.score >= result.threshold:
                key = (m.first.owner, m.second.owner)
                highest[key] = max(highest.get(key, 0.0), m.score)
    ranked = sorted(highest.items(), key=lambda item: (-item[1], item[0]))[:10]
    marked = sum(p.marked for p in result.pairs.values())
    below = max((p.below for p in result.pairs.values()), default=0.0)
    blocks = (f" (a cell for each block of about {n / side:.0f} by {n / side:.0f} students, "
              "its highest pair)" if side < n else "")
    return (f"Heat map of {n} by {n} students of {result.assignment}{blocks}, the highest "
            f"similarity of each pair over the exercises from 0 to 1. {marked} matches (a pair "
            f"once per exercise) at or above {result.threshold:g}"
            + (": the highest " + "; ".join(f"{a} and {b} ({v:.2f})" for (a, b), v in ranked)
               if ranked else "")
            + f". The highest score under {result.threshold:g} is {below:.2f}.")


def heat_map(result: Similarity) -> tuple[str, str]:
    """:func:`heat_map_figure` as (base64 PNG, alt text)."""
    return embedded_png(heat_map_figure(result)), _alt(result)


def _code(answer: Answer, marked: set[int]) -> str:
    lines = answer.source[:MAX_ANSWER_CHARS].splitlines()
    return "".join(
        f"<mark>{html.escape(line)}</mark>\n" if number in marked else f"{html.escape(line)}\n"
        for number, line in enumerate(lines, start=1))


def _side_by_side(match: Match) -> str:
    e = html.escape
    left, right = match.lines()
    return (f"<details><summary>{e(match.first.owner)} and {e(match.second.owner)}: "
            f"{match.score:.2f}</summary><table class=\"pair\"><tr><th>{e(match.first.owner)}"
            f"</th><th>{e(match.second.owner)}</th></tr><tr><td><pre>{_code(match.first, left)}"
            f"</pre></td><td><pre>{_code(match.second, right)}</pre></td></tr></table>"
            "</details>")


def _marked(matches: list[Match], total: int) -> str:
    """The first :data:`SHOWN` of ``total`` matches side by side, the next :data:`NAMED` by
    name, and how many more."""
    e = html.escape
    named = [f"{e(m.first.owner)} and {e(m.second.owner)} {m.score:.2f}"
             for m in matches[SHOWN:SHOWN + NAMED]]
    more = total - SHOWN - len(named)
    return ("".join(_side_by_side(m) for m in matches[:SHOWN])
            + (f"<p>Also: {'; '.join(named)}{f'; and {more} more' if more > 0 else ''}.</p>"
               if named else ""))


def _rows(title: str, matches: list[Match], total: int) -> str:
    if not matches:
        return f"<p>{html.escape(title)}: none.</p>"
    return f"<p>{html.escape(title)} ({total}):</p>" + _marked(matches, total)


def _rule(result: Similarity) -> str:
    """What is compared and how a score is made, as the page says it."""
    return (f"<p>{len(result.students)} submissions compared exercise by exercise, with "
            "renamed names, comments, layout and the order of statements not counting, and "
            "without the code the release gives (every code cell of its notebooks and "
            "walk-throughs: signatures, docstrings, setup, visible tests). A score is the share "
            "of the shorter answer's statements found in the other, the shorter counted as at "
            f"least {FLOOR} statements long; an answer (or a piece of the course's code) of "
            f"fewer than {SHORT} statements of its own is compared with nothing: a formula the "
            "statement dictates is written alike by students who never saw each other's work. "
            f"Pairs from {result.threshold:g} are marked. <strong>This never changes a "
            "score</strong>: it is a place to look, not a verdict.</p>")


def _exercise(exercise: str, pairs: Pairs, sources: list[Match], threshold: float) -> str:
    e = html.escape
    flagged = [m for m in pairs.best if m.score >= threshold]
    top = ", ".join(f"{'<strong>' if m.score >= threshold else ''}"
                    f"{e(m.first.owner)} and {e(m.second.owner)} {m.score:.2f}"
                    f"{'</strong>' if m.score >= threshold else ''}" for m in pairs.best[:TOP])
    short = (f"<p>Not compared, fewer than {SHORT} statements of their own: {pairs.short} "
             f"answer{'s' if pairs.short != 1 else ''}.</p>" if pairs.short else "")
    return (f"<h3>{e(exercise)}</h3>{short}<p>Top pairs: {top or 'no shared code'}.</p>"
            + _rows("Pairs at or above the threshold", flagged, pairs.marked)
            + _rows("Answers like the course's own code (mllib, solutions)", sources,
                    len(sources)))


def section(result: Similarity) -> str:
    """The similarity report as an HTML fragment (the ``course report`` section)."""
    e = html.escape
    if not result.students:
        return "<p>No submissions to compare.</p>"
    png, alt = heat_map(result)
    parts = [_rule(result), picture(png, alt, "heat map of the pairs of students")]
    if result.unread:
        parts.append("<p>Not compared: " + e("; ".join(result.unread)) + "</p>")
    parts += [_exercise(exercise, pairs, result.sources.get(exercise, []), result.threshold)
              for exercise, pairs in result.pairs.items()]
    return "\n".join(parts)


def report_section(api: NbGraderAPI, assignment: str) -> str:
    """The section of ``course report``: :func:`section` of :func:`compare` at the default
    threshold."""
    return section(compare(api, assignment))


def write_page(result: Similarity, out: Path) -> None:
    """Write the similarity report of one assignment as a page of its own.

    Everything shown from a submission is escaped, and the page's Content-Security-Policy
    allows no script at all (only the embedded picture and the inline style).
    """
    body = (f"<h1>{html.escape(result.assignment)}: similarity of the answers</h1>\n"
            f'<section id="similarity">{section(result)}</section>')
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document(f"{result.assignment}: similarity", body, STYLE))
