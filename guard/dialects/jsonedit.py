"""str_replace-style JSON edits, as agents' file tools send them.

Input: one JSON value, several concatenated (JSON Lines), or the same inside
Markdown fences whose info string is empty or ``json``/``jsonl``/``jsonc``/``json5``/``ndjson``.
An array holds edit objects (arrays nest); each object, once unwrapped, is one of::

    {file_path, old_string, new_string, replace_all?}        -> Replace    (Claude Code Edit)
    {file_path, edits: [{old_string, new_string, replace_all?}]}          (Claude Code MultiEdit)
    {file_path, content}                                     -> whole write (Write)
    {filePath, oldString, newString, replaceAll?} / {filePath, content}   (OpenCode)
    {path, edits: [{oldText, newText}]}                                   (MCP filesystem edit_file)
    {command: "str_replace", path, old_str, new_str?}        -> Replace    (Anthropic text editor)
    {command: "create", path, file_text}                     -> create (refused over an existing file)
    {command: "insert", path, insert_line, new_str}          -> LineRange insertion after insert_line
    {command: "view", ...}                                   -> refused: a read, not an edit

Wrappers unwrapped first: ``{"name", "arguments": "<json>" | {...}}``,
``{"function": {...}}``, ``{"input": {...}}``, ``{"tool_input": {...}}`` (also
``{"type": "tool_use", "input": {...}}``), ``{"parameters": {...}}``,
``{"args": {...}}``, ``{"tool_calls": [...]}`` and a message's
``{"content": [{"type": "tool_use", ...}]}`` (its text blocks are skipped).

- A whole write is an upsert: ``FileEdit(op=MODIFY, create_missing=True, content=...)``.
- Objects naming one file merge into one ``FileEdit``, changes in input order; a
  file both written whole and otherwise changed in one input is refused.
- Paths are passed through as written (absolute ones included: the engine maps
  them); ``parse(text, path=P)`` gives ``P`` to objects that name no file.
- An empty ``old_string``/``old_str`` is refused (it would match everywhere), and
  so is ``view`` (a read: the refusal says how this reader reads the file).
- A diff or Codex patch wrapped in JSON (``{"patch": "--- a/x..."}``, a bare JSON
  string) is refused with a hint to send the patch itself; ``detect`` scores it 10.
- Errors carry the input line (JSON syntax errors also the column), counted in
  the whole input even when the JSON sat in a fence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator

from .. import jsonvalue
from ..model import Change, EditSet, FileEdit, LineRange, Op, ParseError, Replace
from . import fences

NAME = "json"

_JSON_INFOS = frozenset({"", "json", "jsonl", "jsonc", "ndjson", "json5"})
_PATH_KEYS = ("file_path", "filePath", "path")
_OLD_NEW = (("old_string", "new_string"), ("oldString", "newString"), ("old_str", "new_str"), ("oldText", "newText"))
_ALL_KEYS = ("replace_all", "replaceAll")
_WRAPPERS = ("function", "arguments", "input", "tool_input", "parameters", "args")
_EDIT_KEYS = frozenset({"command", "edits", "content", "file_text"} | {k for pair in _OLD_NEW for k in pair})

SHAPES = (
    'accepted shapes: {"file_path", "old_string", "new_string", "replace_all"?}; '
    '{"file_path", "content"}; {"file_path", "edits": [{"old_string", "new_string"}]}; '
    '{"command": "str_replace"|"create"|"insert", "path", "old_str", "new_str", "file_text", "insert_line"}; '
    '{"filePath", "oldString", "newString"}; {"path", "edits": [{"oldText", "newText"}]}; '
    'or a tool call {"name", "arguments"} / {"input": {...}} wrapping one of these'
)


class WrappedPatch(ParseError):
    """A diff or Codex patch inside JSON: not this dialect's to read."""


class InvalidJSON(ParseError):
    """A JSON syntax error."""


@dataclass(frozen=True, slots=True)
class _Edit:
    path: str
    line: int
    change: Change | None = None
    content: str | None = None
    create_only: bool = False  # the text editor's `create`: never over an existing file


# -- reading JSON values ------------------------------------------------------


class _LineCounter:
    """1-based input line of a position in `text`; positions must not decrease."""

    def __init__(self, text: str, offset: int) -> None:
        self.text, self.pos, self.line = text, 0, 1 + offset

    def at(self, pos: int) -> int:
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _syntax_error(exc: json.JSONDecodeError, offset: int) -> ParseError:
    line = exc.lineno + offset
    return InvalidJSON(
        f"invalid JSON at line {line} column {exc.colno}: {exc.msg}",
        line,
        "send valid JSON: one object, an array of objects, or one object per line",
    )


