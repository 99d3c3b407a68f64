"""Comment syntax by file name, and a light lexer that finds the comments in a text.

The placeholder check judges comments only, so it must know that ``# ...`` inside a
Python string or docstring is not a comment, that a line in the middle of a
``/* ... */`` block is one, and which lines are comment-only.  A full parser per
language is not needed for that: one compiled regex per syntax matches strings and
comments left to right (``re.finditer`` skips the code between them in C), which
is right for ordinary code.  A string the lexer cannot follow (a Rust lifetime, a JS
regex literal) is single-line, so a misreading stays on its line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Sequence

from ..fs.kept import by_value
from ..text.regex import lazy


@dataclass(frozen=True, slots=True)
class Syntax:
    name: str
    line: tuple[str, ...] = ()  # line-comment openers, as regexes
    block: tuple[tuple[str, str], ...] = ()  # (open, close) literals
    quotes: str = ""  # quote characters of single-line strings
    spanning: str = ""  # quote characters of strings that may span lines (JS templates, Go raw)
    triple: str = ""  # quote characters that form triple-quoted strings (Python, Kotlin)
    bare_ellipsis: bool = False  # a line holding only `...` cannot be code here (C, JS, Go...)
    code: bool = True  # a programming language (a bare `…` cannot be code either)
    lexed: bool = True  # False: unknown file type, only whole-line comments are recognised
    marks: tuple[str, ...] = ()  # literal strings every comment starts with (a cheap first filter)


_HASH_WORD = r"(?<![^\s])#"  # shell, YAML, Makefile...: `#` starts a comment only at a word start
# C and C++ put varargs `...` on a line of its own in long prototypes: no bare_ellipsis.
C_LIKE = Syntax("c", (r"//",), (("/*", "*/"),), "\"'", marks=("//", "/*"))
JS = Syntax("javascript", (r"//",), (("/*", "*/"),), "\"'", spanning="`", bare_ellipsis=True, marks=("//", "/*"))
JVM = Syntax("jvm", (r"//",), (("/*", "*/"),), "\"'", triple='"', bare_ellipsis=True, marks=("//", "/*"))
RUST = Syntax("rust", (r"//",), (("/*", "*/"),), '"', bare_ellipsis=True, marks=("//", "/*"))  # `'a` is a lifetime
PHP = Syntax("php", (r"//", r"#(?!\[)"), (("/*", "*/"),), "\"'", bare_ellipsis=True, marks=("//", "#", "/*"))
CSS = Syntax("css", (), (("/*", "*/"),), "\"'", marks=("/*",))
SCSS = Syntax("scss", (r"//",), (("/*", "*/"),), "\"'", marks=("//", "/*"))
PYTHON = Syntax("python", (r"#",), (), "\"'", triple="\"'", marks=("#",))
HASH = Syntax("hash", (_HASH_WORD,), (), "\"'", marks=("#",))
INI = Syntax("ini", (r"^[ \t]*[;#]",), (), "", code=False, marks=(";", "#"))
MARKUP = Syntax("markup", (), (("<!--", "-->"),), "", code=False, marks=("<!--",))
# Vue, Svelte: markup with scripts and styles; no strings, prose has apostrophes.
COMPONENT = Syntax("component", (r"(?<![:\w])//",), (("<!--", "-->"), ("/*", "*/")), "", marks=("//", "<!--", "/*"))
SQL = Syntax("sql", (r"--",), (("/*", "*/"),), "'\"", marks=("--", "/*"))
LUA = Syntax("lua", (r"--(?!\[\[)",), (("--[[", "]]"),), "'\"", marks=("--",))
HASKELL = Syntax("haskell", (r"--",), (("{-", "-}"),), '"', marks=("--", "{-"))
LISP = Syntax("lisp", (r";",), (), '"', marks=(";",))
TEX = Syntax("tex", (r"(?<!\\)%",), (), "", code=False, marks=("%",))
ERLANG = Syntax("erlang", (r"%",), (), '"', marks=("%",))
FORTRAN = Syntax("fortran", (r"!",), (), "\"'", marks=("!",))
# Anything else: whole-line comments in every common syntax, no string awareness.
GENERIC = Syntax(
    "generic",
    ("#", "//", "--", ";", "%", "/*", "<!--", "*"),
    lexed=False,
    code=False,
    marks=("#", "//", "--", ";", "%", "/*", "<!--", "*"),
)

_BY_SUFFIX: dict[str, Syntax] = {}
for _syntax, _suffixes in (
    (C_LIKE, "c h cc cpp cxx c++ hh hpp hxx h++ ino cs m mm cu cuh proto zig sol v"),
    (JS, "js jsx mjs cjs ts tsx mts cts go json5 jsonc"),
    (JVM, "java kt kts scala sc groovy gradle swift dart"),
    (RUST, "rs"),
    (PHP, "php phtml"),
    (CSS, "css"),
    (SCSS, "scss sass less styl"),
    (PYTHON, "py pyi pyw pyx pxd"),
    (
        HASH,
        "sh bash zsh ksh fish rb pl pm t r yaml yml toml cfg conf mk cmake nim jl ex exs cr ps1 "
        "psm1 tcl awk coffee gitignore gitattributes dockerignore editorconfig properties env nix tf hcl",
    ),
    (INI, "ini"),
    (MARKUP, "html htm xhtml xml svg xsd xsl md markdown mdx"),
    (COMPONENT, "vue svelte astro"),
    (SQL, "sql"),
    (LUA, "lua"),
    (HASKELL, "hs lhs elm purs"),
    (LISP, "lisp lsp cl el clj cljs cljc edn scm ss rkt asm s"),
    (TEX, "tex sty cls bib"),
    (ERLANG, "erl hrl"),
    (FORTRAN, "f90 f95 f03 f08"),
):
    for _suffix in _suffixes.split():
        _BY_SUFFIX[_suffix] = _syntax

_BY_NAME = {
    "makefile": HASH,
    "gnumakefile": HASH,
    "dockerfile": HASH,
    "containerfile": HASH,
    "cmakelists.txt": HASH,
    "gemfile": HASH,
    "rakefile": HASH,
    "vagrantfile": HASH,
    "podfile": HASH,
    "brewfile": HASH,
    "justfile": HASH,
    "procfile": HASH,
    "build": PYTHON,
    "workspace": PYTHON,
    "sconstruct": PYTHON,
    "sconscript": PYTHON,
    ".bashrc": HASH,
    ".profile": HASH,
    ".zshrc": HASH,
    "jenkinsfile": JVM,
}


def syntax_for(path: str) -> Syntax:
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("dockerfile"):
        return HASH
    stem, dot, suffix = name.rpartition(".")
    if dot and stem == "" and suffix in _BY_SUFFIX:  # `.gitignore`, `.env`
        return _BY_SUFFIX[suffix]
    return _BY_SUFFIX.get(suffix, GENERIC) if dot else GENERIC


# An opening marker or a closing one, stripped from a comment before judging its body.
OPEN_MARK = lazy(r"^\s*(?:<!--|\{-|--\[\[|/\*+!?|//+[!/]?|#+!?|--+|;+|%+|!+|\*+(?!/))\s*")
_CLOSE_MARK = lazy(r"\s*(?:-->|-\}|\]\]|\*+/)[\s});,]*$")  # JSX: `{/* ... */}`


def body(comment: str) -> str:
    """A comment's text without its opening and closing marks."""
    text = _CLOSE_MARK().sub("", OPEN_MARK().sub("", comment, count=1), count=1)
    return text.strip().strip("*").strip()


