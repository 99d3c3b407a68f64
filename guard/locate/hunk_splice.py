"""The splice a placed hunk makes: context lines from the file, new lines from the edit.

Lines the edit repeats unchanged keep the file's bytes; new lines take the file's
indent (`indent`), quotes and dashes (`unicode`: ``typography``) and line ends.  Placed
under ``fuzz``, or with context lines the file has nowhere, the splice also carries the
edit's own view of the place, for git's merge rule (``locate.rebase``).
"""

from __future__ import annotations

from typing import Sequence

from ..model import CONTEXT, REMOVED, Hunk
from .index import UNICODE, FileIndex, Match, norm_fn, reindent
from .splice import Splice


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
        while hi < len(rem) - lo and hi < len(add) - lo and h.lines[rem[-1 - hi][0]].text == h.lines[add[-1 - hi]].text:
            out[add[-1 - hi]] = rem[-1 - hi][1]
            hi += 1
    return out


def splice_for_hunk(
    fi: FileIndex,
    h: Hunk,
    m: Match,
    shift: tuple[str, str] | None,
    plain: dict[int, str | None] | None = None,
    written: Hunk | None = None,
) -> Splice:
    """Build the replacement: context lines from the file, new lines from the edit (`plain`: unicode tier's map).

    `h` is the hunk as matched; `written`, when given, the hunk as the edit wrote it
    (`h` is it less context lines the file has nowhere).  Under ``fuzz``, or with such
    lines, the splice also records the edit's view of the place (`_edit_view`, `Splice`).
    """
    t = fi.text
    s = m.start
    new: list[tuple[str, str]] = []
    added: dict[int, tuple[str, str]] = {}  # index in h.lines of an added line: what it became
    k = s
    default_eol = t.eols[s] if s < len(t.eols) and t.eols[s] else t.dominant_eol()
    kept = _repeated_lines(h, s)
    eol_tier = "eol" in m.active
    for n, hl in enumerate(h.lines):
        if hl.tag == CONTEXT:
            new.append((t.lines[k], t.eols[k]))
            k += 1
        elif hl.tag == REMOVED:
            default_eol = t.eols[k] or default_eol
            k += 1
        else:
            if n in kept:
                line = (t.lines[kept[n]], t.eols[kept[n]])
            else:
                text = hl.text
                if shift is not None:
                    text = reindent(text, shift)
                if plain is not None:
                    text = text.translate(plain)
                if text.endswith("\r"):
                    # A CRLF line of the edit: CRLF, unless the edit's terminators were off (eol tier).
                    line = (text[:-1], default_eol if eol_tier else "\r\n")
                else:
                    line = (text, default_eol if eol_tier else "\n")
            new.append(line)
            added[n] = line
    end = k
    final: bool | None = None
    if end == len(t.lines) and h.old_eof_newline != h.new_eof_newline:
        final = h.new_eof_newline
    elif end == len(t.lines) and not h.new_eof_newline:
        final = False
    if written is None and not m.fuzzy:
        return Splice(s, end, tuple(new), h.source_line, final)
    view = _edit_view(fi, h, m, shift, written or h, added)
    if view is None:
        return Splice(s, end, tuple(new), h.source_line, final)
    return Splice(s, end, tuple(new), h.source_line, final, *view)


def _edit_view(
    fi: FileIndex,
    h: Hunk,
    m: Match,
    shift: tuple[str, str] | None,
    written: Hunk,
    added: dict[int, tuple[str, str]],
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] | None:
    """The edit's own view of the place a splice replaces, where it differs from the file's:
    (`seen`, the lines there as the edit saw them; `meant`, what the edit makes of them), or
    None when the edit saw every kept line as the file has it.

    `h` is the hunk as matched (`m`), `written` the hunk as the edit wrote it: context lines
    the file has nowhere are in `written` alone.  `added` is what each added line of `h`
    became in the splice."""
    t = fi.text
    k = m.start
    seen: list[tuple[str, str]] = []
    meant: list[tuple[str, str]] = []
    differs = False
    default_eol = t.eols[k] if k < len(t.eols) and t.eols[k] else t.dominant_eol()
    norm = norm_fn(m.active)
    lines = fi.normed(m.active)
    matched = iter(enumerate(h.lines))
    upcoming = next(matched, None)
    for hl in written.lines:
        if upcoming is None or upcoming[1] is not hl:
            # A context line the file has nowhere: the edit saw it here, the file never had it.
            differs = True
            own = (reindent(hl.text, shift) if shift else hl.text).removesuffix("\r")
            seen.append((own, default_eol))
            meant.append((own, default_eol))
            continue
        n = upcoming[0]
        upcoming = next(matched, None)
        if hl.tag == CONTEXT:
            here = (t.lines[k], t.eols[k])
            if m.fuzzy and lines[k] != norm(hl.text):
                differs = True
                here = ((reindent(hl.text, shift) if shift else hl.text).removesuffix("\r"), t.eols[k])
            seen.append(here)
            meant.append(here)
            k += 1
        elif hl.tag == REMOVED:
            default_eol = t.eols[k] or default_eol
            seen.append((t.lines[k], t.eols[k]))
            k += 1
        else:
            meant.append(added[n])
    return (tuple(seen), tuple(meant)) if differs else None


def typography(fi: FileIndex, start: int, size: int, old: Sequence[str]) -> dict[int, str | None] | None:
    """The unicode tier's map for new lines, when the edit had typographic characters the file has not.

    A model that turned the file's quotes and dashes typographic in the lines it
    copied did so in the lines it wrote too; those go back to what the file uses.
    Characters the file's matched lines do have are left alone.
    """
    there = set("".join(fi.keys[start : start + size]))
    edit = set("".join(old))
    if not any(ord(c) in UNICODE and c not in there for c in edit):
        return None
    return {k: v for k, v in UNICODE.items() if chr(k) not in there}
