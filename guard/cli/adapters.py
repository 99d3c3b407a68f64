"""The click commands `hook claude-code` and `mcp`: the adapters (guard/adapters/) on the command line.

Each reads its options here and hands the process's standard streams to its adapter:
Claude Code's hook payload on standard input, the MCP client on standard input and
output.
"""

from __future__ import annotations

import sys

import click

from . import options
from .commands import CONTEXT, declared, in_a_repository, lazy_command, lazy_group
from .fast import run_claude_code


@lazy_group("hook", context_settings=CONTEXT)
def hook_group() -> None:
    pass  # its summary is in ``LAZY``; the commands are below


def _on_pass(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value == "allow":
        raise click.BadParameter(
            "'allow' was removed: the hook never grants permission. Leave the option out "
            "(no decision: Claude Code's own permission rules apply) or give 'ask'"
        )
    if value not in options.ON_PASS:
        raise click.BadParameter(f"{value!r} is not one of 'defer', 'ask'")
    return value


@hook_group.command("claude-code", context_settings=CONTEXT)
# --on-pass reads its value itself, to say what became of 'allow'.
@declared(options.CLAUDE_CODE, **{"--on-pass": {"type": click.STRING, "callback": _on_pass}})
def claude_code_cmd(agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: float) -> None:
    """Claude Code PreToolUse/PostToolUse hook: payload on standard input.

    PreToolUse: check Edit/MultiEdit/Write against the policy without writing;
    a refusal exits 2 with the findings on standard error (Claude Code blocks
    the tool and shows them to the model); a pass gives no permission decision.
    Every failure before the write (unreadable payload, internal error, the
    deadline) also exits 2.  PostToolUse: record what the tool wrote as a turn
    on the shadow ref; a failure there exits 1 (reported, not blocking).
    When your `agent-guard serve` runs, the hook asks it instead of doing the
    work itself, and fails the same way when it cannot.
    """
    sys.exit(run_claude_code(agent, turn, policy, on_pass, deadline))


@lazy_command("mcp", context_settings=CONTEXT)
@click.option(
    "--repo",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The repository to serve (any folder inside it).",
)
@click.option("--agent", default=None, help="Agent name for the turns (default: $AGENT_GUARD_AGENT, else 'agent').")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@click.option(
    "--require-read/--no-require-read",
    default=True,
    show_default=True,
    help="Refuse edit_file/write_file/apply_patch on existing files the agent has not read in their current state.",
)
def mcp_cmd(repo: str, agent: str | None, policy: str | None, require_read: bool) -> None:
    """The repository is the one the server starts in (or --repo); no tool reads or
    writes outside it.  Each server is one budget session (unless $AGENT_GUARD_SESSION
    names one).  Needs the `mcp` package: pip install 'agent-guard[mcp]'.
    """
    in_a_repository(repo)  # outside every repository: said before anything heavy is imported
    from ..adapters.mcp_server import Session, serve
    from ..engine import Guard, default_agent

    # The repository, the agent's name and the policy first: a mistake in them is said at
    # once, not after the SDK's imports (a second and more).
    session = Session(Guard(repo, policy), default_agent(agent), require_read)
    session.g.recover()
    from ..record.sessions import new_name

    session.g.budget_session = "mcp-" + new_name()  # per_session budgets count over this server's life
    session.g.policy(session.agent)  # a broken policy is a usage error now, not on the first call
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise click.UsageError("agent-guard mcp needs the MCP SDK: pip install 'agent-guard[mcp]'") from None
    serve(session)
