"""The click command `stats`: edit outcomes per agent and dialect, as a table, JSON or an HTML page.

The work is ``guard.turns.stats`` (aggregate, render_text, render_html); this reads the
arguments, the event log, and writes.
"""

from __future__ import annotations

import click

from ..bounds import EVENTS, OutOfRange
from ..turns.stats import MIN_EVENTS, aggregate, parse_since, render_html, render_text
from .base import CONTEXT, InRange, in_a_repository, open_guard


@click.command("stats", context_settings=CONTEXT)
@click.option("--agent", default=None, metavar="NAME", help="Only this agent (default: every agent).")
@click.option(
    "--since",
    default=None,
    metavar="DATE",
    help="Only events from DATE on: 2026-01-31, an ISO time, or an age (7d, 12h; at most 100 years).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
@click.option(
    "--html",
    "html_file",
    default=None,
    type=click.Path(dir_okay=False, writable=True),
    help="Also write a static page (charts per agent, viewable offline) to FILE.",
)
@click.option(
    "--min-events",
    type=InRange(EVENTS),
    default=MIN_EVENTS,
    show_default=True,
    help=f"Edits a dialect needs before it can be recommended ({EVENTS.range_text()}).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress, and no note that the page was written.")
def stats_cmd(agent: str | None, since: str | None, as_json: bool, html_file: str | None, min_events: int, quiet: bool) -> None:
    """Read from the log every apply and check writes (.git/agent-guard/events.jsonl).
    The recommended dialect is the one with the best landing rate among those with
    at least --min-events edits; ties go to the one that needs fewer repairs.
    """
    in_a_repository()
    from ..report import events
    from .terminal import Progress

    try:
        cutoff = parse_since(since) if since else None
    except OutOfRange as exc:
        raise click.BadParameter(str(exc), param_hint="--since") from None
    except ValueError:
        raise click.BadParameter(
            f"{str(since)[:40]!r} is not a date: use 2026-01-31, 2026-01-31T12:00 or an age "
            "(a whole number and a unit m, h, d or w, from 1m to 100 years) such as 7d",
            param_hint="--since",
        ) from None
    g = open_guard()
    progress = Progress("agent-guard stats: reading the event log", quiet)
    try:
        result = aggregate(events.read(g.repo.commondir, cutoff, progress), agent, min_events)
    finally:
        progress.end()
    result["log"] = str(events.log_dir(g.repo.commondir) / events.LOG)
    result["agent"] = agent
    result["since"] = cutoff.isoformat() if cutoff else None
    if html_file:
        from pathlib import Path

        target = Path(html_file)
        tmp = target.with_name(target.name + ".tmp")
        try:
            tmp.write_text(render_html(result), encoding="utf-8")
            tmp.replace(target)
        except OSError as exc:
            raise click.UsageError(f"cannot write {html_file}: {exc.strerror}") from None
        if not quiet:
            click.echo(f"agent-guard: wrote {html_file}", err=True)
    if as_json:
        import json

        click.echo(json.dumps(result, ensure_ascii=False))
    else:
        click.echo(render_text(result), nl=False)
