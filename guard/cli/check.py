"""The click commands `check`, `install-hook` and `uninstall-hook` (the work is in ``guard.commit_check``).

A plain `agent-guard check` is read by ``fast`` without click; this module owns
the help, and every message about a mistake in the arguments.
"""

from __future__ import annotations

import sys

import click

from ..commit_check import githook
from ..workspace import Workspace
from . import options
from .commands import CONTEXT, declared, lazy_command, process_ends
from .fast import check_conflict, run_check


@lazy_command("check", context_settings=CONTEXT)
@declared(options.CHECK)
def check_cmd(
    paths: tuple[str, ...],
    mode: str | None,
    from_ref: str | None,
    to_ref: str | None,
    policy: str | None,
    renderer: str | None,
    as_json: bool,
    quiet: bool,
    baseline_out: str | None,
) -> None:
    """PATHS limit the check (pre-commit passes the files it selected); a named file
    with no staged change is checked whole.  Findings the policy's baseline file
    lists are not reported.  Exit status: 0 no error finding, 1 an error finding,
    2 usage error, 3 internal error.
    """
    problem = check_conflict(mode, from_ref, to_ref, renderer, as_json)
    if problem is not None:
        raise click.UsageError(problem)
    sys.exit(
        run_check(
            paths,
            mode=mode,
            from_ref=from_ref,
            to_ref=to_ref,
            policy=policy,
            renderer="json" if as_json else renderer,
            process_ends=process_ends(),
            quiet=quiet,
            baseline_out=baseline_out,
        )
    )


@lazy_command("install-hook", context_settings=CONTEXT)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def install_hook_cmd(quiet: bool) -> None:
    """Installs where git looks (core.hooksPath, else .git/hooks).  A hook already there
    is kept and runs first; running install-hook again updates the hook.
    """
    for line in githook.install(Workspace("."), sys.executable):
        if not quiet:
            click.echo(line)


@lazy_command("uninstall-hook", context_settings=CONTEXT)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def uninstall_hook_cmd(quiet: bool) -> None:
    for line in githook.uninstall(Workspace(".")):
        if not quiet:
            click.echo(line)
