"""Structural rewrites: an ast-grep pattern, its template, and the files to look in.

Input: one JSON object, an array of them or one per line (also inside a fence whose info
string is empty or ``json``), each a rewrite call, possibly wrapped in a tool call
(``{"name", "arguments": "<json>" | {...}}``, ``{"input": {...}}``, ``{"tool_input": {...}}``,
``{"function": {...}}``, ``{"parameters": {...}}``, ``{"args": {...}}``)::

    {"rewrite": [{"pattern": P, "to": T, "selector"?: KIND}, ...],
     "paths": [GLOB, ...], "language"?: LANG, "selector"?: KIND}

    {"ops": [{"pat": P, "out": T}, ...],                       (oh-my-pi's ast_edit)
     "paths": [GLOB, ...] | "path": "GLOB,GLOB", "lang"?: LANG, "sel"?: KIND, "i"?: TEXT}

The two spellings mix freely (``pat``/``pattern``, ``out``/``to``/``fix``, ``path``/``paths``,
``lang``/``language``, ``sel``/``selector``); ``i`` (oh-my-pi's statement of intent) is
read and left out.  Any other key is refused, naming the accepted ones.

- ``P`` is ast-grep's pattern: code of the language with metavariables, ``$NAME`` for one
  node and ``$$$NAME`` for several; ``T`` the template that replaces each match (``""``
  deletes it); ``KIND`` (optional) the kind of the node inside ``P`` to match, the rest of
  ``P`` being context that makes it parse.
- Paths are globs as in ``.gitignore`` (``**/`` any folders, a name without ``/`` at any
  depth), folders or files, from the current folder; ``{a,b}`` alternatives are expanded.
- ``LANG`` is ast-grep's name or alias (``languages``); without it each file's language
  comes from its extension.
- Every metavariable ``T`` uses must be one ``P`` binds, as ``P`` binds it (a list where it
  is a list): anything else is refused here, since ast-grep would put nothing in its place.
- The operations of every call apply in order, each to the text the one before left.

Parsing looks at nothing outside the input: which files match, and what, is the engine's
to find out (``structural.expansion``).  Errors carry the input line of the call.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from .. import jsonvalue
from ..model import EditSet, ParseError, Rewrite
from ..structural import languages, template

NAME = "structural"

_CALLS = ("rewrite", "ops")
_OP_KEYS = {"pattern": ("pattern", "pat"), "to": ("to", "out", "fix"), "selector": ("selector", "sel")}
_CALL_KEYS = {"paths": ("paths", "path"), "language": ("language", "lang"), "selector": ("selector", "sel"), "intent": ("i",)}
_WRAPPERS = ("arguments", "input", "tool_input", "function", "parameters", "args")
_JSON_INFOS = frozenset({"", "json", "jsonc", "json5", "jsonl", "ndjson"})

SHAPE = (
    'a structural rewrite is {"rewrite": [{"pattern": P, "to": T}], "paths": ["src/**/*.ts"], '
    '"language"?: L} (or oh-my-pi\'s {"ops": [{"pat": P, "out": T}], "paths": [...]})'
)


def _documents(text: str) -> list[tuple[str, int]]:
    """The JSON texts to read, each with the number of input lines before it."""
    if text.lstrip(" \t\r\n\ufeff")[:1] in ("{", "["):
        return [(text, 0)]
    from . import fences

    return [
        (f.body, f.start_line - 1)
        for f in fences.extract(text)
        if (f.info.split() or [""])[0].lower() in _JSON_INFOS and f.body.lstrip()[:1] in ("{", "[")
    ]


def _values(text: str, offset: int) -> Iterator[tuple[Any, int]]:
    """Every top-level JSON value of `text` (an array gives its elements), with its input line."""
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= n:
            return
        line = offset + text.count("\n", 0, pos) + 1
        try:
            value, end = jsonvalue.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ParseError(
                f"invalid JSON at line {offset + exc.lineno} column {exc.colno}: {exc.msg}",
                offset + exc.lineno,
                "send one JSON object per rewrite call; " + SHAPE,
            ) from None
        except RecursionError:
            raise ParseError("the JSON is nested too deeply", line, SHAPE) from None
        if isinstance(value, list):
            yield from ((item, line) for item in value)
        else:
            yield value, line
        pos = end


def _unwrap(value: Any, line: int) -> Any:
    """The call inside tool-call wrappers (at most 8 deep)."""
    for _ in range(8):
        if not isinstance(value, dict) or any(k in value for k in _CALLS):
            return value
        for key in _WRAPPERS:
            inner = value.get(key)
            if key == "arguments" and isinstance(inner, str):
                try:
                    inner = jsonvalue.loads(inner)
                except json.JSONDecodeError as exc:
                    raise ParseError(
                        f'the "arguments" string of the call at line {line} is not valid JSON: {exc.msg}',
                        line,
                        "send the arguments as a JSON object, or as a string holding one",
                    ) from None
            if isinstance(inner, dict):
                value = inner
                break
        else:
            return value
    return value


def _calls(text: str) -> Iterator[tuple[dict[str, Any], int]]:
    for doc, offset in _documents(text):
        for value, line in _values(doc, offset):
            call = _unwrap(value, line)
            if not isinstance(call, dict) or not any(k in call for k in _CALLS):
                what = f"keys: {', '.join(sorted(call)) or 'none'}" if isinstance(call, dict) else type(call).__name__
                raise ParseError(f"the JSON at line {line} is no structural rewrite ({what})", line, SHAPE)
            yield call, line


def _one(obj: dict[str, Any], spellings: tuple[str, ...], what: str, line: int) -> Any:
    given = [k for k in spellings if k in obj]
    if len(given) > 1:
        raise ParseError(f"the rewrite at line {line} gives {what} twice ({' and '.join(given)})", line, f"give {what} once")
    return obj[given[0]] if given else None


def _text(value: Any, key: str, line: int, empty: bool = False) -> str:
    if not isinstance(value, str):
        what = "is missing" if value is None else f"is a {type(value).__name__}, not a string"
        raise ParseError(f'"{key}" of the rewrite at line {line} {what}', line, SHAPE)
    if not empty and not value.strip():
        raise ParseError(f'"{key}" of the rewrite at line {line} is empty', line, SHAPE)
    return value


def _split_commas(text: str) -> list[str]:
    """`a,b{c,d}` -> `a`, `b{c,d}`: commas outside braces part a list of globs."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _paths(obj: dict[str, Any], line: int) -> tuple[str, ...]:
    given = [k for k in _CALL_KEYS["paths"] if k in obj]
    if not given:
        raise ParseError(
            f"the rewrite at line {line} names no files",
            line,
            'add "paths": ["src/**/*.ts"] (globs, folders or files, from the current folder)',
        )
    value = obj[given[0]]
    if len(given) > 1:
        raise ParseError(f'the rewrite at line {line} gives both "paths" and "path"', line, "give one list of paths")
    items = _split_commas(value) if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(p, str) and p.strip() for p in items):
        raise ParseError(
            f'"{given[0]}" of the rewrite at line {line} must be a non-empty list of paths, not {value!r:.80}',
            line,
            'e.g. "paths": ["src/**/*.ts", "lib/util.ts"]',
        )
    if any("\0" in p for p in items):
        raise ParseError(f"a path of the rewrite at line {line} holds a NUL character", line, "name files by their paths")
    return tuple(p.strip() for p in items)


