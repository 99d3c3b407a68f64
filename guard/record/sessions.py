"""Budget sessions: the span of an agent's turns that `budget.per_session` counts over.

A turn counts in one session, named in its commit's `Agent-Guard-Session` trailer
with the session's running totals; the next turn of the same session adds to them,
a turn of another session starts from zero.  Which session a turn counts in, first
that applies:

1. ``$AGENT_GUARD_SESSION``, for a user or harness that keeps its own;
2. the one its caller names: the Claude Code hook passes Claude Code's own
   `session_id`, and the MCP server one of its own per server process (an agent's
   conversation is one server's life);
3. the command line's session of the agent in this work tree: the one
   ``agent-guard session --end`` last started (kept in
   ``<git dir>/agent-guard/sessions/<agent>``, the work tree's own git dir, as its ledger
   is its own: guard/record/ledger.py ``ref_for``), else ``default``.

So separate ``git agent-apply`` commands count together, as one agent's work, until
the user (or the harness) ends the session; ``agent-guard session`` shows it.

The first two *name* a session (``named``): what an agent read is kept per named session
(guard/record/reads.py), so that one session's read or write is never another's.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..fs.filekind import read_regular, write_new

DEFAULT = "default"
_MAX = 200  # a session name is a trailer value: one line, bounded


def _file(gitdir: Path, agent: str) -> str:
    # A plain string: `stored` opens it on every apply, and a Path costs more than the open.
    return os.path.join(gitdir, "agent-guard", "sessions", agent)


def clean(name: str) -> str | None:
    """`name` as a session name (one printable line, bounded), or None when it cannot be one."""
    name = name.strip()
    if not name or len(name) > _MAX or not name.isprintable():
        return None
    return name


def stored(gitdir: Path, agent: str) -> str:
    """The command line's current session of `agent` in the work tree of `gitdir` (``default``
    until one is ended)."""
    try:  # a regular file only: a named pipe put there would hold the open (and every apply) for ever
        got = read_regular(_file(gitdir, agent)).decode("utf-8")
    except (OSError, UnicodeDecodeError):  # NotRegular is an OSError: as unreadable as a folder there
        return DEFAULT
    return clean(got) or DEFAULT


def named(given: str | None = None) -> str | None:
    """The session the environment or the caller names (1 and 2 of the module doc), or None."""
    for said in (os.environ.get("AGENT_GUARD_SESSION"), given):
        if said and (name := clean(said)) is not None:
            return name
    return None


def current(gitdir: Path, agent: str, given: str | None = None) -> str:
    """The session the agent's next turn counts in (see the module doc for the order); `gitdir`:
    the work tree's git dir."""
    return named(given) or stored(gitdir, agent)


def new_name() -> str:
    """A fresh session name: when it started (UTC) and a few random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + os.urandom(3).hex()


def end(gitdir: Path, agent: str) -> str:
    """End the agent's command-line session in the work tree of `gitdir`: its next turn starts a new
    one, at zero.  The new name."""
    name = new_name()
    path = Path(_file(gitdir, agent))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{agent}.{os.getpid()}.tmp")
    try:
        write_new(tmp, (name + "\n").encode("utf-8"))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return name
