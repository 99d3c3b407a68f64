"""The one edit model every input dialect parses into.

Nothing after a parser knows which dialect an edit came in.  An ``EditSet`` is a
tuple of ``FileEdit`` values; each ``FileEdit`` carries the changes to make to one
file, expressed as one of four kinds of change:

- ``Hunk``: a block of tagged lines (`` `` context, ``-`` removed, ``+`` added), the
  unified-diff shape.  Unified diffs, Codex patches and SEARCH/REPLACE blocks use it.
- ``Replace``: a substring replacement (str_replace-style tools).  ``old`` need not
  start or end at a line boundary.
- ``LineRange``: replace the lines ``start..end`` (1-based, inclusive) of the file
  as it was read; ``end == start - 1`` inserts before ``start``.  Hash-anchored
  edits use it; ``expect`` holds the lines the agent saw there, for re-anchoring.
- ``Snippet``: the file as it should become, with unchanged stretches elided by
  marker lines (``// ... existing code ...``): the ``lazy`` dialect.  Which real
  lines are unchanged (anchors) and which are new is only known against the file,
  so the locator merges it (``locate.locate_snippet``).

A ``FileEdit`` may instead carry whole ``content``: with ``Op.CREATE`` the file must
not exist yet; with ``Op.MODIFY`` and ``create_missing`` it is an upsert (whole-file
writes).  Line terminators inside ``content`` and hunk lines are kept as written: a
line of a CRLF patch keeps its ``\r``, and the locator decides what that means.

An ``EditSet`` may also hold ``Rewrite`` values (the ``structural`` dialect): a pattern
and the files it is to be looked for in.  What it changes is only known against the
repository, so the engine expands each into ``FileEdit`` values of ``LineRange`` changes
(with the lines they replace as ``expect``) before anything else sees the edit.

After locating, each file's edit becomes a ``FileChange``: before/after bytes and
the added/removed lines.  Policy checks see only ``FileChange`` values.

The edit model and ``FileChange`` are ``NamedTuple``s (``x._replace(...)`` makes a
changed copy): callers of the Python API may unpack them.  ``Finding``, and the
records behind the API (splices, turns, texts, tree entries, ...), are frozen, slotted
dataclasses (``dataclasses.replace(x, ...)`` makes a changed copy; a commit check's
findings extend ``Finding`` with the commit they are about).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import count
from typing import NamedTuple, Union, overload

from .text.wording import clip_lines, printable


class Op(str, enum.Enum):
    MODIFY = "modify"
    CREATE = "create"
    DELETE = "delete"
    RENAME = "rename"


CONTEXT, REMOVED, ADDED = " ", "-", "+"


class PathBase(str, enum.Enum):
    """What a relative path in an edit is relative to (the README's "First apply" states the rule)."""

    HERE = "here"  # the current folder, as for `git add`: every path an agent names itself
    ROOT = "root"  # the repository root: `diff --git` patches, as `git apply` reads them
    GUESS = "guess"  # other diffs: the current folder, unless the path already starts with it (git apply's guess)


class HunkLine(NamedTuple):
    """One line of a hunk: its tag and its text."""

    tag: str  # CONTEXT, REMOVED or ADDED
    text: str  # without its line terminator (a CR of a CRLF patch may remain)


class Hunk(NamedTuple):
    """A block of tagged lines: context, removed and added (the unified-diff shape)."""

    lines: tuple[HunkLine, ...]
    # 1-based line of the first old line (for a hunk with no old lines: the line the
    # new lines go before, so unified `-5,0` gives 6); None when the input had none.
    old_start: int | None = None
    declared_old: int | None = None  # counts from the header as written (to report `recount`)
    declared_new: int | None = None
    anchors: tuple[str, ...] = ()  # lines that must be found, in order, before the hunk (Codex `@@ ctx`)
    at_eof: bool = False  # the hunk must end at the end of the file
    old_eof_newline: bool = True  # False: `\ No newline` followed the old side's last line
    new_eof_newline: bool = True
    source_line: int = 0  # line of the input where the hunk starts, for messages

    @property
    def old_lines(self) -> tuple[str, ...]:
        return tuple(hl.text for hl in self.lines if hl.tag != ADDED)

    @property
    def new_lines(self) -> tuple[str, ...]:
        return tuple(hl.text for hl in self.lines if hl.tag != REMOVED)


class Replace(NamedTuple):
    """A substring replacement (str_replace-style tools)."""

    old: str
    new: str
    replace_all: bool = False
    source_line: int = 0


# A line a change names by its hash as oh-my-pi's tools printed it: (line number, the hash as
# written, the names of the rules it may have been made with; ``guard.text.linehash.RULES``).
LineHash = tuple[int, str, tuple[str, ...]]


class LineRange(NamedTuple):
    """Replace lines `start..end` of the file as it was read (hash-anchored edits).

    Three fields name what only the file as read can say (``guard.reading.registers`` works them out
    before the range is located): `block`, the line whose syntax block the range is
    (``LineRange(N, N, new, block=N)`` replaces that block, ``LineRange(N + 1, N, new,
    block=N)`` inserts after it); `cut`, a register that keeps the lines the range removes;
    `paste`, a register whose lines are the range's new lines.  A register is named, or
    ``""``, the one unnamed register.
    """

    start: int  # 1-based first line replaced
    end: int  # inclusive; start - 1 for a pure insertion before `start`
    new: tuple[str, ...]  # replacement lines, without terminators
    expect: tuple[str, ...] | None = None  # the lines the agent saw at start..end
    source_line: int = 0
    block: int = 0  # not 0: the range is the syntax block opening on this line (or inserts after it)
    cut: str | None = None  # the register the removed lines are kept in
    paste: str | None = None  # the register whose lines are put in
    hashes: tuple[LineHash, ...] = ()  # lines the edit named by hash: each must hash so in the file as read


class Snippet(NamedTuple):
    """The file as it should become, unchanged stretches elided by marker lines (the lazy dialect)."""

    lines: tuple[str, ...]  # every line of the snippet, markers included, without terminators
    markers: tuple[int, ...]  # indexes into `lines` of the marker lines, ascending
    source_line: int = 0  # line of the input where lines[0] is


Change = Union[Hunk, Replace, LineRange, Snippet]


class Rewrite(NamedTuple):
    """A structural rewrite: every node of `language` matching `pattern` in the files `paths`
    names becomes `to` (ast-grep's patterns and templates: ``$NAME`` one node, ``$$$NAME``
    several).  Which files, and what each match is, is only known against the repository:
    the engine expands a rewrite into ordinary ``FileEdit`` values (``structural.expansion``)."""

    pattern: str
    to: str
    paths: tuple[str, ...]  # globs (or files, folders) as written, from the current folder
    language: str | None = None  # ast-grep's name; None: each file's, by its extension
    selector: str | None = None  # the node kind inside `pattern` to match (the rest is context)
    source_line: int = 0


class FileEdit(NamedTuple):
    """The changes to make to one file, or its whole new content."""

    path: str  # as written in the input, relative to `path_base` (validated later)
    op: Op
    old_path: str | None = None  # for RENAME (and a modify that moves)
    changes: tuple[Change, ...] = ()
    content: str | None = None  # whole new text for CREATE or a whole-file write
    base: str | None = None  # blob id (or prefix) the edit was made against; or LAST_SEEN
    old_mode: int | None = None
    new_mode: int | None = None
    binary: bool = False  # a binary patch: always refused
    create_missing: bool = False  # MODIFY of a missing file starts from empty and creates it
    source_line: int = 0
    repairs: tuple[str, ...] = ()  # bookkeeping the parser put right in this file's section
    path_base: PathBase = PathBase.HERE


# `FileEdit.base` of a line-anchored edit that names no version (oh-my-pi's JSON hashline
# calls): the file as the agent last read it (``git agent-read``, MCP ``read_file``) when a read
# is on record, else the file as it is now (``guard.reading.anchors``).
LAST_SEEN = "@seen"


def line_anchored(fe: FileEdit) -> bool:
    """Whether `fe` names lines of the file as the agent read it (a hashline edit: a base, and
    only ``LineRange`` changes without ``expect``), which ``anchors`` resolves against the read."""
    return (
        bool(fe.base)
        and fe.content is None
        and bool(fe.changes)
        and all(isinstance(c, LineRange) and c.expect is None for c in fe.changes)
    )


def ordered_changes(fe: FileEdit) -> bool:
    """Whether `fe`'s changes come in file order, each looked for after the one before.

    Hunks that carry context or line numbers are listed in file order (diffs, Codex
    chunks); bare SEARCH/REPLACE blocks and str_replace edits are not, so each of
    those must be unique in the whole file.
    """
    return any(
        isinstance(c, Hunk) and (c.old_start is not None or c.anchors or any(hl.tag == CONTEXT for hl in c.lines))
        for c in fe.changes
    )


class EditSet(NamedTuple):
    """One parsed edit: a FileEdit per file (and the structural rewrites to expand into more),
    and the dialect it came in."""

    files: tuple[FileEdit, ...]
    format: str
    repairs: tuple[str, ...] = ()  # repairs made while parsing (e.g. "recount")
    # The dialect was guessed (`auto`), not named by the caller: how it was read, not what it
    # says, so two edit sets that say the same are equal however they were read.
    detected: bool = False
    rewrites: tuple[Rewrite, ...] = ()  # applied in order, after nothing else (the engine expands them)

    def _said(self) -> tuple[object, ...]:
        return (self.files, self.format, self.repairs, self.rewrites)

    def __eq__(self, other: object) -> bool:
        return self._said() == other._said() if isinstance(other, EditSet) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._said() != other._said() if isinstance(other, EditSet) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._said())


