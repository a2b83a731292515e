"""Benchmark: ``course similarity`` on a class of synthetic submissions (target: 300 in < 30 s).

Builds a temporary copy of the course with N submissions of the perceptron exercises. Each
student answers every exercise from one of two independent sources (the instructor's solution
or the second solution of ``tests/fairness/``), disguised their own way: each name they bind
gets a student-specific suffix and their own comment lines; every tenth student leaves an
exercise unanswered. Then it runs the comparison once (pairs per exercise, the course's own
code, the heat map and the page) and prints the wall time of each part, the CPU time (what the
wall time would be on an idle core) and the number of pairs flagged (every pair from the same
source should be, since renaming and comments do not count).

Run: ``.venv/bin/python bench/bench_similarity.py [--students 300]``.
"""

from __future__ import annotations

import argparse
import re
import runpy
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from grader.api import make_api  # noqa: E402
from grader.similarity import bound_names, compare, write_page  # noqa: E402

ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises.ipynb"


def disguise(source: str, student: int) -> str:
    """Rename every name ``source`` binds and add a comment line per statement block."""
    for name in sorted(bound_names(source) or (), key=len, reverse=True):
        source = re.sub(rf"\b{re.escape(name)}\b", f"{name}_{student}", source)
    return source.replace(":\n", f":  # step of student {student}\n")


def build(root: Path, students: int) -> None:
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
                cell.source = disguise(answer, student)
        folder = root / "grader" / "submitted" / f"s{student:04d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / NOTEBOOK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for folder in ("solutions", "notebooks"):
            shutil.copytree(REPO / folder / ASSIGNMENT, root / folder / ASSIGNMENT)
        (root / "grader").mkdir()
        shutil.copy2(REPO / "grader" / "nbgrader_config.py", root / "grader")
        build(root, args.students)
        api = make_api(root)
        start, cpu = time.perf_counter(), time.process_time()
        result = compare(api, ASSIGNMENT)
        compared = time.perf_counter()
        write_page(result, root / "similarity.html")
        done, cpu = time.perf_counter(), time.process_time() - cpu
    print(f"{args.students} submissions of {ASSIGNMENT}: compared in {compared - start:.1f} s, "
          f"heat map and page in {done - compared:.1f} s, total {done - start:.1f} s "
          f"(target < 30 s for 300; {cpu:.1f} s of CPU: the rest is waiting for a busy machine); "
          f"{len(result.highest)} pairs share code, "
          f"{sum(v >= result.threshold for v in result.highest.values())} at or above "
          f"{result.threshold:g}")


if __name__ == "__main__":
    main()
