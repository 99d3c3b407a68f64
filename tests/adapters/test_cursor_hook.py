"""`agent-guard hook cursor`: Cursor's preToolUse/postToolUse payloads.

No Cursor account is at hand: the payloads are built here in the shape Cursor's hooks page
(cursor.com/docs/hooks) documents: the fields every hook gets (``conversation_id``,
``generation_id``, ``hook_event_name``, ``workspace_roots``, ``cursor_version``...) and
``tool_name``, ``tool_input``, ``tool_use_id``, ``cwd``; ``tool_output`` after the tool,
``error_message`` after a failure.  The page does not give the file tools' input; the names
Cursor's tools use (``path``, ``contents``, ``old_string``, ``new_string``) are used.  Where
Cursor would act between the two hooks (write the file, run the command), the test does what it
does.  When the documentation's examples are at hand (``../shared/agent-hooks/cursor``), they go
through the hook too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, run_cli

SRC = "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n"
CONVERSATION = "4a1d9c3e-77b2-4f0a-8e5d-1c2b3a4d5e6f"
GENERATION = "0199f1c2-8d3e-7a4b-9c5d-6e7f8a9b0c1d"
EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks" / "cursor"
EVENTS = {"pre": "preToolUse", "post": "postToolUse", "failure": "postToolUseFailure"}


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": SRC})
    return repo


def payload(repo: Repo, event: str, tool: str, tool_input: dict[str, Any], call: str = "toolu_01", **extra: Any) -> str:
    data: dict[str, Any] = {
        "conversation_id": CONVERSATION,
        "generation_id": GENERATION,
        "model": "claude-opus-4-7-thinking-max",
        "hook_event_name": EVENTS[event],
        "cursor_version": "2.6.1",
        "workspace_roots": [str(repo.root)],
        "user_email": None,
        "transcript_path": None,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": call,
        "cwd": str(repo.root),
    }
    if event == "post":
        data.update(tool_output=json.dumps({"success": True}), duration=12)
    elif event == "failure":
        data.update(error_message="Command failed with exit code 1", failure_type="error", duration=12, is_interrupt=False)
    data.update(extra)
    return json.dumps(data)


def hook(repo: Repo, data: str | bytes, cwd: Path | None = None) -> Any:
    return run_cli(cwd or repo.root, "hook", "cursor", input=data)


def nothing(result: Any) -> None:
    """No decision, nothing to say: ``{}`` (Cursor reads every answer as JSON)."""
    assert result.code == 0 and result.stdout == "{}\n" and result.stderr == "", result


def denied(result: Any, *words: str) -> str:
    """Cursor's deny form, exit 0: ``permission`` deny, the reason as ``agent_message`` (its first
    line as ``user_message``)."""
    assert result.code == 0, result
    said = json.loads(result.stdout)
    assert said["permission"] == "deny" and said["agent_message"].startswith(said["user_message"]), result
    for word in words:
        assert word in said["agent_message"], result
    return str(said["agent_message"])


def context(result: Any) -> str:
    assert result.code == 0, result
    return str(json.loads(result.stdout)["additional_context"])


def turns(repo: Repo) -> list[dict[str, Any]]:
    r = run_cli(repo.root, "log", "--agent", "cursor", "--json")
    assert r.code == 0, r
    return r.json()["turns"]  # type: ignore[no-any-return,index]


def git_agent(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo.root, env=checkout_env(), capture_output=True, text=True, timeout=120)


REPLACE = {"path": "app.py", "old_string": "    n = 0\n", "new_string": "    n = 0  # the sum\n"}
PLACEHOLDER = {"path": "app.py", "old_string": "    n = 0\n", "new_string": "    # ... existing code ...\n"}


# ---------------------------------------------------------------------- file tools


@pytest.mark.parametrize("tool", ["StrReplace", "Write"])
def test_a_clean_edit_passes_and_is_a_turn_log_shows_and_rollback_undoes(project: Repo, tool: str) -> None:
    before = project.snapshot()
    nothing(hook(project, payload(project, "pre", tool, REPLACE)))
    assert project.snapshot() == before
    project.write({"app.py": SRC.replace("    n = 0\n", "    n = 0  # the sum\n")})  # what Cursor's tool does
    nothing(hook(project, payload(project, "post", tool, REPLACE)))
    log = git_agent(project, "agent-log", "--agent", "cursor", "--json")
    assert log.returncode == 0, log
    [turn] = json.loads(log.stdout)["turns"]
    assert turn["id"] == "p8a9b0c1d"  # the user message's turn (generation_id)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("M", "app.py")]
    undo = git_agent(project, "agent-rollback", "--agent", "cursor")
    assert undo.returncode == 0, undo
    assert project.read("app.py").decode() == SRC


def test_a_whole_file_write_is_checked_and_recorded(project: Repo) -> None:
    write = {"file_path": str(project.root / "notes" / "todo.md"), "contents": "- write tests\n"}
    nothing(hook(project, payload(project, "pre", "Write", write)))
    project.write({"notes/todo.md": "- write tests\n"})
    nothing(hook(project, payload(project, "post", "Write", write)))
    [turn] = turns(project)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("A", "notes/todo.md")]


def test_a_placeholder_is_denied_in_cursors_form(project: Repo) -> None:
    before = project.snapshot()
    denied(hook(project, payload(project, "pre", "StrReplace", PLACEHOLDER)), "placeholder", "app.py:2", "nothing was written")
    assert project.snapshot() == before


def test_a_protected_path_is_denied(project: Repo) -> None:
    before = project.snapshot()
    write = {"path": ".github/workflows/ci.yml", "contents": "on: push\n"}
    denied(hook(project, payload(project, "pre", "Write", write)), "path-protected", ".github/workflows/ci.yml")
    denied(hook(project, payload(project, "pre", "Write", {"path": ".cursor/hooks.json", "contents": "{}"})), "path-protected")
    assert project.snapshot() == before


def test_a_denied_edit_written_anyway_is_put_back_and_the_model_told(project: Repo) -> None:
    denied(hook(project, payload(project, "pre", "StrReplace", PLACEHOLDER)), "placeholder")
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})
    assert "put app.py back" in context(hook(project, payload(project, "post", "StrReplace", PLACEHOLDER)))
    assert project.read("app.py").decode() == SRC and turns(project) == []


def test_a_post_without_its_pre_is_never_paired_with_another_calls_denial(project: Repo) -> None:
    denied(hook(project, payload(project, "pre", "StrReplace", PLACEHOLDER, call="toolu_refused")), "placeholder")
    project.write({"app.py": SRC.replace("    n = 0\n", "    n = 0  # the sum\n")})
    said = context(hook(project, payload(project, "post", "StrReplace", REPLACE, call="toolu_unseen")))
    assert "cannot record" in said and "toolu_unseen" in said
    assert project.read("app.py").decode() == SRC.replace("    n = 0\n", "    n = 0  # the sum\n")  # kept


def test_input_that_names_no_file_is_blocked_naming_its_keys(project: Repo) -> None:
    denied(hook(project, payload(project, "pre", "Write", {"target": "app.py"})), "name no file", "keys: target", "blocked")


# ---------------------------------------------------------------------- the shell, Delete


def test_a_shell_command_is_a_turn(project: Repo) -> None:
    shell = {"command": "sed -i 's/n = 0/n = 1/' app.py", "working_directory": str(project.root)}
    nothing(hook(project, payload(project, "pre", "Shell", shell, call="toolu_sh", cwd="")))
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    nothing(hook(project, payload(project, "post", "Shell", shell, call="toolu_sh", cwd="")))
    [turn] = turns(project)
    assert turn["format"] == "shell" and [f["path"] for f in turn["files"]] == ["app.py"]
    assert run_cli(project.root, "rollback", "--agent", "cursor").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_payload_with_a_byte_order_mark_and_no_cwd_is_read(project: Repo, tmp_path: Path) -> None:
    """Seen from Cursor's agent: the payload starts with a byte-order mark, ``cwd`` is empty; the
    first workspace root is the session's folder (the hook runs elsewhere)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = b"\xef\xbb\xbf" + payload(project, "pre", "StrReplace", PLACEHOLDER, cwd="").encode()
    denied(hook(project, data, cwd=elsewhere), "placeholder")


