"""Turns kept per worktree: two linked worktrees (`git worktree add`) of one repository.

Before: every worktree recorded an agent's turns on the one ref ``refs/agent-guard/<agent>``,
so a rollback in one worktree took the newest turn of any (refused as a conflict, or, with
--force, one turn named and another's diff written), and `log` listed every worktree's turns
as this one's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, git, run_cli

BASE = {"f.txt": "".join(f"f{i}\n" for i in range(1, 11)), "g.txt": "".join(f"g{i}\n" for i in range(1, 11))}


def edit(path: str, old: str, new: str) -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def apply(where: Path, text: str, *extra: str) -> dict[str, Any]:
    r = run_cli(where, "apply", "--json", "--agent", "claude", *extra, input=text)
    assert r.code == 0, r
    return r.json()


def log(where: Path, *extra: str) -> list[dict[str, Any]]:
    r = run_cli(where, "log", "--json", *extra)
    assert r.code == 0, r
    turns: list[dict[str, Any]] = r.json()["turns"]  # type: ignore[assignment]
    return turns


@pytest.fixture
def trees(repo: Repo, tmp_path: Path) -> tuple[Repo, Path, Path]:
    """The repository (its main worktree untouched) and two linked worktrees, A and B."""
    repo.commit(BASE)
    a, b = tmp_path / "wa", tmp_path / "wb"
    git(repo.root, "worktree", "add", "-q", "-b", "wa", str(a))
    git(repo.root, "worktree", "add", "-q", "-b", "wb", str(b))
    return repo, a, b


def test_a_rollback_in_one_worktree_never_takes_another_worktrees_turn(trees: tuple[Repo, Path, Path]) -> None:
    repo, a, b = trees
    apply(b, edit("g.txt", "g2\n", "B2\n"))
    apply(a, edit("f.txt", "f5\n", "A5\n"))  # A's turn is the newest of the agent's
    r = run_cli(b, "rollback", "--json", "--agent", "claude")
    assert r.code == 0, r
    assert (b / "g.txt").read_text() == BASE["g.txt"]  # B's own turn undone
    assert (a / "f.txt").read_text() == BASE["f.txt"].replace("f5\n", "A5\n")  # A's file untouched
    assert (b / "f.txt").read_text() == BASE["f.txt"]
    [a_turn] = log(a)
    assert a_turn["files"][0]["path"] == "f.txt" and not a_turn["rolled_back"]
    b_turns = log(b)
    assert [t["kind"] for t in b_turns] == ["rollback", "turn"] and b_turns[1]["rolled_back"]
    assert b_turns[1]["files"][0]["path"] == "g.txt"
    # A's turn is still A's to undo.
    assert run_cli(a, "rollback", "--agent", "claude").code == 0
    assert (a / "f.txt").read_text() == BASE["f.txt"]


def test_force_rollback_in_a_worktree_shows_and_writes_its_own_turn(trees: tuple[Repo, Path, Path]) -> None:
    repo, a, b = trees
    apply(b, edit("f.txt", "f1\n", "B1\n"))
    apply(a, edit("f.txt", "f1\n", "A1\n"))
    r = run_cli(b, "rollback", "--json", "--check", "--force", "--agent", "claude")
    assert r.code == 0, r
    got = r.json()
    assert got["rolls_back"] == ["1"] and "-B1" in got["diff"] and "A1" not in got["diff"]  # type: ignore[operator]


def test_log_shows_this_worktrees_turns_and_all_worktrees_shows_every_one(trees: tuple[Repo, Path, Path]) -> None:
    repo, a, b = trees
    apply(a, edit("f.txt", "f1\n", "A1\n"))
    apply(b, edit("g.txt", "g1\n", "B1\n"))
    apply(repo.root, edit("g.txt", "g9\n", "M9\n"))
    assert [t["files"][0]["path"] for t in log(a)] == ["f.txt"]
    assert [t["files"][0]["path"] for t in log(b)] == ["g.txt"]
    assert [t["files"][0]["path"] for t in log(repo.root)] == ["g.txt"]
    # The main worktree keeps the default ref: refs/agent-guard/<agent>.
    assert log(repo.root)[0]["ref"] == "refs/agent-guard/claude"
    assert repo.git("rev-parse", "refs/agent-guard/claude").strip() == log(repo.root)[0]["commit"]
    for here in (a, b, repo.root):
        every = log(here, "--all-worktrees")
        where = {(t["worktree"]["path"], t["files"][0]["path"]) for t in every}
        assert where == {(str(a.resolve()), "f.txt"), (str(b.resolve()), "g.txt"), (str(repo.root.resolve()), "g.txt")}
        # Each is a ref git itself lists, from any worktree.
        listed = git(here, "for-each-ref", "--format=%(refname)", "refs/agent-guard/").split()
        assert {t["ref"] for t in every} <= set(listed)
    shown = run_cli(b, "log", "--all-worktrees")
    assert shown.code == 0 and str(a.resolve()) in shown.stdout and str(b.resolve()) in shown.stdout, shown


def test_a_repository_without_linked_worktrees_keeps_its_ref(repo: Repo) -> None:
    repo.commit(BASE)
    apply(repo.root, edit("f.txt", "f1\n", "X1\n"))
    [t] = log(repo.root)
    assert t["ref"] == "refs/agent-guard/claude" and t["worktree"] == {"id": None, "path": str(repo.root.resolve())}
    assert repo.git("for-each-ref", "--format=%(refname)", "refs/agent-guard/").split() == ["refs/agent-guard/claude"]


def test_a_removed_worktrees_turns_stay_listed_as_removed(trees: tuple[Repo, Path, Path]) -> None:
    repo, a, b = trees
    apply(a, edit("f.txt", "f1\n", "A1\n"))
    git(repo.root, "worktree", "remove", "--force", str(a))
    [t] = log(repo.root, "--all-worktrees")
    assert t["worktree"] == {"id": "wa", "path": None} and re.fullmatch(
        r"refs/agent-guard/_worktrees/wa@[0-9a-f]{12}/claude", t["ref"]
    )
    shown = run_cli(b, "log", "--all-worktrees")
    assert shown.code == 0 and "(worktree wa, removed)" in shown.stdout, shown
    # A rollback elsewhere finds none of them; the message says where the agent's turns are.
    r = run_cli(b, "rollback", "--agent", "claude")
    assert r.code == 2 and t["ref"] in r.stderr, r


def test_a_worktree_made_again_under_the_same_id_does_not_take_the_old_ones_turns(trees: tuple[Repo, Path, Path]) -> None:
    """git gives a new worktree the id of a removed one with the same folder name: before, the new
    worktree's log listed the old worktree's turns as its own, and a rollback there undid one."""
    repo, a, b = trees
    old = apply(a, edit("f.txt", "f1\n", "A1\n"))
    repo.git("add", "-A")
    git(a, "commit", "-qam", "the old worktree's change, committed")
    git(repo.root, "worktree", "remove", "--force", str(a))
    git(repo.root, "worktree", "add", "-q", str(a), "wa")  # the same folder name: the same id, "wa"
    assert (repo.root / ".git" / "worktrees" / "wa").is_dir() and (a / "f.txt").read_text().startswith("A1\n")
    assert log(a) == []
    r = run_cli(a, "rollback", "--agent", "claude")
    assert r.code == 2 and "no recorded turns" in r.stderr, r
    assert (a / "f.txt").read_text().startswith("A1\n")  # the old worktree's change stays
    [gone] = [t for t in log(a, "--all-worktrees") if t["commit"] == old["turn"]["commit"]]
    assert gone["worktree"] == {"id": "wa", "path": None}  # listed as the removed worktree's
    apply(a, edit("g.txt", "g1\n", "N1\n"))
    [mine] = log(a)
    assert mine["files"][0]["path"] == "g.txt" and mine["ref"] != gone["ref"]


def test_each_worktree_has_its_own_command_line_session(trees: tuple[Repo, Path, Path]) -> None:
    repo, a, b = trees
    ended = run_cli(a, "session", "--json", "--end", "--agent", "claude")
    assert ended.code == 0, ended
    assert run_cli(a, "session", "--json", "--agent", "claude").json()["session"] == ended.json()["session"]
    assert run_cli(b, "session", "--json", "--agent", "claude").json()["session"] == "default"
    assert run_cli(repo.root, "session", "--json", "--agent", "claude").json()["session"] == "default"


@pytest.mark.parametrize("there", ["garbage", "a pipe"])
def test_a_life_file_that_is_not_ours_is_replaced_once_and_kept(trees: tuple[Repo, Path, Path], there: str) -> None:
    """Whatever stands at the worktree's life file (text written by hand, a named pipe), its ledger is
    found again by the next command: the file is replaced once, not given a new name each time."""
    import os

    repo, a, b = trees
    life = repo.root / ".git" / "worktrees" / "wa" / "agent-guard" / "worktree-life"
    life.parent.mkdir(parents=True, exist_ok=True)
    if there == "garbage":
        life.write_text("not a life\n")
    else:
        os.mkfifo(life)
    apply(a, edit("f.txt", "f1\n", "A1\n"))
    apply(a, edit("f.txt", "f2\n", "A2\n"))
    assert [t["id"] for t in log(a)] == ["2", "1"]  # one ledger: the second turn found the first
    r = run_cli(a, "rollback", "--json", "--agent", "claude")
    assert r.code == 0 and r.json()["rolls_back"] == ["2"], r
