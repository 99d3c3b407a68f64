"""What the Claude Code hook says back: an exit status, standard output and standard error.

Claude Code lets a tool call go ahead when a PreToolUse hook exits with anything but 0 or 2,
so a pre hook's failure exits 2 (``BLOCK``); after the write there is nothing left to block,
and a post hook's failure exits 1 (``REPORTED``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

BLOCK, REPORTED = 2, 1  # a pre hook's failure blocks the tool; a post hook's is only reported


class PayloadError(Exception):
    """A payload the hook cannot act on."""


@dataclass(frozen=True, slots=True)
class Answer:
    code: int
    stdout: str = ""
    stderr: str = ""


def output(fields: dict[str, str], event: str = "PreToolUse") -> str:
    """The JSON Claude Code reads on standard output."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}}) + "\n"


def passing(on_pass: str, reason: str, said: list[str]) -> Answer:
    """A passing edit: no permission decision (Claude Code's own rules apply), or `ask`."""
    if on_pass == "ask":
        return Answer(0, output({"permissionDecision": "ask", "permissionDecisionReason": reason}))
    if said:  # warnings and notes reach the model as context, never as a grant
        return Answer(0, output({"additionalContext": "\n".join([reason] + said)}))
    return Answer(0)


def deny(findings: Any, suggestion: Any = None) -> Answer:
    """A denial in both of the forms Claude Code reads: the JSON decision on standard output and
    exit 2 with the reason on standard error (builds differ in which they honour).
    A refusal with one likely reading carries it as the tool call to make instead (guard/suggest/)."""
    from ...report.render import finding_text, suggestion_text

    lines = ["agent-guard refused this edit; nothing was written. Fix what each finding says and retry."]
    lines += [finding_text(f) for f in findings]
    if suggestion is not None:
        lines.append(suggestion_text(suggestion))
    reason = "\n".join(lines)
    return Answer(BLOCK, stdout=output({"permissionDecision": "deny", "permissionDecisionReason": reason}), stderr=reason + "\n")
