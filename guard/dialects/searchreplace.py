"""Aider-style SEARCH/REPLACE blocks.

Grammar (markers are matched on the stripped line; 5 to 9 marker characters)::

    reply   = { prose | block }
    block   = [ path-label ] [ fence-opener ] search divider replace closer [ fence-closer ]
    search  = "<<<<<<< SEARCH" [">"] NL { line }     -- the exact lines to find
    divider = "=======" NL
    replace = { line }                               -- the lines to put there
    closer  = ">>>>>>> REPLACE" NL | "=======" NL [ ">>>>>>> REPLACE" NL ]

The block's file is named on the last non-blank line before the fence opener
(or before the SEARCH line when there is no fence), in any of the label shapes
of :func:`fences.path_label` (``src/x.py``, `` `src/x.py` ``, ``src/x.py:``,
``## src/x.py``, ``**src/x.py**``, ``File: src/x.py``), or glued to the opener
(```` ```python src/x.py ````, ```` ```src/x.py ````).  Aider's tag fences
(``<source>python``, ``<code>``, ``<pre>``, ``<codeblock>``, ``<sourcecode>``)
count as openers too.  A block with no label reuses the previous block's file.

- A SEARCH section that is empty (or blank lines only, as aider reads it) means
  "create the file, or append to it": an ``at_eof`` hunk of added lines on an
  upsert (``create_missing``).
- Otherwise the block is one hunk: every SEARCH line removed, every REPLACE line
  added, no context and no line number.
- Lines keep a trailing ``\\r`` as written; only ``\\n`` ends a line.
- Blocks for one file become one ``FileEdit``, hunks in reply order.
- A second ``=======`` ends REPLACE, as aider reads it (models write it for the
  closer, alone or just before ``>>>>>>> REPLACE``, which is then taken with it).
  REPLACE text that really held such a line leaves a stray ``>>>>>>> REPLACE``
  behind, which is refused rather than applied cut short.
- A SEARCH or REPLACE marker where it cannot be is a ``ParseError``, as is a
  block without a file.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ADDED, REMOVED, EditSet, FileEdit, Hunk, HunkLine, Op, ParseError
from ..text.regex import lazy
from . import fences

NAME = "search-replace"

_SEARCH = lazy(r"<{5,9} SEARCH>?")
_DIVIDER = lazy(r"={5,9}")
_REPLACE = lazy(r">{5,9} REPLACE")
_TAG_FENCE = lazy(r"<(?:source|code|pre|codeblock|sourcecode)>(?P<info>.*)")

SHAPE = (
    "path/to/file.py\n"
    "```python\n"
    "<<<<<<< SEARCH\n"
    "the exact lines to find\n"
    "=======\n"
    "the lines to put in their place\n"
    ">>>>>>> REPLACE\n"
    "```"
)


@dataclass(frozen=True, slots=True)
class Block:
    path: str
    search: tuple[str, ...]
    replace: tuple[str, ...]
    line: int  # 1-based line of the SEARCH marker


def is_search(line: str) -> bool:
    return _SEARCH().fullmatch(line.strip()) is not None


def _is_divider(line: str) -> bool:
    return _DIVIDER().fullmatch(line.strip()) is not None


def _is_replace(line: str) -> bool:
    return _REPLACE().fullmatch(line.strip()) is not None


def _opener_info(line: str) -> str | None:
    """The info string when `line` opens a fence (Markdown or aider's tag fences)."""
    found = fences.opener(line)
    if found is not None:
        return found[2]
    m = _TAG_FENCE().fullmatch(line.strip())
    return m["info"].strip() if m else None


def _previous_nonblank(lines: list[str], k: int, floor: int) -> int:
    while k >= floor and not lines[k].strip():
        k -= 1
    return k


def _path_before(lines: list[str], at: int, floor: int) -> str | None:
    """The file labelling the block whose SEARCH marker is `lines[at]`.

    Looks no further back than `floor` (the end of the previous block), so the
    scan stays linear and a block never takes a label from inside another.
    """
    k = _previous_nonblank(lines, at - 1, floor)
    if k < floor:
        return None
    info = _opener_info(lines[k])
    if info is not None:
        glued = fences.path_in_info(info)
        if glued:
            return glued
        k = _previous_nonblank(lines, k - 1, floor)
        if k < floor:
            return None
    return fences.path_label(lines[k])


def _body(line: str) -> str:
    return line[:-1] if line.endswith("\n") else line


def _error(message: str, line: int, path: str | None = None) -> ParseError:
    return ParseError(message, line, f"write each edit as:\n{SHAPE}", path)


def _read_block(lines: list[str], at: int, path: str) -> tuple[Block, int]:
    """Read the block whose SEARCH marker is `lines[at]`; return it and the index after its closer."""
    marker_line = at + 1  # 1-based, for messages
    j = at + 1
    while j < len(lines) and not _is_divider(lines[j]):
        if is_search(lines[j]) or _is_replace(lines[j]):
            raise _error(
                f"the SEARCH/REPLACE block for {path} opened at line {marker_line} has no `=======` "
                f"before the `{lines[j].strip()}` at line {j + 1}",
                marker_line,
                path,
            )
        j += 1
    if j == len(lines):
        raise _error(
            f"the SEARCH/REPLACE block for {path} opened at line {marker_line} has no `=======` line (the input ended first)",
            marker_line,
            path,
        )
    divider = j
    j += 1
    while j < len(lines) and not (_is_replace(lines[j]) or _is_divider(lines[j]) or is_search(lines[j])):
        j += 1
    if j == len(lines) or is_search(lines[j]):
        where = f"before the next SEARCH at line {j + 1}" if j < len(lines) else "(the input ended first)"
        raise _error(
            f"the SEARCH/REPLACE block for {path} opened at line {marker_line} has no `>>>>>>> REPLACE` line {where}",
            marker_line,
            path,
        )
    end = j + 1
    if _is_divider(lines[j]) and end < len(lines) and _is_replace(lines[end]):
        end += 1  # "=======" then ">>>>>>> REPLACE": one closer written twice
    search = tuple(_body(line) for line in lines[at + 1 : divider])
    replace = tuple(_body(line) for line in lines[divider + 1 : j])
    return Block(path, search, replace, marker_line), end


def blocks(text: str) -> list[Block]:
    """Every SEARCH/REPLACE block of `text`, in order; ParseError on a malformed one."""
    lines = fences.split_lines(text)
    found: list[Block] = []
    current: str | None = None
    floor = 0
    i = 0
    while i < len(lines):
        if _is_replace(lines[i]):
            raise _error(f"`{lines[i].strip()}` at line {i + 1} closes a block that has no `<<<<<<< SEARCH`", i + 1)
        if not is_search(lines[i]):
            i += 1
            continue
        path = _path_before(lines, i, floor) or current
        if path is None:
            raise _error(
                f"the SEARCH/REPLACE block at line {i + 1} names no file: put the path alone on the line "
                "before the opening fence",
                i + 1,
            )
        block, i = _read_block(lines, i, path)
        found.append(block)
        current, floor = path, i
    return found


def _hunk(block: Block) -> Hunk:
    added = tuple(HunkLine(ADDED, line) for line in block.replace)
    if _creates(block):
        return Hunk(lines=added, at_eof=True, source_line=block.line)
    removed = tuple(HunkLine(REMOVED, line) for line in block.search)
    return Hunk(lines=removed + added, old_start=None, source_line=block.line)


def _creates(block: Block) -> bool:
    # Aider reads a SEARCH of blank lines as empty: "create or append".
    return not any(line.strip() for line in block.search)


def parse(text: str, path: str | None = None) -> EditSet:
    """Parse a reply of SEARCH/REPLACE blocks; `path` is ignored (blocks name their files)."""
    by_path: dict[str, list[Block]] = {}
    for block in blocks(text):
        by_path.setdefault(block.path, []).append(block)
    files = tuple(
        FileEdit(
            path=name,
            op=Op.MODIFY,
            changes=tuple(_hunk(b) for b in group),
            create_missing=any(_creates(b) for b in group),
            source_line=group[0].line,
        )
        for name, group in by_path.items()
    )
    return EditSet(files=files, format=NAME)


def detect(text: str) -> int:
    """90 when a SEARCH marker starts a line; lower when only indented or broken markers exist."""
    indented = closer = False
    for line in text.split("\n"):
        if is_search(line):
            if line[:1] == "<":
                return 90
            indented = True
        elif _is_replace(line) and line[:1] == ">":
            closer = True
    if indented:
        # A diff or Codex patch whose context lines quote a block is not a block.
        return 0 if fences.looks_like_patch(text) else 80
    return 50 if closer else 0
