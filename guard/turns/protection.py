"""Path protection for a rollback: which paths the undone turns touched it may write.

Undoing a turn puts back the user's own version of what it changed, which no path
protection refuses (only git's own folders); undoing a rollback writes an agent's
change again and obeys protection as an edit does (``protection`` has the rule).
"""

from __future__ import annotations

from dataclasses import replace

from ..files import control, paths
from ..model import Finding
from ..pipeline.engine import Guard
from ..policy import Policy
from ..record import ledger
from ..repo import FILE, Entry
from ..tree import worktree
from . import history


def protection(
    g: Guard, pol: Policy, targets: list[ledger.Turn], *, own: bool = True, reverting: bool = False
) -> tuple[list[Finding], list[str]]:
    """`path-protected` for each path the undone turns (`targets`, newest first; `own`: this clone's)
    touched that the policy keeps agents off: git's own folders (wherever they are now), control
    files, the policy's files, protected globs, the allow-list; at the level an edit of the path
    would get (errors refuse the rollback, warnings go with it).  And the protected paths the
    rollback puts back all the same.

    Git's own folders are never written.  Any other path is put back, whatever the policy says
    (undoing a turn puts back what was there before it, and putting back the user's own version
    of a file an agent wrote is no agent write), when
    - every undone turn that touched it is this clone's own turn, not a rollback (undoing a
      rollback writes an agent's change again; another clone's turn found its files in another
      tree, so what they held before it is not this tree's);
    - and, unless `reverting` (agent-guard's own revert, at once, of a turn its policy refused,
      which puts back what the command found), the file still holds what the newest of those
      turns left (putting the old version back would overwrite nothing of anyone's since) and
      what it held before the oldest is the user's own version: no agent's turn wrote it.
    """
    out: list[Finding] = []
    put_back: list[str] = []
    folders = g.repo.git_folders()
    touching: dict[str, list[ledger.Turn]] = {}
    for t in targets:
        for tc in history.turn_changes(g, t):
            for p in (tc.path, tc.old_path):
                if p and t not in touching.setdefault(p, []):
                    touching[p].append(t)
    for p, turns in touching.items():
        git_folder = paths.git_folder_finding(p, folders)
        if git_folder is not None:
            out.append(replace(git_folder, hint=f"a rollback never writes git's own files; {git_folder.hint}"))
            continue
        controls = control.path_finding(p, g.control_paths(), pol)
        f = controls or paths.protected_finding(p, pol)
        if f is None:
            continue
        why = _not_put_back(g, pol, p, turns, targets, own, reverting)
        if why is None:
            put_back.append(p)
        elif f is controls:
            out.append(replace(f, hint=f"{why}, so the rollback changes it as an edit does; {f.hint}"))
        elif f.severity == "error":
            out.append(
                replace(
                    f,
                    hint=f"{why}, so the rollback changes it as an edit does, and the policy keeps agents off {p}; the "
                    f"user can undo turn {turns[0].id} there by hand (git show {turns[0].commit[:12]} -- {p} shows "
                    "what it did), or roll back under a policy that allows it",
                )
            )
        else:
            out.append(
                replace(
                    f, hint=f"{why}, so the rollback changes it as an edit does; this policy only warns about {p}, as for an edit"
                )
            )
    return out, put_back


def _not_put_back(
    g: Guard, pol: Policy, path: str, turns: list[ledger.Turn], targets: list[ledger.Turn], own: bool, reverting: bool
) -> str | None:
    """Why undoing `turns` (newest first, the undone turns that touched `path`) does not merely put
    back the user's own version of `path` (see ``protection``), or None when it does."""
    t = turns[0]
    if not own:
        return f"turn {t.id} is another clone's: what {path} held before it there is not this tree's"
    rollbacks = [u.id for u in turns if u.kind != "turn"]
    if rollbacks:
        return f"undoing rollback {rollbacks[0]} writes the agent's change to {path} again"
    if reverting:
        return None
    try:
        now, mode = worktree.read(g.root, path)
    except (worktree.UnsafePath, OSError) as exc:
        return f"{path} cannot be read now ({exc})"
    left = g.repo.tree_entry(g.repo.commit_tree(t.commit), path)
    if (None if now is None else Entry(g.repo.hash_blob(now), mode or FILE)) != left:
        return f"{path} changed after turn {t.id}: putting its old version back would overwrite that"
    for newer, older in zip(turns, turns[1:]):
        if _before(g, newer, path) != g.repo.tree_entry(g.repo.commit_tree(older.commit), path):
            return f"{path} changed between turns {older.id} and {newer.id}: putting its old version back would overwrite that"
    writer = _written_by(g, pol.ledger_prefix, path, _before(g, turns[-1], path), targets)
    if writer is not None:
        return f"what {path} held before turn {turns[-1].id} is what {writer} wrote, not the user's own version"
    return None


def _before(g: Guard, t: ledger.Turn, path: str) -> Entry | None:
    return g.repo.tree_entry(g.repo.commit_tree(t.parent), path) if t.parent else None


def _written_by(g: Guard, prefix: str, path: str, entry: Entry | None, targets: list[ledger.Turn]) -> str | None:
    """The agent turn (not one of `targets`) that left `path` as `entry` (None: absent), as "NAME's
    turn ID", or None when no agent's turn did: then it is the user's own version."""
    undone = {t.commit for t in targets}
    for name in history.agents(g, prefix, None):
        for t, _rolled in history.turns(g, ledger.ref_for(g.repo, prefix, name), name):
            if t.kind != "turn" or t.commit in undone or not any(f[1] == path for f in t.files):
                continue
            if g.repo.tree_entry(g.repo.commit_tree(t.commit), path) == entry:
                return f"{name}'s turn {t.id}"
    return None
