"""Which answers look copied: a similarity report across the submissions of one assignment.

Every answer cell is reduced to *fingerprints* in the spirit of MOSS (Schleimer, Wilkerson and
Aiken 2003, "Winnowing"), with the standard library's ``tokenize``:

* comments, blank lines, indentation and line breaks are dropped, strings become ``S`` and a
  bare string statement (a docstring) disappears, so reformatting and new comments change
  nothing;
* every name that is not a keyword, a builtin or an attribute (``np.dot`` keeps ``dot``) becomes
  ``V``, so renaming variables changes nothing;
* k-grams of tokens are hashed *within each statement* and winnowed there (the smallest hash
  of each window), so moving independent statements around keeps every fingerprint.

The fingerprints of the release's own code (every code cell of the released notebook: the
signature, the docstring, the scaffolding) are removed first, so the given code never counts;
a ``def`` or ``class`` line never counts either. Two answers score the share of the smaller
one's fingerprints the other also has (a tiny answer counts as :data:`MIN_FINGERPRINTS` long,
so that one common line cannot score high). Each answer is also compared with the instructor's
solution of the same exercise and with every function and method of ``mllib`` (outside the
hidden checks), which catches answers lifted from the reference library.

The report never changes a score: it is a place to look, not a verdict.
"""

from __future__ import annotations

import ast
import base64
import builtins
import hashlib
import html
import io
import itertools
import keyword
import textwrap
import tokenize
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
from nbformat import NotebookNode
from nbgrader.apps import NbGraderAPI

import mllib
from grader.collect import is_safe_id
from grader.files import link_kind, read_regular
from grader.hostile import grade_id, nbgrader_meta, repair
from grader.page import document
from mllib.plotting import figure

K = 8  # tokens per k-gram: shorter ones match by chance (`for V, V in zip(V, V)`)
WINDOW = 4  # k-grams per winnowing window: every match of K + WINDOW - 1 tokens is kept
# A signature is given by the release, and `def V(V, V):` is in every library: not evidence.
HEADERS = ("def", "class", "async", "@")
MIN_STATEMENT = 3  # a statement shorter than this (`break`, `return V`) says nothing
MIN_FINGERPRINTS = 12  # an answer with fewer fingerprints counts as this many (see above)
THRESHOLD = 0.6  # the score from which a pair is worth a look
TOP = 5  # pairs listed per exercise (and every pair at or above the threshold)
SHOWN = 20  # marked pairs shown side by side per exercise; the others are named
NAMED = 200  # marked pairs named per exercise beyond those; the heat map shows them all
MAX_ANSWER_CHARS = 20_000  # of an answer cell: a pasted megabyte cannot stall the report
KEPT_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
LIBRARY = Path(mllib.__file__).resolve().parent  # the library grading uses
LIBRARY_EXCLUDED = ("grading",)  # the hidden checks are not answers
STYLE = "body{max-width:90em}pre{margin:0}mark{background:#fd8}"  # after grader.page's

Fingerprints = dict[int, frozenset[int]]  # hash -> source lines it covers


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


def fingerprints(source: str, bound: set[str] | None = None) -> Fingerprints:
    """The winnowed fingerprints of ``source`` and the lines each covers.

    Parameters
    ----------
    source : str
        Python code (an answer cell); need not parse.
    bound : set of str, optional
        The names to rename; default :func:`bound_names` of ``source`` (a part of a module
        passes the module's, so that its constants are renamed as a copy's would be).

    Returns
    -------
    dict
        Fingerprint hash -> the source lines (1-based) of the tokens it was made from.
    """
    found: dict[int, set[int]] = defaultdict(set)
    names = bound_names(source[:MAX_ANSWER_CHARS]) if bound is None else bound
    for statement in _statements(source, names):
        if (len(statement) < MIN_STATEMENT or all(t == "S" for t, _ in statement)
                or statement[0][0] in HEADERS):
            continue
        grams = [statement[i:i + K] for i in range(max(1, len(statement) - K + 1))]
        hashes = [_hash(t for t, _ in gram) for gram in grams]
        chosen = {min(range(i, min(i + WINDOW, len(hashes))), key=lambda j: (hashes[j], -j))
                  for i in range(max(1, len(hashes) - WINDOW + 1))}
        for j in chosen:
            found[hashes[j]].update(line for _, line in grams[j])
    return {h: frozenset(lines) for h, lines in found.items()}


def score(first: Fingerprints, second: Fingerprints) -> float:
    """Share of the smaller answer's fingerprints found in the other (0 to 1)."""
    shared = len(first.keys() & second.keys())
    return shared / max(min(len(first), len(second)), MIN_FINGERPRINTS)


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
        shared = self.first.prints.keys() & self.second.prints.keys()
        return ({ln for h in shared for ln in self.first.prints[h]},
                {ln for h in shared for ln in self.second.prints[h]})


