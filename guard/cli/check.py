"""The click commands `check`, `install-hook` and `uninstall-hook` (the work is in ``guard.commit_check``).

A plain `agent-guard check` is read by ``fast`` without click; this module owns
the help, and every message about a mistake in the arguments.
"""

from __future__ import annotations

import sys

import click

from .. import render
from ..commit_check import githook
from ..workspace import Workspace
from .commands import CONTEXT, lazy_command, process_ends
from .fast import check_conflict, run_check


@lazy_command("check", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--staged", "mode", flag_value="staged", help="Check the staged change: HEAD against the index (the default).")
@click.option("--all-files", "mode", flag_value="all-files",
              help="Check every tracked file whole, as staged (to adopt agent-guard on an existing repository).")
@click.option("--from-ref", default=None, metavar="REF",
              help="With --to-ref: check each commit of FROM..TO on its own, a merge on what it adds to git's "
                   "merge of its parents (default: $PRE_COMMIT_FROM_REF; git's null id: every commit TO reaches).")
@click.option("--to-ref", default=None, metavar="REF", help="The end of the range (default: $PRE_COMMIT_TO_REF).")
@click.option("--policy", default=None,
              help="Preset name or policy file (default: .agent-guard.yaml, else 'default'; for a range, the "
                   "one committed at FROM).")
@click.option("--output-format", "--format", "renderer", type=click.Choice(render.RENDERERS), default=None,
              help="How to print the report: human (default), json, github (workflow annotations) or sarif (for "
                   "code scanning).  --format is the older name.")
@click.option("--json", "as_json", is_flag=True, help="Same as --output-format json.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary, nothing when there are none.")
@click.option("--write-baseline", "baseline_out", default=None, metavar="FILE",
              help="With --all-files: write today's findings to FILE (name it in the policy as baseline: FILE), "
                   "so that later checks report only new ones; exits 0.")
def check_cmd(paths: tuple[str, ...], mode: str | None, from_ref: str | None, to_ref: str | None,
              policy: str | None, renderer: str | None, as_json: bool, quiet: bool, baseline_out: str | None) -> None:
    """PATHS limit the check (pre-commit passes the files it selected); a named file
    with no staged change is checked whole.  Findings the policy's baseline file
    lists are not reported.  Exit status: 0 no error finding, 1 an error finding,
    2 usage error, 3 internal error.
    """
    problem = check_conflict(mode, from_ref, to_ref, renderer, as_json)
    if problem is not None:
        raise click.UsageError(problem)
    sys.exit(run_check(paths, mode=mode, from_ref=from_ref, to_ref=to_ref, policy=policy,
                       renderer="json" if as_json else renderer, process_ends=process_ends(), quiet=quiet,
                       baseline_out=baseline_out))


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
