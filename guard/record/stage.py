"""Staging a turn: changes -> blobs, trees and the turn commit; then the files and the ledger ref, together.

Apply, rollback and record stage a turn here alike, in two steps:

1. The turn's objects (`_stage`), all in the object database before anything else
   moves: the blobs of the files it touches; a *sync* commit when the ledger no longer
   matches the work tree at those files (the user edited or committed them since), so
   that ``git diff <turn>^ <turn>`` is exactly the turn's change and never the user's;
   and the turn's commit on top, whose message ``ledger`` writes.  Only the touched
   paths are looked at, so the cost follows the edit.
2. Landing it: `write_turn` (apply, rollback) writes the files with worktree's
   journaled write, whose last step moves the agent's ledger ref by compare-and-swap;
   `record_turn` (files another tool already wrote) moves the ref alone.

The ref's move is this module's to undo: `recover`, which every command runs under the
repository lock before anything else, puts back the files of a write a crash cut short,
and the ref with them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Mapping, Sequence

from ..repo import FILE, Entry, GitRepo
from ..tree import worktree
from . import clones, ledger

if TYPE_CHECKING:
    from ..model import FileChange


@dataclass(frozen=True, slots=True)
class Staged:
    """A turn's commit in the object database, and the ref move that records it."""

    ref: str
    old: str | None  # what the ref points at, which the move expects to replace
    commit: str
    turn: str  # its id


def write_turn(
    repo: GitRepo,
    prefix: str,
    new: ledger.NewTurn,
    changes: Sequence[FileChange],
    *,
    remove_dirs: Sequence[str] = (),
    memo: ledger.Memo | None = None,
    like: Mapping[str, str] | None = None,
) -> Staged:
    """Record `changes` as the agent's turn and write them to the work tree, all or nothing.

    `remove_dirs`: folders to remove once the files are written, each only if empty by
    then (a rollback takes away the folders the turns it undoes created).  `like`: a new
    file's path -> the file whose permission bits it takes (a rollback moving a file back);
    a rename's new path always takes its old path's.
    """
    created = worktree.missing_dirs(repo.root, [c.path for c in changes if c.after is not None])
    staged = _stage(repo, prefix, new, changes, created, memo)
    writes: list[worktree.Write] = []
    for c in changes:
        if c.old_path and c.old_path != c.path:
            writes.append(worktree.Write(c.old_path, c.before, None, c.old_mode, None))
            writes.append(worktree.Write(c.path, None, c.after, None, c.new_mode, like=c.old_path))
        else:
            writes.append(worktree.Write(c.path, c.before, c.after, c.old_mode, c.new_mode, like=(like or {}).get(c.path)))
    message = f"agent-guard: {new.kind} {staged.turn} ({new.dialect})"
    worktree.write(
        repo,
        writes,
        remove_dirs=remove_dirs,
        last=worktree.LastStep(
            run=lambda: repo.update_ref(staged.ref, staged.commit, staged.old, message),
            note=[staged.ref, staged.old, staged.commit],
            undo=partial(_undo_ref_move, repo),
        ),
    )
    return staged


def record_turn(
    repo: GitRepo,
    prefix: str,
    new: ledger.NewTurn,
    changes: Sequence[FileChange],
    created_dirs: Sequence[str] = (),
    memo: ledger.Memo | None = None,
) -> Staged:
    """Record as the agent's turn `changes` another tool already wrote: the ref moves, nothing else.

    Each change's ``before`` is the file as it was before that tool ran (the ledger
    syncs to it first, so the turn's diff is exactly ``before`` -> ``after``);
    `created_dirs` are the folders that tool made, kept with the turn as a write's are.
    """
    staged = _stage(repo, prefix, new, changes, created_dirs, memo)
    repo.update_ref(staged.ref, staged.commit, staged.old, f"agent-guard: record turn {staged.turn} ({new.dialect})")
    return staged


def recover(repo: GitRepo) -> bool:
    """Roll back a write a crash cut short, if there is one, ledger ref and all (under the repository lock)."""
    return worktree.recover(repo, partial(_undo_ref_move, repo))


def _undo_ref_move(repo: GitRepo, note: object, dead_writer: bool) -> None:
    """Put the ledger ref back where the interrupted write found it, if the write had moved it."""
    assert isinstance(note, list) and len(note) == 3
    name, old, new = note
    if dead_writer:
        # A kill inside the ref update leaves git's `<ref>.lock`, which would refuse every
        # later update of this agent's ref.  The journal says the dead process was the one
        # updating it, and we hold the repository lock: it is stale.
        repo.remove_stale_lock(name)
    current = repo.ref(name)
    if current == new and new != old:
        repo.update_ref(name, old, new, "agent-guard: roll back an interrupted turn")


def _stage(
    repo: GitRepo,
    prefix: str,
    new: ledger.NewTurn,
    changes: Sequence[FileChange],
    created_dirs: Sequence[str],
    memo: ledger.Memo | None,
) -> Staged:
    """Write the turn's blobs, trees and commit(s) to the object database (see the module doc)."""
    ref = ledger.ref_for(repo, prefix, new.agent)
    tip = repo.ref(ref)
    tip_turn = ledger.parse_turn(repo, tip, new.agent, memo) if tip else None
    if new.continues(tip_turn):
        # The same turn goes on: its commit is replaced by one with both edits.
        assert tip is not None and tip_turn is not None
        parent: str | None = tip_turn.parent
        base_tree: str | None = repo.commit_tree(tip)
    else:
        parent = tip or repo.head_commit()
        base_tree = repo.commit_tree(parent) if parent else None
        synced = _synced(repo, base_tree, changes)
        if synced is not None:
            count, sync_tree = synced
            parent = repo.write_commit(sync_tree, [parent] if parent else [], ledger.sync_message(new.agent, count))
            base_tree = sync_tree
    updates: dict[str, Entry | None] = {}
    for ch in changes:
        if ch.old_path and ch.old_path != ch.path:
            updates[ch.old_path] = None
        updates[ch.path] = None if ch.after is None else Entry(repo.write_blob(ch.after), ch.new_mode or FILE)
    tree = repo.build_tree(base_tree, updates)
    tid, message = ledger.turn_message(repo, ref, replace(new, clone=clones.name(repo)), tip_turn, changes, created_dirs, memo)
    commit = repo.write_commit(tree, [parent] if parent else [], message)
    return Staged(ref, tip, commit, tid)


def _synced(repo: GitRepo, base_tree: str | None, changes: Sequence[FileChange]) -> tuple[int, str] | None:
    """The touched paths as the work tree had them before this turn, where the ledger has them
    otherwise: (how many, the tree), or None when it matches."""
    before: dict[str, Entry | None] = {}
    seen: set[str] = set()
    for ch in changes:
        for p, data, mode in (
            (ch.old_path or ch.path, ch.before, ch.old_mode),
            (ch.path, ch.before if not ch.old_path else None, ch.old_mode),
        ):
            if p in seen:
                continue
            seen.add(p)
            want = None if data is None else Entry(repo.hash_blob(data), mode or FILE)
            if repo.tree_entry(base_tree, p) != want:
                if data is not None:
                    repo.write_blob(data)  # only a sync commit needs the blob stored
                before[p] = want
    if not before:
        return None
    sync_tree = repo.build_tree(base_tree, before)
    return (len(before), sync_tree) if sync_tree != base_tree else None
