"""Every undo command agent-guard prints works as printed: each test runs the one it was given.

A flagged shell turn (`agent-guard run`, a Claude Code Bash call) stays in the tree and the
message names the command that undoes it.  That command once read `git agent-rollback`, which
picks the default agent ("agent") and exits 2 when the turn was another agent's; so each test
here takes the command out of the message, runs it as a person's shell would (its words split
as the shell splits them), and checks that it exits 0 and undoes the turn.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from typing import Any

from conftest import Repo, command, run_cli

APP = "def f():\n    return 1\n"
PLACEHOLDER = "def f():\n    # ... rest of the code unchanged ...\n"


def _undo_command(text: str) -> list[str]:
    """The one `git agent-rollback ...` command the message names, as the shell would split it."""
    found = re.findall(r"`(git agent-rollback[^`]*)`", text)
    assert len(found) == 1, text
    return shlex.split(found[0])


def _runs_and_undoes(repo: Repo, text: str) -> None:
    undo = _undo_command(text)
    done = command(repo.root, *undo)
    assert done.returncode == 0, (undo, done)
    assert (repo.root / "app.py").read_text() == APP


def test_the_undo_command_after_a_flagged_run_works_as_printed(repo: Repo) -> None:
    repo.commit({"app.py": APP})
    script = f"open('app.py', 'w').write({PLACEHOLDER!r})"
    result = command(repo.root, "agent-guard", "run", "--agent", "aider", "--", sys.executable, "-c", script)
    assert result.returncode == 1 and b"stay" in result.stderr, result
    _runs_and_undoes(repo, result.stderr.decode())


def test_the_undo_command_names_an_agent_taken_from_the_environment(repo: Repo) -> None:
    """$AGENT_GUARD_AGENT named the agent for `run`; the person runs the command in a shell without it."""
    repo.commit({"app.py": APP})
    script = f"open('app.py', 'w').write({PLACEHOLDER!r})"
    env = {"AGENT_GUARD_AGENT": "aider"}
    result = command(repo.root, "agent-guard", "run", "--", sys.executable, "-c", script, env=env)
    assert result.returncode == 1 and b"stay" in result.stderr, result
    _runs_and_undoes(repo, result.stderr.decode())


def test_the_undo_command_after_a_flagged_bash_call_works_as_printed(repo: Repo) -> None:
    repo.commit({"app.py": APP})
    line = "printf 'def f():\\n    # ... rest of the code unchanged ...\\n' > app.py"
    ti = {"command": line, "description": "a command"}

    def hook(event: str, response: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
        data: dict[str, Any] = {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(repo.root),
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": ti,
            "tool_use_id": "toolu_b1",
        }
        if response is not None:
            data["tool_response"] = response
        return run_cli(repo.root, "hook", "claude-code", input=json.dumps(data))

    assert hook("PreToolUse").code == 0
    subprocess.run(["sh", "-c", line], cwd=repo.root, check=True, timeout=60)
    post = hook("PostToolUse", {"stdout": "", "stderr": ""})
    assert post.code == 2 and "stay" in post.stderr, post
    _runs_and_undoes(repo, post.stderr)


def test_the_force_command_of_a_refused_rollback_works_as_printed(repo: Repo) -> None:
    """The --force a `rollback-conflict` names, for an agent that is not the default one."""
    repo.commit({"app.py": APP})
    edit = json.dumps({"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"})
    assert run_cli(repo.root, "apply", "--agent", "aider", input=edit).code == 0
    (repo.root / "app.py").write_text("def f():\n    return 3\n")
    refused = run_cli(repo.root, "rollback", "--agent", "aider")
    assert refused.code == 1, refused
    forced = re.findall(r"(git agent-rollback [^\n(]*--force)", refused.stdout)
    assert forced, refused.stdout
    done = command(repo.root, *shlex.split(forced[0]))
    assert done.returncode == 0, (forced[0], done)
    assert (repo.root / "app.py").read_text() == APP
