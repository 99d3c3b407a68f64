"""Codex ``apply_patch`` envelopes.

Grammar (marker lines may carry leading/trailing spaces or tabs and a CR)::

    patch      := "*** Begin Patch" NL { file_op } "*** End Patch" NL?
    file_op    := add | delete | update
    add        := "*** Add File: " path NL { "+" line NL }
    delete     := "*** Delete File: " path NL
    update     := "*** Update File: " path NL [ "*** Move to: " path NL ] { chunk }
    chunk      := ( "@@" | "@@ " context_line ) NL { ("@@ " context_line NL) }
                  { (" " | "-" | "+") line NL } [ "*** End of File" NL ]

Mapping into the edit model: Add -> ``Op.CREATE`` with whole ``content``; Delete ->
``Op.DELETE``; Update -> ``Op.MODIFY`` (``Op.RENAME`` with ``old_path`` after a
``*** Move to:``), one ``Hunk`` per chunk.  ``@@ text`` headers become
``Hunk.anchors`` in order, ``*** End of File`` sets ``at_eof``.  The first chunk of
an update may omit its ``@@``.  Inside a chunk an empty line is context with empty
text (models drop the space), as in Codex; blank lines between operations and
before a chunk's ``@@`` are separators.  Body lines keep a trailing CR as written.

Tolerated, because models produce them: the envelope inside a heredoc
(``apply_patch <<'EOF'``), inside a shell string (``bash -lc "..."``), inside a
JSON argv or tool call, inside markdown fences with prose around; a unified
``--- a/x`` / ``+++ b/x`` or ``diff --git`` header naming the updated file before
its chunks (dropped); a numbered ``@@ -12,3 +12,4 @@`` header (read as ``@@``, its
old start kept as ``Hunk.old_start``); a chunk with no lines (``@@`` right before the
next ``@@``, operation or ``*** End Patch``: dropped, repair ``empty-chunk``); a body line
that starts with none of `` -+`` (a context line whose space the model dropped: read
whole as context, repair ``context-prefix``).  Anything else refuses with ``ParseError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from .. import jsonvalue
from ..model import ADDED, CONTEXT, REMOVED, EditSet, FileEdit, Hunk, HunkLine, Op, ParseError
from ..text.regex import lazy

NAME = "codex"

BEGIN = "*** Begin Patch"
END = "*** End Patch"
END_OF_FILE = "*** End of File"
ADD, DELETE, MOVE = "Add File", "Delete File", "Move to"  # else "Update File"

OPS_HINT = "expected one of '*** Add File: ', '*** Delete File: ', '*** Update File: ', '*** End Patch'"
BODY_HINT = (
    "expected a chunk line starting with ' ' (context), '-' (remove) or '+' (add), "
    "'@@', '*** End of File', or the next operation: '*** Add File: ', "
    "'*** Delete File: ', '*** Update File: ', '*** End Patch'"
)
HEADER_HINT = "a chunk starts with '@@' alone or '@@ ' followed by a line of the file that comes before the change"

_MARKER_WS = " \t\r\ufeff"
_OP = lazy(r"\*\*\* (Add File|Delete File|Update File|Move to):[ \t]*(.*)")
_NUMBERED = lazy(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*")
# `apply_patch <<'EOF'`, `<<-"END"`, `<<\"EOF\"` (inside a double-quoted shell string).
_HEREDOC = lazy(r"<<-?[ \t]*\\?[\"']?([A-Za-z_][\w.-]*)")
_ESCAPED_BEGIN = lazy(r"(?:\\n|[\"'\[])[ \t]*\*\*\* Begin Patch")
_BACKSLASH = lazy(r"\\(.)", re.S)
_SHELL_DQ = lazy(r"\\([\\\"$`])")
_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "/": "/"}
_MAX_NESTING = 4  # wrappers inside wrappers (JSON -> bash -lc -> heredoc) before giving up
_QUOTE_LIMIT = 80


@dataclass(frozen=True, slots=True)
class _Envelope:
    """The lines from `*** Begin Patch` to the end of the (unwrapped) input."""

    lines: tuple[str, ...]
    first_line: int  # input line of lines[0]
    flat: bool  # the patch came out of one escaped string: every line is `first_line`
    delimiter: str | None  # the heredoc word that closes the wrapper, if any

    def line_no(self, index: int) -> int:
        return self.first_line if self.flat else self.first_line + index


# ---------------------------------------------------------------- detect


def detect(text: str) -> int:
    """100 for a bare or line-wrapped envelope, 85 for one inside an escaped string.

    85 stays below a JSON edit (90) whose file content happens to hold a patch.
    """
    diff_before = False
    for line in text.split("\n"):
        marker = _strip(line)
        if marker == BEGIN:
            # A unified diff that carries a Codex patch as file content is a unified diff.
            return 30 if diff_before else 100
        if line.startswith(("diff --git ", "--- ", "+++ ")):
            diff_before = True
    if BEGIN not in text or not _ESCAPED_BEGIN().search(text):
        return 0
    try:
        _unwrap(text, None, 0)
    except ParseError:
        return 0  # `"*** Begin Patch"` quoted in code, not an escaped envelope
    return 85


# ---------------------------------------------------------------- parse


def parse(text: str, path: str | None = None) -> EditSet:
    """The EditSet of one Codex envelope (`path` is unused: every op names its file)."""
    env = _unwrap(text, None, 0)
    return EditSet(files=tuple(_parse_ops(env)), format=NAME)


def _parse_ops(env: _Envelope) -> list[FileEdit]:
    lines = env.lines
    files: list[FileEdit] = []
    i = 1
    while i < len(lines):
        marker = _strip(lines[i])
        if marker == END:
            if not files:
                raise ParseError(
                    "the patch is empty: '*** End Patch' follows '*** Begin Patch' with no operation",
                    env.line_no(i),
                    OPS_HINT,
                )
            _check_tail(env, i + 1)
            return files
        if not marker:
            i += 1
            continue
        op = _OP().fullmatch(marker)
        if op is None or op.group(1) == MOVE:
            raise _unexpected(env, i, OPS_HINT)
        target = _path(env, i, op)
        if op.group(1) == ADD:
            edit, i = _parse_add(env, i, target)
        elif op.group(1) == DELETE:
            edit, i = FileEdit(path=target, op=Op.DELETE, source_line=env.line_no(i)), i + 1
        else:
            edit, i = _parse_update(env, i, target)
        files.append(edit)
    raise _missing_end(env, len(lines) - 1)


def _parse_add(env: _Envelope, i: int, path: str) -> tuple[FileEdit, int]:
    lines = env.lines
    content: list[str] = []
    j = i + 1
    while j < len(lines):
        line = lines[j]
        if line.startswith(ADDED):
            content.append(line[1:] + "\n")
            j += 1
        elif _ends_section(line, env) or (not _strip(line) and not _added_follows(lines, j)):
            break
        else:
            raise ParseError(
                f"line {env.line_no(j)} of '*** Add File: {path}' does not start with '+': {_quote(line)}",
                env.line_no(j),
                "prefix every line of a new file with '+' (an empty line is '+' alone), then "
                + OPS_HINT.replace("expected", "continue with"),
                path,
            )
    edit = FileEdit(path=path, op=Op.CREATE, content="".join(content), source_line=env.line_no(i))
    return edit, j


def _added_follows(lines: tuple[str, ...], j: int) -> bool:
    """Whether the blank run at `j` sits between added lines (an error) or ends the file."""
    while j < len(lines) and not _strip(lines[j]):
        j += 1
    return j < len(lines) and lines[j].startswith(ADDED)


def _parse_update(env: _Envelope, i: int, path: str) -> tuple[FileEdit, int]:
    lines = env.lines
    j = i + 1
    new_path: str | None = None
    move = _OP().fullmatch(_strip(lines[j])) if j < len(lines) else None
    if move is not None and move.group(1) == MOVE:
        new_path = _path(env, j, move)
        j += 1
    j = _skip_diff_headers(env, j, path, new_path or path)
    hunks: list[Hunk] = []
    repairs: list[str] = []
    empty_at: int | None = None
    while j < len(lines):
        line = lines[j]
        marker = _strip(line)
        if not marker:
            j += 1  # blank lines before and between chunks separate them
            continue
        if _is_op_marker(marker):
            break
        at = j
        if marker.startswith("@@"):  # where a header is due, a padded `@@` is one
            hunk, j, fixed = _parse_chunk(env, j, path, headed=True)
        elif not hunks and empty_at is None and line[0] in (CONTEXT, REMOVED, ADDED):
            hunk, j, fixed = _parse_chunk(env, j, path, headed=False)
        else:
            raise _unexpected(env, j, BODY_HINT, path)
        if hunk is None:
            # `@@` with nothing under it: a section the model opened and never filled.
            empty_at = at if empty_at is None else empty_at
            repairs.append("empty-chunk")
            continue
        hunks.append(hunk)
        repairs += fixed
    if not hunks and empty_at is not None:
        raise _empty_chunk(env, empty_at, path)
    if not hunks:
        raise ParseError(
            f"'*** Update File: {path}' at line {env.line_no(i)} has no chunks",
            env.line_no(i),
            f"follow it with '@@' and lines starting with ' ', '-' or '+'; to remove the file use '*** Delete File: {path}'",
            path,
        )
    source = env.line_no(i)
    fixed_all = tuple(dict.fromkeys(repairs))
    if new_path is None or new_path == path:
        return FileEdit(path=path, op=Op.MODIFY, changes=tuple(hunks), source_line=source, repairs=fixed_all), j
    edit = FileEdit(path=new_path, op=Op.RENAME, old_path=path, changes=tuple(hunks), source_line=source, repairs=fixed_all)
    return edit, j


def _parse_chunk(env: _Envelope, j: int, path: str, headed: bool) -> tuple[Hunk | None, int, list[str]]:
    """One chunk from line `j`: the hunk (None when the chunk has no lines), the next line, repairs."""
    lines = env.lines
    start = j
    anchors: list[str] = []
    old_start: int | None = None
    repairs: list[str] = []
    if headed:
        old_start = _read_header(env, j, path, anchors)
        j += 1
        while j < len(lines) and _strip(lines[j]).startswith("@@") and not lines[j].startswith(CONTEXT):
            if _strip(lines[j]) == "@@" or _NUMBERED().fullmatch(_strip(lines[j])):
                return None, j, []  # this header heads nothing: the next one starts a chunk
            _read_header(env, j, path, anchors)
            j += 1
    body: list[HunkLine] = []
    at_eof = False
    while j < len(lines):
        line = lines[j]
        marker = _strip(line)
        if marker == END_OF_FILE:
            at_eof, j = True, j + 1
            break
        if _is_op_marker(marker) or (marker.startswith("@@") and not line.startswith(CONTEXT)):
            break
        if not line or line == "\r":
            body.append(HunkLine(CONTEXT, line))  # a context line whose space was dropped
        elif line[0] in (CONTEXT, REMOVED, ADDED):
            body.append(HunkLine(line[0], line[1:]))
        elif not marker:
            break  # whitespace that is no prefix: a separator, judged by the caller
        elif (body or headed) and not marker.startswith("***"):
            # A line of the file copied without its context space: context, read whole.
            body.append(HunkLine(CONTEXT, line))
            repairs.append("context-prefix")
        else:
            raise _unexpected(env, j, BODY_HINT, path)
        j += 1
    if not body:
        return None, j, []
    if not anchors and old_start is None and all(hl.tag == ADDED for hl in body):
        # Codex's rule for a chunk of only `+` lines under a bare `@@`: append at the end.
        at_eof = True
    hunk = Hunk(
        lines=tuple(body),
        old_start=old_start,
        anchors=tuple(anchors),
        at_eof=at_eof,
        source_line=env.line_no(start),
    )
    return hunk, j, repairs


def _read_header(env: _Envelope, j: int, path: str, anchors: list[str]) -> int | None:
    """Add the anchor of the `@@` line at `j` to `anchors`; the old start of a numbered one."""
    marker = _strip(env.lines[j])
    if marker == "@@":
        return None
    numbered = _NUMBERED().fullmatch(marker)
    if numbered is not None:
        start, count = int(numbered.group(1)), numbered.group(2)
        # `-5,0` inserts after line 5: the model's old_start names the line it goes before.
        return start + 1 if count == "0" else max(start, 1)
    if marker[2] in " \t":
        anchors.append(marker[3:])
        return None
    raise ParseError(
        f"invalid chunk header at line {env.line_no(j)}: {_quote(env.lines[j])}",
        env.line_no(j),
        HEADER_HINT,
        path,
    )


def _skip_diff_headers(env: _Envelope, j: int, path: str, target: str) -> int:
    """Step over unified-diff headers a model pasted before the chunks, if they name this file."""
    lines = env.lines
    while j < len(lines):
        line = lines[j].rstrip(_MARKER_WS)
        if line.startswith("diff --git "):
            rest = line[len("diff --git ") :]
            if not any(rest in (f"a/{path} b/{t}", f"{path} {t}") for t in (path, target)):
                raise _foreign_header(env, j, path)
            j += 1
            if j < len(lines) and lines[j].startswith("index "):
                j += 1
        elif line.startswith("--- ") and j + 1 < len(lines) and lines[j + 1].startswith("+++ "):
            old, new = _diff_path(line[4:]), _diff_path(lines[j + 1][4:])
            if old != path or new not in (path, target):
                raise _foreign_header(env, j, path)
            j += 2
        else:
            return j
    return j


def _foreign_header(env: _Envelope, j: int, path: str) -> ParseError:
    return ParseError(
        f"unified-diff header at line {env.line_no(j)} does not name '{path}': {_quote(env.lines[j])}",
        env.line_no(j),
        f"drop the '---'/'+++'/'diff --git' lines: a Codex patch names its file only in "
        f"'*** Update File: {path}'; start a new '*** Update File: ' for another file",
        path,
    )


def _diff_path(field: str) -> str:
    name = field.split("\t", 1)[0].strip(_MARKER_WS).strip('"')
    return name[2:] if name.startswith(("a/", "b/")) else name


def _check_tail(env: _Envelope, j: int) -> None:
    for k in range(j, len(env.lines)):
        if _strip(env.lines[k]) == BEGIN:
            raise ParseError(
                f"a second '*** Begin Patch' at line {env.line_no(k)}: one call carries one patch",
                env.line_no(k),
                "put every file operation inside one '*** Begin Patch' ... '*** End Patch' envelope",
            )


# ---------------------------------------------------------------- lines and errors


def _strip(line: str) -> str:
    return line.strip(_MARKER_WS)


def _is_op_marker(marker: str) -> bool:
    """A line that ends a chunk or an Add body: the next operation, or the envelope's end."""
    return marker == END or _OP().fullmatch(marker) is not None


