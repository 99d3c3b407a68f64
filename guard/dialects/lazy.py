"""Lazy snippets: the "update snippet" Cursor- and Morph-style agents send.

The snippet is the file as it should become, with the stretches that do not
change elided by marker comments::

    snippet = { line | marker }
    marker  = indent comment        -- a comment whose text elides code:
              "# ... existing code ...", "// ... existing code ...",
              "/* ... */", "{/* ... */}", "<!-- ... existing code ... -->",
              "-- ... rest of the file unchanged", "# ..." and the like

A comment is a marker when the ``placeholder`` check would call it elision (any
strength: ``... existing code ...``, ``rest of the function unchanged``, a bare
``...``, and a note in any wording or language that firmly says code is kept or
left out, ``# body unchanged``, ``// 其余代码不变``, read as it looks: ``checks.notes``),
with any of the comment openers ``#``, ``//``, ``/*``, ``{/*``,
``<!--``, ``--``, ``;``, ``%``, whatever the file's language (agents write
``// ...`` in Python too).  A marker's indentation says which block it stands
in.  Real lines are anchors (unchanged lines of the file) or new lines; which is
which is decided against the file when the snippet is merged
(``locate.locate_snippet``).

Where the snippet comes from (no I/O here):

- ``parse(text, path=P)`` (``--format lazy --path P``): all of `text` is P's snippet;
- a JSON object (or array of them) as Cursor's ``edit_file`` and Morph's apply
  take: ``{"target_file": P, "code_edit": SNIPPET}`` (``target_filepath``,
  ``path`` or ``file`` name the file; ``instructions`` is ignored);
- otherwise fences labelled with a path, as for whole files (see ``fences``).

A snippet with no marker is the whole file; the file may then be missing, and is
created.  A snippet with markers edits an existing file.  Refused: no snippet,
a snippet of markers only, a fence never closed, the same file twice.
"""

from __future__ import annotations

import json

from .. import jsonvalue
from ..checks.phrases import judge
from ..model import EditSet, FileEdit, Op, ParseError, Snippet
from ..text.regex import lazy
from . import fences

NAME = "lazy"

SHAPE = "path/to/file.py\n```python\ndef changed():\n    ...new code...\n\n# ... existing code ...\n```"

# A whole-line comment: opener, body, optional closer.
_COMMENT = lazy(
    r"^\s*(?:\{\s*/\*(?P<jsx>.*?)\*/\s*\}|/\*(?P<block>.*?)\*/|<!--(?P<html>.*?)-->"
    r"|(?://+|#+|--+|;+|%+)(?P<line>.*))\s*$"
)
_PATH_KEYS = ("target_file", "target_filepath", "path", "file", "filename")
_CODE_KEYS = ("code_edit", "edit", "snippet", "update", "code")


def is_marker(line: str) -> bool:
    """`line` is a whole-line comment that stands for elided code."""
    m = _COMMENT().match(line)
    if m is None:
        return False
    body = next(g for g in m.groups() if g is not None).strip().strip("*").strip()
    return judge(body, True, noted=True) is not None


def snippet(text: str, source_line: int = 1) -> Snippet:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    markers = tuple(i for i, line in enumerate(lines) if is_marker(line))
    return Snippet(tuple(lines), markers, source_line)


def _file(path: str, text: str, source_line: int) -> FileEdit:
    sn = snippet(text, source_line)
    if not sn.lines:
        raise ParseError(f"the snippet for {path} is empty", source_line, _hint(), path)
    if len(sn.markers) == len(sn.lines):
        raise ParseError(
            f"the snippet for {path} holds only markers: it changes nothing",
            source_line,
            "show the new code, with the unchanged lines around it",
            path,
        )
    # Without a marker the snippet is the whole file, which may be new.
    return FileEdit(path, Op.MODIFY, changes=(sn,), create_missing=not sn.markers, source_line=source_line)


def _hint() -> str:
    return (
        f'write each file\'s snippet as:\n{SHAPE}\nor send {{"target_file": "path", "code_edit": "..."}}, '
        "or pass --path P to take the whole input as P's snippet"
    )


def _from_json(text: str) -> list[tuple[str, str, int]] | None:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        data = jsonvalue.loads(stripped)
    except json.JSONDecodeError:
        return None
    objects = data if isinstance(data, list) else [data]
    out: list[tuple[str, str, int]] = []
    for n, obj in enumerate(objects):
        if not isinstance(obj, dict):
            raise ParseError(f"item {n} of the JSON input is not an object", 1, _hint())
        path = next((obj[k] for k in _PATH_KEYS if isinstance(obj.get(k), str)), None)
        code = next((obj[k] for k in _CODE_KEYS if isinstance(obj.get(k), str)), None)
        if path is None or code is None:
            missing = "a file path (target_file)" if path is None else "the snippet (code_edit)"
            raise ParseError(f"JSON object {n} has no {missing}; keys: {', '.join(map(str, obj))}", 1, _hint())
        out.append((path, code, 1))
    return out


def parse(text: str, path: str | None = None) -> EditSet:
    """Parse lazy snippets: all of `text` for `path`, a Cursor/Morph JSON call, or labelled fences."""
    if path is not None:
        return EditSet(files=(_file(path, text, 1),), format=NAME)
    found = _from_json(text)
    if found is None:
        found = []
        for fence in fences.extract(text):
            label = fences.fence_path(fence)
            if label is None:
                continue
            if fence.closer_line is None:
                raise ParseError(
                    f"the fence for {label} opened at line {fence.opener_line} is never closed: the reply looks cut short",
                    fence.opener_line,
                    "send the snippet again, ending its fence with the opening marker",
                    label,
                )
            found.append((label, fence.body, fence.start_line))
    if not found:
        raise ParseError("no snippet found: no fence labelled with a file path", 1, _hint())
    seen: dict[str, int] = {}
    files = []
    for label, body, line in found:
        if label in seen:
            raise ParseError(
                f"{label} has two snippets, at lines {seen[label]} and {line}",
                line,
                "send one snippet per file, with every change to it",
                label,
            )
        seen[label] = line
        files.append(_file(label, body, line))
    return EditSet(files=tuple(files), format=NAME)


def detect(text: str) -> int:
    """Never chosen by `auto`: a lazy snippet is a whole file with placeholder elision."""
    return 0
