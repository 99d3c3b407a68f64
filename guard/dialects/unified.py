"""Unified diffs: ``git diff``, ``diff -u``/``diff -ru``, and svn/hg/bzr/CVS wrappers.

The grammar below is what this parser accepts.  Lines are split on ``\\n`` only;
a ``\\r`` before it is dropped from header lines and kept in hunk body lines
(the locator decides what it means).  Any line the grammar does not place is
*junk* and is skipped: commit ids, prose, markdown fences, ``Index:``/``====``
wrappers, ``cat > x <<EOF``, mail headers, signatures.

    input     := { junk } section { section | junk }
    section   := git-section | plain-section | binary-line

    git-section := "diff --git " OLD " " NEW
                   { extended }
                   [ "--- " FILE  "+++ " FILE { blank } ]
                   { hunk | junk } | "GIT binary patch" ... | binary-line
    extended  := "old mode " MODE          | "new mode " MODE
               | "new file mode " MODE     | "deleted file mode " MODE
               | "rename from " PATH       | "rename to " PATH
               | "similarity index " N "%" | "dissimilarity index " N "%"
               | "index " HEX ".." HEX [ " " MODE ]
               ("copy from"/"copy to" are refused: a copy is not an edit we apply)

    plain-section := [ "diff " ARGS ] "--- " FILE  "+++ " FILE  { blank }  hunk { hunk | junk }
    binary-line   := "Binary files " FILE " and " FILE " differ"

    FILE      := "/dev/null" | PATH [ TAB annotation | SPACE timestamp ]
    PATH      := text | '"' C-quoted text with \\ooo octal bytes '"'
    MODE      := octal digits, e.g. 100644, 100755, 120000

    hunk      := "@@ -" START [ "," COUNT ] " +" START [ "," COUNT ] " @@" [ section-text ]
                 body
               | "@@" [ " ..." | " -? +?" ] [ " @@" [ section-text ] ]   (no line numbers)
                 body
    body      := line { line }
    line      := " " text | "-" text | "+" text
               | "\\" text        (no newline at end of file after the line before: sets at_eof)
               | blank            (a context line that lost its space)

Meaning:

- Paths.  ``diff --git`` names fix the prefix: ``a/x b/x`` strips one leading
  component (so do any two different prefixes in front of the same rest, e.g.
  ``src://x dst://x``); ``x x`` (``--no-prefix``) strips none.  Outside git, one
  component is stripped when the old name starts ``a/`` and the new ``b/`` (or the
  other side is ``/dev/null``), or after a ``diff -r`` line when the two names
  differ only in their first component; otherwise names are taken as written.
  Timestamps (after a TAB or a space) and svn ``(revision N)`` notes are cut.
  As ``git apply`` reads them, ``diff --git`` names are relative to the top of
  the repository (``PathBase.ROOT``), and other names to the current folder
  unless they already start with its path (``PathBase.GUESS``).
- Ops.  ``/dev/null`` or ``new file mode`` on the old side is a create (its
  content is the ``+`` lines); on the new side, or ``deleted file mode``, a delete
  (its hunks kept, to check the removed text).  Outside git, a lone hunk
  ``-0,0`` creates and a lone ``+0,0`` deletes (svn, bzr, ``diff -N``).
  ``rename from/to`` (or two different ``diff --git`` names) renames; otherwise a
  modify.  For a modify whose two plain names differ, the shorter wins when one
  extends the other (``x.orig`` -> ``x``), else the new name.  Several sections for
  one path merge, in input order.
- Counts.  The header's counts guide the reading but the body decides: a hunk
  ends at a line that is none of the above, at the next ``@@``, ``diff``,
  ``---``+``+++`` file header, ``Index:`` or fence, or at the end.  With the
  counts met (or absent), a dash-only line such as a ``-- `` mail signature or a
  markdown ``---`` that prose or the end follows ends it too.  Blank lines inside
  are empty context; trailing ones are kept only when the counts call for
  exactly them and the hunk has a change.  A line with no prefix, while the
  counts want more and hunk lines follow it, is refused: ending the hunk there
  would drop the changes after it.  Counts that differ from the body are kept in
  ``declared_old/new`` and reported as the ``recount`` repair.
- ``old_start``: ``-5,3`` gives 5; a hunk with no old lines (``-5,0``) gives 6,
  the line the new lines go before; ``@@ @@`` gives None.

Refused (``ParseError`` naming the line): no diff at all, a hunk before any file
header, ``---`` without ``+++``, a file header followed by no hunk, an unreadable
or overflowing hunk header, a hunk with no body, a hunk line that lost its
prefix (see Counts), a bad mode, a copy, names that disagree between
``diff --git``, ``---``/``+++`` and ``rename from/to``, a create with old lines,
a delete with new lines, and two sections that disagree on a path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from .. import jsonvalue
from ..model import ADDED, CONTEXT, REMOVED, EditSet, FileEdit, Hunk, HunkLine, Op, ParseError, PathBase

NAME = "unified"

DEV_NULL = "/dev/null"
_MAX_NUMBER = 2**31
_MAX_HEADER = 4096  # a `diff --git` line longer than this is not split into names

_HINT_HEADER = (
    "start each file with `--- a/PATH` and `+++ b/PATH` lines (or `diff --git a/PATH b/PATH`), "
    "then `@@ -START,COUNT +START,COUNT @@` hunks whose lines start with ' ', '-' or '+'"
)
_HINT_HUNK = (
    "a hunk header is `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@` (a count of 1 may be "
    "left out), or `@@ @@` when the line numbers are unknown"
)
_HINT_MODE = "a mode is octal: 100644 (file), 100755 (executable) or 120000 (symlink)"
_HINT_NAMES = (
    "name the same file in `diff --git a/PATH b/PATH`, in `--- a/PATH`/`+++ b/PATH` and in any "
    "`rename from PATH`/`rename to PATH` lines"
)

# ---------------------------------------------------------------------------- detect

# Each pattern starts with a literal "\n" (matched against "\n" + text) rather than
# `^` with re.M: a literal prefix lets `re` skip ahead fast on a 50 MB input.
_CODEX_RE = re.compile(r"\n[ \t]*\*\*\* Begin Patch[ \t]*\r?(?:\n|$)")
_SEARCH_RE = re.compile(r"\n<{5,9} SEARCH")
_GIT_RE = re.compile(r"\ndiff --git \S")
_PAIR_HUNK_RE = re.compile(r"\n--- [^\n]*\n\+\+\+ [^\n]*\n(?:\r?\n)*@@")
_PAIR_RE = re.compile(r"\n--- [^\n]*\n\+\+\+ ")
_NUMBERED_HUNK_RE = re.compile(r"\n@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def _is_json(text: str) -> bool:
    if text.lstrip()[:1] not in ("{", "["):
        return False
    try:
        jsonvalue.loads(text)
    except ValueError:
        return False
    return True


def detect(text: str) -> int:
    """Confidence 0..100 that `text` is a unified or git diff."""
    if not text or text.isspace() or _is_json(text):
        return 0
    padded = "\n" + text
    if "SEARCH" in text and _SEARCH_RE.search(padded):
        return 0
    pair_hunk = _PAIR_HUNK_RE.search(padded)
    codex = _CODEX_RE.search(padded) if "*** Begin Patch" in text else None
    # A Codex envelope may quote diff-like lines; a diff may quote a Codex marker
    # as a context line.  Whichever comes first is what the input is.
    if codex and (pair_hunk is None or codex.start() < pair_hunk.start()):
        return 0
    if pair_hunk:
        return 100 if _GIT_RE.search(padded) else 95
    if _GIT_RE.search(padded):
        return 90
    if _PAIR_RE.search(padded):
        return 60
    if _NUMBERED_HUNK_RE.search(padded):
        return 40
    return 0


# ---------------------------------------------------------------------------- names

_ESCAPES = {'"': 0x22, "\\": 0x5C, "a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_OCTAL = "01234567"

_DATE = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:[ \t]*(?:[+-]\d\d:?\d\d|Z|[A-Z]{2,5}))?"
_CTIME = (
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[ \t]+\d\d?[ \t]+\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[ \t]+[A-Z]{2,5})?[ \t]+\d{4}(?:[ \t]+[+-]\d{4})?"
)
_SVN = r"\((?:revision \d+|working copy|nonexistent|revision HEAD)\)"
_ANNOTATION_RE = re.compile(rf"(?:[ \t]+(?:{_DATE}|{_CTIME})|[ \t]*{_SVN})[ \t]*$")


def _take_quoted(text: str) -> tuple[str, str] | None:
    """A C-quoted name at the start of `text` (git's quoting): (name, rest after the quote)."""
    out = bytearray()
    k, n = 1, len(text)
    while k < n:
        ch = text[k]
        if ch == '"':
            return out.decode("utf-8", "surrogateescape"), text[k + 1 :]
        if ch != "\\":
            out += ch.encode("utf-8", "surrogateescape")
            k += 1
            continue
        esc = text[k + 1 : k + 2]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            k += 2
        elif esc and esc in _OCTAL:
            digits = text[k + 1 : k + 4]
            if len(digits) != 3 or any(d not in _OCTAL for d in digits) or int(digits, 8) > 255:
                return None
            out.append(int(digits, 8))
            k += 4
        else:
            return None
    return None


def _file_name(field_text: str) -> str:
    """The name in a `---`/`+++`/`Binary files` field, without timestamp or annotation."""
    if field_text.startswith('"'):
        quoted = _take_quoted(field_text)
        if quoted is not None and quoted[1][:1] in ("", " ", "\t"):
            return quoted[0]
    # A known timestamp at the end is cut first, so a name holding a TAB survives
    # (`post\timage.txt\t2010-08-18 ...`); else everything from the first TAB goes
    # (CVS writes `name\tDATE\tREVISION`).
    found = _ANNOTATION_RE.search(field_text)
    if found:
        field_text = field_text[: found.start()]
    if not found:
        field_text = field_text.partition("\t")[0]
    return field_text.rstrip(" \t")


def _name_token(text: str) -> str:
    """A whole field that is one name, quoted or not (`rename from`, second git name)."""
    if text.startswith('"'):
        quoted = _take_quoted(text)
        if quoted is not None and not quoted[1].strip():
            return quoted[0]
    return text


def _strip1(name: str) -> str:
    return name.partition("/")[2]


def _same_rest(old: str, new: str) -> bool:
    """`old` and `new` are one path under two different top folders (`a/x b/x`)."""
    top_o, slash_o, rest_o = old.partition("/")
    top_n, slash_n, rest_n = new.partition("/")
    return bool(slash_o and slash_n and rest_o) and top_o != top_n and rest_o == rest_n


def _is_ab(old: str, new: str) -> bool:
    return old.startswith("a/") and new.startswith("b/") and len(old) > 2 and len(new) > 2


def _git_header_names(rest: str) -> list[tuple[str, str]]:
    """Possible (old, new) splits of the names after `diff --git `, best first, prefixes kept."""
    if rest.startswith('"'):
        first = _take_quoted(rest)
        if first is None or not first[1].startswith(" "):
            return []
        return [(first[0], _name_token(first[1][1:]))]
    at = rest.find(' "')
    while at != -1:
        second = _take_quoted(rest[at + 1 :])
        if second is not None and not second[1].strip():
            return [(rest[:at], second[0])]
        at = rest.find(' "', at + 1)
    if len(rest) > _MAX_HEADER:
        return []
    splits = [(rest[:k], rest[k + 1 :]) for k, ch in enumerate(rest) if ch == " "]
    best = [s for s in splits if s[0] == s[1] or _same_rest(*s)]
    best += [s for s in splits if _is_ab(*s) and s not in best]
    if not best and len(splits) == 1:
        best = splits
    return best


def _git_strips(old: str, new: str) -> bool:
    """Whether the names of one `diff --git` line carry a prefix to strip."""
    return old != new and (_same_rest(old, new) or _is_ab(old, new))


def _plain_names(old: str, new: str, tree_diff: bool) -> tuple[str, str]:
    """Strip the prefixes of a `---`/`+++` pair outside git (see the module doc)."""
    if old == DEV_NULL:
        return old, new[2:] if new.startswith("b/") else new
    if new == DEV_NULL:
        return old[2:] if old.startswith("a/") else old, new
    if _is_ab(old, new) or (tree_diff and _same_rest(old, new)):
        return _strip1(old), _strip1(new)
    return old, new


def _pick(old: str, new: str) -> str:
    """The target of a plain modify whose names differ: like git, the shorter of x/x.orig."""
    if old != new and new.startswith(old):
        return old
    return new


# ---------------------------------------------------------------------------- hunks


@dataclass(frozen=True)
class _Range:
    """A hunk header as written; None where it gave no number."""

    old_start: int | None
    old_count: int | None
    new_start: int | None
    new_count: int | None


_HUNK_RE = re.compile(r"@@[ \t]*-(\d+)(?:,(\d+))?[ \t]+\+(\d+)(?:,(\d+))?[ \t]*(?:@@.*)?$")
_BARE_HUNK_RE = re.compile(r"@@[ \t]*(?:\.\.\.|\u2026|-\?[ \t]*\+\?)?[ \t]*(?:@@.*)?$")


def _number(digits: str | None, lineno: int, header: str) -> int:
    if digits is None:
        return 1
    if len(digits) > 10 or int(digits) >= _MAX_NUMBER:
        raise ParseError(
            f"line {lineno}: number {digits[:30]} in hunk header {header[:80]!r} is too large",
            lineno,
            f"line numbers and counts must be below {_MAX_NUMBER}; {_HINT_HUNK}",
        )
    return int(digits)


def _hunk_header(header: str, lineno: int) -> _Range:
    found = _HUNK_RE.match(header)
    if found:
        a, b, c, d = (_number(g, lineno, header) for g in found.group(1, 2, 3, 4))
        return _Range(a, b, c, d)
    if _BARE_HUNK_RE.match(header):
        return _Range(None, None, None, None)
    raise ParseError(f"line {lineno}: unreadable hunk header {header[:80]!r}", lineno, _HINT_HUNK)


def _is_blank(line: str) -> bool:
    return line == "" or line == "\r"


def _is_file_header(lines: list[str], j: int, counts_want_more: bool) -> bool:
    """Line j starts a `---`/`+++` file header rather than being a `-` body line."""
    if not lines[j].startswith("--- ") or j + 1 >= len(lines) or not lines[j + 1].startswith("+++ "):
        return False
    if j + 2 < len(lines) and lines[j + 2].startswith("@@"):
        return True
    return not counts_want_more


def _continues_hunk(lines: list[str], k: int) -> bool:
    first = lines[k][:1]
    if first == "-":
        return not _is_file_header(lines, k, False)
    return first in ("+", " ", "\\") and first != ""


def _is_separator(lines: list[str], j: int) -> bool:
    """A dash-only line closing the text (`-- ` mail signature, markdown `---`), not a removal."""
    text = lines[j].rstrip("\r ")
    if len(text) < 2 or text.strip("-"):
        return False
    return j + 1 >= len(lines) or lines[j + 1][:1] not in (" ", "+", "-", "\\")


@dataclass(frozen=True)
class _Read:
    hunk: Hunk
    end: int  # index of the first line after the hunk
    recounted: bool


# Body lines shorter than this are shared between hunks: most short lines of code
# ("", "}", "    return x") repeat, and a HunkLine costs more than a dict lookup.
_SHARE_BELOW = 48


def _blanks_taken(lines: list[str], j: int, want_old: int, want_new: int, changed: bool) -> tuple[int, bool]:
    """Blank lines from j that belong to the hunk (as empty context), and whether it goes on.

    `want_old`/`want_new` are the lines the header still asks for (negative: no counts);
    `changed`: the hunk has a removed or added line so far.
    """
    k = j + 1
    while k < len(lines) and _is_blank(lines[k]):
        k += 1
    run = k - j
    if k < len(lines) and _continues_hunk(lines, k):
        return run, True
    # Trailing blanks: kept only when the counts call for exactly them (a last
    # context line that lost its space), never to pad counts that are off anyway,
    # nor to make a hunk of a header followed by an empty line.
    if changed and want_old == want_new and 0 < want_old <= run:
        return want_old, False
    return 0, False


def _read_hunk(
    lines: list[str], i: int, rng: _Range, label: str, shared: dict[str, HunkLine], unterminated: bool = False
) -> _Read:
    """Read the body of the hunk whose header is lines[i]; the body decides the counts."""
    n = len(lines)
    body: list[HunkLine] = []
    append, lookup, make, share_below = body.append, shared.get, HunkLine, _SHARE_BELOW
    old = new = 0
    old_cut = new_cut = marked = False  # `\\ No newline` after a line of that side
    changed = False
    counted = rng.old_count is not None and rng.new_count is not None
    want_old = rng.old_count if rng.old_count is not None else -1
    want_new = rng.new_count if rng.new_count is not None else -1
    resume = j = i + 1  # the loop skips up to `resume` after taking blank lines
    for j in range(i + 1, n):
        if j < resume:
            continue
        line = lines[j]
        first = line[:1]
        if first == " " or first == "+" or first == "-":
            if first == "-":
                if line.startswith("--") and _dashes_end_hunk(lines, j, counted, want_old - old, want_new - new):
                    break
                old += 1
                changed = True
            elif first == "+":
                new += 1
                changed = True
            else:
                old += 1
                new += 1
            short = len(line) < share_below
            item = lookup(line) if short else None
            if item is None:
                item = make(first, line[1:])
                if short:
                    shared[line] = item
            append(item)
        elif first == "\\":
            if body:
                tag = body[-1].tag
                old_cut = old_cut or tag != ADDED
                new_cut = new_cut or tag != REMOVED
                marked = True
        elif _is_blank(line):
            more_old, more_new = (want_old - old, want_new - new) if counted else (-1, -1)
            take, goes_on = _blanks_taken(lines, j, more_old, more_new, changed)
            body.extend(make(CONTEXT, blank) for blank in lines[j : j + take])
            old += take
            new += take
            resume = j + take
            if not goes_on:
                j = resume
                break
        else:
            if not (counted and old == want_old and new == want_new):
                _refuse_lost_prefix(lines, i, j, label)
            break
    else:
        j = max(n, resume)
        if counted and (old < want_old or new < want_new) and n and unterminated:
            # Short of its counts at the very end, and the last line has no line break:
            # a paste that was cut off, not a miscount (a recount would apply half of it).
            raise ParseError(
                f"line {n}: the input ends inside the hunk for {label} ({old} of {want_old} old lines, "
                f"{new} of {want_new} new lines) without a final line break: it looks cut off",
                n,
                "send the whole patch again",
                label,
            )
    if not body:
        what = "the input ends" if j >= n else f"line {j + 1} is {_head(lines[j])[:60]!r}"
        raise ParseError(
            f"line {i + 1}: hunk for {label} has no body: {what}",
            i + 1,
            "after a hunk header, give its lines, each starting with ' ' (context), '-' (removed) or '+' (added)",
            label,
        )
    return _Read(
        Hunk(
            lines=tuple(body),
            old_start=_old_start(rng, old),
            declared_old=rng.old_count,
            declared_new=rng.new_count,
            at_eof=marked,
            old_eof_newline=not old_cut,
            new_eof_newline=not new_cut,
            source_line=i + 1,
        ),
        j,
        counted and (old != want_old or new != want_new),
    )


# Lines that end a hunk as a matter of course (the next header, a fence, a heredoc end).
_STRUCTURE = ("@@", "diff ", "Index: ", "```", "~~~", "=== ", "Binary files ", "GIT binary patch", "EOF")


def _refuse_lost_prefix(lines: list[str], i: int, j: int, label: str) -> None:
    """Line j ends a hunk that still wants lines; if hunk lines follow it, it is a lost prefix.

    Ending the hunk there would silently drop the changes after it, so refuse.
    """
    text = _head(lines[j])
    if j + 1 >= len(lines) or text.startswith(_STRUCTURE) or not _continues_hunk(lines, j + 1):
        return
    raise ParseError(
        f"line {j + 1}: {text[:60]!r} inside the hunk for {label} (line {i + 1}) starts with none of "
        "' ', '-', '+', yet hunk lines follow it",
        j + 1,
        "every hunk line starts with ' ' (context, also for an unchanged line that is empty or "
        "indented), '-' (removed) or '+' (added); put back the leading space",
        label,
    )


def _dashes_end_hunk(lines: list[str], j: int, counted: bool, more_old: int, more_new: int) -> bool:
    """Line j starts with `--`: the next file's `---`/`+++` header, or a closing separator?

    A separator is taken as such only when the header's counts are met (or absent):
    a hunk still short of lines may well remove a line `--`.
    """
    if _is_file_header(lines, j, counted and more_old > 0 and more_new > 0):
        return True
    return (not counted or (more_old == 0 and more_new == 0)) and _is_separator(lines, j)


def _old_start(rng: _Range, old_lines: int) -> int | None:
    if rng.old_start is None:
        return None
    if rng.old_count == 0 and old_lines == 0:
        return rng.old_start + 1  # `-5,0` inserts after line 5
    return max(rng.old_start, 1)


# ---------------------------------------------------------------------------- sections


@dataclass
class _Section:
    """One file's part of the input while it is read (mutable; becomes a FileEdit)."""

    line: int  # 1-based input line where the section starts
    git: bool = False
    header: list[tuple[str, str]] = field(default_factory=list)  # `diff --git` name splits
    old_raw: str | None = None  # `---` name, prefix kept
    new_raw: str | None = None
    names_line: int = 0
    tree_diff: bool = False  # came after a `diff -r`-style command line
    rename_from: str | None = None
    rename_to: str | None = None
    new_file: bool = False
    deleted_file: bool = False
    old_mode: int | None = None
    new_mode: int | None = None
    base: str | None = None
    hunks: list[tuple[Hunk, _Range]] = field(default_factory=list)
    binary: bool = False
    fixed_path: str | None = None  # parse(path=...) for hunks with no file header

    def label(self) -> str:
        """The file's name for messages, before the names are settled."""
        for name in (self.fixed_path, self.new_raw, self.old_raw, self.header[0][1] if self.header else None):
            if name and name != DEV_NULL:
                return name[2:] if name.startswith(("a/", "b/")) else name
        return "?"


def _mode(text: str, lineno: int, line: str) -> int:
    if not text or len(text) > 6 or any(ch not in _OCTAL for ch in text):
        raise ParseError(f"line {lineno}: invalid mode {text!r} in {line[:80]!r}", lineno, _HINT_MODE)
    return int(text, 8)


def _set_index(sec: _Section, value: str, lineno: int, line: str) -> None:
    ids, _, mode = value.partition(" ")
    old_id, dots, _new_id = ids.partition("..")
    if mode:
        _mode(mode.strip(), lineno, line)
    if dots and old_id.strip("0") and all(ch in "0123456789abcdefABCDEF" for ch in old_id):
        sec.base = old_id


def _refuse_copy(sec: _Section, value: str, lineno: int, line: str) -> None:
    raise ParseError(
        f"line {lineno}: copies are not supported ({line[:80]!r})",
        lineno,
        "send the copy as a new file: `--- /dev/null`, `+++ b/NEW`, and a hunk adding every line",
        _name_token(value),
    )


def _old_mode(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.old_mode = _mode(value.strip(), lineno, line)


def _new_mode(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.new_mode = _mode(value.strip(), lineno, line)


def _new_file(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.new_file = True
    sec.new_mode = _mode(value.strip(), lineno, line)


def _deleted_file(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.deleted_file = True
    sec.old_mode = _mode(value.strip(), lineno, line)


def _rename_from(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.rename_from = _name_token(value)


def _rename_to(sec: _Section, value: str, lineno: int, line: str) -> None:
    sec.rename_to = _name_token(value)


def _ignore(sec: _Section, value: str, lineno: int, line: str) -> None:
    """Similarity scores say nothing the edit needs."""


_Handler = Callable[[_Section, str, int, str], None]

# Extended git header lines: prefix -> what it sets.  A line not listed ends the header.
_EXTENDED: dict[str, _Handler] = {
    "old mode ": _old_mode,
    "new mode ": _new_mode,
    "new file mode ": _new_file,
    "deleted file mode ": _deleted_file,
    "rename from ": _rename_from,
    "rename to ": _rename_to,
    "rename old ": _rename_from,  # git before 1.5 wrote these
    "rename new ": _rename_to,
    "copy from ": _refuse_copy,
    "copy to ": _refuse_copy,
    "similarity index ": _ignore,
    "dissimilarity index ": _ignore,
    "index ": _set_index,
}


def _head(line: str) -> str:
    """A header line without the CR of a CRLF patch."""
    return line[:-1] if line.endswith("\r") else line


@dataclass
class _State:
    lines: list[str]
    path: str | None
    sections: list[_Section] = field(default_factory=list)
    current: _Section | None = None
    tree_diff: bool = False  # the last skipped line was a `diff -r`-style command
    recounted: bool = False
    shared: dict[str, HunkLine] = field(default_factory=dict)  # see _SHARE_BELOW
    unterminated: bool = False  # the input's last line has no line break (a paste cut off?)

    def close(self) -> None:
        self.current = None
        self.tree_diff = False

    def start(self, sec: _Section) -> _Section:
        self.sections.append(sec)
        self.current = sec
        self.tree_diff = False
        return sec


def _git_section(state: _State, i: int) -> int:
    line = _head(state.lines[i])
    sec = state.start(_Section(line=i + 1, git=True))
    sec.header = _git_header_names(line[len("diff --git ") :].rstrip(" \t"))
    j = i + 1
    while j < len(state.lines):
        text = _head(state.lines[j])
        for prefix, handler in _EXTENDED.items():
            if text.startswith(prefix):
                handler(sec, text[len(prefix) :], j + 1, text)
                break
        else:
            return j
        j += 1
    return j


def _names(state: _State, i: int) -> int:
    """Read a `---`/`+++` pair at lines i, i+1; return the index of the hunk that must follow."""
    lines = state.lines
    sec = state.current
    if sec is None or not sec.git or sec.old_raw is not None or sec.hunks or sec.binary:
        sec = state.start(_Section(line=i + 1, tree_diff=state.tree_diff))
    sec.old_raw = _file_name(_head(lines[i])[4:])
    sec.new_raw = _file_name(_head(lines[i + 1])[4:])
    sec.names_line = i + 1
    j = i + 2
    while j < len(lines) and _is_blank(lines[j]):
        j += 1
    if j < len(lines):
        follow = _head(lines[j])
        if follow.startswith(("@@", "GIT binary patch")) or _BINARY_RE.match(follow):
            return j
        where, found = j + 1, f"line {j + 1} is {follow[:80]!r}"
    else:
        where, found = i + 2, "the input ends there"
    raise ParseError(
        f"line {where}: the file header for {sec.label()} (lines {i + 1}-{i + 2}) is followed by no hunk: {found}",
        where,
        _HINT_HUNK,
        sec.label(),
    )


_BINARY_RE = re.compile(r"Binary files (.+) and (.+) differ$")


def _binary(state: _State, i: int, found: re.Match[str]) -> None:
    sec = state.current
    if sec is not None and sec.git and not sec.hunks:
        sec.binary = True
        return
    sec = state.start(_Section(line=i + 1, tree_diff=state.tree_diff, binary=True))
    sec.old_raw, sec.new_raw = _file_name(found.group(1)), _file_name(found.group(2))
    sec.names_line = i + 1
    state.close()


def _hunk(state: _State, i: int) -> int:
    sec = state.current
    if sec is None:
        if state.path is None:
            raise ParseError(
                f"line {i + 1}: hunk {_head(state.lines[i])[:60]!r} has no file header before it",
                i + 1,
                _HINT_HEADER,
            )
        sec = state.start(_Section(line=i + 1, fixed_path=state.path))
    rng = _hunk_header(_head(state.lines[i]), i + 1)
    read = _read_hunk(state.lines, i, rng, sec.label(), state.shared, state.unterminated)
    sec.hunks.append((read.hunk, rng))
    state.recounted = state.recounted or read.recounted
    return read.end


# First characters of every line `_step` acts on (`diff`, `@@`, `---`, `Binary`,
# `GIT binary`, `Index:`, `===`); with a BOM stripped, nothing else matters.
_HEADS = frozenset("d@-BGI=")


def _step(state: _State, i: int) -> int:
    """Handle the line at i; return the index of the next line to look at."""
    lines = state.lines
    line = _head(lines[i])
    if line.startswith("diff --git "):
        return _git_section(state, i)
    if line.startswith("@@"):
        return _hunk(state, i)
    if line.startswith("--- "):
        after = _head(lines[i + 1]) if i + 1 < len(lines) else ""
        if after.startswith("+++ "):
            return _names(state, i)
        sec = state.current
        awaiting = sec is not None and sec.git and sec.old_raw is None and not sec.hunks
        if awaiting or after.startswith("@@"):
            where = min(i + 2, len(lines))
            raise ParseError(
                f"line {where}: expected a `+++ NEW` line after {line[:80]!r} (line {i + 1})",
                where,
                "a file header is two lines, `--- a/PATH` then `+++ b/PATH`, then the `@@` hunks",
                _file_name(line[4:]),
            )
        return i + 1
    binary = _BINARY_RE.match(line) if line.startswith("Binary files ") else None
    if binary:
        _binary(state, i, binary)
    elif line.startswith("GIT binary patch") and state.current is not None and state.current.git:
        state.current.binary = True
    elif line.startswith(("diff ", "Index: ", "=== ")):
        state.close()
        state.tree_diff = line.startswith("diff ")
    return i + 1


# ---------------------------------------------------------------------------- FileEdit


def _git_names(sec: _Section) -> tuple[str, str]:
    """(old, new) of a git section, prefixes stripped; /dev/null kept as such."""
    renamed = (sec.rename_from, sec.rename_to)
    if (sec.rename_from is None) != (sec.rename_to is None):
        raise ParseError(
            f"line {sec.line}: `rename from` and `rename to` must come together", sec.line, _HINT_NAMES, sec.label()
        )
    for old, new in sec.header:
        strip = _git_strips(old, new)
        names = (_strip1(old) if strip else old, _strip1(new) if strip else new)
        # Old git wrote `--- x` under `diff --git a/x b/x`: either spelling names the file.
        if sec.old_raw not in (None, DEV_NULL, old, names[0]) or sec.new_raw not in (None, DEV_NULL, new, names[1]):
            continue
        if sec.rename_from is not None and names != renamed:
            continue
        return (DEV_NULL if sec.old_raw == DEV_NULL else names[0], DEV_NULL if sec.new_raw == DEV_NULL else names[1])
    if sec.header:
        given = (
            ("---", sec.old_raw),
            ("+++", sec.new_raw),
            ("rename from", sec.rename_from),
            ("rename to", sec.rename_to),
        )
        said = [f"`{what} {name}`" for what, name in given if name is not None]
        old, new = sec.header[0]
        raise ParseError(
            f"line {sec.line}: `diff --git` names {old!r} and {new!r}, but {', '.join(said)} follow it",
            sec.line,
            _HINT_NAMES,
            sec.label(),
        )
    if sec.old_raw is not None and sec.new_raw is not None:
        old, new = _plain_names(sec.old_raw, sec.new_raw, False)
        if sec.rename_from is not None and (old, new) != renamed:
            raise ParseError(
                f"line {sec.names_line}: `---`/`+++` name {old!r} -> {new!r}, but `rename from/to` says "
                f"{sec.rename_from!r} -> {sec.rename_to!r}",
                sec.names_line,
                _HINT_NAMES,
                new,
            )
        return old, new
    if sec.rename_from is not None and sec.rename_to is not None:
        return sec.rename_from, sec.rename_to
    raise ParseError(
        f"line {sec.line}: cannot tell the file names from this `diff --git` header",
        sec.line,
        "write `diff --git a/PATH b/PATH`, quoting names with spaces like git: \"a/my file\"",
    )


def _inferred(sec: _Section) -> tuple[bool, bool]:
    """Create/delete of a plain diff shown only by a lone `-0,0` / `+0,0` hunk (svn, bzr, diff -N)."""
    if sec.git or len(sec.hunks) != 1:
        return False, False
    hunk, rng = sec.hunks[0]
    creates = rng.old_start == 0 and rng.old_count == 0 and not hunk.old_lines
    deletes = rng.new_start == 0 and rng.new_count == 0 and not hunk.new_lines
    return creates, deletes


def _created(sec: _Section, path: str) -> FileEdit:
    texts: list[str] = []
    new_eof_newline = True
    for hunk, _ in sec.hunks:
        if any(hl.tag != ADDED for hl in hunk.lines):
            raise ParseError(
                f"line {hunk.source_line}: {path} is a new file, but this hunk has context or removed lines",
                hunk.source_line,
                "a new file's hunk is `@@ -0,0 +1,N @@` followed by N lines that each start with '+'",
                path,
            )
        texts.extend(hl.text for hl in hunk.lines)
        new_eof_newline = hunk.new_eof_newline
    content = "\n".join(texts) + ("\n" if texts and new_eof_newline else "")
    return FileEdit(
        path=path,
        op=Op.CREATE,
        content=None if sec.binary else content,
        base=sec.base,
        new_mode=sec.new_mode,
        binary=sec.binary,
        source_line=sec.line,
    )


def _finish(sec: _Section) -> FileEdit:
    edit = _file_edit(sec)
    # git writes a `diff --git` patch's names from the top of the repository whatever folder it
    # ran in; a name given with --path is the agent's own.
    base = PathBase.HERE if sec.fixed_path is not None else PathBase.ROOT if sec.git else PathBase.GUESS
    return replace(edit, path_base=base)


def _file_edit(sec: _Section) -> FileEdit:
    if sec.fixed_path is not None:
        old, new = sec.fixed_path, sec.fixed_path
    elif sec.git:
        old, new = _git_names(sec)
    else:
        assert sec.old_raw is not None and sec.new_raw is not None
        old, new = _plain_names(sec.old_raw, sec.new_raw, sec.tree_diff)
    if not old or not new or (old == DEV_NULL and new == DEV_NULL):
        raise ParseError(
            f"line {sec.names_line or sec.line}: missing file name", sec.names_line or sec.line, _HINT_HEADER
        )
    creates, deletes = _inferred(sec)
    creates = creates or sec.new_file or old == DEV_NULL
    deletes = deletes or sec.deleted_file or new == DEV_NULL
    if creates and deletes:
        raise ParseError(
            f"line {sec.line}: {sec.label()} is marked both as a new and as a deleted file",
            sec.line,
            "a new file has `--- /dev/null`; a deleted file has `+++ /dev/null`",
            sec.label(),
        )
    if creates:
        return _created(sec, new)
    hunks = tuple(h for h, _ in sec.hunks)
    if deletes:
        for hunk in hunks:
            if any(hl.tag == ADDED for hl in hunk.lines):
                raise ParseError(
                    f"line {hunk.source_line}: {old} is deleted, but this hunk adds lines",
                    hunk.source_line,
                    "a deleted file's hunk removes every line (`@@ -1,N +0,0 @@`, each line starting with '-')",
                    old,
                )
        return FileEdit(
            path=old,
            op=Op.DELETE,
            changes=hunks,
            base=sec.base,
            old_mode=sec.old_mode,
            binary=sec.binary,
            source_line=sec.line,
        )
    renames = sec.git and old != new
    edit = FileEdit(
        path=new if sec.git else _pick(old, new),
        op=Op.RENAME if renames else Op.MODIFY,
        old_path=old if renames else None,
        changes=hunks,
        base=sec.base,
        old_mode=sec.old_mode,
        new_mode=sec.new_mode,
        binary=sec.binary,
        source_line=sec.line,
    )
    modes = sec.old_mode is not None or sec.new_mode is not None
    if sec.git and not (hunks or renames or sec.binary or modes):
        raise ParseError(
            f"line {sec.line}: the `diff --git` header for {edit.path} is followed by no change",
            sec.line,
            "after the header give `---`/`+++` lines and hunks, or mode or rename lines",
            edit.path,
        )
    return edit


def _merge(edits: list[FileEdit]) -> tuple[FileEdit, ...]:
    """One FileEdit per path: later sections for a path add their hunks to the first."""
    groups: dict[str, list[FileEdit]] = {}
    for edit in edits:
        groups.setdefault(edit.path, []).append(edit)
    return tuple(_combine(group) for group in groups.values())


def _combine(group: list[FileEdit]) -> FileEdit:
    first = group[0]
    for later in group[1:]:
        same = later.op is first.op and later.old_path == first.old_path
        if first.op is Op.CREATE or not (same or (first.op is Op.RENAME and later.op is Op.MODIFY)):
            raise ParseError(
                f"line {later.source_line}: {first.path} has two sections that disagree: "
                f"{first.op.value} at line {first.source_line}, {later.op.value} here",
                later.source_line,
                "give each file one section, or sections that all modify it",
                first.path,
            )
    if len(group) == 1:
        return first
    return replace(
        first,
        changes=tuple(change for edit in group for change in edit.changes),
        binary=any(edit.binary for edit in group),
        base=next((e.base for e in group if e.base is not None), None),
        old_mode=next((e.old_mode for e in group if e.old_mode is not None), None),
        new_mode=next((e.new_mode for e in group if e.new_mode is not None), None),
    )


def _split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


def parse(text: str, path: str | None = None) -> EditSet:
    """Read a unified diff (see the module doc); `path` names the file of header-less hunks."""
    if not text or text.isspace():
        raise ParseError("empty input: there is no diff to read", 1, _HINT_HEADER, path)
    state = _State(_split_lines(text), path, unterminated=not text.endswith("\n"))
    lines = state.lines
    i = 0
    while i < len(lines):
        if lines[i][:1] in _HEADS:
            i = _step(state, i)
        else:
            i += 1  # prose and other junk: nothing in the grammar starts this way
    if not state.sections:
        raise ParseError("no unified diff found in the input", 1, _HINT_HEADER, path)
    files = _merge([_finish(sec) for sec in state.sections])
    return EditSet(files=files, format=NAME, repairs=("recount",) if state.recounted else ())
