"""`agent-guard install opencode` and `uninstall opencode`: OpenCode's opencode.json, merged.

The set-up is the README's (agent-guard's MCP server, OpenCode's own edits denied) with the server
run by this installation's absolute path; the user's other settings stay, a second install
changes nothing, and an uninstall takes out only what the install put in.  The real OpenCode runs
what this writes in tests/adapters/test_opencode_system.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Repo, run_cli
from readme import file_blocks

from guard.adapters import install
from guard.adapters import opencode_config as oc

MINE = {
    "$schema": "https://opencode.ai/config.json",
    "model": "anthropic/claude-sonnet-4-5",
    "permission": {"edit": "ask", "bash": {"git push*": "deny"}},
    "mcp": {"docs": {"type": "remote", "url": "https://docs.example/mcp"}},
}


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": "x = 1\n"})
    return repo


def _config(path: Path) -> dict[str, object]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_readmes_snippet_is_what_install_writes_with_a_bare_command() -> None:
    [block] = file_blocks("opencode.json")
    assert oc.with_ours({}, ["agent-guard"]) == json.loads(block.text)


def test_install_writes_the_projects_file_with_the_absolute_program(project: Repo) -> None:
    sub = project.root / "src"
    sub.mkdir()
    done = run_cli(sub, "install", "opencode")
    path = project.root / "opencode.json"
    assert done.code == 0 and done.stdout.startswith(f"wrote {path}: the MCP server agent-guard runs"), done.stdout
    assert "bash tool is not guarded" in done.stdout and "keep it out of commits" in done.stdout
    written = _config(path)
    assert written == oc.with_ours({}, install.this_program())
    command = written["mcp"]["agent-guard"]["command"]  # type: ignore[index]
    assert Path(command[0]).is_absolute() and command[-3:] == ["mcp", "--agent", "opencode"]
    again = run_cli(project.root, "install", "opencode")
    assert again.code == 0 and again.stdout == f"already installed: {path}\n"
    assert _config(path) == written


def test_install_keeps_the_users_settings_and_says_what_it_replaced(project: Repo) -> None:
    path = project.root / "opencode.json"
    path.write_text(json.dumps(MINE), encoding="utf-8")
    done = run_cli(project.root, "install", "opencode")
    assert done.code == 0 and '(replaced: permission.edit was "ask")' in done.stdout, done.stdout
    written = _config(path)
    assert written["model"] == MINE["model"] and written["$schema"] == MINE["$schema"]
    assert written["permission"] == {"edit": "deny", "bash": {"git push*": "deny"}}
    assert set(written["mcp"]) == {"docs", "agent-guard"}  # type: ignore[arg-type]
    assert list(written) == list(MINE)  # the user's order of keys
    removed = run_cli(project.root, "uninstall", "opencode")
    assert removed.code == 0 and removed.stdout == f"removed agent-guard's MCP server and the edit deny from {path}\n"
    mine_again = {**MINE, "permission": {"bash": {"git push*": "deny"}}}
    assert _config(path) == mine_again  # the deny goes with the server ("ask" was said at the install)
    assert run_cli(project.root, "uninstall", "opencode").stdout == f"not installed: {path}\n"


def test_uninstall_removes_the_file_it_made_and_leaves_a_deny_of_the_users_own(project: Repo) -> None:
    path = project.root / "opencode.json"
    assert run_cli(project.root, "install", "opencode").code == 0
    assert run_cli(project.root, "uninstall", "opencode").code == 0
    assert not path.exists()
    own = {"permission": {"edit": "deny"}}  # no agent-guard server: the user's own choice
    path.write_text(json.dumps(own), encoding="utf-8")
    assert run_cli(project.root, "uninstall", "opencode").stdout == f"not installed: {path}\n"
    assert _config(path) == own


def test_user_scope_is_opencodes_global_file(project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    done = run_cli(project.root, "install", "opencode", "--user")
    path = tmp_path / "xdg" / "opencode" / "opencode.json"
    assert done.code == 0 and done.stdout.startswith(f"wrote {path}:") and "commits" not in done.stdout, done.stdout
    assert _config(path) == oc.with_ours({}, install.this_program())
    assert not (project.root / "opencode.json").exists()
    assert run_cli(project.root, "uninstall", "opencode", "--user").code == 0 and not path.exists()


def test_print_writes_nothing(project: Repo) -> None:
    done = run_cli(project.root, "install", "opencode", "--print")
    assert done.code == 0 and json.loads(done.stdout) == oc.with_ours({}, install.this_program())
    assert not (project.root / "opencode.json").exists()


@pytest.mark.parametrize(
    "text,why",
    [
        ('{"mcp": {}, // mine\n}', "is not JSON"),
        ("[1]", "holds a JSON list, not an object"),
        ('{"mcp": []}', '"mcp" is a list, not an object'),
        ('{"permission": "ask"}', '"permission" is a str, not an object'),
    ],
)
def test_a_file_it_cannot_merge_is_left_as_it_is(project: Repo, text: str, why: str) -> None:
    path = project.root / "opencode.json"
    path.write_text(text, encoding="utf-8")
    for args in (("install", "opencode"), ("uninstall", "opencode")):
        done = run_cli(project.root, *args)
        assert done.code == 2 and why in done.stderr and "left as it is" in done.stderr, done.stderr
        assert path.read_text(encoding="utf-8") == text


def test_a_jsonc_file_beside_it_is_named(project: Repo) -> None:
    (project.root / "opencode.jsonc").write_text('{\n  // mine\n  "model": "x/y"\n}\n', encoding="utf-8")
    done = run_cli(project.root, "install", "opencode")
    assert done.code == 0 and "opencode.jsonc after it" in done.stdout, done.stdout
