"""`placeholder`: added text that stands in for code ("... existing code ...").

Lazy elision is an agent writing ``# ... rest of the function unchanged ...`` where
the code should be; applied as written, it deletes that code.  Only added lines
count, and only phrases the removed lines did not already hold.  Two judgements:

**What the edit does** (wherever the phrase stands: code, comment, doc comment,
docstring, string).  An added line holding a strong elision phrase (one wrapped in
an ellipsis or brackets, ``... rest of the function unchanged ...``, or a bare one
such as ``rest of the code unchanged``) that stands where the edit removes lines its
added text does not hold is a placeholder: those lines are gone, and the phrase
says they were meant to stay.  In prose (docstrings, doc comments, strings) a bare
phrase that ends a sentence (``... are unchanged.``) or continues one is prose.
A whole-file write (any dialect) that shrinks the file and holds such a phrase, or
ends with a bare marker (``...``, ``// ...``), is refused the same way.

**Comments that look like markers**, found with ``comments.CommentMap``, so Python's
Ellipsis, JS spread, Go/C variadics, Rust ``..``, strings, docstrings and doctests
never count as comments:
- a comment holding an elision phrase in an ellipsis or brackets is a placeholder
  wherever it is, and so is a bare phrase (``rest of the class unchanged``) unless it
  ends a sentence begun on the comment line above, or sits in a doc comment;
- a comment holding only ``...``, or a looser ``... your app logic``, is one when it
  stands alone among code lines and the edit removes code (it stands in for that
  code); inside a run of comments it continues an example or a list, and in a new
  file it deletes nothing;
- such a weak marker still counts when the edit shrinks the file drastically, or when
  the new text ends with it.

Speed and safety: only lines with an ellipsis or a trigger word are looked at
(``str.find`` over the added block, not a regex trying every position), each is
first judged on its line alone, and the file is lexed only for those that could
still be placeholders.  A line longer than ``MAX_LINE`` is never a marker and is not
judged at all, and no judged text is longer than ``MAX_BODY``: the patterns cannot
spend more than a bounded time on any line an agent sends.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import contains, or_
from typing import ClassVar, Iterable

from ..model import FileChange, Finding, Value
from ..regex import lazy
from ..textfile import NotText, decode
from .base import Blocks, CheckInput, block_of, capped, find_lines, hits, quote
from .comments import CommentMap, Syntax, syntax_for

HINT = "write the full code or leave that region out of the edit"
WHOLE_HINT = ("send the whole new text, every line of it, or change the file with a diff or SEARCH/REPLACE edit "
              "of the lines that change")
# A placeholder is a short line.  Longer text is never judged, so no pattern below can
# spend more than a bounded time on an agent's input (a 100 KB comment of dots, say).
MAX_LINE = 1000
MAX_BODY = 300

# The cheap first pass: lines with a comment mark whose lowercased text holds an
# ellipsis or a word that some placeholder form needs (found with str.find, which
# runs at memory speed), and lines holding only an ellipsis.
VOCAB = (
    "...", "…", ". . .", "exist", "other", "remain", "previous", "original", "prior", "unchanged", "here",
    "same", "before", "intact", "untouched", "omit", "elided", "shown", "snip", "truncat", "brevity",
    "rest", "more", "your", "as it was", "as is",
)


_ASCII_VOCAB = tuple(w for w in VOCAB if w.isascii())  # all an ASCII text can hold

_ELLIPSIS = r"(?:\.{3,}|…|\. \. \.)"
# A comment body holding only an ellipsis, perhaps bracketed: `...`, `[...]`, `(…)`, `<...>`.
# (Longer runs of dots, `# ......`, are separators.)
DOTS = lazy(r"[\[(<{]?\s*(?:\.{3,4}|…|\. \. \.)\s*[\])>}]?[;,]?")
# Ellipsis on both sides: `... existing JSX ...`, `... (rest of the method) ...`.
BOTH = lazy(rf"{_ELLIPSIS}\s*(?P<inner>.*?\S)\s*{_ELLIPSIS}\s*[.;,:]*")
# Only before: `... rest of the method`, `... your app logic`.
LEADING = lazy(rf"{_ELLIPSIS}\s*(?P<inner>.*?\S)\s*[.;,:]*")
# Only after: `other methods ...`, `your code here...`.
TRAILING = lazy(rf"(?P<inner>.*?\S)\s*{_ELLIPSIS}\s*[.;,:]*")
# In brackets: `(keep existing code)`, `[rest of file unchanged]`.
BRACKETED = lazy(r"[\[(<{]\s*(?P<inner>[^\])>}]*?)\s*[\])>}]\s*[.;,:]*")

_CODE = (
    r"(?:code|codes|function|functions|file|files|implementation|implementations|class|classes|method|methods"
    r"|module|body|logic|component|components|script|tests?|test\s+cases?|program|config(?:uration)?|definitions?"
    r"|contents?|loop|block|handlers?|setup|imports?|properties|fields|members|routes|cases|lines|statements"
    r"|arguments|args|parameters|params|options|attributes|styles|rules|markup|html|css|jsx|template|exports"
    r"|helpers|initialization|init|constructor|__init__|main|steps|cells|columns|entries|items|keys|values"
    r"|plugins|dependencies|settings|declarations|types|variables|functionality|page|pages|section|sections"
    r"|document|query|queries|view|views|layout|schema|tables?|migrations?|macros|endpoints|functions|hooks"
    r"|docstrings?|comments?|docs|documentation|text|headers?|prototypes|structs?|enums?|unions|typedefs"
    r"|implementation\s+details)"
)
_SUFFIX = (
    r"(?:\s+(?:is|are|remains?|stays?|goes|left|kept|was|were))?"
    r"\s+(?:unchanged|the\s+same|as\s+before|as\s+is|here|intact|untouched|omitted|elided|not\s+shown"
    r"|same\s+as\s+before|as\s+it\s+was|from\s+before|goes\s+here|go\s+here|for\s+brevity)"
)
_OWNER = r"(?:(?:the|this|that|your|my|our|its|all|any|other|remaining)\s+)*"
_WORDS = r"(?:[\w.()-]+\s+){0,3}?"
_KEEP = (
    rf"(?:keep|keeping|retain|preserve|leave)s?\s+{_OWNER}(?:existing|other|remaining|previous|original)"
    rf"\s+(?:[\w.()-]+\s+)?{_CODE}(?:\s+(?:unchanged|as\s+is|the\s+same|as\s+before|here|intact))?"
)
_SHORT = (
    r"same\s+as\s+before|previous\s+code(?:\s+here)?|unchanged\s+code|code\s+unchanged|<?snip>?"
    rf"|(?:{_CODE}\s+)(?:omitted|elided|truncated|snipped)(?:\s+for\s+brevity)?|omitted\s+for\s+brevity"
)

# The three large patterns below take ~25 ms to compile, more than checking a large
# commit without a suspect comment costs: they are compiled when a comment is first
# judged (``_big``), and stay reachable as module attributes (``__getattr__``).
# Phrases that elide code as a whole comment, without ellipsis or brackets.
_PHRASE = "|".join((
    rf"{_OWNER}(?:rest|remainder)\s+of\s+{_OWNER}{_WORDS}{_CODE}{_SUFFIX}",
    _KEEP,
    rf"{_OWNER}(?:existing|previous|original|prior|old|other|remaining|unchanged)\s+{_WORDS}{_CODE}{_SUFFIX}",
    rf"{_CODE}\s+(?:is|are|remains?|stays?)\s+unchanged",
    rf"your\s+{_WORDS}{_CODE}\s+(?:goes\s+|go\s+)?here|(?:the\s+)?{_CODE}\s+goes\s+here",
    _SHORT,
    # `rest unchanged`, `the rest remains the same` (the issue's own example).
    r"(?:the\s+)?rest(?:\s+of\s+(?:it|this|file|the\s+file))?\s+(?:is\s+|remains\s+|stays\s+)?"
    r"(?:unchanged|the\s+same|as\s+before|as\s+is|omitted|untouched)",
))
# Inside an ellipsis or brackets, the suffix may go: `... existing code ...`, `(other methods)`.
_TIGHT = (
    rf"(?:{_PHRASE})"
    rf"|{_OWNER}(?:rest|remainder)\s+of\s+{_OWNER}{_WORDS}{_CODE}"
    rf"|{_OWNER}(?:existing|other|remaining|previous|original|prior|unchanged|more|your)\s+{_WORDS}{_CODE}"
    r"|existing|unchanged|omitted|snip|snipped|as\s+before|rest"
)
# After a leading ellipsis, an elision word with a code noun, in either order.
_LOOSE = (
    rf".*\b(?:existing|rest|remaining|unchanged|same|previous|prior|other|omitted|elided|original|keep|kept"
    rf"|your)\b.*\b{_CODE}\b.*"
    rf"|.*\b{_CODE}\b.*\b(?:unchanged|remains?|omitted|elided|here|continues|as\s+before|same)\b.*"
)
_BIG = {"PHRASE": _PHRASE, "TIGHT": _TIGHT, "LOOSE": _LOOSE}


@lru_cache(maxsize=None)
def _big(name: str) -> re.Pattern[str]:
    return re.compile(_BIG[name], re.IGNORECASE)


def __getattr__(name: str) -> re.Pattern[str]:
    if name in _BIG:
        return _big(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# An opening marker or a closing one, stripped from a comment before judging its body.
_OPEN = lazy(r"^\s*(?:<!--|\{-|--\[\[|/\*+!?|//+[!/]?|#+!?|--+|;+|%+|!+|\*+(?!/))\s*")
_CLOSE = lazy(r"\s*(?:-->|-\}|\]\]|\*+/)[\s});,]*$")  # JSX: `{/* ... */}`

_DOC = ("///", "//!", "/**", "/*!")

STRONG, SENTENCE, LOOSE_MATCH, DOTS_ONLY = "strong", "sentence", "loose", "dots"
# `... end original code`, `... begin generated part`: region delimiters, not stand-ins.
_DELIMITER = lazy(r"(?:end|begin|start|stop)\b", re.IGNORECASE)


class Marker(Value):
    __slots__ = ("line", "text", "phrase", "strong", "replaces", "whole")
    _fields: ClassVar[tuple[str, ...]] = __slots__
    line: int  # 1-based, in the new file
    text: str  # the whole added line
    phrase: str  # the comment body that elides
    strong: bool  # a placeholder by itself; weak ones count only with a shrink or at the end
    replaces: int  # lines of the old text it stands where, that the edit drops
    whole: str  # set for a whole-file write judged as a whole: the finding's message

    def __init__(self, line: int, text: str, phrase: str, strong: bool, replaces: int = 0, whole: str = "") -> None:
        self._init(line, text, phrase, strong, replaces, whole)


def body(comment: str) -> str:
    text = _CLOSE().sub("", _OPEN().sub("", comment, count=1), count=1)
    return text.strip().strip("*").strip()


def _inner(m: re.Match[str] | None) -> str | None:
    return m.group("inner").strip(" ()[]<>{}.:;,") if m else None


def judge(text: str, comment_only: bool) -> str | None:
    """How a comment body elides code: STRONG, SENTENCE (a bare phrase), LOOSE_MATCH, DOTS_ONLY, or None."""
    if not text or len(text) > MAX_BODY:
        return None
    if DOTS().fullmatch(text):
        return DOTS_ONLY
    inner = _inner(BOTH().fullmatch(text)) or _inner(BRACKETED().fullmatch(text)) or _inner(TRAILING().fullmatch(text))
    tight = _big("TIGHT")
    if inner is not None and tight.fullmatch(inner):
        return STRONG
    inner = _inner(LEADING().fullmatch(text))
    if inner is not None:
        if tight.fullmatch(inner):
            return STRONG
        if _big("LOOSE").fullmatch(inner) and not _DELIMITER().match(inner):
            return LOOSE_MATCH
    if comment_only and _big("PHRASE").fullmatch(text.rstrip(".:;,!")):
        return SENTENCE
    return None


# A line of prose that cannot end a sentence: a trailing comma, article, preposition...
_OPEN_END = lazy(
    r"(?:,|\b(?:the|a|an|of|to|and|or|nor|with|for|in|on|at|by|from|as|that|which|who|is|are|was|were|be|been"
    r"|so|but|if|when|then|into|onto|than|all|its|their|our|your|this|these|those|any|each|every|not|will"
    r"|would|should|can|could|may|might|must|we|they|it|you|return|returns|keep|keeps|leave|leaves))$",
    re.IGNORECASE,
)


def _continues_sentence(cmap: CommentMap, i: int) -> bool:
    """The comment line before `i` ends mid-sentence: line `i` is the rest of that prose."""
    if i == 0 or not cmap.comment_only(i - 1):
        return False
    texts = [body(c) for c, _opens in cmap.comments(i - 1)]
    return bool(texts and _OPEN_END().search(texts[-1]))


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
            raw = "\n".join(compress(texts, mask))
            blob = raw.lower()
            ascii_only = blob.isascii()
            if ascii_only or len(blob) == len(raw):
                hits_at = find_lines(blob, _ASCII_VOCAB if ascii_only else VOCAB)
                if hits_at:
                    starts = list(accumulate(map((1).__add__, map(len, compress(texts, mask))), initial=0))
                    found.update(marked[bisect_right(starts, pos) - 1] for pos in hits_at)
            else:  # a character lowercased to two: offsets moved, judge every marked line
                found.update(marked)
    if syntax.code:
        bare = ("…", "...") if syntax.bare_ellipsis else ("…",)
        for pos in find_lines(block.text, bare):
            i = block.index(pos)
            if texts[i].strip() in bare:
                found.add(i)
    return sorted(found)


def suspect(text: str, syntax: Syntax) -> str | None:
    """What the added line `text` looks like on its own, taking every comment mark at its word."""
    if len(text) > MAX_LINE:
        return None
    if syntax.code:
        bare = text.strip()
        if bare == "…" or (syntax.bare_ellipsis and bare == "..."):
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
                comment, after = comment[: end + len(close)], comment[end + len(close):]
                break
        only = not text[:pos].strip(" \t{") and not after.strip(" \t}")
        kind = judge(body(comment), only and not comment.startswith(_DOC))
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
            kind = judge(phrase, only and not comment.lstrip().startswith(_DOC))
            if kind:
                break
        if kind is None and syntax.code:
            bare = text.strip()
            if bare == "…" or (syntax.bare_ellipsis and bare == "..."):
                kind, phrase, only = DOTS_ONLY, bare, True
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


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.MULTILINE) if patterns else None


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _shrinks(change: FileChange) -> bool:
    if change.before is None or change.after is None:
        return False
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    return new_n < old_n * 0.5 and old_n - new_n > 20


def file_markers(change: FileChange, exempt: re.Pattern[str] | None, blocks: Blocks | None = None) -> list[Marker]:
    """The placeholder markers in one change's added lines (weak ones only where they can matter)."""
    syntax = syntax_for(change.path)
    picked: list[tuple[int, str]] = []
    weak_matters = bool(change.removed) or _shrinks(change)
    last = _last_nonblank(change.after) if change.after is not None and change.before is not None else -1
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


