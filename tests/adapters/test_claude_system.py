"""The real Claude Code (``claude_harness.VERSION``) with the hooks `agent-guard install claude-code`
writes, driven headless against a scripted model (``anthropic_fake``): no model, no account.

What is proven, scenario by scenario, with Claude Code's own tools: a placeholder and a protected
path are denied with the reason in the tool result the model reads, a clean edit is applied and
recorded, a shell (Bash) edit is recorded, and a rollback undoes one turn and keeps the other.  The
hooks are the default form (``hook.py --start-server``): the first call starts the user's server,
which answers the calls of the second session; the cold form (``--cold``) is run too.  Skipped when
Claude Code cannot be had (no npm, no network).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Iterator

import anthropic_fake as fake
import claude_harness as harness
import pytest
from conftest import Repo, checkout_env, run_cli

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

APP = (
    "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
CLEAN = APP.replace("    n = 0\n", "    n = 0  # running sum\n")
SHELL = "sed -i 's/return total(items) \\/ len(items)/return total(items) \\/ max(len(items), 1)/' app.py"


@pytest.fixture(scope="module")
def claude() -> Path:
    exe = harness.program(install=True)
    if exe is None:
        pytest.skip(f"Claude Code {harness.VERSION} cannot be had here (npm, or the network, is missing)")
    return exe


@pytest.fixture
def stopped(tmp_path: Path) -> Iterator[None]:
    """Stop the server the hooks started (a server of any home answers --stop)."""
    yield
    subprocess.run(
        [sys.executable, "-m", "guard", "serve", "--stop"], env=checkout_env(), capture_output=True, timeout=120, check=False
    )


def session(claude: Path, repo: Repo, home: Path, steps: list[fake.Step], prompt: str) -> list[fake.Result]:
    """One `claude -p` session on `repo` whose model follows `steps`; what the model was shown for each tool call."""
    script = fake.Script(steps)
    with fake.serving(script) as url:
        ran = harness.print_(claude, repo.root, harness.environment(home, url, checkout_env()), prompt, timeout=240)
    assert ran.code == 0 and ran.result().get("result") == "done", ran
    return script.results()


def edits(repo: Repo) -> list[fake.Step]:
    app, T = str(repo.root / "app.py"), fake.Tool
    return [
        fake.calls(T("Read", {"file_path": app})),
        fake.calls(T("Edit", {"file_path": app, "old_string": "    n = 0\n", "new_string": "    # ... existing code ...\n"})),
        fake.calls(T("Write", {"file_path": str(repo.root / ".github" / "workflows" / "ci.yml"), "content": "on: push\n"})),
        fake.calls(T("Edit", {"file_path": app, "old_string": "    n = 0\n", "new_string": "    n = 0  # running sum\n"})),
        fake.Say("done"),
    ]


@pytest.mark.parametrize("form", ["default", "cold"])
def test_claude_code_with_the_installed_hooks(claude: Path, repo: Repo, tmp_path: Path, form: str, stopped: None) -> None:
    repo.commit({"app.py": APP})
    home = tmp_path / "claude-home"
    installed = run_cli(repo.root, "install", "claude-code", *(["--cold"] if form == "cold" else []))
    assert installed.code == 0 and "wrote" in installed.stdout, installed

    # The first session: a placeholder, a protected path, then a clean edit.
    read, placeholder, protected, clean = session(claude, repo, home, edits(repo), "tidy app.py")
    assert not read.is_error and not clean.is_error, (read, clean)
    assert placeholder.is_error and placeholder.text.startswith("PreToolUse:Edit hook error: agent-guard refused this edit")
    assert "app.py:2: placeholder" in placeholder.text, placeholder
    assert protected.is_error and "path-protected" in protected.text and ".github/workflows/**" in protected.text, protected
    assert repo.read("app.py").decode() == CLEAN
    assert not (repo.root / ".github").exists()

    # The second: a shell edit.
    [shell] = session(claude, repo, home, [fake.calls(fake.Tool("Bash", {"command": SHELL})), fake.Say("done")], "guard mean")
    assert not shell.is_error, shell
    assert repo.read("app.py").decode() == CLEAN.replace("/ len(items)", "/ max(len(items), 1)")

    turns = run_cli(repo.root, "log", "--agent", "claude", "--json").json()["turns"]  # type: ignore[index]
    assert [(t["format"], [f["path"] for f in t["files"]]) for t in turns] == [("shell", ["app.py"]), ("json", ["app.py"])]
    # Rolling back the first session's turn keeps the second's.
    undone = run_cli(repo.root, "rollback", "--agent", "claude", "--turn", turns[1]["id"])
    assert undone.code == 0, undone
    assert repo.read("app.py").decode() == APP.replace("/ len(items)", "/ max(len(items), 1)")

    if form == "default":  # the first call started the user's server; the second session's calls were its
        as_claude = checkout_env({"HOME": str(home)})  # the server took the home of the hooks that started it
        status = subprocess.run(
            [sys.executable, "-m", "guard", "serve", "--status"], env=as_claude, capture_output=True, text=True, timeout=60
        )
        assert status.returncode == 0 and "ends after 1800 s without a call" in status.stdout, status
        log = (Path(checkout_env()["XDG_RUNTIME_DIR"]) / "agent-guard" / "server.log").read_text()
        assert "unix call, PreToolUse: exit 0" in log and "unix call, PostToolUse: exit 0" in log, log
