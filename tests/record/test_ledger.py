"""The shadow ledger: turns as commits on refs/agent-guard/<agent>, log and rollback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Repo

BASE = {
    "a.py": "".join(f"line {i}\n" for i in range(1, 21)),
    "b.py": "one\ntwo\nthree\n",
}


def edit(path: str, old: str, new: str) -> str:
    return json.dumps({"file_path": path, "old_string": old, "new_string": new})


def apply(cli, text: str, *extra: str):  # type: ignore[no-untyped-def]
    r = cli("apply", "--json", *extra, input=text)
    assert r.code == 0, r
    return r.json()


def test_turn_is_a_commit_whose_diff_is_exactly_the_turn(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    head = repo.commit(BASE)
    index_before = (repo.root / ".git" / "index").read_bytes()
    out = apply(cli, edit("a.py", "line 3\n", "LINE 3\n"), "--agent", "claude")
    turn = out["turn"]
    assert turn["agent"] == "claude" and turn["id"] == "1" and turn["ref"] == "refs/agent-guard/claude"
    assert repo.git("rev-parse", "refs/agent-guard/claude").strip() == turn["commit"]
    diff = repo.git("diff", f"{turn['commit']}^", turn["commit"])
    assert "-line 3\n+LINE 3\n" in diff and diff.count("\n+") == 2
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert (repo.root / ".git" / "index").read_bytes() == index_before
    assert repo.git("status", "--porcelain") == " M a.py\n"
    msg = repo.git("log", "-1", "--format=%B", turn["commit"])
    assert "Agent-Guard-Agent: claude" in msg and "Agent-Guard-Format: json" in msg and "M a.py +1 -1" in msg


def test_user_changes_between_turns_stay_out_of_the_turn_diff(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    (repo.root / "a.py").write_text((repo.root / "a.py").read_text().replace("line 10\n", "user 10\n"))
    out = apply(cli, edit("a.py", "line 15\n", "LINE 15\n"))
    c = out["turn"]["commit"]
    diff = repo.git("diff", f"{c}^", c)
    assert "user 10" not in diff.replace(" user 10", "")  # only as context, never as a change
    assert "-line 15\n+LINE 15\n" in diff
    assert "+user 10" not in diff and "-line 10" not in diff


def test_reflog_records_every_move(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    apply(cli, edit("a.py", "line 4\n", "LINE 4\n"))
    assert cli("rollback").code == 0
    reflog = repo.git("reflog", "refs/agent-guard/agent")
    assert len(reflog.strip().splitlines()) == 3


def test_same_turn_id_groups_applies(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"), "--turn", "t1")
    out = apply(cli, edit("b.py", "two\n", "TWO\n"), "--turn", "t1")
    c = out["turn"]["commit"]
    diff = repo.git("diff", "--stat", f"{c}^", c)
    assert "a.py" in diff and "b.py" in diff
    log = cli("log", "--json").json()["turns"]
    assert [t["id"] for t in log] == ["t1"]


def test_log_lists_turns_newest_first_with_rollback_state(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    apply(cli, edit("b.py", "two\n", "TWO\n"))
    assert cli("rollback").code == 0
    turns = cli("log", "--json").json()["turns"]
    assert [(t["id"], t["kind"], t["rolled_back"]) for t in turns] == [
        ("3", "rollback", False),
        ("2", "turn", True),
        ("1", "turn", False),
    ]
    text = cli("log", "-p").stdout
    assert "(rolled back)" in text and "+LINE 3" in text


def test_rollback_last_turn_restores_files(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    before = repo.snapshot()
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    r = cli("rollback", "--json")
    assert r.code == 0 and r.json()["status"] == "applied"
    after = repo.snapshot()
    assert {k: v for k, v in after.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}


def test_rollback_older_turn_keeps_later_turns_and_user_edits(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))  # turn 1
    apply(cli, edit("b.py", "two\n", "TWO\n"))  # turn 2: another file
    apply(cli, edit("a.py", "line 18\n", "LINE 18\n"))  # turn 3: same file, other lines
    (repo.root / "a.py").write_text((repo.root / "a.py").read_text().replace("line 10\n", "user 10\n"))
    r = cli("rollback", "--turn", "1", "--json")
    assert r.code == 0, r
    a = (repo.root / "a.py").read_text()
    assert "line 3\n" in a and "LINE 18\n" in a and "user 10\n" in a
    assert (repo.root / "b.py").read_text() == "one\nTWO\nthree\n"


def test_rollback_refuses_overlapping_later_change(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    (repo.root / "a.py").write_text((repo.root / "a.py").read_text().replace("LINE 3\n", "USER 3\n"))
    snap = repo.snapshot()
    r = cli("rollback", "--json")
    assert r.code == 1
    f = r.json()["findings"][0]
    assert f["code"] == "rollback-conflict" and f["path"] == "a.py" and f["line"] == 3
    assert repo.snapshot() == snap
    assert cli("rollback", "--force").code == 0
    assert "line 3\n" in (repo.root / "a.py").read_text()


def test_rollback_force_loses_only_what_conflicts(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """--force takes the turn's old side where the later change conflicts, and keeps every other later change:
    the user's edit elsewhere in the file and another agent's turn, which its log then still truly shows."""
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\nline 4\n", "LINE 3\nLINE 4\n"), "--agent", "claude")
    apply(cli, edit("a.py", "line 15\n", "LINE 15\n"), "--agent", "codex")
    text = (repo.root / "a.py").read_text()
    (repo.root / "a.py").write_text(text.replace("LINE 4\n", "USER 4\n").replace("line 10\n", "user 10\n"))
    snap = repo.snapshot()
    r = cli("rollback", "--agent", "claude", "--json")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "rollback-conflict" and f["line"] == 3, f
    # The refusal names the lines --force would lose, as they read now.
    assert "3| LINE 3" in f["hint"] and "4| USER 4" in f["hint"] and "--force" in f["hint"], f
    assert repo.snapshot() == snap
    r = cli("rollback", "--agent", "claude", "--force", "--json")
    assert r.code == 0, r
    want = BASE["a.py"].replace("line 10\n", "user 10\n").replace("line 15\n", "LINE 15\n")
    assert (repo.root / "a.py").read_text() == want
    # The later turn of the other agent is still in effect, so undoing it still works.
    assert cli("rollback", "--agent", "codex").code == 0
    assert (repo.root / "a.py").read_text() == want.replace("LINE 15\n", "line 15\n")


def test_rollback_merges_by_git_merge_file(repo: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The rolled-back file is what `git merge-file` makes of (now, the turn's result, the file before it)."""
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 8\n", "LINE 8\nEXTRA\n"))
    now = (repo.root / "a.py").read_text().replace("line 11\n", "user 11\n").replace("line 2\n", "")
    (repo.root / "a.py").write_text(now)
    turn_after = BASE["a.py"].replace("line 8\n", "LINE 8\nEXTRA\n")
    for name, text in (("ours", now), ("base", turn_after), ("theirs", BASE["a.py"])):
        (tmp_path / name).write_text(text)
    expected = repo.git("merge-file", "-p", str(tmp_path / "ours"), str(tmp_path / "base"), str(tmp_path / "theirs"))
    assert cli("rollback").code == 0
    assert (repo.root / "a.py").read_text() == expected