def check(inp: CheckInput, level: str) -> list[Finding]:
    policy = inp.policy
    extra = _compiled(policy.placeholder_patterns)
    exempt = _compiled(policy.placeholder_exempt)
    findings: list[Finding] = []
    for change in inp.changes:
        if change.after is None or not change.added:
            continue
        found = file_markers(change, exempt, inp.blocks)
        found += in_place(change, exempt, {m.line for m in found if m.strong}, inp.blocks)
        if extra is not None:
            for _i, n, t in hits(change, extra, inp.blocks):
                m = extra.search(t)
                if m and not (exempt is not None and exempt.search(t)):
                    found.append(Marker(n, t, m.group(), True))
        found = _new_only(change, found)
        findings.extend(_findings(change, found, level))
    return capped(findings)


# --------------------------------------------------------------------------- what the edit does

# Around a line of prose: comment markers (``body``), then string quotes and docstring delimiters.
_QUOTES = "\"'`"
# An elision phrase inside a line, wrapped in an ellipsis or in brackets (bounded: linear).
_WRAPPED = lazy(r"(?:\.{3}|…)[ \t]*([^.…\n]{1,80}?)[ \t]*(?:\.{3}|…)|[\[(<{][ \t]*([^\[\]()<>{}\n]{1,80}?)[ \t]*[\])>}]")