def _ends_section(line: str, env: _Envelope) -> bool:
    marker = _strip(line)
    return marker.startswith("*** ") or _is_stop(line, env)


def _is_stop(line: str, env: _Envelope) -> bool:
    """A wrapper's closing line: the patch ended before its `*** End Patch`."""
    marker = _strip(line)
    if marker.startswith(("```", "~~~")) and not marker.strip("`~"):
        return True
    return env.delimiter is not None and line.rstrip(_MARKER_WS + "\"')]},;").lstrip("\t") == env.delimiter


def _path(env: _Envelope, i: int, op: re.Match[str]) -> str:
    path = op.group(2).strip(_MARKER_WS)
    if not path:
        raise ParseError(
            f"'*** {op.group(1)}:' at line {env.line_no(i)} names no path",
            env.line_no(i),
            f"write the repository-relative path after the marker, e.g. '*** {op.group(1)}: src/app.py'",
        )
    return path


def _quote(line: str) -> str:
    line = line.rstrip("\r")
    return repr(line if len(line) <= _QUOTE_LIMIT else line[:_QUOTE_LIMIT] + "...")


def _unexpected(env: _Envelope, i: int, hint: str, path: str | None = None) -> ParseError:
    line = env.lines[i]
    if _is_stop(line, env):
        return _missing_end(env, i)
    marker = _strip(line)
    if marker.startswith("*** ") and _OP().fullmatch(marker) is not None:  # `*** Move to:` astray
        hint = "'*** Move to: ' must directly follow its '*** Update File: ' line; " + OPS_HINT
    elif marker == END_OF_FILE:
        hint = "'*** End of File' must directly follow a chunk's last line; " + OPS_HINT
    kind = "unknown line" if marker.startswith("***") else "unexpected line"
    return ParseError(f"{kind} at line {env.line_no(i)}: {_quote(line)}", env.line_no(i), hint, path)


