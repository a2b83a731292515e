"""The similarity report finds copies that were disguised, and no copy where there is none.

A class of 01_perceptron: three students copy one training loop (one renames every variable,
one reorders the independent statements, one adds comments and reformats), one lifts the loop
of ``mllib.perceptron``, one copies the second solution's Winnow step with markup hidden in it
(the page must show it as text), and the others write their own (the second solutions of
``tests/fairness/`` and the typical slips of ``tests/test_checkers.py``). ``course similarity``
runs on submitted notebooks (no grading needed).
"""

from __future__ import annotations

import html
import inspect
import itertools
import re
import runpy
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import test_checkers

from grader.api import make_api
from grader.cli import main
from grader.similarity import (
    THRESHOLD,
    Similarity,
    compare,
    fingerprints,
    report_section,
    score,
)

ASSIGNMENT = "01_perceptron"
NOTEBOOK = "perceptron_exercises.ipynb"
REPO = Path(__file__).resolve().parents[1]
FAIRNESS = runpy.run_path(str(REPO / "tests" / "fairness" / f"{ASSIGNMENT}.py"))["ANSWERS"]

ORIGINAL = """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    X = np.asarray(X, dtype=float)
    labels = np.asarray(y, dtype=float)
    weights = np.zeros(X.shape[1])
    total = 0
    for epoch in range(max_epochs):
        errors = 0
        for row, label in zip(X, labels):
            if label * np.dot(weights, row) <= 0:
                weights = weights + eta * label * row
                errors += 1
        total += errors
        if errors == 0:
            break
    return weights, total
"""
RENAMED = """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    data = np.asarray(X, dtype=float)
    target = np.asarray(y, dtype=float)
    w = np.zeros(data.shape[1])
    count = 0
    for it in range(max_epochs):
        wrong = 0
        for xi, yi in zip(data, target):
            if yi * np.dot(w, xi) <= 0:
                w = w + eta * yi * xi
                wrong += 1
        count += wrong
        if wrong == 0:
            break
    return w, count
"""
REORDERED = """\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    total = 0
    labels = np.asarray(y, dtype=float)
    X = np.asarray(X, dtype=float)
    weights = np.zeros(X.shape[1])
    for epoch in range(max_epochs):
        errors = 0
        for row, label in zip(X, labels):
            if label * np.dot(weights, row) <= 0:
                errors += 1
                weights = weights + eta * label * row
        total += errors
        if errors == 0:
            break
    return weights, total
"""
COMMENTED = '''\
def train_perceptron(X, y, eta=1.0, max_epochs=100):
    """My own perceptron."""
    # convert the inputs
    X = np.asarray(X,
                   dtype=float)
    labels = np.asarray(y, dtype=float)  # the labels
    weights = np.zeros(X.shape[1])  # start at zero

    total = 0
    for epoch in range(max_epochs):  # one epoch per pass
        errors = 0
        for row, label in zip(X, labels):
            # a mistake: update
            if label * np.dot(weights, row) <= 0:
                weights = weights + eta * label * row
                errors += 1
        total += errors
        if errors == 0:  # converged
            break
    return weights, total
'''
# mllib.perceptron._cycle, lifted with its constants; only what cannot be imported is cut.
FROM_MLLIB = """\
_MIN_BLOCK = 8
_MAX_BLOCK = 4096


def train_perceptron(X, y, eta=1.0, max_epochs=100):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n, d = X.shape
    w = np.zeros(d)
    steps = eta * y
    updates = []
    for epoch in range(1, max_epochs + 1):
        updates_before = len(updates)
        start, block = 0, _MIN_BLOCK
        while start < n:
            scores = X[start : start + block].dot(w)
            hits = np.less_equal(y[start : start + block] * scores, 0.0)
            k = hits.argmax()
            if not hits[k]:
                start, block = start + block, min(2 * block, _MAX_BLOCK)
                continue
            i = start + int(k)
            w = w + steps[i] * X[i]
            updates.append((epoch, i, float(scores[k]), w, float(w.dot(w))))
            start, block = i + 1, max(block // 2, _MIN_BLOCK)
        if len(updates) == updates_before:
            return w, len(updates)
    return w, len(updates)
"""
# Markup in a string and a comment of an answer the report shows: mallory copies alt's winnow.
HOSTILE = FAIRNESS["winnow"].replace("    s = float", """\
    note = "</pre></td><script>fetch('marker-1')</script><img src=x onerror=alert(1)>"
    # </details><script>alert(2)</script>
    s = float""")


def _as(name: str, function: Callable) -> str:
    """A slip of tests/test_checkers.py as a student's answer named ``name``."""
    source = inspect.getsource(function)
    return re.sub(r"^def \w+", f"def {name}", source)


