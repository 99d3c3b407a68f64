"""The click group `agent-guard` and its commands (those named in ``LAZY`` live elsewhere).

Every command builds a value (usually a ``Report``) and renders it (guard/report/render.py);
exceptions become exit statuses in ``main`` alone (``failure.failure_status``): 2 for
usage errors (click's and ours), 3 for anything unexpected.  The programs enter
through ``program.run`` (``git-agent-X`` is ``agent-guard X``), which reads a plain
`apply`, `check` or `hook claude-code` without click (``fast``: the commands here
run the same functions).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

import click

from ..bounds import KEEP, TURNS, Bound, OutOfRange
from ..report import EXIT_USAGE
from . import options
from .fast import emit, read_input, run_apply, whole_without_input
from .terminal import colour

if TYPE_CHECKING:
    from ..policy import Policy

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@dataclass(frozen=True, slots=True)
class Invocation:
    """What the program's edge tells a command (click's ``ctx.obj``)."""

    # ``program.run`` ends the process after the command: what the command holds may go with it.
    process_ends: bool = False


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


def declared(command: options.Command, **click_only: dict[str, Any]) -> Callable[[Callable[..., Any]], Any]:
    """click's argument and options for `command`, made from its one declaration (``options``).

    `click_only` adds, per option (by its first flag), what only click needs: a callback
    that says what is wrong with a value in its own words.
    """
    made: list[Callable[[Callable[..., Any]], Any]] = []
    spec = command.positional
    if spec is not None:
        path = click.Path(dir_okay=False, allow_dash=True) if spec.files_only else click.Path()
        made.append(click.argument(spec.key, nargs=-1 if spec.many else 1, required=False, type=path))
    for option in command.options:
        settings: dict[str, Any] = {"help": option.help, "default": options.resolved(option.default)}
        if option.given is True and not option.takes_value:
            settings["is_flag"] = True
        elif not option.takes_value:
            settings["flag_value"] = option.given
        if option.choices is not None:
            settings["type"] = click.Choice(options.resolved(option.choices))
        if option.bound is not None:
            bound = option.bound.get()
            settings["type"] = InRange(bound, option.metavar or "N")
            settings["help"] = option.help.replace("{range}", bound.range_text())
        elif option.metavar is not None:
            settings["metavar"] = option.metavar
        if option.show_default:
            settings["show_default"] = True
        settings.update(click_only.get(option.flags[0], {}))
        made.append(click.option(*option.flags, option.key, **settings))

    def decorate(f: Callable[..., Any]) -> Any:
        for make in reversed(made):
            f = make(f)
        return f

    return decorate


def _guard(policy: str | None = None):  # type: ignore[no-untyped-def]
    """The command's Guard, once a write a crash interrupted is rolled back."""
    from ..engine import Guard

    g = Guard(".", policy)
    g.recover()
    return g


def in_a_repository(start: str = ".") -> None:
    """A usage error, before anything heavy is imported, when `start` is surely in no repository
    (``guard.files.discovery``): saying so must not cost the import of pygit2, or of the MCP SDK."""
    from ..files.discovery import outside

    problem = outside(start)
    if problem is not None:
        from ..errors import UsageError

        raise UsageError(problem)


