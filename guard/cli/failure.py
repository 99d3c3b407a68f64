"""Exceptions become exit statuses here, and only here.

``failure_status`` is called by ``commands.main`` for whatever a command raised, and by
``program.run`` for an interrupt between its steps.
"""

from __future__ import annotations

import os
import sys
from typing import Iterator, Sequence

import click


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
    hint = ""
    if isinstance(exc, UsageError):
        status, code, text = EXIT_USAGE, "usage", f"agent-guard: {exc}"
    elif isinstance(exc, click.ClickException):
        status, code, text = EXIT_USAGE, "usage", exc.format_message()
        ctx = getattr(exc, "ctx", None)
        hint = f"see `{ctx.command_path} --help`" if ctx is not None else ""
    elif isinstance(exc, (KeyboardInterrupt, click.exceptions.Abort)):
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
    if isinstance(exc, click.ClickException):
        exc.show()  # click's usage line and "Error: ...", as click prints them
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return status


def json_wanted(command: click.Command, args: Sequence[str]) -> bool:
    """`args` ask `command` (or, for a group, the command they name) for JSON output, so even a
    failure must print one JSON object on stdout.

    A command is asked for JSON by its `as_json` flag (``--json``), or by its `renderer` given
    ``json`` (check's ``--output-format``).  `args` are read as ``_stages`` reads them.
    """
    for _command, _name, given in _stages(command, args):
        for option, eq, text in given:
            if option.is_flag or option.count:
                if option.name == "as_json" and not eq:
                    return True
            elif option.name == "renderer" and text == "json":
                return True
    return False


def with_usage(exc: BaseException, command: click.Command, args: Sequence[str], prog: str) -> BaseException:
    """`exc`, given the context of the command `args` name when it is a usage error click's parser
    raised without one (an option given last without its value), so that it shows the usage lines
    and the help hint as every other option error does."""
    if not isinstance(exc, click.UsageError) or exc.ctx is not None:
        return exc
    ctx: click.Context | None = None
    for cmd, name, _given in _stages(command, args):
        ctx = click.Context(cmd, info_name=name or prog, parent=ctx, **cmd.context_settings)
    return click.UsageError(exc.message, ctx)


def _stages(
    command: click.Command, args: Sequence[str]
) -> Iterator[tuple[click.Command, str | None, list[tuple[click.Option, bool, str]]]]:
    """`command` and each command under it that `args` name: (the command, the name it was given
    (None for `command`), and its options as given: (option, given with `=`, value)).

    `args` are read as click reads them (an option's value is the next word, whatever it looks
    like), but leniently: they may be what click refused (a repeated --json, a missing value).
    """
    rest = list(args)
    name: str | None = None
    while True:
        ctx = click.Context(command)
        options = {flag: p for p in command.get_params(ctx) if isinstance(p, click.Option) for flag in p.opts + p.secondary_opts}
        given: list[tuple[click.Option, bool, str]] = []
        i, named = 0, None
        while i < len(rest) and rest[i] != "--":
            word, eq, text = rest[i].partition("=")
            i += 1
            option = options.get(word)
            if option is None:
                if isinstance(command, click.Group) and not word.startswith("-"):
                    named = word  # the group's command: the words after it are its own
                    break
                continue
            if not (option.is_flag or option.count) and not eq:
                text = rest[i] if i < len(rest) else ""
                i += 1
            given.append((option, bool(eq), text))
        yield command, name, given
        found = command.get_command(ctx, named) if isinstance(command, click.Group) and named is not None else None
        if found is None:
            return
        command, name, rest = found, named, rest[i:]
