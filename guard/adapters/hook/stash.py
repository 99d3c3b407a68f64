"""The stash: what the PostToolUse of one file tool call needs from its PreToolUse.

The two hooks of one tool call run in two processes.  The pre hook keeps what it found in
``<git common dir>/agent-guard/hooks/<name>.json`` (``name``: the call's ``tool_use_id``, which
each agent makes unique) and the post hook takes it away.  The record is one of two cases: the
pre hook passed the call (``Passed``: the post hook records the tool's change as the
agent's turn) or denied it (``Denied``: a write that happened anyway is undone).

``write`` is the only writer and ``take`` the only reader.  The file says its format
(``version``); ``take`` checks every field, and a file of another version, or one that is
not what ``write`` writes (not JSON, a field missing, extra or of the wrong type, content
that cannot be read back), is no stash at all.  The post hook then goes by what the agent
reports, as when the pre hook was not installed: the file as it was before the tool
(``tool_response.originalFile``), or, without one, a report that the write was not recorded.

Contents are kept as blob ids, or, for a file agents may not read (protected), in the file
itself in base64: protected contents are stored nowhere an agent's read could reach them.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from ...pipeline.engine import Guard

VERSION = 1  # of the file's format: a stash of any other is no stash
STASH_DAYS = 1  # stashes whose post hook never came (the tool failed) are dropped after this
_HEX = frozenset("0123456789abcdef")
_INLINE = "b64:"


@dataclass(frozen=True, slots=True)
class Stash:
    """What the pre hook saw of one call: the file (`path` in the repository, resolved), its content
    before the tool (None: no file there) and git mode, what the tool will make of it (`intended`:
    None when the tool's own match would fail, or the tool is not worked out), and whose turn it is."""

    path: str
    before: bytes | None
    mode: int | None
    intended: bytes | None
    agent: str
    turn: str | None


@dataclass(frozen=True, slots=True)
class Passed(Stash):
    """The pre hook passed the call."""

    missing_dirs: tuple[str, ...]  # folders missing on the way to the file: the tool makes them
    warnings: tuple[str, ...]  # the codes of what the check warned about (for `stats`)
    duration: float  # seconds the check took (for `stats`)


@dataclass(frozen=True, slots=True)
class Denied(Stash):
    """The pre hook denied the call."""

    reasons: tuple[str, ...]  # what the pre hook said


_COMMON = ("version", "path", "before", "mode", "intended", "agent", "turn")
_PASSED = frozenset(_COMMON + ("missing_dirs", "warnings", "duration"))
_DENIED = frozenset(_COMMON + ("denied",))


def folder(g: Guard) -> Path:
    """Where the hook keeps its stashes (made when missing)."""
    from ...tree import worktree

    d = worktree.tree_state_dir(g.repo) / "hooks"  # the work tree's: its files' contents
    d.mkdir(parents=True, exist_ok=True)
    return d


def name(data: dict[str, Any], rel: str) -> str:
    """The stash's file name for the call `data` names (its tool_use_id), of the file `rel`."""
    key = data.get("tool_use_id")
    if not isinstance(key, str) or not key:
        # Without an id, the call is named by what it asks: the session, the path, and a digest
        # of the tool and its input, which its pre and post hooks both carry.  The session and path
        # alone would pair a post hook with another call's stash (a denied call that never ran),
        # and undo a write no denial was about.
        import hashlib

        asked = json.dumps([data.get("tool_name"), data.get("tool_input")], sort_keys=True, default=str)
        digest = hashlib.sha256(asked.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        key = f"{digest}-{data.get('session_id', '')}-{rel}"  # the digest first: the name is cut at 200
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)[:200] + ".json"


def sweep(g: Guard) -> Path:
    """The stash folder (``folder``), without the stashes older than ``STASH_DAYS``: a post hook
    that never came (the tool failed, or a denial held), a temporary file a deadline cut short."""
    d = folder(g)
    cutoff = time.time() - STASH_DAYS * 86400
    for old in d.glob("*"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
    return d


def write(g: Guard, called: str, stash: Stash) -> None:
    """Keep `stash` under the name `called` (``name``), whole or not at all; stashes older than
    ``STASH_DAYS`` go (a post hook that never came; a temporary file a deadline cut short)."""
    from ...files import paths

    d = sweep(g)
    inline = paths.read_finding(stash.path, g.policy(stash.agent)) is not None
    doc = as_json(g, stash, inline)
    tmp = d / f".{os.getpid()}.tmp"
    tmp.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(tmp, d / called)


def take(g: Guard, called: str, rel: str) -> Passed | Denied | None:
    """The stash kept under `called` for the file `rel`, taken away; None when there is none, or
    none this version of agent-guard wrote for `rel` (see the module doc)."""
    from ...fs.filekind import read_regular

    path = folder(g) / called
    try:
        doc = json.loads(read_regular(path))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    try:
        stash = from_json(g, doc)
    except ValueError:
        return None
    return stash if stash.path == rel else None


def as_json(g: Guard, stash: Stash, inline: bool) -> dict[str, object]:
    """The stash as its file holds it; contents as blob ids, or (`inline`) in base64."""
    doc: dict[str, object] = {
        "version": VERSION,
        "path": stash.path,
        "before": _keep(g, stash.before, inline),
        "mode": stash.mode,
        "intended": _keep(g, stash.intended, inline),
        "agent": stash.agent,
        "turn": stash.turn,
    }
    if isinstance(stash, Denied):
        doc["denied"] = list(stash.reasons)
    elif isinstance(stash, Passed):
        doc.update(missing_dirs=list(stash.missing_dirs), warnings=list(stash.warnings), duration=stash.duration)
    else:
        raise TypeError(f"a stash is Passed or Denied, not {type(stash).__name__}")
    return doc


def from_json(g: Guard, doc: object) -> Passed | Denied:
    """The stash a file holds: ``ValueError`` for anything ``as_json`` does not write."""
    if not isinstance(doc, dict):
        raise ValueError("a stash is a JSON object")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        raise ValueError(f"a stash of format {version!r}, not {VERSION}")
    keys = frozenset(doc)
    if keys not in (_PASSED, _DENIED):
        raise ValueError(f"a stash's fields are not those of format {VERSION}: {sorted(keys)}")
    path, agent = _text(doc["path"], "path"), _text(doc["agent"], "agent")
    turn = None if doc["turn"] is None else _text(doc["turn"], "turn")
    before, intended, mode = _content(g, doc["before"]), _content(g, doc["intended"]), _mode(doc["mode"])
    if keys == _DENIED:
        reasons = _texts(doc["denied"], "denied")
        return Denied(path=path, before=before, mode=mode, intended=intended, agent=agent, turn=turn, reasons=reasons)
    duration = doc["duration"]
    if not _number(duration) or not math.isfinite(duration) or duration < 0:
        raise ValueError(f"a stash's duration is {duration!r}")
    return Passed(
        path=path,
        before=before,
        mode=mode,
        intended=intended,
        agent=agent,
        turn=turn,
        missing_dirs=_texts(doc["missing_dirs"], "missing_dirs"),
        warnings=_texts(doc["warnings"], "warnings"),
        duration=float(duration),
    )


def _keep(g: Guard, content: bytes | None, inline: bool) -> str | None:
    if content is None:
        return None
    if inline:
        import base64

        return _INLINE + base64.b64encode(content).decode("ascii")
    return g.repo.write_blob(content)


def _content(g: Guard, kept: object) -> bytes | None:
    """Content as ``_keep`` kept it: None, base64 after ``b64:``, or the id of a blob that is there."""
    if kept is None:
        return None
    if not isinstance(kept, str):
        raise ValueError(f"a stash's content is {type(kept).__name__}")
    if kept.startswith(_INLINE):
        import base64
        import binascii

        try:
            return base64.b64decode(kept[len(_INLINE) :], validate=True)
        except binascii.Error:
            raise ValueError("a stash's content is not base64") from None
    if len(kept) not in (40, 64) or not _HEX.issuperset(kept):  # a full id, never a revision to look up
        raise ValueError(f"a stash's content is no blob id: {kept[:80]!r}")
    data = g.repo.read_blob(kept)
    if data is None:
        raise ValueError(f"a stash's blob {kept} is not in the repository")
    return data


def _mode(mode: object) -> int | None:
    if mode is None or (isinstance(mode, int) and not isinstance(mode, bool)):
        return mode
    raise ValueError(f"a stash's mode is {mode!r}")


def _number(value: object) -> TypeGuard[int | float]:
    """An int or a float, as JSON gives them (``true`` is no number, though Python counts it one)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"a stash's {what} is {value!r}, not a name")
    return value


def _texts(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"a stash's {what} is not a list of strings")
    return tuple(value)
