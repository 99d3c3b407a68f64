"""The click commands on recorded turns: `log`, `show`, `rollback`, `gc` and `session`.

Each reads the shadow refs (``guard.record``) and prints what it found; `rollback` undoes
a turn through the same all-or-nothing write as `apply`.
"""

from __future__ import annotations

import os
import sys

import click

from ..bounds import KEEP, TURNS
from .base import CONTEXT, InRange, emit, in_a_repository, open_guard
from .terminal import colour


@click.command("log", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Only this agent's turns (default: all agents).")
@click.option("--clone", default=None, metavar="NAME", help="Only the turns recorded in this clone (fetched from it).")
@click.option("--local", is_flag=True, help="Only this clone's own turns, none fetched from other clones.")
@click.option("--turn", "turn_id", default=None, metavar="ID", help="Only the turn of this id (of each agent that has one).")
@click.option("--session", default=None, metavar="ID", help="Only the turns of this session (Claude Code's session id, ...).")
@click.option("--all-worktrees", is_flag=True, help="The turns of every worktree of the repository, each marked with its own.")
@click.option("-p", "--patch", is_flag=True, help="Show each turn's diff.")
@click.option("-n", "--max-count", type=InRange(TURNS), default=None, help=f"At most this many turns ({TURNS.range_text()}).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: {version, turns}.")
@click.option("-q", "--quiet", is_flag=True, help="No diffs, even with -p (as git log --quiet).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
def log_cmd(
    agent: str | None,
    clone: str | None,
    local: bool,
    turn_id: str | None,
    session: str | None,
    all_worktrees: bool,
    patch: bool,
    max_count: int | None,
    as_json: bool,
    quiet: bool,
    policy: str | None,
) -> None:
    """This worktree's turns (--all-worktrees: every worktree's), and those fetched from
    other clones (agent-guard fetch), shown as AGENT@CLONE.  `agent-guard show ID` shows
    one turn with its diff.
    """
    in_a_repository()
    from ..turns import history

    g = open_guard(policy)
    patch = patch and not quiet
    listing = history.Listing(max_count, clone, local, turn_id, session, all_worktrees)
    turns = history.log(g, agent, listing, patch)
    if turn_id is not None and not turns:
        history.one_turn(g, turn_id, agent, patch)  # says whose turns there are, as a usage error
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "turns": turns}, ensure_ascii=False))
    elif not turns:
        from ..pipeline.engine import default_agent

        who = default_agent(agent) if agent else ""
        click.echo(
            history.no_turns(g, who, g.policy(agent).ledger_prefix, "log")
            if who
            else "no recorded turns: no agent has any in this repository yet; an applied edit records one"
        )
    else:
        _paged(history.render(turns, patch, colour=colour(sys.stdout), worktrees=all_worktrees))


@click.command("show", context_settings=CONTEXT)
@click.argument("turn_id", metavar="ID")
@click.option("--agent", default=None, help="Whose turn (default: the one agent that has a turn of this id).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: {version, turns} with the one turn.")
@click.option("-q", "--quiet", "--no-patch", is_flag=True, help="Leave the diff out (as git show --no-patch).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
def show_cmd(turn_id: str, agent: str | None, as_json: bool, quiet: bool, policy: str | None) -> None:
    """The same as `git agent-log --turn ID -p`.  A protected file's contents are left
    out of the diff, as in log.
    """
    in_a_repository()
    from ..turns import history

    turns = history.one_turn(open_guard(policy), turn_id, agent, patch=not quiet)
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "turns": turns}, ensure_ascii=False))
    else:
        _paged(history.render(turns, not quiet, colour=colour(sys.stdout)))


def _paged(text: str) -> None:
    from .terminal import page

    page(text)


