"""Benchmark: ``course similarity`` on classes of synthetic submissions: time and peak memory.

Builds a temporary copy of the course with N submissions of the perceptron exercises. With
``--answers full`` (the default) each student answers every exercise from one of two independent
sources (the instructor's solution or the second solution of ``tests/fairness/``), disguised
their own way: each name they bind gets a student-specific suffix and their own comment lines;
every tenth student leaves an exercise unanswered. Renaming and comments do not count, so half
the class has one answer and half the other: about N²/4 marked pairs per exercise, the case
that once kept a structure per pair. With ``--answers tiny`` every answer is cut to its first
two lines (all answers under the size the report compares).

For each N the comparison runs once in a fresh process (pairs per exercise, the course's own
code, the heat map and the page), which prints its wall time, CPU time (what the wall time
would be on an idle core), peak resident memory and the pairs it counted.

Run: ``.venv/bin/python bench/bench_similarity.py [--students 300 1000 3000] [--answers tiny]``
(target: 300 in < 30 s; memory growing with N, not N²).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from grader.core.api import make_api  # noqa: E402
from grader.review.similarity import bound_names, compare, write_page  # noqa: E402

ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises.ipynb"
TINY_LINES = 2  # of an answer's body, with --answers tiny


def disguise(source: str, student: int) -> str:
    """Rename every name ``source`` binds and add a comment line per statement block."""
    for name in sorted(bound_names(source) or (), key=len, reverse=True):
        source = re.sub(rf"\b{re.escape(name)}\b", f"{name}_{student}", source)
    return source.replace(":\n", f":  # step of student {student}\n")


def tiny(source: str) -> str:
    """``source`` cut to its signature and the first :data:`TINY_LINES` lines of its body."""
    lines = source.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("def "))
    body = [line for line in lines[header + 1:] if line.strip()
            and not line.strip().startswith(('"""', "'''", "#"))]
    return "\n".join([*lines[:header + 1], *body[:TINY_LINES]]) + "\n"


def build(root: Path, students: int, cut: bool) -> None:
    release = nbformat.read(REPO / "notebooks" / ASSIGNMENT / NOTEBOOK, as_version=4)
    solution = nbformat.read(REPO / "solutions" / ASSIGNMENT / NOTEBOOK, as_version=4)
    sources = [{c.metadata["nbgrader"]["grade_id"]: c.source for c in solution.cells
                if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"},
               runpy.run_path(str(REPO / "tests" / "fairness" / f"{ASSIGNMENT}.py"))["ANSWERS"]]
    for student in range(students):
        nb = nbformat.from_dict(release)
        for number, cell in enumerate(nb.cells):
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("solution") and (student + number) % 10:
                answer = sources[(student + number) % 2][meta["grade_id"]]
                cell.source = disguise(tiny(answer) if cut else answer, student)
        folder = root / "grader" / "submitted" / f"s{student:04d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / NOTEBOOK)


def measure(root: Path) -> None:
    """Compare the class at ``root`` and write its page; print what it took as JSON."""
    start, cpu = time.perf_counter(), time.process_time()
    result = compare(make_api(root), ASSIGNMENT)
    compared = time.perf_counter()
    write_page(result, root / "similarity.html")
    done = time.perf_counter()
    print(json.dumps({
        "compare_s": compared - start, "page_s": done - compared,
        "cpu_s": time.process_time() - cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # Linux: KiB
        "sharing": sum(p.sharing for p in result.pairs.values()),
        "marked": sum(p.marked for p in result.pairs.values()),
        "short": sum(p.short for p in result.pairs.values()),
        "threshold": result.threshold}))


def run(students: int, cut: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for folder in ("solutions", "notebooks"):
            shutil.copytree(REPO / folder / ASSIGNMENT, root / folder / ASSIGNMENT)
        (root / "grader").mkdir()
        shutil.copy2(REPO / "grader" / "nbgrader_config.py", root / "grader")
        build(root, students, cut)
        child = subprocess.run([sys.executable, __file__, "--measure", str(root)],
                               capture_output=True, text=True, check=True)
    m = json.loads(child.stdout.splitlines()[-1])
    print(f"{students} {'tiny ' if cut else ''}submissions of {ASSIGNMENT}: compared in "
          f"{m['compare_s']:.1f} s, heat map and page in {m['page_s']:.1f} s "
          f"({m['cpu_s']:.1f} s of CPU: the rest is waiting for a busy machine); peak memory "
          f"{m['peak_mb']:.0f} MB; {m['sharing']} pairs share code, {m['marked']} at or above "
          f"{m['threshold']:g}, {m['short']} answers too short to compare")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[300])
    parser.add_argument("--answers", choices=("full", "tiny"), default="full")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child's part
    args = parser.parse_args()
    if args.measure:
        measure(args.measure)
        return
    for students in args.students:
        run(students, args.answers == "tiny")


if __name__ == "__main__":
    main()