def _missing_end(env: _Envelope, i: int) -> ParseError:
    return ParseError(
        f"missing '*** End Patch': the patch stops at line {env.line_no(i)} (was the input cut off?)",
        env.line_no(i),
        "end the patch with a line '*** End Patch'; if it was truncated, send it again whole",
    )


def _empty_chunk(env: _Envelope, i: int, path: str) -> ParseError:
    return ParseError(
        f"the chunk at line {env.line_no(i)} of '*** Update File: {path}' has no lines",
        env.line_no(i),
        "follow '@@' (and any stacked '@@ <context>' lines) with lines starting with ' ', '-' or '+'",
        path,
    )


# ---------------------------------------------------------------- unwrapping


def _unwrap(text: str, origin: int | None, depth: int) -> _Envelope:
    """Find the envelope in `text`, peeling heredocs, shell strings, JSON and fences."""
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n")  # not splitlines(): \x0b, \x1c, U+2028 ... are content
    for index, line in enumerate(lines):
        if _strip(line) == BEGIN:
            return _line_envelope(lines, index, origin)
    if depth < _MAX_NESTING and BEGIN in text:
        here = origin if origin is not None else text.count("\n", 0, text.index(BEGIN)) + 1
        for inner in _decoded(text):
            try:
                return _unwrap(inner, here, depth + 1)
            except ParseError:
                continue
    raise ParseError(
        "no '*** Begin Patch' line: the input is not a Codex patch",
        origin or 1,
        "start the patch with a line '*** Begin Patch' and end it with '*** End Patch'",
    )


