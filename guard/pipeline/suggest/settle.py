"""The one reading of a three-way merge that git calls a conflict only because two changes adjoin.

git's merge rule (``repo.merge``) refuses changes on both sides that touch *or adjoin*: with
no unchanged line between the file's change and the edit's, it cannot know that they are
independent, so agent-guard refuses the edit as ``stale``.  Shown to the agent, the two
changes are often plainly independent: the file renamed the line above the one the edit
rewrites.  ``settle`` gives that merge when it has exactly one result:

- each side's changes are its line diff from the base (``diffs.aligned``);
- a change of one side that shares a base line with a change of the other side, or
  inserts at the same place, or inside the lines the other replaces, is a conflict in the
  edit's own lines: two readings, so no result (None);
- the same change on both sides is made once;
- otherwise both sides' changes are made, in base order (an insertion before a replacement
  that starts at the same line).

Lines compare with their terminators, so a change of line ending is a change.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...text.textfile import Text
from ...tree.diffs import aligned, similar

Edit = tuple[int, int, tuple[str, ...]]  # base lines [a0, a1) become these keyed lines


@dataclass(frozen=True, slots=True)
class Settled:
    """The merge, and the file's changes git's rule called a conflict (they touch the edit's)."""

    text: Text
    # (1-based line in theirs, the base's lines there, theirs) for each of the file's changes
    # that touches or adjoins a change of the edit
    touching: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]


def keyed(t: Text) -> list[str]:
    return [ln + e for ln, e in zip(t.lines, t.eols)]


def _edits(base: list[str], other: list[str]) -> list[tuple[int, int, int, int]]:
    return [(a0, a1, b0, b1) for tag, a0, a1, b0, b1 in aligned(base, other) if tag != "equal"]


def _clash(mine: Edit, theirs: Edit, base: list[str]) -> bool:
    """Whether a change of the edit's and one of the file's, both of the base, leave more than one
    way to make both."""
    if mine == theirs:
        return False  # the same change: made once
    a0, a1, _ = mine
    b0, b1, new = theirs
    if a0 < b1 and b0 < a1:
        return True  # a base line both change
    if a0 == a1 == b0 == b1:
        return True  # both insert at one place: in which order?
    # An insertion strictly inside the lines the other side replaces.
    if (a0 == a1 and b0 < a0 < b1) or (b0 == b1 and a0 < b0 < a1):
        return True
    # The edit's new lines next to lines the file rewrote: they stay on their side of them only
    # where those are the same lines, edited (or gone).  Lines of other text, or another count of
    # them, may be new lines of the file's at the same place, read by the line diff as a rewrite:
    # which go first is open.  (The file's new lines next to lines the edit replaces stay outside
    # them: the edit's lines take the place of those it removes.)
    return a0 == a1 and (b1 == a0 or b0 == a0) and b0 < b1 and bool(new) and not _edited(base[b0:b1], new)


def _edited(old: list[str], new: tuple[str, ...]) -> bool:
    """Whether `new` is `old` line for line, each line edited, not replaced by other text."""
    return len(old) == len(new) and all(alike(x, y) for x, y in zip(old, new))


def alike(a: str, b: str) -> bool:
    """Whether two lines are one line edited: mostly the same characters, or one the other with
    text added at its start or end (a short line such as ``}`` given a trailing comment)."""
    a, b = a.strip(), b.strip()
    if not a or not b:
        return a == b
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short) or long.endswith(short) or similar(a, b, 0.5)


def settle(base: Text, ours: Text, theirs: Text) -> Settled | None:
    """`ours` and `theirs`, two versions of `base`, merged where only adjacency stands in the way;
    None where both change the same lines (or insert at one place)."""
    bk, ok, tk = keyed(base), keyed(ours), keyed(theirs)
    mine = [(a0, a1, tuple(ok[b0:b1])) for a0, a1, b0, b1 in _edits(bk, ok)]
    their_ops = _edits(bk, tk)
    theirs_edits = [(a0, a1, tuple(tk[b0:b1])) for a0, a1, b0, b1 in their_ops]
    for m in mine:
        for t in theirs_edits:
            if _clash(m, t, bk):
                return None
    every = sorted(set(mine) | set(theirs_edits), key=lambda e: (e[0], e[1] != e[0], e[1]))
    out: list[str] = []
    pos = 0
    for a0, a1, new in every:
        if a0 < pos:
            return None  # cannot happen after the clash test; a merge out of order is no merge
        out += bk[pos:a0]
        out += new
        pos = a1
    out += bk[pos:]
    touching = tuple(
        (b0 + 1, tuple(x.rstrip("\r\n") for x in bk[a0:a1]), tuple(x.rstrip("\r\n") for x in tk[b0:b1]))
        for a0, a1, b0, b1 in their_ops
        if (a0, a1, tuple(tk[b0:b1])) not in mine and any(m0 <= a1 and a0 <= m1 for m0, m1, _ in mine)
    )
    return Settled(_text(out, theirs.bom), touching)


def _text(keyed_lines: list[str], bom: bool) -> Text:
    lines: list[str] = []
    eols: list[str] = []
    for k in keyed_lines:
        if k.endswith("\r\n"):
            lines.append(k[:-2])
            eols.append("\r\n")
        elif k.endswith("\n"):
            lines.append(k[:-1])
            eols.append("\n")
        else:
            lines.append(k)
            eols.append("")
    # Only the last line may lack a terminator: one that lost it in the middle takes the usual one.
    for i in range(len(eols) - 1):
        if not eols[i]:
            eols[i] = "\n"
    return Text(tuple(lines), tuple(eols), bom)
