"""An agent's JSON settings file (Claude Code's settings.json, OpenCode's opencode.json), read as an
object and written whole, for `agent-guard install` and `uninstall`.

A file that cannot be read, is not JSON or is not an object is a usage error that says why and
leaves the file as it is: agent-guard never overwrites settings it could not read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click


def read(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} when there is no file, or it is empty); a usage error that leaves it
    as it is when it cannot be read or is not a JSON object."""
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


def write(path: Path, data: dict[str, Any]) -> None:
    """`data` as the whole file, replacing it in one step (its folder made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
