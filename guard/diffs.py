"""Before/after content -> added/removed lines and a unified diff we render ourselves.

The diff we report is computed from the bytes we would write, never echoed from
the input, so it is always a valid patch whatever the agent sent.  Callers that
know where the changes are (the locator does) pass ``regions`` so the cost
follows the edit rather than the file.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from itertools import chain
from typing import Any, Iterable, Sequence

from .model import FileChange, Op
from .textfile import Text, decode_or_none

CONTEXT = 3
# Above this many line pairs in one changed region, difflib's LCS (quadratic in the worst
# case) is not run on it: it is split at lines unique on both sides first (patience), and a
# part with none is reported as removed-then-added.
_MATCH_LIMIT = 4_000_000

Region = tuple[int, int, int, int]  # a0, a1, b0, b1: before[a0:a1] became after[b0:b1]
Opcode = tuple[str, int, int, int, int]


def whole_region(a: Sequence[str], b: Sequence[str]) -> Region:
    """The smallest region outside of which `a` and `b` agree."""
    n, m = len(a), len(b)
    lo = 0
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and a[n - 1 - hi] == b[m - 1 - hi]:
        hi += 1
    return lo, n - hi, lo, m - hi


def opcodes(a: Sequence[str], b: Sequence[str], regions: Iterable[Region] | None = None) -> list[Opcode]:
    """Replace/delete/insert opcodes (no 'equal') of a -> b, looking only inside `regions`."""
    if regions is None:
        regions = [whole_region(a, b)]
    ops: list[Opcode] = []
    todo = list(regions)[::-1]
    while todo:
        a0, a1, b0, b1 = todo.pop()
        # Trim again: a located region usually starts and ends with kept context.
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            a0 += 1
            b0 += 1
        while a1 > a0 and b1 > b0 and a[a1 - 1] == b[b1 - 1]:
            a1 -= 1
            b1 -= 1
        if a0 == a1 and b0 == b1:
            continue
        # One side empty, or one line for one (lines that differ: the trim took equal ones):
        # the one opcode difflib would give.
        if a0 == a1 or b0 == b1 or a1 - a0 == 1 == b1 - b0:
            ops.append(("replace" if a0 < a1 and b0 < b1 else ("delete" if a0 < a1 else "insert"), a0, a1, b0, b1))
            continue
        if (a1 - a0) * (b1 - b0) > _MATCH_LIMIT:
            # Too large for difflib: split at the lines that occur once on each side and pair
            # up in order (patience diff, as `git diff --patience`), and look between them.
            anchors = _unique_pairs(a, b, a0, a1, b0, b1)
            if not anchors:
                ops.append(("replace", a0, a1, b0, b1))  # nothing in common to split at
                continue
            edges = [(a0 - 1, b0 - 1), *anchors, (a1, b1)]
            todo += [(i + 1, k, j + 1, m) for (i, j), (k, m) in zip(edges, edges[1:])][::-1]
            continue
        import difflib  # here: a check of commits, and most one-line edits, never get this far

        sm = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
        for tag, i0, i1, j0, j1 in sm.get_opcodes():
            if tag != "equal":
                ops.append((tag, a0 + i0, a0 + i1, b0 + j0, b0 + j1))
    return ops


def _unique_pairs(a: Sequence[str], b: Sequence[str], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """The longest run, in order on both sides, of (i, j) with a[i] == b[j] a line that occurs
    once in a[a0:a1] and once in b[b0:b1]: the anchors of a patience diff."""
    seen_a: dict[str, int] = {}
    for i in range(a0, a1):
        line = a[i]
        seen_a[line] = -1 if line in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(b0, b1):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    pairs = sorted((seen_a[line], j) for line, j in seen_b.items() if j >= 0)
    # Longest increasing run of j (patience sorting): tails[k] = index into pairs of the
    # smallest last j of a run of length k + 1; back links rebuild the run.
    tails: list[int] = []
    tail_js: list[int] = []
    back = [-1] * len(pairs)
    for n, (_i, j) in enumerate(pairs):
        k = bisect_left(tail_js, j)
        back[n] = tails[k - 1] if k else -1
        if k == len(tails):
            tails.append(n)
            tail_js.append(j)
        else:
            tails[k] = n
            tail_js[k] = j
    run: list[tuple[int, int]] = []
    n = tails[-1] if tails else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]


class _Keyed(Sequence[str]):
    """A text's lines with their terminators, made on access: a located edit's diff reads a few."""

    def __init__(self, t: Text) -> None:
        self._t = t

    def __len__(self) -> int:
        return len(self._t.lines)

    def __getitem__(self, i: int | slice) -> Any:
        t = self._t
        if isinstance(i, slice):
            return list(map(operator.add, t.lines[i], t.eols[i]))
        return t.lines[i] + t.eols[i]


def _keyed(t: Text | None, lazy: bool = False) -> Sequence[str]:
    # Lines compared with their terminators, so an EOL-only change still shows.
    if t is None:
        return []
    if lazy and not t.bom:
        return _Keyed(t)
    keyed = list(map(operator.add, t.lines, t.eols))
    if t.bom:
        # git sees the BOM as part of the first line: so must the diff, to apply.
        keyed = ["\ufeff" + keyed[0]] + keyed[1:] if keyed else ["\ufeff"]
    return keyed


def _header(path: str, op: Op, old_path: str | None, old_mode: int | None, new_mode: int | None) -> list[str]:
    src = old_path or path
    out = [f"diff --git a/{src} b/{path}"]
    if op is Op.CREATE:
        out.append(f"new file mode {new_mode or 0o100644:o}")
    elif op is Op.DELETE:
        out.append(f"deleted file mode {old_mode or 0o100644:o}")
    else:
        if old_mode and new_mode and old_mode != new_mode:
            out += [f"old mode {old_mode:o}", f"new mode {new_mode:o}"]
        if old_path and old_path != path:
            out += [f"rename from {old_path}", f"rename to {path}"]
    return out


def _emit(out: list[str], prefix: str, keyed: Sequence[str], lo: int, hi: int) -> None:
    """Lines keyed[lo:hi] with `prefix`, in one join (large inserts are common)."""
    if hi <= lo:
        return
    out.append(prefix + prefix.join(keyed[lo:hi]))
    if not keyed[hi - 1].endswith("\n"):  # only a file's last line can lack one
        out.append("\n\\ No newline at end of file\n")


def render(
    path: str,
    op: Op,
    old_path: str | None,
    a: Sequence[str],
    b: Sequence[str],
    ops: list[Opcode],
    old_mode: int | None = None,
    new_mode: int | None = None,
    binary: bool = False,
) -> str:
    lines = _header(path, op, old_path, old_mode, new_mode)
    if binary:
        lines.append(f"Binary files {'/dev/null' if op is Op.CREATE else 'a/' + (old_path or path)} and "
                     f"{'/dev/null' if op is Op.DELETE else 'b/' + path} differ")
        return "\n".join(lines) + "\n"
    if not ops:
        return "\n".join(lines) + "\n" if len(lines) > 1 or op in (Op.CREATE, Op.DELETE) else ""
    lines.append("--- /dev/null" if op is Op.CREATE else f"--- a/{old_path or path}")
    lines.append("+++ /dev/null" if op is Op.DELETE else f"+++ b/{path}")
    out = "\n".join(lines) + "\n"
    # Group opcodes whose context windows touch into hunks.
    groups: list[list[Opcode]] = []
    for opc in ops:
        if groups and opc[1] - groups[-1][-1][2] <= 2 * CONTEXT:
            groups[-1].append(opc)
        else:
            groups.append([opc])
    parts = [out]
    for group in groups:
        a_start = max(0, group[0][1] - CONTEXT)
        a_end = min(len(a), group[-1][2] + CONTEXT)
        b_start = group[0][3] - (group[0][1] - a_start)
        b_end = group[-1][4] + (a_end - group[-1][2])
        body: list[str] = []
        i = a_start
        for _tag, a0, a1, b0, b1 in group:
            _emit(body, " ", a, i, a0)
            _emit(body, "-", a, a0, a1)
            _emit(body, "+", b, b0, b1)
            i = a1
        _emit(body, " ", a, i, a_end)
        old_n, new_n = a_end - a_start, b_end - b_start
        parts.append(f"@@ -{_range(a_start, old_n)} +{_range(b_start, new_n)} @@\n")
        parts.extend(body)
    return "".join(parts)


def _range(start: int, count: int) -> str:
    first = start + 1 if count else start
    return f"{first}" if count == 1 else f"{first},{count}"


def make_change(
    path: str,
    op: Op,
    before: bytes | None,
    after: bytes | None,
    *,
    old_path: str | None = None,
    old_mode: int | None = None,
    new_mode: int | None = None,
    repairs: Sequence[str] = (),
    regions: Iterable[Region] | None = None,
    before_text: Text | None = None,
    after_text: Text | None = None,
    whole: bool = False,
) -> FileChange:
    """Build the FileChange for before -> after: counts, added/removed lines, hunks, diff."""
    bt = before_text if before_text is not None else decode_or_none(before)
    at = after_text if after_text is not None else decode_or_none(after)
    binary = (before is not None and bt is None) or (after is not None and at is None)
    located = regions is not None
    a, b = _keyed(bt, located), _keyed(at, located)
    ops: list[Opcode] = [] if binary else opcodes(a, b, regions)
    # zip/range run in C: a 200,000-line create must not cost a Python loop per line.
    added: tuple[tuple[int, str], ...] = ()
    removed: tuple[tuple[int, str], ...] = ()
    if at is not None:
        added = tuple(chain.from_iterable(zip(range(b0 + 1, b1 + 1), at.lines[b0:b1]) for _t, _a0, _a1, b0, b1 in ops))
    if bt is not None:
        removed = tuple(chain.from_iterable(zip(range(a0 + 1, a1 + 1), bt.lines[a0:a1]) for _t, a0, a1, _b0, _b1 in ops))
    diff = render(path, op, old_path, a, b, ops, old_mode, new_mode, binary)
    hunks = diff.count("\n@@ ") + (1 if diff.startswith("@@ ") else 0)
    return FileChange(
        path=path,
        op=op,
        old_path=old_path,
        before=before,
        after=after,
        old_mode=old_mode,
        new_mode=new_mode,
        added=added,
        removed=removed,
        hunks=hunks,
        repairs=tuple(dict.fromkeys(repairs)),
        diff=diff,
        whole=whole,
    )