def _language(obj: dict[str, Any], line: int) -> str | None:
    value = _one(obj, _CALL_KEYS["language"], "the language", line)
    if value is None:
        return None
    lang = languages.named(value) if isinstance(value, str) else None
    if lang is None:
        raise ParseError(
            f"unknown language {value!r:.60} in the rewrite at line {line}",
            line,
            f"name one of ast-grep's languages: {languages.NAMES} (or leave it out: each file's "
            "language then comes from its extension)",
        )
    return lang.name


def _selector(obj: dict[str, Any], line: int, default: str | None) -> str | None:
    value = _one(obj, _OP_KEYS["selector"], "the selector", line)
    if value is None:
        return default
    return _text(value, "selector", line).strip()


def _checked(pattern: str, to: str, n: int, line: int) -> None:
    wrong = template.mismatches(pattern, to)
    if not wrong:
        return
    single, many = template.pattern_names(pattern)
    bound = ", ".join([f"${x}" for x in sorted(single)] + [f"$$${x}" for x in sorted(many)]) or "none"
    raise ParseError(
        f"rewrite #{n} at line {line}: " + "; ".join(wrong),
        line,
        f"every metavariable of `to` must be one the pattern binds, written as it is there ($NAME one node, "
        f"$$$NAME a list; the pattern binds: {bound}): ast-grep would put nothing in its place",
    )


