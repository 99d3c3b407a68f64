"""Everything agent-guard keeps for a repository, and taking it away (`agent-guard uninstall`).

What it keeps, none of it in the work tree or in any branch:

- the shadow refs, one per agent and work tree, under the ledger's prefix (``refs/agent-guard/``,
  or a policy's ``ledger.ref_prefix``; a linked worktree's under ``_worktrees/<id>/``), with
  their reflogs;
- ``agent-guard/`` in the repository's git directory (the event log `stats` reads, the
  turn-id index, git's configuration as last read, the lock), and in the git directory of
  each work tree (its journal, what agents read there, the command-line sessions, the
  shell snapshots' stat data, the hook's stashes);
- agent-guard's plain pre-commit hook, if `install-hook` put one there;
- the verify commands' shadow checkouts of the repository (one per agent), in the user's cache:
  ``$XDG_CACHE_HOME/agent-guard/verify/<hash of the git dir>`` (``guard/repo/shadow.py``), one
  folder for each linked worktree too;
- for the user, not the repository: the cache folder (``$XDG_CACHE_HOME/agent-guard``, else
  ``~/.cache/agent-guard``), which every repository shares: the verify checkouts, and the
  parsed policies versions before 0.2 kept there.

What it does not take away: the user's own files (``.agent-guard.yaml``, a
``[tool.agent-guard]`` table, ``.pre-commit-config.yaml`` entries, agents' settings that
name agent-guard), which the report lists for the user, and the program itself.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..files.workspace import Workspace
from ..repo import RefMoved

DIRNAME = "agent-guard"


@dataclass(frozen=True, slots=True)
class Item:
    """One thing agent-guard keeps: what it is, where, and its value (a ref's commit) to remove it by."""

    kind: str  # "ref", "folder", "checkouts", "hook", "cache"
    where: str  # the ref's name, or the path
    value: str | None = None  # a ref's commit: it is deleted only if it still points there


def cache_folder() -> Path | None:
    """The user's agent-guard cache folder, if the environment names one."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / DIRNAME if os.path.isabs(base) else None


def items(g: Workspace, cache: bool) -> list[Item]:
    """What agent-guard keeps for the repository of `g` (and, with `cache`, for the user)."""
    from ..commit_check import githook

    out = [
        Item("ref", name, value)
        for prefix in _prefixes(g)
        for name, value in sorted(g.repo.refs(prefix).items())
        if _a_ledger(g, value)
    ]
    folders = [g.repo.commondir / DIRNAME, g.repo.gitdir / DIRNAME]
    worktrees = g.repo.commondir / "worktrees"
    if worktrees.is_dir():
        folders += sorted(d / DIRNAME for d in worktrees.iterdir())
    out += [Item("folder", str(d)) for d in dict.fromkeys(folders) if d.is_dir() and not d.is_symlink()]
    out += [Item("checkouts", str(d)) for d in _checkouts(g) if not any(Path(i.where) in d.parents for i in out)]
    hook = githook.ours(g)
    if hook is not None:
        out.append(Item("hook", str(hook)))
    folder = cache_folder()
    if cache and folder is not None and folder.is_dir() and not folder.is_symlink():
        out.append(Item("cache", str(folder)))
    return out


def _checkouts(g: Workspace) -> list[Path]:
    """The folders of the repository's shadow checkouts (its own and its linked worktrees'), where they are."""
    from ..repo import GitRepo
    from ..repo.shadow import NotPrivate, home

    repos = [g.repo]
    worktrees = g.repo.commondir / "worktrees"
    if worktrees.is_dir():
        for d in sorted(worktrees.iterdir()):
            try:
                repos.append(GitRepo(Path((d / "gitdir").read_text().strip()).parent))
            except Exception:  # noqa: BLE001 - a worktree gone or unreadable: nothing of ours to find through it
                continue
    found: list[Path] = []
    for repo in repos:
        try:
            folder = home(repo)
        except NotPrivate:
            continue
        if folder.is_dir() and not folder.is_symlink():
            found.append(folder)
    return list(dict.fromkeys(found))


# git's own namespaces: never a ledger's, whatever a policy's ledger.ref_prefix says.
_GITS = ("refs/heads/", "refs/tags/", "refs/remotes/", "refs/notes/", "refs/stash", "refs/bisect/", "refs/replace/")


def _prefixes(g: Workspace) -> list[str]:
    """The ledger prefixes in use: the default, and the policy's when it names another."""
    found = ["refs/agent-guard/", g.policy().ledger_prefix]
    return [p for p in dict.fromkeys(found) if p.count("/") >= 2 and not p.startswith(_GITS)]


