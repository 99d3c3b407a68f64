"""oh-my-pi's JSON hashline calls: ``{"path", "edits": [...]}`` naming lines by ``LINE:HH`` or ``LINE#ID``.

oh-my-pi's edit tool showed a read as ``12:a3|text`` (later ``12#ZP:text``) and took
calls that name lines by those anchors: a line number and a hash of the line
(``guard/text/linehash.py``).  The shapes of its published benchmark runs
(``packages/react-edit-benchmark/runs/*.md`` in gtrak/oh-my-pi, 2026-02-10 to 02-18),
and the later ``LINE#ID`` shape, each read into ``LineRange`` changes::

    call    := {"path": PATH, "edits": [item, ...]}    (or a list of calls; "edits" may
                                                          be a JSON string holding the list)
    item    := {"src": SRC, "dst": TEXT}                                   shape 1 (2026-02-10/11)
             | {"single": {"loc": A, "replacement": TEXT}}                 shape 2 (2026-02-11)
             | {"range": {"start": A, "end": A, "replacement": TEXT}}
             | {"insertAfter": {"loc": A, "content": TEXT}}
             | {"set_line": {"anchor": A, "new_text": TEXT}}               shape 3 (2026-02-11 to 18)
             | {"replace_lines": {"start_anchor": A, "end_anchor": A, "new_text": TEXT}}
             | {"insert_after": {"anchor": A, "text": TEXT}}
             | {"delete_line": {"anchor": A}}
             | {"replace": {"old_text": TEXT, "new_text": TEXT, "all"?: BOOL}}
             | {"op": "replace", "pos": A, "end"?: A, "lines": LINES}      LINE#ID shape
             | {"op": "append", "pos"?: A, "lines": LINES}                 (at the end without pos)
             | {"op": "prepend", "pos"?: A, "lines": LINES}                (at the top without pos)
             | {"op": "set", "tag": A, "content": LINES} | {"op": "replace", "first": A, "last": A, ...}
             | {"op": "append", "after"?: A, ...} | {"op": "prepend", "before"?: A, ...}
             | {"op": "insert", "after": A, "before": A, "content": LINES}
    SRC     := "A" | "A..A" | "A.." (insert after) | "..A" (insert before) | any other text (found
               as it is) | {"kind": "single"|"range"|"insertAfter"|"insertBefore"|"substring",
               "ref"|"start"+"end"|"after"|"before"|"needle": ...}
    A       := "LINE:HH" (a display suffix "|text" is ignored) | "LINE#ID"
    TEXT    := new lines joined by "\\n"; "" deletes the lines (an insertion needs text)
    LINES   := [line, ...] | TEXT | null (null and [] delete)

A field an item misplaces beside its op (``{"insert_after": {"anchor"}, "text"}``) is
taken, and so is an op whose value is its one anchor (``{"insert_after": "15:c1",
"text"}``).  The hash rule of an anchor is the one oh-my-pi used with its shape (the
revisions are in ``guard/text/linehash.py``): ``LINE:HH`` in shapes 2 and 3 ``hex32``
(gtrak/oh-my-pi 27d15915 to c0d6bd83, ``packages/coding-agent/src/patch/hashline.ts``;
27d15915 was written at 2026-02-11 06:26 UTC and every run from 06:42 UTC on used it),
three base-36 digits ``base36x3``; in shape 1 ``stripped64``, ``base36`` or
``seeded64`` (the three rules shape 1 lived with on 2026-02-10 and 11); ``LINE#ID``
``line-id`` (theerud/oh-my-pi 2885bb0d, the same file).

Mapping into the edit model (no I/O here): a call is ``FileEdit(path, MODIFY,
base=LAST_SEEN)`` whose anchored items are ``LineRange`` values carrying their
anchors (``LineRange.hashes``).  The calls carry no version, so the lines are those
of the file as the agent last saw it: its last read on record (``git agent-read``, MCP
``read_file``), or the file as it is when the agent read or wrote it so, or read
nothing (``guard/reading/anchors.py``; under ``read_before_edit`` a read is required).  A
line whose hash differs there is refused (``not-found``) with the anchors of the
lines around it; it is never looked for elsewhere.  Text ``replace`` items are
``Replace`` changes, located as str_replace edits are; a call may not mix them with
anchored items.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from .. import jsonvalue
from ..model import LAST_SEEN, Change, EditSet, FileEdit, LineHash, LineRange, Op, ParseError, Replace
from ..text.regex import lazy

NAME = "hashline-json"
LAST = -1  # the last line of the file, as in the hashline dialect

_ANCHOR = lazy(r"\s*[>+-]*\s*(?P<line>\d+)\s*(?P<sep>[:#])\s*(?P<hash>[0-9A-Za-z]{2,3})(?:\s*(?:[|:].*)?)?", re.DOTALL)
_NIBBLES = frozenset("ZPMQVRWSNKTXJBYH")
_OPS = frozenset(
    {"src", "single", "range", "insertAfter", "set_line", "replace_lines", "insert_after", "delete_line", "replace", "op"}
)
SHAPES = (
    '{"path", "edits": [...]} with items {"set_line": {"anchor", "new_text"}}, {"replace_lines": '
    '{"start_anchor", "end_anchor", "new_text"}}, {"insert_after": {"anchor", "text"}}, {"replace": '
    '{"old_text", "new_text"}}, {"single": {"loc", "replacement"}}, {"range": {"start", "end", "replacement"}}, '
    '{"src", "dst"}, or {"op": "replace"|"append"|"prepend", "pos", "end"?, "lines"}; anchors are "12:a3" '
    '(or "12#ZP") as the read showed them'
)
# Ops naming one line, and the field that names it (the op's value may be that anchor alone).
_ONE_ANCHOR = {"set_line": "anchor", "insert_after": "anchor", "delete_line": "anchor", "single": "loc", "insertAfter": "loc"}
# The hash rules oh-my-pi used with each shape, the one fresh anchors are written in first.
_SHAPE1 = ("stripped64", "base36", "seeded64")


def _calls(text: str) -> list[dict[str, Any]] | None:
    """The calls `text` holds, when it is one JSON value of them; None when it is not this dialect's."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = jsonvalue.loads(stripped)
    except json.JSONDecodeError:
        return None
    calls = value if isinstance(value, list) else [value]
    if not calls or not all(isinstance(c, dict) and "edits" in c for c in calls):
        return None
    for call in calls:
        edits = call["edits"]
        if isinstance(edits, str):
            try:
                edits = jsonvalue.loads(edits)
            except json.JSONDecodeError:
                return calls  # ours, broken: `parse` says where
        if not isinstance(edits, list) or not any(isinstance(e, dict) and e.keys() & _OPS for e in edits):
            return None
        if not all(isinstance(e, dict) and not ({"oldText", "old_string", "oldString"} & e.keys()) for e in edits):
            return None
    return calls


