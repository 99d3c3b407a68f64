"""The file an edit targets: its path resolved, the file read and vetted against the operation.

For each file section of an edit: the agent's path becomes a repository-relative one
(``resolve``; or a refusal: outside the tree, git's own folders, a control file,
protected, a submodule), the file is read without following a link, and the operation
is checked against what is there (``vet``: create over a file, modify a missing one, a
folder, sparse checkout, a symlink or submodule mode).  The pipeline's per-file step
(``pipeline.file_change``) works out the change from here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..model import FileEdit, Finding, Op, PathBase, error
from ..record import ledger
from ..repo import EXEC, FILE
from ..report.audience import CLI, Audience
from ..tree import worktree
from . import paths

if TYPE_CHECKING:
    from ..policy import Policy
    from ..record.ledger import Memo
    from ..record.reads import Reader
    from .workspace import Workspace


def resolve(ws: Workspace, raw: str, pol: Policy, reading: bool = False) -> tuple[str | None, Finding | None]:
    """An agent's path as a repository-relative one, or the finding that refuses it: outside
    the tree, in git's own folders, a control file (``control``; read freely), protected (for
    `reading`: not to be read), in a submodule."""
    rel, finding = paths.resolve(ws.root, raw)
    if finding is not None or rel is None:
        return None, finding
    own = paths.git_folder_finding(rel, ws.repo.git_folders())
    if own is not None:
        return None, own
    if not reading:
        from .control import path_finding

        control = path_finding(rel, ws.control_paths(), pol)
        if control is not None:
            return None, control
    prot = paths.read_finding(rel, pol) if reading else paths.protected_finding(rel, pol)
    if prot is not None and prot.severity == "error":
        return None, prot
    sub = ws.repo.submodule_of(rel)
    if sub is not None:
        # paths.resolve sees a checked-out submodule's .git; this is one not checked out,
        # whose empty folder a later `git submodule update` must find empty.
        return None, error(
            "path-protected",
            rel,
            None,
            f"{rel!r}: {sub!r} is a submodule (git records it as a commit, not files)",
            "edit the submodule in its own repository, not through this one",
        )
    return rel, None


def tracked_for(ws: Workspace, pol: Policy, agent: str, memo: Memo | None = None) -> Callable[[str], bool]:
    """Tracked by git (HEAD or the index), or created by this agent's own turn and not ignored.

    The ledger keeps every file a turn touched, so it can restore them; that makes a file the
    agent created its own to edit, though git does not track it.  Nothing else on the shadow ref
    counts: a file the user untracked (`git rm --cached`) stops being editable at once unless the
    agent created it, and one the agent created stops once git ignores it (the user's way to take
    a file away from the agent).
    """
    tip = ws.repo.ref(ledger.ref_for(ws.repo, pol.ledger_prefix, agent))
    tip_tree = ws.repo.commit_tree(tip) if tip else None
    known: dict[str, bool] = {}

    def tracked(path: str) -> bool:
        if ws.repo.tracked(path):
            return True
        if tip is None or ws.repo.tree_entry(tip_tree, path) is None:
            return False
        if path not in known:
            known[path] = not ws.repo.ignored(path) and ledger.created_by_agent(ws.repo, tip, agent, path, memo)
        return known[path]

    return tracked


def source(ws: Workspace, fe: FileEdit, pol: Policy, here: str = "") -> tuple[str, bytes | None] | Finding:
    """The file `fe` changes (for a move, the one it moves) as ``change_for`` resolves it, and its
    bytes now (None: not there); or the finding that refuses the path."""
    start = "" if fe.path_base is PathBase.ROOT else here
    guess = fe.path_base is PathBase.GUESS
    fe = prefix_dropped(ws.root, fe, start, guess)
    name = fe.old_path if fe.old_path and fe.op in (Op.RENAME, Op.MODIFY) else fe.path
    path, f = resolve(ws, paths.from_folder(start, name, guess), pol)
    if f is not None or path is None:
        return f or error("path-outside", fe.path, None, f"{name!r} is not a file in the repository")
    try:
        return path, worktree.read(ws.root, path)[0]
    except worktree.UnsafePath as exc:
        return not_a_file(ws.root, fe, path, path, exc)


def unread(ws: Workspace, path: str, current: bytes, who: Reader, audience: Audience = CLI) -> Finding | None:
    """`stale` unless `who` read `path` as it is now (`current`): its last read (``reads``) shows
    this content.  An applied edit counts as read (the MCP server records what it wrote)."""
    from ..record import reads

    seen = reads.last(ws.repo, who, path)
    if seen is not None and seen.blob == ws.repo.hash_blob(current):
        return None
    why = "you have not read it" if seen is None else "it changed since you last read it"
    return error(
        "stale",
        path,
        None,
        f"{path} cannot be edited: {why}",
        f"read it first with {audience.read(path, who.agent)}, then edit the text as it reads now",
    )


def vet(ws: Workspace, fe: FileEdit, src: str, path: str, before: bytes | None, dest: bytes | None, start: str) -> Finding | None:
    """The refusal of the edit's operation where it does not fit what is there, or None."""
    op = fe.op
    if before is None and ws.repo.skip_worktree(src):
        return _outside_sparse(src, op is Op.CREATE or fe.create_missing)
    if op is Op.CREATE and before is not None:
        return error(
            "exists",
            path,
            None,
            f"{path} already exists; a create would overwrite it",
            "send a modify edit (a diff or SEARCH/REPLACE against its current content), or delete it first",
        )
    if op is not Op.CREATE and before is None and not (fe.create_missing and op is Op.MODIFY):
        verb = "delete" if op is Op.DELETE else "modify"
        return error(
            "missing",
            path,
            None,
            f"cannot {verb} {src}: it does not exist",
            f"create it with a new-file edit, or check the path ({paths.start_rule(start, fe.path_base is PathBase.ROOT)})",
        )
    if (fe.new_mode or FILE) not in (FILE, EXEC):
        kind = "a symlink" if fe.new_mode == 0o120000 else "a submodule" if fe.new_mode == 0o160000 else f"mode {fe.new_mode:o}"
        return error(
            "path-outside",
            path,
            None,
            f"{path} would become {kind}: agent-guard writes regular files only (a link may point outside the repository)",
            "create links and submodules yourself, outside the agent",
        )
    if op is Op.RENAME and src != path and dest is not None:
        return error(
            "exists",
            path,
            None,
            f"cannot move {src} to {path}: {path} already exists",
            "delete the destination first, or move to another name",
        )
    return None


