"""Back to students and the LMS: feedback pages made safe and drawn offline, grade CSVs, the Canvas
re-upload zip, and what is held back while it waits for a hand grade (``pending``).

Owns: what a student or the LMS receives.
Trusts: the gradebook; nothing internal (a grader's note, an ungraded answer) goes out.
"""
