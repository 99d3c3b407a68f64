"""The programs: the console scripts (``agent-guard``, ``git-agent-X``) and ``python -m guard``.

``run`` owns the process: it reads argv, runs one command and ends the process.  A
plain `apply`, `check` or `hook claude-code` runs without click (``fast``); everything
else, and any argument of theirs the fast reader does not know, goes to the click CLI
(``commands.main``).
``git agent-X ARGS`` is ``agent-guard X ARGS``: every command is installed as a
``git-agent-X`` script (pyproject.toml), each running ``git``, which reads X from its
own name.  ``agent-guard -C DIR X`` runs X in DIR, as ``git -C DIR`` does.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn, Sequence

from .options import APPLY, CHECK, CLAUDE_CODE, COMMANDS


def _apply(args: Sequence[str]) -> int | None:
    """Run `apply` read by ``fast.parse_apply``: its exit status, or None when click must read the arguments."""
    from .fast import parse_apply, read_input, run_apply, whole_without_input

    opts = parse_apply(args)
    if opts is None or whole_without_input(opts["dialect"], opts["target"], opts["file"]):
        return None
    try:
        data = read_input(opts.pop("file"), opts["quiet"])
    except OSError:
        return None  # click says it, with the usage line
    except KeyboardInterrupt as exc:  # Ctrl-C while it waited for the edit
        return _failed(exc, opts["as_json"])
    try:
        return run_apply(data, **opts)
    except (Exception, KeyboardInterrupt) as exc:
        return _failed(exc, opts["as_json"])


def _check(args: Sequence[str]) -> int | None:
    """Run `check` read by ``fast.parse_check``: its exit status, or None when click must read the arguments."""
    from .fast import parse_check, run_check

    opts = parse_check(args)
    if opts is None:
        return None
    try:
        return run_check(
            opts["paths"],
            mode=opts["mode"],
            from_ref=opts["from_ref"],
            to_ref=opts["to_ref"],
            policy=opts["policy"],
            renderer="json" if opts["as_json"] else opts["renderer"],
            process_ends=True,
            quiet=opts["quiet"],
            baseline_out=opts["baseline_out"],
        )
    except (Exception, KeyboardInterrupt) as exc:
        return _failed(exc, opts["as_json"] or opts["renderer"] == "json")


def _claude_code(args: Sequence[str]) -> int | None:
    """Run `hook claude-code` read by ``fast.parse_claude_code``: its exit status, or None when click must read it."""
    from .fast import parse_claude_code, run_claude_code

    opts = parse_claude_code(args)
    if opts is None:
        return None
    return run_claude_code(**opts)  # answers every failure itself


def _failed(exc: BaseException, as_json: bool) -> int:
    from .failure import failure_status

    return failure_status(exc, as_json)


# The commands read without click (``fast``), by the words that name them: the words are the ones
# ``options.COMMANDS`` declares them under (a declared command with no runner here fails at import).
_RUNNERS = {APPLY: _apply, CHECK: _check, CLAUDE_CODE: _claude_code}
FAST: dict[tuple[str, ...], Callable[[Sequence[str]], int | None]] = {words: _RUNNERS[c] for words, c in COMMANDS.items()}


def _fast(args: Sequence[str], command: str | None) -> int | None:
    """Run a command ``fast`` reads: its exit status, or None when click runs it."""
    words = ([command] if command is not None else []) + list(args)
    for name, runner in FAST.items():
        if tuple(words[: len(name)]) == name:
            return runner(words[len(name) :])
    return None


def _main(args: Sequence[str], prog: str, command: str | None) -> int:
    from .commands import main

    try:
        main(args, prog=prog, command=command, process_ends=True)
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


def change_folder(args: Sequence[str]) -> tuple[list[str], str | None]:
    """`args` without the leading ``-C DIR`` options, having moved to each DIR in turn (as
    ``git -C``: a relative DIR starts from the one before); or the message of the one that
    cannot be entered."""
    rest = list(args)
    while rest and (rest[0] == "-C" or (rest[0].startswith("-C") and rest[0] != "-C")):
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


def run(argv: Sequence[str] | None = None, prog: str = "agent-guard", command: str | None = None) -> NoReturn:
    """Run one command and end the process: flush, then a quick exit.

    After the command, the interpreter's teardown would free every object one by one
    (a check of a large commit holds one per added line) and unload pygit2: time spent
    for nothing (bench/README.md).  Nothing of agent-guard waits for the teardown: files
    are closed and renamed, and locks released, before a command returns.

    An interrupt (Ctrl-C) ends every command the same way (``failure``): a short message,
    the JSON object when one was asked for, and the process dies of the signal, as git
    does, so that the shell sees status 130 and a script's loop stops.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    status: int | None = None
    if command is None:
        args, problem = change_folder(args)
        if problem is not None:
            sys.stderr.write(f"agent-guard: {problem}\n")
            status = 2
    if status is None:
        try:
            status = _fast(args, command)
            if status is None:
                status = _main(args, prog, command)
        except KeyboardInterrupt as exc:  # between the steps the commands guard themselves
            status = _failed(exc, False)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream
            status = status or 3
    if status not in (0, 1, 2, 3):
        from ..report import EXIT_INTERRUPTED

        if status == EXIT_INTERRUPTED:
            import signal

            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
    os._exit(status)


def git() -> NoReturn:
    """``git-agent-X``: the command X, read from the name the program was started by."""
    name = os.path.basename(sys.argv[0]).removesuffix(".exe")
    sub = name.removeprefix("git-agent-") if name.startswith("git-agent-") else ""
    if not sub:
        sys.stderr.write(f"agent-guard: started as {name!r}, which names no git-agent-X command; run agent-guard COMMAND\n")
        os._exit(2)
    _git(sub)


def _git(sub: str) -> NoReturn:
    run(sys.argv[1:], prog=f"git agent-{sub}", command=sub)


# The entry points older installs named, one per command (`git` serves every name now).
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
