"""The per-case records grading keeps, what the report counts from them, and the flags grouped
per student, without grading a class (tests/test_grading_class.py checks them on a graded one).
"""

from __future__ import annotations

import html
import json
import re

import nbformat
import numpy as np
import pytest
from axe_support import READABLE_PX, chromium_page, image_text_pixels
from figure_support import smallest_text_points
from test_grading_class import CLASS, RELEASE, SCAN_CASES, SOLUTION, answer_text, solved

from grader.core.page import FIGURE_DPI, document
from grader.pipeline import outcomes
from grader.pipeline.hostile import Flag, scan
from grader.pipeline.outside import Expectation, HiddenTest, VisibleTest, verdict_hidden
from grader.review import flagged, misses
from grader.review.report import Exercise
from mllib.grading import Case, Check, judge, wire


def _judge_even(answer, expected, case):
    return None if np.asarray(answer) % 2 == 0 else "the answer must be even"


def square(x):
    return x * x


CHECK = Check("square", [Case(f"the number {n}", (float(n),)) for n in range(1, 8)], square)
PAIR = Check("pair", [Case("a pair", (1.0,))], lambda x: (x, x))
EVEN = Check("even", [Case("an even square", (2.0,))], square, judge=_judge_even)


def value(v) -> dict:
    return {"value": wire.encode(v)}


def record_of(check: Check, results: list) -> outcomes.Record:
    return outcomes.hidden(HiddenTest("t.k", check), {"results": results}, check.expected())


def test_each_hidden_case_is_judged_alone_with_the_verdicts_own_words() -> None:
    results = [value(1.0), value(5.0), {"error": "ValueError"}, value(None), {"value":
               {"__object__": "Evil<script>"}}, {"error": "Evil<script>"}, {"value": 7}]
    record = record_of(CHECK, results)
    assert [(c.situation, c.failed) for c in record.cases] == [
        (f"the number {n}", n != 1) for n in range(1, 8)]
    assert [c.slip for c in record.cases] == [
        "",
        "square gives a wrong answer. Work that situation through by hand.",
        "square raised ValueError.",
        "The value square returns is None: did the function forget to `return` its result?",
        "The value square returns should be a number or a list/array of numbers; got an object "
        "of another type.",
        "square raised an exception.",  # the student's class name is never quoted
        "square gives a wrong answer. Work that situation through by hand.",
    ]
    assert record_of(PAIR, [value(1.0)]).cases[0].slip == "pair should return 2 values, as a tuple."
    assert record_of(EVEN, [value(3.0)]).cases[0].slip == (
        "even gives a wrong answer (the answer must be even).")
    assert record_of(EVEN, [value(4.0)]).cases[0].slip == ""
    # a judge that breaks on an odd answer costs that case, never the grading run
    assert record_of(EVEN, [value("text")]).cases[0] == outcomes.CaseOutcome(
        "an even square", True, "even's answer could not be judged (TypeError).")


def test_the_verdict_names_the_first_case_the_record_marks_failed() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        answers = [float(n * n) if rng.random() < 0.6 else float(n) + 0.5 for n in range(1, 8)]
        results = [value(a) for a in answers]
        record = record_of(CHECK, results)
        verdict = judge(CHECK, {"results": results}, CHECK.expected())
        failed = [number for number, c in enumerate(record.cases, start=1) if c.failed]
        assert (verdict is None) == (not failed)
        if failed:
            assert f"hidden case {failed[0]} of 7: the number {failed[0]}" in verdict


@pytest.mark.parametrize(("message", "why"), [
    (None, outcomes.NOT_RUN),
    ({"missing": "square"}, outcomes.NOT_DEFINED),
    ({"results": [{"error": "NotImplementedError"}] * 7}, outcomes.NOT_ANSWERED),
    ({"results": [value(1.0)]}, outcomes.UNREADABLE),
])
def test_a_hidden_test_that_cannot_be_judged_case_by_case_says_why(message, why) -> None:
    test = HiddenTest("t.k", CHECK)
    record = outcomes.hidden(test, message, CHECK.expected())
    assert (record.cases, record.unjudged) == ((), why)
    assert verdict_hidden(test, message, set(), CHECK.expected())  # and the test fails


VISIBLE = VisibleTest("", (Expectation([1.0, 2.0], "w after a", 1e-9),
                           Expectation(3.0, "the bound", 1e-9)))
VISIBLE_SOURCE = ('assert_close(f(), [1, 2], "w after a")\n'
                  'assert g() is not None, "return a value"\n')


