"""nbgrader preprocessors that keep grading honest when a submission misbehaves.

``grader/nbgrader_config.py`` puts them into nbgrader's own pipelines, so ``course``, the plain
``nbgrader`` commands and JupyterLab's Nbgrader menu all grade the same way:

* :class:`RepairSubmission` (before nbgrader's ``OverwriteCells``) gives a submission back the
  nbgrader structure of the release: stripped or forged cell metadata, deleted test cells;
* :class:`GradingExecute` (instead of nbgrader's ``Execute``) runs the notebook in the sandboxed
  kernel (:mod:`grader.kernel.sandbox`), decides every test cell outside it
  (:mod:`grader.pipeline.outside`), runs the hidden tests after the last cell, withholds the points
  of visible tests whose exercise passes no hidden case, caps the output each cell may keep while it
  runs, and turns a dead or stuck kernel into zero for the tests it could not run instead of a crash
  of the whole run;
* :class:`HideHiddenTestTracebacks` (in ``generate_feedback``) leaves nothing of a hidden-test
  cell in the feedback but its one-line verdict.
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Dict, Integer, Unicode, default

from grader.kernel.sandbox import SandboxedKernelManager
from grader.pipeline import outcomes, outside, secret
from grader.pipeline.hostile import repair
from mllib.grading import variant
from mllib.grading.wire import MIME

KERNEL_DIED = "KernelDied"
KERNEL_STUCK = "KernelStuck"
NOT_RUN = "NotRun"
OVER_BUDGET = "OverBudget"  # the notebook used up its output or time budget
EXAMPLES_ONLY = "ExamplesOnly"  # a visible test whose exercise passes no hidden case
WITHHELD = ("these points count only when the function also passes a hidden case of this "
            "exercise, and it passes none: the published examples alone earn nothing")
STOPPING = (KERNEL_DIED, KERNEL_STUCK, OVER_BUDGET)  # errors after which later cells do not run
TIMEOUT = "CellTimeoutError"  # nbgrader's ename for a cell stopped at the time limit
# Bytes of a message beyond its output text: header, parent header, metadata, signature.
MESSAGE_HEADROOM = 64 * 1024
TRUNCATED = "... output truncated by the grader: this cell printed more than {} bytes ..."


def _error(ename: str, evalue: str) -> NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                  traceback=[f"{ename}: {evalue}"])


def _size(content: dict) -> int:
    """Characters an output message would add to the notebook."""
    if "text" in content:
        return len(content["text"])
    return sum(len(str(value)) for value in content.get("data", {}).values())


class GradingExecute(Execute):
    """nbgrader's ``Execute`` that survives hostile cells.

    * **Sandbox.** The kernel is a :class:`grader.kernel.sandbox.SandboxedKernelManager` working on
      a copy of the submission's folder; the reference modules of the notebook's hidden checks
      (each checker module's ``REFERENCE``) are hidden from it. An assignment's own
      ``checks.py`` is read from ``source_directory`` here, never from the submission.
    * **Verdicts outside.** Each test cell in a form :func:`grader.pipeline.outside.plan` knows is
      run as code that only sends the student's values back; the grader compares them and writes
      the cell's outputs: the kernel's own output and errors for a visible test, only the
      verdict for a hidden one. A failed hidden test makes later checks that build on that
      function say so. Each such cell also keeps what every one of its cases did, for the
      report (:mod:`grader.pipeline.outcomes`; any record the submission brought is dropped first).
    * **Hidden tests last.** A hidden test only keeps, where it stands, the function it checks;
      every hidden test runs after the notebook's last cell (:meth:`_run_hidden`), so no code
      of the student's runs after it and nothing it records can reach the student.
    * **Examples alone earn nothing.** A passed visible test scores 0 when its exercise's hidden
      tests pass no case (an ``ExamplesOnly`` error says why).
    * **Inputs of each student's own.** A hidden test's inputs are drawn under the student's
      variant of that exercise (:func:`grader.pipeline.secret.variant` of ``secret_file``'s secret,
      or ``variants`` precomputed by the client for a cluster worker), so students' inputs
      differ and a regrade draws the same ones.
    * **Output cap.** A cell keeps at most ``max_output_bytes`` characters of output (streams,
      displays, results); the rest is dropped while it arrives, so a cell that prints gigabytes
      costs neither memory nor a crash. Errors are always kept: they decide the score.
      nbgrader's ``LimitOutput`` then trims what is kept to ``max_lines`` lines.
    * **Notebook budgets.** On top of the per-cell limits, a notebook keeps at most
      ``notebook_output_bytes`` characters of output and runs for at most ``notebook_timeout``
      seconds (each cell's timeout is the time left, when that is shorter): adding cells
      cannot multiply the limits. The cell that crosses a budget gets an ``OverBudget`` error
      and every later code cell a ``NotRun`` error, as for a dead kernel.
    * **Dead kernel.** When the kernel dies (``os._exit``, a segfault) or does not come back
      after the per-cell timeout (a loop that swallows ``KeyboardInterrupt``), the cell gets a
      ``KernelDied``/``KernelStuck`` error and every later code cell a ``NotRun`` error. Tests
      that ran before keep their score, the others score 0, and nbgrader saves the grades as
      usual instead of failing the submission.
    """

    max_output_bytes = Integer(
        1_000_000, help="Characters of output a cell may keep (-1: no limit)."
    ).tag(config=True)

    max_message_bytes = Integer(
        help="Bytes of one message read from the kernel; larger ones are refused before they "
        "are decoded (default: max_output_bytes, plus room for the message's headers)."
    ).tag(config=True)

    @default("max_message_bytes")
    def _max_message_bytes_default(self) -> int:
        if self.max_output_bytes < 0:
            return -1
        return self.max_output_bytes + MESSAGE_HEADROOM

    notebook_output_bytes = Integer(
        5_000_000, help="Characters of output a whole notebook may keep (-1: no limit)."
    ).tag(config=True)
    notebook_timeout = Integer(
        600, help="Seconds a whole notebook's cells may run in total (-1: no limit)."
    ).tag(config=True)

    secret_file = Unicode(
        "", help="The course secret's file (grader/pipeline/secret.py); empty: every student "
        "gets the course's fixed hidden inputs, unless `variants` are given."
    ).tag(config=True)
    variants = Dict(
        {}, help="Hidden test key -> the student's variant in hex, computed by a client that "
        "holds the secret (cluster workers); when set, it must hold every key graded."
    ).tag(config=True)

    source_directory = Unicode(
        "", help="Folder of the instructor's assignments (<source_directory>/<assignment>/"
        "checks.py holds an assignment's own checks); empty: the notebook's own folder."
    ).tag(config=True)

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(**kwargs)

    def reset_execution_trackers(self) -> None:
        """Start a notebook: no output counted yet, kernel alive, no hidden test failed."""
        super().reset_execution_trackers()
        self._output_size: dict[int, int] = {}
        self._notebook_output = 0
        self._seconds = 0.0  # spent running cells
        self._over_budget: str | None = None
        self._stopped: str | None = None
        self._stop_kind: str | None = None
        self._stop_index = 0
        self._failing: set[str] = set()
        self._hidden: list[tuple[int, outside.HiddenTest]] = []  # run after the last cell
        self._hidden_phase = False

    def preprocess(self, nb, resources=None, km=None):
        """Note what the sandbox must hide and copy, then run the notebook."""
        self._submission_dir = ((resources or {}).get("metadata") or {}).get("path") or ""
        outcomes.clear(nb)
        self._checks_folder = self._assignment_folder(resources or {})
        # Test cells only: their source is the release's (restored before this step), so a
        # submission's own cells cannot name a checker.
        keys = outside.hidden_keys(cell.source for cell in nb.cells
                                   if cell.get("metadata", {}).get("nbgrader", {}).get("grade"))
        self._hidden_modules = sorted({module for key in keys for module in
                                       outside.reference_modules(key, self._checks_folder)})
        return super().preprocess(nb, resources, km)

    def _assignment_folder(self, resources: dict) -> Path | None:
        """Where the assignment's own ``checks.py`` is: its folder in ``source_directory``
        while nbgrader grades it (a submission's own files are never read), else the notebook's
        folder (None: the working directory, where nbgrader's validator runs a notebook)."""
        assignment = (resources.get("nbgrader") or {}).get("assignment")
        if self.source_directory and assignment:
            return Path(self.source_directory, assignment)
        return Path(self._submission_dir) if self._submission_dir else None

    def create_kernel_manager(self):
        """The sandboxed kernel manager, told which modules to hide and which folder to copy."""
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            km.hidden_modules = getattr(self, "_hidden_modules", [])
            km.submission_dir = getattr(self, "_submission_dir", "")
            km.max_message_bytes = self.max_message_bytes
        return km

    def _time_left(self) -> float | None:
        """Seconds left of the notebook's time budget (None: no budget)."""
        return None if self.notebook_timeout < 0 else self.notebook_timeout - self._seconds

    def _get_timeout(self, cell):
        """The per-cell timeout, or the time left of the notebook's budget when shorter (a
        hidden test always gets the per-cell timeout)."""
        timeout, left = super()._get_timeout(cell), self._time_left()
        if left is None or self._hidden_phase:
            return timeout
        return max(1, math.ceil(min(left, timeout or left)))

    def _within_notebook_budget(self, content: dict) -> bool:
        """Count an output against the notebook's budget; False (and note it) once past.
        The hidden tests' replies are not counted: each keeps its per-cell cap."""
        if self._hidden_phase:
            return True
        self._notebook_output += _size(content)
        if 0 <= self.notebook_output_bytes < self._notebook_output and not self._over_budget:
            self._over_budget = (f"the notebook printed more than {self.notebook_output_bytes} "
                                 "characters in all")
        return not self._over_budget

    def output(self, outs, msg, display_id, cell_index):
        """Keep an output unless the cell or the notebook has already used its share."""
        if msg["msg_type"] == "error":
            if not self._within_notebook_budget(msg["content"]):
                content = msg["content"]  # the error decides the score: keep its first line
                outs.append(_error(content["ename"][:100], content["evalue"][:1000]))
                return None
            return super().output(outs, msg, display_id, cell_index)
        if not self._within_notebook_budget(msg["content"]):
            return None
        if self.max_output_bytes < 0:
            return super().output(outs, msg, display_id, cell_index)
        used = self._output_size.get(cell_index, 0)
        size = used + _size(msg["content"])
        self._output_size[cell_index] = size
        if size <= self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        if used <= self.max_output_bytes:
            notice = TRUNCATED.format(self.max_output_bytes)
            outs.append(nbformat.v4.new_output("stream", name="stdout", text=f"\n{notice}\n"))
        return None

    def preprocess_cell(self, cell, resources, index):
        """Run one cell, deciding a visible test outside the kernel and keeping a hidden test
        for the end; after the last cell, run the hidden tests."""
        cell, resources = self._preprocess_one(cell, resources, index)
        if index == len(self.nb.cells) - 1:
            self._run_hidden(resources)
        return cell, resources

    def _preprocess_one(self, cell, resources, index):
        """Run one cell; decide a visible test outside the kernel; keep the function a hidden
        test checks; after the kernel is gone, mark the cell as not run."""
        if cell.cell_type != "code" or not cell.source.strip():
            return super().preprocess_cell(cell, resources, index)
        if self._stopped:
            cell.outputs = [_error(NOT_RUN, f"not run: {self._stopped}")]
            return cell, resources
        if not cell.metadata.get("nbgrader", {}).get("grade"):
            return self._run(cell, resources, index)
        with variant(self._variant(outside.hidden_key(cell.source), resources)):
            test = outside.plan(cell.source, self._checks_folder)
        if test is None:
            return self._run(cell, resources, index)
        if isinstance(test, outside.HiddenTest):
            return self._keep(test, cell, resources, index)
        return self._decide(test, cell, resources, index)

    def _probe(self, cell, code: str, resources, index, *, count: bool = True):
        """Run ``code`` in the kernel in place of ``cell``; the cell keeps its source (and,
        unless ``count``, its execution count)."""
        probe = copy.deepcopy(cell)
        probe.source = code
        probe, resources = self._run(probe, resources, index)
        self.nb.cells[index] = cell  # nbclient put the probe there
        if count:
            cell.execution_count = probe.get("execution_count")
        return probe, resources

    def _keep(self, test, cell, resources, index):
        """Where a hidden test stands, keep the function it checks, for :meth:`_run_hidden`."""
        probe, resources = self._probe(cell, test.keep_code, resources, index)
        cell.outputs = [o for o in probe.outputs if o.output_type == "error"
                        and o.ename in (*STOPPING, TIMEOUT)]
        self._hidden.append((index, test))
        return cell, resources

    def _run_hidden(self, resources) -> None:
        """Run every kept hidden test, in notebook order, after the notebook's last cell.

        No code of the student's runs after them, so nothing their function records while it
        is checked (a global, a file, a class attribute, a handler) can be shown by a later
        cell; what the checks print is dropped, a display they update in another cell stays
        as it was, and widget messages are ignored. The notebook's budgets do not stop them
        (each has the per-cell timeout and output cap). After a dead or stuck kernel they run
        in a fresh one (:meth:`_replay`).
        """
        self._hidden_phase = True
        stopped = self._stopped
        if self._hidden and self._stop_kind in (KERNEL_DIED, KERNEL_STUCK):
            self._replay(resources)
        for index, test in self._hidden:
            cell = self.nb.cells[index]
            if self._stop_kind in (KERNEL_DIED, KERNEL_STUCK):
                cell.outputs = [_error(NOT_RUN, f"not run: {stopped}")]
                continue
            self._decide_hidden(test, cell, resources, index)
        self._hidden_phase = False
        self._withhold_examples_only()

    def _replay(self, resources) -> None:
        """Replace the stopped kernel by a fresh one in the state the old one had before the
        cell that stopped it: the cells above it run again, their outputs dropped (their first
        run's are kept), and each hidden test's function is kept where the test stands. So the
        hidden tests of the exercises above the stop are decided as if nothing had stopped."""
        self.log.warning("running the cells above cell %d again for the hidden tests",
                         self._stop_index + 1)
        self._cleanup_kernel()
        self.km = self.create_kernel_manager()
        self.start_new_kernel()
        self.start_new_kernel_client()
        self._stopped = self._stop_kind = None
        kept = dict(self._hidden)
        for index, cell in enumerate(self.nb.cells[:self._stop_index]):
            if cell.cell_type == "code" and cell.source.strip() and not self._stopped:
                code = kept[index].keep_code if index in kept else cell.source
                self._probe(cell, code, resources, index, count=False)

    def _withhold_examples_only(self) -> None:
        """Fail every passed visible test of an exercise whose hidden tests pass no case."""
        for visible, hidden in _exercises(self.nb).values():
            if not hidden or any(_passes_a_case(cell) for cell in hidden):
                continue
            for cell in visible:
                if not any(o.output_type == "error" for o in cell.outputs):
                    cell.outputs.append(_error(EXAMPLES_ONLY, WITHHELD))

    def _update_display_id(self, display_id, msg) -> None:
        """nbclient's update of every output shown under ``display_id``, except while the
        hidden tests run: their function could write its inputs into an earlier cell."""
        if not self._hidden_phase:
            super()._update_display_id(display_id, msg)

    def handle_comm_msg(self, outs, msg, cell_index) -> None:
        """nbclient's record of widget state (saved in the notebook), except while the hidden
        tests run."""
        if not self._hidden_phase:
            super().handle_comm_msg(outs, msg, cell_index)

    def _variant(self, key: str | None, resources: dict) -> bytes | None:
        """The student's variant of hidden test ``key`` (None: the fixed inputs)."""
        if key is None:
            return None
        if self.variants:
            if key not in self.variants:
                raise ValueError(f"no variant was sent for hidden test {key}")
            return bytes.fromhex(self.variants[key])
        ids = resources.get("nbgrader") or {}
        if not self.secret_file or not ids.get("student"):
            return None
        return secret.variant(secret.load(Path(self.secret_file)), ids["assignment"], key,
                              ids["student"])

    def _decide_hidden(self, test, cell, resources, index) -> None:
        """Run a hidden test's probe in the kernel and write the verdict decided here."""
        probe, resources = self._probe(cell, test.code, resources, index)
        message = outside.reply(probe.outputs)
        stopping = [o for o in probe.outputs if o.output_type == "error"
                    and o.ename in (*STOPPING, TIMEOUT)]
        expected = [] if message is None else test.check.expected()
        # Only the verdict: what the function printed would show the hidden inputs.
        failure = outside.verdict_hidden(test, message, self._failing, expected)
        outcomes.write(cell, outcomes.hidden(test, message, expected))
        cell.outputs = stopping
        if failure:
            self._failing.add(test.check.function)
            cell.outputs.append(_error("ExerciseFailed", failure))

    def _decide(self, test, cell, resources, index):
        """Run a visible test cell's probe in the kernel and write the verdict decided here."""
        probe, resources = self._probe(cell, test.code, resources, index)
        message = outside.reply(probe.outputs)
        errors = [o for o in probe.outputs if o.output_type == "error"]
        stopping = [o for o in errors if o.ename in (*STOPPING, TIMEOUT)]
        cell.outputs = [_as_stdout(o) for o in probe.outputs
                        if o.output_type not in ("execute_result", "error")
                        and MIME not in o.get("data", {})]
        failure = None if errors else outside.verdict_visible(test, message)
        outcomes.write(cell, outcomes.visible(test, message, [(o.ename, o.evalue) for o in errors],
                                              cell.source, bool(stopping)))
        cell.outputs += errors
        if failure:
            cell.outputs.append(_error("ExerciseFailed", failure))
        return cell, resources

    def _run(self, cell, resources, index):
        """Run a cell in the kernel, noting when the kernel dies or hangs, or the notebook
        passes a budget."""
        started = time.monotonic()
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            ename, what = KERNEL_DIED, "the kernel died while running this cell"
            why = "os._exit, a crash, or running out of memory"
        except CellTimeoutError:
            ename, what = KERNEL_STUCK, "the kernel did not stop after the time limit"
            why = "a loop that ignores KeyboardInterrupt"
            run_sync(self.km.shutdown_kernel)(now=True)
        else:
            if self._hidden_phase:
                return cell, resources  # the hidden tests are not held to the budgets
            self._seconds += time.monotonic() - started
            left = self._time_left()
            if left is not None and left <= 0 and not self._over_budget:
                self._over_budget = (f"the notebook ran for more than {self.notebook_timeout} "
                                     "s in all")
            if not self._over_budget:
                return cell, resources
            ename, what = OVER_BUDGET, self._over_budget
            why = "a budget for the whole notebook, on top of each cell's limit"
        self.log.warning("%s in cell %d; the cells after it are not run", what, index)
        cell.outputs.append(_error(ename, f"{what} ({why})"))
        self._stopped = f"{what} (cell {index + 1})"
        self._stop_kind, self._stop_index = ename, index
        return cell, resources


def _exercises(nb: NotebookNode) -> dict[int, tuple[list, list]]:
    """Answer cell index -> (visible test cells, hidden test cells) decided outside the kernel,
    each test belonging to the last answer cell above it."""
    found: dict[int, tuple[list, list]] = {}
    answer = None
    for index, cell in enumerate(nb.cells):
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and grading.get("solution"):
            answer = index
        elif answer is not None and grading.get("grade") and cell.cell_type == "code":
            record = cell.metadata.get(outcomes.KEY, {}).get("test")
            hidden = outside.hidden_key(cell.source) is not None
            if record == outcomes.VISIBLE or hidden:
                found.setdefault(answer, ([], []))[hidden].append(cell)
    return found


def _passes_a_case(cell: NotebookNode) -> bool:
    """Whether a hidden test cell's record has a case the function passed."""
    record = outcomes.read(cell)
    return record is not None and any(not case.failed for case in record.cases)


def _as_stdout(output: NotebookNode) -> NotebookNode:
    """stderr text as stdout: a test's score depends on its verdict, not on warnings."""
    if output.output_type == "stream" and output.name == "stderr":
        output.name = "stdout"
    return output


class RepairSubmission(NbGraderPreprocessor):
    """Give a submitted notebook the nbgrader cell structure of its release before grading.

    Runs in nbgrader's sanitize step, before ``OverwriteCells`` (which restores the source of
    locked cells, their points and cell types from the gradebook). See
    :func:`grader.pipeline.hostile.repair` for what is repaired; each repair is logged.
    """

    release_directory = Unicode(
        help="Folder of the released notebooks: <release_directory>/<assignment>/<nb>.ipynb."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        """Repair ``nb`` in place against the release of the same notebook."""
        ids = resources["nbgrader"]
        path = Path(self.release_directory, ids["assignment"], f"{ids['notebook']}.ipynb")
        for change in repair(nb, nbformat.read(path, as_version=4)):
            self.log.warning("%s: %s", ids["notebook"], change)
        return nb, resources


class HideHiddenTestTracebacks(NbGraderPreprocessor):
    """Reduce a hidden-test cell's outputs to its error line, ``ename: evalue``, and drop every
    cell's per-case record (:mod:`grader.pipeline.outcomes`: the report's, not the student's).

    An IPython traceback quotes the source lines around the failing one, so without this the
    feedback would show hidden-test code even after ``ClearHiddenTests`` has removed it from the
    cell; and what the student's function prints while the hidden tests call it would show the
    hidden inputs. The score is already saved, so only the feedback changes.
    """

    def preprocess_cell(self, cell, resources, index):
        """Keep only the one-line errors of a cell that holds hidden tests."""
        cell.metadata.pop(outcomes.KEY, None)
        if cell.cell_type == "code" and "BEGIN HIDDEN TESTS" in cell.source:
            cell.outputs = [
                _error(output.ename, output.evalue)
                for output in cell.outputs
                if output.output_type == "error"
            ]
        return cell, resources


def examples_only(nb: NotebookNode) -> list[str]:
    """Grade ids of an autograded notebook's visible tests whose points were withheld: they
    passed, and their exercise's hidden tests passed no case."""
    return [cell.metadata.get("nbgrader", {}).get("grade_id", f"cell {number}")
            for number, cell in enumerate(nb.cells, start=1)
            if any(o.get("ename") == EXAMPLES_ONLY for o in cell.get("outputs", []))]


def run_problems(nb: NotebookNode) -> list[tuple[str, bool]]:
    """What stopped an executed notebook from running normally, one entry per cell.

    Reads the errors :class:`GradingExecute` and nbgrader's timeout leave in the outputs; a
    ``NotRun`` cell is covered by the entry of the cell that stopped the kernel.

    Returns
    -------
    list of (str, bool)
        ``("<grade_id or cell N>: <what happened>", whether the kernel stopped there)``.
    """
    problems = []
    for number, cell in enumerate(nb.cells, start=1):
        label = cell.metadata.get("nbgrader", {}).get("grade_id", f"cell {number}")
        for output in cell.get("outputs", []):
            if output.output_type == "error" and output.ename in STOPPING:
                problems.append((f"{label}: {output.evalue}", True))
            elif output.output_type == "error" and output.ename == TIMEOUT:
                problems.append((f"{label}: stopped at the per-cell time limit", False))
    return problems
