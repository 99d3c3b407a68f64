"""Locate benchmark: real source files, realistic edits, the models' mistakes injected.

The corpus is built at run time from source files on this machine (never copied
into the repository): the Python standard library, C headers under
/usr/include, and the JavaScript of npm, which ships with node
(/usr/lib/node_modules/npm/lib).  From each file a fixed seed picks a few
places and makes an edit there as a developer would (change a line, insert a
comment, delete a line, rewrite a three-line block), renders it in each dialect
as a careful model would (unified: three lines of context and true line
numbers; Codex: three lines of context, an `@@ def ...` anchor when the lines
occur twice; SEARCH/REPLACE and str_replace: the changed lines plus context
until the text occurs once), then injects one mistake:

    none                 the clean rendering
    offset               line numbers 3-40 off (unified; Codex with a numbered header)
    recount              the hunk header's counts wrong (unified)
    stray-blank          a blank context line the file does not have, at the hunk's end
    invented-context     one context line misremembered (a line the file does not have)
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
    stale-moved          the file changed since the edit's base: lines above it added
                         (unified names the base in an `index` line: 3-way merge)
    stale-context        since the base, one of the edit's unchanged lines changed
    --- the intent cannot (or must not) be carried out; refusing is the right answer:
    stale-conflict       since the base, a line the edit removes changed
    hallucinated-removed a removed line the file does not have
    ambiguous            too little context: the lines occur twice (and no true line number)
    placeholder          the new text elides kept lines with "... existing code ..."

Each case goes through ``Guard.apply(check=True)`` (parse, locate, policy
checks; nothing written) with the default policy, in a scratch repository
holding the file.  A case is *correct* when it gives the intended file byte for
byte (or is refused, for the last four), *refused* when an intended edit is
refused, and *wrong* when the result differs from the intended file in any
byte, or an edit that must be refused is applied.  The unified cases also go
through ``git apply`` and GNU ``patch -p1`` (default fuzz 2), side by side.

    python bench/locate_corpus.py [--files 12] [--sites 3] [--seed 6] [--json OUT] [-v]
"""

from __future__ import annotations

import argparse
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

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

DIALECTS = ("unified", "codex", "search-replace", "json")
APPLY = ("none", "offset", "recount", "stray-blank", "invented-context", "trailing-ws-dropped", "trailing-ws-added",
         "indent-dedented", "indent-deeper", "unicode-prettified", "unicode-in-file", "eol-lf-on-crlf",
         "eol-crlf-on-lf", "escape-backslashes", "escape-newlines", "stale-moved", "stale-context")
REFUSE = ("stale-conflict", "hallucinated-removed", "ambiguous", "placeholder")
MISTAKES = APPLY + REFUSE
# Places where a mistake can show (elsewhere it would change nothing).
SITES: dict[str, Callable[[str, tuple[str, ...]], bool]] = {
    "unicode-prettified": lambda ln, lines: '"' in ln or "'" in ln,
    "escape-backslashes": lambda ln, lines: "\\" in ln,
    "indent-dedented": lambda ln, lines: ln[:1] in (" ", "\t"),
    "ambiguous": lambda ln, lines: lines.count(ln) >= 2,
}
COMMENT = {"py": "#", "c": "/*", "js": "//"}
KEYWORDS = frozenset(["if", "else", "elif", "for", "while", "return", "def", "class", "import", "from", "in", "is", "not", "and", "or", "None", "True", "False", "pass", "break", "continue", "try", "except", "finally", "with", "as", "lambda", "yield", "raise", "global", "self", "const", "let", "var", "function", "new", "this", "typedef", "struct", "enum", "union", "static", "extern", "int", "char", "void", "unsigned", "long", "short", "define", "include", "ifdef", "ifndef", "endif", "undef", "const", "case", "switch", "default", "do", "sizeof", "null", "undefined", "async", "await"])

Line = tuple[str, str]  # (tag, text)


# --------------------------------------------------------------------------- the source files


@dataclass(frozen=True)
class Source:
    origin: Path
    lang: str
    rel: str  # the path inside the scratch repository
    lines: tuple[str, ...]


def _collect(root: Path, pattern: str, lo: int, hi: int, skip: Callable[[Path], bool]) -> list[Path]:
    out = []
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
            text = p.read_text(encoding="utf-8")
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            out.append(Source(p, lang, f"src/{lang}/{p.name}", tuple(lines)))
    return out


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Edit:
    start: int  # 0-based first old line of the change
    old: tuple[str, ...]
    new: tuple[str, ...]
    kind: str

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