def _line_envelope(lines: list[str], begin: int, origin: int | None) -> _Envelope:
    opener = next((lines[k] for k in range(begin - 1, -1, -1) if _strip(lines[k])), "")
    openers = list(_HEREDOC().finditer(opener))
    heredoc = openers[-1] if openers else None  # the last `<<` on the line opens the patch
    delimiter = heredoc.group(1) if heredoc is not None else None
    unquote: Callable[[str], str] = _identity
    if heredoc is not None:
        unquote = _UNQUOTE.get(_quote_state(opener[: heredoc.start()]), _identity)
    indent = _fence_indent(opener, lines[begin])
    body = tuple(unquote(_dedent(line, indent)) for line in lines[begin:])
    first = origin if origin is not None else begin + 1
    return _Envelope(lines=body, first_line=first, flat=origin is not None, delimiter=delimiter)


def _fence_indent(opener: str, begin: str) -> int:
    """The indent of a fence nested in a list item, which its body lines all carry."""
    indent = len(opener) - len(opener.lstrip(" \t"))
    fenced = opener.lstrip(" \t").startswith(("```", "~~~"))
    return indent if fenced and indent and begin[:indent] == opener[:indent] else 0


def _dedent(line: str, indent: int) -> str:
    prefix = line[:indent]
    return line[len(prefix) - len(prefix.lstrip(" \t")) :]  # at most `indent` blanks go


