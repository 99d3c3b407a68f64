"""`agent-guard hook copilot`: GitHub Copilot CLI's preToolUse/postToolUse payloads, in both spellings.

No Copilot account is at hand: the payloads are built here in the shapes Copilot's hooks
reference documents.  camelCase events: ``{sessionId, timestamp (ms), cwd, toolName, toolArgs}``
(``toolArgs`` a JSON string, as the reference's examples give it), ``toolResult`` after the tool,
``error`` after a failure.  PascalCase events (VS Code's format): ``{hook_event_name, session_id,
timestamp (ISO), cwd, tool_name, tool_input}`` with Claude Code's tool names, ``tool_result``
after.  The reference does not give the file tools' arguments; Copilot's own names are used
(``path``, ``file_text``, ``old_str``, ``new_str``).  Where Copilot would act between the two
hooks (edit the file, run the command), the test does what it does.  When the documentation's
examples are at hand (``../shared/agent-hooks/copilot``), they go through the hook too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, run_cli

SRC = "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n"
SESSION = "6c1f0d2e-5b3a-4e8f-9a71-2d4c8b0e7f13"
EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks" / "copilot"
# The runtime tool names camelCase payloads carry, and Claude Code's, which PascalCase payloads carry.
NAMES = {
    "camel": {"bash": "bash", "create": "create", "edit": "edit"},
    "pascal": {"bash": "Bash", "create": "Write", "edit": "Edit"},
}
EVENTS = {"pre": "PreToolUse", "post": "PostToolUse", "failure": "PostToolUseFailure"}


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": SRC})
    return repo


@pytest.fixture(params=["camel", "pascal"])
def spelling(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def payload(repo: Repo, spelling: str, event: str, tool: str, args: dict[str, Any], said: str = "done") -> str:
    """A Copilot payload of `event` (pre, post, failure) for the tool `tool` (its runtime name)."""
    name = NAMES[spelling].get(tool, tool)
    folder = str(repo.root)
    if spelling == "camel":
        data: dict[str, Any] = {"sessionId": SESSION, "timestamp": 1764990000000, "cwd": folder, "toolName": name}
        data["toolArgs"] = json.dumps(args)
        if event == "post":
            data["toolResult"] = {"resultType": "success", "textResultForLlm": said}
        elif event == "failure":
            data["error"] = said
    else:
        data = {"hook_event_name": EVENTS[event], "session_id": SESSION, "timestamp": "2026-12-06T10:00:00.000Z"}
        data.update(cwd=folder, tool_name=name, tool_input=args)
        if event == "post":
            data["tool_result"] = {"result_type": "success", "text_result_for_llm": said}
        elif event == "failure":
            data["error"] = said
    return json.dumps(data)


def hook(repo: Repo, data: str | bytes, cwd: Path | None = None) -> Any:
    return run_cli(cwd or repo.root, "hook", "copilot", input=data)


def edit_args(old: str, new: str, path: str = "app.py") -> dict[str, Any]:
    return {"path": path, "old_str": old, "new_str": new}


def denied(result: Any, spelling: str, *words: str) -> str:
    """Copilot's deny form, exit 0: the decision on standard output (and in VS Code's nested form too,
    for a PascalCase payload); the reason."""
    assert result.code == 0, result
    said = json.loads(result.stdout)
    assert said["permissionDecision"] == "deny", result
    reason = str(said["permissionDecisionReason"])
    if spelling == "pascal":
        nested = said["hookSpecificOutput"]
        assert nested["hookEventName"] == "PreToolUse" and nested["permissionDecision"] == "deny"
        assert nested["permissionDecisionReason"] == reason
    else:
        assert "hookSpecificOutput" not in said
    for word in words:
        assert word in reason, result
    return reason


def told(result: Any, spelling: str) -> str:
    """What a post hook tells the model beside the tool's output (additionalContext)."""
    assert result.code == 0, result
    said = json.loads(result.stdout)
    if spelling == "pascal":
        assert said["hookSpecificOutput"]["additionalContext"] == said["additionalContext"]
    return str(said["additionalContext"])


def turns(repo: Repo) -> list[dict[str, Any]]:
    r = run_cli(repo.root, "log", "--agent", "copilot", "--json")
    assert r.code == 0, r
    return r.json()["turns"]  # type: ignore[no-any-return,index]


