"""The stash of a patch: what the PostToolUse of one patch tool call (Codex's ``apply_patch``) needs
from its PreToolUse.

A patch changes several files in one call, so its stash holds one entry per file, each the same
record a file tool's stash is (``stash.Passed`` or ``stash.Denied``, written by ``stash.as_json``
and read back by ``stash.from_json``), in one file under ``patch-<name>`` beside the file tools'
stashes.  ``write`` is the only writer and ``take`` the only reader; a file of another version,
or one whose entries are not what ``stash`` writes, is no stash at all (the post hook then says
the patch was not recorded).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from ...fs.filekind import read_regular
from . import stash

if TYPE_CHECKING:
    from ...pipeline.engine import Guard

VERSION = 1  # of the file's format: a file of any other is none
_FIELDS = frozenset({"version", "files"})


def write(g: Guard, called: str, entries: list[stash.Passed] | list[stash.Denied]) -> None:
    """Keep `entries` in `g` under the name `called`, whole or not at all."""
    from ...files import paths

    docs = []
    for entry in entries:
        inline = paths.read_finding(entry.path, g.policy(entry.agent)) is not None
        docs.append(stash.as_json(g, entry, inline))
    path = stash.sweep(g) / called
    tmp = path.with_name(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": VERSION, "files": docs}), encoding="utf-8")
    os.replace(tmp, path)


def take(g: Guard, called: str) -> list[stash.Passed | stash.Denied] | None:
    """The entries kept in `g` under `called`, taken away; None when there are none this version of
    agent-guard wrote."""
    path = stash.folder(g) / called
    try:
        doc = json.loads(read_regular(path))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    if not isinstance(doc, dict) or frozenset(doc) != _FIELDS or doc.get("version") != VERSION:
        return None
    files = doc["files"]
    if not isinstance(files, list):
        return None
    try:
        return [stash.from_json(g, entry) for entry in files]
    except ValueError:
        return None
