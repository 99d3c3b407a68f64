"""The click command `apply`: one edit, read from FILE or standard input, applied or refused whole."""

from __future__ import annotations

import sys

import click

from ..dialects import DIALECTS
from .base import CONTEXT, emit

# What `apply` says when it waits on a terminal for the edit (``read_input``).
WAITING = (
    "agent-guard: reading the edit from standard input (a diff, a Codex patch, SEARCH/REPLACE blocks, "
    "JSON...); end it with Ctrl-D, or give a FILE: git agent-apply FILE\n"
)


def read_input(file: str | None, quiet: bool = False) -> bytes:
    """The edit `apply` reads: FILE, or standard input (None or "-"); OSError when FILE cannot be read.

    On a terminal, standard input is someone typing or pasting: say what is awaited (on
    standard error, unless `quiet`), where `git apply` says nothing and seems to hang.
    """
    if file is None or file == "-":
        if not quiet and sys.stdin.isatty():
            sys.stderr.write(WAITING)
            sys.stderr.flush()
        return sys.stdin.buffer.read()
    with open(file, "rb") as fh:
        return fh.read()


_POLICY_HELP = "Preset name or policy file (default: .agent-guard.yaml, else 'default')."


@click.command("apply", context_settings=CONTEXT)
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--format",
    "--dialect",
    "dialect",
    default="auto",
    show_default=True,
    type=click.Choice(("auto", *DIALECTS)),
    help="The edit's dialect (--dialect is the same option); auto detects it.",
)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--turn", default=None, help="Turn id; applies with the same id form one turn (default: a new turn).")
@click.option("--policy", default=None, help=_POLICY_HELP)
@click.option("--path", "target", default=None, help="With --format whole: the file the input replaces.")
@click.option("--check", is_flag=True, help="Decide and report; change nothing (no file, no ref).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the report.")
@click.option("--diff", "show_diff", is_flag=True, help="Also print the diff that was (or would be) written.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing unless the edit is refused.")
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
    """The report goes to standard output, refused or not.  Exit status: 0 applied
    (with --check: would apply), 1 refused and nothing changed, 2 usage error,
    3 internal error, 130 interrupted.
    """
    if dialect == "whole" and target is None and file is None and sys.stdin.isatty():
        raise click.UsageError("--format whole reads the new content from standard input; give --path")
    try:
        data = read_input(file, quiet)
    except OSError as exc:
        raise click.UsageError(f"cannot read {file}: {exc.strerror}") from None
    from ..pipeline.engine import Guard

    report = Guard(".", policy).apply(data, format=dialect, agent=agent, turn=turn, check=check, path=target)
    status = emit(report, as_json, show_diff, quiet)
    sys.exit(status)
