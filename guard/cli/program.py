"""The programs: the console scripts (``agent-guard``, ``git-agent-X``) and ``python -m guard``.

``run`` owns the process: it reads argv with click (``commands.main``), runs one
command and ends the process.  ``git agent-X ARGS`` is ``agent-guard X ARGS``: every
command is installed as a ``git-agent-X`` script (pyproject.toml), each running ``git``,
which reads X from its own name.  ``agent-guard -C DIR X`` runs X in DIR, as
``git -C DIR`` does.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn, Sequence

from .base import change_folder
from .commands import main


def _main(args: Sequence[str], prog: str, command: str | None) -> int:
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
    (a check of a large commit holds one per added line) and unload pygit2, work that
    serves nothing (``bench/README.md``).  Nothing of agent-guard waits for the teardown: files
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
            status = _main(args, prog, command)
        except KeyboardInterrupt as exc:  # between the steps the commands guard themselves
            from .failure import failure_status

            status = failure_status(exc)
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
    run(sys.argv[1:], prog=f"git agent-{sub}", command=sub)