def _quote_state(shell: str) -> str:
    """The shell quote open at the end of `shell`: '"', "'" or ''."""
    state, escaped = "", False
    for char in shell:
        if escaped:
            escaped = False
        elif char == "\\" and state != "'":
            escaped = True
        elif char in "\"'" and state in ("", char):
            state = "" if state == char else char
    return state


def _identity(line: str) -> str:
    return line


def _unquote_double(line: str) -> str:
    return _SHELL_DQ().sub(r"\1", line)


def _unquote_single(line: str) -> str:
    return line.replace("'\\''", "'").replace("'\"'\"'", "'")


_UNQUOTE: dict[str, Callable[[str], str]] = {'"': _unquote_double, "'": _unquote_single}


def _decoded(text: str) -> Iterator[str]:
    """Strings the envelope may be escaped inside: a JSON value, then C-style escapes."""
    found = _json_patch(text)
    if found is not None:
        yield found
    if "\\n" in text:
        yield _BACKSLASH().sub(lambda m: _C_ESCAPES.get(m.group(1), m.group(0)), text)


def _json_patch(text: str) -> str | None:
    for candidate in _json_slices(text):
        try:
            value = jsonvalue.loads(candidate)
        except ValueError:
            continue
        found = _patch_string(value, 0)
        if found is not None:
            return found
    return None


def _json_slices(text: str) -> Iterator[str]:
    """The whole text, each fenced block, and the span from the first bracket to the last."""
    yield text.strip()
    block: list[str] | None = None
    for line in text.split("\n"):
        if _strip(line).startswith(("```", "~~~")):
            if block is not None:
                yield "\n".join(block)
            block = None if block is not None else []
        elif block is not None:
            block.append(line)
    starts = [k for k in (text.find("{"), text.find("[")) if k >= 0]
    end = max(text.rfind("}"), text.rfind("]"))
    if starts and end > min(starts):
        yield text[min(starts) : end + 1]


# Tool-call keys that hold the patch, tried first; any other value is searched after.
_PATCH_KEYS = ("input", "patch", "command", "cmd", "arguments", "args", "function", "parameters")


def _patch_string(value: object, depth: int) -> str | None:
    if depth > 8:
        return None
    if isinstance(value, str):
        if BEGIN in value:
            return value
        if value.lstrip().startswith(("{", "[")):
            try:
                return _patch_string(jsonvalue.loads(value), depth + 1)
            except ValueError:
                return None
        return None
    if isinstance(value, list):
        items: list[object] = list(value)
    elif isinstance(value, dict):
        keys = [k for k in _PATCH_KEYS if k in value] + [k for k in value if k not in _PATCH_KEYS]
        items = [value[k] for k in keys]
    else:
        return None
    for item in items:
        found = _patch_string(item, depth + 1)
        if found is not None:
            return found
    return None
