"""The test helpers read the repository as git does (they stand in for git calls to save time)."""

from __future__ import annotations

from conftest import Repo, _refs, git


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