@click.command("rollback", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Whose turn (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--turn", "turn_id", default=None, help="Undo this one turn, keeping later changes.")
@click.option("--to", "to_id", default=None, help="Undo every turn after this one.")
@click.option("--clone", default=None, metavar="NAME", help="With --turn: that turn of another clone, fetched here.")
@click.option("--commit", default=None, metavar="REV", help="Undo the turn recorded at this commit (this clone's or fetched).")
@click.option("--session", default=None, metavar="ID", help="Undo this session's last turn, leaving other sessions' turns.")
@click.option("--check", is_flag=True, help="Show what would happen; change nothing.")
@click.option("--force", is_flag=True, help="Undo even where later changes overlap (they are lost).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the report.")
@click.option("--diff", "show_diff", is_flag=True, help="Also print the diff that was (or would be) written.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing unless the rollback is refused.")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
def rollback_cmd(
    agent: str | None,
    turn_id: str | None,
    to_id: str | None,
    clone: str | None,
    commit: str | None,
    session: str | None,
    check: bool,
    force: bool,
    as_json: bool,
    show_diff: bool,
    quiet: bool,
    policy: str | None,
) -> None:
    """Only this worktree's turns are undone.  A turn recorded in another clone and fetched
    here (agent-guard fetch) is undone with --clone NAME --turn ID, or --commit REV; the
    rollback is recorded as this clone's.  The report names the turns undone; it goes to
    standard output, refused or not.
    """
    in_a_repository()
    from ..turns.rollback import Asked, rollback

    if turn_id and to_id:
        raise click.UsageError("give --turn or --to, not both")
    report = rollback(open_guard(policy), agent, Asked(turn_id, to_id, clone, commit, session), check=check, force=force)
    sys.exit(emit(report, as_json, show_diff, quiet))


@click.command("gc", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Only this agent (default: all).")
@click.option(
    "--keep",
    type=InRange(KEEP),
    default=None,
    help=f"Keep this many newest turns per agent ({KEEP.range_text()}; 0 drops every turn).",
)
@click.option(
    "--older-than",
    "older",
    default=None,
    metavar="AGE",
    help="Drop turns older than this: a number and a unit (s, m, h, d, w), e.g. 30d, 12h; at most 100 years.",
)
@click.option(
    "--include-pushed", is_flag=True, help="Also drop turns that were pushed (a fetched copy holds them); kept otherwise."
)
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
def gc_cmd(
    agent: str | None, keep: int | None, older: str | None, include_pushed: bool, dry_run: bool, quiet: bool, policy: str | None
) -> None:
    """Turns that were pushed stay (a fetched copy holds them), unless --include-pushed."""
    in_a_repository()
    from ..turns.prune import gc

    if keep is None and older is None:
        raise click.UsageError("give --keep N and/or --older-than AGE")
    said = gc(open_guard(policy), agent, keep, older, include_pushed=include_pushed, dry_run=dry_run)
    if not quiet or dry_run:
        click.echo(said)


@click.command("session", context_settings=CONTEXT)
@click.option("--agent", default=None, help="The agent whose session it is (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option(
    "--end",
    "end_it",
    is_flag=True,
    help="End the agent's command-line session: its next turn starts a new one, its per_session budget at zero.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--policy", default=None, help="Preset name or policy file whose per_session budget is shown.")
def session_cmd(agent: str | None, end_it: bool, as_json: bool, policy: str | None) -> None:
    """budget.per_session counts over a session: the turns of $AGENT_GUARD_SESSION when
    it is set; else, from the command line, every turn since the last `session --end`
    (the Claude Code hook counts per Claude Code session, the MCP server per server).
    """
    in_a_repository()
    from ..pipeline.engine import default_agent
    from ..record import ledger, sessions

    g = open_guard(policy)
    name = default_agent(agent)
    if end_it:
        if os.environ.get("AGENT_GUARD_SESSION"):
            raise click.UsageError("$AGENT_GUARD_SESSION names the session: unset it, or set it to a new name")
        sessions.end(g.repo.gitdir, name)
    current = g.session(name)
    pol = g.policy(name)
    _, used = ledger.usage(g.repo, ledger.ref_for(g.repo, pol.ledger_prefix, name), name, None, current, memo=g.ledger_memo)
    limits = {k: v for k, v in pol.budget("per_session").items() if v is not None}
    source = "environment" if sessions.clean(os.environ.get("AGENT_GUARD_SESSION") or "") else "command line"
    if as_json:
        import json

        click.echo(
            json.dumps({"agent": name, "session": current, "source": source, "ended": end_it, "used": used, "limits": limits})
        )
        return
    if end_it:
        click.echo(f"ended {name}'s session; the next turn starts session {current}")
        return
    click.echo(f"{name}: session {current} ({'$AGENT_GUARD_SESSION' if source == 'environment' else 'command line'})")
    for key, value in used.items():
        limit = limits.get(key)
        click.echo(f"  {key}: {value:,}" + (f" of {limit:,}" if limit is not None else ""))
