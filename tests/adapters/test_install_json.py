"""`agent-guard install copilot|cursor` and `uninstall copilot|cursor`: their JSON hooks files, merged
with what the user keeps there, and a hook command that denies when agent-guard cannot run.

Copilot CLI denies only what standard output says (older releases let every failing hook
through; newer ones still do on a timeout), so its command turns "cannot run" into the deny
answer on standard output, exit 0.  Cursor denies on exit 2 (and, with ``failClosed``, on a
crash): its command turns every other status into 2.  Each written command is run here as the
agent runs it (a shell line, the payload on standard input), with its program gone too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, run_cli

from guard.adapters import hooks_file as hf

SRC = "def total(items):\n    return sum(items)\n"
EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks"
THEIRS = {
    "version": 1,
    "hooks": {
        "preToolUse": [{"command": ".cursor/hooks/audit.sh", "matcher": "Shell"}],
        "afterFileEdit": [{"command": ".cursor/hooks/format.sh"}],
        "stop": [],
    },
}  # the user's own hooks, kept as they are


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC})
    return repo


def ours(doc: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    """agent-guard's hook of each event in `doc` (exactly one each)."""
    found: dict[str, dict[str, Any]] = {}
    for event, entries in doc["hooks"].items():
        mine = [e for e in entries if "agent-guard" in e.get(key, "")]
        if mine:
            [found[event]] = mine
    return found


# ---------------------------------------------------------------------- Copilot CLI


def test_install_copilot_writes_its_own_file_and_uninstall_takes_it_away(project: Repo) -> None:
    theirs = project.root / ".github" / "hooks" / "audit.json"
    theirs.parent.mkdir(parents=True)
    theirs.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh"}]}}')
    r = run_cli(project.root, "install", "copilot")
    mine = project.root / ".github" / "hooks" / "agent-guard.json"
    assert r.code == 0 and r.stdout.startswith(f"wrote {mine}: preToolUse, postToolUse, postToolUseFailure hooks"), r
    assert "keep it out of commits" in r.stdout
    doc = json.loads(mine.read_text())
    hooks = ours(doc, "bash")
    assert doc["version"] == 1 and set(hooks) == {"preToolUse", "postToolUse", "postToolUseFailure"}
    for hook in hooks.values():
        assert hook["type"] == "command" and hook["timeoutSec"] == 30 and hook["matcher"] == hf.COPILOT.matcher
        assert hook["bash"] in r.stdout and os.path.isabs(hook["bash"].split("$(", 1)[1].split()[0])
    again = run_cli(project.root, "install", "copilot")
    assert again.code == 0 and again.stdout == f"already installed: {mine}\n", again
    assert json.loads(mine.read_text()) == doc
    gone = run_cli(project.root, "uninstall", "copilot")
    assert gone.code == 0 and gone.stdout == f"removed agent-guard's hooks from {mine}\n", gone
    assert not mine.exists() and theirs.is_file()  # the user's own hooks file stays
    assert run_cli(project.root, "uninstall", "copilot").stdout.startswith("not installed")


def test_uninstall_copilot_takes_away_the_folders_install_made(project: Repo) -> None:
    assert run_cli(project.root, "install", "copilot").code == 0
    assert run_cli(project.root, "uninstall", "copilot").code == 0
    assert not (project.root / ".github").exists()


