"""`agent-guard hook gemini`: Gemini CLI's BeforeTool/AfterTool payloads for write_file, replace,
run_shell_command and MCP tools.

The payloads are built here in the shape Gemini CLI 0.61.0 sends (observed with the real program:
session_id, transcript_path, cwd, hook_event_name, timestamp, tool_name, tool_input; AfterTool
adds tool_response, whose returnDisplay holds a file tool's whole text before and after; no
tool-call id).  Where Gemini would act between the two hooks (write the file, run the command),
the test does what Gemini does.  When the payloads captured from the real program are at hand
(``../shared/agent-hooks/gemini``), they go through the hook too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, run_cli

SRC = (
    "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
OLD = "    return total(items) / len(items)\n"
NEW = "    return total(items) / max(len(items), 1)\n"
SESSION = "bc1fa97c-3bc4-4587-ae99-9cd999ccde38"
CAPTURED = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks" / "gemini" / "payloads"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": SRC})
    return repo


def payload(repo: Repo, event: str, tool: str, tool_input: dict[str, Any], **extra: Any) -> str:
    data: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": "/home/user/.gemini/tmp/chats/session.json",
        "cwd": str(repo.root),
        "hook_event_name": event,
        "timestamp": "2026-12-06T03:57:30.143Z",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    data.update(extra)
    return json.dumps(data)


def hook(repo: Repo, data: str | bytes, *args: str, cwd: Path | None = None) -> Any:
    return run_cli(cwd or repo.root, "hook", "gemini", *args, input=data)


def write_input(repo: Repo, path: str, content: str) -> dict[str, Any]:
    return {"file_path": str(repo.root / path), "content": content}


def replace_input(repo: Repo, old: str = OLD, new: str = NEW, path: str = "app.py") -> dict[str, Any]:
    return {"file_path": str(repo.root / path), "instruction": "guard against empty lists", "old_string": old, "new_string": new}


def shown(before: str | None, after: str) -> dict[str, Any]:
    """A file tool's tool_response as Gemini reports it (returnDisplay: the whole text before and after)."""
    display = {"fileName": "x", "originalContent": before or "", "newContent": after, "isNewFile": before is None}
    return {"llmContent": "Successfully modified file.", "returnDisplay": display}


def before_tool(repo: Repo, tool: str, tool_input: dict[str, Any], session: str = SESSION) -> Any:
    return hook(repo, payload(repo, "BeforeTool", tool, tool_input, session_id=session))


def after_tool(repo: Repo, tool: str, tool_input: dict[str, Any], response: Any, session: str = SESSION) -> Any:
    return hook(repo, payload(repo, "AfterTool", tool, tool_input, tool_response=response, session_id=session))


def turns(repo: Repo, agent: str = "gemini") -> list[dict[str, Any]]:
    r = run_cli(repo.root, "log", "--agent", agent, "--json")
    assert r.code == 0, r
    return r.json()["turns"]  # type: ignore[no-any-return,index]


def passed(result: Any) -> None:
    assert result.code == 0 and result.stdout == "" and result.stderr == "", result


def denied(result: Any, *words: str) -> str:
    """Gemini's deny form: exit 0 and {"decision": "deny", "reason": ...} (Gemini shows the reason
    to the model); the reason."""
    assert result.code == 0, result
    said = json.loads(result.stdout)
    assert said["decision"] == "deny", result
    for word in words:
        assert word in said["reason"], said["reason"]
    return str(said["reason"])


def context(result: Any) -> str:
    """AfterTool context, which Gemini appends to the tool's output the model reads."""
    assert result.code == 0, result
    said = json.loads(result.stdout)["hookSpecificOutput"]
    assert said["hookEventName"] == "AfterTool", said
    return str(said["additionalContext"])


