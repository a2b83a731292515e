"""Set up the kernel in which nbgrader runs a submission (autograde and validate alike).

``grader/nbgrader_config.py`` has the kernel run this file by its absolute path and call
:func:`install` at start-up (through ``IPKernelApp.exec_lines``), before any cell; it adds no
name to the notebook's namespace. It is run by path, not imported, so that nothing in the
submission's folder (the kernel's working directory: a ``grader/kernel/kernel_guard.py`` of the
student's) can stand in for it; the kernel starts with that folder off ``sys.path``
(``PYTHONSAFEPATH``, :class:`grader.kernel.sandbox.SafePathKernelManager`) and :func:`install` puts
it back.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from IPython import get_ipython

# What grading and validation allow a cell (grader/nbgrader_config.py, the student's copy):
CELL_TIMEOUT = 30  # seconds
OUTPUT_LIMIT = 1_000_000  # characters printed
NOTICE = "\n... output truncated while grading: this cell printed more than {} characters ...\n"


class _Budget:
    """Characters a cell may still print; reset before every cell."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self, *_args: object) -> None:
        self.left = self.limit
        self.told = False

    def capped(self, write: Callable[[str], object]) -> Callable[[str], int]:
        """``write`` that drops what exceeds the budget (and says so once per cell)."""

        def write_within_budget(text: str) -> int:
            if len(text) <= self.left:
                write(text)
                self.left -= len(text)
            elif not self.told:
                write(text[: self.left] + NOTICE.format(self.limit))
                self.left, self.told = 0, True
            return len(text)

        return write_within_budget


def _working_directory_on_path() -> None:
    """Put the working directory on ``sys.path`` where IPython does without ``PYTHONSAFEPATH``
    (before the first site-packages, after the standard library), and let the kernel's own
    child processes start as usual."""
    os.environ.pop("PYTHONSAFEPATH", None)
    if "" in sys.path:
        return
    folders = [os.path.basename(path) for path in sys.path]
    where = next((number for number, name in enumerate(folders)
                  if name in ("site-packages", "dist-packages")), 0)
    sys.path.insert(where, "")


def kernel_arguments(limit: int) -> list[str]:
    """The kernel's extra command-line arguments that run this file by its absolute path and
    call :func:`install` with ``limit`` at start-up (``Execute.extra_arguments``)."""
    return ["--IPKernelApp.exec_lines="
            f"__import__('runpy').run_path({os.path.abspath(__file__)!r})['install']({limit})"]


def install(limit: int) -> None:
    """Put the working directory back on ``sys.path``; send stderr to stdout and cap what each
    cell prints at ``limit`` characters.

    * stderr: nbgrader scores a test cell 0 when it writes anything to stderr (nbgrader #1904),
      so a harmless warning would cost points. Our tests fail only by raising, so the kernel's
      stderr stream writes to stdout instead: the text stays visible, the score ignores it.
    * cap: text beyond the budget is dropped inside the kernel, before it is sent, so printing
      gigabytes floods neither the grader nor the kernel's memory.

    Both hold for ``print``, warnings and logging (``sys.stdout``/``sys.stderr``) and for what
    C code writes to file descriptors 1 and 2, which ipykernel forwards to the same streams.
    The streams' ``write`` becomes a read-only property: IPython 9 otherwise wraps it around
    every cell to keep a copy of all output in memory (its output history).
    """
    _working_directory_on_path()
    out, err = sys.stdout, sys.stderr

    class GuardedStream(type(out)):
        write = property(lambda self: self.guarded_write, lambda self, value: None)

    budget = _Budget(limit)
    out.guarded_write = err.guarded_write = budget.capped(type(out).write.__get__(out))
    out.__class__ = err.__class__ = GuardedStream
    get_ipython().events.register("pre_run_cell", budget.reset)
