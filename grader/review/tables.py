"""HTML tables of the report's sections (:mod:`grader.review.report`, :mod:`grader.review.misses`,
:mod:`grader.review.flagged`)."""

from __future__ import annotations

import html

from grader.core.page import scroll_box


def table(header: list[str], rows: list[list[str]], attrs: list[str] | None = None,
          caption: str = "") -> str:
    """A ``<table>`` in a :func:`grader.core.page.scroll_box` named by its caption (or its columns):
    ``header`` and ``caption`` are escaped here; each cell of ``rows`` is HTML its caller has
    already escaped; ``attrs[i]`` is added to row ``i``'s ``<tr>``."""
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header)
    body = "".join(
        f"<tr{attrs[i] if attrs else ''}>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
        for i, row in enumerate(rows))
    title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return scroll_box(f"<table>{title}<tr>{head}</tr>{body}</table>",
                      caption or "table of " + ", ".join(header))
