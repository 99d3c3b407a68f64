"""`placeholder`: added comments that stand in for code ("... existing code ...").

Lazy elision is an agent writing ``# ... rest of the function unchanged ...`` where
the code should be; applied as written, it deletes that code.  Only comments are
judged (found with ``comments.CommentMap``), so Python's Ellipsis, JS spread,
Go/C variadics, Rust ``..``, strings, docstrings and doctests never count.  Only
added lines count, and only phrases the removed lines did not already hold.

Strengths of evidence:
- a comment holding an elision phrase in an ellipsis or brackets (``... existing code
  ...``, ``(keep other methods)``) is a placeholder wherever it is, and so is a bare
  phrase (``rest of the class unchanged``) unless it ends a sentence begun on the
  comment line above, or sits in a doc comment;
- a comment holding only ``...``, or a looser ``... your app logic``, is one when it
  stands alone among code lines and the edit removes code (it stands in for that
  code); inside a run of comments it continues an example or a list, and in a new
  file it deletes nothing;
- such a weak marker still counts when the edit shrinks the file drastically, or when
  the new text ends with it.

Only lines that contain an ellipsis or a trigger word (one regex over the whole
added block) are looked at more closely, and the file is lexed only then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..model import FileChange, Finding
from ..textfile import NotText, decode
from .base import CheckInput, capped, hits, joined, quote
from .comments import CommentMap, Syntax, syntax_for

HINT = "write the full code or leave that region out of the edit"

# The cheap first pass over the joined added lines: an ellipsis or a trigger word.
TRIGGER = re.compile(
    r"\.\.\.|…|\. \. \.|existing|unchanged|rest of|remain|same as|previous|as before|omitted|elided"
    r"|snip|brevity|truncated|other (?:methods|functions)",
    re.IGNORECASE,
)

_ELLIPSIS = r"(?:\.{3,}|…|\. \. \.)"
# A comment body holding only an ellipsis, perhaps bracketed: `...`, `[...]`, `(…)`, `<...>`.
# (Longer runs of dots, `# ......`, are separators.)
DOTS = re.compile(r"[\[(<{]?\s*(?:\.{3,4}|…|\. \. \.)\s*[\])>}]?[;,]?")
# Ellipsis on both sides: `... existing JSX ...`, `... (rest of the method) ...`.
BOTH = re.compile(rf"{_ELLIPSIS}\s*(?P<inner>.*?\S)\s*{_ELLIPSIS}\s*[.;,:]*")
# Only before: `... rest of the method`, `... your app logic`.
LEADING = re.compile(rf"{_ELLIPSIS}\s*(?P<inner>.*?\S)\s*[.;,:]*")
# Only after: `other methods ...`, `your code here...`.
TRAILING = re.compile(rf"(?P<inner>.*?\S)\s*{_ELLIPSIS}\s*[.;,:]*")
# In brackets: `(keep existing code)`, `[rest of file unchanged]`.
BRACKETED = re.compile(r"[\[(<{]\s*(?P<inner>[^\])>}]*?)\s*[\])>}]\s*[.;,:]*")

_CODE = (
    r"(?:code|codes|function|functions|file|files|implementation|implementations|class|classes|method|methods"
    r"|module|body|logic|component|components|script|tests?|test\s+cases?|program|config(?:uration)?|definitions?"
    r"|contents?|loop|block|handlers?|setup|imports?|properties|fields|members|routes|cases|lines|statements"
    r"|arguments|args|parameters|params|options|attributes|styles|rules|markup|html|css|jsx|template|exports"
    r"|helpers|initialization|init|constructor|__init__|main|steps|cells|columns|entries|items|keys|values"
    r"|plugins|dependencies|settings|declarations|types|variables|functionality|page|pages|section|sections"
    r"|document|query|queries|view|views|layout|schema|tables?|migrations?|macros|endpoints|functions|hooks"
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
    rf"(?:keep|keeping|retain|preserve|leave)s?\s+{_OWNER}(?:existing|other|remaining|previous|original|current)"
    rf"\s+{_WORDS}{_CODE}(?:\s+(?:unchanged|as\s+is|the\s+same|as\s+before|here|intact))?"
)
_SHORT = (
    r"same\s+as\s+before|previous\s+code(?:\s+here)?|unchanged\s+code|code\s+unchanged|<?snip>?"
    rf"|(?:{_CODE}\s+)(?:omitted|elided|truncated|snipped)(?:\s+for\s+brevity)?|omitted\s+for\s+brevity"
)

# Phrases that elide code as a whole comment, without ellipsis or brackets.
PHRASE = re.compile(
    "|".join((
        rf"{_OWNER}(?:rest|remainder)\s+of\s+{_OWNER}{_WORDS}{_CODE}{_SUFFIX}",
        _KEEP,
        rf"{_OWNER}(?:existing|previous|original|prior|old|other|unchanged)\s+{_WORDS}{_CODE}{_SUFFIX}",
        rf"{_CODE}\s+(?:is|are|remains?|stays?)\s+unchanged",
        rf"(?:your|the)\s+{_WORDS}{_CODE}\s+(?:goes\s+|go\s+)?here",
        _SHORT,
    )),
    re.IGNORECASE,
)
# Inside an ellipsis or brackets, the suffix may go: `... existing code ...`, `(other methods)`.
TIGHT = re.compile(
    rf"(?:{PHRASE.pattern})"
    rf"|{_OWNER}(?:rest|remainder)\s+of\s+{_OWNER}{_WORDS}{_CODE}"
    rf"|{_OWNER}(?:existing|other|remaining|previous|original|prior|unchanged|more|your)\s+{_WORDS}{_CODE}"
    r"|existing|unchanged|omitted|snip|snipped|as\s+before|rest",
    re.IGNORECASE,
)
# After a leading ellipsis, an elision word with a code noun, in either order.
LOOSE = re.compile(
    rf".*\b(?:existing|rest|remaining|unchanged|same|previous|prior|other|omitted|elided|original|keep|kept"
    rf"|your)\b.*\b{_CODE}\b.*"
    rf"|.*\b{_CODE}\b.*\b(?:unchanged|remains?|omitted|elided|here|continues|as\s+before|same)\b.*",
    re.IGNORECASE,
)
# An opening marker or a closing one, stripped from a comment before judging its body.
_OPEN = re.compile(r"^\s*(?:<!--|\{-|--\[\[|/\*+!?|//+[!/]?|#+!?|--+|;+|%+|!+|\*+(?!/))\s*")
_CLOSE = re.compile(r"\s*(?:-->|-\}|\]\]|\*+/)\s*$")

_DOC = ("///", "//!", "/**", "/*!")

STRONG, SENTENCE, LOOSE_MATCH, DOTS_ONLY = "strong", "sentence", "loose", "dots"
# `... end original code`, `... begin generated part`: region delimiters, not stand-ins.
_DELIMITER = re.compile(r"(?:end|begin|start|stop)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Marker:
    line: int  # 1-based, in the new file
    text: str  # the whole added line
    phrase: str  # the comment body that elides
    strong: bool  # a placeholder by itself; weak ones count only with a shrink or at the end


def body(comment: str) -> str:
    text = _CLOSE.sub("", _OPEN.sub("", comment, count=1), count=1)
    return text.strip().strip("*").strip()


def _inner(m: re.Match[str] | None) -> str | None:
    return m.group("inner").strip(" ()[]<>{}.:;,") if m else None


def judge(text: str, comment_only: bool) -> str | None:
    """How a comment body elides code: STRONG, SENTENCE (a bare phrase), LOOSE_MATCH, DOTS_ONLY, or None."""
    if not text:
        return None
    if DOTS.fullmatch(text):
        return DOTS_ONLY
    inner = _inner(BOTH.fullmatch(text)) or _inner(BRACKETED.fullmatch(text)) or _inner(TRAILING.fullmatch(text))
    if inner is not None and TIGHT.fullmatch(inner):
        return STRONG
    inner = _inner(LEADING.fullmatch(text))
    if inner is not None:
        if TIGHT.fullmatch(inner):
            return STRONG
        if LOOSE.fullmatch(inner) and not _DELIMITER.match(inner):
            return LOOSE_MATCH
    if comment_only and PHRASE.fullmatch(text.rstrip(".:;,!")):
        return SENTENCE
    return None


# A line of prose that cannot end a sentence: a trailing comma, article, preposition...
_OPEN_END = re.compile(
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
    return bool(texts and _OPEN_END.search(texts[-1]))


def _neighbours_are_comments(cmap: CommentMap, i: int) -> bool:
    lines = cmap.lines
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines) and not lines[j].strip():
            j += step
        if 0 <= j < len(lines) and cmap.comment_only(j):
            return True
    return False


def markers(change: FileChange, syntax: Syntax, lines: tuple[str, ...], candidates: list[tuple[int, str]]) -> list[Marker]:
    """The placeholder markers among `candidates` ((line number, text) of added lines)."""
    if not candidates:
        return []
    upto = candidates[-1][0]
    while upto < len(lines) and not lines[upto].strip():
        upto += 1
    cmap = CommentMap(lines, syntax, upto)
    # A bare `...` replacing code deletes it; in a new file it only leaves a stub.
    replaces_code = bool(change.removed)
    found: list[Marker] = []
    for number, text in candidates:
        i = number - 1
        if i >= len(lines):
            continue
        only = cmap.comment_only(i)
        kind: str | None = None
        phrase = ""
        for comment, opens in cmap.comments(i):
            phrase = body(comment)
            # Doc comments state behaviour ("all other fields are unchanged"): only an
            # ellipsis or brackets make them suspect.
            doc = comment.lstrip().startswith(_DOC)
            # The middle of a /* ... */ block is prose (or an example in it), not a stand-in.
            kind = judge(phrase, only and not doc) if opens else (DOTS_ONLY if DOTS.fullmatch(phrase) else None)
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


def check(inp: CheckInput, level: str) -> list[Finding]:
    policy = inp.policy
    extra = _compiled(policy.placeholder_patterns)
    exempt = _compiled(policy.placeholder_exempt)
    findings: list[Finding] = []
    for change in inp.changes:
        if change.after is None or not change.added:
            continue
        block = joined(change)
        candidates = [(n, t) for _i, n, t in hits(change, TRIGGER, block)]
        if exempt is not None:
            candidates = [(n, t) for n, t in candidates if not exempt.search(t)]
        found: list[Marker] = []
        if candidates:
            try:
                lines = decode(change.after).lines
            except NotText:
                continue
            found = markers(change, syntax_for(change.path), lines, candidates)
        if extra is not None:
            for _i, n, t in hits(change, extra, block):
                m = extra.search(t)
                if m and not (exempt is not None and exempt.search(t)):
                    found.append(Marker(n, t, m.group(), True))
        found = _new_only(change, found)
        findings.extend(_findings(change, found, level))
    return capped(findings)


def _new_only(change: FileChange, found: list[Marker]) -> list[Marker]:
    """Drop markers the removed lines already held: moving a placeholder is not adding one."""
    if not found or not change.removed:
        return found
    old_lines = {_norm(t) for _n, t in change.removed}
    old_text = "\n".join(old_lines)
    return [m for m in found if _norm(m.text) not in old_lines and _norm(m.phrase) not in old_text]


def _findings(change: FileChange, found: list[Marker], level: str) -> list[Finding]:
    path = change.path
    out = [
        Finding("placeholder", level, path, m.line,
                f"{path}:{m.line}: the added line {quote(m.text)} stands in for code ({m.phrase!r}); "
                "applied as written it would delete that code", HINT)
        for m in found if m.strong
    ]
    weak = [m for m in found if not m.strong]
    if not weak or change.before is None or change.after is None:
        return out
    old_n, new_n = _line_count(change.before), _line_count(change.after)
    if new_n < old_n * 0.5 and old_n - new_n > 20:
        m = weak[0]
        out.append(Finding(
            "placeholder", level, path, m.line,
            f"{path}:{m.line}: the edit shrinks the file from {old_n} to {new_n} lines around {quote(m.text)}; "
            "the marker looks like elided code", HINT))
    elif new_n < old_n and weak[-1].line == _last_nonblank(change.after):
        m = weak[-1]
        out.append(Finding(
            "placeholder", level, path, m.line,
            f"{path}:{m.line}: the new text ends with {quote(m.text)} and is shorter than before; "
            "the rest of the file looks elided", HINT))
    return out


def _last_nonblank(data: bytes) -> int:
    lines = data.split(b"\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1
    return 0
