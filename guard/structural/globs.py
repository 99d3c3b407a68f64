"""Which files a rewrite's paths name: globs, folders and files, from the current folder.

- A path without ``*``, ``?``, ``[`` or ``{`` is a file or a folder (everything in it),
  matched exactly (ignoring case where git does: ``core.ignorecase``).
- Any other is a glob as in ``.gitignore`` (``paths.glob_source``): ``**/`` any folders, a
  glob without ``/`` (but for a trailing one) a name at any depth; ``{a,b}`` alternatives
  are expanded first (``src/**/*.{ts,tsx}``), at most ``MAX_ALTERNATIVES`` of them.
- Both start from the current folder; leading ``..`` climb from it; an absolute path must
  lie inside the work tree.  Anything that leaves the tree is refused (`path-outside`).

Only the files given are looked at (the caller gives the tracked ones): an ignored or
untracked file is never named, whatever the glob.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar, Iterable

from .. import paths
from ..model import Finding, Value, error

MAX_ALTERNATIVES = 256
_GLOB = frozenset("*?[{")


class Scope(Value):
    """One path of a rewrite, resolved: the folder it is read from (repository-relative, "" for
    the top), the rest (a glob, or a literal path; "" for the whole folder), and which it is."""

    __slots__ = ("raw", "folder", "rest", "glob")
    _fields: ClassVar[tuple[str, ...]] = __slots__
    raw: str
    folder: str
    rest: str
    glob: bool

    def __init__(self, raw: str, folder: str, rest: str, glob: bool) -> None:
        self._init(raw, folder, rest, glob)


def alternatives(glob: str) -> list[str]:
    """`glob` with each `{a,b,...}` expanded (nested ones too), in order; at most MAX_ALTERNATIVES."""
    out: list[str] = []
    todo = [glob]
    while todo and len(out) < MAX_ALTERNATIVES:
        g = todo.pop(0)
        open_at = g.find("{")
        close_at = _closing(g, open_at) if open_at != -1 else -1
        if close_at == -1:
            out.append(g)
            continue
        head, body, tail = g[:open_at], g[open_at + 1:close_at], g[close_at + 1:]
        todo[0:0] = [head + part + tail for part in _top_commas(body)]
    return out


def _closing(text: str, at: int) -> int:
    depth = 0
    for i in range(at, len(text)):
        depth += (text[i] == "{") - (text[i] == "}")
        if depth == 0:
            return i
    return -1


def _top_commas(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(body):
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


def scope(root: Path, here: str, raw: str) -> Scope | Finding:
    """`raw` (one alternative) resolved from the folder `here`, or the finding that refuses it."""
    text = raw.strip()
    folder = here
    if os.path.isabs(text):
        rel = _inside(root, text)
        if rel is None:
            return error("path-outside", None, None, f"the path {raw!r} of the rewrite is outside the repository",
                         "name files inside the work tree, from the current folder or the top")
        folder, text = "", rel
    trailing = text.endswith("/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    base = folder.split("/") if folder else []
    while parts and parts[0] == "..":
        if not base:
            return error("path-outside", None, None, f"the path {raw!r} of the rewrite climbs out of the repository",
                         "name files inside the work tree, from the current folder")
        base.pop()
        parts.pop(0)
    if ".." in parts:
        return error("path-outside", None, None, f"the path {raw!r} of the rewrite goes back up (`..`) after a folder name",
                     "write the path without `..` inside it")
    rest = "/".join(parts) + ("/" if trailing and parts else "")
    return Scope(raw, "/".join(base), rest, any(c in _GLOB for c in rest))


def _inside(root: Path, absolute: str) -> str | None:
    for top in dict.fromkeys((str(root), os.path.realpath(root))):
        for candidate in dict.fromkeys((os.path.normpath(absolute), os.path.realpath(absolute))):
            if candidate == top:
                return ""
            if candidate.startswith(top.rstrip("/") + "/"):
                return candidate[len(top.rstrip("/")) + 1:]
    return None


def selected(scopes: Iterable[Scope], files: Iterable[str], ignorecase: bool) -> dict[str, bool]:
    """The `files` the scopes name, each with whether a scope named it exactly (as a file)."""
    out: dict[str, bool] = {}
    scopes = list(scopes)
    fold = str.casefold if ignorecase else str
    for path in files:
        for sc in scopes:
            if sc.folder and not fold(path).startswith(fold(sc.folder) + "/"):
                continue
            rel = path[len(sc.folder) + 1:] if sc.folder else path
            if not sc.rest:
                out.setdefault(path, False)
            elif sc.glob:
                if paths.matches(rel, sc.rest, ignorecase):
                    out.setdefault(path, False)
            else:
                literal = fold(sc.rest.rstrip("/"))
                if fold(rel) == literal and not sc.rest.endswith("/"):
                    out[path] = True
                elif fold(rel).startswith(literal + "/"):
                    out.setdefault(path, False)
    return out
