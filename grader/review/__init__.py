"""After grading, for the instructor: scores per exercise, the HTML report and its sections (most
missed, flagged, similarity), tables, and the formgrader's content-security policy.

Owns: what the instructor reads about a class.
Trusts: the gradebook; student text is escaped before it reaches a page.
"""
