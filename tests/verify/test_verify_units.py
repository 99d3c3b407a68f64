"""The pieces of guard/verify/: the policy's entries, what a command is handed, its output, the cache, the sealer."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import Repo, run_cli

from guard import policy as policy_mod
from guard.files import redaction
from guard.model import Op
from guard.policy import Policy
from guard.tree.diffs import make_change
from guard.verify import cache, sealer
from guard.verify.commands import DEFAULT_TIMEOUT, Command, configured, invocation
from guard.verify.process import execute, tail


def load(tmp_path: Path, text: str) -> Policy:
    f = tmp_path / "p.yaml"
    f.write_text(text)
    return policy_mod.load(None, str(f))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("verify: pre-commit\n", "expected a list of commands"),
        ("verify: [lint]\n", "the one word an entry may be is 'pre-commit'"),
        ("verify: [{name: a, rum: x}]\n", "unknown key 'rum'; did you mean 'run'?"),
        ("verify: [{run: x}]\n", "name: expected a short name"),
        ("verify: [{name: a}]\n", "run: expected the command to run"),
        ("verify: [{name: a, run: ''}]\n", "run: expected the command to run"),
        ("verify: [{name: a, run: x, pre-commit: true}]\n", "not both"),
        ("verify: [{name: a, run: x, timeout: 0}]\n", "timeout (seconds) must be a number from 0.1 to 86,400, not 0"),
        ("verify: [{name: a, run: x, timeout: .nan}]\n", "timeout (seconds) must be"),
        ("verify: [{name: a, run: x, timeout: true}]\n", "timeout (seconds) must be"),
        ("verify: [{name: a, run: x, fix: yes please}]\n", "fix: expected true or false"),
        ("verify: [{name: a, run: x, files: '*.py'}]\n", "files: expected a list"),
        ("verify: [{name: a, run: x}, {name: a, run: y}]\n", "the name 'a' is used twice"),
        ("verify: [pre-commit, pre-commit]\n", "the name 'pre-commit' is used twice"),
        ('verify: [{name: "a\\nb", run: x}]\n', "at most 64 printable characters"),
    ],
)
def test_a_wrong_entry_is_named(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(policy_mod.PolicyError) as err:
        load(tmp_path, text)
    assert said in str(err.value) and ": verify: " in str(err.value), str(err.value)


def test_the_entries_as_values(tmp_path: Path) -> None:
    pol = load(
        tmp_path,
        "verify:\n  - pre-commit\n  - {name: lint, run: 'ruff check {files}', files: ['*.py']}\n"
        "  - {name: fmt, pre-commit: true, fix: true, timeout: 5}\n"
        "agents:\n  claude: {verify: [{name: t, run: 'true'}]}\n",
    )
    assert configured(pol) == (
        Command("pre-commit", None, (), DEFAULT_TIMEOUT, False, 0),
        Command("lint", "ruff check {files}", ("*.py",), DEFAULT_TIMEOUT, False, 1),
        Command("fmt", None, (), 5.0, True, 2),
    )
    claude = policy_mod.load(None, str(tmp_path / "p.yaml"), agent="claude")
    assert [c.name for c in configured(claude)] == ["t"]  # an agent's list replaces the file's
    assert configured(load(tmp_path, "checks: {placeholder: error}\n")) == ()


def test_policy_show_lists_them_one_a_line(repo: Repo) -> None:
    repo.commit({".agent-guard.yaml": "verify:\n  - pre-commit\n  - {name: lint, run: 'ruff check {files}'}\n"})
    shown = run_cli(repo.root, "policy", "show").stdout
    assert "verify:  # from: " in shown
    assert "\n  - pre-commit\n  - {name: lint, run: 'ruff check {files}'}\n" in shown


def change(path: str, after: str | None, old_path: str | None = None) -> object:
    op = Op.DELETE if after is None else Op.RENAME if old_path else Op.MODIFY
    return make_change(
        path,
        op,
        b"x\n",
        None if after is None else after.encode(),
        old_path=old_path,
        old_mode=0o100644,
        new_mode=None if after is None else 0o100644,
    )


def test_what_a_command_is_handed(tmp_path: Path) -> None:
    pol = load(tmp_path, "{}\n")
    lint = Command("lint", "ruff check {files} --quiet", ("*.py",), 60.0, False, 0)
    changes = [change("src/a b.py", "y\n"), change("-rf.py", "y\n"), change("gone.py", None), change("doc.md", "d\n")]
    inv = invocation(lint, changes, pol)  # type: ignore[arg-type]
    assert not isinstance(inv, str)
    assert inv.argv == ("/bin/sh", "-c", "ruff check 'src/a b.py' ./-rf.py --quiet")
    assert inv.files == ("src/a b.py", "-rf.py")
    # Deletions only: nothing to hand {files}; no match: not run.
    assert invocation(lint, [change("gone.py", None)], pol) == "no changed file is left to give it as {files} (deletions only)"  # type: ignore[list-item]
    assert invocation(lint, [change("doc.md", "d\n")], pol) == "no changed file matches its files (*.py)"  # type: ignore[list-item]
    # A move out of the globs still concerns the command (its old path matched); a command without {files} runs.
    tests = Command("tests", "pytest -q", ("src/**",), 60.0, False, 1)
    moved = invocation(tests, [change("lib/a.py", "y\n", old_path="src/a.py")], pol)  # type: ignore[list-item]
    assert not isinstance(moved, str) and moved.argv == ("/bin/sh", "-c", "pytest -q")
    # Protected files are not in the checkout: not handed over.
    left = invocation(lint, [change(".env.py", "S\n"), change("a.py", "y\n")], pol, frozenset({".env.py"}))  # type: ignore[list-item]
    assert not isinstance(left, str) and left.files == ("a.py",)
    hooks = invocation(Command("pre-commit", None, (), 60.0, False, 2), changes, pol)  # type: ignore[arg-type]
    assert not isinstance(hooks, str) and hooks.argv[-4:] == ("--files", "src/a b.py", "./-rf.py", "doc.md")
    assert hooks.shown == "pre-commit run --files 'src/a b.py' ./-rf.py doc.md"


def test_the_output_shown_is_escaped_and_bounded() -> None:
    raw = b"".join(b"\x1b[1;31mERROR\x1b[0m %d\r\n" % i for i in range(100))
    raw += b"progress 10%\rprogress 50%\rprogress 100%\n\x1b]0;a title\x07done \x00\x7f\xe2\x80\xae!\n\n"
    lines = tail(raw)
    assert len(lines) == 40
    assert lines[-3] == "ERROR 99" and lines[-2] == "progress 100%"
    assert lines[-1] == "done \\x00\\x7f\\u202e!"
    long = tail(b"x" * 10000 + b"\n" + b"y\n")
    assert long[-1] == "y" and sum(len(s) for s in long) <= 4200
    assert tail(b"") == [] and tail(b"\n\n") == []


def test_a_command_that_cannot_start_or_prints_a_lot(tmp_path: Path) -> None:
    ran = execute(["/no/such/program"], str(tmp_path), {}, 5)
    assert ran.how == "unstartable" and b"cannot start" in ran.output
    ran = execute(
        ["/bin/sh", "-c", "i=0; while [ $i -lt 30000 ]; do echo line $i; i=$((i+1)); done; exit 4"],
        str(tmp_path),
        {"PATH": "/usr/bin:/bin"},
        60,
    )
    assert (ran.how, ran.code) == ("exited", 4)
    assert len(ran.output) <= 64 * 1024 and ran.output.endswith(b"line 29999\n")
    started = time.monotonic()
    ran = execute(["/bin/sh", "-c", "trap '' TERM; sleep 30"], str(tmp_path), {"PATH": "/usr/bin:/bin"}, 0.5)
    assert ran.how == "timeout" and ran.code is None and time.monotonic() - started < 10


def test_the_cache_keeps_only_answers_that_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = cache.Results(tmp_path / "cache")
    seen = cache.Seen(1, b"out \xff", {"a.py": "0" * 40, "b.py": None}, 0.5)
    results.put("k", seen)
    assert results.get("k") == cache.Seen(1, b"out \xff", {"a.py": "0" * 40, "b.py": None}, 0.5)
    for code in (126, 127, -9):
        results.put(f"c{code}", cache.Seen(code, b"", {}, 0.1))
        assert results.get(f"c{code}") is None
    (tmp_path / "cache" / "bad.json").write_text("{not json")
    assert results.get("bad") is None
    monkeypatch.setattr(cache, "KEPT", 3)
    for i in range(6):
        results.put(f"n{i}", seen)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 3
    assert results.key("a", "b") != results.key("ab", "")


def test_the_fast_sealer_agrees_with_the_policy(tmp_path: Path) -> None:
    pol = load(tmp_path, "paths: {protected_extra: ['deploy/**', 'secrets/*.json']}\n")
    names = [
        ".env",
        "a/.env.local",
        ".ENV",
        ".env.",
        ".env ",
        "keys/x.pem",
        "x/id_rsa.pub",
        ".github/workflows/a.yml",
        ".agent-guard.yaml",
        ".Agent-Guard.YAML.",
        ".ｅｎｖ",
        ".e\u200bnv",
        "deploy/x",
        "DEPLOY/y/z",
        "secrets/a.json",
        "secrets/b/a.json",
        "src/app.py",
        "docs/.envrc",
        "src/git.py",
        "a/.git/config",
        "README.md",
        ".gitlab-ci.yml",
    ]
    fast = sealer(pol)
    assert [n for n in names if fast(n) != redaction.sealed(n, pol)] == []
    assert not fast("src/app.py") and fast(".env") and fast("DEPLOY/y/z")
    everyone = load(tmp_path, "read_protected: true\n")
    assert not sealer(everyone)(".env")
