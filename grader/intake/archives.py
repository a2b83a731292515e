"""Reading a download's files one entry at a time, whatever holds them (a folder, a zip, a
.tar.gz), without trusting anything an entry says about itself.

Each entry comes with the reason it must not be read (a traversal, an absolute path, a link, a
device, an encrypted entry), and :func:`copy_bounded` copies one in chunks under a byte budget
and a compression-ratio cap, so a zip bomb is refused after reading about 1 MB of it. Used by
:mod:`grader.intake.collect`.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from grader.core.files import NotRegularFile, open_regular

CHUNK = 1 << 16
RATIO_FLOOR = 1 << 20  # small entries compress as they like; the ratio cap applies past 1 MB
MB = 1 << 20


class TooMuch(Exception):
    """Reading went past a cap; the message says which."""


# What reading an entry may raise: a cap passed, a file that changed or is no longer plain,
# a broken archive. Each skips that entry, never the class.
UNREADABLE = (TooMuch, NotRegularFile, OSError, EOFError, zipfile.BadZipFile, tarfile.TarError)


@dataclass
class Entry:
    """One file of a download or an upload, not read yet."""

    name: str  # where it is, for people: "submissions.zip: carl_1_2_hw.zip: bob/nb.ipynb"
    path: str  # its path inside its folder or archive
    problem: str | None  # why it is not read at all
    mtime: float = 0.0
    size: int | None = None  # declared by the archive's header: refuse early, never trust
    packed: int | None = None  # compressed size (zip), for the ratio cap
    open: Callable[[], AbstractContextManager[IO[bytes]]] | None = None
    file: Path | None = None  # a regular file on disk (a folder SOURCE's), read in place


def path_problem(path: str) -> str | None:
    """Why a path from an archive cannot be used as one, or None."""
    parts = re.split(r"[/\\]", path)
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path):
        return "absolute path"
    if ".." in parts:
        return "path goes up a folder (..)"
    if "\0" in path:
        return "NUL in its name"
    return None


def relative(path: str) -> str:
    """An archive's entry path without ``.`` and empty components (tar writes ``./name``)."""
    return "/".join(part for part in path.split("/") if part not in ("", "."))


def kind_problem(mode: int, links: int = 1) -> str | None:
    """Why a file of this ``st_mode`` is not read (links, devices), or None."""
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: made where there are no modes
        return "not a regular file (device, FIFO or socket)"
    if links > 1:
        return f"hard link ({links} names for one file)"
    return None


def folder_entries(root: Path) -> Iterator[Entry]:
    """The files under ``root``, sorted, without following links (links are entries with a
    problem)."""
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            dirs.remove(name)
            files.append(name)
        for name in sorted(files):
            path = Path(folder, name)
            info = path.lstat()
            yield Entry(name=path.relative_to(root).as_posix(),
                         path=path.relative_to(root).as_posix(),
                         problem=kind_problem(info.st_mode, info.st_nlink),
                         mtime=info.st_mtime, open=lambda path=path: open_regular(path),
                         file=path)


def zip_entries(archive: IO[bytes], label: str) -> Iterator[Entry]:
    """The file entries of a zip, with their problems; directories are left out."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            mode = info.external_attr >> 16 if info.create_system == 3 else 0  # 3: Unix
            problem = (path_problem(info.filename) or kind_problem(mode)
                       or ("encrypted" if info.flag_bits & 1 else None))
            try:
                mtime = time.mktime((*info.date_time, 0, 0, -1))
            except (OverflowError, ValueError):
                mtime = 0.0
            yield Entry(name=f"{label}: {info.filename}", path=relative(info.filename),
                         problem=problem,
                         mtime=mtime, size=info.file_size,
                         packed=info.compress_size,
                         open=lambda info=info: zf.open(info))


class _Bounded(io.RawIOBase):
    """A reader that raises :class:`TooMuch` once more than ``limit`` bytes came through it."""

    def __init__(self, inner: IO[bytes], limit: int) -> None:
        self.inner, self.limit, self.count = inner, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:
        data = self.inner.read(len(buffer))
        self.count += len(data)
        if self.count > self.limit:
            raise TooMuch(f"expands to more than {self.limit // MB} MB "
                           "(the ratio cap times its size): not read further")
        buffer[:len(data)] = data
        return len(data)


def tar_entries(archive: IO[bytes], label: str, ratio: float) -> Iterator[Entry]:
    """The file entries of a .tar.gz, read as a stream whose expansion is bounded by ``ratio``
    times the archive's size (skipping an entry still decompresses it)."""
    limit = max(int(ratio * os.fstat(archive.fileno()).st_size), RATIO_FLOOR)
    with gzip.open(archive) as unzipped, tarfile.open(
            fileobj=io.BufferedReader(_Bounded(unzipped, limit), CHUNK), mode="r|") as tar:
        for member in tar:
            if member.isdir():
                continue
            problem = path_problem(member.name) or (
                None if member.isreg() else "symbolic link" if member.issym()
                else "hard link" if member.islnk()
                else "not a regular file (device, FIFO or socket)")
            yield Entry(name=f"{label}: {member.name}", path=relative(member.name),
                         problem=problem,
                         mtime=float(member.mtime), size=member.size,
                         open=lambda member=member: tar.extractfile(member))


def copy_bounded(entry: Entry, dest: Path, budget: int, ratio: float) -> int:
    """Copy ``entry`` to ``dest`` in chunks, at most ``budget`` bytes; return the bytes copied.

    Raises :class:`TooMuch` (and removes ``dest``) past the budget or the ratio cap.
    """
    if entry.size is not None and entry.size > budget:
        raise TooMuch(f"declares {entry.size / MB:.0f} MB, over the {budget / MB:.0f} MB "
                       "left in the cap")
    if entry.packed and entry.size is not None and entry.size > max(
            RATIO_FLOOR, ratio * entry.packed):
        raise TooMuch(f"declares a compression ratio over {ratio:g}:1")
    assert entry.open is not None
    count = 0
    try:
        with entry.open() as src, dest.open("wb") as out:
            while chunk := src.read(CHUNK):
                count += len(chunk)
                if count > budget:
                    raise TooMuch(f"over the {budget / MB:.0f} MB cap per submission")
                if entry.packed is not None and count > max(RATIO_FLOOR, ratio * entry.packed):
                    raise TooMuch(f"compression ratio over {ratio:g}:1 (a zip bomb?)")
                out.write(chunk)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return count
