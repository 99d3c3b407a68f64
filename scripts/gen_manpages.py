"""Write man/man1/git-agent-*.1 and man/man1/agent-guard.1 from the CLI's own help text.

`git agent-apply --help` makes git run `man git-agent-apply`, so the pages must
exist; pip installs them under <prefix>/share/man/man1, which man finds from PATH.
One page per `git-agent-X` script pyproject.toml installs (every command), and
agent-guard.1 with every command.  Run after changing a command's help (with
PYTHONPATH=. from the checkout); tests/cli/test_manpages.py checks they are current,
and renders them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]


def _git_commands() -> tuple[str, ...]:
    """The git subcommands pip installs: the `git-agent-X` scripts pyproject.toml names, in its order."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    return tuple(name.removeprefix("git-agent-") for name in scripts if name.startswith("git-agent-"))


COMMANDS = _git_commands()
# No hyphenation, ragged right: a word (`input/output`, an option) is never split at a line end.
_LAYOUT = ".nh\n.ad l\n"


def _escape(text: str) -> str:
    out = []
    for line in text.splitlines():
        line = line.replace("\\", "\\\\")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def _command(name: str) -> click.Command:
    from guard.cli.commands import cli, load_all

    load_all()
    cmd = cli.get_command(click.Context(cli), name)  # as the program finds it (--version and all)
    assert cmd is not None, name
    return cmd


def summary(cmd: click.Command) -> str:
    """The NAME line's description: the first paragraph of the command's help, whole (click's short
    help cuts it at 45 characters with "...")."""
    first = (cmd.help or "").strip().split("\n\n")[0]
    return " ".join(first.split()).replace("\\", "\\\\")


def render(name: str) -> str:
    cmd = _command(name)
    ctx = click.Context(cmd, info_name=f"git agent-{name}", terminal_width=80, max_content_width=80)
    help_text = cmd.get_help(ctx)
    return (
        f'.TH GIT-AGENT-{name.upper()} 1 "" "agent-guard" "agent-guard manual"\n{_LAYOUT}'
        f".SH NAME\ngit-agent-{name} \\- {summary(cmd) or name}\n"
        f".SH SYNOPSIS\n.nf\n{_escape(help_text)}\n.fi\n"
        ".SH SEE ALSO\n.BR agent-guard (1)\n.PP\n"
        f"\\fBgit agent-{name} ARGS\\fR is \\fBagent-guard {name} ARGS\\fR.\n"
    )


def _sections(cmd: click.Command, path: str) -> list[str]:
    """One `.SS` section of help per command under `cmd` (subcommands of a group too)."""
    out: list[str] = []
    for name in sorted(getattr(cmd, "commands", {})):
        sub = cmd.commands[name]  # type: ignore[attr-defined]
        ctx = click.Context(sub, info_name=f"{path} {name}", terminal_width=80, max_content_width=80)
        out.append(f".SS {path} {name}\n.nf\n{_escape(sub.get_help(ctx))}\n.fi\n")
        out.extend(_sections(sub, f"{path} {name}"))
    return out


def render_main() -> str:
    """agent-guard.1: the program's help, then every command's."""
    from guard.cli.commands import cli, load_all

    load_all()
    for name in list(cli.commands):
        _command(name)  # every command as the program finds it (--version and all)
    ctx = click.Context(cli, info_name="agent-guard", terminal_width=80, max_content_width=80)
    summary = (cli.help or "agent-guard").splitlines()[0].replace("\\", "\\\\")
    git_pages = ",\n".join(f".BR git-agent-{name} (1)" for name in COMMANDS)
    return (
        '.TH AGENT-GUARD 1 "" "agent-guard" "agent-guard manual"\n' + _LAYOUT + f".SH NAME\nagent-guard \\- {summary}\n"
        f".SH SYNOPSIS\n.nf\n{_escape(cli.get_help(ctx))}\n.fi\n"
        ".SH COMMANDS\n"
        + "".join(_sections(cli, "agent-guard"))
        + f".SH SEE ALSO\n{git_pages}\n.PP\n\\fBgit agent-X ARGS\\fR is \\fBagent-guard X ARGS\\fR.\n"
    )


def main() -> int:
    out = ROOT / "man" / "man1"
    out.mkdir(parents=True, exist_ok=True)
    for name in COMMANDS:
        (out / f"git-agent-{name}.1").write_text(render(name))
    (out / "agent-guard.1").write_text(render_main())
    return 0


if __name__ == "__main__":
    sys.exit(main())
