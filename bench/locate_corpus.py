"""Locate benchmark: real source files, realistic edits, the models' mistakes injected.

The corpus is built at run time from source files on this machine (never copied
into the repository): the Python standard library, C headers under
/usr/include, and the JavaScript of npm, which ships with node
(/usr/lib/node_modules/npm/lib); for the doc-comment rows also the JavaScript of
npm's own dependencies (/usr/lib/node_modules/npm/node_modules), since npm's lib
has almost no ``/** */`` comments.  From each file a fixed seed picks a few
places and makes an edit there as a developer would (change a line, insert a
comment, delete a line, rewrite a three-line block), renders it in each dialect
as a careful model would, then injects one mistake.  The dialects:

    unified          three lines of context, true line numbers, no `index` line
    unified+index    the same with `diff --git` and an `index` line naming the base blob
    codex            three lines of context; an `@@ def ...` anchor when the lines occur twice
    search-replace   the changed lines plus context until the text occurs once
    json             str_replace ({file_path, old_string, new_string}) likewise, from no context
    json-write       a whole-file write ({file_path, content}); only the `none` and truncation rows
    whole            the whole new file in a fence under its path (--format whole); likewise

The mistakes, by where the right answer comes from.  From the construction, the
intended file byte for byte:

    none                 the clean rendering
    offset               line numbers 3-40 off (unified; Codex with a numbered header)
    recount              the hunk header's counts wrong (unified)
    stray-blank          a blank context line the file does not have, at the hunk's end
    trailing-ws-dropped  the file has trailing blanks in the lines copied; the model dropped them
    trailing-ws-added    the model added trailing blanks to every line it wrote
    indent-dedented      the model removed the lines' common indent (new lines too)
    indent-deeper        the model indented every line one level deeper
    unicode-prettified   the model wrote typographic quotes for ASCII ones (new lines too)
    unicode-in-file      the file has a typographic character the model wrote in ASCII
    eol-lf-on-crlf       an LF edit on a CRLF file
    eol-crlf-on-lf       a CRLF edit on an LF file
    escape-backslashes   every backslash doubled (text JSON-escaped once too often)
    escape-newlines      str_replace text escaped twice: its line breaks arrive as `\\n`
    prose-trigger-words  a comment or docstring line replaced by a real prose line of the same
                         file that says "unchanged", "omitted", "rest of" or "..." (precision)
    codex-empty-trailing     an empty `@@` section right before `*** End Patch`
    codex-empty-between      an empty `@@` section between two hunks
    codex-anchor-first-line  `@@ <line>` where <line> is the hunk's own first old line
    codex-anchor-not-a-line  `@@ <identifier> function`, no line of the file; the body is unique
    codex-context-no-space   one context line written as the file has it, without its space
    codex-path-dot           `*** Update File: ./path`
    codex-path-a             `*** Update File: a/path`

From ``git merge-file -p OURS BASE THEIRS`` (run here, a subprocess): exit 0, the
merged output is the intended file; a conflict, the right answer is a refusal.

    stale-moved          lines added above since the edit's base
    stale-inside         since the base, a line the edit removes changed
    stale-adjoining      since the base, a context line right next to a changed line changed
    stale-1, stale-2     likewise with one or two unchanged lines between it and the change
        (OURS = the base with the edit as the default policy writes it, BASE = the
        committed file, THEIRS = the work tree file with the line changed)
    invented-adjoining, invented-1, invented-2
                         the model's view has a context line the file never had, right next
                         to the change or one or two lines away
    misremembered-adjoining, misremembered-1, misremembered-2
                         a context line misremembered (an identifier renamed, or a comment
                         added), at those distances
        (BASE = VIEW, the file as the edit saw it, OURS = VIEW with the edit,
        THEIRS = the file)

From the construction, a refusal (the intent cannot, or must not, be carried out):

    hallucinated-removed a removed line the file does not have
    ambiguous            too little context: the lines occur twice (and no true line number)
    placeholder          the new text elides kept code with "... existing code ..."
    elision-py-docstring 2-4 lines of a docstring replaced by an elision line
    elision-c-comment    2-4 lines of a C `/* */` or `/** */` comment likewise
    elision-js-doc       2-4 lines of a JS `/** */` doc comment likewise
        (the elision line rotates over `... rest of the function unchanged ...`,
        `(rest of the docstring omitted)` and a bare `rest of the comment unchanged`)
    truncated-marker     a whole-file write that drops the file's last 20-300 lines and
                         ends with a marker comment (`# ... existing code ...`, `// ...`)
    truncated-phrase     one that drops 20-300 lines before the file's last few and holds
                         a strong phrase (`... rest of the file unchanged ...`) in their place
    codex-<habit>-ambiguous  each Codex habit above with a body that occurs twice in the
                         file and an invented anchor (the anchor-first-line one: its anchor)

Each case goes through ``Guard.apply(check=True)`` (parse, locate, policy
checks; nothing written) with the default policy, in a scratch repository
holding the file.  A case is *correct* when it gives the intended file byte for
byte (or is refused, when that is the right answer), *refused* when an intended
edit is refused, and *wrong* when the result differs from the intended file in
any byte, or an edit that must be refused is applied.  The unified cases (no
`index` line) also go through ``git apply`` and GNU ``patch -p1`` (default fuzz
2), side by side.

    python bench/locate_corpus.py [--files 12] [--sites 3] [--seed 6] [--json OUT] [-v]
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV, GitMerge, whitespace_fixed  # bench/, this script's folder, is on the import path

DIALECTS = ("unified", "unified+index", "codex", "search-replace", "json", "json-write", "whole")
PATCHES = DIALECTS[:5]  # the dialects that change part of a file
WHOLE = ("json-write", "whole")
READ_AS = {"unified+index": "unified", "json-write": "json"}  # the --format a dialect is read with
HABITS = ("empty-trailing", "empty-between", "anchor-first-line", "anchor-not-a-line", "context-no-space", "path-dot", "path-a")
APPLY = (
    "none",
    "offset",
    "recount",
    "stray-blank",
    "trailing-ws-dropped",
    "trailing-ws-added",
    "indent-dedented",
    "indent-deeper",
    "unicode-prettified",
    "unicode-in-file",
    "eol-lf-on-crlf",
    "eol-crlf-on-lf",
    "escape-backslashes",
    "escape-newlines",
    "prose-trigger-words",
    *(f"codex-{h}" for h in HABITS),
)
STALE_AT = {"stale-adjoining": 0, "stale-1": 1, "stale-2": 2}
INVENTED_AT = {"invented-adjoining": 0, "invented-1": 1, "invented-2": 2}
MISREMEMBERED_AT = {"misremembered-adjoining": 0, "misremembered-1": 1, "misremembered-2": 2}
GIT = ("stale-moved", "stale-inside", *STALE_AT, *INVENTED_AT, *MISREMEMBERED_AT)
ELISION = {"elision-py-docstring": ("py", "docstring"), "elision-c-comment": ("c", "block"), "elision-js-doc": ("js", "doc")}
REFUSE = (
    "hallucinated-removed",
    "ambiguous",
    "placeholder",
    *ELISION,
    "truncated-marker",
    "truncated-phrase",
    *(f"codex-{h}-ambiguous" for h in HABITS),
)
MISTAKES = APPLY + GIT + REFUSE
PROSE_ROWS = (*ELISION, "prose-trigger-words")  # the rows run on the doc-comment pool too
EXPECTS = ("file", "git: clean", "git: conflict", "refuse")  # where a case's right answer comes from
# Places where a mistake can show (elsewhere it would change nothing).
SITES: dict[str, Callable[[str, tuple[str, ...]], bool]] = {
    "unicode-prettified": lambda ln, lines: '"' in ln or "'" in ln,
    "escape-backslashes": lambda ln, lines: "\\" in ln,
    "indent-dedented": lambda ln, lines: ln[:1] in (" ", "\t"),
    "ambiguous": lambda ln, lines: lines.count(ln) >= 2,
    **{f"codex-{h}-ambiguous": lambda ln, lines: lines.count(ln) >= 2 for h in HABITS},
}
COMMENT = {"py": "#", "c": "/*", "js": "//"}
FENCE_LANG = {"py": "python", "c": "c", "js": "javascript"}
# The elision line, by form and by where it stands.
ELIDED = {
    "dots": {
        "docstring": "... rest of the function unchanged ...",
        "block": "... rest of the function unchanged ...",
        "doc": "... rest of the function unchanged ...",
    },
    "bracket": {
        "docstring": "(rest of the docstring omitted)",
        "block": "(rest of the comment omitted)",
        "doc": "(rest of the comment omitted)",
    },
    "bare": {
        "docstring": "rest of the docstring unchanged",
        "block": "rest of the comment unchanged",
        "doc": "rest of the comment unchanged",
    },
}
FORMS = tuple(ELIDED)
MARKERS = {
    "py": ("# ... existing code ...", "# ..."),
    "c": ("/* ... existing code ... */", "/* ... */"),
    "js": ("// ... existing code ...", "// ..."),
}
TRUNCATED = ("... rest of the file unchanged ...", "(remaining definitions omitted)", "rest of the file unchanged")
TRIGGERS = ("unchanged", "omitted", "rest of", "...", "\u2026")
STRUCTURE = ('"""', "'''", "/*", "*/", "`")  # tokens a prose line must not hold to be swapped safely
KEYWORDS = frozenset(
    [
        "if",
        "else",
        "elif",
        "for",
        "while",
        "return",
        "def",
        "class",
        "import",
        "from",
        "in",
        "is",
        "not",
        "and",
        "or",
        "None",
        "True",
        "False",
        "pass",
        "break",
        "continue",
        "try",
        "except",
        "finally",
        "with",
        "as",
        "lambda",
        "yield",
        "raise",
        "global",
        "self",
        "const",
        "let",
        "var",
        "function",
        "new",
        "this",
        "typedef",
        "struct",
        "enum",
        "union",
        "static",
        "extern",
        "int",
        "char",
        "void",
        "unsigned",
        "long",
        "short",
        "define",
        "include",
        "ifdef",
        "ifndef",
        "endif",
        "undef",
        "const",
        "case",
        "switch",
        "default",
        "do",
        "sizeof",
        "null",
        "undefined",
        "async",
        "await",
    ]
)

Line = tuple[str, str]  # (tag, text); tag "" is a Codex context line written without its space


# --------------------------------------------------------------------------- the source files


@dataclass(frozen=True)
class Source:
    origin: Path
    lang: str
    rel: str  # the path inside the scratch repository
    lines: tuple[str, ...]
    pool: str = "main"  # "docs": drawn for the doc-comment rows only


def _collect(root: Path, pattern: str, lo: int, hi: int, skip: Callable[[Path], bool]) -> list[Path]:
    out: list[Path] = []
    if not root.is_dir():
        return out  # a pool missing on this machine: its rows are skipped
    for p in sorted(root.glob(pattern)):
        if skip(p) or not p.is_file():
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if lo <= text.count("\n") <= hi and "\r" not in text and "\x0c" not in text:
            out.append(p)
    return out


def _source(p: Path, lang: str, rel: str, pool: str = "main") -> Source:
    lines = p.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return Source(p, lang, rel, tuple(lines), pool)


def sources(per_lang: int, rng: random.Random) -> list[Source]:
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    pools = {
        "py": _collect(stdlib, "*.py", 150, 2500, lambda p: p.name.startswith("_")),
        "c": _collect(Path("/usr/include"), "**/*.h", 150, 2500, lambda p: False),
        "js": _collect(Path("/usr/lib/node_modules/npm/lib"), "**/*.js", 80, 2500, lambda p: False),
    }
    out = []
    for lang, pool in pools.items():
        for p in rng.sample(pool, min(per_lang, len(pool))):
            out.append(_source(p, lang, f"src/{lang}/{p.name}"))
    return out


def doc_sources(count: int, rng: random.Random) -> list[Source]:
    """JavaScript with `/** */` doc comments (npm's dependencies), for the doc-comment rows."""
    doc = re.compile(r"^\s*/\*\*\s*$", re.M)
    pool = _collect(
        Path("/usr/lib/node_modules/npm/node_modules"),
        "**/*.js",
        80,
        2500,
        lambda p: p.name.endswith(".min.js") or "/dist/" in str(p),
    )
    pool = [p for p in pool if len(doc.findall(p.read_text(encoding="utf-8"))) >= 2]
    return [_source(p, "js", f"src/js/{p.parent.name}-{p.name}", "docs") for p in rng.sample(pool, min(count, len(pool)))]


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Edit:
    start: int  # 0-based first old line of the change
    old: tuple[str, ...]
    new: tuple[str, ...]
    kind: str
    variant: str = ""  # the elision line's form, and the like

    def apply(self, lines: list[str]) -> list[str]:
        return lines[: self.start] + list(self.new) + lines[self.start + len(self.old) :]


def _indent(s: str) -> str:
    return s[: len(s) - len(s.lstrip(" \t"))]


def _mutate(line: str, rng: random.Random, first: bool = False, tag: str = "_v2") -> str:
    """The line as a developer might change it: an identifier renamed, or a number bumped."""
    words = [m for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]{2,}", line) if m.group() not in KEYWORDS]
    if words:
        m = words[0] if first else rng.choice(words)
        return line[: m.end()] + tag + line[m.end() :]
    nums = list(re.finditer(r"\b\d+\b", line))
    if nums:
        m = rng.choice(nums)
        return line[: m.start()] + str(int(m.group()) + 1) + line[m.end() :]
    return line.rstrip() + f"  /* {tag.strip('_')} */"


def _split_word(line: str) -> str:
    """The line with a word changed in its middle (a str_replace text that held it no longer fits)."""
    words = [m for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]{2,}", line)]
    if not words:
        cut = len(_indent(line)) + max(1, len(line.strip()) // 2)
        return line[:cut] + "~" + line[cut:]
    m = words[0]
    mid = m.start() + len(m.group()) // 2
    return line[:mid] + "Q" + line[mid:]


def _comment(lang: str, ind: str, text: str) -> str:
    c = COMMENT[lang]
    return f"{ind}{c} {text} */" if c == "/*" else f"{ind}{c} {text}"


def make_edit(src: Source, i: int, kind: str, rng: random.Random) -> Edit | None:
    lines = src.lines
    if kind == "modify":
        new = _mutate(lines[i], rng)
        return Edit(i, (lines[i],), (new,), kind) if new != lines[i] else None
    if kind == "insert":
        nxt = next((ln for ln in lines[i + 1 : i + 4] if ln.strip()), lines[i])
        ind = max(_indent(lines[i]), _indent(nxt), key=len)
        return Edit(i + 1, (), (_comment(src.lang, ind, "checked: the value may be empty"),), kind)
    if kind == "delete":
        return Edit(i, (lines[i],), (), kind)
    block = lines[i : i + 3]
    if len(block) < 3 or not all(x.strip() for x in block):
        return None
    return Edit(i, tuple(block), (_mutate(block[0], rng), block[2]), kind)


def prose_blocks(src: Source) -> dict[int, tuple[str, int]]:
    """Inner lines of docstrings and block comments: line -> (where, end of the block's inner lines).

    `where` is "docstring" (a Python string standing as a statement), "block" (a C
    `/*` or `/**` comment) or "doc" (a JS `/**` comment); only blocks of five lines or
    more, so that 2-4 inner lines can go while the opener and closer stay.
    """
    out: dict[int, tuple[str, int]] = {}
    lines = src.lines
    spans: list[tuple[str, int, int]] = []  # (where, opening line, closing line)
    if src.lang == "py":
        import io
        import tokenize

        prev = tokenize.NEWLINE
        try:
            for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
                if tok.type in (tokenize.COMMENT, tokenize.NL):
                    continue
                quotes = tok.string.lstrip("rRbBuUfF")[:3]
                statement = prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
                if tok.type == tokenize.STRING and tok.end[0] - tok.start[0] >= 4 and quotes in ('"""', "'''") and statement:
                    spans.append(("docstring", tok.start[0] - 1, tok.end[0] - 1))
                prev = tok.type
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return {}
    else:
        opener = "/**" if src.lang == "js" else "/*"
        i = 0
        while i < len(lines):
            t = lines[i].strip()
            if t.startswith(opener) and "*/" not in t:
                j = next((k for k in range(i + 1, len(lines)) if "*/" in lines[k]), None)
                if j is None:
                    break
                if j - i >= 4:
                    spans.append(("doc" if src.lang == "js" else "block", i, j))
                i = j
            i += 1
    for where, a, b in spans:
        for k in range(a + 1, b):
            out[k] = (where, b)
    return out


