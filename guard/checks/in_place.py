"""Elision judged by what the edit does: a phrase or a note standing where the edit drops lines.

Wherever the phrase stands (code, comment, doc comment, docstring, string), and in any
wording ``notes`` reads; the ``placeholder`` module doc has the rule.  A whole-file write
that shrinks the file is judged on every line it adds, and on how it ends.
"""

from __future__ import annotations

import re

from ..model import FileChange
from ..text.lookalikes import fold
from ..text.regex import lazy
from ..text.textfile import NotText, decode
from ..tree.diffs import ChangedLines, changed_lines
from . import notes
from .base import Blocks, block_of, quote
from .comments import OPEN_MARK, Syntax, body, syntax_for
from .markers import PAIRS, Marker, last_nonblank, line_count, suspect
from .phrases import DOC, DOTS, MAX_LINE, NOTE_NEEDLES, OPEN_END, SENTENCE, STRONG, TWO_WORDS, big, judge, vocabulary_lines

# Around a line of prose: comment markers (``body``), then string quotes and docstring delimiters.
_QUOTES = "\"'`"
# An elision phrase inside a line, wrapped in an ellipsis or in brackets (bounded: linear).
_WRAPPED = lazy(r"(?:\.{3}|…)[ \t]*([^.…\n]{1,80}?)[ \t]*(?:\.{3}|…)|[\[(<{][ \t]*([^\[\]()<>{}\n]{1,80}?)[ \t]*[\])>}]")


_ELIDES = lazy(
    r"\b(?:existing|rest|remaining|remainder|unchanged|omitted|elided|previous|prior|original|same|snip(?:ped)?"
    r"|keep|kept|as\s+(?:before|is|it\s+was)|untouched|intact|truncated|here)\b",
    re.IGNORECASE,
)


def _core(text: str) -> str:
    """The prose of a line: without comment markers, string quotes or docstring delimiters around it."""
    inner = body(text).strip(_QUOTES + " \t,;")
    return body(inner).strip(_QUOTES + " \t,;") if inner else inner


def elision(text: str) -> tuple[str, str] | None:
    """A strong elision phrase anywhere in `text`: (STRONG or SENTENCE, the phrase), or None."""
    if len(text) > MAX_LINE:
        return None
    core = _core(text)
    plain = fold(core)
    kind = judge(plain, True)
    # Outside a comment a lone word is code (`f(rest)`, `{...existing}`, JS spread), and
    # prose lists trail off (`... other option types...`): a phrase is two words at least,
    # one of which says the text is left out or kept as it was.
    if kind in (STRONG, SENTENCE) and TWO_WORDS().search(plain) and _ELIDES().search(plain):
        return kind, core
    tight = big("TIGHT")
    for m in _WRAPPED().finditer(fold(text)):
        inner = (m.group(1) or m.group(2) or "").strip(" ()[]<>{}.:;,")
        if inner and TWO_WORDS().search(inner) and _ELIDES().search(inner) and tight.fullmatch(inner):
            return STRONG, m.group(0)
    return None


def regions_of(change: FileChange, lines: list[ChangedLines] | None = None) -> dict[int, list[str]]:
    """For each added line number, the old lines removed where it stands (its changed region;
    `lines`: the change's ``changed_lines``, when the caller has them)."""
    out: dict[int, list[str]] = {}
    for region in changed_lines(change) if lines is None else lines:
        gone = [t for _n, t in region.removed]
        for n, _t in region.added:
            out[n] = gone
    return out


def _suspects(change: FileChange, blocks: Blocks | None, scope: list[int] | None) -> list[int]:
    """Indexes into change.added of every line holding an ellipsis or a trigger word (of a phrase or
    of a note), among the lines `scope` (None: all)."""
    texts = block_of(change, blocks).texts
    if scope is None:
        return vocabulary_lines(texts, NOTE_NEEDLES)
    return [scope[k] for k in vocabulary_lines([texts[i] for i in scope], NOTE_NEEDLES)]


def _prose_sentence(lines: tuple[str, ...], number: int, core: str, added: set[int]) -> bool:
    """A bare phrase that reads as documentation: it ends a sentence, or continues one the edit writes."""
    return core.rstrip().endswith((".", "!", "?")) or _continues_written(lines, number, added)


def _continues_written(lines: tuple[str, ...], number: int, added: set[int]) -> bool:
    """Line `number` goes on with a sentence the line above leaves open, a line the edit writes.

    (A sentence the line above leaves open, and the edit did not write, is not the
    phrase's: the phrase stands where the lines that went on with it were.)
    """
    prev = number - 2
    while prev >= 0 and not lines[prev].strip():
        prev -= 1
    return prev >= 0 and prev + 1 in added and bool(OPEN_END().search(_core(lines[prev])))


