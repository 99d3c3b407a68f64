"""Find where each change goes, tolerant of bookkeeping mistakes, never guessing.

Each change is matched against the file *as it was* (several changes to one file
never see each other's results), through named tiers that loosen the comparison
one step at a time.  A tier that finds exactly one place wins; a tier that finds
several refuses with ``ambiguous`` instead of falling through; a tier that finds
none hands over to the next.  The tiers a match needed are reported as repairs.

Normalisations are cumulative and always applied in one fixed order, whatever
the order of the tiers: ``eol`` (drop a CR before the line end), ``unicode``
(typographic quotes, dashes, exotic spaces, zero-width characters),
``trailing-whitespace`` (spaces and tabs at the end of a line), ``indent`` (the
edit's lines shifted by one uniform indent, which is then applied to its new
lines).  ``escape`` retries with JSON-style escapes (``\\n``, ``\\t``, ``\\"``,
``\\\\``) decoded.  ``fuzz`` lets *context* lines differ or be invented, never
removed lines.  ``offset`` is reported when a line-number hint was wrong,
``recount`` when a hunk's header counts disagreed with its body (or stray blank
context at a hunk's edge had to be dropped).

Lines the edit does not change keep their exact bytes from the file.
Matching is index-based: a dictionary from normalised line to positions gives
the candidates of the rarest line of the block, so a hunk costs O(candidates x
hunk length), never O(file length x hunk length).
"""

from __future__ import annotations

import bisect
import difflib
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Sequence

from .model import ADDED, CONTEXT, REMOVED, Change, Finding, Hunk, HunkLine, LineRange, Replace, Snippet, error
from .textfile import Text
from .wording import plural, span, visible

ALL_TIERS = ("offset", "recount", "trailing-whitespace", "indent", "unicode", "eol", "escape", "fuzz")
# The normalising tiers, in the order they are composed.
_NORMALISERS = ("eol", "unicode", "trailing-whitespace", "indent")
_MAX_CANDIDATES = 64  # beyond this many places the edit is hopelessly ambiguous

_UNICODE = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u00ab": '"', "\u00bb": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
        "\u00a0": " ", "\u2000": " ", "\u2001": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ",
        "\u2005": " ", "\u2006": " ", "\u2007": " ", "\u2008": " ", "\u2009": " ", "\u200a": " ",
        "\u202f": " ", "\u205f": " ", "\u3000": " ",
        "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
        "\u2026": "...",
    }
)


def _norm_fn(active: frozenset[str]) -> Callable[[str], str]:
    eol = "eol" in active
    uni = "unicode" in active
    trail = "trailing-whitespace" in active
    indent = "indent" in active

    def norm(s: str) -> str:
        if eol and s.endswith("\r"):
            s = s[:-1]
        if uni:
            s = s.translate(_UNICODE)
        if trail:
            s = s.rstrip(" \t")
        if indent:
            s = s.lstrip(" \t")
        return s

    return norm


@dataclass
class _FileIndex:
    """A file's lines as the edit sees them, with per-normalisation position indexes."""

    text: Text
    keys: list[str]  # each line with a CR restored for CRLF lines: what an exact edit would say
    _index: dict[frozenset[str], dict[str, list[int]]] = field(default_factory=dict)
    _normed: dict[frozenset[str], list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: Text) -> "_FileIndex":
        if not text.eols.count("\r\n"):
            return cls(text, list(text.lines))
        keys = [ln + "\r" if e == "\r\n" else ln for ln, e in zip(text.lines, text.eols)]
        return cls(text, keys)

    def normed(self, active: frozenset[str]) -> list[str]:
        got = self._normed.get(active)
        if got is None:
            norm = _norm_fn(active)
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


@dataclass(frozen=True)
class Splice:
    """Replace file lines [start, end) with `new` ((text, terminator) pairs).

    A splice placed although some of the lines it keeps differ from the file (the
    ``fuzz`` tier, a lazy snippet's loose line) also carries the edit's own view:
    ``seen``, those file lines as the edit saw them, and ``meant``, what the edit
    makes of them.  Such a splice is not written as it is: git's three-way merge of
    the two views with the file decides (``rebase.onto_file``).
    """

    start: int
    end: int
    new: tuple[tuple[str, str], ...]
    source_line: int = 0
    final_newline: bool | None = None  # set when the edit says how the file must end
    seen: tuple[tuple[str, str], ...] | None = None
    meant: tuple[tuple[str, str], ...] | None = None


@dataclass
class Outcome:
    splices: list[Splice] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def _closest(fi: _FileIndex, want: Sequence[str]) -> tuple[int, int] | None:
    """The file window most like `want`: (start, matching lines). Cheap: only anchors on lines that exist."""
    loose = fi.positions(frozenset(_NORMALISERS))
    norm = _norm_fn(frozenset(_NORMALISERS))
    starts: dict[int, int] = {}
    for k, line in enumerate(want):
        nl = norm(line)
        if not nl.strip():
            continue
        for p in loose.get(nl, ())[:_MAX_CANDIDATES]:
            starts[p - k] = starts.get(p - k, 0) + 1
    if not starts:
        return None
    best = max(starts.items(), key=lambda kv: (kv[1], -abs(kv[0])))
    return best


def not_found_hint(fi: _FileIndex, want: Sequence[str], path: str) -> tuple[int | None, str]:
    found = _closest(fi, want)
    if found is None:
        first = want[0] if want else ""
        return None, (
            f"none of the lines to change occur in {path} (first: {visible(first)!r}); "
            "re-read the file and copy the lines exactly"
        )
    start, _score = found
    start = max(0, start)
    keys = fi.keys
    lines = []
    first_diff: str | None = None
    # The first line that differs beyond what the tiers forgive, else the first that differs at all.
    loose = _norm_fn(frozenset(_NORMALISERS))
    for same in (lambda a, b: loose(a) == loose(b), lambda a, b: a == b):
        for k, line in enumerate(want):
            p = start + k
            actual = keys[p] if 0 <= p < len(keys) else None
            if first_diff is None and (actual is None or not same(actual, line)):
                if actual is None:
                    first_diff = f"line {p + 1}: the file ends before {visible(line)!r}"
                else:
                    first_diff = f"line {p + 1}: expected {visible(line)!r}, file has {visible(actual)!r}"
    lo, hi = max(0, start - 2), min(len(keys), start + len(want) + 2)
    for p in range(lo, hi):
        lines.append(f"{p + 1:>6}| {visible(keys[p])}")
    hint = "closest region in the file:\n" + "\n".join(lines)
    if first_diff:
        hint = f"first difference at {first_diff}\n" + hint
    return start + 1, hint


def _ambiguous(path: str, fi: _FileIndex, starts: Sequence[int], tier: str, src: int) -> Finding:
    shown = ", ".join(f"{s + 1}" for s in list(starts)[:10])

    def first_text(s: int) -> int:
        # A candidate that starts with blank lines is shown by its first line of text.
        return next((p for p in range(s, min(s + 4, len(fi.keys))) if fi.keys[p].strip()), s)

    lines = "\n".join(f"{p + 1:>6}| {visible(fi.keys[p]) if p < len(fi.keys) else ''}"
                      for p in map(first_text, list(starts)[:10]))
    more = "" if len(starts) <= 10 else f" (+{len(starts) - 10} more)"
    return error(
        "ambiguous",
        path,
        starts[0] + 1 if starts else None,
        f"the text to change matches {len(starts)} places{' (tier ' + tier + ')' if tier != 'exact' else ''}: lines {shown}{more}",
        "add surrounding lines until the text occurs once, or give the exact line number; candidates:\n" + lines,
    )


def unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}.get(m.group(1), m.group(0)), s)


# --------------------------------------------------------------------------- block matching


@dataclass(frozen=True)
class _Block:
    """What one change looks for: old lines (with tags), new lines, constraints."""

    old: tuple[str, ...]
    tags: tuple[str, ...]  # CONTEXT or REMOVED per old line
    hint: int | None  # 0-based expected start
    at_eof: bool
    anchors: tuple[str, ...]


def _indent_of(s: str) -> str:
    return s[: len(s) - len(s.lstrip(" \t"))]


def _indent_shift(file_lines: Sequence[str], old: Sequence[str]) -> tuple[str, str] | None:
    """A uniform (remove, add) indent shift turning the edit's lines into the file's, or None."""
    shift: tuple[str, str] | None = None
    for f, o in zip(file_lines, old):
        if not f.strip() and not o.strip():
            continue
        fi, oi = _indent_of(f), _indent_of(o)
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


def _reindent(line: str, shift: tuple[str, str]) -> str:
    remove, add = shift
    if not line.strip():
        return line
    if remove:
        return line[len(remove):] if line.startswith(remove) else line.lstrip(" \t") if len(_indent_of(line)) < len(remove) else line
    return add + line


