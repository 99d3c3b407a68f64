"""What git would do with a command's output on a terminal: colour it, page it.

Asked of git itself, so that every setting git honours counts as it does for `git log`:
``color.ui`` (and ``color.agent-guard``) in any scope, ``git -c``, ``TERM=dumb``;
``GIT_PAGER``, ``core.pager``, ``PAGER``, and ``git --no-pager`` (which git passes to the
commands it runs as ``GIT_PAGER=cat``).  Only asked when the output is a terminal: a
command whose output goes to a pipe (a harness, a hook) never starts git for this.
"""

from __future__ import annotations

import subprocess

_TIMEOUT = 10  # seconds: git answers from its configuration files


def _git(*args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", *args], capture_output=True, timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def colour(name: str, terminal: bool) -> bool:
    """Does git's configuration colour output named `name` (falling back on ``color.ui``), for
    output that is (or is not) a `terminal`?  (``git config --get-colorbool``.)"""
    done = _git("config", "--get-colorbool", name, "true" if terminal else "false")
    return done is not None and done.returncode == 0 and done.stdout.strip() == b"true"


def pager() -> str | None:
    """The pager git would start (``git var GIT_PAGER``); None for none (``cat``, or git cannot say)."""
    done = _git("var", "GIT_PAGER")
    if done is None or done.returncode != 0:
        return None
    command = done.stdout.decode("utf-8", "replace").strip()
    return None if command in ("", "cat") else command
