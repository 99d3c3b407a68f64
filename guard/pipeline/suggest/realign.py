"""A `not-found` change rewritten against the one region of the file it most likely meant.

A change is not found when the lines it shows are not in the file together: some it keeps
(context) read otherwise now, or the file gained lines among them since the agent read it.
When one region holds every line the change removes, in order and together, and enough of
its context around them, the agent most likely meant that region.  The change is rewritten
against it: the region's lines as they are now, minus the lines the change removes, plus the
lines it adds where it adds them.  The edit's own lines (those it removes) are never
reinterpreted: a removed line that reads otherwise is a change of the file under the edit
(or a misremembered line) that git's rule calls a conflict, and has two readings.

Readings are refused (None), never picked, when:

- a removed line is not in the region, or the removed lines of one block are not together;
- new lines that go between two kept lines have a line of the file between those;
- another region is as like the change (two closest regions of equal likeness);
- too little of the change is in the region (under half of its lines, or under two with a
  letter or digit): the region is a guess;
- the change shows more than ``MAX_LINES`` lines (the time it would take).

Lines compare as the ``eol`` and ``trailing-whitespace`` tiers compare them (when the policy
has them); a change that needs more (indent, typography) has other trouble than its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...locate.hunk_forms import bare_context
from ...locate.index import MAX_CANDIDATES, FileIndex, norm_fn
from ...model import ADDED, CONTEXT, REMOVED, Change, Hunk, HunkLine, Replace
from ...text.wording import brief
from .settle import alike

_MATCHERS = frozenset({"eol", "trailing-whitespace"})
_REGIONS = 6  # candidate regions aligned in full, the likeliest first
# The most lines a change may show to be realigned: each region's alignment takes time in the
# square of it (bench/README.md), and a refusal must answer quickly (the hook's deadline).
MAX_LINES = 300


@dataclass(frozen=True, slots=True)
class Realigned:
    """A change rewritten against a region of the file: the new change, and what differed."""

    change: Change
    first: int  # 1-based first line of the region
    last: int  # its last line
    differs: tuple[str, ...]  # what the change showed otherwise, one phrase per line


@dataclass(frozen=True, slots=True)
class _Reading:
    score: tuple[int, int]  # the change's lines the region has, or has edited; of those, as they are
    start: int  # 0-based region [start, end) of the file
    end: int
    edits: tuple[tuple[int, int, tuple[str, ...]], ...]  # file lines [f0, f1) become these added lines
    mapping: tuple[tuple[int, int], ...]  # (line of the change's old side, file line) pairs that match


def _as_hunk(ch: Change) -> tuple[Hunk, bool] | None:
    """The change as hunk lines, and whether a text change's old text ends with a line break."""
    if isinstance(ch, Hunk):
        return bare_context(ch), False  # the lines a SEARCH/REPLACE block repeats at its edges are its context
    if not isinstance(ch, Replace) or ch.replace_all or not ch.old:
        return None
    old, new = ch.old.split("\n"), ch.new.split("\n")
    ends = old[-1] == ""
    if ends != (new[-1] == ""):
        return None  # the new text would join the next line on, or split it: not whole lines
    if ends:
        old.pop()
        new.pop()
    lines = tuple(HunkLine(REMOVED, x) for x in old) + tuple(HunkLine(ADDED, x) for x in new)
    return bare_context(Hunk(lines, source_line=ch.source_line)), ends


def realign(fi: FileIndex, ch: Change, tiers: Sequence[str]) -> Realigned | None:
    """`ch` (a hunk or a text replacement the locator did not find) rewritten against the one
    region of the file it most likely meant, or None when there is no such region."""
    got = _as_hunk(ch)
    if got is None:
        return None
    h, ends = got
    if h.at_eof or not any(hl.tag == REMOVED for hl in h.lines) and not any(hl.tag == CONTEXT for hl in h.lines):
        return None
    active = _MATCHERS & frozenset(tiers)
    norm = norm_fn(active)
    old = [hl for hl in h.lines if hl.tag != ADDED]
    if len(old) > MAX_LINES:
        return None
    want = [norm(hl.text) for hl in old]
    lines = fi.normed(active)
    best: list[_Reading] = []
    for lo, hi, start in _regions(fi, active, want):
        reading = _read(h, want, lines, lo, hi, start)
        if reading is not None:
            best.append(reading)
    if not best:
        return None
    best.sort(key=lambda r: r.score, reverse=True)
    top = best[0]
    if any(r.score == top.score and r.edits != top.edits for r in best[1:]):
        return None  # two regions as like the change as each other
    differs, first, last = _differs(fi, [hl.text for hl in old], top)
    return Realigned(_rewritten(fi, ch, h, top, ends), first, last, differs)


