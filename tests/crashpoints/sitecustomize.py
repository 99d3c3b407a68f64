"""Crash points for tests: kill a child agent-guard at a named point of its write, like kill -9.

Not part of the installed package.  A test that wants a child to die at point P starts it
with ``AGENT_GUARD_CRASH_AT=P`` and this folder first on PYTHONPATH (``conftest.checkout_env``
does both; ``bench/crash_trials.py`` too): Python imports this file at start-up, and it
installs the hook that ``guard.tree.worktree`` calls at each of its points.  Without this file on
the path the variable does nothing.
"""

import os

_AT = os.environ.get("AGENT_GUARD_CRASH_AT")

if _AT:
    import signal

    import guard.tree.worktree

    def _crash(label: str) -> None:
        if label == _AT:
            os.kill(os.getpid(), signal.SIGKILL)

    guard.tree.worktree.crash_hook = _crash