def make_elision(src: Source, i: int, stop: int, where: str, form: str, rng: random.Random) -> Edit | None:
    """2-4 inner lines of a docstring or block comment replaced by one elision line."""
    k = min(rng.randint(2, 4), stop - i)
    old = src.lines[i : i + k]
    if k < 2 or sum(1 for x in old if x.strip()) < 2 or any(t in x for x in old for t in STRUCTURE):
        return None
    first = next(x for x in old if x.strip())
    lead = _indent(first) + ("* " if first.strip().startswith("*") else "")
    return Edit(i, tuple(old), (lead + ELIDED[form][where],), "elide", form)


def _lead(line: str) -> str:
    t = line.strip()
    for mark in ("#", "//", "*"):
        if t.startswith(mark):
            return mark
    return "text"


def _triggered(line: str) -> bool:
    low = line.lower()
    return any(w in low for w in TRIGGERS)


def _swappable(src: Source, prose: list[bool], i: int) -> bool:
    ln = src.lines[i]
    return prose[i] and bool(ln.strip()) and not any(t in ln for t in STRUCTURE) and not ln.rstrip().endswith("\\")


def pure_prose(src: Source) -> list[bool]:
    """Per line: nothing but prose (a comment line, a line inside a block comment, an inner
    line of a string spanning lines), so that one such line can stand for another."""
    lines = src.lines
    out = [False] * len(lines)
    if src.lang == "py":
        import io
        import tokenize

        try:
            for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
                if tok.type == tokenize.COMMENT and not tok.line[: tok.start[1]].strip():
                    out[tok.start[0] - 1] = True
                elif tok.type == tokenize.STRING:
                    for r in range(tok.start[0], tok.end[0] - 1):
                        out[r] = True
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return out
        return out
    inside = False
    for i, ln in enumerate(lines):
        t = ln.strip()
        if inside:
            out[i] = "*/" not in t
            inside = "*/" not in t
        elif t.startswith("//") or (t.startswith("/*") and t.endswith("*/")):
            out[i] = True
        elif t.startswith("/*"):
            inside = True
    return out


