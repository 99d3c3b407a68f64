"""Write man/man1/git-agent-*.1 and man/man1/agent-guard.1 from the CLI's own help text.

`git agent-apply --help` makes git run `man git-agent-apply`, so the pages must
exist; pip installs them under <prefix>/share/man/man1, which man finds from PATH.
agent-guard.1 holds every command (`stats`, `gc`, `policy`, `mcp`... have no git
subcommand).  Run after changing a command's help; tests/test_manpages.py checks
they are current.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("apply", "check", "log", "rollback", "read")


def _escape(text: str) -> str:
    out = []
    for line in text.splitlines():
        line = line.replace("\\", "\\\\")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def render(name: str) -> str:
    from guard.cli.commands import _load_more, cli

    _load_more()
    cmd = cli.commands[name]
    ctx = click.Context(cmd, info_name=f"git agent-{name}", terminal_width=80, max_content_width=80)
    help_text = cmd.get_help(ctx)
    summary = (cmd.get_short_help_str(80) or name).replace("\\", "\\\\")
    return (
        f'.TH GIT-AGENT-{name.upper()} 1 "" "agent-guard" "agent-guard manual"\n'
        f".SH NAME\ngit-agent-{name} \\- {summary}\n"
        f".SH SYNOPSIS\n.nf\n{_escape(help_text)}\n.fi\n"
        f".SH SEE ALSO\n.BR agent-guard (1): \\fBgit agent-{name} ARGS\\fR is \\fBagent-guard {name} ARGS\\fR.\n"
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
    from guard.cli.commands import _load_more, cli

    _load_more()
    ctx = click.Context(cli, info_name="agent-guard", terminal_width=80, max_content_width=80)
    summary = (cli.help or "agent-guard").splitlines()[0].replace("\\", "\\\\")
    git_names = ", ".join(f"\\fBgit-agent-{name}\\fR(1)" for name in COMMANDS)
    return (
        '.TH AGENT-GUARD 1 "" "agent-guard" "agent-guard manual"\n'
        f".SH NAME\nagent-guard \\- {summary}\n"
        f".SH SYNOPSIS\n.nf\n{_escape(cli.get_help(ctx))}\n.fi\n"
        ".SH COMMANDS\n" + "".join(_sections(cli, "agent-guard"))
        + f".SH SEE ALSO\n{git_names}: \\fBgit agent-X ARGS\\fR is \\fBagent-guard X ARGS\\fR.\n"
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
