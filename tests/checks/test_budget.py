"""Budgets per edit, per turn and per session, and the largest file allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, Usage, budget, no_attr
from guard.model import FileChange, Op
from guard.tree.diffs import make_change


def lines(n: int, prefix: str = "x") -> bytes:
    return "".join(f"{prefix}{i}\n" for i in range(n)).encode()


def policy_of(tmp_path: Path, text: str) -> policy_mod.Policy:
    f = tmp_path / "p.yaml"
    f.write_text(text)
    return policy_mod.load(None, str(f))


def inp(pol: policy_mod.Policy, *changes: FileChange, usage: Usage | None = None, edit_bytes: int = 0) -> CheckInput:
    return CheckInput(changes, pol, lambda _p: True, no_attr, None, usage or Usage(), edit_bytes)


@pytest.fixture
def pol(tmp_path: Path) -> policy_mod.Policy:
    return policy_of(
        tmp_path,
        (
            "extends: null\n"
            "budget:\n"
            "  per_edit: {files: 2, lines_added: 10, lines_removed: 5, hunks: 3, bytes: 100}\n"
            "  per_turn: {lines_added: 15}\n"
            "  per_session: {files: 3}\n"
            "  max_file_bytes: 500\n"
        ),
    )


CASES = [
    ("within", [("a", 3, 3)], 10, Usage(), []),
    ("files", [("a", 1, 1), ("b", 1, 1), ("c", 1, 1)], 0, Usage(), ["budget.per_edit.files"]),
    ("lines-added", [("a", 0, 11)], 0, Usage(), ["budget.per_edit.lines_added"]),
    ("lines-removed", [("a", 6, 0)], 0, Usage(), ["budget.per_edit.lines_removed"]),
    ("bytes", [("a", 1, 1)], 101, Usage(), ["budget.per_edit.bytes"]),
    ("turn", [("a", 0, 8)], 0, Usage(turn={"lines_added": 8}), ["budget.per_turn.lines_added"]),
    ("session", [("a", 0, 1)], 0, Usage(session={"files": 3}), ["budget.per_session.files"]),
    ("turn-exactly-at-limit", [("a", 0, 7)], 0, Usage(turn={"lines_added": 8}), []),
]


@pytest.mark.parametrize("spec,edit_bytes,usage,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_limits(
    pol: policy_mod.Policy, spec: list[tuple[str, int, int]], edit_bytes: int, usage: Usage, expected: list[str]
) -> None:
    changes = [
        make_change(path, Op.MODIFY, lines(removed, "old") + b"keep\n", b"keep\n" + lines(added, "new"))
        for path, removed, added in spec
    ]
    findings = budget.check(inp(pol, *changes, usage=usage, edit_bytes=edit_bytes), "error")
    assert [f.message.split("(")[1].split(",")[0] for f in findings] == expected
    for f in findings:
        assert f.code == "budget" and f.severity == "error" and f.hint


def test_hunks(pol: policy_mod.Policy) -> None:
    before = lines(40)
    after = before
    for k in (1, 10, 20, 30):
        after = after.replace(b"x%d\n" % k, b"y%d\n" % k)
    change = make_change("a", Op.MODIFY, before, after)
    assert change.hunks == 4
    [finding] = budget.check(inp(pol, change), "warning")
    assert "4 hunks; the limit is 3" in finding.message and finding.severity == "warning"


def test_message_names_limit_value_and_source(pol: policy_mod.Policy, tmp_path: Path) -> None:
    change = make_change("a", Op.CREATE, None, lines(12))
    findings = budget.check(inp(pol, change), "error")
    message = next(f.message for f in findings if "added lines" in f.message)
    assert "this edit would reach 12 added lines; the limit is 10" in message
    assert f"budget.per_edit.lines_added, from {(tmp_path / 'p.yaml').resolve()}" in message


def test_max_file_bytes(pol: policy_mod.Policy) -> None:
    change = make_change("big.txt", Op.MODIFY, b"x\n", b"x\n" + b"y" * 600 + b"\n")
    findings = [f for f in budget.check(inp(pol, change), "error") if f.path == "big.txt"]
    assert len(findings) == 1 and "603 bytes; the limit is 500" in findings[0].message


def test_unlimited_when_missing() -> None:
    permissive = policy_mod.load(None, "permissive")
    change = make_change("a", Op.CREATE, None, lines(5000))
    assert budget.check(inp(permissive, change, edit_bytes=10**7), "error") == []


def test_rename_counts_once(pol: policy_mod.Policy) -> None:
    change = make_change("new", Op.RENAME, b"x\n", b"x\n", old_path="old")
    assert budget.measure(inp(pol, change))["files"] == 1


def test_a_file_counts_once_per_turn(tmp_path: Path) -> None:
    """Every edit of one turn to the same file is one file of the turn: the checks and the ledger's
    trailers count it once (a real turn, edits given the same turn id)."""
    import json
    import subprocess

    from guard.pipeline.engine import Guard

    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (repo / name).write_text("x = 0\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]):
        subprocess.run(["git", *argv], cwd=repo, check=True, timeout=60)
    (tmp_path / "p.yaml").write_text("extends: default\nbudget:\n  per_turn: {files: 2}\n")
    g = Guard(repo, str(tmp_path / "p.yaml"))

    def write(name: str, n: int) -> str:
        return g.apply(json.dumps({"file_path": name, "content": f"x = {n}\n"}), turn="t1").status

    assert [write("a.py", n) for n in range(1, 5)] == ["applied"] * 4  # four edits, one file
    assert write("b.py", 1) == "applied"
    assert write("c.py", 1) == "refused"  # the third file of the turn
    message = subprocess.run(
        ["git", "log", "-1", "--format=%B", "refs/agent-guard/agent"], cwd=repo, capture_output=True, text=True, timeout=60
    ).stdout
    assert "Turn-Files: 2" in message, message
