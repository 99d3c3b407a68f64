"""A hashline edit whose tag is out of date, as the same ops with fresh numbers under a fresh tag.

A hashline edit names lines of the version its tag names.  When that is no longer the
version to edit (the file changed since, next to the edit's lines, or the agent read it
again), ``anchors`` refuses it as ``stale``.  Where every line an op anchors on is unchanged
in the file as it is now -- the lines it replaces or deletes, and both neighbours of an
insertion, still side by side -- the op means one thing there: the same op at those lines'
numbers now.  Anything else is two readings, and gets no suggestion:

- an anchored line changed, or is gone;
- the lines an op replaces no longer stand together;
- the file has new lines between an insertion's two neighbours (before or after them?);
- an insertion at the top or the end, where the file gained lines at that end.

The tag must name a version agent-guard can read back (its latest read, or a blob the object
database holds).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import FileEdit, LineRange
from ...repo import GitRepo
from ...text.textfile import NotText, Text, decode
from ...text.wording import brief, span
from ...tree.diffs import aligned


@dataclass(frozen=True, slots=True)
class Reanchored:
    """The ops at their lines in the file as it is now, under that version's tag."""

    changes: tuple[LineRange, ...]
    blob: str  # the version the numbers now refer to: the file as it is
    moved: tuple[str, ...]  # for each op that moved: from where to where
    since: tuple[str, ...]  # the file's changes next to the ops' lines, as they read now


def version_of(repo: GitRepo, fe: FileEdit, read_blob: str | None) -> tuple[str, Text] | None:
    """The version (blob id, text) a hashline edit's tag names, when agent-guard can read it back."""
    tag = (fe.base or "").lower()
    if read_blob is not None and read_blob.startswith(tag):
        oid: str | None = read_blob
    elif len(tag) >= 7:
        data = repo.read_blob(tag)
        oid = repo.hash_blob(data) if data is not None else None
    else:
        return None
    data = repo.read_blob(oid) if oid is not None else None
    if oid is None or data is None:
        return None
    try:
        return oid, decode(data)
    except NotText:
        return None


def unchanged(base: Text, current: Text) -> dict[int, int]:
    """Base line -> current line (1-based) for every line the file kept as it was."""
    keep: dict[int, int] = {}
    a = [ln + e for ln, e in zip(base.lines, base.eols)]
    b = [ln + e for ln, e in zip(current.lines, current.eols)]
    for tag, a0, a1, b0, _b1 in aligned(a, b):
        if tag == "equal":
            for i in range(a1 - a0):
                keep[a0 + i + 1] = b0 + i + 1
    return keep


def reanchor(fe: FileEdit, base: Text, current: Text, blob: str) -> Reanchored | None:
    """`fe`'s ops (numbered in `base`) at their lines in `current` (blob `blob`), or None when an op
    has more than one reading there."""
    from ...dialects.hashline import LAST  # here: only a hashline edit is re-anchored

    n, now = len(base.lines), len(current.lines)
    keep = unchanged(base, current)
    out: list[LineRange] = []
    moved: list[str] = []
    near: set[int] = set()
    for c in fe.changes:
        if not isinstance(c, LineRange) or c.expect is not None:
            return None
        a, b = (n + 1, n) if (c.end == LAST and c.start == LAST + 1) else (c.start, n if c.end == LAST else c.end)
        if b >= a:
            if a < 1 or b > n or any(x not in keep for x in range(a, b + 1)):
                return None
            first = keep[a]
            if any(keep[x] != first + (x - a) for x in range(a, b + 1)):
                return None  # the lines it replaces no longer stand together
            new_a, new_b = first, first + (b - a)
            near.update((new_a - 1, new_b + 1))
        else:
            if not 1 <= a <= n + 1:
                return None
            before, after = a - 1, a  # the insertion's neighbours in the base (0 or n + 1: none)
            at: set[int] = set()
            if before >= 1:
                if before not in keep:
                    return None
                at.add(keep[before] + 1)
            elif keep.get(1) != 1:
                return None  # at the top, and the file's first line is not the one read
            else:
                at.add(1)
            if after <= n:
                if after not in keep:
                    return None
                at.add(keep[after])
            elif keep.get(n, -1) != now and n:
                return None  # at the end, and the file's last line is not the one read
            else:
                at.add(now + 1)
            if len(at) != 1:
                return None  # the file has lines between the two the insertion goes between
            new_a = at.pop()
            new_b = new_a - 1
            near.update((new_b, new_a))
        if (new_a, new_b) != (a, b):
            moved.append(f"{_named(a, b)} is {_named(new_a, new_b)} now")
        out.append(LineRange(new_a, new_b, c.new, None, c.source_line))
    kept = set(keep.values())
    since = tuple(f"line {x} is {brief(current.lines[x - 1])!r}" for x in sorted(near) if 1 <= x <= now and x not in kept)
    return Reanchored(tuple(out), blob, tuple(moved), since)


def _named(a: int, b: int) -> str:
    return f"the insertion point after line {b}" if b < a else span(a, b)


def carried(read_blob_text: Text, shown: tuple[tuple[int, int], ...], current: Text) -> tuple[tuple[int, int], ...]:
    """The lines of `current` the agent has seen: those unchanged since the version it read,
    where that read showed them (spans of `current`, 1-based)."""
    keep = unchanged(read_blob_text, current)
    lines = sorted(keep[x] for a, b in shown for x in range(a, b + 1) if x in keep)
    spans: list[tuple[int, int]] = []
    for x in lines:
        if spans and x == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], x)
        else:
            spans.append((x, x))
    return tuple(spans)
