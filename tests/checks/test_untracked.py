"""`untracked`: edits change tracked files only, and create files only where allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, no_attr, untracked
from guard.model import FileChange, Op
from guard.tree.diffs import make_change

POLICY = policy_mod.load(None, "default")
TRACKED = {"src/a.py", "old.py"}

CASES = [
    ("modify-tracked", make_change("src/a.py", Op.MODIFY, b"x\n", b"y\n"), []),
    ("modify-untracked", make_change("notes.txt", Op.MODIFY, b"x\n", b"y\n"), ["notes.txt"]),
    ("delete-untracked", make_change("tmp.log", Op.DELETE, b"x\n", None), ["tmp.log"]),
    ("rename-tracked", make_change("new.py", Op.RENAME, b"x\n", b"x\n", old_path="old.py"), []),
    ("rename-untracked", make_change("new.py", Op.RENAME, b"x\n", b"x\n", old_path="scratch.py"), ["scratch.py"]),
    ("create", make_change("brand/new.py", Op.CREATE, None, b"x\n"), []),
    ("upsert-missing", make_change("brand/new.py", Op.MODIFY, None, b"x\n"), []),
]


def check(change: FileChange, pol: policy_mod.Policy = POLICY) -> list[str | None]:
    found = untracked.check(CheckInput((change,), pol, lambda p: p in TRACKED, no_attr, None), "error")
    assert all(f.code == "untracked" and f.hint for f in found)
    return [f.path for f in found]


@pytest.mark.parametrize("change,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_untracked(change: FileChange, expected: list[str]) -> None:
    assert check(change) == expected


def test_creating_can_be_forbidden(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("paths: {create: false}\n")
    pol = policy_mod.load(None, str(f))
    change = make_change("brand/new.py", Op.CREATE, None, b"x\n")
    found = untracked.check(CheckInput((change,), pol, lambda _p: False, no_attr, None), "error")
    assert len(found) == 1 and found[0].message.startswith("creating files is not allowed by policy")
    assert "paths.create" in found[0].message
    assert check(make_change("src/a.py", Op.MODIFY, b"x\n", b"y\n"), pol) == []
