"""git's diff of two sequences (libgit2's xdiff), for sequences too long for difflib.

Any two sequences of hashable items: lines, or the characters of one line.  Each
distinct item becomes a numbered line, so xdiff compares exactly what the caller
compares (no line-ending, whitespace or binary rules of its own), and runs in C with
git's own bounds on its work: a long pair of pathological sequences (the same item over
and over against an alternation) stays quick, where difflib's time grows with the cube of
its length (bench/README.md).
"""

from __future__ import annotations

from typing import Hashable, Sequence

import pygit2


def changed_regions(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int, int, int]]:
    """Where `a` and `b` differ, in order: (a0, a1, b0, b1), a[a0:a1] became b[b0:b1]."""
    ids: dict[Hashable, int] = {}
    old = "".join([f"{ids.setdefault(x, len(ids))}\n" for x in a]).encode()
    new = "".join([f"{ids.setdefault(x, len(ids))}\n" for x in b]).encode()
    patch = pygit2.Patch.create_from(old, new, context_lines=0, interhunk_lines=0, flag=pygit2.enums.DiffOption.FORCE_TEXT)
    out = []
    for h in patch.hunks:
        # 1-based starts; an empty side names the line it follows (`@@ -10,0 +11,2 @@`).
        a0 = h.old_start if h.old_lines == 0 else h.old_start - 1
        b0 = h.new_start if h.new_lines == 0 else h.new_start - 1
        out.append((a0, a0 + h.old_lines, b0, b0 + h.new_lines))
    return out
