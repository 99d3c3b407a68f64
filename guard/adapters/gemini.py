"""Gemini CLI's hooks: ``agent-guard hook gemini`` puts Gemini's own file tools and its shell under
the guard.

Gemini CLI (0.61.0) runs a command hook through the shell with one JSON payload on standard input:
``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``timestamp``, ``tool_name``,
``tool_input`` (the model's arguments as it wrote them); ``AfterTool`` adds ``tool_response``.
Its events are ``BeforeTool`` and ``AfterTool``, the core's PreToolUse and PostToolUse.  The
tools, as the hook sees them:

``write_file`` ``{file_path, content}``, ``replace`` ``{file_path, old_string, new_string, allow_multiple}``
    The core's Write and Edit (``hook.file_tool``): checked before Gemini writes, recorded after.
    ``file_path`` may be relative (to ``cwd``).  After the tool, Gemini reports the file's whole
    text before and after its write (``returnDisplay.originalContent``, ``newContent``; for
    ``replace`` with CRLF made LF): that is what the tool did, exactly, even where Gemini's own
    matching (whitespace-blind, or mended by the model) or its correction of the written text
    made something else of the edit than agent-guard worked out (``HookCall.told``).
``run_shell_command`` ``{command, description, dir_path}``
    A command's turn (``hook.command``), in ``dir_path`` when it names one.
``mcp_SERVER_TOOL`` and any other tool
    Not ours: agent-guard's own MCP server (``install gemini --mcp``) checks and records its calls
    itself, and another server's tools are not edits agent-guard can read.  The hooks ``install``
    writes match only the three tools above.

The payload carries no tool-call id: the pre hook's record is paired with its post hook by the
call's content and the session's order (``gemini_calls``), never with another call's.

What Gemini does with the answers (observed with the real program): before the tool, ``{"decision":
"deny", "reason": R}`` on standard output denies, and the model reads "Tool execution blocked: R";
so does any exit status from 2 up with text on standard error or output.  Claude Code's
``permissionDecision`` is ignored, and so are exit 1, output that is not JSON and a timeout: the
tool runs.  So a denial is the JSON decision with exit 0 (a hook that exits otherwise is reported
to the user as failed), every failure inside the hook denies (``hook.entry``), and the deadline
ends the hook, with exit 2 and the reason, before Gemini's ``timeout`` would.  Gemini drops the
context a BeforeTool gives: a passing check's warnings do not reach the model.  After the tool, a
denial replaces the tool's output the model reads: that is how the model learns that a write was
undone or a command's changes were refused, and the tool's own output goes along.  A failure
after the write blocks nothing (the files stay changed); exit 1 would reach the user's terminal
only, so it reaches the model as context appended to the tool's output (``<hook_context>``),
which stays.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from . import gemini_calls
from .hook.answer import Answer
from .hook.deadline import Deadline
from .hook.entry import Options, answer
from .hook.payload import HookCall, Told

EVENTS = {"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse"}
FILE_TOOLS = {"write_file": "Write", "replace": "Edit"}  # Gemini's edit tools, as the core names them
SHELL = "run_shell_command"
RESPONSE_SHOWN = 4000  # characters of the tool's own output kept when the model must read ours instead


class Gemini:
    """How Gemini CLI reads a hook's answer (``hook.answer.Form``)."""

    name = "gemini"
    agent = "gemini"

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        """Gemini names no prompt in a tool's payload: each call is a turn of its own."""
        return None

    def deny(self, reason: str) -> Answer:
        return Answer(0, _decision("deny", reason))

    def blocked(self, reason: str) -> Answer:
        return Answer(0, _decision("deny", reason))

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        """No decision (Gemini's own approval applies); Gemini drops a BeforeTool's context."""
        return Answer(0)

    def context(self, text: str, event: str) -> Answer:
        if event != "PostToolUse":
            return Answer(0)  # dropped by Gemini before the tool
        return Answer(0, json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}) + "\n")

    def tell(self, text: str, response: object) -> Answer:
        shown = response.get("llmContent") if isinstance(response, dict) else None
        if isinstance(shown, str) and shown.strip():
            cut = "\n[... cut]" if len(shown) > RESPONSE_SHOWN else ""
            text += f"\n\nThe tool's own output was:\n{shown[:RESPONSE_SHOWN]}{cut}"
        return Answer(0, _decision("deny", text))

    def report(self, text: str) -> Answer:
        return self.context(text, "PostToolUse")


FORM = Gemini()


def _decision(decision: str, reason: str) -> str:
    return json.dumps({"decision": decision, "reason": reason}) + "\n"


def route(call: HookCall) -> Answer:
    """Gemini's tools: its file tools and its shell in the core's names, each call with the id that
    pairs its two hooks (``gemini_calls``); MCP tools and any other are not ours."""
    if call.tool not in FILE_TOOLS and call.tool != SHELL:
        return Answer(0)
    data = dict(call.data)
    ti = data.get("tool_input")
    ti = dict(ti) if isinstance(ti, dict) else ti
    if call.event == "PreToolUse":
        data["tool_use_id"] = gemini_calls.opened(call.data, alone=call.tool in FILE_TOOLS)
    else:
        data["tool_use_id"] = gemini_calls.closed(call.data)
        unpaired = data["tool_use_id"].endswith("-" + gemini_calls.UNPAIRED)
        resp = data.get("tool_response")
        if unpaired and isinstance(resp, dict) and resp.get("error"):
            return Answer(0)  # the tool failed, and no check of ours was waiting for it
    if call.tool == SHELL:
        from .hook.command import command

        there = ti.get("dir_path") if isinstance(ti, dict) else None
        if isinstance(there, str) and there and isinstance(data.get("cwd"), str):
            data["cwd"] = os.path.join(data["cwd"], there)  # Gemini runs it there
        return command(replace(call, data=data))
    from .hook.file_tool import file_tool

    tool = FILE_TOOLS[call.tool]
    if isinstance(ti, dict) and call.tool == "replace":
        ti["replace_all"] = ti.pop("allow_multiple", False) is True
    data.update(tool_name=tool, tool_input=ti)
    return file_tool(replace(call, data=data, tool=tool, told=_told(call), named=call.tool))


def _told(call: HookCall) -> Told | None:
    """What Gemini reports its file tool wrote (after it ran, and wrote): None when it does not."""
    resp = call.data.get("tool_response")
    shown = resp.get("returnDisplay") if isinstance(resp, dict) and not resp.get("error") else None
    if call.event != "PostToolUse" or not isinstance(shown, dict):
        return None
    before, after = shown.get("originalContent"), shown.get("newContent")
    if not isinstance(after, str) or not isinstance(before, (str, type(None))):
        return None
    made = shown.get("isNewFile") is True
    return Told(None if made else before or "", after, lf_only=call.tool == "replace")


def gemini(raw: bytes, agent: str | None, turn: str | None, policy: str | None, deadline: Deadline | None = None) -> Answer:
    """Answer one Gemini CLI hook call (the payload's bytes); never raises."""
    return answer(raw, FORM, route, Options(agent, turn, policy), deadline, EVENTS)
