"""What the git seam hands out: file modes, tree entries, commits and tree changes, as plain values."""

from __future__ import annotations

from typing import ClassVar

from ..model import Value

FILE, EXEC, LINK, GITLINK = 0o100644, 0o100755, 0o120000, 0o160000


class Entry(Value):
    """A file in a tree: its blob (a commit, for a submodule) and its mode."""

    __slots__ = ("oid", "mode")
    _fields: ClassVar[tuple[str, ...]] = __slots__
    oid: str
    mode: int

    def __init__(self, oid: str, mode: int) -> None:
        self._init(oid, mode)


class CommitInfo(Value):
    __slots__ = ("oid", "parents", "tree", "message", "time")
    _fields: ClassVar[tuple[str, ...]] = __slots__
    oid: str
    parents: tuple[str, ...]
    tree: str
    message: str
    time: int

    def __init__(self, oid: str, parents: tuple[str, ...], tree: str, message: str, time: int) -> None:
        self._init(oid, parents, tree, message, time)


class TreeChange(Value):
    """One file's difference between two trees."""

    __slots__ = ("path", "old_path", "status", "old", "new")
    _fields: ClassVar[tuple[str, ...]] = __slots__
    path: str
    old_path: str | None
    status: str  # "A", "D", "M", "R"
    old: Entry | None
    new: Entry | None

    def __init__(self, path: str, old_path: str | None, status: str, old: Entry | None, new: Entry | None) -> None:
        self._init(path, old_path, status, old, new)
