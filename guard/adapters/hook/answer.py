"""What a hook says back (an exit status, standard output and error), and the forms agents read it in.

The core decides *what* to say: deny a tool call before it runs, pass it (with context for the
model), tell the model after the fact (a write undone, a command's findings), or report that
something could not be recorded.  Each agent reads those in its own form: ``Form`` is what a
translator (``guard/adapters/claude_code.py``, ``codex.py``) gives the core, with the call.

Claude Code and Codex both let a tool call go ahead when a PreToolUse hook exits with anything
but 0 or 2, so a pre hook's failure exits 2 (``BLOCK``) with the reason on standard error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

BLOCK, REPORTED = 2, 1  # a pre hook's failure blocks the tool; a post hook's is only reported


class PayloadError(Exception):
    """A payload the hook cannot act on."""


@dataclass(frozen=True, slots=True)
class Answer:
    code: int
    stdout: str = ""
    stderr: str = ""


class Form(Protocol):
    """One agent's hook: how its answers are written, and what its payload names.

    Every message handed in is whole text without a final newline."""

    @property
    def name(self) -> str:
        """The agent program, as `agent-guard hook NAME` calls it (``claude-code``, ``codex``)."""

    @property
    def agent(self) -> str:
        """The agent's name on its turns when neither --agent nor $AGENT_GUARD_AGENT gives one."""

    def prompt_turn(self, data: dict[str, Any]) -> str | None:
        """The turn id of the user prompt the payload belongs to (one turn per prompt), or None."""

    def deny(self, reason: str) -> Answer:
        """Before the tool runs: it must not run, and the model reads why."""

    def blocked(self, reason: str) -> Answer:
        """Before the tool runs: the hook failed, which must block the tool too."""

    def passing(self, on_pass: str, reason: str, said: list[str]) -> Answer:
        """Before the tool runs: it may (no permission granted), with what the check said."""

    def context(self, text: str, event: str) -> Answer:
        """The tool may run, or ran: `text` reaches the model beside the tool's own output."""

    def tell(self, text: str, response: object) -> Answer:
        """After the tool ran: the model must read `text` (what became of its write) instead of
        believing the tool's own output (`response`, the payload's)."""

    def report(self, text: str) -> Answer:
        """After the tool ran: something of ours failed (nothing recorded); nothing left to block."""


def output(fields: dict[str, str], event: str = "PreToolUse") -> str:
    """The JSON object Claude Code and Codex read on standard output."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}}) + "\n"


def why_refused(findings: Any, suggestion: Any = None) -> str:
    """The reason a refused edit is denied: each finding and its hint, and, when the refusal has one
    likely reading, the tool call to make instead (guard/suggest/)."""
    from ...report.render import finding_text, suggestion_text

    lines = ["agent-guard refused this edit; nothing was written. Fix what each finding says and retry."]
    lines += [finding_text(f) for f in findings]
    if suggestion is not None:
        lines.append(suggestion_text(suggestion))
    return "\n".join(lines)
