"""What a verify command did on a tree, kept so a retry of the same result does not run it again.

An entry is named by a hash of the command (its name, exactly what runs, and whether its
fixes may be taken) and the id of the tree it ran on: the same command on the same files
answers the same.  It holds how the command ended (its exit status and the tail of its output)
and what it changed of the edit's files (their new blob ids).  Only a command that ran to its
end is kept, and not one the shell could not find or start (exit 126 or 127: installing it
changes the answer), nor one a signal ended: a timeout or a crash may not happen again.

One file per entry under ``<git dir>/agent-guard/verify/cache/`` (written whole, renamed into
place: concurrent writers never see half an entry); the newest ``KEPT`` are kept.  Removing
the folder empties it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Mapping

from ..fs.filekind import read_regular

VERSION = 1
KEPT = 512
_NOT_KEPT = (126, 127)  # the shell could not find, or could not run, the command


@dataclass(frozen=True, slots=True)
class Seen:
    """A command's run on one tree: its exit status, the tail of its output, and the new blob ids
    (None: removed) of the edit's files it changed."""

    code: int
    output: bytes
    changed: Mapping[str, str | None]
    seconds: float


class Results:
    """The cache of one repository (a folder; see the module doc)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(*parts: str) -> str:
        return sha256(json.dumps([VERSION, *parts]).encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> Seen | None:
        try:
            doc = json.loads(read_regular(self.folder / f"{key}.json"))
        except (OSError, ValueError):
            return None
        try:
            changed = {str(k): (None if v is None else str(v)) for k, v in doc["changed"].items()}
            return Seen(int(doc["code"]), doc["output"].encode("utf-8", "surrogateescape"), changed, float(doc["seconds"]))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def put(self, key: str, seen: Seen) -> None:
        if seen.code in _NOT_KEPT or seen.code < 0:
            return
        doc = {
            "version": VERSION,
            "code": seen.code,
            "output": seen.output.decode("utf-8", "surrogateescape"),
            "changed": dict(seen.changed),
            "seconds": round(seen.seconds, 3),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(doc), encoding="utf-8")
            os.replace(tmp, self.folder / f"{key}.json")
            self._prune()
        except OSError:
            pass  # a cache that cannot be written only costs a rerun

    def _prune(self) -> None:
        try:
            entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(self.folder) if e.name.endswith(".json")]
        except OSError:
            return
        if len(entries) <= KEPT:
            return
        for _when, path in sorted(entries)[: len(entries) - KEPT]:
            try:
                os.unlink(path)
            except OSError:
                pass
