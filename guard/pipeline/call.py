"""One call into agent-guard: the repository, the policy read for it, who asks and how.

Every edge (the command line, the hooks, the MCP server, the Python API, the warm server)
builds one ``Call`` for each request and hands it down the pipeline; nothing of it outlives
the request.  The policy in it was read for this call (``Workspace.policy``), so a change to
any file it comes from is seen by the next call, whoever keeps the ``Guard``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..record import ledger
from ..report.audience import Audience

if TYPE_CHECKING:
    from pathlib import Path

    from ..files.workspace import Workspace
    from ..policy import Policy
    from ..record.reads import Reader
    from ..repo import GitRepo


@dataclass(frozen=True, slots=True)
class Verify:
    """How the policy's verify commands may run for this call (guard/verify/)."""

    # A ``time.monotonic()`` instant no command may run past, and what messages call it (a hook's
    # deadline); None: the commands' own timeouts alone.
    deadline: tuple[float, str] | None = None
    # Whether a ``fix: true`` command's changes may become the edit's (a hook cannot rewrite the
    # tool's edit: False).
    fixes: bool = True


@dataclass(frozen=True, slots=True)
class Call:
    """What one request asks of one repository; the pipeline reads it and never changes it."""

    ws: Workspace
    policy: Policy
    agent: str
    turn: str | None  # None: a new turn
    session: str  # the budget session the turn counts in (``sessions.current``)
    folder: str  # where relative paths start, repository-relative ("" for the top)
    audience: Audience  # whose tools the hints name
    check: bool = False  # judge only: nothing is written or recorded
    require_read: bool = False  # every file changed must be one the agent read as it is now
    verify: Verify = Verify()
    # The agent's ledger as this call has read it (``ledger.Memo``): commits parsed once per call.
    memo: ledger.Memo = field(default_factory=ledger.Memo)
    # `session` when the environment or the caller names it (``sessions.named``), else None: what
    # the agent read is kept per named session (guard/record/reads.py).
    named_session: str | None = None

    @property
    def reader(self) -> Reader:
        """Whose reads count for this call: the agent's, in its named session."""
        from ..record.reads import Reader

        return Reader(self.agent, self.named_session)

    @property
    def repo(self) -> GitRepo:
        return self.ws.repo

    @property
    def root(self) -> Path:
        return self.ws.root

    @property
    def ledger_ref(self) -> str:
        return ledger.ref_for(self.repo, self.policy.ledger_prefix, self.agent)


def make(
    ws: Workspace,
    *,
    agent: str | None = None,
    turn: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    audience: Audience | None = None,
    check: bool = False,
    require_read: bool = False,
    verify: Verify = Verify(),
    budget_session: str | None = None,
) -> Call:
    """The call an edge makes of its request: the agent and turn as given or from the environment
    (``default_agent``, ``default_turn``), the policy read now, the folder relative paths start from."""
    from ..files import paths
    from ..record import sessions

    name = default_agent(agent)
    here = paths.folder_of(ws.root, os.getcwd() if cwd is None else cwd)
    named = sessions.named(budget_session)
    return Call(
        ws=ws,
        policy=ws.policy(name),
        agent=name,
        turn=default_turn(turn),
        session=named or sessions.stored(ws.repo.gitdir, name),
        folder=here,
        audience=audience or Audience("cli", here),
        check=check,
        require_read=require_read,
        verify=verify,
        named_session=named,
    )


def default_agent(agent: str | None) -> str:
    """`agent`, else $AGENT_GUARD_AGENT, else "agent"; a usage error when it is no valid name."""
    name = agent or os.environ.get("AGENT_GUARD_AGENT") or "agent"
    problem = ledger.agent_problem(name)
    if problem is not None:
        raise UsageError(f"invalid agent name {name!r}: {problem}; {ledger.AGENT_RULE}")
    return name


def default_turn(turn: str | None) -> str | None:
    """`turn`, else $AGENT_GUARD_TURN, else None (a new turn); a usage error when it is no valid id."""
    tid = turn or os.environ.get("AGENT_GUARD_TURN") or None
    problem = ledger.turn_id_problem(tid) if tid is not None else None
    if problem is not None:
        raise UsageError(problem + ("" if turn else " ($AGENT_GUARD_TURN)"))
    return tid
