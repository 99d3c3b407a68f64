"""The click command `install` (and `uninstall AGENT`'s part): an agent harness's hook settings written for it.

`install claude-code` merges agent-guard's hooks into Claude Code's settings (the project's
`.claude/settings.local.json`, or with --user the user's `settings.json`), running this
installation by its absolute path in a form that blocks when it cannot run
(``adapters.install``).  The settings are read, changed and written here; a file that is not
a JSON object is left as it is, with the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from .commands import CONTEXT, in_a_repository, lazy_group

AGENTS = ("claude-code",)


def _settings_file(user: bool) -> Path:
    """Where Claude Code reads the settings: the user's (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), or
    the project's personal file at the top of the repository the command runs in."""
    if user:
        base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
        return Path(base) / "settings.json"
    in_a_repository(".")
    from ..repo import GitRepo

    return GitRepo(".").root / ".claude" / "settings.local.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {path}: {exc}; left as it is") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise click.UsageError(f"{path} is not JSON ({exc}); fix it, then run this again (left as it is)") from None
    if not isinstance(data, dict):
        raise click.UsageError(f"{path} holds a JSON {type(data).__name__}, not an object; left as it is")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@lazy_group("install", context_settings=CONTEXT)
def install_group() -> None:
    pass  # its summary is in ``LAZY``; the agents are below


@install_group.command("claude-code", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's settings (every project), not this repository's.")
@click.option("--print", "show", is_flag=True, help="Print the hook settings instead of writing them.")
def install_claude_code(user: bool, show: bool) -> None:
    """Write agent-guard's PreToolUse and PostToolUse hooks into Claude Code's settings.

    The project's `.claude/settings.local.json` (personal: it names this machine's
    installation), or with --user `~/.claude/settings.json`.  The hooks run this
    installation by its absolute path, so Claude Code's PATH does not matter, and
    block the tool call when agent-guard cannot run.  Other settings and hooks are
    kept; running it again replaces agent-guard's own entries.
    """
    from ..adapters import install
    from ..adapters.install import SettingsError

    command = install.fail_closed(install.this_command())
    if show:
        click.echo(json.dumps(install.claude_code_settings(command), indent=2))
        return
    path = _settings_file(user)
    old = _read(path)
    try:
        new = install.with_ours(old, command)
    except SettingsError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    if new == old:
        click.echo(f"already installed: {path}")
        return
    _write(path, new)
    click.echo(f"wrote {path}: PreToolUse and PostToolUse hooks for {install.MATCHER} run\n  {command}")


def remove_hooks(agent: str, user: bool) -> str:
    """Take agent-guard's hooks out of `agent`'s settings (`agent-guard uninstall AGENT`); what was done."""
    from ..adapters import install
    from ..adapters.install import SettingsError

    assert agent in AGENTS, agent
    path = _settings_file(user)
    old = _read(path)
    try:
        new = install.without_ours(old)
    except SettingsError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    if new == old:
        return f"not installed: {path}"
    _write(path, new)
    return f"removed agent-guard's hooks from {path}"
