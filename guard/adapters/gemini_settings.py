"""Gemini CLI's settings for agent-guard: its hooks (and, with --mcp, its MCP server) merged into a
``settings.json``, and taken out again.

Gemini CLI (0.61.0) reads hooks from the ``hooks`` object of the user's settings
(``~/.gemini/settings.json``, under ``$GEMINI_CLI_HOME`` when that is set) and of the folder it
starts in (``<folder>/.gemini/settings.json``), in Claude Code's shape with its own event names:
``{"hooks": {"BeforeTool": [{"matcher": REGEX, "hooks": [{"name", "type": "command", "command",
"timeout": MS}]}], "AfterTool": [...]}}``.  Observed with the real program and read in its source:

- the matcher is a regular expression tested against the tool's name (not anchored: ours is);
- the timeout is in milliseconds, and a hook that outlives it lets the tool run;
- the command runs through ``bash -c``.  Exit 1, and output that is not JSON, let the tool run;
  any status from 2 up with text denies; a missing program (bash's 127 and its message) denies
  too.  ``codex_config.blocking`` wraps the command, as for Codex, so that a program that cannot
  start, or dies (exit 1 from a Python that cannot import agent-guard), denies with a reason;
- Gemini runs no hook at all, the user's or the project's, in a folder the user has not trusted
  (headless runs refuse to start there); a project's hooks it has not seen before are run with
  a warning and then trusted by Gemini itself (``~/.gemini/trusted_hooks.json``), so there is no
  trust for ``install`` to write;
- MCP servers are ``mcpServers.NAME: {command, args}``; a headless run waits for them to start.

The functions take and give values: reading and writing the file is the caller's (``agent-guard
install gemini``).
"""

from __future__ import annotations

from typing import Any

from . import install

EVENTS = ("BeforeTool", "AfterTool")
MATCHER = "^(write_file|replace|run_shell_command)$"  # Gemini's edit tools and its shell; not MCP tools
TIMEOUT_MS = 30000  # what Gemini gives each hook call (the hook's own deadline is under it)
SUBCOMMAND = "hook gemini"
NAME = "agent-guard"  # the hook's name (Gemini shows it, and `hooksConfig.disabled` lists hooks by it)
MCP_SERVER = "agent-guard"  # its tools reach Gemini as mcp_agent-guard_*
MCP_ARGS = ["mcp", "--agent", "gemini"]


def hooks(command: str) -> dict[str, list[Any]]:
    """Both events running `command` (already ``blocking``) for Gemini's edit tools and its shell."""
    hook = {"name": NAME, "type": "command", "command": command, "timeout": TIMEOUT_MS}
    return {event: [{"matcher": MATCHER, "hooks": [dict(hook)]}] for event in EVENTS}


def mcp_server(program: list[str]) -> dict[str, Any]:
    """agent-guard's MCP server, run by `program` (``install.this_program``)."""
    return {"command": program[0], "args": [*program[1:], *MCP_ARGS]}


def _our_server(entry: object) -> bool:
    args = entry.get("args") if isinstance(entry, dict) else None
    return isinstance(args, list) and args[-len(MCP_ARGS) :] == MCP_ARGS


def _servers(settings: dict[str, Any]) -> dict[str, Any]:
    servers = settings.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise install.SettingsError(f'"mcpServers" is a {type(servers).__name__}, not an object')
    return servers


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` without agent-guard's hooks and MCP server; everything else as it was."""
    out = install.without_ours(settings, EVENTS, SUBCOMMAND)
    servers = _servers(out)
    if _our_server(servers.get(MCP_SERVER)):
        rest = {k: v for k, v in servers.items() if k != MCP_SERVER}
        if rest:
            out["mcpServers"] = rest
        else:
            out.pop("mcpServers")
    return out


def with_ours(settings: dict[str, Any], command: str, mcp: list[str] | None = None) -> dict[str, Any]:
    """`settings` with agent-guard's hooks (running `command`) in place of any it had, after the
    user's own; with `mcp` (the program, ``install.this_program``) its MCP server too.
    ``install.SettingsError`` when the file is not the shape Gemini reads, or names another
    server ``agent-guard``."""
    out = install.with_ours(without_ours(settings), command, hooks(command), SUBCOMMAND)
    if mcp is not None:
        servers = _servers(out)
        if MCP_SERVER in servers:
            raise install.SettingsError(f'"mcpServers.{MCP_SERVER}" is there already, and is not the one `install` writes')
        out["mcpServers"] = {**servers, MCP_SERVER: mcp_server(mcp)}
    return out


def switched_off(settings: dict[str, Any]) -> str | None:
    """Why Gemini would not run agent-guard's hooks by what `settings` says (``hooksConfig``), or None."""
    conf = settings.get("hooksConfig")
    if not isinstance(conf, dict):
        return None
    if conf.get("enabled") is False:
        return '"hooksConfig.enabled" is false there: Gemini runs no hook'
    disabled = conf.get("disabled")
    if isinstance(disabled, list) and NAME in disabled:
        return f'"hooksConfig.disabled" names {NAME!r} there: Gemini skips it'
    return None
