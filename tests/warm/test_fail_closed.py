"""The warm path fails as the command hook fails: never does a pre hook's edit get through unchecked.

Each case runs an edit that *passes* (so an answer let through by mistake would show as exit 0) and,
where it matters, one the policy refuses, through both hook commands:

- no server to trust (a dead socket, one that never says hello, another build, another home, a
  folder others may open, a socket that is a link or someone else's, a peer that is another user):
  the hook does the work itself, and answers exactly as with no server at all;
- a server that was asked and fails (too slow for the deadline, garbage, a connection closed in
  the middle, bytes after the answer): a pre hook denies (exit 2), a post hook reports (exit 1).

The work tree, index, HEAD and refs are unchanged by every pre hook.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest
from conftest import Repo, checkout_env
from warmtools import HOOK as HOOK_PATH
from warmtools import SRC, Fake, Server, answer, cold_env, command_hook, edit, runtime, sock_path, warm_hook

from guard.warm import client

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

HOOKS = {"hook.py": warm_hook, "agent-guard hook claude-code": command_hook}
Run = Callable[..., "subprocess.CompletedProcess[bytes]"]


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC, "README.md": "# demo\n"})
    return repo


def passing(repo: Repo) -> bytes:
    return edit(repo, "s = 0", "s = 0.0")


def refused(repo: Repo) -> bytes:
    return edit(repo, "s += i", "# ... existing code ...")


def as_cold(tmp_path: Path, repo: Repo, run: Run, data: bytes, *args: str) -> None:
    """`run` answers `data` exactly as the command hook does with no server, and changes nothing."""
    before = repo.snapshot()
    got = answer(run(repo.root, data, *args))
    assert repo.snapshot() == before
    assert got == answer(command_hook(repo.root, data, *args, env=cold_env(tmp_path)))


# ---------------------------------------------------------------------- no server to trust: the cold path


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_dead_socket_goes_cold(tmp_path: Path, project: Repo, hook: str) -> None:
    runtime().mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(sock_path()))  # the file stays; nobody listens: the connection is refused
    dead.close()
    assert sock_path().exists()
    as_cold(tmp_path, project, HOOKS[hook], passing(project))
    as_cold(tmp_path, project, HOOKS[hook], refused(project))


def test_a_killed_server_leaves_a_dead_socket_and_a_new_one_starts(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path) as first:
        assert first.proc is not None
        workers = subprocess.run(
            ["pgrep", "-P", str(first.proc.pid)], capture_output=True, timeout=30, check=False
        ).stdout.split()
        os.kill(first.proc.pid, signal.SIGKILL)
        first.proc.wait(timeout=30)
        for pid in workers:  # the workers see their parent gone within a second, and leave
            for _ in range(100):
                try:
                    os.kill(int(pid), 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
    assert sock_path().exists()
    as_cold(tmp_path, project, warm_hook, refused(project))
    as_cold(tmp_path, project, warm_hook, passing(project))
    with Server(tmp_path) as second:  # the dead socket is no obstacle
        assert warm_hook(project.root, refused(project)).returncode == 2
        assert len(second.calls()) == 1


def test_a_server_that_never_says_hello_goes_cold(tmp_path: Path, project: Repo) -> None:
    with Fake(hello=b""):
        started = time.monotonic()
        as_cold(tmp_path, project, warm_hook, refused(project))
        assert time.monotonic() - started >= client.HANDSHAKE


@pytest.mark.parametrize(
    "hello",
    [
        b"agent-guard-warm/1 0123456789abcdef0123456789abcdef %s\n",  # another build of agent-guard
        b"agent-guard-warm/2 %s\n",  # another protocol
        b"SSH-2.0-OpenSSH_9.2p1\r\n",  # not ours at all
    ],
    ids=["another-build", "another-protocol", "not-ours"],
)
@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_stale_or_other_server_is_not_told_anything(tmp_path: Path, project: Repo, hello: bytes, hook: str) -> None:
    line = hello.replace(b"%s", client.environment_id(os.environb)) if b"%s" in hello else hello
    with Fake(hello=line) as fake:
        as_cold(tmp_path, project, HOOKS[hook], passing(project))
        as_cold(tmp_path, project, HOOKS[hook], refused(project))
    assert fake.received and all(got == [] for got in fake.received)  # not a word, not the payload


def test_a_server_for_another_home_is_not_asked(tmp_path: Path, project: Repo) -> None:
    other = tmp_path / "other-home"
    other.mkdir()
    with Server(tmp_path) as server:
        env = {"HOME": str(other)}
        r = warm_hook(project.root, refused(project), env=env)
        assert answer(r) == answer(command_hook(project.root, refused(project), env={**env, **cold_env(tmp_path)}))
        assert server.calls() == []


def test_a_folder_others_may_open_is_not_used(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path) as server:
        os.chmod(runtime(), 0o770)  # the test's stand-in for a folder someone else could reach
        try:
            as_cold(tmp_path, project, warm_hook, passing(project))
            as_cold(tmp_path, project, command_hook, refused(project))
            status = subprocess.run(
                [sys.executable, "-m", "guard", "serve", "--status"],
                env=checkout_env(),
                capture_output=True,
                timeout=60,
                check=False,
            )
            assert status.returncode == 1 and b"can be opened by others (mode 0770" in status.stdout
        finally:
            os.chmod(runtime(), 0o700)
        assert server.calls() == []


def test_a_socket_that_is_a_link_is_not_used(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path) as server:
        real = runtime() / "elsewhere.sock"
        os.rename(sock_path(), real)
        os.symlink(real, sock_path())
        try:
            as_cold(tmp_path, project, warm_hook, passing(project))
            as_cold(tmp_path, project, warm_hook, refused(project))
        finally:
            sock_path().unlink()
            os.rename(real, sock_path())
        assert server.calls() == []


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="making files of, and running as, another user needs root")
NOBODY = 65534


@root_only
def test_a_socket_or_folder_of_another_user_is_not_used(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path) as server:
        for target in (sock_path(), runtime()):
            os.chown(target, NOBODY, -1)
            try:
                as_cold(tmp_path, project, warm_hook, passing(project))
            finally:
                os.chown(target, 0, -1)
        assert server.calls() == []


_FOREIGN_PEER = """
import os, socket, sys
sys.path.insert(0, sys.argv[3])
from guard.warm import client
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(sys.argv[1])  # made by this user (root): only the process behind it is someone else
hello = sys.argv[2].encode()
os.setgid(65534)
os.setuid(65534)
sock.listen(4)  # the kernel's peer credentials are the listener's, taken here
print("ready", flush=True)
while True:  # a server that lets every edit through
    conn, _ = sock.accept()
    try:
        conn.sendall(hello)
        for _ in range(5):
            client.read_frame(conn, 1 << 24)
        conn.sendall(client.frame(b"go 20.0"))
        client.read_frame(conn, 64)
        client.read_frame(conn, 1 << 30)
        conn.sendall(client.frame(b"0") + client.frame(b"") + client.frame(b""))
    except Exception:
        pass
    conn.close()