def prose_donors(src: Source, prose: list[bool]) -> list[int]:
    """Real prose lines of the file that say "unchanged", "omitted", "rest of" or "..."."""
    # Prose: three words at least (a line of `...` alone is a doctest's, or elision).
    return [
        i
        for i in range(len(src.lines))
        if _swappable(src, prose, i) and _triggered(src.lines[i]) and len(re.findall(r"[A-Za-z]{2,}", src.lines[i])) >= 3
    ]


def make_prose(src: Source, i: int, donors: list[int], prose: list[bool], rng: random.Random) -> Edit | None:
    """1-2 prose lines replaced by a real prose line of the file holding a trigger word."""
    lines = src.lines
    if not _swappable(src, prose, i) or _triggered(lines[i]):
        return None
    fits = [d for d in donors if _lead(lines[d]) == _lead(lines[i]) and abs(d - i) > 1]
    if not fits:
        return None
    d = rng.choice(fits)
    k = (
        2
        if (
            rng.random() < 0.5
            and i + 1 < len(lines)
            and _swappable(src, prose, i + 1)
            and not _triggered(lines[i + 1])
            and _lead(lines[i + 1]) == _lead(lines[i])
        )
        else 1
    )
    new = _indent(lines[i]) + lines[d].strip()
    return Edit(i, tuple(lines[i : i + k]), (new,), "prose") if new not in lines[i : i + k] else None


# --------------------------------------------------------------------------- what the model writes


@dataclass
class Model:
    """One edit as the model writes it: tagged lines and what goes around them."""

    dialect: str
    lines: list[Line]
    start: int  # 1-based first old line of the hunk
    eol: str = "\n"
    counts: tuple[int, int] | None = None
    base: str | None = None  # the blob an `index` line names
    anchor: str | None = None
    numbered: bool = False  # Codex with a numbered @@ header
    escape_json: bool = False  # str_replace strings escaped once too often
    path: str = ""


def _occurs(lines: tuple[str, ...] | list[str], block: list[str]) -> list[int]:
    n = len(block)
    if not n:
        return []
    first = block[0]
    return [p for p in range(len(lines) - n + 1) if lines[p] == first and list(lines[p : p + n]) == block]


def _flat_count(lines: tuple[str, ...] | list[str], text: str) -> int:
    flat = "\n".join(lines) + "\n"
    return flat.count(text) if text else 2


def _old(m: Model) -> list[str]:
    return [t for tg, t in m.lines if tg != "+"]


def model_for(src: Source, e: Edit, dialect: str, least: int = 0) -> Model | None:
    """The clean rendering, or None when the dialect cannot name this place unambiguously.

    `least`: SEARCH/REPLACE and str_replace show at least this many context lines a side
    (a model that shows more than it needs; the rows about a line that far away need it).
    """
    lines = src.lines
    end = e.start + len(e.old)

    def hunk(c0: int, c1: int) -> list[Line]:
        return (
            [(" ", x) for x in lines[max(0, e.start - c0) : e.start]]
            + [("-", x) for x in e.old]
            + [("+", x) for x in e.new]
            + [(" ", x) for x in lines[end : end + c1]]
        )

    if dialect in ("unified", "unified+index", "codex"):
        body = hunk(3, 3)
        m = Model(dialect, body, max(0, e.start - 3) + 1, path=src.rel)
        if dialect == "codex":
            hits = _occurs(lines, _old(m))
            if hits != [m.start - 1]:
                anchor = _anchor(lines, e.start)
                if anchor is None:
                    return None
                after = [h for h in hits if h > anchor]
                if not after or after[0] != m.start - 1 or lines.count(lines[anchor]) != 1:
                    return None
                m.anchor = lines[anchor]
        return m
    # SEARCH/REPLACE and str_replace: grow the context until the old text is unique.
    for c in range(max(least, 0 if dialect == "json" else 1), 6):
        body = hunk(c, c)
        old = [t for tg, t in body if tg != "+"]
        if not old or not any(x.strip() for x in old):
            continue
        if dialect == "json":
            if _flat_count(lines, "\n".join(old)) == 1:
                return Model(dialect, body, max(0, e.start - c) + 1, path=src.rel)
        elif len(_occurs(lines, old)) == 1:
            return Model(dialect, body, max(0, e.start - c) + 1, path=src.rel)
    return None