def detect(text: str) -> int:
    """95 for oh-my-pi's JSON hashline calls (above the json dialect's 90, whose shapes they are not); else 0."""
    return 95 if '"edits"' in text and _calls(text) is not None else 0


def parse(text: str, path: str | None = None) -> EditSet:
    """The EditSet of one call or a list of calls (`path`: the file when a call names none)."""
    stripped = text.strip()
    try:
        value = jsonvalue.loads(stripped)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"the call is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            exc.lineno,
            "send the call's arguments as one JSON object",
        ) from None
    calls = value if isinstance(value, list) else [value]
    files: list[FileEdit] = []
    for n, call in enumerate(calls, 1):
        if not isinstance(call, dict):
            raise ParseError(f"call #{n} is {type(call).__name__}, not an object", 1, SHAPES)
        files.append(_file_edit(call, path, n))
    return EditSet(files=tuple(files), format=NAME)


def _file_edit(call: dict[str, Any], default: str | None, n: int) -> FileEdit:
    path = call.get("path", call.get("file_path", default))
    if not isinstance(path, str) or not path:
        raise ParseError(f'call #{n} names no file: give "path"', 1, SHAPES)
    items = call.get("edits")
    if isinstance(items, str):
        try:
            items = jsonvalue.loads(items)
        except json.JSONDecodeError as exc:
            raise ParseError(
                f'"edits" of {path} is a string that is not a JSON list ({exc.msg}, column {exc.colno})',
                1,
                'send "edits" as a JSON list of items, not a string holding one',
                path,
            ) from None
    if not isinstance(items, list) or not items:
        raise ParseError(f'"edits" of {path} must be a non-empty list', 1, SHAPES, path)
    changes: list[Change] = []
    for k, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise ParseError(f"edit #{k} of {path} is {type(item).__name__}, not an object", 1, SHAPES, path)
        changes.extend(_changes(item, path, k))
    texts = [c for c in changes if isinstance(c, Replace)]
    if texts and len(texts) < len(changes):
        raise ParseError(
            f"the call for {path} mixes text replacements with edits that name lines",
            1,
            "send the text replacements in a call of their own",
            path,
        )
    if texts:
        return FileEdit(path, Op.MODIFY, changes=tuple(changes), source_line=1)
    return FileEdit(path, Op.MODIFY, changes=tuple(changes), base=LAST_SEEN, source_line=1)


