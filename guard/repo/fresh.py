"""A new repository holding files in one commit (`agent-guard serve` warms its processes up on one)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import pygit2


def create(path: Path, files: Mapping[str, bytes]) -> None:
    """Make a repository at `path` (a new folder) whose HEAD commit holds `files`, checked out."""
    repo = pygit2.init_repository(str(path))
    index = repo.index
    for name, data in files.items():
        (path / name).write_bytes(data)
        index.add(name)
    index.write()
    who = pygit2.Signature("agent-guard", "agent-guard@localhost", 0, 0)
    repo.create_commit("HEAD", who, who, "agent-guard serve: warm-up", index.write_tree(), [])