def _alternatives(syntax: Syntax) -> tuple[list[str], list[str], list[str]]:
    """The regex alternatives both lexers are made of: a comment of each kind, what opens one,
    and a string of each kind (an unclosed block comment or string runs to the end)."""
    comments: list[str] = []
    for open_, close in syntax.block:
        comments.append(re.escape(open_) + r"[\s\S]*?(?:" + re.escape(close) + r"|\Z)")
    comments.extend(opener + r"[^\n]*" for opener in syntax.line)
    openers = [re.escape(open_) for open_, _close in syntax.block] + list(syntax.line)
    strings: list[str] = []
    for q in syntax.triple:
        strings.append(re.escape(q * 3) + r"[\s\S]*?(?:" + re.escape(q * 3) + r"|\Z)")
    for q in syntax.spanning:
        strings.append(f"{q}(?:[^{q}\\\\]|\\\\[\\s\\S])*(?:{q}|\\Z)")
    for q in syntax.quotes:
        strings.append(f"{q}(?:[^{q}\\\\\\n]|\\\\[\\s\\S])*{q}")
    return comments, openers, strings


@by_value(None)
def _lexer(syntax: Syntax) -> re.Pattern[str]:
    """One match per comment: everything up to it (code, strings, newlines), then the comment.

    Matching strings inside the match, not as matches of their own, keeps the Python
    loop over the matches down to one turn per comment.
    """
    comments, openers, strings = _alternatives(syntax)
    # Characters that may start something: everything else is plain code, taken in runs.
    specials = "".join(sorted({"\n", *(m[0] for m in syntax.marks), *syntax.quotes, *syntax.spanning, *syntax.triple}))
    cls = "".join("\\" + c if c in "\\]^-[" else c for c in specials)
    lead = [f"[^{cls}]+", *strings]
    if openers:
        # A special character that opens no comment (a lone quote, a `/` dividing) is code.
        lead.append(f"(?!{'|'.join(openers)})[{cls}]")
    else:
        lead.append(f"[{cls}]")
    tail = f"(?P<c>{'|'.join(comments)})|\\Z" if comments else r"\Z"
    return re.compile(f"(?:{'|'.join(lead)})*(?:{tail})", re.MULTILINE)


