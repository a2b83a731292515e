"""Instructor tooling: the ``course`` command (``cli``) around nbgrader, one subpackage per stage
a submission passes through: ``core`` (configuration, files, pages), ``authoring`` (new exercise,
lint, release, bundle), ``intake`` (collect from the LMS), ``kernel`` (the sandbox student code
runs in), ``pipeline`` (one submission through nbgrader's autograde), ``dispatch`` (a whole class,
on a process pool or a Dask cluster), ``review`` (report, similarity, the formgrader's policy),
``handback`` (feedback, grade exports, what waits for a hand grade) and ``hub`` (the class on
JupyterHub). The nbgrader configuration is ``grader/nbgrader_config.py``; grading state
(submissions, autograded copies, feedback, gradebook, exports) is written under ``grader/`` and
not committed.
"""
