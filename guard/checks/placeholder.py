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

A note in any wording counts there too (``notes``: read for what it says, in ten
languages, look-alike letters and invisible characters folded): a comment-only line,
a line of a docstring or doc comment, or a note in brackets or an ellipsis
(``[lines 2-4 unchanged]``) that stands where the edit removes lines and says the
code is kept, elsewhere, omitted or the same (``# rest of the code``, ``# body
unchanged``, ``// 其余代码不变``).  A note that says so firmly (``# body unchanged``,
``# other methods omitted``) is a placeholder whatever the edit writes around it; one
that says less (``# same as above``, ``# existing code``, ``# etc.``) only when it is all
the edit writes there, for among new lines it may as well head them.  In prose only
firm notes count, standing alone and not ending a sentence.  A comment that explains
the new code (``# sum the items with the builtin``, ``# keep the cache warm``) holds
words that say what code does, and is never one.

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
(``str.find`` over the added block, not a regex trying every position; text that is
not ASCII is folded first, and searched for the words of other scripts too; a note's
trigger words only among lines that stand where the edit removes lines), each is
first judged on its line alone, and the file is lexed only for those that could
still be placeholders.  A line longer than ``MAX_LINE`` is never a marker and is not
judged or searched at all, and no judged text is longer than ``MAX_BODY``: the patterns
cannot spend more than a bounded time on any line an agent sends.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import contains, or_
from typing import Iterable, Sequence

from ..diffs import ChangedLines, changed_lines
from ..model import FileChange, Finding
from ..text.lookalikes import disguised, fold
from ..text.regex import lazy
from ..text.textfile import NotText, decode
from . import notes, standin
from .base import Blocks, CheckInput, block_of, capped, find_lines, hits, quote
from .comments import OPEN_MARK, CommentMap, Syntax, body, syntax_for

HINT = "write the full code or leave that region out of the edit"
WHOLE_HINT = (
    "send the whole new text, every line of it, or change the file with a diff or SEARCH/REPLACE edit of the lines that change"
)
# A placeholder is a short line.  Longer text is never judged, so no pattern below can
# spend more than a bounded time on an agent's input (a 100 KB comment of dots, say).
MAX_LINE = 1000
MAX_BODY = 300

# The cheap first pass: lines with a comment mark whose lowercased text holds an
# ellipsis or a word that some placeholder form needs (found with str.find, which
# runs at memory speed), and lines holding only an ellipsis.
VOCAB = (
    "...",
    "…",
    ". . .",
    "exist",
    "other",
    "remain",
    "previous",
    "original",
    "prior",
    "unchanged",
    "here",
    "same",
    "before",
    "intact",
    "untouched",
    "omit",
    "elided",
    "shown",
    "snip",
    "truncat",
    "brevity",
    "rest",
    "more",
    "your",
    "as it was",
    "as is",
)
# And for a line that stands where the edit removes lines: every word a note needs to say
# code is left out (``notes.triggers``: not a code noun or a small word) holds one of these
# or of VOCAB (tests/checks/test_notes.py holds them together).
NOTE_VOCAB = (
    "unchang",
    "untouch",
    "elid",
    "as it is",
    "as they",
    "everything",
    "leftover",
    "keep",
    "kept",
    "retain",
    "preserv",
    "leave",
    "alone",
    "stay",
    "identic",
    "verbatim",
    "ditto",
    "likewise",
    "etc",
    "so on",
    "so forth",
    "left out",
    "abbreviat",
    "abridg",
    "above",
    "below",
    "earlier",
    "elsewhere",
    "already",
    "chang",
    "modif",
    "alter",
    "edit",
    "differen",
    "touch",
    "repeat",
    "includ",
    "reproduc",
    "listed",
    "copied",
    "displayed",
    "written",
    "previa",
    "previo",
    "this point",
    "continues",
    "follows",
    "goes",
    "onward",
    # Spanish, Portuguese, French, German, Italian written without accents (with them, or in
    # another script, a line is folded and searched for every word ``notes`` knows).
    "otro",
    "otra",
    "outro",
    "outra",
    "autre",
    "andere",
    "altri",
    "altre",
    "demas",
    "demais",
    "riman",
    "ubrig",
    "igual",
    "mism",
    "mesm",
    "identiq",
    "identis",
    "meme",
    "antes",
    "estaba",
    "avant",
    "tel quel",
    "unverand",
    "gleich",
    "bisher",
    "vorher",
    "wie oben",
    "invariat",
    "ugual",
    "stess",
    "come prima",
    "manten",
    "mantem",
    "mantid",
    "mantien",
    "permanec",
    "conserv",
    "garde",
    "bleib",
    "behalt",
    "erhalt",
    "gelass",
    "gekurzt",
    "omess",
    "anterior",
    "arriba",
    "abajo",
    "acima",
    "abaixo",
    "preceden",
    "dessus",
    "dessous",
    "bestehend",
    "vorhanden",
    "ursprung",
    "oben",
    "unten",
    "esistent",
    "sopra",
    "sotto",
    "cambi",
    "mudanc",
    "anderung",
    "geandert",
    "mostrad",
    "mostrat",
    "montre",
    "gezeigt",
)


_ASCII_VOCAB = tuple(w for w in VOCAB if w.isascii())  # all an ASCII text can hold
_NOTE_NEEDLES = _ASCII_VOCAB + NOTE_VOCAB


@lru_cache(maxsize=1)
def _other_vocab() -> tuple[str, ...]:
    """The first pass's words that are not ASCII once folded: ``notes``' words in other scripts, and `…`."""
    return tuple(sorted({w for w in (*map(fold, VOCAB), *notes.triggers()) if not w.isascii()}))


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
_PHRASE = "|".join(
    (
        rf"{_OWNER}(?:rest|remainder)\s+of\s+{_OWNER}{_WORDS}{_CODE}{_SUFFIX}",
        _KEEP,
        rf"{_OWNER}(?:existing|previous|original|prior|old|other|remaining|unchanged)\s+{_WORDS}{_CODE}{_SUFFIX}",
        rf"{_CODE}\s+(?:is|are|remains?|stays?)\s+unchanged",
        rf"your\s+{_WORDS}{_CODE}\s+(?:goes\s+|go\s+)?here|(?:the\s+)?{_CODE}\s+goes\s+here",
        _SHORT,
        # `rest unchanged`, `the rest remains the same` (the issue's own example).
        r"(?:the\s+)?rest(?:\s+of\s+(?:it|this|file|the\s+file))?\s+(?:is\s+|remains\s+|stays\s+)?"
        r"(?:unchanged|the\s+same|as\s+before|as\s+is|omitted|untouched)",
    )
)
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


_DOC = ("///", "//!", "/**", "/*!")

STRONG, SENTENCE, LOOSE_MATCH, DOTS_ONLY, NOTE = "strong", "sentence", "loose", "dots", "note"
# `... end original code`, `... begin generated part`: region delimiters, not stand-ins.
_DELIMITER = lazy(r"(?:end|begin|start|stop)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Marker:
    line: int  # 1-based, in the new file
    text: str  # the whole added line
    phrase: str  # the comment body that elides
    strong: bool  # a placeholder by itself; weak ones count only with a shrink or at the end
    replaces: int = 0  # lines of the old text it stands where, that the edit drops
    whole: str = ""  # set for a whole-file write judged as a whole: the finding's message


def _inner(m: re.Match[str] | None) -> str | None:
    return m.group("inner").strip(" ()[]<>{}.:;,") if m else None


def judge(text: str, comment_only: bool, noted: bool = False) -> str | None:
    """How a comment body elides code: STRONG, SENTENCE (a bare phrase), LOOSE_MATCH, DOTS_ONLY, or None.

    Judged as it reads (``fold``: look-alike letters and invisible characters folded).
    `noted`: a comment-only body that ``notes`` reads as a firm elision is NOTE (the lazy
    dialect's markers); elsewhere such notes are judged where they stand (``in_place``).
    """
    if not text or len(text) > MAX_BODY:
        return None
    if not text.isascii():  # (the patterns ignore case: ASCII needs no folding)
        text = fold(text)
        if len(text) > MAX_BODY:
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
    if noted and comment_only and notes.elides(text) == notes.FIRM:
        return NOTE
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
            found.update(marked[k] for k in _vocabulary_lines(list(compress(texts, mask))))
    if syntax.code:
        # Where `...` may be code (Python, C) only an ellipsis character stands alone for code.
        dots = ("...",) if syntax.bare_ellipsis else ()
        for pos in find_lines(block.text, dots if block.text.isascii() else dots + _ELLIPSIS_CHARS):
            i = block.index(pos)
            if _bare_dots(texts[i], syntax):
                found.add(i)
    return sorted(found)


def _vocabulary_lines(texts: Sequence[str], needles: tuple[str, ...] = _ASCII_VOCAB) -> list[int]:
    """Indexes of the lines of `texts` that hold one of `needles` (or, once folded, a word of another
    script ``notes`` knows), as they read (``fold``).  Lines longer than a placeholder are left out.

    Every line is searched as written (lowercased in one call); the lines that are not ASCII,
    a few as a rule, are searched once more folded, for disguised words and those of other scripts.
    """
    if texts and max(map(len, texts)) > MAX_LINE:
        texts = [t if len(t) <= MAX_LINE else "" for t in texts]
    raw = "\n".join(texts)
    starts = _starts(texts)
    low = raw.lower()  # never adds or removes a newline, and seldom changes a length
    low_starts = starts if len(low) == len(raw) else _starts(low.split("\n"))
    found = {bisect_right(low_starts, pos) - 1 for pos in find_lines(low, needles)}
    if not raw.isascii():
        other = sorted({bisect_right(starts, m.start()) - 1 for m in _NOT_ASCII().finditer(raw)})
        folded = [fold(texts[i]) for i in other]
        hits_at = find_lines("\n".join(folded), needles + _other_vocab())
        folded_starts = _starts(folded)
        found.update(other[bisect_right(folded_starts, pos) - 1] for pos in hits_at)
    return sorted(found)


_NOT_ASCII = lazy(r"[^\x00-\x7f][^\n]*")  # one match a line


def _starts(texts: Sequence[str]) -> list[int]:
    """Where each of `texts` starts once they are joined with newlines."""
    return list(accumulate(map((1).__add__, map(len, texts)), initial=0))


# The ellipsis characters a line of code may stand alone as (each is a scan of the whole text;
# in a comment ``fold`` reads any of them).
_ELLIPSIS_CHARS = ("…", "⋯", "⋮")
_PAIRS = {"[": "]", "(": ")", "{": "}", "<": ">"}


def _bare_dots(text: str, syntax: Syntax) -> bool:
    """A line of code that is only an ellipsis: `…` (any ellipsis character), which no language has as
    a statement, or, where `...` cannot be code either (``Syntax.bare_ellipsis``), `...`, `[...]`, `(…)`.

    (Python prints `[...]` for a list that holds itself, and doctests show it.)
    """
    bare = text.strip()
    if not bare or len(bare) > 12:
        return False
    if bare[0] in _PAIRS and bare[-1] == _PAIRS[bare[0]]:
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
    edit = standin.Edit(inp.changes)  # the stand-in rule judges the whole edit: code may move between files
    for change in inp.changes:
        if change.after is None or not change.added:
            continue
        regions = changed_lines(change) if change.removed else []
        found = file_markers(change, exempt, inp.blocks)
        found += in_place(change, exempt, {m.line for m in found if m.strong}, inp.blocks, regions)
        if extra is not None:
            for _i, n, t in hits(change, extra, inp.blocks):
                m = extra.search(t)
                if m and not (exempt is not None and exempt.search(t)):
                    found.append(Marker(n, t, m.group(), True))
        found = _new_only(change, found)
        phrased = _findings(change, found, level, regions)
        known = {f.line for f in phrased if f.line is not None}
        findings += phrased + standin.findings(change, regions, edit, level, known, exempt)
    return capped(findings)


# --------------------------------------------------------------------------- what the edit does

# Around a line of prose: comment markers (``body``), then string quotes and docstring delimiters.
_QUOTES = "\"'`"
# An elision phrase inside a line, wrapped in an ellipsis or in brackets (bounded: linear).
_WRAPPED = lazy(r"(?:\.{3}|…)[ \t]*([^.…\n]{1,80}?)[ \t]*(?:\.{3}|…)|[\[(<{][ \t]*([^\[\]()<>{}\n]{1,80}?)[ \t]*[\])>}]")


_ELIDES = lazy(
    r"\b(?:existing|rest|remaining|remainder|unchanged|omitted|elided|previous|prior|original|same|snip(?:ped)?"
    r"|keep|kept|as\s+(?:before|is|it\s+was)|untouched|intact|truncated|here)\b",
    re.IGNORECASE,
)
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
    plain = fold(core)
    kind = judge(plain, True)
    # Outside a comment a lone word is code (`f(rest)`, `{...existing}`, JS spread), and
    # prose lists trail off (`... other option types...`): a phrase is two words at least,
    # one of which says the text is left out or kept as it was.
    if kind in (STRONG, SENTENCE) and _WORDS_RE().search(plain) and _ELIDES().search(plain):
        return kind, core
    tight = _big("TIGHT")
    for m in _WRAPPED().finditer(fold(text)):
        inner = (m.group(1) or m.group(2) or "").strip(" ()[]<>{}.:;,")
        if inner and _WORDS_RE().search(inner) and _ELIDES().search(inner) and tight.fullmatch(inner):
            return STRONG, m.group(0)
    return None


def _regions(change: FileChange, lines: list[ChangedLines] | None = None) -> dict[int, list[str]]:
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
        return _vocabulary_lines(texts, _NOTE_NEEDLES)
    return [scope[k] for k in _vocabulary_lines([texts[i] for i in scope], _NOTE_NEEDLES)]


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
    return prev >= 0 and prev + 1 in added and bool(_OPEN_END().search(_core(lines[prev])))


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
    shrinks = change.whole and change.before is not None and _line_count(change.after) < _line_count(change.before)
    regions = _regions(change, changed) if change.removed else {}
    # Only a line that stands where old lines go can stand for them (in a whole-file write
    # that shrinks the file, any line may).
    scope = None if shrinks else [i for i, (n, _t) in enumerate(change.added) if regions.get(n)]
    picked = [i for i in _suspects(change, blocks, scope) if change.added[i][0] not in known]
    if not picked and not shrinks:
        return []
    new_lines = _NewLines(change.after)
    kept = {_norm(t) for _n, t in change.added}
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
            lost = [t for t in regions.get(number, ()) if t.strip() and _norm(t) not in kept]
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
    last = _last_nonblank(change.after)
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
        return note, comment.startswith(_DOC), 1
    written = line
    for q in _DELIMITERS:  # a docstring on one line, or the end of one
        written = written.removeprefix(q).removesuffix(q)
    written = OPEN_MARK().sub("", written, count=1)  # a line inside a block comment, another language's comment
    core = _core(line)
    # In brackets, or between two ellipses (prose trails off with one: `... defined above...`).
    wrapped = bool(core) and (
        core[0] in _PAIRS and core[-1] == _PAIRS[core[0]] or core.startswith(("...", "…")) and core.endswith(("...", "…"))
    )
    prose = syntax.code and bool(syntax.triple or syntax.spanning or syntax.block)
    if not core or not (wrapped or prose) or _CODEISH().search(written) or not _balanced(core):
        return None
    return core, not wrapped, 2


def _balanced(text: str) -> bool:
    """Every bracket in `text` closes one it opened, in order (`(s1, other))` is the end of a call)."""
    opened: list[str] = []
    for c in text:
        if c in _PAIRS:
            opened.append(_PAIRS[c])
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
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    return (
        f"this whole-file write shrinks {change.path} from {old_n} to {new_n} lines and {what}: "
        "the lines it drops look elided, not deleted"
    )


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


def _findings(change: FileChange, found: list[Marker], level: str, lines: list[ChangedLines] | None = None) -> list[Finding]:
    path = change.path
    out: list[Finding] = []
    regions = _regions(change, lines) if change.removed and any(m.strong and not m.whole for m in found) else {}
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
        said = repr(m.phrase)
        if disguised(m.phrase):
            said += f", which reads {fold(m.phrase).strip()!r}: look-alike or invisible characters"
        out.append(
            Finding(
                "placeholder", level, path, m.line, f"the added line {quote(m.text)} stands in for code ({said}); {effect}", HINT
            )
        )
    weak = [m for m in found if not m.strong]
    if not weak or change.before is None or change.after is None:
        return out
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    if new_n < old_n * 0.5 and old_n - new_n > 20:
        m = weak[0]
        out.append(
            Finding(
                "placeholder",
                level,
                path,
                m.line,
                f"the edit shrinks the file from {old_n} to {new_n} lines around {quote(m.text)}; "
                "the marker looks like elided code",
                HINT,
            )
        )
    elif new_n < old_n and weak[-1].line == _last_nonblank(change.after):
        m = weak[-1]
        out.append(
            Finding(
                "placeholder",
                level,
                path,
                m.line,
                f"the new text ends with {quote(m.text)} and is shorter than before; the rest of the file looks elided",
                HINT,
            )
        )
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"


def _last_nonblank(data: bytes) -> int:
    """The number of the last line of `data` that holds more than blanks (ASCII whitespace, what
    ``bytes.strip`` takes off), or 0.  Asked on every edit: two scans in C, no line split."""
    body = data.rstrip()
    return body.count(b"\n") + 1 if body else 0
