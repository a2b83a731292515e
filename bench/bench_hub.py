"""Benchmark: how many students one machine's class hub holds (issue 38, item 4).

Starts the course's hub (``hub/jupyterhub_config.py``, as ``make hub`` does, on loopback ports,
with the tests' helpers of ``tests/hub_support.py``) with N student accounts, then:

1. the reference: one student alone logs in, waits for their JupyterLab and runs the first code
   cells of lecture 01's walk-through in a kernel;
2. N students do the same at once (N threads, each its own session, as N browsers).

For each it prints the time from the login to a ready server (median and 95th percentile) and to
the cells' last reply, each also as a ratio to the reference's, so that the figures of a
busy machine still say how much N students slow each other; the memory of each student's
server with its kernel (the proportional set size, PSS, of the account's processes: shared
libraries counted once across the class); the hub's own CPU time and the proxy's over the
concurrent phase; and how many students got no server (a spawn past the hub's
``start_timeout``). The share of each server is the hub's default (README, "Fair shares").
Nothing is asserted: the README reads these figures ("How many students one machine holds").

Run as root (it makes Unix accounts ``bench-NN`` and removes them), one at a time on a machine
(the hub tests and this take ``/tmp/hub-tests.lock``):
``flock /tmp/hub-tests.lock .venv/bin/python bench/bench_hub.py [--students 10 30 60]``.
"""

from __future__ import annotations

import argparse
import os
import pwd
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from hub_support import (  # noqa: E402 -- the tests' hub, reused
    SPAWN_TIMEOUT,
    ClassHub,
    HubSession,
    Kernel,
    api_token,
    build_hub_env,
    canvas_roster,
    close_hub,
    remove_accounts,
    start_hub,
)

LECTURE = REPO / "notebooks" / "01_perceptron" / "perceptron_walkthrough.ipynb"
FIRST_CELLS = 3  # the walk-through's first code cells: imports, the data, a first run
CELL_TIMEOUT = 600  # seconds: a cell on a machine N students share
PATIENCE = 600  # seconds a student keeps reloading the hub's "try again" page


@dataclass(frozen=True)
class Visit:
    """One student's login, from the POST of the login form."""

    name: str
    ready: float | None  # seconds to a JupyterLab that answers (None: no server)
    cells: float | None  # seconds to the last cell's reply
    problem: str = ""
    token: str = ""  # theirs, to stop their server after the run
    restarts: int = 0  # kernels that died and were restarted by the server


def first_cells(count: int = FIRST_CELLS) -> list[str]:
    code = [c.source for c in nbformat.read(LECTURE, as_version=4).cells
            if c.cell_type == "code" and c.source.strip()]
    return code[:count]


def visit(hub: ClassHub, name: str, cells: list[str]) -> Visit:
    """Log in, wait for the server, run the cells; the times taken."""
    session, started = HubSession(hub, name), time.monotonic()
    try:
        session.log_in()
        server = session.server(timeout=PATIENCE)
        ready = time.monotonic() - started
        token = api_token(session)
        kernel = Kernel(server, token)
        restarts = 0
        for code in cells:  # the kernel stays, as a student's open notebook
            done = kernel.run(code, timeout=CELL_TIMEOUT)
            if done.status == "died":  # the server restarts it; the student runs the cell again
                restarts += 1
                done = kernel.run(code, timeout=CELL_TIMEOUT)
            if done.status != "ok":
                return Visit(name, ready, None, f"a cell ended {done.status}: {done.output}",
                             token, restarts)
        return Visit(name, ready, time.monotonic() - started, "", token, restarts)
    except AssertionError as problem:  # hub_support's waits: no server in time
        return Visit(name, None, None, str(problem).splitlines()[0])


def pss_mb(account: str) -> float:
    """The proportional set size of every process of ``account``, in MB."""
    uid, total = pwd.getpwnam(account).pw_uid, 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid != uid:
                continue
            rollup = (proc / "smaps_rollup").read_text()
        except OSError:  # gone meanwhile
            continue
        total += next(int(line.split()[1]) for line in rollup.splitlines()
                      if line.startswith("Pss:"))
    return total / 1024


