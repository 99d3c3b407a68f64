"""``Guard``: the Python API's handle on one repository, and the edge the other entry points share.

Each method is one call: it builds a ``Call`` (``pipeline.call``) with the policy read for it,
runs the pipeline on it (``pipeline.apply``), and keeps nothing for the next call but what git
stores (the ledger refs, the journal, the lock).  A ``Guard`` may be kept for as long as its
user likes: every call sees the repository and its policy files as they are then.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Sequence

from ..files.workspace import Workspace
from ..model import FileChange
from ..record import ledger, stage
from ..report import Report, TurnRef
from ..tree import worktree
from . import call as calls
from .apply import check_turn
from .call import Call, Verify, default_agent, default_turn
from .land import lock_finding, ref_locked, swapped_path

if TYPE_CHECKING:
    from ..model import Finding
    from ..policy import Policy
    from ..record.reads import Reader
    from ..record.watched import Watch
    from ..report.audience import Audience

__all__ = ["Guard", "default_agent", "default_turn", "lock_finding", "ref_locked", "swapped_path"]


class Guard(Workspace):
    """A repository that takes edits: each call parsed, located, checked, written and recorded."""

    # The budget session its caller runs in (Claude Code's session id, the MCP server's own):
    # None, the environment's or the command line's (guard/record/sessions.py).
    budget_session: str | None = None
    # The work tree's watch, for its shell turns' snapshots (guard/record/watched.py): the hooks'
    # (guard/warm/watch.py); None, git lists the whole tree each time.
    watch: Watch | None = None

    def session(self, agent: str) -> str:
        """The budget session `agent`'s next turn counts in (``sessions.current``)."""
        from ..record import sessions

        return sessions.current(self.repo.gitdir, agent, self.budget_session)

    def reader(self, agent: str) -> Reader:
        """Whose reads a read or write of `agent` counts for: the agent's, in the session the environment
        or the caller names (guard/record/reads.py; as ``Call.reader``)."""
        from ..record import reads, sessions

        return reads.Reader(agent, sessions.named(self.budget_session))

    def apply(
        self,
        data: bytes | str,
        *,
        format: str = "auto",
        agent: str | None = None,
        turn: str | None = None,
        check: bool = False,
        path: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        audience: Audience | None = None,
        tool: str | None = None,
        log_pass: bool = True,
        require_read: bool = False,
        verify_deadline: tuple[float, str] | None = None,
        verify_fixes: bool = True,
    ) -> Report:
        """Apply one edit, or refuse it whole (the keywords build the ``Call``, ``pipeline.call.make``).

        Relative paths the agent names are read from `cwd` (default: the current folder)
        when it is inside the work tree, else from the root; `diff --git` names are always
        from the root (``PathBase``; the README's "First apply").  Hints name the tools of
        `audience` (default: the command line, from that folder).  With `require_read` (the
        MCP server's rule) every existing file the edit changes, moves or deletes must be one
        the agent read as it is now.  The policy's ``verify`` commands run on the edit's result
        once it passes the checks (guard/verify/), also with `check`: `verify_deadline` is (a
        ``time.monotonic()`` instant, what messages call it) no command may run past;
        `verify_fixes`, whether a ``fix: true`` command's changes may become the edit's.
        """
        call = calls.make(
            self,
            agent=agent,
            turn=turn,
            cwd=cwd,
            audience=audience,
            check=check,
            require_read=require_read,
            verify=Verify(verify_deadline, verify_fixes),
            budget_session=self.budget_session,
        )
        return self.apply_call(call, data, format=format, path=path, tool=tool, log_pass=log_pass)

    def apply_call(
        self,
        call: Call,
        data: bytes | str,
        *,
        format: str = "auto",
        path: str | None = None,
        tool: str | None = None,
        log_pass: bool = True,
    ) -> Report:
        """Run the pipeline on `data` for `call`; the outcome is logged (guard/report/events.py) with
        the adapter's `tool` when one names it (with `log_pass=False` only a refusal is: the caller
        logs the edit once it lands).  Protected contents in the report are redacted
        (guard/files/redaction.py)."""
        from .apply import apply

        started = time.monotonic()
        # A str may hold a lone surrogate (no character, and no UTF-8): kept as bytes that
        # are not UTF-8, it is refused as `not-utf8` like any other such input.
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        report = apply(call, raw, format, path)
        if report.changes or report.findings:
            from ..files import redaction

            report = redaction.report(report, call.policy)
        if log_pass or report.status == "refused":
            _event(call, report, len(raw), started, tool)
        return report

    def folder(self, cwd: str | os.PathLike[str] | None = None) -> str:
        """The repository-relative folder relative paths start from ("" for the root)."""
        from ..files import paths

        return paths.folder_of(self.root, os.getcwd() if cwd is None else cwd)

    def record(
        self,
        changes: Sequence[FileChange],
        *,
        agent: str | None = None,
        turn: str | None = None,
        dialect: str = "external",
        edit_bytes: int = 0,
        created_dirs: Sequence[str] = (),
    ) -> TurnRef:
        """Record changes another tool already wrote to the work tree as a turn.

        Nothing is written but the ledger: each change's ``before`` must be the file
        as it was before that tool ran (the ledger syncs to it first, so the turn's
        diff is exactly ``before`` -> ``after``).  The ref moves by compare-and-swap.
        `created_dirs`: the folders that tool made for them, which a rollback of the
        turn removes once they are empty.
        """
        call = calls.make(self, agent=agent, turn=turn, budget_session=self.budget_session)
        with worktree.locked(self.repo):
            stage.recover(self.repo)
            check_turn(call)
            staged = stage.record_turn(
                self.repo,
                call.policy.ledger_prefix,
                ledger.NewTurn(call.agent, call.turn, dialect, call.policy.name, edit_bytes, session=call.session),
                changes,
                created_dirs,
                memo=call.memo,
            )
        return TurnRef(call.agent, staged.turn, staged.commit, staged.ref)

    def resolve(self, raw: str, pol: Policy, reading: bool = False) -> tuple[str | None, Finding | None]:
        """An agent's path as a repository-relative one, or the finding that refuses it (``target.resolve``)."""
        from ..files import target

        return target.resolve(self, raw, pol, reading)


def _event(call: Call, report: Report, edit_bytes: int, started: float, tool: str | None) -> None:
    from ..report import events

    # The outcome log must never turn an apply into a failure: `record` swallows its errors.
    took = time.monotonic() - started
    events.record(call.repo.commondir, events.Decision("apply", call.agent, call.turn, edit_bytes, took, tool), report)
