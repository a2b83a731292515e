"""Each person's fair share of the hub's machine: memory and CPU per server (issue 38, item 3).

The hub starts every server through :class:`ShareSpawner`, JupyterHub's LocalProcessSpawner
with its ``mem_limit`` and ``cpu_limit`` enforced (LocalProcessSpawner itself only passes them
on as environment variables). Each person's server, and every kernel and process it starts,
runs in a control group of its own, ``ml-course-hub/<account>``, which the kernel holds to the
share: past the memory limit it kills a process of that group only (the largest: a runaway
kernel, not its server), and past the CPU limit it throttles that group only. The server's
process joins the group between fork and exec, before it drops root, so nothing it starts is
ever outside it.

Where the machine offers cgroups v2 (the unified hierarchy with the memory and cpu
controllers) the group's ``memory.max``, ``memory.swap.max`` and ``cpu.max`` are set; with
cgroups v1 (separate ``memory`` and ``cpu`` hierarchies), ``memory.limit_in_bytes`` and
``cpu.cfs_quota_us``. Where neither can be written (no root, or a container without its
cgroups delegated), each process of the server gets ``RLIMIT_AS``, the memory share as address
space: an allocation past it fails with MemoryError in that process, but the server and its
kernels each have the whole share, and CPU is not limited. The hub says which at each start.

Trusted: the hub's configuration. Not trusted: what runs in the servers, which never writes to
the groups (they are root's).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner

CGROUPS = Path("/sys/fs/cgroup")
GROUP = "ml-course-hub"  # the parent of every server's group
CPU_PERIOD = 100_000  # microseconds: the scheduler's period that a CPU quota is a part of


@dataclass(frozen=True)
class Share:
    """One server's share: bytes of memory and CPUs (a fraction of a core is allowed)."""

    memory: int
    cpus: float

    def __post_init__(self) -> None:
        if self.memory <= 0 or self.cpus <= 0:
            raise ValueError(f"a share needs memory and CPUs above zero, not {self}")


@dataclass(frozen=True)
class Groups:
    """The control groups of one account's server, and the files its process joins them by."""

    folders: tuple[Path, ...]

    @property
    def procs(self) -> tuple[Path, ...]:
        return tuple(folder / "cgroup.procs" for folder in self.folders)


def cgroup_version(root: Path = CGROUPS) -> int | None:
    """2 or 1: the cgroups this machine lets root give a server its share by; None if neither.

    Version 2 needs the unified hierarchy at ``root`` with the memory and cpu controllers;
    version 1 needs writable ``memory`` and ``cpu`` hierarchies under ``root``.
    """
    controllers = root / "cgroup.controllers"
    if controllers.is_file() and {"memory", "cpu"} <= set(controllers.read_text().split()):
        return 2 if os.access(root, os.W_OK) else None
    if all(os.access(root / name / "cgroup.procs", os.W_OK) for name in ("memory", "cpu")):
        return 1
    return None


def _write(path: Path, value: str, optional: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not optional:
            raise


def account_groups(account: str, version: int, root: Path = CGROUPS) -> Groups:
    """Where the account's control groups are (made or not)."""
    if version == 2:
        return Groups((root / GROUP / account,))
    return Groups((root / "memory" / GROUP / account, root / "cpu" / GROUP / account))


def make_groups(account: str, share: Share, version: int, root: Path = CGROUPS) -> Groups:
    """The account's control groups, made if need be, with the share as their limits.

    Raises
    ------
    OSError
        When a group cannot be made or a limit cannot be set (the caller falls back).
    """
    groups = account_groups(account, version, root)
    quota = max(1000, round(share.cpus * CPU_PERIOD))  # the kernel's least quota is 1 ms
    if version == 2:
        (folder,) = groups.folders
        folder.parent.mkdir(exist_ok=True)
        for level in (root, folder.parent):  # each level hands the controllers down
            _write(level / "cgroup.subtree_control", "+memory +cpu")
        folder.mkdir(exist_ok=True)
        _write(folder / "memory.max", str(share.memory))
        _write(folder / "memory.swap.max", "0", optional=True)  # no swap: no slow escape
        _write(folder / "cpu.max", f"{quota} {CPU_PERIOD}")
        return groups
    memory, cpu = groups.folders
    for folder in groups.folders:
        folder.mkdir(parents=True, exist_ok=True)
    _write(memory / "memory.limit_in_bytes", str(share.memory))
    # memory and swap together (only where the kernel accounts for swap)
    _write(memory / "memory.memsw.limit_in_bytes", str(share.memory), optional=True)
    _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD))
    _write(cpu / "cpu.cfs_quota_us", str(quota))
    return groups


def joining(groups: Groups | None, share: Share, then: Callable[[], None]) -> Callable[[], None]:
    """A ``preexec_fn``: the new process joins ``groups`` (or, without them, limits its own
    address space to the share), then ``then`` runs (LocalProcessSpawner's: become the
    account)."""

    def preexec() -> None:
        if groups is None:
            resource.setrlimit(resource.RLIMIT_AS, (share.memory, share.memory))
        else:
            for procs in groups.procs:
                procs.write_text(str(os.getpid()))
        then()

    return preexec


def remove_groups(groups: Groups) -> None:
    """Remove a stopped server's groups (a group still holding a process stays)."""
    for folder in groups.folders:
        try:
            folder.rmdir()
        except OSError:
            pass


class ShareSpawner(LocalProcessSpawner):
    """LocalProcessSpawner that holds each server to ``mem_limit`` and ``cpu_limit``."""

    def _share(self) -> Share:
        if not self.mem_limit or not self.cpu_limit:
            raise ValueError("ShareSpawner needs Spawner.mem_limit and Spawner.cpu_limit")
        return Share(int(self.mem_limit), float(self.cpu_limit))

    def _groups(self, share: Share) -> Groups | None:
        version = cgroup_version()
        try:
            groups = make_groups(self.user.name, share, version) if version else None
        except OSError as problem:
            self.log.warning("no control group for %s (%s)", self.user.name, problem)
            groups = None
        self.log.info("%s's share: %.2f GB, %s CPU, %s", self.user.name, share.memory / 1e9,
                      share.cpus, f"cgroups v{version}" if groups else
                      "RLIMIT_AS per process (no control groups: CPU is not limited)")
        return groups

    def make_preexec_fn(self, name: str) -> Callable[[], None]:  # noqa: D102 -- the spawner's
        share = self._share()
        return joining(self._groups(share), share, super().make_preexec_fn(name))

    async def stop(self, now: bool = False) -> None:  # noqa: D102 -- the spawner's
        await super().stop(now)
        version = cgroup_version()
        if version:
            remove_groups(account_groups(self.user.name, version))
