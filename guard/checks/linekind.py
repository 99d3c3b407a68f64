"""What a line of a change does: code, a comment, a string statement, a statement that does
nothing, a stub, a line that only closes something, or nothing (blank).

The stand-in rule (``standin``) asks it of the lines an edit removes and of those it puts in their
place.  Comments and strings are found by the file's comment syntax (``comments.Spans``); what a
line holds outside them is its code, held to the patterns below.  A line longer than
``MAX_LINE`` is code and is not judged, so no pattern runs long on an agent's input.
"""

from __future__ import annotations

import re

from ..text.regex import lazy
from ..text.textfile import decode
from . import notes
from .comments import Spans, Syntax, body

MAX_LINE = 1000  # characters of the longest line that may stand in for code (``phrases.MAX_LINE``)
BLANK, CLOSER, COMMENT, STRING, EMPTY, STUB, CODE = "blank", "closer", "comment", "string", "empty", "stub", "code"
DOES_NO_WORK = (COMMENT, STRING, EMPTY, STUB)


# Only closes something, or ends a statement: brackets, `end`, shell's `fi`/`done`/`esac`, an end tag.
CLOSES = lazy(r"(?:[)\]}>;,]|\bend\b|\bfi\b|\bdone\b|\besac\b|\bendif\b|</[\w:.-]+>|\s)+")

# A statement that does nothing: an ellipsis, `pass`, shell's `:`, an empty block (`{}`), `null;`,
# a loop body that only goes on to the next item (`continue`, `next`), a value thrown away
# (`(void)lines;`, `_ = line`, `let _ = x;`), a value set to itself or changed by nothing
# (`total = total`, `total += 0`), `assert true`, an element holding nothing but an ellipsis, a TODO,
# lorem ipsum or a note in brackets (`<li>...</li>`), an ellipsis in brackets.  (Not a lone `None` or
# `nil`: as a block's last expression, in Rust or Ruby, it is the value the block gives.)
_EMPTY = lazy(
    r"(?:\.\.\.|…|\. \. \.|pass|continue|next|[\[({]\s*(?:\.\.\.|…)\s*[\])}]|\{\s*\}|(?:null|undefined)\s*;"
    r"|(?:\(void\)|void\s)\s*[\w\[\].>-]+|_\s*=\s*\w+"
    r"|let\s+_\s*=\s*\w+|assert\s*\(?\s*(?:true|True|1)\s*\)?(?:\s*[:,].*)?"
    r"|<([\w:-]+)(?:\s[^<>]*)?>\s*(?:\.{2,}|…|(?i:TODO|TBD|FIXME|lorem\s+ipsum[^<]*)|\[[^\]<]*\])?\s*</\1\s*>)\s*[;,]?"
    # a value set to itself, or changed by nothing, as a statement (`x=x,` in a call passes a value)
    r"|(\$?\w+)\s*=\s*\2\s*;?|\$?\w+\s*[-+]=\s*0\s*;?",
)

# A select list's stand-in: a constant where the columns were (`NULL`, `1 AS placeholder`).
_SQL_EMPTY = lazy(r"(?:NULL|\d+|''|\*)(?:\s+AS\s+\w+)?\s*,?", re.IGNORECASE)

_SHELL_EMPTY = lazy(r"(?::|true)\s*;?")

_SHELL_WRITTEN = lazy(r"(?::|true)(?:\s+(?:\"[^\"]*\"|'[^']*'|[^\s;]+))*\s*;?")  # `: "loop body omitted"`

_IF_ZERO = lazy(r"#\s*if\s+0\b.*")
_PREPROCESSOR_CLOSE = lazy(r"#\s*(?:endif|else)\b.*")
NOTHING = lazy(r"\s*(?:\.\.\.|…|pass|:|true|;)\s*")  # what did nothing where it was, too

# A stub, as a statement: Rust's `todo!()`/`unimplemented!()`, Kotlin's `TODO()`, a raise or throw of
# NotImplementedError, NotImplementedException, UnsupportedOperationException.  (Not `return
# NotImplemented`, Python's answer for an operator it does not support, nor a tuple naming the class.)
STUB_NAME = lazy(
    r"(?:return\s+)?(?:(?:todo|unimplemented)!\s*[(\[{]|TODO\s*\(|(?:raise|throw)\s+(?:new\s+)?(?:[\w.\\]*[.\\])?"
    r"(?:NotImplemented(?:Error|Exception)|UnsupportedOperationException)\b)"
)

