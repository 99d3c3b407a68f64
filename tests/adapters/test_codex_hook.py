"""`agent-guard hook codex`: Codex CLI's PreToolUse/PostToolUse payloads for its shell, its own
apply_patch and MCP tools.

The payloads are built here in the shape Codex 0.171.0 sends (observed with the real program:
session_id, turn_id, transcript_path, cwd, hook_event_name, model, permission_mode, tool_name,
tool_input, tool_use_id; PostToolUse adds tool_response).  Where Codex would act between the two
hooks (apply the patch, run the command), the test does what Codex does.  When the payloads
captured from the real program are at hand (``../shared/agent-hooks/codex``), they go through the
hook too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from codex_patches import CLEAN, MALFORMED, PLACEHOLDER, PROTECTED, SRC
from conftest import Repo, checkout_env, run_cli

SESSION = "01a2497d-094d-7f43-8a13-2d52710618e7"
TURN = "01a2497d-0966-7943-a432-4208f13f4ba5"
CAPTURED = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks" / "codex" / "payloads"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": SRC})
    return repo


def payload(repo: Repo, event: str, tool: str, tool_input: dict[str, Any], call: str = "call_1_0_1", **extra: Any) -> str:
    data: dict[str, Any] = {
        "session_id": SESSION,
        "turn_id": TURN,
        "transcript_path": "/home/user/.codex/sessions/2026/12/06/rollout.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": event,
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": call,
    }
    data.update(extra)
    return json.dumps(data)


def hook(repo: Repo, data: str | bytes, *args: str, cwd: Path | None = None) -> Any:
    return run_cli(cwd or repo.root, "hook", "codex", *args, input=data)


def pre_patch(repo: Repo, patch: str, call: str = "call_1_0_1") -> Any:
    return hook(repo, payload(repo, "PreToolUse", "apply_patch", {"command": patch}, call))


def post_patch(repo: Repo, patch: str, call: str = "call_1_0_1", response: str = "Exit code: 0\nOutput:\nSuccess.\n") -> Any:
    return hook(repo, payload(repo, "PostToolUse", "apply_patch", {"command": patch}, call, tool_response=response))


def codex_applies_clean(repo: Repo) -> None:
    """What Codex's own apply_patch does with ``CLEAN``."""
    text = repo.read("app.py").decode().replace("/ len(items)", "/ max(len(items), 1)")
    repo.write({"app.py": text, "notes/new.txt": "hello\n"})


def turns(agent: str = "codex", cwd: Path | None = None) -> list[dict[str, Any]]:
    r = run_cli(cwd or Path.cwd(), "log", "--agent", agent, "--json")
    assert r.code == 0, r
    return r.json()["turns"]  # type: ignore[no-any-return,index]


def denied(result: Any, *words: str) -> None:
    """Codex's deny form: exit 2, the reason on standard error (Codex shows it to the model)."""
    assert result.code == 2 and result.stdout == "", result
    for word in words:
        assert word in result.stderr, result


def git_agent(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    """`git agent-X ARGS`, as a user types it (the console scripts on PATH)."""
    return subprocess.run(["git", *args], cwd=repo.root, env=checkout_env(), capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------------- apply_patch


def test_a_clean_patch_passes_and_what_landed_is_a_turn_log_shows_and_rollback_undoes(project: Repo) -> None:
    before = project.snapshot()
    r = pre_patch(project, CLEAN)
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    after_pre = project.snapshot()
    assert {k: v for k, v in after_pre.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}
    assert after_pre["<refs>"] == before["<refs>"]  # the check writes no ref
    codex_applies_clean(project)
    r = post_patch(project, CLEAN)
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    log = git_agent(project, "agent-log", "--agent", "codex", "--json")
    assert log.returncode == 0, log
    [turn] = json.loads(log.stdout)["turns"]
    assert turn["id"] == "pf13f4ba5" and turn["format"] == "codex"  # the Codex prompt's turn
    assert sorted((f["op"], f["path"]) for f in turn["files"]) == [("A", "notes/new.txt"), ("M", "app.py")]
    undo = git_agent(project, "agent-rollback", "--agent", "codex")
    assert undo.returncode == 0, undo
    assert project.read("app.py").decode() == SRC and not (project.root / "notes").exists()


def test_a_placeholder_is_denied_with_the_finding(project: Repo) -> None:
    before = project.snapshot()
    denied(pre_patch(project, PLACEHOLDER), "placeholder", "app.py:2", "nothing was written")
    assert project.snapshot() == before


def test_a_protected_path_is_denied(project: Repo) -> None:
    before = project.snapshot()
    denied(pre_patch(project, PROTECTED), "path-protected", ".github/workflows/ci.yml")
    assert project.snapshot() == before


def test_a_malformed_patch_is_denied_with_where_it_went_wrong(project: Repo) -> None:
    denied(pre_patch(project, MALFORMED), "parse-error", "this line is no patch line")


def test_a_patch_for_lines_that_are_not_there_is_denied_with_a_hint(project: Repo) -> None:
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-    return total(items) // len(items)\n+    pass\n*** End Patch\n"
    denied(pre_patch(project, patch), "not-found", "app.py")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{not json",
        b"[]",
        json.dumps({"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": {}}).encode(),
        json.dumps({"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": {"command": 3}}).encode(),
        json.dumps({"hook_event_name": "PreToolUse", "tool_input": {"command": "x"}}).encode(),
    ],
)
def test_every_bad_payload_denies(project: Repo, data: bytes) -> None:
    r = hook(project, data)
    denied(r, "agent-guard hook:", "the edit was blocked")


def test_an_internal_error_denies(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import patch

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(patch, "_before", broken)
    denied(pre_patch(project, CLEAN), "internal error (RuntimeError: a bug)", "the edit was blocked")


def test_a_broken_policy_denies(project: Repo) -> None:
    project.write({".agent-guard.yaml": "checks: [not, a, mapping\n"})
    denied(pre_patch(project, CLEAN), "the edit was blocked")


def test_a_denied_patch_that_was_applied_anyway_is_undone(project: Repo) -> None:
    denied(pre_patch(project, PLACEHOLDER), "placeholder")
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})  # applied regardless
    r = post_patch(project, PLACEHOLDER, response="Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM app.py\n")
    assert r.code == 2 and "put app.py back" in r.stderr and "placeholder" in r.stderr, r
    assert "Success. Updated" not in r.stderr  # the tool's output is no longer true: not shown
    assert project.read("app.py").decode() == SRC
    assert turns(cwd=project.root) == []


