"""The forms a hunk is tried in before it is placed, each with the tier it needs.

As written; decoded (``escape``); without stray blank context at its edges
(``recount``); with the space put back that context lines lost (``context-prefix``);
under ``fuzz``, less the context lines the file has nowhere (invented by the model).
A SEARCH/REPLACE-shaped hunk first gets its repeated edges as context (``bare_context``).
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ..model import ADDED, CONTEXT, REMOVED, Hunk, HunkLine
from .index import NORMALISERS, FileIndex, norm_fn, unescape


def hunk_variants(h: Hunk, tiers: Sequence[str]) -> list[tuple[Hunk, list[str]]]:
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
            out.append((h._replace(lines=tuple(lines), old_start=start), ["recount"]))
    return out


def without_invented(h: Hunk, fi: FileIndex) -> Hunk | None:
    """The hunk minus context lines that occur nowhere in the file (invented by the model)."""
    loose = fi.positions(frozenset(NORMALISERS))
    norm = norm_fn(frozenset(NORMALISERS))
    kept = [hl for hl in h.lines if not (hl.tag == CONTEXT and hl.text.strip() and norm(hl.text) not in loose)]
    if len(kept) == len(h.lines) or not any(hl.tag == CONTEXT for hl in kept):
        return None
    # Dropped in front, the line number no longer names the first line: did the
    # invented line stand for a line of the file, or for none?
    start = h.old_start if kept[0] is h.lines[0] else None
    return h._replace(lines=tuple(kept), old_start=start)


class Forms:
    """The forms of a hunk, in the order they are tried: as written, decoded (`escape`), then
    (`recount`) with the space put back that context lines lost (`context-prefix`), each with
    the tier it needs.  The last is made when first reached, and kept: it indexes the file."""

    __slots__ = ("fi", "h", "tiers", "first", "spaced")

    def __init__(self, fi: FileIndex, h: Hunk, tiers: Sequence[str]) -> None:
        self.fi, self.h, self.tiers = fi, h, tiers
        self.first: list[tuple[Hunk, list[str]]] = [(h, [])]
        if "escape" in tiers:
            un = _unescaped(h)
            if un is not None:
                self.first.append((un, ["escape"]))
        self.spaced: list[Hunk | None] = []

    def __iter__(self) -> Iterator[tuple[Hunk, list[str]]]:
        yield from self.first
        if "recount" in self.tiers:
            # Last, and only when the forms before it placed nothing.
            if not self.spaced:
                self.spaced.append(_reprefixed(self.h, self.fi))
            if self.spaced[0] is not None:
                yield self.spaced[0], ["context-prefix"]


def bare_context(h: Hunk) -> Hunk:
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

    lines = ctx(rem[:pre]) + rem[pre : len(rem) - suf] + add[pre : len(add) - suf] + ctx(rem[len(rem) - suf :])
    return h._replace(lines=lines)


def _reprefixed(h: Hunk, fi: FileIndex) -> Hunk | None:
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
    return None if all(a is b for a, b in zip(lines, h.lines)) else h._replace(lines=tuple(lines))


def _unescaped(h: Hunk) -> Hunk | None:
    """The hunk with JSON-style escapes decoded (a literal `\\n` splits a line), or None if that changes nothing."""
    if not any("\\" in hl.text for hl in h.lines) and not any("\\" in a for a in h.anchors):
        return None
    lines: list[HunkLine] = []
    for hl in h.lines:
        cr = "\r" if hl.text.endswith("\r") else ""
        parts = unescape(hl.text[: len(hl.text) - len(cr)]).split("\n")
        lines += [HunkLine(hl.tag, part + cr) for part in parts]
    un = h._replace(lines=tuple(lines), anchors=tuple(unescape(a) for a in h.anchors))
    return None if un == h else un
