"""An agent harness's hook settings for agent-guard: made so that a hook that cannot run blocks,
merged into the settings already there, and taken out again.

Claude Code carries on when a hook command exits with anything but 2: a command it cannot
find (exit 127, agent-guard not on its PATH), cannot run (126) or that a signal ended would let
every edit through unchecked.  ``fail_closed`` wraps the command so that each of those becomes
exit 2 with the reason on standard error, which Claude Code shows the model and treats as a
denial; ``this_command`` runs this installation by its absolute path, so the PATH Claude
Code was started with does not matter.  The functions here take and give values: reading and
writing the settings file is the caller's (`agent-guard install`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

MATCHER = "Edit|MultiEdit|Write|NotebookEdit|Bash"  # the tools the hooks cover
TIMEOUT = 30  # seconds Claude Code gives each hook call
EVENTS = ("PreToolUse", "PostToolUse")
SUBCOMMAND = "hook claude-code"  # what tells agent-guard's entries from the user's own:
WARM_HOOK = "/guard/warm/hook.py"  # ... this too, in the warm form's command (`agent-guard serve --settings`)


def fail_closed(command: str) -> str:
    """`command` as a POSIX shell line whose exit 126 or above (cannot be found, cannot run, ended
    by a signal) becomes exit 2, with why on standard error; any other status is the command's."""
    why = "agent-guard could not run (exit $s): the tool call is blocked"
    return f'{command}; s=$?; [ "$s" -lt 126 ] || {{ echo "{why}" >&2; s=2; }}; exit "$s"'


def this_program() -> list[str]:
    """This installation's `agent-guard`, by absolute path: its script when the interpreter's folder
    has one, else the interpreter running the package."""
    script = Path(sys.executable).with_name("agent-guard")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "guard"]


def this_command(subcommand: str = SUBCOMMAND) -> str:
    """The hook command of this installation (``this_program``) as a shell line."""
    return " ".join([*(shlex.quote(word) for word in this_program()), subcommand])


def claude_code_settings(command: str) -> dict[str, Any]:
    """Claude Code's settings with both hook events running `command` (already fail-closed)."""
    entry = {"type": "command", "command": command, "timeout": TIMEOUT}
    return {"hooks": {event: [{"matcher": MATCHER, "hooks": [dict(entry)]}] for event in EVENTS}}


def _ours(hook: object) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and (SUBCOMMAND in command or WARM_HOOK in command)


class SettingsError(ValueError):
    """Settings that are not the shape Claude Code reads: left as they are, never overwritten."""


def _hooks_of(settings: dict[str, Any]) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f'"hooks" is a {type(hooks).__name__}, not an object')
    for event in EVENTS:
        if not isinstance(hooks.get(event, []), list):
            raise SettingsError(f'"hooks.{event}" is not a list')
    return hooks


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with every agent-guard hook taken out (an entry left with no hook goes too);
    everything else as it was."""
    out = dict(settings)
    hooks = dict(_hooks_of(settings))
    for event in EVENTS:
        kept = []
        for entry in hooks.get(event, []):
            if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
                kept.append(entry)
                continue
            rest = [h for h in entry["hooks"] if not _ours(h)]
            if rest:
                kept.append({**entry, "hooks": rest})
        if kept:
            hooks[event] = kept
        else:
            hooks.pop(event, None)
    if hooks:
        out["hooks"] = hooks
    else:
        out.pop("hooks", None)
    return out


def with_ours(settings: dict[str, Any], command: str) -> dict[str, Any]:
    """`settings` with agent-guard's hooks (running `command`) in place of any it had: the user's
    own entries kept, in their order, and ours last, so theirs run first."""
    out = without_ours(settings)
    hooks = dict(out.get("hooks", {}))
    for event, entries in claude_code_settings(command)["hooks"].items():
        hooks[event] = list(hooks.get(event, [])) + entries
    out["hooks"] = hooks
    return out