def _a_ledger(g: Workspace, commit: str) -> bool:
    """Is `commit` the tip of an agent-guard ledger (its commits carry agent-guard's trailers)?"""
    try:
        return "\nAgent-Guard-" in g.repo.commit_info(commit).message
    except Exception:  # noqa: BLE001 - not a commit, or unreadable: not ours to remove
        return False


def described(item: Item) -> str:
    if item.kind == "ref":
        return f"the shadow ref {item.where} ({(item.value or '')[:12]}) and its reflog"
    if item.kind == "folder":
        return f"the folder {item.where} (event log, turn-id index, reads, lock, journal)"
    if item.kind == "hook":
        return f"agent-guard's pre-commit hook {item.where} (a hook it kept is put back)"
    if item.kind == "checkouts":
        return f"the folder {item.where} (the verify commands' checkouts of this repository)"
    return f"the user's cache {item.where} (parsed policies, shared by every repository)"


def remove(g: Workspace, found: list[Item]) -> list[str]:
    """Take `found` away (refs only where they still point where they did); what was done, line by line."""
    from ..commit_check import githook
    from ..tree import worktree

    done: list[str] = []
    with worktree.locked(g.repo):
        for item in found:
            if item.kind != "ref":
                continue
            try:
                g.repo.update_ref(item.where, None, item.value, "agent-guard: uninstall")
            except RefMoved:
                done.append(f"left {item.where}: it moved meanwhile (run uninstall again)")
                continue
            log = g.repo.commondir / "logs" / item.where
            if log.is_file():
                log.unlink()
            done.append(f"removed {described(item)}")
    for item in found:
        if item.kind == "hook":
            done += [line.removeprefix("agent-guard: ") for line in githook.uninstall(g)]
        elif item.kind in ("folder", "checkouts", "cache"):
            shutil.rmtree(item.where, ignore_errors=True)
            done.append(f"removed {described(item)}")
    if any(i.kind == "ref" for i in found):
        for prefix in _prefixes(g):
            # The folders the loose refs and their reflogs were in, once empty.
            _prune(g.repo.commondir / prefix.rstrip("/"))
            _prune(g.repo.commondir / "logs" / prefix.rstrip("/"))
    return done


def _prune(folder: Path) -> None:
    """Remove `folder` and the folders in it, if they hold no file (emptied reflog folders)."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for d in sorted((p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink()), key=lambda p: -len(p.parts)):
        try:
            d.rmdir()
        except OSError:
            pass
    try:
        folder.rmdir()
    except OSError:
        pass


def left_to_the_user(g: Workspace) -> list[str]:
    """The user's own files that name agent-guard: not taken away, listed for the user."""
    out = []
    for name in (
        ".agent-guard.yaml",
        "pyproject.toml",
        ".pre-commit-config.yaml",
        ".pre-commit-config.yml",
        ".mcp.json",
        ".claude/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        "opencode.json",
        ".aider.conf.yml",
    ):
        path = g.root / name
        try:
            if (
                path.is_file()
                and not path.is_symlink()
                and (name == ".agent-guard.yaml" or b"agent-guard" in path.read_bytes()[:1_000_000])
            ):
                out.append(name)
        except OSError:
            continue
    return out
