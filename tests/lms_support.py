"""Canvas's side of its file names, for the tests of ``course collect`` and the LMS formats.

Canvas's "Download Submissions" zip names each file (canvas-lms ``lib/content_zipper.rb``,
``get_filename`` then ``add_upload_submission``) ``<name>_[LATE_]<user id>_<file id>_<file>``:
``<name>`` is the user's sortable name ("Smith, Alice") lowercased, and the name, ``LATE`` and
the user id, joined by ``_``, are stripped of every character outside Ruby's ``[[:word:]]``
(``sanitize_file_name``), so "Smith, Alice" is ``smithalice_1001`` and a second Alice Smith
``smithalice_1002``; ``LATE`` is there when Canvas counts the submission late. Its
"Re-Upload Submissions" reads a file's name back with ``infer_comment_context_from_filename``
(``app/models/assignment.rb``): :func:`canvas_reads_back`.
"""

from __future__ import annotations

import re


def canvas_reads_back(file_name: str) -> tuple[str, str] | None:
    """Canvas's infer_comment_context_from_filename: the user id and the file id it reads
    from a re-uploaded file's name (the first two all-digit parts split on "_")."""
    ids = [part for part in file_name.split("_") if re.fullmatch(r"\d+", part)][:2]
    return (ids[0], ids[1]) if len(ids) == 2 else None
