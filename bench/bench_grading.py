"""Benchmark: plain sequential ``nbgrader autograde`` against ``course autograde`` in parallel,
on a Dask cluster, and the cost of the grading sandbox.

Builds a temporary copy of the course with N synthetic submissions of the perceptron exercises
(the instructor's solution, the untouched release, and three partly wrong versions, in turn),
then grades them twice on the same machine with the same configuration:

1. ``nbgrader autograde 01_perceptron --force``: nbgrader's own command, one student after the
   other in one process (nbgrader #174);
2. ``course autograde 01_perceptron --jobs J``: the parallel workers of
   ``grader/dispatch/parallel.py`` (default J: the number of CPUs plus one, as ``course``);
3. the same with ``--no-sandbox``: the difference from 2 is what the sandbox costs
   (bubblewrap, the scratch copy, the checksums of the course before and after);
4. ``course autograde 01_perceptron --cluster local:N``: one Dask task per submission on a
   ``LocalCluster`` of N workers (default N = J); the difference from 2 is what Dask adds
   (starting the cluster, shipping each submission and the assignment, a release per host,
   and the client recording each result through nbgrader).

1, 2 and 4 run every kernel in the sandbox. It prints the wall times, the parallel ratio (the
target is at least 1.8 on 2 cores), the sandbox's and Dask's cost per submission, and whether
the runs gave every student the same score on every graded cell. Timings are noisy on a shared
machine: ``--repeat`` runs each several times and keeps each one's best.

Run: ``.venv/bin/python bench/bench_grading.py [--students 100] [--jobs J] [--cluster N]
[--repeat 1]``.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "01_perceptron", "perceptron_exercises"
BIN = Path(sys.executable).parent


def variants() -> list[nbformat.NotebookNode]:
    """Solution, release, and the solution with one answer returning its first argument."""
    solution = nbformat.read(REPO / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    release = nbformat.read(REPO / "notebooks" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    found = [solution, release]
    answers = [c for c in solution.cells if c.metadata.get("nbgrader", {}).get("solution")
               and c.cell_type == "code"]
    for answer in answers[:3]:
        nb = copy.deepcopy(solution)
        target = next(c for c in nb.cells if c.get("id") == answer.get("id"))
        name = target.source.split("def ", 1)[1].split("(", 1)[0]
        target.source = f"def {name}(first, *rest, **kwargs):\n    return first\n"
        found.append(nb)
    return found


def make_course(folder: Path, students: int) -> Path:
    """A course copy with ``students`` submissions, released (gradebook filled)."""
    root = folder / "course"
    for part in ("solutions", "notebooks"):
        shutil.copytree(REPO / part, root / part)
    (root / "grader").mkdir()
    shutil.copy2(REPO / "grader" / "nbgrader_config.py", root / "grader")
    notebooks = variants()
    for number in range(students):
        target = root / "grader" / "submitted" / f"student{number:03d}" / ASSIGNMENT
        target.mkdir(parents=True)
        nbformat.write(notebooks[number % len(notebooks)], target / f"{NOTEBOOK}.ipynb")
    course(root, "release", ASSIGNMENT)
    return root


def course(root: Path, *args: str) -> None:
    subprocess.run([str(BIN / "course"), "--course-root", str(root), *args], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def grades(root: Path) -> dict[str, dict[str, float]]:
    with Gradebook("sqlite:///" + str(root / "grader" / "gradebook.db")) as gb:
        return {s.student.id: {g.name: g.score for nb in s.notebooks for g in nb.grades}
                for s in gb.find_assignment(ASSIGNMENT).submissions}


def timed(command: list[str], root: Path) -> float:
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(root / "grader"),
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    start = time.perf_counter()
    subprocess.run(command, cwd=root, env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=(os.cpu_count() or 1) + 1)
    parser.add_argument("--cluster", type=int, help="LocalCluster workers (default: --jobs)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    args.cluster = args.cluster or args.jobs
    with tempfile.TemporaryDirectory() as tmp:
        root = make_course(Path(tmp), args.students)
        sequential = [str(BIN / "nbgrader"), "autograde", ASSIGNMENT, "--force"]
        parallel = [str(BIN / "course"), "--course-root", str(root), "autograde", ASSIGNMENT,
                    "--jobs", str(args.jobs)]
        on_cluster = [*parallel[:-2], "--cluster", f"local:{args.cluster}"]
        times: dict[str, list[float]] = {"sequential": [], "parallel": [], "unsandboxed": [],
                                         "cluster": []}
        same = True
        for _ in range(args.repeat):
            times["sequential"].append(timed(sequential, root))
            by_nbgrader = grades(root)
            times["parallel"].append(timed(parallel, root))
            same &= grades(root) == by_nbgrader and len(by_nbgrader) == args.students
            times["unsandboxed"].append(timed([*parallel, "--no-sandbox"], root))
            same &= grades(root) == by_nbgrader
            times["cluster"].append(timed(on_cluster, root))
            same &= grades(root) == by_nbgrader
    best = {name: min(values) for name, values in times.items()}
    print(f"{args.students} submissions of {ASSIGNMENT}, {os.cpu_count()} CPUs, "
          f"best of {args.repeat}")
    for name, values in times.items():
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"  {name:<10} {best[name]:6.1f} s  ({best[name] / args.students:.2f} s per "
              f"submission; runs: {runs})")
    print(f"  parallel ({args.jobs} workers) is {best['sequential'] / best['parallel']:.2f}x "
          f"faster than sequential nbgrader (target: 1.8x on 2 cores)")
    cost = (best["parallel"] - best["unsandboxed"]) / args.students
    print(f"  the sandbox costs {cost:+.3f} s per submission of wall time with {args.jobs} "
          f"workers ({best['parallel'] / best['unsandboxed']:.2f}x the unsandboxed run)")
    dask = (best["cluster"] - best["parallel"]) / args.students
    print(f"  Dask (local:{args.cluster}) adds {dask:+.3f} s per submission of wall time to the "
          f"local pool ({best['cluster'] / best['parallel']:.2f}x; "
          f"{best['sequential'] / best['cluster']:.2f}x faster than sequential nbgrader)")
    print(f"  identical grades for every student and graded cell: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
