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

This module is Claude Code's translator: its tools routed (``route``) and its answer forms
(``FORM``).  The rest is the core every agent's hook shares, in ``guard/adapters/hook/``: the
call answered (``entry``), the payload (``payload``), the answers (``answer``), a file tool's
pre and post hooks (``file_tool``, ``pre_edit``, ``post_edit``), the record between them
(``stash``), and a command's turn (``command``).
"""

from __future__ import annotations

import re
from typing import Any

from .hook.answer import BLOCK, REPORTED, Answer, PayloadError, output
from .hook.deadline import DEADLINE, Deadline
from .hook.entry import Options, answer
from .hook.payload import EDIT_TOOLS, PASSED, READ_TOOL, HookCall

# What other code imports from here (the command, the warm server, tests), wherever it is defined.
__all__ = [
    "BLOCK",
    "DEADLINE",
    "EDIT_TOOLS",
    "FORM",
    "PASSED",
    "READ_TOOL",
    "REPORTED",
    "Answer",
    "Deadline",
    "PayloadError",
    "claude_code",
    "route",
]


class ClaudeCode:
    """How Claude Code reads a hook's answer (``hook.answer.Form``).

    A denial comes in both of the forms Claude Code reads: the JSON decision on standard output
    and exit 2 with the reason on standard error (builds differ in which they honour).  After
    the write, exit 2 shows the model what standard error says; exit 1 shows it to the user only.
    """

    name = "claude-code"
    agent = "claude"

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        """Claude Code's ``prompt_id``, as a turn id: ``p`` and its first eight hex digits."""
        prompt = data.get("prompt_id")
        if isinstance(prompt, str):
            hexed = re.sub(r"[^0-9a-fA-F]", "", prompt)[:8].lower()
            if hexed:
                return "p" + hexed
        return None

    def deny(self, reason: str) -> Answer:
        decision = {"permissionDecision": "deny", "permissionDecisionReason": reason}
        return Answer(BLOCK, stdout=output(decision), stderr=reason + "\n")

    def blocked(self, reason: str) -> Answer:
        return Answer(BLOCK, stderr=reason + "\n")

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        """No permission decision (Claude Code's own rules apply), or `ask`; warnings and notes reach
        the model as context, never as a grant."""
        if on_pass == "ask":
            return Answer(0, output({"permissionDecision": "ask", "permissionDecisionReason": reason}))
        if said:
            return self.context("\n".join([reason] + said), "PreToolUse")
        return Answer(0)

    def context(self, text: str, event: str) -> Answer:
        return Answer(0, output({"additionalContext": text}, event))

    def tell(self, text: str, response: object) -> Answer:
        return Answer(BLOCK, stderr=text + "\n")

    def report(self, text: str) -> Answer:
        return Answer(REPORTED, stderr=text + "\n")


FORM = ClaudeCode()


def route(call: HookCall) -> Answer:
    """Claude Code's tools: Read (after it), the file tools, and any other tool the settings' matcher
    names as a command (Bash)."""
    from .hook.file_tool import file_tool

    if call.tool == READ_TOOL:
        return file_tool(call) if call.event == "PostToolUse" else Answer(0)
    if call.tool not in EDIT_TOOLS + PASSED:
        from .hook.command import command

        return command(call)
    return file_tool(call)


def claude_code(
    raw: bytes, agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: Deadline | None = None
) -> Answer:
    """Answer one Claude Code hook call (the payload's bytes); never raises."""
    return answer(raw, FORM, route, Options(agent, turn, policy, on_pass), deadline)
