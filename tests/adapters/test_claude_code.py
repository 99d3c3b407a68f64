"""`agent-guard hook claude-code`: Claude Code's PreToolUse/PostToolUse payloads, as recorded.

The payloads below have the shape Claude Code sends (session_id, transcript_path,
cwd, permission_mode, hook_event_name, tool_name, tool_input, tool_use_id; the
post payload adds tool_response).  A pre hook never changes the work tree or a
ref, whatever it answers; a post hook records what the tool wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, git

from guard.adapters.install import fail_closed

SRC = (
    "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
SETTINGS = Path(__file__).resolve().parents[2] / "hooks" / "claude-code-settings.json"
# The console script this venv installed: what Claude Code's settings run.
AGENT_GUARD = Path(sys.executable).with_name("agent-guard")


def hook_command(
    cwd: Path, data: str | bytes, *args: str, timeout: float = 60, **popen: Any
) -> subprocess.CompletedProcess[bytes]:
    """`agent-guard hook claude-code ARGS` run as Claude Code runs it, the payload on standard input."""
    assert AGENT_GUARD.exists(), f"{AGENT_GUARD} is missing: pip install -e '.[test]' in this checkout"
    raw = data.encode() if isinstance(data, str) else data
    return subprocess.run(
        [str(AGENT_GUARD), "hook", "claude-code", *args],
        input=raw,
        cwd=cwd,
        env=checkout_env(),
        capture_output=not popen,
        timeout=timeout,
        **popen,
    )


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC, "README.md": "# demo\n"})
    return repo


def payload(
    repo: Repo,
    tool: str,
    tool_input: dict[str, Any],
    *,
    event: str = "PreToolUse",
    tool_use_id: str = "toolu_01ABC",
    response: dict[str, Any] | None = None,
    **extra: Any,
) -> str:
    data: dict[str, Any] = {
        "session_id": "8a4cc4d2-6c5e-4b7c-9d1e-3f2a1b0c9d8e",
        "transcript_path": "/home/user/.claude/projects/demo/8a4cc4d2.jsonl",
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
    }
    if response is not None:
        data["tool_response"] = response
    data.update(extra)
    return json.dumps(data)


def absolute(repo: Repo, name: str) -> str:
    return str(repo.root / name)


def decision(result) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The hook's answer: {"permissionDecision": "deny", "permissionDecisionReason": ...} for a refusal
    (exit 2, the reason on stderr), else its JSON output ({} for none), which must grant nothing."""
    if result.code == 2:
        # A denial comes in both forms Claude Code reads: exit 2 with the reason on stderr, and
        # (where the hook could still answer) the JSON decision on stdout, saying the same.
        assert result.stderr, result
        if result.stdout:
            spec = json.loads(result.stdout)["hookSpecificOutput"]
            assert spec["permissionDecision"] == "deny" and spec["permissionDecisionReason"] == result.stderr.rstrip("\n")
        return {"permissionDecision": "deny", "permissionDecisionReason": result.stderr}
    assert result.code == 0 and result.stderr == "", result
    if not result.stdout:
        return {}
    spec = json.loads(result.stdout)["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    assert spec.get("permissionDecision") in (None, "ask"), spec  # never "allow"
    return spec  # type: ignore[no-any-return]


def passed(result) -> bool:  # type: ignore[no-untyped-def]
    """The edit passed: no permission decision at all, so Claude Code's own rules apply."""
    return "permissionDecision" not in decision(result) and result.code == 0


def turns(cli, agent: str = "claude") -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    r = cli("log", "--agent", agent, "--json", "--patch")
    assert r.code == 0, r
    return r.json()["turns"]  # type: ignore[no-any-return,index]


def edit_input(repo: Repo, old: str, new: str, **kw: Any) -> dict[str, Any]:
    return {"file_path": absolute(repo, "stats.py"), "old_string": old, "new_string": new, **kw}


# ---------------------------------------------------------------------- PreToolUse: allow


def test_edit_allowed_and_nothing_written(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    r = cli("hook", "claude-code", input=payload(project, "Edit", edit_input(project, "s = 0", "s = 0.0")))
    assert passed(r) and r.stdout == ""
    assert project.snapshot() == before


def test_on_pass_ask_and_defer(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    p = payload(project, "Edit", edit_input(project, "s = 0", "s = 0.0"))
    assert decision(cli("hook", "claude-code", "--on-pass", "ask", input=p))["permissionDecision"] == "ask"
    r = cli("hook", "claude-code", "--on-pass", "defer", input=p)
    assert (r.code, r.stdout) == (0, "")


def test_multiedit_applies_in_sequence(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # The second edit's old_string exists only after the first: Claude Code applies them in order.
    edits = [
        {"old_string": "s = 0\n", "new_string": "acc = 0\n"},
        {
            "old_string": "acc = 0\n    for i in items:\n        s += i\n    return s",
            "new_string": "acc = 0\n    for i in items:\n        acc += i\n    return acc",
        },
    ]
    r = cli(
        "hook", "claude-code", input=payload(project, "MultiEdit", {"file_path": absolute(project, "stats.py"), "edits": edits})
    )
    assert passed(r)


def test_write_new_file_allowed(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    r = cli(
        "hook",
        "claude-code",
        input=payload(project, "Write", {"file_path": absolute(project, "pkg/new.py"), "content": "X = 1\n"}),
    )
    assert passed(r)
    assert project.snapshot() == before
    assert not (project.root / "pkg").exists()


def test_edit_with_empty_old_string_creates(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = {"file_path": absolute(project, "notes.txt"), "old_string": "", "new_string": "hello\n"}
    assert passed(cli("hook", "claude-code", input=payload(project, "Edit", ti)))


def test_relative_path_from_a_subfolder(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    (project.root / "sub").mkdir()
    p = json.loads(payload(project, "Edit", {"file_path": "../stats.py", "old_string": "s = 0", "new_string": "s = 1"}))
    p["cwd"] = str(project.root / "sub")
    assert passed(cli("hook", "claude-code", input=json.dumps(p)))


# ---------------------------------------------------------------------- PreToolUse: deny


@pytest.mark.parametrize(
    "tool,tool_input,code,hint",
    [
        ("Edit", {"old_string": "    s = 0\n    for j in items:\n", "new_string": "    s = 1\n"}, "not-found", "closest region"),
        ("Edit", {"old_string": "items", "new_string": "xs"}, "ambiguous", "candidates"),
        (
            "Edit",
            {"old_string": "    return s\n", "new_string": "    # ... existing code ...\n    return s\n"},
            "placeholder",
            "",
        ),
        (
            "MultiEdit",
            {"edits": [{"old_string": "s = 0", "new_string": "s = 1"}, {"old_string": "no such line", "new_string": "x"}]},
            "not-found",
            "",
        ),
        ("Write", {"file_path": ".env", "content": "TOKEN=1\n"}, "path-protected", "may not change"),
        ("Write", {"file_path": ".git/config", "content": "[core]\n"}, "path-protected", ""),
        ("Edit", {"file_path": "missing.py", "old_string": "a", "new_string": "b"}, "missing", ""),
    ],
)
def test_refusals_deny_with_findings(project: Repo, cli, tool: str, tool_input: dict[str, Any], code: str, hint: str) -> None:  # type: ignore[no-untyped-def]
    ti = {"file_path": absolute(project, "stats.py"), **tool_input}
    if not ti["file_path"].startswith("/"):
        ti["file_path"] = absolute(project, ti["file_path"])
    before = project.snapshot()
    r = cli("hook", "claude-code", input=payload(project, tool, ti))
    spec = decision(r)
    assert spec["permissionDecision"] == "deny"
    reason = spec["permissionDecisionReason"]
    assert f": {code}: " in reason, reason
    assert "nothing was written" in reason
    assert hint in reason
    assert project.snapshot() == before
    # A denial is noted (never as the agent's turn), so that a PostToolUse for it undoes a write
    # that went through anyway; a path outside the tree or in .git leaves nothing to undo.
    stashes = list((project.root / ".git" / "agent-guard" / "hooks").glob("*.json"))
    assert all(json.loads(p.read_text())["denied"] for p in stashes)
    assert project.git("for-each-ref", "refs/agent-guard") == ""


def test_notebook_edit_passed_through_but_path_checked(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    nb = {
        "notebook_path": absolute(project, "analysis.ipynb"),
        "cell_id": "a1",
        "new_source": "print(1)",
        "cell_type": "code",
        "edit_mode": "replace",
    }
    assert passed(cli("hook", "claude-code", input=payload(project, "NotebookEdit", nb)))
    nb["notebook_path"] = absolute(project, ".github/workflows/ci.ipynb")
    spec = decision(cli("hook", "claude-code", input=payload(project, "NotebookEdit", nb, tool_use_id="toolu_02")))
    assert spec["permissionDecision"] == "deny"
    assert "path-protected" in spec["permissionDecisionReason"]


# ---------------------------------------------------------------------- not ours: no answer


def test_other_tools_events_and_places_get_no_answer(project: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    cases = [
        payload(project, "Bash", {"command": "rm -rf build"}),
        payload(project, "Read", {"file_path": absolute(project, "stats.py")}),
        payload(project, "Edit", {"file_path": str(tmp_path / "elsewhere.py"), "old_string": "a", "new_string": "b"}),
        payload(project, "Edit", edit_input(project, "s = 0", "s = 1"), event="Stop"),
    ]
    outside = tmp_path / "plain"
    outside.mkdir()
    p = json.loads(payload(project, "Edit", {"file_path": str(outside / "a.py"), "old_string": "a", "new_string": "b"}))
    p["cwd"] = str(outside)
    cases.append(json.dumps(p))
    for c in cases:
        r = cli("hook", "claude-code", input=c)
        assert (r.code, r.stdout, r.stderr) == (0, "", ""), (c, r)
    assert project.snapshot() == before


# ---------------------------------------------------------------------- malformed payloads


@pytest.mark.parametrize(
    "raw,words",
    [
        ("", "no hook payload"),
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"tool_name": "Edit", "tool_input": {}}', "hook_event_name"),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Edit"}', "tool_input"),
        (
            '{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"old_string": "a", "new_string": "b"}}',
            "file_path",
        ),
        ('{"hook_event_name": "PreToolUse", "tool_name": "NotebookEdit", "tool_input": {"new_source": "x"}}', "notebook_path"),
    ],
)
def test_malformed_pre_payload_blocks_with_exit_2(project: Repo, cli, raw: str, words: str) -> None:  # type: ignore[no-untyped-def]
    before = project.snapshot()
    r = cli("hook", "claude-code", input=raw)
    assert r.code == 2, r
    assert r.stdout == ""
    assert r.stderr.startswith("agent-guard hook: ") and words in r.stderr, r
    assert project.snapshot() == before


def test_malformed_multiedit_blocks(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli(
        "hook", "claude-code", input=payload(project, "MultiEdit", {"file_path": absolute(project, "stats.py"), "edits": "x"})
    )
    assert r.code == 2 and "edits" in r.stderr, r


def test_malformed_post_payload_does_not_block(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli(
        "hook", "claude-code", input='{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"content": "x"}}'
    )
    assert r.code == 1 and "file_path" in r.stderr, r


def test_broken_policy_blocks(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project.write({".agent-guard.yaml": "checks: [not, a, mapping\n"})
    r = cli("hook", "claude-code", input=payload(project, "Edit", edit_input(project, "s = 0", "s = 1")))
    assert r.code == 2 and "policy" in r.stderr, r


# ---------------------------------------------------------------------- PostToolUse: recording


def claude_writes(repo: Repo, name: str, content: str) -> None:
    """What Claude Code's tool does between the two hooks."""
    path = repo.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def test_pre_then_post_records_the_turn_and_rolls_back(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = edit_input(project, "s = 0", "s = 0.0")
    assert passed(cli("hook", "claude-code", input=payload(project, "Edit", ti)))
    head = project.git("rev-parse", "HEAD")
    claude_writes(project, "stats.py", SRC.replace("s = 0", "s = 0.0"))
    resp = {
        "filePath": ti["file_path"],
        "oldString": "s = 0",
        "newString": "s = 0.0",
        "originalFile": SRC,
        "structuredPatch": [],
        "userModified": False,
        "replaceAll": False,
    }
    r = cli("hook", "claude-code", input=payload(project, "Edit", ti, event="PostToolUse", response=resp))
    assert (r.code, r.stdout, r.stderr) == (0, "", ""), r
    [t] = turns(cli)
    assert t["files"] == [{"op": "M", "path": "stats.py", "added": 1, "removed": 1}]
    assert "-    s = 0\n+    s = 0.0\n" in t["diff"]
    assert project.git("rev-parse", "HEAD") == head  # HEAD and the index are never touched
    assert project.git("status", "--porcelain") == " M stats.py\n"
    # The stash is consumed.
    assert not list((project.root / ".git" / "agent-guard" / "hooks").glob("*.json"))
    r = cli("rollback", "--agent", "claude", "--json")
    assert r.code == 0, r
    assert project.read("stats.py").decode() == SRC


def test_post_records_exactly_the_tool_change_after_user_edits(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # The user changed README.md and stats.py before Claude's edit: the turn holds only Claude's change.
    project.write({"README.md": "# demo\nuser line\n", "stats.py": SRC.replace("return s\n", "return s  # user\n")})
    ti = edit_input(project, "s = 0", "s = 10")
    decision(cli("hook", "claude-code", input=payload(project, "Edit", ti)))
    current = project.read("stats.py").decode()
    claude_writes(project, "stats.py", current.replace("s = 0", "s = 10"))
    r = cli("hook", "claude-code", input=payload(project, "Edit", ti, event="PostToolUse", response={}))
    assert r.code == 0, r
    [t] = turns(cli)
    assert [f["path"] for f in t["files"]] == ["stats.py"]
    changed = [ln for ln in t["diff"].splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert changed == ["-    s = 0", "+    s = 10"]


def test_write_create_recorded(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = {"file_path": absolute(project, "pkg/new.py"), "content": "X = 1\n"}
    decision(cli("hook", "claude-code", input=payload(project, "Write", ti)))
    claude_writes(project, "pkg/new.py", "X = 1\n")
    r = cli(
        "hook",
        "claude-code",
        input=payload(
            project,
            "Write",
            ti,
            event="PostToolUse",
            response={"type": "create", "filePath": ti["file_path"], "content": "X = 1\n"},
        ),
    )
    assert r.code == 0, r
    [t] = turns(cli)
    assert t["files"] == [{"op": "A", "path": "pkg/new.py", "added": 1, "removed": 0}]
    assert cli("rollback", "--agent", "claude").code == 0
    assert not (project.root / "pkg" / "new.py").exists()


def test_rolling_back_a_recorded_create_removes_the_folders_the_tool_made(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # `pkg/` is there before (with a file git does not track); `pkg/deep/er/` is made by the tool.
    project.write({"pkg/notes.txt": "mine\n"})
    ti = {"file_path": absolute(project, "pkg/deep/er/new.py"), "content": "X = 1\n"}
    assert passed(cli("hook", "claude-code", input=payload(project, "Write", ti)))
    assert not (project.root / "pkg" / "deep").exists()  # the pre hook makes nothing
    claude_writes(project, "pkg/deep/er/new.py", "X = 1\n")
    r = cli(
        "hook",
        "claude-code",
        input=payload(
            project,
            "Write",
            ti,
            event="PostToolUse",
            response={"type": "create", "filePath": ti["file_path"], "content": "X = 1\n"},
        ),
    )
    assert (r.code, r.stderr) == (0, ""), r
    r = cli("rollback", "--agent", "claude", "--check", "--json")
    assert r.code == 0, r
    assert "pkg/deep/er/, pkg/deep/" in " ".join(json.loads(r.stdout)["notes"])
    assert cli("rollback", "--agent", "claude").code == 0
    assert not (project.root / "pkg" / "deep").exists()
    assert project.read("pkg/notes.txt") == b"mine\n"  # a folder that was there stays, with what it holds


def test_a_made_folder_that_holds_something_else_now_stays(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = {"file_path": absolute(project, "gen/new.py"), "content": "X = 1\n"}
    assert passed(cli("hook", "claude-code", input=payload(project, "Write", ti)))
    claude_writes(project, "gen/new.py", "X = 1\n")
    assert (
        cli("hook", "claude-code", input=payload(project, "Write", ti, event="PostToolUse", response={"type": "create"})).code
        == 0
    )
    project.write({"gen/user.txt": "kept\n"})
    assert cli("rollback", "--agent", "claude").code == 0
    assert not (project.root / "gen" / "new.py").exists()
    assert project.read("gen/user.txt") == b"kept\n"


def test_notebook_edit_recorded_whole(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project.commit({"a.ipynb": '{"cells": [], "nbformat": 4}\n'})
    nb = {"notebook_path": absolute(project, "a.ipynb"), "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"}
    decision(cli("hook", "claude-code", input=payload(project, "NotebookEdit", nb)))
    claude_writes(project, "a.ipynb", '{"cells": [{"source": "x = 1"}], "nbformat": 4}\n')
    assert cli("hook", "claude-code", input=payload(project, "NotebookEdit", nb, event="PostToolUse", response={})).code == 0
    [t] = turns(cli)
    assert t["format"] == "whole" and "a.ipynb" in t["diff"]


def test_post_without_stash_uses_original_file(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = edit_input(project, "s = 0", "s = 2")
    claude_writes(project, "stats.py", SRC.replace("s = 0", "s = 2"))
    resp = {"filePath": ti["file_path"], "originalFile": SRC, "userModified": False}
    r = cli("hook", "claude-code", input=payload(project, "Edit", ti, event="PostToolUse", response=resp))
    assert r.code == 0, r
    [t] = turns(cli)
    assert "-    s = 0\n+    s = 2\n" in t["diff"]


def test_post_without_any_before_state_reports_without_blocking(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = edit_input(project, "s = 0", "s = 2")
    claude_writes(project, "stats.py", SRC.replace("s = 0", "s = 2"))
    before = project.snapshot()
    r = cli(
        "hook", "claude-code", input=payload(project, "Edit", ti, event="PostToolUse", response={"filePath": ti["file_path"]})
    )
    assert r.code == 1, r
    assert "PreToolUse hook" in r.stderr and "stats.py" in r.stderr
    assert project.snapshot() == before


def test_post_with_nothing_changed_records_nothing(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = edit_input(project, "s = 0", "s = 2")
    decision(cli("hook", "claude-code", input=payload(project, "Edit", ti)))
    r = cli("hook", "claude-code", input=payload(project, "Edit", ti, event="PostToolUse", response={}))
    assert (r.code, r.stdout) == (0, "")
    assert turns(cli) == []


def test_one_turn_per_prompt(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    text = SRC
    for n, (old, new, prompt) in enumerate(
        [
            ("s = 0", "s = 1", "3f1c9a20-1111"),
            ("s += i", "s += 2 * i", "3f1c9a20-1111"),
            ("return s\n", "return s + 0\n", "77aa0000-2222"),
        ]
    ):
        ti = edit_input(project, old, new)
        tid = f"toolu_{n}"
        decision(cli("hook", "claude-code", input=payload(project, "Edit", ti, tool_use_id=tid, prompt_id=prompt)))
        text = text.replace(old, new, 1)
        claude_writes(project, "stats.py", text)
        r = cli(
            "hook",
            "claude-code",
            input=payload(project, "Edit", ti, event="PostToolUse", response={}, tool_use_id=tid, prompt_id=prompt),
        )
        assert r.code == 0, r
    ts = turns(cli)
    assert [t["id"] for t in ts] == ["p77aa0000", "p3f1c9a20"]
    assert ts[1]["added"] == 2
    assert cli("rollback", "--agent", "claude", "--to", "p3f1c9a20").code == 0
    assert project.read("stats.py").decode() == SRC.replace("s = 0", "s = 1").replace("s += i", "s += 2 * i")


def test_agent_option(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    ti = edit_input(project, "s = 0", "s = 3")
    decision(cli("hook", "claude-code", "--agent", "cc", input=payload(project, "Edit", ti)))
    claude_writes(project, "stats.py", SRC.replace("s = 0", "s = 3"))
    assert (
        cli("hook", "claude-code", "--agent", "cc", input=payload(project, "Edit", ti, event="PostToolUse", response={})).code
        == 0
    )
    assert len(turns(cli, "cc")) == 1


# ---------------------------------------------------------------------- as Claude Code runs it


def test_settings_snippet_runs_the_hook_for_both_events() -> None:
    settings = json.loads(SETTINGS.read_text())
    for event in ("PreToolUse", "PostToolUse"):
        [entry] = settings["hooks"][event]
        assert set(entry["matcher"].split("|")) == {"Edit", "MultiEdit", "Write", "NotebookEdit", "Bash"}
        [hook] = entry["hooks"]
        assert hook["type"] == "command" and hook["command"] == fail_closed("agent-guard hook claude-code")


def test_console_command_exit_statuses(project: Repo) -> None:
    ok = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 5")))
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, b"", b""), ok
    bad = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 9", "s = 5")))
    assert bad.returncode == 2 and b": not-found: " in bad.stderr, bad
    assert json.loads(bad.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    broken = hook_command(project.root, "{")
    assert broken.returncode == 2 and b"not JSON" in broken.stderr and broken.stdout == b""


def test_read_records_claude_reads_for_read_before_edit(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project.commit({".agent-guard.yaml": "read_before_edit: true\n"})
    ti = edit_input(project, "s = 0", "s = 7")
    spec = decision(cli("hook", "claude-code", input=payload(project, "Edit", ti)))
    assert spec["permissionDecision"] == "deny" and ": stale: " in spec["permissionDecisionReason"]
    # Claude's own Read, reported by a PostToolUse hook whose matcher includes Read.
    read = {"file_path": absolute(project, "stats.py"), "offset": 1, "limit": 2000}
    assert cli("hook", "claude-code", input=payload(project, "Read", read, tool_use_id="toolu_r")).stdout == ""  # pre: not ours
    r = cli(
        "hook",
        "claude-code",
        input=payload(
            project,
            "Read",
            read,
            event="PostToolUse",
            tool_use_id="toolu_r",
            response={"type": "text", "file": {"filePath": read["file_path"]}},
        ),
    )
    assert (r.code, r.stdout, r.stderr) == (0, "", ""), r
    assert passed(cli("hook", "claude-code", input=payload(project, "Edit", ti)))


@pytest.mark.parametrize(
    "content,old,new",
    [
        (b"a = 1\r\nb = 2\r\nc = 3", "b = 2", "b = 20"),  # CRLF, no final newline
        (b"\xef\xbb\xbfa = 1\nb = 2\n", "a = 1", "a = 10"),  # BOM
        (b"x = '\xc3\xa9'\n", "x = '\xe9'", "x = 'e'"),  # non-ASCII
    ],
)
def test_exact_edits_on_awkward_files_are_allowed(repo: Repo, cli, content: bytes, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"f.py": content})
    ti = {"file_path": absolute(repo, "f.py"), "old_string": old, "new_string": new}
    assert passed(cli("hook", "claude-code", input=payload(repo, "Edit", ti)))


def test_budget_counts_the_change_not_the_file(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    # 4,000 lines of 64 bytes: larger than the per-edit byte budget (200,000) of the default policy.
    repo.commit({"big.py": "".join(f"value_{i:05d} = {'x' * 40!r}  # line\n"[:63] + "\n" for i in range(4000))})
    ti = {"file_path": absolute(repo, "big.py"), "old_string": "value_02000 =", "new_string": "value_2000 ="}
    assert passed(cli("hook", "claude-code", input=payload(repo, "Edit", ti)))


# ---------------------------------------------------------------------- fails closed (the console command)

DEEP = b"[" * 100_000


def _pre(tool_input: Any, tool: Any = "Edit", **extra: Any) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, **extra}).encode()


FAILURES = {
    "empty payload": (b"", "no hook payload"),
    "not JSON": (b"{not json", "not JSON"),
    "invalid UTF-8": (b'{"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": "\xff\xfe"}', "not UTF-8"),
    "100,000 nested [": (DEEP, "nested more than"),
    "nested deep inside an object": (b'{"hook_event_name": "PreToolUse", "tool_input": ' + DEEP + b"}", "nested more than"),
    "not an object": (b'["PreToolUse"]', "JSON object"),
    "no hook_event_name": (b'{"tool_name": "Edit", "tool_input": {}}', "hook_event_name"),
    "no tool_name": (b'{"hook_event_name": "PreToolUse", "tool_input": {"file_path": "a"}}', "tool_name"),
    "tool_name not a string": (_pre({"file_path": "a"}, tool=["Edit"]), "tool_name"),
    "no tool_input": (b'{"hook_event_name": "PreToolUse", "tool_name": "Write"}', "tool_input"),
    "tool_input not an object": (_pre("stats.py", tool="Write"), "tool_input"),
    "no file_path": (_pre({"old_string": "a", "new_string": "b"}), "file_path"),
    "file_path a 5,000-digit number": (
        b'{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": '
        b'{"file_path": ' + b"7" * 5000 + b', "content": "x"}}',
        "file_path",
    ),
    "MultiEdit edits not a list": (None, "edits"),
    "lone surrogate in file_path": (None, "surrogate pair"),
    "broken policy": (None, "policy"),
    "internal error": (None, "internal error"),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_every_failure_denies_with_exit_2(project: Repo, case: str) -> None:
    raw, words = FAILURES[case]
    if case == "MultiEdit edits not a list":
        raw = _pre({"file_path": absolute(project, "stats.py"), "edits": "s = 0"}, tool="MultiEdit")
    elif case == "lone surrogate in file_path":
        raw = payload(project, "Write", {"file_path": absolute(project, "a\ud800.py"), "content": "x\n"}).encode()
    elif case == "broken policy":
        project.write({".agent-guard.yaml": "checks: [not, a, mapping\n"})
        raw = payload(project, "Edit", edit_input(project, "s = 0", "s = 1")).encode()
    elif case == "internal error":
        # agent-guard's state folder in .git is a file: opening the repository's state fails.
        (project.root / ".git" / "agent-guard").write_text("not a folder\n")
        raw = payload(project, "Edit", edit_input(project, "s = 0", "s = 1")).encode()
    before = project.snapshot()
    r = hook_command(project.root, raw)
    assert r.returncode == 2, (case, r)
    assert r.stdout == b"", (case, r)
    err = r.stderr.decode("utf-8", "replace")
    assert err.startswith("agent-guard hook: ") and words in err and "the edit was blocked" in err, (case, err)
    assert "Traceback" not in err
    assert project.snapshot() == before


def test_a_post_hook_failure_is_reported_not_blocking(project: Repo) -> None:
    raw = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"content": "x"}})
    r = hook_command(project.root, raw)
    assert r.returncode == 1 and b"file_path" in r.stderr and b"not recorded" in r.stderr, r


def _hold_lock(repo: Repo) -> int:
    """Hold agent-guard's repository lock, as a hung agent-guard command would."""
    import fcntl

    (repo.root / ".git" / "agent-guard").mkdir(exist_ok=True)
    fd = os.open(repo.root / ".git" / "agent-guard" / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_deadline_denies_before_claude_codes_timeout(project: Repo) -> None:
    import time

    from guard.adapters import claude_code

    timeout = json.loads(SETTINGS.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"]
    assert claude_code.DEADLINE <= timeout - 5  # start-up and the answer must fit in what is left
    fd = _hold_lock(project)
    try:
        before = project.snapshot()
        started = time.monotonic()
        r = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 1")), "--deadline", "1")
        took = time.monotonic() - started
    finally:
        os.close(fd)
    assert r.returncode == 2 and r.stdout == b"", r
    assert b"no answer within the 1 s deadline" in r.stderr and b"blocked" in r.stderr, r
    assert took < timeout, took
    assert project.snapshot() == before


def test_deadline_ends_a_payload_that_never_ends(project: Repo) -> None:
    proc = subprocess.Popen(
        [str(AGENT_GUARD), "hook", "claude-code", "--deadline", "1"],
        cwd=project.root,
        env=checkout_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(b'{"hook_event_name": "PreToolUse", ')  # ... and the rest never comes
        proc.stdin.flush()
        code = proc.wait(timeout=60)  # standard input stays open: only the deadline can end the read
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.wait(timeout=60)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert code == 2 and out == b"" and b"no answer within the 1 s deadline" in err, (code, out, err)


def test_deadline_must_be_positive(project: Repo) -> None:
    r = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 1")), "--deadline", "0")
    assert r.returncode == 2 and b"'--deadline': must be a number from 0.001 to 86,400, not 0" in r.stderr, r


def test_an_answer_that_cannot_be_written_denies(project: Repo) -> None:
    # `--on-pass ask` answers on standard output; a closed pipe must not turn into a pass.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        r = hook_command(
            project.root,
            payload(project, "Edit", edit_input(project, "s = 0", "s = 1")),
            "--on-pass",
            "ask",
            stdout=write_end,
            stderr=subprocess.PIPE,
        )
    finally:
        os.close(write_end)
    assert r.returncode == 2 and b"BrokenPipeError" in r.stderr and b"blocked" in r.stderr, r


# ---------------------------------------------------------------------- the file names the repository


def test_started_in_a_parent_folder_checks_the_files_repository(project: Repo, tmp_path: Path) -> None:
    before = project.snapshot()
    for ti, tool in (
        (edit_input(project, "    return s\n", "    # ... existing code ...\n    return s\n"), "Edit"),
        ({"file_path": absolute(project, ".env"), "content": "TOKEN=1\n"}, "Write"),
    ):
        p = json.loads(payload(project, tool, ti))
        p["cwd"] = str(tmp_path)  # the folder that holds the repository: no repository itself
        r = hook_command(tmp_path, json.dumps(p))
        assert r.returncode == 2 and b"nothing was written" in r.stderr, r
    assert project.snapshot() == before


def test_started_in_another_repository_checks_and_records_in_the_files_one(project: Repo, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    other = Repo(tmp_path / "other")
    other.commit({"x.txt": "x\n"})
    p = json.loads(payload(project, "Write", {"file_path": absolute(project, ".env"), "content": "TOKEN=1\n"}))
    p["cwd"] = str(other.root)
    r = hook_command(other.root, json.dumps(p))
    assert r.returncode == 2 and b"path-protected" in r.stderr, r
    # A passing edit is recorded in the repository that holds the file, not the one Claude Code runs in.
    ti = edit_input(project, "s = 0", "s = 4")
    for event in ("PreToolUse", "PostToolUse"):
        p = json.loads(payload(project, "Edit", ti, event=event, tool_use_id="toolu_other", response={}))
        p["cwd"] = str(other.root)
        r = hook_command(other.root, json.dumps(p))
        assert (r.returncode, r.stdout, r.stderr) == (0, b"", b""), r
        if event == "PreToolUse":
            claude_writes(project, "stats.py", SRC.replace("s = 0", "s = 4"))
    assert "refs/agent-guard/claude" in project.git("for-each-ref", "--format=%(refname)")
    assert other.git("for-each-ref", "--format=%(refname)", "refs/agent-guard/") == ""


def test_dot_dot_after_a_symlink_is_judged_by_the_resolver(project: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "deep"
    outside.mkdir(parents=True)
    os.symlink(outside, project.root / "link")
    before = project.snapshot()
    for tool, ti in (
        ("Write", {"file_path": absolute(project, "link/../a.txt"), "content": "x\n"}),
        ("Edit", {"file_path": absolute(project, "link/../stats.py"), "old_string": "s = 0", "new_string": "s"}),
        ("Write", {"file_path": "link/../a.txt", "content": "x\n"}),
    ):
        r = hook_command(project.root, payload(project, tool, ti))
        assert r.returncode == 2 and b"path-outside" in r.stderr and b"symbolic link" in r.stderr, (ti, r)
    assert project.snapshot() == before
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["deep"]


def test_a_repository_reached_through_a_linked_folder(project: Repo, tmp_path: Path) -> None:
    os.symlink(project.root, tmp_path / "linked")  # a linked home, /tmp on macOS
    linked = tmp_path / "linked"
    p = json.loads(payload(project, "Write", {"file_path": str(linked / ".env"), "content": "TOKEN=1\n"}))
    p["cwd"] = str(linked)
    r = hook_command(linked, json.dumps(p))
    assert r.returncode == 2 and b"path-protected" in r.stderr, r
    p = json.loads(
        payload(project, "Edit", {"file_path": str(linked / "stats.py"), "old_string": "s = 0", "new_string": "s = 9"})
    )
    p["cwd"] = str(linked)
    assert hook_command(linked, json.dumps(p)).returncode == 0


def test_a_link_to_another_repositorys_root_is_checked_there(project: Repo, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    other = Repo(tmp_path / "other")
    other.commit({"x.txt": "x\n"})
    os.symlink(other.root, project.root / "vendor")
    r = hook_command(project.root, payload(project, "Write", {"file_path": absolute(project, "vendor/.env"), "content": "T\n"}))
    assert r.returncode == 2 and b"'.env'" in r.stderr and b"path-protected" in r.stderr, r
    r = hook_command(project.root, payload(project, "Write", {"file_path": absolute(project, "vendor/../x"), "content": "T\n"}))
    assert r.returncode == 2 and b"leaves the repository" in r.stderr, r


def test_files_outside_every_repository_are_left_to_claude_code(project: Repo, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    r = hook_command(project.root, payload(project, "Write", {"file_path": str(plain / "a.py"), "content": "x\n"}))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b""), r


# ---------------------------------------------------------------------- the hook never grants


def test_a_pass_gives_no_permission_decision(project: Repo) -> None:
    r = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 1")))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b""), r
    # Warnings reach the model as context only.
    project.commit({".agent-guard.yaml": "checks: {placeholder: warning}\n"})
    ti = edit_input(project, "    return s\n", "    # ... existing code ...\n    return s\n")
    r = hook_command(project.root, payload(project, "Edit", ti))
    assert r.returncode == 0, r
    spec = json.loads(r.stdout)["hookSpecificOutput"]
    assert set(spec) == {"hookEventName", "additionalContext"} and "placeholder" in spec["additionalContext"], spec


def test_on_pass_allow_is_refused_with_the_reason(project: Repo) -> None:
    r = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 1")), "--on-pass", "allow")
    assert r.returncode == 2 and b"never grants permission" in r.stderr and r.stdout == b"", r


def test_denials_point_to_claudes_read_tool(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "read_before_edit: true\n"})
    r = hook_command(project.root, payload(project, "Edit", edit_input(project, "s = 0", "s = 8")))
    assert r.returncode == 2 and b": stale: " in r.stderr, r
    assert f"the Read tool (file_path {absolute(project, 'stats.py')})".encode() in r.stderr, r
    assert b"agent-read" not in r.stderr and b"read_file" not in r.stderr


def test_notebook_paths_get_the_engines_whole_path_check(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    project.git("config", "core.hooksPath", ".githooks")
    (project.root / ".githooks").mkdir()
    before = project.snapshot()
    nb = {
        "notebook_path": absolute(project, ".githooks/post-checkout"),
        "new_source": "x",
        "cell_type": "code",
        "edit_mode": "insert",
    }
    spec = decision(cli("hook", "claude-code", input=payload(project, "NotebookEdit", nb)))
    assert spec["permissionDecision"] == "deny" and "path-protected" in spec["permissionDecisionReason"], spec
    assert project.snapshot() == before


def test_a_read_of_a_protected_file_is_not_recorded_nor_stored(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    secret = "TOKEN=hook-secret-value\n"
    project.write({".env": secret})
    read = {"file_path": absolute(project, ".env")}
    r = cli(
        "hook",
        "claude-code",
        input=payload(project, "Read", read, event="PostToolUse", tool_use_id="toolu_env", response={"type": "text"}),
    )
    assert (r.code, r.stdout, r.stderr) == (0, "", ""), r
    blob = git(project.root, "hash-object", "--stdin", input=secret.encode()).strip()
    assert (
        subprocess.run(["git", "cat-file", "-e", blob], cwd=project.root, capture_output=True, timeout=60).returncode != 0
    )  # never written to the object database
    reads_file = project.root / ".git" / "agent-guard" / "reads" / "claude.json"
    assert not reads_file.exists() or ".env" not in reads_file.read_text()