def _regions(fi: FileIndex, active: frozenset[str], want: list[str]) -> list[tuple[int, int, int]]:
    """File windows around the places where the change's lines stand, likeliest first: (first
    line, end, the line the change would start at there)."""
    pos = fi.positions(active)
    starts: dict[int, int] = {}
    for k, w in enumerate(want):
        if not w.strip():
            continue
        for p in pos.get(w, ())[:MAX_CANDIDATES]:
            starts[p - k] = starts.get(p - k, 0) + 1
    if not starts:
        return []
    size = len(want)
    n = len(fi.keys)
    pad = 2 + size // 3
    taken: list[int] = []
    for st in sorted(starts, key=lambda x: (-starts[x], x)):
        if all(abs(st - t) > size // 2 for t in taken):
            taken.append(st)
            if len(taken) == _REGIONS:
                break
    return [(max(0, st - pad), min(n, st + size + pad), st) for st in taken]


def _read(h: Hunk, want: list[str], lines: list[str], lo: int, hi: int, start: int) -> _Reading | None:
    """The change read against file lines [lo, hi): its edits there, or None when they are not one reading."""
    mapped = _matched(want, lines, lo, hi, start)
    nonblank = [k for k, w in enumerate(want) if w.strip()]
    hits = [k for k in nonblank if k in mapped]
    # A line that stands for a line of the file edited (as many lines between two it shares,
    # each alike) is a sign of the place too, and pins new lines next to it.
    edited = {k: j for k, j in _paired(want, mapped, len(lines)) if alike(want[k], lines[j])}
    alike_hits = [k for k in nonblank if k in edited]
    if (len(hits) + len(alike_hits)) * 2 < len(nonblank) or sum(1 for k in hits if any(c.isalnum() for c in want[k])) < 2:
        return None
    # A line that pins new lines next to it: one the file has as the change shows it, or one that
    # stands for a line of the file edited (as many lines between two it shares, each alike).
    pins = {**mapped, **edited}
    edits: list[tuple[int, int, tuple[str, ...]]] = []
    k = 0  # index into the old side
    i = 0
    body = h.lines
    while i < len(body):
        if body[i].tag == CONTEXT:
            k += 1
            i += 1
            continue
        removed: list[int] = []
        added: list[str] = []
        while i < len(body) and body[i].tag != CONTEXT:
            if body[i].tag == REMOVED:
                removed.append(k)
                k += 1
            else:
                added.append(body[i].text)
            i += 1
        if removed:
            if any(r not in mapped for r in removed):
                return None  # a line the change removes reads otherwise: the edit's own line
            at = [mapped[r] for r in removed]
            if at != list(range(at[0], at[0] + len(at))):
                return None  # the file has lines among those the change removes
            edits.append((at[0], at[-1] + 1, tuple(added)))
            continue
        sides = set()
        if k - 1 >= 0 and k - 1 in pins:
            sides.add(pins[k - 1] + 1)
        if k < len(want) and k in pins:
            sides.add(pins[k])
        if len(sides) != 1:
            return None  # no kept line pins the new lines, or the file has lines between the two that do
        p = sides.pop()
        edits.append((p, p, tuple(added)))
    if not edits:
        return None
    start = min(min(mapped.values()), min(e[0] for e in edits))
    end = max(max(mapped.values()) + 1, max(e[1] for e in edits))
    if end - start > len(want) + max(2, len(want) // 3):
        return None  # the lines found are spread over more of the file than the change shows
    edits.sort(key=lambda e: (e[0], e[1] != e[0]))
    if any(b[0] < a[1] for a, b in zip(edits, edits[1:])):
        return None  # two blocks of the change fall on the same lines of the file
    return _Reading((len(hits) + len(alike_hits), len(hits)), start, end, tuple(edits), tuple(sorted(mapped.items())))


def _matched(want: list[str], lines: list[str], lo: int, hi: int, start: int) -> dict[int, int]:
    """The change's old lines that stand in file lines [lo, hi): line of the change -> file line.

    The longest common subsequence of the two, and of those as many, the one whose lines stand
    nearest to where the change would put them from `start` (its likeliest first line): a file
    that repeats a line (``#endif``, ``}``) has it at several places, and the nearest is the
    one shown."""
    n, m = len(want), hi - lo
    # best[i][j]: (lines matched, -distance from where `start` puts them) for want[i:], lines[lo+j:hi]
    best = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            got = max(below[j], row[j + 1])
            if want[i] == lines[lo + j]:
                nxt = below[j + 1]
                got = max(got, (nxt[0] + 1, nxt[1] - abs(lo + j - (start + i))))
            row[j] = got
    out: dict[int, int] = {}
    i = j = 0
    while i < n and j < m:
        here = best[i][j]
        if want[i] == lines[lo + j]:
            nxt = best[i + 1][j + 1]
            if (nxt[0] + 1, nxt[1] - abs(lo + j - (start + i))) == here:
                out[i] = lo + j
                i, j = i + 1, j + 1
                continue
        if best[i + 1][j] == here:
            i += 1
        else:
            j += 1
    return out


def _paired(want: list[str], mapped: dict[int, int], n: int) -> list[tuple[int, int]]:
    """The change's lines the file does not have as shown, each with the file line it stands for: a
    run of them between two lines the file shares stands for the file's lines between those when
    there are as many; at the edges, for as many lines outward."""
    ks = sorted(mapped)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(want):
        if k in mapped:
            k += 1
            continue
        end = k
        while end < len(want) and end not in mapped:
            end += 1
        before = max((x for x in ks if x < k), default=None)
        after = min((x for x in ks if x >= end), default=None)
        if before is not None and after is not None:
            lo, hi = mapped[before] + 1, mapped[after]
        elif before is not None:
            lo, hi = mapped[before] + 1, min(n, mapped[before] + 1 + end - k)
        elif after is not None:
            lo, hi = max(0, mapped[after] - (end - k)), mapped[after]
        else:
            lo, hi = 0, 0
        if hi - lo == end - k:
            out += list(zip(range(k, end), range(lo, hi)))
        k = end
    return out


def _rewritten(fi: FileIndex, ch: Change, h: Hunk, r: _Reading, ends: bool) -> Change:
    """The change with the region's lines as they are now (old side) and its edits made there (new side)."""
    keys = fi.keys
    hunk: list[HunkLine] = []
    j = r.start
    for f0, f1, added in r.edits:  # in file order: an insertion before a removal at the same line
        hunk += [HunkLine(CONTEXT, keys[x]) for x in range(j, f0)]
        hunk += [HunkLine(REMOVED, keys[x]) for x in range(f0, f1)]
        hunk += [HunkLine(ADDED, x) for x in added]
        j = max(j, f1)
    hunk += [HunkLine(CONTEXT, keys[x]) for x in range(j, r.end)]
    if isinstance(ch, Replace):
        old = [hl.text for hl in hunk if hl.tag != ADDED]
        new = [hl.text for hl in hunk if hl.tag != REMOVED]
        tail = "\n" if ends else ""
        return Replace("\n".join(old) + tail, "\n".join(new) + tail, False, ch.source_line)
    last = r.end == len(keys)
    final = fi.text.final_newline
    if isinstance(ch, Hunk) and ch.old_start is None and not ch.anchors and not any(hl.tag == CONTEXT for hl in ch.lines):
        # A block without context or a line number (SEARCH/REPLACE): the same shape, looked for anywhere.
        gone = tuple(HunkLine(REMOVED, hl.text) for hl in hunk if hl.tag != ADDED)
        made = tuple(HunkLine(ADDED, hl.text) for hl in hunk if hl.tag != REMOVED)
        return Hunk(
            gone + made, None, None, None, (), False, final if last else True, h.new_eof_newline if last else True, h.source_line
        )
    return Hunk(
        tuple(hunk),
        r.start + 1,
        None,
        None,
        (),
        False,
        final if last else True,
        h.new_eof_newline if last else True,
        h.source_line,
    )


def _differs(fi: FileIndex, shown: list[str], r: _Reading) -> tuple[tuple[str, ...], int, int]:
    """What the change showed otherwise than the file has it, one phrase per line, and the lines
    (1-based, first and last) the change covers in the file, its differing edges included."""
    mapped = dict(r.mapping)
    keys = fi.keys
    pairs = _paired(shown, mapped, len(keys))
    paired = {k for k, _j in pairs}
    out = [f"line {j + 1} is {brief(keys[j])!r} where the edit shows {brief(shown[k])!r}" for k, j in pairs]
    out += [
        f"the edit shows {brief(shown[k])!r}, which the file does not have there"
        for k in range(len(shown))
        if k not in mapped and k not in paired
    ]
    stood = set(mapped.values()) | {j for _k, j in pairs}
    first = min([r.start] + [j for _k, j in pairs])
    last = max([r.end - 1] + [j for _k, j in pairs])
    out += [
        f"line {j + 1} {brief(keys[j])!r} is not in the edit"
        for j in range(first, last + 1)
        if j not in stood and not any(e[0] <= j < e[1] for e in r.edits)
    ]
    return tuple(out), first + 1, last + 1
