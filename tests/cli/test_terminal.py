"""On a terminal, as git does: colour that respects NO_COLOR and git's color settings, `log` through
git's pager, progress on standard error for long work; and `agent-guard -C DIR` like `git -C`."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import Repo, checkout_env, command, git

TIMEOUT = 120
EDIT = json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "ONE"})


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _on_terminal(cwd: Path, argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> str:
    """`argv` with its standard output and error on a terminal (a pty); what the terminal showed."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.PIPE, stdout=slave, stderr=slave, env=checkout_env({"TERM": "xterm", **(env or {})})
    )
    os.close(slave)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as exc:  # EIO: the last writer closed the terminal
            assert exc.errno == errno.EIO
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    proc.wait(timeout=TIMEOUT)
    return shown.decode("utf-8", "replace")


def _repo(repo: Repo) -> Repo:
    repo.commit({"a.txt": "one\ntwo\n"})
    return repo


def test_colour_on_a_terminal_only(repo: Repo) -> None:
    _repo(repo)
    apply = [sys.executable, "-m", "guard", "apply", "--check", "--diff"]
    coloured = _on_terminal(repo.root, apply, EDIT.encode())
    assert "\x1b[32;1mwould apply\x1b[m" in coloured and "\x1b[31m-one\x1b[m" in coloured, coloured
    piped = subprocess.run(
        apply, cwd=repo.root, input=EDIT.encode(), capture_output=True, env=checkout_env(), timeout=TIMEOUT, check=False
    )
    assert piped.returncode == 0 and b"\x1b" not in piped.stdout, piped


def test_no_color_and_gits_settings_turn_it_off(repo: Repo) -> None:
    _repo(repo)
    apply = [sys.executable, "-m", "guard", "apply", "--check", "--diff"]
    assert "\x1b[" not in _on_terminal(repo.root, apply, EDIT.encode(), {"NO_COLOR": "1"})
    assert "\x1b[" not in _on_terminal(repo.root, apply, EDIT.encode(), {"TERM": "dumb"})
    never = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "color.ui", "GIT_CONFIG_VALUE_0": "never"}
    assert "\x1b[" not in _on_terminal(repo.root, apply, EDIT.encode(), never)
    repo.git("config", "color.agent-guard", "false")
    assert "\x1b[" not in _on_terminal(repo.root, apply, EDIT.encode())
    repo.git("config", "color.agent-guard", "auto")
    repo.git("config", "color.ui", "never")
    assert "\x1b[" in _on_terminal(repo.root, apply, EDIT.encode())  # color.agent-guard comes first, as in git


def test_check_colours_the_codes(repo: Repo) -> None:
    _repo(repo)
    repo.write({"a.txt": "one  \ntwo\n"})
    repo.git("add", "a.txt")
    shown = _on_terminal(repo.root, [sys.executable, "-m", "guard", "check", "--policy", "strict"])
    assert "a.txt:1: \x1b[31mwhitespace\x1b[m: " in shown, shown


def test_log_goes_through_gits_pager_on_a_terminal(repo: Repo, tmp_path: Path) -> None:
    _repo(repo)
    command(repo.root, "git", "agent-apply", input=EDIT.encode())
    paged, seen_env = tmp_path / "paged.txt", tmp_path / "env.txt"
    pager = {"GIT_PAGER": f"env > {seen_env}; cat > {paged}"}
    shown = _on_terminal(repo.root, [sys.executable, "-m", "guard", "log", "-p"], env=pager)
    text = paged.read_text()
    assert "agent turn 1  " in text and "+ONE" in text and "+ONE" not in shown, (text, shown)
    assert "LESS=FRX" in seen_env.read_text().splitlines()  # git's default for less
    # `git --no-pager agent-log` (git passes GIT_PAGER=cat), a pipe, and core.pager=cat: no pager.
    paged.unlink()
    for argv in (["git", "--no-pager", "agent-log"],):
        shown = _on_terminal(repo.root, argv, env=pager)
        assert "agent turn 1" in shown and not paged.exists(), shown
    piped = command(repo.root, "agent-guard", "log", env=pager)
    assert b"agent turn 1" in piped.stdout and not paged.exists()
    git(repo.root, "config", "core.pager", "cat")
    shown = _on_terminal(repo.root, [sys.executable, "-m", "guard", "show", "1"], env={"PAGER": f"cat > {paged}"})
    assert "+ONE" in shown and not paged.exists()


def test_progress_says_how_far_long_work_got() -> None:
    from guard.cli.terminal import Progress

    shown = _Terminal()
    progress = Progress("agent-guard check", stream=shown, delay=0)
    for i in range(1, 4):
        progress(i, 3, "reading commits")
    progress(1, 2, "checking")
    progress(2, 2, "checking")
    progress.end()
    text = shown.getvalue()
    assert "\ragent-guard check: reading commits: 100% (3/3), done.\n" in text, text
    assert text.endswith("\ragent-guard check: checking: 100% (2/2), done.\n"), text
    # Not on a pipe, not when quiet, and not for quick work.
    for quiet, stream, delay in ((False, io.StringIO(), 0.0), (True, _Terminal(), 0.0), (False, _Terminal(), 60.0)):
        p = Progress("x", quiet, stream, delay)
        p(1, 2, "a")
        p.end()
        assert stream.getvalue() == ""


def test_a_range_check_reports_its_progress(repo: Repo) -> None:
    from guard import commit_check
    from guard.files.workspace import Workspace

    base = repo.commit({"a.txt": "0\n"})
    for i in range(1, 6):
        repo.commit({"a.txt": f"{i}\n"})
    seen: list[tuple[int, int, str]] = []
    commit_check.check(Workspace(repo.root), from_ref=base, to_ref="HEAD", progress=lambda *a: seen.append(a))
    assert (5, 5, "reading commits") in seen and seen[-1] == (5, 5, "checking"), seen


def test_change_folder_like_git_c(repo: Repo, tmp_path: Path) -> None:
    _repo(repo)
    (repo.root / "sub").mkdir()
    for argv in (
        ["agent-guard", "-C", str(repo.root), "apply", "--check"],  # the quick path
        [sys.executable, "-m", "guard", f"-C{repo.root}", "apply", "--check", "--json"],
    ):
        r = command(tmp_path, *argv, input=EDIT.encode())
        assert r.returncode == 0 and (b"would apply" in r.stdout or b'"checked"' in r.stdout), (argv, r)
    # Each -C from the one before; relative paths of the edit then start from there, as for git.
    r = command(
        tmp_path,
        "agent-guard",
        "-C",
        str(repo.root),
        "-C",
        "sub",
        "apply",
        "--check",
        input=EDIT.replace("a.txt", "../a.txt").encode(),
    )
    assert r.returncode == 0 and b"modify  a.txt" in r.stdout, r
    r = command(tmp_path, "agent-guard", "-C", str(repo.root), "log")
    assert r.returncode == 0 and b"no recorded turns" in r.stdout, r
    r = command(tmp_path, "agent-guard", "-C", "nope", "log")
    assert r.returncode == 2 and r.stderr == b"agent-guard: cannot change to 'nope': No such file or directory\n", r
    assert b"-C DIR" in command(tmp_path, "agent-guard", "--help").stdout
