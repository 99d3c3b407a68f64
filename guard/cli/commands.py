"""The click group `agent-guard` and its commands (those named in ``LAZY`` live elsewhere).

Every command builds a value (usually a ``Report``) and renders it (guard/render.py);
exceptions become exit statuses in ``main`` alone (``failure.failure_status``): 2 for
usage errors (click's and ours), 3 for anything unexpected.  The programs enter
through ``program.run`` (``git-agent-X`` is ``agent-guard X``), which reads a plain
`apply`, `check` or `hook claude-code` without click (``fast``: the commands here
run the same functions).
"""

from __future__ import annotations

import sys
from typing import ClassVar, NoReturn, Sequence

import click

from ..bounds import KEEP, TURNS, Bound, OutOfRange
from ..model import Value
from ..report import EXIT_USAGE
from .fast import DIALECT_CHOICES, emit, read_input, run_apply, whole_without_input

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Invocation(Value):
    """What the program's edge tells a command (click's ``ctx.obj``)."""

    # ``program.run`` ends the process after the command: what the command holds may go with it.
    __slots__ = ("process_ends",)
    _fields: ClassVar[tuple[str, ...]] = __slots__
    process_ends: bool

    def __init__(self, process_ends: bool = False) -> None:
        self._init(process_ends)


def process_ends() -> bool:
    """True when the process ends after the running command (``main(process_ends=True)``)."""
    ctx = click.get_current_context(silent=True)
    invocation = ctx.find_object(Invocation) if ctx is not None else None
    return invocation is not None and invocation.process_ends


class InRange(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 on; 8.1 is supported
    """A number option held to its range (``guard.bounds``): out of it, a usage error naming the range."""

    def __init__(self, bound: Bound, metavar: str = "N") -> None:
        self.bound = bound
        self.name = "integer" if bound.whole else "number"
        self.metavar = metavar

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return self.metavar

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int | float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # a default, already a number
            problem = self.bound.problem(value)
            if problem is None:
                return value
            self.fail(problem, param, ctx)
        try:
            return self.bound.read(str(value))
        except OutOfRange as exc:
            self.fail(str(exc), param, ctx)


def _guard(policy: str | None = None):  # type: ignore[no-untyped-def]
    from ..engine import Guard

    return Guard(".", policy)


def _emit(report, as_json: bool, show_diff: bool = False) -> NoReturn:  # type: ignore[no-untyped-def]
    sys.exit(emit(report, as_json, show_diff))


# Commands that live in their own modules, imported only when named (or listed):
# start-up pays for click and this file, not for every command.
LAZY = {
    "check": "guard.cli.check",
    "install-hook": "guard.cli.check",
    "uninstall-hook": "guard.cli.check",
    "read": "guard.cli.read",
    "push": "guard.cli.remote",
    "fetch": "guard.cli.remote",
    "hook": "guard.cli.adapters",
    "stats": "guard.cli.stats",
    "mcp": "guard.cli.adapters",
    "run": "guard.cli.run",
    "serve": "guard.cli.serve",
}


LAZY_HELP = {
    "check": "Check what is being committed, or each commit of a range.",
    "install-hook": "Install a plain git pre-commit hook that runs agent-guard check.",
    "uninstall-hook": "Remove agent-guard's pre-commit hook and put back the previous one.",
    "read": "Print PATH as numbered lines under a [PATH#TAG] header, for hashline edits.",
    "push": "Push this clone's turns to a remote, beside every other clone's (git push).",
    "fetch": "Fetch every clone's turns from a remote (git fetch), for log and rollback.",
    "hook": "Adapters that put agents' own edit tools under the guard.",
    "stats": "Edit outcomes per agent and dialect: what lands, what is repaired, what is refused.",
    "mcp": "Serve read/edit/patch/log/rollback tools over MCP on standard input/output.",
    "run": "Run COMMAND and record what it changed in the work tree as one turn of the agent.",
    "serve": "Answer Claude Code's hooks from a warm process: one server per user, for every repository.",
}


class _LazyGroup(click.Group):
    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing the commands must not import them all: take a lazy command's short
        # help from its module docstring-free table below when it is not loaded yet.
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            text = cmd.get_short_help_str(formatter.width) if cmd is not None else LAZY_HELP.get(name, "")
            if cmd is None or not cmd.hidden:
                rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY:
            import importlib

            importlib.import_module(LAZY[cmd_name])  # registers itself on `cli`
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY))


