"""The agent's own harness settings are control files (issue 37 §1), and the rest of what an agent
could write to switch the guard off later (§4: a nested repository by git's own rule, command keys,
a bare repository's hooks).

A sweep of harness-settings spellings (case, `./`, depth, ignorable characters, a folder not yet
there, links), each sent through every way in: `agent-apply`, the Claude Code hook, the MCP
server, and a shell turn.  Each is refused as `path-protected` naming `paths.control_editable`
(a link: `path-outside`), and leaves the tree, index, HEAD and refs as they were; a shell turn
under `shell.on_violation: revert` is put back.  Names that only look alike still pass.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, git, run_cli

SETTINGS = '{"disableAllHooks": true, "env": {"AGENT_GUARD_POLICY": "permissive"}}\n'

# Every file an agent harness or editor reads hooks, permissions, MCP servers, tasks or commands from.
SPELLINGS = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    "./.claude/settings.json",
    ".CLAUDE/Settings.json",
    ".Claude/settings.local.json",
    ".claude/commands/deploy.md",
    ".claude/agents/reviewer.md",
    ".claude/skills/s/SKILL.md",
    "sub/.claude/settings.json",
    "a/b/c/.claude/settings.local.json",
    ".cl\u200baude/settings.json",
    ".claude./settings.json",
    ".mcp.json",
    ".MCP.JSON",
    "packages/web/.mcp.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".gemini/settings.json",
    ".gemini/commands/x.toml",
    ".cursor/hooks.json",
    ".cursor/mcp.json",
    ".cursor/rules/r.mdc",
    ".github/hooks/hooks.json",
    ".github/hooks/guard.json",
    ".github/copilot/settings.json",
    ".github/copilot/settings.local.json",
    "opencode.json",
    "opencode.jsonc",
    "sub/opencode.json",
    ".opencode/plugin/p.js",
    ".aider.conf.yml",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".vscode/launch.json",
    ".vscode/mcp.json",
    "app.code-workspace",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
    ".envrc",
    "sub/.envrc",
    "mise.toml",
    ".zed/tasks.json",
    ".continue/config.yaml",
    ".windsurf/hooks.json",
    ".kiro/hooks/h.json",
    ".roo/mcp.json",
    ".clinerules/hooks/pre",
    ".amazonq/mcp.json",
]
# Names near those that control nothing: agents edit them as any file.
HARMLESS = [
    "claude/settings.json",
    "docs/.claude.md",
    "settings.json",
    "src/mcp.json",
    "envrc.txt",
    ".github/hooks.md",
    ".github/copilot-instructions.md",
    "opencode.md",
    ".vscodeignore",
    "notes/vscode/tasks.json",
    "workspace.code",
]


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"a.txt": "one\n", "src/app.py": "x = 1\n"})
    return repo


def _codes(report: dict[str, object]) -> set[str]:
    return {f["code"] for f in report["findings"]}  # type: ignore[index, union-attr]


def _apply(repo: Repo, path: str, content: str = SETTINGS) -> tuple[int, dict[str, object]]:
    result = run_cli(repo.root, "apply", "--json", input=json.dumps({"file_path": path, "content": content}))
    return result.code, result.json()


def _hook(repo: Repo, tool: str, tool_input: dict[str, str]) -> tuple[int, str]:
    data = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    result = run_cli(repo.root, "hook", "claude-code", input=json.dumps(data))
    return result.code, result.stderr


def _mcp(repo: Repo, path: str) -> str:
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server
    from guard.pipeline.engine import Guard

    result = mcp_server.Session(Guard(repo.root), "model").call("write_file", {"path": path, "content": SETTINGS})
    assert result.error, (path, result.text)
    return result.text


def _shell(repo: Repo, path: str) -> dict[str, object]:
    folder = os.path.dirname(path) or "."
    script = f"mkdir -p '{folder}' && printf '%s' '{SETTINGS.strip()}' > '{path}'"
    out = repo.root / ".." / "shell-report.json"
    result = run_cli(repo.root, "run", "--report", str(out), "--", "sh", "-c", script)
    assert result.code == 1, (path, result)
    return json.loads(out.read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", SPELLINGS)
def test_a_harness_setting_is_refused_through_every_way_in(project: Repo, path: str) -> None:
    before = project.snapshot()
    code, report = _apply(project, path)
    assert code == 1 and _codes(report) == {"path-protected"}, report
    finding = report["findings"][0]  # type: ignore[index]
    assert "control file" in finding["message"] and "control_editable" in finding["hint"], finding
    assert project.snapshot() == before

    code, said = _hook(project, "Write", {"file_path": str(project.root / path), "content": SETTINGS})
    assert code == 2 and "path-protected" in said and "control_editable" in said, said
    assert project.snapshot() == before

    assert "path-protected" in _mcp(project, path)
    assert project.snapshot() == before


@pytest.mark.parametrize("path", SPELLINGS)
def test_a_shell_command_that_writes_one_is_refused_and_put_back(project: Repo, path: str) -> None:
    project.commit({".agent-guard.yaml": "shell: {on_violation: revert}\n"})
    before = project.snapshot()
    report = _shell(project, path)
    assert "path-protected" in _codes(report), report
    after = project.snapshot()  # the turn and its revert are recorded on the ledger: refs aside
    assert {k: v for k, v in after.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}


@pytest.mark.parametrize("path", [".claude/settings.json", ".vscode/tasks.json", ".mcp.json", ".envrc"])
def test_an_existing_one_is_refused_in_every_operation(project: Repo, path: str) -> None:
    project.commit({path: '{"hooks": {}}\n'})
    before = project.snapshot()
    edits = [
        {"file_path": path, "old_string": '{"hooks": {}}', "new_string": "{}"},
        f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n",
        f"diff --git a/{path} b/moved\nsimilarity index 100%\nrename from {path}\nrename to moved\n",
    ]
    for edit in edits:
        text = edit if isinstance(edit, str) else json.dumps(edit)
        result = run_cli(project.root, "apply", "--json", input=text)
        assert result.code == 1 and "path-protected" in _codes(result.json()), result
        assert project.snapshot() == before
    code, said = _hook(project, "Edit", {"file_path": path, "old_string": '{"hooks": {}}', "new_string": "{}"})
    assert code == 2 and "path-protected" in said, said


def test_through_a_link_to_the_folder_or_the_file(project: Repo) -> None:
    project.commit({".claude/settings.json": "{}\n"})
    os.symlink(".claude", project.root / "cfg")
    os.symlink(".claude/settings.json", project.root / "s.json")
    before = project.snapshot()
    for path in ("cfg/settings.json", "cfg/settings.local.json", "s.json"):
        code, report = _apply(project, path)
        assert code == 1 and _codes(report) & {"path-outside", "path-protected"}, report
        code, said = _hook(project, "Write", {"file_path": str(project.root / path), "content": SETTINGS})
        assert code == 2, said
    assert project.snapshot() == before


@pytest.mark.parametrize("path", HARMLESS)
def test_names_that_only_look_alike_pass(project: Repo, path: str) -> None:
    code, report = _apply(project, path, "{}\n")
    assert code == 0, report


def test_the_user_can_let_agents_edit_one(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "paths:\n  control_editable: ['/.vscode/settings.json']\n"})
    assert _apply(project, ".vscode/settings.json", "{}\n")[0] == 0
    assert _apply(project, ".vscode/tasks.json", "{}\n")[0] == 1


def test_a_commit_that_changes_one_is_reported(project: Repo) -> None:
    project.write({".claude/settings.json": "{}\n"})
    project.git("add", "-A")
    result = run_cli(project.root, "check", "--json")
    found = {(f["path"], f["code"]) for f in result.json()["findings"]}  # type: ignore[union-attr]
    assert (".claude/settings.json", "path-protected") in found, result


# ---------------------------------------------------------------- CI files and secrets, in every preset
CI_AND_SECRETS = [
    ".circleci/config.yml",
    ".travis.yml",
    "Jenkinsfile",
    "azure-pipelines.yml",
    ".buildkite/pipeline.yml",
    ".github/actions/setup/action.yml",
    "deploy/id_ed25519",
    "home/.ssh/id_ed25519.pub",
    "certs/client.p12",
    ".npmrc",
    "web/.npmrc",
    ".pypirc",
    ".netrc",
]


@pytest.mark.parametrize("preset", ["default", "strict", "permissive"])
def test_ci_files_and_secrets_are_protected(project: Repo, preset: str) -> None:
    project.commit({".agent-guard.yaml": f"extends: {preset}\n"})
    for path in CI_AND_SECRETS:
        code, report = _apply(project, path, "x\n")
        found = {(f["code"], f["severity"]) for f in report["findings"]}  # type: ignore[index, union-attr]
        if preset == "permissive":
            assert ("path-protected", "warning") in found, (path, report)
        else:
            assert code == 1 and ("path-protected", "error") in found, (path, report)


# ---------------------------------------------------------------- §4: a repository by git's own rule
def _git_dir_from(folder: Path) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir"], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )
    return out.stdout.strip()


def test_a_refs_file_with_the_execute_bit_makes_a_repository(project: Repo) -> None:
    """git asks only that `refs` (and `objects`) can be entered: an executable file will do."""
    diff = (
        "diff --git a/inner/HEAD b/inner/HEAD\nnew file mode 100644\n--- /dev/null\n+++ b/inner/HEAD\n"
        "@@ -0,0 +1 @@\n+ref: refs/heads/main\n"
        "diff --git a/inner/objects/info/x b/inner/objects/info/x\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/inner/objects/info/x\n@@ -0,0 +1 @@\n+x\n"
        "diff --git a/inner/refs b/inner/refs\nnew file mode 100755\n--- /dev/null\n+++ b/inner/refs\n"
        "@@ -0,0 +1 @@\n+x\n"
        "diff --git a/inner/config b/inner/config\nnew file mode 100644\n--- /dev/null\n+++ b/inner/config\n"
        "@@ -0,0 +2 @@\n+[core]\n+\tpager = touch pwned\n"
    )
    before = project.snapshot()
    result = run_cli(project.root, "apply", "--json", input=diff)
    assert result.code == 1 and "path-protected" in _codes(result.json()), result
    assert project.snapshot() == before
    # What git finds once those files are there, written by hand:
    project.write({"inner/HEAD": "ref: refs/heads/main\n", "inner/objects/info/x": "x\n", "inner/refs": "x\n"})
    refs = project.root / "inner" / "refs"
    refs.chmod(refs.stat().st_mode | stat.S_IXUSR)
    assert _git_dir_from(project.root / "inner") == str((project.root / "inner").resolve())
    # Without the execute bit git finds ours, and so does the rule.
    refs.chmod(0o644)
    assert _git_dir_from(project.root / "inner") == str((project.root / ".git").resolve())
    shutil.rmtree(project.root / "inner")
    assert run_cli(project.root, "apply", "--json", input=diff.replace("100755", "100644")).code == 0


def test_an_edit_beside_an_executable_refs_file_already_there(project: Repo) -> None:
    project.write({"inner/objects/x": "", "inner/refs": ""})
    (project.root / "inner" / "refs").chmod(0o755)
    before = project.snapshot()
    code, report = _apply(project, "inner/HEAD", "ref: refs/heads/main\n")
    assert code == 1 and "path-protected" in _codes(report), report
    assert project.snapshot() == before


# ---------------------------------------------------------------- §4: command keys
COMMAND_KEYS = [
    ("gpg.ssh.defaultKeyCommand", "tools/key.sh", "tools/key.sh"),
    ("core.alternateRefsCommand", "tools/refs.sh", "tools/refs.sh"),
    ("sendemail.sendmailCmd", "tools/mail.sh", "tools/mail.sh"),
    ("sendemail.work.sendmailCmd", "tools/mail2.sh", "tools/mail2.sh"),
    ("diff.conv.textconv", "python3 -m pkg.conv", "pkg/conv.py"),
    ("diff.conv.textconv", "python3 -m pkg.conv", "pkg/__init__.py"),
    ("diff.conv.textconv", "python3 -mpkg.conv", "pkg/conv/__main__.py"),
    ("filter.x.clean", "python -m json.tool", "json/__init__.py"),
]


@pytest.mark.parametrize("key,value,path", COMMAND_KEYS, ids=[f"{k}:{p}" for k, _v, p in COMMAND_KEYS])
def test_a_program_these_keys_run_is_a_control_file(project: Repo, key: str, value: str, path: str) -> None:
    project.git("config", key, value)
    before = project.snapshot()
    code, report = _apply(project, path, "print('pwned')\n")
    assert code == 1 and _codes(report) == {"path-protected"}, report
    assert project.snapshot() == before


def test_a_module_beside_the_one_run_is_not_named(project: Repo) -> None:
    project.git("config", "diff.conv.textconv", "python3 -m pkg.conv")
    assert _apply(project, "pkg/other.py", "x = 1\n")[0] == 0


# ---------------------------------------------------------------- §4: a bare repository's hooks
def test_the_hook_denies_a_write_into_a_bare_repositorys_hooks(project: Repo, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    before = sorted(p.name for p in (remote / "hooks").iterdir())
    for target in (remote / "hooks" / "post-receive", remote / "config", remote / "hooks" / "new" / "x"):
        code, said = _hook(project, "Write", {"file_path": str(target), "content": "#!/bin/sh\ntouch pwned\n"})
        assert code == 2 and "path-protected" in said and "git directory" in said, said
    # Relative to the session's folder, and another clone's .git too.
    code, said = _hook(project, "Write", {"file_path": "../remote.git/hooks/pre-receive", "content": "x"})
    assert code == 2, said
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    code, said = _hook(project, "Write", {"file_path": str(other / ".git" / "hooks" / "pre-commit"), "content": "x"})
    assert code == 2, said
    assert sorted(p.name for p in (remote / "hooks").iterdir()) == before


def test_a_write_outside_every_repository_is_left_to_claude_code(project: Repo, tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    code, said = _hook(project, "Write", {"file_path": str(tmp_path / "plain" / "notes.txt"), "content": "x"})
    assert code == 0, said


@pytest.mark.parametrize(
    "path",
    [
        ".claude/settings.json",
        ".claude.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".copilot/hooks/agent-guard.json",
        ".copilot/settings.json",
        ".cursor/hooks.json",
        ".config/opencode/opencode.json",
        ".gitconfig",
        ".config/git/config",
        ".config/git/attributes",
    ],
)
def test_the_hook_denies_the_users_own_settings_outside_the_repository(project: Repo, tmp_path: Path, path: str) -> None:
    """`~/.claude/settings.json` switches the hooks off for every project: no repository holds it."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    code, said = _hook(project, "Write", {"file_path": str(home / path), "content": SETTINGS})
    assert code == 2 and "path-protected" in said, said
    assert not (home / path).exists()
