"""`agent-guard serve`: the user's hook server, for every repository (the warm path).

The shape is a pre-forking server.  One parent holds the user's socket (``client.runtime_dir``)
and the optional http listener on 127.0.0.1 (``httpform``), and keeps worker processes: each
forked once everything a hook call imports is loaded, warmed up by hook calls of its own on a
scratch repository (so that the pages a call touches are its own before a real call comes), then
waiting on the listeners and answering calls one at a time.  ``SPARES`` workers are kept idle, so
that calls made at once (Claude Code runs the hooks of parallel tool calls together) each find one.
For a call, a worker takes the calling hook's environment, current folder and umask (and gives
them back after): what the command would have had; the adapter's own deadline alarm (``Deadline``)
ends the worker when it fires, so the connection closes and the client denies, and the parent
forks another.  A call that hangs is ended by the parent after ``LIFETIME``; a worker retires after
``CALLS`` calls.  The repository is the payload's, found by the adapter as in the command: one
server serves every repository of the user.  Between calls nothing is kept but what a long-lived
process of the package keeps anyway (compiled patterns and the like, as the MCP server and the
Python API's sessions do): the adapter opens the repository and reads its policy for each call.

The socket is bound under another name (``PENDING_NAME``) and renamed into place once workers are
warm: until then a hook finds no server (and does the work itself) rather than waiting for one.
The parent ends the server when the code on disk is no longer the code it runs (a checkout, an
upgrade: ``client.build_id``), when its socket is gone (clients would not ask it any more), or,
with an idle limit (`serve --idle-exit`, which a server started by a hook has), when no call came
for that long.  A socket only this user can reach, and a peer that is this user, are checked by
both sides.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import UsageError
from . import client
from .client import MAX_PAYLOAD

SPARES = 2  # idle workers kept ready
MAX_IDLE = 4  # idle workers past this many are retired (after a burst of parallel calls)
MAX_WORKERS = 16  # workers at most: past this, a call waits for one (a hook's client gives up after a second)
CALLS = 500  # calls a worker answers before it retires (whatever a call leaves behind is bounded)
LIFETIME = 600.0  # seconds a call may take before the parent ends it (Claude Code's longest hook timeout)
STALE_CHECK = 5.0  # seconds between the parent's checks of the code on disk and of its socket
READY_WAIT = 60.0  # seconds the server waits for its first workers to warm up before it says it listens
LOCK_NAME, LOG_NAME = os.fsdecode(client.LOCK_NAME), os.fsdecode(client.LOG_NAME)
WARMUP_NAME, PENDING_NAME = "warm-up", "hook.new"  # no longer than SOCKET_NAME: a socket's path is short
WARMUP_SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(40)).encode()


def folder_of_user() -> Path:
    """The user's runtime folder (``client.runtime_dir``), as a path."""
    return Path(os.fsdecode(client.runtime_dir(os.environb, os.geteuid())))


def prepare_folder(folder: Path) -> None:
    """Make the user's folder (mode 0700) when it is missing; a UsageError when it is not private."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UsageError(
            f"cannot make {folder} for the server's socket: {exc.strerror}; set XDG_RUNTIME_DIR to a folder only you can open"
        ) from None
    problem = client.folder_problem(os.fsencode(folder), os.geteuid())
    if problem is not None:
        raise UsageError(
            f"{problem}: the server's socket must be in a folder only you can open; remove it "
            "(nothing of yours is in it), or set XDG_RUNTIME_DIR to your session's folder"
        )


def log(text: str) -> None:
    try:
        sys.stderr.write(f"agent-guard serve [{os.getpid()}] {time.strftime('%H:%M:%S')}: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------- what the processes load


def preload() -> None:
    """Import every module of the package, and the libraries the checks load on demand."""
    import importlib
    import pkgutil

    import guard

    for info in pkgutil.walk_packages(guard.__path__, "guard."):
        if info.name == "guard.__main__":  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra (mcp) that is not installed
            pass
    for name in ("yaml", "charset_normalizer"):
        try:
            importlib.import_module(name)
        except ImportError:  # pragma: no cover - dependencies of the package
            pass


def make_warmup_repo(folder: Path) -> Path:
    """A fresh scratch repository in the user's folder, for the warm-up calls."""
    import shutil

    from ..repo import fresh

    repo = folder / WARMUP_NAME
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(mode=0o700)
    fresh.create(repo, {"warm.py": WARMUP_SOURCE})
    return repo