def test_rollback_check_changes_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    snap = repo.snapshot()
    r = cli("rollback", "--check", "--json")
    assert r.code == 0 and r.json()["status"] == "checked" and "-LINE 3" in r.json()["diff"]
    assert repo.snapshot() == snap


def test_rollback_to_undoes_every_later_turn(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    apply(cli, edit("a.py", "line 4\n", "LINE 4\n"))
    apply(cli, edit("b.py", "two\n", "TWO\n"))
    assert cli("rollback", "--to", "1").code == 0
    assert "LINE 3\nline 4\n" in (repo.root / "a.py").read_text()
    assert (repo.root / "b.py").read_text() == BASE["b.py"]


def test_rollback_of_a_rollback(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    assert cli("rollback").code == 0
    assert "line 3\n" in (repo.root / "a.py").read_text()
    assert cli("rollback").code == 0  # undoes the rollback
    assert "LINE 3\n" in (repo.root / "a.py").read_text()
    turns = cli("log", "--json").json()["turns"]
    assert [(t["id"], t["rolled_back"]) for t in turns] == [("3", False), ("2", True), ("1", False)]


def test_two_agents_interleave(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "CLAUDE 3\n"), "--agent", "claude")
    apply(cli, edit("a.py", "line 5\n", "CODEX 5\n"), "--agent", "codex")
    apply(cli, edit("b.py", "two\n", "CLAUDE two\n"), "--agent", "claude")
    assert cli("rollback", "--agent", "claude", "--turn", "1").code == 0
    a = (repo.root / "a.py").read_text()
    assert "line 3\n" in a and "CODEX 5\n" in a
    assert (repo.root / "b.py").read_text() == "one\nCLAUDE two\nthree\n"
    agents = {t["agent"] for t in cli("log", "--json").json()["turns"]}
    assert agents == {"claude", "codex"}


def test_user_commit_between_turns(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    repo.commit({"b.py": "one\ntwo\nthree\nfour\n"}, "user work")
    out = apply(cli, edit("b.py", "four\n", "FOUR\n"))
    c = out["turn"]["commit"]
    assert repo.git("diff", f"{c}^", c).count("\n+") == 2  # +++ header and +FOUR
    assert cli("rollback").code == 0
    assert (repo.root / "b.py").read_text() == "one\ntwo\nthree\nfour\n"


def test_create_delete_rename_and_mode_undone(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(dict(BASE, **{"gone.txt": "bye\n", "old/name.txt": "x\n", "run.sh": "echo\n"}))
    before = repo.snapshot()
    patch = (
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/old/name.txt b/new/name.txt\nsimilarity index 100%\nrename from old/name.txt\nrename to new/name.txt\n"
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    )
    r = cli("apply", "--json", input=patch)
    assert r.code == 0, r
    assert (repo.root / "new.txt").exists() and not (repo.root / "gone.txt").exists()
    assert (repo.root / "new/name.txt").exists() and not (repo.root / "old").exists() or not (repo.root / "old/name.txt").exists()
    assert os.stat(repo.root / "run.sh").st_mode & 0o111
    r = cli("rollback", "--json")
    assert r.code == 0, r
    after = repo.snapshot()
    assert {k: v for k, v in after.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}


def test_gc_keeps_newest_turns(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    for i in (3, 4, 5):
        apply(cli, edit("a.py", f"line {i}\n", f"LINE {i}\n"))
    r = cli("gc", "--keep", "2")
    assert r.code == 0 and "kept 2" in r.stdout
    turns = cli("log", "--json").json()["turns"]
    assert [t["id"] for t in turns] == ["3", "2"]
    c = turns[0]["commit"]
    assert "-line 5\n+LINE 5" in repo.git("diff", f"{c}^", c)
    assert cli("rollback").code == 0
    assert "line 5\n" in (repo.root / "a.py").read_text()


def test_commands_work_from_a_subfolder_and_git_dash_c(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"sub/deep/x.txt": "a\n"})
    r = cli("apply", "--json", input=edit("x.txt", "a\n", "b\n"), cwd=repo.root / "sub" / "deep")  # as for git add
    assert r.code == 0, r
    assert (repo.root / "sub/deep/x.txt").read_text() == "b\n"


def test_identity_falls_back_when_git_has_none(repo: Repo, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    for k in ("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(k, raising=False)
    out = apply(cli, edit("a.py", "line 3\n", "LINE 3\n"))
    who = repo.git("log", "-1", "--format=%an <%ae>", out["turn"]["commit"]).strip()
    assert who == "agent-guard <agent-guard@localhost>"


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    from conftest import run_cli

    r = run_cli(tmp_path, "apply", input="x")
    assert r.code == 2 and "not a git repository" in r.stderr


def test_agent_may_edit_a_file_it_created(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    assert cli("apply", input=json.dumps({"file_path": "new.py", "content": "A = 1\n"})).code == 0
    r = cli("apply", "--json", input=edit("new.py", "A = 1", "A = 2"))
    assert r.code == 0, r
    assert (repo.root / "new.py").read_text() == "A = 2\n"
    # Another agent did not create it: for that one it is still untracked.
    r = cli("apply", "--json", "--agent", "other", input=edit("new.py", "A = 2", "A = 3"))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "untracked"


def test_no_op_under_default_policy_warns_and_records_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    snap = repo.snapshot()
    r = cli("apply", "--json", input=edit("b.py", "two\n", "two\n"))
    out = r.json()
    assert r.code == 0 and out["status"] == "applied" and out["turn"] is None and out["diff"] == ""
    assert [f["code"] for f in out["findings"]] == ["no-op"] and out["findings"][0]["severity"] == "warning"
    assert repo.snapshot() == snap


# ---------------------------------------------------------------------- turn ids


def test_an_automatic_id_never_reuses_an_explicit_one(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """`--turn 3` first, then automatic ids: they pass 3, so `rollback --turn 3` undoes that turn alone."""
    repo.commit(BASE)
    assert apply(cli, edit("a.py", "line 3\n", "LINE 3\n"), "--turn", "3")["turn"]["id"] == "3"
    ids = [apply(cli, edit("b.py", old, old.upper()))["turn"]["id"] for old in ("one\n", "two\n", "three\n")]
    assert ids == ["4", "5", "6"]
    r = cli("rollback", "--turn", "3", "--json")
    assert r.code == 0 and [f["path"] for f in r.json()["files"]] == ["a.py"], r
    assert repo.read("b.py") == b"ONE\nTWO\nTHREE\n" and b"LINE 3" not in repo.read("a.py")
    # A name is no number: the count goes on from where it was.
    assert apply(cli, edit("a.py", "line 5\n", "LINE 5\n"), "--turn", "fix-login")["turn"]["id"] == "fix-login"
    assert apply(cli, edit("a.py", "line 6\n", "LINE 6\n"))["turn"]["id"] == "8"  # 7 was the rollback


def test_an_explicit_id_may_not_name_an_earlier_turn(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Only the latest turn goes on under its id; an id an earlier turn (or a rollback) has is a usage error."""
    repo.commit(BASE)
    apply(cli, edit("a.py", "line 3\n", "LINE 3\n"), "--turn", "t1")
    apply(cli, edit("a.py", "line 4\n", "LINE 4\n"))  # turn 1
    assert cli("rollback").code == 0  # turn 2, a rollback
    before = repo.snapshot()
    for taken in ("t1", "1", "2"):
        for extra in ((), ("--check",)):
            r = cli("apply", *extra, "--turn", taken, input=edit("b.py", "one\n", "ONE\n"))
            assert r.code == 2 and f"turn id {taken!r} is taken" in r.stderr and "new id" in r.stderr, r
    assert repo.snapshot() == before
    # The latest turn goes on: several applies, one turn (as the README says).
    apply(cli, edit("b.py", "one\n", "ONE\n"), "--turn", "t2")
    apply(cli, edit("b.py", "two\n", "TWO\n"), "--turn", "t2")
    log = cli("log", "--json").json()["turns"]
    assert [t["id"] for t in log] == ["t2", "2", "1", "t1"]
    assert [f["path"] for f in log[0]["files"]] == ["b.py"] and log[0]["added"] == 2


def test_turn_ids_are_validated(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """A newline would forge trailer lines in the ledger (and in `agent-log`): a usage error, nothing written."""
    import guard
    from guard.errors import UsageError

    repo.commit(BASE)
    before = repo.snapshot()
    bad = ["5\nAgent-Guard-Kind: rollback", "a b", "x,y", "t/1", "é", "", "x" * 65, "1\r"]
    for turn in bad:
        r = cli("apply", "--json", "--turn", turn, input=edit("a.py", "line 3\n", "LINE 3\n"))
        if turn == "":  # click gives an empty option value: no turn was named
            assert r.code == 0, r
            assert cli("rollback").code == 0
            before = repo.snapshot()
            continue
        assert r.code == 2 and "invalid turn id" in r.stderr and "letters, digits" in r.stderr, (turn, r)
        r = cli("apply", input=edit("a.py", "line 3\n", "LINE 3\n"), env={"AGENT_GUARD_TURN": turn})
        assert r.code == 2 and "$AGENT_GUARD_TURN" in r.stderr, (turn, r)
        with pytest.raises(UsageError, match="invalid turn id"):
            guard.apply(edit("a.py", "line 3\n", "LINE 3\n"), repo=repo.root, turn=turn)
    assert repo.snapshot() == before
    assert "Agent-Guard-Kind: rollback" not in cli("log").stdout
    ok = "v1.2_final-" + "x" * 53
    assert apply(cli, edit("a.py", "line 3\n", "LINE 3\n"), "--turn", ok)["turn"]["id"] == ok


# ---------------------------------------------------------------------- folders a turn created


def test_rollback_removes_the_folders_the_turn_created(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    (repo.root / "existing").mkdir()  # there before the turn, and empty: it stays
    before = repo.snapshot()
    text = json.dumps(
        [
            {"file_path": "new/deep/er/x.py", "content": "x\n"},
            {"file_path": "new/y.py", "content": "y\n"},
            {"file_path": "existing/sub/z.py", "content": "z\n"},
        ]
    )
    apply(cli, text)
    r = cli("rollback", "--check", "--json")
    assert r.code == 0 and "would remove" in " ".join(r.json()["notes"]), r
    assert (repo.root / "new" / "deep" / "er" / "x.py").exists()
    r = cli("rollback", "--json")
    assert r.code == 0, r
    assert "new/deep/er/, new/deep/, existing/sub/, new/" in " ".join(r.json()["notes"]), r
    assert {k: v for k, v in repo.snapshot().items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}
    assert not (repo.root / "new").exists() and (repo.root / "existing").is_dir()


def test_rollback_keeps_a_created_folder_that_holds_something(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(BASE)
    apply(cli, json.dumps({"file_path": "pkg/mod/a.py", "content": "a\n"}), "--turn", "t1")
    apply(cli, json.dumps({"file_path": "pkg/mod/b.py", "content": "b\n"}), "--turn", "t1")  # the same turn
    (repo.root / "pkg" / "notes.txt").write_text("the user's\n")  # beside the agent's folder
    apply(cli, json.dumps({"file_path": "pkg/later/c.py", "content": "c\n"}))  # a later turn, kept
    r = cli("rollback", "--turn", "t1", "--json")
    assert r.code == 0, r
    assert not (repo.root / "pkg" / "mod").exists()
    assert (repo.root / "pkg" / "notes.txt").read_text() == "the user's\n"
    assert (repo.root / "pkg" / "later" / "c.py").exists()
    # Undoing the rollback puts the files (and so their folder) back.
    assert cli("rollback").code == 0
    assert (repo.root / "pkg" / "mod" / "a.py").read_text() == "a\n"


def test_a_crash_after_the_folders_went_puts_them_back(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """The folders are removed inside the journaled write: killed after their removal, the rollback
    is undone whole by the next command, folders and files."""
    from conftest import python

    repo.commit(BASE)
    apply(cli, json.dumps([{"file_path": "made/by/agent.py", "content": "x\n"}, {"file_path": "b.py", "content": "B\n"}]))
    (repo.root / "made" / "by" / "agent.py").unlink()  # the user deleted the file: its folders are empty
    applied = repo.snapshot()
    r = python(repo.root, "-m", "guard", "rollback", env={"AGENT_GUARD_CRASH_AT": "after-dirs"})
    assert r.returncode == -9, r.stderr
    assert not (repo.root / "made").exists() and repo.read("b.py") == b"one\ntwo\nthree\n"
    assert python(repo.root, "-m", "guard", "log").returncode == 0  # the next command recovers
    assert repo.snapshot() == applied and (repo.root / "made" / "by").is_dir()
    # And the rollback, run again to the end, takes them away.
    assert cli("rollback").code == 0 and not (repo.root / "made").exists()
