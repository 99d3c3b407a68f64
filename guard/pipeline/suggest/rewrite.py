"""One file of a suggestion: its text now, the text the suggestion makes of it, and why."""

from __future__ import annotations

from dataclasses import dataclass

from ...model import LineRange
from ...text.textfile import Text


@dataclass(frozen=True, slots=True)
class Rewrite:
    """What a suggestion does to one file, in terms every dialect's writer can put in its own words."""

    path: str  # repository-relative
    shown: str  # the path as the agent names it (from its folder, or absolute for Claude Code)
    before: Text  # the file as it is
    after: Text  # the file once the suggestion lands
    whole: bool = False  # the agent sent the whole new text: the suggestion does too
    ops: tuple[LineRange, ...] | None = None  # a hashline edit's ops, in the numbers of `tag`'s version
    tag: str | None = None  # that version's blob id (hashline)
    why: str = ""  # what differed and what the suggestion does about it ("" for a file the edit had right)
    # The lines of the file as it is now the agent is shown, to record as its read when the
    # edit needs one to land (hashline tags, read_before_edit, the MCP read rule): spans, 1-based.
    read: tuple[tuple[int, int], ...] | None = None
