"""The handle's objects and index: blobs written and read through libgit2 (ids git computes, hashes
verified on read), staged changes, attributes read without the index."""

from __future__ import annotations

import os
import random
import subprocess
import zlib
from pathlib import Path

import pygit2
import pytest
from conftest import Repo, conflicted, git

from guard.repo import GitRepo


def _loose_file(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


# Each blob written through libgit2 is the object git computes: the id names it, git reads it back.
@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"one line\n",
        b"\x00\xff binary\r\n" * 3,
        random.Random(7).randbytes(70_000),
        b"x = 1\n" * 200_000,
        b"\xe9" * (1 << 20),
    ],
    ids=["empty", "line", "binary", "random-70k", "ascii-1m", "latin1-1m"],
)
def test_written_blob_reads_back_everywhere(tmp_path: Path, data: bytes) -> None:
    Repo(tmp_path)
    repo = GitRepo(tmp_path)
    oid = repo.write_blob(data)
    hashed = subprocess.run(
        ["git", "hash-object", "--stdin"], cwd=tmp_path, input=data, capture_output=True, timeout=60, check=True
    )
    assert oid == hashed.stdout.decode().strip() == GitRepo.hash_blob(data)
    assert repo.read_blob(oid) == data
    out = subprocess.run(["git", "cat-file", "blob", oid], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    assert out.stdout == data
    assert git(tmp_path, "cat-file", "-t", oid).strip() == "blob"
    git(tmp_path, "fsck", "--strict", "--no-dangling", "--full")
    assert zlib.decompress(_loose_file(tmp_path, oid).read_bytes()) == b"blob %d\0" % len(data) + data
    # A fresh libgit2 handle finds it too (another process after this one).
    assert bytes(pygit2.Repository(str(tmp_path)).get(oid).data) == data  # type: ignore[union-attr]


def test_an_object_is_read_back_with_its_hash_verified(tmp_path: Path) -> None:
    """What is stored under an id must hash to it: an object file swapped for another content's
    (a disk fault, or a hand that rewrote it) is not read as the blob it claims to be."""
    Repo(tmp_path)
    repo = GitRepo(tmp_path)
    oid = repo.write_blob(b"the content agent-guard wrote\n")
    assert repo.read_blob(oid) == b"the content agent-guard wrote\n"
    other = b"another content, same id\n"
    stored = _loose_file(tmp_path, oid)
    stored.chmod(0o644)
    stored.write_bytes(zlib.compress(b"blob %d\0" % len(other) + other))
    for handle in (repo, GitRepo(tmp_path)):
        assert handle.read_blob(oid) is None
        assert handle.read_blob(oid[:12]) is None


def test_blob_already_packed_is_not_written_again(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    r.commit({"a.txt": "packed content\n"})
    r.git("gc", "-q")
    oid = r.git("rev-parse", "HEAD:a.txt").strip()
    assert not _loose_file(tmp_path, oid).exists()
    assert GitRepo(tmp_path).write_blob(b"packed content\n") == oid
    assert not _loose_file(tmp_path, oid).exists()


def test_linked_worktree_writes_to_the_common_objects(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    r = Repo(main)
    r.commit({"a.txt": "a\n"})
    r.git("worktree", "add", "-q", str(tmp_path / "wt"))
    oid = GitRepo(tmp_path / "wt").write_blob(b"from the linked tree\n")
    assert _loose_file(main, oid).exists()
    assert git(main, "cat-file", "blob", oid) == "from the linked tree\n"


# ---------------------------------------------------------------------- the staged change


def _staged_repo(root: Path) -> Repo:
    r = Repo(root)
    r.commit({"a.txt": "".join(f"line {i}\n" for i in range(40)), "b.txt": "b\n", "d/x.txt": "x\n", "run.sh": "echo\n"})
    r.git("mv", "a.txt", "moved.txt")
    r.git("rm", "-q", "b.txt")
    r.write({"d/y.txt": "y\n", "d/x.txt": "x2\n"})
    r.git("add", "-A")
    r.git("update-index", "--chmod=+x", "run.sh")
    return r


def test_staged_changes_equal_the_diff_of_the_index_tree(tmp_path: Path) -> None:
    r = _staged_repo(tmp_path)
    repo = GitRepo(tmp_path)
    head = repo.commit_tree(r.git("rev-parse", "HEAD").strip())
    staged = repo.staged_changes(head)
    assert staged is not None
    assert sorted(staged, key=str) == sorted(repo.diff_trees(head, repo.index_tree()), key=str)
    assert {(c.status, c.path) for c in staged} == {
        ("R", "moved.txt"),
        ("D", "b.txt"),
        ("A", "d/y.txt"),
        ("M", "d/x.txt"),
        ("M", "run.sh"),
    }


def test_staged_changes_of_another_index_file(tmp_path: Path) -> None:
    r = _staged_repo(tmp_path)
    other = tmp_path / ".git" / "other-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(other))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=tmp_path, env=env, check=True, timeout=60)
    r.write({"only-there.txt": "t\n"})
    subprocess.run(["git", "add", "only-there.txt"], cwd=tmp_path, env=env, check=True, timeout=60)
    repo = GitRepo(tmp_path)
    head = repo.commit_tree(r.git("rev-parse", "HEAD").strip())
    staged = repo.staged_changes(head, str(other))
    assert staged is not None
    assert [(c.status, c.path) for c in staged] == [("A", "only-there.txt")]
    assert sorted(staged, key=str) == sorted(repo.diff_trees(head, repo.index_tree(str(other))), key=str)
    assert "GIT_INDEX_FILE" not in os.environ


class _WatchedEnvironment(dict[str, str]):
    """os.environ as a test sees it: every variable set or removed is noted."""

    def __init__(self, real: dict[str, str]) -> None:
        super().__init__(real)
        self.changed: list[str] = []

    def __setitem__(self, key: str, value: str) -> None:
        self.changed.append(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.changed.append(key)
        super().__delitem__(key)


def test_another_index_file_is_read_without_touching_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git commit -a`'s index is opened as an object and passed in: nothing of the process changes
    while it is read, so no other thread (or git child) sees another index named."""
    r = _staged_repo(tmp_path)
    other = tmp_path / ".git" / "other-index"
    subprocess.run(
        ["git", "read-tree", "HEAD"], cwd=tmp_path, env=dict(os.environ, GIT_INDEX_FILE=str(other)), check=True, timeout=60
    )
    repo = GitRepo(tmp_path)
    head = repo.commit_tree(r.git("rev-parse", "HEAD").strip())
    watched = _WatchedEnvironment(dict(os.environ))
    monkeypatch.setattr(os, "environ", watched)
    assert repo.staged_changes(head, str(other)) == []  # that index holds HEAD's tree
    assert repo.staged_changes(head) != []  # the user's index holds the staged change
    assert watched.changed == []


def test_attributes_are_read_without_the_index_and_the_environment_is_put_back(tmp_path: Path) -> None:
    """The attribute handle reads no index (a broken one does not stop it) and leaves
    GIT_INDEX_FILE as it found it, set or not."""
    r = Repo(tmp_path)
    r.commit({".gitattributes": "*.bin binary\n", "a.bin": "x\n"})
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\0\0\0\2 not an index")
    for before in (None, str(tmp_path / ".git" / "index")):
        if before is not None:
            os.environ["GIT_INDEX_FILE"] = before
        try:
            assert GitRepo(tmp_path).attr("a.bin", "binary") is True
            assert os.environ.get("GIT_INDEX_FILE") == before
        finally:
            os.environ.pop("GIT_INDEX_FILE", None)


def test_an_unmerged_index_has_no_staged_changes_to_give(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    conflicted(r)
    repo = GitRepo(tmp_path)
    assert repo.staged_changes(repo.commit_tree(r.git("rev-parse", "HEAD").strip())) is None
