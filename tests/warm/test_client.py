"""The warm client's pieces: where the socket is, what counts as private, which server is current,
what a payload's event is, and what the small command may import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env
from warmtools import HOOK, SRC, Server, edit

from guard.adapters import claude_code
from guard.warm import client


def test_exit_statuses_are_the_adapters() -> None:
    assert (client.BLOCK, client.REPORTED) == (claude_code.BLOCK, claude_code.REPORTED)


def test_no_module_of_the_folder_shadows_the_standard_library() -> None:
    # hook.py puts guard/warm/ first on the import path of the small command.
    names = {p.stem for p in Path(client.__file__).parent.glob("*.py")}
    assert not names & set(sys.stdlib_module_names), names & set(sys.stdlib_module_names)


def test_runtime_dir() -> None:
    assert client.runtime_dir({b"XDG_RUNTIME_DIR": b"/run/user/1000/"}, 1000) == b"/run/user/1000/agent-guard"
    assert client.runtime_dir({b"XDG_RUNTIME_DIR": b"relative", b"TMPDIR": b"/var/tmp"}, 7) == b"/var/tmp/agent-guard-7"
    assert client.runtime_dir({}, 0) == b"/tmp/agent-guard-0"
    assert client.runtime_dir({b"TMPDIR": b"x"}, 5) == b"/tmp/agent-guard-5"


def test_folder_problem(tmp_path: Path) -> None:
    uid = os.geteuid()
    d = tmp_path / "d"
    d.mkdir(mode=0o700)
    assert client.folder_problem(bytes(d), uid) is None
    os.chmod(d, 0o750)
    assert "can be opened by others (mode 0750" in (client.folder_problem(bytes(d), uid) or "")
    os.chmod(d, 0o700)
    assert "belongs to uid" in (client.folder_problem(bytes(d), uid + 1) or "")
    link = tmp_path / "link"
    link.symlink_to(d)
    assert "is not a folder" in (client.folder_problem(bytes(link), uid) or "")
    assert "No such file" in (client.folder_problem(bytes(tmp_path / "none"), uid) or "")


@pytest.mark.parametrize(
    "raw, event",
    [
        (b'{"hook_event_name": "PostToolUse", "tool_name": "Edit"}', "PostToolUse"),
        (b'  {"hook_event_name": "PreToolUse"}\n', "PreToolUse"),
        (b'{"hook_event_name": "PostToolUse"} trailing', None),
        (b'["PostToolUse"]', None),
        (b'{"hook_event_name": 3}', None),
        (b"\xff\xfe", None),
        (b"[" * 100_000, None),
        (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b', "hook_event_name": "PostToolUse"}', None),
        (b'{"n": 1' + b"0" * 5000 + b', "hook_event_name": "PostToolUse"}', None),
        (b"", None),
    ],
    ids=["post", "pre", "trailing", "list", "number", "not-utf8", "deep", "deep-inside", "long-number", "empty"],
)
def test_payload_event(raw: bytes, event: str | None) -> None:
    # Only a payload that reads as a post hook's makes a failure a report instead of a denial.
    assert client.payload_event(raw) == event


def test_build_id_follows_the_files(tmp_path: Path) -> None:
    pkg = tmp_path / "guard"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("A = 1\n")
    (pkg / "sub" / "b.py").write_text("B = 1\n")
    (pkg / "__pycache__").mkdir()
    first = client.build_id(bytes(pkg))
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"x")
    (pkg / "notes.txt").write_text("not code")
    assert client.build_id(bytes(pkg)) == first
    (pkg / "sub" / "b.py").write_text("B = 2\n")
    assert client.build_id(bytes(pkg)) != first
    (pkg / "sub" / "b.py").write_text("B = 1\n")
    os.utime(pkg / "sub" / "b.py", ns=(0, 0))
    second = client.build_id(bytes(pkg))
    assert second != first  # same bytes, another time: a checkout; taken as other code (the safe way)
    (pkg / "c.py").write_text("")
    assert client.build_id(bytes(pkg)) != second


def test_environment_id() -> None:
    a = client.environment_id({b"HOME": b"/home/a", b"PATH": b"/bin"})
    assert a == client.environment_id({b"HOME": b"/home/a", b"PATH": b"/usr/bin"})
    assert a != client.environment_id({b"HOME": b"/home/b"})
    assert a != client.environment_id({b"HOME": b"/home/a", b"XDG_CONFIG_HOME": b"/c"})
    assert client.environment_id({}) != client.environment_id({b"HOME": b""})


def _imported(args: list[str], data: bytes, cwd: Path) -> set[str]:
    r = subprocess.run(
        [sys.executable, "-SI", "-X", "importtime", *args],
        input=data,
        cwd=cwd,
        env=checkout_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in r.stderr.decode().splitlines()
        if line.startswith("import time:") and "self [us]" not in line
    }


def test_the_small_command_imports_only_built_in_modules(tmp_path: Path, repo: Repo) -> None:
    """hook.py is worth its start-up only while it imports nothing but built-ins: no site, and none of os,
    socket, json, signal, typing, enum or re (each costs milliseconds)."""
    repo.commit({"stats.py": SRC})
    floor = _imported(["-c", "pass"], b"", repo.root)
    with Server(tmp_path) as server:
        got = _imported([str(HOOK)], edit(repo, "s = 0", "s = 1"), repo.root) - floor
        assert len(server.calls()) == 1
    assert got == {"client", "__future__", "_socket", "_blake2", "_json"}, got  # (_signal is loaded at start-up)


def test_settings_snippet_matches_the_shipped_matcher() -> None:
    from guard.cli import serve

    shipped = json.loads((Path(client.__file__).resolve().parents[2] / "hooks" / "claude-code-settings.json").read_text())
    for event in ("PreToolUse", "PostToolUse"):
        (entry,) = shipped["hooks"][event]
        assert entry["matcher"] == serve.MATCHER
        assert entry["hooks"][0]["timeout"] == serve.TIMEOUT


# ---------------------------------------------------------------------- when a hook starts a server (--start-server)


def _environ(run: Path) -> dict[bytes, bytes]:
    return {b"XDG_RUNTIME_DIR": os.fsencode(run), b"HOME": os.environb[b"HOME"]}


def test_no_start_in_a_folder_that_is_not_private(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "agent-guard").mkdir(parents=True, mode=0o755)
    os.chmod(run / "agent-guard", 0o755)
    assert "can be opened by others" in client.start_server(_environ(run), 5)
    assert sorted(os.listdir(run / "agent-guard")) == []


def test_no_start_while_a_server_holds_the_lock(tmp_path: Path) -> None:
    import fcntl

    folder = tmp_path / "agent-guard"
    folder.mkdir(mode=0o700)
    with open(folder / "server.lock", "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert client.start_server(_environ(tmp_path), 5) == "a server runs, or is starting"
    assert not (folder / "starts").exists()


def test_no_start_while_backing_off(tmp_path: Path) -> None:
    folder = tmp_path / "agent-guard"
    folder.mkdir(mode=0o700)
    client.write_starts(os.fsencode(folder), 3, b"why")
    assert client.read_starts(os.fsencode(folder / "starts"))[::2] == (3, b"why")
    assert client.start_server(_environ(tmp_path), 5) == "backing off: 3 start(s) lately did not come up"
    assert [client.backoff(n) for n in (0, 1, 2, 3, 8, 100)] == [0, 30, 60, 120, 3600, 3600]


def test_of_two_claims_at_once_one_wins(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path)
    assert client._claim(folder, 0, b"")  # no file: made, one start
    assert not client._claim(folder, 0, b"")  # another hook that saw no file: it is there now
    assert client.read_starts(folder + b"/starts")[::2] == (1, b"")
    os.rename(folder + b"/starts", folder + b"/kept")
    assert not client._claim(folder, 1, b"")  # another hook has moved the old one away already
    os.rename(folder + b"/kept", folder + b"/starts")
    assert client._claim(folder, 1, b"said")
    assert client.read_starts(folder + b"/starts")[::2] == (2, b"said")
    assert sorted(os.listdir(tmp_path)) == ["starts"]
