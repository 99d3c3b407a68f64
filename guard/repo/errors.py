"""What can go wrong at the git seam: pygit2's errors, translated where they are met."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError


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


class UnreadableAttributes(GitError, UsageError):
    """A file git reads attributes from is a named pipe, a socket or a device: a usage error.

    git and libgit2 open such a file as they find it, and a pipe holds that open until
    something writes to it; the user must remove it (it is no edit's to fix).
    """