def git_agent(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    """`git agent-X ARGS`, as a user types it (the console scripts on PATH)."""
    return subprocess.run(["git", *args], cwd=repo.root, env=checkout_env(), capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------------- file tools


def test_a_clean_edit_passes_and_is_a_turn_log_shows_and_rollback_undoes(project: Repo, spelling: str) -> None:
    args = edit_args("    n = 0\n", "    n = 0  # the sum\n")
    before = project.snapshot()
    r = hook(project, payload(project, spelling, "pre", "edit", args))
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r  # no decision: Copilot's own rules apply
    assert project.snapshot() == before
    project.write({"app.py": SRC.replace("    n = 0\n", "    n = 0  # the sum\n")})  # what Copilot's edit does
    r = hook(project, payload(project, spelling, "post", "edit", args))
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    log = git_agent(project, "agent-log", "--agent", "copilot", "--json")
    assert log.returncode == 0, log
    [turn] = json.loads(log.stdout)["turns"]
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("M", "app.py")]
    undo = git_agent(project, "agent-rollback", "--agent", "copilot")
    assert undo.returncode == 0, undo
    assert project.read("app.py").decode() == SRC


def test_a_new_file_is_checked_and_recorded(project: Repo, spelling: str) -> None:
    args = {"path": str(project.root / "notes" / "todo.md"), "file_text": "- write tests\n"}
    assert hook(project, payload(project, spelling, "pre", "create", args)).stdout == ""
    project.write({"notes/todo.md": "- write tests\n"})
    assert hook(project, payload(project, spelling, "post", "create", args)).stdout == ""
    [turn] = turns(project)
    assert [(f["op"], f["path"]) for f in turn["files"]] == [("A", "notes/todo.md")]
    assert run_cli(project.root, "rollback", "--agent", "copilot").code == 0
    assert not (project.root / "notes").exists()


def test_a_placeholder_is_denied_in_copilots_form(project: Repo, spelling: str) -> None:
    before = project.snapshot()
    args = edit_args("    n = 0\n", "    # ... existing code ...\n")
    r = hook(project, payload(project, spelling, "pre", "edit", args))
    denied(r, spelling, "placeholder", "app.py:2", "nothing was written")
    assert project.snapshot() == before


def test_a_protected_path_is_denied(project: Repo, spelling: str) -> None:
    before = project.snapshot()
    args = {"path": ".github/workflows/ci.yml", "file_text": "on: push\n"}
    r = hook(project, payload(project, spelling, "pre", "create", args))
    denied(r, spelling, "path-protected", ".github/workflows/ci.yml")
    assert project.snapshot() == before


def test_a_denied_edit_written_anyway_is_put_back_and_the_model_told(project: Repo, spelling: str) -> None:
    args = edit_args("    n = 0\n", "    # ... existing code ...\n")
    denied(hook(project, payload(project, spelling, "pre", "edit", args)), spelling, "placeholder")
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})  # a release that ignored the denial
    r = hook(project, payload(project, spelling, "post", "edit", args, said="File app.py updated."))
    assert r.code == 0, r
    result = json.loads(r.stdout)["modifiedResult"]
    assert result["resultType"] == "success" and "put app.py back" in result["textResultForLlm"], r
    assert project.read("app.py").decode() == SRC and turns(project) == []


def test_a_post_without_its_pre_is_never_paired_with_another_calls_denial(project: Repo, spelling: str) -> None:
    """No id pairs Copilot's two hooks: what both carry alike does (the session, the tool, its
    arguments).  A post hook whose pre hook never ran is not taken for a denied call's."""
    refused = edit_args("    n = 0\n", "    # ... existing code ...\n")
    denied(hook(project, payload(project, spelling, "pre", "edit", refused)), spelling, "placeholder")
    other = edit_args("    n = 0\n", "    n = 0  # by hand\n")
    project.write({"app.py": SRC.replace("    n = 0\n", "    n = 0  # by hand\n")})
    r = hook(project, payload(project, spelling, "post", "edit", other))
    assert "cannot record" in told(r, spelling), r
    assert project.read("app.py").decode() == SRC.replace("    n = 0\n", "    n = 0  # by hand\n")  # kept


def test_arguments_that_name_no_file_are_blocked_naming_them(project: Repo, spelling: str) -> None:
    r = hook(project, payload(project, spelling, "pre", "edit", {"target": "app.py", "diff": "x"}))
    denied(r, spelling, "name no file", "keys: diff, target", "the edit was blocked")


# ---------------------------------------------------------------------- the shell


def test_a_shell_command_is_a_turn(project: Repo, spelling: str) -> None:
    args = {"command": "sed -i 's/n = 0/n = 1/' app.py", "description": "start at one"}
    r = hook(project, payload(project, spelling, "pre", "bash", args))
    assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    assert hook(project, payload(project, spelling, "post", "bash", args, said="")).code == 0
    [turn] = turns(project)
    assert turn["format"] == "shell" and [f["path"] for f in turn["files"]] == ["app.py"]
    assert run_cli(project.root, "rollback", "--agent", "copilot").code == 0
    assert project.read("app.py").decode() == SRC


