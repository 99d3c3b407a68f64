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
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

from .model import ADDED, CONTEXT, REMOVED, Change, Finding, Hunk, HunkLine, LineRange, Replace, error
from .textfile import Text

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
    """Replace file lines [start, end) with `new` ((text, terminator) pairs)."""

    start: int
    end: int
    new: tuple[tuple[str, str], ...]
    source_line: int = 0
    final_newline: bool | None = None  # set when the edit says how the file must end


@dataclass
class Outcome:
    splices: list[Splice] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def _visible(s: str) -> str:
    """Make the invisible visible, so a hint shows *why* two lines differ."""
    out = s.replace("\t", "→").replace("\r", "␍")
    stripped = out.rstrip(" ")
    if len(stripped) != len(out):
        out = stripped + "·" * (len(out) - len(stripped))
    return "".join(ch if ord(ch) < 128 or ch == "→" or ch == "·" or ch == "␍" else f"<U+{ord(ch):04X}>" for ch in out)


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
            f"none of the lines to change occur in {path} (first: {_visible(first)!r}); "
            "re-read the file and copy the lines exactly"
        )
    start, _score = found
    start = max(0, start)
    keys = fi.keys
    lines = []
    first_diff: str | None = None
    for k, line in enumerate(want):
        p = start + k
        actual = keys[p] if 0 <= p < len(keys) else None
        if first_diff is None and actual != line:
            if actual is None:
                first_diff = f"line {p + 1}: the file ends before {_visible(line)!r}"
            else:
                first_diff = f"line {p + 1}: expected {_visible(line)!r}, file has {_visible(actual)!r}"
    lo, hi = max(0, start - 2), min(len(keys), start + len(want) + 2)
    for p in range(lo, hi):
        lines.append(f"{p + 1:>6}| {_visible(keys[p])}")
    hint = "closest region in the file:\n" + "\n".join(lines)
    if first_diff:
        hint = f"first difference at {first_diff}\n" + hint
    return start + 1, hint


def _ambiguous(path: str, fi: _FileIndex, starts: Sequence[int], tier: str, src: int) -> Finding:
    shown = ", ".join(f"{s + 1}" for s in list(starts)[:10])
    lines = "\n".join(f"{s + 1:>6}| {_visible(fi.keys[s]) if s < len(fi.keys) else ''}" for s in list(starts)[:10])
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


