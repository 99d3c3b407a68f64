"""`agent-guard install copilot|cursor` and `uninstall copilot|cursor`: their JSON hooks files read,
changed and written.

Copilot CLI: agent-guard's own file in a hooks folder Copilot reads every ``*.json`` of, the
repository's ``.github/hooks/agent-guard.json`` or, with --user, ``$COPILOT_HOME/hooks/`` (default
``~/.copilot/hooks/``).  Cursor: the one hooks file it reads, the project's ``.cursor/hooks.json``
or, with --user, ``~/.cursor/hooks.json``, shared with the user's own hooks.  What goes in them is
``adapters.hooks_file``'s; here the files are read, changed and written (a file that is not a
JSON object is left as it is, with the reason).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import click

from ..adapters import hooks_file as hf
from .json_settings import read_object as _read
from .json_settings import text
from .json_settings import write_object as _write

SPECS = {"copilot": hf.COPILOT, "cursor": hf.CURSOR}


def _root() -> Path:
    from ..repo import GitRepo
    from .base import in_a_repository

    in_a_repository(".")
    return Path(GitRepo(".").root)


def hooks_path(spec: hf.Spec, user: bool) -> tuple[Path, tuple[Path, ...]]:
    """The file agent-guard's hooks go in, and the folders an uninstall takes away when it leaves them
    empty (those `install` may have made in the repository; never the user's own)."""
    if spec is hf.COPILOT:
        if user:
            home = os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
            return Path(os.path.abspath(home)) / "hooks" / "agent-guard.json", ()
        github = _root() / ".github"
        return github / "hooks" / "agent-guard.json", (github / "hooks", github)
    if user:
        return Path(os.path.expanduser("~")) / ".cursor" / "hooks.json", ()
    folder = _root() / ".cursor"
    return folder / "hooks.json", (folder,)


def _changed(path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The file's JSON object, and what `change` makes of it; a usage error leaves a file `change`
    refuses as it is."""
    old = _read(path)
    try:
        new = change(old)
    except hf.HooksFileError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    return old, new


def install(agent: str, user: bool, show: bool) -> None:
    """`agent-guard install AGENT` for Copilot CLI or Cursor: what it writes, and what it says."""
    spec = SPECS[agent]
    command = hf.command(spec)
    path, _ = hooks_path(spec, user)
    old, new = _changed(path, lambda doc: hf.with_ours(spec, doc, command))
    if show:
        click.echo(f"# {path}\n{text(new)}", nl=False)
        return
    if new == old and path.is_file():
        click.echo(f"already installed: {path}")
        return
    _write(path, new)
    said = [f"wrote {path}: {', '.join(spec.events)} hooks for {spec.matcher} run\n  {command}"]
    if spec is hf.CURSOR:
        said.append("  preToolUse with failClosed: a hook that crashes, times out or answers no JSON blocks the tool")
        if not user:
            said.append("note: Cursor runs a project's hooks only in a trusted workspace")
    if not user:
        said.append(f"note: {path} names this machine's installation: keep it out of commits")
    click.echo("\n".join(said))


def uninstall(agent: str, user: bool) -> str:
    """`agent-guard uninstall AGENT` for Copilot CLI or Cursor: agent-guard's hooks taken out; what was done."""
    spec = SPECS[agent]
    path, folders = hooks_path(spec, user)
    old, new = _changed(path, lambda doc: hf.without_ours(spec, doc))
    if not path.is_file() or not hf.holds_ours(spec, old):
        return f"not installed: {path}"
    if new:
        _write(path, new)
    else:
        path.unlink()  # nothing but agent-guard's hooks was in it
        for folder in folders:
            try:
                folder.rmdir()
            except OSError:
                break  # not empty: the user's files stay
    return f"removed agent-guard's hooks from {path}"
