"""Cursor's hooks: ``agent-guard hook cursor`` puts Cursor's own file tools and its shell under the guard.

Cursor runs a command hook (``.cursor/hooks.json``, ``~/.cursor/hooks.json``) with one JSON
payload on standard input (cursor.com/docs/hooks): the fields every hook gets
(``conversation_id``, ``generation_id``, which changes with every user message,
``hook_event_name``, ``workspace_roots``...) and the event's own.  The events agent-guard uses,
which `install cursor` writes:

``preToolUse``
    ``tool_name``, ``tool_input``, ``tool_use_id``, ``cwd``: before any tool.  Denied with
    ``{"permission": "deny", "user_message": ..., "agent_message": ...}`` (the agent reads
    ``agent_message``); exit 2 denies too.
``postToolUse``, ``postToolUseFailure``
    The same, after the tool (``tool_output``; ``error_message`` when it failed, timed out or
    was denied): the post hook, whose ``additional_context`` reaches the model after the tool's
    result.  A command that failed may still have changed files: its turn is recorded too.

The tools: ``Shell`` (``tool_input.command``) is a command's turn (``hook.command``), and so is
``Delete`` (what it removed is the difference); ``Write``, ``StrReplace``, ``Edit`` and
``MultiEdit`` are file tools, checked before and recorded after (``hook.file_tool``), as
Claude Code's Write, Edit or MultiEdit by what their input holds (Cursor maps Claude Code's
Edit and Write both to its Write).  Any other tool is not ours.  The documents do not give the
file tools' input: the names Cursor's tools use (``path``, ``contents``, ``old_string``...) are
read, and Claude Code's, and a call whose input is none of them is blocked, naming its keys.

``beforeShellExecution``, ``afterShellExecution`` and ``afterFileEdit`` carry no tool-call id,
so nothing pairs a command's two hooks soundly, and with ``preToolUse`` installed they would
take every command twice: they are answered with no decision.

Cursor reads every hook's standard output as JSON, and with ``failClosed`` (which `install
cursor` sets on ``preToolUse``) a hook that crashes, times out or prints what is not JSON blocks
the tool: every answer here is a JSON object, ``{}`` when there is nothing to say (no decision:
Cursor's own rules apply).  Payloads from Cursor's agent have been seen starting with a byte-order
mark, and with an empty ``cwd``: the mark is skipped, and the call's folder is the tool's
``working_directory``, else ``cwd``, else the first workspace root.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from .hook.answer import Answer
from .hook.deadline import Deadline
from .hook.entry import Options, answer
from .hook.file_args import as_claude_code
from .hook.payload import HookCall, id_turn, json_object

SHELL = ("Shell",)
DELETE = ("Delete",)
FILE_TOOLS = ("Write", "StrReplace", "Edit", "MultiEdit")
TOOLS = SHELL + DELETE + FILE_TOOLS  # the tools `install cursor` sends the hook (its matcher)
_EVENTS = {"preToolUse": "PreToolUse", "postToolUse": "PostToolUse", "postToolUseFailure": "PostToolUse"}
NOTHING = "{}\n"  # no decision, nothing to say: Cursor's own rules apply
BOM = b"\xef\xbb\xbf"


class Cursor:
    """How Cursor reads a hook's answer (``hook.answer.Form``): a JSON object on standard output,
    exit 0, for every answer."""

    name = "cursor"
    agent = "cursor"

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        """Cursor's ``generation_id`` (one per user message) as a turn id (``id_turn``)."""
        return id_turn(data.get("generation_id"))

    def deny(self, reason: str) -> Answer:
        first = reason.split("\n", 1)[0]
        return Answer(0, json.dumps({"permission": "deny", "user_message": first, "agent_message": reason}) + "\n")

    def blocked(self, reason: str) -> Answer:
        return self.deny(reason)

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        return Answer(0, NOTHING)  # no decision; a pre hook's context reaches the model only with a denial

    def context(self, text: str, event: str) -> Answer:
        if event != "PostToolUse":
            return Answer(0, NOTHING)
        return Answer(0, json.dumps({"additional_context": text}) + "\n")

    def tell(self, text: str, response: object) -> Answer:
        return self.context(text, "PostToolUse")  # the model reads it right after the tool's own result

    def report(self, text: str) -> Answer:
        return self.context(text, "PostToolUse")


FORM = Cursor()


def _folder(data: dict[str, Any], args: object) -> str | None:
    """The call's folder: the tool's ``working_directory`` (a command's), else the payload's ``cwd``,
    else the first workspace root (None: the hook's own folder, where Cursor starts project hooks)."""
    for given in (args.get("working_directory") if isinstance(args, dict) else None, data.get("cwd")):
        if isinstance(given, str) and given:
            return given
    roots = data.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return roots[0]
    return None


def read(raw: bytes) -> dict[str, Any]:
    """The payload in the core's names; the tool's name and input as Cursor gives them (``route``
    reads those)."""
    data = json_object(raw[len(BOM) :] if raw.startswith(BOM) else raw)
    given = data.get("hook_event_name")
    event = _EVENTS.get(given, "other") if isinstance(given, str) else "other"
    args = data.get("tool_input")
    call = data.get("tool_use_id")
    if not isinstance(call, str) or not call:
        # Never another call's stash: a call without an id gets one nothing else has.
        text = json.dumps([data.get("conversation_id"), data.get("tool_name"), args], sort_keys=True, default=str)
        call = "cursor-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    session = data.get("session_id") or data.get("conversation_id")
    output = data.get("tool_output") if "tool_output" in data else data.get("error_message")
    return {
        "hook_event_name": event,
        "session_id": session if isinstance(session, str) else "",
        "generation_id": data.get("generation_id"),
        "cwd": _folder(data, args),
        "tool_name": data.get("tool_name"),
        "tool_input": args,
        "tool_use_id": call,
        "tool_response": output,
    }


def route(call: HookCall) -> Answer:
    """Cursor's tools onto the core's: its shell and Delete as commands, its file tools; any other is
    not ours."""
    args = call.data.get("tool_input")
    if call.tool in SHELL + DELETE:
        from .hook.command import command

        text = args.get("command") if isinstance(args, dict) and call.tool in SHELL else ""
        shell = {"command": text if isinstance(text, str) else ""}
        return command(replace(call, data={**call.data, "tool_input": shell}))
    if call.tool in FILE_TOOLS:
        from .hook.file_tool import file_tool

        tool, ti = as_claude_code(call.tool, args)
        return file_tool(replace(call, tool=tool, data={**call.data, "tool_name": tool, "tool_input": ti}, named=call.tool))
    return Answer(0)


def cursor(raw: bytes, agent: str | None, turn: str | None, policy: str | None, deadline: Deadline | None = None) -> Answer:
    """Answer one Cursor hook call (the payload's bytes); never raises.  Always a JSON object on
    standard output."""
    said = answer(raw, FORM, route, Options(agent, turn, policy), deadline, read=read)
    if said.code == 0 and not said.stdout.strip():
        return Answer(0, NOTHING, said.stderr)
    return said
