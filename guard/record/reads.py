"""What each agent has read with ``git agent-read``: per path, the blob and the lines shown.

The record lives in the work tree's git dir (a linked worktree's own: its files are its
own), one per reader (``Reader``): ``agent-guard/reads/<agent>.json`` for an agent's
reads where no session is named, ``agent-guard/reads/<agent>/<hash of the session>.json``
for those of one session the environment or the caller names (guard/record/sessions.py
``named``: Claude Code's session, the MCP server's, $AGENT_GUARD_SESSION)::

    {"version": 1, "session": "<name>" (a session's only),
     "files": {"src/a.py": {"blob": "<40 hex>", "shown": [[1, 40], [90, 120]]}}}

Per session, because two sessions of one agent are two readers: session A reads a file,
session B changes it, and A's edit on the text it read must meet the file as it is now,
not pass on B's read or B's write.  A read in no session (``git agent-read`` from the
agent's shell, which names none) is no other session's, and counts for a session that has
no read of the path itself.  A session's record not written for ``SESSION_DAYS`` is removed
when another session of the agent writes its own.

Only the latest version of each path is kept.  Reading the same content again
widens ``shown``; reading changed content starts over.  The blob itself is written
to the object database at read time, so the exact text the agent saw can always
be recovered from the id.

Line-anchored (hashline) edits use the record to refuse edits to lines the agent
was never shown; ``read_before_edit`` uses it to refuse edits to files the agent
has not seen in their current state.  The record is advisory state, not history:
a torn or unreadable file counts as empty and is rewritten by the next read.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ..fs.filekind import read_regular, write_new
from ..repo import GitRepo

VERSION = 1
MAX_PATHS = 2000  # the least recently read paths are forgotten beyond this
SESSION_DAYS = 14

Span = tuple[int, int]  # 1-based, inclusive


@dataclass(frozen=True, slots=True)
class Reader:
    """Whose reads: an agent's, in the session the environment or its caller names (None: none named)."""

    agent: str
    session: str | None = None


@dataclass(frozen=True, slots=True)
class Read:
    blob: str  # full id of the blob the agent was shown
    shown: tuple[Span, ...]  # disjoint, sorted line ranges of that blob

    def covers(self, first: int, last: int) -> bool:
        """Whether every line first..last was shown (an empty range is covered)."""
        return first > last or not self.missing(first, last)

    def missing(self, first: int, last: int) -> list[Span]:
        """The parts of first..last that were not shown."""
        gaps: list[Span] = []
        line = first
        for a, b in self.shown:
            if b < line:
                continue
            if a > last:
                break
            if a > line:
                gaps.append((line, a - 1))
            line = max(line, b + 1)
        if line <= last:
            gaps.append((line, last))
        return gaps


def merge(spans: list[Span]) -> tuple[Span, ...]:
    out: list[Span] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def _file(repo: GitRepo, who: Reader) -> Path:
    folder = repo.gitdir / "agent-guard" / "reads"
    if who.session is None:
        return folder / f"{who.agent}.json"
    return folder / who.agent / f"{hashlib.sha256(who.session.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


def load(repo: GitRepo, who: Reader) -> dict[str, Read]:
    """Every path `who` has read, least recently read first."""
    try:
        data = json.loads(read_regular(_file(repo, who)))
        files = data["files"]
        return {
            path: Read(str(entry["blob"]), merge([(int(a), int(b)) for a, b in entry["shown"]])) for path, entry in files.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def last(repo: GitRepo, who: Reader, path: str) -> Read | None:
    """The last read of `path` by `who`; for a session that has none, the agent's read in no session
    (``git agent-read`` run by the agent's shell, which names no session: no other session's)."""
    found = load(repo, who).get(path)
    if found is None and who.session is not None:
        return load(repo, Reader(who.agent)).get(path)
    return found


def record(repo: GitRepo, who: Reader, path: str, blob: str, shown: Span | None) -> Read:
    """Note that `who` was shown lines `shown` (None: none) of `path` as blob `blob`.

    Call under the repository lock: the record is read, changed and replaced whole.
    """
    reads = load(repo, who)
    old = reads.pop(path, None)
    spans = list(old.shown) if old is not None and old.blob == blob else []
    if shown is not None:
        spans.append(shown)
    reads[path] = entry = Read(blob, merge(spans))
    _save(repo, who, reads)
    return entry


def put(repo: GitRepo, who: Reader, path: str, entry: Read | None) -> None:
    """Make `entry` the read of `path` by `who` (None: no read), whatever was there: what a refusal
    that carries a suggestion showed the agent (guard/suggest/), or that read put back.

    Call under the repository lock, as ``record``.
    """
    reads = load(repo, who)
    reads.pop(path, None)
    if entry is not None:
        reads[path] = Read(entry.blob, merge(list(entry.shown)))
    _save(repo, who, reads)


def _save(repo: GitRepo, who: Reader, reads: dict[str, Read]) -> None:
    while len(reads) > MAX_PATHS:
        reads.pop(next(iter(reads)))
    target = _file(repo, who)
    target.parent.mkdir(parents=True, exist_ok=True)
    doc: dict[str, object] = {"version": VERSION}
    if who.session is not None:
        doc["session"] = who.session
        _sweep(target.parent)
    doc["files"] = {p: {"blob": r.blob, "shown": [list(s) for s in r.shown]} for p, r in reads.items()}
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    write_new(tmp, json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    os.replace(tmp, target)


def _sweep(folder: Path) -> None:
    """Remove the records of the agent's sessions not written for ``SESSION_DAYS`` (sessions end
    without a word; each leaves its record)."""
    cutoff = time.time() - SESSION_DAYS * 86400
    for old in folder.glob("*.json"):
        try:
            if old.lstat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
