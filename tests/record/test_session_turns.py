"""Sessions of one agent side by side: `rollback --session` and `log --session`.

Each turn names its session (``Agent-Guard-Session``: Claude Code's session id, the MCP
server's, or $AGENT_GUARD_SESSION).  Before, a rollback could only undo the agent's newest
turn, whichever session made it.
"""

from __future__ import annotations

import json
from typing import Any

from conftest import Repo, run_cli

BASE = {"f.txt": "".join(f"f{i}\n" for i in range(1, 11)), "g.txt": "".join(f"g{i}\n" for i in range(1, 11))}


def edit(path: str, old: str, new: str) -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def in_session(session: str) -> dict[str, str]:
    return {"AGENT_GUARD_SESSION": session}


def apply(repo: Repo, session: str, text: str) -> dict[str, Any]:
    r = run_cli(repo.root, "apply", "--json", input=text, env=in_session(session))
    assert r.code == 0, r
    return r.json()


def test_rollback_session_undoes_that_sessions_last_turn_and_leaves_the_others(repo: Repo) -> None:
    repo.commit(BASE)
    apply(repo, "S1", edit("f.txt", "f1\n", "one\n"))
    apply(repo, "S1", edit("f.txt", "f3\n", "three\n"))
    apply(repo, "S2", edit("g.txt", "g1\n", "two\n"))  # the agent's newest turn, another session's
    r = run_cli(repo.root, "rollback", "--json", "--session", "S1")
    assert r.code == 0, r
    assert r.json()["rolls_back"] == ["2"]
    assert repo.read("f.txt").decode() == BASE["f.txt"].replace("f1\n", "one\n")
    assert repo.read("g.txt").decode() == BASE["g.txt"].replace("g1\n", "two\n")  # S2's turn stays
    again = run_cli(repo.root, "rollback", "--json", "--session", "S1")
    assert again.code == 0 and again.json()["rolls_back"] == ["1"], again
    assert repo.read("f.txt").decode() == BASE["f.txt"]
    done = run_cli(repo.root, "rollback", "--session", "S1")
    assert done.code == 2 and "already rolled back" in done.stderr, done
    unknown = run_cli(repo.root, "rollback", "--session", "S9")
    assert unknown.code == 2 and "S9" in unknown.stderr and "S1" in unknown.stderr, unknown


def test_rollback_session_refuses_when_a_later_turn_of_another_session_changed_the_lines(repo: Repo) -> None:
    repo.commit(BASE)
    apply(repo, "S1", edit("f.txt", "f4\n", "mine\n"))
    apply(repo, "S2", edit("f.txt", "mine\n", "theirs\n"))
    before = repo.snapshot()
    r = run_cli(repo.root, "rollback", "--json", "--session", "S1")
    assert r.code == 1, r
    [f] = r.json()["findings"]  # type: ignore[misc]
    assert f["code"] == "rollback-conflict" and f["path"] == "f.txt" and f["line"] == 4, f
    assert "--session S1 --force" in f["hint"], f
    assert repo.snapshot() == before


def test_log_session_lists_that_sessions_turns(repo: Repo) -> None:
    repo.commit(BASE)
    apply(repo, "S1", edit("f.txt", "f1\n", "one\n"))
    apply(repo, "S2", edit("g.txt", "g1\n", "two\n"))
    r = run_cli(repo.root, "log", "--json", "--session", "S2")
    assert r.code == 0, r
    [t] = r.json()["turns"]  # type: ignore[misc]
    assert t["session"] == "S2" and t["files"][0]["path"] == "g.txt"
