"""Instructor tooling: the ``course`` command, a thin wrapper around nbgrader.

The nbgrader configuration is ``grader/nbgrader_config.py``; grading state (submissions,
autograded copies, feedback, gradebook, exports) is written under ``grader/`` and not committed.
"""
