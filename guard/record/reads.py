"""What each agent has read with ``git agent-read``: per path, the blob and the lines shown.

The record lives in ``<git common dir>/agent-guard/reads/<agent>.json``::

    {"version": 1,
     "files": {"src/a.py": {"blob": "<40 hex>", "shown": [[1, 40], [90, 120]]}}}

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

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..fs.filekind import read_regular
from ..repo import GitRepo

VERSION = 1
MAX_PATHS = 2000  # the least recently read paths are forgotten beyond this

Span = tuple[int, int]  # 1-based, inclusive


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


def _file(repo: GitRepo, agent: str) -> Path:
    return repo.commondir / "agent-guard" / "reads" / f"{agent}.json"


def load(repo: GitRepo, agent: str) -> dict[str, Read]:
    """Every path the agent has read, least recently read first."""
    try:
        data = json.loads(read_regular(_file(repo, agent)))
        files = data["files"]
        return {
            path: Read(str(entry["blob"]), merge([(int(a), int(b)) for a, b in entry["shown"]])) for path, entry in files.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def last(repo: GitRepo, agent: str, path: str) -> Read | None:
    return load(repo, agent).get(path)


def record(repo: GitRepo, agent: str, path: str, blob: str, shown: Span | None) -> Read:
    """Note that `agent` was shown lines `shown` (None: none) of `path` as blob `blob`.

    Call under the repository lock: the record is read, changed and replaced whole.
    """
    reads = load(repo, agent)
    old = reads.pop(path, None)
    spans = list(old.shown) if old is not None and old.blob == blob else []
    if shown is not None:
        spans.append(shown)
    reads[path] = entry = Read(blob, merge(spans))
    _save(repo, agent, reads)
    return entry


def put(repo: GitRepo, agent: str, path: str, entry: Read | None) -> None:
    """Make `entry` the agent's read of `path` (None: no read), whatever was there: what a refusal
    that carries a suggestion showed the agent (guard/suggest/), or that read put back.

    Call under the repository lock, as ``record``.
    """
    reads = load(repo, agent)
    reads.pop(path, None)
    if entry is not None:
        reads[path] = Read(entry.blob, merge(list(entry.shown)))
    _save(repo, agent, reads)


def _save(repo: GitRepo, agent: str, reads: dict[str, Read]) -> None:
    while len(reads) > MAX_PATHS:
        reads.pop(next(iter(reads)))
    target = _file(repo, agent)
    target.parent.mkdir(parents=True, exist_ok=True)
    doc = {"version": VERSION, "files": {p: {"blob": r.blob, "shown": [list(s) for s in r.shown]} for p, r in reads.items()}}
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, target)
