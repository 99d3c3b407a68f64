"""An agent harness's hook settings for agent-guard: made so that a hook that cannot run blocks,
merged into the settings already there, and taken out again.

Claude Code carries on when a hook command exits with anything but 2: a command it cannot
find (exit 127, agent-guard not on its PATH), cannot run (126) or that a signal ended would let
every edit through unchecked.  ``fail_closed`` wraps the command so that each of those becomes
exit 2 with the reason on standard error, which Claude Code shows the model and treats as a
denial; ``this_command`` runs this installation by its absolute path, so the PATH Claude
Code was started with does not matter.  Gemini CLI's settings are the same shape under its own
event names: ``without_ours`` and ``with_ours`` take them too (``gemini_settings``).  The functions
here take and give values: reading and writing the settings file is the caller's (`agent-guard
install`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, Callable

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


COULD_NOT_RUN = "agent-guard could not run (exit $s), so nothing was checked: the tool call is blocked"


def exit_blocking(command: str) -> str:
    """`command` as a POSIX shell line whose every status but 0 (pass) and 2 (deny, the reason on
    standard error) becomes 2, with why on standard error: for an agent that denies on exit 2 and
    lets the tool run on any other status (Codex, Cursor without ``failClosed``)."""
    return f'{command}; s=$?; [ "$s" -eq 0 ] || [ "$s" -eq 2 ] || {{ echo "{COULD_NOT_RUN}" >&2; s=2; }}; exit "$s"'


def answer_blocking(command: str, deny: Callable[[str], str]) -> str:
    """`command` as a POSIX shell line that always exits 0, and whose every other status becomes the
    agent's own denial on standard output (`deny` of a reason: the JSON text; it must hold no ``%``
    or backslash of its own), with why on standard error too: for an agent that reads the denial
    from standard output only (Copilot CLI).  What the command printed is passed on only when it
    exited 0, so that half an answer never reaches the agent."""
    answer = shlex.quote(deny(COULD_NOT_RUN.replace("$s", "%s")) + "\\n")
    return (
        f'out=$({command}); s=$?; if [ "$s" -eq 0 ]; then [ -z "$out" ] || printf "%s\\n" "$out"; '
        f'else echo "{COULD_NOT_RUN}" >&2; printf {answer} "$s"; fi; exit 0'
    )


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


def _ours(hook: object, subcommand: str) -> bool:
    """An entry agent-guard wrote: its command runs `subcommand`, or, for Claude Code's, the warm
    hook (``WARM_HOOK``), the form `install claude-code` writes by default."""
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    return subcommand in command or (subcommand == SUBCOMMAND and WARM_HOOK in command)


class SettingsError(ValueError):
    """Settings that are not the shape the agent reads: left as they are, never overwritten."""


def _hooks_of(settings: dict[str, Any], events: tuple[str, ...]) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f'"hooks" is a {type(hooks).__name__}, not an object')
    for event in events:
        if not isinstance(hooks.get(event, []), list):
            raise SettingsError(f'"hooks.{event}" is not a list')
    return hooks


def without_ours(settings: dict[str, Any], events: tuple[str, ...] = EVENTS, subcommand: str = SUBCOMMAND) -> dict[str, Any]:
    """`settings` with every agent-guard hook of `events` (one whose command runs `subcommand`) taken
    out (an entry left with no hook goes too); everything else as it was.  Claude Code's settings
    by default; Gemini CLI's are the same shape."""
    out = dict(settings)
    hooks = dict(_hooks_of(settings, events))
    for event in events:
        kept = []
        for entry in hooks.get(event, []):
            if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
                kept.append(entry)
                continue
            rest = [h for h in entry["hooks"] if not _ours(h, subcommand)]
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


def with_ours(
    settings: dict[str, Any], command: str, ours: dict[str, list[Any]] | None = None, subcommand: str = SUBCOMMAND
) -> dict[str, Any]:
    """`settings` with agent-guard's hooks in place of any it had: `ours` (event -> entries; by default
    Claude Code's, running `command`) after the user's own entries, kept in their order, so theirs
    run first."""
    ours = claude_code_settings(command)["hooks"] if ours is None else ours
    out = without_ours(settings, tuple(ours), subcommand)
    hooks = dict(out.get("hooks", {}))
    for event, entries in ours.items():
        hooks[event] = list(hooks.get(event, [])) + entries
    out["hooks"] = hooks
    return out