def _prose(src: Source) -> list[bool]:
    """Per line: part of a comment or a string spanning lines (docstrings)."""
    out = [False] * len(src.lines)
    if src.lang == "py":
        import io
        import tokenize

        try:
            for tok in tokenize.generate_tokens(io.StringIO("\n".join(src.lines) + "\n").readline):
                if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.start[0] != tok.end[0]):
                    for r in range(tok.start[0] - 1, tok.end[0]):
                        out[r] = True
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return [True] * len(src.lines)
        return out
    inside = template = False
    for i, ln in enumerate(src.lines):
        t = ln.strip()
        starts = inside or template or t.startswith(("/*", "//", "*"))
        if src.lang == "js" and (ln.replace("\\`", "").count("`") % 2):
            template = not template  # a template literal spanning lines
            starts = True
        if "/*" in t and "*/" not in t[t.index("/*") :]:
            inside = True
        if inside and "*/" in t:
            inside = False
            starts = True
        out[i] = starts
    return out


def _anchor(lines: tuple[str, ...], i: int) -> int | None:
    width = len(_indent(lines[i])) if lines[i].strip() else 99
    for p in range(i - 1, max(-1, i - 200), -1):
        if lines[p].strip() and len(_indent(lines[p])) < width:
            return p
    return None


def _codex_chunk(m: Model) -> str:
    old = _old(m)
    new = [t for tg, t in m.lines if tg != "-"]
    hdr = (
        f"@@ -{m.start},{len(old)} +{m.start},{len(new)} @@"
        if m.numbered
        else (f"@@ {m.anchor}" if m.anchor is not None else "@@")
    )
    return hdr + m.eol + "".join(tg + t + m.eol for tg, t in m.lines)


def _codex(path: str, chunks: list[str], eol: str = "\n") -> str:
    return f"*** Begin Patch{eol}*** Update File: {path}{eol}" + "".join(chunks) + f"*** End Patch{eol}"


def render(m: Model) -> str:
    old = _old(m)
    new = [t for tg, t in m.lines if tg != "-"]
    eol = m.eol
    if m.dialect in ("unified", "unified+index"):
        n_old, n_new = m.counts or (len(old), len(new))
        head = [f"diff --git a/{m.path} b/{m.path}", f"index {m.base}..1234567 100644"] if m.base else []
        head += [f"--- a/{m.path}", f"+++ b/{m.path}", f"@@ -{m.start},{n_old} +{m.start},{n_new} @@"]
        return "".join(h + eol for h in head) + "".join(tg + t + eol for tg, t in m.lines)
    if m.dialect == "codex":
        return _codex(m.path, [_codex_chunk(m)], eol)
    if m.dialect == "search-replace":
        return (
            f"{m.path}{eol}```{eol}<<<<<<< SEARCH{eol}"
            + "".join(t + eol for t in old)
            + f"======={eol}"
            + "".join(t + eol for t in new)
            + f">>>>>>> REPLACE{eol}```{eol}"
        )
    o, n = eol.join(old), eol.join(new)
    if m.lines and m.lines[-1][0] == "-":
        o += eol  # a deletion with nothing after it takes its line break along
    if m.escape_json:
        o, n = json.dumps(o)[1:-1], json.dumps(n)[1:-1]
    return json.dumps({"file_path": m.path, "old_string": o, "new_string": n})