@click.group(context_settings=CONTEXT, cls=_LazyGroup)
@click.version_option(package_name="agent-guard", prog_name="agent-guard")
def cli() -> None:
    """Validate coding agents' edits, apply them all-or-nothing, record every turn."""


@cli.command("apply", context_settings=CONTEXT)
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--format", "dialect", type=click.Choice(DIALECT_CHOICES), default="auto", show_default=True,
              help="Input dialect; auto detects it.")
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--turn", default=None, help="Turn id; applies with the same id form one turn (default: a new turn).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@click.option("--path", "target", default=None, help="With --format whole: the file the input replaces.")
@click.option("--check", is_flag=True, help="Decide and report; change nothing (no file, no ref).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the report.")
@click.option("--diff", "show_diff", is_flag=True, help="Also print the diff that was (or would be) written.")
def apply_cmd(file: str | None, dialect: str, agent: str | None, turn: str | None, policy: str | None,
              target: str | None, check: bool, as_json: bool, show_diff: bool) -> None:
    """Apply one edit (FILE, or standard input) to the working tree, or refuse it whole.

    Exit status: 0 applied (with --check: would apply), 1 refused and nothing
    changed, 2 usage error, 3 internal error.
    """
    if whole_without_input(dialect, target, file):
        raise click.UsageError("--format whole reads the new content from standard input; give --path")
    try:
        data = read_input(file)
    except OSError as exc:
        raise click.UsageError(f"cannot read {file}: {exc.strerror}") from None
    sys.exit(run_apply(data, dialect=dialect, agent=agent, turn=turn, policy=policy, target=target, check=check,
                       as_json=as_json, show_diff=show_diff))


@cli.command("log", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Only this agent's turns (default: all agents).")
@click.option("--clone", default=None, metavar="NAME", help="Only the turns recorded in this clone (fetched from it).")
@click.option("--local", is_flag=True, help="Only this clone's own turns, none fetched from other clones.")
@click.option("-p", "--patch", is_flag=True, help="Show each turn's diff.")
@click.option("-n", "--max-count", type=InRange(TURNS), default=None, help=f"At most this many turns ({TURNS.range_text()}).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--policy", default=None)
def log_cmd(agent: str | None, clone: str | None, local: bool, patch: bool, max_count: int | None, as_json: bool,
            policy: str | None) -> None:
    """List recorded turns, newest first.

    This clone's turns, and those fetched from other clones (agent-guard fetch),
    shown as AGENT@CLONE.
    """
    from .. import history

    g = _guard(policy)
    turns = history.log(g, agent, max_count, patch, clone=clone, local=local)
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "turns": turns}, ensure_ascii=False))
    elif not turns:
        from ..engine import default_agent

        who = default_agent(agent) if agent else ""
        click.echo(history.no_turns(g, who, g.policy(agent).ledger_prefix, "log") if who else
                   "no recorded turns: no agent has any in this repository yet; an applied edit records one")
    else:
        click.echo(history.render(turns, patch), nl=False)


