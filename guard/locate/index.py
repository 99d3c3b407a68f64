"""The file as an index of lines, and the tiers that match an edit's lines against it.

Each change is matched against the file *as it was* through named tiers that loosen
the comparison one step at a time.  A tier that finds exactly one place wins; a tier
that finds several refuses with ``ambiguous`` instead of falling through; a tier that
finds none hands over to the next.  Normalisations are cumulative and always applied
in one fixed order, whatever the order of the tiers: ``eol`` (drop a CR before the
line end), ``unicode`` (typographic quotes, dashes, exotic spaces, zero-width
characters), ``trailing-whitespace``, ``indent`` (one uniform shift of the edit's
lines).  ``fuzz`` lets *context* lines differ or be missing, never removed lines.

Matching is index-based: a dictionary from normalised line to positions gives the
candidates of the rarest line of a block, so a block costs O(candidates x its
length), never O(file length x its length).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence

from ..model import CONTEXT, REMOVED, Finding, error
from ..text.textfile import Text
from ..text.wording import quoted

ALL_TIERS = ("offset", "recount", "trailing-whitespace", "indent", "unicode", "eol", "escape", "fuzz")


# The normalising tiers, in the order they are composed.
NORMALISERS = ("eol", "unicode", "trailing-whitespace", "indent")


MAX_CANDIDATES = 64  # beyond this many places the edit is hopelessly ambiguous


UNICODE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2000": " ",
        "\u2001": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2004": " ",
        "\u2005": " ",
        "\u2006": " ",
        "\u2007": " ",
        "\u2008": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u202f": " ",
        "\u205f": " ",
        "\u3000": " ",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
        "\u2026": "...",
    }
)


def norm_fn(active: frozenset[str]) -> Callable[[str], str]:
    eol = "eol" in active
    uni = "unicode" in active
    trail = "trailing-whitespace" in active
    indent = "indent" in active

    def norm(s: str) -> str:
        if eol and s.endswith("\r"):
            s = s[:-1]
        if uni:
            s = s.translate(UNICODE)
        if trail:
            s = s.rstrip(" \t")
        if indent:
            s = s.lstrip(" \t")
        return s

    return norm


class FileIndex:
    """A file's lines as the edit sees them, with per-normalisation position indexes."""

    __slots__ = ("text", "keys", "_index", "_normed")

    def __init__(self, text: Text, keys: list[str]) -> None:
        self.text = text
        self.keys = keys  # each line with a CR restored for CRLF lines: what an exact edit would say
        self._index: dict[frozenset[str], dict[str, list[int]]] = {}
        self._normed: dict[frozenset[str], list[str]] = {}

    @classmethod
    def of(cls, text: Text) -> "FileIndex":
        if not text.eols.count("\r\n"):
            return cls(text, list(text.lines))
        keys = [ln + "\r" if e == "\r\n" else ln for ln, e in zip(text.lines, text.eols)]
        return cls(text, keys)

    def normed(self, active: frozenset[str]) -> list[str]:
        got = self._normed.get(active)
        if got is None:
            norm = norm_fn(active)
            got = [norm(k) for k in self.keys] if active else self.keys
            self._normed[active] = got
        return got

    def positions(self, active: frozenset[str]) -> dict[str, list[int]]:
        got = self._index.get(active)
        if got is None:
            got = {}
            for i, k in enumerate(self.normed(active)):
                got.setdefault(k, []).append(i)
            self._index[active] = got
        return got


def ambiguous(path: str, fi: FileIndex, starts: Sequence[int], tier: str, src: int) -> Finding:
    shown = ", ".join(f"{s + 1}" for s in list(starts)[:10])

    def first_text(s: int) -> int:
        # A candidate that starts with blank lines is shown by its first line of text.
        return next((p for p in range(s, min(s + 4, len(fi.keys))) if fi.keys[p].strip()), s)

    lines = "\n".join(f"{p + 1:>6}| {quoted(fi.keys[p]) if p < len(fi.keys) else ''}" for p in map(first_text, list(starts)[:10]))
    more = "" if len(starts) <= 10 else f" (+{len(starts) - 10} more)"
    return error(
        "ambiguous",
        path,
        starts[0] + 1 if starts else None,
        f"the text to change matches {len(starts)} places{' (tier ' + tier + ')' if tier != 'exact' else ''}: "
        f"lines {shown}{more}",
        "add surrounding lines until the text occurs once, or give the exact line number; candidates:\n" + lines,
    )


