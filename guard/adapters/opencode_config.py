"""OpenCode's configuration for agent-guard: agent-guard's MCP server, and OpenCode's own file edits
denied, merged into an ``opencode.json`` and taken out again.

OpenCode (1.18.33) runs no command before a tool, so agent-guard reaches it as an MCP server: the
``mcp`` object of an ``opencode.json`` names it (a ``local`` server is a command OpenCode starts in
the project's folder, and its tools reach the model as ``agent-guard_edit_file``...), and
``permission.edit = "deny"`` takes OpenCode's own ``edit``, ``write`` and ``apply_patch`` tools out
of the tools the model is offered (both observed with the real program).  OpenCode merges every
``opencode.json`` it loads key by key: the user's, and the project's, which it finds from the
folder it starts in up to the repository's top.

The server's command is this installation by absolute path, so OpenCode's PATH does not matter;
when it cannot start, OpenCode carries on without its tools, and with its own edit tools denied
the model has no file tool left to edit with.  The functions take and give values: reading and
writing the file is the caller's (``agent-guard install opencode``).
"""

from __future__ import annotations

import json
from typing import Any

SERVER = "agent-guard"  # the key in "mcp": the tools' prefix, and what tells ours from the user's
AGENT = "opencode"  # the agent name its turns are recorded under
SCHEMA = "https://opencode.ai/config.json"


class ConfigError(ValueError):
    """An opencode.json that is not the shape OpenCode reads: left as it is, never overwritten."""


def server(program: list[str]) -> dict[str, Any]:
    """The ``mcp`` entry that starts agent-guard's MCP server with `program` (``install.this_program``)."""
    return {"type": "local", "command": [*program, "mcp", "--agent", AGENT], "enabled": True}


def _object(config: dict[str, Any], key: str) -> dict[str, Any]:
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f'"{key}" is a {type(value).__name__}, not an object')
    return value


def with_ours(config: dict[str, Any], program: list[str]) -> dict[str, Any]:
    """`config` with agent-guard's MCP server in place of any entry of that name, and OpenCode's own
    edits denied; every other setting as it was.  A new file gets the schema line first."""
    mcp, permission = _object(config, "mcp"), _object(config, "permission")
    out: dict[str, Any] = dict(config) if config else {"$schema": SCHEMA}
    out["mcp"] = {**mcp, SERVER: server(program)}
    out["permission"] = {**permission, "edit": "deny"}
    return out


def without_ours(config: dict[str, Any]) -> dict[str, Any]:
    """`config` with agent-guard's MCP server and, with it, the edit deny taken out (an object left
    empty goes too, and a file left with nothing but its schema line is empty)."""
    mcp, permission = dict(_object(config, "mcp")), dict(_object(config, "permission"))
    if SERVER not in mcp:
        return dict(config)  # not installed: an edit deny of the user's own stays
    out = dict(config)
    del mcp[SERVER]
    if permission.get("edit") == "deny":
        del permission["edit"]
    for key, value in (("mcp", mcp), ("permission", permission)):
        if value:
            out[key] = value
        else:
            out.pop(key, None)
    return {} if set(out) <= {"$schema"} else out


def replaced(config: dict[str, Any], program: list[str]) -> list[str]:
    """What `with_ours` changes of the user's own settings, said for the install's output."""
    said = []
    old = _object(config, "permission").get("edit")
    if old is not None and old != "deny":
        said.append(f"permission.edit was {json.dumps(old)}")
    mine = _object(config, "mcp").get(SERVER)
    if mine is not None and mine != server(program):
        said.append(f"mcp.{SERVER} was {json.dumps(mine)}")
    return said
