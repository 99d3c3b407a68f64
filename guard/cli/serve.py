"""The click command `serve`: the user's warm hook server (guard/warm/) on the command line."""

from __future__ import annotations

import json
import shlex
import sys

import click

from ..adapters.install import MATCHER, TIMEOUT, fail_closed  # as hooks/claude-code-settings.json has them
from ..bounds import IDLE_SECONDS, PORT
from ..warm import client
from .base import CONTEXT, InRange


@click.command("serve", context_settings=CONTEXT)
@click.option(
    "--http",
    "http_port",
    type=InRange(PORT, "PORT"),
    default=None,
    help="Also answer Claude Code's http hook form on 127.0.0.1:PORT (0: a free port), to requests with "
    "the token in the server's http-token file (--token-file prints where it is). An http hook that fails lets the edit through "
    'unless its settings say "onFailure": "block": prefer the command form.',
)
@click.option(
    "--detach", is_flag=True, help="Run in the background (its log: server.log beside the socket); return once it listens."
)
@click.option(
    "--idle-exit",
    "idle_exit",
    type=InRange(IDLE_SECONDS, "SECONDS"),
    default=None,
    help="End after SECONDS without a hook call (default: run until stopped). A server the hooks of "
    f"`agent-guard install claude-code` start has {client.IDLE_EXIT}.",
)
@click.option("--stop", "action", flag_value="stop", help="Stop your server.")
@click.option(
    "--status",
    "action",
    flag_value="status",
    help="Say whether your server runs, and whether it runs this code (exit 1 when not).",
)
@click.option(
    "--token-file",
    "action",
    flag_value="token-file",
    help="Print the path of the file that holds the http form's token (exit 1 when no server "
    "started with --http has made it yet).",
)
@click.option(
    "--settings",
    "action",
    flag_value="settings",
    help="Print Claude Code settings whose hooks use the server (with --http PORT: the http form).",
)
def serve_cmd(http_port: int | None, detach: bool, idle_exit: int | None, action: str | None) -> None:
    """`agent-guard hook claude-code` asks it when it runs (and does the work itself
    when it does not); the settings from --settings run a smaller command that
    starts in a fraction of the time. The socket is in $XDG_RUNTIME_DIR/agent-guard
    (else agent-guard-UID in $TMPDIR or /tmp), a folder only you can open; a hook
    never asks a server that is not yours or that runs other code. Every failure
    of a pre hook still denies the edit.
    """
    from ..warm import control, server

    if action == "settings":
        if http_port == 0:
            raise click.UsageError("--settings --http PORT: give the port the server listens on, not 0")
        click.echo(json.dumps(settings(http_port), indent=2))
        return
    if action is not None and (http_port is not None or detach or idle_exit is not None):
        raise click.UsageError(f"--{action} takes no other option")
    if action == "status":
        status, text = control.status_text()
        click.echo(text)
        sys.exit(status)
    if action == "token-file":
        status, text = control.token_file()
        click.echo(text, err=status != 0)
        sys.exit(status)
    if action == "stop":
        status, text = control.stop()
        click.echo(text)
        sys.exit(status)
    if detach:
        status, text = control.detach(lambda ready: server.serve(http_port, ready, idle_exit), server.folder_of_user())
        click.echo(text, err=status != 0)
        sys.exit(status)
    server.serve(http_port, lambda text: click.echo(text), idle_exit)


def warm_command(start_server: bool) -> str:
    """The warm hook command of this installation (``python -SI .../guard/warm/hook.py``) as a shell
    line, fail-closed; with `start_server`, it starts a server when none runs (``client.START``)."""
    from pathlib import Path

    from ..warm import hook

    words = [sys.executable, "-SI", str(Path(hook.__file__).resolve())] + ([client.START] if start_server else [])
    return fail_closed(" ".join(shlex.quote(w) for w in words))


def settings(http_port: int | None) -> dict[str, object]:
    """Claude Code's hook settings for the warm path: the command form, or (with a port) the http form."""
    if http_port is None:
        command = warm_command(start_server=False)
        entry: dict[str, object] = {"type": "command", "command": command, "timeout": TIMEOUT}
        return {"hooks": {event: [{"matcher": MATCHER, "hooks": [entry]}] for event in ("PreToolUse", "PostToolUse")}}
    http: dict[str, object] = {
        "type": "http",
        "url": f"http://127.0.0.1:{http_port}/claude-code",
        "headers": {"Authorization": "Bearer $AGENT_GUARD_TOKEN"},
        "allowedEnvVars": ["AGENT_GUARD_TOKEN"],
        "timeout": TIMEOUT,
    }
    return {
        "hooks": {
            "PreToolUse": [{"matcher": MATCHER, "hooks": [dict(http, onFailure="block")]}],
            "PostToolUse": [{"matcher": MATCHER, "hooks": [http]}],
        }
    }