def _changes(item: dict[str, Any], path: str, k: int) -> Iterator[Change]:
    ops = [key for key in item if key in _OPS - {"op", "src"}]
    if "op" in item:
        yield _line_id(item, path, k)
    elif "src" in item:
        yield _shape1(item, path, k)
    elif not ops:
        keys = ", ".join(sorted(item)) or "none"
        raise ParseError(f"edit #{k} of {path} has no op (it has: {keys})", 1, SHAPES, path)
    for key in ops:
        body = item[key]
        if isinstance(body, str) and key in _ONE_ANCHOR:  # {"insert_after": "15:c1", "text": ...}
            body = {_ONE_ANCHOR[key]: body}
        if not isinstance(body, dict):
            raise ParseError(f'"{key}" of edit #{k} of {path} must be an object', 1, SHAPES, path)
        fields = {**{f: v for f, v in item.items() if f not in _OPS}, **body}  # fields set beside the op count too
        yield _shaped(key, fields, path, k)


def _shaped(key: str, f: dict[str, Any], path: str, k: int) -> Change:
    where = f"{key} of edit #{k} of {path}"
    if key == "replace":
        old = _text(f, "old_text", where)
        if not old:
            raise ParseError(
                f'"old_text" of {where} is empty: it would match everywhere',
                1,
                "name the lines with set_line or replace_lines instead",
                path,
            )
        return Replace(old, _text(f, "new_text", where), bool(f.get("all")), 1)
    rules = ("hex32",)
    if key in ("set_line", "single", "delete_line"):
        a = _anchor(f, "anchor" if key != "single" else "loc", where, rules)
        new = () if key == "delete_line" else _rows(_text(f, "new_text" if key == "set_line" else "replacement", where))
        return LineRange(a[0], a[0], new, None, 1, hashes=(a,))
    if key in ("replace_lines", "range"):
        s = _anchor(f, "start_anchor" if key == "replace_lines" else "start", where, rules)
        e = _anchor(f, "end_anchor" if key == "replace_lines" else "end", where, rules)
        _ordered(s, e, where, path)
        return LineRange(
            s[0], e[0], _rows(_text(f, "new_text" if key == "replace_lines" else "replacement", where)), None, 1, hashes=(s, e)
        )
    # insert_after, insertAfter
    a = _anchor(f, "anchor" if key == "insert_after" else "loc", where, rules)
    new = _rows(_text(f, "text" if key == "insert_after" else "content", where))
    if not new:
        raise ParseError(f"{where} inserts nothing", 1, "give the lines to insert", path)
    return LineRange(a[0] + 1, a[0], new, None, 1, hashes=(a,))


def _shape1(item: dict[str, Any], path: str, k: int) -> Change:
    where = f"edit #{k} of {path}"
    src, dst = item["src"], item.get("dst", "")
    if not isinstance(dst, str):
        raise ParseError(f'"dst" of {where} must be a string', 1, SHAPES, path)
    new = _rows(dst)
    if isinstance(src, dict):
        kind = src.get("kind")
        if kind == "substring":
            return _needle(src.get("needle"), dst, where, path)
        keys = {"single": ("ref",), "range": ("start", "end"), "insertAfter": ("after",), "insertBefore": ("before",)}
        if kind not in keys:
            raise ParseError(
                f'"src" of {where} has kind {kind!r}',
                1,
                'a src is {"kind": "single"|"range"|"insertAfter"|"insertBefore"|"substring", ...}',
                path,
            )
        refs = [_anchor(src, key, where, _SHAPE1) for key in keys[kind]]
    elif isinstance(src, str):
        parts = src.split("..") if ".." in src and not src.strip().startswith("...") else [src]
        if (
            len(parts) > 2
            or not all(p.strip() == "" or _ANCHOR().fullmatch(p) for p in parts)
            or not any(p.strip() for p in parts)
        ):
            return _needle(src, dst, where, path)  # oh-my-pi took any other src as text to find
        if len(parts) == 1:
            kind, refs = "single", [_ref(parts[0], where, _SHAPE1)]
        elif not parts[1].strip():
            kind, refs = "insertAfter", [_ref(parts[0], where, _SHAPE1)]
        elif not parts[0].strip():
            kind, refs = "insertBefore", [_ref(parts[1], where, _SHAPE1)]
        else:
            kind, refs = "range", [_ref(parts[0], where, _SHAPE1), _ref(parts[1], where, _SHAPE1)]
    else:
        raise ParseError(f'"src" of {where} must be a string or an object', 1, SHAPES, path)
    if kind in ("insertAfter", "insertBefore") and not new:
        raise ParseError(f"{where} inserts nothing", 1, 'give the lines to insert in "dst"', path)
    line = refs[0][0]
    if kind == "insertAfter":
        return LineRange(line + 1, line, new, None, 1, hashes=tuple(refs))
    if kind == "insertBefore":
        return LineRange(line, line - 1, new, None, 1, hashes=tuple(refs))
    _ordered(refs[0], refs[-1], where, path)
    return LineRange(line, refs[-1][0], new, None, 1, hashes=tuple(refs))