# --------------------------------------------------------------------------- what the model writes


@dataclass
class Model:
    """One edit as the model writes it: tagged lines and what goes around them."""

    dialect: str
    lines: list[Line]
    start: int  # 1-based first old line of the hunk
    eol: str = "\n"
    counts: tuple[int, int] | None = None
    base: str | None = None
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


def model_for(src: Source, e: Edit, dialect: str) -> Model | None:
    """The clean rendering, or None when the dialect cannot name this place unambiguously."""
    lines = src.lines
    end = e.start + len(e.old)

    def hunk(c0: int, c1: int) -> list[Line]:
        return ([(" ", x) for x in lines[max(0, e.start - c0) : e.start]] + [("-", x) for x in e.old]
                + [("+", x) for x in e.new] + [(" ", x) for x in lines[end : end + c1]])

    if dialect in ("unified", "codex"):
        body = hunk(3, 3)
        m = Model(dialect, body, max(0, e.start - 3) + 1, path=src.rel)
        if dialect == "codex":
            old = [t for tg, t in body if tg != "+"]
            hits = _occurs(lines, old)
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
    for c in range(0 if dialect == "json" else 1, 6):
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
        if "/*" in t and "*/" not in t[t.index("/*"):]:
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


def render(m: Model) -> str:
    old = [t for tg, t in m.lines if tg != "+"]
    new = [t for tg, t in m.lines if tg != "-"]
    eol = m.eol
    if m.dialect == "unified":
        n_old, n_new = m.counts or (len(old), len(new))
        head = [f"diff --git a/{m.path} b/{m.path}", f"index {m.base}..1234567 100644"] if m.base else []
        head += [f"--- a/{m.path}", f"+++ b/{m.path}", f"@@ -{m.start},{n_old} +{m.start},{n_new} @@"]
        return "".join(h + eol for h in head) + "".join(tg + t + eol for tg, t in m.lines)
    if m.dialect == "codex":
        hdr = f"@@ -{m.start},{len(old)} +{m.start},{len(new)} @@" if m.numbered else (
            f"@@ {m.anchor}" if m.anchor else "@@")
        return (f"*** Begin Patch{eol}*** Update File: {m.path}{eol}{hdr}{eol}"
                + "".join(tg + t + eol for tg, t in m.lines) + f"*** End Patch{eol}")
    if m.dialect == "search-replace":
        return (f"{m.path}{eol}```{eol}<<<<<<< SEARCH{eol}" + "".join(t + eol for t in old) + f"======={eol}"
                + "".join(t + eol for t in new) + f">>>>>>> REPLACE{eol}```{eol}")
    o, n = eol.join(old), eol.join(new)
    if m.lines and m.lines[-1][0] == "-":
        o += eol  # a deletion with nothing after it takes its line break along
    if m.escape_json:
        o, n = json.dumps(o)[1:-1], json.dumps(n)[1:-1]
    return json.dumps({"file_path": m.path, "old_string": o, "new_string": n})


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