@pytest.mark.parametrize(("errors", "expected"), [
    ([("AssertionError", "return a value")], "return a value"),
    ([("AssertionError", "<img src=x> anything the student raised")],
     "the test raised AssertionError"),
    ([("Evil<script>", "")], "the test raised an exception"),
    ([("ValueError", "w = 0")], "the test raised ValueError"),
])
def test_a_visible_test_stopped_by_an_error_names_it_without_student_text(errors, expected):
    record = outcomes.visible(VISIBLE, None, errors, VISIBLE_SOURCE, stopped=False)
    assert record.cases == (outcomes.CaseOutcome(expected, True),)


def test_a_visible_test_records_each_expectation() -> None:
    message = {"values": [wire.encode(np.array([1.0, 2.0])), wire.encode(3.5)]}
    record = outcomes.visible(VISIBLE, message, [], VISIBLE_SOURCE, stopped=False)
    assert [(c.situation, c.failed) for c in record.cases] == [("w after a", False),
                                                                ("the bound", True)]
    for errors, stopped, why in [([("NotImplementedError", "")], False, outcomes.NOT_ANSWERED),
                                 ([("NameError", "name 'f' is not defined")], False,
                                  outcomes.NOT_DEFINED),
                                 ([("KernelDied", "")], True, outcomes.NOT_RUN),
                                 ([], False, outcomes.NOT_RUN)]:
        record = outcomes.visible(VISIBLE, None, errors, VISIBLE_SOURCE, stopped)
        assert (record.cases, record.unjudged) == ((), why)


def test_a_record_survives_the_notebook_file_and_junk_is_refused(tmp_path) -> None:
    record = record_of(CHECK, [value(float(n * n)) for n in range(1, 8)])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    outcomes.write(nb.cells[0], record)
    nbformat.write(nb, tmp_path / "x.ipynb")
    assert outcomes.read(nbformat.read(tmp_path / "x.ipynb", as_version=4).cells[0]) == record
    nb.cells[0].metadata[outcomes.KEY] = {"cases": "forged"}
    with pytest.raises(ValueError, match=outcomes.KEY):
        outcomes.read(nb.cells[0])
    outcomes.clear(nb)
    assert outcomes.read(nb.cells[0]) is None


# --- counting over a class -----------------------------------------------------------------

HOSTILE_ANSWER = ("def square(x):\n    return x  # </code></pre><script>fetch('marker-1')"
                  "</script><img src=x onerror=alert(1)>\n")


def autograded(tmp_path, student: str, answer: str, record: outcomes.Record):
    nb = nbformat.v4.new_notebook()
    answer_cell = nbformat.v4.new_code_cell(answer)
    answer_cell.metadata["nbgrader"] = {"grade_id": "sq", "solution": True}
    test_cell = nbformat.v4.new_code_cell('### BEGIN HIDDEN TESTS\nhidden_test("t.k", square)')
    test_cell.metadata["nbgrader"] = {"grade_id": "test_sq", "grade": True, "points": 1}
    outcomes.write(test_cell, record)
    nb.cells = [answer_cell, test_cell]
    path = tmp_path / student / "nb.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    return [path]


def test_the_count_shows_the_most_common_wrong_answers_escaped(tmp_path) -> None:
    right = [value(float(n * n)) for n in range(1, 8)]
    wrong = [value(float(n)) for n in range(1, 8)]
    graded = {"s1": autograded(tmp_path, "s1", "def square(x):\n    return x * x\n",
                               record_of(CHECK, right)),
              **{s: autograded(tmp_path, s, HOSTILE_ANSWER, record_of(CHECK, wrong))
                 for s in ("s2", "s3")},
              "s4": autograded(tmp_path, "s4", "def square(x):\n    return x + 0\n",
                               record_of(CHECK, wrong)),
              "s5": autograded(tmp_path, "s5", "def square(x):\n    raise NotImplementedError\n",
                               record_of(CHECK, [{"error": "NotImplementedError"}] * 7))}
    exercise = Exercise("nb", "sq", ("test_sq",), 1.0, "a/sq")
    counted = misses.count_misses("a", [exercise], graded)
    data = counted.as_json()
    (ex,) = data["exercises"]
    # case 1 (1 * 1 = 1) is right even for `return x`; the others fail for s2, s3 and s4
    assert [(r["case"], r["failed"], r["judged"]) for r in ex["hidden"]] == [
        *((f"H{n}", 3, 4) for n in range(2, 8)), ("H1", 0, 4)]
    assert ex["unjudged"] == [{"test": "hidden", "reason": outcomes.NOT_ANSWERED, "students": 1}]
    assert ex["slips"] == [{"slip": "square gives a wrong answer. Work that situation through "
                                    "by hand.", "students": 3}]
    # one mistake (the same six cases failed by the same three students), listed once
    top = data["most_missed"]
    assert [([c["case"] for c in t["cases"]], t["students"], t["judged"]) for t in top] == [
        ([f"H{n}" for n in range(2, 8)], 3, 4)]
    assert top[0]["examples"] == [
        {"answer": HOSTILE_ANSWER.strip(), "cut": 0, "students": 2},
        {"answer": "def square(x):\n    return x + 0", "cut": 0, "students": 1}]
    page = misses.section(counted)
    assert "<script" not in page and "<img src=x" not in page
    assert html.escape(HOSTILE_ANSWER.strip()) in page
    alt = re.search(r'<img alt="([^"]*)"', page).group(1)
    assert "H2 (the number 2) 3 of 4" in html.unescape(alt)
    json.dumps(data)  # plain JSON