# Commands that live in their own modules, imported only when named (or listed): start-up
# pays for click and this file, not for every command.  Each is declared here once, with its
# module and its summary: the line `agent-guard --help` lists (without importing the module)
# and the first line of the command's own help (`lazy_command` puts it there).
LAZY: dict[str, tuple[str, str]] = {
    "check": ("guard.cli.check", "Check what is being committed, or each commit of a range, against the policy."),
    "install-hook": ("guard.cli.check", "Install a plain git pre-commit hook that runs `agent-guard check`."),
    "uninstall-hook": ("guard.cli.check", "Remove agent-guard's pre-commit hook and put back the hook it kept, if any."),
    "read": ("guard.cli.read", "Print PATH as numbered lines under a [PATH#TAG] header, for hashline edits."),
    "push": ("guard.cli.remote", "Push this clone's turns to REMOTE (default: origin), beside every other clone's."),
    "fetch": ("guard.cli.remote", "Fetch every clone's turns from REMOTE (default: origin)."),
    "hook": ("guard.cli.adapters", "Adapters that put agents' own edit tools under the guard."),
    "stats": ("guard.cli.stats", "Edit outcomes per agent and dialect: what lands, what gets repaired, what is refused."),
    "mcp": ("guard.cli.adapters", "Serve read/edit/patch/log/rollback tools over MCP on standard input/output."),
    "run": ("guard.cli.run", "Run COMMAND and record what it changed in the work tree as one turn of the agent."),
    "install": ("guard.cli.install", "Write an agent's hook settings so that its edits go through agent-guard."),
    "serve": ("guard.cli.serve", "Answer Claude Code's hooks from a warm process: one server per user, for every repository."),
}


def _lazy(
    make: Callable[..., Callable[[Callable[..., Any]], click.Command]], name: str, settings: dict[str, Any]
) -> Callable[[Callable[..., Any]], click.Command]:
    summary = LAZY[name][1]

    def register(f: Callable[..., Any]) -> click.Command:
        import inspect  # click has imported it already

        body = inspect.cleandoc(f.__doc__ or "")
        f.__doc__ = summary + ("\n\n" + body if body else "")
        return make(name, short_help=summary, **settings)(f)

    return register


def lazy_command(name: str, **settings: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """`cli.command(name)` for a command of ``LAZY``, its summary taken from there."""
    return _lazy(cli.command, name, settings)


def lazy_group(name: str, **settings: Any) -> Callable[[Callable[..., Any]], click.Group]:
    """`cli.group(name)` for a group of ``LAZY``, its summary taken from there."""
    register = _lazy(cli.group, name, settings)

    def group(f: Callable[..., Any]) -> click.Group:
        made = register(f)
        assert isinstance(made, click.Group)
        return made

    return group


class _LazyGroup(click.Group):
    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing the commands must not import them all: take a lazy command's short
        # help from ``LAZY`` when it is not loaded yet.
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            text = cmd.get_short_help_str(formatter.width) if cmd is not None else LAZY[name][1]
            if cmd is None or not cmd.hidden:
                rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY:
            import importlib

            importlib.import_module(LAZY[cmd_name][0])  # registers itself on `cli`
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            _with_version(found)
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY))


def _with_version(cmd: click.Command) -> None:
    """Give `cmd` (and the commands of a group) a --version, as every `git-agent-X` program has one."""
    if not any(getattr(p, "name", None) == "version" for p in cmd.params):
        click.version_option(package_name="agent-guard", prog_name="agent-guard")(cmd)
    for sub in getattr(cmd, "commands", {}).values():
        _with_version(sub)


def _change_folder(ctx: click.Context, param: click.Parameter, folders: tuple[str, ...]) -> None:
    from .program import change_folder

    _rest, problem = change_folder([word for folder in folders for word in ("-C", folder)])
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("option -C requires a folder: "), param_hint="-C")


@click.group(context_settings=CONTEXT, cls=_LazyGroup)
@click.version_option(package_name="agent-guard", prog_name="agent-guard")
@click.option(
    "-C",
    "folders",
    multiple=True,
    metavar="DIR",
    expose_value=False,
    is_eager=True,
    callback=_change_folder,
    help="Run as if started in DIR (as git -C; each one relative to the one before).",
)
def cli() -> None:
    """Validate coding agents' edits, apply them all-or-nothing, record every turn.

    Every command is also a git command: `git agent-X ARGS` is `agent-guard X ARGS`.
    The report of a command goes to standard output whatever it says (refusals and
    findings too); standard error carries usage errors (exit 2), internal errors
    (exit 3), progress and prompts.  An interrupt (Ctrl-C) exits 130.
    """


