"""The click command `read` (`git agent-read`): a file as hashline-tagged numbered lines.

The work is ``guard.hashline_read.read``; this reads the arguments and prints.
"""

from __future__ import annotations

import sys

import click

from ..hashline_read import Unreadable, parse_lines, read
from ..report import EXIT_REFUSED
from .commands import CONTEXT, cli


@cli.command("read", context_settings=CONTEXT)
@click.argument("path")
@click.option("--lines", "span", default=None, metavar="A:B",
              help="Only lines A to B (1-based, inclusive); A: runs to the end, :B starts at the top.")
@click.option("--agent", default=None, help="Agent the read is recorded for (default: $AGENT_GUARD_AGENT, else 'agent').")
def read_cmd(path: str, span: str | None, agent: str | None) -> None:
    """Print PATH as numbered lines under a [PATH#TAG] header, for hashline edits.

    Edit the lines by number under the same header (git agent-apply):

    \b
        [src/app.py#1a2b3c4d]
        replace 12..14
        +new line 12
        insert after 40
        +added line
        delete 50..51

    The edit applies only to the content this read showed (TAG), and only to lines
    it showed.  Exit status: 0 printed, 1 the file cannot be shown, 2 usage error.
    """
    from ..engine import Guard

    try:
        lines = parse_lines(span) if span is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--lines") from None
    g = Guard(".")
    try:
        click.echo(read(g, path, lines, agent), nl=False)
    except Unreadable as exc:
        from ..render import finding_text

        click.echo(finding_text(exc.finding), err=True)
        sys.exit(EXIT_REFUSED)