SLIPS = {
    "slip_a": {"update_rule": _as("perceptron_update", test_checkers.update_zero_is_fine),
               "winnow": _as("winnow_update", test_checkers.winnow_ties_correct)},
    "slip_b": {"update_rule": _as("perceptron_update", test_checkers.update_in_place),
               "bound": _as("mistake_bound", test_checkers.bound_assumes_unit),
               "training_loop": _as("train_perceptron", test_checkers.train_one_epoch_only)},
}
COPIERS = {"copy_a": RENAMED, "copy_b": REORDERED, "copy_c": COMMENTED}
CLASS = {"alt": FAIRNESS, **SLIPS, **{s: {"training_loop": a} for s, a in COPIERS.items()},
         "lifter": {"training_loop": FROM_MLLIB}, "mallory": {"winnow": HOSTILE}}
COPIED = {*itertools.combinations(sorted(COPIERS), 2), ("alt", "mallory")}


def submit(root: Path, student: str, answers: dict[str, str]) -> None:
    nb = nbformat.read(root / "notebooks" / ASSIGNMENT / NOTEBOOK, as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and gid in answers:
            cell.source = answers[gid]
    folder = root / "grader" / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / NOTEBOOK)


@pytest.fixture(scope="module")
def course(copy_course: Callable[..., Path]) -> Path:
    root = copy_course("solutions", "notebooks")
    for student, answers in CLASS.items():
        submit(root, student, answers)
    return root


@pytest.fixture(scope="module")
def result(course: Path) -> Similarity:
    return compare(make_api(course), ASSIGNMENT)


def test_disguises_keep_the_fingerprints() -> None:
    original = fingerprints(ORIGINAL)
    for disguised in COPIERS.values():
        assert score(original, fingerprints(disguised)) == pytest.approx(1.0, abs=0.15)


def test_the_copiers_are_the_top_pairs_of_their_exercise(result: Similarity) -> None:
    top = result.pairs["training_loop"][:3]
    assert {(m.first.owner, m.second.owner) for m in top} == set(
        itertools.combinations(sorted(COPIERS), 2))
    assert all(m.score >= THRESHOLD for m in top)


def test_the_mllib_copy_is_flagged_against_the_library(result: Similarity) -> None:
    found = {m.first.owner: m for m in result.sources["training_loop"]}
    assert found["lifter"].second.owner == "mllib/perceptron.py:_cycle"
    assert found["lifter"].score >= THRESHOLD


def test_no_pair_of_independent_answers_reaches_the_threshold(result: Similarity) -> None:
    for pair in itertools.combinations(sorted(CLASS), 2):
        if pair not in COPIED:
            assert result.highest.get(pair, 0.0) < THRESHOLD, pair
    assert all(result.highest[pair] >= THRESHOLD for pair in COPIED)


def test_the_release_code_counts_for_nothing(result: Similarity) -> None:
    """An unanswered exercise is the release's scaffolding: nothing of it is compared."""
    nb = nbformat.read(REPO / "notebooks" / ASSIGNMENT / NOTEBOOK, as_version=4)
    given = set().union(*(fingerprints(c.source) for c in nb.cells if c.cell_type == "code"))
    for matches in result.pairs.values():
        for m in matches:
            assert not (m.first.prints.keys() | m.second.prints.keys()) & given


class _Active(HTMLParser):
    """Collects what could run in a browser: script tags, on* attributes, URLs but data:."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "iframe", "object", "embed", "svg"):
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (name in ("src", "href")
                                         and not (value or "").startswith("data:image/png")):
                self.found.append(f"{tag} {name}")


def test_the_page_shows_the_pairs_escaped_and_runs_nothing(course: Path, capsys) -> None:
    out = course / "grader" / "exports" / "similarity.html"
    assert main(["--course-root", str(course), "similarity", ASSIGNMENT, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "training_loop: copy_a and copy_b" in printed and "no score changed" in printed
    page = out.read_text()
    parser = _Active()
    parser.feed(page)
    assert parser.found == []
    assert "Content-Security-Policy" in page and "script-src" not in page
    assert "never changes a score" in page
    assert html.escape("<script>fetch('marker-1')</script>") in page
    assert html.escape("</details><script>alert(2)</script>") in page
    alt = re.search(r'<img alt="([^"]*)"', page).group(1)
    assert "copy_a and copy_b" in html.unescape(alt) and f"{len(CLASS)} by {len(CLASS)}" in alt
    assert '<mark>' in page  # the matching lines of a pair are highlighted


def test_the_grading_report_has_the_section(course: Path) -> None:
    """``course report`` without a graded class still carries the similarity section."""
    fragment = report_section(make_api(course), ASSIGNMENT)
    assert "copy_a and copy_b" in fragment and "never changes a score" in fragment


def test_a_bad_threshold_is_refused(course: Path) -> None:
    with pytest.raises(ValueError, match="threshold"):
        compare(make_api(course), ASSIGNMENT, threshold=0)