@cli.command("apply", context_settings=CONTEXT)
@declared(options.APPLY)
def apply_cmd(
    file: str | None,
    dialect: str,
    agent: str | None,
    turn: str | None,
    policy: str | None,
    target: str | None,
    check: bool,
    as_json: bool,
    show_diff: bool,
    quiet: bool,
) -> None:
    """Apply one edit (FILE, or standard input) to the working tree, or refuse it whole.

    The report goes to standard output, refused or not.  Exit status: 0 applied
    (with --check: would apply), 1 refused and nothing changed, 2 usage error,
    3 internal error, 130 interrupted.
    """
    if whole_without_input(dialect, target, file):
        raise click.UsageError("--format whole reads the new content from standard input; give --path")
    try:
        data = read_input(file, quiet)
    except OSError as exc:
        raise click.UsageError(f"cannot read {file}: {exc.strerror}") from None
    sys.exit(
        run_apply(
            data,
            dialect=dialect,
            agent=agent,
            turn=turn,
            policy=policy,
            target=target,
            check=check,
            as_json=as_json,
            show_diff=show_diff,
            quiet=quiet,
        )
    )


@cli.command("log", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Only this agent's turns (default: all agents).")
@click.option("--clone", default=None, metavar="NAME", help="Only the turns recorded in this clone (fetched from it).")
@click.option("--local", is_flag=True, help="Only this clone's own turns, none fetched from other clones.")
@click.option("--turn", "turn_id", default=None, metavar="ID", help="Only the turn of this id (of each agent that has one).")
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
    patch: bool,
    max_count: int | None,
    as_json: bool,
    quiet: bool,
    policy: str | None,
) -> None:
    """List recorded turns, newest first (on a terminal, through git's pager).

    This clone's turns, and those fetched from other clones (agent-guard fetch),
    shown as AGENT@CLONE.  `agent-guard show ID` shows one turn with its diff.
    """
    in_a_repository()
    from ..record import history

    g = _guard(policy)
    patch = patch and not quiet
    turns = history.log(g, agent, history.Listing(max_count, clone, local, turn_id), patch)
    if turn_id is not None and not turns:
        history.one_turn(g, turn_id, agent, patch)  # says whose turns there are, as a usage error
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "turns": turns}, ensure_ascii=False))
    elif not turns:
        from ..engine import default_agent

        who = default_agent(agent) if agent else ""
        click.echo(
            history.no_turns(g, who, g.policy(agent).ledger_prefix, "log")
            if who
            else "no recorded turns: no agent has any in this repository yet; an applied edit records one"
        )
    else:
        _paged(history.render(turns, patch, colour=colour(sys.stdout)))


@cli.command("show", context_settings=CONTEXT)
@click.argument("turn_id", metavar="ID")
@click.option("--agent", default=None, help="Whose turn (default: the one agent that has a turn of this id).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: {version, turns} with the one turn.")
@click.option("-q", "--quiet", "--no-patch", is_flag=True, help="Leave the diff out (as git show --no-patch).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
def show_cmd(turn_id: str, agent: str | None, as_json: bool, quiet: bool, policy: str | None) -> None:
    """Show one recorded turn: what it changed, and its diff (on a terminal, through git's pager).

    The same as `git agent-log --turn ID -p`.  A protected file's contents are left
    out of the diff, as in log.
    """
    in_a_repository()
    from ..record import history

    turns = history.one_turn(_guard(policy), turn_id, agent, patch=not quiet)
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "turns": turns}, ensure_ascii=False))
    else:
        _paged(history.render(turns, not quiet, colour=colour(sys.stdout)))


def _paged(text: str) -> None:
    from .terminal import page

    page(text)


