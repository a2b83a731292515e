"""The course as nbgrader sees it: its configuration (``api``), link-free file access (``files``)
and the accessible page every HTML output is built on (``page``).

Owns: loading ``grader/nbgrader_config.py`` and opening files without following links.
Trusts: nothing it reads; every other part of ``grader`` builds on it, and it imports none of them.
"""
