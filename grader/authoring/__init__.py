"""Before any submission: scaffold a new exercise, lint an assignment, release it (``notebooks/``
from ``solutions/``), remove it, and bundle what students receive.

Owns: what an assignment is and what leaves the instructor's hands.
Trusts: the instructor's ``solutions/`` and ``checks.py`` (their code runs here: instructor code).
"""
