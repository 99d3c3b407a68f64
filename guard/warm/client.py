"""A hook call asked of the user's `agent-guard serve` (the warm path), or left to the hook itself.

Used by `agent-guard hook claude-code` (``cli/adapters.py``) and by ``hook.py``, the small command
that runs with ``python -SI``: this module imports built-in modules only (no ``os``, ``socket``,
``json`` or ``signal``: their imports alone cost a few milliseconds each, on every hook call).

One call:

1. The server's socket is ``<runtime>/hook.sock`` (``runtime_dir``): ``$XDG_RUNTIME_DIR/agent-guard``
   when that variable is set, else ``agent-guard-<uid>`` in ``$TMPDIR`` (else ``/tmp``).  The folder
   must be a folder (not a link) owned by this user and closed to everyone else; the socket a
   socket owned by this user; the process at the other end one of this user's (the kernel's peer
   credentials, where the system gives them).  Otherwise the client never connects.
2. The server speaks first: ``agent-guard-warm/1 <build> <environment>``.  ``build`` names the code
   it runs (``build_id``: each source of the package, its size and modification time);
   ``environment`` what a process fixes when it loads pygit2 (``environment_id``).  A server
   started from other code, or for another home, is not asked.
3. The client sends ``hook``, the hook's arguments, its environment, current folder and umask; the
   server reads the arguments as the command does and says ``go <deadline>``, or ``cold`` when the
   command line must read them (help, a mistake).
4. Only then is the payload read from standard input, and sent with the seconds left.  The server
   answers the exit status, standard output and standard error, and closes.

With ``--start-server`` (``START``) first among ``hook.py``'s arguments, a call that finds no
server starts one in the background for the calls after it (``start_server``), and is answered
by the hook itself as any call without a server is.

Up to step 4 anything unexpected (no socket, a refused connection, no hello within ``HANDSHAKE``
seconds, another build, a folder or socket that is not private) leaves the call to the hook
itself, the cold path: nothing was read, nothing was sent.  From step 4 on, the call fails as the
command hook fails: when the answer does not come whole (the connection breaks, a frame is not
one, bytes follow it) a pre hook denies (exit 2) and a post hook reports (exit 1), and the pre
hook's deadline holds (a post hook has none, as in the command).  Each message is a frame: its
length in 8 bytes (big-endian), then its bytes; a list is its items joined by NUL.
"""

from __future__ import annotations

import sys
import time

try:
    import posix  # ``os`` is slower to import (bench/README.md); the few calls needed here are posix's own
except ImportError:  # pragma: no cover - no POSIX system, no Unix socket: every call is cold
    posix = None  # type: ignore[assignment]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket
    from typing import Callable, Mapping, NoReturn, Sequence

PROTOCOL = b"agent-guard-warm/1"
SOCKET_NAME = b"hook.sock"
LOCK_NAME, LOG_NAME = b"server.lock", b"server.log"  # held by the running server; what it says
STARTS_NAME = b"starts"  # the starts made by hooks since a server last came up (``start_server``)
TOKEN_NAME = "http-token"  # the http form's bearer token, in the same folder (``httpform``)
MAX_PAYLOAD = 1 << 30  # bytes of one payload
HANDSHAKE = 1.0  # seconds for the server to say hello and read the arguments; later, the deadline counts
MAX_ANSWER = 64 << 20  # bytes a server may send in one frame of its answer
# The exit statuses of a failing hook, as guard/adapters/claude_code.py has them (BLOCK, REPORTED):
# this module cannot import it (tests/warm/test_client.py holds them equal).
BLOCK, REPORTED = 2, 1
# What pygit2 fixes in a process when it is loaded (libgit2 reads the home folders for git's
# configuration once): a server's children cannot take the caller's values for these.
FIXED_VARIABLES = (b"HOME", b"XDG_CONFIG_HOME")
_IS_DIR, _IS_SOCKET, _KIND = 0o040000, 0o140000, 0o170000
START = "--start-server"  # hook.py's own first argument: start a server when none runs (``start_server``)
IDLE_EXIT = 1800  # seconds a server started by a hook waits for a call before it ends (`serve --idle-exit`)
BACKOFF, MAX_BACKOFF = 30, 3600  # seconds after a start that did not come up before the next, doubling per start


class Broken(Exception):
    """The other end sent what the protocol does not allow, or went away."""


# ---------------------------------------------------------------------- where, and whose