_ELIDES = lazy(
    r"\b(?:existing|rest|remaining|remainder|unchanged|omitted|elided|previous|prior|original|same|snip(?:ped)?"
    r"|keep|kept|as\s+(?:before|is|it\s+was)|untouched|intact|truncated|here)\b", re.IGNORECASE)
_WORDS_RE = lazy(r"[^\W\d_]{2,}\s+\S*[^\W\d_]")  # two words: letters, blanks, letters


def _core(text: str) -> str:
    """The prose of a line: without comment markers, string quotes or docstring delimiters around it."""
    inner = body(text).strip(_QUOTES + " \t,;")
    return body(inner).strip(_QUOTES + " \t,;") if inner else inner


def elision(text: str) -> tuple[str, str] | None:
    """A strong elision phrase anywhere in `text`: (STRONG or SENTENCE, the phrase), or None."""
    if len(text) > MAX_LINE:
        return None
    core = _core(text)
    kind = judge(core, True)
    # Outside a comment a lone word is code (`f(rest)`, `{...existing}`, JS spread), and
    # prose lists trail off (`... other option types...`): a phrase is two words at least,
    # one of which says the text is left out or kept as it was.
    if kind in (STRONG, SENTENCE) and _WORDS_RE().search(core) and _ELIDES().search(core):
        return kind, core
    tight = _big("TIGHT")
    for m in _WRAPPED().finditer(text):
        inner = (m.group(1) or m.group(2) or "").strip(" ()[]<>{}.:;,")
        if inner and _WORDS_RE().search(inner) and _ELIDES().search(inner) and tight.fullmatch(inner):
            return STRONG, m.group(0)
    return None


