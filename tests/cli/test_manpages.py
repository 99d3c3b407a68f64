"""`git agent-X --help` makes git open `man git-agent-X`: the pages ship and are current."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_manpages  # noqa: E402
from conftest import command_env  # noqa: E402


@pytest.mark.parametrize("name", gen_manpages.COMMANDS)
def test_pages_are_current(name: str) -> None:
    """Every option of the command is in its page (exact layout varies with click's version)."""
    from guard.cli.commands import cli

    page = (ROOT / "man" / "man1" / f"git-agent-{name}.1").read_text()
    cmd = cli.get_command(__import__("click").Context(cli), name)
    assert cmd is not None
    for param in cmd.params:
        for opt in getattr(param, "opts", []):
            if opt.startswith("-"):
                assert opt in page, f"{opt} missing from git-agent-{name}.1: run python scripts/gen_manpages.py"
    assert f"git-agent-{name}" in page


def _commands(group, path: str):  # type: ignore[no-untyped-def]
    for name, cmd in sorted(group.commands.items()):
        yield f"{path} {name}", cmd
        yield from _commands(cmd, f"{path} {name}") if hasattr(cmd, "commands") else ()


def test_agent_guard_page_has_every_command() -> None:
    """agent-guard.1 documents every command, those without a git subcommand (stats, gc...) too."""
    from guard.cli.commands import _load_more, cli

    _load_more()
    page = (ROOT / "man" / "man1" / "agent-guard.1").read_text()
    seen = []
    for path, cmd in _commands(cli, "agent-guard"):
        assert f".SS {path}\n" in page, f"{path} missing from agent-guard.1: run python scripts/gen_manpages.py"
        section = page.split(f".SS {path}\n", 1)[1].split(".SS ", 1)[0]
        for param in cmd.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert opt in section, f"{opt} of {path} missing from agent-guard.1: run python scripts/gen_manpages.py"
        seen.append(path)
    assert "agent-guard stats" in seen and "agent-guard policy show" in seen
    assert "--min-events" in page.split(".SS agent-guard stats\n", 1)[1]
    pyproject = (ROOT / "pyproject.toml").read_text()
    for page_file in sorted((ROOT / "man" / "man1").glob("*.1")):
        assert f'"man/man1/{page_file.name}"' in pyproject, f"{page_file.name} is not installed (pyproject data-files)"


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_git_help_flags_work(repo, flag: str) -> None:  # type: ignore[no-untyped-def]
    installed = Path(sys.prefix) / "share" / "man" / "man1" / "git-agent-apply.1"
    if flag == "--help" and (shutil.which("man") is None or not installed.exists()):
        pytest.skip("man pages are not installed in this environment (editable install or no man)")
    env = command_env({"MANPAGER": "cat", "PAGER": "cat", "GIT_PAGER": "cat", "MANWIDTH": "100"})
    env.pop("MANPATH", None)
    proc = subprocess.run(["git", "agent-apply", flag], cwd=repo.root, capture_output=True, env=env, timeout=60, check=False)
    out = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0, proc.stderr
    assert "agent-apply" in out and "--format" in out
