"""What the git seam hands out: file modes, tree entries, commits and tree changes, as plain values."""

from __future__ import annotations

from ..model import Value

FILE, EXEC, LINK, GITLINK = 0o100644, 0o100755, 0o120000, 0o160000


class Entry(Value):
    """A file in a tree: its blob (a commit, for a submodule) and its mode."""

    oid: str
    mode: int


class CommitInfo(Value):
    oid: str
    parents: tuple[str, ...]
    tree: str
    message: str
    time: int


class TreeChange(Value):
    """One file's difference between two trees."""

    path: str
    old_path: str | None
    status: str  # "A", "D", "M", "R"
    old: Entry | None
    new: Entry | None
