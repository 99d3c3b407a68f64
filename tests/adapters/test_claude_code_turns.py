"""The Claude Code hook's turns hold the tool's change and nothing else (issue 24 §1-§3).

Each test drives both events as Claude Code does: the PreToolUse payload, then whatever
happens while Claude Code waits on its permission prompt (another agent's apply, a
person's edit), then the tool's write (done here as Claude Code does it: the edit applied
to the file as it is at that moment), then the PostToolUse payload.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, run_cli

LINES = "".join(f"line {i}\n" for i in range(1, 21))


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"n.txt": LINES, "app.py": "def f():\n    return 1\n"})
    return repo


def hook(
    repo: Repo,
    event: str,
    tool: str,
    tool_input: dict[str, Any],
    tool_use_id: str = "toolu_1",
    response: dict[str, Any] | None = None,
):  # type: ignore[no-untyped-def]
    data: dict[str, Any] = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
    }
    if response is not None:
        data["tool_response"] = response
    return run_cli(repo.root, "hook", "claude-code", input=json.dumps(data))


def claude_edit(repo: Repo, path: str, old: str, new: str) -> None:
    """What Claude Code's Edit does when it runs: the replacement, on the file as it is then."""
    text = (repo.root / path).read_text()
    assert text.count(old) == 1
    (repo.root / path).write_text(text.replace(old, new))


def edit_input(repo: Repo, path: str, old: str, new: str) -> dict[str, Any]:
    return {"file_path": str(repo.root / path), "old_string": old, "new_string": new}


def turn_diff(repo: Repo, agent: str) -> str:
    return repo.git("diff", f"refs/agent-guard/{agent}^", f"refs/agent-guard/{agent}")


def codex_changes_line_18(repo: Repo) -> None:
    edit = {"file_path": "n.txt", "old_string": "line 18\n", "new_string": "line 18 by codex\n"}
    result = run_cli(repo.root, "apply", "--agent", "codex", input=json.dumps(edit))
    assert result.code == 0, result