def test_a_failed_command_is_recorded_through_post_tool_use_failure(project: Repo) -> None:
    shell = {"command": "sed -i 's/n = 0/n = 1/' app.py && false"}
    nothing(hook(project, payload(project, "pre", "Shell", shell, call="toolu_sh")))
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    nothing(hook(project, payload(project, "failure", "Shell", shell, call="toolu_sh")))
    [turn] = turns(project)
    assert [f["path"] for f in turn["files"]] == ["app.py"]


def test_a_delete_is_a_turn(project: Repo) -> None:
    project.commit({"old.txt": "bye\n"})
    nothing(hook(project, payload(project, "pre", "Delete", {"path": "old.txt"}, call="toolu_rm")))
    (project.root / "old.txt").unlink()
    nothing(hook(project, payload(project, "post", "Delete", {"path": "old.txt"}, call="toolu_rm")))
    [turn] = turns(project)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("D", "old.txt")]
    assert run_cli(project.root, "rollback", "--agent", "cursor").code == 0
    assert project.read("old.txt") == b"bye\n"


def test_a_refused_shell_change_is_told(project: Repo) -> None:
    shell = {"command": "python3 fill.py"}
    nothing(hook(project, payload(project, "pre", "Shell", shell, call="toolu_sh")))
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})
    assert "placeholder" in context(hook(project, payload(project, "post", "Shell", shell, call="toolu_sh")))