def _skip_blank(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


def _array(text: str, pos: int, lines: _LineCounter) -> tuple[list[tuple[Any, int]], int]:
    """The elements of the array opening at `pos`, each with its own line, and the end."""
    items: list[tuple[Any, int]] = []
    pos = _skip_blank(text, pos + 1)
    if text.startswith("]", pos):
        return items, pos + 1
    while True:
        start = pos
        value, pos = jsonvalue.raw_decode(text, pos)
        items.append((value, lines.at(start)))
        pos = _skip_blank(text, pos)
        if text.startswith("]", pos):
            return items, pos + 1
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _skip_blank(text, pos + 1)


def _values(text: str, offset: int) -> list[tuple[Any, int]]:
    """Every top-level JSON value in `text` (a top-level array gives its elements),
    each with its input line; `offset` input lines precede `text`."""
    out: list[tuple[Any, int]] = []
    lines = _LineCounter(text, offset)
    pos = _skip_blank(text, 0)
    try:
        while pos < len(text):
            if text[pos] == "[":
                items, pos = _array(text, pos, lines)
                out.extend(items)
            else:
                start = pos
                value, pos = jsonvalue.raw_decode(text, pos)
                out.append((value, lines.at(start)))
            pos = _skip_blank(text, pos)
    except json.JSONDecodeError as exc:
        raise _syntax_error(exc, offset) from None
    except RecursionError:
        raise ParseError("the JSON is nested too deeply", lines.line, "send flat edit objects") from None
    return out


def _documents(text: str) -> list[tuple[str, int]]:
    """The JSON texts to read, with the number of input lines before each: the whole
    input when it starts as JSON, else the bodies of its JSON-looking fences."""
    if text.lstrip(" \t\r\n\ufeff")[:1] in ("{", "[", '"'):
        return [(text, 0)]
    return [
        (f.body, f.start_line - 1)
        for f in fences.extract(text)
        if (f.info.split() or [""])[0].lower() in _JSON_INFOS and f.body.lstrip()[:1] in ("{", "[")
    ]


# -- unwrapping tool calls ----------------------------------------------------


def _loads_arguments(raw: str, line: int) -> Any:
    try:
        return jsonvalue.loads(raw)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f'the "arguments" string of the call at line {line} is not valid JSON: {exc.msg} '
            f"(line {exc.lineno} column {exc.colno} of the string)",
            line,
            "send the arguments as a JSON object, or as a string holding one",
        ) from None


def _unwrap(obj: dict[str, Any], line: int) -> dict[str, Any]:
    """Peel function-call wrappers until an object with edit keys (or no wrapper) remains."""
    for _ in range(8):
        if _EDIT_KEYS & obj.keys():
            return obj
        for key in _WRAPPERS:
            inner = obj.get(key)
            if key == "arguments" and isinstance(inner, str):
                inner = _loads_arguments(inner, line)
            if isinstance(inner, dict):
                obj = inner
                break
        else:
            return obj
    return obj


def _objects(value: Any, line: int, depth: int = 0) -> Iterator[tuple[dict[str, Any], int]]:
    """The edit objects in one JSON value: arrays flattened, tool-call lists opened."""
    if depth > 8:
        raise ParseError(f"the JSON at line {line} nests arrays too deeply", line, "send flat edit objects")
    if isinstance(value, list):
        if any(isinstance(item, str) and fences.looks_like_patch(item) for item in value):
            raise _wrapped_patch(line, "a JSON array")  # ["apply_patch", "*** Begin Patch..."]
        for item in value:
            yield from _objects(item, line, depth + 1)
    elif isinstance(value, dict):
        calls = value.get("tool_calls")
        blocks = value.get("content")
        if isinstance(calls, list):
            yield from _objects(calls, line, depth + 1)
        elif isinstance(blocks, list) and not _path_key(value):
            tool_uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            yield from _objects(tool_uses, line, depth + 1)
        else:
            yield _unwrap(value, line), line
    elif isinstance(value, str) and fences.looks_like_patch(value):
        raise _wrapped_patch(line, "a JSON string")
    else:
        raise ParseError(
            f"the JSON {type(value).__name__} at line {line} is not an edit object",
            line,
            SHAPES,
        )