def unescape(s: str) -> str:
    return re.sub(
        r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}.get(m.group(1), m.group(0)), s
    )


@dataclass(frozen=True, slots=True)
class Sought:
    """What one change looks for: old lines (with tags), new lines, constraints."""

    old: tuple[str, ...]
    tags: tuple[str, ...]  # CONTEXT or REMOVED per old line
    hint: int | None  # 0-based expected start
    at_eof: bool
    anchors: tuple[str, ...]


def indent_of(s: str) -> str:
    return s[: len(s) - len(s.lstrip(" \t"))]


def indent_shift(file_lines: Sequence[str], old: Sequence[str]) -> tuple[str, str] | None:
    """A uniform (remove, add) indent shift turning the edit's lines into the file's, or None."""
    shift: tuple[str, str] | None = None
    for f, o in zip(file_lines, old):
        if not f.strip() and not o.strip():
            continue
        fi, oi = indent_of(f), indent_of(o)
        if fi.endswith(oi):
            cand = ("", fi[: len(fi) - len(oi)])
        elif oi.endswith(fi):
            cand = (oi[: len(oi) - len(fi)], "")
        else:
            return None
        if shift is None:
            shift = cand
        elif shift != cand:
            return None
    return shift or ("", "")


def reindent(line: str, shift: tuple[str, str]) -> str:
    remove, add = shift
    if not line.strip():
        return line
    if remove:
        return (
            line[len(remove) :] if line.startswith(remove) else line.lstrip(" \t") if len(indent_of(line)) < len(remove) else line
        )
    return add + line


def candidates(
    fi: FileIndex,
    active: frozenset[str],
    norm_old: Sequence[str],
    usable: Sequence[int],
    window: tuple[int, int] | None = None,
) -> Iterator[int]:
    """Start positions implied by the rarest usable line of the block, ascending (inside `window`, if given).

    Lazy, and the window is found by bisection: callers stop after a few dozen matches,
    and in a file of a million identical lines each of 10,000 hunks would otherwise
    walk (and sort) a million candidates, which is a hang, not a refusal.
    """
    pos = fi.positions(active)
    best: list[int] | None = None
    best_k = 0
    for k in usable:
        occ = pos.get(norm_old[k])
        if occ is None:
            return iter(())
        if best is None or len(occ) < len(best):
            best, best_k = occ, k
    if best is None:
        return iter(())
    first, last = 0, len(best)
    if window is not None:
        lo, hi = window
        first = bisect.bisect_left(best, lo + best_k)
        last = max(first, bisect.bisect_left(best, hi - len(norm_old) + 1 + best_k))
    return (best[i] - best_k for i in range(first, last))


