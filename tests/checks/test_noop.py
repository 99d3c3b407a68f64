"""`no-op`: an edit that changes nothing."""

from __future__ import annotations

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, no_attr, noop
from guard.model import FileChange, Op
from guard.tree.diffs import make_change

POLICY = policy_mod.load(None, "default")

CASES = [
    ("same-bytes", make_change("a.py", Op.MODIFY, b"x\n", b"x\n"), True),
    ("changed", make_change("a.py", Op.MODIFY, b"x\n", b"y\n"), False),
    ("mode-change", make_change("a.sh", Op.MODIFY, b"x\n", b"x\n", old_mode=0o100644, new_mode=0o100755), False),
    ("same-mode", make_change("a.sh", Op.MODIFY, b"x\n", b"x\n", old_mode=0o100755, new_mode=0o100755), True),
    ("rename-same-content", make_change("b.py", Op.RENAME, b"x\n", b"x\n", old_path="a.py"), False),
    ("create-empty", make_change("a.py", Op.CREATE, None, b""), False),
    ("delete", make_change("a.py", Op.DELETE, b"x\n", None), False),
    ("eol-only-change", make_change("a.py", Op.MODIFY, b"x\n", b"x\r\n"), False),
]


@pytest.mark.parametrize("change,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_noop(change: FileChange, expected: bool) -> None:
    found = noop.check(CheckInput((change,), POLICY, lambda _p: True, no_attr, None), "error")
    assert bool(found) is expected
    if expected:
        assert found[0].message == f"the edit changes nothing in {change.path}"
        assert found[0].hint == "the file already holds this text; skip this edit or check you are editing the right place"