def stop_servers(hub: ClassHub, visits: list[Visit]) -> None:
    """Each student stops their own server (the hub's API, their token), so that the next
    class size starts from none."""
    for v in visits:
        if v.token:
            requests.delete(f"{hub.url}/hub/api/users/{v.name}/server", timeout=SPAWN_TIMEOUT,
                            headers={"Authorization": f"token {v.token}"})
    deadline = time.monotonic() + SPAWN_TIMEOUT
    while any(pss_mb(v.name) for v in visits) and time.monotonic() < deadline:
        time.sleep(2)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of one process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile, nearest rank (no interpolation between two students)."""
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(q / 100 * len(ranked) + 0.5) - 1))]


def summary(label: str, values: list[float], reference: float) -> str:
    median, p95 = statistics.median(values), percentile(values, 95)
    return (f"  {label:<22} median {median:6.1f} s ({median / reference:4.1f}x alone), "
            f"p95 {p95:6.1f} s ({p95 / reference:4.1f}x)")


def run(hub: ClassHub, names: list[str], cells: list[str], alone: Visit) -> None:
    # the hub's process, not `make hub`'s, which only waits for it
    hub_pid, proxy = (int((hub.state / f"{name}.pid").read_text())
                      for name in ("jupyterhub", "proxy"))
    hub_cpu, proxy_cpu = cpu_seconds(hub_pid), cpu_seconds(proxy)
    started = time.monotonic()
    with ThreadPoolExecutor(len(names)) as pool:
        visits = list(pool.map(lambda name: visit(hub, name, cells), names))
    wall = time.monotonic() - started
    hub_cpu, proxy_cpu = cpu_seconds(hub_pid) - hub_cpu, cpu_seconds(proxy) - proxy_cpu
    served = [v for v in visits if v.cells is not None]
    print(f"N = {len(names)} at once: {len(served)} served, {len(visits) - len(served)} not "
          f"({wall:.0f} s in all; the machine's load average then "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    for v in visits:
        if v.problem:
            print(f"  {v.name}: {v.problem}")
        if v.restarts:
            print(f"  {v.name}: the kernel died {v.restarts} time(s) and was restarted")
    if served:
        print(summary("to a ready server", [v.ready for v in served], alone.ready))
        print(summary(f"to {len(cells)} cells' replies", [v.cells for v in served],
                      alone.cells))
    memory = [pss_mb(name) for name in names]
    print(f"  memory per student (PSS of server and kernel): median "
          f"{statistics.median(memory):.0f} MB, max {max(memory):.0f} MB, "
          f"all {sum(memory) / 1024:.2f} GB")
    print(f"  the hub's CPU {hub_cpu:.1f} s ({hub_cpu / wall:.0%} of a core), the proxy's "
          f"{proxy_cpu:.1f} s ({proxy_cpu / wall:.0%})")
    stop_servers(hub, visits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[10, 30, 60],
                        help="class sizes to log in at once (default %(default)s)")
    args = parser.parse_args(argv)
    if min(args.students) < 1:
        parser.error("--students: at least 1")
    if os.geteuid() != 0:  # `make bench` runs every benchmark; this one only as root
        print("skipped: run as root (the hub makes Unix accounts and runs their servers)")
        return 0
    build_hub_env()
    largest = max(args.students)
    names = [f"bench-{i:02d}" for i in range(largest + 1)]  # bench-00 is the reference
    remove_accounts(names)
    root = Path(tempfile.mkdtemp(prefix="bench-hub-"))
    roster = canvas_roster(root / "roster.csv", [(f"Bench, {n}", str(9000 + i), n)
                                                 for i, n in enumerate(names)])
    hub = start_hub(root, roster, [], [])
    try:
        cells = first_cells()
        alone = visit(hub, names[0], cells)
        if alone.cells is None:
            print(f"the reference student got no server: {alone.problem}")
            return 1
        print(f"alone: a ready server in {alone.ready:.1f} s, {len(cells)} cells of "
              f"{LECTURE.name} replied by {alone.cells:.1f} s; memory {pss_mb(names[0]):.0f} MB")
        stop_servers(hub, [alone])
        for size in sorted(args.students):
            run(hub, names[1:size + 1], cells, alone)
    finally:
        close_hub(hub, names, "bench-hub.log")
    return 0


if __name__ == "__main__":
    sys.exit(main())
