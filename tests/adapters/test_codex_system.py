"""The real Codex CLI (``codex_harness.VERSION``) with the hooks `agent-guard install codex` writes,
driven headless against a scripted model (``responses_fake``): no model, no account.

What is proven, scenario by scenario, with Codex's own tools and without
``--dangerously-bypass-hook-trust`` (so the trust `install` writes is what makes the hooks run):
a clean apply_patch is applied and recorded, a shell edit is recorded, a placeholder and a
protected path are denied with the reason in the tool output the model reads, and a rollback
undoes the turn.  Skipped when Codex cannot be had (no npm, no network).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import codex_harness as harness
import pytest
import responses_fake as fake
from codex_patches import CLEAN, PLACEHOLDER, PROTECTED
from codex_patches import SRC as APP
from conftest import Repo, checkout_env, run_cli

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

SHELL = "sed -i 's/n = 0/n = 1/' app.py && echo edited"


@pytest.fixture(scope="module")
def codex() -> Path:
    exe = harness.program(install=True)
    if exe is None:
        pytest.skip(f"Codex {harness.VERSION} cannot be had here (npm, or the network, is missing)")
    return exe


def test_codex_with_the_installed_hooks(codex: Path, repo: Repo, tmp_path: Path) -> None:
    repo.commit({"app.py": APP})
    script = fake.Script([fake.Patch(PLACEHOLDER), fake.Patch(PROTECTED), fake.Patch(CLEAN), fake.Shell(SHELL), fake.Say("done")])
    with fake.serving(script) as url:
        config, env = harness.home(codex, tmp_path / "codex", url, base=checkout_env())
        installed = subprocess.run(
            ["agent-guard", "install", "codex", "--user"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0 and f"wrote {config}" in installed.stdout, installed
        ran = harness.exec_(codex, repo.root, env, timeout=240)
    assert ran.code == 0, ran
    placeholder, protected, clean, shell = (script.outputs()[k] for k in sorted(script.outputs(), key=_order))
    assert "Success. Updated the following files" in clean, clean
    assert "edited" in shell, shell
    assert placeholder.startswith("Command blocked by PreToolUse hook: agent-guard refused this edit"), placeholder
    assert "placeholder" in placeholder and "app.py:2" in placeholder, placeholder
    assert protected.startswith("Command blocked by PreToolUse hook:") and "path-protected" in protected, protected
    assert repo.read("app.py").decode() == APP.replace("n = 0", "n = 1").replace("/ len(items)", "/ max(len(items), 1)")
    assert not (repo.root / ".github").exists()
    log = run_cli(repo.root, "log", "--agent", "codex", "--json")
    files = {f["path"] for t in log.json()["turns"] for f in t["files"]}  # type: ignore[union-attr,index]
    assert files == {"app.py", "notes/new.txt"}, log
    assert {t["format"] for t in log.json()["turns"]} <= {"codex", "shell"}  # type: ignore[union-attr,index]
    for _turn in log.json()["turns"]:  # type: ignore[union-attr,index]
        assert run_cli(repo.root, "rollback", "--agent", "codex").code == 0
    assert repo.read("app.py").decode() == APP and not (repo.root / "notes").exists()


def _order(call_id: str) -> int:
    return int(call_id.split("_")[1])  # the fake numbers its calls as the requests come


def test_project_scope_runs_once_the_project_is_trusted(codex: Path, repo: Repo, tmp_path: Path) -> None:
    repo.commit({"app.py": APP})
    script = fake.Script([fake.Patch(PLACEHOLDER), fake.Say("done")])
    with fake.serving(script) as url:
        config, env = harness.home(codex, tmp_path / "codex", url, base=checkout_env())
        installed = subprocess.run(
            ["agent-guard", "install", "codex"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0 and "only in a trusted project" in installed.stdout, installed
        with config.open("a") as f:  # what `codex exec --trust` or the TUI's question records
            f.write(f'\n[projects.{json.dumps(str(repo.root))}]\ntrust_level = "trusted"\n')
        ran = harness.exec_(codex, repo.root, env, timeout=240)
    assert ran.code == 0, ran
    [said] = script.outputs().values()
    assert said.startswith("Command blocked by PreToolUse hook: agent-guard refused this edit") and "placeholder" in said, said
    assert repo.read("app.py").decode() == APP