@cli.command("rollback", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Whose turn (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--turn", "turn_id", default=None, help="Undo this one turn, keeping later changes.")
@click.option("--to", "to_id", default=None, help="Undo every turn after this one.")
@click.option("--clone", default=None, metavar="NAME", help="With --turn: that turn of another clone, fetched here.")
@click.option("--commit", default=None, metavar="REV", help="Undo the turn recorded at this commit (this clone's or fetched).")
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
    check: bool,
    force: bool,
    as_json: bool,
    show_diff: bool,
    quiet: bool,
    policy: str | None,
) -> None:
    """Undo the agent's last turn (or --turn ID, or every turn after --to ID).

    A turn recorded in another clone and fetched here (agent-guard fetch) is undone with
    --clone NAME --turn ID, or --commit REV; the rollback is recorded as this clone's.
    The report names the turns undone; it goes to standard output, refused or not.
    """
    in_a_repository()
    from ..record.rollback import Asked, rollback

    if turn_id and to_id:
        raise click.UsageError("give --turn or --to, not both")
    report = rollback(_guard(policy), agent, Asked(turn_id, to_id, clone, commit), check=check, force=force)
    sys.exit(emit(report, as_json, show_diff, quiet))


@cli.command("gc", context_settings=CONTEXT)
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
    """Prune old turns from the shadow refs.

    Turns that were pushed stay (a fetched copy holds them), unless --include-pushed.
    """
    in_a_repository()
    from ..record.prune import gc

    if keep is None and older is None:
        raise click.UsageError("give --keep N and/or --older-than AGE")
    said = gc(_guard(policy), agent, keep, older, include_pushed=include_pushed, dry_run=dry_run)
    if not quiet or dry_run:
        click.echo(said)


@cli.command("session", context_settings=CONTEXT)
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
    """Show the budget session the agent's next turn counts in, and what it has used.

    budget.per_session counts over a session: the turns of $AGENT_GUARD_SESSION when
    it is set; else, from the command line, every turn since the last `session --end`
    (the Claude Code hook counts per Claude Code session, the MCP server per server).
    """
    in_a_repository()
    from ..engine import default_agent
    from ..record import ledger, sessions

    g = _guard(policy)
    name = default_agent(agent)
    if end_it:
        if os.environ.get("AGENT_GUARD_SESSION"):
            raise click.UsageError("$AGENT_GUARD_SESSION names the session: unset it, or set it to a new name")
        sessions.end(g.repo.commondir, name)
    current = g.session(name)
    pol = g.policy(name)
    _, used = ledger.usage(g.repo, ledger.ref_name(pol.ledger_prefix, name), name, None, current, memo=g.ledger_memo)
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


@cli.group("policy", context_settings=CONTEXT)
def policy_group() -> None:
    """Show or validate policies."""


@policy_group.command("show", context_settings=CONTEXT)
@click.option("--agent", default=None, help="The policy as this agent gets it (its agents: overrides).")
@click.option(
    "--policy",
    default=None,
    help="Preset name or policy file (default: $AGENT_GUARD_POLICY, else the repository's "
    ".agent-guard.yaml or [tool.agent-guard] in pyproject.toml, else 'default').",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the settings and where each came from.")
def policy_show(agent: str | None, policy: str | None, as_json: bool) -> None:
    """Print the effective policy, with where each value came from.

    Works outside a repository too: then it shows the preset or file --policy
    names (else the preset default).
    """
    from .. import policy as policy_mod

    pol = _policy_here(policy, agent)
    if as_json:
        import json

        click.echo(json.dumps(policy_mod.as_dict(pol), ensure_ascii=False))
    else:
        click.echo(policy_mod.show(pol), nl=False)


def _policy_here(spec: str | None, agent: str | None) -> Policy:
    """The policy `policy show` shows: the repository's (as every command reads it), or, outside a
    repository, the preset or file `spec` (else $AGENT_GUARD_POLICY) names, else the preset default."""
    import os

    from .. import policy as policy_mod
    from ..errors import UsageError
    from ..repo import GitRepo, NotARepository
    from ..workspace import Workspace

    try:
        GitRepo(".", bare_ok=True)
    except NotARepository:
        try:
            return policy_mod.load(None, spec if spec is not None else os.environ.get("AGENT_GUARD_POLICY"), agent)
        except policy_mod.PolicyError as exc:
            raise UsageError(f"policy: {exc}") from None
    return Workspace(".", spec, bare_ok=True).policy(agent)


@policy_group.command("list", context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: {version, presets: [{name, about}]}.")
def policy_list(as_json: bool) -> None:
    """List the presets (--policy NAME, or extends: NAME), each with what it is for."""
    from .. import policy as policy_mod

    rows = [(name, policy_mod.preset_about(name)) for name in policy_mod.presets()]
    if as_json:
        import json

        click.echo(json.dumps({"version": 1, "presets": [{"name": n, "about": a} for n, a in rows]}))
        return
    width = max(len(n) for n, _ in rows)
    for name, about in rows:
        click.echo(f"{name:<{width}}  {about}")


@policy_group.command("check", context_settings=CONTEXT)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-q", "--quiet", is_flag=True, help="Print nothing when the file is valid.")
def policy_check(file: str, quiet: bool) -> None:
    """Validate one policy file (exit 2 when it is broken)."""
    from pathlib import Path

    from .. import policy as policy_mod

    problems = policy_mod.validate_file(Path(file))
    if problems:
        for p in problems:  # each names its file (the one given, or one it extends)
            click.echo(p, err=True)
        sys.exit(EXIT_USAGE)
    if not quiet:
        click.echo(f"{file}: ok")


@cli.command("uninstall", context_settings=CONTEXT)
@click.argument("agent", required=False, type=click.Choice(["claude-code"]))
@click.option("--yes", is_flag=True, help="Remove them (without it: list what would be removed, remove nothing).")
@click.option("--cache", is_flag=True, help="Also the user's parsed-policy cache, which every repository shares.")
@click.option("--user", is_flag=True, help="With AGENT: the user's settings, not this repository's.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def uninstall_cmd(agent: str | None, yes: bool, cache: bool, user: bool, quiet: bool) -> None:
    """Remove what agent-guard keeps for this repository: shadow refs, its git-dir folder, its hook.

    Without --yes, lists them and removes nothing.  The recorded turns go with the
    refs (push them first to keep them).  Your own files that name agent-guard
    (.agent-guard.yaml, pre-commit and agent settings) are listed, not touched;
    the program itself goes with pip uninstall agent-guard.

    With AGENT (claude-code): take the hooks `agent-guard install AGENT` wrote out
    of that agent's settings (with --user, the user's), now; everything else stays.
    """
    if agent is not None:
        if yes or cache:
            raise click.UsageError("uninstall AGENT takes --user and --quiet only")
        from .install import remove_hooks

        removed = remove_hooks(agent, user)
        if not quiet:
            click.echo(removed)
        return
    if user:
        raise click.UsageError("--user goes with AGENT: agent-guard uninstall claude-code --user")
    in_a_repository()
    from ..record import footprint
    from ..workspace import Workspace

    g = Workspace(".")
    g.recover()
    found = footprint.items(g, cache)
    said = [f"would remove {footprint.described(i)}" for i in found] if not yes else footprint.remove(g, found)
    if not found:
        said = ["agent-guard keeps nothing for this repository"]
    mine = footprint.left_to_the_user(g)
    if mine:
        said.append(f"left as they are (yours to edit): {', '.join(mine)}")
    if not yes and found:
        said.append("nothing was removed: run again with --yes to remove them")
    if not quiet:
        for line in said:
            click.echo(f"agent-guard: {line}")


def _load_more() -> None:
    """Import every command module (for tools that need the full command table)."""
    import importlib

    for module in dict.fromkeys(m for m, _ in LAZY.values()):
        importlib.import_module(module)


def main(
    argv: Sequence[str] | None = None, prog: str = "agent-guard", command: str | None = None, process_ends: bool = False
) -> NoReturn:
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