def test_a_post_hook_without_its_pre_hook_says_so_as_context(project: Repo) -> None:
    codex_applies_clean(project)
    r = post_patch(project, CLEAN, call="call_never_checked")
    assert r.code == 0, r
    said = json.loads(r.stdout)["hookSpecificOutput"]
    assert said["hookEventName"] == "PostToolUse" and "cannot record this apply_patch" in said["additionalContext"]


def test_a_post_hook_failure_reaches_the_model_and_blocks_nothing(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import patch

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    assert pre_patch(project, CLEAN).code == 0
    codex_applies_clean(project)
    monkeypatch.setattr(patch, "_after", broken)
    r = post_patch(project, CLEAN)
    assert r.code == 0 and "the write was not recorded" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"], r


def test_a_patch_codex_could_not_apply_records_nothing(project: Repo) -> None:
    assert pre_patch(project, CLEAN).code == 0
    r = post_patch(project, CLEAN, response="Exit code: 1\nOutput:\nFailed to find expected lines\n")
    assert r.code == 0 and r.stdout == "", r
    assert turns(cwd=project.root) == []


def test_patches_of_one_prompt_are_one_turn_and_a_rename_is_recorded(project: Repo) -> None:
    assert pre_patch(project, CLEAN, "call_a").code == 0
    codex_applies_clean(project)
    assert post_patch(project, CLEAN, "call_a").code == 0
    move = (
        "*** Begin Patch\n*** Update File: notes/new.txt\n*** Move to: notes/moved.txt\n@@\n-hello\n+hello again\n*** End Patch\n"
    )
    assert pre_patch(project, move, "call_b").code == 0
    (project.root / "notes" / "new.txt").unlink()
    project.write({"notes/moved.txt": "hello again\n"})
    assert post_patch(project, move, "call_b").code == 0
    [turn] = turns(cwd=project.root)  # both calls: one turn, the prompt's
    assert turn["id"] == "pf13f4ba5"
    assert {f["path"] for f in turn["files"]} == {"app.py", "notes/new.txt", "notes/moved.txt"}
    assert run_cli(project.root, "rollback", "--agent", "codex").code == 0
    assert project.read("app.py").decode() == SRC and not (project.root / "notes").exists()


def test_a_file_without_a_final_newline_is_recorded_as_codex_writes_it(project: Repo) -> None:
    project.commit({"cfg.py": "x = 1"})
    patch = "*** Begin Patch\n*** Update File: cfg.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    assert pre_patch(project, patch).code == 0
    project.write({"cfg.py": "x = 2\n"})  # Codex ends the file with a newline
    r = post_patch(project, patch)
    assert r.code == 0 and r.stdout == "", r
    [turn] = turns(cwd=project.root)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("M", "cfg.py")]


def test_what_someone_else_changed_meanwhile_is_not_the_agents(project: Repo) -> None:
    assert pre_patch(project, CLEAN).code == 0
    codex_applies_clean(project)
    text = project.read("app.py").decode().replace("def total(items):", "def total(items):  # by the user")
    project.write({"app.py": text})
    assert post_patch(project, CLEAN).code == 0
    [turn] = turns(cwd=project.root)
    diff = project.git("diff", f"{turn['commit']}^", turn["commit"])
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert "+    return total(items) / max(len(items), 1)" in changed and not [c for c in changed if "by the user" in c]