# A statement that fails on purpose, or gives a dummy value: a stub when what it says is "not
# implemented" or "todo" (`return 0.0; // TODO`).
_FAILS = lazy(
    r"(?:raise|throw|panic|fatalError|abort|die|exit|assert|unreachable!?|process\.exit|echo|trigger_error)\b"
    r"|return\s+(?:0(?:\.0)?|-1|null|None|nil|false|False|\"\"|''|\[\]|\{\}|\w+\(\))\s*;?\s*$"
)

RAISES = lazy(r"(?:raise|throw|panic|fatalError)\b")  # a statement whose work is to fail

_SAYS_STUB = lazy(
    r"\b(?:todo|fixme|tbd|not\s+(?:yet\s+)?implemented|unimplemented|implement\s+(?:me|later|this)"
    r"|fill\s+(?:it\s+)?in)\b",
    re.IGNORECASE,
)

# A definition's first line (or a decorator or attribute above one), or an import: a top-level item.
# Also JavaScript's `x.y = function` and a shell function's `name() {`; and `var`/`let`/`const` at
# the start of a line: a top-level binding (indented, it is a statement of a body).
DEFINITION = lazy(
    r"\s*(?:@|#\[|#include\b|(?:(?:pub(?:\([\w:]+\))?|export|default|async|public|private|protected|internal"
    r"|static|final|abstract|override|open|inline|extern|unsafe|const)\s+)*(?:def|fn|func|function|class|struct|enum"
    r"|trait|impl|interface|type|module|mod|macro_rules!|object|record|namespace|package|sub|defun|defn|CREATE|import"
    r"|from|use|require)\b|[\w$.]+\s*=\s*(?:async\s+)?function\b|[\w-]+\s*\(\)\s*\{?\s*$)"
    r"|(?:var|let|const)\s"
)


def may_do_nothing(text: str, syntax: Syntax) -> bool:
    """The cheap first test: the added line `text` may be a line that does no work (or only
    closes something, or be blank).  Lines of code fail it at once, most at their first
    character; a line inside a docstring or block comment may pass or not, and the lexer
    settles it for any region that has one line opening such a text."""
    if len(text) > MAX_LINE:
        return False  # a stand-in is a short line; a longer one is not judged, so no pattern runs long
    t = text.strip()
    if not t or t.startswith(syntax.marks) or t[0] in "\"'`*" or t[0] in syntax.quotes:
        return True
    cut = min((p for p in map(t.find, syntax.marks) if p > 0), default=-1)
    if cut > 0:
        t = t[:cut].rstrip()  # the code before a comment: `pass  # unchanged`, `; /* same */`
    if CLOSES().fullmatch(t) or _EMPTY().fullmatch(t) or _SHELL_EMPTY().fullmatch(t):
        return True
    if (syntax.name == "sql" and _SQL_EMPTY().fullmatch(t)) or (syntax.name == "hash" and t == "nil"):
        return True
    return bool(STUB_NAME().match(t) or (_FAILS().match(t) and _SAYS_STUB().search(t)))


def opens_text(text: str, syntax: Syntax) -> bool:
    """The line opens a text that may go on over the next lines: a triple-quoted or spanning
    string, or a block comment."""
    return (
        any(q * 3 in text for q in syntax.triple)
        or any(q in text for q in syntax.spanning)
        or any(o in text for o, _c in syntax.block)
    )


class Lexed:
    """A text's lines, and where its comments and strings are up to a line: lexed when first
    asked for (most edits have no candidate region), and again only to reach further."""

    _AHEAD = 40  # lines lexed past the one asked for: the lines after a note say what it heads

    def __init__(self, data: bytes | None, syntax: Syntax) -> None:
        self.data = data
        self.syntax = syntax
        self._lines: tuple[str, ...] | None = None
        self._spans: Spans | None = None
        self._upto = -1

    def spans(self, upto: int) -> Spans:
        """The spans, lexed at least through line `upto` (1-based)."""
        if self._lines is None:
            self._lines = decode(self.data).lines if self.data is not None else ()
        if self._spans is None or upto > self._upto:
            self._upto = upto + self._AHEAD
            self._spans = Spans(self._lines, self.syntax, self._upto)
        return self._spans