"""


@root_only
def test_a_peer_that_is_another_user_is_not_told_anything(tmp_path: Path, project: Repo) -> None:
    runtime().mkdir(mode=0o700)
    hello = client.hello(client.build_id(client.package_dir()), client.environment_id(os.environb)).decode()
    parent = str(Path(client.__file__).resolve().parents[2])
    proc = subprocess.Popen([sys.executable, "-c", _FOREIGN_PEER, str(sock_path()), hello, parent], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        assert os.lstat(sock_path()).st_uid == 0
        as_cold(tmp_path, project, warm_hook, refused(project))
        as_cold(tmp_path, project, command_hook, refused(project))
    finally:
        proc.kill()
        proc.wait(timeout=30)


@root_only
def test_the_server_refuses_a_peer_that_is_another_user(tmp_path: Path) -> None:
    with Server(tmp_path) as server:
        # Let another user reach the socket, as a broken set-up might: every folder on the way open to pass.
        opened = {p: p.stat().st_mode & 0o7777 for p in runtime().parents if p != Path("/") and p != Path("/tmp")}
        for folder, mode in opened.items():
            os.chmod(folder, mode | 0o011)
        os.chmod(runtime(), 0o711)
        os.chmod(sock_path(), 0o666)
        try:
            probe = (
                "import os, socket, sys; os.setgid(65534); os.setuid(65534); s = socket.socket(socket.AF_UNIX); "
                "s.settimeout(10); s.connect(sys.argv[1]); print(repr(s.recv(100)))"
            )
            r = subprocess.run([sys.executable, "-c", probe, str(sock_path())], capture_output=True, timeout=60, check=False)
        finally:
            os.chmod(runtime(), 0o700)
            os.chmod(sock_path(), 0o600)
            for folder, mode in opened.items():
                os.chmod(folder, mode)
        assert r.stdout.strip() == b"b''", r  # closed without a word
        assert f"refused a connection from uid {NOBODY}" in server.log()


def test_a_server_from_code_that_changed_is_stale(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    pkg = tmp_path / "pkg"
    shutil.copytree(Path(client.__file__).resolve().parents[1], pkg / "guard", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(pkg)}
    hook = [sys.executable, "-SI", str(pkg / "guard" / "warm" / "hook.py")]

    def run(data: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            hook, input=data, cwd=repo.root, capture_output=True, env=checkout_env(env), timeout=60, check=False
        )

    with Server(tmp_path, env=env) as server:
        assert run(refused(repo)).returncode == 2
        assert len(server.calls()) == 1
        model = pkg / "guard" / "model.py"
        os.utime(model, ns=(model.stat().st_atime_ns, model.stat().st_mtime_ns + 10**9))  # an upgrade, a checkout
        r = run(refused(repo))
        assert answer(r) == answer(command_hook(repo.root, refused(repo), env=cold_env(tmp_path)))
        assert len(server.calls()) == 1  # not asked
        assert server.proc is not None
        server.proc.wait(timeout=60)  # it sees it, and stops: no client would ask it any more
        assert "files changed since the server started" in server.log()
    assert not sock_path().exists()


# ---------------------------------------------------------------------- asked, and failing: deny or report


def _slow(fake_closing: Callable[[], bool]) -> Callable[[socket.socket, list[bytes]], None]:
    def then(conn: socket.socket, got: list[bytes]) -> None:
        while not fake_closing():
            time.sleep(0.05)

    return then


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_slow_server_is_a_denial_at_the_deadline(tmp_path: Path, project: Repo, hook: str) -> None:
    holder: list[Fake] = []
    fake = Fake(then=_slow(lambda: holder[0].closing), deadline=2.0)
    holder.append(fake)
    with fake:
        before = project.snapshot()
        started = time.monotonic()
        r = HOOKS[hook](project.root, passing(project), "--deadline", "2", timeout=60)
        took = time.monotonic() - started
    assert (r.returncode, r.stdout) == (2, b""), r
    assert b"no answer within the 2 s deadline (--deadline); the edit was blocked" in r.stderr
    assert 2 <= took < 15
    assert project.snapshot() == before
    assert fake.received[0][-1] == passing(project)  # it was asked, with the payload


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_post_hook_waits_for_a_slow_server_as_the_command_waits(tmp_path: Path, project: Repo, hook: str) -> None:
    """After the write there is nothing to block: a post hook has no deadline (Claude Code's timeout bounds it)."""

    def then(conn: socket.socket, got: list[bytes]) -> None:
        time.sleep(2.5)
        conn.sendall(client.frame(b"0") + client.frame(b"") + client.frame(b""))

    with Fake(then=then, deadline=1.0):
        post = edit(project, "s = 0", "s = 0.0", event="PostToolUse")
        r = HOOKS[hook](project.root, post, "--deadline", "1")
    assert answer(r) == (0, "", ""), r


_GARBAGE = {
    "a frame too long": b"\xff" * 8,
    "an exit status no hook gives": client.frame(b"7") + client.frame(b"") + client.frame(b""),
    "closed in the middle": client.frame(b"0") + (16).to_bytes(8, "big") + b"abc",
    "bytes after the answer": client.frame(b"0") + client.frame(b"") + client.frame(b"") + b"x",
    "not frames at all": b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    "nothing": b"",
}


@pytest.mark.parametrize("garbage", list(_GARBAGE))
@pytest.mark.parametrize("hook", list(HOOKS))
def test_garbage_denies_a_pre_hook_and_reports_a_post_hook(tmp_path: Path, project: Repo, garbage: str, hook: str) -> None:
    def then(conn: socket.socket, got: list[bytes]) -> None:
        conn.sendall(_GARBAGE[garbage])

    with Fake(then=then):
        before = project.snapshot()
        r = HOOKS[hook](project.root, passing(project))
        assert (r.returncode, r.stdout) == (2, b""), r
        assert r.stderr.startswith(b"agent-guard hook: the agent-guard server did not answer whole")
        assert r.stderr.endswith(b"; the edit was blocked\n")
        assert project.snapshot() == before
        post = edit(project, "s = 0", "s = 0.0", event="PostToolUse")
        r = HOOKS[hook](project.root, post)
        assert (r.returncode, r.stdout) == (1, b""), r  # after the write: reported, as the command's failures are
        assert r.stderr.endswith(b"; the write was not recorded\n")


def _hold_lock(repo: Repo) -> int:
    import fcntl

    state = repo.root / ".git" / "agent-guard"
    state.mkdir(exist_ok=True)
    fd = os.open(state / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_call_stuck_in_the_server_is_denied_at_the_deadline(tmp_path: Path, project: Repo, hook: str) -> None:
    with Server(tmp_path) as server:
        fd = _hold_lock(project)  # another command holds the repository: the server's worker waits on it
        try:
            before = project.snapshot()
            started = time.monotonic()
            r = HOOKS[hook](project.root, passing(project), "--deadline", "1.5")
            took = time.monotonic() - started
        finally:
            os.close(fd)
        assert (r.returncode, r.stdout) == (2, b""), r
        assert b"no answer within the 1.5 s deadline (--deadline); the edit was blocked" in r.stderr
        assert took < 15
        assert project.snapshot() == before
        # The worker ended at its deadline (the adapter's alarm); the others answer on.
        assert answer(warm_hook(project.root, refused(project)))[0] == 2
        assert [c.split(" (")[0] for c in server.calls()] == ["PreToolUse: exit 2"]


def test_a_payload_that_never_ends_is_denied_at_the_deadline(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path):
        proc = subprocess.Popen(
            [sys.executable, "-SI", str(HOOK_PATH), "--deadline", "1"],
            cwd=project.root,
            env=checkout_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
            proc.stdin.write(b'{"hook_event_name": "PreToolUse", ')  # ... and the rest never comes
            proc.stdin.flush()
            code = proc.wait(timeout=60)
            out, err = proc.stdout.read(), proc.stderr.read()
        finally:
            proc.kill()
            proc.wait(timeout=60)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
    assert code == 2 and out == b"" and b"no answer within the 1 s deadline" in err, (code, out, err)
