"""git push and git fetch, run as git itself: the remote's transport, credentials and hooks are git's.

libgit2 can push and fetch, but not with everything a user's git is set up with (ssh
configuration, credential helpers, `insteadOf` rewrites, protocol v2): the command
runs git, and reads its `--porcelain` lines (push) to say what moved.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .errors import GitError


@dataclass(frozen=True, slots=True)
class Transfer:
    """What a `git push` or `git fetch` did: its exit status, and what it printed."""

    status: int
    out: str  # standard output: `push --porcelain` lists each ref there
    err: str  # standard error: git's messages (and the remote's, as `remote:` lines)


@dataclass(frozen=True, slots=True)
class PushedRef:
    """One line of `git push --porcelain`: a local ref, where it went, and how."""

    flag: str  # " " fast-forward, "+" forced, "-" deleted, "*" new, "!" rejected, "=" up to date
    source: str
    destination: str
    summary: str

    @property
    def landed(self) -> bool:
        """Does the remote's ref now hold what the local one held (pushed, or already there)?"""
        return self.flag in " +*="


def run(root: Path, args: Sequence[str], timeout: float | None = None) -> Transfer:
    """Run `git ARGS` in `root` (standard input closed: a password prompt goes to the terminal, as git's does)."""
    try:
        proc = subprocess.run(
            ["git", *args], cwd=root, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        raise GitError("git is not on PATH: pushing and fetching turns runs git") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {' '.join(args[:2])} did not finish in {timeout:g} s") from None
    return Transfer(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def pushed_refs(porcelain: str) -> list[PushedRef]:
    """The ref lines of `git push --porcelain` output (``<flag> TAB <from>:<to> TAB <summary>``)."""
    out = []
    for line in porcelain.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and len(parts[0]) == 1 and ":" in parts[1]:
            source, _, destination = parts[1].partition(":")
            out.append(PushedRef(parts[0], source, destination, parts[2]))
    return out
