"""A repository opened for agent-guard: its root, its policy, and a crashed write rolled back.

What every command needs before it does anything, and nothing more: `agent-guard
check` runs in every commit's hook and must not pay for the apply machinery
(guard.engine's Guard builds on this).
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from . import worktree
from .errors import UsageError
from .repo import GitRepo, NotARepository

if TYPE_CHECKING:
    from .policy import Policy, PolicyCache
    from .record.ledger import Memo
    from .repo.config import ConfigEntry


class Workspace:
    def __init__(
        self,
        start: str | os.PathLike[str] = ".",
        policy: str | None = None,
        bare_ok: bool = False,
        policy_cache: PolicyCache | None = None,
    ) -> None:
        """`policy_cache`: where parsed policies are kept between processes (None: the user's cache folder)."""
        try:
            self.repo = GitRepo(start, bare_ok)
        except NotARepository as exc:
            raise UsageError(str(exc)) from None
        self.root: Path = self.repo.root
        self.policy_spec = policy if policy is not None else os.environ.get("AGENT_GUARD_POLICY")
        self.policy_cache = policy_cache
        # By agent: the contents of the files the policy was read from, those files, the policy (``policy``).
        self._policies: dict[str, tuple[tuple[bytes | None, ...], tuple[Path, ...], Policy]] = {}
        self._control_paths: Mapping[str, str] | None = None
        self._control_source: tuple[list[ConfigEntry], Mapping[str, str]] | None = None  # entries -> their paths

    def recover(self) -> bool:
        """Roll back a write interrupted by a crash (under the repository's lock).

        Making a workspace reads only; every command calls this first (the CLI's edges, the
        adapters, ``guard.session``), and every write does again under its lock."""
        if not worktree.pending(self.repo):
            return False
        from .record import stage

        with worktree.locked(self.repo):
            return stage.recover(self.repo)

    @cached_property
    def ledger_memo(self) -> Memo:
        """What this workspace keeps of the agents' ledgers between calls (``ledger.Memo``)."""
        from .record.ledger import Memo

        return Memo()

    def control_paths(self) -> Mapping[str, str]:
        """The paths inside the tree that git's configuration names (``control.named_paths``),
        read once per command: ``forget_control_paths`` starts the next one afresh."""
        if self._control_paths is None:
            from .files.control import named_paths

            entries = self.repo.config_entries()
            if self._control_source is None or self._control_source[0] is not entries:
                self._control_source = (entries, named_paths(entries, self.root))
            self._control_paths = self._control_source[1]
        return self._control_paths

    def forget_control_paths(self) -> None:
        self._control_paths = None

    def policy(self, agent: str | None = None) -> Policy:
        """The policy for `agent`, loaded again when any file it was read from changed: the
        repository's .agent-guard.yaml or pyproject.toml (either may appear), and every file its
        `extends:` chain (or `--policy`) names, inside the tree or not.  Their contents are the
        stamp, read again per call (a few small files): a change within one tick of the clock, or
        one that keeps the size, is seen as surely as any other.  A file that changed while the
        policy was being read leaves nothing kept: the next call reads it all again."""
        from . import policy as policy_mod

        key = agent or ""
        hit = self._policies.get(key)
        known = hit[1] if hit is not None else (self.root / ".agent-guard.yaml", self.root / "pyproject.toml")
        before = _contents(known)
        if hit is not None and hit[0] == before:
            return hit[2]
        files = [self.root / ".agent-guard.yaml", self.root / "pyproject.toml"]
        try:
            pol = policy_mod.load(self.root, self.policy_spec, agent, self.policy_cache, self.repo.ignores_case(), files)
        except policy_mod.PolicyError as exc:
            raise UsageError(f"policy: {exc}") from None
        read = tuple(dict.fromkeys(files))
        after = _contents(read)
        then = dict(zip(known, before))
        if all(then.get(f, text) == text for f, text in zip(read, after)):
            self._policies[key] = (after, read, pol)
        else:
            self._policies.pop(key, None)
        return pol


def _contents(files: Sequence[Path]) -> tuple[bytes | None, ...]:
    """Each file's bytes (None: absent, or not a regular file one can read without waiting)."""
    from .files.filekind import NotRegular, read_regular

    out: list[bytes | None] = []
    for f in files:
        try:
            out.append(read_regular(f))
        except (OSError, NotRegular):
            out.append(None)
    return tuple(out)
