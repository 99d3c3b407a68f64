"""What every check is given, what it returns, and helpers for scanning added lines.

Checks judge only added lines.  Scanning them one Python call per line is the
slow way; instead the added lines of a change are joined with ``\\n`` and one
compiled regex runs over the whole block, and only the lines it hits are looked
at in Python (``hits``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from types import MappingProxyType
from typing import Callable, Iterator, Mapping

from ..model import FileChange, Finding
from ..policy import Policy

_EMPTY: Mapping[str, int] = MappingProxyType({})

# (path, attribute name) -> True (set), False (unset), a string value, or None (unspecified).
AttrLookup = Callable[[str, str], "str | bool | None"]


@dataclass(frozen=True)
class Usage:
    """What this agent already used: keys files, lines_added, lines_removed, hunks, bytes."""

    turn: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    session: Mapping[str, int] = field(default_factory=lambda: _EMPTY)


def no_attr(_path: str, _name: str) -> str | bool | None:
    """An AttrLookup for callers without gitattributes: nothing is specified."""
    return None


@dataclass(frozen=True)
class CheckInput:
    changes: tuple[FileChange, ...]
    policy: Policy
    tracked: Callable[[str], bool]  # is this path tracked by git?
    attr: AttrLookup  # gitattributes of a path
    core_whitespace: str | None  # git config core.whitespace
    usage: Usage = field(default_factory=Usage)
    edit_bytes: int = 0  # size of the agent's input


@dataclass(frozen=True)
class CheckResult:
    changes: tuple[FileChange, ...]  # after fixes
    findings: tuple[Finding, ...]


Check = Callable[[CheckInput, str], "list[Finding]"]

# More findings than this of one kind in one file say nothing new; the rest are counted.
PER_FILE = 20


def capped(findings: list[Finding], limit: int = PER_FILE) -> list[Finding]:
    """At most `limit` findings per (code, path), then one that counts the rest."""
    out: list[Finding] = []
    seen: dict[tuple[str, str | None], int] = {}
    for f in findings:
        key = (f.code, f.path)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= limit:
            out.append(f)
    for (code, path), count in seen.items():
        if count > limit:
            first = next(f for f in out if f.code == code and f.path == path)
            out.append(Finding(code, first.severity, path, None,
                               f"... and {count - limit} more lines of {path} with the same problem",
                               first.hint))
    return out


def joined(change: FileChange) -> str:
    """The added lines of `change`, joined by newlines (so `^`/`$` with re.M are line ends)."""
    return "\n".join([text for _line, text in change.added])


def hits(change: FileChange, regex: re.Pattern[str], text: str | None = None) -> Iterator[tuple[int, int, str]]:
    """(index into change.added, line number, text) of each added line `regex` finds something in."""
    block = joined(change) if text is None else text
    starts: list[int] | None = None
    last = -1
    for m in regex.finditer(block):
        if starts is None:
            starts = list(accumulate((len(t) + 1 for _n, t in change.added), initial=0))
        index = bisect_right(starts, m.start()) - 1
        if index != last:
            last = index
            line, line_text = change.added[index]
            yield index, line, line_text


def quote(text: str, limit: int = 100) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