def in_place(
    change: FileChange,
    exempt: re.Pattern[str] | None,
    known: set[int],
    blocks: Blocks | None = None,
    changed: list[ChangedLines] | None = None,
) -> list[Marker]:
    """Elision judged by what the edit does: a phrase standing where the edit drops old lines.

    A whole-file write that shrinks the file is judged on every line it adds, and on
    how it ends (see the module doc).  `known`: lines already found as markers.
    """
    if change.after is None or not (change.removed or change.whole):
        return []
    shrinks = change.whole and change.before is not None and line_count(change.after) < line_count(change.before)
    regions = regions_of(change, changed) if change.removed else {}
    # Only a line that stands where old lines go can stand for them (in a whole-file write
    # that shrinks the file, any line may).
    scope = None if shrinks else [i for i, (n, _t) in enumerate(change.added) if regions.get(n)]
    picked = [i for i in _suspects(change, blocks, scope) if change.added[i][0] not in known]
    if not picked and not shrinks:
        return []
    new_lines = _NewLines(change.after)
    kept = {norm(t) for _n, t in change.added}
    numbers = {n for n, _t in change.added}
    syntax = syntax_for(change.path)
    found: list[Marker] = []
    try:
        for i in picked:
            number, text = change.added[i]
            if exempt is not None and exempt.search(text):
                continue
            got = _phrase_here(text, syntax, new_lines, number, numbers)
            if got is None:
                continue
            kind, phrase = got
            lines = new_lines()
            lost = [t for t in regions.get(number, ()) if t.strip() and norm(t) not in kept]
            if kind == notes.BARE and (not lost or not _alone(lines, number, numbers, regions) or _heads(lines, number)):
                continue
            if lost:
                found.append(Marker(number, text, phrase, True, len(lost)))
            elif shrinks:
                found.append(Marker(number, text, phrase, True, whole=_shrunk(change, f"holds {quote(text)} ({phrase!r})")))
        if shrinks and not found:
            found += _ends_trailing_off(change, new_lines(), exempt, known)
    except NotText:
        return []
    return found


class _NewLines:
    """A change's new lines, decoded when first asked for (``NotText`` as ``decode``): only a line
    that is a phrase or a note on its own needs the lines around it, and most lines a trigger
    word picks are neither; decoding the file is most of what judging them would cost."""

    __slots__ = ("after", "lines")

    def __init__(self, after: bytes) -> None:
        self.after = after
        self.lines: tuple[str, ...] | None = None

    def __call__(self) -> tuple[str, ...]:
        if self.lines is None:
            self.lines = decode(self.after).lines
        return self.lines


def _phrase_here(text: str, syntax: Syntax, new_lines: _NewLines, number: int, numbers: set[int]) -> tuple[str, str] | None:
    """(kind, phrase) when the added line `number`, `text`, is an elision phrase or a note that
    says code is left out, judged with the lines around it; else None."""
    got = elision(text)
    said = _note_says(text, syntax) if got is None else None
    if got is None and said is None:
        return None
    lines = new_lines()
    if number - 1 >= len(lines):
        return None
    if said is not None:
        return _noted(said, lines, number, numbers)
    assert got is not None
    if got[0] == SENTENCE and _prose_sentence(lines, number, _core(text), numbers):
        return None
    return got


def _ends_trailing_off(
    change: FileChange, lines: tuple[str, ...], exempt: re.Pattern[str] | None, known: set[int]
) -> list[Marker]:
    """A whole-file write that shrinks the file and ends on a line that trails off (``_trails_off``)."""
    assert change.after is not None
    last = last_nonblank(change.after)
    if 0 < last <= len(lines) and not (exempt is not None and exempt.search(lines[last - 1])):
        text = lines[last - 1]
        if last not in known and _trails_off(text, change.path):
            return [Marker(last, text, _core(text) or text.strip(), True, whole=_shrunk(change, f"ends with {quote(text)}"))]
    return []


# Code, not words: an assignment, a call or an index, a statement's end, a path, a string (a quote
# that is not an apostrophe), a logical operator, an operator between blanks, a scope or an arrow.
_CODEISH = lazy(
    r"""[=;$@\\/"]|&&|\|\||\w\((?!\))|\w\[|[)\]][(\[]|[)\]]\.\w|::|->| [*+%<>] """
    r"""|(?<![^\W\d_])'|'(?![^\W\d_])"""
)
_DELIMITERS = ('"""', "'''", "`")


