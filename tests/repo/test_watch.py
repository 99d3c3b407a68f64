"""What a watch reports (guard/repo/watch.py): every kind of change named by its path, folders as
wholes, and no answer where it cannot be sure."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from guard.fs import inotify
from guard.repo.watch import Touched, Watch


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "x.txt").write_text("x\n")
    (root / "a" / "b" / "y.txt").write_text("y\n")
    (root / "top.txt").write_text("t\n")
    (root / ".git").mkdir()
    return root


def _watch(root: Path) -> Watch:
    w = Watch(root, ["a", "a/b"], skip=frozenset({".git"}))
    if not w.active:
        pytest.skip("no inotify here")
    return w


def test_each_kind_of_change_is_named(tree: Path) -> None:
    with _watch(tree) as w:
        (tree / "a" / "x.txt").write_text("changed\n")
        (tree / "a" / "b" / "y.txt").unlink()
        (tree / "new.txt").write_text("n\n")
        os.chmod(tree / "top.txt", 0o755)
        os.rename(tree / "a" / "x.txt", tree / "a" / "b" / "moved.txt")
        (tree / "made" / "deep").mkdir(parents=True)
        (tree / "made" / "deep" / "f").write_text("f\n")
        (tree / ".git" / "index").write_text("git's own\n")
        got = w.touched()
    assert got == Touched(frozenset({"a/x.txt", "a/b/y.txt", "new.txt", "top.txt", "a/b/moved.txt"}), frozenset({"made"}))


def test_a_folder_removed_is_a_whole(tree: Path) -> None:
    with _watch(tree) as w:
        shutil.rmtree(tree / "a" / "b")
        got = w.touched()
    assert got is not None and "a/b" in got.folders
    assert got.paths() == ["a/b"]  # nothing below a folder listed is asked about twice


def test_nothing_done_is_nothing_touched(tree: Path) -> None:
    with _watch(tree) as w:
        (tree / "a" / "x.txt").read_bytes()
        assert w.touched() == Touched(frozenset(), frozenset())


def test_the_root_removed_cannot_be_told(tree: Path) -> None:
    with _watch(tree) as w:
        shutil.rmtree(tree)
        assert w.touched() is None


def test_more_folders_than_a_share_of_the_users_watches_is_no_watch(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inotify, "watch_limit", lambda: 8)  # 3 folders > 8 // 4
    w = Watch(tree, ["a", "a/b"])
    assert not w.active and w.touched() is None