def _wrapped_patch(line: int, where: str) -> WrappedPatch:
    return WrappedPatch(
        f"the input at line {line} is a diff or patch inside {where}, not a JSON edit",
        line,
        "send the patch text itself, unwrapped (it is read as a unified diff or Codex patch)",
    )


# -- edit shapes ---------------------------------------------------------------


def _path_key(obj: dict[str, Any]) -> str | None:
    return next((k for k in _PATH_KEYS if k in obj), None)


def _string(obj: dict[str, Any], key: str, line: int, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        what = "is missing" if value is None else f"is a {type(value).__name__}, not a string"
        raise ParseError(f'"{key}" of the edit at line {line} {what}', line, SHAPES)
    return value


def _flag(obj: dict[str, Any], line: int) -> bool:
    for key in _ALL_KEYS:
        value = obj.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise ParseError(
                f'"{key}" of the edit at line {line} must be true or false, not {value!r}',
                line,
                f'send "{key}": true to replace every occurrence, or leave it out',
            )
        return value
    return False


def _path(obj: dict[str, Any], line: int, default: str | None) -> str:
    key = _path_key(obj)
    if key is None:
        if default:
            return default
        raise ParseError(
            f"the edit at line {line} names no file (keys: {', '.join(sorted(obj))})",
            line,
            'add "file_path" (or "path"/"filePath") with the file to edit',
        )
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise ParseError(
            f'"{key}" of the edit at line {line} must be a non-empty string, not {value!r}',
            line,
            "name the file to edit as a string path, e.g. src/app.py",
        )
    return value


def _replace(obj: dict[str, Any], old_key: str, new_key: str, path: str, line: int, default_new: str | None = None) -> _Edit:
    old = _string(obj, old_key, line)
    new = _string(obj, new_key, line, default_new)
    if not old:
        raise ParseError(
            f'empty "{old_key}" in the edit of {path} at line {line}: it would match everywhere',
            line,
            'to write a whole file send {"file_path": ..., "content": ...} '
            '(or {"command": "create", "path": ..., "file_text": ...})',
            path,
        )
    return _Edit(path, line, change=Replace(old, new, _flag(obj, line), line))


def _pair(obj: dict[str, Any]) -> tuple[str, str] | None:
    return next((pair for pair in _OLD_NEW if pair[0] in obj), None)


def _edit_list(obj: dict[str, Any], path: str, line: int) -> list[_Edit]:
    items = obj["edits"]
    if not isinstance(items, list) or not items:
        raise ParseError(f'"edits" of the edit of {path} at line {line} must be a non-empty list', line, SHAPES, path)
    out = []
    for n, item in enumerate(items, 1):
        pair = _pair(item) if isinstance(item, dict) else None
        if pair is None or not isinstance(item, dict):
            seen = ", ".join(sorted(item)) if isinstance(item, dict) else type(item).__name__
            raise ParseError(
                f"edit #{n} of {path} at line {line} has no old/new text pair (it has: {seen})",
                line,
                'each item of "edits" is {"old_string", "new_string", "replace_all"?} or {"oldText", "newText"}',
                path,
            )
        out.append(_replace(item, *pair, path, line))
    return out


def _lines(text: str) -> tuple[str, ...]:
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return tuple(parts)


def _command(obj: dict[str, Any], path: str | None, line: int) -> list[_Edit]:
    command = obj["command"]
    if command == "view":
        raise ParseError("view is a read, not an edit", line, "then send the edit", path, read=path or "PATH")
    if path is None:
        raise ParseError(f'the "{command}" command at line {line} has no "path"', line, SHAPES)
    if command == "str_replace":
        # The text editor tool makes new_str optional: leaving it out deletes old_str.
        return [_replace(obj, "old_str", "new_str", path, line, default_new="")]
    if command == "create":
        return [_Edit(path, line, content=_string(obj, "file_text", line), create_only=True)]
    if command == "insert":
        from ..bounds import LINE

        at = obj.get("insert_line")
        if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= LINE.high:
            raise ParseError(
                f'"insert_line" of the insert at line {line} must be a line number from 0 to {int(LINE.high):,}, not {at!r}',
                line,
                "insert_line 0 inserts at the top; N inserts after line N",
                path,
            )
        new = _string(obj, "new_str", line, obj.get("insert_text"))
        return [_Edit(path, line, change=LineRange(at + 1, at, _lines(new), source_line=line))]
    raise ParseError(
        f"unknown command {command!r} at line {line}",
        line,
        'accepted commands: "str_replace", "create", "insert" ("view" is a read, not an edit; '
        "undoing a turn is a rollback, not an edit)",
        path,
    )


def _unrecognised(obj: dict[str, Any], line: int) -> ParseError:
    for key, value in obj.items():
        if isinstance(value, str) and fences.looks_like_patch(value):
            return _wrapped_patch(line, f'the JSON field "{key}"')
    keys = ", ".join(sorted(obj)) or "none"
    named = _path_key(obj)
    if named and not (obj.keys() - {*_PATH_KEYS, "offset", "limit", "view_range", "name", "type"}):
        return ParseError(
            f"the object at line {line} only names a file (keys: {keys}): a read, not an edit",
            line,
            "to edit it, send one of the " + SHAPES,
            read=str(obj[named]),
        )
    return ParseError(f"the JSON object at line {line} is no edit agent-guard reads (keys: {keys})", line, SHAPES)


def _edits_of(obj: dict[str, Any], line: int, default_path: str | None) -> list[_Edit]:
    if "command" in obj:
        path = _path(obj, line, default_path) if (_path_key(obj) or default_path) else None
        return _command(obj, path, line)
    if "edits" in obj:
        return _edit_list(obj, _path(obj, line, default_path), line)
    pair = _pair(obj)
    if pair is not None:
        return [_replace(obj, *pair, _path(obj, line, default_path), line)]
    if "content" in obj:
        return [_Edit(_path(obj, line, default_path), line, content=_string(obj, "content", line))]
    raise _unrecognised(obj, line)


# -- assembling ----------------------------------------------------------------


def _file_edit(path: str, group: list[_Edit]) -> FileEdit:
    writes = [e for e in group if e.content is not None]
    if writes and len(group) > 1:
        # A whole write replaces everything: other changes beside it are either lost
        # or meant for content the parser cannot see, so neither order is safe.
        kind = "written whole twice" if len(writes) > 1 else "both written whole and edited"
        lines = sorted({e.line for e in group})
        raise ParseError(
            f"{path} is {kind} (lines {', '.join(map(str, lines))})",
            group[1].line,
            "send the final content in one write, or only str_replace edits, per call",
            path,
        )
    changes = tuple(e.change for e in group if e.change is not None)
    content = writes[0].content if writes else None
    if writes and writes[0].create_only:
        return FileEdit(path, Op.CREATE, content=content, source_line=group[0].line)
    return FileEdit(path, Op.MODIFY, changes=changes, content=content, create_missing=bool(writes), source_line=group[0].line)


def _edits(text: str, default_path: str | None = None) -> list[_Edit]:
    edits: list[_Edit] = []
    for doc, offset in _documents(text):
        values = _values(doc, offset)
        for value, line in values:
            # ["apply_patch", "*** Begin Patch..."]: the patch, not the tool name, says what this is.
            if isinstance(value, str) and fences.looks_like_patch(value):
                raise _wrapped_patch(line, "a JSON string")
        for value, line in values:
            for obj, at in _objects(value, line):
                edits.extend(_edits_of(obj, at, default_path))
    return edits


def parse(text: str, path: str | None = None) -> EditSet:
    """Parse JSON edits; `path`, when given, is the file of objects that name none."""
    if not _documents(text):
        raise ParseError(
            "no JSON found: the input neither starts with JSON nor holds a ```json fence",
            1,
            "send one JSON object, an array of them, or one object per line; " + SHAPES,
        )
    groups: dict[str, list[_Edit]] = {}
    for edit in _edits(text, path):
        groups.setdefault(edit.path, []).append(edit)
    return EditSet(files=tuple(_file_edit(p, g) for p, g in groups.items()), format=NAME)


def detect(text: str) -> int:
    """90 for JSON edits, 80 for fenced ones; 30 for broken JSON edits; 10 for a patch
    wrapped in JSON; 5 for other JSON (so the error names the accepted shapes); else 0."""
    docs = _documents(text)
    if not docs:
        return 0
    raw = docs[0][1] == 0  # the input itself is JSON, not a fence in prose
    try:
        found = _edits(text)
    except WrappedPatch:
        return 10
    except ParseError as exc:
        # Only raw JSON is ours to explain: a fenced JSON file (package.json, say) is
        # whole content, and prose that opens with a quote or a link is not JSON.
        if not raw:
            return 0
        if any(f'"{key}"' in text for key in _EDIT_KEYS | set(_PATH_KEYS)):
            return 30
        return 0 if isinstance(exc, InvalidJSON) else 5
    if not found:
        return 0
    return 90 if raw else 80
