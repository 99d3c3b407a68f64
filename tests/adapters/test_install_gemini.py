"""`agent-guard install gemini` and `uninstall gemini`: Gemini CLI's settings.json, merged with what
is there, and a hook command that blocks when agent-guard cannot run.

Gemini lets a tool run when its hook exits 1, prints what is not JSON, or times out; so each written
command is run here as Gemini runs it (``bash -c``, the payload on standard input), with its
program gone too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, run_cli

from guard.adapters import gemini_settings as gs

HOOKS = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks"
SRC = "def total(items):\n    return sum(items)\n"
MINE: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "model": {"name": "gemini-2.5-pro"},
    "mcpServers": {"docs": {"command": "docs-mcp"}},
    "hooks": {
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "audit", "type": "command", "command": "./audit.sh"}]}]
    },
}


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC})
    return repo


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Gemini's home: its user settings are ``HOME/.gemini/settings.json``."""
    folder = tmp_path / "gemini-home"
    (folder / ".gemini").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    return folder


def ours(settings: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The command agent-guard's hooks run, and where its entry is in each event's list."""
    commands, where = set(), {}
    for event in gs.EVENTS:
        for i, entry in enumerate(settings["hooks"][event]):
            for h in entry["hooks"]:
                if "hook gemini" in h["command"]:
                    assert entry["matcher"] == gs.MATCHER and h["timeout"] == 30000 and h["name"] == "agent-guard", entry
                    commands.add(h["command"])
                    where[event] = i
    [command] = commands
    return command, where


# ---------------------------------------------------------------------- the user's settings


def test_install_user_merges_and_uninstall_gives_back_the_users_settings(project: Repo, home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.write_text(json.dumps(MINE))
    r = run_cli(project.root, "install", "gemini", "--user", "--mcp")
    assert r.code == 0 and r.stdout.startswith(f"wrote {settings}: BeforeTool and AfterTool hooks"), r
    data = json.loads(settings.read_text())
    assert {k: v for k, v in data.items() if k not in ("hooks", "mcpServers")} == {
        k: v for k, v in MINE.items() if k not in ("hooks", "mcpServers")
    }
    command, where = ours(data)
    assert where == {"BeforeTool": 1, "AfterTool": 0}  # after the user's own BeforeTool hook
    assert data["hooks"]["BeforeTool"][0] == MINE["hooks"]["BeforeTool"][0]
    assert command in r.stdout and "keep it out of commits" not in r.stdout
    assert data["mcpServers"]["docs"] == {"command": "docs-mcp"}
    server = data["mcpServers"]["agent-guard"]
    assert Path(server["command"]).is_absolute() and server["args"][-3:] == ["mcp", "--agent", "gemini"]
    text = settings.read_text()
    again = run_cli(project.root, "install", "gemini", "--user", "--mcp")
    assert again.code == 0 and again.stdout == f"already installed: {settings}\n", again
    assert settings.read_text() == text
    gone = run_cli(project.root, "uninstall", "gemini", "--user")
    assert gone.code == 0 and gone.stdout == f"removed agent-guard's hooks from {settings}\n", gone
    assert json.loads(settings.read_text()) == MINE
    assert run_cli(project.root, "uninstall", "gemini", "--user").stdout == f"not installed: {settings}\n"


def test_a_second_install_replaces_its_own_entries(project: Repo, home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    assert run_cli(project.root, "install", "gemini", "--user", "--mcp").code == 0
    assert run_cli(project.root, "install", "gemini", "--user").code == 0
    data = json.loads(settings.read_text())
    assert "mcpServers" not in data and [len(data["hooks"][e]) for e in gs.EVENTS] == [1, 1]
    assert run_cli(project.root, "uninstall", "gemini", "--user").code == 0
    assert not settings.exists() and (home / ".gemini").is_dir()  # as before the first install


def test_gemini_cli_home_moves_the_users_settings(
    project: Repo, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    assert run_cli(project.root, "install", "gemini", "--user").code == 0
    assert (elsewhere / ".gemini" / "settings.json").is_file() and not (home / ".gemini" / "settings.json").exists()


@pytest.mark.parametrize(
    "text",
    [
        '{\n  // Gemini reads comments\n  "model": {}\n}\n',
        "{broken\n",
        "[]\n",
        '{"hooks": 3}\n',
        '{"hooks": {"AfterTool": {}}}\n',
        '{"mcpServers": []}\n',
        '{"mcpServers": {"agent-guard": {"command": "my-own"}}}\n',
    ],
)
def test_a_file_agent_guard_cannot_change_is_left_as_it_is(project: Repo, home: Path, text: str) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.write_text(text)
    r = run_cli(project.root, "install", "gemini", "--user", "--mcp")
    assert r.code == 2 and "left as it is" in r.stderr, r
    assert settings.read_text() == text


def test_comments_are_named_as_the_likely_reason(project: Repo, home: Path) -> None:
    (home / ".gemini" / "settings.json").write_text('{ /* mine */ "model": {} }\n')
    r = run_cli(project.root, "install", "gemini", "--user")
    assert r.code == 2 and "comments" in r.stderr and "--print" in r.stderr, r


def test_hooks_switched_off_are_said(project: Repo, home: Path) -> None:
    (home / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}\n')
    r = run_cli(project.root, "install", "gemini")
    assert r.code == 0 and '"hooksConfig.enabled" is false there' in r.stdout, r


def test_print_writes_nothing(project: Repo, home: Path) -> None:
    r = run_cli(project.root, "install", "gemini", "--user", "--print")
    assert r.code == 0 and r.stdout.startswith(f"# {home / '.gemini' / 'settings.json'}\n{{"), r
    assert ours(json.loads(r.stdout.split("\n", 1)[1]))[1] == {"BeforeTool": 0, "AfterTool": 0}
    assert not (home / ".gemini" / "settings.json").exists()


# ---------------------------------------------------------------------- the project's settings


def test_install_project_writes_the_top_folders_settings(project: Repo, home: Path) -> None:
    (project.root / "pkg").mkdir()
    r = run_cli(project.root / "pkg", "install", "gemini")
    settings = project.root / ".gemini" / "settings.json"
    assert r.code == 0 and f"wrote {settings}" in r.stdout, r
    assert "keep it out of commits" in r.stdout and f"when started in {project.root}" in r.stdout
    assert "trusted" in r.stdout
    ours(json.loads(settings.read_text()))
    assert not (home / ".gemini" / "settings.json").exists()
    assert run_cli(project.root, "uninstall", "gemini").code == 0
    assert not (project.root / ".gemini").exists()
    listed = run_cli(project.root, "uninstall")
    assert ".gemini" not in listed.stdout


def test_uninstall_keeps_the_projects_other_gemini_files(project: Repo, home: Path) -> None:
    project.write({".gemini/GEMINI.md": "notes\n"})
    assert run_cli(project.root, "install", "gemini").code == 0
    listed = run_cli(project.root, "uninstall")
    assert ".gemini/settings.json" in listed.stdout  # the user's file, listed, not touched
    assert run_cli(project.root, "uninstall", "gemini").code == 0
    assert not (project.root / ".gemini" / "settings.json").exists() and (project.root / ".gemini" / "GEMINI.md").is_file()


def test_the_installed_shape_is_the_one_gemini_ran(project: Repo, home: Path) -> None:
    """The captured run's settings (which Gemini CLI 0.61.0 ran) hold the same keys as ours."""
    snippet = HOOKS / "gemini" / "settings-snippet.json"
    if not snippet.is_file():
        pytest.skip("the captured runs are not at hand")
    theirs = json.loads(snippet.read_text())["hooks"]
    r = run_cli(project.root, "install", "gemini", "--print")
    mine = json.loads(r.stdout.split("\n", 1)[1])["hooks"]
    assert set(mine) == set(theirs) == set(gs.EVENTS)
    for event in gs.EVENTS:
        assert set(mine[event][0]) == set(theirs[event][0])
        assert set(mine[event][0]["hooks"][0]) == set(theirs[event][0]["hooks"][0]) | {"timeout"}


# ---------------------------------------------------------------------- a hook that cannot run


def _payload(repo: Repo, new: str) -> bytes:
    data = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": "BeforeTool",
        "tool_name": "replace",
        "tool_input": {"file_path": str(repo.root / "stats.py"), "old_string": "    return sum(items)\n", "new_string": new},
    }
    return json.dumps(data).encode()


