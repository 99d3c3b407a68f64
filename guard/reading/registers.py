"""Blocks and registers: what only the file as the agent read it can say about a hashline edit.

The parser names a block by its first line (``LineRange.block``) and moves lines by
register name (``LineRange.cut`` / ``paste``), without reading a file.  Before an edit
is located, ``resolve`` turns those into plain line ranges of the file as read (the
version its tag names, ``anchors.base_text``), in two passes over the whole edit:

1. *Blocks and cuts.*  For every file with a block op or a cut: the block's end line
   comes from that version's syntax (``syntax.blocks``), and each cut's lines are kept
   under its register's name.  An insertion after a block lands after its last line, its
   lines indented as the block's first line (repair ``indent`` when that changed them).
2. *Pastes.*  Each paste takes its register's lines, in whatever file and section it
   is; pasted over or after a block, they take that block's indentation too.

The ranges stay in the read's line numbers, so what follows is what any hashline edit
gets: lines never shown are refused, and a file changed since the read is merged by
git's rule (``anchors``), a block that changed where the edit touches it being ``stale``.
A line that opens no block of several lines is ``not-found``, naming the blocks nearby;
a file whose blocks cannot be read (no grammar, or it does not parse) is a
``parse-error``: the op cannot be understood against that file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Change, EditSet, FileEdit, Finding, LineRange, error
from ..syntax import blocks
from ..text.textfile import Text
from ..text.wording import clip

if TYPE_CHECKING:
    from ..files.workspace import Workspace
    from ..policy import Policy
    from . import anchors

LAST = -1  # hashline's `$`: the last line of the file as read


def resolve(ws: Workspace, edits: EditSet, pol: Policy, here: str, who: anchors.Reader) -> tuple[EditSet, list[Finding]]:
    """`edits` with every block and register worked out (see the module doc), or the findings that refuse
    it; `who`: the agent whose reads name the versions, and whose tools the hints name.

    The module doc's two passes: ``_blocks_and_cuts`` for each file with a block op or a cut,
    then, when none was refused, ``_pastes`` for each file with a paste.
    """
    files = list(edits.files)
    kept: dict[str, tuple[str, ...]] = {}  # register -> the lines cut into it
    indents: dict[tuple[int, int], str] = {}  # (file, change) -> the indentation a paste there takes
    findings: list[Finding] = []
    for i, fe in enumerate(files):
        if not any(isinstance(c, LineRange) and (c.block or c.cut is not None) for c in fe.changes):
            continue
        read = _as_read(ws, fe, pol, here, who)
        if isinstance(read, Finding):
            findings.append(read)
            continue
        files[i] = _blocks_and_cuts(i, fe, read[0], read[1], kept, indents, findings)
    if findings:
        return edits, findings
    for i, fe in enumerate(files):
        if any(isinstance(c, LineRange) and c.paste is not None for c in fe.changes):
            files[i] = _pastes(i, fe, kept, indents)
    return edits._replace(files=tuple(files)), []


def _blocks_and_cuts(
    i: int,
    fe: FileEdit,
    path: str,
    text: Text,
    kept: dict[str, tuple[str, ...]],
    indents: dict[tuple[int, int], str],
    findings: list[Finding],
) -> FileEdit:
    """File `i` (`fe`, read as `text`) with each block op's lines worked out; its cuts' lines go
    into `kept`, the indentation of a paste over or after a block into `indents`, and the ops
    refused into `findings`."""
    changes: list[Change] = []
    moved = False
    found: dict[int, int] | Finding | None = None
    for j, c in enumerate(fe.changes):
        if isinstance(c, LineRange) and c.block:
            if found is None:
                found = _spans(path, text, c)
            placed = found if isinstance(found, Finding) else _place(path, text, found, c)
            if isinstance(placed, Finding):
                findings.append(placed)
                changes.append(c)
                continue
            c, indent = placed
            if c.paste is not None:
                indents[(i, j)] = indent
            elif c.end < c.start:
                rows = _indented(c.new, indent)
                moved = moved or rows != c.new
                c = c._replace(new=rows)
        if isinstance(c, LineRange) and c.cut is not None:
            end = len(text.lines) if c.end == LAST else c.end
            kept[c.cut] = text.lines[c.start - 1 : end]
        changes.append(c)
    return fe._replace(changes=tuple(changes), repairs=fe.repairs + (("indent",) if moved else ()))


def _pastes(i: int, fe: FileEdit, kept: dict[str, tuple[str, ...]], indents: dict[tuple[int, int], str]) -> FileEdit:
    """File `i` (`fe`) with each paste's register lines as its new lines, indented as the block
    it goes over or after."""
    changes: list[Change] = []
    moved = False
    for j, c in enumerate(fe.changes):
        if isinstance(c, LineRange) and c.paste is not None:
            lines = kept.get(c.paste)
            if lines is None:  # the parser pairs every paste with a cut: this is a bug
                raise AssertionError(f"register {c.paste!r} was never filled")
            if (i, j) in indents:
                rows = _indented(lines, indents[(i, j)])
                moved = moved or rows != lines
                lines = rows
            c = c._replace(new=lines)
        changes.append(c)
    return fe._replace(changes=tuple(changes), repairs=fe.repairs + (("indent",) if moved else ()))


def _as_read(ws: Workspace, fe: FileEdit, pol: Policy, here: str, who: anchors.Reader) -> tuple[str, Text] | Finding:
    """The file `fe` changes, as the version its tag names (the agent's read)."""
    from ..files import target
    from . import anchors

    got = target.source(ws, fe, pol, here)
    if isinstance(got, Finding):
        return got
    path, before = got
    if before is None:
        return error(
            "missing",
            path,
            None,
            f"{path} does not exist, so it has no lines to name",
            f"check the path, or read the file with {who.read(path)}",
        )
    text = anchors.base_text(ws.repo, fe, path, before, pol, who)
    return text if isinstance(text, Finding) else (path, text)


def _spans(path: str, text: Text, c: LineRange) -> dict[int, int] | Finding:
    try:
        return blocks.spans(path, text.lines)
    except blocks.Unreadable as exc:
        return error(
            "parse-error",
            path,
            c.block,
            f"{_spelled(c)} names a syntax block, but {path}'s blocks cannot be read: {exc}",
            f"name the lines instead, e.g. {_plain(c, c.block)}",
        )


def _place(path: str, text: Text, found: dict[int, int], c: LineRange) -> tuple[LineRange, str] | Finding:
    """`c` with the block it names as its lines (or its insertion point after them), and the block's indentation."""
    line = c.block
    n = len(text.lines)
    if not 1 <= line <= n:
        return error(
            "not-found",
            path,
            None,
            f"{_spelled(c)}: line {line} does not exist ({path} had {n} lines when read)",
            "number lines as the read printed them",
        )
    end = found.get(line)
    opening = text.lines[line - 1]
    if end is None:
        return _no_block(path, text, found, c)
    indent = opening[: len(opening) - len(opening.lstrip())]
    if c.end < c.start:  # after the block
        return c._replace(start=end + 1, end=end, block=0), indent
    return c._replace(start=line, end=end, block=0), indent


def _no_block(path: str, text: Text, found: dict[int, int], c: LineRange) -> Finding:
    line = c.block
    shown = text.lines[line - 1]
    what = "is blank" if not shown.strip() else f"({clip(shown.strip())!r}) opens no block of several lines"
    near = [f"line {s} ({clip(text.lines[s - 1].strip())!r}, lines {s}-{found[s]})" for s in blocks.nearest(found, line)]
    around = blocks.enclosing(found, line)
    hint = ("blocks open nearby on " + "; ".join(near) + ". ") if near else f"{path} has no block of several lines. "
    if around is not None:
        hint += f"The block around line {line} opens on line {around[0]} (lines {around[0]}-{around[1]}). "
    closest = blocks.nearest(found, line, 1)
    example = f" (e.g. {_spelled(c, closest[0])})" if closest else ""
    hint += f"Name a block by the line that opens it{example}, or name the lines themselves: {_plain(c, line)}"
    return error(
        "not-found",
        path,
        line,
        f"line {line} of {path} {what}: {_spelled(c)} names a function, class, statement or heading by its first line",
        hint,
    )


def _spelled(c: LineRange, line: int | None = None) -> str:
    """The op as oh-my-pi spells it, for block `line` (default: the one `c` names)."""
    at = f"{line or c.block}*"
    reg = "" if c.paste is None and c.cut is None else " @name"
    if c.end < c.start:
        return f"'PUT >{at}{reg or ':'}'"
    if c.paste is None and not c.new:
        return f"'CUT {at}{reg}'"
    return f"'PUT {at}{reg or ':'}'"


def _plain(c: LineRange, line: int) -> str:
    reg = "" if c.paste is None and c.cut is None else " @name"
    if c.end < c.start:
        return f"'PUT >{line}{reg or ':'}'"
    if c.paste is None and not c.new:
        return f"'CUT {line}{reg}' (or 'CUT {line}.=M{reg}' for lines {line} to M)"
    return f"'PUT {line}{reg or ':'}' (or 'PUT {line}.=M{reg or ':'}' for lines {line} to M)"


def _indented(rows: tuple[str, ...], indent: str) -> tuple[str, ...]:
    """`rows` with their common indentation made `indent` (blank rows stay as they are)."""
    filled = [r for r in rows if r.strip()]
    if not filled:
        return rows
    common = min(r[: len(r) - len(r.lstrip())] for r in filled)
    while not all(r.startswith(common) for r in filled):
        common = common[:-1]
    if common == indent:
        return rows
    return tuple(indent + r[len(common) :] if r.strip() else r for r in rows)
