"""The click commands `hook claude-code`, `hook codex`, `hook gemini`, `hook copilot`, `hook cursor`
and `mcp`: the adapters (guard/adapters/) on the command line.

Each reads its options here and hands the process's standard streams to its adapter:
the agent's hook payload on standard input, the MCP client on standard input and
output.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Sequence

import click

from ..adapters.hook.deadline import DEADLINE
from ..bounds import DEADLINE_SECONDS
from .base import CONTEXT, InRange, in_a_repository

if TYPE_CHECKING:
    from ..adapters.hook.answer import Answer
    from ..adapters.hook.deadline import Deadline

ON_PASS = ("defer", "ask")  # `hook claude-code --on-pass`
DEADLINE_OPTION = click.option(
    "--deadline",
    default=DEADLINE,
    show_default=True,
    type=InRange(DEADLINE_SECONDS, "SECONDS"),
    help="Deny when the pre hook has not answered by then; keep it under the hook's timeout in the agent's settings "
    f"(30 s in those `agent-guard install` writes); {DEADLINE_SECONDS.range_text()}.",
)


@click.group("hook", context_settings=CONTEXT)
def hook_group() -> None:
    pass  # its summary is in ``commands.COMMANDS``; the commands are below


def _on_pass(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value == "allow":
        raise click.BadParameter(
            "'allow' was removed: the hook never grants permission. Leave the option out "
            "(no decision: Claude Code's own permission rules apply) or give 'ask'"
        )
    if value not in ON_PASS:
        raise click.BadParameter(f"{value!r} is not one of 'defer', 'ask'")
    return value


@hook_group.command("claude-code", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'claude').")
@click.option("--turn", default=None, help="Turn id (default: one turn per user prompt, else one per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@click.option(
    "--on-pass",
    default="defer",
    show_default=True,
    metavar="[defer|ask]",
    callback=_on_pass,  # reads its value itself, to say what became of 'allow'
    help="For an edit that passes: defer (no decision: Claude Code's permission rules apply) or ask (prompt the "
    "user every time). The hook never allows.",
)
@DEADLINE_OPTION
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
    status = run_claude_code(agent, turn, policy, on_pass, deadline)
    sys.exit(status)


@hook_group.command("codex", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'codex').")
@click.option("--turn", default=None, help="Turn id (default: one turn per user prompt, else one per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@DEADLINE_OPTION
def codex_cmd(agent: str | None, turn: str | None, policy: str | None, deadline: float) -> None:
    """Codex CLI PreToolUse/PostToolUse hook: payload on standard input.

    PreToolUse: check apply_patch's patch as `agent-guard apply --check --format
    codex` would, without writing; a refusal exits 2 with the findings on standard
    error (Codex blocks the tool and shows them to the model).  Every failure before
    the write (unreadable payload, internal error, the deadline) also exits 2.  Bash:
    the work tree is taken before the command runs.  PostToolUse: record what the
    patch or the command changed as a turn on the shadow ref; what the model must
    know (a refused change) exits 2, a failure to record reaches the model as
    context.  MCP tools pass.  `agent-guard install codex` writes the hooks.
    """
    from ..adapters.codex import codex

    sys.exit(run_hook(lambda raw, timer: codex(raw, agent, turn, policy, timer), deadline))


@hook_group.command("gemini", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'gemini').")
@click.option("--turn", default=None, help="Turn id (default: one turn per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@DEADLINE_OPTION
def gemini_cmd(agent: str | None, turn: str | None, policy: str | None, deadline: float) -> None:
    """Gemini CLI BeforeTool/AfterTool hook: payload on standard input.

    BeforeTool: check write_file and replace against the policy without writing;
    a refusal answers {"decision": "deny"} with the findings (Gemini blocks the
    tool and shows them to the model).  Every failure before the write
    (unreadable payload, internal error, the deadline) also denies.
    run_shell_command: the work tree is taken before the command runs.
    AfterTool: record what the tool or the command changed as a turn on the
    shadow ref; what the model must know (a refused change) replaces the tool's
    output, a failure to record reaches the model as context.  MCP tools pass.
    `agent-guard install gemini` writes the hooks.
    """
    from ..adapters.gemini import gemini

    sys.exit(run_hook(lambda raw, timer: gemini(raw, agent, turn, policy, timer), deadline))


@hook_group.command("copilot", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'copilot').")
@click.option("--turn", default=None, help="Turn id (default: one per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@DEADLINE_OPTION
def copilot_cmd(agent: str | None, turn: str | None, policy: str | None, deadline: float) -> None:
    """GitHub Copilot CLI preToolUse/postToolUse hook: payload on standard input,
    camelCase or (PascalCase events) snake_case, answered in the same.

    preToolUse: check create/edit as the file will be, without writing; a refusal,
    and every failure before the tool, is {"permissionDecision": "deny"} with the
    reason on standard output, exit 0.  bash: the work tree is taken before the
    command runs.  postToolUse, postToolUseFailure: record what the tool or the
    command changed as a turn on the shadow ref; what the model must know reaches
    it as additionalContext.  `agent-guard install copilot` writes the hooks.
    """
    from ..adapters.copilot import copilot

    sys.exit(run_hook(lambda raw, timer: copilot(raw, agent, turn, policy, timer), deadline))


@hook_group.command("cursor", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'cursor').")
@click.option("--turn", default=None, help="Turn id (default: one turn per user message, else one per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@DEADLINE_OPTION
def cursor_cmd(agent: str | None, turn: str | None, policy: str | None, deadline: float) -> None:
    """Cursor preToolUse/postToolUse hook: payload on standard input, a JSON
    object on standard output.

    preToolUse: check Write/StrReplace/Edit as the file will be, without writing;
    a refusal, and every failure before the tool, is {"permission": "deny"} with
    the reason as agent_message, exit 0.  Shell, Delete: the work tree is taken
    before the tool runs.  postToolUse, postToolUseFailure: record what the tool
    changed as a turn on the shadow ref; what the model must know reaches it as
    additional_context.  `agent-guard install cursor` writes the hooks.
    """
    from ..adapters.cursor import cursor

    sys.exit(run_hook(lambda raw, timer: cursor(raw, agent, turn, policy, timer), deadline))


@click.command("mcp", context_settings=CONTEXT)
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
    names one).  Needs the `mcp` package: pip install 'mcp>=2.0' (the git-agent-guard[mcp] extra).
    """
    in_a_repository(repo)  # outside every repository: said before anything heavy is imported
    from ..adapters.mcp_server import Session, serve
    from ..pipeline.engine import Guard, default_agent

    # The repository, the agent's name and the policy first: a mistake in them is said at
    # once, not after the SDK's imports, which are slow.
    session = Session(Guard(repo, policy), default_agent(agent), require_read)
    session.g.recover()
    from ..record.sessions import new_name

    session.g.budget_session = "mcp-" + new_name()  # per_session budgets count over this server's life
    session.g.policy(session.agent)  # a broken policy is a usage error now, not on the first call
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise click.UsageError(
            "agent-guard mcp needs the MCP SDK: pip install 'mcp>=2.0' (the git-agent-guard[mcp] extra)"
        ) from None
    serve(session)


def hook_options(words: Sequence[str]) -> dict[str, Any] | None:
    """`hook claude-code WORDS` read as the command reads them, for a server that answers the hook
    (``guard/warm``); None when the command must read them itself: help, or a mistake, which
    click says with the usage line."""
    try:
        # Without its help option, a -h is a mistake like any other: nothing is printed here.
        ctx = claude_code_cmd.make_context("claude-code", list(words), help_option_names=[])
    except (click.exceptions.Exit, click.ClickException):
        return None
    return dict(ctx.params)


def run_claude_code(agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: float) -> int:
    """`agent-guard hook claude-code`: answer the payload on standard input; the exit status Claude Code reads.

    When the user's `agent-guard serve` answers, its answer is passed on; else this process
    answers (``run_hook``).
    """
    from ..adapters.claude_code import claude_code

    def warm(timer: Deadline, started: float) -> int | None:
        answered = _ask_server(agent, turn, policy, on_pass, deadline, started, timer)
        if answered is None:
            return None
        status, out, err = answered  # the user's server answered (or failed, and the answer says so)
        for data, stream in ((out, sys.stdout), (err, sys.stderr)):
            if data:
                stream.flush()
                stream.buffer.write(data)
                stream.buffer.flush()
        return status

    return run_hook(lambda raw, timer: claude_code(raw, agent, turn, policy, on_pass, timer), deadline, warm)


def run_hook(
    answer: Callable[[bytes, Deadline], Answer],
    deadline: float,
    warm: Callable[[Deadline, float], int | None] | None = None,
) -> int:
    """Answer the hook payload on standard input with `answer`, under the `deadline`; the exit status
    the agent reads.  `warm`, when given, may answer first (the user's server).

    Every failure, even one writing the answer, still exits with a status the agent obeys (a pre
    hook's blocks the edit).
    """
    from ..adapters.hook.answer import BLOCK
    from ..adapters.hook.deadline import Deadline

    timer = Deadline(deadline)
    started = time.monotonic()
    try:
        with timer:
            status = warm(timer, started) if warm is not None else None
            if status is not None:
                return status
            said = answer(sys.stdin.buffer.read(), timer)
            # Written and flushed here: a stream that fails must fail inside the hook's guard.
            for text, stream in ((said.stdout, sys.stdout), (said.stderr, sys.stderr)):
                if text:
                    stream.write(text)
                    stream.flush()
    except BaseException as exc:  # a stream that broke, an interrupt: still an answer the agent obeys
        if isinstance(exc, SystemExit):
            raise
        what = "the edit was blocked" if timer.failing == BLOCK else "the write was not recorded"
        try:
            os.write(2, f"agent-guard hook: {type(exc).__name__}: {exc}; {what}\n".encode("utf-8", "replace"))
        except OSError:
            pass
        return timer.failing
    return said.code


def _ask_server(
    agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: float, started: float, timer: Any
) -> tuple[int, bytes, bytes] | None:
    """The user's `agent-guard serve`'s answer to this call (``guard/warm/client.py``), or None when
    this process must do the work itself (no server of the user's, of this code, answers)."""
    if not hasattr(os, "environb"):  # pragma: no cover - no POSIX: no Unix socket
        return None
    from ..warm import client

    words = [
        f"{name}={value}" for name, value in (("--agent", agent), ("--turn", turn), ("--policy", policy)) if value is not None
    ]
    words += [f"--on-pass={on_pass}", f"--deadline={deadline!r}"]
    # The deadline is armed already (`timer`): it bounds the server's answer too.
    return client.ask(
        [os.fsencode(w) for w in words], os.environb, sys.stdin.buffer.read, started, lambda left, total: None, timer.after_write
    )
