"""What can go wrong at the git seam: pygit2's errors, translated where they are met."""

from __future__ import annotations

from pathlib import Path


class GitError(Exception):
    """A git operation failed (internal error unless caught)."""


class NotARepository(GitError):
    """No (non-bare) git repository here: a usage error."""


class RefMoved(GitError):
    """A compare-and-swap ref update found another value than expected."""


class RefLocked(GitError):
    """A ref's lock file (`<ref>.lock`) is there: another process updates it, or one died doing so."""

    def __init__(self, name: str, lock: Path) -> None:
        super().__init__(f"{name} is locked: {lock} exists")
        self.name, self.lock = name, lock