@dataclass(frozen=True, slots=True)
class Finding:
    """Why an edit is refused or warned about: code, severity, where, what, and what to do next."""

    code: str
    severity: str  # "error" | "warning"
    path: str | None
    line: int | None
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        # Every line a finding says is bounded (``wording.clip_lines``), whatever it quotes: a
        # file's 60 KB line, a path of 4,000 bytes.  Quotes of file lines are cut closer where
        # they are made, around what matters (``wording.clip``).
        object.__setattr__(self, "message", clip_lines(self.message))
        object.__setattr__(self, "hint", clip_lines(self.hint))

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
        }

    def __str__(self) -> str:
        """``path:line: code: message`` (what editors and terminals link; no line, no `:line`; a
        finding about the input as a whole, ``<input>``), then the hint's lines indented, printable."""
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {self.code}: {self.message}" + ("" if self.severity == "error" else " (warning)")
        if self.hint:
            text += "\n" + "\n".join("    " + ln for ln in self.hint.splitlines())
        return printable(text)


def error(code: str, path: str | None, line: int | None, message: str, hint: str = "") -> Finding:
    return Finding(code, "error", path, line, message, hint)


def warning(code: str, path: str | None, line: int | None, message: str, hint: str = "") -> Finding:
    return Finding(code, "warning", path, line, message, hint)


