"""The words and patterns of an elision phrase, and ``judge``: how a comment body elides code.

The ``placeholder`` check (its module doc has the rule) looks closer only at lines that
hold an ellipsis or one of the words here (``vocabulary_lines``), and ``judge`` reads a
comment body against the patterns; the lazy dialect reads its markers with ``judge`` too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Sequence

from ..fs.kept import by_value
from ..text.lookalikes import fold
from ..text.regex import lazy
from . import notes
from .base import find_lines

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
NOTE_NEEDLES = _ASCII_VOCAB + NOTE_VOCAB


@by_value(1)
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

# The three large patterns below cost more to compile than checking a large commit
# without a suspect comment does (bench/README.md has the figure): they are compiled when
# a comment is first judged (``big``), and stay reachable as module attributes (``__getattr__``).
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


@by_value(None)
def big(name: str) -> re.Pattern[str]:
    return re.compile(_BIG[name], re.IGNORECASE)


def __getattr__(name: str) -> re.Pattern[str]:
    if name in _BIG:
        return big(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DOC = ("///", "//!", "/**", "/*!")

STRONG, SENTENCE, LOOSE_MATCH, DOTS_ONLY, NOTE = "strong", "sentence", "loose", "dots", "note"
# `... end original code`, `... begin generated part`: region delimiters, not stand-ins.
_DELIMITER = lazy(r"(?:end|begin|start|stop)\b", re.IGNORECASE)


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
    tight = big("TIGHT")
    if inner is not None and tight.fullmatch(inner):
        return STRONG
    inner = _inner(LEADING().fullmatch(text))
    if inner is not None:
        if tight.fullmatch(inner):
            return STRONG
        if big("LOOSE").fullmatch(inner) and not _DELIMITER().match(inner):
            return LOOSE_MATCH
    if comment_only and big("PHRASE").fullmatch(text.rstrip(".:;,!")):
        return SENTENCE
    if noted and comment_only and notes.elides(text) == notes.FIRM:
        return NOTE
    return None


# A line of prose that cannot end a sentence: a trailing comma, article, preposition...
OPEN_END = lazy(
    r"(?:,|\b(?:the|a|an|of|to|and|or|nor|with|for|in|on|at|by|from|as|that|which|who|is|are|was|were|be|been"
    r"|so|but|if|when|then|into|onto|than|all|its|their|our|your|this|these|those|any|each|every|not|will"
    r"|would|should|can|could|may|might|must|we|they|it|you|return|returns|keep|keeps|leave|leaves))$",
    re.IGNORECASE,
)


def vocabulary_lines(texts: Sequence[str], needles: tuple[str, ...] = _ASCII_VOCAB) -> list[int]:
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


# Two words: letters, blanks, letters.  Outside a comment a lone word is code.
TWO_WORDS = lazy(r"[^\W\d_]{2,}\s+\S*[^\W\d_]")