def test_install_copilot_user_goes_in_copilot_home(project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    r = run_cli(project.root, "install", "copilot", "--user")
    mine = home / "hooks" / "agent-guard.json"
    assert r.code == 0 and f"wrote {mine}" in r.stdout and "keep it out of commits" not in r.stdout, r
    assert run_cli(project.root, "uninstall", "copilot", "--user").code == 0
    assert not mine.exists() and (home / "hooks").is_dir()  # the user's folder stays
    monkeypatch.delenv("COPILOT_HOME")
    assert (
        f"wrote {Path.home() / '.copilot' / 'hooks' / 'agent-guard.json'}"
        in run_cli(project.root, "install", "copilot", "--user").stdout
    )


def test_a_hook_the_user_added_to_agent_guards_file_is_kept(project: Repo) -> None:
    assert run_cli(project.root, "install", "copilot").code == 0
    mine = project.root / ".github" / "hooks" / "agent-guard.json"
    doc = json.loads(mine.read_text())
    doc["hooks"]["sessionStart"] = [{"type": "command", "bash": "./hello.sh"}]
    mine.write_text(json.dumps(doc))
    assert run_cli(project.root, "uninstall", "copilot").code == 0
    assert json.loads(mine.read_text()) == {"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "./hello.sh"}]}}


# ---------------------------------------------------------------------- Cursor


def test_install_cursor_merges_with_the_users_hooks_and_uninstall_gives_them_back(project: Repo) -> None:
    path = project.root / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps(THEIRS))
    (project.root / ".cursor" / "rules.md").write_text("be brief\n")
    r = run_cli(project.root, "install", "cursor")
    assert r.code == 0 and r.stdout.startswith(f"wrote {path}: preToolUse, postToolUse, postToolUseFailure hooks"), r
    assert "trusted workspace" in r.stdout
    doc = json.loads(path.read_text())
    hooks = ours(doc, "command")
    assert set(hooks) == {"preToolUse", "postToolUse", "postToolUseFailure"}
    assert doc["hooks"]["preToolUse"][0] == THEIRS["hooks"]["preToolUse"][0]  # theirs first, ours last
    assert doc["hooks"]["afterFileEdit"] == THEIRS["hooks"]["afterFileEdit"] and doc["hooks"]["stop"] == []
    assert hooks["preToolUse"]["failClosed"] is True and "failClosed" not in hooks["postToolUse"]
    for hook in hooks.values():
        assert hook["timeout"] == 30 and hook["matcher"] == "Shell|Delete|Write|StrReplace|Edit|MultiEdit"
        assert os.path.isabs(hook["command"].split()[0]) and hook["command"] in r.stdout
    assert run_cli(project.root, "install", "cursor").stdout == f"already installed: {path}\n"
    assert json.loads(path.read_text()) == doc
    gone = run_cli(project.root, "uninstall", "cursor")
    assert gone.code == 0 and "removed agent-guard's hooks" in gone.stdout, gone
    assert json.loads(path.read_text()) == THEIRS
    assert run_cli(project.root, "uninstall", "cursor").stdout == f"not installed: {path}\n"


def test_uninstall_cursor_removes_a_file_and_folder_holding_only_its_hooks(project: Repo) -> None:
    assert run_cli(project.root, "install", "cursor").code == 0
    assert run_cli(project.root, "uninstall", "cursor").code == 0
    assert not (project.root / ".cursor").exists()


def test_install_cursor_user(project: Repo) -> None:
    r = run_cli(project.root, "install", "cursor", "--user")
    path = Path.home() / ".cursor" / "hooks.json"
    assert r.code == 0 and f"wrote {path}" in r.stdout and "trusted workspace" not in r.stdout, r
    assert set(ours(json.loads(path.read_text()), "command")) == {"preToolUse", "postToolUse", "postToolUseFailure"}
    assert run_cli(project.root, "uninstall", "cursor", "--user").code == 0
    assert not path.exists() and path.parent.is_dir()


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"version": 2, "hooks": {}}',
        '{"version": 1, "hooks": []}',
        '{"version": 1, "hooks": {"preToolUse": {}}}',
    ],
)
@pytest.mark.parametrize("agent", ["copilot", "cursor"])
def test_a_file_agent_guard_cannot_read_is_left_as_it_is(project: Repo, agent: str, text: str) -> None:
    path = project.root / (".github/hooks/agent-guard.json" if agent == "copilot" else ".cursor/hooks.json")
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for command in ("install", "uninstall"):
        r = run_cli(project.root, command, agent)
        assert r.code == 2 and "left as it is" in r.stderr, r
        assert path.read_text() == text


@pytest.mark.parametrize("agent", ["copilot", "cursor"])
def test_print_writes_nothing(project: Repo, agent: str) -> None:
    r = run_cli(project.root, "install", agent, "--print")
    header, text = r.stdout.split("\n", 1)
    assert r.code == 0 and header.startswith("# ") and json.loads(text)["version"] == 1, r
    assert not Path(header[2:]).exists()


# ---------------------------------------------------------------------- a hook that cannot run


