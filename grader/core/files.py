"""Copying and reading a submission's files without following any link.

A submission folder is hostile: it arrives through git, rsync or nbgrader's exchange, and may
hold names that lead elsewhere. Read as root, a symbolic link ``notes.txt ->
../../../../solutions/...`` hands the instructor's answers to the student's kernel, and a link to
``/etc/shadow`` or to a classmate's notebook prints them into the student's feedback. So the
primitives here keep only **regular files and folders** and skip, with a reason:

* symbolic links (to files or folders, dangling or looping);
* regular files with more than one name (a hard link: the other name may be anywhere on the
  same file system, e.g. in ``solutions/``);
* FIFOs (opening one would block), devices, sockets;
* folders on another file system (a mount point).

Every folder is opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to its parent's descriptor,
and every file with ``O_NOFOLLOW | O_NONBLOCK`` relative to its folder's descriptor, then
checked with ``fstat`` on what was opened: a name swapped for a link between the check and
the read is refused, not followed (no time-of-check-to-time-of-use window).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import IO

Skipped = tuple[str, str]  # (path relative to the folder walked, why it was skipped)
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused after fstat).
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
CHUNK = 1 << 20


class NotRegularFile(ValueError):
    """A path that is not a regular file with a single name (the message says what it is)."""


def refusal(st: os.stat_result, link_target: str = "") -> str:
    """Why an entry with this ``lstat`` result is not kept ("" for a folder or a plain file).

    Parameters
    ----------
    st : os.stat_result
        From ``lstat`` (``follow_symlinks=False``), or ``fstat`` of an opened file.
    link_target : str
        What a symbolic link points to, shown in the reason.
    """
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return ""
    if stat.S_ISREG(mode):
        return f"hard link (the file has {st.st_nlink} names)" if st.st_nlink > 1 else ""
    if stat.S_ISLNK(mode):
        return f"symbolic link to {link_target[:200]}"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def link_kind(path: Path) -> str:
    """Why ``path`` itself is not kept, from ``lstat`` ("" for a folder or a plain file)."""
    st = os.lstat(path)
    return refusal(st, os.readlink(path) if stat.S_ISLNK(st.st_mode) else "")


@dataclass(frozen=True)
class _File:
    relative: str
    dir_fd: int  # its folder, open while the walk is at this entry
    name: str
    stat: os.stat_result


def _entry_refusal(dir_fd: int, name: str, st: os.stat_result, device: int) -> str:
    if stat.S_ISLNK(st.st_mode):
        try:
            return refusal(st, os.readlink(name, dir_fd=dir_fd))
        except OSError:
            return refusal(st, "?")
    if stat.S_ISDIR(st.st_mode) and st.st_dev != device:
        return "another file system (a mount point)"
    return refusal(st)


def _walk(dir_fd: int, prefix: str, device: int, ignore: tuple[str, ...],
          skipped: list[Skipped]) -> Iterator[_File | str]:
    """Plain files (as :class:`_File`) and folders (relative path) below ``dir_fd``, in name
    order, folders before their content; everything else is appended to ``skipped``."""
    with os.scandir(dir_fd) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if any(fnmatch(entry.name, pattern) for pattern in ignore):
            continue
        relative = prefix + entry.name
        try:
            st = entry.stat(follow_symlinks=False)
            reason = _entry_refusal(dir_fd, entry.name, st, device)
        except OSError as error:
            reason = f"could not be read ({error.strerror})"
        if reason:
            skipped.append((relative, reason))
        elif stat.S_ISREG(st.st_mode):
            yield _File(relative, dir_fd, entry.name, st)
        else:
            try:
                child = os.open(entry.name, DIR_FLAGS, dir_fd=dir_fd)
            except OSError as error:  # swapped for a link since the scan: ELOOP / ENOTDIR
                skipped.append((relative, f"could not be opened as a folder ({error.strerror})"))
                continue
            try:
                yield relative
                yield from _walk(child, relative + "/", device, ignore, skipped)
            finally:
                os.close(child)


def _files(root: Path, ignore: Iterable[str], skipped: list[Skipped]) -> Iterator[_File | str]:
    """:func:`_walk` from ``root``, which must itself be a folder, not a link to one."""
    try:
        fd = os.open(root, DIR_FLAGS)
    except OSError as error:
        if not os.path.lexists(root):
            raise
        skipped.append((".", link_kind(root) or f"not a folder ({error.strerror})"))
        return
    try:
        yield from _walk(fd, "", os.fstat(fd).st_dev, tuple(ignore), skipped)
    finally:
        os.close(fd)


def _open_regular(name: str | Path, dir_fd: int | None, expected: os.stat_result | None) -> int:
    """A descriptor of the plain file ``name``, checked with fstat after opening.

    Raises :class:`NotRegularFile` for anything else, and when the file is not the one
    ``expected`` (from the walk's lstat) describes.
    """
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        raise NotRegularFile(f"could not be opened without following a link "
                             f"({error.strerror})") from None
    st = os.fstat(fd)
    reason = refusal(st) or ("" if stat.S_ISREG(st.st_mode) else "not a file")
    if not reason and expected is not None and (st.st_dev, st.st_ino) != (
            expected.st_dev, expected.st_ino):
        reason = "replaced while being read"
    if reason:
        os.close(fd)
        raise NotRegularFile(reason)
    os.set_blocking(fd, True)
    return fd


def open_regular(path: Path) -> IO[bytes]:
    """``path`` opened for reading if it is a plain file with one name; never follows a link.

    Raises
    ------
    NotRegularFile
        ``path`` is a link, a FIFO, a device, a folder or a hard link; the message says which.
    """
    return os.fdopen(_open_regular(path, None, None), "rb")


def read_regular(path: Path) -> bytes:
    """The content of ``path`` if it is a plain file with one name (see :func:`open_regular`)."""
    with open_regular(path) as file:
        return file.read()


def read_tree(root: Path, ignore: Iterable[str] = ()) -> tuple[dict[str, bytes], list[Skipped]]:
    """Every plain file below ``root``, keyed by its relative POSIX path, and what was skipped.

    ``ignore`` holds file-name patterns (``fnmatch``, as ``shutil.ignore_patterns``) left out
    silently, not reported.
    """
    skipped: list[Skipped] = []
    found = {}
    for item in _files(root, ignore, skipped):
        if isinstance(item, _File):
            try:
                with os.fdopen(_open_regular(item.name, item.dir_fd, item.stat), "rb") as file:
                    found[item.relative] = file.read()
            except NotRegularFile as error:
                skipped.append((item.relative, str(error)))
    return found, skipped


def copy_tree(source: Path, dest: Path, ignore: Iterable[str] = ()) -> list[Skipped]:
    """Copy the folders and plain files below ``source`` into ``dest``; return what was skipped.

    ``dest`` is created if needed; a file already there is replaced. Permission bits are kept
    (never set-user-id or sticky bits). ``ignore`` as in :func:`read_tree`.
    """
    skipped: list[Skipped] = []
    dest.mkdir(parents=True, exist_ok=True)
    for item in _files(source, ignore, skipped):
        if not isinstance(item, _File):
            (dest / item).mkdir(exist_ok=True)
            continue
        try:
            fd = _open_regular(item.name, item.dir_fd, item.stat)
        except NotRegularFile as error:
            skipped.append((item.relative, str(error)))
            continue
        target = dest / item.relative
        if target.is_symlink() or target.is_file():
            target.unlink()
        mode = stat.S_IMODE(item.stat.st_mode) & 0o777
        with os.fdopen(fd, "rb") as reader, os.fdopen(
                os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode),
                "wb") as writer:
            while chunk := reader.read(CHUNK):
                writer.write(chunk)
    return skipped


def find_skipped(root: Path) -> list[Skipped]:
    """What :func:`copy_tree` and :func:`read_tree` would skip below ``root``, without reading
    any file (``lstat`` only): for the report."""
    skipped: list[Skipped] = []
    list(_files(root, (), skipped))
    return skipped