def _failing(cases: set[int]) -> outcomes.Record:
    """A record of :data:`CHECK` whose answer is wrong in exactly ``cases`` (1 to 7)."""
    return record_of(CHECK, [value(float(n if n in cases else n * n)) for n in range(1, 8)])


def test_most_missed_counts_students_and_shows_each_mistake_once(tmp_path) -> None:
    """Issue 34: one student's one bug, failing three hidden cases, was listed three times
    above a mistake two students made. Now: each student once per exercise, each distinct set
    of failed checks once, the most students first."""
    fails = {"solo": {2, 3, 4}, "pair_a": {5}, "pair_b": {5}, "right": set()}
    graded = {s: autograded(tmp_path, s, f"def square(x):\n    return x  # {s}\n",
                            _failing(cases)) for s, cases in fails.items()}
    counted = misses.count_misses("a", [Exercise("nb", "sq", ("test_sq",), 1.0, "a/sq")],
                                  graded)
    top = counted.as_json()["most_missed"]
    assert [([c["case"] for c in t["cases"]], t["students"]) for t in top] == [
        (["H5"], 2), (["H2", "H3", "H4"], 1)]
    assert sum(t["students"] for t in top) == sum(bool(cases) for cases in fails.values())
    items = re.findall(r'<li data-case="([^"]*)">', misses.section(counted))
    assert items == ["a/sq H5", "a/sq H2, H3, H4"]


def test_the_heat_maps_labels_are_readable_at_100_percent(tmp_path) -> None:
    """Issue 34: its labels were 6-7 points at 80 dpi, 6.7-7.8 px on screen; an exercise with
    many checks makes a picture wider than the screen, which scrolls rather than shrinks."""
    many = Check("square", [Case(f"the number {n}", (float(n),)) for n in range(1, 25)], square)
    record = outcomes.hidden(HiddenTest("t.k", many), {"results": [value(1.0)] * 24},
                             many.expected())
    graded = {"s1": autograded(tmp_path, "s1", "def square(x):\n    return 1\n", record)}
    counted = misses.count_misses("a", [Exercise("nb", "sq", ("test_sq",), 1.0, "a/sq")],
                                  graded)
    fig = misses.heat_map_figure(counted)
    out = tmp_path / "misses.html"
    out.write_text(document("misses", misses.section(counted)))
    with chromium_page(tmp_path / "profile") as page:
        (shown,) = image_text_pixels(page, out.as_uri(), smallest_text_points(fig), FIGURE_DPI)
    assert shown >= READABLE_PX


# --- flags per student ---------------------------------------------------------------------

def scanned(nb: nbformat.NotebookNode) -> set[str]:
    return {flag.reason for flag in scan(nb, RELEASE, SOLUTION)}


def test_every_flag_the_class_raises_has_a_rank() -> None:
    """What the scan says of the grading class and of every scan case, and the report's own."""
    reasons = set().union(*(scanned(student.build()) for student in CLASS),
                          *(scanned(solved(update_rule=f"{answer_text('update_rule')}\n{code}"))
                            for code in SCAN_CASES))
    reasons |= {"printed too much (output truncated)", "contained a link: skipped (fifo)"}
    assert len(reasons) > 15
    assert [r for r in reasons if flagged.tier(r) < 0] == []


def test_students_are_ordered_by_their_most_serious_flag() -> None:
    groups = flagged.group({
        "amy": [("nb", Flag("c1", "uses mllib, the course library", "import mllib"))] * 3,
        "bob": [("nb", Flag("c2", "monkeypatches np.max", "np.max = min")),
                ("nb", Flag("c1", "uses mllib, the course library", "import mllib"))],
        "cat": [("nb", Flag("c3", "something new", ""))],
        "dan": [("nb", Flag("c1", "printed too much (output truncated)"))],
    })
    assert [g.student for g in groups] == ["cat", "bob", "amy", "dan"]
    assert [f.reason for f in groups[1].findings] == ["monkeypatches np.max",
                                                      "uses mllib, the course library"]
    assert groups[2].findings[0].cells == ("c1", "c1", "c1")  # one finding, three places
    page = flagged.section(groups)
    assert page.count("<details") == 4 and page.count("<summary>") == 4