def _run(command: str, payload: bytes, repo: Repo) -> subprocess.CompletedProcess[bytes]:
    """`command` as Gemini runs a hook: ``bash -c``, the payload on standard input."""
    bash = shutil.which("bash")
    assert bash is not None
    env = checkout_env()
    return subprocess.run([bash, "-c", command], input=payload, cwd=repo.root, env=env, capture_output=True, timeout=120)


def test_the_written_command_blocks_when_agent_guard_cannot_run(project: Repo, home: Path, tmp_path: Path) -> None:
    assert run_cli(project.root, "install", "gemini", "--user").code == 0
    command, _ = ours(json.loads((home / ".gemini" / "settings.json").read_text()))
    ok = _run(command, _payload(project, "    return sum(items, 0)\n"), project)
    assert ok.returncode == 0 and ok.stdout == b"" and ok.stderr == b"", ok
    refused = _run(command, _payload(project, "    # ... rest of the code ...\n"), project)
    assert refused.returncode == 0 and json.loads(refused.stdout)["decision"] == "deny", refused
    assert b"placeholder" in refused.stdout
    program = command.split()[0]
    assert Path(program).is_absolute(), command
    gone = command.replace(program, str(tmp_path / "removed-venv" / "bin" / "agent-guard"), 1)
    r = _run(gone, _payload(project, "    return sum(items, 0)\n"), project)
    assert r.returncode == 2 and b"agent-guard could not run (exit 127)" in r.stderr, r  # Gemini: a deny
    broken = tmp_path / "agent-guard"
    broken.write_text("#!/bin/sh\necho 'Traceback: ImportError' >&2\nexit 1\n")
    broken.chmod(0o755)
    r = _run(command.replace(program, str(broken), 1), _payload(project, "    return sum(items, 0)\n"), project)
    assert r.returncode == 2 and b"(exit 1)" in r.stderr, r  # Gemini would let exit 1 through
