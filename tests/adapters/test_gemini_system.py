"""The real Gemini CLI (``gemini_harness.VERSION``) with the hooks `agent-guard install gemini` writes,
driven headless against a scripted model (``gemini_fake``): no model, no account.

What is proven, scenario by scenario, with Gemini's own tools: a clean replace and a new file are
written and recorded, a placeholder and a protected path are denied with the reason in the tool
response the model reads, a shell edit is recorded, and a rollback undoes one turn, then the
rest; the project's settings work as the user's do; two shell commands Gemini runs side by side
are each recorded (their hooks paired without an id); and a hook whose program is gone denies.
Skipped when Gemini CLI cannot be had (no npm, no network).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import gemini_fake as fake
import gemini_harness as harness
import pytest
from conftest import Repo, checkout_env, run_cli

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

APP = (
    "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n\n\n"
    "def mean(items):\n    return total(items) / len(items)\n"
)
OLD = "    return total(items) / len(items)\n"
NEW = "    return total(items) / max(len(items), 1)\n"
SHELL = "sed -i 's/n = 0/n = 1/' app.py && echo edited"


@pytest.fixture(scope="module")
def gemini() -> Path:
    exe = harness.program(install=True)
    if exe is None:
        pytest.skip(f"Gemini CLI {harness.VERSION} cannot be had here (npm, or the network, is missing)")
    return exe


def _steps(root: Path) -> list[fake.Step]:
    def replace(old: str, new: str) -> fake.Call:
        args = {"file_path": str(root / "app.py"), "instruction": "edit", "old_string": old, "new_string": new}
        return fake.Call("replace", args)

    return [
        replace("    n = 0\n", "    # ... existing code ...\n"),
        fake.Call("write_file", {"file_path": str(root / ".github" / "workflows" / "ci.yml"), "content": "on: push\n"}),
        replace(OLD, NEW),
        fake.Call("write_file", {"file_path": "notes/new.txt", "content": "hello\n"}),  # relative, as models write them
        fake.Call("run_shell_command", {"command": SHELL, "description": "edit app.py with sed"}),
        fake.Say("done"),
    ]


def _install(repo: Repo, env: dict[str, str], *flags: str) -> str:
    done = subprocess.run(
        ["agent-guard", "install", "gemini", *flags], cwd=repo.root, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done
    return done.stdout


def _turns(repo: Repo) -> list[dict[str, object]]:
    log = run_cli(repo.root, "log", "--agent", "gemini", "--json")
    assert log.code == 0, log
    return log.json()["turns"]  # type: ignore[no-any-return,index]


def test_gemini_with_the_installed_hooks(gemini: Path, repo: Repo, tmp_path: Path) -> None:
    repo.commit({"app.py": APP})
    script = fake.Script(_steps(repo.root))
    with fake.serving(script) as url:
        settings, env = harness.home(tmp_path / "home", url, base=checkout_env())
        said = _install(repo, env, "--user")
        assert f"wrote {settings}" in said, said
        ran = harness.run(gemini, repo.root, env)
    assert ran.code == 0, ran
    placeholder, protected, clean, created, shell = script.responses()
    assert placeholder[0] == "replace" and "error" in placeholder[1], placeholder
    assert placeholder[1]["error"].startswith("Tool execution blocked: agent-guard refused this edit"), placeholder
    assert "placeholder" in placeholder[1]["error"] and "app.py:2" in placeholder[1]["error"], placeholder
    assert protected[0] == "write_file" and "path-protected" in protected[1]["error"], protected
    assert clean == ("replace", {"output": clean[1]["output"]}) and "Successfully modified" in clean[1]["output"], clean
    assert "error" not in created[1] and "error" not in shell[1] and "edited" in shell[1]["output"], (created, shell)
    assert repo.read("app.py").decode() == APP.replace("n = 0", "n = 1").replace(OLD, NEW)
    assert repo.read("notes/new.txt") == b"hello\n" and not (repo.root / ".github").exists()
    log = _turns(repo)
    assert [(t["format"], [f["path"] for f in t["files"]]) for t in log] == [  # type: ignore[attr-defined]
        ("shell", ["app.py"]),
        ("whole", ["notes/new.txt"]),
        ("json", ["app.py"]),
    ], log
    # One turn, the shell's, undone: the replace before it stays; then the others, one by one.
    assert run_cli(repo.root, "rollback", "--agent", "gemini").code == 0
    assert repo.read("app.py").decode() == APP.replace(OLD, NEW) and (repo.root / "notes" / "new.txt").exists()
    for turn in log[1:]:  # newest first
        assert run_cli(repo.root, "rollback", "--agent", "gemini", "--turn", str(turn["id"])).code == 0
    assert repo.read("app.py").decode() == APP and not (repo.root / "notes").exists()


def test_project_scope_with_the_users_own_hook(gemini: Path, repo: Repo, tmp_path: Path) -> None:
    repo.commit({"app.py": APP})
    script = fake.Script([_steps(repo.root)[0], fake.Say("done")])
    with fake.serving(script) as url:
        _settings, env = harness.home(tmp_path / "home", url, base=checkout_env())
        said = _install(repo, env)
        assert f"wrote {repo.root / '.gemini' / 'settings.json'}" in said and "keep it out of commits" in said, said
        ran = harness.run(gemini, repo.root, env)
    assert ran.code == 0, ran
    [(tool, response)] = script.responses()
    assert tool == "replace" and "placeholder" in response["error"], response
    assert repo.read("app.py").decode() == APP


def test_side_by_side_shell_commands_are_each_recorded(gemini: Path, repo: Repo, tmp_path: Path) -> None:
    """Two commands in one answer: Gemini runs them side by side, each hook pair meets its own."""
    repo.commit({"app.py": APP})
    both = fake.Together(
        (
            fake.Call("run_shell_command", {"command": "sleep 1; echo one > one.txt", "description": "one"}),
            fake.Call("run_shell_command", {"command": "echo two > two.txt", "description": "two"}),
        )
    )
    script = fake.Script([both, fake.Say("done")])
    with fake.serving(script) as url:
        _settings, env = harness.home(tmp_path / "home", url, base=checkout_env())
        _install(repo, env, "--user")
        ran = harness.run(gemini, repo.root, env)
    assert ran.code == 0, ran
    said = script.responses()
    assert [tool for tool, _ in said] == ["run_shell_command", "run_shell_command"], said
    assert not [r for _, r in said if "error" in r or "hook_context" in str(r)], said  # nothing said of a missing record
    assert {f["path"] for t in _turns(repo) for f in t["files"]} == {"one.txt", "two.txt"}  # type: ignore[attr-defined]


def test_a_hook_program_that_is_gone_blocks_every_edit(gemini: Path, repo: Repo, tmp_path: Path) -> None:
    """The wrapper `install` writes, with its program gone (a venv removed): Gemini denies."""
    repo.commit({"app.py": APP})
    script = fake.Script([_steps(repo.root)[2], fake.Say("done")])
    with fake.serving(script) as url:
        settings, env = harness.home(tmp_path / "home", url, base=checkout_env())
        _install(repo, env, "--user")
        program = str(Path(checkout_env()["PATH"].split(":")[0]) / "agent-guard")
        settings.write_text(settings.read_text().replace(program, str(tmp_path / "removed" / "agent-guard")))
        ran = harness.run(gemini, repo.root, env)
    assert ran.code == 0, ran
    [(tool, response)] = script.responses()
    assert response["error"].startswith("Tool execution blocked: "), response
    assert "agent-guard could not run (exit 127), so nothing was checked" in response["error"], response
    assert repo.read("app.py").decode() == APP