def render_whole(src: Source, dialect: str, lines: list[str], eol: str = "\n") -> str:
    """A whole-file write of `lines`: Write-style JSON, or the file in a fence under its path."""
    content = "".join(x + eol for x in lines)
    if dialect == "json-write":
        return json.dumps({"file_path": src.rel, "content": content})
    longest = max((len(r) for r in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{src.rel}{eol}{fence}{FENCE_LANG[src.lang]}{eol}{content}{fence}{eol}"


# --------------------------------------------------------------------------- the mistakes


@dataclass
class Case:
    src: Source
    edit: Edit
    dialect: str
    mistake: str
    file: list[str]  # the work tree file the edit meets
    eol: str  # its line terminator
    intended: bytes | None  # None: the right answer is a refusal
    text: str  # the edit as the model sent it
    committed: list[str] | None = None  # the base, when the work tree file differs from it
    elsewhere: bool = False  # the mistaken text names another place, to the letter: no one can tell
    expect: str = "file"  # where the right answer comes from: one of EXPECTS


def _each(m: Model, fn: Callable[[str], str], tags: str = " -+") -> None:
    m.lines = [(tg, fn(t) if tg in tags else t) for tg, t in m.lines]


def _prettify(s: str) -> str:
    out, opened = [], False
    for ch in s:
        if ch == '"':
            out.append("\u201d" if opened else "\u201c")
            opened = not opened
        elif ch == "'":
            out.append("\u2019")
        else:
            out.append(ch)
    return "".join(out)


def _blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _join(lines: list[str], eol: str = "\n") -> bytes:
    return "".join(x + eol for x in lines).encode()


def _changes(m: Model) -> tuple[int, int]:
    """The model lines of the change: first and last line tagged - or +."""
    ks = [k for k, (tg, _) in enumerate(m.lines) if tg in "-+"]
    return ks[0], ks[-1]


def _at_distance(m: Model, d: int) -> list[int]:
    """Model lines of context with `d` unchanged lines between them and the change (either side)."""
    lo, hi = _changes(m)
    return [k for k in (lo - 1 - d, hi + 1 + d) if 0 <= k < len(m.lines) and m.lines[k][0] == " "]


def _ident(line: str) -> str | None:
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", line) if w not in KEYWORDS]
    return words[0] if words else None


def _invented_anchor(src: Source, e: Edit) -> str:
    """A Codex anchor that is no line of the file: the enclosing name and a word (`parse function`)."""
    near = _anchor(src.lines, e.start)
    name = (_ident(src.lines[near]) if near is not None else None) or _ident(" ".join(e.old)) or "main"
    return f"{name} function"


def _ambiguous_model(src: Source, e: Edit) -> Model | None:
    """A Codex hunk for a one-line change whose lines occur twice: context added while that stays so."""
    if e.kind != "modify":
        return None
    lines = src.lines
    lo, hi = e.start, e.start + 1  # the old lines shown: [lo, hi)
    for _ in range(3):
        for side in (-1, 1):
            a, b = (lo - 1, hi) if side < 0 else (lo, hi + 1)
            if a >= 0 and b <= len(lines) and len(_occurs(lines, list(lines[a:b]))) >= 2:
                lo, hi = a, b
    if len(_occurs(lines, list(lines[lo:hi]))) < 2:
        return None
    body = (
        [(" ", x) for x in lines[lo : e.start]] + [("-", e.old[0]), ("+", e.new[0])] + [(" ", x) for x in lines[e.start + 1 : hi]]
    )
    return Model("codex", body, lo + 1, path=src.rel)


def _second_edit(src: Source, e: Edit, rng: random.Random, after: int | None = None) -> tuple[Edit, Model] | None:
    """Another one-line change in the file, at least ten lines from the first (or past line
    `after`), that Codex can name."""
    end = e.start + len(e.old)
    far = [
        j
        for j, ln in enumerate(src.lines)
        if len(ln.strip()) > 3 and (j > end + 10 or j < e.start - 10) and (after is None or j > after + 10)
    ]
    for j in rng.sample(far, min(12, len(far))):
        e2 = make_edit(src, j, "modify", rng)
        m2 = model_for(src, e2, "codex") if e2 is not None else None
        if e2 is not None and m2 is not None:
            return e2, m2
    return None


def build_habit(src: Source, e: Edit, mistake: str, rng: random.Random) -> Case | None:
    """A Codex patch with one of the habits real models show (carried out), or the same
    habit around a body that occurs twice and an invented anchor (refused)."""
    habit = mistake[len("codex-") :].removesuffix("-ambiguous")
    ambiguous = mistake.endswith("-ambiguous")
    file = list(src.lines)
    m = _ambiguous_model(src, e) if ambiguous else model_for(src, e, "codex")
    if m is None or (not ambiguous and m.anchor is not None and habit.startswith("anchor")):
        return None  # the clean rendering needs its anchor: the habit would make it ambiguous
    if ambiguous:
        m.anchor = _invented_anchor(src, e)
    edits = [e]
    chunks = [_codex_chunk(m)]
    path = src.rel
    if habit == "empty-trailing":
        chunks.append("@@\n")
    elif habit == "empty-between":
        # Codex places each hunk after the one before it: an ambiguous hunk stays ambiguous
        # only in front, with every copy of its lines before the second hunk.
        copies = _occurs(file, _old(m))
        got = _second_edit(src, e, rng, after=max(copies) + len(_old(m)) if ambiguous else None)
        if got is None:
            return None
        e2, m2 = got
        edits.append(e2)
        pair = [chunks[0], _codex_chunk(m2)]
        chunks = [pair[0], "@@\n", pair[1]] if e2.start > e.start else [pair[1], "@@\n", pair[0]]
    elif habit == "anchor-first-line":
        lo, _hi = _changes(m)
        if not ambiguous and m.lines[lo][0] == "-" and rng.random() < 0.5:
            trimmed = m.lines[lo:]  # as in the issue: `@@ import ...` over `-import ...`
            if _occurs(file, [t for tg, t in trimmed if tg != "+"]) == [e.start]:
                m.lines, m.start = trimmed, e.start + 1
        first = next(t for tg, t in m.lines if tg != "+")
        if not first.strip():
            return None
        m.anchor = first
        chunks = [_codex_chunk(m)]
    elif habit == "anchor-not-a-line":
        m.anchor = _invented_anchor(src, e)
        chunks = [_codex_chunk(m)]
    elif habit == "context-no-space":
        ks = [k for k, (tg, t) in enumerate(m.lines) if tg == " " and t.strip() and not t.startswith(("-", "+", "@", "*", "\\"))]
        spaced = [k for k in ks if m.lines[k][1].startswith(" ")]
        if not ks:
            return None
        k = rng.choice(spaced or ks)
        m.lines[k] = ("", m.lines[k][1])
        chunks = [_codex_chunk(m)]
    elif habit == "path-dot":
        path = "./" + src.rel
    elif habit == "path-a":
        path = "a/" + src.rel
    intended = None
    if not ambiguous:
        out = list(file)
        for x in sorted(edits, key=lambda x: -x.start):
            out = _kept(x, out).apply(out)
        intended = _join(out)
    return Case(src, e, "codex", mistake, file, "\n", intended, _codex(path, chunks), expect="refuse" if ambiguous else "file")


def build_whole(src: Source, e: Edit, dialect: str, mistake: str, rng: random.Random) -> Case | None:
    """A whole-file write: the edited file (`none`), or one cut short with a marker or a phrase."""
    file = list(src.lines)
    new = e.apply(file)
    if mistake == "none":
        return Case(src, e, dialect, mistake, file, "\n", _join(_kept(e, file).apply(file)), render_whole(src, dialect, new))
    form = rng.randrange(len(TRUNCATED))
    tail = rng.randint(1, 5) if mistake == "truncated-phrase" else 0
    room = len(new) - tail - e.start - len(e.new) - 3  # the edit itself stays in
    if room < 20:
        return None
    # A model cuts a file where code stops, not inside a docstring or a block comment (where
    # its marker would be text of that comment): the lines on both sides of every seam are
    # outside comments and strings.  (`new` has the file's line count: the edit is a `modify`.)
    prose = _prose(src)
    for _try in range(20):
        cut = rng.randint(20, min(300, room))
        seams = [len(new) - tail - cut] + ([len(new) - tail] if tail else [])
        if not any(prose[s - 1] or prose[s] for s in seams if 0 < s < len(prose)):
            break
    else:
        return None
    if mistake == "truncated-marker":
        marker = MARKERS[src.lang][form % 2]
        content = new[: len(new) - cut] + [marker]
        e = replace(e, variant=marker)
    else:
        at = len(new) - tail - cut
        nxt = next((x for x in new[at:] if x.strip()), "")
        phrase = _comment(src.lang, _indent(nxt), TRUNCATED[form])
        content = new[:at] + [phrase] + new[len(new) - tail :]
        e = replace(e, variant=TRUNCATED[form])
    return Case(src, e, dialect, mistake, file, "\n", None, render_whole(src, dialect, content), expect="refuse")


def build(src: Source, e: Edit, dialect: str, mistake: str, rng: random.Random, merge: GitMerge) -> Case | None:
    if mistake.startswith("codex-"):
        return build_habit(src, e, mistake, rng) if dialect == "codex" else None
    if dialect in WHOLE or mistake.startswith("truncated-"):
        if dialect not in WHOLE or mistake not in ("none", "truncated-marker", "truncated-phrase"):
            return None
        return build_whole(src, e, dialect, mistake, rng)
    if mistake == "ambiguous":
        # Only the changed line, which occurs more than once, and no true line number.
        if e.kind != "modify" or src.lines.count(e.old[0]) < 2:
            return None
        start = max(1, e.start + 1 + rng.choice([-1, 1]) * rng.randint(3, 40))
        while start - 1 < len(src.lines) and src.lines[start - 1] == e.old[0]:
            start += 1  # a wrong number, not another copy's right one
        m: Model | None = Model(dialect, [("-", e.old[0]), ("+", e.new[0])], start, path=src.rel)
    else:
        at = {**STALE_AT, **INVENTED_AT, **MISREMEMBERED_AT}.get(mistake)
        m = model_for(src, e, dialect, least=0 if at is None else at + 1)
    if m is None:
        return None
    file = list(src.lines)
    eol = "\n"
    committed: list[str] | None = None  # the file as the edit's base has it (stale rows)
    view: list[str] | None = None  # the file as the edit saw it (invented and misremembered rows)
    shift = 0  # lines the view has above the change that the file has not
    intended: bytes | None = None
    expect = "refuse" if mistake in REFUSE else "file"
    ctx = [k for k, (tg, t) in enumerate(m.lines) if tg == " " and t.strip()]
    old_idx = [k for k, (tg, _) in enumerate(m.lines) if tg != "+"]
    first_old = m.start - 1

    def file_line(k: int) -> int:  # the file line of model line k (an old line)
        return first_old + sum(1 for tg, _ in m.lines[:k] if tg != "+")

    if mistake in ("none", "prose-trigger-words") or mistake in ELISION:
        pass
    elif mistake == "offset":
        if dialect == "codex":
            m.numbered = True
        elif dialect not in ("unified", "unified+index"):
            return None
        m.start = max(1, m.start + rng.choice([-1, 1]) * rng.randint(3, 40))
    elif mistake == "recount":
        if dialect not in ("unified", "unified+index"):
            return None
        n_old = sum(1 for tg, _ in m.lines if tg != "+")
        n_new = sum(1 for tg, _ in m.lines if tg != "-")
        m.counts = (n_old + rng.choice([-1, 1, 2]), n_new + rng.choice([-1, 1]))
        m.counts = (max(1, m.counts[0]), max(0, m.counts[1]))
    elif mistake == "stray-blank":
        after = first_old + len(old_idx)
        if dialect == "json" or after >= len(file) or not file[after].strip():
            return None
        m.lines.append((" ", ""))
    elif mistake == "trailing-ws-dropped":
        ks = [k for k in old_idx if m.lines[k][1].strip()]
        for k in rng.sample(ks, max(1, len(ks) // 2)):
            p = file_line(k)
            file[p] = file[p] + rng.choice(["  ", " ", "\t"])
    elif mistake == "trailing-ws-added":
        _each(m, lambda t: t + "  " if t.strip() else t)
    elif mistake == "indent-dedented":
        shown = [t for _, t in m.lines if t.strip()]
        common = os.path.commonprefix([_indent(t) for t in shown])
        if not common:
            return None
        _each(m, lambda t: t[len(common) :] if t.strip() else t)
    elif mistake == "indent-deeper":
        unit = "\t" if any(t.startswith("\t") for _, t in m.lines) else "    "
        _each(m, lambda t: unit + t if t.strip() else t)
    elif mistake == "unicode-prettified":
        if not any(c in t for k in old_idx for c in "\"'" for t in [m.lines[k][1]]):
            return None
        _each(m, _prettify)
    elif mistake == "unicode-in-file":
        ks = [k for k in (ctx or old_idx) if " " in m.lines[k][1].strip() or '"' in m.lines[k][1]]
        if not ks:
            return None
        k = rng.choice(ks)
        p = file_line(k)
        t = file[p]
        if '"' in t:
            t = t.replace('"', "\u201c", 1)
        else:
            cut = len(_indent(t)) + t.strip().index(" ")
            t = t[:cut] + "\u00a0" + t[cut + 1 :]
        file[p] = t
    elif mistake == "eol-lf-on-crlf":
        eol = "\r\n"
    elif mistake == "eol-crlf-on-lf":
        m.eol = "\r\n"
    elif mistake == "escape-backslashes":
        if not any("\\" in t for _, t in m.lines):
            return None
        _each(m, lambda t: t.replace("\\", "\\\\"))
    elif mistake == "escape-newlines":
        if dialect != "json" or len(old_idx) < 2:
            return None
        m.escape_json = True
    elif mistake == "stale-moved":
        committed = list(file)
        top = next((p for p in range(min(40, first_old)) if not file[p].strip()), None)
        if top is None:
            return None
        file = file[:top] + [_comment(src.lang, "", f"added since: line {n}") for n in range(5)] + file[top:]
    elif mistake == "stale-inside":
        rem = [k for k, (tg, t) in enumerate(m.lines) if tg == "-" and t.strip() and t not in e.new]
        if not rem:
            return None
        committed = list(file)
        p = file_line(rng.choice(rem))
        file[p] = _split_word(file[p])  # never what the edit does, nor text that still holds it
    elif mistake in STALE_AT:
        ks = [k for k in _at_distance(m, STALE_AT[mistake]) if m.lines[k][1].strip()]
        if not ks:
            return None
        committed = list(file)
        p = file_line(rng.choice(ks))
        renamed = _mutate(file[p], rng, tag="_now")
        noted = file[p].rstrip() + "  " + _comment(src.lang, "", "changed since")
        options = [renamed, noted] if rng.random() < 0.5 else [noted, renamed]
        if dialect == "json":
            options = [x for x in options if _shows(m, file[:p] + [x] + file[p + 1 :])]
        if not options:
            return None
        file[p] = options[0]
    elif mistake in INVENTED_AT:
        # A line the file never had, with `d` true context lines between it and the change.
        d = INVENTED_AT[mistake]
        lo, hi = _changes(m)
        spots = [
            k
            for k in (lo - d, hi + 1 + d)
            if (k <= lo and k >= 0 and all(tg == " " for tg, _ in m.lines[k:lo]))
            or (k > hi and k <= len(m.lines) and all(tg == " " for tg, _ in m.lines[hi + 1 : k]))
        ]
        if not spots:
            return None
        k = rng.choice(spots)
        near = m.lines[k - 1][1] if k > lo else m.lines[k][1]
        text = (
            _comment(src.lang, _indent(near), "keep in sync with the caller")
            if rng.random() < 0.5
            else _mutate(near, rng, tag="_old")
            if near.strip()
            else _comment(src.lang, "", "see above")
        )
        if text in file:
            return None
        at_file = first_old + sum(1 for tg, _ in m.lines[:k] if tg != "+")
        m.lines.insert(k, (" ", text))
        view = file[:at_file] + [text] + file[at_file:]
        shift = 1 if k <= lo else 0
    elif mistake in MISREMEMBERED_AT:
        ks = [k for k in _at_distance(m, MISREMEMBERED_AT[mistake]) if m.lines[k][1].strip()]
        if not ks:
            return None
        k = rng.choice(ks)
        was = m.lines[k][1]
        text = _mutate(was, rng, tag="_old") if rng.random() < 0.5 else was.rstrip() + "  " + _comment(src.lang, "", "keep")
        if text in file:
            return None
        m.lines[k] = (" ", text)
        view = list(file)
        view[file_line(k)] = text
    elif mistake == "hallucinated-removed":
        rem = [k for k, (tg, t) in enumerate(m.lines) if tg == "-" and t.strip() and t not in e.new]
        if not rem:
            return None
        k = rng.choice(rem)
        m.lines[k] = ("-", _mutate(m.lines[k][1], random.Random(rng.random())) + "  " + _comment(src.lang, "", "gone"))
        if m.lines[k][1] in file:
            return None
    elif mistake == "ambiguous":
        pass  # built above
    elif mistake == "placeholder":
        if e.kind != "replace":
            return None
        marker = _comment(src.lang, _indent(e.new[0]), "... existing code ...")
        m.lines = [(tg, t) for tg, t in m.lines if tg != "+"]
        at = max(k for k, (tg, _) in enumerate(m.lines) if tg == "-") + 1
        m.lines[at:at] = [("+", e.new[0]), ("+", marker)]
    if mistake == "stale-inside" and not _shows(m, file):
        return None
    if dialect == "unified+index":
        m.base = _blob_id(_join(committed) if committed is not None else _join(file, eol))[:12]
    if mistake in GIT:
        # git merge-file decides: OURS = the edit on the text it was made against, as the
        # default policy writes it; BASE = that text; THEIRS = the file now.
        seen = committed if committed is not None else view
        assert seen is not None
        mine = replace(e, start=e.start + shift)
        got, merged = merge(_join(_kept(mine, seen).apply(seen), eol), _join(seen, eol), _join(file, eol))
        expect = f"git: {got}"
        intended = merged if got == "clean" else None
    elif mistake not in REFUSE:
        intended = _join(_kept(e, file).apply(file), eol)
    at = first_old + (len(file) - len(committed) if committed is not None else 0)
    elsewhere = _elsewhere(m, file, at) if mistake not in ELISION else False
    return Case(src, e, dialect, mistake, file, eol, intended, render(m), committed, elsewhere, expect)


def _shows(m: Model, file: list[str]) -> bool:
    """The file's change since the base is one the edit's text shows.

    A str_replace text is a substring: a change after its last line's end (or before its
    first line's start, `*/` at the end of ` */  /* changed */`) leaves it in the file
    letter for letter, so nothing the edit shows has changed.
    """
    return m.dialect != "json" or "\n".join(_old(m)) not in "\n".join(file)


def _elsewhere(m: Model, file: list[str], at: int) -> bool:
    """The old text as the model wrote it stands, letter for letter, somewhere other than
    the edit's place (`at`): a mistake that turned the edit into one of another place."""
    old = _old(m)
    if m.dialect == "json":
        flat = "\n".join(file) + "\n"
        text = "\n".join(old)
        own = sum(len(x) + 1 for x in file[:at])
        i = flat.find(text)
        while i >= 0:
            if i != own:
                return True
            i = flat.find(text, i + 1)
        return False
    return any(p != at for p in _occurs(file, old))


def _kept(e: Edit, file: list[str]) -> Edit:
    """The edit as the default policy writes it: lines it repeats unchanged (at its start and
    end) as the file has them, its changed lines as `whitespace: fix` leaves them (as
    `git apply --whitespace=fix` writes them)."""
    new = whitespace_fixed(list(e.new))
    most = min(len(e.old), len(e.new))
    pre = 0
    while pre < most and e.old[pre] == e.new[pre]:
        new[pre] = file[e.start + pre]
        pre += 1
    suf = 0
    while suf < most - pre and e.old[-1 - suf] == e.new[-1 - suf]:
        new[len(new) - 1 - suf] = file[e.start + len(e.old) - 1 - suf]
        suf += 1
    return replace(e, new=tuple(new))


# --------------------------------------------------------------------------- the edits per row


def _anywhere(line: str, lines: tuple[str, ...]) -> bool:
    return True


def places(src: Source, mistake: str, seed: int, sites: int) -> tuple[list[int], Callable[[int, int], Edit | None]]:
    """Candidate places for one row in one file (in the seed's order), and the maker of the
    edit at a place (given the place and a turn number that rotates the edit's kind)."""
    rng = random.Random(f"{seed}/{src.rel}/{mistake}")
    lines = src.lines
    code = [i for i, ln in enumerate(lines) if ln.strip() and len(ln.strip()) > 3]
    prose = _prose(src)
    kinds = ("modify", "insert", "delete", "replace")
    make: Callable[[int, int], Edit | None]
    if mistake in ELISION:
        lang, where = ELISION[mistake]
        inner = {i: end for i, (w, end) in prose_blocks(src).items() if w == where} if src.lang == lang else {}
        fit = [i for i, end in inner.items() if end - i >= 2]
        make = lambda i, turn: make_elision(src, i, inner[i], where, FORMS[turn % len(FORMS)], rng)  # noqa: E731
    elif mistake == "prose-trigger-words":
        prose = pure_prose(src)
        donors = prose_donors(src, prose)
        fit = [i for i in range(len(lines)) if donors and _swappable(src, prose, i) and not _triggered(lines[i])]
        make = lambda i, turn: make_prose(src, i, donors, prose, rng)  # noqa: E731
    else:
        want = SITES.get(mistake, _anywhere)
        fit = [i for i in code if want(lines[i], lines)]
        if mistake == "placeholder":
            # Code, not comments or docstrings (the elision rows are about those).
            fit = [i for i in fit if not any(prose[i : i + 3])]
        if mistake.startswith("truncated-"):
            fit = [i for i in fit if i < len(lines) - 40]
        fixed = (
            "replace"
            if mistake == "placeholder"
            else "modify"
            if "ambiguous" in mistake or mistake.startswith("truncated-")
            else None
        )
        make = lambda i, turn: make_edit(src, i, fixed or kinds[turn % 4], rng)  # noqa: E731
    return rng.sample(fit, min(sites * 4, len(fit))), make


def _dialects(mistake: str) -> tuple[str, ...]:
    if mistake == "none":
        return DIALECTS
    if mistake.startswith("truncated-"):
        return WHOLE
    if mistake.startswith("codex-"):
        return ("codex",)
    return PATCHES


# --------------------------------------------------------------------------- running


@dataclass
class Tally:
    correct: int = 0
    refused: int = 0
    wrong: int = 0
    elsewhere: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, outcome: str, note: str = "") -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome == "wrong" and len(self.examples) < 3:
            self.examples.append(note)

    def __iadd__(self, t: Tally) -> Tally:
        self.correct, self.refused, self.wrong = self.correct + t.correct, self.refused + t.refused, self.wrong + t.wrong
        self.elsewhere += t.elsewhere
        return self

    @property
    def n(self) -> int:
        return self.correct + self.refused + self.wrong  # `elsewhere` cases are counted apart


def _git(cwd: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, timeout=60, env=env, check=False)


class Scratch:
    """One repository per source file; the base committed once, the work tree rewritten per case."""

    def __init__(self, root: Path, src: Source) -> None:
        from guard.pipeline.engine import Guard

        self.root = root
        self.src = src
        root.mkdir(parents=True)
        _git(root, "init", "-q", "-b", "main")
        self.path = root / src.rel
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(_join(list(src.lines)))
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "base")
        self.guard = Guard(root)
        self.bases: set[str] = set()

    def prepare(self, case: Case) -> None:
        if case.committed is not None:
            data = _join(case.committed)
            key = _blob_id(data)
            if key not in self.bases:  # the base blob must be in the object database
                _git(self.root, "hash-object", "-w", "--stdin", input=data)
                self.bases.add(key)
        self.path.write_bytes(_join(case.file, case.eol))

    def ours(self, case: Case) -> tuple[str, bytes | None, str]:
        self.prepare(case)
        report = self.guard.apply(case.text, format=READ_AS.get(case.dialect, case.dialect), check=True)
        if report.status != "checked":
            codes = ",".join(sorted({f.code for f in report.findings if f.severity == "error"}))
            return "refused", None, codes
        after = report.changes[0].after if report.changes else None
        return "applied", after, ",".join(report.changes[0].repairs) if report.changes else ""

    def tool(self, case: Case, argv: list[str]) -> tuple[str, bytes | None, str]:
        self.prepare(case)
        env = {**os.environ, **GIT_ENV}
        proc = subprocess.run(
            argv, cwd=self.root, input=case.text.encode(), capture_output=True, timeout=60, env=env, check=False
        )
        after = self.path.read_bytes()
        for leftover in self.path.parent.glob(self.path.name + ".*"):
            leftover.unlink()  # .orig / .rej that patch may leave
        if proc.returncode != 0:
            return "refused", None, proc.stderr.decode(errors="replace")[:80]
        return "applied", after, ""


def judge(case: Case, status: str, after: bytes | None) -> str:
    if case.elsewhere and case.intended is not None and status != "refused" and after != case.intended:
        return "elsewhere"  # applied where the text says: not a locating error
    if case.intended is None:
        return "correct" if status == "refused" else "wrong"
    if status == "refused":
        return "refused"
    return "correct" if after == case.intended else "wrong"


def _difference(case: Case, after: bytes | None) -> str:
    """What agent-guard wrote against what was intended, as a short diff."""
    if after is None or case.intended is None:
        return "(applied; the right answer is a refusal)" if after is not None else ""
    got = after.decode(errors="replace").splitlines()
    want = case.intended.decode(errors="replace").splitlines()
    diff = list(difflib.unified_diff(want, got, "intended", "agent-guard", n=2, lineterm=""))
    return "\n".join(diff[:30])


Key = tuple[str, str, str]  # (mistake, expect, dialect or tool)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=12, help="source files per language")
    ap.add_argument("--sites", type=int, default=3, help="edits per file")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--json", help="write every case's outcome here")
    ap.add_argument("--no-tools", action="store_true", help="skip git apply and GNU patch")
    ap.add_argument("--only", help="run only these rows (comma-separated mistakes)")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the wrongly applied cases")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    srcs = sources(args.files, rng)
    docs = doc_sources(args.files, random.Random(f"{args.seed}/docs"))
    only = set(args.only.split(",")) if args.only else None
    ours: dict[Key, Tally] = defaultdict(Tally)
    tools: dict[Key, Tally] = defaultdict(Tally)
    forms: dict[tuple[str, str], Tally] = defaultdict(Tally)
    rows: list[dict[str, object]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="locate-corpus-") as tmp:
        merge = GitMerge(Path(tmp) / "merge")
        for n, src in enumerate(srcs + docs):
            scratch = Scratch(Path(tmp) / f"r{n}", src)
            for mistake in MISTAKES if src.pool == "main" else PROSE_ROWS:
                if only is not None and mistake not in only:
                    continue
                picks, make = places(src, mistake, args.seed, args.sites)
                made = 0
                for k, i in enumerate(picks):
                    if made >= args.sites:
                        break
                    e = make(i, made + k + n)
                    if e is None:
                        continue
                    built = False
                    for dialect in _dialects(mistake):
                        crng = random.Random(f"{args.seed}/{src.rel}/{mistake}/{i}/{dialect}")
                        case = build(src, e, dialect, mistake, crng, merge)
                        if case is None:
                            continue
                        built = True
                        status, after, info = scratch.ours(case)
                        outcome = judge(case, status, after)
                        note = (
                            f"{src.rel}:{e.start + 1} {e.kind} [{info}] (from {src.origin})\n{case.text}"
                            f"\n{_difference(case, after)}"
                        )
                        ours[(mistake, case.expect, dialect)].add(outcome, note)
                        if case.edit.variant:
                            forms[(mistake, case.edit.variant)].add(outcome)
                        row = {
                            "file": str(src.origin),
                            "line": e.start + 1,
                            "kind": e.kind,
                            "mistake": mistake,
                            "dialect": dialect,
                            "expect": case.expect,
                            "variant": case.edit.variant,
                            "outcome": outcome,
                            "info": info,
                        }
                        if dialect == "unified" and not args.no_tools:
                            for name, cmd in (
                                ("git apply", ["git", "apply", "-"]),
                                ("GNU patch", ["patch", "-p1", "-f", "-s", "--no-backup-if-mismatch", "--reject-file=-"]),
                            ):
                                st, aft, _ = scratch.tool(case, cmd)
                                got = judge(case, st, aft)
                                tools[(mistake, case.expect, name)].add(got)
                                row[name] = got
                        rows.append(row)
                    made += built
    elapsed = time.monotonic() - started
    _print(ours, tools, forms, srcs, docs, elapsed, merge.calls, args)
    if args.verbose:
        for key, t in sorted(ours.items()):
            for ex in t.examples:
                print(f"\n--- wrong: {key}\n{ex}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def _cell(t: Tally | None) -> str:
    if t is None or not t.n:
        return "n/a"
    return f"{t.correct}/{t.refused}/{t.wrong}"


def _summary(label: str, tot: Tally) -> str:
    line = (
        f"{label}: {tot.n} cases, correct {tot.correct} ({100 * tot.correct / max(1, tot.n):.1f}%), "
        f"refused {tot.refused}, wrong {tot.wrong}"
    )
    if tot.elsewhere:
        line += f" (and {tot.elsewhere} applied where the mistaken text stands to the letter, not counted)"
    return line


def _print(
    ours: dict[Key, Tally],
    tools: dict[Key, Tally],
    forms: dict[tuple[str, str], Tally],
    srcs: list[Source],
    docs: list[Source],
    elapsed: float,
    merges: int,
    args: argparse.Namespace,
) -> None:
    langs = Counter(s.lang for s in srcs)
    print(
        f"locate corpus: {len(srcs)} files ({langs['py']} Python stdlib, {langs['c']} C headers, {langs['js']} npm JS) "
        f"and {len(docs)} JS files with doc comments (npm's dependencies, doc-comment rows only), "
        f"{args.sites} edits per file and mistake, seed {args.seed}, {elapsed:.0f} s, {merges} git merge-file runs"
    )
    print("cells: correct/refused/wrong; `expected` is where the right answer comes from: the construction (`file`:")
    print("the intended file; `refuse`), or git merge-file's outcome for the same three texts (`git: clean` = its")
    print("merged file, `git: conflict` = a refusal; for those, correct = refused).  A case whose mistake made its")
    print("text name another place to the letter, and that was applied there, is counted apart, not as wrong\n")
    print("| mistake | expected | " + " | ".join(DIALECTS) + " | git apply | GNU patch |")
    print("|" + "---|" * (len(DIALECTS) + 4))
    for mistake in MISTAKES:
        for expect in EXPECTS:
            if not any(ours.get((mistake, expect, d)) for d in DIALECTS):
                continue
            cells = [_cell(ours.get((mistake, expect, d))) for d in DIALECTS]
            cells += [_cell(tools.get((mistake, expect, t))) for t in ("git apply", "GNU patch")]
            print(f"| {mistake} | {expect} | " + " | ".join(cells) + " |")
    groups = (
        ("intent carried out (expected: the file)", ("file", "git: clean")),
        ("must refuse (expected: a refusal)", ("refuse", "git: conflict")),
    )
    for label, expects in groups:
        tot = Tally()
        for (_m, expect, _d), t in ours.items():
            if expect in expects:
                tot += t
        line = "\n" + _summary(label, tot)
        for name in ("git apply", "GNU patch"):
            tt = Tally()
            for (_m, expect, tool), t in tools.items():
                if tool == name and expect in expects:
                    tt += t
            line += f"; {name} (unified): {tt.correct}/{tt.refused}/{tt.wrong}"
        print(line)
        for dialect in DIALECTS:
            dt = Tally()
            for (_m, expect, d), t in ours.items():
                if d == dialect and expect in expects:
                    dt += t
            if dt.n:
                print("  " + _summary(dialect, dt))
    if forms:
        print(
            "\nby variant (elision line, truncation marker or phrase): "
            + "; ".join(f"{m} {v!r} {_cell(t)}" for (m, v), t in sorted(forms.items()))
        )


if __name__ == "__main__":
    sys.exit(main())