def _rewrites(call: dict[str, Any], line: int, first: int) -> list[Rewrite]:
    unknown = set(call) - {k for keys in _CALL_KEYS.values() for k in keys} - set(_CALLS)
    if unknown:
        accepted = ", ".join(f'"{k}"' for k in (*_CALLS, *(k for keys in _CALL_KEYS.values() for k in keys)))
        raise ParseError(
            f"the rewrite at line {line} has keys it cannot take: {', '.join(sorted(unknown))}",
            line,
            f"accepted keys: {accepted}",
        )
    ops = _one(call, _CALLS, "the list of rewrites", line)
    if not isinstance(ops, list) or not ops:
        raise ParseError(f"the rewrite at line {line} holds no operation", line, SHAPE)
    paths = _paths(call, line)
    language = _language(call, line)
    selector = _selector(call, line, None)
    out: list[Rewrite] = []
    for n, op in enumerate(ops, first):
        if not isinstance(op, dict):
            raise ParseError(f"rewrite #{n} at line {line} is a {type(op).__name__}, not an object", line, SHAPE)
        unknown = set(op) - {k for keys in _OP_KEYS.values() for k in keys}
        if unknown:
            raise ParseError(
                f"rewrite #{n} at line {line} has keys it cannot take: {', '.join(sorted(unknown))}",
                line,
                'each operation is {"pattern": P, "to": T, "selector"?: KIND} (or {"pat": P, "out": T})',
            )
        pattern = _text(_one(op, _OP_KEYS["pattern"], "the pattern", line), "pattern", line)
        to = _text(_one(op, _OP_KEYS["to"], "the replacement", line), "to", line, empty=True)
        _checked(pattern, to, n, line)
        out.append(Rewrite(pattern, to, paths, language, _selector(op, line, selector), line))
    return out


def parse(text: str, path: str | None = None) -> EditSet:
    """Parse structural rewrite calls (`path` is not used: every call names its files)."""
    if not _documents(text):
        raise ParseError("no JSON found: a structural rewrite is a JSON object", 1, SHAPE)
    rewrites: list[Rewrite] = []
    for call, line in _calls(text):
        rewrites += _rewrites(call, line, len(rewrites) + 1)
    if not rewrites:
        raise ParseError("the input holds no rewrite", 1, SHAPE)
    return EditSet(files=(), format=NAME, rewrites=tuple(rewrites))


def detect(text: str) -> int:
    """95 for JSON holding a rewrite call; 35 for broken JSON that names one; else 0."""
    if '"pat' not in text:
        return 0  # every call holds "pattern" or "pat" (dialects.AUTO's string)
    try:
        docs = _documents(text)
    except ParseError:
        return 0
    for doc, offset in docs:
        try:
            for value, line in _values(doc, offset):
                call = _unwrap(value, line)
                if isinstance(call, dict) and any(isinstance(call.get(k), list) for k in _CALLS):
                    return 95
        except ParseError:
            if any(f'"{k}"' in doc for k in _CALLS):
                return 35
    return 0