def line_kind(sp: Spans, i: int, python: bool) -> tuple[str, str]:
    """(kind, the text it says) of line `i` of `sp`: BLANK, CLOSER, COMMENT, STRING, EMPTY, STUB or CODE."""
    line = sp.lines[i]
    if not line.strip():
        return BLANK, ""
    if len(line) > MAX_LINE:
        return CODE, ""  # never a stand-in (``may_do_nothing``), and never judged
    pieces = sp.pieces(i)
    said = " ".join(body(t) if k == "c" else t.strip(" \t\"'`") for k, t in pieces).strip()
    notes_said = " ".join(body(t) for k, t in pieces if k == "c").strip()
    if i == 0 and line.startswith("#!"):
        return CODE, ""  # a script's interpreter line
    code = " ".join(sp.residue(i).split())
    if code in ("", ";"):  # a comment, a string statement, or an empty statement with a note on it
        if any(k == "c" for k, _t in pieces):
            return COMMENT, said
        if pieces:
            return (STRING, said) if _string_statement(sp, i, python, said) else (CODE, said)
        return (EMPTY if code == ";" and sp.syntax.code and not _continues(sp, i) else CLOSER), said
    if CLOSES().fullmatch(code) or (sp.syntax.name == "c" and _PREPROCESSOR_CLOSE().fullmatch(code)):
        return (CODE if any(k == "s" for k, _t in pieces) else CLOSER), said  # `"a",`: an item of data
    if _does_nothing(sp, i, code, pieces):
        return EMPTY, said
    if STUB_NAME().match(code) or (_FAILS().match(code) and _SAYS_STUB().search(line)):
        return STUB, said
    return CODE, notes_said


def _does_nothing(sp: Spans, i: int, code: str, pieces: list[tuple[str, str]]) -> bool:
    """Line `i`, whose code outside comments and strings is `code`, is a statement that does nothing."""
    name = sp.syntax.name
    if (name == "c" and _IF_ZERO().fullmatch(code)) or (name == "hash" and code == "nil"):
        return True  # `#if 0`: what follows up to `#endif` is not compiled; Ruby's nil as a statement
    shell, sql = name == "hash", name == "sql"
    if not (_EMPTY().fullmatch(code) or (shell and _SHELL_EMPTY().fullmatch(code)) or (sql and _SQL_EMPTY().fullmatch(code))):
        return False
    # The line as written, but for its comments, must be the statement too: where the lexer lost
    # its way in a string or regex before this line (minified code), `...` inside a template
    # literal would read as one.
    written = sp.lines[i]
    for kind, text in pieces:
        if kind == "c":
            written = written.replace(text, " ", 1)
    written = " ".join(written.split())
    if not (
        _EMPTY().fullmatch(written)
        or (shell and _SHELL_WRITTEN().fullmatch(written))
        or (sql and _SQL_EMPTY().fullmatch(written))
    ):
        return False
    return not (code.startswith(("...", "…")) and _continues(sp, i))  # varargs, or a call's arguments


def _continues(sp: Spans, i: int) -> bool:
    """The line before `i` with code leaves a list open (`,`, `(`): line `i` goes on with it."""
    k = i - 1
    while k >= 0:
        code = sp.residue(k).rstrip()
        if code.strip():
            return code.endswith((",", "(", "["))
        k -= 1
    return False


def _string_statement(sp: Spans, i: int, python: bool, said: str) -> bool:
    """Line `i`, which holds only (a piece of) a string, is a string statement: in Python a
    docstring or a string written as a statement (not an item of a list, an argument or an
    operand: the code before it on the line where it starts ends a statement); elsewhere, a
    string is data unless what it says is an elision note."""
    if not python:
        return bool(_EMPTY().fullmatch(said)) or notes.elides(said, 2) is not None
    start = i
    while start > 0 and not any(k == "s" for k, _e in sp.opens(start)):
        start -= 1
    first = sp.lines[start]
    if sp.residue(start)[: len(first) - len(first.lstrip())].strip() or sp.residue(start).strip():
        return False  # code before or after the string on its first line: `x = """...`
    k = start - 1
    while k >= 0:
        code = sp.residue(k).rstrip()
        if code.strip():
            return not code.endswith(("(", "[", "{", ",", "=", "+", "-", "*", "/", "%", "\\", "and", "or", "not", "in"))
        k -= 1
    return True


def width(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
