"""Merge-conflict markers in added lines."""

from __future__ import annotations

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, conflict, no_attr
from guard.model import Op
from guard.tree.diffs import make_change

POLICY = policy_mod.load(None, "default")
CONFLICT = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n"


def run(path: str, before: str, after: str, size: str | None = None) -> list[tuple[int | None, str]]:
    change = make_change(path, Op.MODIFY, before.encode(), after.encode())

    def attr(_path: str, name: str) -> str | bool | None:
        return size if name == "conflict-marker-size" else None

    found = conflict.check(CheckInput((change,), POLICY, lambda _p: True, attr, None), "error")
    return [(f.line, f.code) for f in found]


CASES = [
    ("full-conflict", "a.py", "x\n", "x\n" + CONFLICT, [(2, "conflict-marker"), (4, "conflict-marker"), (6, "conflict-marker")]),
    (
        "diff3-base",
        "a.py",
        "x\n",
        "<<<<<<< ours\na\n||||||| base\nb\n=======\nc\n>>>>>>> theirs\n",
        [(1, "conflict-marker"), (3, "conflict-marker"), (5, "conflict-marker"), (7, "conflict-marker")],
    ),
    ("bare-open", "a.py", "x\n", "x\n<<<<<<<\n", [(2, "conflict-marker")]),
    ("aider-marker", "a.py", "x\n", "<<<<<<< SEARCH\n", [(1, "conflict-marker")]),
    ("rst-underline", "doc.rst", "x\n", "Title\n=======\n", []),
    ("eight-chars", "a.py", "x\n", "<<<<<<<< no\n>>>>>>>>\n", []),
    ("indented", "a.py", "x\n", "  <<<<<<< HEAD\n", []),
    ("inside-text", "a.py", "x\n", "s = '<<<<<<< HEAD'\n", []),
    ("patch-file", "fix.patch", "x\n", "x\n" + CONFLICT, []),
    ("diff-file", "fix.diff", "x\n", CONFLICT, []),
    ("already-there", "t.py", "<<<<<<< HEAD\n>>>>>>> other\nx\n", "<<<<<<< HEAD\n>>>>>>> other\ny\n<<<<<<< HEAD\n", []),
]


@pytest.mark.parametrize("path,before,after,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_markers(path: str, before: str, after: str, expected: list[tuple[int, str]]) -> None:
    assert run(path, before, after) == expected


def test_marker_size_attribute() -> None:
    assert run("a.txt", "x\n", "<<<<<<< HEAD\n", size="9") == []
    assert run("a.txt", "x\n", "<<<<<<<<< HEAD\n=========\n", size="9") == [(1, "conflict-marker"), (2, "conflict-marker")]


def test_message() -> None:
    change = make_change("a.py", Op.MODIFY, b"x\n", b"<<<<<<< HEAD\n")
    [f] = conflict.check(CheckInput((change,), POLICY, lambda _p: True, no_attr, None), "warning")
    assert (f.path, f.line, f.severity) == ("a.py", 1, "warning") and f.hint
    assert f.message == "the added line '<<<<<<< HEAD' is a merge-conflict marker"  # one location: the finding's
