"""Instructor tooling: the ``course`` command (``cli``) around nbgrader.

``api`` loads the course's nbgrader configuration, ``parallel`` autogrades in worker processes,
``preprocessors`` and ``kernel_guard`` keep grading honest inside nbgrader's pipeline,
``hostile`` repairs and scans submissions, ``files`` copies and reads them following no link
(``safe_autograde`` makes nbgrader's autograde use it), ``report`` computes per-exercise scores
and writes the HTML report. The nbgrader configuration is ``grader/nbgrader_config.py``;
grading state (submissions, autograded copies, feedback, gradebook, exports) is written under
``grader/`` and not committed.
"""