def _fuzzy_plan(
    fi: FileIndex, block: Sought, active: frozenset[str], norm_old: list[str]
) -> tuple[list[int], list[int], set[int], int] | None:
    """How `match_block` looks for a block under fuzz: the lines it looks the block up by (its
    removed lines, else its context lines the file has), its context lines that are not blank,
    those of them that may differ (the file has them nowhere), and how many may; None when
    nothing in the file can anchor it."""
    removed = [k for k, t in enumerate(block.tags) if t == REMOVED]
    context = [k for k, t in enumerate(block.tags) if t == CONTEXT and norm_old[k].strip()]
    if removed:
        usable = removed
    else:
        # Only context: anchor on context lines that exist, all of which must match.
        present = [k for k in context if norm_old[k] in fi.positions(active)]
        if not present:
            return None
        usable = present
    allowed_miss = max(1, len([k for k, t in enumerate(block.tags) if t == CONTEXT]) // 3)
    # Only a context line the file has nowhere may differ: one it has elsewhere says
    # the change belongs there, not here (a copy of the lines it removes, say).
    loose, lnorm = fi.positions(frozenset(NORMALISERS)), norm_fn(frozenset(NORMALISERS))
    absent = {k for k in context if lnorm(block.old[k]) not in loose}
    return usable, context, absent, allowed_miss


def match_block(
    fi: FileIndex,
    block: Sought,
    active: frozenset[str],
    window: tuple[int, int],
    fuzzy: bool,
) -> list[int]:
    """All starts in the window where the block matches under `active` normalisation."""
    norm = norm_fn(active)
    norm_old = [norm(x) for x in block.old]
    lines = fi.normed(active)
    n = len(lines)
    size = len(block.old)
    lo, hi = window
    if fuzzy:
        plan = _fuzzy_plan(fi, block, active, norm_old)
        if plan is None:
            return []
        usable, context, absent, allowed_miss = plan
        has_removed = REMOVED in block.tags
    else:
        usable = [k for k in range(size) if norm_old[k].strip()] or list(range(size))
        context, absent, allowed_miss, has_removed = [], set(), 0, True
    starts = candidates(fi, active, norm_old, usable, (max(lo, 0), min(n, hi)))
    # The candidates checked line by line (inline: this loop is the locator's hot path).
    found: list[int] = []
    for s in starts:
        if s < lo or s + size > min(n, hi) or s < 0:
            continue
        if block.at_eof and s + size != n:
            continue
        misses = 0
        ok = True
        for k in range(size):
            if lines[s + k] != norm_old[k]:
                # (A blank line is never a misremembered line of code: a blank the file
                # lacks there is a miscount, which `recount` alone may forgive.)
                if block.tags[k] == REMOVED or not fuzzy or k not in absent:
                    ok = False
                    break
                misses += 1
                if misses > allowed_miss:
                    ok = False
                    break
        if ok and fuzzy:
            matched_ctx = sum(1 for k in context if lines[s + k] == norm_old[k])
            if not has_removed and matched_ctx == 0:
                ok = False
        # The shift is measured on the lines that match: a misremembered one says nothing of it.
        same = [k for k in range(size) if lines[s + k] == norm_old[k]]
        if ok and "indent" in active and indent_shift([fi.keys[s + k] for k in same], [block.old[k] for k in same]) is None:
            ok = False
        if ok:
            found.append(s)
            if len(found) > MAX_CANDIDATES:
                break
    return found


def anchor_floor(fi: FileIndex, anchors: Sequence[str], lo: int, active: frozenset[str]) -> int | None:
    """The line after the first occurrence of each anchor in turn (Codex `@@ context`), or None."""
    norm = norm_fn(active | {"trailing-whitespace", "indent"})
    lines = fi.normed(active | {"trailing-whitespace", "indent"})
    floor = lo
    for a in anchors:
        na = norm(a)
        for p in range(floor, len(lines)):
            if lines[p] == na:
                floor = p + 1
                break
        else:
            return None
    return floor


@dataclass(frozen=True, slots=True)
class Match:
    start: int
    size: int
    active: frozenset[str]
    fuzzy: bool
    block: Sought
    fixed: tuple[str, ...] = ()  # bookkeeping put right to find it (a misplaced `@@` anchor)


def tier_sets(tiers: Sequence[str]) -> list[tuple[str, frozenset[str], bool]]:
    """(tier name, active normalisers, fuzzy) for each step, cumulative, exact first.

    The order is fixed, the least likely to match a wrong place first (whatever order
    the policy lists them in): a CR says nothing about where a line is, while a shifted
    indent matches the same lines at every depth.
    """
    steps: list[tuple[str, frozenset[str], bool]] = [("exact", frozenset(), False)]
    active: set[str] = set()
    for t in NORMALISERS:
        if t in tiers:
            active.add(t)
            steps.append((t, frozenset(active), False))
    if "fuzz" in tiers:
        steps.append(("fuzz", frozenset(active), True))
    return steps


def needed(fi: FileIndex, m: Match) -> list[str]:
    """Which of the active normalisations this match really needed."""
    need = []
    off = count_misses(fi, m.block, m.active, m.start) if m.fuzzy else 0
    for t in NORMALISERS:
        if t not in m.active:
            continue
        fewer = m.active - {t}
        # Under fuzz a line may differ either way: needed is what makes fewer lines differ.
        if not _match_at(fi, m.block, fewer, m.start, m.fuzzy) or (m.fuzzy and count_misses(fi, m.block, fewer, m.start) > off):
            need.append(t)
    return need


def _match_at(fi: FileIndex, block: Sought, active: frozenset[str], s: int, fuzzy: bool) -> bool:
    return s in match_block(fi, replace(block, hint=None, anchors=()), active, (s, s + len(block.old)), fuzzy)


def search(
    fi: FileIndex,
    block: Sought,
    tiers: Sequence[str],
    window: tuple[int, int],
    path: str,
    src: int,
    fuzz: bool | None = None,
) -> tuple[Match | None, Finding | None, str]:
    """Run the tiers (only the fuzzy step, or only the others, when `fuzz` says): (match, None, tier) or (None, finding, tier)."""
    own = _own_line_anchor(block)
    if own is not None:
        # The anchor is the hunk's own first line: search for the hunk itself, everywhere
        # the anchors before it allow (the rule's "after the anchor" would skip it).
        m, finding, name = search(fi, own, tiers, window, path, src, fuzz)
        return (replace(m, block=block, fixed=("anchor",)) if m is not None else None), finding, name
    size = len(block.old)
    h = block.hint
    if (
        fuzz is not True
        and h is not None
        and size
        and not block.anchors
        and window[0] <= h
        and h + size <= min(window[1], len(fi.keys))
        and (not block.at_eof or h + size == len(fi.keys))
        and fi.keys[h : h + size] == list(block.old)
    ):
        # The lines are exactly where the edit says: the exact tier would take them
        # there however many copies the file has, without indexing the file.
        return Match(h, size, frozenset(), False, block), None, "exact"
    for name, active, fuzzy in tier_sets(tiers):
        if fuzz is not None and fuzzy != fuzz:
            continue
        lo = window[0]
        if block.anchors:
            floor = anchor_floor(fi, block.anchors, lo, active)
            if floor is None:
                continue
            lo = floor
        starts = match_block(fi, block, active, (lo, window[1]), fuzzy)
        if not starts:
            continue
        if len(starts) > 1:
            if block.hint is not None and block.hint in starts and not fuzzy:
                # Not under fuzz: a model already wrong about the lines is no judge of their number.
                starts = [block.hint]
            elif block.anchors and _in_scope_only(fi, lo - 1, starts):
                starts = starts[:1]
            else:
                return None, ambiguous(path, fi, starts, name, src), name
        return Match(starts[0], len(block.old), active, fuzzy, block), None, name
    loose = _anchors_put_right(fi, block, tiers)
    if loose is not None:
        m, finding, name = search(fi, loose, tiers, window, path, src, fuzz)
        return (replace(m, block=block, fixed=("anchor",)) if m is not None else None), finding, name
    return None, None, ""


def _own_line_anchor(block: Sought) -> Sought | None:
    """The block without its last `@@` anchor when that anchor is the block's own first line."""
    if not block.anchors or not block.old:
        return None
    norm = norm_fn(frozenset(NORMALISERS))
    if norm(block.anchors[-1]) != norm(block.old[0]) or not norm(block.old[0]).strip():
        return None
    return replace(block, anchors=block.anchors[:-1])


def _anchors_put_right(fi: FileIndex, block: Sought, tiers: Sequence[str]) -> Sought | None:
    """The block without the Codex `@@` anchors that are no line of the file at all.

    Models write descriptions there (``@@ parseArgs function``): invented context,
    dropped only where the ``fuzz`` tier is allowed.  The body alone must then be
    unique where the remaining anchors allow.
    """
    if not block.anchors or not block.old or "fuzz" not in tiers:
        return None
    norm = norm_fn(frozenset(NORMALISERS))
    present = fi.positions(frozenset(NORMALISERS))
    kept = tuple(a for a in block.anchors if norm(a) in present)
    return None if len(kept) == len(block.anchors) else replace(block, anchors=kept)


def _in_scope_only(fi: FileIndex, anchor: int, starts: Sequence[int]) -> bool:
    """The first start lies in the block the anchor line opens (deeper lines after it), the others beyond.

    A Codex `@@ def alpha(x):` header names the function the change is in; a copy of
    the same lines in another function is not a second candidate.  Anchors that occur
    more than once name no one place, and two candidates inside the block stay ambiguous.
    """
    lines = fi.text.lines
    loose = fi.positions(frozenset(NORMALISERS))
    if len(loose.get(fi.normed(frozenset(NORMALISERS))[anchor], ())) != 1:
        return False
    width = indent_width(lines[anchor])
    end = anchor + 1
    while end < len(lines) and (not lines[end].strip() or indent_width(lines[end]) > width):
        end += 1
    return starts[0] < end <= starts[1]


def count_misses(fi: FileIndex, block: Sought, active: frozenset[str], s: int) -> int:
    """Lines of the block that differ from the file at `s` under `active` (only context may, under fuzz)."""
    norm = norm_fn(active)
    lines = fi.normed(active)
    return sum(1 for k, x in enumerate(block.old) if lines[s + k] != norm(x))


def indent_width(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def file_index(text: Text) -> FileIndex:
    return FileIndex.of(text)