@cli.command("rollback", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Whose turn (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--turn", "turn_id", default=None, help="Undo this one turn, keeping later changes.")
@click.option("--to", "to_id", default=None, help="Undo every turn after this one.")
@click.option("--clone", default=None, metavar="NAME", help="With --turn: that turn of another clone, fetched here.")
@click.option("--commit", default=None, metavar="REV", help="Undo the turn recorded at this commit (this clone's or fetched).")
@click.option("--check", is_flag=True, help="Show what would happen; change nothing.")
@click.option("--force", is_flag=True, help="Undo even where later changes overlap (they are lost).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--diff", "show_diff", is_flag=True)
@click.option("--policy", default=None)
def rollback_cmd(agent: str | None, turn_id: str | None, to_id: str | None, clone: str | None, commit: str | None,
                 check: bool, force: bool, as_json: bool, show_diff: bool, policy: str | None) -> None:
    """Undo the agent's last turn (or --turn ID, or every turn after --to ID).

    A turn recorded in another clone and fetched here (agent-guard fetch) is undone with
    --clone NAME --turn ID, or --commit REV; the rollback is recorded as this clone's.
    """
    from .. import history

    if turn_id and to_id:
        raise click.UsageError("give --turn or --to, not both")
    report = history.rollback(_guard(policy), agent, turn_id, to_id, check=check, force=force, clone=clone,
                              commit=commit)
    _emit(report, as_json, show_diff)


@cli.command("gc", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Only this agent (default: all).")
@click.option("--keep", type=InRange(KEEP), default=None,
              help=f"Keep this many newest turns per agent ({KEEP.range_text()}; 0 drops every turn).")
@click.option("--older-than", "older", default=None, metavar="AGE",
              help="Drop turns older than this: a number and a unit (s, m, h, d, w), e.g. 30d, 12h; at most 100 years.")
@click.option("--include-pushed", is_flag=True,
              help="Also drop turns that were pushed (a fetched copy holds them); kept otherwise.")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@click.option("--policy", default=None)
def gc_cmd(agent: str | None, keep: int | None, older: str | None, include_pushed: bool, dry_run: bool,
           policy: str | None) -> None:
    """Prune old turns from the shadow refs.

    Turns that were pushed stay (a fetched copy holds them), unless --include-pushed.
    """
    from .. import history

    if keep is None and older is None:
        raise click.UsageError("give --keep N and/or --older-than AGE")
    click.echo(history.gc(_guard(policy), agent, keep, older, include_pushed=include_pushed, dry_run=dry_run))


@cli.group("policy", context_settings=CONTEXT)
def policy_group() -> None:
    """Show or validate policies."""


@policy_group.command("show", context_settings=CONTEXT)
@click.option("--agent", default=None)
@click.option("--policy", default=None)
def policy_show(agent: str | None, policy: str | None) -> None:
    """Print the effective policy, with where each value came from."""
    from .. import policy as policy_mod

    g = _guard(policy)
    click.echo(policy_mod.show(g.policy(agent)), nl=False)


@policy_group.command("check", context_settings=CONTEXT)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def policy_check(file: str) -> None:
    """Validate one policy file (exit 2 when it is broken)."""
    from pathlib import Path

    from .. import policy as policy_mod

    problems = policy_mod.validate_file(Path(file))
    if problems:
        for p in problems:  # each names its file (the one given, or one it extends)
            click.echo(p, err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"{file}: ok")


def _load_more() -> None:
    """Import every command module (for tools that need the full command table)."""
    import importlib

    for module in dict.fromkeys(LAZY.values()):
        importlib.import_module(module)


def main(argv: Sequence[str] | None = None, prog: str = "agent-guard", command: str | None = None,
         process_ends: bool = False) -> NoReturn:
    """Run the CLI (or, for `git agent-X`, the one command X) and exit with its status.

    `process_ends`: the caller ends the process after the command (``program.run``).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    chosen: click.Command = cli
    if command is not None:
        found = cli.get_command(click.Context(cli), command)
        assert found is not None, command
        chosen = found
    try:
        rv = chosen.main(args=args, prog_name=prog, standalone_mode=False, obj=Invocation(process_ends))
        sys.exit(rv if isinstance(rv, int) else 0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (Exception, KeyboardInterrupt, click.exceptions.Abort) as exc:
        from .failure import failure_status, json_wanted

        sys.exit(failure_status(exc, json_wanted(args, command)))
