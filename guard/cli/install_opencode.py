"""`agent-guard install opencode` and `uninstall opencode`: OpenCode's ``opencode.json`` read, changed and written.

The project scope is ``opencode.json`` at the top of the repository (OpenCode finds it from any
folder of the project); the user scope (--user) is OpenCode's global file,
``$XDG_CONFIG_HOME/opencode/opencode.json`` (default ``~/.config/opencode``).  What goes in is
``adapters.opencode_config``'s; the file is read and written as Claude Code's settings are
(``json_settings``: a file that is not a JSON object is left as it is).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import click

from ..adapters import install
from ..adapters import opencode_config as oc
from .json_settings import read_object as read
from .json_settings import write_object as write


def config_file(user: bool) -> Path:
    """Where the set-up goes: OpenCode's global file, or the project's at the repository's top."""
    if user:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        return Path(os.path.abspath(base)) / "opencode" / "opencode.json"
    from ..repo import GitRepo
    from .base import in_a_repository

    in_a_repository(".")
    return Path(GitRepo(".").root) / "opencode.json"


def installed(user: bool, show: bool) -> list[str]:
    """`install opencode`: write the set-up (with `show`, only print it); the lines to say."""
    program = install.this_program()
    if show:
        return [json.dumps(oc.with_ours({}, program), indent=2)]
    path = config_file(user)
    old = read(path)
    try:
        new = oc.with_ours(old, program)
    except oc.ConfigError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    if new == old:
        return [f"already installed: {path}"]
    write(path, new)
    said = [
        f"wrote {path}: the MCP server {oc.SERVER} runs\n  {' '.join(oc.server(program)['command'])}",
        '  and OpenCode\'s own edit, write and apply_patch tools are denied (permission.edit = "deny")',
        *(f"  (replaced: {r})" for r in oc.replaced(old, program)),
        "note: OpenCode's bash tool is not guarded by this: what a command writes lands unchecked and is not "
        "recorded; run OpenCode as `agent-guard run --agent opencode -- opencode ...` to record and check it",
    ]
    if path.with_suffix(".jsonc").exists():
        said.append(f"note: OpenCode reads {path.with_suffix('.jsonc')} after it: an mcp or permission entry there wins")
    if not user:
        said.append(f"note: {path} names this machine's installation: keep it out of commits, or install with --user")
    if importlib.util.find_spec("mcp") is None:
        said.append(
            "note: agent-guard mcp needs the MCP SDK, which is not installed: "
            "pip install 'mcp>=2.0' (the git-agent-guard[mcp] extra)"
        )
    return said


def removed(user: bool) -> str:
    """`uninstall opencode`: take the set-up out again (a file left empty goes); what was done."""
    path = config_file(user)
    old = read(path)
    try:
        new = oc.without_ours(old)
    except oc.ConfigError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    if new == old:
        return f"not installed: {path}"
    if new:
        write(path, new)
    else:
        path.unlink()
    return f"removed agent-guard's MCP server and the edit deny from {path}"
