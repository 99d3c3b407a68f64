"""`git agent-X ARGS` is `agent-guard X ARGS` for every command X: each is installed as a `git-agent-X`
program (pyproject.toml), with its man page, and answers --version.

Before, only five were installed, and `git agent-stats`, `git agent-gc` said "not a git command"
while the README promised every one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BIN, Repo, checkout_env, command

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def _scripts() -> dict[str, str]:
    section = PYPROJECT.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([a-z-]+) = "([^"]+)"', section, re.M))


def _commands() -> list[str]:
    from guard.cli.commands import cli, load_all

    load_all()
    return sorted(cli.commands)


def test_every_command_is_a_git_command() -> None:
    scripts = _scripts()
    for name in _commands():
        assert scripts.get(f"git-agent-{name}") == "guard.cli.program:git", (
            f'`git agent-{name}` is not installed: add git-agent-{name} = "guard.cli.program:git" to '
            "[project.scripts] in pyproject.toml, then run PYTHONPATH=. python scripts/gen_manpages.py"
        )
    extra = {n for n in scripts if n.startswith("git-agent-")} - {f"git-agent-{n}" for n in _commands()}
    assert not extra, f"scripts for no command: {extra}"
    for name in scripts:
        page = f"man/man1/{name}.1"
        assert (ROOT / page).is_file() and f'"{page}"' in PYPROJECT, f"{page} is not written or not installed"


def _as_git_command(cwd: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The `git-agent-NAME` program, run as pip installs it (its name is all it is told)."""
    code = f"import sys; sys.argv[0] = {f'/somewhere/bin/git-agent-{name}'!r}; from guard.cli.program import git; git()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=checkout_env(), timeout=120, check=False
    )


@pytest.mark.parametrize("name", _commands())
def test_each_git_command_has_a_version(repo: Repo, name: str) -> None:
    r = _as_git_command(repo.root, name, "--version")
    assert r.returncode == 0 and r.stdout.startswith("agent-guard, version "), r


def test_a_git_command_runs_its_command(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    stats = _as_git_command(repo.root, "stats")
    assert stats.returncode == 0 and "agent-guard stats" in stats.stdout, stats
    usage = _as_git_command(repo.root, "gc")
    assert usage.returncode == 2 and "Usage: git agent-gc" in usage.stderr, usage
    odd = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'agent-x'; from guard.cli.program import git; git()"],
        capture_output=True,
        text=True,
        env=checkout_env(),
        timeout=120,
        check=False,
    )
    assert odd.returncode == 2 and "names no git-agent-X command" in odd.stderr


def test_installed_git_commands_run_through_git(repo: Repo) -> None:
    """Through git itself, where this environment has the programs installed (a fresh `pip install .`)."""
    missing = [n for n in _commands() if not (BIN / f"git-agent-{n}").exists()]
    if missing:
        pytest.skip(f"this environment was installed before these programs existed: {missing[:3]}...")
    for name in _commands():
        r = command(repo.root, "git", f"agent-{name}", "--version")
        assert r.returncode == 0 and r.stdout.startswith(b"agent-guard, version"), (name, r)


def test_shell_completion_as_the_readme_sets_it_up(repo: Repo) -> None:
    """`eval "$(_AGENT_GUARD_COMPLETE=bash_source agent-guard)"` (README): commands, options and values complete."""
    env = {"_AGENT_GUARD_COMPLETE": "bash_source"}
    source = command(repo.root, "agent-guard", env=env)
    assert source.returncode == 0 and b"_agent_guard_completion()" in source.stdout, source
    for words, cword, want in (
        ("agent-guard sh", 1, "plain,show"),
        ("agent-guard log --tu", 2, "plain,--turn"),
        ("agent-guard apply --format co", 3, "plain,codex"),
        ("agent-guard policy l", 2, "plain,list"),
    ):
        r = command(
            repo.root,
            "agent-guard",
            env={"_AGENT_GUARD_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)},
        )
        assert want in r.stdout.decode().splitlines(), (words, r)


def test_a_git_group_command_fails_in_json_when_asked(repo: Repo) -> None:
    """`git agent-policy show --json` with a usage error still prints the one JSON object."""
    r = _as_git_command(repo.root, "policy", "show", "--policy", "strct", "--json")
    assert r.returncode == 2 and "did you mean 'strict'" in r.stderr, r
    import json

    doc = json.loads(r.stdout)
    assert doc["status"] == "error" and doc["findings"][0]["code"] == "usage", doc
