"""The JSON hooks files of GitHub Copilot CLI and Cursor: agent-guard's hooks put in, merged with
what the file holds, and taken out again.

Both read ``{"version": 1, "hooks": {"<event>": [<hook>, ...]}}``, each hook a flat object that
names its command (Copilot: ``bash``; Cursor: ``command``) beside its options.  Copilot reads
every ``*.json`` of its hooks folders (``.github/hooks/``, ``~/.copilot/hooks/``), so agent-guard
keeps a file of its own there; Cursor reads one file (``.cursor/hooks.json``,
``~/.cursor/hooks.json``), shared with the user's own hooks.  Either way a hook is agent-guard's
when its command runs ``agent-guard hook AGENT`` (``Spec.subcommand``); everything else in the
file is kept, in its order, and agent-guard's hooks go last in each event's list, so that the
user's run first.  The functions take and give values: reading and writing the files is the
caller's (``agent-guard install copilot|cursor``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from . import install

TIMEOUT = 30  # seconds each agent gives the hook (the hook's own deadline is under it)


class HooksFileError(ValueError):
    """A hooks file that is not the shape the agent reads: left as it is, with the reason."""


@dataclass(frozen=True, slots=True)
class Spec:
    """One agent's hooks file: the field that names a hook's command, the events agent-guard's hooks
    answer, the tools they are for (``matcher``, a regular expression on the tool's name), and the
    hook of one event running a command (`hook`)."""

    agent: str
    key: str
    events: tuple[str, ...]
    matcher: str
    hook: Callable[[str, str], dict[str, Any]]

    @property
    def subcommand(self) -> str:
        return f"hook {self.agent}"


def _copilot_hook(event: str, command: str) -> dict[str, Any]:
    return {"type": "command", "bash": command, "matcher": COPILOT.matcher, "timeoutSec": TIMEOUT}


def _cursor_hook(event: str, command: str) -> dict[str, Any]:
    hook: dict[str, Any] = {"command": command, "matcher": CURSOR.matcher, "timeout": TIMEOUT}
    if event == "preToolUse":
        hook["failClosed"] = True  # a hook that crashes, times out or answers what is not JSON blocks the tool
    return hook


def _copilot_matcher() -> str:
    from .copilot import CREATE, EDIT, PATCH, SHELL

    return "|".join(name for name in SHELL + CREATE + EDIT + PATCH if name.islower())  # camelCase events' names


def _cursor_matcher() -> str:
    from .cursor import TOOLS

    return "|".join(TOOLS)


COPILOT = Spec("copilot", "bash", ("preToolUse", "postToolUse", "postToolUseFailure"), _copilot_matcher(), _copilot_hook)
CURSOR = Spec("cursor", "command", ("preToolUse", "postToolUse", "postToolUseFailure"), _cursor_matcher(), _cursor_hook)


def _copilot_denial(why: str) -> str:
    return json.dumps({"permissionDecision": "deny", "permissionDecisionReason": why})


def command(spec: Spec) -> str:
    """The command agent-guard's hooks run: this installation by its absolute path, wrapped so that
    when it cannot run the tool call is denied the way the agent reads a denial."""
    line = install.this_command(spec.subcommand)
    if spec is COPILOT:  # Copilot reads a denial from standard output only (older releases: only with exit 0)
        return install.answer_blocking(line, _copilot_denial)
    return install.exit_blocking(line)  # Cursor: exit 2 denies (and `failClosed` blocks on any failure)


def _hooks_of(doc: dict[str, Any]) -> dict[str, Any]:
    version = doc.get("version", 1)
    if version != 1 or isinstance(version, bool):
        raise HooksFileError(f'"version" is {version!r}, not 1')
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HooksFileError(f'"hooks" is a {type(hooks).__name__}, not an object')
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            raise HooksFileError(f'"hooks.{event}" is not a list')
    return hooks


def ours(spec: Spec, hook: object) -> bool:
    """Whether `hook` runs agent-guard's hook for `spec`'s agent."""
    return isinstance(hook, dict) and isinstance(hook.get(spec.key), str) and spec.subcommand in hook[spec.key]


def holds_ours(spec: Spec, doc: dict[str, Any]) -> bool:
    """Whether `doc` holds an agent-guard hook for `spec`'s agent."""
    return any(ours(spec, hook) for entries in _hooks_of(doc).values() for hook in entries)


def without_ours(spec: Spec, doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with every agent-guard hook taken out (an event left with none goes too); everything else
    as it was.  A file left with nothing but its version holds no hooks: ``{}``."""
    hooks = {}
    for event, entries in _hooks_of(doc).items():
        kept = [hook for hook in entries if not ours(spec, hook)]
        if kept or not entries:
            hooks[event] = kept
    out = {key: (hooks if key == "hooks" else value) for key, value in doc.items()}
    if not hooks:
        out.pop("hooks", None)
    return {} if set(out) <= {"version"} else out


def with_ours(spec: Spec, doc: dict[str, Any], command: str) -> dict[str, Any]:
    """`doc` with agent-guard's hooks (running `command`) in place of any it had: the user's own hooks
    kept, in their order, and ours last in each event's list."""
    out = without_ours(spec, doc)
    hooks = dict(out.get("hooks", {}))
    for event in spec.events:
        hooks[event] = list(hooks.get(event, [])) + [spec.hook(event, command)]
    return {"version": 1, **out, "hooks": hooks}