def test_a_hook_turn_holds_the_tools_change_and_not_another_agents(project: Repo) -> None:
    ti = edit_input(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PreToolUse", "Edit", ti).code == 0
    codex_changes_line_18(project)  # while Claude Code waits on its permission prompt
    claude_edit(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PostToolUse", "Edit", ti, response={"filePath": ti["file_path"]}).code == 0
    diff = turn_diff(project, "claude")
    assert "+line 2 by claude" in diff and "codex" not in diff, diff
    # Rolling Claude's turn back keeps codex's line; codex's turn is still in effect.
    assert run_cli(project.root, "rollback", "--agent", "claude").code == 0
    text = (project.root / "n.txt").read_text()
    assert "line 2 by claude" not in text and "line 18 by codex" in text
    log = run_cli(project.root, "log", "--agent", "codex", "--json").json()
    assert not log["turns"][0]["rolled_back"]  # type: ignore[index]


def test_a_persons_edit_during_the_prompt_is_not_the_agents(project: Repo) -> None:
    ti = edit_input(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PreToolUse", "Edit", ti).code == 0
    claude_edit(project, "n.txt", "line 10\n", "line 10 by a person\n")  # the person, in their editor
    claude_edit(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PostToolUse", "Edit", ti, response={"filePath": ti["file_path"]}).code == 0
    diff = turn_diff(project, "claude")
    assert "+line 2 by claude" in diff and "person" not in diff, diff
    assert run_cli(project.root, "rollback", "--agent", "claude").code == 0
    text = (project.root / "n.txt").read_text()
    assert "line 10 by a person" in text and "line 2 by claude" not in text


def test_a_change_that_cannot_be_told_apart_is_given_to_nobody(project: Repo) -> None:
    ti = edit_input(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PreToolUse", "Edit", ti).code == 0
    claude_edit(project, "n.txt", "line 3\n", "line 3 by a person\n")  # right next to Claude's line
    claude_edit(project, "n.txt", "line 2\n", "line 2 by claude\n")
    post = hook(project, "PostToolUse", "Edit", ti, response={"filePath": ti["file_path"]})
    assert post.code == 2 and "cannot be told apart" in post.stderr, post
    assert project.git("for-each-ref", "refs/agent-guard/claude") == ""


def test_a_denied_edit_that_was_written_anyway_is_undone(project: Repo) -> None:
    old, new = "def f():\n    return 1\n", "def f():\n    # ... existing code ...\n    return 2\n"
    ti = edit_input(project, "app.py", old, new)
    pre = hook(project, "PreToolUse", "Edit", ti)
    assert pre.code == 2 and "placeholder" in pre.stderr
    codex_changes_line_18(project)
    claude_edit(project, "app.py", old, new)  # a build that ignores the denial
    post = hook(project, "PostToolUse", "Edit", ti, response={"filePath": ti["file_path"]})
    assert post.code == 2 and "written anyway" in post.stderr and "placeholder" in post.stderr, post
    assert (project.root / "app.py").read_text() == old
    assert "line 18 by codex" in (project.root / "n.txt").read_text()
    assert project.git("for-each-ref", "refs/agent-guard/claude") == ""


def test_without_ids_a_post_hook_never_takes_another_calls_denial(project: Repo) -> None:
    """A payload with no tool_use_id: a denied call's stash is that call's, found by what it
    asked, never by its session and path alone.  Another call's write to the same file (its pre
    hook did not run) is not undone; the denied call's own write, made anyway, still is."""
    old = "def f():\n    return 1\n"
    denied_ti = edit_input(project, "app.py", old, "def f():\n    # ... existing code ...\n    return 2\n")
    assert hook(project, "PreToolUse", "Edit", denied_ti, tool_use_id="").code == 2
    clean_ti = edit_input(project, "app.py", old, "def f():\n    return 3\n")
    claude_edit(project, "app.py", old, clean_ti["new_string"])
    post = hook(project, "PostToolUse", "Edit", clean_ti, tool_use_id="", response={"filePath": clean_ti["file_path"]})
    assert "written anyway" not in post.stderr, post
    assert (project.root / "app.py").read_text().startswith("def f():\n    return 3\n")
    # The denied call itself, written anyway, is still put back.
    assert hook(project, "PreToolUse", "Edit", denied_ti | {"old_string": "def f():\n    return 3\n"}, tool_use_id="").code == 2
    claude_edit(project, "app.py", "def f():\n    return 3\n", denied_ti["new_string"])
    again = denied_ti | {"old_string": "def f():\n    return 3\n"}
    post = hook(project, "PostToolUse", "Edit", again, tool_use_id="", response={"filePath": again["file_path"]})
    assert post.code == 2 and "written anyway" in post.stderr, post
    assert (project.root / "app.py").read_text().startswith("def f():\n    return 3\n")


def test_a_denied_write_keeps_what_others_changed_meanwhile(project: Repo) -> None:
    ti = edit_input(project, "n.txt", "line 2\n", "line 2\n<<<<<<< ours\n=======\n>>>>>>> theirs\n")
    assert hook(project, "PreToolUse", "Edit", ti).code == 2
    claude_edit(project, "n.txt", "line 15\n", "line 15 by a person\n")
    claude_edit(project, "n.txt", "line 2\n", ti["new_string"])
    post = hook(project, "PostToolUse", "Edit", ti)
    assert post.code == 2
    assert (project.root / "n.txt").read_text() == LINES.replace("line 15\n", "line 15 by a person\n")


def test_a_denied_protected_write_is_undone_and_not_stored(project: Repo) -> None:
    ti = {"file_path": str(project.root / ".pre-commit-config.yaml"), "content": "repos: []\n"}
    assert hook(project, "PreToolUse", "Write", ti).code == 2
    (project.root / ".pre-commit-config.yaml").write_text("repos: []\n")
    post = hook(project, "PostToolUse", "Write", ti)
    assert post.code == 2 and not (project.root / ".pre-commit-config.yaml").exists(), post


def test_a_pass_with_warnings_reaches_the_model(project: Repo) -> None:
    ti = edit_input(project, "app.py", "    return 1\n", "    n = 1\n    return n   \n")
    pre = hook(project, "PreToolUse", "Edit", ti)
    assert pre.code == 0 and pre.stdout, pre
    spec = json.loads(pre.stdout)["hookSpecificOutput"]
    assert "permissionDecision" not in spec and "whitespace" in spec["additionalContext"], spec


# ---------------------------------------------------------------------- Bash


def bash(repo: Repo, command: str, tool_use_id: str = "toolu_b1") -> tuple[Any, Any]:
    """A Bash call through both hooks, the command run between them."""
    import subprocess

    ti = {"command": command, "description": "a command"}
    pre = hook(repo, "PreToolUse", "Bash", ti, tool_use_id)
    assert pre.code == 0 and pre.stdout == "", pre
    subprocess.run(["sh", "-c", command], cwd=repo.root, check=True, timeout=60)
    post = hook(repo, "PostToolUse", "Bash", ti, tool_use_id, response={"stdout": "", "stderr": ""})
    return pre, post


def test_a_bash_command_is_a_turn_rolled_back_alone(project: Repo) -> None:
    _pre, post = bash(project, "sed -i 's/^line 5$/line 5 by sed/' n.txt && printf 'new\\n' > made.txt")
    assert post.code == 0, post
    diff = turn_diff(project, "claude")
    assert "+line 5 by sed" in diff and "+new" in diff
    codex_changes_line_18(project)  # a later edit, of another agent
    assert run_cli(project.root, "rollback", "--agent", "claude").code == 0
    text = (project.root / "n.txt").read_text()
    assert "line 5 by sed" not in text and "line 18 by codex" in text
    assert not (project.root / "made.txt").exists()


def test_a_bash_command_that_adds_a_placeholder_is_reported(project: Repo) -> None:
    _pre, post = bash(project, "printf 'def f():\\n    # ... rest of the code unchanged ...\\n' > app.py")
    assert post.code == 2 and "placeholder" in post.stderr and "stay" in post.stderr, post
    assert "rest of the code" in (project.root / "app.py").read_text()


def test_a_bash_command_under_on_violation_revert_is_undone(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "shell:\n  on_violation: revert\n"})
    _pre, post = bash(project, "printf 'def f():\\n    # ... rest of the code unchanged ...\\n' > app.py")
    assert post.code == 2 and "reverted" in post.stderr, post
    assert (project.root / "app.py").read_text() == "def f():\n    return 1\n"


def test_a_bash_command_outside_a_repository_is_not_ours(tmp_path: Path) -> None:
    data = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
        "tool_use_id": "t",
    }
    result = run_cli(tmp_path, "hook", "claude-code", input=json.dumps(data))
    assert (result.code, result.stdout, result.stderr) == (0, "", ""), result


def test_each_hook_turn_names_claude_codes_session(project: Repo) -> None:
    """Edit and Bash turns name Claude Code's `session_id` (before, a Bash turn named the command
    line's session, so `rollback --session` could not find it)."""
    ti = edit_input(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PreToolUse", "Edit", ti).code == 0
    claude_edit(project, "n.txt", "line 2\n", "line 2 by claude\n")
    assert hook(project, "PostToolUse", "Edit", ti, response={"filePath": ti["file_path"]}).code == 0
    _pre, post = bash(project, "sed -i 's/^line 9$/line 9 by sed/' n.txt")
    assert post.code == 0, post
    sessions = project.git("log", "--format=%(trailers:key=Agent-Guard-Session,valueonly)", "refs/agent-guard/claude")
    assert [s for s in sessions.split() if s] == ["s1", "s1"], sessions
    r = run_cli(project.root, "rollback", "--json", "--agent", "claude", "--session", "s1")
    assert r.code == 0, r
    text = (project.root / "n.txt").read_text()
    assert "line 9 by sed" not in text and "line 2 by claude" in text