def _candidates(fi: _FileIndex, active: frozenset[str], norm_old: Sequence[str], usable: Sequence[int]) -> list[int]:
    """Start positions implied by the rarest usable line of the block."""
    pos = fi.positions(active)
    best: list[int] | None = None
    best_k = 0
    for k in usable:
        occ = pos.get(norm_old[k])
        if occ is None:
            return []
        if best is None or len(occ) < len(best):
            best, best_k = occ, k
    if best is None:
        return []
    return [p - best_k for p in best]


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
        starts = _candidates(fi, active, norm_old, usable)
        allowed_miss = max(1, len([k for k, t in enumerate(block.tags) if t == CONTEXT]) // 3)
    else:
        usable = [k for k in range(size) if norm_old[k].strip()] or list(range(size))
        starts = _candidates(fi, active, norm_old, usable)
        allowed_miss = 0
    found: list[int] = []
    for s in sorted(set(starts)):
        if s < lo or s + size > min(n, hi) or s < 0:
            continue
        if block.at_eof and s + size != n:
            continue
        misses = 0
        ok = True
        for k in range(size):
            if lines[s + k] != norm_old[k]:
                if block.tags[k] == REMOVED or not fuzzy:
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
        if ok and "indent" in active and _indent_shift([fi.keys[s + k] for k in range(size)], block.old) is None:
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


def _tier_sets(tiers: Sequence[str]) -> list[tuple[str, frozenset[str], bool]]:
    """(tier name, active normalisers, fuzzy) for each step, cumulative, exact first."""
    steps: list[tuple[str, frozenset[str], bool]] = [("exact", frozenset(), False)]
    active: set[str] = set()
    for t in tiers:
        if t in _NORMALISERS:
            active.add(t)
            steps.append((t, frozenset(active), False))
    if "fuzz" in tiers:
        steps.append(("fuzz", frozenset(active), True))
    return steps


def _needed(fi: _FileIndex, m: _Match) -> list[str]:
    """Which of the active normalisations this match really needed."""
    need = []
    for t in _NORMALISERS:
        if t not in m.active:
            continue
        fewer = m.active - {t}
        if not _match_at(fi, m.block, fewer, m.start, m.fuzzy):
            need.append(t)
    return need


def _match_at(fi: _FileIndex, block: _Block, active: frozenset[str], s: int, fuzzy: bool) -> bool:
    return s in _match_block(fi, replace(block, hint=None, anchors=()), active, (s, s + len(block.old)), fuzzy)


def _search(
    fi: _FileIndex, block: _Block, tiers: Sequence[str], window: tuple[int, int], path: str, src: int
) -> tuple[_Match | None, Finding | None, str]:
    """Run the tiers: (match, None, tier) or (None, finding, tier)."""
    for name, active, fuzzy in _tier_sets(tiers):
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
            if block.hint is not None and block.hint in starts:
                starts = [block.hint]
            else:
                return None, _ambiguous(path, fi, starts, name, src), name
        return _Match(starts[0], len(block.old), active, fuzzy, block), None, name
    return None, None, ""


# --------------------------------------------------------------------------- hunks


def _hunk_variants(h: Hunk, tiers: Sequence[str]) -> list[tuple[Hunk, list[str]]]:
    """The hunk as written, then (with `recount`) without stray blank context at its edges."""
    out: list[tuple[Hunk, list[str]]] = [(h, [])]
    if "recount" in tiers:
        lines = list(h.lines)
        changed = False
        while lines and lines[-1].tag == CONTEXT and not lines[-1].text.strip():
            lines.pop()
            changed = True
        while lines and lines[0].tag == CONTEXT and not lines[0].text.strip():
            lines.pop(0)
            changed = True
        if changed and any(hl.tag != CONTEXT for hl in lines):
            out.append((replace(h, lines=tuple(lines)), ["recount"]))
    return out


def _without_invented(h: Hunk, fi: _FileIndex) -> Hunk | None:
    """The hunk minus context lines that occur nowhere in the file (invented by the model)."""
    loose = fi.positions(frozenset(_NORMALISERS))
    norm = _norm_fn(frozenset(_NORMALISERS))
    kept = [hl for hl in h.lines if not (hl.tag == CONTEXT and hl.text.strip() and norm(hl.text) not in loose)]
    if len(kept) == len(h.lines) or not any(hl.tag == CONTEXT for hl in kept):
        return None
    return replace(h, lines=tuple(kept))


def _splice_for_hunk(fi: _FileIndex, h: Hunk, m: _Match, shift: tuple[str, str] | None) -> Splice:
    """Build the replacement: context lines from the file, new lines from the edit."""
    t = fi.text
    s = m.start
    new: list[tuple[str, str]] = []
    k = s
    default_eol = t.eols[s] if s < len(t.eols) and t.eols[s] else t.dominant_eol()
    for hl in h.lines:
        if hl.tag == CONTEXT:
            new.append((t.lines[k], t.eols[k]))
            k += 1
        elif hl.tag == REMOVED:
            default_eol = t.eols[k] or default_eol
            k += 1
        else:
            text = hl.text
            if shift is not None:
                text = _reindent(text, shift)
            if text.endswith("\r"):
                # A CRLF line of the edit: CRLF, unless the edit's terminators were off (eol tier).
                new.append((text[:-1], default_eol if "eol" in m.active else "\r\n"))
            else:
                new.append((text, default_eol if "eol" in m.active else "\n"))
    end = k
    final: bool | None = None
    if end == len(t.lines) and h.old_eof_newline != h.new_eof_newline:
        final = h.new_eof_newline
    elif end == len(t.lines) and not h.new_eof_newline:
        final = False
    return Splice(s, end, tuple(new), h.source_line, final)


def locate_hunk(
    fi: _FileIndex, h: Hunk, tiers: Sequence[str], window: tuple[int, int], path: str, drift: int
) -> tuple[Splice | None, list[str], Finding | None]:
    if not h.old_lines:
        return _locate_insertion(fi, h, window, path)
    hint = None if h.old_start is None else h.old_start - 1
    variants = _hunk_variants(h, tiers)
    for variant, extra in variants:
        block = _Block(
            variant.old_lines,
            tuple(hl.tag for hl in variant.lines if hl.tag != ADDED),
            hint,
            variant.at_eof,
            variant.anchors,
        )
        m, finding, tier = _search(fi, block, tiers, window, path, h.source_line)
        if finding is not None and hint is not None and drift:
            # The drift measured by the previous hunk may pick the candidate exactly.
            m2, finding2, _ = _search(fi, replace(block, hint=hint + drift), tiers, window, path, h.source_line)
            if m2 is not None:
                m, finding = m2, None
        if finding is not None:
            return None, [], finding
        if m is None and "fuzz" in tiers:
            stripped = _without_invented(variant, fi)
            if stripped is not None:
                b2 = replace(block, old=stripped.old_lines, tags=tuple(hl.tag for hl in stripped.lines if hl.tag != ADDED))
                m, finding, tier = _search(fi, b2, ("fuzz",) + tuple(tiers), window, path, h.source_line)
                if finding is not None:
                    return None, [], finding
                if m is not None:
                    variant = stripped
                    extra = extra + ["fuzz"]
        if m is None:
            continue
        repairs = list(extra)
        if m.fuzzy:
            repairs.append("fuzz")
        repairs += _needed(fi, m) if m.active else []
        if hint is not None and m.start != hint and "offset" not in repairs:
            repairs.append("offset")
        shift = None
        if "indent" in m.active:
            shift = _indent_shift([fi.keys[m.start + k] for k in range(m.size)], m.block.old)
            if shift == ("", ""):
                shift = None
        return _splice_for_hunk(fi, variant, m, shift), repairs, None
    want = h.old_lines
    line, hint_text = not_found_hint(fi, want, path)
    return None, [], error(
        "not-found",
        path,
        line,
        f"the lines to change (hunk at input line {h.source_line}) are not in {path}",
        hint_text,
    )


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
    """The file as one string, with line start offsets for mapping back."""

    s: str
    starts: list[int]

    def line_col(self, off: int) -> tuple[int, int]:
        ln = bisect.bisect_right(self.starts, off) - 1
        return ln, off - self.starts[ln]


def _flat(fi: _FileIndex, with_cr: bool) -> _Flat:
    parts: list[str] = []
    starts: list[int] = []
    off = 0
    t = fi.text
    for ln, eol in zip(t.lines, t.eols):
        starts.append(off)
        e = eol if with_cr else ("\n" if eol else "")
        parts.append(ln + e)
        off += len(ln) + len(e)
    starts.append(off)
    return _Flat("".join(parts), starts)


def _all_occurrences(hay: str, needle: str) -> list[int]:
    out = []
    i = hay.find(needle)
    while i >= 0:
        out.append(i)
        if len(out) > _MAX_CANDIDATES:
            break
        i = hay.find(needle, i + max(1, len(needle)))
    return out


def _splices_from_spans(fi: _FileIndex, flat: _Flat, spans: list[tuple[int, int]], new: str, eol_mode: bool, src: int) -> list[Splice]:
    t = fi.text
    out = []
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
        out.append(Splice(l0, max(last + 1, l0), tuple(new_lines), src))
    return out


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
    if middle:
        starts = _candidates(fi, active, n_old, middle)
    else:
        starts = [p for p in range(window[0], window[1])]
        if len(starts) > 20000:
            return []
    out = []
    for s in sorted(set(starts)):
        e = s + size - 1
        if s < window[0] or e >= min(window[1], len(lines)):
            continue
        if any(lines[s + k] != n_old[k] for k in range(1, size - 1)):
            continue
        first, last = keys[s], keys[e]
        head = None
        for cut in range(len(first), -1, -1):
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
        if "indent" in active and head == 0 and _indent_shift(keys[s : e + 1], old_lines) is None:
            continue  # indentation that is not one uniform shift would be re-indented wrongly
        out.append((s, head, e, tail))
        if len(out) > _MAX_CANDIDATES:
            break
    return out


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
        note = f"replaced {len(occ)} occurrences in {path}" if r.replace_all else ""
        return _splices_from_spans(fi, flat, spans, r.new, eol_mode, r.source_line), (["eol"] if eol_mode else []), None, note
    # Looser tiers work line by line.
    old_lines = r.old.split("\n")
    if len(old_lines) > 1 and old_lines[-1] == "":
        old_lines.pop()
        ends_with_newline = True
    else:
        ends_with_newline = False
    steps = [(name, act) for name, act, fz in _tier_sets(tiers) if not fz and name != "exact"]
    for name, active in steps:
        if len(old_lines) == 1 and not ends_with_newline:
            found = _single_line_matches(fi, active, old_lines[0])
        else:
            found = _lines_match_partial(fi, active, old_lines, (0, len(fi.keys)))
            if ends_with_newline:
                found = [m for m in found if m[3] == len(fi.keys[m[2]]) or _norm_fn(active)(fi.keys[m[2]][m[3]:]) == ""]
        if not found:
            continue
        if len(found) > 1 and not r.replace_all:
            return [], [], _ambiguous(path, fi, [m[0] for m in found], name, r.source_line), ""
        repairs = [t for t in _NORMALISERS if t in active]
        splices = [_replace_splice(fi, m, r.new, ends_with_newline, active, old_lines, r.source_line) for m in found]
        # Report only the normalisations that mattered for the first match.
        repairs = _needed_replace(fi, found[0], old_lines, active) or repairs
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


def _single_line_matches(fi: _FileIndex, active: frozenset[str], old: str) -> list[tuple[int, int, int, int]]:
    """A one-line fragment inside file lines; only length-preserving normalisation applies mid-line."""
    norm = _norm_fn(active - {"indent", "trailing-whitespace"})
    nold = norm(old)
    out = []
    stripped_old = old.strip(" \t")
    for i, key in enumerate(fi.keys):
        nk = norm(key)
        if len(nk) != len(key):
            if "indent" in active and stripped_old and norm(key.strip(" \t")) == norm(stripped_old):
                lead = len(key) - len(key.lstrip(" \t"))
                out.append((i, lead, i, lead + len(key.strip(" \t"))))
            continue
        j = nk.find(nold) if nold else -1
        while j >= 0:
            out.append((i, j, i, j + len(nold)))
            j = nk.find(nold, j + max(1, len(nold)))
        if not out and "indent" in active and stripped_old and nk.strip(" \t") == norm(stripped_old):
            lead = len(key) - len(key.lstrip(" \t"))
            out.append((i, lead, i, lead + len(key.strip(" \t"))))
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
        new_text = new_text[:-1]
    new_lines = new_text.split("\n") if (new_text or not ends_with_newline) else []
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
    return Splice(s, e + 1, tuple(out), src)


# --------------------------------------------------------------------------- line ranges


def locate_range(fi: _FileIndex, lr: LineRange, path: str) -> tuple[Splice | None, list[str], Finding | None]:
    n = len(fi.keys)
    s, e = lr.start - 1, lr.end  # [s, e)
    eol = fi.text.dominant_eol()
    new = tuple((x[:-1], "\r\n") if x.endswith("\r") else (x, eol) for x in lr.new)
    if lr.expect is None:
        if s < 0 or e > n or e < s:
            return None, [], error("not-found", path, lr.start, f"lines {lr.start}-{lr.end} are outside {path} ({n} lines)", f"{path} has {n} lines")
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
        f"{path} changed since it was read: lines {lr.start}-{lr.end} no longer hold what was read"
        + (f" and that text now occurs {len(starts)} times" if starts else ""),
        "read the file again (git agent-read) and redo the edit against the new lines",
    )


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
            sp, rep, f = locate_hunk(fi, ch, tiers, window, path, drift)
            if f is None and sp is None:
                continue
            if f is not None:
                out.findings.append(f)
                continue
            assert sp is not None
            out.splices.append(sp)
            out.repairs += rep
            if ch.declared_old is not None and (
                ch.declared_old != len(ch.old_lines) or (ch.declared_new is not None and ch.declared_new != len(ch.new_lines))
            ):
                out.repairs.append("recount")
            if ch.old_start is not None and ch.old_lines:
                drift = sp.start - (ch.old_start - 1)
            lo = sp.end
        elif isinstance(ch, Replace):
            sps, rep, f, note = locate_replace(fi, ch, tiers, path)
            if f is not None:
                out.findings.append(f)
                continue
            out.splices += sps
            out.repairs += rep
            if note:
                out.notes.append(note)
        else:
            sp, rep, f = locate_range(fi, ch, path)
            if f is not None:
                out.findings.append(f)
                continue
            assert sp is not None
            out.splices.append(sp)
            out.repairs += rep
    out.findings += _overlaps(out.splices, path)
    return out


def _overlaps(splices: list[Splice], path: str) -> list[Finding]:
    found = []
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    for a, b in zip(ordered, ordered[1:]):
        if b.start < a.end or (b.start == a.end and (a.start == a.end or b.start == b.end) and a.start == b.start):
            found.append(
                error(
                    "overlap", path, b.start + 1,
                    f"two edits touch the same lines of {path} (lines {a.start + 1}-{max(a.end, a.start + 1)} and {b.start + 1}-{max(b.end, b.start + 1)})",
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
