"""The click group `policy`: `show`, `list` and `check`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..report import EXIT_USAGE
from .base import CONTEXT

if TYPE_CHECKING:
    from ..policy import Policy


@click.group("policy", context_settings=CONTEXT)
def policy_group() -> None:
    pass  # its summary is in ``commands.COMMANDS``; the commands are below


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
    from ..files.workspace import Workspace
    from ..repo import GitRepo, NotARepository

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
