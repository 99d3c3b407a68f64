"""README.md's fenced code blocks, for the tests that run them or parse them.

A block may be preceded by an HTML comment, which GitHub does not show, saying what
it is for:

- ``<!-- runnable -->`` before a ``console`` block: tests/test_readme.py runs it
  (see there for the rules);
- ``<!-- not run: WHY -->`` before a shell block that cannot run in a test;
- ``<!-- file: NAME -->`` before a configuration snippet: the file it goes into,
  which tests/test_readme_recipes.py parses it as.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SHELL = frozenset({"sh", "shell", "bash", "console"})

_FENCE = re.compile(r"^(```+)(\S*)\s*$")
_MARKER = re.compile(r"^<!--\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    lang: str
    text: str  # the lines between the fences, each with its newline
    line: int  # the opening fence's line number (1-based)
    marker: str  # the comment right before the fence ("runnable", "file: .mcp.json"...), else ""
    section: str  # the nearest heading above it

    def where(self) -> str:
        return f"README.md:{self.line} ({self.section})"


def blocks(path: Path = README) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out: list[Block] = []
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.strip("# \n")
        fence = _FENCE.match(line)
        if fence is None:
            i += 1
            continue
        ticks, lang = fence.groups()
        end = i + 1
        while end < len(lines) and lines[end].rstrip("\n") != ticks:
            end += 1
        previous = lines[i - 1].strip() if i > 0 else ""
        marker = _MARKER.match(previous)
        out.append(Block(lang, "".join(lines[i + 1 : end]), i + 1, marker.group(1) if marker else "", section))
        i = end + 1
    return out


def file_blocks(name: str, path: Path = README) -> list[Block]:
    """The blocks marked ``<!-- file: NAME -->``."""
    return [b for b in blocks(path) if b.marker == f"file: {name}"]