def warm_up(repo: Path) -> None:
    """A pass through what a call does: a pre hook's check of an Edit and of a Write (nothing is written
    but the pre hook's stash, in the scratch repository)."""
    import json

    from ..adapters.claude_code import claude_code

    for n, (tool, tool_input) in enumerate(
        (
            ("Edit", {"file_path": str(repo / "warm.py"), "old_string": "return x + 7\n", "new_string": "return x + 8\n"}),
            ("Write", {"file_path": str(repo / "new.py"), "content": "def g(y):\n    return y\n"}),
        )
    ):
        payload = {
            "session_id": "warm-up",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": f"warm-up-{n}",
        }
        claude_code(json.dumps(payload).encode(), "warm-up", None, None, "defer")


# ---------------------------------------------------------------------- one call on the socket


def serve_socket(conn: socket.socket, ident: bytes, status: Callable[[], dict[str, Any]]) -> str | None:
    """Answer one connection on the user's socket (``client``'s protocol), in this process; what it
    answered, for the log (None for no hook call)."""
    from ..adapters.claude_code import Deadline, claude_code
    from ..cli.adapters import hook_options

    uid = os.geteuid()
    peer = client.peer_uid(conn)
    if peer is not None and peer != uid:
        log(f"refused a connection from uid {peer}")
        return None
    conn.settimeout(client.HANDSHAKE)
    conn.sendall(ident)
    verb = client.read_frame(conn, 16)
    if verb == b"status":
        import json

        conn.sendall(client.frame(json.dumps(status()).encode()))
        return None
    if verb == b"stop":
        log("stopping, as asked")
        os.kill(os.getppid(), signal.SIGTERM)
        conn.sendall(client.frame(b"stopping"))
        return None
    if verb != b"hook":
        return None
    words = client.read_frame(conn, 1 << 20)
    env = client.read_frame(conn, 1 << 24)
    cwd = client.read_frame(conn, 1 << 16)
    umask = int(client.read_frame(conn, 8))
    opts = hook_options([os.fsdecode(w) for w in words.split(b"\0")] if words else [])
    if opts is None:
        conn.sendall(client.frame(b"cold"))  # click reads these (help, a mistake): the client runs the command
        return "arguments for the command line to read: left to the hook"
    conn.sendall(client.frame(b"go %r" % opts["deadline"]))
    conn.settimeout(opts["deadline"] + client.HANDSHAKE)  # the client's own alarm is the deadline that counts
    left = float(client.read_frame(conn, 32))
    raw = client.read_frame(conn, MAX_PAYLOAD)
    event = client.payload_event(raw)
    failing = client.REPORTED if event == "PostToolUse" else client.BLOCK
    try:
        _become_caller(env, cwd, umask)
    except OSError as exc:
        conn.sendall(_frames(*client.failure(failing, f"cannot enter {os.fsdecode(cwd)}: {exc.strerror}")))
        return f"{event}: cannot enter the caller's folder"
    timer = Deadline(min(max(left, 0.001), opts["deadline"]))
    with timer:
        answer = claude_code(raw, opts["agent"], opts["turn"], opts["policy"], opts["on_pass"], timer)
        conn.settimeout(None)
        conn.sendall(
            _frames(
                answer.code, answer.stdout.encode("utf-8", "backslashreplace"), answer.stderr.encode("utf-8", "backslashreplace")
            )
        )
    return f"{event}: exit {answer.code}"


def _become_caller(env: bytes, cwd: bytes, umask: int) -> None:
    """This process takes the calling hook's environment, folder and umask: what the command would have had."""
    os.environ.clear()
    for item in env.split(b"\0"):
        key, eq, value = item.partition(b"=")
        if eq and key:
            os.environb[key] = value
    os.umask(umask & 0o777)
    os.chdir(cwd)


def _frames(status: int, out: bytes, err: bytes) -> bytes:
    return client.frame(b"%d" % status) + client.frame(out) + client.frame(err)


# ---------------------------------------------------------------------- the server


class AlreadyRunning(UsageError):
    """Another server holds the user's lock: it runs, or is starting."""


