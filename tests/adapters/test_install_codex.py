"""`agent-guard install codex` and `uninstall codex`: Codex's config.toml, the trust Codex asks for,
and a hook command that blocks when agent-guard cannot run.

Codex lets a tool run on every hook failure but exit 2 with a reason, and in `codex exec` skips a
hook that is not trusted without a word; so each written command is run here as Codex runs it
(a shell line, the payload on standard input), with its program gone too, and the trust hash is
held to the values Codex itself reports.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, run_cli

from guard.adapters import codex_config as cc

HOOKS = Path(__file__).resolve().parents[3] / "shared" / "agent-hooks"
SRC = "def total(items):\n    return sum(items)\n"
MINE = (
    '# my settings\nmodel = "o3"   # keep this comment\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n\n'
    '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "./audit.sh"'
)  # no final newline, and a hook group of the user's own before agent-guard's


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC})
    return repo


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


# ---------------------------------------------------------------------- the trust hash


@pytest.mark.parametrize(
    "event,expected",
    [  # `codex app-server` (0.171.0), hooks/list currentHash, for this command, matcher and timeout
        ("pre_tool_use", "sha256:1920f8a68ce421058c025caf20702c15ad5160f7ec3678ac21044b91272eb5e8"),
        ("post_tool_use", "sha256:d4c7edcfaf8555b3725e593908b7f0a53e5b1e8fe919c392933128b3c0616cdb"),
    ],
)
def test_the_trust_hash_is_codexs(event: str, expected: str) -> None:
    # A path that is not ASCII: Codex hashes the UTF-8 text as it is, not JSON's \u escapes.
    assert cc.trust_hash(event, "/opt/agent-guärd/bin/agent-guard hook codex", "^(Bash|apply_patch)$", 30) == expected


@pytest.mark.skipif(not (HOOKS / "scripts" / "codex_trust_hash.py").is_file(), reason="the captured runs are not at hand")
@pytest.mark.parametrize("event", ["pre_tool_use", "post_tool_use"])
@pytest.mark.parametrize("matcher", ["*", cc.MATCHER])
def test_the_trust_hash_is_the_captured_runs_rule(event: str, matcher: str) -> None:
    """The rule the captured `trusted_state` run was made with (its script reproduces `hooks/list`)."""
    command = "python3 /x/hooklog.py codex /logs /logs/modes.json"
    script = HOOKS / "scripts" / "codex_trust_hash.py"
    done = subprocess.run(
        ["python3", str(script), event, command, "--matcher", matcher, "--timeout", "30"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert cc.trust_hash(event, command, matcher, 30) == done.stdout.strip()
    state = (HOOKS / "codex" / "runs" / "trusted_state" / "hooks-config-snippet.txt").read_text()
    keys = [k for k in tomllib.loads(state)["hooks"]["state"]]
    assert keys == [cc.trust_key("<codex_home>/config.toml", e, 0) for e in ("pre_tool_use", "post_tool_use")]


# ---------------------------------------------------------------------- the user's config


def _hooks(text: str) -> tuple[str, dict[str, int]]:
    """The command agent-guard's hooks run, and the index of its group for each event."""
    data = tomllib.loads(text)
    commands = {
        g["hooks"][0]["command"] for e, _k in cc.EVENTS for g in data["hooks"][e] if "agent-guard" in g["hooks"][0]["command"]
    }
    [command] = commands
    return command, cc.groups(text, command)


