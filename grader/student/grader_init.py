"""The exercises' checker, around nbgrader: ``course validate`` (``validate``), the kernel set-up
the tests run in (``kernel_guard``) and the configuration loader (``api``).

``course bundle`` writes this file as the students' ``grader/__init__.py``.
"""
