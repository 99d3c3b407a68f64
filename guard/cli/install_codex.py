"""`agent-guard install codex` and `uninstall codex`: Codex's config files read, changed and written.

The user scope (--user) is one file, ``$CODEX_HOME/config.toml`` (default ``~/.codex``): the
hooks, their trust, and with --mcp the MCP server.  The project scope is two: the hooks (and the
MCP server) in ``<repository>/.codex/config.toml``, which Codex reads from any folder of the
project once the project is trusted, and their trust in the user's file, which is the only
place Codex takes trust from.  What goes in each file is ``adapters.codex_config``'s; here the
files are read, each change planned whole before any file is written, and written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import click

from ..adapters import codex_config as cc
from ..adapters import install


@dataclass(frozen=True, slots=True)
class Change:
    """One file's text before (None: no file) and after."""

    path: Path
    old: str | None
    new: str
    own_folder: bool = False  # the folder is the project's .codex/: it goes when an uninstall leaves it empty


def user_config() -> Path:
    """Codex's user config: ``$CODEX_HOME/config.toml``, else ``~/.codex/config.toml``."""
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return Path(os.path.abspath(home)) / "config.toml"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read {path}: {exc}; left as it is") from None


def _project() -> tuple[Path, list[str]]:
    """The repository's project config, and each spelling of its path Codex may key trust by: the
    real one, and the one through the symbolic links of the folder the user works in ($PWD)."""
    from ..repo import GitRepo
    from .base import in_a_repository

    in_a_repository(".")
    root = Path(GitRepo(".").root)
    spellings = [str(root)]
    logical = os.environ.get("PWD", "")
    while logical.startswith("/") and os.path.dirname(logical) != logical:
        if os.path.realpath(logical) == str(root):
            spellings.append(logical.rstrip("/"))
            break
        logical = os.path.dirname(logical)
    files = [os.path.join(s, ".codex", "config.toml") for s in dict.fromkeys(spellings)]
    return root / ".codex" / "config.toml", files


def _changed(path: Path, change: Callable[[str], str]) -> Change:
    """The change `change` (a function of the file's text) makes to `path`, or a usage error that
    leaves it as it is."""
    old = _read(path)
    try:
        new = change(old or "")
    except cc.ConfigError as exc:
        raise click.UsageError(f"{path}: {exc}; left as it is") from None
    return Change(path, old, new)


def planned(user: bool, mcp: bool) -> tuple[list[Change], list[str]]:
    """What `install codex` writes, and what it says about it."""
    command = cc.blocking(install.this_command(cc.SUBCOMMAND))
    body = cc.hooks_toml(command) + ("\n" + cc.mcp_toml(install.this_program()) if mcp else "")
    user_file = user_config()
    trusted_as = os.path.realpath(user_file)  # Codex keys its own file's hooks by the real path
    if user:

        def both(text: str) -> str:
            staged = cc.with_block(text, body)
            return cc.with_block(text, body + "\n" + cc.state_toml(cc.trusts(staged, trusted_as, command)))

        change = _changed(user_file, both)
        said = [
            f"{user_file}: PreToolUse and PostToolUse hooks for {cc.MATCHER} run\n  {command}",
            "  trusted there (hooks.state)",
        ]
        return [change], said + (["  and the MCP server agent-guard (required = true)"] if mcp else [])
    project_file, spellings = _project()
    change = _changed(project_file, lambda text: cc.with_block(text, body))
    entries: dict[str, str] = {}
    for spelling in spellings:
        entries.update(cc.trusts(change.new, spelling, command))
    trust = _changed(user_file, lambda text: cc.with_block(text, cc.state_toml(entries), f" trust {project_file}"))
    said = [
        f"{project_file}: PreToolUse and PostToolUse hooks for {cc.MATCHER} run\n  {command}",
        *(["  and the MCP server agent-guard (required = true)"] if mcp else []),
        f"{user_file}: they are trusted there (hooks.state: Codex takes trust from the user's file only)",
        f"note: {project_file} names this machine's installation: keep it out of commits",
    ]
    if not cc.trusted_project(trust.new, str(project_file.parent.parent)):
        said.append(
            f"note: Codex reads {project_file.parent}/ only in a trusted project: trust it once "
            "(`codex` asks; or `codex exec --trust`), or install with --user"
        )
    return [change, trust], said


def unplanned(user: bool) -> list[Change]:
    """What `uninstall codex` writes: agent-guard's blocks taken out of the files."""
    user_file = user_config()
    if user:
        return [_changed(user_file, cc.without_block)]
    project_file, _ = _project()
    mine = _changed(project_file, cc.without_block)
    return [
        Change(mine.path, mine.old, mine.new, own_folder=True),
        _changed(user_file, lambda text: cc.without_block(text, f" trust {project_file}")),
    ]


def written(changes: list[Change]) -> list[Path]:
    """Write each change that changes its file (a file left empty by an uninstall goes, and the
    project's .codex/ with it when that is left empty); the files written."""
    done = []
    for c in changes:
        if c.new == (c.old or "") and (c.old is not None or not c.new):
            continue
        done.append(c.path)
        if not c.new and c.old is not None:
            c.path.unlink()
            try:
                if c.own_folder:
                    c.path.parent.rmdir()
            except OSError:
                pass  # not empty: the user's files stay
            continue
        c.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = c.path.with_name(f".{c.path.name}.{os.getpid()}.tmp")
        tmp.write_text(c.new, encoding="utf-8")
        os.replace(tmp, c.path)
    return done
