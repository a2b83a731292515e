"""One submission through nbgrader's autograde: repaired and scanned (``hostile``), run in the
sandbox with the hidden checks decided outside the kernel (``preprocessors``, ``outside``,
``outcomes``, ``secret``), hand grades and the late penalty kept; ``validate`` is the students'
own check.

Owns: one submission's score.
Trusts: the course secret and ``mllib.grading``; not the notebook, not the kernel's output.
"""
