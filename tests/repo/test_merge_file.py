"""`repo.merge.merge_file` held to ``git merge-file``, with each way it resolves conflicts.

`merge_file` reaches libgit2 through pygit2's private binding (``pygit2._libgit2``:
``git_merge_file_from_index`` with its options struct, and ``IndexEntry._to_c``),
because pygit2's public ``merge_file_from_index`` takes no options (no favor, no
marker size, no simplification level) and decodes the result as text.  pyproject.toml
pins pygit2 below the next minor release; this test is what a version bump must pass.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from guard.repo.merge import _MARKER, merge_file


def _git_merge_file(folder: Path, base: bytes, ours: bytes, theirs: bytes, favor: str) -> tuple[int, bytes]:
    for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        (folder / name).write_bytes(data)
    how = [] if favor == "normal" else [f"--{favor}"]
    proc = subprocess.run(
        [
            "git",
            "merge-file",
            "-p",
            f"--marker-size={_MARKER}",
            "-L",
            "file",
            "-L",
            "file",
            "-L",
            "file",
            *how,
            "ours",
            "base",
            "theirs",
        ],
        cwd=folder,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode >= 0, proc.stderr
    return proc.returncode, proc.stdout


def _unlabelled(data: bytes) -> bytes:
    """Conflict markers without their labels (libgit2 names the sides its own way)."""
    markers = (b"<" * _MARKER, b">" * _MARKER)
    return b"".join(line[:_MARKER] + b"\n" if line.startswith(markers) else line for line in data.splitlines(keepends=True))


def _versions(rng: random.Random) -> tuple[bytes, bytes, bytes]:
    base = [f"line {k}\n".encode() for k in range(rng.randrange(0, 14))]

    def edited(lines: list[bytes]) -> list[bytes]:
        out = list(lines)
        for _ in range(rng.randrange(0, 4)):
            at = rng.randrange(len(out) + 1)
            what = rng.randrange(3)
            if what == 0 or not out:
                out.insert(at, f"new {rng.randrange(4)}\n".encode())
            elif what == 1:
                del out[min(at, len(out) - 1)]
            else:
                out[min(at, len(out) - 1)] = f"changed {rng.randrange(4)}\n".encode()
        return out

    return b"".join(base), b"".join(edited(base)), b"".join(edited(base))


@pytest.mark.parametrize("favor", ["normal", "ours", "theirs", "union"])
def test_merge_file_is_git_merge_file(tmp_path: Path, favor: str) -> None:
    rng = random.Random(favor)
    conflicted = 0
    for _ in range(150):
        base, ours, theirs = _versions(rng)
        got = merge_file(base, ours, theirs, favor)
        status, want = _git_merge_file(tmp_path, base, ours, theirs, favor)
        assert _unlabelled(got.data) == _unlabelled(want), (base, ours, theirs)
        if favor == "normal":
            assert got.clean == (status == 0)
            assert len(got.conflicts) == status
        conflicted += not got.clean
    assert conflicted > 10  # the cases reach conflicts, not only clean merges
