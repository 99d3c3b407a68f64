"""A line-based three-way merge (diff3 semantics), for stale bases and rollbacks.

``merge(base, ours, theirs)`` keeps every change made on one side only and
refuses (returns conflicts) where both sides changed the same or adjacent base
lines differently.  Lines are compared with their terminators.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Conflict:
    base_start: int  # 0-based, in base
    base_end: int
    ours_start: int  # 0-based, in ours
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    @property
    def first_line(self) -> int:
        """1-based line of the region in `ours`."""
        return self.ours_start + 1

    @property
    def last_line(self) -> int:
        return self.ours_start + max(1, len(self.ours))

    def excerpt(self, limit: int = 8) -> str:
        """The region as `ours` has it, numbered, for a hint."""
        return "\n".join(f"{self.first_line + i:>6}| {ln.rstrip()}" for i, ln in enumerate(self.ours[:limit]))


def _matches(base: Sequence[str], other: Sequence[str]) -> dict[int, int]:
    sm = difflib.SequenceMatcher(None, base, other, autojunk=False)
    out: dict[int, int] = {}
    for i, j, n in sm.get_matching_blocks():
        for k in range(n):
            out[i + k] = j + k
    return out


def merge(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> tuple[list[str], list[Conflict]]:
    if list(ours) == list(base):
        return list(theirs), []
    if list(theirs) == list(base) or list(ours) == list(theirs):
        return list(ours), []
    ma, mb = _matches(base, ours), _matches(base, theirs)
    result: list[str] = []
    conflicts: list[Conflict] = []
    i = ia = ib = 0
    n = len(base)
    while True:
        j = i
        while j < n and not (j in ma and j in mb and ma[j] >= ia and mb[j] >= ib):
            j += 1
        if j == i and j < n and ma[j] == ia and mb[j] == ib:
            result.append(base[i])
            i, ia, ib = i + 1, ia + 1, ib + 1
            continue
        a_end = ma[j] if j < n else len(ours)
        b_end = mb[j] if j < n else len(theirs)
        b_chunk, o_chunk, t_chunk = list(base[i:j]), list(ours[ia:a_end]), list(theirs[ib:b_end])
        if o_chunk == b_chunk:
            result.extend(t_chunk)
        elif t_chunk == b_chunk or o_chunk == t_chunk:
            result.extend(o_chunk)
        else:
            conflicts.append(Conflict(i, j, len(result), tuple(o_chunk), tuple(t_chunk)))
            result.extend(o_chunk)
        if j >= n:
            break
        i, ia, ib = j, a_end, b_end
    return result, conflicts
