"""A refused rollback says what unblocks it, and a rollback's report names the turns it undid.

A rollback merges into the files as they are now, so committing the later change that blocks
it changes nothing; the refusal once said "undo or commit that later change first" and then
refused the same way after the commit.  It now says what does unblock it (the lines back as
the turn left them, the later turn that changed them undone first, or the exact --force
command, which names the lines it would lose), and each way is tried here.
"""

from __future__ import annotations

import json

from conftest import Repo

BASE = "".join(f"line {i}\n" for i in range(1, 11))


def _edit(old: str, new: str) -> str:
    return json.dumps({"file_path": "a.txt", "old_string": old, "new_string": new})


def _blocked(repo: Repo, cli) -> str:  # type: ignore[no-untyped-def]
    """Turn 1 of claude changes line 3; then line 3 changes again (by the user). Returns claude's turn commit."""
    repo.commit({"a.txt": BASE})
    out = cli("apply", "--agent", "claude", "--json", input=_edit("line 3\n", "LINE 3\n")).json()
    repo.write({"a.txt": BASE.replace("line 3\n", "USER 3\n")})
    return str(out["turn"]["commit"])


def test_the_refusal_says_what_unblocks_it_and_committing_does_not(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    commit = _blocked(repo, cli)
    before = repo.snapshot()
    r = cli("rollback", "--agent", "claude", "--turn", "1")
    assert r.code == 1 and repo.snapshot() == before, r
    text = r.stdout
    assert "commit that later change" not in text  # the advice that did not work
    assert "committing the later change does not unblock it" in text, text
    assert f"git show {commit[:12]}:a.txt" in text, text
    assert "git agent-rollback --agent claude --turn 1 --force (preview it with --check)" in text, text
    assert "3| USER 3" in text  # the line --force would lose, as it reads now
    # Committed, it is refused the same way, and says the same.
    repo.git("commit", "-qam", "the user's line 3")
    after_commit = cli("rollback", "--agent", "claude", "--turn", "1")
    assert after_commit.code == 1 and after_commit.stdout == text, after_commit


def test_each_way_it_names_unblocks_it(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    commit = _blocked(repo, cli)
    # The --force it names: previewed, then run, loses exactly the line it named.
    preview = cli("rollback", "--agent", "claude", "--turn", "1", "--force", "--check")
    assert preview.code == 0 and "would undo turn 1" in preview.stdout, preview
    forced = cli("rollback", "--agent", "claude", "--turn", "1", "--force")
    assert forced.code == 0 and "undid turn 1 of claude" in forced.stdout, forced
    assert repo.read("a.txt").decode() == BASE
    # Putting the lines back as the turn left them (what `git show COMMIT:a.txt` prints) unblocks it too.
    cli("rollback", "--agent", "claude")  # undo the rollback: LINE 3 again
    repo.write({"a.txt": BASE.replace("line 3\n", "USER 3\n")})
    assert cli("rollback", "--agent", "claude", "--turn", "1").code == 1
    repo.write({"a.txt": repo.git("show", f"{commit}:a.txt")})
    assert cli("rollback", "--agent", "claude", "--turn", "1").code == 0
    assert repo.read("a.txt").decode() == BASE


def test_a_later_turn_that_changed_the_lines_is_named_and_undoing_it_unblocks(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": BASE})
    cli("apply", "--agent", "claude", input=_edit("line 3\n", "LINE 3\n"))
    cli("apply", "--agent", "codex", input=_edit("LINE 3\n", "CODEX 3\n"))
    r = cli("rollback", "--agent", "claude")
    assert r.code == 1, r
    assert "undo the later turn that changed it first: git agent-rollback --agent codex --turn 1" in r.stdout, r.stdout
    assert cli("rollback", "--agent", "codex", "--turn", "1").code == 0
    assert cli("rollback", "--agent", "claude").code == 0
    assert repo.read("a.txt").decode() == BASE


def test_the_report_names_the_turns_it_undid(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": BASE})
    for i in (1, 5, 9):
        cli("apply", "--agent", "claude", input=_edit(f"line {i}\n", f"LINE {i}\n"))
    one = cli("rollback", "--agent", "claude", "--turn", "2")
    assert one.code == 0 and "  undid turn 2 of claude\n" in one.stdout, one
    several = cli("rollback", "--agent", "claude", "--to", "1", "--check")
    assert several.code == 0 and "  would undo turns 4, 3\n" in several.stdout, several