def build(src: Source, e: Edit, dialect: str, mistake: str, rng: random.Random) -> Case | None:
    if mistake == "ambiguous":
        # Only the changed line, which occurs more than once, and no true line number.
        if e.kind != "modify" or src.lines.count(e.old[0]) < 2:
            return None
        start = max(1, e.start + 1 + rng.choice([-1, 1]) * rng.randint(3, 40))
        while start - 1 < len(src.lines) and src.lines[start - 1] == e.old[0]:
            start += 1  # a wrong number, not another copy's right one
        m: Model | None = Model(dialect, [("-", e.old[0]), ("+", e.new[0])], start, path=src.rel)
    else:
        m = model_for(src, e, dialect)
    if m is None:
        return None
    file = list(src.lines)
    eol = "\n"
    committed: list[str] | None = None
    intended: bytes | None = None
    ctx = [k for k, (tg, t) in enumerate(m.lines) if tg == " " and t.strip()]
    old_idx = [k for k, (tg, _) in enumerate(m.lines) if tg != "+"]
    first_old = m.start - 1

    def file_line(k: int) -> int:  # the file line of model line k (an old line)
        return first_old + sum(1 for tg, _ in m.lines[:k] if tg != "+")

    if mistake == "none":
        pass
    elif mistake == "offset":
        if dialect == "codex":
            m.numbered = True
        elif dialect != "unified":
            return None
        m.start = max(1, m.start + rng.choice([-1, 1]) * rng.randint(3, 40))
    elif mistake == "recount":
        if dialect != "unified":
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
    elif mistake == "invented-context":
        if dialect == "json" or not ctx:
            return None
        k = rng.choice(ctx)
        m.lines[k] = (" ", _comment(src.lang, _indent(m.lines[k][1]), "(see above)") if rng.random() < 0.5
                      else m.lines[k][1].rstrip() + "  " + _comment(src.lang, "", "keep"))
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
        _each(m, lambda t: t[len(common):] if t.strip() else t)
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
        m.base = _blob_id(_join(committed))[:12] if dialect == "unified" else None
    elif mistake == "stale-context":
        if not ctx:
            return None
        committed = list(file)
        k = rng.choice(ctx)
        p = file_line(k)
        file[p] = file[p].rstrip() + "  " + _comment(src.lang, "", "changed since")
        m.base = _blob_id(_join(committed))[:12] if dialect == "unified" else None
    elif mistake == "stale-conflict":
        rem = [k for k, (tg, t) in enumerate(m.lines) if tg == "-" and t.strip() and t not in e.new]
        if not rem:
            return None
        committed = list(file)
        p = file_line(rng.choice(rem))
        file[p] = _split_word(file[p])  # never what the edit does, nor text that still holds it
        m.base = _blob_id(_join(committed))[:12] if dialect == "unified" else None
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
    if mistake not in REFUSE:
        intended = _join(_kept(e if committed is None else _shifted(e, committed, file), file).apply(file), eol)
    at = first_old + (len(file) - len(committed) if committed is not None else 0)
    return Case(src, e, dialect, mistake, file, eol, intended, render(m), committed, _elsewhere(m, file, at))


