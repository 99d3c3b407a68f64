"""The click commands `install` and `uninstall`: an agent harness's hook settings written for it, and taken out.

`install claude-code` merges agent-guard's hooks into Claude Code's settings (the project's
`.claude/settings.local.json`, or with --user the user's `settings.json`), running this
installation by its absolute path in a form that blocks when it cannot run
(``adapters.install``).  The settings are read, changed and written here; a file that is not
a JSON object is left as it is, with the reason.  `install codex` writes Codex's config.toml
files (``install_codex``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from .base import CONTEXT, in_a_repository

AGENTS = ("claude-code", "codex")


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


@click.group("install", context_settings=CONTEXT)
def install_group() -> None:
    pass  # its summary is in ``commands.COMMANDS``; the agents are below


@install_group.command("claude-code", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's settings (every project), not this repository's.")
@click.option("--print", "show", is_flag=True, help="Print the hook settings instead of writing them.")
@click.option(
    "--cold",
    is_flag=True,
    help="Hooks that do all the work in each call and never start a server (slower; no background process).",
)
def install_claude_code(user: bool, show: bool, cold: bool) -> None:
    """Write agent-guard's PreToolUse and PostToolUse hooks into Claude Code's settings.

    The project's `.claude/settings.local.json` (personal: it names this machine's
    installation), or with --user `~/.claude/settings.json`.  The hooks run this
    installation by its absolute path, so Claude Code's PATH does not matter, and
    block the tool call when agent-guard cannot run.  Other settings and hooks are
    kept; running it again replaces agent-guard's own entries.

    The hook asks your `agent-guard serve`; when none runs, it answers the call
    itself and starts one in the background for the next calls, which ends once
    it has had no call for a while (`serve --idle-exit`).  --cold: no server,
    every call does the work itself.
    """
    from ..adapters import install
    from ..adapters.install import SettingsError

    command = install.fail_closed(install.this_command()) if cold else _warm_command()
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
    if not cold:
        from ..warm.client import IDLE_EXIT

        click.echo(
            "  The first call starts `agent-guard serve` in the background: it answers the calls after it, and\n"
            f"  ends after {IDLE_EXIT // 60} minutes without one (`agent-guard serve --status`; --cold: no server)."
        )


def _warm_command() -> str:
    from .serve import warm_command

    return warm_command(start_server=True)


@install_group.command("codex", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's config (every project), not this repository's.")
@click.option("--mcp", is_flag=True, help="Also agent-guard's MCP server (required = true: Codex waits for it).")
@click.option("--print", "show", is_flag=True, help="Print what would be written, and where, instead of writing it.")
def install_codex(user: bool, mcp: bool, show: bool) -> None:
    """Write agent-guard's PreToolUse and PostToolUse hooks into Codex's config.toml, trusted.

    The project's `.codex/config.toml` (Codex reads it in a trusted project), or with
    --user `$CODEX_HOME/config.toml` (default `~/.codex`).  The hooks run this
    installation by its absolute path for Codex's shell and its own apply_patch, and
    block the tool call when agent-guard cannot run; their trust (`hooks.state`, which
    `codex exec` needs or it skips them) goes in the user's file.  The file's own text is
    kept byte for byte: agent-guard's lines sit between two marker comments at its end,
    and running it again replaces them.  A file that is not TOML is left as it is.
    """
    from .install_codex import planned, written

    changes, said = planned(user, mcp)
    if show:
        for change in changes:
            click.echo(f"# {change.path}\n{change.new}", nl=False)
        return
    done = written(changes)
    if not done:
        click.echo("already installed: " + ", ".join(str(c.path) for c in changes))
        return
    click.echo("wrote " + "\n".join(said))


def remove_hooks(agent: str, user: bool) -> str:
    """Take agent-guard's hooks out of `agent`'s settings (`agent-guard uninstall AGENT`); what was done."""
    from ..adapters import install
    from ..adapters.install import SettingsError

    assert agent in AGENTS, agent
    if agent == "codex":
        from .install_codex import unplanned, written

        changes = unplanned(user)
        done = written(changes)
        if not done:
            return "not installed: " + ", ".join(str(c.path) for c in changes)
        return "removed agent-guard's hooks from " + ", ".join(str(p) for p in done)
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


@click.command("uninstall", context_settings=CONTEXT)
@click.argument("agent", required=False, type=click.Choice(list(AGENTS)))
@click.option("--yes", is_flag=True, help="Remove them (without it: list what would be removed, remove nothing).")
@click.option("--cache", is_flag=True, help="Also the user's parsed-policy cache, which every repository shares.")
@click.option("--user", is_flag=True, help="With AGENT: the user's settings, not this repository's.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def uninstall_cmd(agent: str | None, yes: bool, cache: bool, user: bool, quiet: bool) -> None:
    """Without --yes, lists them and removes nothing.  The recorded turns go with the
    refs (push them first to keep them).  Your own files that name agent-guard
    (.agent-guard.yaml, pre-commit and agent settings) are listed, not touched;
    the program itself goes with pip uninstall agent-guard.

    With AGENT (claude-code, codex): take the hooks `agent-guard install AGENT` wrote
    out of that agent's settings (with --user, the user's), now; everything else stays.
    """
    if agent is not None:
        if yes or cache:
            raise click.UsageError("uninstall AGENT takes --user and --quiet only")
        removed = remove_hooks(agent, user)
        if not quiet:
            click.echo(removed)
        return
    if user:
        raise click.UsageError("--user goes with AGENT: agent-guard uninstall claude-code --user")
    in_a_repository()
    from ..files.workspace import Workspace
    from ..turns import footprint

    g = Workspace(".")
    g.recover()
    found = footprint.items(g, cache)
    said = [f"would remove {footprint.described(i)}" for i in found] if not yes else footprint.remove(g, found)
    if not found:
        said = ["agent-guard keeps nothing for this repository"]
    mine = footprint.left_to_the_user(g)
    if mine:
        said.append(f"left as they are (yours to edit): {', '.join(mine)}")
    if not yes and found:
        said.append("nothing was removed: run again with --yes to remove them")
    if not quiet:
        for line in said:
            click.echo(f"agent-guard: {line}")