def test_a_failed_command_is_recorded_through_post_tool_use_failure(project: Repo, spelling: str) -> None:
    args = {"command": "sed -i 's/n = 0/n = 1/' app.py && false"}
    assert hook(project, payload(project, spelling, "pre", "bash", args)).code == 0
    project.write({"app.py": SRC.replace("n = 0", "n = 1")})
    assert hook(project, payload(project, spelling, "failure", "bash", args, said="exit code 1")).code == 0
    [turn] = turns(project)
    assert [f["path"] for f in turn["files"]] == ["app.py"]


def test_a_refused_shell_change_is_told_with_the_commands_own_output(project: Repo, spelling: str) -> None:
    args = {"command": "python3 fill.py"}
    assert hook(project, payload(project, spelling, "pre", "bash", args)).code == 0
    project.write({"app.py": SRC.replace("    n = 0\n", "    # ... existing code ...\n")})
    r = hook(project, payload(project, spelling, "post", "bash", args, said="filled 1 file"))
    text = json.loads(r.stdout)["modifiedResult"]["textResultForLlm"]
    assert "placeholder" in text and "The tool's own output was:\nfilled 1 file" in text, r


# ---------------------------------------------------------------------- failures, other tools


@pytest.mark.parametrize(
    "data",
    [b"", b"{not json", b"[]", b'{"sessionId": "s", "cwd": "/", "toolName": "edit", "toolArgs": 7}'],
)
def test_every_bad_payload_denies_on_standard_output(project: Repo, data: bytes) -> None:
    denied(hook(project, data), "camel", "agent-guard hook:", "the edit was blocked")


def test_an_internal_error_denies(project: Repo, spelling: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.adapters.hook import pre_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pre_edit, "pre", broken)
    r = hook(project, payload(project, spelling, "pre", "edit", edit_args("    n = 0\n", "    n = 2\n")))
    denied(r, spelling, "internal error (RuntimeError: a bug)", "the edit was blocked")


def test_a_post_hook_failure_reaches_the_model_and_blocks_nothing(
    project: Repo, spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from guard.adapters.hook import post_edit

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    args = edit_args("    n = 0\n", "    n = 2\n")
    assert hook(project, payload(project, spelling, "pre", "edit", args)).code == 0
    monkeypatch.setattr(post_edit, "post", broken)
    assert "the write was not recorded" in told(hook(project, payload(project, spelling, "post", "edit", args)), spelling)


@pytest.mark.parametrize("tool", ["view", "glob", "grep", "web_fetch", "task"])
def test_other_tools_pass_and_nothing_is_kept(project: Repo, spelling: str, tool: str) -> None:
    before = project.snapshot()
    for event in ("pre", "post"):
        r = hook(project, payload(project, spelling, event, tool, {"path": "app.py", "pattern": "*"}))
        assert r.code == 0 and r.stdout == "" and r.stderr == "", r
    assert project.snapshot() == before


def test_other_events_are_not_ours(project: Repo) -> None:
    for data in (
        {"sessionId": SESSION, "timestamp": 1, "cwd": str(project.root), "source": "new"},
        {"hook_event_name": "UserPromptSubmit", "session_id": SESSION, "cwd": str(project.root), "prompt": "hi"},
    ):
        r = hook(project, json.dumps(data))
        assert r.code == 0 and r.stdout == "" and r.stderr == "", r


def test_a_codex_patch_through_apply_patch_is_checked(project: Repo) -> None:
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-    n = 0\n+    # ... existing code ...\n*** End Patch\n"
    data = {"sessionId": SESSION, "timestamp": 1, "cwd": str(project.root), "toolName": "apply_patch", "toolArgs": patch}
    denied(hook(project, json.dumps(data)), "camel", "placeholder")


# ---------------------------------------------------------------------- the documentation's examples


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="the documentation's examples are not at hand")
def test_the_documented_examples(project: Repo) -> None:
    """The reference's payloads (their arguments a placeholder object, which names no file: blocked
    before, not recorded after, in each spelling), and its deny answer, which is ours (the hooks
    file: tests/adapters/test_install_json.py)."""

    def example(name: str) -> str:
        return (EXAMPLES / name).read_text().replace("<repo>", str(project.root))

    for pre, post, spelling in (
        ("preToolUse.camelCase.example.json", "postToolUse.camelCase.example.json", "camel"),
        ("PreToolUse.snake_case.example.json", "PostToolUse.snake_case.example.json", "pascal"),
    ):
        denied(hook(project, example(pre)), spelling, "name no file", "keys: ...")
        assert "name no file" in told(hook(project, example(post)), spelling)
    documented = json.loads(example("deny-answer.example.json"))
    ours = json.loads(hook(project, example("preToolUse.camelCase.example.json")).stdout)
    assert set(ours) == set(documented) and ours["permissionDecision"] == documented["permissionDecision"]
