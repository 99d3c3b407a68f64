"""Which files a rewrite's paths name: globs, folders and files, from the current folder.

- A path without ``*``, ``?``, ``[`` or ``{`` is a file or a folder (everything in it),
  matched exactly (ignoring case where git does: ``core.ignorecase``).
- Any other is a glob as in ``.gitignore`` (``text.globs.glob_source``): ``**/`` any folders, a
  glob without ``/`` (but for a trailing one) a name at any depth; ``{a,b}`` alternatives
  are expanded first (``src/**/*.{ts,tsx}``), at most ``MAX_ALTERNATIVES`` of them.
- Both start from the current folder; ``..`` climbs (but not back out of a glob such as
  ``**``); an absolute path must lie inside the work tree.  Anything that leaves the tree is
  refused (`path-outside`).

Only the files given are looked at (the caller gives the tracked ones): an ignored or
untracked file is never named, whatever the glob.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..model import Finding, error
from ..text import globs

MAX_ALTERNATIVES = 256
_GLOB = frozenset("*?[{")


@dataclass(frozen=True, slots=True)
class Scope:
    """One path of a rewrite, resolved: the folder it is read from (repository-relative, "" for
    the top), the rest (a glob, or a literal path; "" for the whole folder), and which it is."""

    raw: str
    folder: str
    rest: str
    glob: bool


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
        head, body, tail = g[:open_at], g[open_at + 1 : close_at], g[close_at + 1 :]
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
            return error(
                "path-outside",
                None,
                None,
                f"the path {raw!r} of the rewrite is outside the repository",
                "name files inside the work tree, from the current folder or the top",
            )
        folder, text = "", rel
    trailing = text.endswith("/")
    base = folder.split("/") if folder else []
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            parts.append(part)
        elif parts and any(c in _GLOB for c in parts[-1]):
            return error(
                "path-outside",
                None,
                None,
                f"the path {raw!r} of the rewrite goes back up (`..`) after a glob",
                "write the path without `..` after `*` or `**`",
            )
        elif parts:
            parts.pop()
        elif base:
            base.pop()
        else:
            return error(
                "path-outside",
                None,
                None,
                f"the path {raw!r} of the rewrite climbs out of the repository",
                "name files inside the work tree, from the current folder",
            )
    rest = "/".join(parts) + ("/" if trailing and parts else "")
    return Scope(raw, "/".join(base), rest, any(c in _GLOB for c in rest))


def _inside(root: Path, absolute: str) -> str | None:
    for top in dict.fromkeys((str(root), os.path.realpath(root))):
        for candidate in dict.fromkeys((os.path.normpath(absolute), os.path.realpath(absolute))):
            if candidate == top:
                return ""
            if candidate.startswith(top.rstrip("/") + "/"):
                return candidate[len(top.rstrip("/")) + 1 :]
    return None


def selected(scopes: Iterable[Scope], files: Iterable[str], ignorecase: bool) -> dict[str, bool]:
    """The `files` the scopes name, each with whether a scope named it exactly (as a file)."""
    fold = str.casefold if ignorecase else str
    exact: set[str] = set()  # literal paths: a file, or a folder (everything under it)
    folders: set[str] = set()  # literal paths written with a trailing `/`: folders only
    patterns: list[Scope] = []
    for sc in scopes:
        if sc.glob:
            patterns.append(sc)
            continue
        full = fold("/".join(x for x in (sc.folder, sc.rest.rstrip("/")) if x))
        (folders if sc.rest.endswith("/") or not sc.rest else exact).add(full)
    out: dict[str, bool] = {}
    for path in files:
        key = fold(path)
        if key in exact:
            out[path] = True
            continue
        parents = _parents(key)
        if any(p in exact or p in folders for p in parents):
            out[path] = False
            continue
        for sc in patterns:
            if sc.folder and not key.startswith(fold(sc.folder) + "/"):
                continue
            if globs.matches(path[len(sc.folder) + 1 :] if sc.folder else path, sc.rest, ignorecase):
                out[path] = False
                break
    return out


def _parents(path: str) -> list[str]:
    """`a/b/c` -> `a/b`, `a`, and "" (the top: a scope of the whole tree)."""
    out = []
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        out.append(path)
    out.append("")
    return out
