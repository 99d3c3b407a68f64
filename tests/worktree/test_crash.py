"""kill -9 in the middle of a multi-file apply or rollback: the next command restores
the state from before, never a mix, and leaves no temporary file behind."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, journal_pending
from conftest import guard as guard_child

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

PATCH = (
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    "diff --git a/new/dir/b.txt b/new/dir/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new/dir/b.txt\n@@ -0,0 +1 @@\n+born\n"
    "diff --git a/c.txt b/c.txt\ndeleted file mode 100644\n--- a/c.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-doomed\n"
    "diff --git a/d.txt b/d.txt\n--- a/d.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-old\n+new\n"
)
POINTS = [
    "after-journal",
    "before-rename:a.txt",
    "after-file:0",
    "before-rename:new/dir/b.txt",
    "after-file:1",
    "after-file:2",
    "before-rename:d.txt",
    "after-file:3",
    "before-journal-removal",
]


def _child(root: Path, args: list[str], data: str | None, env_extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return guard_child(root, *args, input=data.encode() if data else None, env=env_extra)


def _tree(repo: Repo) -> dict[str, object]:
    snap = repo.snapshot()
    return {k: v for k, v in snap.items() if not k.startswith("<")}


def _no_temps(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        assert not [f for f in filenames if ".agent-guard-tmp-" in f], dirpath


@pytest.fixture
def states(repo: Repo):  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "one\ntwo\nthree\n", "c.txt": "doomed\n", "d.txt": "old\n"})
    before = _tree(repo)
    r = _child(repo.root, ["apply", "--json"], PATCH, {})
    assert r.returncode == 0, r.stderr
    after = _tree(repo)
    after_ref = repo.git("rev-parse", "refs/agent-guard/agent").strip()
    # Back to the start for the crash runs.
    repo.git("update-ref", "-d", "refs/agent-guard/agent")
    repo.git("checkout", "-q", "--", ".")
    repo.git("clean", "-qfd")
    assert _tree(repo) == before
    return before, after, after_ref


@pytest.mark.parametrize("point", POINTS)
def test_crash_at_each_point_rolls_back(repo: Repo, states, point: str) -> None:  # type: ignore[no-untyped-def]
    before, _after, _ = states
    r = _child(repo.root, ["apply"], PATCH, {"AGENT_GUARD_CRASH_AT": point})
    assert r.returncode == -9, (point, r.returncode, r.stderr)
    assert journal_pending(repo.root / ".git" / "agent-guard" / "journal.json")
    nxt = _child(repo.root, ["log"], None, {})  # any next command recovers
    assert nxt.returncode == 0, nxt.stderr
    assert _tree(repo) == before, point
    assert repo.git("for-each-ref", "refs/agent-guard/") == ""
    assert not journal_pending(repo.root / ".git" / "agent-guard" / "journal.json")
    _no_temps(repo.root)
    # And the same edit then applies cleanly.
    assert _child(repo.root, ["apply"], PATCH, {}).returncode == 0


def test_crash_mid_rollback_leaves_before_or_after(repo: Repo, states) -> None:  # type: ignore[no-untyped-def]
    before, after, _ = states
    assert _child(repo.root, ["apply"], PATCH, {}).returncode == 0
    tip = repo.git("rev-parse", "refs/agent-guard/agent").strip()
    for point in ("after-journal", "after-file:1", "before-journal-removal"):
        r = _child(repo.root, ["rollback"], None, {"AGENT_GUARD_CRASH_AT": point})
        assert r.returncode == -9
        assert _child(repo.root, ["log"], None, {}).returncode == 0
        assert _tree(repo) == after, point
        assert repo.git("rev-parse", "refs/agent-guard/agent").strip() == tip
        _no_temps(repo.root)
    assert _child(repo.root, ["rollback"], None, {}).returncode == 0
    assert _tree(repo) == before


def test_kill_at_random_moments(repo: Repo, states) -> None:  # type: ignore[no-untyped-def]
    before, after, _ = states
    rng = random.Random(7)
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-m", "guard", "apply"],
            cwd=repo.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=checkout_env(),
        )
        assert proc.stdin is not None
        proc.stdin.write(PATCH.encode())
        proc.stdin.close()
        time.sleep(rng.uniform(0.0, 0.6))
        proc.kill()
        proc.wait(timeout=60)
        assert _child(repo.root, ["log"], None, {}).returncode == 0
        state = _tree(repo)
        assert state in (before, after)
        ref = repo.git("for-each-ref", "--format=%(objectname)", "refs/agent-guard/agent").strip()
        assert (state == after) == bool(ref)
        _no_temps(repo.root)
        if state == after:
            repo.git("update-ref", "-d", "refs/agent-guard/agent")
            repo.git("checkout", "-q", "--", ".")
            repo.git("clean", "-qfd")


def test_the_installed_package_has_no_crash_points(repo: Repo) -> None:
    """AGENT_GUARD_CRASH_AT means something only where the tests install their hook
    (tests/crashpoints): an agent that sets it in a user's environment kills nothing."""
    repo.commit({"a.txt": "one\ntwo\nthree\n", "c.txt": "doomed\n", "d.txt": "old\n"})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AGENT_GUARD_CRASH_AT="after-file:0", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    r = subprocess.run(
        [sys.executable, "-m", "guard", "apply"],
        cwd=repo.root,
        input=PATCH.encode(),
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert repo.read("a.txt") == b"one\nTWO\nthree\n"


def test_making_a_guard_reads_only_and_recover_is_explicit(repo: Repo) -> None:
    """A Guard is made without taking the lock or writing (the state it finds is the state it
    reports); `recover()`, which every command calls first, rolls an interrupted write back."""
    from guard.pipeline.engine import Guard

    repo.commit({"a.txt": "one\ntwo\nthree\n", "c.txt": "doomed\n", "d.txt": "old\n"})
    before = _tree(repo)
    r = _child(repo.root, ["apply"], PATCH, {"AGENT_GUARD_CRASH_AT": "after-file:0"})
    assert r.returncode == -9, r.stderr
    half = repo.snapshot()
    journal = repo.root / ".git" / "agent-guard" / "journal.json"
    assert journal_pending(journal)
    g = Guard(repo.root)
    assert repo.snapshot() == half and journal_pending(journal)
    assert g.recover() is True
    assert _tree(repo) == before and not journal_pending(journal)
    assert g.recover() is False