def git_agent(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    """`git agent-X ARGS`, as a user types it (the console scripts on PATH)."""
    return subprocess.run(["git", *args], cwd=repo.root, env=checkout_env(), capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------------- write_file, replace


def test_a_clean_replace_passes_and_is_a_turn_log_shows_and_rollback_undoes(project: Repo) -> None:
    before = project.snapshot()
    ti = replace_input(project)
    passed(before_tool(project, "replace", ti))
    after_pre = project.snapshot()
    assert {k: v for k, v in after_pre.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}
    assert after_pre["<refs>"] == before["<refs>"]  # the check writes no ref
    project.write({"app.py": SRC.replace(OLD, NEW)})  # what Gemini's replace writes
    passed(after_tool(project, "replace", ti, shown(SRC, SRC.replace(OLD, NEW))))
    log = git_agent(project, "agent-log", "--agent", "gemini", "--json")
    assert log.returncode == 0, log
    [turn] = json.loads(log.stdout)["turns"]
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("M", "app.py")]
    undo = git_agent(project, "agent-rollback", "--agent", "gemini")
    assert undo.returncode == 0, undo
    assert project.read("app.py").decode() == SRC


def test_a_clean_write_file_makes_a_file_and_rollback_takes_it_and_its_folder_away(project: Repo) -> None:
    ti = write_input(project, "notes/new.txt", "hello\n")
    passed(before_tool(project, "write_file", ti))
    project.write({"notes/new.txt": "hello\n"})
    passed(after_tool(project, "write_file", ti, shown(None, "hello\n")))
    [turn] = turns(project)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("A", "notes/new.txt")]
    assert run_cli(project.root, "rollback", "--agent", "gemini").code == 0
    assert not (project.root / "notes").exists()


def test_a_relative_file_path_is_read_from_the_sessions_folder(project: Repo) -> None:
    project.commit({"pkg/mod.py": "a = 1\n"})
    ti = {"file_path": "mod.py", "content": "a = 2\n"}
    r = hook(project, payload(project, "BeforeTool", "write_file", ti, cwd=str(project.root / "pkg")))
    passed(r)
    project.write({"pkg/mod.py": "a = 2\n"})
    response = shown("a = 1\n", "a = 2\n")
    data = payload(project, "AfterTool", "write_file", ti, cwd=str(project.root / "pkg"), tool_response=response)
    passed(hook(project, data))
    assert [f["path"] for f in turns(project)[0]["files"]] == ["pkg/mod.py"]


def test_a_placeholder_is_denied_with_the_finding(project: Repo) -> None:
    before = project.snapshot()
    ti = replace_input(project, "    n = 0\n", "    # ... existing code ...\n")
    denied(before_tool(project, "replace", ti), "placeholder", "app.py:2", "nothing was written")
    assert project.snapshot() == before


def test_an_edit_of_a_file_not_read_names_the_read_gemini_can_make(project: Repo) -> None:
    """Gemini's own read tool is not hooked, so a read through it is not one agent-guard knows of:
    the hint names `git agent-read` (through its shell), never Claude Code's Read tool."""
    project.commit({".agent-guard.yaml": "read_before_edit: true\n"})
    before = project.snapshot()
    r = before_tool(project, "replace", replace_input(project))
    denied(r, "stale", "git agent-read --agent gemini app.py")
    assert "Read tool" not in r.stdout + r.stderr
    assert project.snapshot() == before


def test_a_protected_path_is_denied(project: Repo) -> None:
    before = project.snapshot()
    denied(before_tool(project, "write_file", write_input(project, ".github/workflows/ci.yml", "on: push\n")), "path-protected")
    assert project.snapshot() == before


def test_gemini_s_own_settings_are_denied(project: Repo) -> None:
    ti = write_input(project, ".gemini/settings.json", '{"hooks": {}}\n')
    denied(before_tool(project, "write_file", ti), "path-protected", ".gemini/settings.json")


def test_replace_all_is_gemini_s_allow_multiple(project: Repo) -> None:
    project.commit({"twice.py": "x = 1\nx = 1\n"})
    one = replace_input(project, "x = 1\n", "x = 2\n", "twice.py")
    denied(before_tool(project, "replace", one), "twice.py")  # Gemini fails on two matches too
    passed(before_tool(project, "replace", {**one, "allow_multiple": True}))


# ---------------------------------------------------------------------- what Gemini reports after


