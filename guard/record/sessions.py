"""Budget sessions: the span of an agent's turns that `budget.per_session` counts over.

A turn counts in one session, named in its commit's `Agent-Guard-Session` trailer
with the session's running totals; the next turn of the same session adds to them,
a turn of another session starts from zero.  Which session a turn counts in, first
that applies:

1. ``$AGENT_GUARD_SESSION``, for a user or harness that keeps its own;
2. the one its caller names: the Claude Code hook passes Claude Code's own
   `session_id`, and the MCP server one of its own per server process (an agent's
   conversation is one server's life);
3. the command line's session of the agent in this repository: the one
   ``agent-guard session --end`` last started (kept in
   ``<common git dir>/agent-guard/sessions/<agent>``), else ``default``.

So separate ``git agent-apply`` commands count together, as one agent's work, until
the user (or the harness) ends the session; ``agent-guard session`` shows it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..fs.filekind import read_regular

DEFAULT = "default"
_MAX = 200  # a session name is a trailer value: one line, bounded


def _file(commondir: Path, agent: str) -> str:
    # A plain string: `stored` opens it on every apply, and a Path costs more than the open.
    return os.path.join(commondir, "agent-guard", "sessions", agent)


def clean(name: str) -> str | None:
    """`name` as a session name (one printable line, bounded), or None when it cannot be one."""
    name = name.strip()
    if not name or len(name) > _MAX or not name.isprintable():
        return None
    return name


def stored(commondir: Path, agent: str) -> str:
    """The command line's current session of `agent` (``default`` until one is ended)."""
    try:  # a regular file only: a named pipe put there would hold the open (and every apply) for ever
        got = read_regular(_file(commondir, agent)).decode("utf-8")
    except (OSError, UnicodeDecodeError):  # NotRegular is an OSError: as unreadable as a folder there
        return DEFAULT
    return clean(got) or DEFAULT


def current(commondir: Path, agent: str, given: str | None = None) -> str:
    """The session the agent's next turn counts in (see the module doc for the order)."""
    for said in (os.environ.get("AGENT_GUARD_SESSION"), given):
        if said and (name := clean(said)) is not None:
            return name
    return stored(commondir, agent)


def new_name() -> str:
    """A fresh session name: when it started (UTC) and a few random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + os.urandom(3).hex()


def end(commondir: Path, agent: str) -> str:
    """End the agent's command-line session: its next turn starts a new one, at zero.  The new name."""
    name = new_name()
    path = Path(_file(commondir, agent))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{agent}.{os.getpid()}.tmp")
    try:
        tmp.write_text(name + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return name