def not_a_file(root: Path, fe: FileEdit, src: str, path: str, exc: worktree.UnsafePath) -> Finding:
    """worktree.read refuses any non-regular file; a plain folder is no symlink escape."""
    if isinstance(exc, worktree.NotAFile) and exc.what != "a folder":
        return special_file(exc, fe.op is Op.CREATE or fe.create_missing or exc.path != src)
    folder = next((p for p in dict.fromkeys((src, path)) if _is_folder(root / p)), None)
    if folder is None:
        return error(
            "path-outside",
            fe.path,
            None,
            f"{exc}: agent-guard never writes through a symlink",
            "edit the file the link points to, by its own path inside the repository",
        )
    if fe.op is Op.CREATE or folder != src:
        return error(
            "exists",
            folder,
            None,
            f"{folder} already exists as a folder; a file cannot be written there",
            "name a file inside that folder, or another path",
        )
    return error("missing", folder, None, f"{folder} is a folder, not a file", "name a file")


def special_file(exc: worktree.NotAFile, creates: bool) -> Finding:
    """A named pipe, a socket or a device where an edit (`creates`: a write of a new file) or a read goes.

    `exists` when the edit would write a file there, `missing` when it reads or changes
    one: no regular file is there, and agent-guard never opens anything else (a pipe
    would hold the read until something wrote to it).
    """
    hint = (
        "pipes, sockets and devices are not for agents to read or write: name a regular file, or ask the "
        f"user to remove {exc.path}"
    )
    if creates:
        return error(
            "exists",
            exc.path,
            None,
            f"{exc.path} already exists as {exc.what}, not a regular file; a file cannot be written there",
            hint,
        )
    return error(
        "missing",
        exc.path,
        None,
        f"{exc.path} is {exc.what}, not a regular file: agent-guard reads and edits regular files only",
        hint,
    )


def prefix_dropped(root: Path, fe: FileEdit, start: str = "", guess: bool = False) -> FileEdit:
    """`a/src/x.py` read as `src/x.py`: a diff's `a/` or `b/` copied into the path of a file to change.

    Only where the path as written names nothing and the path without the prefix
    names a regular file (a real folder `a/` keeps its meaning).  Paths are as
    written, read from the folder `start` (``paths.from_folder``).
    """
    if fe.op is Op.CREATE or fe.create_missing:
        return fe
    source = fe.old_path if fe.op is Op.RENAME and fe.old_path else fe.path

    def exists(rel: str) -> bool:
        return os.path.lexists(root / paths.from_folder(start, rel, guess))

    if not source.startswith(("a/", "b/")) or exists(source) or not exists(source[2:]):
        return fe
    plain = root / paths.from_folder(start, source[2:], guess)
    if plain.is_symlink() or not plain.is_file():
        return fe
    repairs = tuple(dict.fromkeys(fe.repairs + ("path-prefix",)))
    if fe.op is Op.RENAME and fe.old_path:
        dest = fe.path[2:] if fe.path.startswith(("a/", "b/")) and not exists(fe.path) else fe.path
        return fe._replace(old_path=source[2:], path=dest, repairs=repairs)
    old = fe.old_path[2:] if fe.old_path and fe.old_path.startswith(("a/", "b/")) else fe.old_path
    return fe._replace(path=source[2:], old_path=old, repairs=repairs)


def _outside_sparse(path: str, creates: bool) -> Finding:
    """`path` is tracked, but a sparse checkout leaves it out of the work tree."""
    folder = path.rpartition("/")[0] or "."
    hint = f"ask the user to `git sparse-checkout add {folder}` first, or leave {path} out of the edit"
    if creates:
        return error(
            "exists",
            path,
            None,
            f"{path} is tracked by git but outside the sparse checkout; a new file there would shadow it",
            hint,
        )
    return error(
        "missing", path, None, f"{path} is outside the sparse checkout: git tracks it, but it is not in the work tree", hint
    )


def _is_folder(p: Path) -> bool:
    return p.is_dir() and not p.is_symlink()
