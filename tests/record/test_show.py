"""Seeing one turn: `agent-guard show ID` and `git agent-log --turn ID`, with its diff."""

from __future__ import annotations

import json

from conftest import Repo, command


def _edit(old: str, new: str, path: str = "a.txt") -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def _turns(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
    cli("apply", "--agent", "claude", input=_edit("one", "ONE"))
    cli("apply", "--agent", "claude", input=_edit("three", "THREE"))
    cli("apply", "--agent", "codex", input=_edit("b", "B", "b.txt"))


def test_show_prints_one_turn_with_its_diff(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _turns(repo, cli)
    r = cli("show", "2", "--agent", "claude")
    assert r.code == 0, r
    lines = r.stdout.splitlines()
    assert lines[0].startswith("claude turn 2  ") and lines[1] == "    M a.txt +1 -1", r.stdout
    assert "-three\n+THREE\n" in r.stdout and "ONE" not in r.stdout.replace(" ONE", "")
    # The diff is the turn's commit's own: what `git diff TURN^ TURN` shows.
    commit = lines[0].split()[3]
    assert repo.git("diff", f"{commit}^", commit).splitlines()[-2:] == ["-three", "+THREE"]
    # Without --agent: the one agent that has a turn of that id.
    assert cli("show", "2").stdout == r.stdout
    assert cli("show", "2", "--no-patch").stdout == "\n".join(lines[:2]) + "\n"
    doc = cli("show", "2", "--json").json()
    assert [t["id"] for t in doc["turns"]] == ["2"] and "+THREE" in doc["turns"][0]["diff"]


def test_log_turn_is_the_same_turn(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _turns(repo, cli)
    assert cli("log", "--turn", "2", "-p").stdout == cli("show", "2").stdout
    assert cli("log", "--turn", "2").stdout.count("\n") == 2  # the turn and its file, no diff
    # Turn 1 is a turn of claude and of codex: log lists both, show asks which.
    both = cli("log", "--turn", "1")
    assert both.code == 0 and [ln.split()[0] for ln in both.stdout.splitlines() if not ln.startswith(" ")] == [
        "codex",
        "claude",
    ], both
    which = cli("show", "1")
    assert which.code == 2 and "turn 1 is a turn of claude, codex: name one, e.g. --agent codex" in which.stderr


def test_a_turn_that_is_not_there_says_which_are(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _turns(repo, cli)
    r = cli("show", "9", "--agent", "claude")
    assert r.code == 2 and "claude has no turn '9'; its newest turns: 2, 1" in r.stderr, r
    r = cli("log", "--turn", "9")
    assert r.code == 2 and "no agent has a turn '9' (agents with turns: claude, codex)" in r.stderr, r
    r = cli("show", "a b")
    assert r.code == 2 and "invalid turn id 'a b'" in r.stderr, r


def test_git_agent_show_and_log_turn(repo: Repo) -> None:
    repo.commit({"a.txt": "one\n"})
    command(repo.root, "git", "agent-apply", input=_edit("one", "ONE").encode())
    r = command(repo.root, "git", "agent-log", "--turn", "1", "-p")
    assert r.returncode == 0 and b"+ONE" in r.stdout, r
    r = command(repo.root, "agent-guard", "show", "1")
    assert r.returncode == 0 and b"+ONE" in r.stdout, r
