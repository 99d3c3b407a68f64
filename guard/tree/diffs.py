"""Before/after content -> added/removed lines and a unified diff we render ourselves.

The diff we report is computed from the bytes we would write, never echoed from
the input, so it is always a valid patch whatever the agent sent.  Callers that
know where the changes are (the locator does) pass ``regions`` so the cost
follows the edit rather than the file.

``aligned`` and ``similar`` are the one way agent-guard compares two sequences (lines,
or the characters of a line): difflib's answers, within a bound on the work whatever
the agent sends.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import chain
from typing import Any, Hashable, Iterable, Sequence

from ..model import FileChange, Op
from ..text.textfile import Text, decode_or_none

CONTEXT = 3
# difflib's matcher runs on at most this many item pairs: on an item repeated against an
# alternation of it (`x` lines against `x`/`y` lines, or such characters) it is cubic, quick on
# small pairs only (bench/README.md).  Larger pairs go to git's diff (``aligned``).
_DIFFLIB_LIMIT = 10_000

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
    for a0, a1, b0, b1 in regions:
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
        ops += [
            (tag, a0 + i0, a0 + i1, b0 + j0, b0 + j1) for tag, i0, i1, j0, j1 in aligned(a[a0:a1], b[b0:b1]) if tag != "equal"
        ]
    return ops


def aligned(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """difflib's opcodes for `a` -> `b` (``equal`` runs included), from difflib where it is
    cheap and from git's diff (``repo.linediff``) where difflib could run for minutes:
    every comparison of texts an agent sends goes through here."""
    if len(a) * len(b) <= _DIFFLIB_LIMIT:
        import difflib  # here: a check of commits, and most one-line edits, never compare

        return list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes())
    from ..repo.linediff import changed_regions

    ops: list[Opcode] = []
    i = j = 0
    for a0, a1, b0, b1 in changed_regions(a, b):
        if a0 > i:
            ops.append(("equal", i, a0, j, b0))
        ops.append(("replace" if a0 < a1 and b0 < b1 else "delete" if a0 < a1 else "insert", a0, a1, b0, b1))
        i, j = a1, b1
    if i < len(a):
        ops.append(("equal", i, len(a), j, len(b)))
    return ops


def similar(a: Sequence[Hashable], b: Sequence[Hashable], at_least: float) -> bool:
    """Whether difflib's ratio of `a` and `b` (twice the items they share over all items) is
    `at_least`, found from ``aligned``: cheap bounds first, the full match only if they pass."""
    total = len(a) + len(b)
    if not total:
        return True
    if 2 * min(len(a), len(b)) < at_least * total:  # difflib's real_quick_ratio
        return False
    from collections import Counter

    if 2 * sum((Counter(a) & Counter(b)).values()) < at_least * total:  # its quick_ratio
        return False
    same = sum(i1 - i0 for tag, i0, i1, _j0, _j1 in aligned(a, b) if tag == "equal")
    return 2 * same >= at_least * total


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


def header(path: str, op: Op, old_path: str | None, old_mode: int | None, new_mode: int | None) -> list[str]:
    """A file's `diff --git` line and the mode and rename lines after it (no `index` line)."""
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
    head: list[str], op: Op, names: tuple[str, str], a: Sequence[str], b: Sequence[str], ops: list[Opcode], binary: bool
) -> str:
    """The diff of `a` -> `b` (keyed lines, ``_keyed``) under the lines `head` (``header``): `names`
    are the file's paths before and after, as `--- a/` and `+++ b/` give them."""
    lines = list(head)
    old_name, path = names
    if binary:
        lines.append(
            f"Binary files {'/dev/null' if op is Op.CREATE else 'a/' + old_name} and "
            f"{'/dev/null' if op is Op.DELETE else 'b/' + path} differ"
        )
        return "\n".join(lines) + "\n"
    if not ops:
        return "\n".join(lines) + "\n" if len(lines) > 1 or op in (Op.CREATE, Op.DELETE) else ""
    lines.append("--- /dev/null" if op is Op.CREATE else f"--- a/{old_name}")
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
) -> FileChange:
    """Build the FileChange for before -> after: counts, added/removed lines, hunks, diff."""
    return diffed(FileChange(path, op, old_path, before, after, old_mode, new_mode))


def diffed(
    change: FileChange,
    *,
    regions: Iterable[Region] | None = None,
    before_text: Text | None = None,
    after_text: Text | None = None,
) -> FileChange:
    """`change` (its paths, modes, bytes, repairs and `whole` as given) with its added and removed
    lines, hunks and diff worked out from its before and after.  What the caller has worked out
    already is not done again: `regions`, where the edit's changes are (``opcodes``), and the
    texts, decoded."""
    path, op, old_path, before, after = change.path, change.op, change.old_path, change.before, change.after
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
    head = header(path, op, old_path, change.old_mode, change.new_mode)
    diff = render(head, op, (old_path or path, path), a, b, ops, binary)
    hunks = diff.count("\n@@ ") + (1 if diff.startswith("@@ ") else 0)
    return FileChange(
        path=path,
        op=op,
        old_path=old_path,
        before=before,
        after=after,
        old_mode=change.old_mode,
        new_mode=change.new_mode,
        added=added,
        removed=removed,
        hunks=hunks,
        repairs=tuple(dict.fromkeys(change.repairs)),
        diff=diff,
        whole=change.whole,
    )


@dataclass(frozen=True, slots=True)
class ChangedLines:
    """One changed region of a change, as lines: those it removes, and those added where they stood."""

    removed: tuple[tuple[int, str], ...]  # (1-based line in `before`, text)
    added: tuple[tuple[int, str], ...]  # (1-based line in `after`, text)


def changed_lines(change: FileChange) -> list[ChangedLines]:
    """The change's regions, rebuilt from the line numbers it carries: within a region the
    removed lines run on in the old text and the added ones in the new, and regions are
    apart by at least one unchanged line, so no diff is needed."""
    rem, add = change.removed, change.added
    out: list[ChangedLines] = []
    i = j = delta = 0
    while i < len(rem) or j < len(add):
        at_rem = rem[i][0] + delta if i < len(rem) else None
        at_add = add[j][0] if j < len(add) else None
        here = min(x for x in (at_rem, at_add) if x is not None)
        gone: list[tuple[int, str]] = []
        new: list[tuple[int, str]] = []
        if at_rem == here:
            first = rem[i][0]
            while i < len(rem) and rem[i][0] == first + len(gone):
                gone.append(rem[i])
                i += 1
        if at_add == here:
            while j < len(add) and add[j][0] == here + len(new):
                new.append(add[j])
                j += 1
        delta += len(new) - len(gone)
        out.append(ChangedLines(tuple(gone), tuple(new)))
    return out
