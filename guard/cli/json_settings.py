"""An agent's JSON settings file, read and written for `agent-guard install` and `uninstall`: a JSON
object or nothing, never a file half written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object `path` holds (``{}`` when there is no file, or nothing in it); a usage error
    that leaves any other file as it is."""
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


def text(data: dict[str, Any]) -> str:
    """The file's text for `data`."""
    return json.dumps(data, indent=2) + "\n"


def write_object(path: Path, data: dict[str, Any]) -> None:
    """Write `data` to `path` whole (its folder made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text(data), encoding="utf-8")
    os.replace(tmp, path)
