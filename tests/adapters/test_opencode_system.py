"""The real OpenCode (``opencode_harness.VERSION``) guarded through agent-guard's MCP server, driven
headless against a scripted model (``responses_fake``, Chat Completions): no model, no account.

With the README's ``opencode.json`` as it stands there: a clean edit and a new file through the
MCP tools are applied and recorded as turns, a placeholder and a protected path are refused with
the reason in the tool result the model reads, OpenCode's own edit tool is not offered and its
edit does not land, and `git agent-rollback` undoes one turn; a shell edit (OpenCode's bash tool)
lands unchecked and unrecorded, which the set-up leaves open.  With what `agent-guard install
opencode --user` writes: the same denials, for a model OpenCode gives its own apply_patch.  Under
`agent-guard run`: the shell's edit is recorded as a turn.  Skipped when OpenCode cannot be had
(no npm, no network).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import opencode_harness as harness
import pytest
import responses_fake as fake
from conftest import Repo, checkout_env
from readme import file_blocks

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

APP = (
    "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
MEAN, SAFE = "    return total(items) / len(items)\n", "    return total(items) / max(len(items), 1)\n"


@pytest.fixture(scope="module")
def opencode() -> Path:
    exe = harness.program(install=True)
    if exe is None:
        pytest.skip(f"OpenCode {harness.VERSION} cannot be had here (npm, or the network, is missing)")
    return exe


def _readme_config() -> str:
    [block] = file_blocks("opencode.json")
    return block.text


def _git(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def test_opencode_with_the_readmes_config(opencode: Path, repo: Repo, tmp_path: Path) -> None:
    repo.commit({"app.py": APP, "opencode.json": _readme_config()})
    script = fake.Script(
        [
            fake.Call("agent-guard_read_file", {"path": "app.py"}),
            fake.Call(
                "agent-guard_edit_file",
                {"path": "app.py", "edits": [{"old_string": "    n = 0\n", "new_string": "    # ... existing code ...\n"}]},
            ),
            fake.Call("agent-guard_write_file", {"path": ".github/workflows/ci.yml", "content": "on: push\n"}),
            fake.Call("agent-guard_edit_file", {"path": "app.py", "edits": [{"old_string": MEAN, "new_string": SAFE}]}),
            fake.Call("agent-guard_write_file", {"path": "notes/new.txt", "content": "hello\n"}),
            fake.Call("edit", {"filePath": str(repo.root / "app.py"), "oldString": "n = 0", "newString": "n = 2"}),
            fake.Shell("sed -i 's/n = 0/n = 1/' app.py && echo edited"),
            fake.Say("done"),
        ]  # fmt: skip
    )
    with fake.serving(script) as url:
        env = harness.environment(tmp_path / "opencode-home", url, base=checkout_env())
        ran = harness.run(opencode, repo.root, env, timeout=300)
    assert ran.code == 0, ran
    offered = {t["function"]["name"] for t in script.requests[-1]["tools"]}
    assert {"agent-guard_edit_file", "agent-guard_write_file", "bash"} <= offered and not offered & {"edit", "write"}, offered
    _read, placeholder, protected, clean, new, own_edit, shell = _said(script)
    assert "refused" in placeholder and "app.py:2: placeholder" in placeholder, placeholder
    assert "refused" in protected and "path-protected" in protected, protected
    assert "applied" in clean and "turn 1 of opencode" in clean, clean
    assert "applied" in new and "turn 2 of opencode" in new, new
    assert "unavailable tool 'edit'" in own_edit, own_edit
    assert "edited" in shell, shell
    # What landed: the two MCP edits and the shell's, unchecked; not the refused ones, not OpenCode's own edit.
    assert repo.read("app.py").decode() == APP.replace(MEAN, SAFE).replace("n = 0", "n = 1")
    assert repo.read("notes/new.txt") == b"hello\n" and not (repo.root / ".github").exists()

    log = _git(repo.root, env, "agent-log", "--agent", "opencode", "--json")
    assert log.returncode == 0, log
    turns = json.loads(log.stdout)["turns"]
    # The shell's edit is not among them: the MCP set-up does not see it (the README says so).
    assert [[f["path"] for f in t["files"]] for t in turns] == [["notes/new.txt"], ["app.py"]], turns
    assert [t["format"] for t in turns] == ["json", "json"], turns

    back = _git(repo.root, env, "agent-rollback", "--agent", "opencode")
    assert back.returncode == 0, back
    assert not (repo.root / "notes").exists()  # turn 2 undone...
    assert repo.read("app.py").decode() == APP.replace(MEAN, SAFE).replace("n = 0", "n = 1")  # ...turn 1 and the shell's kept


def _said(script: fake.Script) -> list[str]:
    """What the model was shown for each of its tool calls, in the order it made them."""
    outputs = script.outputs()
    return [outputs[k] for k in sorted(outputs, key=lambda k: int(k.split("_")[1]))]  # the fake numbers its calls


def test_opencode_with_what_install_user_writes(opencode: Path, repo: Repo, tmp_path: Path) -> None:
    # A "gpt-" model: OpenCode offers it its own apply_patch instead of edit and write.
    repo.commit({"app.py": APP})
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-    n = 0\n+    n = 2\n*** End Patch\n"
    script = fake.Script(
        [
            fake.Call("agent-guard_read_file", {"path": "app.py"}),
            fake.Call(
                "agent-guard_edit_file",
                {"path": "app.py", "edits": [{"old_string": "    n = 0\n", "new_string": "    # ... existing code ...\n"}]},
            ),
            fake.Call("apply_patch", {"patchText": patch}),
            fake.Say("done"),
        ]  # fmt: skip
    )
    with fake.serving(script) as url:
        env = harness.environment(tmp_path / "opencode-home", url, base=checkout_env(), model="gpt-5.5")
        installed = subprocess.run(
            ["agent-guard", "install", "opencode", "--user"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=120
        )
        config = tmp_path / "opencode-home" / ".config" / "opencode" / "opencode.json"
        assert installed.returncode == 0 and installed.stdout.startswith(f"wrote {config}:"), installed
        assert json.loads(config.read_text())["provider"], "the user's provider settings are kept"
        ran = harness.run(opencode, repo.root, env, timeout=300)
    assert ran.code == 0, ran
    offered = {t["function"]["name"] for t in script.requests[-1]["tools"]}
    assert "agent-guard_edit_file" in offered and not offered & {"apply_patch", "edit", "write"}, offered
    _read, placeholder, own_patch = _said(script)
    assert "refused" in placeholder and "app.py:2: placeholder" in placeholder, placeholder
    assert "unavailable tool 'apply_patch'" in own_patch, own_patch
    assert repo.read("app.py").decode() == APP


def test_a_shell_edit_is_recorded_under_agent_guard_run(opencode: Path, repo: Repo, tmp_path: Path) -> None:
    # The MCP set-up does not see OpenCode's bash tool; `agent-guard run` records what it changed.
    repo.commit({"app.py": APP, "opencode.json": _readme_config()})
    script = fake.Script(
        [
            fake.Call("agent-guard_write_file", {"path": "notes/new.txt", "content": "hello\n"}),
            fake.Shell("sed -i 's/n = 0/n = 1/' app.py && echo edited"),
            fake.Say("done"),
        ]
    )
    with fake.serving(script) as url:
        env = harness.environment(tmp_path / "opencode-home", url, base=checkout_env())
        ran = harness.run(opencode, repo.root, env, wrap=["agent-guard", "run", "--agent", "opencode", "--"], timeout=300)
    assert ran.code == 0, ran
    new, shell = _said(script)
    assert "turn 1 of opencode" in new and "edited" in shell, (new, shell)
    log = _git(repo.root, env, "agent-log", "--agent", "opencode", "--json")
    turns = json.loads(log.stdout)["turns"]
    # The MCP call's turn once (run does not count it again), and the shell's change as run's turn.
    assert [([f["path"] for f in t["files"]], t["format"]) for t in turns] == [(["app.py"], "shell"), (["notes/new.txt"], "json")]
    back = _git(repo.root, env, "agent-rollback", "--agent", "opencode")
    assert back.returncode == 0, back
    assert repo.read("app.py").decode() == APP and repo.read("notes/new.txt") == b"hello\n"
