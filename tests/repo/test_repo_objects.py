"""Blobs agent-guard stores itself (repo._write_loose): git and libgit2 read them, config is obeyed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pygit2
import pytest
from conftest import Repo, checkout_env, conflicted, git

from guard.repo import GitRepo
from guard.repo.objects import SHA1_FROM


def _loose_file(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


# Both ways `blob_id` hashes (libgit2 below SHA1_FROM bytes, plain SHA-1 from there for ASCII),
# each held to `git hash-object`: the id names the file the object is stored in.
@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"one line\n",
        b"\x00\xff binary\r\n" * 3,
        random.Random(7).randbytes(70_000),
        b"x = 1\n" * (SHA1_FROM // 6 + 1),
        b"y" * (SHA1_FROM - 1),
        b"\xe9" * SHA1_FROM,
    ],
    ids=["empty", "line", "binary", "random-70k", "ascii-from", "ascii-below", "latin1-from"],
)
def test_written_blob_reads_back_everywhere(tmp_path: Path, data: bytes) -> None:
    Repo(tmp_path)
    repo = GitRepo(tmp_path)
    oid = repo.write_blob(data)
    hashed = subprocess.run(
        ["git", "hash-object", "--stdin"], cwd=tmp_path, input=data, capture_output=True, timeout=60, check=True
    )
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


_UNVERIFIED_CHILD = """
import json, random, sys
import pygit2
from guard.repo import GitRepo, read_objects_unverified
from guard.repo.objects import SHA1_FROM
from guard.repo.values import Entry

read_objects_unverified()
repo = GitRepo(sys.argv[1])
datas = [b"", b"x = 1\\n", b"\\x00\\xff binary\\r\\n" * 3, random.Random(3).randbytes(SHA1_FROM + 5),
         b"y" * SHA1_FROM]
blobs = [repo.write_blob(d) for d in datas]
back = [repo.read_blob(b) == d for b, d in zip(blobs, datas)]
tree = repo.build_tree(repo.commit_tree(repo.head_commit()),
                       {f"f{i}": Entry(b, 0o100644) for i, b in enumerate(blobs)})
commit = repo.write_commit(tree, [repo.head_commit()], "unverified")
print(json.dumps({"blobs": blobs, "back": back, "tree": tree, "commit": commit}))
"""


def test_objects_written_and_read_unverified_are_gits(tmp_path: Path) -> None:
    """``read_objects_unverified`` (the check's speed-up: libgit2 no longer re-hashes what it reads)
    changes no id: blobs, a tree and a commit written with it off are the objects git computes
    (`git hash-object`, and fsck re-hashing every one), and read back the same.  In a child: the
    switch is libgit2's, for the whole process."""
    r = Repo(tmp_path)
    r.commit({"a.txt": "a\n"})
    out = subprocess.run(
        [sys.executable, "-c", _UNVERIFIED_CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        env=checkout_env(),
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert all(got["back"])
    for i, oid in enumerate(got["blobs"]):
        assert git(tmp_path, "hash-object", "--stdin", input=git_bytes(tmp_path, "cat-file", "blob", oid)).strip() == oid
        assert git(tmp_path, "rev-parse", f"{got['tree']}:f{i}").strip() == oid
    assert git(tmp_path, "rev-parse", f"{got['commit']}^{{tree}}").strip() == got["tree"]
    git(tmp_path, "fsck", "--strict", "--no-dangling", "--full")


def git_bytes(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60, check=True).stdout


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
