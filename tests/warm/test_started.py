"""The server a hook starts: ``hook.py --start-server``, the command `agent-guard install claude-code` writes.

With no server, the call is answered as the command hook answers it with no server (cold), and a
server is started in a session of its own, for the calls after it; the hook does not wait for
it.  Hooks that find none at the same moment start one between them.  A server that cannot start is
not started again at once, and why is said once in its log.  `serve --idle-exit` ends a server
that has had no call for that long.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest
from conftest import Repo, checkout_env
from warmtools import (
    SRC,
    Server,
    answer,
    cold_env,
    command_hook,
    edit,
    runtime,
    started,
    started_hook,
    stop_started,
    wait_started_ended,
)

from guard.warm import client

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers


@pytest.fixture
def project(repo: Repo, tmp_path: Path) -> Iterator[Repo]:
    repo.commit({"stats.py": SRC})
    yield repo
    stop_started(tmp_path)


def passing(repo: Repo) -> bytes:
    return edit(repo, "s = 0", "s = 0.0")


def refused(repo: Repo) -> bytes:
    return edit(repo, "s += i", "# ... existing code ...")


def status(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "serve", "--status"],
        cwd=cwd,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def listening(cwd: Path, within: float = 90) -> str:
    """`serve --status` once the started server answers."""
    ends = time.monotonic() + within
    while time.monotonic() < ends:
        r = status(cwd)
        if r.returncode == 0:
            return r.stdout
        time.sleep(0.2)
    raise AssertionError(f"no server came up within {within:g} s:\n{log()}")


def log() -> str:
    path = runtime() / "server.log"
    return path.read_text(errors="replace") if path.exists() else ""


def test_the_first_call_is_answered_cold_and_starts_a_server(tmp_path: Path, project: Repo) -> None:
    before = project.snapshot()
    # Run as Claude Code runs it, its output read to the end: a server holding the hook's streams would hang it.
    first = started_hook(project.root, refused(project), timeout=60)
    assert answer(first) == answer(command_hook(project.root, refused(project), env=cold_env(tmp_path)))
    assert project.snapshot() == before
    said = listening(tmp_path)
    assert "current: hooks are answered by it" in said and f"ends after {client.IDLE_EXIT} s without a call" in said, said
    pid = int(re.search(r"running: pid (\d+)", said).group(1))  # type: ignore[union-attr]
    assert os.getsid(pid) == pid != os.getsid(0)  # a session of its own: the agent's signals and terminal are not its
    assert not (runtime() / "starts").exists()  # it came up: the next start, after it ends, is made at once
    second = started_hook(project.root, passing(project))
    assert answer(second) == (0, "", "")
    assert re.search(r"unix call, PreToolUse: exit 0", log()), log()
    assert started_hook(project.root, refused(project)).returncode == 2
    assert log().count("listening on") == 1


def test_hooks_at_the_same_moment_start_one_server(tmp_path: Path, project: Repo) -> None:
    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda _: started_hook(project.root, passing(project)), range(6)))
    assert [r.returncode for r in got] == [0] * 6, got
    listening(tmp_path)
    wait_started_ended_but_one(tmp_path)
    assert log().count("listening on") == 1 and "a server runs already" not in log(), log()
    assert "Traceback" not in log(), log()


def test_a_server_that_cannot_start_is_not_started_again_at_once(tmp_path: Path, project: Repo) -> None:
    runtime().mkdir(mode=0o700)
    (runtime() / "hook.sock").mkdir()  # in the way: the server refuses to start, and says why
    starts = runtime() / "starts"
    for _ in range(3):
        r = started_hook(project.root, refused(project))
        assert answer(r) == answer(command_hook(project.root, refused(project), env=cold_env(tmp_path)))
    wait_started_ended()
    assert starts.read_text().startswith("1\n"), starts.read_text()  # one start for three calls
    assert log().count("could not serve") == 1 and "hook.sock is not a socket" in log(), log()
    # Once BACKOFF has passed since that start, a hook starts one again; the same reason is not said again.
    old = time.time() - client.BACKOFF - 1
    os.utime(starts, (old, old))
    assert started_hook(project.root, passing(project)).returncode == 0
    wait_started_ended()
    assert starts.read_text().startswith("2\n")
    assert started_hook(project.root, passing(project)).returncode == 0  # within 2 x BACKOFF of it: none started
    assert not started() and starts.read_text().startswith("2\n")
    assert log().count("could not serve") == 1, log()
    # Out of the way: the next start, once due, comes up, and the count goes.
    (runtime() / "hook.sock").rmdir()
    os.utime(starts, (old - client.BACKOFF, old - client.BACKOFF))
    assert started_hook(project.root, passing(project)).returncode == 0
    listening(tmp_path)
    assert not starts.exists()


def wait_started_ended_but_one(cwd: Path) -> None:
    """Wait until the only server started by the hooks is the one that listens (its workers aside)."""
    said = listening(cwd)
    pid = int(re.search(r"running: pid (\d+)", said).group(1))  # type: ignore[union-attr]
    ends = time.monotonic() + 60
    while _others(pid):
        assert time.monotonic() < ends, log()
        time.sleep(0.1)


def _others(pid: int) -> list[int]:
    """Processes of servers started by a hook, but not in `pid`'s session (its own and its workers')."""
    out = []
    for p in started():
        try:
            if os.getsid(p) != pid:
                out.append(p)
        except ProcessLookupError:
            pass
    return out


def test_idle_exit_ends_a_server_without_calls(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path, "--idle-exit", "2") as server:
        assert started_hook(project.root, passing(project)).returncode == 0
        assert len(server.calls()) == 1, server.log()
        assert server.proc is not None
        server.proc.wait(timeout=60)
        assert "stopped: no call for 2 s (--idle-exit)" in server.log()
    assert not (runtime() / "hook.sock").exists()
    assert status(tmp_path).returncode == 1
