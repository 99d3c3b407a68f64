"""The `git agent-rollback` commands agent-guard prints as hints, built so each works as printed.

A hint is run by someone else, later, in another shell: a person at their terminal, or the
model through its own shell tool, where $AGENT_GUARD_AGENT is whatever that shell has, not what
the process that printed the hint had.  So the agent is named (``--agent NAME``) unless it is
"agent", the one the command picks when nothing names another, and the printing process was not
told otherwise either.  A bare `git agent-rollback` once followed every flagged shell turn of
aider or claude, and exited 2: "agent has no recorded turns".
"""

from __future__ import annotations

import os
import shlex

BUILTIN_AGENT = "agent"  # the agent `rollback` picks with no --agent and no $AGENT_GUARD_AGENT


def undo_command(agent: str | None, *options: str) -> str:
    """`git agent-rollback [--agent AGENT] OPTIONS...`, each word quoted for a POSIX shell.

    `agent`: None when the options name the turn on their own (``--commit``)."""
    words = ["git", "agent-rollback"]
    if agent is not None and (agent != BUILTIN_AGENT or os.environ.get("AGENT_GUARD_AGENT", agent) != agent):
        words += ["--agent", agent]
    return " ".join(shlex.quote(w) for w in [*words, *options])