def runtime_dir(environ: Mapping[bytes, bytes], uid: int) -> bytes:
    """The user's folder for the server's socket (it may not exist)."""
    run = environ.get(b"XDG_RUNTIME_DIR", b"")
    if run.startswith(b"/"):  # the session's own folder: the XDG spec makes it the user's, mode 0700
        return run.rstrip(b"/") + b"/agent-guard"
    tmp = environ.get(b"TMPDIR", b"")
    tmp = tmp if tmp.startswith(b"/") else b"/tmp"
    return tmp.rstrip(b"/") + b"/agent-guard-" + str(uid).encode()


def folder_problem(path: bytes, uid: int) -> str | None:
    """Why `path` cannot hold the user's socket; None when it can (a folder, not a link, owned by
    `uid`, and no one else may open it)."""
    try:
        st = posix.lstat(path)
    except OSError as exc:
        return f"{_show(path)}: {exc.strerror}"
    if st.st_mode & _KIND != _IS_DIR:
        return f"{_show(path)} is not a folder (a link or a file is there)"
    if st.st_uid != uid:
        return f"{_show(path)} belongs to uid {st.st_uid}, not to you (uid {uid})"
    if st.st_mode & 0o077:
        return f"{_show(path)} can be opened by others (mode {st.st_mode & 0o7777:04o}; it must be 0700)"
    return None


def socket_problem(path: bytes, uid: int) -> str | None:
    """Why `path` is not the user's server socket; None when it is one of the user's sockets."""
    try:
        st = posix.lstat(path)
    except OSError as exc:
        return f"{_show(path)}: {exc.strerror}"
    if st.st_mode & _KIND != _IS_SOCKET:
        return f"{_show(path)} is not a socket"
    if st.st_uid != uid:
        return f"{_show(path)} belongs to uid {st.st_uid}, not to you (uid {uid})"
    return None


def peer_uid(s: socket) -> int | None:
    """The user id of the process at the other end of a Unix socket, or None where the system does not say."""
    import _socket

    if hasattr(_socket, "SO_PEERCRED"):  # Linux: struct ucred {pid_t pid; uid_t uid; gid_t gid}
        raw = s.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        return int.from_bytes(raw[4:8], sys.byteorder)
    if hasattr(_socket, "LOCAL_PEERCRED"):  # macOS, BSD: struct xucred {u_int cr_version; uid_t cr_uid; ...}
        raw = s.getsockopt(0, _socket.LOCAL_PEERCRED, 76)
        return int.from_bytes(raw[4:8], sys.byteorder)
    return None  # pragma: no cover - the folder's mode alone keeps others out


def _show(path: bytes) -> str:
    return path.decode("utf-8", "backslashreplace")


# ---------------------------------------------------------------------- which server


def package_dir() -> bytes:
    """The folder of the guard package this module belongs to."""
    here = __file__.encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
    return here.rpartition(b"/")[0].rpartition(b"/")[0]


def build_id(package: bytes) -> bytes:
    """What names the code in `package`: each source's path in it, size and modification time, hashed.

    A file changed, added or removed since a server started changes it: that server is stale.
    """
    rows: list[bytes] = []
    folders = [b""]
    while folders:
        rel = folders.pop()
        with posix.scandir(package + b"/" + rel if rel else package) as entries:
            for entry in entries:
                name = entry.name
                if entry.is_dir():
                    if name != b"__pycache__":
                        folders.append(rel + name + b"/")
                elif name.endswith((b".py", b".yaml")):
                    st = entry.stat()
                    rows.append(b"%s %d %d" % (rel + name, st.st_size, st.st_mtime_ns))
    rows.sort()
    return _hash(b"\n".join(rows))


def environment_id(environ: Mapping[bytes, bytes]) -> bytes:
    """What a process fixes once pygit2 is loaded (``FIXED_VARIABLES``), hashed: caller and server must agree."""
    return _hash(b"\0".join(k + (b"=" + environ[k] if k in environ else b"") for k in FIXED_VARIABLES))


def _hash(data: bytes) -> bytes:
    try:
        from _blake2 import blake2b  # built in, where hashlib loads OpenSSL (bench/README.md)
    except ImportError:  # pragma: no cover - an interpreter without it
        from hashlib import blake2b
    return blake2b(data, digest_size=16).hexdigest().encode()


def hello(build: bytes, environment: bytes) -> bytes:
    return b"%s %s %s\n" % (PROTOCOL, build, environment)


# ---------------------------------------------------------------------- frames


