"""The test helpers read the repository as git does (they stand in for git calls to save time), and
the suite runs the ways pyproject.toml says it does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import Repo, _refs, git

ROOT = Path(__file__).resolve().parents[1]


def _for_each_ref(repo: Repo) -> str:
    return git(repo.root, "for-each-ref", "--format=%(refname) %(objectname)")


def test_refs_read_from_files_are_what_for_each_ref_prints(repo: Repo) -> None:
    first = repo.commit({"a.txt": "a\n"})
    assert repo.head() == git(repo.root, "rev-parse", "HEAD").strip() == first
    assert _refs(repo.root / ".git") == _for_each_ref(repo)
    repo.git("branch", "side")
    repo.git("tag", "light")
    repo.git("tag", "-a", "-m", "annotated", "heavy")
    repo.git("update-ref", "refs/agent-guard/agent/x", first)
    second = repo.commit({"a.txt": "b\n"})
    assert repo.head() == second
    assert _refs(repo.root / ".git") == _for_each_ref(repo)
    # Packed, and a loose ref over its packed line.
    repo.git("pack-refs", "--all")
    repo.git("update-ref", "refs/heads/side", second)
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/side")
    assert _refs(repo.root / ".git") == _for_each_ref(repo)
    assert repo.head() == second  # HEAD's branch is packed now: rev-parse answers
    # Detached.
    repo.git("checkout", "-q", "--detach", first)
    assert repo.head() == first
    assert _refs(repo.root / ".git") == _for_each_ref(repo)


def test_refs_git_would_not_read_the_same_way_are_left_to_git(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    (repo.root / ".git" / "refs" / "heads" / "odd").write_text("not an id\n")
    assert _refs(repo.root / ".git") is None
    snapshot = repo.snapshot()["<refs>"]
    assert isinstance(snapshot, str) and "refs/heads/main " in snapshot


def test_the_suite_runs_without_pytest_xdist(tmp_path: Path) -> None:
    # pyproject.toml: without pytest-xdist, `-o addopts=-q` runs the suite in one process.  The
    # conftest's hooks for pytest-xdist must not stop pytest then (an unknown hook is an error).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST_", "PYTEST_CURRENT_TEST"))}
    one = "tests/test_helpers.py::test_refs_git_would_not_read_the_same_way_are_left_to_git"
    argv = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-o", "addopts=-q"]
    proc = subprocess.run(
        [*argv, "--basetemp", str(tmp_path / "run"), one], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
