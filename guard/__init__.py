"""agent-guard: validate coding agents' edits, apply them all-or-nothing, record every turn.

The Python API returns the same values the CLI renders::

    import guard
    report = guard.apply(patch_text, repo="path/to/repo", agent="claude")
    report.status, report.findings, report.diff

Each function is one call: it opens the repository and reads its policy as they are now,
and keeps nothing for the next (``guard.Guard(repo)`` is the same, as an object).

Relative paths in an edit follow the command line's rule: they start from the
process's current folder when it is inside the repository's work tree (as for
``git add``), else from the top of the repository; ``diff --git`` patches always
name files from the top.  A harness that runs elsewhere names files from the top.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pipeline.engine import Guard
    from .report import Report

__all__ = ["Guard", "apply", "check", "read", "rollback", "log", "session"]


def session(repo: str | os.PathLike[str] = ".", policy: str | None = None) -> "Guard":
    """A Guard for `repo` (any folder inside it) and `policy`, with any write a crash cut short rolled back.

    Each call of a Guard reads the repository and its policy as they are then: one may be kept
    for as long as a harness likes, and nothing it read goes stale."""
    from .pipeline.engine import Guard

    g = Guard(repo, policy)
    g.recover()  # cheap when nothing was interrupted: a look for the journal
    return g


def apply(
    edit: str | bytes,
    repo: str | os.PathLike[str] = ".",
    *,
    format: str = "auto",
    agent: str | None = None,
    turn: str | None = None,
    check: bool = False,
    path: str | None = None,
    policy: str | None = None,
) -> "Report":
    """Apply one edit in any dialect, or refuse it whole; returns the Report."""
    return session(repo, policy).apply(edit, format=format, agent=agent, turn=turn, check=check, path=path)


def check(
    repo: str | os.PathLike[str] = ".",
    *,
    from_ref: str | None = None,
    to_ref: str | None = None,
    all_files: bool = False,
    paths: tuple[str, ...] = (),
    policy: str | None = None,
) -> "Report":
    """Check the staged change (the default), a commit range (`from_ref`..`to_ref`), or all files against the policy."""
    from . import commit_check

    return commit_check.check(session(repo, policy), from_ref=from_ref, to_ref=to_ref, all_files=all_files, paths=paths)


def read(
    path: str,
    repo: str | os.PathLike[str] = ".",
    *,
    lines: tuple[int, int] | None = None,
    agent: str | None = None,
    policy: str | None = None,
) -> str:
    """A file as hashline-tagged numbered lines (what `git agent-read` prints)."""
    from .pipeline import hashline_read

    return hashline_read.read(session(repo, policy), path, lines, agent)


def rollback(
    repo: str | os.PathLike[str] = ".",
    *,
    agent: str | None = None,
    turn: str | None = None,
    to: str | None = None,
    check: bool = False,
    force: bool = False,
    policy: str | None = None,
    clone: str | None = None,
    commit: str | None = None,
    session_id: str | None = None,
) -> "Report":
    """Undo the agent's last turn, one turn (`turn`), or every turn after `to`; with `clone`, that
    clone's turn `turn`, fetched here; with `commit`, the turn recorded at that commit; with
    `session_id`, the last turn of that session (as ``rollback --session``)."""
    from .turns.rollback import Asked
    from .turns.rollback import rollback as rollback_turns

    asked = Asked(turn, to, clone, commit, session_id)
    return rollback_turns(session(repo, policy), agent, asked, check=check, force=force)


def log(
    repo: str | os.PathLike[str] = ".",
    *,
    agent: str | None = None,
    limit: int | None = None,
    patch: bool = False,
    policy: str | None = None,
    clone: str | None = None,
    local: bool = False,
) -> list[dict[str, Any]]:
    """Recorded turns, newest first, as dictionaries (the `--json` shape): this clone's and those
    fetched from other clones (`clone`: that clone's alone; `local`: this clone's alone)."""
    from .turns import history

    return history.log(session(repo, policy), agent, history.Listing(limit, clone, local), patch)


def __getattr__(name: str) -> Any:
    if name == "Guard":
        from .pipeline.engine import Guard

        return Guard
    raise AttributeError(name)
