"""Agent hooks: ``agent-guard hook claude-code`` puts Claude Code's own file tools under the guard.

Claude Code runs a command hook with one JSON payload on standard input
(``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``,
``tool_use_id``...).  One command serves both events; ``hook_event_name`` says which:

``PreToolUse`` (Edit, MultiEdit, Write; NotebookEdit is passed through)
    The file and its repository come from ``tool_input.file_path`` (a relative path
    is read from ``cwd``), not from the folder Claude Code started in: the path is
    split where its text would climb (``..``), the repository is looked for in the
    folders before that point, and the rest of the path, as written, goes to the
    resolver ``agent-apply`` uses (``paths.resolve``), which refuses a ``..`` that
    follows a symbolic link.  The edit is worked out exactly as the tool will make
    it (``old_string`` must occur once unless ``replace_all``; MultiEdit's edits
    apply in sequence) and the diff to the resulting file is checked against the
    policy with ``Guard.apply(check=True)``: nothing is written.  When the tool's
    exact match would fail, the edit goes to the engine as written, whose findings
    say why.  A refusal denies: exit 2 with the findings and hints on standard
    error, which Claude Code shows the model.  A pass grants nothing: no permission
    decision (warnings go back as ``additionalContext``), so Claude Code's own
    permission rules and prompts apply (``--on-pass ask`` asks the user every
    time).  Before answering, the file's current content is stashed (its blob in
    the object database, the blob id in
    ``<git common dir>/agent-guard/hooks/claude-code/<tool_use_id>.json``).
    NotebookEdit is only checked for its path (protected, outside); its cells are
    JSON, not lines an agent wrote.

``PostToolUse``
    Claude Code has written the file.  The turn is recorded on the agent's shadow
    ref with the stashed content as *before* and the file on disk as *after*
    (``Guard.record``), so ``git agent-log`` and ``git agent-rollback`` cover it.
    Without a stash (the pre hook was not installed) the tool's ``originalFile`` is
    the *before*, when Claude Code reports one.  The tool call is then logged for
    ``agent-guard stats`` under its own name (a denial was logged by the pre hook),
    so each call counts once, with its real outcome.  A PostToolUse of ``Read`` (only when
    the settings' matcher adds it) records the lines Claude was shown, as
    ``git agent-read`` does, so ``read_before_edit`` policies count Claude's reads.

Claude Code lets a tool call go ahead when a PreToolUse hook exits with anything but
0 or 2, or runs past its ``timeout``; so the pre hook fails closed.  Every failure
(an unreadable payload, a missing field, a broken policy, an internal error, a write
to standard output that fails) exits 2 with the reason on standard error, and the
hook gives itself a deadline (``--deadline``, default ``DEADLINE`` seconds, under the
30 s ``timeout`` of ``hooks/claude-code-settings.json``) after which an alarm ends it
with exit 2, whatever it was doing.  After the write there is nothing left to block:
a failing post hook exits 1 (reported, not blocking).  Files outside every
repository, other tools and other events are not ours: exit 0, no output.

The parts live in ``guard/adapters/claude/``: the payload (``payload``), the answers
(``answer``), a file tool's pre and post hooks (``pre_edit``, ``post_edit``), the record
between them (``stash``), and a command's turn (``command``).
"""

from __future__ import annotations

import os
import signal
import time
from types import FrameType, TracebackType
from typing import Any

from ..errors import UsageError
from .claude.answer import BLOCK, REPORTED, Answer, PayloadError, deny
from .claude.payload import (
    EDIT_TOOLS,
    PASSED,
    READ_TOOL,
    HookCall,
    agent_of,
    locate,
    outside_write,
    payload,
    prompt_turn,
    session_cwd,
    session_of,
    tool_input,
)

# What other code imports from here (the command, the warm server, tests), wherever it is defined.
__all__ = [
    "BLOCK",
    "DEADLINE",
    "EDIT_TOOLS",
    "PASSED",
    "READ_TOOL",
    "REPORTED",
    "Answer",
    "Deadline",
    "PayloadError",
    "claude_code",
]

DEADLINE = 20.0  # seconds: the settings snippet gives the hook 30, and Python's start-up comes out of them


class Deadline:
    """An alarm that ends the process with exit 2 and a reason once the pre hook runs out of time.

    Claude Code lets the tool call go ahead when a hook outlives its ``timeout``, so the
    hook must end first, denying.  The handler exits at once (``os._exit``): whatever the
    hook was doing (waiting for the repository lock, reading a payload that never ends)
    is abandoned; locks are flocks the kernel drops, and a pre hook writes nothing that a
    cut leaves half done.  A post hook's write already happened: it ``cancel``s the alarm
    and lets Claude Code's own timeout bound it.
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
        except ValueError:  # not the main thread (an embedding caller): Claude Code's timeout bounds it
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


def claude_code(
    raw: bytes, agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: Deadline | None = None
) -> Answer:
    """Answer one Claude Code hook call (the payload's bytes); never raises."""
    failing = BLOCK
    try:
        data = payload(raw)
        event = data["hook_event_name"]
        if event not in ("PreToolUse", "PostToolUse"):
            return Answer(0)
        if event == "PostToolUse":
            failing = REPORTED  # a post hook cannot undo the write: never block
            if deadline is not None:
                deadline.after_write()
        tool = data.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise PayloadError(f'the {event} payload has no "tool_name" string')
        call = HookCall(data, event, tool, agent, turn, policy, on_pass, deadline.verify_by() if deadline is not None else None)
        if tool == READ_TOOL:
            return _file_tool(call) if event == "PostToolUse" else Answer(0)
        if tool not in EDIT_TOOLS + PASSED:
            from .claude.command import command

            return command(call)
        return _file_tool(call)
    except Exception as exc:  # fail closed before the write, report after it
        if isinstance(exc, (PayloadError, UsageError)):
            why = str(exc)
        else:
            if os.environ.get("AGENT_GUARD_DEBUG"):
                import traceback

                traceback.print_exc()
            why = f"internal error ({type(exc).__name__}: {exc})"
        what = "the edit was blocked" if failing == BLOCK else "the write was not recorded"
        return Answer(failing, stderr=f"agent-guard hook: {why}; {what}\n")


def _file_tool(call: HookCall) -> Answer:
    """Edit, MultiEdit, Write, NotebookEdit (and Read, after it): the hook of the repository that
    holds the file the tool names, or nothing of ours outside every repository."""
    ti, target = tool_input(call.data, call.tool)
    cwd = session_cwd(call)
    found = locate(target, cwd, call.policy)
    if found is None:
        if call.event == "PreToolUse" and call.tool != READ_TOOL:
            held = outside_write(target, cwd)
            if held is not None:
                return deny([held])
        return Answer(0)  # outside every repository: Claude Code's own permissions decide
    g, rel = found
    agent = agent_of(call)
    turn = prompt_turn(g, call, agent)
    session = session_of(call)
    if session is not None:
        g.budget_session = session  # per-session budgets, turns and reads follow Claude Code's session
    if call.event == "PreToolUse":
        from .claude.pre_edit import pre

        return pre(g, call, rel, ti, agent, turn)
    from .claude.post_edit import note_read, post

    if call.tool == READ_TOOL:
        return note_read(g, rel, ti, agent)
    return post(g, call, rel, agent, turn)