def _note(text: str, syntax: Syntax) -> tuple[str, bool, int] | None:
    """The note an added line is, if it is one: (its text, prose, the words it needs), or None.

    A note is a comment-only line (its text without the comment marks); a line of prose
    in a docstring, a block comment or a doc comment (prose: a sentence there is
    documentation); or a note in brackets or an ellipsis standing among code
    (``[lines 2-4 unchanged]``).  It holds no code (``_CODEISH``), and its brackets pair.
    A note that is not a comment needs two words: a lone word outside a comment is code
    (``...rest``, ``del other``).
    """
    line = text.strip()
    if not line or len(line) > MAX_LINE:
        return None
    comment = line[1:].lstrip() if line.startswith("{") and line.endswith("}") else line  # JSX `{/* ... */}`
    if syntax.marks and comment.startswith(syntax.marks) and not comment.startswith("*/"):
        for open_, close in syntax.block:
            end = comment.find(close, len(open_)) if comment.startswith(open_) else -1
            if end != -1 and comment[end + len(close) :].strip(" \t}"):
                return None  # `/* ... */ code()`: the comment explains the code after it
        note = body(comment)
        if _CODEISH().search(note) or not _balanced(note):
            return None
        return note, comment.startswith(DOC), 1
    written = line
    for q in _DELIMITERS:  # a docstring on one line, or the end of one
        written = written.removeprefix(q).removesuffix(q)
    written = OPEN_MARK().sub("", written, count=1)  # a line inside a block comment, another language's comment
    core = _core(line)
    # In brackets, or between two ellipses (prose trails off with one: `... defined above...`).
    wrapped = bool(core) and (
        core[0] in PAIRS and core[-1] == PAIRS[core[0]] or core.startswith(("...", "…")) and core.endswith(("...", "…"))
    )
    prose = syntax.code and bool(syntax.triple or syntax.spanning or syntax.block)
    if not core or not (wrapped or prose) or _CODEISH().search(written) or not _balanced(core):
        return None
    return core, not wrapped, 2


def _balanced(text: str) -> bool:
    """Every bracket in `text` closes one it opened, in order (`(s1, other))` is the end of a call)."""
    opened: list[str] = []
    for c in text:
        if c in PAIRS:
            opened.append(PAIRS[c])
        elif c in ")]}>":
            if not opened or opened.pop() != c:
                return False
    return not opened


def _note_says(text: str, syntax: Syntax) -> tuple[str, str, bool] | None:
    """(FIRM or BARE, the note, whether it is prose) when the added line `text` is, on its own, a
    note that says code is left out (``notes``); ``_noted`` then reads the lines around it."""
    found = _note(text, syntax)
    if found is None:
        return None
    note, prose, words = found
    kind = notes.elides(note, words)
    if kind is None or note.rstrip().endswith((",", "-", "—")):
        return None  # the sentence goes on on the next line
    return kind, note, prose


def _noted(said: tuple[str, str, bool], lines: tuple[str, ...], number: int, added: set[int]) -> tuple[str, str] | None:
    """(FIRM or BARE, the note) when the note line `number` says (``_note_says``) stands for code
    left out, given the lines around it.

    In prose (a docstring, a doc comment) only a FIRM note counts, standing alone: a line
    of a paragraph, or one that ends a sentence, is documentation.  A comment that goes
    on with a sentence the edit writes on the line above is prose too.
    """
    kind, note, prose = said
    if prose and (kind != notes.FIRM or _in_paragraph(lines, number) or _prose_sentence(lines, number, note, added)):
        return None
    if not prose and _continues_written(lines, number, added):
        return None
    return kind, note


def _in_paragraph(lines: tuple[str, ...], number: int) -> bool:
    """The line of prose `number` is part of a paragraph: the line after it is prose too, or the
    line before it leaves its sentence open.  (A note standing for code stands alone.)"""
    after = lines[number].strip() if number < len(lines) else ""
    before = lines[number - 2].strip() if number >= 2 else ""
    if any(c.isalpha() for c in after):
        return True
    return any(c.isalpha() for c in before) and not before.rstrip("\"'` ").endswith((".", "!", "?", ":"))


def _alone(lines: tuple[str, ...], number: int, added: set[int], regions: dict[int, list[str]]) -> bool:
    """The added line `number` is all the edit writes where it stands: every other line it adds in that
    changed region is blank or only closes something (``}``, ``);``).  A note that says little
    (``notes.BARE``: ``# same as above``, ``# existing code``) stands for the old lines only so; among
    new lines it may as well head them, or belong to a comment of several lines."""
    region = regions.get(number)
    for step in (-1, 1):
        n = number + step
        while n in added and regions.get(n) is region and 0 < n <= len(lines):
            if any(c.isalnum() for c in lines[n - 1]):
                return False
            n += step
    return True


def _heads(lines: tuple[str, ...], number: int) -> bool:
    """The line `number` is a heading: blank lines before and after it, and the next line with text is
    at its indentation or deeper and does not close a block (``# other helper functions`` over the
    helpers; at the end of a block a note stands for the rest of it)."""
    i = number - 1
    if i == 0 or lines[i - 1].strip() or i + 1 >= len(lines) or lines[i + 1].strip():
        return False
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j < len(lines) and _indent(lines[j]) >= _indent(lines[i]) and bool(lines[j].strip(" \t)]};,"))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _trails_off(text: str, path: str) -> bool:
    """A last line that is only an ellipsis, bare or in a comment, or a looser marker comment."""
    if len(text) > MAX_LINE:
        return False
    core = _core(text)
    return bool(DOTS().fullmatch(core)) or suspect(text, syntax_for(path)) is not None


def _shrunk(change: FileChange, what: str) -> str:
    assert change.before is not None and change.after is not None
    old_n, new_n = line_count(change.before), line_count(change.after)
    return (
        f"this whole-file write shrinks {change.path} from {old_n} to {new_n} lines and {what}: "
        "the lines it drops look elided, not deleted"
    )


def norm(text: str) -> str:
    return " ".join(text.lower().split())