def _regions(change: FileChange) -> dict[int, list[str]]:
    """For each added line number, the old lines removed where it stands (its changed region).

    Rebuilt from the line numbers the change carries: within a region the removed
    lines run on in the old text and the added ones in the new, and regions are
    apart by at least one unchanged line, so no diff is needed.
    """
    rem, add = change.removed, change.added
    out: dict[int, list[str]] = {}
    i = j = delta = 0
    while i < len(rem) or j < len(add):
        at_rem = rem[i][0] + delta if i < len(rem) else None
        at_add = add[j][0] if j < len(add) else None
        here = min(x for x in (at_rem, at_add) if x is not None)
        gone: list[str] = []
        numbers: list[int] = []
        if at_rem == here:
            first = rem[i][0]
            while i < len(rem) and rem[i][0] == first + len(gone):
                gone.append(rem[i][1])
                i += 1
        if at_add == here:
            while j < len(add) and add[j][0] == here + len(numbers):
                numbers.append(add[j][0])
                j += 1
        delta += len(numbers) - len(gone)
        for n in numbers:
            out[n] = gone
    return out


def _suspects(change: FileChange, blocks: Blocks | None = None) -> list[int]:
    """Indexes into change.added of every line holding an ellipsis or a trigger word, anywhere."""
    block = block_of(change, blocks)
    blob = block.text.lower()
    if len(blob) != len(block.text):
        return list(range(len(change.added)))  # a character lowercased to two: judge every line
    return sorted({block.index(pos) for pos in find_lines(blob, _ASCII_VOCAB if blob.isascii() else VOCAB)})


