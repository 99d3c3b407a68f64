"""What an agent read, kept per session: one session's read or write is no fresh read for another.

Before, reads were kept per agent, and the agent's newest write counted as read whichever
session made it: session A read a file, session B changed it, and A's edit on the text it
had read was located in B's text as if A had seen it.
"""

from __future__ import annotations

import json

from conftest import Repo, run_cli

BASE = {"f.txt": "".join(f"f{i}\n" for i in range(1, 11))}
POLICY = "extends: default\nread_before_edit: true\n"


def edit(path: str, old: str, new: str) -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def in_session(session: str) -> dict[str, str]:
    return {"AGENT_GUARD_SESSION": session}


def apply(repo: Repo, session: str, text: str) -> None:
    r = run_cli(repo.root, "apply", "--json", input=text, env=in_session(session))
    assert r.code == 0, r


def test_another_sessions_write_is_no_fresh_read(repo: Repo) -> None:
    """Session A reads, session B changes the file, A edits on the text it read: `stale`.

    Before, B's write counted as A's read: A's edit was located in the file as B left it (and
    refused as `not-found` where B had changed its lines, or applied as if A had seen B's text)."""
    repo.commit({**BASE, ".agent-guard.yaml": POLICY})
    assert run_cli(repo.root, "read", "f.txt", env=in_session("A")).code == 0
    assert run_cli(repo.root, "read", "f.txt", env=in_session("B")).code == 0
    apply(repo, "B", edit("f.txt", "f9\n", "B9\n"))
    before = repo.snapshot()
    r = run_cli(repo.root, "apply", "--json", input=edit("f.txt", "f9\n", "A9\n"), env=in_session("A"))
    assert r.code == 1, r
    assert [f["code"] for f in r.json()["findings"]] == ["stale"], r  # type: ignore[union-attr]
    assert repo.snapshot() == before
    # Lines B left alone: A's edit is made on A's read and merged onto B's change by git's rule.
    r = run_cli(repo.root, "apply", "--json", input=edit("f.txt", "f1\n", "A1\n"), env=in_session("A"))
    assert r.code == 0, r
    assert "3way" in r.json()["files"][0]["repairs"], r  # type: ignore[index]
    assert repo.read("f.txt").decode() == BASE["f.txt"].replace("f1\n", "A1\n").replace("f9\n", "B9\n")
    # Once A reads again, it edits what B wrote.
    assert run_cli(repo.root, "read", "f.txt", env=in_session("A")).code == 0
    r = run_cli(repo.root, "apply", "--json", input=edit("f.txt", "B9\n", "A9\n"), env=in_session("A"))
    assert r.code == 0 and r.json()["files"][0]["repairs"] == [], r  # type: ignore[index]


def test_without_a_session_reads_are_the_agents_as_before(repo: Repo) -> None:
    repo.commit({**BASE, ".agent-guard.yaml": POLICY})
    assert run_cli(repo.root, "read", "f.txt").code == 0
    assert (repo.root / ".git" / "agent-guard" / "reads" / "agent.json").is_file()
    assert run_cli(repo.root, "apply", "--json", input=edit("f.txt", "f1\n", "X1\n")).code == 0


def test_reads_are_kept_per_worktree(repo: Repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Before, one record per agent for every worktree: a read of the file in one worktree replaced
    the read of the same path in another, and the edit there was taken for one made on the other
    tree's version (merged from it, `3way`)."""
    from conftest import git

    repo.commit({**BASE, ".agent-guard.yaml": POLICY})
    a, b = tmp_path / "wa", tmp_path / "wb"
    git(repo.root, "worktree", "add", "-q", "-b", "wa", str(a))
    git(repo.root, "worktree", "add", "-q", "-b", "wb", str(b))
    (b / "f.txt").write_text(BASE["f.txt"].replace("f5\n", "user's\n"))
    assert run_cli(a, "read", "f.txt").code == 0
    assert run_cli(b, "read", "f.txt").code == 0  # another version of the path, in another tree
    r = run_cli(a, "apply", "--json", input=edit("f.txt", "f1\n", "A1\n"))
    assert r.code == 0 and r.json()["files"][0]["repairs"] == [], r  # type: ignore[index]
    # And a read in one worktree is no read in another.
    (repo.root / "f.txt").write_text(BASE["f.txt"])
    r = run_cli(repo.root, "apply", "--json", input=edit("f.txt", "f2\n", "M2\n"))
    assert r.code == 1 and [f["code"] for f in r.json()["findings"]] == ["stale"], r  # type: ignore[union-attr]
