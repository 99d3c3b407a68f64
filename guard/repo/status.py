"""The work tree against the index, as ``git status`` sees it; and an index's entries.

``git status`` compares each tracked file's stat data with the index and reads only the
files whose stat changed (its untracked cache and an fsmonitor, when configured, spare
it even the walk), so asking it costs what the tree's metadata costs, not its bytes.  It
is run with ``GIT_OPTIONAL_LOCKS=0`` so that it never rewrites the index while it looks:
a snapshot taken around a command must not be what changes the index.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pygit2

from .errors import GitError

_TIMEOUT = 600  # seconds: a status of a very large tree on a slow disk


@dataclass(frozen=True, slots=True)
class Dirty:
    """A path the work tree holds otherwise than the index: changed, deleted, conflicted, or untracked.

    `kind`: "modified" (its work-tree file differs from its index entry), "deleted" (tracked,
    not in the work tree), "untracked" (not ignored, not in the index), "repository" (an
    untracked folder that is a repository of its own), "conflicted" (unmerged in the index).
    """

    path: str
    kind: str


def dirty(root: Path) -> list[Dirty]:
    """Every path whose work-tree state differs from the index, and every untracked file that is
    not ignored (each file, not its folder), as ``git status`` lists them."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(
            [
                "git",
                "-c",
                "core.quotePath=false",
                "status",
                "--porcelain=v2",
                "-z",
                "--untracked-files=all",
                "--no-renames",
                "--ignore-submodules=all",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git status did not answer within {_TIMEOUT} s") from None
    except OSError as exc:
        raise GitError(f"cannot run git status: {exc}") from None
    if proc.returncode != 0:
        raise GitError(f"git status failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    out: list[Dirty] = []
    for record in proc.stdout.split(b"\0"):
        if not record:
            continue
        text = os.fsdecode(record)
        tag = text[:1]
        if tag == "?":
            path = text[2:]
            out.append(Dirty(path.rstrip("/"), "repository" if path.endswith("/") else "untracked"))
        elif tag == "1":
            fields = text.split(" ", 8)
            worktree = fields[1][1]
            if worktree != ".":
                out.append(Dirty(fields[8], "deleted" if worktree == "D" else "modified"))
        elif tag == "u":
            out.append(Dirty(text.split(" ", 10)[10], "conflicted"))
    return out


class IndexFile:
    """One index file, read by libgit2 (in C), asked about a few paths: the cost of reading it,
    not of a Python object per entry (a 100,000-file index)."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = None if path is None else os.fspath(path)
        self._idx: pygit2.Index | None = None
        if self.path is not None and os.path.exists(self.path):
            try:
                self._idx = pygit2.Index(self.path)
            except pygit2.GitError as exc:
                raise GitError(f"cannot read the index {self.path}: {exc}") from None

    def entry(self, path: str) -> tuple[str, int] | None:
        """(blob id, mode) of `path`'s stage-0 entry, or None."""
        if self._idx is None:
            return None
        try:
            e = self._idx[path]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return str(e.id), int(e.mode)

    def tree(self, repo: pygit2.Repository) -> str | None:
        """The tree this index records (written from its cached trees where they are valid, in C)."""
        if self._idx is None:
            return None
        try:
            return str(self._idx.write_tree(repo))
        except pygit2.GitError as exc:  # unmerged entries: no tree
            raise GitError(f"cannot read the index {self.path} as a tree: {exc}") from None