def frame(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def read_exact(sock: socket, n: int) -> bytes:
    recv = sock.recv
    chunks: list[bytes] = []
    while n:
        got = recv(min(n, 1 << 20))
        if not got:
            raise Broken("the connection closed before the message was whole")
        chunks.append(got)
        n -= len(got)
    return b"".join(chunks)


def read_frame(sock: socket, limit: int) -> bytes:
    n = int.from_bytes(read_exact(sock, 8), "big")
    if n > limit:
        raise Broken(f"a message of {n} bytes where at most {limit} may come")
    return read_exact(sock, n)


def read_line(sock: socket, limit: int = 256) -> bytes:
    """One line (the hello), read a byte at a time so that nothing after it is taken."""
    line = b""
    while not line.endswith(b"\n"):
        if len(line) >= limit:
            raise Broken("no hello line")
        line += read_exact(sock, 1)
    return line


# ---------------------------------------------------------------------- the payload's event


class _Reading:
    """What ``_json``'s scanner asks of its context (``json.JSONDecoder``'s attributes)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


def payload_event(raw: bytes) -> str | None:
    """The payload's ``hook_event_name`` (None when it cannot be read): a failure after a
    "PostToolUse" is reported, any other blocks, as in the command hook."""
    try:
        import _json

        text = raw.decode("utf-8")
        start = len(text) - len(text.lstrip(" \t\r\n"))
        value, end = _json.make_scanner(_Reading())(text, start)  # type: ignore[arg-type]
    except Exception:  # not JSON, not UTF-8, nested past the recursion limit: unknown
        return None
    if text[end:].strip(" \t\r\n") or not isinstance(value, dict):
        return None
    event = value.get("hook_event_name")
    return event if isinstance(event, str) else None


# ---------------------------------------------------------------------- one call


def failure(failing: int, why: str) -> tuple[int, bytes, bytes]:
    what = "the edit was blocked" if failing == BLOCK else "the write was not recorded"
    return failing, b"", f"agent-guard hook: {why}; {what}\n".encode("utf-8", "backslashreplace")


def connect(environ: Mapping[bytes, bytes], timeout: float) -> tuple[socket, bytes] | None:
    """A connection to the user's own server, and its hello line; None when there is none to trust."""
    uid = posix.geteuid()
    folder = runtime_dir(environ, uid)
    path = folder + b"/" + SOCKET_NAME
    if folder_problem(folder, uid) is not None or socket_problem(path, uid) is not None:
        return None
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        if peer_uid(sock) not in (uid, None):
            raise Broken("not the user's server")
        return sock, read_line(sock)
    except (OSError, Broken):  # refused (nobody listening), gone, timed out, foreign
        sock.close()
        return None


def ask(
    argv: Sequence[bytes],
    environ: Mapping[bytes, bytes],
    read_payload: Callable[[], bytes],
    started: float,
    arm: Callable[[float, float], None],
    after_write: Callable[[], None],
) -> tuple[int, bytes, bytes] | None:
    """The server's answer to one hook call (exit status, standard output, standard error), or None
    when the hook must do the work itself: then nothing was read or sent.

    `started`: when the hook started (``time.monotonic``); `arm(seconds_left, deadline)` starts the
    pre hook's deadline once the server has said it (``--deadline``, or its default);
    `after_write()` is called when the payload is a post hook's (which has no deadline, and whose
    failures are reported, not blocking).
    """
    if posix is None:  # pragma: no cover
        return None
    got = connect(environ, HANDSHAKE)
    if got is None:
        return None
    sock, said = got
    deadline = _handshake(sock, said, argv, environ)
    if deadline is None:
        sock.close()
        return None
    return _send(sock, deadline, read_payload, started, arm, after_write)


def _handshake(sock: socket, said: bytes, argv: Sequence[bytes], environ: Mapping[bytes, bytes]) -> float | None:
    """Steps 2 and 3: the deadline the server will answer in, or None when it must not be asked."""
    try:
        if said != hello(build_id(package_dir()), environment_id(environ)):
            return None  # another build, another home, or not our protocol
        env = b"\0".join(k + b"=" + v for k, v in environ.items())
        umask = posix.umask(0o022)
        posix.umask(umask)
        sock.sendall(frame(b"hook") + frame(b"\0".join(argv)) + frame(env) + frame(posix.getcwdb()) + frame(b"%d" % umask))
        reply = read_frame(sock, 64)
        if not reply.startswith(b"go "):
            return None  # "cold": the command line reads these arguments (help, a mistake)
        deadline = float(reply[3:])
    except (OSError, Broken, ValueError):  # gone, timed out, or not the protocol
        return None
    return deadline if 0 < deadline <= 86400 else None  # what --deadline may be (nan is not in it either)


def _send(
    sock: socket,
    deadline: float,
    read_payload: Callable[[], bytes],
    started: float,
    arm: Callable[[float, float], None],
    after_write: Callable[[], None],
) -> tuple[int, bytes, bytes]:
    """Steps 4 and 5: from here on, a failure blocks a pre hook and is reported for a post hook."""
    left = max(deadline - (time.monotonic() - started), 0.001)
    arm(left, deadline)
    failing = BLOCK
    try:
        raw = read_payload()
        if payload_event(raw) == "PostToolUse":
            failing = REPORTED
            after_write()
        sock.settimeout(None)  # the deadline's alarm bounds a pre hook
        sock.sendall(frame(b"%r" % left) + frame(raw))
        status = read_frame(sock, 1)
        out = read_frame(sock, MAX_ANSWER)
        err = read_frame(sock, MAX_ANSWER)
        if sock.recv(1):
            raise Broken("more bytes followed the answer")
        if status not in (b"0", b"1", b"2"):
            raise Broken(f"exit status {status!r} is none a hook gives")
    except (OSError, Broken) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        return failure(failing, f"the agent-guard server did not answer whole ({why})")
    finally:
        sock.close()
    return int(status), out, err


# ---------------------------------------------------------------------- a server for the next calls


def start_server(environ: Mapping[bytes, bytes], idle: int) -> str:
    """Start the user's server in the background for the calls after this one (which the hook answers
    itself), unless one runs or is starting, or a start that did not come up was made lately; what
    was done.

    The server's lock (``LOCK_NAME``, held from its start to its end) says whether one runs; the
    starts file (``STARTS_NAME``: how many starts since a server last came up, the last one's time,
    and the last reason the started server gave in the log) spaces the starts out: ``BACKOFF``
    seconds after one, twice that after two, up to ``MAX_BACKOFF``.  The server is `serve
    --idle-exit IDLE` in a session of its own (``_spawn``): the agent waits for this hook only.
    """
    uid = posix.geteuid()
    folder = runtime_dir(environ, uid)
    try:
        posix.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"no folder for the server: {exc.strerror}"
    problem = folder_problem(folder, uid)
    if problem is not None:
        return problem  # the server would refuse it as well; `serve` says why
    if _locked(folder + b"/" + LOCK_NAME):
        return "a server runs, or is starting"
    starts, when, said = read_starts(folder + b"/" + STARTS_NAME)
    if time.time() - when < backoff(starts):
        return f"backing off: {starts} start(s) lately did not come up"
    try:
        if not _claim(folder, starts, said):
            return "another hook is starting one"
        _spawn(folder, environ, idle)
    except OSError as exc:
        return f"cannot start a server: {exc.strerror or exc}"
    return "started"


def _claim(folder: bytes, starts: int, said: bytes) -> bool:
    """Write the starts file for one more start, unless another hook has just done so: of hooks that
    look at the same moment, one starts a server (and the server's lock settles what is left)."""
    path = folder + b"/" + STARTS_NAME
    if starts:  # the old file is moved out of the way first: of two hooks, one moves it
        aside = folder + b"/.%s.%d" % (STARTS_NAME, posix.getpid())
        try:
            posix.rename(path, aside)
        except FileNotFoundError:
            return False
        posix.unlink(aside)
    try:
        fd = posix.open(path, posix.O_WRONLY | posix.O_CREAT | posix.O_EXCL | posix.O_NOFOLLOW | posix.O_CLOEXEC, 0o600)
    except FileExistsError:
        return False
    try:
        _write_all(fd, b"%d\n%s" % (starts + 1, said))
    finally:
        posix.close(fd)
    return True


def backoff(starts: int) -> int:
    """Seconds to wait after the last of `starts` starts that did not come up, before the next."""
    return min(BACKOFF << min(starts - 1, 16), MAX_BACKOFF) if starts else 0


def _locked(path: bytes) -> bool:
    """Whether a process holds `path`'s lock (the running server's); a lock that cannot be tried counts as held."""
    import fcntl  # not built in: imported only here, on the path of a call that is answered cold anyway

    try:
        fd = posix.open(path, posix.O_RDWR | posix.O_CREAT | posix.O_NOFOLLOW | posix.O_CLOEXEC, 0o600)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        posix.close(fd)  # the lock goes with it
    return False


def read_starts(path: bytes) -> tuple[int, float, bytes]:
    """The starts file: (starts since a server last came up, when the last was made, the last
    reason a started server gave); (0, 0.0, b"") when there is none."""
    try:
        fd = posix.open(path, posix.O_RDONLY | posix.O_NOFOLLOW | posix.O_CLOEXEC)
    except OSError:
        return 0, 0.0, b""
    try:
        when = posix.fstat(fd).st_mtime
        data = posix.read(fd, 4096)
    finally:
        posix.close(fd)
    count, _, said = data.partition(b"\n")
    try:
        starts = max(int(count), 1)
    except ValueError:
        starts = 1
    return starts, when, said


def write_starts(folder: bytes, starts: int, said: bytes) -> None:
    """Replace the starts file in `folder` at once (a reader sees the old one or the new one)."""
    tmp = folder + b"/.%s.%d" % (STARTS_NAME, posix.getpid())
    fd = posix.open(tmp, posix.O_WRONLY | posix.O_CREAT | posix.O_TRUNC | posix.O_NOFOLLOW | posix.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, b"%d\n%s" % (starts, said))
    finally:
        posix.close(fd)
    posix.rename(tmp, folder + b"/" + STARTS_NAME)


# What a started server runs: `serve --idle-exit` of this very package, by ``started.run``.
_SERVE = (
    "import sys; sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if p]; "
    "from guard.warm.started import run; run(sys.argv[1:])"
)


def _spawn(folder: bytes, environ: Mapping[bytes, bytes], idle: int) -> None:
    """Start the server in a new session, reading nothing and writing to the server's log: no
    stream of the hook's stays open in it, so the agent does not wait for it; not waited for here."""
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    exe = sys.executable.encode(encoding, errors)
    parent = package_dir().rpartition(b"/")[0]
    log = folder + b"/" + LOG_NAME
    actions = [
        (posix.POSIX_SPAWN_OPEN, 0, b"/dev/null", posix.O_RDONLY, 0),
        (posix.POSIX_SPAWN_OPEN, 1, log, posix.O_WRONLY | posix.O_CREAT | posix.O_APPEND | posix.O_NOFOLLOW, 0o600),
        (posix.POSIX_SPAWN_DUP2, 1, 2),
    ]
    posix.posix_spawn(exe, [exe, b"-c", _SERVE.encode(), parent, b"%d" % idle], dict(environ), file_actions=actions, setsid=True)


# ---------------------------------------------------------------------- the command (hook.py)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[posix.write(fd, data) :]


def _read_stdin() -> bytes:
    chunks: list[bytes] = []
    while True:
        got = posix.read(0, 1 << 20)
        if not got:
            return b"".join(chunks)
        chunks.append(got)


def main(argv: Sequence[str], started: float) -> NoReturn:
    """``hook.py [--start-server] ARGS``: `agent-guard hook claude-code ARGS`, asked of the server when
    one runs; with ``--start-server`` first, when none answers, one is started for the next calls."""
    start = bool(argv) and argv[0] == START
    argv = argv[1:] if start else argv
    failing = [BLOCK]

    def arm(seconds: float, deadline: float) -> None:
        import _signal  # type: ignore[import-not-found]  # ``signal`` builds enums at import (bench/README.md)

        def expire(signum: int, frame: object) -> None:
            # As the command hook's Deadline ends it, in the same words.
            posix.write(
                2,
                (f"agent-guard hook: no answer within the {deadline:g} s deadline (--deadline); the edit was blocked\n").encode(),
            )
            posix._exit(BLOCK)

        _signal.signal(_signal.SIGALRM, expire)
        _signal.setitimer(_signal.ITIMER_REAL, seconds)

    def after_write() -> None:
        import _signal

        _signal.setitimer(_signal.ITIMER_REAL, 0)
        failing[0] = REPORTED

    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    words = [a.encode(encoding, errors) for a in argv]
    try:
        answer = ask(words, posix.environ, _read_stdin, started, arm, after_write)
    except BaseException as exc:  # an interrupt, or a bug here: still an answer Claude Code obeys
        answer = failure(failing[0], f"{type(exc).__name__}: {exc}")
    if answer is None:
        if start:
            try:
                start_server(posix.environ, IDLE_EXIT)
            except BaseException:  # a server is for the next calls: this one is answered below in any case
                pass
        cold(argv)
    status, out, err = answer
    try:
        _write_all(1, out)
        _write_all(2, err)
    except OSError:
        posix._exit(failing[0])
    posix._exit(status)


# The command hook, run as its console script would run it, from this very package.
_BOOT = (
    "import sys; sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if p]; "
    "from guard.cli.program import run; run(['hook', 'claude-code'] + sys.argv[1:])"
)


def cold(argv: Sequence[str]) -> NoReturn:
    """Become `agent-guard hook claude-code ARGS` (standard input is untouched)."""
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    parent = package_dir().rpartition(b"/")[0].decode(encoding, errors)
    try:
        posix.execv(sys.executable, [sys.executable, "-c", _BOOT, parent, *argv])
    except OSError as exc:
        posix.write(2, f"agent-guard hook: cannot start {sys.executable}: {exc}; the edit was blocked\n".encode())
    posix._exit(BLOCK)
