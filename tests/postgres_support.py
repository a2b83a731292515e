"""A real, throw-away PostgreSQL server for tests, from Debian's ``postgresql`` package.

:func:`postgres_server` runs ``initdb`` in a new temporary folder, starts the server with
``pg_ctl`` on a free loopback port (no fsync: the data is thrown away), yields a URL, and
stops the server and deletes the folder afterwards. PostgreSQL refuses to run as root, so as
root it runs as the ``postgres`` user the package creates (or ``nobody``).

Where the binaries are missing, CI (``CI`` set) installs the package with apt-get, and a
developer's machine skips the test with the command to install it; CI never skips.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

INSTALL = ["apt-get", "install", "-y", "-qq", "postgresql"]


def _binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: Debian's newest, else the PATH's."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                    key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                    else 0)
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def binaries() -> Path:
    """The PostgreSQL server binaries, installed first in CI; skips elsewhere when missing."""
    folder = _binaries()
    if folder is None and os.environ.get("CI"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(INSTALL, check=True, env=env, stdout=subprocess.DEVNULL)
        folder = _binaries()
        assert folder is not None, "apt-get installed postgresql, but no initdb was found"
    if folder is None:
        pytest.skip(f"PostgreSQL server binaries missing: `{' '.join(INSTALL)}` "
                    "(CI installs them)")
    return folder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a PostgreSQL server; yield ``postgresql://course@127.0.0.1:PORT/postgres``.

    The superuser ``course`` logs in without a password (``trust``), over loopback only.
    """
    bin_dir = binaries()
    folder = Path(tempfile.mkdtemp(prefix="course-postgres-"))
    prefix: list[str] = []
    if os.getuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            owner = pwd.getpwnam("nobody")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        prefix = ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}",
                  "--clear-groups"]
    data, port = folder / "data", _free_port()

    def run(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, cwd=folder, capture_output=True)

    run(str(bin_dir / "initdb"), "-D", str(data), "-U", "course", "--auth=trust",
        "--encoding=UTF8", "--locale=C", "--no-sync")
    options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off")
    try:
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options,
            "-l", str(folder / "server.log"), "-w", "start")
        yield f"postgresql://course@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                        "stop"], cwd=folder, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server: str, name: str) -> str:
    """Create database ``name`` on the server at ``server``; return its URL."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + f"/{name}"
