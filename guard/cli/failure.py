"""Exceptions become exit statuses here, and only here.

``failure_status`` is called by both ways into a command: click's (``commands.main``)
and the click-free `check` (``program``).  It must not import click: an exception of
click's means click is loaded already.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

# The commands that take --json (tests/test_messages.py checks this against the CLI); a group's
# command by its two words.
JSON_COMMANDS = frozenset({"apply", "check", "log", "show", "rollback", "read", "stats", "policy show", "policy list", "session"})


def failure_status(exc: BaseException, as_json: bool = False) -> int:
    """The exit status of a command that raised `exc`, its message written to stderr.

    The one place failures become a status: 2 for a usage error (ours or click's), 130
    for an interrupt (Ctrl-C: git's status; ``program.run`` then dies of the signal), 3
    for anything else.  With `as_json` (the command was asked for ``--json``), stdout
    gets the error as the one JSON object a harness parses (``report.error_json``).
    """
    from ..errors import UsageError
    from ..report import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, error_json

    if isinstance(exc, BrokenPipeError):
        return EXIT_INTERNAL
    click = sys.modules.get("click")  # an exception of click's means click is loaded
    hint = ""
    if isinstance(exc, UsageError):
        status, code, text = EXIT_USAGE, "usage", f"agent-guard: {exc}"
    elif click is not None and isinstance(exc, click.ClickException):
        status, code, text = EXIT_USAGE, "usage", exc.format_message()
        ctx = getattr(exc, "ctx", None)
        hint = f"see `{ctx.command_path} --help`" if ctx is not None else ""
    elif isinstance(exc, KeyboardInterrupt) or (click is not None and isinstance(exc, click.exceptions.Abort)):
        # A write it cut short is undone before the process ends (``worktree.write``).
        status, code, text = EXIT_INTERRUPTED, "interrupted", "agent-guard: interrupted"
    elif os.environ.get("AGENT_GUARD_DEBUG") and isinstance(exc, Exception):
        raise exc
    else:
        status, code, text = EXIT_INTERNAL, "internal", f"agent-guard: internal error: {type(exc).__name__}: {exc}"
    if as_json:
        message = text.removeprefix("agent-guard: ")
        sys.stdout.write(error_json(code, message, hint) + "\n")
        sys.stdout.flush()
    if click is not None and isinstance(exc, click.ClickException):
        exc.show()  # click's usage line and "Error: ...", as click prints them
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return status


def json_wanted(args: Sequence[str], command: str | None) -> bool:
    """`args` ask the command for JSON output, so even a failure must print one JSON object on stdout.

    A command declared in ``options`` (`apply`, `check`) answers from its declaration
    (``--json``, check's ``--output-format json``); the others take ``--json``.
    """
    words = list(args[: list(args).index("--")] if "--" in args else args)
    names = [w for w in words if not w.startswith("-")]
    if command is None:
        command = names.pop(0) if names else None
    if command is not None and names and f"{command} {names[0]}" in JSON_COMMANDS:
        command = f"{command} {names[0]}"  # a group's command: `policy show` (`git agent-policy show`)
    if command not in JSON_COMMANDS:
        return False
    from .options import COMMANDS

    declared = COMMANDS.get(tuple(command.split()))
    return declared.json_wanted(args) if declared is not None else "--json" in words
