"""Write man/man1/git-agent-*.1 from the CLI's own help text.

`git agent-apply --help` makes git run `man git-agent-apply`, so the pages must
exist; pip installs them under <prefix>/share/man/man1, which man finds from PATH.
Run after changing a command's help; tests/test_manpages.py checks they are current.
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
    from guard.cli import _load_more, cli

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


def main() -> int:
    out = ROOT / "man" / "man1"
    out.mkdir(parents=True, exist_ok=True)
    for name in COMMANDS:
        (out / f"git-agent-{name}.1").write_text(render(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