@dataclass
class Similarity:
    """The similarity of one assignment's submissions, exercise by exercise."""

    assignment: str
    students: list[str]
    threshold: float
    pairs: dict[str, list[Match]] = field(default_factory=dict)  # exercise -> top pairs
    sources: dict[str, list[Match]] = field(default_factory=dict)  # exercise -> vs course code
    highest: dict[tuple[str, str], float] = field(default_factory=dict)  # pair -> best score
    unread: list[str] = field(default_factory=list)  # "student/notebook: why"

    def flagged(self) -> list[Match]:
        """Every listed match at or above the threshold, highest first."""
        found = [m for ms in [*self.pairs.values(), *self.sources.values()] for m in ms]
        return sorted((m for m in found if m.score >= self.threshold), key=lambda m: -m.score)


def answer_cells(nb: NotebookNode) -> dict[str, str]:
    """grade_id -> source of each code answer cell of ``nb`` (in notebook order)."""
    return {grade_id(cell): cell.source for cell in nb.cells
            if cell.cell_type == "code" and nbgrader_meta(cell).get("solution")}


def library_answers(package: Path = LIBRARY) -> list[Answer]:
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
    return found


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


def _without(prints: Fingerprints, given: set[int]) -> Fingerprints:
    return {h: lines for h, lines in prints.items() if h not in given}


def _read_submission(path: Path, release: NotebookNode) -> dict[str, str]:
    """The answer cells of a submitted notebook, its cell structure repaired from the release.

    The file is read without following a link, and the student's nbgrader metadata (which they
    may have stripped or forged) is set right by :func:`grader.hostile.repair` first.
    """
    nb = nbformat.reads(read_regular(path).decode("utf-8", "replace"), as_version=4)
    repair(nb, release)
    return answer_cells(nb)


def _collect(api: NbGraderAPI, assignment: str, result: Similarity
             ) -> tuple[dict[str, dict[str, str]], dict[str, str], set[int]]:
    """(student -> exercise -> answer, exercise -> solution, fingerprints of the release)."""
    cd = api.coursedir
    release_dir = Path(cd.format_path(cd.release_directory, ".", assignment))
    source_dir = Path(cd.format_path(cd.source_directory, ".", assignment))
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    solutions: dict[str, str] = {}
    given: set[int] = set()
    for release_path in sorted(release_dir.glob("*.ipynb")):
        release = nbformat.read(release_path, as_version=4)
        if not answer_cells(release):
            continue  # a walk-through
        for cell in release.cells:
            if cell.cell_type == "code":
                given |= fingerprints(cell.source).keys()
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


def _top_pairs(exercise: str, docs: list[Answer], result: Similarity) -> list[Match]:
    """Score every pair sharing a fingerprint through an inverted index; keep the :data:`TOP`
    best and every pair at or above the threshold, best first."""
    holders: dict[int, list[int]] = defaultdict(list)
    for index, doc in enumerate(docs):
        for h in doc.prints:
            holders[h].append(index)
    # No fingerprint is dropped for being common: half a class with one answer is worth a look.
    shared: Counter[tuple[int, int]] = Counter()
    for owners in holders.values():
        shared.update(itertools.combinations(owners, 2))
    matches = []
    for (i, j), count in shared.items():
        value = count / max(min(len(docs[i].prints), len(docs[j].prints)), MIN_FINGERPRINTS)
        pair = (docs[i].owner, docs[j].owner)
        result.highest[pair] = max(result.highest.get(pair, 0.0), value)
        matches.append(Match(exercise, docs[i], docs[j], value))
    ranked = sorted(matches, key=lambda m: (-m.score, m.first.owner, m.second.owner))
    return [m for rank, m in enumerate(ranked) if rank < TOP or m.score >= result.threshold]