def test_a_patch_from_a_subfolder_reads_paths_from_there(project: Repo) -> None:
    project.commit({"pkg/mod.py": "a = 1\n"})
    patch = "*** Begin Patch\n*** Update File: mod.py\n@@\n-a = 1\n+a = 2\n*** End Patch\n"
    data = payload(project, "PreToolUse", "apply_patch", {"command": patch}, cwd=str(project.root / "pkg"))
    r = hook(project, data)
    assert r.code == 0, r
    project.write({"pkg/mod.py": "a = 2\n"})
    data = payload(project, "PostToolUse", "apply_patch", {"command": patch}, cwd=str(project.root / "pkg"), tool_response="ok")
    assert hook(project, data).code == 0
    [turn] = turns(cwd=project.root)
    assert [f["path"] for f in turn["files"]] == ["pkg/mod.py"]


def test_outside_every_repository(project: Repo, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    into_repo = f"*** Begin Patch\n*** Add File: {project.root}/x.txt\n+x\n*** End Patch\n"
    data = payload(project, "PreToolUse", "apply_patch", {"command": into_repo}, cwd=str(elsewhere))
    denied(hook(project, data, cwd=elsewhere), "path-outside", str(project.root))
    mine = "*** Begin Patch\n*** Add File: scratch.txt\n+x\n*** End Patch\n"
    data = payload(project, "PreToolUse", "apply_patch", {"command": mine}, cwd=str(elsewhere))
    r = hook(project, data, cwd=elsewhere)
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r


# ---------------------------------------------------------------------- the shell, MCP tools


def test_a_shell_command_is_a_turn(project: Repo) -> None:
    command = "sed -i 's/n = 0/n = 1/' app.py && echo edited"
    r = hook(project, payload(project, "PreToolUse", "Bash", {"command": command}, "call_sh"))
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    r = hook(project, payload(project, "PostToolUse", "Bash", {"command": command}, "call_sh", tool_response="edited\n"))
    assert r.code == 0, r
    [turn] = turns(cwd=project.root)
    assert turn["format"] == "shell" and [f["path"] for f in turn["files"]] == ["app.py"]
    assert run_cli(project.root, "rollback", "--agent", "codex").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_refused_shell_change_is_told_with_the_commands_own_output(project: Repo) -> None:
    command = "python3 fill.py"
    assert hook(project, payload(project, "PreToolUse", "Bash", {"command": command}, "call_sh")).code == 0
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})
    r = hook(project, payload(project, "PostToolUse", "Bash", {"command": command}, "call_sh", tool_response="filled 1 file\n"))
    assert r.code == 2 and "placeholder" in r.stderr and "The tool's own output was:\nfilled 1 file" in r.stderr, r


@pytest.mark.parametrize("tool", ["mcp__agent-guard__apply_patch", "mcp__mini__write_note", "update_plan"])
def test_mcp_and_other_tools_pass_and_nothing_is_kept(project: Repo, tool: str) -> None:
    before = project.snapshot()
    for event in ("PreToolUse", "PostToolUse"):
        r = hook(project, payload(project, event, tool, {"path": "note.txt", "text": "x"}, tool_response={"content": []}))
        assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    assert project.snapshot() == before


def test_git_agent_hook_codex_is_the_same_command(project: Repo) -> None:
    r = subprocess.run(
        ["git", "agent-hook", "codex"],
        input=payload(project, "PreToolUse", "apply_patch", {"command": PLACEHOLDER}),
        cwd=project.root,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "placeholder" in r.stderr, r


# ---------------------------------------------------------------------- the captured payloads


@pytest.mark.skipif(not CAPTURED.is_dir(), reason="the payloads captured from Codex are not at hand")
def test_the_captured_payloads(project: Repo) -> None:
    """Codex's own payloads of the `allow` run, with the session's folder put in: the shell command
    and the patch are each a turn of the prompt, the MCP call is passed."""

    def captured(event: str, tool: str) -> str:
        return (CAPTURED / f"codex-{event}-{tool}.json").read_text().replace("<repo>", str(project.root))

    for tool, act in (
        ("Bash", lambda: project.write({"app.py": project.read("app.py").decode().replace("n = 0", "n = 1")})),
        ("apply_patch", lambda: codex_applies_clean(project)),
        ("mcp__mini__write_note", lambda: project.write({"mcp_note.txt": "from mcp\n"})),
    ):
        r = hook(project, captured("PreToolUse", tool))
        assert r.code == 0 and r.stderr == "", (tool, r)
        act()
        r = hook(project, captured("PostToolUse", tool))
        assert r.code == 0 and r.stderr == "", (tool, r)
    log = turns(cwd=project.root)
    assert [t["id"] for t in log] == ["pf13f4ba5"]  # both in the prompt's turn
    assert sorted(f["path"] for f in log[0]["files"]) == ["app.py", "notes/new.txt"]
