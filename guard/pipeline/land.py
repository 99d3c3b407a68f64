"""An edit landed: its files written and its turn recorded, together (``stage.write_turn``).

Also the refusals a write itself can meet: the agent's ledger ref locked by another git,
and a folder swapped for a symbolic link between the checks and the write.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..model import FileChange, Finding, error
from ..record import ledger, stage
from ..report import TurnRef
from ..tree import worktree

if TYPE_CHECKING:
    from ..repo import GitRepo
    from .call import Call


def write_turn(
    call: Call, changes: Sequence[FileChange], dialect: str, edit_bytes: int, remove_dirs: Sequence[str] = ()
) -> TurnRef:
    """Write `changes` to the work tree and record them as the call's turn (``stage.write_turn``)."""
    new = ledger.NewTurn(call.agent, call.turn, dialect, call.policy.name, edit_bytes, session=call.session)
    staged = stage.write_turn(call.repo, call.policy.ledger_prefix, new, changes, remove_dirs=remove_dirs, memo=call.memo)
    return TurnRef(call.agent, staged.turn, staged.commit, staged.ref)


def emptied(call: Call, changes: Sequence[FileChange]) -> list[str]:
    """The folders the files `changes` delete (or move away) leave empty, deepest first: taken away
    with them, as `git rm` and `git apply` do; never the folder relative paths start from (the
    call's folder), nor one above it."""
    gone = [
        p
        for c in changes
        for p in (c.path if c.after is None else None, c.old_path if c.old_path and c.old_path != c.path else None)
        if p
    ]
    if not gone:
        return []
    here = call.folder
    kept = {""} | {here.rsplit("/", i)[0] for i in range(here.count("/") + 1)} if here else {""}
    folders = [d for p in gone for d in parents(p) if d not in kept]
    return worktree.emptied_dirs(call.root, folders, gone)


def parents(path: str) -> list[str]:
    """The folders holding `path`, deepest first: ``a/b/c.txt`` -> ``a/b``, ``a``."""
    out = []
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        out.append(path)
    return out


def swapped_path(exc: worktree.UnsafePath) -> Finding:
    """A folder became a symlink between the checks and the write (which then undid itself)."""
    return error(
        "path-outside",
        None,
        None,
        f"{exc} at write time (it was a plain folder when the edit was checked); nothing was written",
        "something replaced a folder with a symbolic link while the edit ran; check the repository, then retry",
    )


def ref_locked(repo: GitRepo, ref: str) -> Finding | None:
    """A refusal when git's lock file for the agent's ledger ref is there: the turn could not be recorded."""
    lock = repo.lock_of(ref)
    return lock_finding(ref, lock) if lock is not None else None


def lock_finding(ref: str, lock: Path) -> Finding:
    return error(
        "stale",
        None,
        None,
        f"the ledger ref {ref} is locked: {lock} exists, so no turn can be recorded (nothing was changed)",
        "another git or agent-guard command may be updating it: wait and retry. If none is running "
        f"(`ps` shows no git and no agent-guard), the lock was left by one that died: remove it "
        f"(rm '{lock}') and retry",
    )
