"""The report's flagged submissions: one entry per student, the most serious first.

A flag (:class:`grader.pipeline.hostile.Flag`) is one reason to look at a submission. One student
who patches numpy can raise a dozen, so the report groups them per student, ranks the students by
their most serious flag (:data:`TIERS`: what touched the grading machinery before what merely
imports a forbidden module) and shows each student's findings collapsed under a one-line
summary (``<details>``, which keyboards and screen readers open like a button).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from grader.pipeline.hostile import Flag
from grader.review.tables import table

# Most serious first: (what the student's code did, the reasons of grader.pipeline.hostile and
# grader.review.report that say so, by their first words).
TIERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("touches the grading machinery",
     ("edited a locked cell", "nbgrader metadata restored", "nbgrader metadata not in the "
      "release", "monkeypatches", "redefines", "modifies", "reaches into the interpreter",
      "runs code built at run time", "contained a link")),
    ("can stop the kernel or run commands", ("can stop the kernel", "runs a shell command")),
    ("deleted graded cells (re-inserted for grading)", ("graded cell missing",)),
    ("uses the course library", ("uses mllib",)),
    ("lost cell metadata (restored for grading)", ("nbgrader metadata missing",)),
    ("printed too much", ("printed too much",)),
)
UNKNOWN = "flagged for a reason this report does not rank"  # ranked first: read it


def tier(reason: str) -> int:
    """The rank of a flag's reason: 0 the most serious; -1 for a reason not in :data:`TIERS`."""
    return next((rank for rank, (_, starts) in enumerate(TIERS) if reason.startswith(starts)),
                -1)


def tier_name(rank: int) -> str:
    """What a rank of :func:`tier` means."""
    return UNKNOWN if rank < 0 else TIERS[rank][0]


@dataclass(frozen=True)
class Finding:
    """Flags with the same notebook, reason and code, over the cells where they occur."""

    notebook: str
    cells: tuple[str, ...]
    reason: str
    code: str

    @property
    def rank(self) -> int:
        """Its :func:`tier`."""
        return tier(self.reason)


@dataclass(frozen=True)
class Flagged:
    """One student's findings, the most serious first."""

    student: str
    findings: tuple[Finding, ...]

    @property
    def rank(self) -> int:
        """The rank of the most serious finding."""
        return self.findings[0].rank


def group(flagged: dict[str, list[tuple[str, Flag]]]) -> list[Flagged]:
    """Each student's flags as findings, students ordered by their most serious finding, then
    by how many findings they have, then by id."""
    students = []
    for student, found in flagged.items():
        cells: dict[tuple[str, str, str], list[str]] = {}
        for notebook, flag in found:
            cells.setdefault((notebook, flag.reason, flag.code), []).append(flag.cell)
        findings = sorted((Finding(nb, tuple(where), reason, code)
                           for (nb, reason, code), where in cells.items()),
                          key=lambda f: (f.rank, f.notebook, f.reason, f.code))
        students.append(Flagged(student, tuple(findings)))
    return sorted(students, key=lambda s: (s.rank, -len(s.findings), s.student))


def as_json(groups: list[Flagged]) -> list[dict]:
    """The same data as :func:`section`, for scripts."""
    return [{"student": g.student, "most_serious": tier_name(g.rank),
             "findings": [{"notebook": f.notebook, "cells": list(f.cells), "reason": f.reason,
                           "code": f.code, "kind": tier_name(f.rank)} for f in g.findings]}
            for g in groups]


def _entry(g: Flagged) -> str:
    e = html.escape
    count = "1 finding" if len(g.findings) == 1 else f"{len(g.findings)} findings"
    rows = [[e(f.notebook), e(", ".join(f.cells)), e(f.reason), f"<code>{e(f.code)}</code>"]
            for f in g.findings]
    return (f'<details data-student="{e(g.student)}"><summary><strong>{e(g.student)}</strong> '
            f"{e(tier_name(g.rank))}: {count}</summary>"
            + table(["notebook", "cells", "reason", "code"], rows) + "</details>")


def section(groups: list[Flagged]) -> str:
    """The flagged submissions as an HTML fragment: a count per kind, then one collapsed entry
    per student (everything escaped)."""
    if not groups:
        return "<p>No submission was flagged.</p>"
    kinds = [(rank, sum(g.rank == rank for g in groups)) for rank in range(-1, len(TIERS))]
    counts = "; ".join(f"{tier_name(rank)}: {n} {'student' if n == 1 else 'students'}"
                       for rank, n in kinds if n)
    return f"<p>{counts}. Open a student to see where and why.</p>" + "".join(
        _entry(g) for g in groups)
