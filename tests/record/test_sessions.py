"""Budget sessions (guard/record/sessions.py): what `budget.per_session` counts over, shown and ended.

Before sessions were defined, every command-line and MCP turn counted in one session
named `default` that nothing ended: four separate one-line applies tripped a 3-line
`per_session` limit for good.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, alarm, run_cli

from guard.pipeline.engine import Guard
from guard.record import sessions

POLICY = "extends: default\nbudget:\n  per_session: {lines_added: 3}\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"f.txt": "a\nb\nc\n", ".agent-guard.yaml": POLICY})
    return repo


def one_line(n: int) -> str:
    return f"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n a\n+new {n}\n"


def apply(repo: Repo, n: int, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_cli(repo.root, "apply", "--json", *args, input=one_line(n), env=env)


def session(repo: Repo, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    r = run_cli(repo.root, "session", "--json", *args, env=env)
    assert r.code == 0, r
    return r.json()


def test_command_line_applies_count_together_until_the_session_ends(project: Repo) -> None:
    for n in range(3):
        assert apply(project, n).code == 0
    shown = session(project)
    assert shown["session"] == "default" and shown["used"]["lines_added"] == 3 and shown["limits"]["lines_added"] == 3
    before = project.snapshot()
    r = apply(project, 3)
    assert r.code == 1, r
    [f] = r.json()["findings"]  # type: ignore[misc]
    assert f["code"] == "budget" and "per_session" in f["message"] and "agent-guard session --end" in f["hint"]
    assert project.snapshot() == before  # refused: nothing written, no turn recorded
    ended = session(project, "--end")
    assert ended["ended"] and ended["session"] != "default" and ended["used"]["lines_added"] == 0
    assert apply(project, 4).code == 0
    assert session(project)["used"]["lines_added"] == 1
    # The commit names its session; the file the command line keeps is in the git dir.
    assert f"Agent-Guard-Session: {ended['session']}" in project.git("log", "-1", "--format=%B", "refs/agent-guard/agent")
    kept = project.root / ".git" / "agent-guard" / "sessions" / "agent"
    assert kept.read_text().strip() == ended["session"]


def test_each_agent_has_its_own_session(project: Repo) -> None:
    for n in range(3):
        assert apply(project, n, "--agent", "codex").code == 0
    assert apply(project, 9, "--agent", "aider").code == 0  # codex's spent session is not aider's
    session(project, "--agent", "aider", "--end")
    assert apply(project, 10, "--agent", "codex").code == 1  # ending aider's left codex's as it was


def test_the_environment_names_the_session(project: Repo) -> None:
    env = {"AGENT_GUARD_SESSION": "ci-run-7"}
    for n in range(3):
        assert apply(project, n, env=env).code == 0
    assert apply(project, 3, env=env).code == 1
    assert apply(project, 3, env={"AGENT_GUARD_SESSION": "ci-run-8"}).code == 0
    shown = session(project, env={"AGENT_GUARD_SESSION": "ci-run-8"})
    assert shown == {**shown, "session": "ci-run-8", "source": "environment"}
    # The command line cannot end a session the environment names.
    r = run_cli(project.root, "session", "--end", env=env)
    assert r.code == 2 and "AGENT_GUARD_SESSION" in r.stderr, r


def test_a_caller_names_its_session(project: Repo) -> None:
    """What the MCP server does (one session per server) and the Python API can do."""
    first, second = Guard(project.root), Guard(project.root)
    first.budget_session, second.budget_session = "mcp-one", "mcp-two"
    for n in range(3):
        assert first.apply(one_line(n)).status == "applied"
    assert first.apply(one_line(3)).status == "refused"
    assert second.apply(one_line(4)).status == "applied"
    # A session name is one printable line; anything else falls back to the next source.
    odd = Guard(project.root)
    odd.budget_session = "two\nlines"
    assert odd.session("agent") == "default"


def _hook(repo: Repo, session_id: str, n: int):  # type: ignore[no-untyped-def]
    path = repo.root / "f.txt"
    data = {
        "session_id": session_id,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(path), "old_string": "a\n", "new_string": f"a\nhook {n}\n"},
        "tool_use_id": f"toolu_{session_id}_{n}",
    }
    pre = run_cli(repo.root, "hook", "claude-code", input=json.dumps(data))
    if pre.code != 0 or '"deny"' in pre.stdout:
        return pre
    path.write_text(path.read_text().replace("a\n", f"a\nhook {n}\n", 1))
    post = run_cli(
        repo.root,
        "hook",
        "claude-code",
        input=json.dumps({**data, "hook_event_name": "PostToolUse", "tool_response": {"filePath": str(path)}}),
    )
    assert post.code == 0, post
    return pre


def test_claude_code_sessions_count_apart(project: Repo) -> None:
    for n in range(3):
        r = _hook(project, "claude-1", n)
        assert r.code == 0 and '"deny"' not in r.stdout, r
    before = project.snapshot()
    denied = _hook(project, "claude-1", 3)
    assert denied.code == 2 and "per_session" in denied.stderr, denied
    assert project.snapshot() == before
    ok = _hook(project, "claude-2", 4)
    assert ok.code == 0 and '"deny"' not in ok.stdout, ok


def test_session_shown_in_words(project: Repo) -> None:
    assert apply(project, 0).code == 0
    r = run_cli(project.root, "session")
    assert r.code == 0 and "agent: session default (command line)" in r.stdout and "lines_added: 1 of 3" in r.stdout, r
    r = run_cli(project.root, "session", "--end")
    assert r.code == 0 and r.stdout.startswith("ended agent's session; the next turn starts session "), r


def test_session_outside_a_repository(tmp_path: Path) -> None:
    r = run_cli(tmp_path, "session")
    assert r.code == 2, r


def test_a_named_pipe_at_the_session_file_is_not_waited_on(project: Repo) -> None:
    # Every apply reads the file; a pipe an agent's shell put there would hold each one for ever.
    folder = project.root / ".git" / "agent-guard" / "sessions"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "agent")
    with alarm(20, "an apply waited on a named pipe at the session file"):
        assert sessions.stored(project.root / ".git", "agent") == sessions.DEFAULT  # as unreadable as a folder there
        report = Guard(project.root).apply(one_line(1), check=True)
    assert report.status == "checked", report.findings
