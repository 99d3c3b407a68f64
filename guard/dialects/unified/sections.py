"""Reading a unified diff line by line into sections, one per file (``step``).

A section gathers a file's `diff --git` header and its extended lines, its
`---`/`+++` names and its hunks; ``guard.dialects.unified`` makes a FileEdit of it.
"""

from __future__ import annotations

import re
from typing import Callable

from ...model import Hunk, HunkLine, ParseError
from ...text.regex import lazy
from .hunks import HINT_HUNK, Range, head, hunk_header, is_blank, read_hunk
from .names import DEV_NULL, OCTAL, file_name, git_header_names, name_token

HINT_HEADER = (
    "start each file with `--- a/PATH` and `+++ b/PATH` lines (or `diff --git a/PATH b/PATH`), "
    "then `@@ -START,COUNT +START,COUNT @@` hunks whose lines start with ' ', '-' or '+'"
)
_HINT_MODE = "a mode is octal: 100644 (file), 100755 (executable) or 120000 (symlink)"


class Section:
    """One file's part of the input while it is read (mutable; becomes a FileEdit)."""

    __slots__ = (
        "line",
        "git",
        "header",
        "old_raw",
        "new_raw",
        "names_line",
        "tree_diff",
        "rename_from",
        "rename_to",
        "new_file",
        "deleted_file",
        "old_mode",
        "new_mode",
        "base",
        "hunks",
        "binary",
        "fixed_path",
    )

    def __init__(
        self, line: int, git: bool = False, tree_diff: bool = False, binary: bool = False, fixed_path: str | None = None
    ) -> None:
        self.line = line  # 1-based input line where the section starts
        self.git = git
        self.header: list[tuple[str, str]] = []  # `diff --git` name splits
        self.old_raw: str | None = None  # `---` name, prefix kept
        self.new_raw: str | None = None
        self.names_line = 0
        self.tree_diff = tree_diff  # came after a `diff -r`-style command line
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.new_file = False
        self.deleted_file = False
        self.old_mode: int | None = None
        self.new_mode: int | None = None
        self.base: str | None = None
        self.hunks: list[tuple[Hunk, Range]] = []
        self.binary = binary
        self.fixed_path = fixed_path  # parse(path=...) for hunks with no file header

    def label(self) -> str:
        """The file's name for messages, before the names are settled."""
        for name in (self.fixed_path, self.new_raw, self.old_raw, self.header[0][1] if self.header else None):
            if name and name != DEV_NULL:
                return name[2:] if name.startswith(("a/", "b/")) else name
        return "?"


def _mode(text: str, lineno: int, line: str) -> int:
    if not text or len(text) > 6 or any(ch not in OCTAL for ch in text):
        raise ParseError(f"line {lineno}: invalid mode {text!r} in {line[:80]!r}", lineno, _HINT_MODE)
    return int(text, 8)


def _set_index(sec: Section, value: str, lineno: int, line: str) -> None:
    ids, _, mode = value.partition(" ")
    old_id, dots, _new_id = ids.partition("..")
    if mode:
        _mode(mode.strip(), lineno, line)
    if dots and old_id.strip("0") and all(ch in "0123456789abcdefABCDEF" for ch in old_id):
        sec.base = old_id


def _refuse_copy(sec: Section, value: str, lineno: int, line: str) -> None:
    raise ParseError(
        f"line {lineno}: copies are not supported ({line[:80]!r})",
        lineno,
        "send the copy as a new file: `--- /dev/null`, `+++ b/NEW`, and a hunk adding every line",
        name_token(value),
    )