def _line_id(item: dict[str, Any], path: str, k: int) -> Change:
    op = item["op"]
    where = f"edit #{k} ({op!r}) of {path}"
    rules = ("line-id",)
    content = item.get("lines", item.get("content"))
    new = _listed(content, where, path)
    if op == "set" or (op == "replace" and "tag" in item):
        a = _anchor(item, "tag", where, rules)
        return LineRange(a[0], a[0], new, None, 1, hashes=(a,))
    if op == "replace":
        first = _anchor(item, "pos" if "pos" in item else "first", where, rules)
        last_key = "end" if "pos" in item else "last"
        last = _anchor(item, last_key, where, rules) if item.get(last_key) is not None else first
        _ordered(first, last, where, path)
        return LineRange(first[0], last[0], new, None, 1, hashes=(first, last) if last != first else (first,))
    if not new:
        raise ParseError(f"{where} inserts nothing", 1, 'give the lines to insert in "lines"', path)
    if op == "append":
        key = "pos" if "pos" in item else "after"
        if item.get(key) is None:
            return LineRange(LAST + 1, LAST, new, None, 1)
        a = _anchor(item, key, where, rules)
        return LineRange(a[0] + 1, a[0], new, None, 1, hashes=(a,))
    if op == "prepend":
        key = "pos" if "pos" in item else "before"
        if item.get(key) is None:
            return LineRange(1, 0, new, None, 1)
        a = _anchor(item, key, where, rules)
        return LineRange(a[0], a[0] - 1, new, None, 1, hashes=(a,))
    if op == "insert":
        after, before = _anchor(item, "after", where, rules), _anchor(item, "before", where, rules)
        if before[0] != after[0] + 1:
            raise ParseError(
                f"{where}: lines {after[0]} and {before[0]} are not next to each other",
                1,
                '"insert" goes between two adjacent lines; use "append" after one of them',
                path,
            )
        return LineRange(before[0], after[0], new, None, 1, hashes=(after, before))
    raise ParseError(f"{where}: unknown op {op!r}", 1, 'an op is "replace", "append" or "prepend"', path)


# --------------------------------------------------------------------------- fields


def _text(f: dict[str, Any], key: str, where: str) -> str:
    value = f.get(key)
    if not isinstance(value, str):
        raise ParseError(f'{where} needs "{key}" as a string', 1, SHAPES)
    return value


def _rows(text: str) -> tuple[str, ...]:
    """New lines as oh-my-pi split them: on "\\n", where "" is no line at all (a deletion)."""
    return () if text == "" else tuple(text.split("\n"))


def _listed(value: Any, where: str, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return _rows(value)
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return tuple(value)
    raise ParseError(f'{where}: "lines" must be a list of strings, a string or null', 1, SHAPES, path)


def _needle(needle: Any, dst: str, where: str, path: str) -> Replace:
    if not isinstance(needle, str) or not needle:
        raise ParseError(f"{where} names no line and no text to find", 1, SHAPES, path)
    return Replace(needle, dst, False, 1)


def _anchor(f: dict[str, Any], key: str, where: str, rules: tuple[str, ...]) -> LineHash:
    value = f.get(key)
    if not isinstance(value, str):
        raise ParseError(f'{where} needs "{key}" as an anchor such as "12:a3"', 1, SHAPES)
    return _ref(value, where, rules)


def _ref(text: str, where: str, rules: tuple[str, ...]) -> LineHash:
    m = _ANCHOR().fullmatch(text)
    if m is None:
        raise ParseError(
            f"{where}: {text[:60]!r} is not an anchor",
            1,
            'an anchor is the line number and hash the read showed, e.g. "12:a3" or "12#ZP"',
        )
    if len(m["line"]) > 12:
        raise ParseError(f"{where}: line number {m['line'][:24]}... is out of range", 1, "number lines as the read showed them")
    line, digest = int(m["line"]), m["hash"]
    if line < 1:
        raise ParseError(f"{where}: line numbers start at 1", 1, "number lines as the read showed them")
    if m["sep"] == "#":
        if len(digest) != 2 or not set(digest.upper()) <= _NIBBLES:
            raise ParseError(
                f"{where}: {text[:60]!r} is no LINE#ID anchor", 1, "a LINE#ID hash is two of the letters ZPMQVRWSNKTXJBYH"
            )
        return line, digest, ("line-id",)
    if len(digest) == 3:
        return line, digest, ("base36x3",)
    return line, digest, rules if rules != ("line-id",) else ("hex32",)


def _ordered(first: LineHash, last: LineHash, where: str, path: str) -> None:
    if last[0] < first[0]:
        raise ParseError(
            f"{where}: the range {first[0]}..{last[0]} ends before it starts",
            1,
            f"write it from line {last[0]} to line {first[0]}",
            path,
        )
