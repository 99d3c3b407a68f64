"""GitHub Copilot CLI's hooks: ``agent-guard hook copilot`` puts Copilot's own file tools and its shell
under the guard.

Copilot CLI runs a command hook (``.github/hooks/*.json``, ``~/.copilot/hooks/*.json``) with one
JSON payload on standard input, in one of two spellings, chosen by how the event is written in
the hooks file (docs.github.com, Copilot hooks reference):

camelCase events (``preToolUse``, ``postToolUse``, ``postToolUseFailure``)
    ``{sessionId, timestamp, cwd, toolName, toolArgs}``; ``postToolUse`` adds ``toolResult``
    (``{resultType, textResultForLlm}``), ``postToolUseFailure`` adds ``error``.  No field
    names the event: a payload with ``toolResult`` is the post hook's, one with ``error`` the
    failure's, one with neither the pre hook's.  ``toolArgs`` may come as a JSON string.
PascalCase events (``PreToolUse``, ``PostToolUse``, ``PostToolUseFailure``; VS Code's format)
    ``{hook_event_name, session_id, timestamp, cwd, tool_name, tool_input}``, ``tool_result``
    (``{result_type, text_result_for_llm}``) after the tool; ``tool_name`` is Claude Code's
    name for the tool (``Bash``, ``Write``, ``Edit``).

Both are read into the core's names (``read``); the answer is written in the spelling asked
(``Copilot``).  The tools: ``bash`` (``Bash``) is a command's turn (``hook.command``);
``create`` (``Write``) and ``edit`` / ``str_replace_editor`` (``Edit``) are file tools, checked
before and recorded after (``hook.file_tool``); ``apply_patch`` with a Codex patch is a patch
(``hook.patch``).  The documents do not give the arguments of ``create`` and ``edit``; the
names Copilot's tools use (``path``, ``file_text``, ``old_str``, ``new_str``) are read, and
Claude Code's, and a call whose arguments are none of them is blocked, naming what it held.

The payloads carry no tool-call id.  The pre and post hooks of one call are paired by what
both carry alike: the session, the tool and its arguments (``call_id``); a post hook with no
pre hook of the same arguments is the core's unstashed case, never another call's.

What Copilot does with the answers (documented; not run here): before the tool, standard
output ``{"permissionDecision": "deny", "permissionDecisionReason": ...}`` denies and the
reason is shown to the agent.  Whether any other failure denies differs between releases: the
older reference says hook failures never block, the newer that a ``preToolUse`` command hook
that crashes or exits non-zero denies, but a timeout never does.  So every answer exits 0 and
every failure before the tool is that deny on standard output, from inside the command
(``hook.entry``), the deadline ends the hook before Copilot's ``timeoutSec`` would, and the
command `install copilot` writes turns "cannot run" into the same deny.  After the tool,
``additionalContext`` reaches the model after the tool's output, and ``modifiedResult``
replaces what the model reads (the older reference ignores both).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from .hook.answer import Answer, PayloadError
from .hook.deadline import Deadline
from .hook.entry import Options, answer
from .hook.file_args import as_claude_code
from .hook.payload import HookCall, json_object

SHELL = ("bash", "Bash")
CREATE = ("create", "Write")
EDIT = ("edit", "str_replace_editor", "Edit")
PATCH = ("apply_patch",)
TOOLS = SHELL + CREATE + EDIT + PATCH  # the tools `install copilot` sends the hook (its matcher)
RESPONSE_SHOWN = 4000  # characters of the tool's own output kept when the model must read ours instead
_EVENTS = {"PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse", "PostToolUseFailure": "PostToolUse"}


class Copilot:
    """How Copilot CLI reads a hook's answer (``hook.answer.Form``), in the payload's spelling: the
    documented fields, and with a PascalCase (VS Code) payload the same in VS Code's nested form
    (``hookSpecificOutput``) beside them."""

    name = "copilot"
    agent = "copilot"

    def __init__(self, nested: bool) -> None:
        self.nested = nested

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        return None  # no payload names the prompt: a turn per tool call

    def _said(self, fields: dict[str, Any], nested: dict[str, Any], event: str) -> Answer:
        if self.nested:
            fields = {**fields, "hookSpecificOutput": {"hookEventName": event, **nested}}
        return Answer(0, json.dumps(fields) + "\n")

    def deny(self, reason: str) -> Answer:
        decision = {"permissionDecision": "deny", "permissionDecisionReason": reason}
        return self._said(decision, decision, "PreToolUse")

    def blocked(self, reason: str) -> Answer:
        return self.deny(reason)  # exit 0: which other statuses deny differs between releases

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        return Answer(0)  # no decision: Copilot's own permission rules apply; a pre hook has no context to give

    def context(self, text: str, event: str) -> Answer:
        if event != "PostToolUse":
            return Answer(0)
        return self._said({"additionalContext": text}, {"additionalContext": text}, event)

    def tell(self, text: str, response: object) -> Answer:
        shown = response if isinstance(response, str) else ""
        if shown.strip():
            cut = "\n[... cut]" if len(shown) > RESPONSE_SHOWN else ""
            text += f"\n\nThe tool's own output was:\n{shown[:RESPONSE_SHOWN]}{cut}"
        result = {"modifiedResult": {"resultType": "success", "textResultForLlm": text}}
        return self._said(result, {"additionalContext": text}, "PostToolUse")

    def report(self, text: str) -> Answer:
        return self.context(text, "PostToolUse")


CAMEL, PASCAL = Copilot(nested=False), Copilot(nested=True)


def call_id(session: object, tool: object, args: object) -> str:
    """The id the pre and post hooks of one call share: a digest of the session, the tool and its
    arguments, which both payloads carry alike."""
    text = json.dumps([session, tool, args], sort_keys=True, ensure_ascii=False, default=str)
    return "copilot-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def read(data: dict[str, Any]) -> dict[str, Any]:
    """The payload (either spelling) in the core's names; the tool's name and arguments as Copilot
    gives them (``route`` reads those)."""
    if isinstance(data.get("hook_event_name"), str):
        event = _EVENTS.get(data["hook_event_name"], data["hook_event_name"])
        tool, args, session = data.get("tool_name"), data.get("tool_input"), data.get("session_id")
        result = data.get("tool_result")
        response = result.get("text_result_for_llm") if isinstance(result, dict) else data.get("error")
    else:
        result = data.get("toolResult")
        event = "PostToolUse" if "toolResult" in data or "error" in data else "PreToolUse"
        if not isinstance(data.get("toolName"), str):
            event = "other"  # a session, prompt or stop event: not a tool's
        tool, args, session = data.get("toolName"), data.get("toolArgs"), data.get("sessionId")
        response = result.get("textResultForLlm") if isinstance(result, dict) else data.get("error")
    if isinstance(args, str):
        try:
            args = json.loads(args)  # the arguments as the model wrote them: a JSON string
        except ValueError:
            pass
    return {
        "hook_event_name": event,
        "session_id": session if isinstance(session, str) else "",
        "cwd": data.get("cwd"),
        "tool_name": tool,
        "tool_input": args,
        "tool_use_id": call_id(session, tool, args),
        "tool_response": response,
    }


def _patch_text(args: object) -> str | None:
    """The Codex patch an apply_patch call carries (its arguments, or one of their strings)."""
    texts = [args] if isinstance(args, str) else list(args.values()) if isinstance(args, dict) else []
    return next((t for t in texts if isinstance(t, str) and t.lstrip().startswith("*** Begin Patch")), None)


def route(call: HookCall) -> Answer:
    """Copilot's tools onto the core's: its shell, its file tools, a Codex patch; any other is not ours."""
    args = call.data.get("tool_input")
    if call.tool in SHELL:
        from .hook.command import command

        shell = args if isinstance(args, dict) else {"command": args if isinstance(args, str) else ""}
        return command(replace(call, tool="Bash", data={**call.data, "tool_name": "Bash", "tool_input": shell}, named=call.tool))
    if call.tool in CREATE + EDIT:
        from .hook.file_tool import file_tool

        tool, ti = as_claude_code(call.tool, args)
        return file_tool(replace(call, tool=tool, data={**call.data, "tool_name": tool, "tool_input": ti}, named=call.tool))
    if call.tool in PATCH:
        text = _patch_text(args)
        if text is None:
            raise PayloadError(f"the {call.tool} arguments hold no Codex patch (*** Begin Patch)")
        from .hook.patch import patch

        return patch(call, text, "codex")
    return Answer(0)


def copilot(raw: bytes, agent: str | None, turn: str | None, policy: str | None, deadline: Deadline | None = None) -> Answer:
    """Answer one Copilot CLI hook call (the payload's bytes) in its spelling; never raises."""
    try:
        data: dict[str, Any] | None = json_object(raw)
    except PayloadError:
        data = None  # `answer` reads it again, and says why it cannot
    form = PASCAL if data is not None and "hook_event_name" in data else CAMEL
    return answer(raw, form, route, Options(agent, turn, policy), deadline, read=lambda raw: read(data or json_object(raw)))