def _old_mode(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.old_mode = _mode(value.strip(), lineno, line)


def _new_mode(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.new_mode = _mode(value.strip(), lineno, line)


def _new_file(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.new_file = True
    sec.new_mode = _mode(value.strip(), lineno, line)


def _deleted_file(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.deleted_file = True
    sec.old_mode = _mode(value.strip(), lineno, line)


def _rename_from(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.rename_from = name_token(value)


def _rename_to(sec: Section, value: str, lineno: int, line: str) -> None:
    sec.rename_to = name_token(value)


def _ignore(sec: Section, value: str, lineno: int, line: str) -> None:
    """Similarity scores say nothing the edit needs."""


_Handler = Callable[[Section, str, int, str], None]

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


class State:
    """The reader's state: the input's lines, the sections read so far, the one being read."""

    __slots__ = ("lines", "path", "sections", "current", "tree_diff", "recounted", "shared", "unterminated")

    def __init__(self, lines: list[str], path: str | None, unterminated: bool = False) -> None:
        self.lines = lines
        self.path = path
        self.sections: list[Section] = []
        self.current: Section | None = None
        self.tree_diff = False  # the last skipped line was a `diff -r`-style command
        self.recounted = False
        self.shared: dict[str, HunkLine] = {}  # see _SHARE_BELOW
        self.unterminated = unterminated  # the input's last line has no line break (a paste cut off?)

    def close(self) -> None:
        self.current = None
        self.tree_diff = False

    def start(self, sec: Section) -> Section:
        self.sections.append(sec)
        self.current = sec
        self.tree_diff = False
        return sec


def _git_section(state: State, i: int) -> int:
    line = head(state.lines[i])
    sec = state.start(Section(line=i + 1, git=True))
    sec.header = git_header_names(line[len("diff --git ") :].rstrip(" \t"))
    j = i + 1
    while j < len(state.lines):
        text = head(state.lines[j])
        for prefix, handler in _EXTENDED.items():
            if text.startswith(prefix):
                handler(sec, text[len(prefix) :], j + 1, text)
                break
        else:
            return j
        j += 1
    return j


def _names(state: State, i: int) -> int:
    """Read a `---`/`+++` pair at lines i, i+1; return the index of the hunk that must follow."""
    lines = state.lines
    sec = state.current
    if sec is None or not sec.git or sec.old_raw is not None or sec.hunks or sec.binary:
        sec = state.start(Section(line=i + 1, tree_diff=state.tree_diff))
    sec.old_raw = file_name(head(lines[i])[4:])
    sec.new_raw = file_name(head(lines[i + 1])[4:])
    sec.names_line = i + 1
    j = i + 2
    while j < len(lines) and is_blank(lines[j]):
        j += 1
    if j < len(lines):
        follow = head(lines[j])
        if follow.startswith(("@@", "GIT binary patch")) or _BINARY_RE().match(follow):
            return j
        where, found = j + 1, f"line {j + 1} is {follow[:80]!r}"
    else:
        where, found = i + 2, "the input ends there"
    raise ParseError(
        f"line {where}: the file header for {sec.label()} (lines {i + 1}-{i + 2}) is followed by no hunk: {found}",
        where,
        HINT_HUNK,
        sec.label(),
    )


_BINARY_RE = lazy(r"Binary files (.+) and (.+) differ$")


def _binary(state: State, i: int, found: re.Match[str]) -> None:
    sec = state.current
    if sec is not None and sec.git and not sec.hunks:
        sec.binary = True
        return
    sec = state.start(Section(line=i + 1, tree_diff=state.tree_diff, binary=True))
    sec.old_raw, sec.new_raw = file_name(found.group(1)), file_name(found.group(2))
    sec.names_line = i + 1
    state.close()


def _hunk(state: State, i: int) -> int:
    sec = state.current
    if sec is None:
        if state.path is None:
            raise ParseError(
                f"line {i + 1}: hunk {head(state.lines[i])[:60]!r} has no file header before it",
                i + 1,
                HINT_HEADER,
            )
        sec = state.start(Section(line=i + 1, fixed_path=state.path))
    rng = hunk_header(head(state.lines[i]), i + 1)
    read = read_hunk(state.lines, i, rng, sec.label(), state.shared, state.unterminated)
    sec.hunks.append((read.hunk, rng))
    state.recounted = state.recounted or read.recounted
    return read.end


# First characters of every line `step` acts on (`diff`, `@@`, `---`, `Binary`,
# `GIT binary`, `Index:`, `===`); with a BOM stripped, nothing else matters.
HEADS = frozenset("d@-BGI=")


def step(state: State, i: int) -> int:
    """Handle the line at i; return the index of the next line to look at."""
    lines = state.lines
    line = head(lines[i])
    if line.startswith("diff --git "):
        return _git_section(state, i)
    if line.startswith("@@"):
        return _hunk(state, i)
    if line.startswith("--- "):
        after = head(lines[i + 1]) if i + 1 < len(lines) else ""
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
                file_name(line[4:]),
            )
        return i + 1
    binary = _BINARY_RE().match(line) if line.startswith("Binary files ") else None
    if binary:
        _binary(state, i, binary)
    elif line.startswith("GIT binary patch") and state.current is not None and state.current.git:
        state.current.binary = True
    elif line.startswith(("diff ", "Index: ", "=== ")):
        state.close()
        state.tree_diff = line.startswith("diff ")
    return i + 1
