"""The click commands `install` and `uninstall`: an agent harness's hook settings written for it, and taken out.

`install claude-code` merges agent-guard's hooks into Claude Code's settings (the project's
`.claude/settings.local.json`, or with --user the user's `settings.json`), running this
installation by its absolute path in a form that blocks when it cannot run
(``adapters.install``).  The settings are read, changed and written here; a file that is not
a JSON object is left as it is, with the reason.  `install codex` writes Codex's config.toml
files (``install_codex``), `install gemini` Gemini CLI's settings.json (``install_gemini``),
`install copilot` and `install cursor` their JSON hooks files (``install_json``), `install opencode`
OpenCode's opencode.json (``install_opencode``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from .base import CONTEXT, in_a_repository
from .json_settings import read_object as _read
from .json_settings import write_object as _write

AGENTS = ("claude-code", "codex", "gemini", "copilot", "cursor", "opencode")


def _settings_file(user: bool) -> Path:
    """Where Claude Code reads the settings: the user's (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), or
    the project's personal file at the top of the repository the command runs in."""
    if user:
        base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
        return Path(base) / "settings.json"
    in_a_repository(".")
    from ..repo import GitRepo

    return GitRepo(".").root / ".claude" / "settings.local.json"


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


@install_group.command("gemini", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's settings (every folder), not this repository's.")
@click.option("--mcp", is_flag=True, help="Also agent-guard's MCP server.")
@click.option("--print", "show", is_flag=True, help="Print what would be written, and where, instead of writing it.")
def install_gemini(user: bool, mcp: bool, show: bool) -> None:
    """Write agent-guard's BeforeTool and AfterTool hooks into Gemini CLI's settings.json.

    The project's `.gemini/settings.json` (Gemini reads it when started in the
    repository's top folder), or with --user `~/.gemini/settings.json`.  The hooks
    run this installation by its absolute path for Gemini's write_file, replace and
    run_shell_command, and block the tool call when agent-guard cannot run.  Other
    settings and hooks are kept; running it again replaces agent-guard's own
    entries.  A file that is not JSON is left as it is.
    """
    from .install_codex import written
    from .install_gemini import planned

    change, said = planned(user, mcp)
    if show:
        click.echo(f"# {change.path}\n{change.new}", nl=False)
        return
    if not written([change]):
        click.echo(f"already installed: {change.path}")
        return
    click.echo("wrote " + "\n".join(said))


@install_group.command("copilot", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's hooks folder (every repository), not this repository's.")
@click.option("--print", "show", is_flag=True, help="Print what would be written, and where, instead of writing it.")
def install_copilot(user: bool, show: bool) -> None:
    """Write agent-guard's preToolUse, postToolUse and postToolUseFailure hooks for GitHub Copilot CLI.

    The repository's `.github/hooks/agent-guard.json`, or with --user
    `$COPILOT_HOME/hooks/agent-guard.json` (default `~/.copilot/hooks`).  The hooks
    run this installation by its absolute path for Copilot's shell and file tools,
    and deny the tool call (on standard output, which every Copilot release reads)
    when agent-guard cannot run.  Running it again replaces agent-guard's own hooks.
    """
    from .install_json import install

    install("copilot", user, show)


@install_group.command("cursor", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's hooks file (every project), not this repository's.")
@click.option("--print", "show", is_flag=True, help="Print what would be written, and where, instead of writing it.")
def install_cursor(user: bool, show: bool) -> None:
    """Write agent-guard's preToolUse, postToolUse and postToolUseFailure hooks into Cursor's hooks.json.

    The project's `.cursor/hooks.json`, or with --user `~/.cursor/hooks.json`.  The
    hooks run this installation by its absolute path for Cursor's shell and file
    tools; preToolUse is failClosed, and the command exits 2 (a denial) when
    agent-guard cannot run.  The file's other hooks are kept; running it again
    replaces agent-guard's own.  A file that is not a JSON object is left as it is.
    """
    from .install_json import install

    install("cursor", user, show)


@install_group.command("opencode", context_settings=CONTEXT)
@click.option("--user", is_flag=True, help="The user's config (every project), not this repository's.")
@click.option("--print", "show", is_flag=True, help="Print the settings instead of writing them.")
def install_opencode(user: bool, show: bool) -> None:
    """Write agent-guard's MCP server into OpenCode's opencode.json, and deny OpenCode's own edits.

    The project's `opencode.json` at the top of the repository, or with --user
    `$XDG_CONFIG_HOME/opencode/opencode.json` (default `~/.config/opencode`).  The
    server runs this installation by its absolute path; `permission.edit = "deny"`
    takes OpenCode's own edit, write and apply_patch tools away, so its edits go
    through agent-guard's tools.  OpenCode's bash tool is not covered.  Other
    settings are kept; running it again replaces agent-guard's own entry.
    """
    from .install_opencode import installed

    for line in installed(user, show):
        click.echo(line)


def remove_hooks(agent: str, user: bool) -> str:
    """Take agent-guard's hooks out of `agent`'s settings (`agent-guard uninstall AGENT`); what was done."""
    from ..adapters import install
    from ..adapters.install import SettingsError

    assert agent in AGENTS, agent
    if agent in ("copilot", "cursor"):
        from .install_json import uninstall

        return uninstall(agent, user)
    if agent == "opencode":
        from .install_opencode import removed

        return removed(user)
    if agent == "codex":
        from .install_codex import unplanned, written

        changes = unplanned(user)
        done = written(changes)
        if not done:
            return "not installed: " + ", ".join(str(c.path) for c in changes)
        return "removed agent-guard's hooks from " + ", ".join(str(p) for p in done)
    if agent == "gemini":
        from . import install_codex, install_gemini

        change = install_gemini.unplanned(user)
        done = install_codex.written([change])
        return f"removed agent-guard's hooks from {change.path}" if done else f"not installed: {change.path}"
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

    With AGENT (claude-code, codex, gemini, copilot, cursor, opencode): take what `agent-guard install AGENT` wrote
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
