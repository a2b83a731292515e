"""nbgrader configuration of the exercises, as students receive it (``course bundle`` writes it
to ``grader/nbgrader_config.py``).

Found by the notebooks' Validate button through ``JUPYTER_CONFIG_PATH=<folder>/grader`` (the
Makefile exports it) and loaded by ``course validate``. It sets up the kernel the tests run in
as grading does (the course's own configuration says why): the kernel guard (stderr costs no
points, output is capped) and the per-cell time limit. Nothing of the grading pipeline is here:
the notebook runs with nbgrader's own ``Execute``, on the student's machine.
"""

from grader.kernel import kernel_guard

c = get_config()  # noqa: F821 -- injected by the traitlets config loader

c.ExecutePreprocessor.timeout = kernel_guard.CELL_TIMEOUT
c.Execute.extra_arguments = kernel_guard.kernel_arguments(kernel_guard.OUTPUT_LIMIT)
