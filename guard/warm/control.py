"""Asking the user's running server from a command: `serve --status`, `serve --stop`, and
`serve --detach`, which starts one in a new session and waits until it listens (``server``).
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path
from typing import Callable

from ..errors import UsageError
from . import client
from .server import LOG_NAME, folder_of_user, log, prepare_folder


def ask_server(verb: bytes) -> tuple[bytes, bytes] | None:
    """(the server's hello, its one-frame answer to `verb`), or None when no server of the user's answers."""
    got = client.connect(os.environb, 5.0)
    if got is None:
        return None
    sock, said = got
    try:
        sock.sendall(client.frame(verb))
        return said, client.read_frame(sock, 1 << 20)
    except (OSError, client.Broken):
        return None
    finally:
        sock.close()


def status_text() -> tuple[int, str]:
    """(exit status, what to print) for `serve --status`: 0 when a current server runs."""
    import json

    folder = folder_of_user()
    path = folder / os.fsdecode(client.SOCKET_NAME)
    problem = client.folder_problem(os.fsencode(folder), os.geteuid())
    if problem is not None and os.path.lexists(folder):
        return 1, f"no server: {problem}"
    got = ask_server(b"status")
    if got is None:
        return 1, f"no server answers at {path}"
    said, data = got
    try:
        info = json.loads(data)
    except ValueError:
        return 1, f"the server at {path} does not answer as this agent-guard does; stop it: agent-guard serve --stop"
    http = f", http://127.0.0.1:{info.get('http')}/claude-code" if info.get("http") else ""
    text = (
        f"running: pid {info.get('pid')}, "
        f"since {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(info.get('started', 0)))}, "
        f"on {path}{http}" + (f", ends after {info['idle_exit']:g} s without a call" if info.get("idle_exit") else "")
    )
    if http:  # on a line of its own, for a script to take: the http hook's settings need the token
        text += f"\nhttp token: {folder / client.TOKEN_NAME}"
    if said != client.hello(client.build_id(client.package_dir()), client.environment_id(os.environb)):
        return 1, (
            text + f"\nstale: it runs agent-guard's code from {info.get('package')} as it was when it started, "
            "or another home folder; hooks do the work themselves until it is restarted "
            "(agent-guard serve --stop, then start it again)"
        )
    return 0, text + "\ncurrent: hooks are answered by it"


def token_file() -> tuple[int, str]:
    """(exit status, what to print) for `serve --token-file`: the path of the file that holds the http
    form's token, which a server started with --http made (it stays while the folder lasts), or
    (exit 1) why there is none yet."""
    path = folder_of_user() / client.TOKEN_NAME
    if os.path.isfile(path):
        return 0, str(path)
    return 1, (
        f"no token yet at {path}: agent-guard serve --http PORT makes it (in $XDG_RUNTIME_DIR/agent-guard, "
        "else agent-guard-UID in $TMPDIR or /tmp)"
    )


def stop() -> tuple[int, str]:
    """(exit status, what to print) for `serve --stop`."""
    folder = folder_of_user()
    path = folder / os.fsdecode(client.SOCKET_NAME)
    if ask_server(b"stop") is None:
        return 0, f"no server answers at {path}: nothing to stop"
    for _ in range(100):  # the parent stops its loop within a second, and removes the socket
        if not os.path.lexists(path):
            return 0, "stopped"
        time.sleep(0.05)
    return 1, f"asked to stop, but {path} is still there after 5 s"


def detach(start: Callable[[Callable[[str], None]], object], folder: Path) -> tuple[int, str]:
    """Run `start` in a new session, its output going to the log file; wait until it is ready or failed."""
    prepare_folder(folder)  # its problems are said here, not in a log
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as said:
            first = said.readline().decode(errors="replace").strip()
        os.waitpid(pid, 0)
        if first.startswith("ready "):
            return 0, first[len("ready ") :] + f"\nlog: {folder / LOG_NAME}"
        return 2, first or f"the server did not start; see {folder / LOG_NAME}"
    os.close(read_end)
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        fd = os.open(folder / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.close(null)

        def ready(text: str) -> None:
            log(text)
            os.write(write_end, f"ready {text}\n".encode())
            os.close(write_end)

        try:
            start(ready)
        except UsageError as exc:
            log(str(exc))
            os.write(write_end, f"agent-guard serve: {exc}\n".encode())
            os._exit(2)
    except BaseException:
        log(traceback.format_exc())
        os._exit(3)
    os._exit(0)
