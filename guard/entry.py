"""The programs' entry: console scripts and ``python -m guard`` (see ``run``).

`agent-guard check` (``git agent-check``), which a pre-commit hook runs on every
commit, is read here when its arguments are plain: it then skips importing click
(~20 ms of a ~350 ms check of a large commit).  Everything else, and any argument
of `check` this reader does not know (help, an unknown option, an option given
twice, a value that looks like an option), goes to the click CLI in ``guard.cli``,
which owns the help and every message about a mistake in the arguments.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn, Sequence

# True once `run` owns the process: commands may then leave to the exit what it frees.
PROCESS_ENDS_AFTER = False

_VALUED = {"--from-ref": "from_ref", "--to-ref": "to_ref", "--policy": "policy", "--format": "fmt"}
_FLAGS = {"--staged": ("mode", "staged"), "--all-files": ("mode", "all-files"), "--json": ("as_json", True)}


def check_conflict(mode: str | None, from_ref: str | None, to_ref: str | None, fmt: str | None,
                   as_json: bool) -> str | None:
    """What is wrong with a combination of `check`'s options, or None."""
    if as_json and fmt not in (None, "json"):
        return f"--json and --format {fmt} disagree; give one"
    if mode is not None and (from_ref or to_ref):
        return f"--{mode} and --from-ref/--to-ref choose different things to check; give one"
    return None


def parse_check(args: Sequence[str]) -> dict[str, Any] | None:
    """`check`'s arguments as click would read them, or None when click must read them."""
    from .render import RENDERERS

    out: dict[str, Any] = {"paths": [], "mode": None, "from_ref": None, "to_ref": None, "policy": None,
                           "fmt": None, "as_json": False}
    seen: set[str] = set()
    only_paths = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if only_paths or arg == "-" or not arg.startswith("-"):
            out["paths"].append(arg)
            continue
        if arg == "--":
            only_paths = True
            continue
        name, eq, value = arg.partition("=")
        key: str
        given: object
        if name in _VALUED:
            if not eq:
                if i >= len(args) or args[i].startswith("-"):
                    return None  # a missing value, or one that looks like an option
                value = args[i]
                i += 1
            key, given = _VALUED[name], value
        elif name in _FLAGS and not eq:
            key, given = _FLAGS[name]
        else:
            return None
        if key in seen:
            return None
        seen.add(key)
        out[key] = given
    if out["fmt"] is not None and out["fmt"] not in RENDERERS:
        return None
    if check_conflict(out["mode"], out["from_ref"], out["to_ref"], out["fmt"], out["as_json"]) is not None:
        return None
    return out


def failure_status(exc: BaseException, as_json: bool = False) -> int:
    """The exit status of a command that raised `exc`, its message written to stderr.

    The one place failures become a status: 2 for a usage error (ours or click's), 3
    for anything else.  With `as_json` (the command was asked for ``--json``), stdout
    gets the error as the one JSON object a harness parses (``report.error_json``).
    """
    from .errors import UsageError
    from .report import EXIT_INTERNAL, EXIT_USAGE, error_json

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
        status, code, text = EXIT_INTERNAL, "internal", "aborted"
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
    """`args` ask the command for JSON output (``--json``, or check's ``--format json``), so
    even a failure must print one JSON object on stdout."""
    words = list(args[: list(args).index("--")] if "--" in args else args)
    if command is None:
        names = [w for w in words if not w.startswith("-")]
        command = names[0] if names else None
    if command not in JSON_COMMANDS:
        return False
    if "--json" in words:
        return True
    return command == "check" and ("--format=json" in words or any(
        a == "--format" and b == "json" for a, b in zip(words, words[1:])))


# The commands that take --json (tests/test_messages.py checks this against the CLI).
JSON_COMMANDS = frozenset({"apply", "check", "log", "rollback", "stats"})


def _check(args: Sequence[str]) -> int | None:
    """Run `check` read by `parse_check`: its exit status, or None when click must read the arguments."""
    opts = parse_check(args)
    if opts is None:
        return None
    try:
        from .commit_check import run_check

        return run_check(opts["paths"], mode=opts["mode"], from_ref=opts["from_ref"], to_ref=opts["to_ref"],
                         policy=opts["policy"], fmt="json" if opts["as_json"] else opts["fmt"])
    except (Exception, KeyboardInterrupt) as exc:
        return failure_status(exc, opts["as_json"] or opts["fmt"] == "json")


def _main(args: Sequence[str], prog: str, command: str | None) -> int:
    from .cli import main

    try:
        main(args, prog=prog, command=command)
    except SystemExit as exc:
        status = exc.code
    else:  # pragma: no cover - main always exits
        status = 0
    if status is None:
        return 0
    if isinstance(status, int):
        return status
    print(status, file=sys.stderr)
    return 1


def run(argv: Sequence[str] | None = None, prog: str = "agent-guard", command: str | None = None) -> NoReturn:
    """Run one command and end the process: flush, then a quick exit.

    After the command, the interpreter's teardown would free every object one by one
    (a check of a large commit holds one per added line) and unload pygit2: tens of
    milliseconds for nothing.  Nothing of agent-guard waits for the teardown: files
    are closed and renamed, and locks released, before a command returns.
    """
    global PROCESS_ENDS_AFTER
    PROCESS_ENDS_AFTER = True
    args = list(sys.argv[1:] if argv is None else argv)
    rest = args if command == "check" else args[1:] if command is None and args[:1] == ["check"] else None
    status = _check(rest) if rest is not None else None
    if status is None:
        status = _main(args, prog, command)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream
            status = status or 3
    os._exit(status)


def _git(sub: str) -> NoReturn:
    run(sys.argv[1:], prog=f"git agent-{sub}", command=sub)


def git_apply() -> NoReturn:
    _git("apply")


def git_check() -> NoReturn:
    _git("check")


def git_log() -> NoReturn:
    _git("log")


def git_rollback() -> NoReturn:
    _git("rollback")


def git_read() -> NoReturn:
    _git("read")
