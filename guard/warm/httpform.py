"""Claude Code's ``http`` hook form, for `agent-guard serve --http PORT` (an opt-in: see below).

Claude Code POSTs the hook's JSON payload to ``http://127.0.0.1:PORT/claude-code``; the options of
`agent-guard hook claude-code` go in the query (``?agent=claude&on-pass=ask&deadline=15``).  The
server listens on 127.0.0.1 only, and serves a request only when it carries
``Authorization: Bearer <token>``, the token the server keeps in ``<runtime>/http-token`` (mode
0600, made once and kept while the folder lasts); Claude Code's settings put it in a header from an
environment variable (``allowedEnvVars``).  A request from a browser page (an ``Origin`` header, or
a ``Host`` that is not 127.0.0.1 or localhost at the port) is not served either.

Why this form is not the recommended one: Claude Code treats an http hook that fails (no
connection, a timeout, a status other than 2xx) as a non-blocking error, and the tool call goes
ahead; only a Claude Code that reads ``"onFailure": "block"`` (2.1.295 and later) blocks then.
So this side answers every call that reaches it with a 2xx: a refusal, and every failure of a
pre hook (no token, a bad URL option, a body that does not come whole, an internal error, the
deadline) is a JSON ``permissionDecision: "deny"``, never an error status; a post hook's failure
is a ``systemMessage`` (reported, as the command's exit 1 is).  What it cannot answer (the server
is down, the connection breaks) is Claude Code's to decide, hence ``onFailure``.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import signal
import socket
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from . import client
from .client import MAX_PAYLOAD, TOKEN_NAME

PATH = "/claude-code"
MAX_HEAD = 64 << 10
HEAD_SECONDS = 5.0


def token(folder: Path) -> bytes:
    """The server's token: kept in `folder`'s token file (0600) when that is the user's own, else made anew."""
    path = folder / TOKEN_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        pass
    else:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            kept = fh.read(200).strip()
        if st.st_uid == os.geteuid() and not st.st_mode & 0o077 and len(kept) == 64 and kept.isalnum():
            return kept
    made = secrets.token_hex(32).encode()
    tmp = folder / f".{TOKEN_NAME}.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(made + b"\n")
    os.replace(tmp, path)
    return made


def _body(data: dict[str, object]) -> bytes:
    return json.dumps(data).encode()


def deny(reason: str) -> bytes:
    return _body(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}
    )


def failed(event: str | None, why: str) -> bytes:
    """The answer for a call that could not be served: a pre hook (or an unknown one) denies, a post hook reports."""
    if event == "PostToolUse":
        return _body({"systemMessage": f"agent-guard hook: {why}; the write was not recorded"})
    return deny(f"agent-guard hook: {why}; the edit was blocked")


def _respond(conn: socket.socket, status: str, body: bytes) -> None:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    conn.sendall(head + body)


def _read_head(conn: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD:
            raise client.Broken("a request head of more than 64 KB")
        got = conn.recv(65536)
        if not got:
            raise client.Broken("the connection closed before the request was whole")
        data += got
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def serve_request(conn: socket.socket, secret: bytes, port: int) -> str:
    """Answer one request on the http listener, in this process; what it answered, for the log."""
    from ..adapters.claude_code import DEADLINE, claude_code
    from ..cli.adapters import hook_options

    started = time.monotonic()
    conn.settimeout(HEAD_SECONDS)  # Claude Code sends its request at once; a connection that does not is no hook
    head, rest = _read_head(conn)
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", "", ""])[:3]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    url = urlsplit(target)
    if url.path != PATH:
        _respond(conn, "404 Not Found", _body({"error": f"the hook is at {PATH}"}))
        return f"404 for {url.path!r}"
    if method != "POST":
        _respond(conn, "405 Method Not Allowed", _body({"error": "POST the hook's payload"}))
        return f"405 for {method!r}"
    # From here on every answer is a 2xx: a failing http hook lets the edit through.
    given = headers.get("authorization", "").encode("latin-1")
    if not hmac.compare_digest(given, b"Bearer " + secret):
        _respond(
            conn,
            "200 OK",
            failed(
                None,
                "the request has no valid token (Authorization: Bearer "
                "$AGENT_GUARD_TOKEN, the token in the server's http-token file)",
            ),
        )
        return "refused: no valid token"
    if "origin" in headers or headers.get("host") not in (f"127.0.0.1:{port}", f"localhost:{port}"):
        _respond(conn, "200 OK", failed(None, "the request came from a web page, not from Claude Code"))
        return "refused: a web page's request (Origin or Host)"
    words: list[str] = []
    for key, value in parse_qsl(url.query, keep_blank_values=True):
        words += [f"--{key}", value]
    opts = hook_options(words)
    if "transfer-encoding" in headers or not headers.get("content-length", "").isdigit():
        _respond(conn, "200 OK", failed(None, "the request has no Content-Length"))
        return "refused: no Content-Length"
    length = int(headers["content-length"])
    if length > MAX_PAYLOAD:
        _respond(conn, "200 OK", failed(None, f"a payload of {length} bytes"))
        return "refused: too large"
    conn.settimeout(DEADLINE)
    raw = rest[:length] + (client.read_exact(conn, length - len(rest)) if length > len(rest) else b"")
    event = client.payload_event(raw)
    if opts is None:
        _respond(
            conn,
            "200 OK",
            failed(
                event,
                f"the URL's query {url.query!r} is not options of "
                "`agent-guard hook claude-code` (agent, turn, policy, on-pass, deadline)",
            ),
        )
        return f"{event}: refused, bad options in the URL"
    if event == "PostToolUse":  # no deadline after the write, as in the command
        answer = claude_code(raw, opts["agent"], opts["turn"], opts["policy"], opts["on_pass"])
    else:  # a pre hook answers within its deadline, and denies when it cannot

        def expire(signum: int, frame: object) -> None:
            try:
                _respond(conn, "200 OK", failed(event, f"no answer within the {opts['deadline']:g} s deadline"))
            finally:
                os._exit(client.BLOCK)

        old = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, max(opts["deadline"] - (time.monotonic() - started), 0.001))
        try:
            answer = claude_code(raw, opts["agent"], opts["turn"], opts["policy"], opts["on_pass"])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    conn.settimeout(None)
    if answer.code == 0:
        _respond(conn, "200 OK", answer.stdout.strip().encode())
    elif answer.code == client.REPORTED:
        _respond(conn, "200 OK", _body({"systemMessage": answer.stderr.strip()}))
    else:
        _respond(conn, "200 OK", deny(answer.stderr.strip()))
    return f"{event}: exit {answer.code}"