def test_install_user_merges_trusts_and_uninstall_gives_back_the_same_bytes(project: Repo, codex_home: Path) -> None:
    config = codex_home / "config.toml"
    config.write_text(MINE)
    r = run_cli(project.root, "install", "codex", "--user", "--mcp")
    assert r.code == 0 and r.stdout.startswith(f"wrote {config}: PreToolUse and PostToolUse hooks"), r
    text = config.read_text()
    assert text.startswith(MINE + "\n# >>> agent-guard >>>\n")
    data = tomllib.loads(text)
    assert data["model"] == "o3" and data["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    command, groups = _hooks(text)
    assert groups == {"pre_tool_use": 1, "post_tool_use": 0}  # after the user's own PreToolUse group
    assert command in r.stdout
    for event, key in cc.EVENTS:
        [group] = [g for g in data["hooks"][event] if g["hooks"][0]["command"] == command]
        assert group["matcher"] == cc.MATCHER and group["hooks"][0]["timeout"] == 30
        state_key = f"{os.path.realpath(config)}:{key}:{groups[key]}:0"
        assert data["hooks"]["state"][state_key] == {"trusted_hash": cc.trust_hash(key, command)}
    server = data["mcp_servers"]["agent-guard"]
    assert server["required"] is True and server["args"][-3:] == ["mcp", "--agent", "codex"]
    assert os.path.isabs(server["command"])
    again = run_cli(project.root, "install", "codex", "--user", "--mcp")
    assert again.code == 0 and again.stdout == f"already installed: {config}\n", again
    assert config.read_text() == text
    gone = run_cli(project.root, "uninstall", "codex", "--user")
    assert gone.code == 0 and "removed agent-guard's hooks" in gone.stdout, gone
    assert config.read_bytes() == MINE.encode()
    assert run_cli(project.root, "uninstall", "codex", "--user").stdout.startswith("not installed")


def test_a_second_install_replaces_its_own_block(project: Repo, codex_home: Path) -> None:
    config = codex_home / "config.toml"
    assert run_cli(project.root, "install", "codex", "--user", "--mcp").code == 0
    assert run_cli(project.root, "install", "codex", "--user").code == 0
    text = config.read_text()
    assert text.count("# >>> agent-guard >>>") == 1 and "mcp_servers" not in text
    assert run_cli(project.root, "uninstall", "codex", "--user").code == 0
    assert not config.exists() and codex_home.is_dir()  # as before the first install


@pytest.mark.parametrize(
    "text",
    [
        "[broken\n",
        "hooks = 3\n",
        "hooks = {PreToolUse = []}\n",
        '[mcp_servers.agent-guard]\ncommand = "x"\n',
        "# >>> agent-guard >>>\n",
    ],
)
def test_a_file_agent_guard_cannot_change_is_left_as_it_is(project: Repo, codex_home: Path, text: str) -> None:
    config = codex_home / "config.toml"
    config.write_text(text)
    r = run_cli(project.root, "install", "codex", "--user", "--mcp")
    assert r.code == 2 and "left as it is" in r.stderr, r
    assert config.read_text() == text


def test_install_project_writes_the_hooks_there_and_the_trust_in_the_users_file(project: Repo, codex_home: Path) -> None:
    user = codex_home / "config.toml"
    user.write_text(MINE)
    r = run_cli(project.root, "install", "codex")
    mine = project.root / ".codex" / "config.toml"
    assert r.code == 0 and f"wrote {mine}" in r.stdout and "only in a trusted project" in r.stdout, r
    command, groups = _hooks(mine.read_text())
    assert groups == {"pre_tool_use": 0, "post_tool_use": 0}
    state = tomllib.loads(user.read_text())["hooks"]["state"]
    assert state == {f"{mine}:{k}:0:0": {"trusted_hash": cc.trust_hash(k, command)} for _e, k in cc.EVENTS}
    assert user.read_text().startswith(MINE + "\n# >>> agent-guard trust ")
    # A trusted project: nothing to say about it.
    user.write_text(MINE + f'\n[projects."{project.root}"]\ntrust_level = "trusted"\n')
    assert "trusted project" not in run_cli(project.root, "install", "codex").stdout
    assert run_cli(project.root, "uninstall", "codex").code == 0
    assert not (project.root / ".codex").exists()
    assert user.read_text() == MINE + f'\n[projects."{project.root}"]\ntrust_level = "trusted"\n'


def test_print_writes_nothing(project: Repo, codex_home: Path) -> None:
    r = run_cli(project.root, "install", "codex", "--user", "--print")
    assert r.code == 0 and r.stdout.startswith(f"# {codex_home / 'config.toml'}\n"), r
    assert not (codex_home / "config.toml").exists()


# ---------------------------------------------------------------------- a hook that cannot run


def _payload(repo: Repo, patch: str) -> bytes:
    data = {
        "session_id": "s1",
        "turn_id": "t1",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "call_1",
        "tool_input": {"command": patch},
    }
    return json.dumps(data).encode()


def _run(command: str, payload: bytes, repo: Repo) -> subprocess.CompletedProcess[bytes]:
    """`command` as Codex runs a hook: a shell line, the payload on standard input."""
    sh = shutil.which("sh")
    assert sh is not None
    return subprocess.run([sh, "-c", command], input=payload, cwd=repo.root, env=checkout_env(), capture_output=True, timeout=120)


def test_the_written_command_blocks_when_agent_guard_cannot_run(project: Repo, codex_home: Path, tmp_path: Path) -> None:
    assert run_cli(project.root, "install", "codex", "--user").code == 0
    command, _ = _hooks((codex_home / "config.toml").read_text())
    clean = "*** Begin Patch\n*** Update File: stats.py\n@@\n-    return sum(items)\n+    return sum(items, 0)\n*** End Patch\n"
    placeholder = (
        "*** Begin Patch\n*** Update File: stats.py\n@@\n-    return sum(items)\n+    # ... rest of the code ...\n*** End Patch\n"
    )
    ok = _run(command, _payload(project, clean), project)
    assert ok.returncode == 0 and ok.stderr == b"", ok
    refused = _run(command, _payload(project, placeholder), project)
    assert refused.returncode == 2 and b"placeholder" in refused.stderr, refused
    program = command.split()[0]
    assert os.path.isabs(program) and os.access(program, os.X_OK), command
    gone = command.replace(program, str(tmp_path / "removed-venv" / "bin" / "agent-guard"), 1)
    r = _run(gone, _payload(project, clean), project)
    assert r.returncode == 2 and b"agent-guard could not run (exit 127)" in r.stderr, r
    broken = tmp_path / "agent-guard"
    broken.write_text("#!/bin/sh\necho 'Traceback: ImportError' >&2\nexit 1\n")
    broken.chmod(0o755)
    r = _run(command.replace(program, str(broken), 1), _payload(project, clean), project)
    assert r.returncode == 2 and b"(exit 1)" in r.stderr, r  # Codex would let exit 1 through