class CommentMap:
    """Where the comments are in `lines` (a file's lines without terminators)."""

    def __init__(self, lines: Sequence[str], syntax: Syntax, upto_line: int | None = None) -> None:
        self.lines = lines
        self.syntax = syntax
        self.spans: list[tuple[int, int]] = []
        self.starts: list[int] = []
        if not syntax.lexed:
            return
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1
        end = len(lines) if upto_line is None else min(len(lines), upto_line + 1)
        text = "\n".join(lines[:end])
        for m in _lexer(syntax).finditer(text):
            if m.lastgroup == "c":
                self.spans.append(m.span("c"))
            elif m.end() == len(text):
                break
        self._span_starts = [s for s, _e in self.spans]

    def comments(self, i: int) -> list[tuple[str, bool]]:
        """The comments on line `i` (0-based): (text with its opener, opens on this line)."""
        line = self.lines[i]
        if not self.syntax.lexed:
            stripped = line.lstrip()
            return [(stripped, True)] if stripped.startswith(self.syntax.line) else []
        start = self.starts[i]
        stop = start + len(line)
        k = bisect_right(self._span_starts, stop) - 1
        found: list[tuple[str, bool]] = []
        while k >= 0 and self.spans[k][1] > start:
            s, e = self.spans[k]
            if s < stop:
                found.append((line[max(s, start) - start : min(e, stop) - start], s >= start))
            k -= 1
        return found[::-1]

    def comment_only(self, i: int) -> bool:
        """Line `i` holds a comment and nothing else (JSX's `{/* */}` braces aside)."""
        line = self.lines[i]
        if not line.strip():
            return False
        if not self.syntax.lexed:
            return bool(self.comments(i))
        start = self.starts[i]
        stop = start + len(line)
        rest = list(line)
        k = bisect_right(self._span_starts, stop) - 1
        covered = False
        while k >= 0 and self.spans[k][1] > start:
            s, e = self.spans[k]
            for j in range(max(s, start) - start, min(e, stop) - start):
                rest[j] = " "
            covered = True
            k -= 1
        return covered and not "".join(rest).strip(" \t{}")


