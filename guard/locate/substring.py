"""Substring replacements (str_replace tools): ``old`` need not start or end at a line boundary.

Exact text first (with CRs or without), then the normalising tiers line by line.
Text that stops or starts mid-line keeps the rest of that line, and new lines that
would move it onto other text are refused as ambiguous.  A text that is not in the
file at all is read once more as whole lines under ``fuzz`` (the lines old and new
share at their edges are its context), so a kept line changed since merges or
conflicts by git's rule.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from ..model import ADDED, CONTEXT, REMOVED, Finding, Hunk, HunkLine, Replace, error
from ..text.textfile import Text
from ..text.wording import quoted
from .hunk import locate_hunk
from .hunk_forms import bare_context
from .hunk_splice import typography
from .index import (
    MAX_CANDIDATES,
    NORMALISERS,
    FileIndex,
    ambiguous,
    candidates,
    indent_shift,
    indent_width,
    norm_fn,
    reindent,
    tier_sets,
    unescape,
)
from .splice import Located, Splice


class _Flat:
    """The file as one string; offsets map back to (line, column) by counting line breaks."""

    __slots__ = ("s", "size")

    def __init__(self, s: str, size: int) -> None:
        self.s = s
        self.size = size  # lines in the file

    def line_col(self, off: int) -> tuple[int, int]:
        if off >= len(self.s):
            return self.size, 0  # the end of the file counts as the start of a line after it
        ln = self.s.count("\n", 0, off)
        return ln, off - (self.s.rfind("\n", 0, off) + 1)


def _flat(fi: FileIndex, with_cr: bool) -> _Flat:
    t = fi.text
    if with_cr or not t.eols.count("\r\n"):
        s = "".join(map(operator.add, t.lines, t.eols))
    else:
        s = "\n".join(t.lines) + ("\n" if t.eols and t.eols[-1] else "")
    return _Flat(s, len(t.lines))


@dataclass(frozen=True, slots=True)
class _Replacing:
    """One text replacement being placed: the file, the edit, the tiers it may use, the path findings name."""

    fi: FileIndex
    r: Replace
    tiers: Sequence[str]
    path: str


@dataclass(frozen=True, slots=True)
class _Cut:
    """Where a match is cut out of the file, on whole lines: from line `first`, keeping `head`
    (the file's text before the match on that line) and `tail` (after it on its last line);
    `ends`: the matched text ends with a line break."""

    first: int
    head: str
    tail: str
    ends: bool


def _all_occurrences(hay: str, needle: str) -> list[int]:
    out = []
    i = hay.find(needle)
    while i >= 0:
        out.append(i)
        if len(out) > MAX_CANDIDATES:
            break
        i = hay.find(needle, i + max(1, len(needle)))
    return out


def _splices_from_spans(
    p: _Replacing, flat: _Flat, spans: list[tuple[int, int]], old: str, eol_mode: bool
) -> tuple[list[Splice], bool]:
    """The splices for exact matches of `old`, which `p`'s new text replaces, and whether the new
    text was shifted (`indent`); `eol_mode`: its new lines take the file's line ends.

    Text that starts right after a line's indent, and has nothing but blank lines
    after its first, was copied without that indent: its new lines get it too (and
    a deleted line goes whole, not leaving its indent behind).
    """
    t = p.fi.text
    new, src, indent = p.r.new, p.r.source_line, "indent" in p.tiers
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
        _keep_repeated(t, _Cut(l0, head, tail, c1 == 0 and b > a and l1 > l0), new_lines, old, body)
        out.append(Splice(l0, max(last + 1, l0), tuple(new_lines), src))
    return out, shifted


def _keep_repeated(t: Text, cut: _Cut, new_lines: list[tuple[str, str]], old: str, body: str) -> None:
    """Whole lines the text repeats unchanged at its start and end keep the file's bytes.

    Blanks after the match on its last line belong to that line: when it is kept,
    they stay with it rather than moving to the end of the new text.
    """
    l0, head, tail, ends = cut.first, cut.head, cut.tail, cut.ends
    o, n = old.replace("\r\n", "\n").split("\n"), body.split("\n")
    if ends and o[-1] == "":
        o.pop()
        if n and n[-1] == "":
            n.pop()
    blank_tail = not tail.strip(" \t\r")
    if len(n) != len(new_lines) or (len(o) < 2 and (head or not tail or not blank_tail)):
        return  # (one line whose match runs to blanks at its end keeps them, as a longer text does)
    kept = {
        i: k
        for i, k in _repeated(o, n).items()
        if (k > 0 or not head) and (k < len(o) - 1 or ends or blank_tail) and l0 + k < len(t.lines)
    }
    for i, k in kept.items():
        new_lines[i] = (t.lines[l0 + k], t.eols[l0 + k] or new_lines[i][1])
    last = len(new_lines) - 1
    if tail and blank_tail and len(o) - 1 in kept.values() and last not in kept:
        text_, e = new_lines[last]
        new_lines[last] = (text_[: len(text_) - len(tail)] if text_.endswith(tail) else text_, e)


def _head_cut(first: str, old: str, n_old: str, norm: Callable[[str], str]) -> int | None:
    """Where in file line `first` the text's first line `old` (normalised: `n_old`) starts.

    Text that starts with blanks was copied from the start of the line: the longest
    suffix that matches, so the line's indent is the text's (and shifts with it).
    Otherwise it starts mid-line: the shortest.
    """
    copied = old[:1] in (" ", "\t")
    for cut in range(len(first) + 1) if copied else range(len(first), -1, -1):
        if copied and first[:cut].strip(" \t"):
            return None  # copied from the line's start, it may differ there in blanks only, never start mid-line
        if norm(first[cut:]) == n_old and (cut == 0 or n_old):
            return cut
    return None


def _lines_match_partial(
    fi: FileIndex, active: frozenset[str], old_lines: list[str], window: tuple[int, int]
) -> list[tuple[int, int, int, int]]:
    """Matches of a multi-line `old` whose first line may be a suffix and last a prefix of a file line.

    Returns (first line, head length kept, last line, tail offset kept) per match.
    """
    norm = norm_fn(active)
    lines = fi.normed(active)
    keys = fi.keys
    n_old = [norm(x) for x in old_lines]
    size = len(old_lines)
    middle = [k for k in range(1, size - 1) if n_old[k].strip()]
    starts: Iterable[int]
    if middle:
        starts = candidates(fi, active, n_old, middle, window)
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
        head = _head_cut(first, old_lines[0], n_old[0], norm)
        if head is None:
            continue
        tail = next((cut for cut in range(0, len(last) + 1) if norm(last[:cut]) == n_old[-1]), None)
        if tail is None:
            continue
        if "trailing-whitespace" in active and n_old[-1] and not last[tail:].strip(" \t\r"):
            # Only blanks follow: the text ran to the end of the line, without them.
            tail = len(last) - last.endswith("\r")
        if "indent" in active and head == 0 and indent_shift(keys[s : e + 1], old_lines) is None:
            continue  # indentation that is not one uniform shift would be re-indented wrongly
        out.append((s, head, e, tail))
        if len(out) > MAX_CANDIDATES:
            break
    return out


def _splits_line(fi: FileIndex, flat: _Flat, spans: list[tuple[int, int]], old: str, new: str, path: str) -> Finding | None:
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
            "ambiguous",
            path,
            line + 1,
            f"the text to replace {where} line {line + 1}, which also has {quoted(part.strip())!r}: "
            "the new lines could go on either side of it",
            f"line {line + 1} is {quoted(fi.text.lines[line])!r}; {what}, or give whole lines",
        )
    return None


_Placed = tuple[list[Splice], list[str], Finding | None, str]  # splices, repairs, finding, note


def _place_replace(p: _Replacing) -> _Placed:
    """Locate a substring replacement; returns (splices, repairs, finding, note).

    The passes, strictest first: the text exactly, then with the file's CRs set aside
    (`_as_text`); line by line through the normalising tiers (`_by_lines`); decoded
    (`_decoded`).  The first that finds the text, or refuses it, decides.
    """
    fi, r, path = p.fi, p.r, p.path
    if r.old == "":
        return (
            [],
            [],
            error("parse-error", path, r.source_line, "the text to replace is empty", "use a whole-file write to create content"),
            "",
        )
    placed = _as_text(p) or _by_lines(p) or _decoded(p)
    if placed is not None:
        return placed
    from .hints import not_found_hint  # here: only a failure needs the closest lines

    line, hint = not_found_hint(fi, _old_lines(r.old)[0], path)
    return [], [], error("not-found", path, line, f"the text to replace is not in {path}", hint), ""


def _as_text(p: _Replacing) -> _Placed | None:
    """The text found as it is: exactly, else (`eol`) with the file's CRs set aside."""
    fi, r, tiers = p.fi, p.r, p.tiers
    for eol_mode in (False, True) if "eol" in tiers else (False,):
        flat = _flat(fi, not eol_mode)
        old = r.old if not eol_mode else r.old.replace("\r\n", "\n")
        occ = _all_occurrences(flat.s, old)
        if occ:
            return _text_found(p, flat, old, occ, eol_mode)
    return None


def _text_found(p: _Replacing, flat: _Flat, old: str, occ: list[int], eol_mode: bool) -> _Placed:
    """The splices for `old`, found as text at offsets `occ` of `flat`; refused when found more
    than once (unless all are replaced), or next to the rest of a line it cuts."""
    fi, r, tiers, path = p.fi, p.r, p.tiers, p.path
    if len(occ) > 1 and not r.replace_all:
        starts = [flat.line_col(o)[0] for o in occ]
        return [], [], ambiguous(path, fi, starts, "eol" if eol_mode else "exact", r.source_line), ""
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
    splices, shifted = _splices_from_spans(p, flat, spans, old, adopt)
    if shifted and not r.replace_all:
        # Found inside a deeper line's indent: as for the indent tier, a line much like
        # the text at its own indent is the place meant, changed since it was read.
        from .likeness import lookalike  # here, as below: only an indented find asks

        lines = r.old.split("\n")
        rivals = set(lookalike(fi, [x for x in lines if x.strip()], (0, len(fi.keys)))) - {at}
        if rivals:
            return [], [], ambiguous(path, fi, sorted(rivals | {at}), "indent", r.source_line), ""
    return splices, repairs + (["indent"] if shifted else []), None, note


def _old_lines(old: str) -> tuple[list[str], bool]:
    """The text to replace as lines, and whether it ends with a line break."""
    old_lines = old.split("\n")
    if len(old_lines) > 1 and old_lines[-1] == "":
        old_lines.pop()
        return old_lines, True
    return old_lines, False


def _line_matches(
    fi: FileIndex, active: frozenset[str], old_lines: list[str], ends_with_newline: bool
) -> list[tuple[int, int, int, int]]:
    """Where the lines of the text are, under the normalisations `active`."""
    if len(old_lines) == 1 and not ends_with_newline:
        return _single_line_matches(fi, active, old_lines[0])
    found = _lines_match_partial(fi, active, old_lines, (0, len(fi.keys)))
    if ends_with_newline:
        found = [m for m in found if m[3] == len(fi.keys[m[2]]) or norm_fn(active)(fi.keys[m[2]][m[3] :]) == ""]
    return found


def _by_lines(p: _Replacing) -> _Placed | None:
    """The looser tiers work line by line, each set of normalisations in turn."""
    fi, r, tiers, path = p.fi, p.r, p.tiers, p.path
    old_lines, ends_with_newline = _old_lines(r.old)
    steps = [(name, act) for name, act, fz in tier_sets(tiers) if not fz and name != "exact"]
    for name, active in steps:
        found = _line_matches(fi, active, old_lines, ends_with_newline)
        shown = [k for k, x in enumerate(old_lines) if x.strip()]
        if "indent" in active and len(shown) == 1 and old_lines[shown[0]][:1] in (" ", "\t"):
            # One line, indented more than a step away from where it is found: a line the
            # model placed elsewhere, or whose own copy changed; no shape confirms it.
            k = shown[0]
            found = [m for m in found if abs(indent_width(old_lines[k]) - indent_width(fi.keys[m[0] + k])) <= 4]
        if not found:
            continue
        if len(found) > 1 and not r.replace_all:
            return [], [], ambiguous(path, fi, [m[0] for m in found], name, r.source_line), ""
        repairs = [t for t in NORMALISERS if t in active]
        # Report only the normalisations that mattered for the first match.
        repairs = _needed_replace(fi, found[0], old_lines, active) or repairs
        if "indent" in repairs and not r.replace_all:
            f = _indent_rivals(p, found[0][0], old_lines, ends_with_newline, name)
            if f is not None:
                return [], [], f, ""
        splices = [_replace_splice(fi, m, r.new, ends_with_newline, active, old_lines, r.source_line) for m in found]
        note = f"replaced {len(found)} occurrences in {path}" if r.replace_all else ""
        return splices, repairs, None, note
    return None


def _indent_rivals(p: _Replacing, at: int, old_lines: list[str], ends_with_newline: bool, name: str) -> Finding | None:
    """Found (at file line `at`) only at another indent, the text may be a copy of the one
    meant, which differs a little where it is (a typographic character, say): a second place."""
    from .likeness import lookalike

    fi, tiers = p.fi, p.tiers

    rivals = {
        m[0]
        for m in _line_matches(
            fi, frozenset(t for t in tiers if t in NORMALISERS and t != "indent"), old_lines, ends_with_newline
        )
    }
    rivals |= set(lookalike(fi, old_lines, (0, len(fi.keys))))
    if rivals - {at}:
        return ambiguous(p.path, fi, sorted(rivals | {at}), name, p.r.source_line)
    return None


def _decoded(p: _Replacing) -> _Placed | None:
    """The text and its replacement with JSON-style escapes decoded (`escape`), through the
    passes before this one; None when decoding changes nothing or the text is still not found."""
    r, tiers = p.r, p.tiers
    if "escape" in tiers and "\\" in r.old:
        un = Replace(unescape(r.old), unescape(r.new), r.replace_all, r.source_line)
        if un.old != r.old:
            sp, rep, f, note = _place_replace(replace(p, r=un, tiers=[t for t in tiers if t != "escape"]))
            if f is None or f.code == "ambiguous":
                return sp, (rep + ["escape"]) if f is None else [], f, note
    return None


def replace_by_lines(fi: FileIndex, r: Replace, tiers: Sequence[str], path: str, missing: Finding) -> Located:
    """A text to replace that is not in the file, read as whole lines under ``fuzz``.

    The lines the old and new text share at their edges are its context, as in a
    SEARCH/REPLACE block: one of them misremembered, or changed since, is placed by
    the rest and merged by git's rule.  Text that is not whole lines never matches.
    """
    old, new = r.old.split("\n"), r.new.split("\n")
    if r.replace_all or (old[-1] == "") != (new[-1] == "") or len(old) < 2:
        return Located.refusing(missing)
    if old[-1] == "":
        old.pop()
        if new and new[-1] == "":
            new.pop()
    lines = tuple(HunkLine(REMOVED, x) for x in old) + tuple(HunkLine(ADDED, x) for x in new)
    h = bare_context(Hunk(lines, source_line=r.source_line))
    if not any(hl.tag == CONTEXT for hl in h.lines):
        return Located.refusing(missing)
    got = locate_hunk(fi, h, tiers, (0, len(fi.keys)), path, 0)
    if got.findings and got.findings[0].code == "ambiguous":
        return got
    if not got.splices or got.findings or "fuzz" not in got.repairs:
        return Located.refusing(missing)
    return got


def _single_line_matches(fi: FileIndex, active: frozenset[str], old: str) -> list[tuple[int, int, int, int]]:
    """A one-line fragment inside file lines; only length-preserving normalisation applies mid-line.

    With `indent`, a fragment that equals a whole line but for blanks at its ends is
    that whole line: from the line's start when the fragment starts with blanks (it
    was copied from there, and its indent is the one to shift), to the line's end.
    """
    norm = norm_fn(active - {"indent", "trailing-whitespace"})
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
        if len(out) > MAX_CANDIDATES:
            break
    return out


def _needed_replace(fi: FileIndex, m: tuple[int, int, int, int], old_lines: list[str], active: frozenset[str]) -> list[str]:
    need = []
    for t in NORMALISERS:
        if t not in active:
            continue
        fewer = active - {t}
        norm = norm_fn(fewer)
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
    fi: FileIndex,
    m: tuple[int, int, int, int],
    new: str,
    ends_with_newline: bool,
    active: frozenset[str],
    old_lines: list[str],
    src: int,
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
    kept = {
        i: k for i, k in _repeated(old_lines, new_lines).items() if (k > 0 or head == 0) and (k < len(old_lines) - 1 or tail_full)
    }
    if "unicode" in active:
        plain = typography(fi, s, e - s + 1, old_lines)
        if plain is not None:
            new_lines = [x.translate(plain) for x in new_lines]
    if "indent" in active:
        shift = indent_shift([fi.keys[s + k] for k in range(e - s + 1)], old_lines)
        if shift and shift != ("", "") and (head == 0 or not prefix.strip()):
            new_lines = [reindent(x, shift) for x in new_lines]
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


def locate_replace(fi: FileIndex, r: Replace, tiers: Sequence[str], path: str) -> Located:
    """Where one substring replacement goes (every occurrence with ``replace_all``)."""
    splices, repairs, finding, note = _place_replace(_Replacing(fi, r, tiers, path))
    if finding is not None:
        if finding.code == "not-found" and "fuzz" in tiers:
            return replace_by_lines(fi, r, tiers, path, finding)
        return Located.refusing(finding)
    return Located(tuple(splices), tuple(repairs), (note,) if note else ())