def _payload(repo: Repo, agent: str, new: str) -> bytes:
    edit = {"old_string": "    return sum(items)\n", "new_string": new}
    if agent == "copilot":
        args = {"path": "stats.py", "old_str": edit["old_string"], "new_str": edit["new_string"]}
        return json.dumps(
            {"sessionId": "s1", "timestamp": 1, "cwd": str(repo.root), "toolName": "edit", "toolArgs": args}
        ).encode()
    data = {"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "preToolUse", "workspace_roots": [str(repo.root)]}
    data.update(tool_name="StrReplace", tool_use_id="t1", cwd=str(repo.root), tool_input={"path": "stats.py", **edit})
    return json.dumps(data).encode()


def _run(command: str, payload: bytes, repo: Repo) -> subprocess.CompletedProcess[bytes]:
    """`command` as the agent runs a hook: a shell line, the payload on standard input."""
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, "-c", command], input=payload, cwd=repo.root, env=checkout_env(), capture_output=True, timeout=120
    )


def _command(repo: Repo, agent: str) -> str:
    r = run_cli(repo.root, "install", agent, "--print")
    key = "bash" if agent == "copilot" else "command"
    return str(ours(json.loads(r.stdout.split("\n", 1)[1]), key)["preToolUse"][key])


def _program(command: str) -> str:
    return command.split("$(", 1)[-1].split()[0]


def test_the_copilot_command_denies_on_standard_output_when_agent_guard_cannot_run(project: Repo, tmp_path: Path) -> None:
    command = _command(project, "copilot")
    ok = _run(command, _payload(project, "copilot", "    return sum(items, 0)\n"), project)
    assert ok.returncode == 0 and ok.stdout == b"" and ok.stderr == b"", ok
    refused = _run(command, _payload(project, "copilot", "    # ... rest of the code ...\n"), project)
    assert refused.returncode == 0 and json.loads(refused.stdout)["permissionDecision"] == "deny", refused
    assert "placeholder" in json.loads(refused.stdout)["permissionDecisionReason"]
    program = _program(command)
    assert os.path.isabs(program) and os.access(program, os.X_OK), command
    broken = tmp_path / "agent-guard"
    broken.write_text("#!/bin/sh\necho '{\"permissionDecision\": \"al' \necho 'Traceback: ImportError' >&2\nexit 1\n")
    broken.chmod(0o755)
    for stand_in, status in ((str(tmp_path / "removed-venv" / "bin" / "agent-guard"), 127), (str(broken), 1)):
        r = _run(command.replace(program, stand_in, 1), _payload(project, "copilot", "    return 0\n"), project)
        assert r.returncode == 0, r
        said = json.loads(r.stdout)  # half an answer never passes: only the denial is printed
        why = f"agent-guard could not run (exit {status}), so nothing was checked: the tool call is blocked"
        assert said == {"permissionDecision": "deny", "permissionDecisionReason": why}, r


def test_the_cursor_command_exits_2_when_agent_guard_cannot_run(project: Repo, tmp_path: Path) -> None:
    command = _command(project, "cursor")
    ok = _run(command, _payload(project, "cursor", "    return sum(items, 0)\n"), project)
    assert ok.returncode == 0 and ok.stdout == b"{}\n", ok
    refused = _run(command, _payload(project, "cursor", "    # ... rest of the code ...\n"), project)
    assert refused.returncode == 0 and json.loads(refused.stdout)["permission"] == "deny", refused
    program = _program(command)
    gone = command.replace(program, str(tmp_path / "removed-venv" / "bin" / "agent-guard"), 1)
    r = _run(gone, _payload(project, "cursor", "    return 0\n"), project)
    assert r.returncode == 2 and b"agent-guard could not run (exit 127)" in r.stderr, r


# ---------------------------------------------------------------------- the documentation's examples


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="the documentation's examples are not at hand")
@pytest.mark.parametrize("agent,key", [("copilot", "bash"), ("cursor", "command")])
def test_the_documented_hooks_files_are_the_shape_install_writes(project: Repo, agent: str, key: str) -> None:
    documented = json.loads((EXAMPLES / agent / "hooks.example.json").read_text())
    written = json.loads(run_cli(project.root, "install", agent, "--print").stdout.split("\n", 1)[1])
    assert written["version"] == documented["version"]
    mine = ours(written, key)
    for event, [example] in documented["hooks"].items():
        if event not in mine:
            continue  # a Cursor event with no tool-call id: not one agent-guard's hooks answer
        assert set(example) <= set(mine[event]), (event, mine[event])
    assert {"preToolUse", "postToolUse"} <= set(mine)
    if agent == "cursor":
        example_pre = documented["hooks"]["preToolUse"][0]
        assert set(example_pre["matcher"].split("|")) <= set(mine["preToolUse"]["matcher"].split("|"))
        assert mine["preToolUse"]["failClosed"] is True
