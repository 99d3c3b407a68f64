"""The pre hook's deadline: an alarm that denies before the agent's own timeout lets the tool run."""

from __future__ import annotations

import os
import signal
import time
from types import FrameType, TracebackType
from typing import Any

from .answer import BLOCK, REPORTED

DEADLINE = 20.0  # seconds: the settings `install` writes give the hook 30, and Python's start-up comes out of them


class Deadline:
    """An alarm that ends the process with exit 2 and a reason once the pre hook runs out of time.

    Claude Code and Codex let the tool call go ahead when a hook outlives its ``timeout``, so
    the hook must end first, denying.  The handler exits at once (``os._exit``): whatever the
    hook was doing (waiting for the repository lock, reading a payload that never ends)
    is abandoned; locks are flocks the kernel drops, and a pre hook writes nothing that a
    cut leaves half done.  A post hook's write already happened: it ``cancel``s the alarm
    and lets the agent's own timeout bound it.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.failing = BLOCK  # the exit status of a failure from here on
        self.ends = time.monotonic() + seconds  # set again when the alarm is armed
        self._old: Any = None
        self._armed = False

    def verify_by(self) -> tuple[float, str]:
        """The instant the policy's verify commands must be done by, and how their messages name it:
        the deadline, less a second (at most a tenth of it) to answer."""
        return self.ends - min(1.0, self.seconds / 10), f"the hook's deadline ({self.seconds:g} s, --deadline)"

    def _expire(self, signum: int, frame: FrameType | None) -> None:
        os.write(
            2,
            (f"agent-guard hook: no answer within the {self.seconds:g} s deadline (--deadline); the edit was blocked\n").encode(),
        )
        os._exit(BLOCK)

    def __enter__(self) -> Deadline:
        self.ends = time.monotonic() + self.seconds
        try:
            self._old = signal.signal(signal.SIGALRM, self._expire)
        except ValueError:  # not the main thread (an embedding caller): the agent's timeout bounds it
            return self
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def cancel(self) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def after_write(self) -> None:
        """The payload is a post hook's: nothing left to block."""
        self.failing = REPORTED
        self.cancel()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
            self._armed = False
