"""One hook call answered, whichever agent made it: the payload read, the tool routed, every failure
turned into the answer the agent obeys.

The translator (``guard/adapters/claude_code.py``, ``codex.py``, ``gemini.py``...) gives its
``Form`` and its ``Route``, the function that sends a call to the part of the core that handles
its tool (a file tool, a command, a patch) or answers it as none of ours; an agent whose payload
is not Claude Code's shape gives a ``Read`` too, which reads it into that shape (``copilot.py``,
``cursor.py``).  Everything else is the same for every agent: the events are PreToolUse and
PostToolUse (an agent that calls them otherwise gives its names, ``events``: Gemini CLI's
BeforeTool and AfterTool); before the write, every failure (an unreadable payload, a missing
field, a broken policy, an internal error) blocks the tool (``Form.blocked``); after it there is
nothing left to block, and a failure is reported (``Form.report``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ...errors import UsageError
from .answer import BLOCK, REPORTED, Answer, Form, PayloadError
from .payload import HookCall, payload

if TYPE_CHECKING:
    from .deadline import Deadline

Route = Callable[[HookCall], Answer]
EVENTS = {"PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse"}  # the agent's name -> the core's
# The payload's bytes read into Claude Code's names (``hook_event_name`` PreToolUse or PostToolUse,
# ``tool_name``, ``tool_input``, ``tool_use_id``...); ``PayloadError`` for bytes it cannot read.
Read = Callable[[bytes], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Options:
    """The hook command's options, as given (None when not)."""

    agent: str | None = None
    turn: str | None = None
    policy: str | None = None
    on_pass: str = "defer"


def answer(
    raw: bytes,
    form: Form,
    route: Route,
    options: Options,
    deadline: Deadline | None = None,
    events: Mapping[str, str] = EVENTS,
    read: Read = payload,
) -> Answer:
    """Answer one hook call (the payload's bytes, as `read` reads them) in `form`; never raises.
    `events` maps the agent's names of its two tool events to PreToolUse and PostToolUse; any other
    event is not ours."""
    failing = BLOCK
    try:
        data = read(raw)
        event = events.get(data["hook_event_name"])
        if event is None:
            return Answer(0)
        if event == "PostToolUse":
            failing = REPORTED  # a post hook cannot undo the write: never block
            if deadline is not None:
                deadline.after_write()
        tool = data.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise PayloadError(f'the {event} payload has no "tool_name" string')
        verify_by = deadline.verify_by() if deadline is not None else None
        call = HookCall(data, event, tool, options.agent, options.turn, options.policy, options.on_pass, form, verify_by)
        return route(call)
    except Exception as exc:  # fail closed before the write, report after it
        if isinstance(exc, (PayloadError, UsageError)):
            why = str(exc)
        else:
            if os.environ.get("AGENT_GUARD_DEBUG"):
                import traceback

                traceback.print_exc()
            why = f"internal error ({type(exc).__name__}: {exc})"
        if failing == BLOCK:
            return form.blocked(f"agent-guard hook: {why}; the edit was blocked")
        return form.report(f"agent-guard hook: {why}; the write was not recorded")