class NumberedLines(Sequence[tuple[int, str]]):
    """``((1, lines[0]), (2, lines[1]), ...)`` without the pairs: each is made when asked.

    Every line of a new file is an added line; a commit of 1,000 new files would
    otherwise hold 200,000 pairs that the checks mostly only count.  Equal to the
    tuple of its pairs, and hashed like it.
    """

    __slots__ = ("lines",)

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> tuple[int, str]: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[tuple[int, str], ...]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, str] | tuple[tuple[int, str], ...]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self.lines))
            return tuple(zip(range(start + 1, stop + 1, step), self.lines[i]))
        n = len(self.lines)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("line index out of range")
        return i + 1, self.lines[i]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return zip(count(1), self.lines)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NumberedLines):
            return list(self.lines) == list(other.lines)
        if isinstance(other, tuple):
            return len(other) == len(self.lines) and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"NumberedLines({len(self.lines)} lines)"


class FileChange(NamedTuple):
    """One file's located edit: what it was, what it becomes, and what changed."""

    path: str
    op: Op
    old_path: str | None
    before: bytes | None  # None when the file did not exist
    after: bytes | None  # None when the file is deleted
    old_mode: int | None
    new_mode: int | None
    # (1-based line in `after`, text without terminator): a tuple, or for a new file's
    # lines a `NumberedLines`, which makes each pair when asked.
    added: Sequence[tuple[int, str]] = ()
    removed: Sequence[tuple[int, str]] = ()  # (1-based line in `before`, text)
    hunks: int = 0
    repairs: tuple[str, ...] = ()
    diff: str = ""  # unified diff of before -> after, computed by us
    whole: bool = False  # the edit gave the whole new text (a whole-file write), not changes to the old


class ParseError(Exception):
    """A parser's refusal: becomes a `parse-error` finding at the edge of `dialects`.

    (Not a frozen record: Python sets ``__traceback__`` on exceptions as they travel.)
    """

    def __init__(
        self, message: str, line: int | None = None, hint: str = "", path: str | None = None, read: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.hint = hint
        self.path = path
        # A file (as the edit named it) the agent should read first: parsers know no reader, so
        # `dialects.parse` puts the reader's own way to read it in front of the hint.
        self.read = read

    def __str__(self) -> str:
        return self.message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParseError) and (self.message, self.line, self.hint, self.path, self.read) == (
            other.message,
            other.line,
            other.hint,
            other.path,
            other.read,
        )

    __hash__ = Exception.__hash__
