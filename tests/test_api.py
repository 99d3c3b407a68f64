"""The Python API (`guard.apply/check/read/rollback/log`): the CLI's values, each call read afresh."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import Repo

import guard
import guard.policy

SRC = "def greet(name):\n    return 'hello ' + name\n\n\ndef part(name):\n    return 'bye ' + name\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"hello.py": SRC})
    return repo


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    real: Callable[..., Any] = guard.policy.load

    def counting(*args: Any, **kw: Any) -> Any:
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(guard.policy, "load", counting)
    return calls


def edit(old: str, new: str, path: str = "hello.py") -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def test_apply_returns_the_report_the_cli_renders(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    e = edit("'hello '", "'hi '")
    api = guard.apply(e, repo=project.root, check=True)
    out = cli("apply", "--check", "--json", input=e)
    assert out.code == api.exit_code == 0
    assert out.json() == api.as_dict()
    assert api.status == "checked" and api.turn is None and "+    return 'hi ' + name" in api.diff


def test_apply_writes_and_records(project: Repo) -> None:
    r = guard.apply(edit("'hello '", "'hi '"), repo=project.root, agent="harness")
    assert r.status == "applied" and r.exit_code == 0
    assert r.turn is not None and (r.turn.agent, r.turn.id, r.turn.ref) == ("harness", "1", "refs/agent-guard/harness")
    assert project.read("hello.py") == SRC.replace("'hello '", "'hi '").encode()
    assert project.git("rev-parse", r.turn.ref).strip() == r.turn.commit


def test_refusal_is_a_value_and_changes_nothing(project: Repo) -> None:
    before = project.snapshot()
    r = guard.apply(edit("return", "yield"), repo=project.root)
    assert r.status == "refused" and r.exit_code == 1 and r.turn is None
    [f] = r.findings
    assert (f.code, f.severity, f.path) == ("ambiguous", "error", "hello.py") and "candidates" in f.hint
    assert project.snapshot() == before


def test_usage_errors_raise(project: Repo, tmp_path: Path) -> None:
    from guard.errors import UsageError

    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError, match="not a git repository"):
        guard.apply(edit("a", "b"), repo=plain)
    with pytest.raises(UsageError, match="invalid agent name"):
        guard.apply(edit("a", "b"), repo=project.root, agent="no spaces")
    with pytest.raises(UsageError, match="no recorded turns"):
        guard.rollback(project.root, agent="nobody")


def test_log_and_rollback(project: Repo) -> None:
    guard.apply(edit("'hello '", "'hi '"), repo=project.root, agent="h")
    guard.apply(edit("'bye '", "'ciao '"), repo=project.root, agent="h")
    entries = guard.log(project.root, agent="h")
    assert [e["id"] for e in entries] == ["2", "1"]
    assert entries[0]["files"] == [{"op": "M", "path": "hello.py", "added": 1, "removed": 1}]
    assert "diff" not in entries[0] and "diff --git" in guard.log(project.root, agent="h", limit=1, patch=True)[0]["diff"]
    r = guard.rollback(project.root, agent="h", turn="1")
    assert r.status == "applied" and r.extra["rolls_back"] == ["1"]
    assert project.read("hello.py") == SRC.replace("'bye '", "'ciao '").encode()
    assert [e["rolled_back"] for e in guard.log(project.root, agent="h")] == [False, False, True]


def test_rollback_of_one_sessions_last_turn(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_GUARD_SESSION", "S1")
    guard.apply(edit("'hello '", "'hi '"), repo=project.root, agent="h")
    monkeypatch.setenv("AGENT_GUARD_SESSION", "S2")
    guard.apply(edit("'bye '", "'ciao '"), repo=project.root, agent="h")  # the agent's newest turn
    r = guard.rollback(project.root, agent="h", session_id="S1")
    assert r.status == "applied" and r.extra["rolls_back"] == ["1"]
    assert project.read("hello.py") == SRC.replace("'bye '", "'ciao '").encode()


def test_nothing_is_kept_between_calls(project: Repo) -> None:
    """No module state: each `session` is a new Guard, and the API keeps none of them."""
    s = guard.session(project.root)
    assert guard.session(project.root) is not s
    assert not any(isinstance(v, dict) and v for k, v in vars(guard).items() if not k.startswith("__"))


def test_the_policy_is_read_for_every_call(project: Repo, loads: list[tuple[Any, ...]]) -> None:
    g = guard.session(project.root)
    for n in range(3):
        r = g.apply(edit("'hello '" if n == 0 else f"'hello{n - 1} '", f"'hello{n} '"), agent="h")
        assert r.status == "applied", r.findings
    assert len(loads) == 3
    # A changed policy file is seen by the next call, whatever its time stamp says.
    st = os.stat(project.root / "hello.py")
    project.write({".agent-guard.yaml": "extends: default\nbudget:\n  per_edit: {lines_added: 0}\n"})
    os.utime(project.root / ".agent-guard.yaml", ns=(st.st_atime_ns, st.st_mtime_ns))
    r = g.apply(edit("'bye '", "'ciao '"), agent="h")
    assert r.status == "refused" and r.findings[0].code == "budget", r.findings
    assert len(loads) == 4


def test_long_running_session_sees_outside_changes(project: Repo) -> None:
    guard.apply(edit("'hello '", "'hi '"), repo=project.root)
    # The user edits the file and commits a new one between two calls.
    project.write({"hello.py": project.read("hello.py").decode() + "\n\nX = 1\n"})
    project.commit({"new.py": "Y = 2\n"})
    r = guard.apply(edit("X = 1", "X = 2"), repo=project.root)
    assert r.status == "applied", r.findings
    r = guard.apply(edit("Y = 2", "Y = 3", "new.py"), repo=project.root)
    assert r.status == "applied", r.findings
    assert len(guard.log(project.root)) == 3


@pytest.mark.skipif(importlib.util.find_spec("guard.pipeline.hashline_read") is None, reason="hashline read not built")
def test_read(project: Repo) -> None:
    out = guard.read("hello.py", project.root, lines=(1, 2), agent="h")
    head, *lines = out.splitlines()
    assert head.startswith("[hello.py#") and lines == ["1:def greet(name):", "2:    return 'hello ' + name", "(lines 1-2 of 6)"]
    tag = head[len("[hello.py#") : -1]
    r = guard.apply(f"[hello.py#{tag}]\nreplace 2..2\n+    return 'hey ' + name\n", repo=project.root, agent="h")
    assert r.status == "applied", r.findings


@pytest.mark.skipif(importlib.util.find_spec("guard.commit_check") is None, reason="commit check not built")
def test_check(project: Repo) -> None:
    project.write({"hello.py": SRC + "\n<<<<<<< HEAD\n"})
    project.git("add", "hello.py")
    r = guard.check(project.root)
    assert r.status == "refused" and r.exit_code == 1
    assert "conflict-marker" in {f.code for f in r.findings}


def test_a_session_sees_attribute_files_change_between_calls(project: Repo) -> None:
    """A long-running session looks attributes up afresh on each call: a .gitattributes (any
    folder), info/attributes and core.attributesFile changed between two calls count in the second."""
    (project.root / "sub").mkdir()
    project.commit({"sub/data.txt": "one\n"})
    change = json.dumps({"file_path": "sub/data.txt", "old_string": "one\n", "new_string": "two\n"})
    back = json.dumps({"file_path": "sub/data.txt", "old_string": "two\n", "new_string": "one\n"})
    g = guard.session(project.root)
    assert g.apply(change, check=True).status == "checked"
    attributes_file = project.root.parent / "attributes"
    for where in (
        project.root / ".gitattributes",
        project.root / "sub" / ".gitattributes",
        project.root / ".git" / "info" / "attributes",
        attributes_file,
    ):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text("*.txt binary\n")
        if where == attributes_file:
            project.git("config", "core.attributesFile", str(attributes_file))
        r = g.apply(change, check=True)
        assert r.status == "refused" and r.findings[0].code == "binary", (where, r.findings)
        where.unlink()
        if where == attributes_file:
            project.git("config", "--unset", "core.attributesFile")
        assert g.apply(change, check=True).status == "checked", where
    assert g.apply(change).status == "applied" and g.apply(back).status == "applied"
