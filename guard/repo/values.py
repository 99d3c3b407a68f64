"""What the git seam hands out: file modes, tree entries, commits and tree changes, as plain values."""

from __future__ import annotations

from dataclasses import dataclass

FILE, EXEC, LINK, GITLINK = 0o100644, 0o100755, 0o120000, 0o160000


@dataclass(frozen=True, slots=True)
class Entry:
    """A file in a tree: its blob (a commit, for a submodule) and its mode."""

    oid: str
    mode: int


@dataclass(frozen=True, slots=True)
class CommitInfo:
    oid: str
    parents: tuple[str, ...]
    tree: str
    message: str
    time: int


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One file's difference between two trees."""

    path: str
    old_path: str | None
    status: str  # "A", "D", "M", "R"
    old: Entry | None
    new: Entry | None
