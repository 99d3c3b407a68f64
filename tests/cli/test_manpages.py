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
    from guard.cli.commands import cli, load_all

    load_all()
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


def _rendered(page: Path) -> str:
    """`page` as a reader sees it: through man (else groff, else nroff), overstrikes and hyphenation undone."""
    env = dict(
        command_env(
            {
                "MANPAGER": "cat",
                "PAGER": "cat",
                "MANWIDTH": "100",
                "LANG": "C.UTF-8",
                "LC_ALL": "C.UTF-8",
                "MAN_KEEP_FORMATTING": "",
            }
        )
    )
    for argv in (["man", "-l", str(page)], ["groff", "-man", "-Tutf8", "-rLL=100n", str(page)], ["nroff", "-man", str(page)]):
        if shutil.which(argv[0]) is None:
            continue
        proc = subprocess.run(argv, capture_output=True, env=env, timeout=60, check=False)
        if proc.returncode == 0 and proc.stdout.strip():
            text = proc.stdout.decode("utf-8", "replace")
            text = __import__("re").sub(r".\x08", "", text)  # bold and underline by overstriking
            return text.replace("\u2010", "-").replace("\u2212", "-")
    pytest.skip("no man, groff or nroff here to render the pages with")


def _section(text: str, name: str) -> str:
    """The words of section `name` of a rendered page, on one line (lines joined, words split by a
    hyphenated line end put back together)."""
    lines = text.splitlines()
    start = lines.index(name) + 1
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace()), len(lines))
    body = "\n".join(line.strip() for line in lines[start:end])
    body = __import__("re").sub(r"-\n(?=\S)", "-", body)
    return " ".join(body.split())


@pytest.mark.parametrize("name", gen_manpages.COMMANDS)
def test_rendered_pages_read_right(name: str) -> None:
    """Rendered, NAME says the whole first sentence of the help, and SEE ALSO reads as words
    (it once read `agent-guard(1):gitagent-applyARGSisagent-guardapplyARGS`, its NAME cut with "...")."""
    page = ROOT / "man" / "man1" / f"git-agent-{name}.1"
    text = _rendered(page)
    summary = " ".join(gen_manpages.summary(gen_manpages._command(name)).split())
    assert _section(text, "NAME") == f"git-agent-{name} - {summary}", _section(text, "NAME")
    assert "..." not in _section(text, "NAME")
    assert _section(text, "SEE ALSO") == f"agent-guard(1) git agent-{name} ARGS is agent-guard {name} ARGS."


def test_rendered_main_page_names_every_git_page() -> None:
    text = _rendered(ROOT / "man" / "man1" / "agent-guard.1")
    see_also = _section(text, "SEE ALSO")
    assert see_also.endswith("git agent-X ARGS is agent-guard X ARGS."), see_also
    for name in gen_manpages.COMMANDS:
        assert f"git-agent-{name}(1)" in see_also, (name, see_also)
    assert _section(text, "NAME").startswith("agent-guard - Validate coding agents' edits")
