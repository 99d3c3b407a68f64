"""Lazy snippets: the file as it should become, with unchanged stretches elided by markers.

A snippet is the file as it should become, with unchanged stretches elided by
marker lines.  Its real lines are either anchors (lines of the file, kept as the
file has them) or new.  Anchors are found as in a patience diff: a line that
occurs once in the file and once in the snippet is an anchor (never a line that
only closes something: `}`, `end`, a blank); anchors must come in file order;
each extends over the equal lines next to it; and between two anchors with a
marker between them the search repeats, uniqueness now counted inside that
stretch.  Then each stretch between two anchors is read:

- without a marker the snippet shows it whole, and its lines replace the file's;
  a stretch that would drop many more lines than it shows is refused (a marker
  was probably forgotten), and so, at either end of the file, is any drop;
- with markers, every marker keeps file lines.  New lines before the first
  marker go right after the anchor, new lines after the last right before the
  next anchor; context they carry on the marker's side may meet the file a few
  lines off (the lines between are replaced).  A marker indented deeper than the
  block around it stands for the rest of that block: the parse tree gives the
  extent when the file parses, else the indentation does, and new lines after
  it go where the block ends.  Lines between two markers are placed by the
  context at both their ends, as a block, else where the first marker's block
  ends (new code only), else refused.  Code outside a marker's block that the
  snippet does not show would be lost, and is refused.
Whatever two readings could explain is refused: context that also fits a few
lines further off (unless the lines between are shallower, so no agent would
drop them silently), blank or closing lines shown where the file has other
lines, a new line next to a marker that looks like a changed version of the
line the marker keeps there (a replacement, or an addition?  A near copy, the same
definition, assignment or exit, or a comment reworded by one word), new lines after a
`return` the marker keeps, and new lines at an end of the file with nothing of
the file next to them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Sequence

from ..model import Finding, Snippet, error
from ..tree.diffs import aligned
from .index import FileIndex, indent_width, norm_fn
from .pieces import (
    LAZY_SLACK,
    Lazy,
    closes_outside,
    doubt,
    drops_quietly,
    edge_finding,
    least_depth,
    nonblank,
    outside,
    place_block,
    reach_context,
    shared,
    unplaced,
    weak,
)
from .splice import Located, Splice


def _anchor(lz: Lazy, i0: int, i1: int, p0: int, p1: int) -> Finding | None:
    """Pair the snippet lines strictly between i0 and i1 with file lines strictly between p0 and p1.

    Anchors, strictest first: the lines that occur once on each side (`_unique_pairs`), else
    runs that occur once in a row (`_block_anchors`).  They must come in file order
    (`_out_of_order`); each grows over the equal lines next to it (`_grow`), and between two
    anchors with a marker between them the search repeats.
    """
    found = _unique_pairs(lz, i0, i1, p0, p1) or _block_anchors(lz, i0, i1, p0, p1)
    f = _out_of_order(lz, found)
    if f is not None or not found:
        return f
    edges = [(i0, p0)] + found + [(i1, p1)]
    matched: list[tuple[int, int]] = []
    for n in range(1, len(edges) - 1):
        grown = _grow(lz, edges[n], matched[-1] if matched else edges[0], edges[n + 1])
        if isinstance(grown, Finding):
            return grown
        matched += grown
    lz.pairs.update(matched)
    edges = [(i0, p0)] + matched + [(i1, p1)]
    for (ia, pa), (ib, pb) in zip(edges, edges[1:]):
        if any(lz.marker[ia + 1 : ib]):
            f = _anchor(lz, ia, ib, pa, pb)
            if f is not None:
                return f
    return None


def _unique_pairs(lz: Lazy, i0: int, i1: int, p0: int, p1: int) -> list[tuple[int, int]]:
    """The shown lines (more than closing lines) that occur once between snippet lines i0 and
    i1 and once between file lines p0 and p1, each with its file line."""
    s_count: dict[str, int] = {}
    for k in lz.skeys[i0 + 1 : i1]:
        s_count[k] = s_count.get(k, 0) + 1
    f_first: dict[str, int] = {}
    f_count: dict[str, int] = {}
    for p in range(p0 + 1, p1):
        k = lz.keys[p]
        f_count[k] = f_count.get(k, 0) + 1
        f_first.setdefault(k, p)
    return [
        (i, f_first[k])
        for i in range(i0 + 1, i1)
        if not lz.marker[i] and not weak(k := lz.skeys[i]) and s_count[k] == 1 and f_count.get(k) == 1
    ]


def _out_of_order(lz: Lazy, found: list[tuple[int, int]]) -> Finding | None:
    """Anchors must come in file order: refuse the first that does not."""
    for (ia, pa), (ib, pb) in zip(found, found[1:]):
        if pb < pa:
            return error(
                "not-found",
                lz.path,
                pb + 1,
                f"the snippet's lines are not in the order of {lz.path}: {lz.show(ib)} (snippet line {lz.src(ib)}) "
                f"is line {pb + 1} of the file, but the snippet shows it after {lz.show(ia)} (line {pa + 1})",
                "re-read the file and keep the snippet in file order; a new line that repeats a line found "
                "elsewhere in the file reads as an anchor there: show more unchanged lines around it, or send a diff",
            )
    return None


def _grow(lz: Lazy, anchor: tuple[int, int], lo: tuple[int, int], hi: tuple[int, int]) -> Finding | list[tuple[int, int]]:
    """The anchor (snippet line, file line) grown over the equal lines next to it, back to the
    last pair matched (`lo`) and on to the next anchor (`hi`), as pairs; refused when the
    context grown next to a marker also fits a few lines further off (`_also_further`)."""
    i, p = anchor
    a, b = _grow_back(lz, i, p, *lo)
    c, d = i, p
    while c + 1 < hi[0] and d + 1 < hi[1] and not lz.marker[c + 1] and lz.skeys[c + 1] == lz.keys[d + 1]:
        c, d = c + 1, d + 1
    if c > i and c + 1 < len(lz.marker) and lz.marker[c + 1]:
        f = _also_further(lz, list(range(i + 1, c + 1)), p + 1, hi[1], forward=True)
        if f is not None:
            return f
    if a < i and a - 1 >= 0 and lz.marker[a - 1]:
        f = _also_further(lz, list(range(a, i)), b, lo[1], forward=False)
        if f is not None:
            return f
    return [(a + k, b + k) for k in range(c - a + 1)]


def _grow_back(lz: Lazy, i: int, p: int, lo_i: int, lo_p: int) -> tuple[int, int]:
    """Where the anchor (i, p) starts once grown back over the equal lines before it."""
    a, b = i, p
    while a - 1 > lo_i and b - 1 > lo_p and not lz.marker[a - 1] and lz.skeys[a - 1] == lz.keys[b - 1]:
        a, b = a - 1, b - 1
    if a - 1 > lo_i and not lz.marker[a - 1]:
        # New lines come before: a closing line or blank they end with is theirs, not the file's,
        # unless they would then close brackets they never opened (`x,` `}` `}` before the
        # file's own `}` `}`: the closing lines are the file's).
        start = a - 1
        while start - 1 > lo_i and not lz.marker[start - 1]:
            start -= 1
        back = a
        while back < i and weak(lz.skeys[back]):
            back += 1
        if back == a or not closes_outside(lz.snippet.lines[start:back]):
            a, b = back, b + (back - a)
    return a, b


def _block_anchors(lz: Lazy, i0: int, i1: int, p0: int, p1: int) -> list[tuple[int, int]]:
    """No single line anchors: runs of shown lines (between markers) whose first lines, or last
    lines, occur in a row exactly once between file lines p0 and p1 (the shortest such start or
    end of each run), each paired by its first line that is more than a closing line.  As sure
    as a unique line: the file holds that sequence in one place only.  The search spends at most
    `lz.block_tries` line comparisons over the whole snippet; past that, no run anchors."""
    runs = _runs(lz, i0, i1)
    if not runs:
        return []
    ends = {lz.skeys[r[0]] for r in runs} | {lz.skeys[r[-1]] for r in runs}
    where: dict[str, list[int]] = {}
    for p in range(p0 + 1, p1):
        if lz.keys[p] in ends:
            where.setdefault(lz.keys[p], []).append(p)
    found: dict[int, int] = {}
    for run in runs:
        want = [lz.skeys[i] for i in run]
        for from_end in (False, True):
            at = _once(lz, where, want, from_end, p0, p1)
            if lz.block_tries < 0:
                return []
            if at is None:
                continue
            first = len(want) - 1 if from_end else 0
            step = -1 if from_end else 1
            k = first
            while weak(want[k]):
                k += step
            found[run[k]] = at + k  # its first real line, or (from the end) its last
    pairs = sorted(found.items())
    if len({p for _i, p in pairs}) != len(pairs):
        return []
    return pairs


def _runs(lz: Lazy, i0: int, i1: int) -> list[list[int]]:
    """The runs of shown lines between markers (leading blank lines left out) that have two
    lines or more, one of them more than a closing line."""
    runs: list[list[int]] = [[]]
    for i in range(i0 + 1, i1):
        if lz.marker[i]:
            runs.append([])
        elif lz.skeys[i].strip() or runs[-1]:
            runs[-1].append(i)
    return [r for r in runs if len(r) > 1 and any(not weak(lz.skeys[i]) for i in r)]


def _once(lz: Lazy, where: dict[str, list[int]], want: list[str], from_end: bool, p0: int, p1: int) -> int | None:
    """Where `want` would start between file lines p0 and p1, aligned by its shortest start (or
    end) that is more than closing lines and occurs in the file exactly once; else None.
    `where`: the file lines of each first and last line of a run."""
    edge = want[-1] if from_end else want[0]
    cands = where.get(edge, [])
    for n in range(2, len(want) + 1):
        part = want[len(want) - n :] if from_end else want[:n]
        if all(weak(k) for k in part):
            continue
        hits = []
        for p in cands:
            q = p - n + 1 if from_end else p
            lz.block_tries -= n
            if lz.block_tries < 0:
                return None
            if q > p0 and q + n <= p1 and lz.keys[q : q + n] == part:
                hits.append(q)
        if not hits:
            return None
        if len(hits) == 1:
            return hits[0] - (len(want) - n if from_end else 0)
    return None


def _also_further(lz: Lazy, part: list[int], at: int, bound: int, forward: bool) -> Finding | None:
    """Context shown between an anchor and a marker, matched next to the anchor (from file line
    `at`), may belong a few lines further off instead, the lines between deleted.  Refuse when
    it does there too, unless it is only blanks and closing lines, or the lines between are
    shallower than it (they would not be deleted silently)."""
    want = [lz.skeys[i] for i in part]
    if all(weak(k) for k in want):
        return None
    t = len(part)
    for shift in range(1, LAZY_SLACK + t + 1):
        q = at + shift if forward else at - shift
        if (q + t > bound) if forward else (q <= bound):
            break
        if lz.keys[q : q + t] != want:
            continue
        if drops_quietly(lz, part, *((at, q) if forward else (q + t, at + t))):
            return error(
                "ambiguous",
                lz.path,
                q + 1,
                f"the snippet line {lz.show(part[0])} (line {lz.src(part[0])}) next to a marker matches line "
                f"{at + 1} of {lz.path} and line {q + 1} too: are lines "
                f"{min(at, q + t) + 1}-{max(q, at + t)} between them kept or deleted?",
                "show one more unchanged line on the marker's side, one that occurs once in the file",
            )
    return None


def _scope_end(lz: Lazy, marker: int, after: int, limit: int) -> int | None:
    """The last file line a marker keeps when it follows file line `after`: the end of its block
    (which may lie beyond `limit`, the next anchor).

    None for a marker that no block bounds (at the margin, at the start of the file):
    it keeps everything up to the next anchor.
    """
    width = indent_width(lz.snippet.lines[marker])
    if after < 0 or width == 0:
        return None
    lines = lz.fi.text.lines
    spans = lz.blocks(after)
    if spans is not None:
        # The innermost construct around the marker that starts at a shallower indent.
        inner = next(((s, e) for s, e in reversed(spans) if indent_width(lines[s]) < width), None)
        if inner is None:
            return None
        opener, end = indent_width(lines[inner[0]]), min(inner[1], len(lines) - 1)
    else:
        # No parse: the lines indented deeper than the anchor when the marker is, else at
        # least as deep as the marker.
        base = indent_width(lines[after])
        least = base + 1 if width > base else width
        opener, end = least - 1, after
        for p in range(after + 1, len(lines)):
            if lines[p].strip():
                if indent_width(lines[p]) < least:
                    break
                end = p
    # A closing line (`}`, `end`) or blank lines at the block's end are not the marker's.
    while end > after and (not lines[end].strip() or indent_width(lines[end]) <= opener):
        end -= 1
    return end


@dataclass(frozen=True, slots=True)
class _Op:
    start: int  # file lines [start, end) become `new` (snippet indexes)
    end: int
    new: tuple[int, ...]


_Step = tuple[int, _Op | None]  # where reading resumes in the file, and the change a step made (if any)


@dataclass(frozen=True, slots=True)
class _Gap:
    """The stretch between two anchors: snippet line `ia` is file line `pa`, `ib` is `pb`; the
    lines between them are read against each other (-1 before the start, the length at the end)."""

    ia: int
    pa: int
    ib: int
    pb: int


def _gap(lz: Lazy, gap: _Gap, ops: list[_Op]) -> Finding | None:
    """Read the snippet lines between two anchors against the file lines between them.

    Without a marker the stretch is shown whole (`_shown_whole`).  With markers, in file
    order: the new lines before the first marker (`_lead`), then the new lines after each
    marker, tried in this order: as a block placed by the context at both its ends (between
    two markers: `_between_markers`), where the marker's block ends when that is before the
    next anchor (`_at_block_end`), right before the next anchor (after the last marker only:
    `_before_anchor`); else refused.
    """
    pa, pb = gap.pa, gap.pb
    items = list(range(gap.ia + 1, gap.ib))
    if not any(lz.marker[i] for i in items):
        whole = _shown_whole(lz, items, gap)
        if isinstance(whole, Finding):
            return whole
        ops += whole
        return None
    pieces, markers = _pieces(lz, items)
    pos = pa + 1
    if pieces[0]:
        lead = _lead(lz, pieces[0], pa, pb)
        if isinstance(lead, Finding):
            return lead
        pos, op = lead
        if op is not None:
            ops.append(op)
    for k, m in enumerate(markers):
        piece = pieces[k + 1]
        if not piece:
            continue  # the last marker keeps everything up to the next anchor
        last = k == len(markers) - 1
        step: Finding | _Step | None = None if last else _between_markers(lz, piece, pos, pb)
        if step is None:
            scope = _marker_scope(lz, m, piece, pos, pb, last)
            if scope is not None and scope < pb - 1:
                step = _at_block_end(lz, piece, m, m if last else markers[k + 1], pos, scope, gap)
            elif not last:
                return unplaced(lz, piece, markers[k], markers[k + 1], pos, pb)
            else:
                step = _before_anchor(lz, piece, pos, gap, scope)
        if isinstance(step, Finding):
            return step
        pos, op = step
        if op is not None:
            ops.append(op)
    return None


def _shown_whole(lz: Lazy, items: list[int], gap: _Gap) -> Finding | list[_Op]:
    """A stretch without markers: its lines replace the file's, unless it would drop many more
    lines than it shows (or, at an end of the file, any)."""
    pa, pb = gap.pa, gap.pb
    old_keys = [lz.keys[p] for p in range(pa + 1, pb)]
    new_keys = [lz.skeys[i] for i in items]
    if old_keys == new_keys:
        return []
    lost = sum(1 for k in old_keys if k.strip()) - nonblank(lz, items)
    at_edge = pa < 0 or pb >= len(lz.keys)
    allowed = nonblank(lz, items) if at_edge else max(LAZY_SLACK, nonblank(lz, items))
    if lost > allowed:
        return _forgotten_marker(lz, gap, lost)
    # Align on the lines as written, so blank lines pair up by their exact whitespace;
    # lines that differ only where the tiers allow keep the file's bytes.
    raw_old = [lz.fi.text.lines[p] for p in range(pa + 1, pb)]
    raw_new = [lz.snippet.lines[i].rstrip("\r") for i in items]
    return [
        _Op(pa + 1 + a0, pa + 1 + a1, tuple(items[b0:b1]))
        for tag, a0, a1, b0, b1 in aligned(raw_old, raw_new)
        if not (tag == "equal" or (a1 - a0 == b1 - b0 and old_keys[a0:a1] == new_keys[b0:b1]))
    ]


def _forgotten_marker(lz: Lazy, gap: _Gap, lost: int) -> Finding:
    """A marker-free stretch that drops `lost` more lines than it shows: a marker forgotten?"""
    ia, pa, ib, pb = gap.ia, gap.pa, gap.ib, gap.pb
    n = len(lz.keys)
    first = next(p for p in range(pa + 1, pb) if lz.keys[p].strip())
    if pa < 0 and pb >= n:
        # No line of the snippet anchors it: both edges are the ends of the file.
        where, fix = (
            "(none of its lines is in the file)",
            "show the unchanged lines around the change, with markers for the rest",
        )
    elif pa < 0:
        where, fix = f"before {lz.show(ib)}, where the snippet starts", "start the snippet with a marker"
    elif pb >= n:
        where, fix = f"after {lz.show(ia)}, where the snippet ends", "end the snippet with a marker"
    else:
        where, fix = f"between {lz.show(ia)} and {lz.show(ib)}", "put a marker where they are"
    return error(
        "placeholder",
        lz.path,
        first + 1,
        f"the snippet would delete lines {pa + 2}-{pb} of {lz.path} ({lost} more than it shows) {where}, "
        f"from {lz.file_line(first)} on, without a marker for them",
        f"to keep those lines, {fix}; to delete them, send a diff or a SEARCH/REPLACE edit",
    )


def _pieces(lz: Lazy, items: list[int]) -> tuple[list[list[int]], list[int]]:
    """The new lines around the markers (pieces[0] before the first, pieces[-1] after the
    last), and the markers (of a run of markers with nothing between, the first)."""
    pieces: list[list[int]] = [[]]
    markers: list[int] = []
    for i in items:
        if lz.marker[i]:
            if pieces[-1] or not markers:
                markers.append(i)
                pieces.append([])
        else:
            pieces[-1].append(i)
    return pieces, markers


def _lead(lz: Lazy, piece: list[int], pa: int, pb: int) -> Finding | _Step:
    """New lines right after the anchor; lines they end with that the file has next (the
    blank line before the elided part, say) are context."""
    pos = pa + 1
    reach = reach_context(lz, piece, pos, pb, at_end=True)
    if isinstance(reach, Finding):
        return reach
    q, tail = reach
    new = piece[: len(piece) - tail]
    if pa < 0 and not tail and pb > 0:
        return edge_finding(lz, piece, start=True)
    f = doubt(lz, new, range(q + tail, pb), kept_before=False)
    if f is not None:
        return f
    return q + tail, (_Op(pos, q, tuple(new)) if new or q > pos else None)


def _between_markers(lz: Lazy, piece: list[int], pos: int, pb: int) -> Finding | _Step | None:
    """A piece between two markers, placed as a block by the context at both its ends; None
    when that context does not place it."""
    placed = place_block(lz, piece, pos, pb)
    if placed is None or isinstance(placed, Finding):
        return placed
    q, head, r, tail = placed
    new = piece[head : len(piece) - tail]
    return r + tail, (_Op(q + head, r, tuple(new)) if new or r > q + head else None)


def _marker_scope(lz: Lazy, m: int, piece: list[int], pos: int, pb: int, last: bool) -> int | None:
    """The last file line marker `m` keeps (`_scope_end`), None when it keeps everything up to
    the next anchor: so does the last marker when the new lines after it are shallower."""
    scope = _scope_end(lz, m, pos - 1, pb - 1)
    if last and scope is not None and least_depth(lz, piece) < indent_width(lz.snippet.lines[m]):
        return None  # the new lines are shallower: they come after all the marker keeps
    return scope


def _before_anchor(lz: Lazy, piece: list[int], pos: int, gap: _Gap, scope: int | None) -> Finding | _Step:
    """The piece after the last marker, which keeps everything up to it: the piece goes right
    before the next anchor, its leading context meeting the file a few lines off."""
    ib, pb = gap.ib, gap.pb
    # After a block that ends right here, or at the end of the file, a blank line
    # leading the piece is its own.
    at_eof = pb >= len(lz.keys) and ib >= len(lz.snippet.lines)
    solid = not all(weak(lz.skeys[i]) for i in piece)
    if at_eof and scope is None and solid and not lz.skeys[piece[0]].strip():
        # Unless a blank line of the file a few lines before the end could be the
        # one shown, the lines after it being replaced.
        blank = next(
            (
                q
                for q in range(max(pos, pb - LAZY_SLACK - len(piece)), pb)
                if not lz.keys[q].strip() and drops_quietly(lz, piece, q + 1, pb)
            ),
            None,
        )
        if blank is not None:
            return edge_finding(lz, piece, start=False)
    reach = reach_context(lz, piece, pos, pb, at_end=False, separated=solid and (scope == pb - 1 or at_eof))
    if isinstance(reach, Finding):
        return reach
    q, head = reach
    if scope is None and not head and at_eof and pos < pb and lz.skeys[piece[0]].strip():
        return edge_finding(lz, piece, start=False)
    new = piece[head:]
    f = doubt(lz, new, range(pos, q + head), kept_before=True)
    if f is not None:
        return f
    return pb, (_Op(q + head, pb, tuple(new)) if new or q + head < pb else None)


def _at_block_end(lz: Lazy, piece: list[int], m: int, after: int, pos: int, end: int, gap: _Gap) -> Finding | _Step:
    """The piece after marker `m` goes where the marker's block ends (file line `end`), when
    it is new code.  `after`: the next marker, or `m` itself when it is the last."""
    ib, pb = gap.ib, gap.pb
    last = after == m
    # Lines it shares with the file there are context: the block's closing `}` when the
    # piece starts with it (a blank line there is the piece's own separator), and closing
    # lines or blank lines when it ends with them.
    at = end + 1
    head = shared(lz, piece, at, pb)
    tail = shared(lz, piece[head:], at + head, pb, suffix=True)
    new = piece[head : len(piece) - tail]
    at += head
    resume = at + tail
    present = {lz.keys[p] for p in range(pos, pb)}
    if (
        all(weak(lz.skeys[i]) for i in piece)
        or closes_outside(lz.snippet.lines[i] for i in new)
        or any(lz.skeys[i] in present and not weak(lz.skeys[i]) for i in new)
    ):
        # Only new code goes where a block ends: blank lines alone say nothing, a
        # closing bracket the file does not have there closes something else, and a
        # line the file has elsewhere may be context from there.
        return unplaced(lz, piece, m, after, pos, pb)
    rest = [p for p in range(resume, pb) if lz.keys[p].strip()]
    if last and rest:
        return outside(lz, m, pos, end, rest[0], ib, pb)
    f = doubt(lz, new, range(pos, at), kept_before=True)
    if f is None and not last:
        f = doubt(lz, new, range(resume, pb), kept_before=False)
    if f is not None:
        return f
    return resume, (_Op(at, at, tuple(new)) if new else None)


def _marker_in_file(lz: Lazy) -> Finding | None:
    """A marker written as the file writes one of its own lines where the marker stands
    (`# ...` in a comment that elides an example): elided code, or that line, kept while
    the lines around it go?  Refused: the two readings give different files."""
    lines = lz.fi.text.lines
    wanted = {lz.snippet.lines[m].strip() for m in lz.snippet.markers}
    places: dict[str, list[int]] = {}
    for p, line in enumerate(lines):
        if (key := line.strip()) in wanted:
            places.setdefault(key, []).append(p)
    if not places:
        return None
    pairs = sorted(lz.pairs.items())
    snippet_at = [i for i, _p in pairs]
    for m in lz.snippet.markers:
        found = places.get(lz.snippet.lines[m].strip())
        if not found:
            continue
        k = bisect_left(snippet_at, m)  # the anchors on either side of the marker bound where it stands
        lo = pairs[k - 1][1] if k else -1
        hi = pairs[k][1] if k < len(pairs) else len(lines)
        j = bisect_right(found, lo)
        if j < len(found) and found[j] < hi:
            at = found[j]
            return error(
                "ambiguous",
                lz.path,
                at + 1,
                f"the snippet line {lz.show(m)} (line {lz.src(m)}) reads as a marker for elided lines, but "
                f"{lz.path} has that very line at line {at + 1}, where the marker stands: does it elide the lines "
                "there, or show that line, the lines around it left out?",
                "mark elided code with a marker the file does not hold (`... existing code ...` in a comment), or send a diff",
            )
    return None


def _place_snippet(fi: FileIndex, sn: Snippet, tiers: Sequence[str], path: str) -> tuple[list[Splice], list[str], Finding | None]:
    """Merge a lazy snippet into the file: the anchors it shares with the file, markers keep the rest."""
    active = frozenset({"eol"} | ({"trailing-whitespace"} & set(tiers)))
    norm = norm_fn(active)
    marker = [False] * len(sn.lines)
    for i in sn.markers:
        marker[i] = True
    lz = Lazy(fi, sn, path, fi.normed(active), [norm(s) for s in sn.lines], marker)
    n = len(lz.keys)
    f = _anchor(lz, -1, len(sn.lines), -1, n)
    if f is not None:
        return [], [], f
    if sn.markers and not lz.pairs and n:
        real = [i for i in range(len(sn.lines)) if not marker[i] and sn.lines[i].strip()]
        if len(real) and all(lz.skeys[i] in fi.positions(active) for i in real):
            first = real[0]
            where = fi.positions(active)[lz.skeys[first]][:10]
            return (
                [],
                [],
                error(
                    "ambiguous",
                    path,
                    where[0] + 1,
                    f"nothing anchors the snippet in {path}: its lines only close blocks or occur several times "
                    f"({lz.show(first)} is at line{'s' if len(where) > 1 else ''} {', '.join(str(p + 1) for p in where)})",
                    "show unchanged lines around the change that occur once in the file",
                ),
            )
    f = _marker_in_file(lz)
    if f is not None:
        return [], [], f
    ops: list[_Op] = []
    edges = [(-1, -1)] + sorted(lz.pairs.items()) + [(len(sn.lines), n)]
    for (ia, pa), (ib, pb) in zip(edges, edges[1:]):
        f = _gap(lz, _Gap(ia, pa, ib, pb), ops)
        if f is not None:
            return [], [], f
    eol = fi.text.dominant_eol()
    splices: list[Splice] = []
    for op in sorted(ops, key=lambda o: (o.start, o.end)):
        new = tuple((sn.lines[i][:-1], "\r\n") if sn.lines[i].endswith("\r") else (sn.lines[i], eol) for i in op.new)
        if splices and splices[-1].end == op.start:
            last = splices[-1]
            splices[-1] = Splice(last.start, op.end, last.new + new, last.source_line)
        else:
            splices.append(Splice(op.start, op.end, new, sn.source_line + (op.new[0] if op.new else 0)))
    repairs = ["trailing-whitespace"] if any(sn.lines[i].rstrip("\r") != fi.text.lines[p] for i, p in lz.pairs.items()) else []
    return splices, repairs, None


def locate_snippet(fi: FileIndex, sn: Snippet, tiers: Sequence[str], path: str) -> Located:
    """Merge a lazy snippet into the file: the anchors it shares with the file, markers keep the rest."""
    splices, repairs, finding = _place_snippet(fi, sn, tiers, path)
    if finding is not None:
        return Located.refusing(finding)
    return Located(tuple(splices), tuple(repairs))
