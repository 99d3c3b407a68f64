"""Python's cycle collector, paused while one command or one server call runs: the one place
agent-guard turns it off.

Why: a command builds many objects and frees few until it ends (a check keeps a tuple per
added line, an apply the modules it imports).  The collector, running as they pile up,
walks them again and again and finds next to no cycle: ~3 ms of a ~90 ms apply, tens of
milliseconds on a large check.  Nothing of agent-guard relies on a cycle being freed
during a command.

How it is bounded: ``Paused`` turns it off for the span of a ``with`` block and back on at
its end, as it found it (a caller that had turned it off keeps it off), collecting then
what the block left when asked (`collect`).  The one exception is ``Paused(process_ends=True)``:
the command line's program (``cli.program``) ends the process right after the command, so
turning the collector back on would only walk, one last time, everything the command
still holds.  A long-running process (the hook server, the MCP server, a caller of the
Python API) never passes it: ``guard/warm/server.py`` pauses it per call and collects
between calls (tests/test_collector.py holds it to that).
"""

from __future__ import annotations

import gc


class Paused:
    """The collector off inside ``with Paused(...)``, back as it was after it (see the module doc)."""

    __slots__ = ("process_ends", "collect", "_was_on")

    def __init__(self, *, process_ends: bool = False, collect: bool = False) -> None:
        self.process_ends, self.collect, self._was_on = process_ends, collect, False

    def __enter__(self) -> Paused:
        self._was_on = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._was_on and not self.process_ends:
            gc.enable()
            if self.collect:
                gc.collect()
