"""The edit-outcome log: one JSON line per apply or check, under the git directory.

Every decision agent-guard makes on an edit (applied, would apply, refused) appends
one event to ``<commondir>/agent-guard/events.jsonl``, so ``agent-guard stats`` can
say which agent lands edits in which dialect and what it gets wrong.  An event is::

    {"v": 1, "time": "2026-01-01T12:00:00.123Z", "kind": "apply" | "check",
     "agent": "claude", "turn": "7" | null, "dialect": "unified" | null,
     "status": "applied" | "checked" | "refused", "dry_run": false,
     "files": ["src/a.py"], "nfiles": 1, "added": 3, "removed": 1,
     "repairs": ["recount"], "errors": ["not-found"], "warnings": [],
     "size": 1234, "duration": 0.0123, "tool": "Edit", "verify": ["tests"]}

``tool`` is there only when the edit came through an agent's own tool rather than in a
dialect the agent wrote: the Claude Code hook (``Edit``, ``MultiEdit``, ``Write``,
``NotebookEdit``: a denial is logged at PreToolUse, a landed edit at PostToolUse, so a
tool call counts once) and the MCP server (``edit_file``, ``write_file``, ``apply_patch``).
``verify`` is there only when the policy's verify commands refused the edit: the names of
those that failed or ran out of time (guard/verify/).  ``kept`` (true) is there only when the
checks refused a change that stays in the work tree all the same: a shell command's, which is
written before it is judged, under ``shell.on_violation: warn`` (or a revert that failed).
Paths and counts only: never file contents, never the edit's text.

Concurrent writers (several agents, linked worktrees sharing one common dir) are
safe because each event is a single ``write()`` of one whole line on an
``O_APPEND`` descriptor: the kernel positions and writes it in one step, so lines
never interleave.  The log is bounded: when ``events.jsonl`` reaches
``MAX_BYTES`` it becomes ``events.1.jsonl`` (and ``.1`` becomes ``.2``, ...; the
oldest past ``KEEP`` is dropped).  Rotation renames under an exclusive ``flock``
on ``events.lock`` and re-checks the size once it holds the lock, so two writers
that both saw a full log rotate it once.  A writer that opened the file just before
a rotation lands its line in ``events.1.jsonl``: late, not lost.  Readers take the
lock shared, so they never see a half-rotated set.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ..fs.filekind import NotRegular, kind, read_regular

if TYPE_CHECKING:
    from datetime import datetime

    from . import Report

VERSION = 1
DIRNAME = "agent-guard"
LOG = "events.jsonl"
LOCK = "events.lock"
MAX_BYTES = 5 * 1024 * 1024  # per file
KEEP = 2  # rotated files kept besides the live one: at most 3 files, about 15 MB
MAX_FILES = 100  # paths kept per event, so one huge edit cannot write a huge line


def log_dir(commondir: Path) -> Path:
    return Path(commondir) / DIRNAME


def _rotated(d: Path, i: int) -> Path:
    return d / (LOG if i == 0 else f"events.{i}.jsonl")


@contextlib.contextmanager
def _locked(d: Path, how: int) -> Iterator[None]:
    try:
        fd = os.open(d / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError:
        if how != fcntl.LOCK_SH:
            raise
        # A reader without write access (a shared or read-only clone) reads unlocked:
        # at worst it misses or repeats lines during a concurrent rotation.
        yield
        return
    try:
        fcntl.flock(fd, how)
        yield
    finally:
        os.close(fd)  # closing releases the lock, also when the process dies


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _rotate(d: Path, max_bytes: int, keep: int) -> None:
    with _locked(d, fcntl.LOCK_EX):
        if _size(_rotated(d, 0)) < max_bytes:
            return  # another writer rotated while we waited for the lock
        if keep <= 0:
            _rotated(d, 0).unlink(missing_ok=True)
            return
        top = 0  # rotated files are numbered without gaps: shift only those that exist
        while top < keep and _rotated(d, top + 1).exists():
            top += 1
        for i in range(min(top + 1, keep), 0, -1):
            os.replace(_rotated(d, i - 1), _rotated(d, i))


def append(commondir: Path, event: dict[str, Any], *, max_bytes: int = MAX_BYTES, keep: int = KEEP) -> None:
    """Add one event as one line; rotate first when the live file is full.

    Raises OSError when the log cannot be written; callers that must not fail
    (the engine) swallow it.
    """
    d = log_dir(commondir)
    # A path git gave us as bytes that are not UTF-8 holds lone surrogates: written as
    # JSON escapes (`\udcff`), which read back as the same string.
    line = (json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "backslashreplace")
    fd = _open_log(d)
    try:
        st = os.fstat(fd)
        what = kind(st.st_mode)
        if what is not None:
            raise NotRegular(str(d / LOG), what)
        if st.st_size >= max_bytes:  # full: rotate, and write to the new live file
            os.close(fd)
            fd = -1
            _rotate(d, max_bytes, keep)
            fd = _open_log(d)
            what = kind(os.fstat(fd).st_mode)
            if what is not None:
                raise NotRegular(str(d / LOG), what)
        os.write(fd, line)  # one call, one whole line: see the module doc
    finally:
        if fd >= 0:
            os.close(fd)


def _open_log(d: Path) -> int:
    """The live log opened for appending, its folder made if missing.

    O_NONBLOCK: a named pipe put at the log fails the open (ENXIO) instead of holding it, and
    anything but a regular file is not written to (nothing of the log goes down a pipe)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
    try:
        return os.open(d / LOG, flags, 0o644)
    except FileNotFoundError:
        d.mkdir(exist_ok=True)
        return os.open(d / LOG, flags, 0o644)


