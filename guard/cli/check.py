"""The click commands `check`, `install-hook` and `uninstall-hook` (the work is in ``guard.commit_check``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import click

from ..errors import UsageError
from ..report.render import RENDERERS
from .base import CONTEXT

if TYPE_CHECKING:
    from ..report import Report


@click.command("check", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=False, type=click.Path())
@click.option(
    "--staged", "mode", flag_value="staged", default=None, help="Check the staged change: HEAD against the index (the default)."
)
@click.option(
    "--all-files",
    "mode",
    flag_value="all-files",
    default=None,
    help="Check every tracked file whole, as staged (to adopt agent-guard on an existing repository).",
)
@click.option(
    "--from-ref",
    default=None,
    metavar="REF",
    help="With --to-ref: check each commit of FROM..TO on its own, a merge on what it adds to git's merge of its "
    "parents (default: $PRE_COMMIT_FROM_REF; git's null id: every commit TO reaches).",
)
@click.option("--to-ref", default=None, metavar="REF", help="The end of the range (default: $PRE_COMMIT_TO_REF).")
@click.option(
    "--policy",
    default=None,
    help="Preset name or policy file (default: .agent-guard.yaml, else 'default'; for a range, the one committed at FROM).",
)
@click.option(
    "--output-format",
    "--format",
    "renderer",
    default=None,
    type=click.Choice(RENDERERS),
    help="How to print the report: human (default), json, github (workflow annotations) or sarif (for code "
    "scanning).  --format is the older name.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --output-format json.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary, nothing when there are none.")
@click.option(
    "--write-baseline",
    "baseline_out",
    default=None,
    metavar="FILE",
    help="With --all-files: write today's findings to FILE (name it in the policy as baseline: FILE), so that later "
    "checks report only new ones; exits 0.",
)
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
    if baseline_out is not None and mode != "all-files":
        raise UsageError("--write-baseline records the findings of every file as it is: give --all-files too")
    if as_json:
        renderer = "json"
    if mode is None and from_ref is None and to_ref is None:
        env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
        if env_from and env_to:
            from_ref, to_ref = env_from, env_to
    report, root = _checked(paths, mode, from_ref, to_ref, policy, baseline_out is None, quiet)
    if baseline_out is not None:
        status = _write_baseline(report, baseline_out, root, renderer, quiet)
    else:
        status = _printed(report, renderer, quiet)
    sys.exit(status)


@click.command("install-hook", context_settings=CONTEXT)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def install_hook_cmd(quiet: bool) -> None:
    """Installs where git looks (core.hooksPath, else .git/hooks).  A hook already there
    is kept and runs first; running install-hook again updates the hook.
    """
    from ..commit_check import githook
    from ..files.workspace import Workspace

    for line in githook.install(Workspace("."), sys.executable):
        if not quiet:
            click.echo(line)


@click.command("uninstall-hook", context_settings=CONTEXT)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing (errors aside).")
def uninstall_hook_cmd(quiet: bool) -> None:
    from ..commit_check import githook
    from ..files.workspace import Workspace

    for line in githook.uninstall(Workspace(".")):
        if not quiet:
            click.echo(line)


def check_conflict(mode: str | None, from_ref: str | None, to_ref: str | None, renderer: str | None, as_json: bool) -> str | None:
    """What is wrong with a combination of `check`'s options, or None."""
    if as_json and renderer not in (None, "json"):
        return f"--json and --output-format {renderer} disagree; give one"
    if mode is not None and (from_ref or to_ref):
        return f"--{mode} and --from-ref/--to-ref choose different things to check; give one"
    return None


def repo_paths(root: Path, raw: Sequence[str]) -> tuple[str, ...]:
    """Paths as given (relative to the current folder) -> relative to the repository root."""
    # Plain strings, not pathlib (pre-commit names thousands of files), and each
    # folder resolved once.
    top = str(root)
    inside = top.rstrip("/") + "/"
    folders: dict[str, str] = {}
    out: list[str] = []
    cwd = os.getcwd()
    for p in raw:
        full = os.path.normpath(os.path.join(cwd, p))  # os.path.abspath, without a getcwd per path
        folder, name = os.path.split(full)
        # Resolve the folders, not the name itself: a committed symlink is judged as itself.
        if name:
            real_folder = folders.get(folder)
            if real_folder is None:
                real_folder = folders[folder] = os.path.realpath(folder)
            real = os.path.join(real_folder, name)
        else:
            real = os.path.realpath(full)
        if real == top:
            out.append("")
        elif real.startswith(inside):
            out.append(real[len(inside) :])
        else:
            raise UsageError(f"{p} is outside the repository {root}; name paths inside it")
    return tuple(out)


def _checked(
    paths: Sequence[str],
    mode: str | None,
    from_ref: str | None,
    to_ref: str | None,
    policy: str | None,
    use_baseline: bool,
    quiet: bool,
) -> tuple[Report, Path]:
    """The check's report, and the repository's top folder.

    `mode` is "staged", "all-files" or None.  `quiet`: no progress.
    """
    from .. import commit_check
    from ..files.workspace import Workspace
    from .terminal import Progress

    progress = Progress("agent-guard check", quiet)
    try:
        g = Workspace(".", policy, bare_ok=True)
        g.recover()  # a write a crash interrupted is rolled back before the tree is checked
        # A bare repository (a server's receive hook) has no work tree: paths are the repository's.
        named = tuple(os.path.normpath(p) for p in paths) if g.repo.bare else repo_paths(g.root, paths)
        report = commit_check.check(
            g,
            from_ref=from_ref,
            to_ref=to_ref,
            all_files=mode == "all-files",
            paths=named,
            use_baseline=use_baseline,
            progress=progress,
        )
    finally:
        progress.end()
    return report, g.root


def _printed(report: Report, renderer: str | None, quiet: bool) -> int:
    """Print the check's report as `renderer` (None: for people) says; its exit status."""
    if renderer is None and (quiet or os.environ.get("PRE_COMMIT")) and not report.findings and (quiet or not report.notes):
        # pre-commit prints a passing hook's output (the hook is `verbose`, so that warnings
        # show): a clean check has nothing to add to its "Passed".
        return report.exit_code
    from ..report import render
    from .terminal import colour

    sys.stdout.write(render.check(report, renderer or "human", colour=colour(sys.stdout), quiet=quiet) + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code


def _write_baseline(report: Report, target: str, root: Path, renderer: str | None, quiet: bool) -> int:
    """Write `report`'s findings to the baseline file `target` and say so: the repository adopts the check."""
    from ..commit_check import baseline

    content, listed = baseline.text(report.findings, report.changes)
    baseline.write(target, content)
    files = baseline.described(f.path for f in report.findings if f.path)
    full = os.path.realpath(target)
    inside = full.startswith(str(root).rstrip("/") + "/")
    name = os.path.relpath(full, root) if inside else target
    if renderer == "json":
        doc = report.as_dict()
        doc["status"] = "checked"
        doc["baseline"] = {"written": name, "findings": listed}
        import json

        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    elif not quiet:
        where = (
            f"name it in .agent-guard.yaml (baseline: {name}) and commit it"
            if inside
            else "move it into the repository and name it in .agent-guard.yaml (baseline: PATH)"
        )
        sys.stdout.write(
            f"agent-guard check: wrote the baseline {target}: {listed:,} finding"
            f"{'s' if listed != 1 else ''} in {files}; {where}: later checks then report only findings "
            "it does not list\n"
        )
    sys.stdout.flush()
    return 0