def test_what_gemini_wrote_is_the_turn_even_where_it_corrected_the_text(project: Repo) -> None:
    """Gemini may write something else than the model sent (its correction of a file's text, or a
    whitespace-blind match): the turn is what it reports it wrote, and the rollback undoes it."""
    sent = "def total(items):\\n    return sum(items)\n"
    written = "def total(items):\n    return sum(items)\n"
    ti = write_input(project, "app.py", sent)
    passed(before_tool(project, "write_file", ti))
    project.write({"app.py": written})
    passed(after_tool(project, "write_file", ti, shown(SRC, written)))
    [turn] = turns(project)
    assert run_cli(project.root, "show", turn["id"], "--agent", "gemini").code == 0
    assert run_cli(project.root, "rollback", "--agent", "gemini").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_crlf_file_is_recorded_in_its_own_line_ends(project: Repo) -> None:
    crlf = SRC.replace("\n", "\r\n")
    project.commit({"app.py": crlf})
    ti = replace_input(project)
    before_tool(project, "replace", ti)
    project.write({"app.py": crlf.replace(OLD.replace("\n", "\r\n"), NEW.replace("\n", "\r\n"))})
    # Gemini reports the texts with CRLF made LF, and writes CRLF back.
    passed(after_tool(project, "replace", ti, shown(SRC, SRC.replace(OLD, NEW))))
    [turn] = turns(project)
    assert turn["files"][0]["added"] == 1 and turn["files"][0]["removed"] == 1, turn
    assert run_cli(project.root, "rollback", "--agent", "gemini").code == 0
    assert project.read("app.py") == crlf.encode()


def test_without_its_before_hook_the_after_hook_records_what_gemini_reports(project: Repo) -> None:
    ti = replace_input(project)
    project.write({"app.py": SRC.replace(OLD, NEW)})
    passed(after_tool(project, "replace", ti, shown(SRC, SRC.replace(OLD, NEW))))
    [turn] = turns(project)
    assert turn["files"][0]["added"] == 1 and turn["files"][0]["removed"] == 1, turn
    assert run_cli(project.root, "rollback", "--agent", "gemini").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_failed_tool_without_its_before_hook_says_nothing(project: Repo) -> None:
    response = {"llmContent": "Failed to edit", "returnDisplay": "Error: could not find the string", "error": {"message": "x"}}
    passed(after_tool(project, "replace", replace_input(project, "nope\n"), response))
    assert turns(project) == []


# ---------------------------------------------------------------------- pairing without an id


def test_an_after_hook_is_never_paired_with_another_calls_denied_before_hook(project: Repo) -> None:
    """The issue's case: a denied call's record must not be taken by another call's AfterTool, whose
    legitimate write it would undo."""
    bad = replace_input(project, "    n = 0\n", "    # ... existing code ...\n")
    denied(before_tool(project, "replace", bad), "placeholder")  # Gemini does not run it: no AfterTool
    good = replace_input(project)  # the same file, another call, whose BeforeTool never came
    project.write({"app.py": SRC.replace(OLD, NEW)})
    passed(after_tool(project, "replace", good, shown(SRC, SRC.replace(OLD, NEW))))
    assert project.read("app.py").decode() == SRC.replace(OLD, NEW)  # kept, not put back
    assert [f["path"] for f in turns(project)[0]["files"]] == ["app.py"]


def test_the_same_call_made_again_is_not_paired_with_the_first_ones_denial(project: Repo) -> None:
    """A denied call stays open only until Gemini's next edit tool starts (it runs them alone): an
    AfterTool of the same text later on, without its own BeforeTool, is not the denied call's."""
    bad = replace_input(project, "    n = 0\n", "    # ... existing code ...\n")
    denied(before_tool(project, "replace", bad), "placeholder")
    other = write_input(project, "notes/other.txt", "x\n")
    passed(before_tool(project, "write_file", other))
    project.write({"notes/other.txt": "x\n"})
    passed(after_tool(project, "write_file", other, shown(None, "x\n")))
    landed = SRC.replace("    n = 0\n", "    # ... existing code ...\n")
    project.write({"app.py": landed})  # its BeforeTool noted nothing (it was cut short), and it ran
    passed(after_tool(project, "replace", bad, shown(SRC, landed)))
    assert project.read("app.py").decode() == landed  # recorded as the agent's, not undone for another call
    assert {f["path"] for t in turns(project) for f in t["files"]} == {"app.py", "notes/other.txt"}


def test_a_denied_call_gemini_ran_anyway_is_undone(project: Repo) -> None:
    """The core's safety net still holds: a build that ignored the denial sends the call's AfterTool
    right after, and the write is put back."""
    bad = replace_input(project, "    n = 0\n", "    # ... existing code ...\n")
    denied(before_tool(project, "replace", bad), "placeholder")
    landed = SRC.replace("    n = 0\n", "    # ... existing code ...\n")
    project.write({"app.py": landed})
    r = after_tool(project, "replace", bad, shown(SRC, landed))
    reason = denied(r, "put app.py back", "placeholder", "this replace of app.py")
    assert "Successfully modified" not in reason  # the tool's own output is no longer true: not shown
    assert not re.search(r"\b(Edit|Write)\b", reason), reason  # Claude Code's tool names: not Gemini's
    assert project.read("app.py").decode() == SRC
    assert turns(project) == []


