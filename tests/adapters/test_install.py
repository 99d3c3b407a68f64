"""Claude Code's hook settings: the shipped file and what `agent-guard install claude-code` writes.

A hook that cannot run must block.  Claude Code carries on after any exit status but 2, so a
command it cannot find (127), cannot run (126) or that a signal ends would let every edit through
unchecked.  Each form is run here as Claude Code runs it (a shell line, the payload on standard
input) with agent-guard absent from PATH, or its absolute path gone: each denies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import BIN, Repo, checkout_env, run_cli

from guard.adapters.install import MATCHER, fail_closed

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "hooks" / "claude-code-settings.json"
SRC = "def total(items):\n    return sum(items)\n"
SHELLS = [s for s in ("sh", "bash", "dash") if shutil.which(s)]


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC})
    return repo


def _payload(repo: Repo, new: str, event: str = "PreToolUse") -> bytes:
    data = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": event,
        "tool_name": "Edit",
        "tool_use_id": "toolu_1",
        "tool_input": {"file_path": str(repo.root / "stats.py"), "old_string": "    return sum(items)\n", "new_string": new},
    }
    return json.dumps(data).encode()


def _without_agent_guard() -> str:
    """PATH with every folder that holds an `agent-guard` program left out."""
    folders = [f for f in os.environ.get("PATH", os.defpath).split(os.pathsep) if f and str(BIN) != f]
    return os.pathsep.join(f for f in folders if not os.path.exists(os.path.join(f, "agent-guard")))


def _run(
    shell: str, command: str, payload: bytes, repo: Repo, path: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = checkout_env(env)
    if path is not None:
        env["PATH"] = path
    exe = shutil.which(shell)
    assert exe is not None
    return subprocess.run(
        [exe, "-c", command], input=payload, cwd=repo.root, env=env, capture_output=True, timeout=120, check=False
    )


def _commands(settings: dict[str, Any]) -> set[str]:
    found = set()
    for event in ("PreToolUse", "PostToolUse"):
        [entry] = settings["hooks"][event]
        assert entry["matcher"] == MATCHER
        [hook] = entry["hooks"]
        assert hook["type"] == "command" and hook["timeout"] == 30
        found.add(hook["command"])
    return found


@pytest.mark.parametrize("shell", SHELLS)
def test_the_shipped_settings_block_when_agent_guard_is_not_on_path(project: Repo, shell: str) -> None:
    [command] = _commands(json.loads(SHIPPED.read_text()))
    assert command == fail_closed("agent-guard hook claude-code")
    before = project.snapshot()
    for new in ("    return sum(items, 0)\n", "    # ... rest of the code unchanged\n"):
        r = _run(shell, command, _payload(project, new), project, path=_without_agent_guard())
        assert r.returncode == 2 and b"agent-guard could not run (exit 127)" in r.stderr, r
    assert project.snapshot() == before
    # On PATH, the hook's own answers come through unchanged: 0 for a pass, 2 for a refusal.
    ok = _run(shell, command, _payload(project, "    return sum(items, 0)\n"), project)
    assert ok.returncode == 0 and ok.stderr == b"", ok
    refused = _run(shell, command, _payload(project, "    # ... rest of the code unchanged\n"), project)
    assert refused.returncode == 2 and b"placeholder" in refused.stderr, refused


def test_a_hook_that_cannot_be_run_or_is_killed_blocks(project: Repo, tmp_path: Path) -> None:
    """Not executable (126), and ended by a signal (128+n): each becomes 2; 1 stays 1 (a post hook's report)."""
    script = tmp_path / "agent-guard"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    r = _run("sh", fail_closed(f"{script} hook claude-code"), b"{}", project)
    assert r.returncode == 2 and b"(exit 126)" in r.stderr, r
    r = _run("sh", fail_closed("sh -c 'kill -9 $$'"), b"{}", project)
    assert r.returncode == 2 and b"(exit 137)" in r.stderr, r
    r = _run("sh", fail_closed("sh -c 'exit 1'"), b"{}", project)
    assert r.returncode == 1 and r.stderr == b"", r


def _no_server(tmp_path: Path) -> str:
    """A runtime folder others may open: the warm hook asks no server there and starts none (``client.start_server``)."""
    run = tmp_path / "open-run"
    (run / "agent-guard").mkdir(parents=True)
    os.chmod(run / "agent-guard", 0o755)
    return str(run)


@pytest.mark.parametrize("form", ["warm", "cold"])
def test_install_writes_this_installations_absolute_path(project: Repo, tmp_path: Path, form: str) -> None:
    result = run_cli(project.root, "install", "claude-code", *(["--cold"] if form == "cold" else []))
    assert result.code == 0 and "wrote" in result.stdout, result
    assert ("starts `agent-guard serve` in the background" in result.stdout) == (form == "warm"), result
    written = project.root / ".claude" / "settings.local.json"
    [command] = _commands(json.loads(written.read_text()))
    program = command.split()[0]
    assert os.path.isabs(program) and os.access(program, os.X_OK), command
    if form == "warm":
        hook = command.split()[2]
        assert command.startswith(f"{program} -SI {hook} --start-server;") and hook.endswith("/guard/warm/hook.py"), command
        assert os.path.isabs(hook) and os.path.isfile(hook), command
    else:
        assert command.startswith(f"{program} hook claude-code;"), command
    # It runs whatever PATH Claude Code has ...
    env = {"XDG_RUNTIME_DIR": _no_server(tmp_path)}
    placeholder = _payload(project, "    # ... rest of the code unchanged\n")
    r = _run("sh", command, placeholder, project, path=_without_agent_guard(), env=env)
    assert r.returncode == 2 and b"placeholder" in r.stderr, r
    assert _run("sh", command, _payload(project, "    return sum(items, 0)\n"), project, env=env).returncode == 0
    # ... and blocks once the installation it names is gone.
    gone = command.replace(program, str(tmp_path / "removed-venv" / "bin" / "python"), 1)
    r = _run("sh", gone, _payload(project, "    return sum(items, 0)\n"), project, env=env)
    assert r.returncode == 2 and b"(exit 127)" in r.stderr, r
    if form == "warm":  # the interpreter is there, the package is not: Python's own exit 2 blocks as well
        gone = command.replace(command.split()[2], str(tmp_path / "removed" / "guard" / "warm" / "hook.py"), 1)
        r = _run("sh", gone, _payload(project, "    return sum(items, 0)\n"), project, env=env)
        assert r.returncode == 2 and b"can't open file" in r.stderr, r
    assert sorted(os.listdir(env["XDG_RUNTIME_DIR"] + "/agent-guard")) == []  # no server was started


def test_install_merges_and_uninstall_takes_out_only_its_own(project: Repo) -> None:
    settings = project.root / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    mine = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}]},
    }
    settings.write_text(json.dumps(mine))
    assert run_cli(project.root, "install", "claude-code").code == 0
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == mine["permissions"]
    assert merged["hooks"]["PreToolUse"][0] == mine["hooks"]["PreToolUse"][0]  # theirs first
    assert len(merged["hooks"]["PreToolUse"]) == 2 and len(merged["hooks"]["PostToolUse"]) == 1
    again = run_cli(project.root, "install", "claude-code")
    assert again.code == 0 and "already installed" in again.stdout, again
    assert json.loads(settings.read_text()) == merged
    gone = run_cli(project.root, "uninstall", "claude-code")
    assert gone.code == 0 and "removed" in gone.stdout, gone
    assert json.loads(settings.read_text()) == mine
    # Either form replaces the other, and uninstall takes out either.
    for flags in (["--cold"], [], ["--cold"]):
        assert run_cli(project.root, "install", "claude-code", *flags).code == 0
        now = json.loads(settings.read_text())
        assert len(now["hooks"]["PreToolUse"]) == 2 and len(now["hooks"]["PostToolUse"]) == 1, now
        [command] = _commands({"hooks": {e: now["hooks"][e][-1:] for e in ("PreToolUse", "PostToolUse")}})
        assert ("hook claude-code" in command) == (flags == ["--cold"]), command
    assert run_cli(project.root, "install", "claude-code").code == 0
    assert run_cli(project.root, "uninstall", "claude-code").code == 0
    assert json.loads(settings.read_text()) == mine


def test_settings_that_are_not_an_object_are_left_alone(project: Repo) -> None:
    settings = project.root / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    for text in ('{"hooks": ', "[]", '{"hooks": {"PreToolUse": {}}}'):
        settings.write_text(text)
        result = run_cli(project.root, "install", "claude-code")
        assert result.code == 2 and "left as it is" in result.stderr, result
        assert settings.read_text() == text


def test_install_for_the_user(project: Repo, tmp_path: Path) -> None:
    home = tmp_path / "claude-home"
    result = run_cli(project.root, "install", "claude-code", "--user", env={"CLAUDE_CONFIG_DIR": str(home)})
    assert result.code == 0, result
    _commands(json.loads((home / "settings.json").read_text()))
    assert not (project.root / ".claude").exists()
    printed = run_cli(project.root, "install", "claude-code", "--print")
    assert _commands(json.loads(printed.stdout)) == _commands(json.loads((home / "settings.json").read_text()))
