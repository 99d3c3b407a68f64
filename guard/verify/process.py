"""Running one verify command: in its own process group, bounded in time, its output's tail kept.

A command runs with standard input closed and its output (standard output and error, together)
read as it comes; only the last ``KEEP`` bytes are kept, so a test suite that prints megabytes
costs no memory.  It runs in a session of its own, so that its children can be found: past its
timeout the whole group is sent SIGTERM, then SIGKILL two seconds later; once the command itself
has ended, whatever it left running in the group is killed too (it would otherwise go on writing
in the checkout during the next command).  An interrupt (Ctrl-C) stops the group before it goes on.

What is shown of the output (``tail``): colour and cursor escapes taken out, a line a carriage
return redrew shown as it ended, every other control character escaped (``wording.printable``),
the last ``LINES`` lines and at most ``BYTES`` bytes.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ..text.wording import printable

KEEP = 64 * 1024  # bytes of output kept while a command runs
LINES = 40  # lines of output a finding shows
BYTES = 4096  # and bytes at most
GRACE = 2.0  # seconds between SIGTERM and SIGKILL


@dataclass(frozen=True, slots=True)
class Ran:
    """How a command ended: `how` is "exited", "timeout" (stopped at its limit) or "unstartable";
    `code` its exit status (minus the signal's number when a signal ended it; None when it did not
    exit on its own); the seconds it took; the tail of its output."""

    how: str
    code: int | None
    seconds: float
    output: bytes


def execute(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], timeout: float, started: Callable[[int], None] = lambda _pgid: None
) -> Ran:
    """Run `argv` in `cwd` with `env` for at most `timeout` seconds (see the module doc); `started` is
    told the process group's id as soon as there is one."""
    begun = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return Ran("unstartable", None, 0.0, f"cannot start {argv[0]}: {exc.strerror}".encode())
    pgid = proc.pid  # the leader of its own session and group
    out = bytearray()
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    how = "exited"
    try:
        started(pgid)
        end = begun + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                how = "timeout"
                _stop(pgid, proc)
                break
            ready, _, _ = select.select([fd], [], [], min(left, 0.2))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break  # every process of the group closed the output
                out += chunk
                if len(out) > 2 * KEEP:
                    del out[:-KEEP]
            elif proc.poll() is not None:
                break  # the command ended; something it started still holds the output open
        if how == "exited":
            try:
                proc.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                how = "timeout"
                _stop(pgid, proc)
    except BaseException:
        _stop(pgid, proc)
        raise
    finally:
        _kill(pgid, signal.SIGKILL)  # whatever the command left running
        out += _drain(fd)
        proc.stdout.close()
        if proc.returncode is None:
            proc.wait()
    return Ran(how, proc.returncode if how == "exited" else None, time.monotonic() - begun, bytes(out[-KEEP:]))


def _stop(pgid: int, proc: subprocess.Popen[bytes]) -> None:
    _kill(pgid, signal.SIGTERM)
    try:
        proc.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        pass
    _kill(pgid, signal.SIGKILL)


def _kill(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(fd: int) -> bytes:
    """What is left in the pipe, without waiting for more."""
    got = bytearray()
    try:
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            got += chunk
            if len(got) > KEEP:
                del got[:-KEEP]
    except (OSError, ValueError):
        pass
    return bytes(got)


_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")


def without_escapes(output: bytes) -> bytes:
    """`output` with colour and cursor escapes taken out (bytes that are not UTF-8 kept as they are):
    nothing spelled across an escape stays hidden from a search of the text."""
    return _ESCAPES.sub("", output.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def tail(output: bytes, lines: int = LINES, limit: int = BYTES) -> list[str]:
    """The last lines of `output` as they read on a terminal, made safe to print (see the module doc)."""
    text = _ESCAPES.sub("", output.decode("utf-8", "replace"))
    shown: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if "\r" in line:
            # A progress line redrawn in place: what the terminal shows is what came after the last CR.
            kept = [part for part in line.split("\r") if part.strip()]
            line = kept[-1] if kept else ""
        shown.append(printable(line.rstrip()))
    while shown and not shown[-1]:
        shown.pop()
    shown = shown[-lines:]
    while len(shown) > 1 and sum(len(s.encode()) + 1 for s in shown) > limit:
        shown.pop(0)
    if shown and len(shown[0].encode()) > limit:
        shown[0] = "..." + shown[0].encode()[-limit:].decode("utf-8", "ignore")
    return shown
