"""What every command module builds on: click's settings, the number type, the repository and the report.

The command modules import this one, and none of them imports another command module or
the group (``commands``): the group finds each command through its table, so no import
runs back up.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Sequence

import click

from ..bounds import Bound, OutOfRange

if TYPE_CHECKING:
    from ..pipeline.engine import Guard
    from ..report import Report

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class InRange(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 on; 8.1 is supported
    """A number option held to its range (``guard.bounds``): out of it, a usage error naming the range."""

    def __init__(self, bound: Bound, metavar: str = "N") -> None:
        self.bound = bound
        self.name = "integer" if bound.whole else "number"
        self.metavar = metavar

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return self.metavar

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int | float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # a default, already a number
            problem = self.bound.problem(value)
            if problem is None:
                return value
            self.fail(problem, param, ctx)
        try:
            return self.bound.read(str(value))
        except OutOfRange as exc:
            self.fail(str(exc), param, ctx)


def change_folder(args: Sequence[str]) -> tuple[list[str], str | None]:
    """`args` without the leading ``-C DIR`` options, having moved to each DIR in turn (as
    ``git -C``: a relative DIR starts from the one before); or the message of the one that
    cannot be entered."""
    rest = list(args)
    while rest and rest[0].startswith("-C"):
        if rest[0] == "-C":
            if len(rest) < 2:
                return rest, "option -C requires a folder: agent-guard -C DIR COMMAND"
            folder, rest = rest[1], rest[2:]
        else:
            folder, rest = rest[0][2:], rest[1:]
        if not folder:
            continue  # git ignores an empty -C too
        try:
            os.chdir(folder)
        except OSError as exc:
            return rest, f"cannot change to {folder!r}: {exc.strerror}"
    return rest, None


def in_a_repository(start: str = ".") -> None:
    """A usage error, before anything heavy is imported, when `start` is surely in no repository
    (``guard.files.discovery``): saying so must not cost the import of pygit2, or of the MCP SDK."""
    from ..fs.discovery import outside

    problem = outside(start)
    if problem is not None:
        from ..errors import UsageError

        raise UsageError(problem)


def open_guard(policy: str | None = None) -> Guard:
    """The command's Guard, once a write a crash interrupted is rolled back."""
    from ..pipeline.engine import Guard

    g = Guard(".", policy)
    g.recover()
    return g


def emit(report: Report, as_json: bool, show_diff: bool = False, quiet: bool = False) -> int:
    """Print an `apply` or `rollback` report on standard output, whatever its outcome, and return
    its exit status.

    The report is what the command was asked for, refused or not (as `git diff --check` and
    `git status` print theirs on stdout): a harness that reads stdout gets the findings, and
    standard error is left to what is not the report (usage and internal errors, progress,
    the note that `apply` waits for input).  `quiet`: nothing unless refused.
    """
    if as_json:
        text = report.to_json()
    elif quiet and report.status != "refused":
        return report.exit_code
    else:
        from ..report.render import human
        from .terminal import colour

        text = human(report, show_diff, colour=colour(sys.stdout))
    sys.stdout.write(text + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code