def test_an_identical_retry_pairs_with_its_own_before_hook(project: Repo) -> None:
    ti = replace_input(project)
    passed(before_tool(project, "replace", ti))  # a call whose tool then failed: no AfterTool
    passed(before_tool(project, "replace", ti))
    project.write({"app.py": SRC.replace(OLD, NEW)})
    passed(after_tool(project, "replace", ti, shown(SRC, SRC.replace(OLD, NEW))))
    assert len(turns(project)) == 1


def test_sessions_are_apart(project: Repo) -> None:
    bad = replace_input(project, "    n = 0\n", "    # ... existing code ...\n")
    denied(before_tool(project, "replace", bad, session="s-one"), "placeholder")
    landed = SRC.replace("    n = 0\n", "    # ... existing code ...\n")
    project.write({"app.py": landed})
    # Another session's AfterTool of the same edit is not the denied call's: kept, and recorded.
    passed(after_tool(project, "replace", bad, shown(SRC, landed), session="s-two"))
    assert project.read("app.py").decode() == landed and len(turns(project)) == 1


def test_side_by_side_shell_commands_each_find_their_own_snapshot(project: Repo) -> None:
    one = {"command": "sed -i 's/n = 0/n = 1/' app.py", "description": "one"}
    two = {"command": "echo x > two.txt", "description": "two"}
    passed(before_tool(project, "run_shell_command", one))
    passed(before_tool(project, "run_shell_command", two))  # Gemini runs them side by side
    project.write({"app.py": SRC.replace("n = 0", "n = 1"), "two.txt": "x\n"})
    passed(after_tool(project, "run_shell_command", one, {"llmContent": "Output: (empty)", "returnDisplay": ""}))
    passed(after_tool(project, "run_shell_command", two, {"llmContent": "Output: (empty)", "returnDisplay": ""}))
    assert {f["path"] for t in turns(project) for f in t["files"]} == {"app.py", "two.txt"}


# ---------------------------------------------------------------------- the shell, MCP tools


def test_a_shell_command_is_a_turn(project: Repo) -> None:
    ti = {"command": "sed -i 's/n = 0/n = 1/' app.py && echo edited", "description": "edit app.py with sed"}
    passed(before_tool(project, "run_shell_command", ti))
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    response = {"llmContent": "<untrusted_context>\nOutput: edited\n</untrusted_context>", "returnDisplay": "edited"}
    passed(after_tool(project, "run_shell_command", ti, response))
    [turn] = turns(project)
    assert turn["format"] == "shell" and [f["path"] for f in turn["files"]] == ["app.py"]
    assert run_cli(project.root, "rollback", "--agent", "gemini").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_shell_command_runs_in_its_dir_path(project: Repo, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    other = Repo(tmp_path / "other")
    other.commit({"a.txt": "a\n"})
    ti = {"command": "echo b > a.txt", "description": "x", "dir_path": str(other.root)}
    passed(before_tool(project, "run_shell_command", ti))
    other.write({"a.txt": "b\n"})
    passed(after_tool(project, "run_shell_command", ti, {"llmContent": "Output: (empty)", "returnDisplay": ""}))
    assert turns(project) == [] and [f["path"] for f in turns(other)[0]["files"]] == ["a.txt"]


def test_a_refused_shell_change_replaces_the_output_with_the_findings(project: Repo) -> None:
    ti = {"command": "python3 fill.py", "description": "fill"}
    passed(before_tool(project, "run_shell_command", ti))
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})
    r = after_tool(project, "run_shell_command", ti, {"llmContent": "Output: filled 1 file", "returnDisplay": "filled 1 file"})
    reason = denied(r, "placeholder")
    assert "The tool's own output was:\nOutput: filled 1 file" in reason


def test_a_shell_command_without_its_before_hook_is_said_to_the_model(project: Repo) -> None:
    ti = {"command": "true", "description": "x"}
    said = context(after_tool(project, "run_shell_command", ti, {"llmContent": "Output: (empty)", "returnDisplay": ""}))
    assert "cannot record what run_shell_command changed" in said


