"""What a kernel sends the grader, and what a notebook may cost, bounded (issue #19, 5-8).

Unit tests feed :class:`grader.pipeline.preprocessors.GradingExecute` and the grader's kernel client
fake messages. The same defences against a real sandboxed kernel, graded with ``course
autograde``, are in ``tests/test_grading_hostile.py`` (raw, deep and malformed messages,
100 added printing cells, slow added cells, start-up files, exception text).
"""

from __future__ import annotations

import nbformat
import pytest

from grader.kernel.kernel_client import well_formed
from grader.pipeline.preprocessors import OVER_BUDGET, GradingExecute, run_problems

# --- unit: messages and budgets ---------------------------------------------------------

GOOD = {"header": {"msg_id": "1", "msg_type": "stream"}, "parent_header": {"msg_id": "0"},
        "metadata": {}, "msg_type": "stream", "content": {"name": "stdout", "text": "hi"}}


@pytest.mark.parametrize("change", [
    {"content": "not a dict"},
    {"content": {"name": "stdout"}},
    {"content": {"name": "stdout", "text": 5}},
    {"msg_type": "display_data", "content": {"data": 5, "metadata": {}}},
    {"msg_type": "display_data", "content": {"data": {"text/plain": [1]}, "metadata": {}}},
    {"msg_type": "error", "content": {"ename": "E", "evalue": "v", "traceback": [1]}},
    {"header": None},
    {"header": {"msg_id": "1"}},
    {"parent_header": {"msg_id": 3}},
])
def test_malformed_messages_are_refused(change: dict) -> None:
    assert well_formed(GOOD)
    assert well_formed({**GOOD, "msg_type": "display_data",
                        "header": {"msg_id": "1", "msg_type": "display_data"},
                        "content": {"data": {"application/json": {"a": 1}}}})
    assert not well_formed({**GOOD, **change})


def stream(text: str) -> dict:
    return {**GOOD, "content": {"name": "stdout", "text": text}}


def test_the_notebook_output_budget_stops_keeping_output() -> None:
    execute = GradingExecute(max_output_bytes=100, notebook_output_bytes=250)
    execute.reset_execution_trackers()
    execute.clear_before_next_output = False  # nbclient sets it when a cell starts
    outs: list = []
    for index in range(3):
        execute.output(outs, stream("x" * 90), None, index)
    assert sum(len(o.text) for o in outs) == 180  # the third would pass 250 in all
    execute.output(outs, {**GOOD, "msg_type": "error", "content": {
        "ename": "ValueError", "evalue": "y" * 5000, "traceback": []}}, None, 3)
    assert outs[-1].ename == "ValueError" and len(outs[-1].evalue) == 1000
    assert execute._over_budget and "250 characters" in execute._over_budget


def test_the_time_budget_shortens_a_cells_timeout() -> None:
    execute = GradingExecute(timeout=30, notebook_timeout=100)
    execute.reset_execution_trackers()
    assert execute._get_timeout(None) == 30
    execute._seconds = 88.5
    assert execute._get_timeout(None) == 12
    execute._seconds = 100
    assert execute._get_timeout(None) == 1


def test_run_problems_reports_a_budget_stop() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename=OVER_BUDGET,
                                                  evalue="ran too long", traceback=[])]
    assert run_problems(nb) == [("cell 1: ran too long", True)]
