"""`agent-guard serve`: one per user, --status, --stop, --detach, --settings, a folder that is not private,
and the http form (a token, 127.0.0.1 only, a 2xx deny for every failure of a pre hook)."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Repo, checkout_env
from warmtools import SRC, Server, answer, cold_env, command_hook, edit, runtime, sock_path, warm_hook

from guard.adapters.install import fail_closed

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers


def serve(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "serve", *args],
        cwd=cwd,
        env=checkout_env(env),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_status_stop_and_one_server_per_user(tmp_path: Path) -> None:
    r = serve("--status", cwd=tmp_path)
    assert r.returncode == 1 and "no server answers at" in r.stdout
    assert serve("--stop", cwd=tmp_path).stdout.startswith("no server answers")
    with Server(tmp_path) as server:
        assert server.proc is not None
        r = serve("--status", cwd=tmp_path)
        assert r.returncode == 0 and f"running: pid {server.proc.pid}" in r.stdout and "current" in r.stdout, r
        second = serve(cwd=tmp_path)
        assert second.returncode == 2 and "a server already runs for you" in second.stderr, second
        assert stat.S_IMODE(os.stat(runtime()).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(sock_path()).st_mode) == 0o600
        r = serve("--stop", cwd=tmp_path)
        assert (r.returncode, r.stdout.strip()) == (0, "stopped"), r
        server.proc.wait(timeout=30)
        assert server.proc.returncode == 0
    assert not sock_path().exists()
    assert serve("--status", cwd=tmp_path).returncode == 1


def test_a_folder_that_is_not_private_is_refused(tmp_path: Path) -> None:
    runtime().mkdir(mode=0o755)
    os.chmod(runtime(), 0o755)
    r = serve(cwd=tmp_path)
    assert r.returncode == 2 and "can be opened by others (mode 0755; it must be 0700)" in r.stderr, r
    assert "set XDG_RUNTIME_DIR" in r.stderr
    assert not sock_path().exists()


def test_without_xdg_runtime_dir_a_folder_of_the_users_in_tmpdir(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(checkout_env(), TMPDIR=str(tmp))
    del env["XDG_RUNTIME_DIR"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "guard", "serve"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert f"{tmp}/agent-guard-{os.geteuid()}/hook.sock" in line, line
        assert stat.S_IMODE(os.stat(tmp / f"agent-guard-{os.geteuid()}").st_mode) == 0o700
    finally:
        subprocess.run([sys.executable, "-m", "guard", "serve", "--stop"], env=env, capture_output=True, timeout=60, check=False)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def test_detach_runs_in_the_background(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    r = serve("--detach", cwd=tmp_path)
    try:
        assert r.returncode == 0 and "listening on" in r.stdout and "log: " in r.stdout, r
        assert serve("--status", cwd=tmp_path).returncode == 0
        assert warm_hook(repo.root, edit(repo, "s += i", "# ... existing code ...")).returncode == 2
        assert "PreToolUse: exit 2" in (runtime() / "server.log").read_text()
        again = serve("--detach", cwd=tmp_path)
        assert again.returncode == 2 and "already runs" in again.stderr, again
    finally:
        assert serve("--stop", cwd=tmp_path).stdout.strip() == "stopped"


def test_settings_print_the_command_that_uses_the_server(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    settings = json.loads(serve("--settings", cwd=tmp_path).stdout)
    pre = settings["hooks"]["PreToolUse"][0]
    assert pre == settings["hooks"]["PostToolUse"][0]
    (hook,) = pre["hooks"]
    assert hook["type"] == "command" and hook["timeout"] == 30
    argv = shlex.split(hook["command"].split(";")[0])  # then: a status of 126 or more becomes 2
    assert argv[:2] == [sys.executable, "-SI"] and argv[2].endswith("guard/warm/hook.py")
    assert hook["command"] == fail_closed(shlex.join(argv))
    with Server(tmp_path) as server:
        r = subprocess.run(
            hook["command"],
            shell=True,
            input=edit(repo, "s += i", "# ... existing code ..."),
            cwd=repo.root,
            env=checkout_env(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert r.returncode == 2 and b"placeholder" in r.stderr
        assert len(server.calls()) == 1
    http = json.loads(serve("--settings", "--http", "8765", cwd=tmp_path).stdout)["hooks"]
    (pre_http,) = http["PreToolUse"][0]["hooks"]
    (post_http,) = http["PostToolUse"][0]["hooks"]
    assert pre_http["url"] == "http://127.0.0.1:8765/claude-code" and pre_http["onFailure"] == "block"
    assert pre_http["headers"] == {"Authorization": "Bearer $AGENT_GUARD_TOKEN"}
    assert pre_http["allowedEnvVars"] == ["AGENT_GUARD_TOKEN"]
    assert "onFailure" not in post_http  # a post hook's failure is reported, as the command's exit 1 is
    assert serve("--settings", "--http", "0", cwd=tmp_path).returncode == 2
    assert serve("--stop", "--http", "1", cwd=tmp_path).returncode == 2


# ---------------------------------------------------------------------- the http form


def post(port: int, body: bytes, headers: dict[str, str], path: str = "/claude-code", method: str = "POST") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def decision(body: bytes) -> str | None:
    data = json.loads(body) if body else {}
    return data.get("hookSpecificOutput", {}).get("permissionDecision")


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"stats.py": SRC, "README.md": "# demo\n"})
    return repo


def test_http_form_answers_as_the_command(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path, "--http", "0") as server:
        token_file = runtime() / "http-token"
        assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
        auth = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
        port = server.port
        before = project.snapshot()
        # A pass: an empty 200, as the command's exit 0 without output.
        assert post(port, edit(project, "s = 0", "s = 0.0"), auth) == (200, b"")
        # ask: the command's JSON, as it is.
        code, body = post(port, edit(project, "s = 0", "s = 0.0"), auth, "/claude-code?on-pass=ask")
        assert code == 200 and decision(body) == "ask"
        # A refusal: the command's reason, as a JSON deny.
        bad = edit(project, "s += i", "# ... existing code ...")
        code, body = post(port, bad, auth)
        cold = answer(command_hook(project.root, bad, env=cold_env(tmp_path)))
        assert code == 200 and decision(body) == "deny"
        assert json.loads(body)["hookSpecificOutput"]["permissionDecisionReason"] == cold[2].strip()
        assert project.snapshot() == before
        # A whole edit: the post hook records the turn.
        assert post(port, edit(project, "s = 0", "s = 0.0", tool_use_id="t7"), auth) == (200, b"")
        project.write({"stats.py": SRC.replace("s = 0", "s = 0.0")})
        assert post(port, edit(project, "s = 0", "s = 0.0", event="PostToolUse", tool_use_id="t7"), auth) == (200, b"")
        assert project.git("for-each-ref", "--format=%(refname)", "refs/agent-guard/").split() == ["refs/agent-guard/claude"]


def test_http_form_denies_whatever_it_cannot_serve(tmp_path: Path, project: Repo) -> None:
    with Server(tmp_path, "--http", "0") as server:
        token = (runtime() / "http-token").read_text().strip()
        good = {"Authorization": f"Bearer {token}"}
        ok = edit(project, "s = 0", "s = 0.0")  # a pass: an answer let through by mistake would be an empty 200
        before = project.snapshot()
        for headers in (
            {},
            {"Authorization": "Bearer " + "0" * 64},
            {"Authorization": token},
            {"Authorization": f"Bearer {token}x"},
            {**good, "Origin": "https://evil.example"},
            {**good, "Host": "evil.example"},
        ):
            code, body = post(server.port, ok, headers)
            assert code == 200 and decision(body) == "deny", (headers, body)
        code, body = post(server.port, ok, good, "/claude-code?agent=claude&bogus=1")
        assert code == 200 and decision(body) == "deny" and b"bogus" in body
        code, body = post(server.port, ok, good, "/claude-code?deadline=0")
        assert code == 200 and decision(body) == "deny"
        post_event = edit(project, "s = 0", "s = 0.0", event="PostToolUse")
        code, body = post(server.port, post_event, good, "/claude-code?deadline=0")
        assert code == 200 and "not recorded" in json.loads(body)["systemMessage"]
        assert post(server.port, ok, good, "/other")[0] == 404
        assert post(server.port, b"", good, method="GET")[0] == 405
        assert project.snapshot() == before
        assert not any("exit" in c for c in server.calls() if c.startswith("PreToolUse")), server.calls()


def test_http_form_deadline_denies(tmp_path: Path, project: Repo) -> None:
    import fcntl

    with Server(tmp_path, "--http", "0") as server:
        token = (runtime() / "http-token").read_text().strip()
        state = project.root / ".git" / "agent-guard"
        state.mkdir(exist_ok=True)
        fd = os.open(state / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            started = time.monotonic()
            code, body = post(
                server.port, edit(project, "s = 0", "s = 0.0"), {"Authorization": f"Bearer {token}"}, "/claude-code?deadline=1"
            )
            took = time.monotonic() - started
        finally:
            os.close(fd)
        assert code == 200 and decision(body) == "deny" and b"deadline" in body, body
        assert took < 15


def test_http_form_listens_on_loopback_only_and_keeps_its_token(tmp_path: Path) -> None:
    with Server(tmp_path, "--http", "0") as server:
        port = server.port
        token = (runtime() / "http-token").read_text()
        others = set()
        try:
            others = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
        except OSError:
            pass
        for address in others - {"127.0.0.1"}:
            with socket.socket() as s:
                s.settimeout(5)
                assert s.connect_ex((address, port)) != 0, address
    with Server(tmp_path, "--http", "0"):
        assert (runtime() / "http-token").read_text() == token  # kept: the settings' variable stays right


def test_serve_says_where_the_http_token_is_without_xdg_runtime_dir(tmp_path: Path, project: Repo) -> None:
    """Without $XDG_RUNTIME_DIR the token is in agent-guard-UID in $TMPDIR: the README's
    `cat "$XDG_RUNTIME_DIR/agent-guard/http-token"` then read nothing and every edit was denied,
    and nothing `serve` printed said where the token was."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"XDG_RUNTIME_DIR": "", "TMPDIR": str(tmp)}  # empty: as unset (it is no absolute path)
    token_file = tmp / f"agent-guard-{os.geteuid()}" / "http-token"
    with Server(tmp_path, "--http", "0", env=env) as server:
        assert f"token in {token_file}" in server.ready, server.ready
        status = serve("--status", cwd=tmp_path, env=env)
        assert status.returncode == 0 and f"\nhttp token: {token_file}\n" in status.stdout + "\n", status
        printed = serve("--token-file", cwd=tmp_path, env=env)
        assert (printed.returncode, printed.stdout) == (0, f"{token_file}\n"), printed
        # The recipe: the token read from the file `serve --token-file` names is the one the server takes.
        recipe = 'AGENT_GUARD_TOKEN="$(cat "$(agent-guard serve --token-file)")"; printf %s "$AGENT_GUARD_TOKEN"'
        got = subprocess.run(
            ["sh", "-c", recipe], cwd=tmp_path, env=checkout_env(env), capture_output=True, text=True, timeout=90, check=False
        )
        assert got.stdout == token_file.read_text().strip(), got
        auth = {"Authorization": f"Bearer {got.stdout}"}
        assert post(server.port, edit(project, "s = 0", "s = 0.0"), auth) == (200, b"")
    gone = serve("--token-file", cwd=tmp_path, env=env)
    assert gone.returncode == 0 and gone.stdout == f"{token_file}\n"  # kept while the folder lasts
    token_file.unlink()
    missing = serve("--token-file", cwd=tmp_path, env=env)
    assert missing.returncode == 1 and "agent-guard serve --http PORT" in missing.stderr, missing


def test_the_readmes_http_settings_are_what_serve_prints(tmp_path: Path) -> None:
    from readme import blocks

    [block] = [b for b in blocks() if b.lang == "json" and '"type": "http"' in b.text]
    assert json.loads(block.text) == json.loads(serve("--settings", "--http", "8765", cwd=tmp_path).stdout)


def test_interrupt_stops_the_server_after_the_calls_under_way(tmp_path: Path, repo: Repo) -> None:
    import signal

    repo.commit({"stats.py": SRC})
    with Server(tmp_path) as server:
        assert server.proc is not None
        server.proc.send_signal(signal.SIGINT)  # ^C in the terminal it runs in
        assert server.proc.wait(timeout=30) == 0
        assert "stopped: signal SIGINT" in server.log()
    assert not sock_path().exists()
    # No server: the hooks do the work themselves.
    assert warm_hook(repo.root, edit(repo, "s += i", "# ... existing code ...")).returncode == 2
