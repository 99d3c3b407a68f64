"""The terminal at the program's edge: whether to colour, a pager for long output, progress.

Decided here, once per command, and handed to what renders (``render``'s `colour`
arguments): no module below asks the environment.  Colour and the pager follow git's own
settings (``repo.output``) and only ever on a terminal; ``NO_COLOR`` (any value but
empty) turns colour off whatever git says.  Progress goes to standard error, on a
terminal, for work that takes more than a second.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a stream swapped for one without a descriptor, or closed
        return False


def colour(stream: TextIO) -> bool:
    """Colour what goes to `stream`?  Only on a terminal, never under ``NO_COLOR``, else as git's
    ``color.agent-guard`` / ``color.ui`` say (auto: yes)."""
    if os.environ.get("NO_COLOR") or not _is_terminal(stream):
        return False
    from ..repo.output import colour as git_colour

    return git_colour("color.agent-guard", True)


def page(text: str) -> None:
    """Write `text` to standard output through git's pager when that is a terminal, as `git log` does."""
    if not _is_terminal(sys.stdout):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ..repo.output import pager

    command = pager()
    if command is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    import subprocess

    sys.stdout.flush()
    # git's defaults for less and lv: quit on a screen's worth, keep colours, no init.
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", "surrogateescape"))
        proc.stdin.close()
    except BrokenPipeError:  # the reader quit the pager before the end: not an error
        pass
    while True:
        try:
            proc.wait()
            break
        except KeyboardInterrupt:  # Ctrl-C belongs to the pager (less stays open), as under git
            continue


class Progress:
    """``agent-guard check: reading files: 40% (2/5)`` on standard error while long work goes on: on a
    terminal only, not when `quiet`, and only once the work has taken `delay` seconds (quick work
    says nothing), as git's progress does.  Call it with (done, total), or (done, total, step) for
    work in steps, each on its own line; ``end`` finishes the last line."""

    def __init__(self, what: str, quiet: bool = False, stream: TextIO | None = None, delay: float = 1.0) -> None:
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.on = not quiet and _is_terminal(self.stream)
        self.start = time.monotonic()
        self.delay = delay
        self.last = 0.0
        self.shown = False
        self.state = (0, 0, "")

    def __call__(self, done: int, total: int, step: str = "") -> None:
        if not self.on:
            return
        if step != self.state[2]:
            self.end()
        self.state = (done, total, step)
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        self._write("")

    def _write(self, end: str) -> None:
        done, total, step = self.state
        share = f"{100 * done // total}% " if total else ""
        label = f"{self.what}: {step}" if step else self.what
        self.stream.write(f"\r{label}: {share}({done:,}/{total:,}){end}")
        self.stream.flush()
        self.shown = True

    def end(self) -> None:
        if self.shown:
            self._write(", done.\n")
            self.shown = False
