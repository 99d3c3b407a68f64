"""Lines much like an edit's: the second places that make a loose match doubtful.

An edit found only at another indent, or only once its blank edge lines went, may
name a copy of the lines it meant, which changed a little where they were: those
places, changed since the edit was written, are looked for here.
"""

from __future__ import annotations

from typing import Sequence

from ..model import CONTEXT, REMOVED
from ..tree.diffs import similar
from .index import MAX_CANDIDATES, FileIndex, Sought, candidates, indent_of, norm_fn


def lookalike(fi: FileIndex, old: Sequence[str], window: tuple[int, int]) -> list[int]:
    """Starts where lines much like `old` stand at `old`'s own indent (each non-blank line
    with the same indent and three quarters the same text): the edit's own place, changed
    since it was read, when the edit was found only at another indent."""
    shown = [k for k, x in enumerate(old) if x.strip()]
    if not shown:
        return []
    lines = fi.text.lines
    k0 = shown[0]
    want = [(indent_of(old[k]), old[k].strip()) for k in shown]
    out: list[int] = []
    for p in range(max(window[0], k0), min(window[1], len(lines) - len(old) + 1 + k0)):
        line = lines[p]
        if not line.startswith(want[0][0]) or indent_of(line) != want[0][0]:
            continue
        s = p - k0
        if all(indent_of(lines[s + k]) == ind and _similar(lines[s + k].strip(), text) for k, (ind, text) in zip(shown, want)):
            out.append(s)
            if len(out) > MAX_CANDIDATES:
                break
    return out


def resembles(fi: FileIndex, block: Sought, active: frozenset[str], at: int) -> bool:
    """Do the lines at `at` read as the block, changed a little since (removed lines too)?

    At most a third of its non-blank lines (at least one) may differ there, each
    much like the block's line at the same indent, or that line with more after it
    (a comment added since); a line only much like it counts when another line
    stands as written: the edit's own place, edited since.
    """
    size = len(block.old)
    if at < 0 or at + size > len(fi.keys) or not size:
        return False
    norm = norm_fn(active)
    lines = fi.normed(active)
    shown = sum(1 for x in block.old if x.strip())
    off = loose = 0
    for k, x in enumerate(block.old):
        if lines[at + k] == norm(x):
            continue
        mine = fi.text.lines[at + k]
        a, b = mine.strip(), x.strip()
        if not b or not a or indent_of(mine) != indent_of(x):
            return False
        if not (len(b) >= 8 and a.startswith(b)):
            if not _similar(a, b):
                return False
            loose += 1
        off += 1
    # A line that is only much like the edit's counts next to one that stands as written.
    return 0 < off <= max(1, shown // 3) and (loose == 0 or off < shown)


def resembling(fi: FileIndex, block: Sought, active: frozenset[str], window: tuple[int, int]) -> list[int]:
    """Starts in the window where the block `resembles` the file (found through its rarest line that stands as written)."""
    norm = norm_fn(active)
    old = [norm(x) for x in block.old]
    pos = fi.positions(active)
    present = [k for k, x in enumerate(old) if x.strip() and x in pos]
    if not present:
        return []
    out: list[int] = []
    seen: set[int] = set()
    # Any line may be the one edited since: each of the two rarest present lines anchors a search.
    for k in sorted(present, key=lambda k: len(pos[old[k]]))[:2]:
        if len(pos[old[k]]) > 256:
            break  # a line that common anchors nothing (and would make this quadratic)
        for p in pos[old[k]]:
            s = p - k
            if s in seen or s < window[0] or s + len(old) > window[1]:
                continue
            seen.add(s)
            if resembles(fi, block, active, s):
                out.append(s)
                if len(out) > MAX_CANDIDATES:
                    return out
    return out


def _similar(a: str, b: str) -> bool:
    """Is the file's `a` much like the edit's `b`: three quarters the same, or `b` with more after it?"""
    if a == b or (len(b) >= 8 and a.startswith(b)):
        return True  # (a comment added at the end since the edit was written, say)
    return similar(a, b, 0.75)


def near_places(fi: FileIndex, block: Sought, active: frozenset[str], window: tuple[int, int]) -> list[int]:
    """Starts where every removed line matches and at most a third of the context lines
    (at least one) differ, whatever they are: places the block may describe."""
    norm = norm_fn(active)
    lines = fi.normed(active)
    old = [norm(x) for x in block.old]
    size = len(old)
    usable = [k for k, t in enumerate(block.tags) if t == REMOVED] or [
        k for k in range(size) if old[k].strip() and old[k] in fi.positions(active)
    ]
    allowed = max(1, block.tags.count(CONTEXT) // 3)
    out: list[int] = []
    for s in candidates(fi, active, old, usable, window) if usable else ():
        if s < 0 or s + size > len(lines):
            continue
        off = 0
        for k in range(size):
            if lines[s + k] != old[k]:
                off += 1 if block.tags[k] == CONTEXT and old[k].strip() else allowed + 1
                if off > allowed:
                    break
        if off <= allowed and (block.tags.count(REMOVED) or off < sum(1 for x in old if x.strip())):
            out.append(s)
            if len(out) > MAX_CANDIDATES:
                break
    return out