def _prose_sentence(lines: tuple[str, ...], number: int, core: str, added: set[int]) -> bool:
    """A bare phrase that reads as documentation: it ends a sentence, or continues one the edit writes.

    (A sentence the line above leaves open, and the edit did not write, is not the
    phrase's: the phrase stands where the lines that went on with it were.)
    """
    if core.rstrip().endswith((".", "!", "?")):
        return True
    prev = number - 2
    while prev >= 0 and not lines[prev].strip():
        prev -= 1
    return prev >= 0 and prev + 1 in added and bool(_OPEN_END().search(_core(lines[prev])))


def in_place(change: FileChange, exempt: re.Pattern[str] | None, known: set[int],
             blocks: Blocks | None = None) -> list[Marker]:
    """Elision judged by what the edit does: a phrase standing where the edit drops old lines.

    A whole-file write that shrinks the file is judged on every line it adds, and on
    how it ends (see the module doc).  `known`: lines already found as markers.
    """
    if change.after is None or not (change.removed or change.whole):
        return []
    picked = [i for i in _suspects(change, blocks) if change.added[i][0] not in known]
    shrinks = change.whole and change.before is not None and _line_count(change.after) < _line_count(change.before)
    if not picked and not shrinks:
        return []
    try:
        lines = decode(change.after).lines
    except NotText:
        return []
    regions = _regions(change) if change.removed else {}
    kept = {_norm(t) for _n, t in change.added}
    numbers = {n for n, _t in change.added}
    found: list[Marker] = []
    for i in picked:
        number, text = change.added[i]
        if exempt is not None and exempt.search(text):
            continue
        got = elision(text)
        if got is None:
            continue
        kind, phrase = got
        if kind == SENTENCE and number - 1 < len(lines) and _prose_sentence(lines, number, _core(text), numbers):
            continue
        lost = [t for t in regions.get(number, ()) if t.strip() and _norm(t) not in kept]
        if lost:
            found.append(Marker(number, text, phrase, True, len(lost)))
        elif shrinks:
            found.append(Marker(number, text, phrase, True, whole=_shrunk(change, f"holds {quote(text)} ({phrase!r})")))
    if shrinks and not found:
        last = _last_nonblank(change.after)
        if 0 < last <= len(lines) and not (exempt is not None and exempt.search(lines[last - 1])):
            text = lines[last - 1]
            if last not in known and _trails_off(text, change.path):
                found.append(Marker(last, text, _core(text) or text.strip(), True,
                                    whole=_shrunk(change, f"ends with {quote(text)}")))
    return found


