"""Comments that look like placeholder markers, found with ``comments.CommentMap``.

Python's Ellipsis, JS spread, Go/C variadics, Rust ``..``, strings, docstrings and
doctests never count as comments; the ``placeholder`` module doc says which comments
are markers, strong or weak.  A line is judged on its own first (``suspect``), and the
file is lexed (``markers``) only for those that could still be markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress, repeat
from operator import contains, or_
from typing import Iterable

from ..model import FileChange
from ..text.lookalikes import fold
from ..text.textfile import NotText, decode
from .base import Blocks, block_of, find_lines
from .comments import CommentMap, Syntax, body, syntax_for
from .phrases import DOC, DOTS_ONLY, MAX_LINE, OPEN_END, SENTENCE, STRONG, judge, vocabulary_lines


@dataclass(frozen=True, slots=True)
class Marker:
    line: int  # 1-based, in the new file
    text: str  # the whole added line
    phrase: str  # the comment body that elides
    strong: bool  # a placeholder by itself; weak ones count only with a shrink or at the end
    replaces: int = 0  # lines of the old text it stands where, that the edit drops
    whole: str = ""  # set for a whole-file write judged as a whole: the finding's message


def _continues_sentence(cmap: CommentMap, i: int) -> bool:
    """The comment line before `i` ends mid-sentence: line `i` is the rest of that prose."""
    if i == 0 or not cmap.comment_only(i - 1):
        return False
    texts = [body(c) for c, _opens in cmap.comments(i - 1)]
    return bool(texts and OPEN_END().search(texts[-1]))


def _neighbours_are_comments(cmap: CommentMap, i: int) -> bool:
    lines = cmap.lines
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines) and not lines[j].strip():
            j += step
        if 0 <= j < len(lines) and cmap.comment_only(j):
            return True
    return False


def candidates(change: FileChange, syntax: Syntax, blocks: Blocks | None = None) -> list[int]:
    """Indexes into change.added of lines worth a closer look."""
    block = block_of(change, blocks)
    texts = block.texts
    found: set[int] = set()
    if syntax.marks:
        # Which lines hold a mark, as one flag per line computed in C (no Python turn per line).
        flags: Iterable[bool] = map(contains, texts, repeat(syntax.marks[0]))
        for mark in syntax.marks[1:]:
            flags = map(or_, flags, map(contains, texts, repeat(mark)))
        mask = list(flags)
        marked = list(compress(range(len(texts)), mask))
        if marked:
            found.update(marked[k] for k in vocabulary_lines(list(compress(texts, mask))))
    if syntax.code:
        # Where `...` may be code (Python, C) only an ellipsis character stands alone for code.
        dots = ("...",) if syntax.bare_ellipsis else ()
        for pos in find_lines(block.text, dots if block.text.isascii() else dots + _ELLIPSIS_CHARS):
            i = block.index(pos)
            if _bare_dots(texts[i], syntax):
                found.add(i)
    return sorted(found)


# The ellipsis characters a line of code may stand alone as (each is a scan of the whole text;
# in a comment ``fold`` reads any of them).
_ELLIPSIS_CHARS = ("…", "⋯", "⋮")
PAIRS = {"[": "]", "(": ")", "{": "}", "<": ">"}  # an opening bracket -> the one that closes it


def _bare_dots(text: str, syntax: Syntax) -> bool:
    """A line of code that is only an ellipsis: `…` (any ellipsis character), which no language has as
    a statement, or, where `...` cannot be code either (``Syntax.bare_ellipsis``), `...`, `[...]`, `(…)`.

    (Python prints `[...]` for a list that holds itself, and doctests show it.)
    """
    bare = text.strip()
    if not bare or len(bare) > 12:
        return False
    if bare[0] in PAIRS and bare[-1] == PAIRS[bare[0]]:
        return syntax.bare_ellipsis and fold(bare[1:-1]).strip() in ("...", ". . .")
    if bare == "...":
        return syntax.bare_ellipsis
    return not bare.isascii() and fold(bare) == "..."


def suspect(text: str, syntax: Syntax) -> str | None:
    """What the added line `text` looks like on its own, taking every comment mark at its word."""
    if len(text) > MAX_LINE:
        return None
    if syntax.code and _bare_dots(text, syntax):
        return DOTS_ONLY
    pos = -1
    while True:
        pos = min((p for p in (text.find(m, pos + 1) for m in syntax.marks) if p != -1), default=-1)
        if pos == -1:
            return None
        comment = text[pos:]
        after = ""
        for open_, close in syntax.block:
            end = comment.find(close, len(open_)) if comment.startswith(open_) else -1
            if end != -1:
                comment, after = comment[: end + len(close)], comment[end + len(close) :]
                break
        only = not text[:pos].strip(" \t{") and not after.strip(" \t}")
        kind = judge(body(comment), only and not comment.startswith(DOC))
        if kind:
            return kind


def markers(change: FileChange, syntax: Syntax, lines: tuple[str, ...], picked: list[tuple[int, str]]) -> list[Marker]:
    """The placeholder markers among `picked` ((line number, text) of added lines), lexing the file."""
    if not picked:
        return []
    upto = picked[-1][0]
    while upto < len(lines) and not lines[upto].strip():
        upto += 1
    cmap = CommentMap(lines, syntax, upto)
    # A bare `...` replacing code deletes it; in a new file it only leaves a stub.
    replaces_code = bool(change.removed)
    found: list[Marker] = []
    for number, text in picked:
        i = number - 1
        if i >= len(lines):
            continue
        only = cmap.comment_only(i)
        kind: str | None = None
        phrase = ""
        for comment, opens in cmap.comments(i):
            if not opens:
                continue  # the middle of a /* ... */ block is prose (or an example in it)
            phrase = body(comment)
            # Doc comments state behaviour ("all other fields are unchanged"): only an
            # ellipsis or brackets make them suspect.
            kind = judge(phrase, only and not comment.lstrip().startswith(DOC))
            if kind:
                break
        if kind is None and syntax.code and _bare_dots(text, syntax):
            kind, phrase, only = DOTS_ONLY, text.strip(), True
        if kind is None:
            continue
        if kind == STRONG:
            strong = True
        elif kind == SENTENCE:
            strong = not _continues_sentence(cmap, i)
        else:
            # Ambiguous evidence: it counts when it sits among code and the edit removes code.
            strong = only and replaces_code and not _neighbours_are_comments(cmap, i)
        found.append(Marker(number, text, phrase, strong))
    return found


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _shrinks(change: FileChange) -> bool:
    if change.before is None or change.after is None:
        return False
    old_n, new_n = line_count(change.before), line_count(change.after)
    return new_n < old_n * 0.5 and old_n - new_n > 20


def file_markers(change: FileChange, exempt: re.Pattern[str] | None, blocks: Blocks | None = None) -> list[Marker]:
    """The placeholder markers in one change's added lines (weak ones only where they can matter)."""
    syntax = syntax_for(change.path)
    picked: list[tuple[int, str]] = []
    weak_matters = bool(change.removed) or _shrinks(change)
    last = last_nonblank(change.after) if change.after is not None and change.before is not None else -1
    for i in candidates(change, syntax, blocks):
        number, text = change.added[i]
        kind = suspect(text, syntax)
        if kind is None or (exempt is not None and exempt.search(text)):
            continue
        if kind in (STRONG, SENTENCE) or weak_matters or number == last:
            picked.append((number, text))
    if not picked or change.after is None:
        return []
    try:
        lines = decode(change.after).lines
    except NotText:
        return []
    return markers(change, syntax, lines, picked)


def last_nonblank(data: bytes) -> int:
    """The number of the last line of `data` that holds more than blanks (ASCII whitespace, what
    ``bytes.strip`` takes off), or 0.  Asked on every edit: two scans in C, no line split."""
    text = data.rstrip()
    return text.count(b"\n") + 1 if text else 0
