"""The fenced code blocks of README.md and of the pages under docs/, for the tests that run them or
parse them (``PAGES``: the README first, then the pages in its reading order).

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

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# The pages in the README's reading order: their runnable sessions run one after another in one
# shell, each going on from the state the ones before left (the README's `cd demo` first).
ORDER = ("usage", "dialects", "policy", "verify", "ledger", "commit-checks", "findings", "agents", "environment")
ORDER += ("reliability", "performance", "code-map")
_DOCS = sorted((ROOT / "docs").glob("*.md"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else len(ORDER), p.name))
PAGES = (README, *_DOCS)
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
    page: str = "README.md"  # the file, from the top of the checkout

    def where(self) -> str:
        return f"{self.page}:{self.line} ({self.section})"


def text() -> str:
    """Every page's text, the README first."""
    return "\n".join(p.read_text(encoding="utf-8") for p in PAGES)


def blocks(path: Path | None = None) -> list[Block]:
    """The blocks of `path`, or of every page (``PAGES``)."""
    if path is None:
        return [b for page in PAGES for b in blocks(page)]
    name = path.relative_to(ROOT).as_posix()
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
        out.append(Block(lang, "".join(lines[i + 1 : end]), i + 1, marker.group(1) if marker else "", section, name))
        i = end + 1
    return out


def file_blocks(name: str, path: Path | None = None) -> list[Block]:
    """The blocks marked ``<!-- file: NAME -->``."""
    return [b for b in blocks(path) if b.marker == f"file: {name}"]