def timestamp(when: float | None = None) -> str:
    """UTC ISO 8601 with milliseconds and a Z, e.g. 2026-01-01T12:00:00.123Z.

    What ``datetime.fromtimestamp(when, timezone.utc)`` gives (to the microsecond, half to
    even), without importing datetime into every apply (``tests/report/test_events.py`` holds it
    to datetime's).
    """
    frac, whole = math.modf(time.time() if when is None else when)
    micro = round(frac * 1e6)
    if micro >= 1_000_000:
        whole, micro = whole + 1, micro - 1_000_000
    elif micro < 0:
        whole, micro = whole - 1, micro + 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole)) + f"{micro // 1000:03d}Z"


def parse_time(text: str) -> datetime:
    """An event's (or a user's) ISO time as an aware datetime; naive means local time."""
    from datetime import datetime  # here: writing an event needs none of it

    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    dt = datetime.fromisoformat(text)
    return dt.astimezone() if dt.tzinfo is None else dt


def _unique(items: Any) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


@dataclass(frozen=True, slots=True)
class Decision:
    """What the log says of one decision beside its report: which command, whose, how big, how long."""

    kind: str  # "apply" | "check"
    agent: str
    turn: str | None
    edit_bytes: int = 0  # bytes of the edit as the agent sent it
    duration: float = 0.0  # seconds spent
    tool: str | None = None  # the adapter's tool, when one names it
    kept: bool = False  # refused, yet the change stays (a shell command's, kept or not reverted)


def from_report(decision: Decision, report: Report, *, now: float | None = None) -> dict[str, Any]:
    """The event for one decision: what happened to which files, never their contents."""
    files = _unique([c.path for c in report.changes] + [f.path for f in report.findings])
    event = {
        "v": VERSION,
        "time": timestamp(now),
        "kind": decision.kind,
        "agent": decision.agent,
        "turn": report.turn.id if report.turn is not None else decision.turn,
        "dialect": report.format,
        "status": report.status,
        "dry_run": report.status == "checked",
        "files": files[:MAX_FILES],
        "nfiles": len(files),
        "added": sum(len(c.added) for c in report.changes),
        "removed": sum(len(c.removed) for c in report.changes),
        "repairs": _unique(r for c in report.changes for r in c.repairs),
        "errors": _unique(f.code for f in report.findings if f.severity == "error"),
        "warnings": _unique(f.code for f in report.findings if f.severity != "error"),
        "size": int(decision.edit_bytes),  # (the log's key since its first version)
        "duration": round(float(decision.duration), 6),
    }
    if decision.tool is not None:
        event["tool"] = decision.tool
    if decision.kept:
        event["kept"] = True
    refused_by = _unique(
        str(r.get("name"))
        for r in report.extra.get("verify") or ()
        if isinstance(r, dict) and r.get("status") in ("failed", "timeout")
    )
    if refused_by:
        event["verify"] = refused_by
    return event


def record(commondir: Path, decision: Decision, report: Report, *, warnings: list[str] | None = None) -> None:
    """Log one decision, never failing: the outcome log must not turn an edit into an error.

    The pre-commit ``check`` command logs one with kind "check" per run.  `warnings` replaces the
    report's warning codes (a hook logs, after the write, what its check warned about).
    """
    try:
        event = from_report(decision, report)
        if warnings is not None:
            event["warnings"] = _unique(warnings)
        append(commondir, event)
    except (OSError, ValueError):
        pass


def read(
    commondir: Path, since: datetime | str | float | None = None, progress: Callable[[int, int], None] | None = None
) -> list[dict[str, Any]]:
    """Every event still kept, oldest file first, optionally only those at or after ``since``.

    Lines that are not whole JSON objects (a write cut short by a full disk or a
    crash) are skipped rather than failing the report.  `progress` is told (lines read,
    lines) now and then.
    """
    d = log_dir(commondir)
    if not d.is_dir():
        return []
    cutoff = _cutoff(since)
    chunks: list[bytes] = []
    with _locked(d, fcntl.LOCK_SH):
        i = 0
        while _rotated(d, i + 1).exists():
            i += 1
        for j in range(i, -1, -1):
            try:
                chunks.append(read_regular(_rotated(d, j)))
            except (FileNotFoundError, NotRegular):  # (a pipe put there holds nothing of the log)
                pass
    out: list[dict[str, Any]] = []
    lines = [chunk.splitlines() for chunk in chunks]
    total, done = sum(map(len, lines)), 0
    for chunk_lines in lines:
        for raw in chunk_lines:
            done += 1
            if progress is not None and not done % 2000:
                progress(done, total)
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(ev, dict) or not isinstance(ev.get("time"), str):
                continue
            if cutoff is not None:
                try:
                    if parse_time(ev["time"]) < cutoff:
                        continue
                except ValueError:
                    continue
            out.append(ev)
    if progress is not None:
        progress(total, total)
    return out


def _cutoff(since: datetime | str | float | None) -> datetime | None:
    from datetime import datetime, timezone

    if since is None:
        return None
    if isinstance(since, datetime):
        return since.astimezone() if since.tzinfo is None else since
    if isinstance(since, (int, float)):
        return datetime.fromtimestamp(since, timezone.utc)
    return parse_time(since)