@by_value(None)
def _token_lexer(syntax: Syntax) -> re.Pattern[str]:
    """One match per token: a comment (group ``c``), a string (group ``s``), or a run of code.

    The same alternatives as ``_lexer``, but strings are tokens of their own: what a line
    holds outside comments and strings is its code.
    """
    comments, openers, strings = _alternatives(syntax)
    # A newline need not end a run of code unless a comment opener is anchored at a line's start (INI).
    anchored = any(opener.startswith("^") for opener in syntax.line)
    specials = "".join(
        sorted({*("\n" if anchored else ""), *(m[0] for m in syntax.marks), *syntax.quotes, *syntax.spanning, *syntax.triple})
    )
    cls = "".join("\\" + c if c in "\\]^-[" else c for c in specials)
    parts = []
    if comments:
        parts.append(f"(?P<c>{'|'.join(comments)})")
    if strings:
        parts.append(f"(?P<s>{'|'.join(strings)})")
    parts.append(f"[^{cls}]+")
    parts.append(f"(?!{'|'.join(openers)})[{cls}]" if openers else f"[{cls}]")
    return re.compile("|".join(parts), re.MULTILINE)


class Spans:
    """Where the comments and the strings are in `lines` (a file's lines without terminators),
    lexed up to line `upto` (0-based, inclusive; None: all), for asking what one line holds
    outside them (``residue``).  A file whose comment syntax is not known (``Syntax.lexed``
    False) has whole-line comments only, and no strings."""

    def __init__(self, lines: Sequence[str], syntax: Syntax, upto: int | None = None) -> None:
        self.lines = lines
        self.syntax = syntax
        self.starts: list[int] = []
        self.spans: list[tuple[int, int, str]] = []  # (start, end, "c" or "s"), in text order
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1
        if not syntax.lexed:
            return
        end = len(lines) if upto is None else min(len(lines), upto + 1)
        text = "\n".join(lines[:end])
        for m in _token_lexer(syntax).finditer(text):
            kind = m.lastgroup
            if kind is not None:
                self.spans.append((m.start(), m.end(), kind))
        self._span_starts = [s for s, _e, _k in self.spans]

    def pieces(self, i: int) -> list[tuple[str, str]]:
        """(kind, text) of the comments ("c") and strings ("s") on line `i` (0-based), in order;
        a piece of a comment or string that spans lines is cut at the line's ends."""
        line = self.lines[i]
        if not self.syntax.lexed:
            stripped = line.lstrip()
            return [("c", stripped)] if stripped.startswith(self.syntax.line) else []
        start = self.starts[i]
        stop = start + len(line)
        k = bisect_right(self._span_starts, stop) - 1
        found: list[tuple[str, str]] = []
        while k >= 0 and self.spans[k][1] > start:
            s, e, kind = self.spans[k]
            if s < stop:
                found.append((kind, line[max(s, start) - start : min(e, stop) - start]))
            k -= 1
        return found[::-1]

    def opens(self, i: int) -> list[tuple[str, int]]:
        """(kind, line index of its end) of each comment or string that starts on line `i`."""
        if not self.syntax.lexed:
            return []
        start = self.starts[i]
        stop = start + len(self.lines[i])
        k = bisect_right(self._span_starts, stop) - 1
        out: list[tuple[str, int]] = []
        while k >= 0 and self.spans[k][0] >= start:
            s, e, kind = self.spans[k]
            if s <= stop:
                out.append((kind, bisect_right(self.starts, max(e - 1, s)) - 1))
            k -= 1
        return out[::-1]

    def residue(self, i: int) -> str:
        """Line `i` with its comments and strings blanked out (each character a space)."""
        line = self.lines[i]
        if not self.syntax.lexed:
            return "" if line.lstrip().startswith(self.syntax.line) else line
        start = self.starts[i]
        stop = start + len(line)
        chars = list(line)
        k = bisect_right(self._span_starts, stop) - 1
        while k >= 0 and self.spans[k][1] > start:
            s, e, _kind = self.spans[k]
            for j in range(max(s, start) - start, min(e, stop) - start):
                chars[j] = " "
            k -= 1
        return "".join(chars)
