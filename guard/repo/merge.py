"""git's three-way merge of one file, in memory (what ``git merge-file`` computes).

libgit2's xdiff merge runs over three blobs held in a scratch object database in a
dict: nothing reaches the repository's own.

pygit2's public ``merge_file_from_index`` takes no options and decodes the result as
text, so this module alone calls libgit2 through pygit2's private binding; the version
is pinned in pyproject.toml and ``tests/repo/test_merge_file.py`` holds the result to
``git merge-file`` for every `favor`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from .errors import GitError


@dataclass(frozen=True, slots=True)
class Conflict:
    """One region both sides of a three-way merge changed differently: its lines on each side."""

    ours: tuple[bytes, ...]  # with their line terminators
    theirs: tuple[bytes, ...]
    ours_line: int  # 1-based line of `ours` where the region starts (the line after, when it is empty)
    theirs_line: int


@dataclass(frozen=True, slots=True)
class Merged:
    """git's three-way merge of one file (what ``git merge-file`` computes)."""

    clean: bool
    data: bytes  # the result; where not clean, with conflicts resolved as `favor` said (or marked)
    conflicts: tuple[Conflict, ...] = ()


class _MemoryObjects(pygit2.OdbBackend):
    """An object database in a dict: a merge's three blobs never reach the repository's own."""

    def __init__(self) -> None:
        super().__init__()
        self.objects: dict[str, tuple[int, bytes]] = {}

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.objects[str(oid)]

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self.objects[str(oid)]
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return str(oid) in self.objects

    def _unique(self, prefix: str) -> str:
        found = [oid for oid in self.objects if oid.startswith(prefix)]
        if len(found) != 1:
            raise KeyError(prefix)
        return found[0]

    def read_prefix_cb(self, prefix: str) -> tuple[int, bytes, pygit2.Oid]:
        oid = self._unique(prefix)
        kind, data = self.objects[oid]
        return kind, data, pygit2.Oid(hex=oid)

    def exists_prefix_cb(self, prefix: str) -> pygit2.Oid:
        return pygit2.Oid(hex=self._unique(prefix))

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        self.objects[str(oid)] = (kind, bytes(data))

    def refresh_cb(self) -> None:
        pass


_FAVOR = {"normal": 0, "ours": 1, "theirs": 2, "union": 3}
_MARKER = 17  # conflict markers longer than any a file is likely to hold, so they parse back unmistakably
# GIT_MERGE_FILE_SIMPLIFY_ALNUM: the level `git merge-file` uses (conflicts separated only by
# lines without letters or digits are one conflict), so the two agree on what conflicts.
_SIMPLIFY_ALNUM = 4


def merge_file(base: bytes, ours: bytes, theirs: bytes, favor: str = "normal") -> Merged:
    """Merge `ours` and `theirs`, two versions of `base`, line by line, as git does.

    libgit2's xdiff merge, the code of ``git merge-file``: a change on one side is
    kept; changes on both sides to the same or adjoining lines (no unchanged line
    between them) conflict unless they are the same change.  ``favor`` "ours" or
    "theirs" resolves each conflict by taking that side (``git merge-file --ours``),
    "union" by taking both, ours first (``git merge-file --union``); the conflicts are
    reported all the same.  No object is written to any repository.
    """
    from pygit2._libgit2 import ffi, lib  # type: ignore[import-not-found]  # the C API: merge options are not exposed otherwise

    def run(how: int) -> tuple[bool, bytes]:
        store = _MemoryObjects()
        odb = pygit2.Odb()
        odb.add_backend(store, 1)
        scratch = pygit2.Repository()
        scratch.set_odb(odb)
        entries, keep = [], []
        for data in (base, ours, theirs):
            oid = odb.write(pygit2.enums.ObjectType.BLOB, data)
            c_entry, c_path = pygit2.IndexEntry("file", oid, pygit2.enums.FileMode.BLOB)._to_c()
            entries.append(c_entry)
            keep.append(c_path)
        opts = ffi.new("git_merge_file_options *")
        opts.version = 1
        opts.favor = how
        opts.flags = _SIMPLIFY_ALNUM
        opts.marker_size = _MARKER
        out = ffi.new("git_merge_file_result *")
        err = lib.git_merge_file_from_index(out, scratch._repo, entries[0], entries[1], entries[2], opts)
        if err < 0:
            raise GitError(f"three-way merge failed (libgit2 error {err})")
        try:
            return bool(out.automergeable), bytes(ffi.buffer(out.ptr, out.len))
        finally:
            lib.git_merge_file_result_free(out)

    clean, marked = run(0)
    if clean:
        return Merged(True, marked)
    conflicts = _conflicts(marked, ours, theirs)
    if favor == "normal":
        return Merged(False, marked, conflicts)
    return Merged(False, run(_FAVOR[favor])[1], conflicts)


def _conflicts(marked: bytes, ours: bytes, theirs: bytes) -> tuple[Conflict, ...]:
    """The conflict regions of a marked merge, each placed in `ours` and `theirs`."""
    opening, middle, closing = b"<" * _MARKER, b"=" * _MARKER, b">" * _MARKER
    regions: list[tuple[list[bytes], list[bytes]]] = []
    side: list[bytes] | None = None
    for line in marked.splitlines(keepends=True):
        if side is None and line.startswith(opening):
            regions.append(([], []))
            side = regions[-1][0]
        elif side is not None and line.rstrip(b"\r\n") == middle:
            side = regions[-1][1]
        elif side is not None and line.startswith(closing):
            side = None
        elif side is not None:
            side.append(line)
    ours_lines, theirs_lines = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    out: list[Conflict] = []
    at_ours = at_theirs = 0
    for o, t in regions:
        at_ours = _find(ours_lines, o, at_ours)
        at_theirs = _find(theirs_lines, t, at_theirs)
        out.append(Conflict(tuple(o), tuple(t), at_ours + 1, at_theirs + 1))
        at_ours += len(o)
        at_theirs += len(t)
    return tuple(out)


def _find(lines: list[bytes], chunk: list[bytes], start: int) -> int:
    """The first place at or after `start` where `chunk` stands in `lines` (regions come in order)."""
    if not chunk:
        return start
    # The last line of a side may have lost its terminator to the marker after it.
    want = [x.rstrip(b"\r\n") for x in chunk]
    for p in range(start, len(lines) - len(chunk) + 1):
        if all(lines[p + k].rstrip(b"\r\n") == want[k] for k in range(len(chunk))):
            return p
    return start
