"""What every check is given, what it returns, and helpers for scanning added lines.

Checks judge only added lines.  Scanning them one Python call per line is the
slow way; instead the added lines of a change are joined with ``\\n`` and one
compiled regex runs over the whole block, and only the lines it hits are looked
at in Python (``hits``).  The blocks of one run are built once and shared by its
checks (``Blocks``, in ``CheckInput.blocks``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from ..model import FileChange, Finding
from ..policy import Policy

# The levels at which a check runs (and a finding's severity); "off" and "fix" are not among them.
LEVELS = ("error", "warning")

# (path, attribute name) -> True (set), False (unset), a string value, or None (unspecified).
AttrLookup = Callable[[str, str], "str | bool | None"]


@dataclass(frozen=True, slots=True)
class Usage:
    """What this agent already used: keys files, lines_added, lines_removed, hunks, bytes."""

    turn: Mapping[str, int] = field(default_factory=dict)
    session: Mapping[str, int] = field(default_factory=dict)
    turn_files: frozenset[str] = frozenset()  # the files the turn this edit goes on changed so far


def no_attr(_path: str, _name: str) -> str | bool | None:
    """An AttrLookup for callers without gitattributes: nothing is specified."""
    return None


class Added:
    """The added lines of one change as one string (joined by newlines), and where each starts.

    ``text`` may be given when the caller already has it (a new file's decoded text is
    its added block), so a 200,000-line change is not split and joined again; ``texts``
    (the lines) and ``starts`` are then built only for a check that needs them.
    """

    def __init__(self, change: FileChange, text: str | None = None, texts: Sequence[str] | None = None) -> None:
        self.change = change
        self._texts: Sequence[str] | None = texts
        if text is None:
            self._texts = [line for _number, line in change.added]
            text = "\n".join(self._texts)
        self.text = text
        self._starts: list[int] | None = None

    @property
    def texts(self) -> Sequence[str]:
        if self._texts is None:
            # The lines hold no newline, so splitting the joined text gives them back.
            self._texts = self.text.split("\n") if self.change.added else []
        return self._texts

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            # All in C: offsets of each line in `text` (a line and its newline).
            self._starts = list(accumulate(map((1).__add__, map(len, self.texts)), initial=0))
        return self._starts

    def index(self, offset: int) -> int:
        """The index into change.added of the line holding `offset`."""
        return bisect_right(self.starts, offset) - 1


class Blocks:
    """The added block of each change, built once for all the checks of one run.

    Several checks scan the same change.  A caller that already holds a change's decoded
    text (a commit's new file: its added block) hands it over with ``prime``, so a
    200,000-line change is not split and joined again.  One ``Blocks`` serves one run
    (``CheckInput.blocks``); each block holds its change, so no id is reused meanwhile.
    """

    def __init__(self) -> None:
        self._by_id: dict[int, Added] = {}
        self._primed: set[int] = set()

    def of(self, change: FileChange) -> Added:
        block = self._by_id.get(id(change))
        if block is None:
            block = self._by_id[id(change)] = Added(change)
        return block

    def prime(self, change: FileChange, text: str, texts: Sequence[str] | None = None) -> None:
        """Tell the checks the added block of `change`, whose new bytes decoded as UTF-8 text.

        For a change that adds every line of its new text, the block is the decoded text
        without its last newline, and `texts` are its lines; the caller vouches that they
        equal what ``Added`` would build from ``change.added``.
        """
        self._by_id[id(change)] = Added(change, text, texts)
        self._primed.add(id(change))

    def decoded(self, change: FileChange) -> bool:
        """`change` was primed: the caller decoded its new bytes as UTF-8 text."""
        return id(change) in self._primed


def block_of(change: FileChange, blocks: Blocks | None = None) -> Added:
    """`change`'s block from the run's `blocks`, or built for this one call."""
    return blocks.of(change) if blocks is not None else Added(change)


@dataclass(frozen=True, slots=True)
class Committed:
    """What a commit check judges in one run: the staged change, or one commit of a range.

    Its changes are (about to be) committed: nothing is rewritten, a budget holds per
    commit (``budget.per_edit``), and text is judged against what the file was before.
    """

    label: str  # "the staged change", "commit 1a2b3c4d5e 'Add parser'": how messages name it
    commit: str | None = None  # the commit's id, for a commit of a range


@dataclass(frozen=True, slots=True)
class CheckInput:
    """What every check is given: the changes, the policy, git's view of the paths, the agent's usage so far."""

    changes: tuple[FileChange, ...]
    policy: Policy
    tracked: Callable[[str], bool]  # is this path tracked by git?
    attr: AttrLookup  # gitattributes of a path
    core_whitespace: str | None  # git config core.whitespace
    usage: Usage = Usage()
    edit_bytes: int = 0  # size of the agent's input
    committed: Committed | None = None  # None: an agent's edit, judged before it is written
    blocks: Blocks = field(default_factory=Blocks)  # the changes' added blocks, shared by the checks


@dataclass(frozen=True, slots=True)
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
            out.append(
                Finding(
                    code,
                    first.severity,
                    path,
                    None,
                    f"... and {count - limit} more lines of {path} with the same problem",
                    first.hint,
                )
            )
    return out


def hits(change: FileChange, regex: re.Pattern[str], blocks: Blocks | None = None) -> Iterator[tuple[int, int, str]]:
    """(index into change.added, line number, text) of each added line `regex` finds something in."""
    block = block_of(change, blocks)
    last = -1
    for m in regex.finditer(block.text):
        i = block.index(m.start())
        if i != last:
            last = i
            line, line_text = change.added[i]
            yield i, line, line_text


def find_lines(text: str, needles: Iterable[str]) -> list[int]:
    """Offsets in `text` of one hit of any of `needles` per line (unsorted).

    A needle may end with a newline (to find line ends) but not start with one.
    `str.find` runs at memory speed where a regex would try every position.
    """
    found: list[int] = []
    for needle in needles:
        pos = text.find(needle)
        while pos != -1:
            found.append(pos)
            nl = text.find("\n", pos)  # one hit per line is enough
            if nl == -1:
                break
            pos = text.find(needle, nl + 1)
    return found


def lines_containing(change: FileChange, needles: Iterable[str], blocks: Blocks | None = None) -> list[int]:
    """Sorted indexes into change.added of the lines holding any of `needles`."""
    block = block_of(change, blocks)
    return sorted({block.index(pos) for pos in find_lines(block.text, needles)})


def quote(text: str, limit: int = 100) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
