"""The click command `read` (`git agent-read`): a file as hashline-tagged numbered lines.

The work is ``guard.pipeline.hashline_read.shown``; this reads the arguments and prints.
"""

from __future__ import annotations

import sys

import click

from ..report import EXIT_REFUSED
from .base import CONTEXT, in_a_repository


@click.command("read", context_settings=CONTEXT)
@click.argument("path")
@click.option(
    "--lines",
    "span",
    default=None,
    metavar="A:B",
    help="Only lines A to B (1-based, inclusive); A: runs to the end, :B starts at the top.",
)
@click.option("--agent", default=None, help="Agent the read is recorded for (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object: {version, path, header, tag, first, last, total, lines: [{line, text}]}.",
)
def read_cmd(path: str, span: str | None, agent: str | None, as_json: bool) -> None:
    """Edit the lines by number under the same header (git agent-apply):

    \b
        [src/app.py#1a2b3c4d]
        replace 12..14
        +new line 12
        insert after 40
        +added line
        delete 50..51

    The edit applies only to the content this read showed (TAG), and only to lines
    it showed.  A file that cannot be shown is a finding on standard output (with
    --json, the report's JSON).  Exit status: 0 printed, 1 the file cannot be shown,
    2 usage error.
    """
    in_a_repository()
    from ..pipeline.engine import Guard
    from ..pipeline.hashline_read import Unreadable, parse_lines, shown

    try:
        lines = parse_lines(span) if span is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--lines") from None
    g = Guard(".")
    g.recover()
    try:
        seen = shown(g, path, lines, agent)
    except Unreadable as exc:
        if as_json:
            from ..report import Report

            click.echo(Report("refused", None, findings=(exc.finding,)).to_json())
        else:
            from ..report.render import finding_text
            from .terminal import colour

            click.echo(finding_text(exc.finding, colour(sys.stdout)))
        sys.exit(EXIT_REFUSED)
    if as_json:
        import json

        click.echo(json.dumps(seen.as_dict(), ensure_ascii=False))
    else:
        click.echo(seen.text(), nl=False)