class Server:
    """The parent: listeners, lock, workers (a resource: ``with Server(...) as s: s.run()``).

    `idle_exit`: seconds without a call after which it ends (None: never).
    """

    def __init__(
        self, folder: Path, http_port: int | None, on_ready: Callable[[str], None], idle_exit: float | None = None
    ) -> None:
        self.folder, self.http_port, self.on_ready, self.idle_exit = folder, http_port, on_ready, idle_exit
        self.path = folder / os.fsdecode(client.SOCKET_NAME)
        self.pending = folder / PENDING_NAME  # where the socket is bound until it is published (``_publish``)
        self.published = False
        self.package = client.package_dir()
        self.build = client.build_id(self.package)
        self.ident = client.hello(self.build, client.environment_id(os.environb))
        self.pid = os.getpid()
        self.started = time.time()
        self.listeners: list[tuple[socket.socket, str]] = []
        self.token: bytes | None = None
        self.idle: dict[int, float] = {}
        self.busy: dict[int, float] = {}
        self.stopping = ""
        self.broken = False  # stopping because the workers cannot work, not because it was asked or idle
        self.last_call = time.monotonic()  # when a worker last took or finished a call
        self.failures: list[float] = []  # when workers died idle, lately
        self.warm: set[int] = set()  # workers that have warmed up (and said so)
        self.warmup = folder / WARMUP_NAME
        self._lock_fd = -1
        self._socket_id: tuple[int, int] | None = None

    # ------------------------------------------------------------------ set up and take down

    def __enter__(self) -> Server:
        prepare_folder(self.folder)
        self._lock()
        try:
            self._listen()
            preload()
            if client.build_id(self.package) != self.build:
                raise UsageError("agent-guard's files changed while the server started; start it again")
            make_warmup_repo(self.folder)
            warm_up(self.warmup)
            gc.collect()
            gc.freeze()  # the workers share these pages: the collector must not write to them
            os.chdir(self.folder)  # a server holds no one's folder; each call enters its caller's
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for pid in (*self.idle, *self.busy):
            _kill(pid, signal.SIGUSR1)  # they leave at their next look (a call under way is finished first)
        self._close()

    def _lock(self) -> None:
        import fcntl

        fd = os.open(self.folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        for _ in range(5):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.02)  # a hook looking whether a server runs holds it for an instant (``client._locked``)
        else:
            os.close(fd)
            raise AlreadyRunning(
                f"a server already runs for you in {self.folder} (agent-guard serve --status); "
                "stop it first: agent-guard serve --stop"
            ) from None
        self._lock_fd = fd

    def _listen(self) -> None:
        for path in (self.path, self.pending):
            try:
                os.lstat(path)
            except FileNotFoundError:
                continue
            # left by a server that ended without cleaning up: the lock says none runs
            problem = client.socket_problem(os.fsencode(path), os.geteuid())
            if problem is not None:
                raise UsageError(f"{problem}; remove it and start again")
            os.unlink(path)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listeners.append((unix, "unix"))
        unix.bind(os.fsencode(self.pending))
        os.chmod(self.pending, 0o600)
        unix.listen(64)
        st = os.lstat(self.pending)
        self._socket_id = (st.st_dev, st.st_ino)
        if self.http_port is not None:
            from . import httpform

            self.token = httpform.token(self.folder)
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.listeners.append((tcp, "http"))
            tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                tcp.bind(("127.0.0.1", self.http_port))  # never another address
            except OSError as exc:
                raise UsageError(f"cannot listen on 127.0.0.1:{self.http_port}: {exc.strerror}") from None
            tcp.listen(64)
            self.http_port = tcp.getsockname()[1]
        for sock, _ in self.listeners:
            sock.setblocking(False)

    def _publish(self) -> None:
        """Put the socket where hooks look for it (replacing, at once, one left by a server that ended)."""
        os.rename(self.pending, self.path)
        self.published = True

    def _close(self) -> None:
        for sock, _ in self.listeners:
            sock.close()
        self.listeners = []
        if self._socket_id is not None and self._still_ours():
            try:
                os.unlink(self.path if self.published else self.pending)
            except OSError:
                pass
        self._socket_id = None
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    def _still_ours(self) -> bool:
        try:
            st = os.lstat(self.path if self.published else self.pending)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self._socket_id

    def status(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "started": self.started,
            "build": self.build.decode(),
            "socket": str(self.path),
            "http": self.http_port,
            "package": os.fsdecode(self.package),
            "idle_exit": self.idle_exit,
        }

    # ------------------------------------------------------------------ the parent's loop

    def run(self) -> str:
        """Serve until stopped; the reason it stopped."""
        wake_r, wake_w = os.pipe()  # (close-on-exec, as every descriptor Python makes)
        notify_r, notify_w = os.pipe()
        for fd in (wake_r, wake_w, notify_r):
            os.set_blocking(fd, False)
        old = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
        old[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.set_wakeup_fd(wake_w)
        try:
            # The token's file is named: where it is depends on $XDG_RUNTIME_DIR and $TMPDIR, and the
            # http hook's settings need it (`serve --token-file` prints it again).
            where = f"{self.path}" + (
                f" and http://127.0.0.1:{self.http_port}/claude-code, its token in {self.folder / client.TOKEN_NAME}"
                if self.token
                else ""
            )
            announce: str | None = (
                f"agent-guard serve: listening on {where} (pid {self.pid}); stop it with: agent-guard serve --stop"
            )
            checked = started = time.monotonic()
            while not self.stopping:
                if announce is not None and (len(self.warm) >= SPARES or time.monotonic() - started > READY_WAIT):
                    self._publish()
                    self.on_ready(announce)  # once workers are warm: a call from now on finds one
                    announce = None
                    self.last_call = time.monotonic()
                self._reap()
                while len(self.idle) < SPARES and len(self.idle) + len(self.busy) < MAX_WORKERS and not self.stopping:
                    self._fork_worker(notify_w, (wake_r, wake_w, notify_r))
                for pid in list(self.idle)[MAX_IDLE:]:
                    _kill(pid, signal.SIGUSR1)  # retire: it leaves at its next look, never in a call
                    del self.idle[pid]
                try:
                    select.select([notify_r, wake_r], [], [], 1.0)
                except InterruptedError:  # pragma: no cover - retried by Python (PEP 475)
                    pass
                _drain(wake_r)
                self._take_news(notify_r)
                now = time.monotonic()
                self._end_overdue(now, announce is None)
                if now - checked > STALE_CHECK:
                    checked = now
                    self._check_still_current()
        finally:
            signal.set_wakeup_fd(-1)
            for sig, handler in old.items():
                signal.signal(sig, handler)
            for fd in (wake_r, wake_w, notify_r, notify_w):
                os.close(fd)
        log(f"stopped: {self.stopping}")
        return self.stopping

    def _take_news(self, notify_r: int) -> None:
        """What the workers said since the last look: which took a call, which finished one."""
        for pid, busy in _states(notify_r):
            self.warm.add(pid)
            self.last_call = time.monotonic()
            if busy:
                self.idle.pop(pid, None)
                self.busy[pid] = time.monotonic()
            elif self.busy.pop(pid, None) is not None:
                self.idle[pid] = time.monotonic()

    def _end_overdue(self, now: float, listening: bool) -> None:
        """End a call that ran past ``LIFETIME``; stop the server once it has been idle for ``idle_exit``."""
        for pid, since in list(self.busy.items()):
            if now - since > LIFETIME:
                log(f"a call in worker {pid} ran past {LIFETIME:g} s; ended")
                _kill(pid, signal.SIGKILL)
                del self.busy[pid]
        if self.idle_exit is not None and listening and not self.busy and now - self.last_call > self.idle_exit:
            self.stopping = f"no call for {self.idle_exit:g} s (--idle-exit)"

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = f"signal {signal.Signals(signum).name}"

    def _check_still_current(self) -> None:
        if not self._still_ours():
            self.stopping = f"{self.path} is no longer this server's socket"
        elif client.build_id(self.package) != self.build:
            self.stopping = "agent-guard's files changed since the server started (start it again to serve them)"

    def _reap(self) -> None:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.idle.pop(pid, None) is not None:  # it died before it took a call: a broken set-up
                now = time.monotonic()
                self.failures = [t for t in self.failures if now - t < 10.0] + [now]
                if len(self.failures) > 10:
                    self.stopping = "workers keep ending before they take a call; see the log above"
                    self.broken = True
            self.busy.pop(pid, None)
            self.warm.discard(pid)

    # ------------------------------------------------------------------ a worker

    def _fork_worker(self, notify_w: int, parent_fds: tuple[int, ...]) -> None:
        pid = os.fork()
        if pid:
            self.idle[pid] = time.monotonic()
            return
        code = 0
        try:  # the worker: never returns
            signal.set_wakeup_fd(-1)
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
                signal.signal(sig, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # ^C stops the parent; a call under way finishes
            retiring = [False]
            signal.signal(signal.SIGUSR1, lambda signum, frame: retiring.__setitem__(0, True))
            for fd in (*parent_fds, self._lock_fd):
                os.close(fd)
            warm_up(self.warmup)
            gc.collect()
            os.write(notify_w, os.getpid().to_bytes(8, "big") + b"I")  # warm, and waiting
            self._work(notify_w, retiring)
        except BaseException:
            log("".join(traceback.format_exc()))
            code = 1
        finally:
            os._exit(code)

    def _work(self, notify_w: int, retiring: list[bool]) -> None:
        """Answer calls, one at a time, until retired, told to, or orphaned."""
        kinds = dict(self.listeners)
        me = os.getpid().to_bytes(8, "big")
        env, mask = dict(os.environb), os.umask(0o022)
        os.umask(mask)
        for done in range(1, CALLS + 1):
            conn = None
            while conn is None:
                if retiring[0] or os.getppid() != self.pid:
                    return
                try:
                    ready, _, _ = select.select(list(kinds), [], [], 1.0)
                except InterruptedError:  # pragma: no cover - retried by Python (PEP 475)
                    continue
                for sock in ready:
                    try:
                        conn, _ = sock.accept()
                    except (BlockingIOError, InterruptedError):  # another worker took it
                        continue
                    kind = kinds[sock]
                    break
            os.write(notify_w, me + b"B")
            self._call(conn, kind, env, mask)
            if done == CALLS:
                return  # retired: the parent forks another when it reaps this one
            try:
                os.write(notify_w, me + b"I")
            except BrokenPipeError:  # the parent has ended (this call asked it to stop): so does the worker
                return

    def _call(self, conn: socket.socket, kind: str, env: dict[bytes, bytes], mask: int) -> None:
        """Answer one call, then put the worker back as the call found it: its environment, umask
        and folder."""
        try:
            self._answer(conn, kind)
        finally:
            os.environ.clear()
            os.environb.update(env)
            os.umask(mask)
            os.chdir(self.folder)

    def _answer(self, conn: socket.socket, kind: str) -> None:
        conn.setblocking(True)
        started = time.monotonic()
        try:
            if kind == "unix":
                said = serve_socket(conn, self.ident, self.status)
            else:
                from . import httpform

                assert self.token is not None and self.http_port is not None
                said = httpform.serve_request(conn, self.token, self.http_port)
            if said is not None:
                log(f"{kind} call, {said} ({(time.monotonic() - started) * 1000:.1f} ms)")
        except (OSError, client.Broken, ValueError) as exc:  # the caller went away, or spoke nonsense
            log(f"a call ended early: {type(exc).__name__}: {exc}")
        except Exception:
            log("a call failed: " + traceback.format_exc())
        finally:
            try:
                conn.close()
            except OSError:
                pass


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def _states(fd: int) -> Iterator[tuple[int, bool]]:
    """What the workers said since the last look: (pid, True) when one took a call, (pid, False) when it
    finished one (each wrote its pid in 8 bytes, then B or I)."""
    data = b""
    try:
        while True:
            got = os.read(fd, 4096)
            if not got:
                break
            data += got
    except BlockingIOError:
        pass
    for i in range(0, len(data) - len(data) % 9, 9):
        yield int.from_bytes(data[i : i + 8], "big"), data[i + 8 : i + 9] == b"B"


def serve(http_port: int | None, on_ready: Callable[[str], None], idle_exit: float | None = None) -> Server:
    """Run the user's server in this process until it is stopped; the server, which says why (``stopping``)."""
    if sys.platform == "win32":  # pragma: no cover
        raise UsageError("agent-guard serve needs Unix sockets; the hook does the work itself here")
    with Server(folder_of_user(), http_port, on_ready, idle_exit) as server:
        server.run()
    return server
