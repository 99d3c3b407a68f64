"""Gemini CLI's tool calls paired without an id: which BeforeTool an AfterTool belongs to.

Gemini CLI (0.61.0) sends no tool-call id in its hook payloads, yet the core keeps what a pre hook
found (a file's content, a work tree's snapshot) under the call's id for its post hook
(``hook.stash``).  The id is made here, from what the payload has:

- the call's *key*: a hash of the session, the tool's name and its whole input (the file's path
  and the text it writes).  Gemini hands the AfterTool the same input the BeforeTool had (unless
  a hook rewrote it, or the user changed the edit while approving it: then the two keys differ);
- the session's *order*: each BeforeTool notes its call as open in the session's register, under
  its key and a fresh nonce, before anything is checked; the AfterTool with that key takes the
  oldest open call out again, and the id is the key and that call's nonce.

An AfterTool that finds no open call of its key gets an id no stash has (``unpaired``): the core
then goes by what Gemini reports of the write, as when no pre hook ran.  So an AfterTool is
never paired with another call's BeforeTool, least of all a denied one, whose write it would undo:

- another call has another key (another file, another text, another tool);
- a call Gemini did not run (denied: no AfterTool comes) stays open only until the next call of
  one of Gemini's edit tools.  Gemini runs those alone, never beside another call (its
  scheduler's rule), so their BeforeTool closes every call still open in the session.  Shell
  commands may run side by side, each BeforeTool before any AfterTool: theirs close nothing;
- the same call made again (the model retries an identical edit) notes a nonce of its own, and
  its AfterTool takes the call its BeforeTool opened.

The register is a small JSON file per session in the user's runtime folder (the one ``agent-guard
serve`` keeps its socket in), changed under a lock: Gemini starts the hooks of side-by-side shell
commands at the same time.  A BeforeTool that cannot note its call there fails, which blocks the
tool (the core's rule before a write): its AfterTool could not be paired.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from ..errors import UsageError

VERSION = 1  # of the register's format: a register of any other is empty
KEEP = 64  # open calls kept per session (shell commands denied or never answered), oldest dropped
REGISTER_DAYS = 1  # registers of sessions that ended are dropped after this
UNPAIRED = "unpaired"  # the nonce of an AfterTool without its BeforeTool: no stash has it


def key(data: dict[str, Any]) -> str:
    """The call's key: its session, tool and whole input, hashed."""
    what = [data.get("session_id"), data.get("tool_name"), data.get("tool_input")]
    text = json.dumps(what, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def call_id(key: str, nonce: str) -> str:
    """The id the core keeps the call's stash under."""
    return f"gemini-{key}-{nonce}"


def opened(data: dict[str, Any], alone: bool) -> str:
    """BeforeTool: note the call as open in its session; its id.  `alone`: Gemini runs this tool
    alone (its edit tools), so every call still open in the session was not run and is dropped.
    ``UsageError`` when the register cannot be kept."""
    mine = key(data)
    nonce = os.urandom(6).hex()
    path = _register(data, create=True)
    with _locked(path) as fd:
        calls = [] if alone else _read(fd)
        calls.append([mine, nonce])
        _write(fd, calls[-KEEP:])
    return call_id(mine, nonce)


def closed(data: dict[str, Any]) -> str:
    """AfterTool: the id of the open call it belongs to (taken out of the register), or an id no
    stash has when there is none (``UNPAIRED``): a register that cannot be read pairs nothing."""
    mine = key(data)
    try:
        path = _register(data, create=False)
        if not path.exists():
            return call_id(mine, UNPAIRED)
        with _locked(path) as fd:
            calls = _read(fd)
            for i, (k, nonce) in enumerate(calls):
                if k == mine:
                    del calls[i]
                    _write(fd, calls)
                    return call_id(mine, nonce)
    except (UsageError, OSError):
        pass
    return call_id(mine, UNPAIRED)


def _register(data: dict[str, Any], create: bool) -> Path:
    """The session's register (made when `create` is asked and it is missing; registers of
    sessions that ended long ago go then)."""
    from ..warm import client

    folder = Path(os.fsdecode(client.runtime_dir(os.environb, os.geteuid())))
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UsageError(f"cannot make {folder} to pair Gemini's AfterTool with this call: {exc.strerror}") from None
    problem = client.folder_problem(os.fsencode(folder), os.geteuid())
    if problem is not None:
        raise UsageError(f"cannot pair Gemini's AfterTool with this call: {problem}")
    pending = folder / "pending"
    session = hashlib.sha256(str(data.get("session_id", "")).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    path = pending / f"gemini-{session}.json"
    if create and not path.exists():
        try:
            pending.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make {pending} to pair Gemini's AfterTool with this call: {exc.strerror}") from None
        _sweep(pending)
    return path


def _sweep(pending: Path) -> None:
    cutoff = time.time() - REGISTER_DAYS * 86400
    for old in pending.glob("gemini-*.json"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


@contextmanager
def _locked(path: Path) -> Iterator[int]:
    """The register opened (made when missing, the user's alone) and locked for the block; its fd."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # the lock goes with it


def _read(fd: int) -> list[list[str]]:
    """The open calls the register holds, oldest first; none when it is not what ``_write`` writes."""
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    try:
        doc = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        return []
    calls = doc.get("open") if isinstance(doc, dict) and doc.get("version") == VERSION else None
    if not isinstance(calls, list):
        return []
    return [c for c in calls if isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)]


def _write(fd: int, calls: list[list[str]]) -> None:
    data = json.dumps({"version": VERSION, "open": calls}).encode()
    os.lseek(fd, 0, os.SEEK_SET)
    os.ftruncate(fd, 0)
    os.write(fd, data)