def _trails_off(text: str, path: str) -> bool:
    """A last line that is only an ellipsis, bare or in a comment, or a looser marker comment."""
    if len(text) > MAX_LINE:
        return False
    core = _core(text)
    return bool(DOTS().fullmatch(core)) or suspect(text, syntax_for(path)) is not None


def _shrunk(change: FileChange, what: str) -> str:
    assert change.before is not None and change.after is not None
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    return (f"this whole-file write shrinks {change.path} from {old_n} to {new_n} lines and {what}: "
            "the lines it drops look elided, not deleted")


def _new_only(change: FileChange, found: list[Marker]) -> list[Marker]:
    """Drop markers the removed lines already held: moving a placeholder is not adding one."""
    if not found or not change.removed:
        return found
    old_lines = {_norm(t) for _n, t in change.removed}
    old_text = "\n".join(old_lines)

    def held(m: Marker) -> bool:
        # A bare `...` is in any code that spreads or takes varargs: only the same line counts as moved.
        words = _WORDS_RE().search(m.phrase) is not None
        return _norm(m.text) in old_lines or (words and _norm(m.phrase) in old_text)

    return [m for m in found if not held(m)]


def _findings(change: FileChange, found: list[Marker], level: str) -> list[Finding]:
    path = change.path
    out: list[Finding] = []
    regions = _regions(change) if change.removed and any(m.strong and not m.whole for m in found) else {}
    for m in found:
        if not m.strong:
            continue
        if m.whole:
            out.append(Finding("placeholder", level, path, m.line, m.whole, WHOLE_HINT))
            continue
        gone = m.replaces or sum(1 for t in regions.get(m.line, ()) if t.strip())
        if gone:
            effect = f"applied as written it would delete the {_count(gone, 'line')} it stands in for"
        else:
            effect = "it adds no code, only a note that code belongs there"
        out.append(Finding("placeholder", level, path, m.line,
                           f"the added line {quote(m.text)} stands in for code ({m.phrase!r}); {effect}", HINT))
    weak = [m for m in found if not m.strong]
    if not weak or change.before is None or change.after is None:
        return out
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    if new_n < old_n * 0.5 and old_n - new_n > 20:
        m = weak[0]
        out.append(Finding(
            "placeholder", level, path, m.line,
            f"the edit shrinks the file from {old_n} to {new_n} lines around {quote(m.text)}; "
            "the marker looks like elided code", HINT))
    elif new_n < old_n and weak[-1].line == _last_nonblank(change.after):
        m = weak[-1]
        out.append(Finding(
            "placeholder", level, path, m.line,
            f"the new text ends with {quote(m.text)} and is shorter than before; "
            "the rest of the file looks elided", HINT))
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"


def _last_nonblank(data: bytes) -> int:
    lines = data.split(b"\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1
    return 0
