"""`checks.run`: levels decide what runs and how severe its findings are."""

from __future__ import annotations

from pathlib import Path

from guard import policy as policy_mod
from guard.checks import CHECKS, CheckInput, CheckResult, Usage, no_attr, run
from guard.model import FileChange, Op
from guard.tree.diffs import make_change


def test_registry() -> None:
    assert set(CHECKS) == {
        "path-protected",
        "untracked",
        "binary",
        "not-utf8",
        "no-op",
        "conflict-marker",
        "placeholder",
        "whitespace",
        "budget",
        "syntax",
    }
    assert set(CHECKS) <= set(policy_mod.CHECK_NAMES)


def lazy_edit() -> tuple[FileChange, ...]:
    return (
        make_change(
            "src/a.py",
            Op.MODIFY,
            b"def f():\n    compute()\n    return 1\n",
            b"def f():\n    # ... existing code ...\n    return 1  \n",
        ),
        make_change("notes.txt", Op.MODIFY, b"a\n", b"a\n"),
    )


def test_clean_edit_has_no_findings() -> None:
    change = make_change("src/a.py", Op.MODIFY, b"x = 1\n", b"x = 2\n")
    result = run(CheckInput((change,), policy_mod.load(None, "default"), lambda _p: True, no_attr, None))
    assert result == CheckResult((change,), ())


def test_levels_become_severities(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("checks: {placeholder: warning, whitespace: error, no-op: 'off', untracked: error}\n")
    pol = policy_mod.load(None, str(f))
    inp = CheckInput(lazy_edit(), pol, lambda p: p != "notes.txt", no_attr, None, Usage(), 10)
    found = {(x.code, x.severity) for x in run(inp).findings}
    assert found == {("placeholder", "warning"), ("whitespace", "error"), ("untracked", "error")}


def test_fix_runs_before_the_other_checks() -> None:
    pol = policy_mod.load(None, "default")
    inp = CheckInput(lazy_edit(), pol, lambda _p: True, no_attr, None)
    result = run(inp)
    assert result.changes[0].after == b"def f():\n    # ... existing code ...\n    return 1\n"
    assert result.changes[0].repairs == ("whitespace-fix",)
    assert result.changes[1] is inp.changes[1]
    assert sorted((x.code, x.severity) for x in result.findings) == [("no-op", "warning"), ("placeholder", "error")]
