"""`agent-guard install gemini` and `uninstall gemini`: Gemini CLI's settings.json read, changed and
written.

The user scope (--user) is ``~/.gemini/settings.json`` (``$GEMINI_CLI_HOME/.gemini`` when that is
set, as Gemini reads it); the project scope is ``<repository>/.gemini/settings.json``, which Gemini
reads when it starts in the repository's top folder.  What goes in is
``adapters.gemini_settings``'s; here the file is read, the change planned, and written
(``install_codex.written``).  The file is JSON: a file that is not (Gemini also reads comments in
it, which a JSON writer cannot keep) is left as it is, with the reason.  A value already there
is kept as it was written: a second install changes nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from ..adapters import gemini_settings as gs
from ..adapters import install
from ..adapters.codex_config import blocking
from .install_codex import Change


def user_settings() -> Path:
    """Gemini's user settings: ``$GEMINI_CLI_HOME/.gemini/settings.json``, else ``~/.gemini/settings.json``."""
    home = os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~")
    return Path(os.path.abspath(home)) / ".gemini" / "settings.json"


def project_settings() -> Path:
    """The settings of the repository the command runs in: ``<top folder>/.gemini/settings.json``."""
    from ..repo import GitRepo
    from .base import in_a_repository

    in_a_repository(".")
    return Path(GitRepo(".").root) / ".gemini" / "settings.json"


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text (None: no file) and its JSON object ({} when empty); a usage error that leaves
    it as it is when it cannot be read or is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {path}: {exc}; left as it is") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise click.UsageError(
            f"{path} is not JSON ({exc}); if it holds comments, which Gemini reads but agent-guard "
            "cannot keep, take them out (or merge `agent-guard install gemini --print` by hand); left as it is"
        ) from None
    if not isinstance(data, dict):
        raise click.UsageError(f"{path} holds a JSON {type(data).__name__}, not an object; left as it is")
    return text, data


def _change(path: Path, old: str | None, before: dict[str, Any], after: dict[str, Any], own_folder: bool = False) -> Change:
    """The file's change: none when the values are the same (the user's layout kept), no file when
    nothing is left in it (and, `own_folder`, no folder when nothing is left in that)."""
    if after == before:
        return Change(path, old, old or "")
    return Change(path, old, json.dumps(after, indent=2) + "\n" if after else "", own_folder)


def planned(user: bool, mcp: bool) -> tuple[Change, list[str]]:
    """What `install gemini` writes, and what it says about it."""
    command = blocking(install.this_command(gs.SUBCOMMAND))
    path = user_settings() if user else project_settings()
    old, before = _read(path)
    try:
        after = gs.with_ours(before, command, install.this_program() if mcp else None)
    except install.SettingsError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    said = [f"{path}: BeforeTool and AfterTool hooks for {gs.MATCHER} run\n  {command}"]
    if mcp:
        said.append(f"  and the MCP server {gs.MCP_SERVER} (its tools: mcp_{gs.MCP_SERVER}_*)")
    others = [] if user else [(user_settings(), _read(user_settings())[1])]  # Gemini merges the two
    for where, settings in [(path, after), *others]:
        off = gs.switched_off(settings)
        if off is not None:
            said.append(f"warning: {where}: {off}")
    if not user:
        said.append(f"note: {path} names this machine's installation: keep it out of commits")
        top = path.parent.parent
        said.append(f"note: Gemini reads it when started in {top} (not in a subfolder); --user covers every folder")
    said.append(
        "note: Gemini runs no hook in a folder you have not trusted (it asks; headless runs need "
        "GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust, or they refuse to start)"
    )
    return _change(path, old, before, after), said


def unplanned(user: bool) -> Change:
    """What `uninstall gemini` writes: agent-guard's hooks and MCP server taken out of the file."""
    path = user_settings() if user else project_settings()
    old, before = _read(path)
    try:
        after = gs.without_ours(before)
    except install.SettingsError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    return _change(path, old, before, after, own_folder=not user)
