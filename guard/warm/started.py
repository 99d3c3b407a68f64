"""The server a hook started (``client.start_server``): `agent-guard serve --idle-exit SECONDS`, run
in a session of its own with its output in the server's log.

It differs from a server the user starts in what it does with the starts file (``client.STARTS_NAME``):

- once it listens, the file goes: the next start (after this server has ended) is made at once;
- when it cannot start, or its workers cannot work, the file stays, so the hooks back off before
  the next start, and why goes in the log once: a reason is written there only when it is not the
  one the file already holds (the last one said);
- when another server holds the lock (two hooks started one each at the same moment), it ends
  without a word: that one serves.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path
from typing import Sequence

from ..errors import UsageError
from . import client
from .server import AlreadyRunning, folder_of_user, log, serve


def run(argv: Sequence[str]) -> None:
    """`serve --idle-exit ARGV[0]`, as a hook started it; ends the process."""
    folder = folder_of_user()
    try:
        os.chdir(folder)  # not the hook's repository: the server holds no one's folder
        idle = float(argv[0])
        done = serve(None, lambda text: listening(folder, text), idle)
    except AlreadyRunning:  # another hook started one at the same moment: that one serves
        log("a server runs already; this one, started by a hook at the same moment, ends")
        os._exit(0)
    except UsageError as exc:
        failed(folder, str(exc))
        os._exit(2)
    except BaseException:
        failed(folder, traceback.format_exc().rstrip())
        os._exit(3)
    if done.broken:
        failed(folder, done.stopping)
    os._exit(0)


def listening(folder: Path, text: str) -> None:
    log(text)
    try:
        os.unlink(folder / os.fsdecode(client.STARTS_NAME))
    except FileNotFoundError:
        pass


def failed(folder: Path, why: str) -> None:
    """Say `why` in the log unless it was the last reason said; keep it in the starts file."""
    starts, _, said = client.read_starts(os.fsencode(folder / os.fsdecode(client.STARTS_NAME)))
    reason = why.encode("utf-8", "backslashreplace")
    if reason == said:
        return
    log(
        f"a server started by a hook could not serve: {why}; hooks do the work themselves and start "
        "one again later, less and less often (this is said once)"
    )
    try:
        client.write_starts(os.fsencode(folder), max(starts, 1), reason)
    except OSError:
        pass
