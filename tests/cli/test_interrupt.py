"""Waiting and interrupts: `apply` on a terminal says what it waits for, and Ctrl-C ends every
command the same way: a short message, the JSON object when one was asked for, and death by the
signal (a shell sees status 130, git's, and stops a script's loop).

Before: `git agent-apply` waited in silence; Ctrl-C there printed a Python traceback and no JSON
under --json, and `agent-guard mcp` printed "aborted" and exited 3.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from conftest import Repo, checkout_env

TIMEOUT = 60
# How the note `apply` writes while it waits on a terminal starts (guard.cli.apply.WAITING).
WAITING = "agent-guard: reading the edit from standard input"


@pytest.fixture(autouse=True)
def _ctrl_c_reaches_the_children() -> Iterator[None]:
    """A shell starts a background job with Ctrl-C ignored, and an ignored signal stays ignored in
    every child: the commands these tests interrupt would never see it and the tests would wait out
    their timeouts. The test process takes Python's handler back meanwhile (a handler, unlike an
    ignored signal, is not inherited: the children start with the default)."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _read_until(fd: int, wanted: bytes, timeout: float = TIMEOUT) -> bytes:
    got = b""
    end = time.monotonic() + timeout
    while wanted not in got:
        left = end - time.monotonic()
        assert left > 0, f"waited {timeout} s for {wanted!r}; got {got!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            got += chunk
    return got


def _apply_on_a_terminal(cwd: Path, *args: str) -> tuple[subprocess.Popen[bytes], int, bytes]:
    """`python -m guard apply ARGS` with a terminal for standard input, once it says it waits."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "guard", "apply", *args],
        cwd=cwd,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=checkout_env(),
    )
    os.close(slave)
    assert proc.stderr is not None
    said = _read_until(proc.stderr.fileno(), WAITING.encode(), timeout=20)
    return proc, master, said


def test_apply_on_a_terminal_says_what_it_waits_for_and_reads_it(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    proc, master, said = _apply_on_a_terminal(repo.root)
    try:
        from guard.cli.apply import WAITING as said_in_full

        assert said.decode() == said_in_full and "Ctrl-D" in said_in_full and "git agent-apply FILE" in said_in_full
        os.write(master, b'{"file_path": "a.txt", "old_string": "a", "new_string": "b"}\n')
        os.write(master, b"\x04")  # Ctrl-D: the end of the input, as the message says
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        os.close(master)
    assert proc.returncode == 0 and b"applied (json)" in out, (out, err)
    assert repo.read("a.txt") == b"b\n"


def test_apply_from_a_pipe_or_quiet_says_nothing_while_it_reads(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    edit = b'{"file_path": "a.txt", "old_string": "a", "new_string": "b"}'
    piped = subprocess.run(
        [sys.executable, "-m", "guard", "apply", "--check"],
        cwd=repo.root,
        input=edit,
        capture_output=True,
        env=checkout_env(),
        timeout=TIMEOUT,
        check=False,
    )
    assert piped.returncode == 0 and piped.stderr == b"", piped
    master, slave = os.openpty()
    try:
        os.write(master, edit + b"\n\x04")
        quiet = subprocess.run(
            [sys.executable, "-m", "guard", "apply", "--check", "-q"],
            cwd=repo.root,
            stdin=slave,
            capture_output=True,
            env=checkout_env(),
            timeout=TIMEOUT,
            check=False,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert quiet.returncode == 0 and quiet.stderr == b"" and quiet.stdout == b"", quiet


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_while_apply_waits(repo: Repo, as_json: bool) -> None:
    repo.commit({"a.txt": "a\n"})
    before = repo.snapshot()
    proc, master, _said = _apply_on_a_terminal(repo.root, *(["--json"] if as_json else []))
    try:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        os.close(master)
    # Died of the signal, as git does: a shell reports 128 + 2 = 130.
    assert proc.returncode == -signal.SIGINT, (proc.returncode, out, err)
    assert b"Traceback" not in err and err.decode().endswith("agent-guard: interrupted\n"), err
    if as_json:
        doc = json.loads(out)
        assert doc["status"] == "error" and [f["code"] for f in doc["findings"]] == ["interrupted"], doc
    else:
        assert out == b""
    assert repo.snapshot() == before


def test_a_shell_sees_130(repo: Repo) -> None:
    """The status a shell reports for the interrupted command, through `sh -c` (the interrupt sent to
    the command alone: sent to the whole group, as a terminal's Ctrl-C is, it stops the shell too)."""
    repo.commit({"a.txt": "a\n"})
    master, slave = os.openpty()
    proc = subprocess.Popen(
        ["sh", "-c", f"{sys.executable} -m guard apply; echo status=$?"],
        cwd=repo.root,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=checkout_env(),
    )
    os.close(slave)
    try:
        assert proc.stderr is not None
        _read_until(proc.stderr.fileno(), WAITING.encode(), timeout=20)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        os.close(master)
    assert out == b"status=130\n", (out, err)
    assert b"Traceback" not in err


def test_ctrl_c_in_the_mcp_server(repo: Repo) -> None:
    pytest.importorskip("mcp")
    repo.commit({"a.txt": "a\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "guard", "mcp"],
        cwd=repo.root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=checkout_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    }
    proc.stdin.write(json.dumps(hello).encode() + b"\n")
    proc.stdin.flush()
    _read_until(proc.stdout.fileno(), b'"id":1')  # serving
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGINT, (proc.returncode, err)
    assert b"Traceback" not in err and err.decode().endswith("agent-guard: interrupted\n"), err


def test_an_interrupt_is_130_with_the_json_object() -> None:
    """The one place failures become statuses (in-process: the status, before the process dies of it)."""
    import io

    from guard.cli.failure import failure_status

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        status = failure_status(KeyboardInterrupt(), as_json=True)
    finally:
        sys.stdout, sys.stderr = saved
    assert status == 130 and err.getvalue() == "agent-guard: interrupted\n"
    assert json.loads(out.getvalue())["findings"][0]["code"] == "interrupted"
