"""What the warm-path tests share: a real `agent-guard serve` in a child, fake servers, hook runs.

Every test has its own runtime folder ($XDG_RUNTIME_DIR, set by conftest's ``isolated_git``), so a
server started here is asked by that test's hooks only.  Every child is bounded in time.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from conftest import Repo, checkout_env

from guard.warm import client

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "guard" / "warm" / "hook.py"
AGENT_GUARD = Path(sys.executable).with_name("agent-guard")
SRC = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"


def runtime() -> Path:
    return Path(os.environ["XDG_RUNTIME_DIR"]) / "agent-guard"


def sock_path() -> Path:
    return runtime() / "hook.sock"


def payload(
    repo: Repo, tool: str, tool_input: dict[str, Any], event: str = "PreToolUse", tool_use_id: str = "toolu_01", **extra: Any
) -> bytes:
    data = {
        "session_id": "sess-1",
        "transcript_path": "/nowhere.jsonl",
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
        **extra,
    }
    return json.dumps(data).encode()


def edit(repo: Repo, old: str, new: str, event: str = "PreToolUse", tool_use_id: str = "toolu_01") -> bytes:
    return payload(
        repo, "Edit", {"file_path": str(repo.root / "stats.py"), "old_string": old, "new_string": new}, event, tool_use_id
    )


def warm_hook(
    cwd: Path, data: bytes, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """``python -SI guard/warm/hook.py ARGS``, as the settings from `serve --settings` run it."""
    return subprocess.run(
        [sys.executable, "-SI", str(HOOK), *args],
        input=data,
        cwd=cwd,
        capture_output=True,
        env=checkout_env(env),
        timeout=timeout,
        check=False,
    )


def command_hook(
    cwd: Path, data: bytes, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """`agent-guard hook claude-code ARGS`: the console script Claude Code's plain settings run."""
    return subprocess.run(
        [str(AGENT_GUARD), "hook", "claude-code", *args],
        input=data,
        cwd=cwd,
        capture_output=True,
        env=checkout_env(env),
        timeout=timeout,
        check=False,
    )


def started_hook(
    cwd: Path, data: bytes, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """``python -SI guard/warm/hook.py --start-server ARGS``: what `agent-guard install claude-code` writes."""
    return warm_hook(cwd, data, client.START, *args, env=env, timeout=timeout)


def server_runs() -> bool:
    """Whether a server holds the lock in this test's runtime folder (it runs, or is starting)."""
    lock = runtime() / "server.lock"
    return lock.exists() and client._locked(os.fsencode(lock))


def started() -> list[int]:
    """The processes of servers started by a hook for this test's runtime folder (``guard.warm.started``),
    running or starting (Linux: read from /proc)."""
    mine = b"XDG_RUNTIME_DIR=" + os.fsencode(os.environ["XDG_RUNTIME_DIR"])
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"guard.warm.started" in (entry / "cmdline").read_bytes():
                if mine in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    return found


def wait_started_ended(within: float = 90) -> None:
    """Wait until no server started by a hook for this test is left (each ends: it failed, or was stopped)."""
    ends = time.monotonic() + within
    while started():
        if time.monotonic() > ends:
            raise AssertionError(f"a server started by a hook still runs after {within:g} s")
        time.sleep(0.1)


def stop_started(cwd: Path, within: float = 90) -> None:
    """Stop the servers hooks started for this test (once they listen), and wait until each has ended."""
    ends = time.monotonic() + within
    while server_runs() or started():
        if time.monotonic() > ends:
            raise AssertionError(f"the server a hook started did not stop within {within:g} s")
        if server_runs():
            subprocess.run(
                [sys.executable, "-m", "guard", "serve", "--stop"],
                cwd=cwd,
                env=checkout_env(),
                capture_output=True,
                timeout=60,
                check=False,
            )
        time.sleep(0.2)


def cold_env(tmp: Path) -> dict[str, str]:
    """An environment whose runtime folder holds no server: the hook does the work itself."""
    none = tmp / "no-server"
    none.mkdir(mode=0o700, exist_ok=True)
    return {"XDG_RUNTIME_DIR": str(none)}


def answer(r: subprocess.CompletedProcess[bytes]) -> tuple[int, str, str]:
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


class Server:
    """`agent-guard serve ARGS` in a child, from this checkout; stopped (and waited for) on exit."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.cwd, self.args, self.env = cwd, args, env
        self.log_file = cwd / f"server-{time.monotonic_ns()}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready = ""

    def __enter__(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "guard", "serve", *self.args],
            cwd=self.cwd,
            env=checkout_env(self.env),
            stdout=subprocess.PIPE,
            stderr=self.log_file.open("wb"),
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 90)
        self.ready = self.proc.stdout.readline().decode() if ready else ""
        if "listening" not in self.ready:
            self.__exit__()
            raise AssertionError(f"the server did not start: {self.ready!r}\n{self.log()}")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            subprocess.run(
                [sys.executable, "-m", "guard", "serve", "--stop"],
                cwd=self.cwd,
                env=checkout_env(self.env),
                capture_output=True,
                timeout=60,
                check=False,
            )
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def log(self) -> str:
        return self.log_file.read_text(errors="replace")

    def calls(self) -> list[str]:
        """The calls the server answered, as its log names them ("PreToolUse: exit 2 (3.1 ms)")."""
        return [line.split(" call, ", 1)[1] for line in self.log().splitlines() if " call, " in line]

    @property
    def port(self) -> int:
        return int(self.ready.split("http://127.0.0.1:")[1].split("/")[0])


class Fake:
    """A server on the user's socket that speaks the protocol up to a point, then misbehaves.

    `hello`: the line it says first (default: what a current server says); `then(conn, received)`
    runs after it has read the words (and, with `go`, said "go <deadline>" and read the payload).
    """

    def __init__(
        self,
        then: Callable[[socket.socket, list[bytes]], None] | None = None,
        hello: bytes | None = None,
        go: bool = True,
        deadline: float = 20.0,
    ) -> None:
        self.then, self.go, self.deadline = then, go, deadline
        self.hello = (
            hello
            if hello is not None
            else client.hello(client.build_id(client.package_dir()), client.environment_id(os.environb))
        )
        self.received: list[list[bytes]] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.closing = False

    def __enter__(self) -> Fake:
        runtime().mkdir(mode=0o700, exist_ok=True)
        self.sock.bind(str(sock_path()))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing = True
        self.thread.join(timeout=30)
        self.sock.close()
        sock_path().unlink(missing_ok=True)

    def _serve(self) -> None:
        while not self.closing:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(30)
                got: list[bytes] = []
                self.received.append(got)
                try:
                    if self.hello:
                        conn.sendall(self.hello)
                    for _ in range(5):  # verb, words, environment, folder, umask
                        got.append(client.read_frame(conn, 1 << 24))
                    if self.go:
                        conn.sendall(client.frame(b"go %r" % self.deadline))
                        got.append(client.read_frame(conn, 64))  # the seconds left
                        got.append(client.read_frame(conn, 1 << 30))  # the payload
                    if self.then is not None:
                        self.then(conn, got)
                except (OSError, client.Broken):
                    pass
