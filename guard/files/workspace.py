"""A repository opened for agent-guard: its root, its policy, and a crashed write rolled back.

What every command needs before it does anything, and nothing more: `agent-guard
check` runs in every commit's hook and must not pay for the apply machinery
(guard.pipeline.engine's Guard builds on this).
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..errors import UsageError
from ..repo import GitRepo, NotARepository
from ..tree import worktree

if TYPE_CHECKING:
    from ..policy import Policy
    from ..record.ledger import Memo


class Workspace:
    """A repository opened for one call: its handle and root, and the policy as its files say now.

    Nothing is kept here for a later call: the policy is read again each time it is asked for
    (``policy``), and the paths git's configuration names are worked out again each time
    (``control_paths``).  What one call computes once, it carries in its ``Call``."""

    def __init__(self, start: str | os.PathLike[str] = ".", policy: str | None = None, bare_ok: bool = False) -> None:
        try:
            self.repo = GitRepo(start, bare_ok)
        except NotARepository as exc:
            raise UsageError(str(exc)) from None
        self.root: Path = self.repo.root
        self.policy_spec = policy if policy is not None else os.environ.get("AGENT_GUARD_POLICY")

    def recover(self) -> bool:
        """Roll back a write interrupted by a crash (under the repository's lock).

        Making a workspace reads only; every command calls this first (the CLI's edges, the
        adapters, ``guard.session``), and every write does again under its lock."""
        if not worktree.pending(self.repo):
            return False
        from ..record import stage

        with worktree.locked(self.repo):
            return stage.recover(self.repo)

    @cached_property
    def ledger_memo(self) -> Memo:
        """The agents' ledgers as this workspace has read them (``ledger.Memo``): commits, which
        never change, parsed once; each ref's turn-id index as of the tip it last saw."""
        from ..record.ledger import Memo

        return Memo()

    def control_paths(self) -> Mapping[str, str]:
        """The paths inside the tree that git's configuration names now (``control.named_paths``)."""
        from .control import named_paths

        return named_paths(self.repo.config_entries(), self.root)

    def policy(self, agent: str | None = None) -> Policy:
        """The policy for `agent`, read now: the repository's .agent-guard.yaml or pyproject.toml,
        and every file its `extends:` chain (or `--policy`) names, inside the tree or not."""
        from .. import policy as policy_mod

        try:
            return policy_mod.load(self.root, self.policy_spec, agent, ignorecase=self.repo.ignores_case())
        except policy_mod.PolicyError as exc:
            raise UsageError(f"policy: {exc}") from None
