"""The click commands `push` and `fetch`: this clone's turns to a remote, every clone's from it.

Each prints the one git command it runs (``guard.record.clones`` makes its refspec), runs it,
and says what moved.  The command is plain git: run by hand, it does the same.
"""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING, Callable

import click

from ..bounds import DEADLINE_SECONDS
from ..errors import UsageError
from ..record import clones
from ..repo import GitError
from .base import CONTEXT, InRange, open_guard

if TYPE_CHECKING:
    from ..pipeline.engine import Guard

_REMOTE = click.argument("remote", default="origin", metavar="[REMOTE]")
_PRINT = click.option("--print", "only_print", is_flag=True, help="Print the git command; do not run it.")
_POLICY = click.option("--policy", default=None, help="Preset name or policy file (for ledger.ref_prefix).")
_TIMEOUT = click.option(
    "--timeout",
    type=InRange(DEADLINE_SECONDS, "SECONDS"),
    default=None,
    help="Stop git after this many seconds (default: no limit, as git).",
)


def _checked(remote: str, policy: str | None) -> tuple[Guard, str]:
    g: Guard = open_guard(policy)
    prefix = g.policy(None).ledger_prefix
    problem = clones.prefix_problem(prefix) or clones.remote_problem(g.repo, remote)
    if problem is not None:
        raise UsageError(problem)
    return g, prefix


def _report(run: Callable[[], clones.Outcome]) -> None:
    try:
        outcome = run()
    except GitError as exc:
        click.echo(f"agent-guard: {exc}", err=True)
        sys.exit(1)
    if outcome.git.err:
        click.echo(outcome.git.err.rstrip("\n"), err=True)
    for line in outcome.lines:
        click.echo(line)
    if not outcome.ok:
        click.echo(f"agent-guard: git exited with status {outcome.git.status}; see its message above", err=True)
        sys.exit(1)


@click.command("push", context_settings=CONTEXT)
@_REMOTE
@_PRINT
@_TIMEOUT
@_POLICY
def push_cmd(remote: str, only_print: bool, timeout: float | None, policy: str | None) -> None:
    """Prints, then runs (with --porcelain, to read what landed):

    \b
      git push REMOTE '+refs/agent-guard/*:refs/agent-guard-clones/CLONE/*'

    Each clone pushes to a folder of its own, so two clones' turns of one agent never
    replace each other.  CLONE is git config agent-guard.clone, else a name made once
    for this clone (the host name and six hex digits).  What landed is recorded here
    as pushed, as a fetch would bring it back: gc keeps those turns.
    """
    g, prefix = _checked(remote, policy)
    clone = clones.name(g.repo)
    click.echo("git " + shlex.join(clones.push_args(prefix, clone, remote)))
    if only_print:
        return
    if not g.repo.refs(prefix):
        click.echo(f"no turns to push: no agent has any in this clone ({prefix} holds no ref)")
        return
    _report(lambda: clones.push(g.repo, prefix, clone, remote, timeout))


@click.command("fetch", context_settings=CONTEXT)
@_REMOTE
@_PRINT
@_TIMEOUT
@_POLICY
def fetch_cmd(remote: str, only_print: bool, timeout: float | None, policy: str | None) -> None:
    """Prints, then runs:

    \b
      git fetch REMOTE '+refs/agent-guard-clones/*:refs/agent-guard-remotes/REMOTE/*'

    git agent-log then lists them as AGENT@CLONE, and git agent-rollback --clone
    CLONE --turn ID undoes one of them in this work tree.
    """
    g, _prefix = _checked(remote, policy)
    click.echo("git " + shlex.join(clones.fetch_args(remote)))
    if only_print:
        return
    _report(lambda: clones.fetch(g.repo, remote, timeout))
