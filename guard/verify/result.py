"""The tree a verify runs on: what the repository would hold once the edit is written.

It is built from three layers, each a set of paths over the one before:

1. the user's index: what ``git commit`` would commit now (its HEAD's tree while the index
   has unmerged paths);
2. every file this agent's turns changed, as the work tree holds it now: an agent works over
   several turns before anyone stages them, and its next edit is judged with its last ones;
3. the edit itself.

The files a user changed and did not stage, and files git does not track, are not in it (stage
them to have them verified with the agent's edits); nor are other agents' unstaged turns.

Layer 2 costs what the agent changed: the paths its turns touched are gathered from the
ledger once and kept (``touched.json`` beside the checkout, with the ledger commit they run up
to), so each call reads only the turns recorded since.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..fs.filekind import read_regular

if TYPE_CHECKING:
    from ..model import FileChange
    from ..repo import GitRepo
    from ..repo.shadow import Shadow

TOUCHED = "touched.json"


@dataclass(frozen=True, slots=True)
class Built:
    """The result's tree, the user's HEAD commit (None before the first), and what the caller should
    know about how it was built."""

    tree: str
    head: str | None
    notes: tuple[str, ...]


def build(repo: GitRepo, shadow: Shadow, ledger_ref: str, agent: str, changes: Sequence[FileChange]) -> Built:
    """The result of `changes` (see the module doc), its blobs and trees written to the object database."""
    from ..repo import FILE, Entry
    from ..tree import worktree

    notes: list[str] = []
    head = repo.head_commit()
    base = shadow.index_tree()
    if base is None:
        base = repo.commit_tree(head) if head else repo.empty_tree()
        notes.append("the index has unmerged paths: verified on HEAD's files instead")
    updates: dict[str, Entry | None] = {}
    for path in touched(repo, shadow.folder, ledger_ref, agent):
        try:
            data, mode = worktree.read(repo.root, path)
        except (worktree.UnsafePath, OSError):
            continue  # a link or no regular file now: the index's entry stands
        updates[path] = None if data is None else Entry(repo.write_blob(data), mode or FILE)
    for c in changes:
        if c.old_path and c.old_path != c.path:
            updates[c.old_path] = None
        updates[c.path] = None if c.after is None else Entry(repo.write_blob(c.after), c.new_mode or FILE)
    return Built(repo.build_tree(base, updates), head, tuple(notes))


def touched(repo: GitRepo, folder: Path, ref: str, agent: str) -> list[str]:
    """Every path the agent's turns (and rollbacks) on `ref` changed, oldest turn to newest."""
    from ..record import ledger

    tip = repo.ref(ref)
    if tip is None:
        return []
    file = folder / TOUCHED
    try:
        doc = json.loads(read_regular(file))
        known_tip = doc["tip"] if isinstance(doc.get("tip"), str) else None
        known = [str(p) for p in doc["paths"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        known_tip, known = None, []
    if known_tip == tip:
        return known
    found: list[str] = []
    reached = False
    for t in ledger.turns(repo, ref, agent):
        if t.commit == known_tip:
            reached = True
            break
        before = repo.commit_tree(t.parent) if t.parent else None
        for c in repo.changed_files(before, repo.commit_tree(t.commit)):
            found += [p for p in (c.old_path, c.path) if p]
    paths = list(dict.fromkeys((known if reached else []) + found[::-1]))
    try:
        tmp = folder / f".{TOUCHED}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps({"tip": tip, "paths": paths}), encoding="utf-8")
        os.replace(tmp, file)
    except OSError:
        pass
    return paths
