"""Instructor tooling: the ``course`` command (``cli``) around nbgrader.

``api`` loads the course's nbgrader configuration, ``parallel`` autogrades in worker processes,
``preprocessors`` and ``kernel_guard`` keep grading honest inside nbgrader's pipeline,
``hostile`` repairs and scans submissions, ``report`` computes per-exercise scores and writes
the HTML report. The nbgrader configuration is ``grader/nbgrader_config.py``; grading state
(submissions, autograded copies, feedback, gradebook, exports) is written under ``grader/`` and
not committed.
"""
