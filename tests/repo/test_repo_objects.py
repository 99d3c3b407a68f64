"""Blobs agent-guard stores itself (repo._write_loose): git and libgit2 read them, config is obeyed."""

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
from guard.repo.objects import SHA1_FROM


def _loose_file(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


# Both ways `blob_id` hashes (libgit2 below SHA1_FROM bytes, plain SHA-1 from there for ASCII),
# each held to `git hash-object`: the id names the file the object is stored in.
@pytest.mark.parametrize("data", [b"", b"one line\n", b"\x00\xff binary\r\n" * 3, random.Random(7).randbytes(70_000),
                                  b"x = 1\n" * (SHA1_FROM // 6 + 1), b"y" * (SHA1_FROM - 1), b"\xe9" * SHA1_FROM],
                         ids=["empty", "line", "binary", "random-70k", "ascii-from", "ascii-below", "latin1-from"])
def test_written_blob_reads_back_everywhere(tmp_path: Path, data: bytes) -> None:
    Repo(tmp_path)
    repo = GitRepo(tmp_path)
    oid = repo.write_blob(data)
    hashed = subprocess.run(["git", "hash-object", "--stdin"], cwd=tmp_path, input=data, capture_output=True,
                            timeout=60, check=True)
    assert oid == hashed.stdout.decode().strip()
    assert repo.read_blob(oid) == data
    out = subprocess.run(["git", "cat-file", "blob", oid], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    assert out.stdout == data
    assert git(tmp_path, "cat-file", "-t", oid).strip() == "blob"
    git(tmp_path, "fsck", "--strict", "--no-dangling")
    # Written as git writes a loose object: read-only, and a whole zlib stream.
    path = _loose_file(tmp_path, oid)
    assert path.stat().st_mode & 0o777 == 0o444
    assert zlib.decompress(path.read_bytes()) == b"blob %d\0" % len(data) + data
    assert not [p for p in path.parent.iterdir() if p.name.startswith("tmp_obj_")]
    # A fresh libgit2 handle finds it too (another process after this one).
    assert bytes(pygit2.Repository(str(tmp_path)).get(oid).data) == data  # type: ignore[union-attr]


def test_default_is_uncompressed_and_config_level_is_obeyed(tmp_path: Path) -> None:
    text = b"def f():\n    return 1\n" * 2000
    r = Repo(tmp_path)
    oid = GitRepo(tmp_path).write_blob(text)
    stored = _loose_file(tmp_path, oid).stat().st_size
    assert stored > len(text)  # stored blocks: git gc compresses it when it packs
    _loose_file(tmp_path, oid).unlink()
    r.git("config", "core.looseCompression", "9")
    oid2 = GitRepo(tmp_path).write_blob(text)
    assert oid2 == oid
    assert _loose_file(tmp_path, oid).stat().st_size < len(text) // 20
    r.git("config", "--unset", "core.looseCompression")
    r.git("config", "core.compression", "-1")  # zlib's default level
    _loose_file(tmp_path, oid).unlink()
    GitRepo(tmp_path).write_blob(text)
    assert _loose_file(tmp_path, oid).stat().st_size < len(text) // 20


def test_blob_already_packed_is_not_written_again(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    r.commit({"a.txt": "packed content\n"})
    r.git("gc", "-q")
    oid = r.git("rev-parse", "HEAD:a.txt").strip()
    assert not _loose_file(tmp_path, oid).exists()
    assert GitRepo(tmp_path).write_blob(b"packed content\n") == oid
    assert not _loose_file(tmp_path, oid).exists()


def test_shared_repository_writes_through_libgit2(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    r.git("config", "core.sharedRepository", "group")
    repo = GitRepo(tmp_path)
    oid = repo.write_blob(b"shared\n")
    assert repo._loose_objects() is None
    assert git(tmp_path, "cat-file", "blob", oid) == "shared\n"


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
    assert {(c.status, c.path) for c in staged} == {("R", "moved.txt"), ("D", "b.txt"), ("A", "d/y.txt"),
                                                    ("M", "d/x.txt"), ("M", "run.sh")}


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


def test_an_unmerged_index_has_no_staged_changes_to_give(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    conflicted(r)
    repo = GitRepo(tmp_path)
    assert repo.staged_changes(repo.commit_tree(r.git("rev-parse", "HEAD").strip())) is None
