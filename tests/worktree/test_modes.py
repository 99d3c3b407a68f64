"""A file keeps its own permission bits through apply, rollback, crash recovery and the hook.

A file at mode 600 became 644 after an apply and stayed so after its rollback: the write
gave every file git's checkout bits.  git records only the executable bit, so agent-guard,
which writes over an existing file, keeps that file's bits (600, 640, 700, 775, 664...),
and a diff's mode change sets or clears only the execute bits, as git does: set for each
class that may read (600 -> 700, 644 -> 755), within the umask; cleared, all of them.  A
new file gets git's own: 666 or 777 less the umask.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import Repo, guard

from guard.repo import EXEC, FILE

MODES = [0o600, 0o640, 0o604, 0o644, 0o664, 0o666, 0o700, 0o750, 0o755, 0o775, 0o711, 0o1644]
EDIT = json.dumps({"file_path": "a.txt", "old_string": "two", "new_string": "TWO"})


def bits(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"a.txt": "one\ntwo\nthree\n", "big.txt": "".join(f"line {i}\n" for i in range(20))})
    return repo


@pytest.mark.parametrize("mode", MODES, ids=[f"{m:o}" for m in MODES])
def test_apply_and_rollback_keep_the_bits(project: Repo, cli, mode: int) -> None:  # type: ignore[no-untyped-def]
    os.chmod(project.root / "a.txt", mode)
    r = cli("apply", input=EDIT)
    assert r.code == 0, r
    assert project.read("a.txt") == b"one\nTWO\nthree\n"
    assert bits(project.root / "a.txt") == mode
    r = cli("rollback")
    assert r.code == 0, r
    assert project.read("a.txt") == b"one\ntwo\nthree\n"
    assert bits(project.root / "a.txt") == mode


@pytest.mark.parametrize(
    "mode,exec_mode",
    [(0o600, 0o700), (0o640, 0o750), (0o644, 0o755), (0o664, 0o775), (0o604, 0o705), (0o400, 0o500)],
    ids=lambda m: f"{m:o}",
)
def test_a_mode_change_sets_and_clears_only_the_execute_bits(project: Repo, cli, mode: int, exec_mode: int) -> None:  # type: ignore[no-untyped-def]
    os.chmod(project.root / "a.txt", mode)
    added = exec_mode & ~mode & ~_umask()  # the umask limits the bits the change adds, never the file's own
    r = cli("apply", input="diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n")
    assert r.code == 0, r
    assert bits(project.root / "a.txt") == mode | added
    r = cli("apply", input="diff --git a/a.txt b/a.txt\nold mode 100755\nnew mode 100644\n")
    assert r.code == 0, r
    assert bits(project.root / "a.txt") == mode
    r = cli("rollback")  # undoes the clear: the bits the set gave come back
    assert r.code == 0 and bits(project.root / "a.txt") == mode | added, r


def test_a_rename_keeps_the_bits_and_so_does_its_rollback(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    os.chmod(project.root / "big.txt", 0o604)
    r = cli(
        "apply",
        input="*** Begin Patch\n*** Update File: big.txt\n*** Move to: sub/moved.txt\n@@\n-line 3\n+LINE 3\n*** End Patch\n",
    )
    assert r.code == 0, r
    assert bits(project.root / "sub" / "moved.txt") == 0o604
    assert cli("rollback").code == 0
    assert bits(project.root / "big.txt") == 0o604 and not (project.root / "sub").exists()


def test_a_new_file_gets_gits_checkout_bits(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", input="--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n")
    assert r.code == 0, r
    assert bits(project.root / "new.txt") == 0o666 & ~_umask()


@pytest.mark.parametrize("point", ["after-journal", "before-rename:a.txt", "after-file:0", "before-journal-removal"])
@pytest.mark.parametrize("mode", [0o600, 0o751, 0o1664], ids=lambda m: f"{m:o}")
def test_crash_recovery_puts_back_the_exact_bits(project: Repo, point: str, mode: int) -> None:
    """A kill mid-write, with the bits changed by a mode change in the same edit: recovery restores both."""
    os.chmod(project.root / "a.txt", mode)
    (project.root / "gone.txt").write_text("bye\n")
    project.git("add", "gone.txt")
    project.git("commit", "-qm", "gone")
    os.chmod(project.root / "gone.txt", 0o640)
    before = {p: (project.read(p), bits(project.root / p)) for p in ("a.txt", "gone.txt")}
    patch = (
        "diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n--- a/a.txt\n+++ b/a.txt\n"
        "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-bye\n"
    )
    r = guard(project.root, "apply", input=patch.encode(), env={"AGENT_GUARD_CRASH_AT": point})
    assert r.returncode == -9, r
    r = guard(project.root, "log")
    assert r.returncode == 0, r
    assert {p: (project.read(p), bits(project.root / p)) for p in ("a.txt", "gone.txt")} == before


def test_a_turn_the_claude_code_hook_recorded_rolls_back_with_the_bits(project: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    os.chmod(project.root / "a.txt", 0o640)
    ti = {"file_path": str(project.root / "a.txt"), "old_string": "two", "new_string": "TWO"}
    pre = {
        "session_id": "s",
        "cwd": str(project.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": ti,
        "tool_use_id": "toolu_1",
    }
    assert cli("hook", "claude-code", input=json.dumps(pre)).code == 0
    with open(project.root / "a.txt", "r+") as fh:  # Claude Code's tool writes in place
        fh.write("one\nTWO\nthree\n")
    post = dict(pre, hook_event_name="PostToolUse", tool_response={"filePath": ti["file_path"]})
    r = cli("hook", "claude-code", input=json.dumps(post))
    assert r.code == 0, r
    r = cli("rollback", "--agent", "claude")
    assert r.code == 0, r
    assert project.read("a.txt") == b"one\ntwo\nthree\n" and bits(project.root / "a.txt") == 0o640


@pytest.mark.parametrize(
    "kept,git_mode,umask,want",
    [
        (None, FILE, 0o022, 0o644),
        (None, EXEC, 0o022, 0o755),
        (None, FILE, 0o002, 0o664),
        (None, EXEC, 0o077, 0o700),
        (0o600, FILE, 0o022, 0o600),
        (0o600, EXEC, 0o022, 0o700),
        (0o644, EXEC, 0o022, 0o755),
        (0o664, EXEC, 0o002, 0o775),
        (0o664, EXEC, 0o022, 0o755 | 0o020),
        (0o755, FILE, 0o022, 0o644),
        (0o711, EXEC, 0o022, 0o711),
        (0o4755, EXEC, 0o022, 0o755),
        (0o1644, FILE, 0o022, 0o1644),
    ],
)
def test_permissions(kept: int | None, git_mode: int, umask: int, want: int) -> None:
    from guard.tree.worktree import permissions

    assert permissions(kept, git_mode, umask) == want


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