# ---------------------------------------------------------------------- failures, other tools and events


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{not json",
        b"[]",
        json.dumps({"hook_event_name": "preToolUse", "tool_name": "StrReplace", "tool_input": "app.py"}).encode(),
    ],
)
def test_every_bad_payload_denies(project: Repo, data: bytes) -> None:
    denied(hook(project, data), "agent-guard hook:", "the edit was blocked")


def test_an_internal_error_denies(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import pre_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pre_edit, "pre", broken)
    denied(hook(project, payload(project, "pre", "StrReplace", REPLACE)), "internal error (RuntimeError: a bug)")


def test_a_post_hook_failure_reaches_the_model_and_blocks_nothing(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import post_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    nothing(hook(project, payload(project, "pre", "StrReplace", REPLACE)))
    monkeypatch.setattr(post_edit, "post", broken)
    assert "the write was not recorded" in context(hook(project, payload(project, "post", "StrReplace", REPLACE)))


@pytest.mark.parametrize("tool", ["Read", "Grep", "Task", "MCP:mini:write_note"])
def test_other_tools_pass_and_nothing_is_kept(project: Repo, tool: str) -> None:
    before = project.snapshot()
    for event in ("pre", "post"):
        nothing(hook(project, payload(project, event, tool, {"path": "app.py", "text": "x"})))
    assert project.snapshot() == before


def test_the_events_without_a_tool_call_id_are_answered_with_no_decision(project: Repo) -> None:
    """beforeShellExecution, afterShellExecution and afterFileEdit carry no id that pairs a call's two
    hooks; with preToolUse installed they would take every command twice."""
    common = {"conversation_id": CONVERSATION, "generation_id": GENERATION, "workspace_roots": [str(project.root)]}
    before = project.snapshot()
    for event, fields in (
        ("beforeShellExecution", {"command": "rm -rf .git", "cwd": str(project.root), "sandbox": False}),
        ("afterShellExecution", {"command": "ls", "output": "app.py\n", "duration": 3, "sandbox": False}),
        ("afterFileEdit", {"file_path": str(project.root / "app.py"), "edits": [{"old_string": "n", "new_string": "m"}]}),
        ("stop", {"status": "completed", "loop_count": 0}),
    ):
        nothing(hook(project, json.dumps({**common, "hook_event_name": event, **fields})))
    assert project.snapshot() == before


# ---------------------------------------------------------------------- the documentation's examples


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="the documentation's examples are not at hand")
def test_the_documented_examples(project: Repo) -> None:
    """The examples' events carry no tool-call id (no decision, nothing kept); their deny answer is
    ours (the hooks file: tests/adapters/test_install_json.py)."""

    def example(name: str) -> str:
        return (EXAMPLES / name).read_text().replace("<repo>", str(project.root))

    before = project.snapshot()
    for name in ("beforeShellExecution.example.json", "afterFileEdit.example.json"):
        nothing(hook(project, example(name)))
    assert project.snapshot() == before
    documented = json.loads(example("deny-answer.example.json"))
    ours = json.loads(hook(project, payload(project, "pre", "StrReplace", PLACEHOLDER)).stdout)
    assert set(ours) == set(documented) and ours["permission"] == documented["permission"]
