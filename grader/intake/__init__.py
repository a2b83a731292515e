"""From an LMS download to ``grader/submitted/``: archive entries read under caps, Canvas and Moodle
file names turned into safe student ids, each arrival recorded.

Owns: which file belongs to which student.
Trusts: nothing a student sent (names, archives, links, sizes are all checked here).
"""
