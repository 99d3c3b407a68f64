"""A commit check never passes what it could not read: an object git lost, or one whose stored
bytes do not hash to its id, is a usage error (exit 2), whichever way the check reads it."""

from __future__ import annotations

import os
import zlib

import pytest
from conftest import Repo

PLACEHOLDER = "def f():\n    # ... rest of the code unchanged\n    return 1\n"


def _corrupt(repo: Repo, oid: str) -> None:
    """Store other bytes under `oid`: a blob that reads, but not as what its id names."""
    path = repo.root / ".git" / "objects" / oid[:2] / oid[2:]
    os.chmod(path, 0o644)
    other = b"x = 1\n"
    path.write_bytes(zlib.compress(b"blob %d\x00" % len(other) + other))


@pytest.mark.parametrize("how", [("check", "--json"), ("check", "--all-files", "--json")])
def test_a_corrupt_object_is_refused_not_passed(repo: Repo, cli, how: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "A = 1\n"})
    repo.write({"app.py": PLACEHOLDER})
    repo.git("add", "app.py")
    oid = repo.git("rev-parse", ":app.py").strip()
    assert cli("check", "--json").code == 1  # the placeholder, while the object reads
    _corrupt(repo, oid)
    r = cli(*how)
    assert r.code == 2, r
    assert "cannot read app.py" in r.stdout + r.stderr and "git fsck" in r.stdout + r.stderr, r
