"""Codex CLI's hooks: ``agent-guard hook codex`` puts Codex's shell and its own ``apply_patch`` under
the guard.

Codex (0.171.0) runs a command hook through the shell with one JSON payload on standard input,
in Claude Code's names: ``session_id``, ``turn_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_use_id`` (the model's call id); PostToolUse adds
``tool_response``.  The tools, as the hook sees them:

``Bash`` (Codex's ``exec_command``), ``tool_input.command`` the shell command
    A command's turn, as Claude Code's Bash (``hook.command``): the work tree before, the
    difference after, recorded and checked.
``apply_patch``, ``tool_input.command`` the whole ``*** Begin Patch`` patch
    Checked before Codex applies it as ``agent-guard apply --check --format codex`` checks it,
    and what landed recorded after (``hook.patch``).
``mcp__SERVER__TOOL``
    Passed, with nothing kept: agent-guard's own MCP server (``agent-guard install codex --mcp``
    names it ``agent-guard``: ``mcp__agent-guard__apply_patch``) checks and records its calls
    itself, and another server's tools are not edits agent-guard can read.  The hooks
    ``install`` writes match only ``Bash`` and ``apply_patch``, so Codex does not start the
    hook for them at all; a matcher of the user's own may still send them.

Any other tool is not ours either.

What Codex does with the answers (observed with the real program): before the tool, exit 2
with the reason on standard error denies, and the model reads "Command blocked by PreToolUse
hook: <reason>"; every other failure (exit 1, output that is not the JSON it expects, a hook
that cannot be found, a timeout) lets the tool run, so every failure inside the hook exits 2
with a reason (``hook.entry``), and the deadline ends the hook before Codex's ``timeout``
would.  After the tool, exit 2 replaces the tool's output the model reads with standard error:
that is how the model learns that a write was undone or a command's changes were refused, and
the tool's own output goes along.  A failure after the write blocks nothing (the files stay
changed), and exit 1 would be dropped unseen: it reaches the model as context, beside the
tool's output, which stays.
"""

from __future__ import annotations

from typing import Any

from .hook.answer import BLOCK, Answer, PayloadError, output
from .hook.deadline import Deadline
from .hook.entry import Options, answer
from .hook.payload import HookCall, id_turn

SHELL = "Bash"
PATCH = "apply_patch"
OWN_SERVER = "agent-guard"  # the MCP server `install codex --mcp` writes: its tools are mcp__agent-guard__*
DIALECT = "codex"
RESPONSE_SHOWN = 4000  # characters of the tool's own output kept when the model must read ours instead


class Codex:
    """How Codex reads a hook's answer (``hook.answer.Form``)."""

    name = "codex"
    agent = "codex"

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        """Codex's ``turn_id`` (one per user prompt) as a turn id (``id_turn``)."""
        return id_turn(data.get("turn_id"))

    def deny(self, reason: str) -> Answer:
        return Answer(BLOCK, stderr=reason + "\n")

    def blocked(self, reason: str) -> Answer:
        return Answer(BLOCK, stderr=reason + "\n")

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        """No decision (Codex has no `ask` for a hook); warnings and notes as context."""
        return self.context("\n".join([reason] + said), "PreToolUse") if said else Answer(0)

    def context(self, text: str, event: str) -> Answer:
        return Answer(0, output({"additionalContext": text}, event))

    def tell(self, text: str, response: object) -> Answer:
        shown = response if isinstance(response, str) else ""
        if shown.strip():
            cut = "\n[... cut]" if len(shown) > RESPONSE_SHOWN else ""
            text += f"\n\nThe tool's own output was:\n{shown[:RESPONSE_SHOWN]}{cut}"
        return Answer(BLOCK, stderr=text + "\n")

    def report(self, text: str) -> Answer:
        return self.context(text, "PostToolUse")


FORM = Codex()


def route(call: HookCall) -> Answer:
    """Codex's tools: its shell, its apply_patch; MCP tools and any other are not ours."""
    if call.tool == SHELL:
        from .hook.command import command

        return command(call)
    if call.tool == PATCH:
        from .hook.patch import patch

        return patch(call, _patch_text(call), DIALECT)
    return Answer(0)


def _patch_text(call: HookCall) -> str:
    ti = call.data.get("tool_input")
    text = ti.get("command") if isinstance(ti, dict) else None
    if not isinstance(text, str):
        keys = ", ".join(sorted(ti)) if isinstance(ti, dict) else "none"
        raise PayloadError(f'the {call.tool} tool input has no "command" string, the patch (keys: {keys or "none"})')
    return text


def codex(raw: bytes, agent: str | None, turn: str | None, policy: str | None, deadline: Deadline | None = None) -> Answer:
    """Answer one Codex hook call (the payload's bytes); never raises."""
    return answer(raw, FORM, route, Options(agent, turn, policy), deadline)
