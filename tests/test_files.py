"""grader.core.files: copying and reading a submission keeps only plain files and folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.core import files

KINDS = {  # name in the tree -> the start of the reason it is skipped with
    "to_secret.txt": "symbolic link to ",
    "to_outside": "symbolic link to ",
    "dangling.txt": "symbolic link to ",
    "loop": "symbolic link to ",
    "hard.txt": "hard link (the file has 2 names)",
    "pipe": "FIFO (named pipe)",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A submission with a file, a folder, and one entry of every kind to skip; outside it a
    secret file and a secret folder."""
    (tmp_path / "outside").mkdir()
    secret = tmp_path / "outside" / "secret.txt"
    secret.write_text("SECRET")
    root = tmp_path / "submission"
    (root / "data").mkdir(parents=True)
    (root / "notes.txt").write_text("mine")
    (root / "data" / "points.csv").write_text("1,2\n")
    (root / "to_secret.txt").symlink_to(secret)
    (root / "to_outside").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "dangling.txt").symlink_to(tmp_path / "nowhere")
    (root / "loop").symlink_to("loop")
    os.link(secret, root / "hard.txt")
    os.mkfifo(root / "pipe")
    return root


def test_copy_tree_keeps_plain_files_and_skips_every_other_kind(tree: Path, tmp_path: Path):
    skipped = dict(files.copy_tree(tree, tmp_path / "copy"))
    assert sorted(skipped) == sorted(KINDS)
    for name, reason in KINDS.items():
        assert skipped[name].startswith(reason)
    assert skipped["to_secret.txt"] == f"symbolic link to {tmp_path}/outside/secret.txt"
    copied = sorted(p.relative_to(tmp_path / "copy").as_posix()
                    for p in (tmp_path / "copy").rglob("*"))
    assert copied == ["data", "data/points.csv", "notes.txt"]
    assert (tmp_path / "copy" / "notes.txt").read_text() == "mine"
    assert not any(p.is_symlink() for p in (tmp_path / "copy").rglob("*"))


def test_read_tree_reads_only_plain_files(tree: Path):
    found, skipped = files.read_tree(tree, ignore=["*.csv"])
    assert found == {"notes.txt": b"mine"}
    assert sorted(name for name, _ in skipped) == sorted(KINDS)
    assert b"SECRET" not in b"".join(found.values())


def test_find_skipped_agrees_without_reading(tree: Path):
    assert files.find_skipped(tree) == files.copy_tree(tree, tree.parent / "copy")


def test_a_folder_that_is_a_link_is_skipped_as_a_whole(tree: Path, tmp_path: Path):
    link = tmp_path / "linked_submission"
    link.symlink_to(tree, target_is_directory=True)
    assert files.read_tree(link) == ({}, [(".", f"symbolic link to {tree}")])
    assert files.copy_tree(link, tmp_path / "copy") == [(".", f"symbolic link to {tree}")]
    assert list((tmp_path / "copy").iterdir()) == []


def test_read_regular_refuses_links_fifos_and_hard_links(tree: Path):
    assert files.read_regular(tree / "notes.txt") == b"mine"
    for name in ("to_secret.txt", "dangling.txt", "loop", "hard.txt", "pipe", "data"):
        with pytest.raises(files.NotRegularFile):
            files.read_regular(tree / name)


def test_link_kind_names_each_kind(tree: Path):
    assert files.link_kind(tree / "notes.txt") == files.link_kind(tree / "data") == ""
    assert files.link_kind(tree / "pipe") == "FIFO (named pipe)"
    assert files.link_kind(tree / "loop") == "symbolic link to loop"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_is_skipped_without_being_opened(tree: Path, tmp_path: Path):
    # /dev/zero's numbers: were it opened and read, the copy would never end.
    os.mknod(tree / "zero", 0o666 | 0o020000, os.makedev(1, 5))
    assert ("zero", "device") in files.copy_tree(tree, tmp_path / "copy")
    assert not (tmp_path / "copy" / "zero").exists()


def test_permission_bits_are_kept_without_setuid(tree: Path, tmp_path: Path):
    (tree / "run.sh").write_text("#!/bin/sh\n")
    (tree / "run.sh").chmod(0o4755)
    files.copy_tree(tree, tmp_path / "copy")
    assert (tmp_path / "copy" / "run.sh").stat().st_mode & 0o7777 == 0o755
