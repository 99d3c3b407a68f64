"""`path-protected` on every path a change touches (both names of a rename)."""

from __future__ import annotations

from pathlib import Path

from guard import policy as policy_mod
from guard.checks import CheckInput, no_attr, protected, run
from guard.model import FileChange, Op
from guard.tree.diffs import make_change

POLICY = policy_mod.load(None, "default")


def found(*changes: FileChange, pol: policy_mod.Policy = POLICY) -> list[tuple[str | None, str]]:
    inp = CheckInput(changes, pol, lambda _p: True, no_attr, None)
    return [(f.path, f.severity) for f in protected.check(inp, "error")]


def test_paths_and_renames() -> None:
    edit = make_change("src/a.py", Op.MODIFY, b"x\n", b"y\n")
    env = make_change(".env", Op.MODIFY, b"A=1\n", b"A=2\n")
    away = make_change("docs/ci.yml", Op.RENAME, b"x\n", b"x\n", old_path=".github/workflows/ci.yml")
    into = make_change("keys/a.pem", Op.RENAME, b"x\n", b"x\n", old_path="a.txt")
    assert found(edit, env, away, into) == [
        (".env", "error"),
        (".github/workflows/ci.yml", "error"),
        ("keys/a.pem", "error"),
    ]


def test_dot_git_even_when_off(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("checks: {path-protected: 'off'}\n")
    pol = policy_mod.load(None, str(f))
    git = make_change(".git/config", Op.MODIFY, b"x\n", b"y\n")
    env = make_change(".env", Op.MODIFY, b"x\n", b"y\n")
    result = run(CheckInput((git, env), pol, lambda _p: True, no_attr, None))
    assert [(x.code, x.path, x.severity) for x in result.findings if x.code == "path-protected"] == [
        ("path-protected", ".git/config", "error"),
    ]