def _candidates(
    fi: _FileIndex, active: frozenset[str], norm_old: Sequence[str], usable: Sequence[int],
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


def _match_block(
    fi: _FileIndex,
    block: _Block,
    active: frozenset[str],
    window: tuple[int, int],
    fuzzy: bool,
) -> list[int]:
    """All starts in the window where the block matches under `active` normalisation."""
    norm = _norm_fn(active)
    norm_old = [norm(x) for x in block.old]
    lines = fi.normed(active)
    n = len(lines)
    size = len(block.old)
    lo, hi = window
    if fuzzy:
        removed = [k for k, t in enumerate(block.tags) if t == REMOVED]
        context = [k for k, t in enumerate(block.tags) if t == CONTEXT and norm_old[k].strip()]
        if removed:
            usable = removed
        else:
            # Only context: anchor on context lines that exist, all of which must match.
            present = [k for k in context if norm_old[k] in fi.positions(active)]
            if not present:
                return []
            usable = present
        starts = _candidates(fi, active, norm_old, usable, (max(lo, 0), min(n, hi)))
        allowed_miss = max(1, len([k for k, t in enumerate(block.tags) if t == CONTEXT]) // 3)
        # Only a context line the file has nowhere may differ: one it has elsewhere says
        # the change belongs there, not here (a copy of the lines it removes, say).
        loose, lnorm = fi.positions(frozenset(_NORMALISERS)), _norm_fn(frozenset(_NORMALISERS))
        absent = {k for k in context if lnorm(block.old[k]) not in loose}
    else:
        usable = [k for k in range(size) if norm_old[k].strip()] or list(range(size))
        starts = _candidates(fi, active, norm_old, usable, (max(lo, 0), min(n, hi)))
        allowed_miss = 0
        absent = set()
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
            if not removed and matched_ctx == 0:
                ok = False
        # The shift is measured on the lines that match: a misremembered one says nothing of it.
        same = [k for k in range(size) if lines[s + k] == norm_old[k]]
        if ok and "indent" in active and _indent_shift([fi.keys[s + k] for k in same], [block.old[k] for k in same]) is None:
            ok = False
        if ok:
            found.append(s)
            if len(found) > _MAX_CANDIDATES:
                break
    return found


def _anchor_floor(fi: _FileIndex, anchors: Sequence[str], lo: int, active: frozenset[str]) -> int | None:
    """The line after the first occurrence of each anchor in turn (Codex `@@ context`), or None."""
    norm = _norm_fn(active | {"trailing-whitespace", "indent"})
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


@dataclass(frozen=True)
class _Match:
    start: int
    size: int
    active: frozenset[str]
    fuzzy: bool
    block: _Block
    fixed: tuple[str, ...] = ()  # bookkeeping put right to find it (a misplaced `@@` anchor)


def _tier_sets(tiers: Sequence[str]) -> list[tuple[str, frozenset[str], bool]]:
    """(tier name, active normalisers, fuzzy) for each step, cumulative, exact first.

    The order is fixed, the least likely to match a wrong place first (whatever order
    the policy lists them in): a CR says nothing about where a line is, while a shifted
    indent matches the same lines at every depth.
    """
    steps: list[tuple[str, frozenset[str], bool]] = [("exact", frozenset(), False)]
    active: set[str] = set()
    for t in _NORMALISERS:
        if t in tiers:
            active.add(t)
            steps.append((t, frozenset(active), False))
    if "fuzz" in tiers:
        steps.append(("fuzz", frozenset(active), True))
    return steps


def _needed(fi: _FileIndex, m: _Match) -> list[str]:
    """Which of the active normalisations this match really needed."""
    need = []
    off = _misses(fi, m.block, m.active, m.start) if m.fuzzy else 0
    for t in _NORMALISERS:
        if t not in m.active:
            continue
        fewer = m.active - {t}
        # Under fuzz a line may differ either way: needed is what makes fewer lines differ.
        if not _match_at(fi, m.block, fewer, m.start, m.fuzzy) or (
            m.fuzzy and _misses(fi, m.block, fewer, m.start) > off
        ):
            need.append(t)
    return need


def _match_at(fi: _FileIndex, block: _Block, active: frozenset[str], s: int, fuzzy: bool) -> bool:
    return s in _match_block(fi, replace(block, hint=None, anchors=()), active, (s, s + len(block.old)), fuzzy)


def _search(
    fi: _FileIndex, block: _Block, tiers: Sequence[str], window: tuple[int, int], path: str, src: int,
    fuzz: bool | None = None,
) -> tuple[_Match | None, Finding | None, str]:
    """Run the tiers (only the fuzzy step, or only the others, when `fuzz` says): (match, None, tier) or (None, finding, tier)."""
    own = _own_line_anchor(block)
    if own is not None:
        # The anchor is the hunk's own first line: search for the hunk itself, everywhere
        # the anchors before it allow (the rule's "after the anchor" would skip it).
        m, finding, name = _search(fi, own, tiers, window, path, src, fuzz)
        return (replace(m, block=block, fixed=("anchor",)) if m is not None else None), finding, name
    size = len(block.old)
    h = block.hint
    if (fuzz is not True and h is not None and size and not block.anchors and window[0] <= h
            and h + size <= min(window[1], len(fi.keys)) and (not block.at_eof or h + size == len(fi.keys))
            and fi.keys[h:h + size] == list(block.old)):
        # The lines are exactly where the edit says: the exact tier would take them
        # there however many copies the file has, without indexing the file.
        return _Match(h, size, frozenset(), False, block), None, "exact"
    for name, active, fuzzy in _tier_sets(tiers):
        if fuzz is not None and fuzzy != fuzz:
            continue
        lo = window[0]
        if block.anchors:
            floor = _anchor_floor(fi, block.anchors, lo, active)
            if floor is None:
                continue
            lo = floor
        starts = _match_block(fi, block, active, (lo, window[1]), fuzzy)
        if not starts:
            continue
        if len(starts) > 1:
            if block.hint is not None and block.hint in starts and not fuzzy:
                # Not under fuzz: a model already wrong about the lines is no judge of their number.
                starts = [block.hint]
            elif block.anchors and _in_scope_only(fi, lo - 1, starts):
                starts = starts[:1]
            else:
                return None, _ambiguous(path, fi, starts, name, src), name
        return _Match(starts[0], len(block.old), active, fuzzy, block), None, name
    loose = _anchors_put_right(fi, block, tiers)
    if loose is not None:
        m, finding, name = _search(fi, loose, tiers, window, path, src, fuzz)
        return (replace(m, block=block, fixed=("anchor",)) if m is not None else None), finding, name
    return None, None, ""


def _own_line_anchor(block: _Block) -> _Block | None:
    """The block without its last `@@` anchor when that anchor is the block's own first line."""
    if not block.anchors or not block.old:
        return None
    norm = _norm_fn(frozenset(_NORMALISERS))
    if norm(block.anchors[-1]) != norm(block.old[0]) or not norm(block.old[0]).strip():
        return None
    return replace(block, anchors=block.anchors[:-1])


def _anchors_put_right(fi: _FileIndex, block: _Block, tiers: Sequence[str]) -> _Block | None:
    """The block without the Codex `@@` anchors that are no line of the file at all.

    Models write descriptions there (``@@ parseArgs function``): invented context,
    dropped only where the ``fuzz`` tier is allowed.  The body alone must then be
    unique where the remaining anchors allow.
    """
    if not block.anchors or not block.old or "fuzz" not in tiers:
        return None
    norm = _norm_fn(frozenset(_NORMALISERS))
    present = fi.positions(frozenset(_NORMALISERS))
    kept = tuple(a for a in block.anchors if norm(a) in present)
    return None if len(kept) == len(block.anchors) else replace(block, anchors=kept)


def _in_scope_only(fi: _FileIndex, anchor: int, starts: Sequence[int]) -> bool:
    """The first start lies in the block the anchor line opens (deeper lines after it), the others beyond.

    A Codex `@@ def alpha(x):` header names the function the change is in; a copy of
    the same lines in another function is not a second candidate.  Anchors that occur
    more than once name no one place, and two candidates inside the block stay ambiguous.
    """
    lines = fi.text.lines
    loose = fi.positions(frozenset(_NORMALISERS))
    if len(loose.get(fi.normed(frozenset(_NORMALISERS))[anchor], ())) != 1:
        return False
    width = _width(lines[anchor])
    end = anchor + 1
    while end < len(lines) and (not lines[end].strip() or _width(lines[end]) > width):
        end += 1
    return starts[0] < end <= starts[1]


# --------------------------------------------------------------------------- hunks


def _hunk_variants(h: Hunk, tiers: Sequence[str]) -> list[tuple[Hunk, list[str]]]:
    """The hunk as written, then (with `recount`) without stray blank context at its edges.

    Its line number moves with the lines dropped in front, so that it still names
    the first line (else it would pick the wrong one of two candidates).
    """
    out: list[tuple[Hunk, list[str]]] = [(h, [])]
    if "recount" in tiers:
        lines = list(h.lines)
        changed = False
        while lines and lines[-1].tag == CONTEXT and not lines[-1].text.strip():
            lines.pop()
            changed = True
        lead = 0
        while lines and lines[0].tag == CONTEXT and not lines[0].text.strip():
            lines.pop(0)
            lead += 1
        if (changed or lead) and any(hl.tag != CONTEXT for hl in lines):
            start = None if h.old_start is None else h.old_start + lead
            out.append((replace(h, lines=tuple(lines), old_start=start), ["recount"]))
    return out


def _without_invented(h: Hunk, fi: _FileIndex) -> Hunk | None:
    """The hunk minus context lines that occur nowhere in the file (invented by the model)."""
    loose = fi.positions(frozenset(_NORMALISERS))
    norm = _norm_fn(frozenset(_NORMALISERS))
    kept = [hl for hl in h.lines if not (hl.tag == CONTEXT and hl.text.strip() and norm(hl.text) not in loose)]
    if len(kept) == len(h.lines) or not any(hl.tag == CONTEXT for hl in kept):
        return None
    # Dropped in front, the line number no longer names the first line: did the
    # invented line stand for a line of the file, or for none?
    start = h.old_start if kept[0] is h.lines[0] else None
    return replace(h, lines=tuple(kept), old_start=start)


def _repeated_lines(h: Hunk, start: int) -> dict[int, int]:
    """Added lines that repeat, to the letter, the removed line they stand against.

    SEARCH/REPLACE blocks and str_replace edits carry no context: the lines they do
    not change appear as removed-then-added.  Those keep the file's exact bytes (a
    trailing tab the model dropped in both halves is still the file's).  Returns
    {index in h.lines of the added line: file line to copy}.
    """
    out: dict[int, int] = {}
    n = len(h.lines)
    i = 0
    k = start  # file line of h.lines[i]
    while i < n:
        if h.lines[i].tag == CONTEXT:
            i, k = i + 1, k + 1
            continue
        rem: list[tuple[int, int]] = []  # (index in h.lines, file line)
        add: list[int] = []
        while i < n and h.lines[i].tag != CONTEXT:
            if h.lines[i].tag == REMOVED:
                rem.append((i, k))
                k += 1
            else:
                add.append(i)
            i += 1
        lo = 0
        while lo < len(rem) and lo < len(add) and h.lines[rem[lo][0]].text == h.lines[add[lo]].text:
            out[add[lo]] = rem[lo][1]
            lo += 1
        hi = 0
        while (hi < len(rem) - lo and hi < len(add) - lo
               and h.lines[rem[-1 - hi][0]].text == h.lines[add[-1 - hi]].text):
            out[add[-1 - hi]] = rem[-1 - hi][1]
            hi += 1
    return out


def _splice_for_hunk(
    fi: _FileIndex, h: Hunk, m: _Match, shift: tuple[str, str] | None, plain: dict[int, str | None] | None = None,
    written: Hunk | None = None,
) -> Splice:
    """Build the replacement: context lines from the file, new lines from the edit (`plain`: unicode tier's map).

    `h` is the hunk as matched; `written`, when given, the hunk as the edit wrote it
    (`h` is it less context lines the file has nowhere).  Under ``fuzz`` the splice
    also records the edit's view of the place (see `Splice`).
    """
    t = fi.text
    s = m.start
    new: list[tuple[str, str]] = []
    seen: list[tuple[str, str]] = []
    meant: list[tuple[str, str]] = []
    differs = False
    k = s
    default_eol = t.eols[s] if s < len(t.eols) and t.eols[s] else t.dominant_eol()
    kept = _repeated_lines(h, s)
    norm = _norm_fn(m.active)
    lines = fi.normed(m.active)
    matched = iter(enumerate(h.lines))
    upcoming = next(matched, None)
    for hl in (written or h).lines:
        if upcoming is None or upcoming[1] is not hl:
            # A context line the file has nowhere: the edit saw it here, the file never had it.
            differs = True
            own = (_reindent(hl.text, shift) if shift else hl.text).removesuffix("\r")
            seen.append((own, default_eol))
            meant.append((own, default_eol))
            continue
        n = upcoming[0]
        upcoming = next(matched, None)
        if hl.tag == CONTEXT:
            here = (t.lines[k], t.eols[k])
            new.append(here)
            if m.fuzzy and lines[k] != norm(hl.text):
                differs = True
                here = ((_reindent(hl.text, shift) if shift else hl.text).removesuffix("\r"), t.eols[k])
            seen.append(here)
            meant.append(here)
            k += 1
        elif hl.tag == REMOVED:
            default_eol = t.eols[k] or default_eol
            seen.append((t.lines[k], t.eols[k]))
            k += 1
        elif n in kept:
            new.append((t.lines[kept[n]], t.eols[kept[n]]))
            meant.append(new[-1])
        else:
            text = hl.text
            if shift is not None:
                text = _reindent(text, shift)
            if plain is not None:
                text = text.translate(plain)
            if text.endswith("\r"):
                # A CRLF line of the edit: CRLF, unless the edit's terminators were off (eol tier).
                new.append((text[:-1], default_eol if "eol" in m.active else "\r\n"))
            else:
                new.append((text, default_eol if "eol" in m.active else "\n"))
            meant.append(new[-1])
    end = k
    final: bool | None = None
    if end == len(t.lines) and h.old_eof_newline != h.new_eof_newline:
        final = h.new_eof_newline
    elif end == len(t.lines) and not h.new_eof_newline:
        final = False
    if not differs:
        return Splice(s, end, tuple(new), h.source_line, final)
    return Splice(s, end, tuple(new), h.source_line, final, tuple(seen), tuple(meant))


def locate_hunk(
    fi: _FileIndex, h: Hunk, tiers: Sequence[str], window: tuple[int, int], path: str, drift: int
) -> tuple[Splice | None, list[str], Finding | None]:
    if not h.old_lines:
        return _locate_insertion(fi, h, window, path)
    h = _bare_context(h)
    forms: list[tuple[Hunk, list[str]]] = [(h, [])]
    if "escape" in tiers:
        un = _unescaped(h)
        if un is not None:
            forms.append((un, ["escape"]))
    if "recount" in tiers:
        spaced = _reprefixed(h, fi)
        if spaced is not None:
            forms.append((spaced, ["context-prefix"]))
    # Every form and recount variant is tried without fuzz before any is tried with it:
    # dropping a stray blank or decoding an escape is a smaller liberty than ignoring a line.
    for fuzzy in (False, True) if "fuzz" in tiers else (False,):
        found: list[tuple[tuple[_Match, Hunk, int], list[str]]] = []
        written: dict[int, Hunk] = {}  # the form each reading came from, before edge lines went
        tried: dict[int, Hunk] = {}  # the variant each reading came from, before invented lines went
        for form, esc in forms:
            for variant, extra in _hunk_variants(form, tiers):
                got = _try_hunk(fi, variant, tiers, window, path, drift, fuzzy)
                if isinstance(got, Finding):
                    return None, [], got
                if got is not None:
                    written[id(got)] = form
                    tried[id(got)] = variant
                    found.append((got, esc + extra))
                    if not fuzzy:
                        break
            if found and not fuzzy:
                break
        if not found:
            continue
        # Under fuzz every reading counts: the one that leaves fewest lines off wins
        # (doubled backslashes in a context line are a miss as written, a match
        # decoded), and readings as good as each other must agree on what changes.
        low = min(got[2] for got, _ in found)
        found = [f for f in found if f[0][2] == low]
        places = {tuple((tag, k) for tag, k, _ in _effect(got[1], got[0].start)) for got, _ in found}
        if len(places) > 1:
            return None, [], _ambiguous(path, fi, sorted({got[0].start for got, _ in found}), "fuzz", h.source_line)
        best = found[0]
        form = written[id(best[0])]
        as_tried = tried[id(best[0])]
        (m, variant, _), repairs = best
        if not m.fuzzy and variant.lines != form.lines:
            # Blank context dropped from the edges: where the lines as written (all but a
            # changed context line) stand elsewhere, the blanks were no mistake there.
            lead = next(k for k in range(len(form.lines)) if form.lines[k : k + len(variant.lines)] == variant.lines)
            whole = _Block(form.old_lines, tuple(hl.tag for hl in form.lines if hl.tag != ADDED), None, form.at_eof, ())
            lead_old = sum(1 for hl in form.lines[:lead] if hl.tag != ADDED)
            loosest = frozenset(t for t in tiers if t in _NORMALISERS)
            wider = (max(0, window[0] - lead_old), window[1])
            rivals = {p + lead_old for p in _near(fi, whole, loosest, wider)}
            # Or the lines as written stand, edited a little since, where the blanks are.
            rivals |= {p + lead_old for p in _resembling(fi, whole, loosest, wider)}
            rivals |= {p + lead_old for p in _lookalike(fi, whole.old, wider) if _resembles(fi, whole, loosest, p)}
            if rivals - {m.start}:
                return None, [], _ambiguous(path, fi, sorted(rivals | {m.start}), "recount", h.source_line)
        if m.fuzzy:
            repairs.append("fuzz")
        repairs += list(m.fixed)
        repairs += _needed(fi, m) if m.active else []
        if variant.old_start is not None and m.start != variant.old_start - 1:
            if "offset" not in tiers:
                return None, [], _misplaced(fi, variant, m.start, path)
            repairs.append("offset")
            # Found elsewhere, while the lines at its own line number are these lines but for
            # what the tiers forgive (a typographic space, a changed context line): two places.
            at = variant.old_start - 1
            loosest = frozenset(t for t in tiers if t in _NORMALISERS)
            if not m.fuzzy and at >= 0 and (at in _near(fi, m.block, loosest, (at, at + m.size))
                                            or _resembles(fi, m.block, loosest, at)):
                return None, [], _ambiguous(path, fi, sorted({m.start, at}), "offset", h.source_line)
        shift = None
        if "indent" in m.active:
            norm, lines = _norm_fn(m.active), fi.normed(m.active)
            same = [k for k in range(m.size) if lines[m.start + k] == norm(m.block.old[k])]
            shift = _indent_shift([fi.keys[m.start + k] for k in same], [m.block.old[k] for k in same])
            if shift == ("", ""):
                shift = None
            elif "indent" not in repairs:
                repairs.append("indent")
        if shift is not None and not m.fuzzy:
            # Short blocks recur at other depths.  Found only at another indent, the lines
            # may be a copy of the ones meant, which changed a little where they were:
            # lines at the edit's own indent that differ in a context line or two are a
            # second place.
            rivals = set(_near(fi, m.block, m.active - {"indent"}, window)) | set(_lookalike(fi, m.block.old, window))
            rivals -= {m.start}
            if rivals:
                return None, [], _ambiguous(path, fi, sorted(rivals | {m.start}), "indent", h.source_line)
        plain = _typography(fi, m.start, m.size, m.block.old) if "unicode" in m.active else None
        if plain is not None and "unicode" not in repairs:
            repairs.append("unicode")
        return _splice_for_hunk(fi, variant, m, shift, plain, as_tried if as_tried is not variant else None), repairs, None
    want = h.old_lines
    line, hint_text = not_found_hint(fi, want, path)
    return None, [], error(
        "not-found",
        path,
        line,
        f"the lines to change (hunk at input line {h.source_line}) are not in {path}",
        hint_text,
    )


def _lookalike(fi: _FileIndex, old: Sequence[str], window: tuple[int, int]) -> list[int]:
    """Starts where lines much like `old` stand at `old`'s own indent (each non-blank line
    with the same indent and three quarters the same text): the edit's own place, changed
    since it was read, when the edit was found only at another indent."""
    shown = [k for k, x in enumerate(old) if x.strip()]
    if not shown:
        return []
    lines = fi.text.lines
    k0 = shown[0]
    want = [(_indent_of(old[k]), old[k].strip()) for k in shown]
    out: list[int] = []
    for p in range(max(window[0], k0), min(window[1], len(lines) - len(old) + 1 + k0)):
        line = lines[p]
        if not line.startswith(want[0][0]) or _indent_of(line) != want[0][0]:
            continue
        s = p - k0
        if all(
            _indent_of(lines[s + k]) == ind and _similar(lines[s + k].strip(), text) for k, (ind, text) in zip(shown, want)
        ):
            out.append(s)
            if len(out) > _MAX_CANDIDATES:
                break
    return out


def _resembles(fi: _FileIndex, block: _Block, active: frozenset[str], at: int) -> bool:
    """Do the lines at `at` read as the block, changed a little since (removed lines too)?

    At most a third of its non-blank lines (at least one) may differ there, each
    much like the block's line at the same indent, or that line with more after it
    (a comment added since); a line only much like it counts when another line
    stands as written: the edit's own place, edited since.
    """
    size = len(block.old)
    if at < 0 or at + size > len(fi.keys) or not size:
        return False
    norm = _norm_fn(active)
    lines = fi.normed(active)
    shown = sum(1 for x in block.old if x.strip())
    off = loose = 0
    for k, x in enumerate(block.old):
        if lines[at + k] == norm(x):
            continue
        mine = fi.text.lines[at + k]
        a, b = mine.strip(), x.strip()
        if not b or not a or _indent_of(mine) != _indent_of(x):
            return False
        if not (len(b) >= 8 and a.startswith(b)):
            if not _similar(a, b):
                return False
            loose += 1
        off += 1
    # A line that is only much like the edit's counts next to one that stands as written.
    return 0 < off <= max(1, shown // 3) and (loose == 0 or off < shown)


def _resembling(fi: _FileIndex, block: _Block, active: frozenset[str], window: tuple[int, int]) -> list[int]:
    """Starts in the window where the block `_resembles` the file (found through its rarest line that stands as written)."""
    norm = _norm_fn(active)
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
            if _resembles(fi, block, active, s):
                out.append(s)
                if len(out) > _MAX_CANDIDATES:
                    return out
    return out


def _similar(a: str, b: str) -> bool:
    """Is the file's `a` much like the edit's `b`: three quarters the same, or `b` with more after it?"""
    if a == b or (len(b) >= 8 and a.startswith(b)):
        return True  # (a comment added at the end since the edit was written, say)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sm.real_quick_ratio() >= 0.75 and sm.quick_ratio() >= 0.75 and sm.ratio() >= 0.75


def _near(fi: _FileIndex, block: _Block, active: frozenset[str], window: tuple[int, int]) -> list[int]:
    """Starts where every removed line matches and at most a third of the context lines
    (at least one) differ, whatever they are: places the block may describe."""
    norm = _norm_fn(active)
    lines = fi.normed(active)
    old = [norm(x) for x in block.old]
    size = len(old)
    usable = [k for k, t in enumerate(block.tags) if t == REMOVED] or [
        k for k in range(size) if old[k].strip() and old[k] in fi.positions(active)
    ]
    allowed = max(1, block.tags.count(CONTEXT) // 3)
    out: list[int] = []
    for s in (_candidates(fi, active, old, usable, window) if usable else ()):
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
            if len(out) > _MAX_CANDIDATES:
                break
    return out


def _try_hunk(
    fi: _FileIndex, h: Hunk, tiers: Sequence[str], window: tuple[int, int], path: str, drift: int, fuzzy: bool,
) -> tuple[_Match, Hunk, int] | Finding | None:
    """One hunk variant through the non-fuzzy tiers, or through fuzz: (match, hunk matched, lines off).

    The hunk matched is `h` itself or `h` less the context lines the file has nowhere.
    """
    hint = None if h.old_start is None else h.old_start - 1
    block = _Block(h.old_lines, tuple(hl.tag for hl in h.lines if hl.tag != ADDED), hint, h.at_eof, h.anchors)
    m, finding = _search_drift(fi, block, tiers, window, path, h.source_line, drift, fuzzy)
    if finding is not None:
        return finding
    if not fuzzy:
        return None if m is None else (m, h, 0)
    # A context line the file lacks at that spot was either misremembered (it stands
    # for the file's line there: `m`) or invented (it stands for nothing: dropped).
    # Both readings are looked for; when they change different lines, the edit is
    # ambiguous, however unique each reading is on its own.
    found: list[tuple[_Match, Hunk, int]] = [] if m is None else [(m, h, 0)]
    stripped = _without_invented(h, fi)
    if stripped is not None:
        b2 = replace(block, old=stripped.old_lines, tags=tuple(hl.tag for hl in stripped.lines if hl.tag != ADDED),
                     hint=None if stripped.old_start is None else stripped.old_start - 1)
        m2, finding = _search_drift(fi, b2, tiers, window, path, h.source_line, drift, fuzzy)
        if finding is not None:
            return finding
        if m2 is not None:
            found.append((m2, stripped, len(h.lines) - len(stripped.lines)))
    # Context that is mostly invented or wrong describes some other file: a match on
    # the few lines left would be a guess, however unique.  At most a third may be off.
    found = [(m, hh, off) for m, hh, dropped in found
             if (off := dropped + _misses(fi, m.block, m.active, m.start)) <= max(1, _context(hh, dropped) // 3)]
    if len(found) == 2 and _effect(found[0][1], found[0][0].start) != _effect(found[1][1], found[1][0].start):
        if found[0][0].start != found[1][0].start:
            return _ambiguous(path, fi, sorted({f[0].start for f in found}), "fuzz", h.source_line)
        return _two_readings(fi, found[0][0], path)
    return found[0] if found else None


def _two_readings(fi: _FileIndex, m: _Match, path: str) -> Finding:
    """One place, but a context line that differs there says two things: refuse, naming it.

    Read as a stale copy of the file's line, the new lines go on one side of that
    line; read as invented, on the other.
    """
    norm = _norm_fn(m.active)
    lines = fi.normed(m.active)
    k = next((k for k, x in enumerate(m.block.old) if lines[m.start + k] != norm(x)), 0)
    at = m.start + k
    return error(
        "ambiguous", path, at + 1,
        f"the context line {visible(m.block.old[k])!r} is not line {at + 1} as it is now, and the edit means "
        "different things whether it stands for that line or for nothing (the new lines go on either side of it)",
        f"line {at + 1} is {visible(fi.keys[at])!r}; copy it as it is into the edit, or leave it out",
    )


def _context(h: Hunk, dropped: int) -> int:
    return sum(1 for hl in h.lines if hl.tag == CONTEXT and hl.text.strip()) + dropped


def _misses(fi: _FileIndex, block: _Block, active: frozenset[str], s: int) -> int:
    """Lines of the block that differ from the file at `s` under `active` (only context may, under fuzz)."""
    norm = _norm_fn(active)
    lines = fi.normed(active)
    return sum(1 for k, x in enumerate(block.old) if lines[s + k] != norm(x))


def _effect(h: Hunk, start: int) -> tuple[tuple[str, int, str], ...]:
    """What a hunk placed at `start` does: the file lines it removes, and what it adds before which line."""
    out: list[tuple[str, int, str]] = []
    k = start
    for hl in h.lines:
        if hl.tag == ADDED:
            out.append((ADDED, k, hl.text))
            continue
        if hl.tag == REMOVED:
            out.append((REMOVED, k, ""))
        k += 1
    return tuple(out)


def _search_drift(
    fi: _FileIndex, block: _Block, tiers: Sequence[str], window: tuple[int, int], path: str, src: int, drift: int,
    fuzzy: bool,
) -> tuple[_Match | None, Finding | None]:
    m, finding, _ = _search(fi, block, tiers, window, path, src, fuzzy)
    if finding is not None and block.hint is not None and drift and not fuzzy:
        # The drift measured by the previous hunk may pick the candidate exactly.
        m2, _, _ = _search(fi, replace(block, hint=block.hint + drift), tiers, window, path, src, fuzzy)
        if m2 is not None:
            return m2, None
    return m, finding


def _misplaced(fi: _FileIndex, h: Hunk, start: int, path: str) -> Finding:
    assert h.old_start is not None
    return error(
        "not-found", path, h.old_start,
        f"the lines to change (hunk at input line {h.source_line}) are at line {start + 1} of {path}, "
        f"not at line {h.old_start} as the hunk header says, and this policy's locate tiers exclude `offset`",
        f"make the hunk start at line {start + 1}: the file has there:\n{start + 1:>6}| {visible(fi.keys[start])}",
    )


def _bare_context(h: Hunk) -> Hunk:
    """A SEARCH/REPLACE-shaped hunk (all removed, then all added) with its repeated edges as context.

    Lines a block repeats unchanged at its start and end are the context it was
    given, so they get what context gets: stray blanks at the edges may go
    (`recount`), a misremembered one may be tolerated (`fuzz`), and the file keeps
    its bytes for them.
    """
    if h.old_start is not None or h.anchors:
        return h
    tags = [hl.tag for hl in h.lines]
    n_rem = tags.count(REMOVED)
    if not n_rem or tags != [REMOVED] * n_rem + [ADDED] * (len(tags) - n_rem):
        return h
    rem, add = h.lines[:n_rem], h.lines[n_rem:]
    most = min(len(rem), len(add))
    pre = 0
    while pre < most and rem[pre].text == add[pre].text:
        pre += 1
    suf = 0
    while suf < most - pre and rem[-1 - suf].text == add[-1 - suf].text:
        suf += 1
    if not pre and not suf or (pre + suf == len(rem) == len(add)):
        return h
    def ctx(hls: Sequence[HunkLine]) -> tuple[HunkLine, ...]:
        return tuple(HunkLine(CONTEXT, hl.text) for hl in hls)

    lines = ctx(rem[:pre]) + rem[pre:len(rem) - suf] + add[pre:len(add) - suf] + ctx(rem[len(rem) - suf:])
    return replace(h, lines=lines)


def _reprefixed(h: Hunk, fi: _FileIndex) -> Hunk | None:
    """The hunk with context lines the model wrote without their leading space put back.

    Copied as the file has it, an indented line loses one column to the context
    prefix it lacks: ``  key: value,`` reads as context `` key: value,``.  Such a
    line is one the file lacks as read and has once its space is back.
    """
    exact = fi.positions(frozenset())
    lines = []
    for hl in h.lines:
        if hl.tag == CONTEXT and hl.text.startswith((" ", "\t")) and hl.text not in exact and " " + hl.text in exact:
            hl = HunkLine(CONTEXT, " " + hl.text)
        lines.append(hl)
    return None if all(a is b for a, b in zip(lines, h.lines)) else replace(h, lines=tuple(lines))


def _unescaped(h: Hunk) -> Hunk | None:
    """The hunk with JSON-style escapes decoded (a literal `\\n` splits a line), or None if that changes nothing."""
    if not any("\\" in hl.text for hl in h.lines) and not any("\\" in a for a in h.anchors):
        return None
    lines: list[HunkLine] = []
    for hl in h.lines:
        cr = "\r" if hl.text.endswith("\r") else ""
        parts = unescape(hl.text[: len(hl.text) - len(cr)]).split("\n")
        lines += [HunkLine(hl.tag, part + cr) for part in parts]
    un = replace(h, lines=tuple(lines), anchors=tuple(unescape(a) for a in h.anchors))
    return None if un == h else un


def _typography(fi: _FileIndex, start: int, size: int, old: Sequence[str]) -> dict[int, str | None] | None:
    """The unicode tier's map for new lines, when the edit had typographic characters the file has not.

    A model that turned the file's quotes and dashes typographic in the lines it
    copied did so in the lines it wrote too; those go back to what the file uses.
    Characters the file's matched lines do have are left alone.
    """
    there = set("".join(fi.keys[start : start + size]))
    edit = set("".join(old))
    if not any(ord(c) in _UNICODE and c not in there for c in edit):
        return None
    return {k: v for k, v in _UNICODE.items() if chr(k) not in there}


def _locate_insertion(fi: _FileIndex, h: Hunk, window: tuple[int, int], path: str) -> tuple[Splice | None, list[str], Finding | None]:
    t = fi.text
    n = len(t.lines)
    if h.anchors:
        floor = _anchor_floor(fi, h.anchors, window[0], frozenset(_NORMALISERS))
        if floor is None:
            line, hint = not_found_hint(fi, h.anchors, path)
            return None, [], error("not-found", path, line, f"the anchor line {h.anchors[-1]!r} is not in {path}", hint)
        at = floor
    elif h.at_eof:
        at = n
    elif h.old_start is not None:
        at = h.old_start - 1
        if at < 0 or at > n:
            return None, [], error(
                "not-found", path, h.old_start,
                f"the insertion point, line {h.old_start}, is past the end of {path} ({n} lines)",
                "add context lines around the insertion so it can be located",
            )
    else:
        return None, [], error(
            "ambiguous", path, None,
            "an insertion with no context lines and no line number could go anywhere",
            "include at least one unchanged line before or after the new lines",
        )
    eol = t.dominant_eol()
    if at > 0 and t.eols[at - 1]:
        eol = t.eols[at - 1]
    new = tuple((hl.text[:-1], "\r\n") if hl.text.endswith("\r") else (hl.text, eol) for hl in h.lines if hl.tag == ADDED)
    final = None if h.new_eof_newline or at != n else False
    return Splice(at, at, new, h.source_line, final), [], None


# --------------------------------------------------------------------------- replace (substring)


@dataclass
class _Flat:
    """The file as one string; offsets map back to (line, column) by counting line breaks."""

    s: str
    size: int  # lines in the file

    def line_col(self, off: int) -> tuple[int, int]:
        if off >= len(self.s):
            return self.size, 0  # the end of the file counts as the start of a line after it
        ln = self.s.count("\n", 0, off)
        return ln, off - (self.s.rfind("\n", 0, off) + 1)


def _flat(fi: _FileIndex, with_cr: bool) -> _Flat:
    t = fi.text
    if with_cr or not t.eols.count("\r\n"):
        s = "".join(map(operator.add, t.lines, t.eols))
    else:
        s = "\n".join(t.lines) + ("\n" if t.eols and t.eols[-1] else "")
    return _Flat(s, len(t.lines))


def _all_occurrences(hay: str, needle: str) -> list[int]:
    out = []
    i = hay.find(needle)
    while i >= 0:
        out.append(i)
        if len(out) > _MAX_CANDIDATES:
            break
        i = hay.find(needle, i + max(1, len(needle)))
    return out


def _splices_from_spans(
    fi: _FileIndex, flat: _Flat, spans: list[tuple[int, int]], new: str, eol_mode: bool, src: int, old: str = "",
    indent: bool = False,
) -> tuple[list[Splice], bool]:
    """The splices for exact matches of `old`, and whether the new text was shifted (`indent`).

    Text that starts right after a line's indent, and has nothing but blank lines
    after its first, was copied without that indent: its new lines get it too (and
    a deleted line goes whole, not leaving its indent behind).
    """
    t = fi.text
    out = []
    shifted = False
    for a, b in spans:
        l0, c0 = flat.line_col(a)
        l1, c1 = flat.line_col(b)
        # Extend to whole lines: the splice replaces lines l0..l1 (inclusive of l1 unless b sits at its start).
        if c1 == 0 and b > a and l1 > l0:
            last = l1 - 1
            tail = ""
            end_eol_from = last
        else:
            last = l1
            tail = t.lines[last][c1:] if last < len(t.lines) else ""
            end_eol_from = last
        head = t.lines[l0][:c0] if l0 < len(t.lines) else ""
        if last >= len(t.lines):
            last = len(t.lines) - 1
        body = new.replace("\r\n", "\n") if eol_mode else new
        later = old.split("\n")[1:]
        if indent and head and not head.strip(" \t") and not any(x.strip() for x in later) and ("\n" in body or not body):
            shifted = True
            first, *rest = body.split("\n")
            body = "\n".join([first] + [head + x if x.strip(" \t\r") else x for x in rest])
            if not body and c1 == 0 and b > a and l1 > l0:
                head = ""
        joined = head + body + tail
        eol_default = t.eols[l0] if l0 < len(t.eols) and t.eols[l0] else t.dominant_eol()
        if c1 == 0 and b > a and l1 > l0:
            # The old text ended with a line break: so must the new one, or lines would merge.
            joined_lines = joined.split("\n")
            if joined_lines and joined_lines[-1] == "":
                joined_lines.pop()
            final_eol = t.eols[end_eol_from] if end_eol_from < len(t.eols) else eol_default
        else:
            joined_lines = joined.split("\n")
            final_eol = t.eols[last] if 0 <= last < len(t.eols) else ""
        new_lines: list[tuple[str, str]] = []
        for i, ln in enumerate(joined_lines):
            is_last = i == len(joined_lines) - 1
            if ln.endswith("\r") and not eol_mode:
                text_, e = ln[:-1], "\r\n"
            else:
                text_, e = ln, eol_default
            if is_last:
                e = final_eol if not (ln.endswith("\r") and not eol_mode) else ("\r\n" if final_eol else final_eol)
            new_lines.append((text_, e))
        _keep_repeated(t, l0, new_lines, old, body, head, tail, c1 == 0 and b > a and l1 > l0)
        out.append(Splice(l0, max(last + 1, l0), tuple(new_lines), src))
    return out, shifted


def _keep_repeated(
    t: Text, l0: int, new_lines: list[tuple[str, str]], old: str, body: str, head: str, tail: str, ends: bool
) -> None:
    """Whole lines the text repeats unchanged at its start and end keep the file's bytes.

    Blanks after the match on its last line belong to that line: when it is kept,
    they stay with it rather than moving to the end of the new text.
    """
    o, n = old.replace("\r\n", "\n").split("\n"), body.split("\n")
    if ends and o[-1] == "":
        o.pop()
        if n and n[-1] == "":
            n.pop()
    blank_tail = not tail.strip(" \t\r")
    if len(n) != len(new_lines) or (len(o) < 2 and (head or not tail or not blank_tail)):
        return  # (one line whose match runs to blanks at its end keeps them, as a longer text does)
    kept = {i: k for i, k in _repeated(o, n).items()
            if (k > 0 or not head) and (k < len(o) - 1 or ends or blank_tail) and l0 + k < len(t.lines)}
    for i, k in kept.items():
        new_lines[i] = (t.lines[l0 + k], t.eols[l0 + k] or new_lines[i][1])
    last = len(new_lines) - 1
    if tail and blank_tail and len(o) - 1 in kept.values() and last not in kept:
        text_, e = new_lines[last]
        new_lines[last] = (text_[: len(text_) - len(tail)] if text_.endswith(tail) else text_, e)


def _lines_match_partial(fi: _FileIndex, active: frozenset[str], old_lines: list[str], window: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """Matches of a multi-line `old` whose first line may be a suffix and last a prefix of a file line.

    Returns (first line, head length kept, last line, tail offset kept) per match.
    """
    norm = _norm_fn(active)
    lines = fi.normed(active)
    keys = fi.keys
    n_old = [norm(x) for x in old_lines]
    size = len(old_lines)
    middle = [k for k in range(1, size - 1) if n_old[k].strip()]
    starts: Iterable[int]
    if middle:
        starts = _candidates(fi, active, n_old, middle, window)
    else:
        if window[1] - window[0] > 20000:
            return []
        starts = range(window[0], window[1])
    out = []
    for s in starts:
        e = s + size - 1
        if s < window[0] or e >= min(window[1], len(lines)):
            continue
        if any(lines[s + k] != n_old[k] for k in range(1, size - 1)):
            continue
        first, last = keys[s], keys[e]
        head = None
        # Text that starts with blanks was copied from the start of the line: the
        # longest suffix that matches, so the line's indent is the text's (and shifts
        # with it).  Otherwise it starts mid-line: the shortest.
        copied = old_lines[0][:1] in (" ", "\t")
        for cut in range(len(first) + 1) if copied else range(len(first), -1, -1):
            if norm(first[cut:]) == n_old[0] and (cut == 0 or n_old[0]):
                head = cut
                break
        if head is None:
            continue
        tail = None
        for cut in range(0, len(last) + 1):
            if norm(last[:cut]) == n_old[-1]:
                tail = cut
                break
        if tail is None:
            continue
        if "trailing-whitespace" in active and n_old[-1] and not last[tail:].strip(" \t\r"):
            # Only blanks follow: the text ran to the end of the line, without them.
            tail = len(last) - last.endswith("\r")
        if "indent" in active and head == 0 and _indent_shift(keys[s : e + 1], old_lines) is None:
            continue  # indentation that is not one uniform shift would be re-indented wrongly
        out.append((s, head, e, tail))
        if len(out) > _MAX_CANDIDATES:
            break
    return out


def _splits_line(
    fi: _FileIndex, flat: _Flat, spans: list[tuple[int, int]], old: str, new: str, path: str
) -> Finding | None:
    """Refuse new lines added at the edge of a text that stops or starts mid-line.

    `old` matched the start of a line that goes on (`f(a)` in `f(a)  # note`), and
    `new` keeps that line whole and puts other text after it: the rest of the line
    would move below the new lines, onto text that is not its own.  The model most
    likely saw the line without its rest (it changed since): which side of that
    rest the new lines go on is a guess.
    """
    o, n = old.replace("\r\n", "\n").split("\n"), new.replace("\r\n", "\n").split("\n")
    # The line cut short is kept whole in the new text, and other text takes its place.
    adds_after = o[-1].strip() != "" and o[-1] in n[:-1] and n[-1] != o[-1]
    adds_before = o[0].strip() != "" and o[0] in n[1:] and n[0] != o[0]
    if not (adds_after or adds_before):
        return None
    for a, b in spans:
        l0, c0 = flat.line_col(a)
        l1, c1 = flat.line_col(b)
        rest = fi.text.lines[l1][c1:] if l1 < len(fi.text.lines) else ""
        before = fi.text.lines[l0][:c0] if l0 < len(fi.text.lines) else ""
        if adds_after and rest.strip(" \t\r"):
            line, part = l1, rest
            where = "ends in the middle of"
            what = "add the rest of that line to both texts"
        elif adds_before and before.strip(" \t"):
            line, part = l0, before
            where = "starts in the middle of"
            what = "add the start of that line to both texts"
        else:
            continue
        return error(
            "ambiguous", path, line + 1,
            f"the text to replace {where} line {line + 1}, which also has {visible(part.strip())!r}: "
            "the new lines could go on either side of it",
            f"line {line + 1} is {visible(fi.text.lines[line])!r}; {what}, or give whole lines",
        )
    return None


def locate_replace(fi: _FileIndex, r: Replace, tiers: Sequence[str], path: str) -> tuple[list[Splice], list[str], Finding | None, str]:
    """Locate a substring replacement; returns (splices, repairs, finding, note)."""
    if r.old == "":
        return [], [], error("parse-error", path, r.source_line, "the text to replace is empty", "use a whole-file write to create content"), ""
    exact = _flat(fi, True)
    for eol_mode in (False, True):
        if eol_mode and "eol" not in tiers:
            break
        flat = exact if not eol_mode else _flat(fi, False)
        old = r.old if not eol_mode else r.old.replace("\r\n", "\n")
        occ = _all_occurrences(flat.s, old)
        if not occ:
            continue
        if len(occ) > 1 and not r.replace_all:
            starts = [flat.line_col(o)[0] for o in occ]
            return [], [], _ambiguous(path, fi, starts, "eol" if eol_mode else "exact", r.source_line), ""
        spans = [(o, o + len(old)) for o in occ]
        split = _splits_line(fi, flat, spans, old, r.new, path)
        if split is not None:
            return [], [], split, ""
        note = f"replaced {len(occ)} occurrences in {path}" if r.replace_all else ""
        # Text within one line says nothing of the edit's line endings: its new lines
        # take the file's, as they would with a multi-line text matched by `eol`.
        adopt = eol_mode or ("\n" not in r.old and "eol" in tiers)
        at = flat.line_col(occ[0])[0]
        crlf = at < len(fi.text.eols) and fi.text.eols[at] == "\r\n"
        repairs = ["eol"] if eol_mode or (adopt and "\r\n" in r.new and not crlf) else []
        splices, shifted = _splices_from_spans(fi, flat, spans, r.new, adopt, r.source_line, old, "indent" in tiers)
        if shifted and not r.replace_all:
            # Found inside a deeper line's indent: as for the indent tier, a line much like
            # the text at its own indent is the place meant, changed since it was read.
            lines = r.old.split("\n")
            rivals = set(_lookalike(fi, [x for x in lines if x.strip()], (0, len(fi.keys)))) - {at}
            if rivals:
                return [], [], _ambiguous(path, fi, sorted(rivals | {at}), "indent", r.source_line), ""
        return splices, repairs + (["indent"] if shifted else []), None, note
    # Looser tiers work line by line.
    old_lines = r.old.split("\n")
    if len(old_lines) > 1 and old_lines[-1] == "":
        old_lines.pop()
        ends_with_newline = True
    else:
        ends_with_newline = False
    steps = [(name, act) for name, act, fz in _tier_sets(tiers) if not fz and name != "exact"]

    def matches(active: frozenset[str]) -> list[tuple[int, int, int, int]]:
        if len(old_lines) == 1 and not ends_with_newline:
            return _single_line_matches(fi, active, old_lines[0])
        found = _lines_match_partial(fi, active, old_lines, (0, len(fi.keys)))
        if ends_with_newline:
            found = [m for m in found if m[3] == len(fi.keys[m[2]]) or _norm_fn(active)(fi.keys[m[2]][m[3]:]) == ""]
        return found

    for name, active in steps:
        found = matches(active)
        shown = [k for k, x in enumerate(old_lines) if x.strip()]
        if "indent" in active and len(shown) == 1 and old_lines[shown[0]][:1] in (" ", "\t"):
            # One line, indented more than a step away from where it is found: a line the
            # model placed elsewhere, or whose own copy changed; no shape confirms it.
            k = shown[0]
            found = [m for m in found if abs(_width(old_lines[k]) - _width(fi.keys[m[0] + k])) <= 4]
        if not found:
            continue
        if len(found) > 1 and not r.replace_all:
            return [], [], _ambiguous(path, fi, [m[0] for m in found], name, r.source_line), ""
        repairs = [t for t in _NORMALISERS if t in active]
        # Report only the normalisations that mattered for the first match.
        repairs = _needed_replace(fi, found[0], old_lines, active) or repairs
        if "indent" in repairs and not r.replace_all:
            # Found only at another indent, the text may be a copy of the one meant, which
            # differs a little where it is (a typographic character, say): a second place.
            rivals = {m[0] for m in matches(frozenset(t for t in tiers if t in _NORMALISERS and t != "indent"))}
            rivals |= set(_lookalike(fi, old_lines, (0, len(fi.keys))))
            if rivals - {found[0][0]}:
                return [], [], _ambiguous(path, fi, sorted(rivals | {found[0][0]}), name, r.source_line), ""
        splices = [_replace_splice(fi, m, r.new, ends_with_newline, active, old_lines, r.source_line) for m in found]
        note = f"replaced {len(found)} occurrences in {path}" if r.replace_all else ""
        return splices, repairs, None, note
    if "escape" in tiers and "\\" in r.old:
        un = Replace(unescape(r.old), unescape(r.new), r.replace_all, r.source_line)
        if un.old != r.old:
            sp, rep, f, note = locate_replace(fi, un, [t for t in tiers if t != "escape"], path)
            if f is None or f.code == "ambiguous":
                return sp, (rep + ["escape"]) if f is None else [], f, note
    line, hint = not_found_hint(fi, old_lines, path)
    return [], [], error("not-found", path, line, f"the text to replace is not in {path}", hint), ""


def _replace_by_lines(fi: _FileIndex, r: Replace, tiers: Sequence[str], path: str, missing: Finding
                      ) -> tuple[list[Splice], list[str], Finding | None]:
    """A text to replace that is not in the file, read as whole lines under ``fuzz``.

    The lines the old and new text share at their edges are its context, as in a
    SEARCH/REPLACE block: one of them misremembered, or changed since, is placed by
    the rest and merged by git's rule.  Text that is not whole lines never matches.
    """
    old, new = r.old.split("\n"), r.new.split("\n")
    if r.replace_all or (old[-1] == "") != (new[-1] == "") or len(old) < 2:
        return [], [], missing
    if old[-1] == "":
        old.pop()
        if new and new[-1] == "":
            new.pop()
    lines = tuple(HunkLine(REMOVED, x) for x in old) + tuple(HunkLine(ADDED, x) for x in new)
    h = _bare_context(Hunk(lines, source_line=r.source_line))
    if not any(hl.tag == CONTEXT for hl in h.lines):
        return [], [], missing
    sp, rep, f = locate_hunk(fi, h, tiers, (0, len(fi.keys)), path, 0)
    if f is not None and f.code == "ambiguous":
        return [], [], f
    if sp is None or f is not None or "fuzz" not in rep:
        return [], [], missing
    return [sp], rep, None


def _single_line_matches(fi: _FileIndex, active: frozenset[str], old: str) -> list[tuple[int, int, int, int]]:
    """A one-line fragment inside file lines; only length-preserving normalisation applies mid-line.

    With `indent`, a fragment that equals a whole line but for blanks at its ends is
    that whole line: from the line's start when the fragment starts with blanks (it
    was copied from there, and its indent is the one to shift), to the line's end.
    """
    norm = _norm_fn(active - {"indent", "trailing-whitespace"})
    nold = norm(old)
    out = []
    stripped_old = old.strip(" \t")
    from_start = old[:1] in (" ", "\t")
    bare = nold.rstrip(" \t") if "trailing-whitespace" in active and nold.rstrip(" \t") != nold else ""

    def whole(i: int, key: str) -> tuple[int, int, int, int]:
        lead = 0 if from_start else len(key) - len(key.lstrip(" \t"))
        return (i, lead, i, len(key) - key.endswith("\r"))

    for i, key in enumerate(fi.keys):
        nk = norm(key)
        if len(nk) != len(key):
            if "indent" in active and stripped_old and norm(key.strip(" \t\r")) == norm(stripped_old):
                out.append(whole(i, key))
            continue
        j = nk.find(nold) if nold else -1
        while j >= 0:
            out.append((i, j, i, j + len(nold)))
            j = nk.find(nold, j + max(1, len(nold)))
        if bare and (j := nk.find(bare)) >= 0 and not nk[j + len(bare) :].strip(" \t\r"):
            # Blanks at the fragment's end that the line lacks: it ran to the line's end.
            out.append((i, j, i, len(key) - key.endswith("\r")))
        if not out and "indent" in active and stripped_old and nk.strip(" \t\r") == norm(stripped_old).strip("\r"):
            out.append(whole(i, key))
        if len(out) > _MAX_CANDIDATES:
            break
    return out


def _needed_replace(fi: _FileIndex, m: tuple[int, int, int, int], old_lines: list[str], active: frozenset[str]) -> list[str]:
    need = []
    for t in _NORMALISERS:
        if t not in active:
            continue
        fewer = active - {t}
        norm = _norm_fn(fewer)
        s, head, e, tail = m
        if s == e and len(old_lines) == 1:
            ok = norm(fi.keys[s][head:tail]) == norm(old_lines[0])
        else:
            ok = (
                norm(fi.keys[s][head:]) == norm(old_lines[0])
                and all(norm(fi.keys[s + k]) == norm(old_lines[k]) for k in range(1, len(old_lines) - 1))
                and norm(fi.keys[e][:tail]) == norm(old_lines[-1])
            )
        if not ok:
            need.append(t)
    return need


def _replace_splice(
    fi: _FileIndex, m: tuple[int, int, int, int], new: str, ends_with_newline: bool, active: frozenset[str], old_lines: list[str], src: int
) -> Splice:
    t = fi.text
    s, head, e, tail = m
    first_key, last_key = fi.keys[s], fi.keys[e]
    prefix = first_key[:head]
    suffix = last_key[tail:]
    if suffix.endswith("\r") and t.eols[e] == "\r\n":
        suffix = suffix[:-1]
    if prefix.endswith("\r"):
        prefix = prefix[:-1]
    new_text = new.replace("\r\n", "\n")
    if ends_with_newline and new_text.endswith("\n"):
        new_lines = new_text[:-1].split("\n")  # "\n" is one empty line
    else:
        new_lines = new_text.split("\n") if (new_text or not ends_with_newline) else []
    # Lines the edit repeats unchanged keep the file's bytes, when they are whole lines
    # of the file (the first from its start, the last to its end).
    tail_full = not last_key[tail:].strip("\r")
    kept = {i: k for i, k in _repeated(old_lines, new_lines).items()
            if (k > 0 or head == 0) and (k < len(old_lines) - 1 or tail_full)}
    if "unicode" in active:
        plain = _typography(fi, s, e - s + 1, old_lines)
        if plain is not None:
            new_lines = [x.translate(plain) for x in new_lines]
    if "indent" in active:
        shift = _indent_shift([fi.keys[s + k] for k in range(e - s + 1)], old_lines)
        if shift and shift != ("", "") and (head == 0 or not prefix.strip()):
            new_lines = [_reindent(x, shift) for x in new_lines]
            if head and prefix.strip() == "":
                prefix = ""
    eol = t.eols[s] or t.dominant_eol()
    if new_lines:
        new_lines[0] = prefix + new_lines[0]
        new_lines[-1] = new_lines[-1] + suffix
    elif prefix or suffix:
        new_lines = [prefix + suffix]
    out = [(x, eol) for x in new_lines]
    if out:
        out[-1] = (out[-1][0], t.eols[e])
    for i, k in kept.items():
        # A whole line the edit repeats unchanged: the file's bytes, whatever tier matched.
        out[i] = (t.lines[s + k], t.eols[s + k])
    return Splice(s, e + 1, tuple(out), src)


def _repeated(old: Sequence[str], new: Sequence[str]) -> dict[int, int]:
    """{index in `new`: index in `old`} for the lines `new` repeats unchanged at its start and end."""
    def same(a: str, b: str) -> bool:
        return a.rstrip("\r") == b.rstrip("\r")

    most = min(len(old), len(new))
    out: dict[int, int] = {}
    pre = 0
    while pre < most and same(old[pre], new[pre]):
        out[pre] = pre
        pre += 1
    suf = 0
    while suf < most - pre and same(old[-1 - suf], new[-1 - suf]):
        out[len(new) - 1 - suf] = len(old) - 1 - suf
        suf += 1
    return out


# --------------------------------------------------------------------------- line ranges


def locate_range(fi: _FileIndex, lr: LineRange, path: str) -> tuple[Splice | None, list[str], Finding | None]:
    n = len(fi.keys)
    s, e = lr.start - 1, lr.end  # [s, e)
    eol = fi.text.dominant_eol()
    new = tuple((x[:-1], "\r\n") if x.endswith("\r") else (x, eol) for x in lr.new)
    if lr.expect is None:
        if s < 0 or e > n or e < s:
            return None, [], error("not-found", path, lr.start, f"{span(lr.start, lr.end)} {'is' if lr.start == lr.end else 'are'} outside {path} ({plural(n, 'line')})", f"{path} has {plural(n, 'line')}")
        return Splice(s, e, new, lr.source_line), [], None
    want = list(lr.expect)
    norm = _norm_fn(frozenset({"eol"}))
    if 0 <= s and e <= n and [norm(k) for k in fi.keys[s:e]] == [norm(x) for x in want]:
        return Splice(s, e, new, lr.source_line), [], None
    if not want:
        return None, [], error("stale", path, lr.start, f"{path} changed since it was read and the insertion point cannot be re-anchored", "read the file again")
    block = _Block(tuple(want), tuple(REMOVED for _ in want), None, False, ())
    starts = _match_block(fi, block, frozenset({"eol"}), (0, n), False)
    if len(starts) == 1:
        return Splice(starts[0], starts[0] + len(want), new, lr.source_line), ["offset"], None
    return None, [], error(
        "stale", path, lr.start,
        f"{path} changed since it was read: {span(lr.start, lr.end)} no longer hold{'s' if lr.start == lr.end else ''} what was read"
        + (f" and that text now occurs {len(starts)} times" if starts else ""),
        "read the file again and redo the edit against the lines as they are now",
    )


# --------------------------------------------------------------------------- lazy snippets
#
# A snippet is the file as it should become, with unchanged stretches elided by
# marker lines.  Its real lines are either anchors (lines of the file, kept as the
# file has them) or new.  Anchors are found as in a patience diff: a line that
# occurs once in the file and once in the snippet is an anchor (never a line that
# only closes something: `}`, `end`, a blank); anchors must come in file order;
# each extends over the equal lines next to it; and between two anchors with a
# marker between them the search repeats, uniqueness now counted inside that
# stretch.  Then each stretch between two anchors is read:
#
# - without a marker the snippet shows it whole, and its lines replace the file's;
#   a stretch that would drop many more lines than it shows is refused (a marker
#   was probably forgotten), and so, at either end of the file, is any drop;
# - with markers, every marker keeps file lines.  New lines before the first
#   marker go right after the anchor, new lines after the last right before the
#   next anchor; context they carry on the marker's side may meet the file a few
#   lines off (the lines between are replaced).  A marker indented deeper than the
#   block around it stands for the rest of that block: the parse tree gives the
#   extent when the file parses, else the indentation does, and new lines after
#   it go where the block ends.  Lines between two markers are placed by the
#   context at both their ends, as a block, else where the first marker's block
#   ends (new code only), else refused.  Code outside a marker's block that the
#   snippet does not show would be lost, and is refused.
# Whatever two readings could explain is refused: context that also fits a few
# lines further off (unless the lines between are shallower, so no agent would
# drop them silently), blank or closing lines shown where the file has other
# lines, a new line next to a marker that looks like a changed version of the
# line the marker keeps there (a replacement, or an addition?), new lines after a
# `return` the marker keeps, and new lines at an end of the file with nothing of
# the file next to them.

_LAZY_SLACK = 4  # lines a marker-free stretch may drop beyond the lines it shows
# A line that only closes something (`}`, `);`, `end`, blank) is too common to anchor on.
_CLOSERS = frozenset(("end", "fi", "done", "esac", "endif", "endfor", "endwhile", "wend", "loop", "next"))
_WORD = re.compile(r"[^\W_]+")


def weak(line: str) -> bool:
    """A line that only closes something: punctuation, perhaps one closing keyword (`}`, `end`, `fi;`).

    (Counted word by word, not by a pattern with two stars around an optional word,
    which backtracks quadratically on a long line of punctuation.)
    """
    words = _WORD.finditer(line)
    first = next(words, None)
    return first is None or (first.group() in _CLOSERS and next(words, None) is None)
_DEFINES = re.compile(
    r"\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w ]+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function\*?|fn|func|sub|interface|struct|enum|trait|module)\s+(\w+)"
)
_ASSIGNS = re.compile(r"\s*(?:(?:let|const|var|my|local|auto)\s+)?([\w.$\[\]'\"]+)\s*(?::[^=]*)?(?<![=!<>])=(?![=>~])")
_EXITS = re.compile(r"\s*(return|raise|throw|yield)\b")


def _width(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _same_head(new: str, old: str) -> bool:
    """`new` looks like a changed version of `old`: a replacement, not an addition beside it
    (same definition, same assignment target, both returns, or a near copy)."""
    if not new.strip() or not old.strip() or _width(new) != _width(old):
        return False
    for rx in (_DEFINES, _EXITS, _ASSIGNS):
        a, b = rx.match(new), rx.match(old)
        if a and b and a.group(1) == b.group(1):
            return True
        if a or b:
            break
    # Otherwise a near copy (a name renamed, `operator_v2=` for `operator=`, or a value
    # changed) reads as a replacement as much as an addition: the doubt stands.
    return difflib.SequenceMatcher(None, new.strip(), old.strip(), autojunk=False).ratio() >= 0.8


@dataclass
class _Lazy:
    """One snippet being merged into one file."""

    fi: _FileIndex
    snippet: Snippet
    path: str
    keys: list[str]  # the file's lines, normalised
    skeys: list[str]  # the snippet's lines, normalised
    marker: list[bool]
    pairs: dict[int, int] = field(default_factory=dict)  # snippet index -> file index
    _blocks: dict[int, list[tuple[int, int]] | None] = field(default_factory=dict)

    def src(self, i: int) -> int:
        return self.snippet.source_line + i

    def show(self, i: int) -> str:
        return repr(visible(self.snippet.lines[i].strip())[:80])

    def file_line(self, p: int) -> str:
        return repr(visible(self.fi.text.lines[p].strip())[:80])

    def blocks(self, row: int) -> list[tuple[int, int]] | None:
        """The parsed constructs holding line `row` and the next, outermost first (None: no parse)."""
        if row not in self._blocks:
            from .syntax import languages as parsers

            spans = None
            for lang in parsers.languages_for(self.path):
                spans = parsers.enclosing(lang, self.fi.text.encode(), row)
                if spans is not None:
                    break
            self._blocks[row] = None if spans is None else [(s.start, s.end) for s in spans]
        return self._blocks[row]


def _anchor(lz: _Lazy, i0: int, i1: int, p0: int, p1: int) -> Finding | None:
    """Pair the snippet lines strictly between i0 and i1 with file lines strictly between p0 and p1."""
    s_count: dict[str, int] = {}
    for k in lz.skeys[i0 + 1 : i1]:
        s_count[k] = s_count.get(k, 0) + 1
    f_first: dict[str, int] = {}
    f_count: dict[str, int] = {}
    for p in range(p0 + 1, p1):
        k = lz.keys[p]
        f_count[k] = f_count.get(k, 0) + 1
        f_first.setdefault(k, p)
    found = [
        (i, f_first[k]) for i in range(i0 + 1, i1)
        if not lz.marker[i] and not weak(k := lz.skeys[i]) and s_count[k] == 1 and f_count.get(k) == 1
    ]
    for (ia, pa), (ib, pb) in zip(found, found[1:]):
        if pb < pa:
            return error(
                "not-found", lz.path, pb + 1,
                f"the snippet's lines are not in the order of {lz.path}: {lz.show(ib)} (snippet line {lz.src(ib)}) "
                f"is line {pb + 1} of the file, but the snippet shows it after {lz.show(ia)} (line {pa + 1})",
                "re-read the file and keep the snippet in file order; a new line that repeats a line found "
                "elsewhere in the file reads as an anchor there: show more unchanged lines around it, or send a diff",
            )
    if not found:
        return None
    edges = [(i0, p0)] + found + [(i1, p1)]
    matched: list[tuple[int, int]] = []
    for n in range(1, len(edges) - 1):
        i, p = edges[n]
        lo_i, lo_p = matched[-1] if matched else edges[0]
        hi_i, hi_p = edges[n + 1]
        a, b = i, p
        while a - 1 > lo_i and b - 1 > lo_p and not lz.marker[a - 1] and lz.skeys[a - 1] == lz.keys[b - 1]:
            a, b = a - 1, b - 1
        if a - 1 > lo_i and not lz.marker[a - 1]:
            # New lines come before: a closing line or blank they end with is theirs, not the file's.
            while a < i and weak(lz.skeys[a]):
                a, b = a + 1, b + 1
        c, d = i, p
        while c + 1 < hi_i and d + 1 < hi_p and not lz.marker[c + 1] and lz.skeys[c + 1] == lz.keys[d + 1]:
            c, d = c + 1, d + 1
        if c > i and c + 1 < len(lz.marker) and lz.marker[c + 1]:
            f = _also_further(lz, list(range(i + 1, c + 1)), p + 1, hi_p, forward=True)
            if f is not None:
                return f
        if a < i and a - 1 >= 0 and lz.marker[a - 1]:
            f = _also_further(lz, list(range(a, i)), b, lo_p, forward=False)
            if f is not None:
                return f
        matched += [(a + k, b + k) for k in range(c - a + 1)]
    lz.pairs.update(matched)
    edges = [(i0, p0)] + matched + [(i1, p1)]
    for (ia, pa), (ib, pb) in zip(edges, edges[1:]):
        if any(lz.marker[ia + 1 : ib]):
            f = _anchor(lz, ia, ib, pa, pb)
            if f is not None:
                return f
    return None


def _also_further(lz: _Lazy, part: list[int], at: int, bound: int, forward: bool) -> Finding | None:
    """Context shown between an anchor and a marker, matched next to the anchor (from file line
    `at`), may belong a few lines further off instead, the lines between deleted.  Refuse when
    it does there too, unless it is only blanks and closing lines, or the lines between are
    shallower than it (they would not be deleted silently)."""
    want = [lz.skeys[i] for i in part]
    if all(weak(k) for k in want):
        return None
    t = len(part)
    for shift in range(1, _LAZY_SLACK + t + 1):
        q = at + shift if forward else at - shift
        if (q + t > bound) if forward else (q <= bound):
            break
        if lz.keys[q : q + t] != want:
            continue
        if _drops_quietly(lz, part, *((at, q) if forward else (q + t, at + t))):
            return error(
                "ambiguous", lz.path, q + 1,
                f"the snippet line {lz.show(part[0])} (line {lz.src(part[0])}) next to a marker matches line "
                f"{at + 1} of {lz.path} and line {q + 1} too: are lines "
                f"{min(at, q + t) + 1}-{max(q, at + t)} between them kept or deleted?",
                "show one more unchanged line on the marker's side, one that occurs once in the file",
            )
    return None


def _scope_end(lz: _Lazy, marker: int, after: int, limit: int) -> int | None:
    """The last file line a marker keeps when it follows file line `after`: the end of its block
    (which may lie beyond `limit`, the next anchor).

    None for a marker that no block bounds (at the margin, at the start of the file):
    it keeps everything up to the next anchor.
    """
    width = _width(lz.snippet.lines[marker])
    if after < 0 or width == 0:
        return None
    lines = lz.fi.text.lines
    spans = lz.blocks(after)
    if spans is not None:
        # The innermost construct around the marker that starts at a shallower indent.
        inner = next(((s, e) for s, e in reversed(spans) if _width(lines[s]) < width), None)
        if inner is None:
            return None
        opener, end = _width(lines[inner[0]]), min(inner[1], len(lines) - 1)
    else:
        # No parse: the lines indented deeper than the anchor when the marker is, else at
        # least as deep as the marker.
        base = _width(lines[after])
        least = base + 1 if width > base else width
        opener, end = least - 1, after
        for p in range(after + 1, len(lines)):
            if lines[p].strip():
                if _width(lines[p]) < least:
                    break
                end = p
    # A closing line (`}`, `end`) or blank lines at the block's end are not the marker's.
    while end > after and (not lines[end].strip() or _width(lines[end]) <= opener):
        end -= 1
    return end


@dataclass(frozen=True)
class _Op:
    start: int  # file lines [start, end) become `new` (snippet indexes)
    end: int
    new: tuple[int, ...]


def _nonblank(lz: _Lazy, items: Sequence[int]) -> int:
    return sum(1 for i in items if lz.snippet.lines[i].strip())


def _first_nonblank(texts: Sequence[str], reverse: bool = False) -> str | None:
    for t in (reversed(texts) if reverse else texts):
        if t.strip():
            return t
    return None


def _doubt(lz: _Lazy, piece: Sequence[int], kept: range, kept_before: bool) -> Finding | None:
    """New lines beside a kept stretch: refuse when the line that meets it looks like a changed kept line."""
    if not piece or not len(kept):
        return None
    lines = lz.fi.text.lines
    new = _first_nonblank([lz.snippet.lines[i] for i in piece], reverse=not kept_before)
    old = _first_nonblank([lines[p] for p in kept], reverse=kept_before)
    if new is None or old is None:
        return None
    at = next(p for p in (reversed(kept) if kept_before else kept) if lines[p] == old)
    i = next(i for i in piece if lz.snippet.lines[i] == new)
    if kept_before and _EXITS.match(old) and _width(new) == _width(old) and not _same_head(new, old):
        return error(
            "ambiguous", lz.path, at + 1,
            f"the new line {lz.show(i)} (snippet line {lz.src(i)}) would follow line {at + 1} {lz.file_line(at)}, "
            "which the marker before it keeps and which ends the block: it could never run",
            f"show line {at + 1} in the snippet, after the new lines if they go before it",
        )
    if not _same_head(new, old):
        return None
    return error(
        "ambiguous", lz.path, at + 1,
        f"the new line {lz.show(i)} (snippet line {lz.src(i)}) meets a marker and looks like a changed "
        f"version of line {at + 1} {lz.file_line(at)}, which the marker keeps: does it replace that line or join it?",
        f"show line {at + 1} in the snippet if it stays; if it goes, show the unchanged lines on both sides of it "
        "and leave it out",
    )


def _gap(lz: _Lazy, ia: int, pa: int, ib: int, pb: int, ops: list[_Op]) -> Finding | None:
    """Read the snippet lines between two anchors against the file lines between them."""
    items = list(range(ia + 1, ib))
    n = len(lz.keys)
    at_edge = pa < 0 or pb >= n
    if not any(lz.marker[i] for i in items):
        old_keys = [lz.keys[p] for p in range(pa + 1, pb)]
        new_keys = [lz.skeys[i] for i in items]
        if old_keys == new_keys:
            return None
        lost = sum(1 for k in old_keys if k.strip()) - _nonblank(lz, items)
        allowed = _nonblank(lz, items) if at_edge else max(_LAZY_SLACK, _nonblank(lz, items))
        if lost > allowed:
            first = next(p for p in range(pa + 1, pb) if lz.keys[p].strip())
            if pa < 0 and pb >= n:
                # No line of the snippet anchors it: both edges are the ends of the file.
                where, fix = "(none of its lines is in the file)", "show the unchanged lines around the change, with markers for the rest"
            elif pa < 0:
                where, fix = f"before {lz.show(ib)}, where the snippet starts", "start the snippet with a marker"
            elif pb >= n:
                where, fix = f"after {lz.show(ia)}, where the snippet ends", "end the snippet with a marker"
            else:
                where, fix = f"between {lz.show(ia)} and {lz.show(ib)}", "put a marker where they are"
            return error(
                "placeholder", lz.path, first + 1,
                f"the snippet would delete lines {pa + 2}-{pb} of {lz.path} ({lost} more than it shows) {where}, "
                f"from {lz.file_line(first)} on, without a marker for them",
                f"to keep those lines, {fix}; to delete them, send a diff or a SEARCH/REPLACE edit",
            )
        # Align on the lines as written, so blank lines pair up by their exact whitespace;
        # lines that differ only where the tiers allow keep the file's bytes.
        raw_old = [lz.fi.text.lines[p] for p in range(pa + 1, pb)]
        raw_new = [lz.snippet.lines[i].rstrip("\r") for i in items]
        sm = difflib.SequenceMatcher(None, raw_old, raw_new, autojunk=False)
        for tag, a0, a1, b0, b1 in sm.get_opcodes():
            if tag == "equal" or (a1 - a0 == b1 - b0 and old_keys[a0:a1] == new_keys[b0:b1]):
                continue
            ops.append(_Op(pa + 1 + a0, pa + 1 + a1, tuple(items[b0:b1])))
        return None
    # Pieces of new lines around the markers: pieces[0] before the first, pieces[-1] after the last.
    pieces: list[list[int]] = [[]]
    markers: list[int] = []
    for i in items:
        if lz.marker[i]:
            if pieces[-1] or not markers:
                markers.append(i)
                pieces.append([])
        else:
            pieces[-1].append(i)
    pos = pa + 1
    if pieces[0]:
        # New lines right after the anchor; lines it ends with that the file has next
        # (the blank line before the elided part, say) are context.
        reach = _reach(lz, pieces[0], pos, pb, at_end=True)
        if isinstance(reach, Finding):
            return reach
        q, tail = reach
        new = pieces[0][: len(pieces[0]) - tail]
        if pa < 0 and not tail and pb > 0:
            return _edge(lz, pieces[0], start=True)
        f = _doubt(lz, new, range(q + tail, pb), kept_before=False)
        if f is not None:
            return f
        if new or q > pos:
            ops.append(_Op(pos, q, tuple(new)))
        pos = q + tail
    for k, m in enumerate(markers):
        piece = pieces[k + 1]
        last = k == len(markers) - 1
        if not piece:
            continue  # the last marker keeps everything up to the next anchor
        if not last:
            placed = _block(lz, piece, pos, pb)
            if isinstance(placed, Finding):
                return placed
            if placed is not None:
                q, head, r, tail = placed
                new = piece[head : len(piece) - tail]
                if new or r > q + head:
                    ops.append(_Op(q + head, r, tuple(new)))
                pos = r + tail
                continue
        scope = _scope_end(lz, m, pos - 1, pb - 1)
        if last and scope is not None and _depth(lz, piece) < _width(lz.snippet.lines[m]):
            scope = None  # the new lines are shallower: they come after all the marker keeps
        end = pb - 1 if scope is None else min(scope, pb - 1)
        if end >= pb - 1:
            if not last:
                return _unplaced(lz, piece, markers[k], markers[k + 1], pos, pb)
            # After a block that ends right here, or at the end of the file, a blank line
            # leading the piece is its own.
            at_eof = pb >= len(lz.keys) and ib >= len(lz.snippet.lines)
            solid = not all(weak(lz.skeys[i]) for i in piece)
            if at_eof and scope is None and solid and not lz.skeys[piece[0]].strip():
                # Unless a blank line of the file a few lines before the end could be the
                # one shown, the lines after it being replaced.
                blank = next((q for q in range(max(pos, pb - _LAZY_SLACK - len(piece)), pb)
                              if not lz.keys[q].strip() and _drops_quietly(lz, piece, q + 1, pb)), None)
                if blank is not None:
                    return _edge(lz, piece, start=False)
            reach = _reach(lz, piece, pos, pb, at_end=False, separated=solid and (scope == pb - 1 or at_eof))
            if isinstance(reach, Finding):
                return reach
            q, head = reach
            if scope is None and not head and at_eof and pos < pb and lz.skeys[piece[0]].strip():
                return _edge(lz, piece, start=False)
            new = piece[head:]
            if new or q + head < pb:
                ops.append(_Op(q + head, pb, tuple(new)))
            f = _doubt(lz, new, range(pos, q + head), kept_before=True)
            if f is not None:
                return f
            pos = pb
            continue
        else:
            # The piece goes where the marker's block ends.  Lines it shares with the
            # file there are context: the block's closing `}` when the piece starts with
            # it (a blank line there is the piece's own separator), and closing lines or
            # blank lines when it ends with them.
            at = end + 1
            head = _shared(lz, piece, at, pb)
            tail = _shared(lz, piece[head:], at + head, pb, suffix=True)
            new = piece[head : len(piece) - tail]
            at += head
            resume = at + tail
            present = {lz.keys[p] for p in range(pos, pb)}
            if all(weak(lz.skeys[i]) for i in piece) or _closes_outside(lz.snippet.lines[i] for i in new) or any(
                lz.skeys[i] in present and not weak(lz.skeys[i]) for i in new
            ):
                # Only new code goes where a block ends: blank lines alone say nothing, a
                # closing bracket the file does not have there closes something else, and a
                # line the file has elsewhere may be context from there.
                return _unplaced(lz, piece, m, markers[k + 1] if not last else m, pos, pb)
            rest = [p for p in range(resume, pb) if lz.keys[p].strip()]
            if last and rest:
                return _outside(lz, m, pos, end, rest[0], ib, pb)
        f = _doubt(lz, new, range(pos, at), kept_before=True)
        if f is None and not last:
            f = _doubt(lz, new, range(resume, pb), kept_before=False)
        if f is not None:
            return f
        if new:
            ops.append(_Op(at, at, tuple(new)))
        pos = resume
    return None


def _depth(lz: _Lazy, items: Sequence[int]) -> int:
    return min((_width(lz.snippet.lines[i]) for i in items if lz.skeys[i].strip()), default=0)


def _drops_quietly(lz: _Lazy, shown: Sequence[int], lo: int, hi: int) -> bool:
    """Deleting file lines lo..hi beside the snippet lines `shown` is a reading that stands:
    none of them is shallower than those lines (it would cut into the code around them)."""
    depth = _depth(lz, shown)
    return all(_width(x) >= depth for x in lz.fi.text.lines[lo:hi] if x.strip())


def _block(lz: _Lazy, piece: Sequence[int], lo: int, hi: int) -> tuple[int, int, int, int] | Finding | None:
    """Place a piece between two markers by the context at both its ends, as a block.

    Its lines need not be unique one by one: the piece is (q, head, r, tail) when its
    first `head` lines are the file's at q and its last `tail` at r, the lines between
    replaced (at most as many more than it shows as a marker-free stretch may drop),
    and no other place fits as many of its lines.  Both ends must hold a line that is
    more than a blank or a closing bracket (unless the piece is all context).
    """
    keys = lz.keys
    want = [lz.skeys[i] for i in piece]
    n = len(piece)
    reach = _LAZY_SLACK + n

    def solid(ks: Sequence[str]) -> bool:
        return any(not weak(k) for k in ks)

    fits: list[tuple[int, int, int, int]] = []
    for q in range(lo, hi):
        if keys[q] != want[0]:
            continue
        head = 0
        while head < n and q + head < hi and keys[q + head] == want[head]:
            head += 1
        if not solid(want[:head]):
            continue
        if head == n:
            fits.append((q, head, q + head, 0))
            continue
        for tail in range(n - head, 0, -1):
            end = want[n - tail :]
            if not solid(end):
                continue
            found = [r for r in range(q + head, min(q + head + reach, hi - tail) + 1) if keys[r : r + tail] == end]
            if found:
                fits += [(q, head, r, tail) for r in found]
                break
    if not fits:
        return None
    best = max(h + t for _q, h, _r, t in fits)
    top = [f for f in fits if f[1] + f[3] == best]
    if len(top) > 1:
        # One that would not cut into shallower code may still stand out.
        quiet = [f for f in top if f[2] == f[0] + f[1] or _drops_quietly(lz, piece, f[0] + f[1], f[2])]
        top = quiet if len(quiet) == 1 else top
    if len(top) > 1:
        i = piece[0]
        return error(
            "ambiguous", lz.path, top[0][0] + 1,
            f"the snippet lines {lz.src(piece[0])}-{lz.src(piece[-1])} (from {lz.show(i)}) fit {len(top)} places "
            f"of {lz.path}: lines {', '.join(str(f[0] + 1) for f in top[:10])}",
            "show an unchanged line next to them that occurs once in the file",
        )
    return top[0]


def _reach(lz: _Lazy, piece: Sequence[int], lo: int, hi: int, at_end: bool, separated: bool = False) -> tuple[int, int] | Finding:
    """Context at the marker's end of a piece, which may meet the file a few lines off.

    `at_end`: the piece follows an anchor at `lo`; its last lines may be the file's
    lines at q..q+t for lo <= q <= lo + reach, the lines lo..q being deleted (reach: as
    many lines as a marker-free stretch may drop).
    Otherwise the piece precedes an anchor at `hi`; its first lines may be the file's
    lines at q..q+t ending at most `reach` lines before `hi`.  Returns (q, t), or
    (lo, 0) / (hi, 0) when nothing meets; the longest context wins, and must meet once.
    Closing lines and blanks count only right where the piece is: a few lines off
    they cannot tell a replacement from an addition, and a piece that ends with one
    the file does not have there is refused.
    """
    adjacent = lo if at_end else hi
    reach = _LAZY_SLACK + len(piece)  # as far as a marker-free stretch may drop lines
    for t in range(len(piece), 0, -1):
        part = piece[len(piece) - t :] if at_end else piece[:t]
        want = [lz.skeys[i] for i in part]
        if at_end:
            starts = range(lo, min(lo + reach, hi - t) + 1)
        else:
            starts = range(max(lo, hi - t - reach), hi - t + 1)
            adjacent = hi - t
        hits = [q for q in starts if lz.keys[q : q + t] == want]
        if all(weak(k) for k in want):
            if adjacent not in hits:
                continue
            # Met further off too, the lines between would be replaced: a reading that
            # stands only when they are no shallower than the new lines.
            rest = piece[: len(piece) - t] if at_end else piece[t:]
            others = [
                q for q in hits
                if q != adjacent and _drops_quietly(lz, rest, *((lo, q) if at_end else (q + t, hi)))
            ]
            if others:
                return _weak_context(lz, piece, part, [adjacent, others[0]], adjacent)
            return adjacent, t
        if len(hits) > 1:
            # Several places: one that would not cut into shallower code may still stand out.
            quiet = [q for q in hits if q == adjacent or _drops_quietly(lz, piece, *((lo, q) if at_end else (q + t, hi)))]
            hits = quiet if len(quiet) == 1 else hits
        if len(hits) > 1:
            i = part[0]
            return error(
                "ambiguous", lz.path, hits[0] + 1,
                f"the snippet line {lz.show(i)} (line {lz.src(i)}) matches lines "
                f"{', '.join(str(h + 1) for h in hits)} of {lz.path}, which the merge cannot tell apart",
                "show one more unchanged line next to it, one that occurs once in the file",
            )
        if hits:
            return hits[0], t
    edge = piece[-1] if at_end else piece[0]
    if weak(lz.skeys[edge]) and not (separated and not lz.skeys[edge].strip()):
        near = lo if at_end else hi - 1
        return error(
            "ambiguous", lz.path, near + 1,
            f"the new lines at snippet line {lz.src(piece[0])} {'end' if at_end else 'start'} with "
            f"{lz.show(edge) if lz.skeys[edge].strip() else 'a blank line'} next to a marker, but {lz.path} has "
            f"{lz.file_line(near)} there (line {near + 1}): which lines does the marker keep?",
            "show an unchanged line that occurs once in the file between the new lines and the marker",
        )
    return (lo, 0) if at_end else (hi, 0)


def _weak_context(lz: _Lazy, piece: Sequence[int], part: Sequence[int], hits: list[int], adjacent: int) -> Finding:
    other = next(q for q in hits if q != adjacent)
    i = part[0]
    shown = lz.show(i) if lz.skeys[i].strip() else "blank lines"
    return error(
        "ambiguous", lz.path, other + 1,
        f"the new lines at snippet line {lz.src(piece[0])} meet the file at {shown}, which it has at line "
        f"{adjacent + 1} and again at line {other + 1}: the merge cannot tell whether the lines between are "
        "kept or replaced",
        "show an unchanged line that occurs once in the file next to the new lines (not a blank or a closing bracket)",
    )


def _shared(lz: _Lazy, piece: Sequence[int], at: int, stop: int, suffix: bool = False) -> int:
    """How many lines at the end of `piece` (`suffix`), or non-blank lines at its start, are the
    file's lines from `at` on (before `stop`)."""
    if suffix:
        for t in range(min(len(piece), stop - at), 0, -1):
            if all(lz.skeys[piece[len(piece) - t + j]] == lz.keys[at + j] for j in range(t)):
                return t
        return 0
    n = 0
    while n < len(piece) and at + n < stop and lz.skeys[piece[n]].strip() and lz.skeys[piece[n]] == lz.keys[at + n]:
        n += 1
    return n


def _edge(lz: _Lazy, piece: Sequence[int], start: bool) -> Finding:
    """New lines at an end of the file that nothing there anchors: added, or replacing the end?"""
    n = len(lz.keys)
    at = 0 if start else n - 1
    side, show = ("start", "first") if start else ("end", "last")
    return error(
        "ambiguous", lz.path, at + 1,
        f"the new lines at snippet line {lz.src(piece[0])} go at the {side} of {lz.path} with a marker on their "
        f"other side and no unchanged line of the file next to them: are they added there, or do they replace "
        f"the {show} lines (from {lz.file_line(at)})?",
        f"show the {show} unchanged line(s) of the file next to them"
        + ("" if start else ", or a blank line before them if they are a new block added at the end"),
    )


def _closes_outside(lines: Iterable[str]) -> bool:
    """The lines close a bracket they did not open (strings are not told apart: a rare misjudgement
    only refuses)."""
    depth = 0
    for line in lines:
        for ch in line:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    return True
    return False


def _unplaced(lz: _Lazy, piece: Sequence[int], before: int, after: int, pos: int, pb: int) -> Finding:
    counts = {}
    for i in piece:
        k = lz.skeys[i]
        if k.strip():
            counts[i] = sum(1 for p in range(pos, pb) if lz.keys[p] == k)
    dup = next((i for i, c in counts.items() if c > 1), None)
    first = dup if dup is not None else next(iter(counts), piece[0])
    if dup is not None:
        why = f"{lz.show(dup)} matches {counts[dup]} lines of the file there"
    else:
        why = f"none of its lines is in the file, so nothing anchors {lz.show(first)}"
    return error(
        "ambiguous", lz.path, pos + 1,
        f"the snippet lines {lz.src(piece[0])}-{lz.src(piece[-1])} between the markers at snippet lines "
        f"{lz.src(before)} and {lz.src(after)} could go anywhere in lines {pos + 1}-{pb} of {lz.path}: {why}",
        "show an unchanged line right before or after them that occurs once in the file",
    )


def _outside(lz: _Lazy, marker: int, pos: int, end: int, first: int, ib: int, pb: int) -> Finding:
    block = f"lines {pos + 1}-{end + 1}" if end >= pos else f"nothing after line {pos}"
    if pb >= len(lz.keys) and ib >= len(lz.snippet.lines):
        nxt, fix = "the end of the file", "end the snippet with a marker at the margin to keep them"
    else:
        nxt, fix = f"{lz.show(ib)} (line {pb + 1})", "show them, or put a marker for them at their indentation"
    return error(
        "placeholder", lz.path, first + 1,
        f"the marker at snippet line {lz.src(marker)} stands for the rest of its block ({block}), but "
        f"{lz.file_line(first)} (line {first + 1}) and what follows lie outside that block, before {nxt}, and the "
        "snippet does not show them: merged as written they would be lost or the new lines misplaced",
        fix,
    )


def locate_snippet(fi: _FileIndex, sn: Snippet, tiers: Sequence[str], path: str) -> tuple[list[Splice], list[str], Finding | None]:
    """Merge a lazy snippet into the file: the anchors it shares with the file, markers keep the rest."""
    active = frozenset({"eol"} | ({"trailing-whitespace"} & set(tiers)))
    norm = _norm_fn(active)
    marker = [False] * len(sn.lines)
    for i in sn.markers:
        marker[i] = True
    lz = _Lazy(fi, sn, path, fi.normed(active), [norm(s) for s in sn.lines], marker)
    n = len(lz.keys)
    f = _anchor(lz, -1, len(sn.lines), -1, n)
    if f is not None:
        return [], [], f
    if sn.markers and not lz.pairs and n:
        real = [i for i in range(len(sn.lines)) if not marker[i] and sn.lines[i].strip()]
        if len(real) and all(lz.skeys[i] in fi.positions(active) for i in real):
            first = real[0]
            where = fi.positions(active)[lz.skeys[first]][:10]
            return [], [], error(
                "ambiguous", path, where[0] + 1,
                f"nothing anchors the snippet in {path}: its lines only close blocks or occur several times "
                f"({lz.show(first)} is at line{'s' if len(where) > 1 else ''} {', '.join(str(p + 1) for p in where)})",
                "show unchanged lines around the change that occur once in the file",
            )
    ops: list[_Op] = []
    edges = [(-1, -1)] + sorted(lz.pairs.items()) + [(len(sn.lines), n)]
    for (ia, pa), (ib, pb) in zip(edges, edges[1:]):
        f = _gap(lz, ia, pa, ib, pb, ops)
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


# --------------------------------------------------------------------------- a whole file


def _file_index(text: Text) -> _FileIndex:
    return _FileIndex.of(text)


def locate_changes(text: Text, changes: Sequence[Change], tiers: Sequence[str], path: str, ordered: bool = True) -> Outcome:
    """Locate every change of one file against `text` as it was.

    `ordered` changes (diff hunks, Codex chunks) must appear in file order: each is
    looked for after the previous one, which also narrows what counts as unique.
    """
    fi = _file_index(text)
    out = Outcome()
    lo = 0
    drift = 0
    for ch in changes:
        window = (lo if ordered else 0, len(fi.keys))
        if isinstance(ch, Hunk):
            miscounted = ch.declared_old is not None and (
                ch.declared_old != len(ch.old_lines) or (ch.declared_new is not None and ch.declared_new != len(ch.new_lines))
            )
            if miscounted and "recount" not in tiers:
                out.findings.append(_miscounted(ch, path))
                continue
            sp, rep, f = locate_hunk(fi, ch, tiers, window, path, drift)
            if f is None and sp is None:
                continue
            if f is not None:
                out.findings.append(f)
                continue
            assert sp is not None
            out.splices.append(sp)
            out.repairs += rep
            if miscounted:
                out.repairs.append("recount")
            if ch.old_start is not None and ch.old_lines:
                drift = sp.start - (ch.old_start - 1)
            lo = sp.end
        else:
            # Unordered changes: each is looked for in the whole file.
            note = ""
            if isinstance(ch, Replace):
                sps, rep, f, note = locate_replace(fi, ch, tiers, path)
                if f is not None and f.code == "not-found" and "fuzz" in tiers:
                    sps, rep, f = _replace_by_lines(fi, ch, tiers, path, f)
            elif isinstance(ch, Snippet):
                sps, rep, f = locate_snippet(fi, ch, tiers, path)
            else:
                one, rep, f = locate_range(fi, ch, path)
                sps = [one] if one is not None else []
            if f is not None:
                out.findings.append(f)
                continue
            out.splices += sps
            out.repairs += rep
            if note:
                out.notes.append(note)
    out.findings += _overlaps(out.splices, path)
    return out


def _miscounted(h: Hunk, path: str) -> Finding:
    return error(
        "parse-error", path, h.source_line or None,
        f"the hunk at input line {h.source_line} declares {h.declared_old} old and {h.declared_new} new lines "
        f"but holds {len(h.old_lines)} and {len(h.new_lines)}, and this policy's locate tiers exclude `recount`",
        f"count the lines again: {len(h.old_lines)} old (context and '-') and {len(h.new_lines)} new "
        "(context and '+'), or regenerate the diff",
    )


def _overlaps(splices: list[Splice], path: str) -> list[Finding]:
    found = []
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    for a, b in zip(ordered, ordered[1:]):
        if b.start < a.end or (b.start == a.end and (a.start == a.end or b.start == b.end) and a.start == b.start):
            found.append(
                error(
                    "overlap", path, b.start + 1,
                    f"two edits touch the same lines of {path} ({span(a.start + 1, max(a.end, a.start + 1))} and {span(b.start + 1, max(b.end, b.start + 1))})",
                    "merge them into one edit, or make each edit cover different lines",
                )
            )
    return found


def apply_splices(text: Text, splices: Iterable[Splice]) -> tuple[Text, list[tuple[int, int, int, int]]]:
    """The new text and the changed regions (a0, a1, b0, b1) for the diff."""
    lines: list[str] = []
    eols: list[str] = []
    regions: list[tuple[int, int, int, int]] = []
    pos = 0
    final: bool | None = None
    for sp in sorted(splices, key=lambda s: (s.start, s.end)):
        lines.extend(text.lines[pos:sp.start])
        eols.extend(text.eols[pos:sp.start])
        b0 = len(lines)
        for ln, e in sp.new:
            lines.append(ln)
            eols.append(e)
        regions.append((sp.start, sp.end, b0, len(lines)))
        pos = sp.end
        if sp.final_newline is not None:
            final = sp.final_newline
    lines.extend(text.lines[pos:])
    eols.extend(text.eols[pos:])
    dominant = text.dominant_eol()
    if final is None:
        final = text.final_newline if text.lines else True
    # Only the old last line can lack a terminator; if lines now follow it, it needs one.
    if "" in eols[:-1]:
        for i in range(len(eols) - 1):
            if eols[i] == "":
                eols[i] = dominant
    if eols:
        if not final:
            eols[-1] = ""
        elif eols[-1] == "":
            eols[-1] = dominant
    if text.lines and (not text.final_newline or not final):
        n, m = len(text.lines), len(lines)
        a_s, b_s = (regions[-1][0], regions[-1][2]) if pos == n and regions else (n, m)
        regions.append((max(0, a_s - 1), n, max(0, b_s - 1), m))
    return Text(tuple(lines), tuple(eols), text.bom), _merge_regions(regions)


def _merge_regions(regions: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    out: list[tuple[int, int, int, int]] = []
    for r in sorted(regions):
        if out and r[0] <= out[-1][1]:
            a0, a1, b0, b1 = out[-1]
            out[-1] = (a0, max(a1, r[1]), b0, max(b1, r[3]))
        else:
            out.append(r)
    return out