def _elsewhere(m: Model, file: list[str], at: int) -> bool:
    """The old text as the model wrote it stands, letter for letter, somewhere other than
    the edit's place (`at`): a mistake that turned the edit into one of another place."""
    old = [t for tg, t in m.lines if tg != "+"]
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
    end) as the file has them, its changed lines as `whitespace: fix` leaves them."""
    from guard.checks.whitespace import Rules, fix_line

    new = [fix_line(x, Rules()) for x in e.new]
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


def _shifted(e: Edit, committed: list[str], current: list[str]) -> Edit:
    """The edit moved onto the current file, which gained lines above it or changed one beside it."""
    return replace(e, start=e.start + len(current) - len(committed))


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

    @property
    def n(self) -> int:
        return self.correct + self.refused + self.wrong  # `elsewhere` cases are counted apart


def _git(cwd: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, timeout=60, env=env, check=False)


class Scratch:
    """One repository per source file; the base committed once, the work tree rewritten per case."""

    def __init__(self, root: Path, src: Source) -> None:
        from guard.engine import Guard

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
        report = self.guard.apply(case.text, format=case.dialect, check=True)
        if report.status != "checked":
            codes = ",".join(sorted({f.code for f in report.findings if f.severity == "error"}))
            return "refused", None, codes
        after = report.changes[0].after if report.changes else None
        return "applied", after, ",".join(report.changes[0].repairs) if report.changes else ""

    def tool(self, case: Case, argv: list[str]) -> tuple[str, bytes | None, str]:
        self.prepare(case)
        env = {**os.environ, **GIT_ENV}
        proc = subprocess.run(argv, cwd=self.root, input=case.text.encode(), capture_output=True, timeout=60, env=env,
                              check=False)
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=12, help="source files per language")
    ap.add_argument("--sites", type=int, default=3, help="edits per file")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--json", help="write every case's outcome here")
    ap.add_argument("--no-tools", action="store_true", help="skip git apply and GNU patch")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the wrongly applied cases")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    srcs = sources(args.files, rng)
    ours: dict[tuple[str, str], Tally] = defaultdict(Tally)
    tools: dict[tuple[str, str], Tally] = defaultdict(Tally)
    rows: list[dict[str, object]] = []
    started = time.monotonic()
    kinds = ("modify", "insert", "delete", "replace")
    with tempfile.TemporaryDirectory(prefix="locate-corpus-") as tmp:
        for n, src in enumerate(srcs):
            scratch = Scratch(Path(tmp) / f"r{n}", src)
            code = [i for i, ln in enumerate(src.lines) if ln.strip() and len(ln.strip()) > 3]
            prose = _prose(src)
            for mistake in MISTAKES:
                mrng = random.Random(f"{args.seed}/{src.rel}/{mistake}")
                want = SITES.get(mistake, lambda ln, lines: True)
                fit = [i for i in code if want(src.lines[i], src.lines)]
                if mistake == "placeholder":
                    # Code, not comments or docstrings: a marker there is prose to the placeholder check.
                    fit = [i for i in fit if not any(prose[i : i + 3])]
                picks = mrng.sample(fit, min(args.sites * 4, len(fit)))
                made = 0
                for k, i in enumerate(picks):
                    if made >= args.sites:
                        break
                    turn = kinds[(made + k + n) % 4]
                    kind = "replace" if mistake == "placeholder" else "modify" if mistake == "ambiguous" else turn
                    e = make_edit(src, i, kind, mrng)
                    if e is None:
                        continue
                    built = False
                    for dialect in DIALECTS:
                        case = build(src, e, dialect, mistake, random.Random(f"{args.seed}/{src.rel}/{mistake}/{i}/{dialect}"))
                        if case is None:
                            continue
                        built = True
                        status, after, info = scratch.ours(case)
                        outcome = judge(case, status, after)
                        ours[(mistake, dialect)].add(outcome, f"{src.rel}:{e.start + 1} {e.kind} [{info}]\n{case.text}")
                        row = {"file": str(src.origin), "line": e.start + 1, "kind": e.kind, "mistake": mistake,
                               "dialect": dialect, "outcome": outcome, "info": info}
                        if dialect == "unified" and not args.no_tools:
                            for name, cmd in (("git apply", ["git", "apply", "-"]),
                                              ("GNU patch", ["patch", "-p1", "-f", "-s", "--no-backup-if-mismatch",
                                                             "--reject-file=-"])):
                                st, aft, _ = scratch.tool(case, cmd)
                                got = judge(case, st, aft)
                                tools[(mistake, name)].add(got)
                                row[name] = got
                        rows.append(row)
                    made += built
    elapsed = time.monotonic() - started
    _print(ours, tools, srcs, elapsed, args)
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


def _print(ours: dict[tuple[str, str], Tally], tools: dict[tuple[str, str], Tally], srcs: list[Source], elapsed: float,
           args: argparse.Namespace) -> None:
    langs = Counter(s.lang for s in srcs)
    print(f"locate corpus: {len(srcs)} files ({langs['py']} Python stdlib, {langs['c']} C headers, {langs['js']} npm JS), "
          f"{args.sites} edits per file and mistake, seed {args.seed}, {elapsed:.0f} s")
    print("cells: correct/refused/wrong (for the refusal rows, correct = refused); a case whose mistake made its")
    print("text name another place to the letter, and that was applied there, is counted apart, not as wrong\n")
    head = "| mistake | " + " | ".join(DIALECTS) + " | git apply | GNU patch |"
    print(head)
    print("|" + "---|" * (len(DIALECTS) + 3))
    for mistake in MISTAKES:
        cells = [_cell(ours.get((mistake, d))) for d in DIALECTS]
        cells += [_cell(tools.get((mistake, t))) for t in ("git apply", "GNU patch")]
        print(f"| {mistake} | " + " | ".join(cells) + " |")
    for label, group in (("intent carried out (apply rows)", APPLY), ("must refuse (refusal rows)", REFUSE)):
        tot = Tally()
        for (mistake, _), t in ours.items():
            if mistake in group:
                tot.correct, tot.refused, tot.wrong = tot.correct + t.correct, tot.refused + t.refused, tot.wrong + t.wrong
                tot.elsewhere += t.elsewhere
        line = f"\n{label}: {tot.n} cases, correct {tot.correct} ({100 * tot.correct / max(1, tot.n):.1f}%), " \
               f"refused {tot.refused}, wrong {tot.wrong}"
        if tot.elsewhere:
            line += f" (and {tot.elsewhere} applied where the mistaken text stands to the letter, not counted)"
        for name in ("git apply", "GNU patch"):
            tt = Tally()
            for (mistake, tool), t in tools.items():
                if tool == name and mistake in group:
                    tt.correct, tt.refused, tt.wrong = tt.correct + t.correct, tt.refused + t.refused, tt.wrong + t.wrong
            line += f"; {name} (unified): {tt.correct}/{tt.refused}/{tt.wrong}"
        print(line)


if __name__ == "__main__":
    sys.exit(main())
