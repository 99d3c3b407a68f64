"""The click group `agent-guard`: the table of its commands, and ``main``, which runs one.

Every command is a plain click command in a module of its own; ``COMMANDS`` names, for
each, the module, the object and the summary.  The group imports a command's module only
when the command is named (or every one, when the commands are listed with their options):
start-up pays for click and this file, and for the one command that runs.  Every command
builds a value (usually a ``Report``) and renders it (guard/report/render.py); exceptions
become exit statuses in ``main`` alone (``failure.failure_status``): 2 for usage errors
(click's and ours), 3 for anything unexpected.  The programs enter through ``program.run``
(``git-agent-X`` is ``agent-guard X``).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import NoReturn, Sequence

import click

from .base import CONTEXT, change_folder

# Each command once: (module, the command's name there, summary).  The summary is the line
# `agent-guard --help` lists (without importing the module) and the first line of the
# command's own help (``_loaded`` puts it there).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "apply": (
        "guard.cli.apply",
        "apply_cmd",
        "Apply one edit (FILE, or standard input) to the working tree, or refuse it whole.",
    ),
    "check": (
        "guard.cli.check",
        "check_cmd",
        "Check what is being committed, or each commit of a range, against the policy.",
    ),
    "install-hook": (
        "guard.cli.check",
        "install_hook_cmd",
        "Install a plain git pre-commit hook that runs `agent-guard check`.",
    ),
    "uninstall-hook": (
        "guard.cli.check",
        "uninstall_hook_cmd",
        "Remove agent-guard's pre-commit hook and put back the hook it kept, if any.",
    ),
    "log": (
        "guard.cli.turns",
        "log_cmd",
        "List recorded turns, newest first (on a terminal, through git's pager).",
    ),
    "show": (
        "guard.cli.turns",
        "show_cmd",
        "Show one recorded turn: what it changed, and its diff (on a terminal, through git's pager).",
    ),
    "rollback": (
        "guard.cli.turns",
        "rollback_cmd",
        "Undo the agent's last turn (or --turn ID, or every turn after --to ID).",
    ),
    "gc": (
        "guard.cli.turns",
        "gc_cmd",
        "Prune old turns from the shadow refs.",
    ),
    "session": (
        "guard.cli.turns",
        "session_cmd",
        "Show the budget session the agent's next turn counts in, and what it has used.",
    ),
    "policy": (
        "guard.cli.policy",
        "policy_group",
        "Show or validate policies.",
    ),
    "read": (
        "guard.cli.read",
        "read_cmd",
        "Print PATH as numbered lines under a [PATH#TAG] header, for hashline edits.",
    ),
    "push": (
        "guard.cli.remote",
        "push_cmd",
        "Push this clone's turns to REMOTE (default: origin), beside every other clone's.",
    ),
    "fetch": (
        "guard.cli.remote",
        "fetch_cmd",
        "Fetch every clone's turns from REMOTE (default: origin).",
    ),
    "hook": (
        "guard.cli.adapters",
        "hook_group",
        "Adapters that put agents' own edit tools under the guard.",
    ),
    "mcp": (
        "guard.cli.adapters",
        "mcp_cmd",
        "Serve read/edit/patch/log/rollback tools over MCP on standard input/output.",
    ),
    "stats": (
        "guard.cli.stats",
        "stats_cmd",
        "Edit outcomes per agent and dialect: what lands, what gets repaired, what is refused.",
    ),
    "run": (
        "guard.cli.run",
        "run_cmd",
        "Run COMMAND and record what it changed in the work tree as one turn of the agent.",
    ),
    "install": (
        "guard.cli.install",
        "install_group",
        "Write an agent's hook settings so that its edits go through agent-guard.",
    ),
    "uninstall": (
        "guard.cli.install",
        "uninstall_cmd",
        "Remove what agent-guard keeps for this repository: shadow refs, its git-dir folder, its hook.",
    ),
    "serve": (
        "guard.cli.serve",
        "serve_cmd",
        "Answer Claude Code's hooks from a warm process: one server per user, for every repository.",
    ),
}


class _Group(click.Group):
    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing the commands must not import them all: a command not loaded yet is
        # listed with its summary from ``COMMANDS``.
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            text = cmd.get_short_help_str(formatter.width) if cmd is not None else COMMANDS[name][2]
            if cmd is None or not cmd.hidden:
                rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.add_command(_loaded(*COMMANDS[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)


def _loaded(module: str, name: str, summary: str) -> click.Command:
    """The command `name` of `module`, its help starting with `summary`, with a --version as every
    `git-agent-X` program has one."""
    cmd = getattr(importlib.import_module(module), name)
    assert isinstance(cmd, click.Command), (module, name)
    body = inspect.cleandoc(cmd.help or "")
    cmd.help = summary + ("\n\n" + body if body else "")
    cmd.short_help = summary
    _with_version(cmd)
    return cmd


def _with_version(cmd: click.Command) -> None:
    if not any(getattr(p, "name", None) == "version" for p in cmd.params):
        click.version_option(package_name="git-agent-guard", prog_name="agent-guard")(cmd)
    for sub in getattr(cmd, "commands", {}).values():
        _with_version(sub)


def _change_folder(ctx: click.Context, param: click.Parameter, folders: tuple[str, ...]) -> None:
    _rest, problem = change_folder([word for folder in folders for word in ("-C", folder)])
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("option -C requires a folder: "), param_hint="-C")


@click.group(context_settings=CONTEXT, cls=_Group)
@click.version_option(package_name="git-agent-guard", prog_name="agent-guard")
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


def load_all() -> None:
    """Load every command (for tools that need the full command table: the manual pages, tests)."""
    ctx = click.Context(cli)
    for name in COMMANDS:
        cli.get_command(ctx, name)


def main(argv: Sequence[str] | None = None, prog: str = "agent-guard", command: str | None = None) -> NoReturn:
    """Run the CLI (or, for `git agent-X`, the one command X) and exit with its status."""
    args = list(sys.argv[1:] if argv is None else argv)
    chosen: click.Command = cli
    if command is not None:
        found = cli.get_command(click.Context(cli), command)
        assert found is not None, command
        chosen = found
    try:
        rv = chosen.main(args=args, prog_name=prog, standalone_mode=False)
        sys.exit(rv if isinstance(rv, int) else 0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (Exception, KeyboardInterrupt, click.exceptions.Abort) as exc:
        from .failure import failure_status, json_wanted, with_usage

        sys.exit(failure_status(with_usage(exc, chosen, args, prog), json_wanted(chosen, args)))