def compare(api: NbGraderAPI, assignment: str, threshold: float = THRESHOLD) -> Similarity:
    """Compare the answers of every pair of submissions of ``assignment``, exercise by exercise.

    Reads ``submitted/<student>/<assignment>/`` (folders with a safe id only), the release, the
    solutions and the installed ``mllib``. Changes nothing.

    Parameters
    ----------
    api : NbGraderAPI
        From :func:`grader.api.make_api`.
    assignment : str
        Assignment id.
    threshold : float
        Score from which a pair is flagged, between 0 and 1.

    Returns
    -------
    Similarity
        The top pairs per exercise, the matches with the course's own code, and each pair's
        highest score over the exercises (for the heat map).
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    students = sorted(s for s in api.get_submitted_students(assignment) if is_safe_id(s))
    result = Similarity(assignment, students, threshold)
    answers, solutions, given = _collect(api, assignment, result)
    library = [Answer(a.owner, a.source, _without(a.prints, given)) for a in library_answers()]
    for exercise in dict.fromkeys(e for s in students for e in answers.get(s, {})):
        docs = [Answer(s, answers[s][exercise],
                       _without(fingerprints(answers[s][exercise]), given))
                for s in students if exercise in answers[s]]
        result.pairs[exercise] = _top_pairs(exercise, docs, result)
        course = library + ([Answer("solutions", solutions[exercise],
                                    _without(fingerprints(solutions[exercise]), given))]
                            if exercise in solutions else [])
        result.sources[exercise] = _source_matches(exercise, docs, course, threshold)
    return result


def _source_matches(exercise: str, docs: list[Answer], course: list[Answer],
                    threshold: float) -> list[Match]:
    """Each student's best match in the course's own code, when it reaches the threshold."""
    holders: dict[int, list[int]] = defaultdict(list)
    for index, code in enumerate(course):
        for h in code.prints:
            holders[h].append(index)
    found = []
    for doc in docs:
        hits = Counter(i for h in doc.prints for i in holders.get(h, ()))
        best = max(((score(doc.prints, course[i].prints), i) for i in hits), default=(0.0, -1))
        if best[0] >= threshold:
            found.append(Match(exercise, doc, course[best[1]], best[0]))
    return sorted(found, key=lambda m: (-m.score, m.first.owner))


def heat_map(result: Similarity) -> tuple[str, str]:
    """The students x students heat map of each pair's highest score: (base64 PNG, alt text)."""
    n = len(result.students)
    index = {s: i for i, s in enumerate(result.students)}
    matrix = np.zeros((n, n))
    for (a, b), value in result.highest.items():
        matrix[index[a], index[b]] = matrix[index[b], index[a]] = value
    size = min(9.0, 3.0 + 0.12 * n)
    fig, (ax,) = figure(width=size + 1.0, height=size)
    shown = ax.imshow(matrix, vmin=0, vmax=1, cmap="Reds", interpolation="nearest")
    fig.colorbar(shown, ax=ax, label="highest similarity over the exercises")
    if n <= 40:  # beyond that the names are unreadable; the tables name the pairs
        ax.set_xticks(range(n), result.students, rotation=90, fontsize=6)
        ax.set_yticks(range(n), result.students, fontsize=6)
    ax.set_title(f"{result.assignment}: similarity of each pair of students", fontsize=9)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    ranked = sorted(result.highest.items(), key=lambda item: -item[1])
    above = [f"{a} and {b} ({v:.2f})" for (a, b), v in ranked if v >= result.threshold]
    below = next((v for _, v in ranked if v < result.threshold), 0.0)
    alt = (f"Heat map of {n} by {n} students of {result.assignment}, the highest similarity "
           f"of each pair over the exercises from 0 to 1. {len(above)} pairs at or above "
           f"{result.threshold:g}" + (": " + "; ".join(above[:10]) if above else "")
           + ("; and more" if len(above) > 10 else "")
           + f". The highest of the other pairs is {below:.2f}.")
    return base64.b64encode(buffer.getvalue()).decode("ascii"), alt


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


def _marked(matches: list[Match]) -> str:
    """The first :data:`SHOWN` matches side by side, the next :data:`NAMED` by name."""
    e = html.escape
    named = [f"{e(m.first.owner)} and {e(m.second.owner)} {m.score:.2f}"
             for m in matches[SHOWN:SHOWN + NAMED]]
    more = len(matches) - SHOWN - NAMED
    return ("".join(_side_by_side(m) for m in matches[:SHOWN])
            + (f"<p>Also: {'; '.join(named)}{f'; and {more} more' if more > 0 else ''}.</p>"
               if named else ""))


def _rows(title: str, matches: list[Match]) -> str:
    if not matches:
        return f"<p>{html.escape(title)}: none.</p>"
    return f"<p>{html.escape(title)} ({len(matches)}):</p>" + _marked(matches)


def section(result: Similarity) -> str:
    """The similarity report as an HTML fragment (the ``course report`` section)."""
    e = html.escape
    if not result.students:
        return "<p>No submissions to compare.</p>"
    png, alt = heat_map(result)
    parts = [f"<p>{len(result.students)} submissions compared exercise by exercise, with "
             "renamed names, comments, layout and the order of statements not counting, and "
             "without the code the release gives. A score is the share of the shorter answer "
             f"found in the other; pairs from {result.threshold:g} are marked. <strong>This "
             "never changes a score</strong>: it is a place to look, not a verdict.</p>",
             f'<img alt="{e(alt)}" src="data:image/png;base64,{png}">']
    if result.unread:
        parts.append("<p>Not compared: " + e("; ".join(result.unread)) + "</p>")
    for exercise, matches in result.pairs.items():
        flagged = [m for m in matches if m.score >= result.threshold]
        parts.append(f"<h3>{e(exercise)}</h3>"
                     + "<p>Top pairs: " + (", ".join(
                         f"{'<strong>' if m.score >= result.threshold else ''}"
                         f"{e(m.first.owner)} and {e(m.second.owner)} {m.score:.2f}"
                         f"{'</strong>' if m.score >= result.threshold else ''}"
                         for m in matches[:TOP]) or "no shared code") + ".</p>"
                     + _rows("Pairs at or above the threshold", flagged)
                     + _rows("Answers like the course's own code (mllib, solutions)",
                             result.sources.get(exercise, [])))
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