@pytest.mark.parametrize("tool", ["mcp_agent-guard_write_file", "mcp_mini_write_note", "read_file", "google_web_search"])
def test_mcp_and_other_tools_pass_and_nothing_is_kept(project: Repo, tool: str) -> None:
    before = project.snapshot()
    for event in ("BeforeTool", "AfterTool"):
        r = hook(project, payload(project, event, tool, {"path": "note.txt", "text": "x"}, tool_response={"llmContent": []}))
        passed(r)
    assert project.snapshot() == before


@pytest.mark.parametrize("event", ["BeforeModel", "SessionStart", "PreToolUse", "AfterAgent"])
def test_other_events_are_not_ours(project: Repo, event: str) -> None:
    passed(hook(project, payload(project, event, "write_file", write_input(project, "app.py", "x = 1\n"))))


# ---------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{not json",
        b"[]",
        json.dumps({"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": {}}).encode(),
        json.dumps({"hook_event_name": "BeforeTool", "tool_name": "replace", "tool_input": {"file_path": 3}}).encode(),
        json.dumps({"hook_event_name": "BeforeTool", "tool_input": {"file_path": "a"}}).encode(),
    ],
)
def test_every_bad_payload_denies(project: Repo, data: bytes) -> None:
    denied(hook(project, data), "agent-guard hook:", "the edit was blocked")


def test_an_internal_error_denies(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import pre_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pre_edit, "pre", broken)
    r = before_tool(project, "replace", replace_input(project))
    denied(r, "internal error (RuntimeError: a bug)", "the edit was blocked")


def test_a_broken_policy_denies(project: Repo) -> None:
    project.write({".agent-guard.yaml": "checks: [not, a, mapping\n"})
    denied(before_tool(project, "replace", replace_input(project)), "the edit was blocked")


def test_a_register_that_cannot_be_kept_denies(project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared-run"
    shared.mkdir(mode=0o755)
    (shared / "agent-guard").mkdir(mode=0o755)  # others may open it: no place for the user's register
    os.chmod(shared / "agent-guard", 0o755)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    denied(before_tool(project, "replace", replace_input(project)), "can be opened by others", "the edit was blocked")


def test_a_post_hook_failure_reaches_the_model_and_blocks_nothing(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import post_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    ti = replace_input(project)
    passed(before_tool(project, "replace", ti))
    project.write({"app.py": SRC.replace(OLD, NEW)})
    monkeypatch.setattr(post_edit, "post", broken)
    said = context(after_tool(project, "replace", ti, shown(SRC, SRC.replace(OLD, NEW))))
    assert "the write was not recorded" in said


def test_git_agent_hook_gemini_is_the_same_command(project: Repo) -> None:
    r = subprocess.run(
        ["git", "agent-hook", "gemini"],
        input=payload(project, "BeforeTool", "replace", replace_input(project, "    n = 0\n", "    # ... existing code ...\n")),
        cwd=project.root,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and json.loads(r.stdout)["decision"] == "deny" and "placeholder" in r.stdout, r


# ---------------------------------------------------------------------- the captured payloads


@pytest.mark.skipif(not CAPTURED.is_dir(), reason="the payloads captured from Gemini CLI are not at hand")
def test_the_captured_payloads(project: Repo) -> None:
    """Gemini's own payloads of the `allow` and `mcp` runs, with the session's folder put in: the
    write, the replace and the shell command are each a turn, the MCP call is passed."""

    def captured(event: str, tool: str) -> str:
        return (CAPTURED / f"gemini-{event}-{tool}.json").read_text().replace("<repo>", str(project.root))

    for tool, act in (
        ("write_file", lambda: project.write({"notes/new.txt": "hello\n"})),
        ("replace", lambda: project.write({"app.py": SRC.replace(OLD, NEW)})),
        ("run_shell_command", lambda: project.write({"app.py": project.read("app.py").decode().replace("n = 0", "n = 1")})),
        ("mcp_mini_write_note", lambda: project.write({"mcp_note.txt": "from mcp\n"})),
    ):
        passed(hook(project, captured("BeforeTool", tool)))
        act()
        passed(hook(project, captured("AfterTool", tool)))
    log = turns(project)
    assert [t["format"] for t in log] == ["shell", "json", "whole"]  # newest first
    assert sorted(f["path"] for t in log for f in t["files"]) == ["app.py", "app.py", "notes/new.txt"]
